//! The prediction files LLM-based KGQA systems write: JSON Lines (or a JSON
//! array) of Reasoning on Graphs' `{id, question, prediction, ground_truth,
//! input}`, and Think-on-Graph's outputs `{question, results,
//! reasoning_chains}` (the question under its dataset's key: `question`,
//! `RawQuestion`, `input`, `sentence`), whose answer is the text between the
//! first braces of `results`, else all of it, and which join the gold by
//! question text ([`Dataset::join_by_text`]). `prediction` is a string (several answers
//! one per line) or a list, in the model's order; each answer is a name (a
//! literal) or an id (an IRI). The file carries its own gold: `ground_truth`
//! (names) becomes [`Dataset::own_gold`], so the file is scored alone
//! (docs/scoring.md, Other benchmark families). A line without `id` is named by
//! its 0-based position among the records. `prediction` and `ground_truth` are
//! also kept as written (flags, JSON text), for the profiles that reproduce a
//! script's own reading of them. The triples a system retrieved
//! (`retrieved_triples`, or `subgraph`: `[[subject, predicate, object], …]`)
//! are the run question's subgraph (docs/scoring.md, Subgraph retrieval).

use serde_json::{Map, Value};

use super::family::{flag_text, push_answer, strings, triples};
use super::keys::KeyScan;
use super::values::id_of;
use super::QaldError;
use crate::model::{AnswerSet, Dataset, Format, Question, QuestionId};

/// Keys of one record.
const KEYS: &[&str] = &[
    "id",
    "question",
    "prediction",
    "ground_truth",
    "input",
    "results",
    "reasoning_chains",
    "RawQuestion",
    "sentence",
    "retrieved_triples",
    "subgraph",
];

/// The keys a run gives the triples it retrieved under ([`Question::subgraph`];
/// docs/scoring.md, Subgraph retrieval), the first present read.
pub const RETRIEVED: &[&str] = &["retrieved_triples", "subgraph"];

/// The flag holding `prediction` as written, as JSON text (a string quoted, a
/// list in brackets), so that a string is never taken for a list.
pub const PREDICTION: &str = "prediction";
/// The flag holding `input` (the prompt the model was given).
pub const INPUT: &str = "input";
/// The flag holding a ToG output's `results` (the model's answer text).
pub const RESULTS: &str = "results";
/// The keys a ToG output names its question by, one per dataset (`question`;
/// WebQSP's `RawQuestion`; `input`, `sentence` of other sets).
const QUESTION_KEYS: &[&str] = &["question", "RawQuestion", "input", "sentence"];

/// True when the first non-blank line is one JSON object with `prediction` and
/// `ground_truth` or `question`, or ToG's `results` and a question.
pub fn looks_like(body: &[u8]) -> bool {
    let first = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    let Some(Ok(Value::Object(o))) = first.map(serde_json::from_slice::<Value>) else {
        return false;
    };
    is_record(&o)
}

/// True for a record of this family: `prediction` with `ground_truth` or
/// `question`, or a ToG output (`results` and a question key).
pub fn is_record(o: &Map<String, Value>) -> bool {
    (o.contains_key("prediction") && (o.contains_key("ground_truth") || o.contains_key("question")))
        || (o.contains_key(RESULTS) && QUESTION_KEYS.iter().any(|k| o.contains_key(*k)))
}

/// Parses a prediction file in JSON Lines; a line that is not one JSON object
/// is an error naming it.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let mut records = Vec::new();
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        if !line.iter().all(u8::is_ascii_whitespace) {
            records.push((format!("line {}", n + 1), object(line, n + 1, source)?));
        }
    }
    Ok(read(records))
}

/// Reads a JSON array of the same records (ToG's `ToG_cwq.json`); an item
/// that is not an object is a diagnostic.
pub fn parse_items(items: Vec<Value>) -> Dataset {
    let mut bad = Vec::new();
    let records = items
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Value::Object(o) => Some((format!("item {i} (0-based)"), o)),
            _ => {
                bad.push(format!("item {i} (0-based) is not a json object; skipped"));
                None
            }
        })
        .collect();
    let mut d = read(records);
    d.diagnostics.extend(bad);
    d
}

