//! GRASP's outputs (ad-freiburg/grasp `outputs/*.jsonl`, docs/scoring.md, The
//! `grasp` profile): JSON Lines of `{id, sparql, elapsed}`, with `messages`
//! (the agent's whole conversation) and `error` where the agent failed, read as
//! a run. `sparql` is the query (even empty: GRASP executes it), `elapsed` the
//! latency in seconds; the token counts of the messages (an OpenAI `usage`
//! object on a message) are the usage where present, and each assistant
//! message is one model call.
//!
//! An output GRASP calls invalid (`grasp/utils.py` `is_invalid_model_output`:
//! an `error` that is not null, a tool message that reports a server error, a
//! message of role `error`) is kept as a failure: an empty answer, its reason
//! in the question's diagnostics and in [`INVALID`], never dropped.
//!
//! The messages can be large: they are read one at a time from the line's
//! bytes (no tree of the line is built) and only what the report uses is kept
//! (their number, the model calls, the token counts, the first failure).

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::keys::KeyScan;
use super::QaldError;
use crate::model::{AnswerSet, Dataset, Format, Query, Question, QuestionId};

/// The flag of an output GRASP calls invalid: why.
pub const INVALID: &str = "grasp.invalid";
/// The flag holding `elapsed` as written (seconds), which GRASP's `time` averages.
pub const ELAPSED: &str = "grasp.elapsed";
/// The flag holding the output's line in its file: GRASP sums in file order.
pub const LINE: &str = "grasp.line";

/// The keys of an output line: those read, and those GRASP writes that the
/// report does not use (the answer's text, the tool results, the entities
/// the agent met).
const KEYS: &[&str] = &[
    "id",
    "sparql",
    "elapsed",
    "messages",
    "error",
    "typ",
    "task",
    "answer",
    "result",
    "endpoint",
    "content",
    "questions",
    "known",
];

/// What GRASP's `is_server_error` looks for in a tool message.
const SERVER_ERRORS: [&str; 4] = [
    "503 server error",
    "502 server error",
    "read timed out. (read timeout=6)",
    "403 client error: forbidden for url",
];

/// The keys of a nested object that are kept: a message's, its `usage`'s, an
/// `error`'s.
const FIELDS: &[&str] = &[
    "role",
    "content",
    "usage",
    "reason",
    "prompt_tokens",
    "completion_tokens",
    "input_tokens",
    "output_tokens",
];

/// The most characters of a failure's text kept for its diagnostic.
const SNIPPET: usize = 200;

/// True when the first non-blank line is an object with `sparql` and
/// `elapsed` and no `question` (GRASP's benchmark files have one). Its
/// `messages` are read one at a time, not built.
pub fn looks_like(body: &[u8]) -> bool {
    let Some(first) = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
    else {
        return false;
    };
    let mut de = serde_json::Deserializer::from_slice(first);
    matches!(
        de.deserialize_any(OutputVisitor),
        Ok(Some(o)) if o.sparql != Scalar::Missing
            && o.elapsed != Scalar::Missing
            && !o.unknown.iter().any(|k| k == "question")
    )
}

/// Reads GRASP's outputs; a line that is not one JSON object is an error
/// naming it, a `null` line (GRASP skips it) a diagnostic.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let mut dataset = Dataset::new(Format::GraspOutputs);
    let mut scan = KeyScan::default();
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let n = i + 1;
        let mut de = serde_json::Deserializer::from_slice(line);
        let output = de
            .deserialize_any(OutputVisitor)
            .and_then(|o| de.end().map(|()| o))
            .map_err(|e| QaldError::Syntax {
                source_name: source.to_string(),
                line: n,
                column: e.column().max(1),
                message: format!(
                    "{}; GRASP's outputs are one json object per line ({{id, sparql, elapsed, messages, error}})",
                    super::strip_position(&e.to_string())
                ),
            })?;
        match output {
            Some(o) => dataset.questions.push(question(o, n, &mut scan)),
            None => dataset.diagnostics.push(format!(
                "line {n} is null, not an output; skipped, as GRASP skips it"
            )),
        }
    }
    dataset.unknown_keys = scan.finish();
    if dataset.questions.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    Ok(dataset)
}

