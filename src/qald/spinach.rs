//! The Wikidata benchmarks of Stanford OVAL's SPINACH work (docs/scoring.md,
//! Other benchmark families): WikiWebQuestions, SPINACH and their copies of
//! QALD as `[{id, question, sparql}]` (SPINACH adds `title` and `url`; no
//! answers: they come from executing the query on a knowledge graph), and the
//! runs of the SPINACH agent, `[{question, predicted_sparql, gold_sparql,
//! predicted_answer_tuple, gold_answer_tuple}]`, whose result rows are SPARQL
//! JSON bindings (or a boolean for ASK). A run carries its own gold: the
//! `gold_*` fields are read into [`Dataset::own_gold`]. A run has no ids: its
//! questions are numbered by position from 0, as the SPINACH evaluation keeps
//! them.

use serde_json::{Map, Value};

use super::items::parse_items;
use super::keys::{self, KeyScan};
use super::values::{read_row, scalar_string, BindingParts};
use crate::model::{Answer, AnswerSet, Dataset, Format, Query, Question, QuestionId, Term};

/// True when a record is a SPINACH run's.
pub fn is_run(record: &Map<String, Value>) -> bool {
    record.contains_key("predicted_sparql")
        && (record.contains_key("predicted_answer_tuple")
            || record.contains_key("gold_answer_tuple"))
}

/// True when a record is WikiWebQuestions' or SPINACH's (`id`, `question`,
/// `sparql`, nothing of another family).
pub fn is_dataset(record: &Map<String, Value>) -> bool {
    ["id", "question", "sparql"]
        .iter()
        .all(|k| record.contains_key(*k))
        && record.get("question").is_some_and(Value::is_string)
}

/// Reads WikiWebQuestions / SPINACH records.
pub fn parse_dataset(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::Spinach, "id", keys::SPINACH, |o, q, _| {
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        q.query = sparql(o.get("sparql"));
        for key in ["title", "url"] {
            if let Some(v) = o.get(key).and_then(scalar_string) {
                q.flags.insert(key.into(), v);
            }
        }
    })
}

/// Reads a SPINACH run: the predictions as the run, the gold fields as its own gold.
pub fn parse_run(items: Vec<Value>) -> Dataset {
    let mut run = Dataset::new(Format::SpinachRun);
    let mut gold = Dataset::new(Format::Spinach);
    let mut scan = KeyScan::default();
    for (i, item) in items.into_iter().enumerate() {
        let id = QuestionId(i.to_string());
        let Value::Object(o) = item else {
            run.diagnostics
                .push(format!("question {i} is not a json object; skipped"));
            continue;
        };
        scan.object(&o, "[]", keys::SPINACH_RUN, &id.0);
        let texts: Vec<(String, String)> = o
            .get("question")
            .and_then(Value::as_str)
            .map(|t| vec![("en".to_string(), t.trim().to_string())])
            .unwrap_or_default();
        let mut predicted = Question {
            id: id.clone(),
            texts: texts.clone(),
            query: sparql(o.get("predicted_sparql")),
            ..Question::default()
        };
        predicted.answers = tuple(o.get("predicted_answer_tuple"), &mut predicted.diagnostics);
        let mut expected = Question {
            id,
            texts,
            query: sparql(o.get("gold_sparql")),
            ..Question::default()
        };
        expected.answers = tuple(o.get("gold_answer_tuple"), &mut expected.diagnostics);
        if expected.answers.is_none() {
            expected
                .diagnostics
                .push("the run gives no `gold_answer_tuple`: no gold answers".into());
        }
        run.questions.push(predicted);
        gold.questions.push(expected);
    }
    run.unknown_keys = scan.finish();
    run.join_by_text = true;
    run.own_gold = Some(Box::new(gold));
    run
}

/// A binding as the SPINACH evaluation compares it, `tuple(sorted(b.items()))`:
/// its keys and values, sorted by key, as one string (a binding that is not an
/// object is its JSON text).
fn cell(binding: &Value) -> String {
    match binding {
        Value::Object(o) => {
            let sorted: std::collections::BTreeMap<&String, &Value> = o.iter().collect();
            serde_json::to_string(&sorted).unwrap_or_default()
        }
        other => other.to_string(),
    }
}

