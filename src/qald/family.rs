//! Benchmark families qajudge knows by their keys but does not read yet
//! (Mintaka, KQA Pro, LC-QuAD 2.0, WikiWebQuestions and SPINACH, DBLP-QuAD, the
//! result files of T2S-Metrics; the Freebase families and LLM prediction files
//! are read, `kgqa.rs`). A file of one of them is told
//! positively, from keys that only that family has, and refused with an error
//! naming it, instead of being read as the format whose keys it happens to
//! share (a GrailQA record has LC-QuAD's `sparql_query`, an LC-QuAD 2.0 record
//! RuBQ's `uid`, a DBLP-QuAD file QALD-JSON's `questions`) and scored wrongly.

use serde_json::{Map, Value};

/// A family, with the keys that tell it.
struct Family {
    /// Its name in messages.
    name: &'static str,
    /// Keys its records all have.
    all: &'static [&'static str],
    /// Keys of which its records have at least one (empty: none asked).
    any: &'static [&'static str],
}

/// The families of record arrays (and of `questions` / `Questions` items),
/// most specific first.
const RECORDS: &[Family] = &[
    Family {
        name: "LC-QuAD 2.0",
        all: &["uid", "question"],
        any: &["sparql_wikidata", "sparql_dbpedia18", "NNQT_question"],
    },
    Family {
        name: "KQA Pro",
        all: &["question"],
        any: &["program", "choices"],
    },
    Family {
        name: "Mintaka",
        all: &["id", "question"],
        any: &["translations", "questionEntity", "complexityType"],
    },
    Family {
        name: "a SPINACH run",
        all: &["predicted_sparql"],
        any: &["predicted_answer_tuple", "gold_answer_tuple"],
    },
    Family {
        name: "DBLP-QuAD",
        all: &["query_type", "template_id"],
        any: &[],
    },
    Family {
        name: "WikiWebQuestions or SPINACH (id, question, sparql)",
        all: &["id", "question", "sparql"],
        any: &[],
    },
];

/// The families of JSON Lines records.
const LINES: &[Family] = &[Family {
    name: "T2S-Metrics results (JSON Lines: id, golden, generated)",
    all: &["golden", "generated"],
    any: &[],
}];

fn matches(family: &Family, record: &Map<String, Value>) -> bool {
    family.all.iter().all(|k| record.contains_key(*k))
        && (family.any.is_empty() || family.any.iter().any(|k| record.contains_key(*k)))
}

/// The family of a record of an array (or of a `questions` item), if it is one
/// qajudge knows but does not read.
pub fn of_record(record: &Map<String, Value>) -> Option<&'static str> {
    RECORDS.iter().find(|f| matches(f, record)).map(|f| f.name)
}

/// The family of a top-level object that is not QALD-JSON: Mintaka's
/// predictions `{id: answer}`.
pub fn of_object(top: &Map<String, Value>) -> Option<&'static str> {
    let mut values = top.values().peekable();
    values.peek()?;
    let predictions = |pred: fn(&Value) -> bool| top.values().all(pred);
    if predictions(|v| !v.is_object()) && !top.contains_key("questions") {
        return Some("predictions keyed by question id ({id: answer}, as Mintaka's)");
    }
    None
}

/// The family of a JSON Lines record that is not a component run.
pub fn of_line(record: &Map<String, Value>) -> Option<&'static str> {
    LINES
        .iter()
        .find(|f| matches(f, record))
        .map(|f| f.name)
        .or_else(|| of_record(record))
}

/// The message of a file of a known family that is not read.
pub fn not_read(family: &str) -> String {
    format!(
        "this is {family}, a benchmark family qajudge recognises but does not read yet; it is not scored rather than read as another format (docs/cli.md lists the formats read)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn records_are_told_by_the_keys_only_their_family_has() {
        let lcquad2 = record(json!({"uid": 1, "question": "q", "sparql_wikidata": "…"}));
        assert_eq!(of_record(&lcquad2), Some("LC-QuAD 2.0"));
        let dblp = record(
            json!({"id": "Q1", "query_type": "SINGLE_FACT", "template_id": "TC04", "question": {}}),
        );
        assert_eq!(of_record(&dblp), Some("DBLP-QuAD"));
        // LC-QuAD 1.0 and RuBQ records are not taken for a family
        let lcquad1 = record(json!({"_id": "1", "corrected_question": "q", "sparql_query": "…"}));
        assert_eq!(of_record(&lcquad1), None);
        let rubq = record(json!({"uid": 1, "question_text": "q", "query": "…"}));
        assert_eq!(of_record(&rubq), None);
    }

    #[test]
    fn top_level_objects_and_lines() {
        let mintaka = record(json!({"fae46b21": "Q7245", "bc8713cc": ["Q1"]}));
        assert!(of_object(&mintaka).is_some_and(|f| f.contains("Mintaka")));
        assert_eq!(of_object(&record(json!({"questions": []}))), None);
        let t2s = record(json!({"id": "1", "golden": "q", "generated": "a"}));
        assert!(of_line(&t2s).is_some_and(|f| f.contains("T2S")));
    }
}
