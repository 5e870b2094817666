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

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
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

/// The most characters of a failure's text kept for its diagnostic.
const SNIPPET: usize = 200;

/// The visitor methods of the scalars (null, booleans, numbers, strings), each
/// giving `$value`.
macro_rules! scalars {
    ($value:expr) => {
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_bool<E>(self, _v: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _v: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _v: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _v: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E>(self, _v: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// True when the first non-blank line is an object with `sparql` and
/// `elapsed` and no `question` (GRASP's benchmark files have one). Only its
/// keys are looked at: a large `messages` array is skipped, not built.
pub fn looks_like(body: &[u8]) -> bool {
    let Some(first) = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
    else {
        return false;
    };
    let mut de = serde_json::Deserializer::from_slice(first);
    matches!(
        de.deserialize_any(KeysOnly),
        Ok(Some(k)) if k.sparql && k.elapsed && !k.question
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
        other => q.diagnostics.push(format!(
            "question {}: `elapsed` is {}, not a number of seconds ≥ 0; no latency",
            q.id,
            other.kind_or_value()
        )),
    }
    let messages = o.messages;
    if messages.count > 0 {
        q.usage.calls = Some(messages.assistant);
        q.usage.prompt_tokens = messages.prompt_tokens;
        q.usage.completion_tokens = messages.completion_tokens;
    }
    if let Some(what) = messages.not_a_list {
        q.diagnostics.push(format!(
            "question {}: `messages` is {what}, not a list of messages; not read",
            q.id
        ));
    }
    if messages.not_objects > 0 {
        q.diagnostics.push(format!(
            "question {}: {} of its {} messages are not objects; not read",
            q.id, messages.not_objects, messages.count
        ));
    }
    let invalid = o
        .error
        .map(|e| format!("the agent failed: {e}"))
        .or(messages
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

/// A value as a line writes it: scalars kept, lists and objects only by their
/// kind (skipped, never built).
#[derive(Debug, Default, PartialEq)]
enum Scalar {
    #[default]
    Missing,
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    List,
    Object,
}

impl Scalar {
    /// What the value is, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Scalar::Missing => "no value",
            Scalar::Null => "null",
            Scalar::Bool(_) => "a boolean",
            Scalar::Number(_) => "a number",
            Scalar::Str(_) => "a string",
            Scalar::List => "a list",
            Scalar::Object => "an object",
        }
    }

    /// The value when it is a number, else its kind.
    fn kind_or_value(&self) -> String {
        match self {
            Scalar::Number(x) => x.to_string(),
            other => other.kind().to_string(),
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
    fn visit_none<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
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
    fn visit_string<E>(self, v: String) -> Result<Scalar, E> {
        Ok(Scalar::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Object)
    }
}

/// Which of the keys detection looks at a line has.
#[derive(Default)]
struct Keys {
    sparql: bool,
    elapsed: bool,
    question: bool,
}

/// Reads an object's keys only (`None` for any other value).
struct KeysOnly;

impl<'de> Visitor<'de> for KeysOnly {
    type Value = Option<Keys>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = Keys::default();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match k.as_ref() {
                "sparql" => keys.sparql = true,
                "elapsed" => keys.elapsed = true,
                "question" => keys.question = true,
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(Some(keys))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Self::Value, A::Error> {
        Ok(None)
    }
    scalars!(None);
}

/// One output line, as much of it as the report uses.
#[derive(Default)]
struct Output {
    id: Scalar,
    sparql: Scalar,
    elapsed: Scalar,
    /// Why the agent failed (`error` not null), as a short text.
    error: Option<String>,
    messages: Messages,
    /// Keys GRASP does not write.
    unknown: Vec<String>,
}

/// Reads one line: an object ([`Output`]) or `null` (`None`).
struct OutputVisitor;

impl<'de> Visitor<'de> for OutputVisitor {
    type Value = Option<Output>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
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
                "error" => o.error = map.next_value::<ErrorText>()?.0,
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
    fn visit_bool<E: de::Error>(self, _v: bool) -> Result<Self::Value, E> {
        Err(E::custom("line holds a boolean, not a json object"))
    }
    fn visit_i64<E: de::Error>(self, _v: i64) -> Result<Self::Value, E> {
        Err(E::custom("line holds a number, not a json object"))
    }
    fn visit_u64<E: de::Error>(self, _v: u64) -> Result<Self::Value, E> {
        Err(E::custom("line holds a number, not a json object"))
    }
    fn visit_f64<E: de::Error>(self, _v: f64) -> Result<Self::Value, E> {
        Err(E::custom("line holds a number, not a json object"))
    }
    fn visit_str<E: de::Error>(self, _v: &str) -> Result<Self::Value, E> {
        Err(E::custom("line holds a string, not a json object"))
    }
}

/// `error` as a short text: its `reason` and `content` when an object (as
/// GRASP writes it), the string, or the value's kind; `None` when null.
struct ErrorText(Option<String>);

impl<'de> Deserialize<'de> for ErrorText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ErrorText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a json value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ErrorText, A::Error> {
                let (mut reason, mut content) = (None, None);
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match (k.as_ref(), map.next_value::<Scalar>()?) {
                        ("reason", Scalar::Str(s)) => reason = Some(snippet(&s)),
                        ("content", Scalar::Str(s)) => content = Some(snippet(&s)),
                        _ => {}
                    }
                }
                Ok(ErrorText(Some(match (reason, content) {
                    (Some(r), Some(c)) => format!("{r}: {c}"),
                    (Some(t), None) | (None, Some(t)) => t,
                    (None, None) => "an error object".into(),
                })))
            }
            fn visit_unit<E>(self) -> Result<ErrorText, E> {
                Ok(ErrorText(None))
            }
            fn visit_none<E>(self) -> Result<ErrorText, E> {
                Ok(ErrorText(None))
            }
            fn visit_str<E>(self, v: &str) -> Result<ErrorText, E> {
                Ok(ErrorText(Some(snippet(v))))
            }
            fn visit_bool<E>(self, v: bool) -> Result<ErrorText, E> {
                Ok(ErrorText(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ErrorText, E> {
                Ok(ErrorText(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ErrorText, E> {
                Ok(ErrorText(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ErrorText, E> {
                Ok(ErrorText(Some(v.to_string())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ErrorText, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ErrorText(Some("a list".into())))
            }
        }
        d.deserialize_any(V)
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
    /// What `messages` is when it is not a list (nor null).
    not_a_list: Option<&'static str>,
}

impl Messages {
    /// `messages` holding `what`, not a list.
    fn not_a_list(what: &'static str) -> Messages {
        Messages {
            not_a_list: Some(what),
            ..Messages::default()
        }
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MessagesVisitor)
    }
}

struct MessagesVisitor;

impl<'de> Visitor<'de> for MessagesVisitor {
    type Value = Messages;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of messages")
    }
    fn visit_unit<E>(self) -> Result<Messages, E> {
        Ok(Messages::default())
    }
    fn visit_bool<E>(self, _v: bool) -> Result<Messages, E> {
        Ok(Messages::not_a_list("a boolean"))
    }
    fn visit_i64<E>(self, _v: i64) -> Result<Messages, E> {
        Ok(Messages::not_a_list("a number"))
    }
    fn visit_u64<E>(self, _v: u64) -> Result<Messages, E> {
        Ok(Messages::not_a_list("a number"))
    }
    fn visit_f64<E>(self, _v: f64) -> Result<Messages, E> {
        Ok(Messages::not_a_list("a number"))
    }
    fn visit_str<E>(self, _v: &str) -> Result<Messages, E> {
        Ok(Messages::not_a_list("a string"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Messages, A::Error> {
        let mut out = Messages::default();
        while let Some(m) = seq.next_element_seed(MessageSeed)? {
            let index = out.count;
            out.count += 1;
            let Some(m) = m else {
                out.not_objects += 1;
                continue;
            };
            if m.role == "assistant" {
                out.assistant += 1;
            }
            let add = |sum: &mut Option<u64>, n: Option<u64>| {
                if let Some(n) = n {
                    *sum = Some(sum.unwrap_or(0).saturating_add(n));
                }
            };
            add(&mut out.prompt_tokens, m.prompt_tokens);
            add(&mut out.completion_tokens, m.completion_tokens);
            if out.failure.is_none() {
                out.failure = m.failure.map(|why| (index, why));
            }
        }
        Ok(out)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Messages, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Messages::not_a_list("an object"))
    }
}

/// One message, as much of it as is kept.
struct Message {
    role: String,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    /// Why GRASP calls it a failure (`is_tool_fail`, `is_error`).
    failure: Option<String>,
}

/// Reads one message (`None` when it is not an object).
struct MessageSeed;

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = Option<Message>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MessageSeed {
    type Value = Option<Message>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut role, mut content, mut tokens) =
            (Scalar::Missing, Scalar::Missing, Tokens::default());
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match k.as_ref() {
                "role" => role = map.next_value()?,
                "content" => content = map.next_value()?,
                "usage" => tokens = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let role = match role {
            Scalar::Str(r) => r,
            _ => String::new(),
        };
        let text = match &content {
            Scalar::Str(c) => Some(c.as_str()),
            _ => None,
        };
        let failure = match (role.as_str(), text) {
            ("error", t) => Some(format!(
                "is an error message: {}",
                t.map_or_else(|| "no text".into(), snippet)
            )),
            ("tool", Some(t)) if server_error(t) => {
                Some(format!("is a failed tool call: {}", snippet(t)))
            }
            _ => None,
        };
        Ok(Some(Message {
            role,
            prompt_tokens: tokens.prompt,
            completion_tokens: tokens.completion,
            failure,
        }))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    scalars!(None);
}

/// GRASP's `is_server_error`: one of its phrases, case-insensitively.
fn server_error(text: &str) -> bool {
    let lower = text.to_lowercase();
    SERVER_ERRORS.iter().any(|p| lower.contains(p))
}

/// A message's `usage` object: OpenAI's or Anthropic's counts, where they are
/// whole numbers ≥ 0.
#[derive(Default)]
struct Tokens {
    prompt: Option<u64>,
    completion: Option<u64>,
}

impl<'de> Deserialize<'de> for Tokens {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tokens;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a usage object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tokens, A::Error> {
                let mut t = Tokens::default();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let count = match map.next_value::<Scalar>()? {
                        Scalar::Number(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => {
                            Some(x as u64)
                        }
                        _ => None,
                    };
                    match k.as_ref() {
                        "prompt_tokens" | "input_tokens" => t.prompt = t.prompt.or(count),
                        "completion_tokens" | "output_tokens" => {
                            t.completion = t.completion.or(count);
                        }
                        _ => {}
                    }
                }
                Ok(t)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tokens, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Tokens::default())
            }
            scalars!(Tokens::default());
        }
        d.deserialize_any(V)
    }
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
            .any(|m| m.contains("`messages` is a string")));
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