/// The run of the records (each named by where it is, for messages), and the
/// gold they carry.
fn read(records: Vec<(String, Map<String, Value>)>) -> Dataset {
    let mut run = Dataset::new(Format::LlmPredictions);
    let mut gold = Dataset::new(Format::LlmPredictions);
    let mut scan = KeyScan::default();
    let mut with_gold = 0usize;
    let mut without_id = 0usize;
    for (position, (place, o)) in records.into_iter().enumerate() {
        let id = id_of(o.get("id")).unwrap_or_else(|| {
            without_id += 1;
            QuestionId(position.to_string())
        });
        scan.object_of(&o, "line", &[KEYS, super::usage::KEYS], &id.0);
        super::usage::scan(&o, "line", &id.0, &mut scan);
        let q = run_question(id, &place, &o);
        let g = gold_question(&q, &o);
        with_gold += usize::from(g.answers.is_some());
        gold.questions.push(g);
        run.questions.push(q);
    }
    run.unknown_keys = scan.finish();
    if run.questions.is_empty() {
        run.diagnostics.push("the file holds no question".into());
    }
    // ToG's outputs name their questions by text only: they join the gold so
    run.join_by_text = without_id > 0 && with_gold == 0;
    if with_gold > 0 {
        if with_gold < gold.questions.len() {
            gold.diagnostics.push(format!(
                "{} of {} records have no `ground_truth`: their gold is unknown",
                gold.questions.len() - with_gold,
                gold.questions.len()
            ));
        }
        run.own_gold = Some(Box::new(gold));
    }
    run
}

/// The run question of record `o` (at `place`): its usage, text, the flags
/// that keep what the model wrote as written, its predicted answers and the
/// triples it retrieved.
fn run_question(id: QuestionId, place: &str, o: &Map<String, Value>) -> Question {
    let mut q = Question {
        id,
        ..Question::default()
    };
    super::usage::read(o, &mut q);
    for d in &mut q.diagnostics {
        *d = format!("question {} ({place}): {d}", q.id);
    }
    let text = QUESTION_KEYS
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str));
    if let Some(t) = text {
        q.texts.push(("en".into(), t.trim().to_string()));
    }
    for key in [PREDICTION, RESULTS, "reasoning_chains"] {
        if let Some(v) = o.get(key).filter(|v| !v.is_null()) {
            q.flags.insert(key.into(), v.to_string());
        }
    }
    if let Some(text) = o.get(INPUT).and_then(flag_text) {
        q.flags.insert(INPUT.into(), text);
    }
    q.answers = Some(predicted(o, place, &mut q));
    if let Some(key) = RETRIEVED.iter().find(|k| o.contains_key(**k)) {
        q.subgraph = triples(o.get(*key), key, &q.id, &mut q.diagnostics);
    }
    q
}

/// The answers of a record: its `prediction` (a string, one answer a line,
/// or a list), else ToG's `results` (the text between braces, else all of
/// it); one of another kind is no answer, said in `q`'s diagnostics.
fn predicted(o: &Map<String, Value>, place: &str, q: &mut Question) -> AnswerSet {
    let mut set = AnswerSet::default();
    match o.get("prediction").or_else(|| o.get(RESULTS)) {
        Some(Value::String(s)) if o.contains_key("prediction") => {
            for name in s.split('\n').filter(|l| !l.trim().is_empty()) {
                push_answer(&mut set, name, &[]);
            }
        }
        Some(Value::String(s)) => {
            // ToG: the text between braces, else the whole answer text
            let answer = braced(s).unwrap_or(s);
            if !answer.trim().is_empty() {
                push_answer(&mut set, answer, &[]);
            }
        }
        Some(list @ Value::Array(_)) => {
            for name in strings(Some(list)) {
                push_answer(&mut set, &name, &[]);
            }
        }
        None | Some(Value::Null) => {}
        Some(other) => q.diagnostics.push(format!(
            "question {} ({place}): the prediction {other} is neither a string nor a list; read as no answer",
            q.id
        )),
    }
    set
}

/// The gold question a record carries for run question `q`: its id and
/// texts, and the names of its `ground_truth` as answers (an item that is a
/// list of names: one answer and its aliases); no answers without one.
fn gold_question(q: &Question, o: &Map<String, Value>) -> Question {
    let mut g = Question {
        id: q.id.clone(),
        texts: q.texts.clone(),
        ..Question::default()
    };
    if let Some(truth) = o.get("ground_truth").filter(|v| !v.is_null()) {
        g.flags.insert("ground_truth".into(), truth.to_string());
        let mut set = AnswerSet::default();
        match truth {
            // an item that is a list of names is one answer with its aliases
            Value::Array(items) => {
                for item in items {
                    let names = strings(Some(item));
                    if let Some((first, aliases)) = names.split_first() {
                        let aliases: Vec<&str> = aliases.iter().map(String::as_str).collect();
                        push_answer(&mut set, first, &aliases);
                    }
                }
            }
            other => {
                for name in strings(Some(other)) {
                    push_answer(&mut set, &name, &[]);
                }
            }
        }
        g.answers = Some(set);
    }
    g
}

/// ToG's `clean_results`: the text after the first `{` up to the first `}`
/// (Python's slice: without a `}`, all but the last character; a `}` before
/// the `{`, nothing); `None` when there is no `{`.
pub fn braced(s: &str) -> Option<&str> {
    let start = s.find('{')? + 1;
    let end = match s.find('}') {
        Some(e) => e,
        None => s.char_indices().last().map_or(0, |(i, _)| i),
    };
    Some(if end <= start { "" } else { &s[start..end] })
}