/// The run question of the output on line `n`.
fn question(o: Output, n: usize, scan: &mut KeyScan) -> Question {
    let mut q = Question::default();
    q.id = match o.id {
        Scalar::Str(s) if !s.trim().is_empty() => QuestionId(s.trim().to_string()),
        Scalar::Number(x) => QuestionId(x.to_string()),
        other => {
            q.diagnostics.push(format!(
                "the output on line {n} has {} for `id`, not a string or number; named by its line (GRASP cannot score it)",
                other.kind()
            ));
            QuestionId(format!("#line {n}"))
        }
    };
    for key in &o.unknown {
        scan.unknown(format!("line.{key}"), &q.id.0);
    }
    q.flags.insert(LINE.into(), n.to_string());
    // an empty query is kept: GRASP executes it (and it fails)
    q.query = match o.sparql {
        Scalar::Str(s) => Query::Sparql(s),
        Scalar::Missing | Scalar::Null => Query::None,
        other => {
            q.diagnostics.push(format!(
                "question {}: `sparql` is {}, not a query written as a string; read as no query",
                q.id,
                other.kind()
            ));
            Query::None
        }
    };
    match o.elapsed {
        Scalar::Number(s) if s.is_finite() && (0.0..=1e12).contains(&s) => {
            q.usage.latency_ms = Some(s * 1000.0);
            q.flags.insert(ELAPSED.into(), s.to_string());
        }
        Scalar::Missing | Scalar::Null => {}
        Scalar::Number(x) => q.diagnostics.push(format!(
            "question {}: `elapsed` is {x}, not a number of seconds ≥ 0; no latency",
            q.id
        )),
        other => q.diagnostics.push(format!(
            "question {}: `elapsed` is {}, not a number of seconds ≥ 0; no latency",
            q.id,
            other.kind()
        )),
    }
    let m = o.messages;
    if m.count > 0 {
        q.usage.calls = Some(m.assistant);
        q.usage.prompt_tokens = m.prompt_tokens;
        q.usage.completion_tokens = m.completion_tokens;
    }
    if m.not_a_list {
        q.diagnostics.push(format!(
            "question {}: `messages` is not a list of messages; not read",
            q.id
        ));
    }
    if m.not_objects > 0 {
        q.diagnostics.push(format!(
            "question {}: {} of its {} messages are not objects; not read",
            q.id, m.not_objects, m.count
        ));
    }
    let invalid = error_text(&o.error)
        .map(|e| format!("the agent failed: {e}"))
        .or(m
            .failure
            .map(|(i, why)| format!("message {i} (0-based) {why}")));
    if let Some(why) = invalid {
        q.diagnostics.push(format!(
            "question {}: GRASP counts this output as invalid ({why}): a failure, its query not executed (docs/scoring.md, The `grasp` profile)",
            q.id
        ));
        q.flags.insert(INVALID.into(), why);
        // an answer given (empty), so that no profile executes its query
        q.answers = Some(AnswerSet::default());
    }
    q
}

/// `error` as a short text: its `reason` and `content` when an object (as
/// GRASP writes it), the string, or the value's kind; `None` when null or
/// absent (`model_output.get("error") is not None`).
fn error_text(error: &Scalar) -> Option<String> {
    match error {
        Scalar::Missing | Scalar::Null => None,
        Scalar::Str(s) => Some(snippet(s)),
        Scalar::Object(fields) => {
            let text = |k: &str| match field(fields, k) {
                Some(Scalar::Str(s)) => Some(snippet(s)),
                _ => None,
            };
            Some(match (text("reason"), text("content")) {
                (Some(r), Some(c)) => format!("{r}: {c}"),
                (Some(t), None) | (None, Some(t)) => t,
                (None, None) => "an error object".into(),
            })
        }
        Scalar::Number(x) => Some(x.to_string()),
        other => Some(other.kind().to_string()),
    }
}

