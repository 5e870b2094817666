//! WDQL, the Wikidata Query Logs dataset (Walter et al. 2026; docs/scoring.md,
//! Other benchmark families): JSON Lines of `{id, question, sparql,
//! paraphrases, info: {raw_sparql}}`, as its README documents them (the data
//! is on the authors' server only). The question is the English text, its
//! paraphrases further English texts of the same question (a run naming the
//! question by any of them joins it); `sparql` is the query, and the log's
//! original query `info.raw_sparql` a flag. GRASP's benchmark files of this
//! shape keep the benchmark's own answers beside some queries: QALD-7 and
//! QALD-9 over DBpedia as `info.answers` (a text holding QALD's `answers`
//! array), WebQuestions over Wikidata as `info.results` (the binding rows);
//! those are the question's gold answers. Others have none: they come from
//! executing the queries (docs/scoring.md, Executing SPARQL).

use serde_json::{Map, Value};

use super::family::{first_line_object, json_lines, kind};
use super::keys::KeyScan;
use super::values::{id_of, read_answer_object};
use super::QaldError;
use crate::model::{AnswerSet, Dataset, Format, Query, Question, QuestionId};

/// Keys of one record.
const KEYS: &[&str] = &["id", "question", "sparql", "paraphrases", "info"];
/// Keys of its `info`.
const INFO: &[&str] = &["raw_sparql", "answers", "results"];

/// The flag holding `info.raw_sparql`, the query as the logs recorded it.
pub const RAW_SPARQL: &str = "raw_sparql";

/// True when the first non-blank line is a WDQL record: `question`, `sparql`
/// and `paraphrases` or `info`.
pub fn looks_like(body: &[u8]) -> bool {
    first_line_object(body).is_some_and(|o| {
        o.contains_key("question")
            && o.contains_key("sparql")
            && (o.contains_key("paraphrases") || o.contains_key("info"))
    })
}

/// Reads WDQL's JSON Lines; a line that is not one JSON object is an error
/// naming it.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let lines = json_lines(
        body,
        source,
        "a WDQL file {id, question, sparql, paraphrases, info}",
    )?;
    let mut dataset = Dataset::new(Format::Wdql);
    let mut scan = KeyScan::default();
    for (n, o) in lines {
        dataset.questions.push(record(&o, n, &mut scan));
    }
    dataset.unknown_keys = scan.finish();
    if dataset.questions.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    Ok(dataset)
}

/// One record, on line `n`.
fn record(o: &Map<String, Value>, n: usize, scan: &mut KeyScan) -> Question {
    let mut q = Question::default();
    q.id = id_of(o.get("id")).unwrap_or_else(|| {
        q.diagnostics.push(format!(
            "the record on line {n} has no `id` (a string or number); named by its line"
        ));
        QuestionId(format!("#line {n}"))
    });
    scan.object(o, "line", KEYS, &q.id.0);
    let text = |value: &Value, what: &str, q: &mut Question| match value {
        Value::String(t) if !t.trim().is_empty() => {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        other => q.diagnostics.push(format!(
            "question {}: {what} is {}, not a question text; ignored",
            q.id,
            kind(other)
        )),
    };
    match o.get("question") {
        Some(v) => text(v, "`question`", &mut q),
        None => q
            .diagnostics
            .push(format!("question {}: no `question`", q.id)),
    }
    match o.get("paraphrases") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                text(item, &format!("paraphrase {i} (0-based)"), &mut q);
            }
        }
        Some(other) => text(other, "`paraphrases`", &mut q),
    }
    q.query = sparql(o.get("sparql"), "sparql", &mut q);
    match o.get("info") {
        None | Some(Value::Null) => {}
        Some(Value::Object(info)) => {
            scan.object(info, "line.info", INFO, &q.id.0);
            if let Query::Sparql(raw) = sparql(info.get(RAW_SPARQL), "info.raw_sparql", &mut q) {
                q.flags.insert(RAW_SPARQL.into(), raw);
            }
            q.answers = recorded_answers(info, &mut q);
        }
        Some(other) => q.diagnostics.push(format!(
            "question {}: `info` is {}, not an object; ignored",
            q.id,
            kind(other)
        )),
    }
    q
}

