//! Spider4SPARQL (docs/scoring.md, Other benchmark families): 1,034 dev
//! questions over 20 small knowledge graphs as `[{kg_name, question, query}]`,
//! and runs of its systems as `[{db_id, natural_language_question, prompt,
//! predicted_sparql}]` (the GPT-3.5 prompts of the release). Neither has ids:
//! both are numbered by position from 0, and a run joins its gold by position,
//! its texts checked against the gold's ([`Dataset::by_position`]). The
//! queries write the benchmark's `:` prefix (`http://valuenet/ontop/`) without
//! declaring it: a query that uses it undeclared is read with the declaration
//! put first, and the dataset says how many. The 2023 release's JSON was
//! converted from CSV with commas inside questions, so some records carry the
//! rest of their row under `null` (Python's `csv.DictReader` puts a row's
//! extra cells there): the row is put back together, the question being every
//! cell but the last and the query the last. Texts are kept as written (four
//! hold mis-decoded quote characters).

use serde_json::{Map, Value};

use super::family::undeclared_prefixes;
use super::items::parse_positional;
use super::keys;
use crate::model::{Dataset, Format, Query};

/// The namespace of the benchmark's `:` prefix (its prompts say so).
pub const NAMESPACE: &str = "http://valuenet/ontop/";

/// True when a record is a Spider4SPARQL question (`kg_name`, `question`,
/// `query`).
pub fn is_dataset(record: &Map<String, Value>) -> bool {
    ["kg_name", "question", "query"]
        .iter()
        .all(|k| record.contains_key(*k))
}

/// True when a record is a Spider4SPARQL prediction (`db_id`,
/// `natural_language_question`, `predicted_sparql`).
pub fn is_run(record: &Map<String, Value>) -> bool {
    ["db_id", "natural_language_question", "predicted_sparql"]
        .iter()
        .all(|k| record.contains_key(*k))
}