/// The value of `key` among an object's fields.
fn field<'a>(fields: &'a [(String, Scalar)], key: &str) -> Option<&'a Scalar> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// The first characters of a text, on one line.
fn snippet(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(SNIPPET)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(SNIPPET).is_some() {
        out.push('…');
    }
    out
}

/// A value as a line writes it: scalars kept, an object's fields kept one
/// level down (a message, its `usage`, an `error`), lists only by their kind
/// (skipped, never built).
#[derive(Debug, Default, PartialEq)]
enum Scalar {
    #[default]
    Missing,
    Null,
    Bool,
    Number(f64),
    Str(String),
    List,
    Object(Vec<(String, Scalar)>),
}

impl Scalar {
    /// What the value is, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Scalar::Missing => "no value",
            Scalar::Null => "null",
            Scalar::Bool => "a boolean",
            Scalar::Number(_) => "a number",
            Scalar::Str(_) => "a string",
            Scalar::List => "a list",
            Scalar::Object(_) => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json value")
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_bool<E>(self, _v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        let mut fields = Vec::new();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if FIELDS.contains(&k.as_ref()) {
                fields.push((k.into_owned(), map.next_value()?));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Scalar::Object(fields))
    }
}

/// One output line, as much of it as the report uses.
#[derive(Default)]
struct Output {
    id: Scalar,
    sparql: Scalar,
    elapsed: Scalar,
    error: Scalar,
    messages: Messages,
    /// Keys GRASP does not write.
    unknown: Vec<String>,
}

/// Reads one line: an object ([`Output`]) or `null` (`None`).
struct OutputVisitor;

impl<'de> Visitor<'de> for OutputVisitor {
    type Value = Option<Output>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object per line")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut o = Output::default();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match k.as_ref() {
                "id" => o.id = map.next_value()?,
                "sparql" => o.sparql = map.next_value()?,
                "elapsed" => o.elapsed = map.next_value()?,
                "error" => o.error = map.next_value()?,
                "messages" => o.messages = map.next_value()?,
                other => {
                    if !KEYS.contains(&other) {
                        o.unknown.push(snippet(other));
                    }
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(o))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom("line holds a list, not a json object"))
    }
}

/// What is kept of the messages: their number, the model's calls, the token
/// counts where a message gives them, and the first failure GRASP sees.
#[derive(Debug, Default)]
struct Messages {
    count: u64,
    assistant: u64,
    not_objects: u64,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    /// (index, why) of the first failed tool call or error message.
    failure: Option<(u64, String)>,
    /// True when `messages` is neither a list nor null.
    not_a_list: bool,
}

impl Messages {
    /// Counts one message (`Scalar::Object`), or one that is not an object.
    fn add(&mut self, message: &Scalar) {
        let index = self.count;
        self.count += 1;
        let Scalar::Object(fields) = message else {
            self.not_objects += 1;
            return;
        };
        let role = match field(fields, "role") {
            Some(Scalar::Str(r)) => r.as_str(),
            _ => "",
        };
        self.assistant += u64::from(role == "assistant");
        if let Some(Scalar::Object(usage)) = field(fields, "usage") {
            let count = |keys: [&str; 2]| {
                keys.iter().find_map(|k| match field(usage, k) {
                    Some(Scalar::Number(x)) if *x >= 0.0 && x.fract() == 0.0 && *x < 1e15 => {
                        Some(*x as u64)
                    }
                    _ => None,
                })
            };
            let add = |sum: &mut Option<u64>, n: Option<u64>| {
                if let Some(n) = n {
                    *sum = Some(sum.unwrap_or(0).saturating_add(n));
                }
            };
            add(
                &mut self.prompt_tokens,
                count(["prompt_tokens", "input_tokens"]),
            );
            add(
                &mut self.completion_tokens,
                count(["completion_tokens", "output_tokens"]),
            );
        }
        if self.failure.is_some() {
            return;
        }
        let text = match field(fields, "content") {
            Some(Scalar::Str(c)) => Some(c.as_str()),
            _ => None,
        };
        // GRASP's `is_error` and `is_tool_fail` (`is_server_error`)
        self.failure = match (role, text) {
            ("error", t) => Some(format!(
                "is an error message: {}",
                t.map_or_else(|| "no text".into(), snippet)
            )),
            ("tool", Some(t)) if server_error(t) => {
                Some(format!("is a failed tool call: {}", snippet(t)))
            }
            _ => None,
        }
        .map(|why| (index, why));
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MessagesVisitor)
    }
}

