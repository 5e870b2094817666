//! The TEXT2SPARQL challenge's materialised result sets (docs/scoring.md,
//! Reading): what `text2sparql query` writes and the organisers publish per
//! team, pytrec_eval dicts `{"db25:1-en": {"2892": 1}, "db25:94-en": {"true":
//! 0}, …}` — the gold (`*_true_result_set.json`) or a system's
//! (`*_system_result_set.json`), told apart only by use. Each id is a
//! question; each key of its object an answer, in key order: an absolute IRI
//! as an IRI, anything else as a plain literal (the challenge compares the
//! value strings). A relevance below 1 is *not relevant*: such a key is no
//! answer, so `{}` and `{"x": 0}` are empty golds (the challenge's files
//! never give a system's answer 0: `text2sparql query` writes 1 for each; a
//! diagnostic counts such keys, which pytrec_eval would count as retrieved in
//! a system's file). An object of the single key `true` is an ASK result:
//! true when its number is at least 1, else false. A top-level
//! `order_required` list (the client's own key) flags those ids
//! `RESULT_ORDER_MATTERS`. A relevance that is not a number, or a value that
//! is not an object, is an error at its id's line (`true` and `false` are 1
//! and 0, as Python reads them). An id given twice counts
//! once, with its last answer set (as Python's `json.load` reads the
//! object), and a warning names it.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::QaldError;
use crate::model::{
    Answer, AnswerSet, Dataset, Format, Question, QuestionId, Term, RESULT_ORDER_MATTERS,
};

/// The client's key listing the ids whose order is scored.
const ORDER_REQUIRED: &str = "order_required";

/// The variable the answers are bound to (the sets carry none).
const VAR: &str = "value";

/// True when a JSON object is a result set: every value but an
/// `order_required` list is an object, and of their inner values nine in ten
/// or more are numbers (so that a file with a bad relevance is still read as
/// one, and its error located); with no inner value at all, when every id is
/// a challenge id (`PREFIX:ID-LANG`). Other families' objects of objects
/// (GrailQA predictions, Mintaka's) hold texts and lists.
pub fn looks_like(map: &Map<String, Value>) -> bool {
    let (mut inner, mut numbers) = (0usize, 0usize);
    for (k, v) in map {
        if k == ORDER_REQUIRED {
            continue;
        }
        let Value::Object(o) = v else { return false };
        inner += o.len();
        numbers += o.values().filter(|x| relevance_of(x).is_some()).count();
    }
    if inner == 0 {
        return !map.is_empty() && map.keys().all(|k| k == ORDER_REQUIRED || k.contains(':'));
    }
    numbers > 0 && numbers * 10 >= inner * 9
}

/// A JSON value whose objects keep their keys in the file's order (the
/// ranks of a result set's answers; a plain tree sorts them).
#[derive(Debug)]
enum InOrder {
    /// An object: its entries in order.
    Object(Vec<(String, InOrder)>),
    /// Anything else.
    Other(Value),
}

impl<'de> Deserialize<'de> for InOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<InOrder, D::Error> {
        d.deserialize_any(InOrderVisitor)
    }
}

struct InOrderVisitor;

impl<'de> Visitor<'de> for InOrderVisitor {
    type Value = InOrder;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InOrder, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, InOrder>()? {
            entries.push((k, v));
        }
        Ok(InOrder::Object(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<InOrder, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        Ok(InOrder::Other(Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::String(v.to_string())))
    }

    fn visit_unit<E>(self) -> Result<InOrder, E> {
        Ok(InOrder::Other(Value::Null))
    }
}

impl InOrder {
    /// The value as a plain tree.
    fn plain(self) -> Value {
        match self {
            InOrder::Object(entries) => {
                Value::Object(entries.into_iter().map(|(k, v)| (k, v.plain())).collect())
            }
            InOrder::Other(v) => v,
        }
    }
}

/// Reads a result set from the file's text (which [`looks_like`] found one:
/// read again here, keeping the order of its keys).
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let top = match serde_json::from_slice::<InOrder>(body) {
        Ok(InOrder::Object(entries)) => entries,
        Ok(InOrder::Other(_)) | Err(_) => {
            return Err(QaldError::Syntax {
                source_name: source.to_string(),
                line: 1,
                column: 1,
                message: "not a result set: a JSON object of question ids to objects of answers"
                    .into(),
            })
        }
    };
    let mut dataset = Dataset::new(Format::Text2SparqlResultSet);
    let ordered = order_required(&top, body, source)?;
    // a set: one look-up per question, not a search of the list
    let flagged: HashSet<&str> = ordered.iter().map(String::as_str).collect();
    dataset.questions.reserve(top.len());
    let mut not_relevant = 0usize;
    // an id given twice: its last answer set, at its first place, as Python's
    // json.load (and so the challenge) reads the object
    let mut place_of: HashMap<String, usize> = HashMap::with_capacity(top.len());
    let mut repeated: Vec<String> = Vec::new();
    for (id, value) in top {
        if id == ORDER_REQUIRED {
            continue;
        }
        let answers = match value {
            InOrder::Object(answers) => answers,
            InOrder::Other(other) => {
                return Err(at_key(
                    body,
                    source,
                    &id,
                    format!("question {id:?} is {other}, not an object of answers to relevances; fix the file"),
                ))
            }
        };
        let mut q = Question {
            id: QuestionId(id.clone()),
            ..Question::default()
        };
        if flagged.contains(id.as_str()) {
            q.tags.push(RESULT_ORDER_MATTERS.to_string());
        }
        let place = Place {
            body,
            source,
            id: &id,
        };
        q.answers = Some(answer_set(answers, &place, &mut not_relevant)?);
        match place_of.get(&id) {
            Some(&at) => {
                dataset.questions[at] = q;
                repeated.push(id);
            }
            None => {
                place_of.insert(id, dataset.questions.len());
                dataset.questions.push(q);
            }
        }
    }
    if !repeated.is_empty() {
        repeated.sort();
        repeated.dedup();
        dataset.diagnostics.push(format!(
            "warning: {} id(s) appear more than once ({} …): the last answer set of each counts, as Python's json.load reads it",
            repeated.len(),
            repeated.iter().take(3).map(|id| format!("{id:?}")).collect::<Vec<_>>().join(", ")
        ));
    }
    if not_relevant > 0 {
        dataset.diagnostics.push(format!(
            "{not_relevant} answer(s) with a relevance below 1 are not relevant and not read as answers (a system's file from `text2sparql query` gives each answer 1)"
        ));
    }
    let held: HashSet<&str> = dataset.questions.iter().map(|q| q.id.0.as_str()).collect();
    if let Some(missing) = ordered.iter().find(|id| !held.contains(id.as_str())) {
        dataset.diagnostics.push(format!(
            "`{ORDER_REQUIRED}` names {missing:?}, which the result set does not hold"
        ));
    }
    Ok(dataset)
}

