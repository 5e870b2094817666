//! T2S-Metrics' JSON Lines (Wimmics/t2s-metrics; docs/scoring.md, Other
//! benchmark families): one case per line, `{"id", "golden", "generated",
//! "order_matters", "question"?}`, the gold and the generated SPARQL query of a
//! text-to-SPARQL system. Neither side has answers: both queries are executed
//! on a knowledge graph (`--kg`, `--endpoint`). The file carries its own gold
//! ([`Dataset::own_gold`]): the `golden` queries, with `order_matters` as the
//! `RESULT_ORDER_MATTERS` flag; the run is the `generated` queries. A line
//! that is not a case is a diagnostic naming its number; the file goes on.
//! The query is kept trimmed, as every reader keeps it; its text as written
//! (leading and trailing whitespace included, which T2S-Metrics' own measures
//! count) is kept in the flag [`RAW_QUERY`] (the `golden` text in the gold
//! question, the `generated` one in the run's) for the `t2s-metrics` profile.

use serde_json::{Map, Value};

use super::keys::KeyScan;
use super::values::id_of;
/// The flag in which this reader keeps a case's query exactly as written
/// (untrimmed), which the `t2s-metrics` profile's measures read.
pub const RAW_QUERY: &str = "t2s_raw_query";
use crate::model::{Dataset, Format, Query, Question, QuestionId, RESULT_ORDER_MATTERS};

/// Keys of one line.
const KEYS: &[&str] = &["id", "golden", "generated", "order_matters", "question"];

/// True when the first non-blank line is a T2S-Metrics case.
pub fn looks_like(body: &[u8]) -> bool {
    let first = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    matches!(
        first.map(serde_json::from_slice::<Value>),
        Some(Ok(Value::Object(o))) if o.contains_key("golden") && o.contains_key("generated")
    )
}

/// A query field.
fn sparql(value: Option<&Value>) -> Query {
    match value.and_then(Value::as_str).map(str::trim) {
        Some(s) if !s.is_empty() => Query::Sparql(s.to_string()),
        _ => Query::None,
    }
}

/// Reads the cases: the generated queries as the run, the golden ones as its
/// own gold.
pub fn parse(body: &[u8]) -> Dataset {
    let mut run = Dataset::new(Format::T2sMetrics);
    let mut gold = Dataset::new(Format::T2sMetrics);
    let mut scan = KeyScan::default();
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let o: Map<String, Value> = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                run.diagnostics
                    .push(format!("line {}: not a json object; skipped", n + 1));
                continue;
            }
            Err(e) => {
                run.diagnostics.push(format!(
                    "line {}: invalid json ({}); skipped",
                    n + 1,
                    super::strip_position(&e.to_string())
                ));
                continue;
            }
        };
        let id = id_of(o.get("id")).unwrap_or_else(|| QuestionId(format!("line {}", n + 1)));
        // what generating the query cost, in the spellings every run reads
        scan.object_of(&o, "", &[KEYS, super::usage::KEYS], &id.0);
        super::usage::scan(&o, "", &id.0, &mut scan);
        let texts: Vec<(String, String)> = o
            .get("question")
            .and_then(Value::as_str)
            .map(|t| vec![("en".to_string(), t.trim().to_string())])
            .unwrap_or_default();
        let mut expected = Question {
            id: id.clone(),
            texts: texts.clone(),
            query: sparql(o.get("golden")),
            ..Question::default()
        };
        let mut generated = Question {
            id,
            texts,
            query: sparql(o.get("generated")),
            ..Question::default()
        };
        for (q, key) in [(&mut expected, "golden"), (&mut generated, "generated")] {
            if let Some(raw) = o.get(key).and_then(Value::as_str) {
                q.flags.insert(RAW_QUERY.to_string(), raw.to_string());
            }
        }
        super::usage::read(&o, &mut generated);
        if o.get("id").is_none() {
            generated
                .diagnostics
                .push(format!("line {} has no `id`: named by its line", n + 1));
        }
        match o.get("order_matters") {
            Some(Value::Bool(true)) => expected.tags.push(RESULT_ORDER_MATTERS.into()),
            Some(Value::Bool(false)) | None => {}
            Some(other) => expected.diagnostics.push(format!(
                "`order_matters` {other} is not a boolean; taken as false"
            )),
        }
        run.questions.push(generated);
        gold.questions.push(expected);
    }
    run.unknown_keys = scan.finish();
    run.own_gold = Some(Box::new(gold));
    run
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query};
    use crate::qald::parse;

    #[test]
    fn reads_cases_with_their_own_gold() {
        let d = parse(
            b"{\"id\": \"ck25:1-en\", \"golden\": \"SELECT ?r WHERE { ?r a ?c }\", \"generated\": \"SELECT ?d WHERE { }\", \"order_matters\": true}\nnot json\n{\"id\": \"ck25:2-en\", \"golden\": \"ASK {}\", \"generated\": null, \"order_matters\": false, \"extra\": 1}\n",
            "t2s",
        )
        .unwrap();
        assert_eq!(d.format, Format::T2sMetrics);
        assert_eq!(d.questions.len(), 2);
        assert_eq!(d.questions[1].query, Query::None);
        assert!(d.diagnostics[0].starts_with("line 2"));
        let gold = d.own_gold.as_ref().unwrap();
        assert!(gold.questions[0].order_flagged());
        assert!(!gold.questions[1].order_flagged());
        assert_eq!(d.unknown_keys[0].path, ".extra");
        let raw = |q: &crate::model::Question| q.flags.get(super::RAW_QUERY).cloned();
        assert_eq!(raw(&gold.questions[1]).as_deref(), Some("ASK {}"));
        assert_eq!(raw(&d.questions[1]), None);
    }
}
