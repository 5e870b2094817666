//! The Freebase benchmark families of LLM-era KGQA that qajudge reads (docs/scoring.md,
//! Other benchmark families): telling them positively from the keys only they
//! have and handing each to its reader (`webqsp.rs`, `freebase.rs`, `llm.rs`);
//! the value rules those readers share are `family.rs`'s.

use serde_json::{Map, Value};

use super::family::kind;
pub use super::family::Records;
use super::{freebase, webqsp};
use crate::model::Dataset;

/// The family of a record of a top-level array, if it is one read here.
pub fn of_record(o: &Map<String, Value>) -> Option<Records> {
    let has = |k: &str| o.contains_key(k);
    let any = |ks: &[&str]| ks.iter().any(|k| has(k));
    if super::llm::is_record(o) {
        Some(Records::LlmPredictions)
    } else if has("Parses") || has("RawQuestion") {
        Some(Records::Webqsp)
    } else if has("qid") && any(&["s_expression", "graph_query", "num_node"]) {
        Some(Records::Grailqa)
    } else if has("question")
        && (any(&["compositionality_type", "machine_question", "webqsp_ID"]) || cwq_answers(o))
    {
        Some(Records::Cwq)
    } else if has("ID") && has("answer") && !has("question") {
        Some(Records::CwqPredictions)
    } else if has("QuestionId") && has("Answers") && !has("Parses") {
        Some(Records::WebqspPredictions)
    } else if ["question", "relation", "topic_entity", "answer"]
        .iter()
        .all(|k| has(k))
    {
        Some(Records::SimpleQuestions)
    } else if ["question", "topic_entity", "answer"]
        .iter()
        .all(|k| has(k))
    {
        Some(Records::TogQuestions)
    } else if ["question", "answers", "url"].iter().all(|k| has(k)) {
        Some(Records::WebQuestions)
    } else if has("question") && any(&["InferentialChain", "TopicEntityMid"]) {
        Some(Records::WebqspQueries)
    } else {
        None
    }
}

/// True when `answers` is a list whose first item is an official CWQ answer
/// (`answer_id` or `aliases`).
fn cwq_answers(o: &Map<String, Value>) -> bool {
    o.get("answers")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_object)
        .is_some_and(|a| a.contains_key("answer_id") || a.contains_key("aliases"))
}

/// Reads a top-level array of records of one family.
pub fn read_records(family: Records, items: Vec<Value>) -> Dataset {
    match family {
        Records::Grailqa => freebase::grailqa(items),
        Records::Cwq => freebase::cwq(items),
        Records::CwqPredictions => freebase::cwq_predictions(items),
        Records::WebqspPredictions => webqsp::predictions(items),
        Records::SimpleQuestions | Records::TogQuestions => freebase::tog(items, family),
        Records::WebQuestions => freebase::webquestions(items),
        Records::WebqspQueries => webqsp::queries(items),
        Records::Webqsp => webqsp::questions(&items),
        Records::LlmPredictions => super::llm::parse_items(items),
    }
}

/// Reads a top-level object of a family read here: WebQSP's `{Version,
/// FreebaseVersion, Questions}` or GrailQA's predictions `{qid: {logical_form,
/// answer}}`; `Ok(None)` for any other object, an error (what is wrong and
/// what to do) for a WebQSP file whose `Questions` is not a list.
pub fn read_object(top: &Map<String, Value>) -> Result<Option<Dataset>, ShapeError> {
    match top.get("Questions") {
        Some(Value::Array(items)) => {
            let webqsp = items.iter().find_map(Value::as_object).is_none_or(|q| {
                ["QuestionId", "RawQuestion", "ProcessedQuestion", "Parses"]
                    .iter()
                    .any(|k| q.contains_key(*k))
            });
            return Ok(webqsp.then(|| webqsp::dataset(top)));
        }
        Some(other) => return Err(ShapeError::WebqspQuestions(kind(other))),
        None => {}
    }
    let predictions = !top.is_empty()
        && top.values().all(|v| {
            v.as_object()
                .is_some_and(|o| o.contains_key("logical_form"))
        });
    Ok(predictions.then(|| freebase::grailqa_predictions(top)))
}

/// A top-level object of a family whose shape is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// WebQSP's `Questions` is not a list.
    #[error("WebQSP's `Questions` is {0}, not a list of questions; write {{\"Questions\": [{{\"QuestionId\": …, \"Parses\": […]}}]}}")]
    WebqspQuestions(&'static str),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn families_are_told_by_their_keys() {
        let o = |v: Value| v.as_object().cloned().unwrap_or_default();
        let grail =
            o(json!({"qid": 1, "question": "q", "sparql_query": "…", "s_expression": "(…)"}));
        assert_eq!(of_record(&grail), Some(Records::Grailqa));
        let preds = o(json!({"QuestionId": "WebQTest-1", "Answers": ["m.0a"]}));
        assert_eq!(of_record(&preds), Some(Records::WebqspPredictions));
        let sq = o(json!({"question": "q", "relation": "r", "topic_entity": {}, "answer": "a"}));
        assert_eq!(of_record(&sq), Some(Records::SimpleQuestions));
        // LC-QuAD 1.0, RuBQ and LC-QuAD 2.0 records are none of these
        for other in [
            json!({"_id": "1", "corrected_question": "q", "sparql_query": "…"}),
            json!({"uid": 1, "question_text": "q", "query": "…"}),
            json!({"uid": 1, "question": "q", "sparql_wikidata": "…"}),
        ] {
            assert_eq!(of_record(&o(other)), None);
        }
    }
}
