//! Which keys the JSON readers know, the few they deliberately leave unread (each
//! with its reason, in [`IGNORED`]), and the counting of every other key, so that
//! nothing in a file is read silently wrong (docs/scoring.md, Reading). The readers call
//! [`KeyScan`] on the raw objects before they interpret them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::model::UnknownKey;

/// Keys the readers see and deliberately do not read, as (path, reason). Paths are
/// written as in [`UnknownKey::path`].
pub const IGNORED: &[(&str, &str)] = &[
    (
        "questions[].answers[].head.link",
        "SPARQL results metadata: links to documents about the results, never answers",
    ),
    (
        "questions[].answers[].results.ordered",
        "a flag of the old SPARQL JSON results draft; the order of the rows is what counts",
    ),
    (
        "questions[].answers[].results.distinct",
        "a flag of the old SPARQL JSON results draft; duplicates count once anyway (docs/scoring.md)",
    ),
    (
        "[].uri",
        "TEXT2SPARQL answers: the question's URI, which `qname` already names",
    ),
    (
        "[].endpoint",
        "TEXT2SPARQL answers: the URL of the system that answered, recorded by the challenge's client; not an answer",
    ),
    (
        "[].paragraphs_uids",
        "RuBQ 2.0: ids of Wikipedia paragraphs for reading comprehension, not answers",
    ),
    (
        "[].answer_text",
        "RuBQ: the answer as free text, for readers; the typed `answers` hold the same answers",
    ),
    (
        "[].answers[].wd_names",
        "RuBQ: Wikidata aliases of an answer; string answers meet IRIs through the label index (docs/scoring.md), not per-file aliases",
    ),
    (
        "[].answers[].wp_names",
        "RuBQ: Wikipedia titles of an answer; as `wd_names`",
    ),
];

/// Keys of a Spider4SPARQL question (`null`: the rest of a row a CSV
/// conversion split at commas, read back into the question and query).
pub const SPIDER4SPARQL: &[&str] = &["kg_name", "question", "query", "null"];
/// Keys of a Spider4SPARQL prediction: all read but `prompt`, the prompt the
/// model was given (the question and its knowledge graph's ontology), which
/// is no answer.
pub const SPIDER4SPARQL_RUN: &[&str] = &[
    "db_id",
    "natural_language_question",
    "predicted_sparql",
    "prompt",
];
/// Keys of an LC-QuAD 1.0 question that are read.
pub const LCQUAD: &[&str] = &[
    "_id",
    "corrected_question",
    "intermediary_question",
    "sparql_query",
    "sparql_template_id",
];
/// Keys of a RuBQ question that are read or ignored with a reason.
pub const RUBQ: &[&str] = &[
    "uid",
    "question_text",
    "question_eng",
    "query",
    "answers",
    "question_uris",
    "question_props",
    "tags",
    "RuBQ_version",
    "answer_text",
    "paragraphs_uids",
];
/// Keys of one RuBQ answer.
pub const RUBQ_ANSWER: &[&str] = &["type", "value", "label", "xml:lang", "datatype"];
/// Keys of a WikiWebQuestions / SPINACH record.
pub const SPINACH: &[&str] = &["id", "question", "sparql", "title", "url"];
/// Keys of a SPINACH run's record.
pub const SPINACH_RUN: &[&str] = &[
    "question",
    "predicted_sparql",
    "gold_sparql",
    "predicted_answer_tuple",
    "gold_answer_tuple",
];
/// Keys of an LC-QuAD 2.0 record (`answer` is always empty in the release).
pub const LCQUAD2: &[&str] = &[
    "uid",
    "question",
    "paraphrased_question",
    "NNQT_question",
    "sparql_wikidata",
    "sparql_dbpedia18",
    "template",
    "template_id",
    "template_index",
    "subgraph",
    "answer",
];
/// Keys of a DBLP-QuAD question.
pub const DBLP: &[&str] = &[
    "id",
    "query_type",
    "question",
    "paraphrased_question",
    "query",
    "template_id",
    "entities",
    "relations",
    "temporal",
    "held_out",
];
/// Keys of a Mintaka record.
pub const MINTAKA: &[&str] = &[
    "id",
    "lang",
    "question",
    "translations",
    "questionEntity",
    "answer",
    "category",
    "complexityType",
];
/// Keys of a Mintaka question entity.
pub const MINTAKA_ENTITY: &[&str] = &["name", "entityType", "label", "mention", "span"];
/// Keys of a Mintaka answer.
pub const MINTAKA_ANSWER: &[&str] = &["answerType", "answer", "mention"];
/// Keys of one TEXT2SPARQL system answer.
pub const TEXT2SPARQL_ANSWER: &[&str] =
    &["qname", "query", "dataset", "question", "uri", "endpoint"];

