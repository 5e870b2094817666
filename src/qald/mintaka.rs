//! Mintaka (amazon-science/mintaka; docs/scoring.md, The `mintaka` profiles):
//! the dataset, a list of `{id, lang?, question, translations, questionEntity,
//! answer: {answerType, answer, mention}, category, complexityType}`, and
//! prediction files `{id: answer}` where an answer is a Q-id, a number, a
//! boolean, a string, `null` or a list of them. Values keep their JSON kind
//! (a string a plain literal, an integer `xsd:integer`, a float `xsd:double`,
//! a boolean a boolean) so that the official script's Python comparisons can
//! be reproduced; a gold entity is its Wikidata IRI with its labels as
//! alternative forms.

use serde_json::{Map, Value};

use super::items::parse_items;
use super::keys::{self, KeyScan};
use super::values::scalar_string;
use crate::model::{Answer, AnswerSet, Dataset, Format, Question, QuestionId, Term};

/// The Wikidata entity namespace.
pub const WD: &str = "http://www.wikidata.org/entity/";
/// `xsd:integer`.
pub const XSD_INTEGER: &str = "http://www.w3.org/2001/XMLSchema#integer";
/// `xsd:double`.
pub const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";
/// The flag of a question whose prediction was written as a list.
pub const LIST: &str = "prediction_list";
/// The flag of a gold answer that is `null` (an entity answer no entity was
/// linked to, or a value answer without values): the script's `None`.
pub const UNLINKED: &str = "answer_null";

/// True when a record is Mintaka's.
pub fn is_dataset(record: &Map<String, Value>) -> bool {
    record.contains_key("id")
        && record.contains_key("question")
        && (record
            .get("answer")
            .and_then(Value::as_object)
            .is_some_and(|a| a.contains_key("answerType"))
            || ["translations", "questionEntity", "complexityType"]
                .iter()
                .any(|k| record.contains_key(*k)))
}

/// True when a top-level object is a prediction file: ids to values that are
/// not objects.
pub fn is_predictions(top: &Map<String, Value>) -> bool {
    !top.is_empty()
        && !top.contains_key("questions")
        && top.values().all(|v| match v {
            Value::Array(items) => items.iter().all(|i| !i.is_object() && !i.is_array()),
            other => !other.is_object(),
        })
}

/// The term of a JSON scalar, or `None` for what is not one.
pub fn scalar_term(value: &Value) -> Option<Term> {
    Some(match value {
        Value::String(s) => Term::plain(s.clone()),
        Value::Bool(b) => Term::Boolean(*b),
        Value::Number(n) if n.is_i64() || n.is_u64() => Term::typed(n.to_string(), XSD_INTEGER),
        Value::Number(n) => Term::typed(n.to_string(), XSD_DOUBLE),
        _ => return None,
    })
}

/// Reads a prediction file: one run question per id.
pub fn parse_predictions(top: Map<String, Value>) -> Dataset {
    let mut d = Dataset::new(Format::MintakaPredictions);
    for (id, value) in top {
        let mut q = Question {
            id: QuestionId(id),
            ..Question::default()
        };
        let items: Vec<&Value> = match &value {
            Value::Null => Vec::new(),
            Value::Array(items) => {
                q.flags.insert(LIST.into(), "true".into());
                items.iter().collect()
            }
            one => vec![one],
        };
        if !value.is_null() {
            let mut set = AnswerSet::default();
            for item in items {
                match scalar_term(item) {
                    Some(t) => set.answers.push(Answer::single(t)),
                    None => q
                        .diagnostics
                        .push(format!("prediction item {item} is not a value; skipped")),
                }
            }
            q.answers = Some(set);
        }
        d.questions.push(q);
    }
    d
}

/// Reads the dataset.
pub fn parse_dataset(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::Mintaka, "id", keys::MINTAKA, |o, q, scan| {
        let lang = o.get("lang").and_then(Value::as_str).unwrap_or("en");
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            q.texts.push((lang.to_string(), t.trim().to_string()));
        }
        if let Some(Value::Object(tr)) = o.get("translations") {
            for (l, t) in tr {
                if let Some(t) = t.as_str().filter(|t| !t.trim().is_empty()) {
                    q.texts.push((l.clone(), t.trim().to_string()));
                }
            }
        }
        for key in ["category", "complexityType", "lang"] {
            if let Some(v) = o.get(key).and_then(scalar_string) {
                q.flags.insert(key.into(), v);
            }
        }
        if let Some(e) = o.get("questionEntity").filter(|v| !v.is_null()) {
            scan.objects(
                Some(e),
                "[].questionEntity[]",
                keys::MINTAKA_ENTITY,
                &q.id.0,
            );
            // every field kept: the linked entities as C2KB markings, the
            // whole list (ordinals, numbers, spans) as written
            q.flags.insert("questionEntity".into(), e.to_string());
            for ent in e.as_array().into_iter().flatten() {
                let linked = ent.get("entityType").and_then(Value::as_str) == Some("entity");
                if let (true, Some(name)) = (linked, ent.get("name").and_then(Value::as_str)) {
                    q.entities.push(format!("{WD}{name}"));
                }
            }
        }
        let Some(answer) = o.get("answer").and_then(Value::as_object) else {
            q.diagnostics.push("no `answer` object".into());
            return;
        };
        read_answer(answer, q, scan);
    })
}

