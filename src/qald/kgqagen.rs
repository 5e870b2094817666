//! KGQAGen-10k (Zhang et al. 2025, Wikidata; docs/scoring.md, Other benchmark
//! families): JSON Lines (or a JSON array) of `{id, seed, question, answer,
//! sparql, proof}`. `answer` is a list of bare labels in the released
//! `data.jsonl` and of `"Label (QID)"` in its README's example, and the
//! authors' scorer also takes an object (its values): all three are read, an
//! answer written with its id being that entity's IRI with the label beside
//! it, the string as written kept for the scripts that compare strings.
//! `answer` is also kept as written (the `answer` flag, JSON text) for the
//! `kgqagen` profile. `proof` (`[subject, predicate, object]`, each
//! `"Label (QID)"`, `"label (Pnn)"` or a literal) is the question's gold
//! subgraph ([`Question::subgraph`]), `seed` a flag, `sparql` the query
//! (Wikidata's prefixes undeclared, as its endpoint predefines them).

use serde_json::{Map, Value};

use super::family::{first_line_object, json_lines, kind, labelled_id, push_answer, triples};
use super::keys::KeyScan;
use super::values::{id_of, scalar_string};
use super::QaldError;
use crate::model::{Answer, AnswerSet, Dataset, Format, Query, Question, QuestionId, Term};

/// Keys of one record.
const KEYS: &[&str] = &["id", "seed", "question", "answer", "sparql", "proof"];

/// The flag holding `answer` as written (JSON text).
pub const ANSWER: &str = "answer";

/// What a file of this family holds, for messages.
const RECORD: &str = "a KGQAGen file {id, seed, question, answer, sparql, proof}";

/// True for a KGQAGen record: `question`, `answer` and `proof`.
pub fn is_record(o: &Map<String, Value>) -> bool {
    ["question", "answer", "proof"]
        .iter()
        .all(|k| o.contains_key(*k))
}

/// True when the first non-blank line is a KGQAGen record.
pub fn looks_like(body: &[u8]) -> bool {
    first_line_object(body).is_some_and(|o| is_record(&o))
}

/// Reads KGQAGen's JSON Lines; a line that is not one JSON object is an
/// error naming it.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let lines = json_lines(body, source, RECORD)?;
    Ok(read(
        lines
            .into_iter()
            .map(|(n, o)| (format!("line {n}"), o))
            .collect(),
    ))
}

/// Reads a JSON array of the same records; an item that is not an object is
/// a diagnostic.
pub fn parse_items(items: Vec<Value>) -> Dataset {
    let mut bad = Vec::new();
    let records = items
        .into_iter()
        .enumerate()
        .filter_map(|(i, v)| match v {
            Value::Object(o) => Some((format!("item {i} (0-based)"), o)),
            other => {
                bad.push(format!(
                    "item {i} (0-based) is {}, not a json object; skipped",
                    kind(&other)
                ));
                None
            }
        })
        .collect();
    let mut d = read(records);
    d.diagnostics.extend(bad);
    d
}

/// The dataset of the records, each named by where it is.
fn read(records: Vec<(String, Map<String, Value>)>) -> Dataset {
    let mut dataset = Dataset::new(Format::Kgqagen);
    let mut scan = KeyScan::default();
    for (place, o) in records {
        let mut q = Question::default();
        q.id = id_of(o.get("id")).unwrap_or_else(|| {
            q.diagnostics.push(format!(
                "the record at {place} has no `id` (a string or number); named by its place"
            ));
            QuestionId(format!("#{place}"))
        });
        scan.object(&o, "line", KEYS, &q.id.0);
        match o.get("question") {
            Some(Value::String(t)) if !t.trim().is_empty() => {
                q.texts.push(("en".into(), t.trim().to_string()));
            }
            other => q.diagnostics.push(format!(
                "question {}: `question` is {}, not a question text",
                q.id,
                other.map_or("missing", kind)
            )),
        }
        if let Some(seed) = o.get("seed").and_then(scalar_string) {
            q.flags.insert("seed".into(), seed);
        }
        if let Some(answer) = o.get("answer") {
            q.flags.insert(ANSWER.into(), answer.to_string());
            q.answers = Some(answers(answer, &q.id, &mut q.diagnostics));
        }
        q.query = match o.get("sparql") {
            Some(Value::String(s)) if !s.trim().is_empty() => Query::Sparql(s.trim().to_string()),
            None | Some(Value::Null) => Query::None,
            Some(Value::String(_)) => Query::None,
            Some(other) => {
                q.diagnostics.push(format!(
                    "question {}: `sparql` is {}, not a query written as a string; read as no query",
                    q.id,
                    kind(other)
                ));
                Query::None
            }
        };
        q.subgraph = triples(o.get("proof"), "proof", &q.id, &mut q.diagnostics);
        dataset.questions.push(q);
    }
    dataset.unknown_keys = scan.finish();
    if dataset.questions.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    dataset
}