/// The ids the top-level `order_required` list names (none without one); a
/// list that is not one of ids is an error at its key.
fn order_required(
    top: &[(String, InOrder)],
    body: &[u8],
    source: &str,
) -> Result<Vec<String>, QaldError> {
    let order_required = top
        .iter()
        .find(|(k, _)| k == ORDER_REQUIRED)
        .map(|(_, v)| match v {
            InOrder::Other(v) => v.clone(),
            InOrder::Object(_) => Value::Null,
        });
    match &order_required {
        None => Ok(Vec::new()),
        Some(Value::Array(ids)) => ids
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                other => Err(at_key(
                    body,
                    source,
                    ORDER_REQUIRED,
                    format!("`{ORDER_REQUIRED}` holds {other}, not a question id; fix the file"),
                )),
            })
            .collect::<Result<_, _>>(),
        Some(_) => Err(at_key(
            body,
            source,
            ORDER_REQUIRED,
            format!("`{ORDER_REQUIRED}` is not a list of question ids; fix the file"),
        )),
    }
}

/// Where in the file a question's errors are told: at its id's key.
struct Place<'p> {
    body: &'p [u8],
    source: &'p str,
    id: &'p str,
}

/// A question's answers (key → relevance, in the file's order): an ASK
/// result for the single key `true`, else each relevant key (relevance 1 or
/// more) as a term, those below counted in `not_relevant`; a relevance that
/// is not a number is an error at the question.
fn answer_set(
    answers: Vec<(String, InOrder)>,
    place: &Place<'_>,
    not_relevant: &mut usize,
) -> Result<AnswerSet, QaldError> {
    let id = place.id;
    let mut set = AnswerSet {
        vars: vec![VAR.to_string()],
        ..AnswerSet::default()
    };
    let ask = answers.len() == 1 && answers[0].0 == "true";
    for (key, relevance) in answers {
        let relevance = relevance.plain();
        let Some(r) = relevance_of(&relevance) else {
            return Err(at_key(
                place.body,
                place.source,
                id,
                format!(
                    "question {id:?}: the relevance of {key:?} is {relevance}, not a number; a result set gives each answer a number (1 relevant, 0 not)"
                ),
            ));
        };
        let term = if ask {
            Term::Boolean(r >= 1.0)
        } else if r < 1.0 {
            *not_relevant += 1;
            continue;
        } else {
            term_of(&key)
        };
        set.answers.push(Answer::single(term));
        set.columns.push(vec![0]);
    }
    Ok(set)
}

/// A relevance as a number: a JSON number, or a boolean as Python's `json`
/// and pytrec_eval read it (`true` is 1, `false` 0).
fn relevance_of(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        other => other.as_f64(),
    }
}

/// A key as a term: an absolute IRI (a scheme, then `:` and no space) as an
/// IRI, anything else as a plain literal.
fn term_of(key: &str) -> Term {
    let scheme = key.split_once(':').map(|(s, _)| s);
    let iri = scheme.is_some_and(|s| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    }) && !key.contains(char::is_whitespace)
        && key.contains("://");
    if iri {
        Term::Iri(key.to_string())
    } else {
        Term::plain(key)
    }
}

/// The error at the line of the first place `key` is written as a key.
fn at_key(body: &[u8], source: &str, key: &str, message: String) -> QaldError {
    let quoted = serde_json::to_string(key).unwrap_or_default();
    let offset = memchr::memmem::find(body, quoted.as_bytes()).unwrap_or(0);
    QaldError::at_offset(source, body, offset, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boolean_relevances_read_as_python_reads_them() {
        let body =
            br#"{"x:1-en": {"http://ex/a": true, "http://ex/b": false}, "x:2-en": {"true": true}}"#;
        let map: Map<String, Value> = serde_json::from_slice(body).expect("json");
        assert!(looks_like(&map), "booleans are relevances");
        let d = parse(body, "rs.json").expect("a result set");
        let a = d.questions[0].answers.as_ref().expect("answers");
        assert_eq!(a.answers.len(), 1, "false is 0: not relevant");
        assert_eq!(
            a.answers[0],
            Answer::single(Term::Iri("http://ex/a".into()))
        );
        let ask = d.questions[1].answers.as_ref().expect("answers");
        assert_eq!(ask.answers[0], Answer::single(Term::Boolean(true)));
    }
}
