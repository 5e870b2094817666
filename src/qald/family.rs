//! What the readers of the LLM-era benchmark families share (docs/scoring.md,
//! Other benchmark families), and nothing else: the families of record arrays,
//! and the value rules: a Freebase or Wikidata id written as a string
//! (`m.0abc`, `Q42`) is an IRI whose written form is kept for the official
//! scripts that compare strings, and a nested value the model has no field for
//! is kept as its JSON text. It imports no reader, so every arrow between the
//! dispatcher (`kgqa.rs`) and the readers (`freebase.rs`, `webqsp.rs`,
//! `llm.rs`, …) points one way.

use serde_json::{Map, Value};

use crate::model::{Answer, AnswerSet, Term};
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
}