/// Keys of a QALD-JSON question that are read.
pub const QUESTION: &[&str] = &[
    "id",
    "unstable",
    "question",
    "body",
    "query",
    "sparql",
    "answers",
    "answertype",
    "aggregation",
    "onlydbo",
    "hybrid",
    "yago",
    "qald-version",
    "status",
    "message",
    "modifiers",
    "annotations",
    "answeritemtype",
    "confidence",
    "metadata",
    "language",
    "keywords",
];
/// Keys of one question text (`question[]`, `body[]`).
pub const TEXT: &[&str] = &["language", "string", "keywords", "annotations"];
/// Keys of one entry of QAnswer's question-level `language[]`.
pub const SYSTEM_LANGUAGE: &[&str] = &[
    "language",
    "question",
    "string",
    "keywords",
    "SPARQL",
    "sparql",
    "confidence",
];
/// Keys of one entry of the QALD-7 extended shape's `question.language[]`.
pub const EXTENDED_LANGUAGE: &[&str] = &["language", "question", "keywords", "SPARQL"];
/// Keys of a query object (the SPARQL key in any case).
pub const QUERY: &[&str] = &["sparql", "pseudo", "schemaless"];
/// Keys of an answer object.
pub const ANSWER: &[&str] = &[
    "head",
    "results",
    "boolean",
    "string",
    "bindings",
    "confidence",
];
/// Keys of `head`.
pub const HEAD: &[&str] = &["vars", "link"];
/// Keys of `results`.
pub const RESULTS: &[&str] = &["bindings", "ordered", "distinct"];
/// Keys of one binding.
pub const BINDING: &[&str] = &["type", "value", "datatype", "xml:lang", "lang"];
/// Keys of one eQALD annotation.
pub const ANNOTATION: &[&str] = &["char_begin", "char_end", "URI", "uri", "type"];
/// Keys of a question's `metadata` object.
pub const METADATA: &[&str] = &[
    "answertype",
    "hybrid",
    "aggregation",
    "onlydbo",
    "answeritemtype",
];
/// Keys of the top-level `dataset` object.
pub const DATASET: &[&str] = &["id", "metadata", "written_by"];
/// Keys of a QALD-JSON file's top-level object.
pub const TOP: &[&str] = &["dataset", "questions"];

/// Counts unknown keys over one file.
#[derive(Debug, Default)]
pub struct KeyScan {
    seen: BTreeMap<String, (usize, String)>,
}

impl KeyScan {
    /// Counts one unknown key at `path` (ignored ones are not counted).
    pub fn unknown(&mut self, path: String, id: &str) {
        if IGNORED.iter().any(|(p, _)| *p == path) {
            return;
        }
        let e = self.seen.entry(path).or_insert((0, id.to_string()));
        e.0 += 1;
    }

    /// Counts the keys of `object` at `path` that are not in `known` (a query
    /// object's SPARQL key in any case is known).
    pub fn object(&mut self, object: &Map<String, Value>, path: &str, known: &[&str], id: &str) {
        for key in object.keys() {
            let sparql_key = path.ends_with("query") && is_sparql_key(key);
            if !(known.contains(&key.as_str()) || sparql_key) {
                self.unknown(format!("{path}.{key}"), id);
            }
        }
    }