/// Reads Spider4SPARQL questions; ids are positions from 0.
pub fn parse_dataset(items: Vec<Value>) -> Dataset {
    let mut declared = 0;
    let mut rejoined = Vec::new();
    let mut dataset = parse_positional(
        items,
        Format::Spider4sparql,
        keys::SPIDER4SPARQL,
        |o, q, _| {
            let mut cells: Vec<&str> = ["question", "query"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .collect();
            if let Some(extra) = o.get("null") {
                let more: Vec<&str> = match extra {
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    Value::String(s) => vec![s.as_str()],
                    _ => Vec::new(),
                };
                if more.is_empty() {
                    q.diagnostics.push(format!(
                        "`null` is {extra}, not the rest of a CSV row; ignored"
                    ));
                } else {
                    cells.extend(more);
                    rejoined.push(q.id.0.clone());
                }
            }
            let (query, question) = match cells.split_last() {
                Some((query, question)) if !question.is_empty() => (*query, question.join(",")),
                _ => ("", String::new()),
            };
            if question.trim().is_empty() {
                q.diagnostics.push("no `question` text".into());
            } else {
                q.texts.push(("en".into(), question.trim().to_string()));
            }
            q.query = sparql(query, &mut declared);
            if let Some(kg) = o.get("kg_name").and_then(Value::as_str) {
                q.flags.insert("kg_name".into(), kg.trim().to_string());
            }
        },
    );
    finish(&mut dataset, declared);
    if !rejoined.is_empty() {
        dataset.diagnostics.push(format!(
            "{} question(s) split at commas by a CSV conversion (the rest under `null`) were put back together: {}",
            rejoined.len(),
            rejoined.join(", ")
        ));
    }
    dataset
}

/// Reads Spider4SPARQL predictions; ids are positions from 0, joined to the
/// gold by position.
pub fn parse_run(items: Vec<Value>) -> Dataset {
    let mut declared = 0;
    let mut dataset = parse_positional(
        items,
        Format::Spider4sparqlPredictions,
        keys::SPIDER4SPARQL_RUN,
        |o, q, _| {
            if let Some(t) = o.get("natural_language_question").and_then(Value::as_str) {
                q.texts.push(("en".into(), t.trim().to_string()));
            }
            q.query = match o.get("predicted_sparql") {
                Some(Value::String(s)) => sparql(s, &mut declared),
                Some(Value::Null) | None => Query::None,
                Some(other) => {
                    q.diagnostics.push(format!(
                        "`predicted_sparql` is {other}, not a query written as a string; read as no query"
                    ));
                    Query::None
                }
            };
            if let Some(kg) = o.get("db_id").and_then(Value::as_str) {
                q.flags.insert("kg_name".into(), kg.trim().to_string());
            }
        },
    );
    finish(&mut dataset, declared);
    dataset.by_position = true;
    dataset
}

/// A query as written, with `PREFIX :` declared first when it uses the
/// prefix undeclared (counted in `declared`); an empty text is no query.
fn sparql(text: &str, declared: &mut usize) -> Query {
    let text = text.trim();
    if text.is_empty() {
        return Query::None;
    }
    if uses_undeclared_default_prefix(text) {
        *declared += 1;
        Query::Sparql(format!("PREFIX : <{NAMESPACE}>\n{text}"))
    } else {
        Query::Sparql(text.to_string())
    }
}

/// True when `text` has a `:name` outside IRIs and strings and no `PREFIX :`
/// declaration.
fn uses_undeclared_default_prefix(text: &str) -> bool {
    !undeclared_prefixes(text, &[""]).is_empty()
}

/// Says how many queries had the prefix declared for them.
fn finish(dataset: &mut Dataset, declared: usize) {
    if declared > 0 {
        dataset.diagnostics.push(format!(
            "{declared} quer(ies) use the prefix `:` undeclared: read with PREFIX : <{NAMESPACE}>, as the benchmark defines it"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items(v: Value) -> Vec<Value> {
        match v {
            Value::Array(a) => a,
            _ => Vec::new(),
        }
    }

    #[test]
    fn questions_are_numbered_and_their_prefix_declared() {
        let d = parse_dataset(items(json!([
            {"kg_name": "concert_singer", "question": "How many singers do we have?",
             "query": "select (count( *) as ?n) where { ?t1 a :singer . }"},
            {"kg_name": "voter_1", "question": "What are the create dates", "query": " states",
             "null": [" and phone numbers of the votes?", "SELECT ?d WHERE { ?v :votes\\#created ?d }"]}
        ])));
        assert_eq!(d.format, Format::Spider4sparql);
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "0");
        assert_eq!(q.flags["kg_name"], "concert_singer");
        assert_eq!(
            q.query,
            Query::Sparql(
                "PREFIX : <http://valuenet/ontop/>\nselect (count( *) as ?n) where { ?t1 a :singer . }"
                    .into()
            )
        );
        let q = &d.questions[1];
        assert_eq!(q.id.0, "1");
        assert_eq!(
            q.text("en"),
            Some("What are the create dates, states, and phone numbers of the votes?")
        );
        assert!(matches!(&q.query, Query::Sparql(s) if s.ends_with(":votes\\#created ?d }")));
        assert!(
            d.diagnostics
                .iter()
                .any(|m| m.contains("put back together: 1")),
            "{:?}",
            d.diagnostics
        );
        assert!(
            d.diagnostics.iter().any(|m| m.starts_with("2 quer")),
            "{:?}",
            d.diagnostics
        );
    }

    #[test]
    fn predictions_join_by_position_and_keep_a_declared_prefix() {
        let d = parse_run(items(json!([
            {"db_id": "concert_singer", "natural_language_question": "How many singers do we have?",
             "prompt": "Translate …", "predicted_sparql": "PREFIX : <http://valuenet/ontop/>  SELECT COUNT(?s) WHERE { ?s a :singer . }"},
            {"db_id": "pets_1", "natural_language_question": "Q?", "prompt": "…", "predicted_sparql": ""}
        ])));
        assert_eq!(d.format, Format::Spider4sparqlPredictions);
        assert!(d.by_position && !d.join_by_text);
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
        assert!(matches!(&d.questions[0].query, Query::Sparql(s) if s.starts_with("PREFIX : <")));
        assert_eq!(d.questions[1].query, Query::None);
        assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
    }

    #[test]
    fn names_in_strings_and_iris_are_not_the_prefix() {
        assert!(!uses_undeclared_default_prefix(
            "SELECT ?x WHERE { ?x <http://a.org/p> \"a:b\" }"
        ));
        assert!(!uses_undeclared_default_prefix(
            "prefix : <http://x/> SELECT ?x WHERE { ?x :p ?y }"
        ));
        assert!(!uses_undeclared_default_prefix(
            "SELECT ?x WHERE { ?x dbo:p ?y }"
        ));
        assert!(uses_undeclared_default_prefix(
            "SELECT ?x WHERE { ?x :p ?y }"
        ));
    }
}