/// The answers GRASP's files keep in `info`: `answers`, a text holding
/// QALD's array of SPARQL JSON results (its first object read), or
/// `results`, the binding rows. `None` when it keeps neither; a value of
/// another shape is a diagnostic, and the question keeps no answers.
fn recorded_answers(info: &Map<String, Value>, q: &mut Question) -> Option<AnswerSet> {
    let present = |v: Option<&Value>| v.is_some_and(|v| !v.is_null());
    let (answers, results) = (info.get("answers"), info.get("results"));
    if present(answers) && present(results) {
        q.diagnostics.push(format!(
            "question {}: `info` keeps both `answers` and `results`; `answers` read as the gold answers, `results` left",
            q.id
        ));
    }
    let object = match (answers, results) {
        (Some(Value::String(text)), _) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(mut objects)) if !objects.is_empty() => {
                if objects.len() > 1 {
                    q.diagnostics.push(format!(
                        "question {}: `info.answers` holds {} answer objects; the first read, as QALD reads one",
                        q.id,
                        objects.len()
                    ));
                }
                objects.swap_remove(0)
            }
            Ok(Value::Object(o)) => Value::Object(o),
            Ok(other) => {
                q.diagnostics.push(format!(
                    "question {}: `info.answers` holds {}, not QALD's answers array of one object; no gold answers read",
                    q.id,
                    match &other {
                        Value::Array(_) => "an empty array".to_string(),
                        v => kind(v).to_string(),
                    }
                ));
                return None;
            }
            Err(e) => {
                q.diagnostics.push(format!(
                    "question {}: `info.answers` is not JSON ({e}); no gold answers read",
                    q.id
                ));
                return None;
            }
        },
        (answers, Some(Value::Array(rows))) if !present(answers) => {
            serde_json::json!({"results": {"bindings": rows}})
        }
        (answers, results) if !present(answers) && !present(results) => return None,
        (answers, results) => {
            let (key, value) = if present(answers) {
                ("answers", answers.unwrap_or(&Value::Null))
            } else {
                ("results", results.unwrap_or(&Value::Null))
            };
            q.diagnostics.push(format!(
                "question {}: `info.{key}` is {}, not the benchmark's answers; no gold answers read",
                q.id,
                kind(value)
            ));
            return None;
        }
    };
    let Value::Object(object) = object else {
        q.diagnostics.push(format!(
            "question {}: `info.answers` holds no answer object; no gold answers read",
            q.id
        ));
        return None;
    };
    if !["head", "results", "boolean", "bindings"]
        .iter()
        .any(|k| object.contains_key(*k))
    {
        q.diagnostics.push(format!(
            "question {}: `info.answers` holds an object without `head`, `results` or `boolean`; no gold answers read",
            q.id
        ));
        return None;
    }
    let mut set = AnswerSet::default();
    let mut found = Vec::new();
    read_answer_object(&object, None, &mut set, &mut found);
    // a row's diagnostic quotes the row: at most 300 characters of it
    q.diagnostics.extend(found.into_iter().map(|d| {
        let cut: String = d.chars().take(300).collect();
        format!("question {}: its recorded answers: {cut}", q.id)
    }));
    Some(set)
}