/// Reads the messages one at a time, keeping what [`Messages`] counts.
struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Messages;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of messages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
        let mut out = Messages::default();
        while let Some(m) = seq.next_element::<Scalar>()? {
            out.add(&m);
        }
        Ok(out)
    }
    fn visit_unit<E>(self) -> Result<Messages, E> {
        Ok(Messages::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Messages, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Messages::not_a_list())
    }
    fn visit_bool<E>(self, _v: bool) -> Result<Messages, E> {
        Ok(Messages::not_a_list())
    }
    fn visit_i64<E>(self, _v: i64) -> Result<Messages, E> {
        Ok(Messages::not_a_list())
    }
    fn visit_u64<E>(self, _v: u64) -> Result<Messages, E> {
        Ok(Messages::not_a_list())
    }
    fn visit_f64<E>(self, _v: f64) -> Result<Messages, E> {
        Ok(Messages::not_a_list())
    }
    fn visit_str<E>(self, _v: &str) -> Result<Messages, E> {
        Ok(Messages::not_a_list())
    }
}

impl Messages {
    /// `messages` holding something other than a list.
    fn not_a_list() -> Messages {
        Messages {
            not_a_list: true,
            ..Messages::default()
        }
    }
}

/// GRASP's `is_server_error`: one of its phrases, case-insensitively.
fn server_error(text: &str) -> bool {
    let lower = text.to_lowercase();
    SERVER_ERRORS.iter().any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qald::parse as detect;

    #[test]
    fn outputs_read_as_a_run_with_latency_usage_and_invalid_outputs_kept() {
        let body = br#"{"id": "1", "sparql": "SELECT ?x WHERE { ?x ?p ?o }", "elapsed": 2.5, "error": null, "messages": [{"role": "system", "content": "x"}, {"role": "assistant", "content": "", "usage": {"prompt_tokens": 100, "completion_tokens": 7}}, {"role": "tool", "content": "ok"}, {"role": "assistant", "usage": {"prompt_tokens": 120, "completion_tokens": 3}}], "known": ["<a>"], "typ": "output"}
{"id": 2, "sparql": null, "elapsed": 1}
{"id": "3", "sparql": "ASK {}", "elapsed": 0, "error": {"content": "Failed to generate response:\nboom", "reason": "api"}}
{"id": "4", "sparql": "ASK {}", "elapsed": 0, "messages": [{"role": "tool", "content": "503 Server Error: Service Unavailable"}]}
{"id": "5", "sparql": "ASK {}", "elapsed": 0, "messages": [{"role": "user"}, {"role": "error", "content": "Unexpected finish reason"}], "extra": 1}
null
"#;
        let d = detect(body, "gpt.jsonl").expect("read");
        assert_eq!(d.format, Format::GraspOutputs);
        assert_eq!(d.questions.len(), 5);
        let q = &d.questions[0];
        assert!(matches!(q.query, Query::Sparql(_)));
        assert_eq!(q.usage.latency_ms, Some(2500.0));
        assert_eq!(q.usage.prompt_tokens, Some(220));
        assert_eq!(q.usage.completion_tokens, Some(10));
        assert_eq!(q.usage.calls, Some(2));
        assert_eq!(q.flags[ELAPSED], "2.5");
        assert_eq!(q.flags[LINE], "1");
        assert!(
            q.answers.is_none() && q.diagnostics.is_empty(),
            "{:?}",
            q.diagnostics
        );
        // a null query is no query, and a numeric id the same id as its text
        assert_eq!(d.questions[1].id.0, "2");
        assert_eq!(d.questions[1].query, Query::None);
        assert!(d.questions[1].usage.calls.is_none());
        for (i, why) in [
            (
                2,
                "the agent failed: api: Failed to generate response: boom",
            ),
            (
                3,
                "message 0 (0-based) is a failed tool call: 503 Server Error",
            ),
            (
                4,
                "message 1 (0-based) is an error message: Unexpected finish reason",
            ),
        ] {
            let q = &d.questions[i];
            assert!(q.flags[INVALID].starts_with(why), "{:?}", q.flags[INVALID]);
            assert!(q.diagnostics[0].contains("GRASP counts this output as invalid"));
            assert_eq!(q.answers, Some(AnswerSet::default()));
            assert!(matches!(q.query, Query::Sparql(_)), "the query is kept");
        }
        assert!(
            d.diagnostics[0].contains("line 6 is null"),
            "{:?}",
            d.diagnostics
        );
        assert_eq!(d.unknown_keys.len(), 1);
        assert_eq!(d.unknown_keys[0].path, "line.extra");
    }

    #[test]
    fn bad_values_are_diagnostics_and_a_bad_line_a_located_error() {
        let body = br#"{"id": null, "sparql": ["SELECT"], "elapsed": "soon", "messages": "none"}
{"id": [1, 2], "sparql": "ASK {}", "elapsed": -1, "messages": [1, null, {"role": "assistant"}]}
"#;
        let d = detect(body, "x.jsonl").expect("read");
        let (a, b) = (&d.questions[0], &d.questions[1]);
        assert_eq!(a.id.0, "#line 1");
        assert!(
            a.diagnostics[0].contains("has null for `id`"),
            "{:?}",
            a.diagnostics
        );
        assert!(a
            .diagnostics
            .iter()
            .any(|m| m.contains("`sparql` is a list")));
        assert!(a
            .diagnostics
            .iter()
            .any(|m| m.contains("`elapsed` is a string")));
        assert!(a
            .diagnostics
            .iter()
            .any(|m| m.contains("`messages` is not a list")));
        assert_eq!(b.id.0, "#line 2");
        assert!(b.diagnostics.iter().any(|m| m.contains("`elapsed` is -1")));
        assert!(b
            .diagnostics
            .iter()
            .any(|m| m.contains("2 of its 3 messages")));
        assert_eq!(b.usage.calls, Some(1));
        let e = detect(
            b"{\"id\": \"1\", \"sparql\": \"\", \"elapsed\": 0}\n[1]\n",
            "y.jsonl",
        )
        .expect_err("a list line")
        .to_string();
        assert!(
            e.starts_with("y.jsonl:2:") && e.contains("holds a list"),
            "{e}"
        );
        let e = detect(
            b"{\"id\": \"1\", \"sparql\": \"\", \"elapsed\": 0}\n{\"id\": \n",
            "z.jsonl",
        )
        .expect_err("cut")
        .to_string();
        assert!(e.starts_with("z.jsonl:2:"), "{e}");
    }

    #[test]
    fn benchmark_files_are_not_outputs() {
        assert!(!looks_like(
            br#"{"id": "1", "question": "q", "sparql": "ASK {}", "paraphrases": [], "info": {}}"#
        ));
        assert!(looks_like(
            br#"{"id": "1", "sparql": "ASK {}", "elapsed": 0}"#
        ));
        assert!(!looks_like(b"[1]"));
    }
}