/// One line as a JSON object, or an error naming the line.
fn object(line: &[u8], n: usize, source: &str) -> Result<Map<String, Value>, QaldError> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(QaldError::Syntax {
            source_name: source.to_string(),
            line: n,
            column: 1,
            message: "line is not a json object; a prediction file has one object {id, question, prediction, ground_truth} per line".into(),
        }),
        Err(e) => Err(QaldError::Syntax {
            source_name: source.to_string(),
            line: n,
            column: e.column(),
            message: format!(
                "invalid json: {}; a prediction file has one complete object per line",
                super::strip_position(&e.to_string())
            ),
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Term};
    use crate::qald::parse;

    #[test]
    fn predictions_and_their_own_gold() {
        let body = br#"{"id": "WebQTest-0", "question": "what does jamaican people speak", "prediction": "Jamaican English\nJamaican Creole English Language\n", "ground_truth": ["Jamaican Creole English Language", "Jamaican English"], "input": "..."}
{"id": "WebQTest-1", "question": "q", "prediction": ["m.0a", "B"], "ground_truth": ["B"]}

{"question": "no id", "prediction": "", "ground_truth": [], "score": 1}
"#;
        let d = parse(body, "predictions.jsonl").unwrap();
        assert_eq!(d.format, Format::LlmPredictions);
        assert_eq!(d.questions.len(), 3);
        let first = d.questions[0].answers.as_ref().unwrap();
        assert_eq!(first.answers.len(), 2);
        assert_eq!(first.answers[0].terms, [Term::plain("Jamaican English")]);
        let second = d.questions[1].answers.as_ref().unwrap();
        assert_eq!(
            second.answers[0].terms,
            [Term::Iri("http://rdf.freebase.com/ns/m.0a".into())]
        );
        assert_eq!(d.questions[2].id.0, "2");
        assert!(d.questions[2].answers.as_ref().unwrap().is_empty());
        assert_eq!(d.unknown_keys[0].path, "line.score");
        let gold = d.own_gold.as_ref().expect("own gold");
        assert_eq!(gold.questions.len(), 3);
        assert_eq!(gold.questions[0].answers.as_ref().unwrap().answers.len(), 2);
        assert!(gold.questions[2].answers.as_ref().unwrap().is_empty());
    }

    #[test]
    fn tog_outputs_take_the_braced_text_and_join_by_text() {
        assert_eq!(super::braced("The answer is {Obama}."), Some("Obama"));
        assert_eq!(super::braced("x {ab"), Some("a"));
        assert_eq!(super::braced("}{a}"), Some(""));
        assert_eq!(super::braced("no braces"), None);
        let d = parse(
            br#"[{"RawQuestion": "who?", "results": "It is {Jaxon Bieber}.", "reasoning_chains": []},
                 {"question": "when?", "results": "I think 1990"}]"#,
            "ToG_webqsp.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::LlmPredictions);
        assert!(d.join_by_text && d.own_gold.is_none());
        assert_eq!(d.questions[0].text("en"), Some("who?"));
        assert_eq!(
            d.questions[0].answers.as_ref().unwrap().answers[0].terms,
            [Term::plain("Jaxon Bieber")]
        );
        assert_eq!(
            d.questions[1].answers.as_ref().unwrap().answers[0].terms,
            [Term::plain("I think 1990")]
        );
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    }

    #[test]
    fn aliases_and_retrieved_triples() {
        let d = parse(
            br#"{"id": "d5", "prediction": "It is the Gateway Arch city", "ground_truth": [["St. Louis", "Gateway Arch"], "Missouri"], "retrieved_triples": [["wd:Q201013", "wdt:P131", "wd:Q38022"], ["bad"]]}"#,
            "p.jsonl",
        )
        .unwrap();
        let q = &d.questions[0];
        assert_eq!(
            q.subgraph,
            [["wd:Q201013", "wdt:P131", "wd:Q38022"].map(String::from)]
        );
        assert!(
            q.diagnostics[0].contains("`retrieved_triples` item 1"),
            "{:?}",
            q.diagnostics
        );
        let gold = d.own_gold.as_ref().expect("own gold");
        let set = gold.questions[0].answers.as_ref().unwrap();
        assert_eq!(
            set.answers[0].terms,
            [Term::plain("St. Louis"), Term::plain("Gateway Arch")]
        );
        assert_eq!(set.answers[1].terms, [Term::plain("Missouri")]);
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = parse(
            b"{\"id\": 1, \"prediction\": \"a\", \"ground_truth\": [\"a\"]}\n{\"id\": 2, \"prediction\": \n",
            "p.jsonl",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p.jsonl:2:"), "{e}");
    }
}