/// A query written as a string (trimmed; empty is none); another value is a
/// diagnostic.
fn sparql(value: Option<&Value>, key: &str, q: &mut Question) -> Query {
    match value {
        Some(Value::String(s)) if !s.trim().is_empty() => Query::Sparql(s.trim().to_string()),
        None | Some(Value::Null | Value::String(_)) => Query::None,
        Some(other) => {
            q.diagnostics.push(format!(
                "question {}: `{key}` is {}, not a query written as a string; read as no query",
                q.id,
                kind(other)
            ));
            Query::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answers_grasp_keeps_in_info_are_the_gold_answers() {
        // GRASP's DBpedia QALD-9 line and its Wikidata WebQuestions line, as
        // in its data/benchmark/ (answers cut to two)
        let body = concat!(
            r#"{"id":"test_0","question":"What is the time zone of Salt Lake City?","sparql":"SELECT DISTINCT ?uri WHERE { dbr:Salt_Lake_City dbo:timeZone ?uri }","paraphrases":[],"info":{"answers":"[{\"head\": {\"vars\": [\"uri\"]}, \"results\": {\"bindings\": [{\"uri\": {\"type\": \"uri\", \"value\": \"http://dbpedia.org/resource/Mountain_Time_Zone\"}}]}}]"}}"#,
            "\n",
            r#"{"id":"WebQTest-0","question":"what does jamaican people speak?","sparql":"SELECT DISTINCT ?x WHERE { wd:Q766 wdt:P2936 ?x . }","paraphrases":[],"info":{"results":[{"x":{"type":"uri","value":"http://www.wikidata.org/entity/Q603200"}},{"x":{"type":"uri","value":"http://www.wikidata.org/entity/Q1860"}}]}}"#,
            "\n",
            r#"{"id":"q3","question":"x?","sparql":"ASK {}","paraphrases":[],"info":{"answers":"not json"}}"#,
            "\n",
            r#"{"id":"q4","question":"y?","sparql":"ASK {}","paraphrases":[]}"#,
            "\n",
            r#"{"id":"q5","question":"z?","sparql":"ASK {}","info":{"answers":"[{}]"}}"#,
            "\n",
            r#"{"id":"q6","question":"w?","sparql":"ASK {}","info":{"answers":7,"results":[]}}"#,
            "\n",
            r#"{"id":"q7","question":"v?","sparql":"ASK {}","info":{"answers":"[{\"boolean\": true}, {\"boolean\": false}]"}}"#,
            "\n"
        );
        let d = parse(body.as_bytes(), "t.jsonl").expect("read");
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
        let answers = |i: usize| d.questions[i].answers.as_ref().map(|s| s.answers.len());
        assert_eq!(answers(0), Some(1));
        assert_eq!(d.questions[0].answers.as_ref().unwrap().vars, ["uri"]);
        assert_eq!(answers(1), Some(2));
        assert_eq!(answers(2), None);
        assert!(d.questions[2].diagnostics[0].contains("`info.answers` is not JSON"));
        assert_eq!(answers(3), None);
        // odd values are said, never dropped silently
        assert_eq!(answers(4), None);
        assert!(
            d.questions[4].diagnostics[0].contains("without `head`"),
            "{:?}",
            d.questions[4].diagnostics
        );
        assert_eq!(answers(5), None);
        assert!(
            d.questions[5]
                .diagnostics
                .iter()
                .any(|m| m.contains("`info.answers` is a number")),
            "{:?}",
            d.questions[5].diagnostics
        );
        assert_eq!(answers(6), Some(1));
        assert!(d.questions[6].diagnostics[0].contains("holds 2 answer objects"));
    }
    use crate::qald::parse as detect;

    #[test]
    fn paraphrases_are_texts_and_the_raw_query_a_flag() {
        let body = br#"{"id": "train_1", "question": "Works by Victor Hugo?", "sparql": "SELECT ?w WHERE { ?w wdt:P50 wd:Q535 }", "paraphrases": ["What did Victor Hugo write?", 3], "info": {"raw_sparql": "SELECT ?var1 WHERE { ?var1 <http://www.wikidata.org/prop/direct/P50> ?var2 }", "cluster": 7}}
{"question": "No id?", "sparql": 5, "paraphrases": []}
"#;
        let d = detect(body, "test.jsonl").expect("read");
        assert_eq!(d.format, Format::Wdql);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "train_1");
        assert_eq!(
            q.texts,
            [
                ("en".to_string(), "Works by Victor Hugo?".to_string()),
                ("en".to_string(), "What did Victor Hugo write?".to_string())
            ]
        );
        assert!(q.flags[RAW_SPARQL].starts_with("SELECT ?var1"));
        assert!(q.diagnostics[0].contains("paraphrase 1 (0-based) is a number"));
        assert_eq!(d.unknown_keys[0].path, "line.info.cluster");
        let q = &d.questions[1];
        assert_eq!(q.id.0, "#line 2");
        assert_eq!(q.query, Query::None);
        assert_eq!(q.diagnostics.len(), 2, "{:?}", q.diagnostics);
    }
}