    /// [`KeyScan::object`] with the known keys in several lists (a format's
    /// own, and those every run format shares: `super::usage::KEYS`).
    pub fn object_of(
        &mut self,
        object: &Map<String, Value>,
        path: &str,
        known: &[&[&str]],
        id: &str,
    ) {
        for key in object.keys() {
            if !known.iter().any(|k| k.contains(&key.as_str())) {
                self.unknown(format!("{path}.{key}"), id);
            }
        }
    }

    /// Counts the keys of every object in `value` when it is an array of objects
    /// (or one object), at `path[]`.
    pub fn objects(&mut self, value: Option<&Value>, path: &str, known: &[&str], id: &str) {
        let items: Vec<&Map<String, Value>> = match value {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
            Some(Value::Object(o)) => vec![o],
            _ => Vec::new(),
        };
        for o in items {
            self.object(o, path, known, id);
        }
    }

    /// Scans one answer object at `path` (`…answers[]`).
    pub fn answer(&mut self, object: &Map<String, Value>, path: &str, id: &str) {
        self.object(object, path, ANSWER, id);
        if let Some(Value::Object(h)) = object.get("head") {
            self.object(h, &format!("{path}.head"), HEAD, id);
        }
        let rows = match object.get("results") {
            Some(Value::Object(r)) => {
                self.object(r, &format!("{path}.results"), RESULTS, id);
                r.get("bindings")
            }
            _ => object.get("bindings"),
        };
        let row_path = if object.contains_key("results") {
            format!("{path}.results.bindings[]")
        } else {
            format!("{path}.bindings[]")
        };
        for row in rows.and_then(Value::as_array).into_iter().flatten() {
            for binding in row.as_object().into_iter().flat_map(Map::values) {
                if let Value::Object(b) = binding {
                    self.object(b, &format!("{row_path}.VAR"), BINDING, id);
                }
            }
        }
    }

    /// The counts, sorted by path.
    pub fn finish(self) -> Vec<UnknownKey> {
        self.seen
            .into_iter()
            .map(|(path, (count, example))| UnknownKey {
                path,
                count,
                example,
            })
            .collect()
    }
}

/// True for a query object's SPARQL key in any letter case (`SPARQL`, `Sparql`).
pub fn is_sparql_key(key: &str) -> bool {
    key.eq_ignore_ascii_case("sparql")
}

/// True when `value` holds data: a non-empty string, a number or a boolean
/// anywhere inside it, outside the keys that never carry answers (`head`,
/// `confidence` and the [`IGNORED`] flags).
pub fn holds_data(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => items.iter().any(holds_data),
        Value::Object(o) => o.iter().any(|(k, v)| {
            !matches!(
                k.as_str(),
                "head" | "confidence" | "link" | "ordered" | "distinct"
            ) && holds_data(v)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_unknown_keys_once_per_path_with_an_example() {
        let mut scan = KeyScan::default();
        let a = json!({"head": {"vars": [], "link": []}, "results": {"bindings": [{"x": {"type": "uri", "value": "v", "extra": 1}}], "ordered": false}, "score": 1});
        scan.answer(a.as_object().unwrap(), "questions[].answers[]", "7");
        scan.answer(a.as_object().unwrap(), "questions[].answers[]", "8");
        let keys = scan.finish();
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert_eq!(
            keys[0].path,
            "questions[].answers[].results.bindings[].VAR.extra"
        );
        assert_eq!(
            (
                keys[1].path.as_str(),
                keys[1].count,
                keys[1].example.as_str()
            ),
            ("questions[].answers[].score", 2, "7")
        );
    }

    #[test]
    fn data_is_told_from_structure() {
        assert!(!holds_data(
            &json!({"head": {"vars": ["x"]}, "results": {"bindings": [{}]}})
        ));
        assert!(!holds_data(&json!({"confidence": "0.9", "bindings": []})));
        assert!(holds_data(&json!({"result": [{"x": "http://a.org"}]})));
    }
}