/// The answers of `answer`: a list, an object (its values, in key order) or
/// one string. A string `Label (QID)` is the entity's IRI with its label
/// beside it, the string kept as written; any other string is read as
/// [`push_answer`] reads it (a name a literal).
fn answers(value: &Value, id: &QuestionId, diagnostics: &mut Vec<String>) -> AnswerSet {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(map) => map.values().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    let mut set = AnswerSet::default();
    for item in items {
        let Some(text) = scalar_string(item) else {
            diagnostics.push(format!(
                "question {id}: the answer {item} is {}, not a label; ignored",
                kind(item)
            ));
            continue;
        };
        match labelled_id(&text) {
            Some((label, qid)) if qid.starts_with('Q') => {
                set.raw_values.push((set.answers.len(), 0, text.clone()));
                set.answers.push(Answer {
                    terms: vec![
                        Term::Iri(format!("http://www.wikidata.org/entity/{qid}")),
                        Term::plain(label),
                    ],
                });
            }
            _ => push_answer(&mut set, &text, &[]),
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qald::parse;

    #[test]
    fn both_answer_shapes_and_the_proof_are_read() {
        let body = r#"{"id": 1, "seed": "Q74957", "question": "Which entity?", "answer": ["Haicheng (Q1011073)"], "sparql": "SELECT ?x WHERE { wd:Q74957 wdt:P150 ?x }", "proof": [["Anshan (Q74957)", "contains the administrative territorial entity (P150)", "Haicheng (Q1011073)"], ["a", "b"]]}
{"id": 2, "seed": "Q210636", "question": "Which capital?", "answer": ["Santo António"], "sparql": "SELECT 1", "proof": [], "extra": 1}
"#;
        let d = parse(body.as_bytes(), "data.jsonl").expect("read");
        assert_eq!(d.format, Format::Kgqagen);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "1");
        assert_eq!(q.flags["seed"], "Q74957");
        assert_eq!(q.flags[ANSWER], r#"["Haicheng (Q1011073)"]"#);
        let set = q.answers.as_ref().expect("answers");
        assert_eq!(
            set.answers[0].terms,
            [
                Term::Iri("http://www.wikidata.org/entity/Q1011073".into()),
                Term::plain("Haicheng")
            ]
        );
        assert_eq!(set.raw_values, [(0, 0, "Haicheng (Q1011073)".to_string())]);
        assert_eq!(q.subgraph.len(), 1);
        assert_eq!(q.subgraph[0][2], "Haicheng (Q1011073)");
        assert!(
            q.diagnostics[0].contains("`proof` item 1"),
            "{:?}",
            q.diagnostics
        );
        let q = &d.questions[1];
        assert_eq!(
            q.answers.as_ref().expect("answers").answers[0].terms,
            [Term::plain("Santo António")]
        );
        assert_eq!(d.unknown_keys.len(), 1);
        assert_eq!(d.unknown_keys[0].path, "line.extra");
    }

    #[test]
    fn an_object_answer_gives_its_values_and_a_bad_line_is_named() {
        let d = parse_items(vec![serde_json::json!({
            "id": "a", "question": "q?", "answer": {"Q1": "One", "Q2": "Two"}, "proof": null
        })]);
        let set = d.questions[0].answers.as_ref().expect("answers");
        assert_eq!(set.answers.len(), 2);
        let e = parse(
            b"{\"id\": 1, \"question\": \"q\", \"answer\": [], \"proof\": []}\n{\"id\": 2,\n",
            "k.jsonl",
        )
        .expect_err("a broken line")
        .to_string();
        assert!(e.starts_with("k.jsonl:2:"), "{e}");
    }
}