/// Reads a question's `answer` object: its type, its mention, and its
/// answers (entities as IRIs with their labels, else values; an entity
/// answer linked to none is its mention, a `null` answer no gold answer).
fn read_answer(answer: &Map<String, Value>, q: &mut Question, scan: &mut KeyScan) {
    scan.object(answer, "[].answer", keys::MINTAKA_ANSWER, &q.id.0);
    let kind = answer
        .get("answerType")
        .and_then(Value::as_str)
        .unwrap_or("");
    q.answertype = Some(kind.to_string());
    let mention = answer.get("mention").and_then(scalar_string);
    if let Some(m) = &mention {
        q.flags.insert("mention".into(), m.clone());
    }
    let mut set = AnswerSet::default();
    match (kind, answer.get("answer")) {
        ("entity", Some(Value::Array(entities))) => {
            for ent in entities {
                scan.objects(Some(ent), "[].answer.answer[]", &["name", "label"], &q.id.0);
                if let Some(a) = entity_answer(ent, q) {
                    set.answers.push(a);
                }
            }
        }
        ("entity", _) => {
            // no entity linked: the annotators' text is the answer
            q.flags.insert(UNLINKED.into(), "true".into());
            if let Some(m) = mention {
                set.answers.push(Answer::single(Term::plain(m)));
            }
        }
        (_, Some(Value::Array(values))) => {
            for v in values {
                match scalar_term(v) {
                    Some(t) => set.answers.push(Answer::single(t)),
                    None => q
                        .diagnostics
                        .push(format!("answer value {v} is not a value")),
                }
            }
        }
        (_, None | Some(Value::Null)) => {
            // `null` is the script's None, not an empty list
            q.flags.insert(UNLINKED.into(), "true".into());
            q.diagnostics
                .push("the answer is null: no gold answer".into());
            return;
        }
        (_, Some(other)) => q
            .diagnostics
            .push(format!("answer {other} is not a list of values")),
    }
    q.answers = Some(set);
}

/// An answer entity: its Wikidata IRI with its labels (by language) as
/// literals; `None`, said in `q`'s diagnostics, when it has no name.
fn entity_answer(ent: &Value, q: &mut Question) -> Option<Answer> {
    let Some(name) = ent.get("name").and_then(Value::as_str) else {
        q.diagnostics
            .push(format!("answer entity {ent} has no name"));
        return None;
    };
    let mut terms = vec![Term::Iri(format!("{WD}{name}"))];
    if let Some(Value::Object(labels)) = ent.get("label") {
        for (l, t) in labels {
            if let Some(t) = t.as_str().filter(|t| !t.is_empty()) {
                terms.push(Term::Literal {
                    lexical: t.to_string(),
                    datatype: None,
                    lang: Some(l.clone()),
                });
            }
        }
    }
    Some(Answer { terms })
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Term};
    use crate::qald::parse;

    #[test]
    fn reads_the_dataset_and_predictions() {
        let d = parse(
            br#"[{"id":"a9011ddf","lang":"en","question":"What is the seventh tallest mountain in North America?",
                 "translations":{"de":"Was ist der siebthoechste Berg?"},
                 "questionEntity":[{"name":"Q49","entityType":"entity","label":"North America","mention":"North America","span":[40,53]},
                                   {"name":7,"entityType":"ordinal","mention":"seventh","span":[12,19]}],
                 "answer":{"answerType":"entity","answer":[{"name":"Q1153188","label":{"en":"Mount Lucania","de":null}}],"mention":"Mount Lucania"},
                 "category":"geography","complexityType":"ordinal"}]"#,
            "mintaka",
        )
        .unwrap();
        assert_eq!(d.format, Format::Mintaka);
        let q = &d.questions[0];
        assert_eq!(q.entities, ["http://www.wikidata.org/entity/Q49"]);
        let a = &q.answers.as_ref().unwrap().answers[0];
        assert_eq!(
            a.terms[0],
            Term::Iri("http://www.wikidata.org/entity/Q1153188".into())
        );
        assert_eq!(a.terms.len(), 2);
        assert_eq!(q.texts.len(), 2);
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
        let p = parse(
            br#"{"a9011ddf": "Q1153188", "b": [1, 2.5], "c": null, "d": true}"#,
            "p",
        )
        .unwrap();
        assert_eq!(p.format, Format::MintakaPredictions);
        assert_eq!(p.questions.len(), 4);
        let b = p.questions.iter().find(|q| q.id.0 == "b").unwrap();
        assert_eq!(b.flags["prediction_list"], "true");
        assert_eq!(
            b.answers.as_ref().unwrap().answers[1].terms[0],
            Term::typed("2.5", super::XSD_DOUBLE)
        );
        assert!(p
            .questions
            .iter()
            .find(|q| q.id.0 == "c")
            .unwrap()
            .answers
            .is_none());
    }
}
