//! Benchmark families qajudge knows by their keys but does not read yet
//! (WebQSP, ComplexWebQuestions, GrailQA, SimpleQuestions, WebQuestions,
//! Mintaka, KQA Pro, LC-QuAD 2.0, WikiWebQuestions and SPINACH, DBLP-QuAD, the
//! prediction files of RoG, ToG and T2S-Metrics). A file of one of them is told
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
        name: "GrailQA",
        all: &["qid", "question"],
        any: &["s_expression", "graph_query", "num_node"],
    },
    Family {
        name: "ComplexWebQuestions (CWQ)",
        all: &["question"],
        any: &["compositionality_type", "machine_question", "webqsp_ID"],
    },
    Family {
        name: "WebQSP",
        all: &[],
        any: &[
            "RawQuestion",
            "InferentialChain",
            "TopicEntityMid",
            "Parses",
        ],
    },
    Family {
        name: "WebQSP predictions",
        all: &["QuestionId", "Answers"],
        any: &[],
    },
    Family {
        name: "Mintaka",
        all: &["id", "question"],
        any: &["translations", "questionEntity", "complexityType"],
    },
    Family {
        name: "SimpleQuestions in ToG's shape",
        all: &["question", "relation", "topic_entity", "answer"],
        any: &[],
    },
    Family {
        name: "a KGQA dataset in ToG's shape (question, sparql, topic_entity, answer)",
        all: &["question", "topic_entity", "answer"],
        any: &[],
    },
    Family {
        name: "WebQuestions",
        all: &["question", "answers", "url"],
        any: &[],
    },
];

/// The families of JSON Lines records.
const LINES: &[Family] = &[Family {
    name: "RoG or ToG predictions (JSON Lines: id, question, prediction, ground_truth)",
    all: &["prediction"],
    any: &["ground_truth", "question"],
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

/// The family of a top-level object that is not QALD-JSON: WebQSP's
/// `{Version, FreebaseVersion, Questions}`, GrailQA's predictions `{qid:
/// {logical_form, answer}}`, Mintaka's predictions `{id: answer}`.
pub fn of_object(top: &Map<String, Value>) -> Option<&'static str> {
    if let Some(Value::Array(items)) = top.get("Questions") {
        return items
            .iter()
            .find_map(Value::as_object)
            .and_then(of_record)
            .or(Some("WebQSP"));
    }
    let mut values = top.values().peekable();
    values.peek()?;
    let predictions = |pred: fn(&Value) -> bool| top.values().all(pred);
    if predictions(|v| {
        v.as_object()
            .is_some_and(|o| o.contains_key("logical_form"))
    }) {
        return Some("GrailQA predictions ({qid: {logical_form, answer}})");
    }
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
        let grail =
            record(json!({"qid": 1, "question": "q", "sparql_query": "…", "s_expression": "(…)"}));
        assert_eq!(of_record(&grail), Some("GrailQA"));
        // LC-QuAD 1.0 and RuBQ records are not taken for a family
        let lcquad1 = record(json!({"_id": "1", "corrected_question": "q", "sparql_query": "…"}));
        assert_eq!(of_record(&lcquad1), None);
        let rubq = record(json!({"uid": 1, "question_text": "q", "query": "…"}));
        assert_eq!(of_record(&rubq), None);
    }

    #[test]
    fn top_level_objects_and_lines() {
        let webqsp = record(
            json!({"Version": "1.0", "Questions": [{"QuestionId": "1", "RawQuestion": "q"}]}),
        );
        assert_eq!(of_object(&webqsp), Some("WebQSP"));
        let mintaka = record(json!({"fae46b21": "Q7245", "bc8713cc": ["Q1"]}));
        assert!(of_object(&mintaka).is_some_and(|f| f.contains("Mintaka")));
        assert_eq!(of_object(&record(json!({"questions": []}))), None);
        let rog =
            record(json!({"id": "1", "question": "q", "prediction": "a", "ground_truth": ["a"]}));
        assert!(of_line(&rog).is_some_and(|f| f.contains("RoG")));
    }
}
