//! The Freebase benchmark families of LLM-era KGQA that qajudge reads (docs/scoring.md,
//! Other benchmark families): telling them positively from the keys only they
//! have, handing each to its reader (`webqsp.rs`, `freebase.rs`, `llm.rs`),
//! and the value rules those readers share: a Freebase or Wikidata id written
//! as a string (`m.0abc`, `Q42`) is an IRI whose written form is kept for the
//! official scripts that compare strings, and a nested value the model has no
//! field for is kept as its JSON text.

use serde_json::{Map, Value};

use super::{freebase, webqsp};
use crate::model::{Answer, AnswerSet, Dataset, Term};
use crate::terms::canonical::kg_id_iri;

/// The families of record arrays read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// GrailQA (official and ToG's copy): `qid`, `s_expression`, `level` …
    Grailqa,
    /// ComplexWebQuestions (official `answers` or ToG's one `answer`).
    Cwq,
    /// WebQSP predictions: `QuestionId`, `Answers`.
    WebqspPredictions,
    /// SimpleQuestions as ToG reads it: `question`, `relation`, `topic_entity`, `answer`.
    SimpleQuestions,
    /// A ToG dataset `question`, `topic_entity`, `answer` (and `sparql`).
    TogQuestions,
    /// WebQuestions as ToG reads it: `url`, `question`, `answers` (names).
    WebQuestions,
    /// ComplexWebQuestions predictions as its official script reads them: `ID`, `answer`.
    CwqPredictions,
    /// WebQSP questions as a plain array (ToG's `WebQSP.json`).
    Webqsp,
    /// LLM predictions or Think-on-Graph outputs as a JSON array.
    LlmPredictions,
    /// WebQSP parses without answers (`question`, `sparql`, `InferentialChain`,
    /// `TopicEntityMid` …: the release's typical queries).
    WebqspQueries,
}

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

/// What a JSON value is, for messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "a list",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    }
}

/// A logical form (GrailQA's `s_expression`, a prediction's `logical_form`):
/// the string, or a diagnostic of `id` when the value is something else.
pub fn logical_form(
    value: Option<&Value>,
    key: &str,
    id: &str,
    diagnostics: &mut Vec<String>,
) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            diagnostics.push(format!(
                "question {id}: `{key}` is {}, not a logical form written as a string; read as none",
                kind(other)
            ));
            None
        }
    }
}

/// Pushes one answer written as a string: an id (`m.0abc`, `ns:m.0abc`,
/// `/m/0abc`, `Q42`, `wd:Q42`) is its canonical IRI, with the string as written
/// kept in `raw_values` (official scripts compare the written strings); an
/// absolute IRI stays an IRI; anything else is a plain literal. `labels` are
/// alternative forms of the same answer (its name and aliases).
pub fn push_answer(set: &mut AnswerSet, value: &str, labels: &[&str]) {
    let value = value.trim();
    let index = set.answers.len();
    let term = if let Some(iri) = kg_id_iri(value) {
        set.raw_values.push((index, 0, value.to_string()));
        Term::Iri(iri)
    } else if crate::model::looks_like_iri(value) {
        Term::Iri(value.to_string())
    } else {
        Term::plain(value)
    };
    // a bare Wikidata id in these Freebase-era files is as likely a name ("Q7",
    // "P2", products) as an id: it still matches the same text as a literal
    let bare_wikidata = matches!(&term, Term::Iri(i) if i.starts_with("http://www.wikidata.org/entity/"))
        && !value.contains(':');
    let mut answer = Answer::single(term);
    if bare_wikidata {
        answer.terms.push(Term::plain(value));
    }
    for label in labels {
        answer.terms.push(Term::plain(label.trim()));
    }
    set.answers.push(answer);
}

/// A value as flag text: a string as it is, any other value as its JSON text
/// (nested objects such as a GrailQA `graph_query` are kept whole); `None` for
/// null.
pub fn flag_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Copies the values of `keys` that `o` has into `flags`, under their own
/// names, as [`flag_text`] writes them.
pub fn copy_flags(
    o: &Map<String, Value>,
    keys: &[&str],
    flags: &mut std::collections::BTreeMap<String, String>,
) {
    for key in keys {
        if let Some(text) = o.get(*key).and_then(flag_text) {
            flags.insert((*key).to_string(), text);
        }
    }
}

/// The answer strings of a value that is one string or a list of scalars.
pub fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(super::values::scalar_string)
            .collect(),
        Some(v) => super::values::scalar_string(v).into_iter().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_become_iris_and_keep_their_written_form() {
        let mut set = AnswerSet::default();
        push_answer(&mut set, "m.0abc", &["Abc"]);
        push_answer(&mut set, "1990", &[]);
        push_answer(&mut set, "wd:Q42", &[]);
        assert_eq!(
            set.answers[0].terms,
            [
                Term::Iri("http://rdf.freebase.com/ns/m.0abc".into()),
                Term::plain("Abc")
            ]
        );
        assert_eq!(set.answers[1].terms, [Term::plain("1990")]);
        assert_eq!(
            set.raw_values,
            [(0, 0, "m.0abc".to_string()), (2, 0, "wd:Q42".to_string())]
        );
    }

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