/// A query field: a non-empty string is SPARQL, anything else none.
fn sparql(value: Option<&Value>) -> Query {
    match value.and_then(Value::as_str).map(str::trim) {
        Some(s) if !s.is_empty() => Query::Sparql(s.to_string()),
        _ => Query::None,
    }
}

/// An answer tuple: a list of SPARQL JSON binding rows, a boolean (ASK), or
/// `null` (no answer at all: the SPINACH evaluation scores it 0).
fn tuple(value: Option<&Value>, diagnostics: &mut Vec<String>) -> Option<AnswerSet> {
    match value? {
        Value::Null => None,
        Value::Bool(b) => Some(AnswerSet {
            answers: vec![Answer::single(Term::Boolean(*b))],
            ..AnswerSet::default()
        }),
        Value::Array(rows) => {
            let mut set = AnswerSet::default();
            let mut index = super::values::VarIndex::default();
            let mut table = Vec::with_capacity(rows.len());
            for (r, row) in rows.iter().enumerate() {
                let Some(row) = row.as_object() else {
                    diagnostics.push(format!("result row {r} is not an object: {row}"));
                    continue;
                };
                table.push(
                    row.iter()
                        .map(|(var, binding)| (var.clone(), cell(binding)))
                        .collect(),
                );
                // variables in the file's key order, as the rows give them
                for key in row.keys() {
                    index.push(&mut set, super::values::var_name(key));
                }
                read_row(
                    row.iter()
                        .map(|(k, b)| (k.as_str(), BindingParts::of_value(b))),
                    &mut set,
                    &mut index,
                    diagnostics,
                );
            }
            set.table = Some(table);
            Some(set)
        }
        other => {
            diagnostics.push(format!(
                "answer tuple {other} is neither a list of result rows nor a boolean"
            ));
            Some(AnswerSet::default())
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query, Term};
    use crate::qald::parse;

    #[test]
    fn reads_a_run_and_its_own_gold() {
        let d = parse(
            br#"[{"question":"Who?","predicted_sparql":"SELECT ?x WHERE {}","gold_sparql":"SELECT ?r WHERE {}",
                "predicted_answer_tuple":[{"x":{"type":"uri","value":"http://www.wikidata.org/entity/Q1"},"xLabel":{"type":"literal","value":"one","xml:lang":"en"}}],
                "gold_answer_tuple":[{"r":{"type":"uri","value":"http://www.wikidata.org/entity/Q1"}}]},
               {"question":"Is it?","predicted_sparql":null,"predicted_answer_tuple":null,"gold_answer_tuple":true}]"#,
            "run",
        )
        .unwrap();
        assert_eq!(d.format, Format::SpinachRun);
        assert_eq!(d.questions[0].id.0, "0");
        let set = d.questions[0].answers.as_ref().unwrap();
        assert_eq!(set.vars, ["x", "xLabel"]);
        assert_eq!(set.columns, [vec![0, 1]]);
        assert!(d.questions[1].answers.is_none());
        assert_eq!(d.questions[1].query, Query::None);
        let gold = d.own_gold.as_ref().unwrap();
        assert_eq!(gold.questions[1].id.0, "1");
        assert_eq!(
            gold.questions[1].answers.as_ref().unwrap().answers[0].terms,
            [Term::Boolean(true)]
        );
        assert!(d.unknown_keys.is_empty());
    }

    #[test]
    fn reads_wikiwebquestions() {
        let d = parse(
            br#"[{"id":"WebQTest-0","question":"what is the name?","sparql":"SELECT ?x WHERE { wd:Q1 wdt:P1 ?x }","extra":1}]"#,
            "wwq",
        )
        .unwrap();
        assert_eq!(d.format, Format::Spinach);
        assert_eq!(d.questions[0].id.0, "WebQTest-0");
        assert!(d.questions[0].answers.is_none());
        assert_eq!(d.unknown_keys[0].path, "[].extra");
    }
}
