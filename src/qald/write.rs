//! Writing a dataset as QALD-JSON (what `qajudge refresh` outputs): per question
//! its id, texts, query, flags and answers as a SPARQL results object, with every
//! term's kind, datatype and language kept.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::values::{split_inline_datatype, XSD_STRING};
use crate::model::{AnswerSet, Dataset, Query, Term};

/// The dataset as QALD-JSON. `columns` gives, per question id, the variable of
/// each term of each row (a row whose terms do not all bind a variable of their
/// own is written with its terms in the order of the variables).
pub fn to_qald_json(dataset: &Dataset, columns: &BTreeMap<String, Vec<Vec<usize>>>) -> Value {
    let questions: Vec<Value> = dataset
        .questions
        .iter()
        .map(|q| {
            let mut o = Map::new();
            o.insert("id".into(), Value::String(q.id.0.clone()));
            o.insert("question".into(), texts(q));
            match &q.query {
                Query::Sparql(s) => {
                    o.insert("query".into(), json!({"sparql": s}));
                }
                Query::Pseudo(s) => {
                    o.insert("query".into(), json!({"pseudo": s}));
                }
                Query::None => {}
            }
            // only the flags the QALD-JSON reader reads back (others, such as
            // a run's measures kept in flags, are not the gold's)
            let kept = q
                .flags
                .iter()
                .filter(|(k, _)| *k == "status" || super::json::FLAGS.contains(&k.as_str()));
            for (k, v) in kept {
                // a flag the file wrote as a boolean is written as one
                let value = match v.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => Value::String(v.clone()),
                };
                o.insert(k.clone(), value);
            }
            if let Some(why) = &q.unstable {
                o.insert("unstable".into(), Value::String(why.clone()));
            }
            if let Some(t) = &q.answertype {
                o.insert("answertype".into(), Value::String(t.clone()));
            }
            // the tags (`RESULT_ORDER_MATTERS` among them) under the key the
            // QALD-JSON reader reads them from
            if !q.tags.is_empty() {
                o.insert("modifiers".into(), json!(q.tags));
            }
            let annotations = annotations(q);
            if !annotations.is_empty() {
                o.insert("annotations".into(), Value::Array(annotations));
            }
            if !q.item_types.is_empty() {
                o.insert("answeritemtype".into(), json!(q.item_types));
            }
            if let Some(set) = &q.answers {
                o.insert(
                    "answers".into(),
                    Value::Array(answer_objects(set, columns.get(&q.id.0))),
                );
            }
            Value::Object(o)
        })
        .collect();
    let mut top = Map::new();
    if let Some(id) = &dataset.id {
        top.insert("dataset".into(), json!({"id": id}));
    }
    top.insert("questions".into(), Value::Array(questions));
    Value::Object(top)
}

/// The question's texts per language, each with its keywords in that
/// language when it has some.
fn texts(q: &crate::model::Question) -> Value {
    q.texts
        .iter()
        .map(|(l, t)| {
            let mut o = Map::new();
            o.insert("language".into(), json!(l));
            o.insert("string".into(), json!(t));
            if let Some((_, k)) = q.keywords.iter().find(|(kl, _)| kl == l) {
                o.insert("keywords".into(), json!(k));
            }
            Value::Object(o)
        })
        .collect()
}

/// The entities, classes and properties the question declares, as the
/// QALD-JSON reader reads them (`annotations` of type ENTITY, CLASS and
/// PROPERTY).
fn annotations(q: &crate::model::Question) -> Vec<Value> {
    let kinds = [
        ("ENTITY", &q.entities),
        ("CLASS", &q.classes),
        ("PROPERTY", &q.properties),
    ];
    kinds
        .iter()
        .flat_map(|(kind, iris)| iris.iter().map(move |i| json!({"URI": i, "type": kind})))
        .collect()
}

/// The answer objects of a set, rows in order: a row that is one boolean is an
/// ASK answer object of its own; runs of other rows go into a bindings object
/// (one, empty, for a set without rows). `cols` gives each term's variable.
fn answer_objects(set: &AnswerSet, cols: Option<&Vec<Vec<usize>>>) -> Vec<Value> {
    let mut vars: Vec<String> = if set.vars.is_empty() {
        vec!["uri".to_string()]
    } else {
        set.vars.clone()
    };
    let column = |r: usize, i: usize| {
        cols.and_then(|c| c.get(r))
            .and_then(|c| c.get(i))
            .copied()
            .unwrap_or(i)
    };
    // a row with more terms than variables: the head names the extra columns
    // too, so that a reader keeps the terms in their order
    let width = set
        .answers
        .iter()
        .enumerate()
        .flat_map(|(r, a)| (0..a.terms.len()).map(move |i| (r, i)))
        .map(|(r, i)| column(r, i) + 1)
        .max()
        .unwrap_or(0);
    let mut taken: std::collections::HashSet<String> = vars.iter().cloned().collect();
    while vars.len() < width {
        let mut name = format!("v{}", vars.len());
        while taken.contains(&name) {
            name.push('_');
        }
        taken.insert(name.clone());
        vars.push(name);
    }
    let mut objects = Vec::new();
    let mut bindings: Vec<Value> = Vec::new();
    for (r, a) in set.answers.iter().enumerate() {
        if let [Term::Boolean(b)] = a.terms.as_slice() {
            if !bindings.is_empty() {
                objects.push(json!({"head": {"vars": vars}, "results": {"bindings": bindings}}));
                bindings = Vec::new();
            }
            objects.push(json!({"head": {}, "boolean": b}));
            continue;
        }
        let mut row = Map::new();
        for (i, t) in a.terms.iter().enumerate() {
            row.insert(vars[column(r, i)].clone(), binding(t));
        }
        bindings.push(Value::Object(row));
    }
    if !bindings.is_empty() || objects.is_empty() {
        objects.push(json!({"head": {"vars": vars}, "results": {"bindings": bindings}}));
    }
    objects
}

fn binding(t: &Term) -> Value {
    match t {
        Term::Iri(i) => match i.strip_prefix("_:") {
            Some(b) => json!({"type": "bnode", "value": b}),
            None => json!({"type": "uri", "value": i}),
        },
        Term::Literal {
            lexical,
            datatype,
            lang,
        } => literal_binding(lexical, datatype.as_deref(), lang.as_deref()),
        Term::Boolean(b) => literal_binding(
            &b.to_string(),
            Some("http://www.w3.org/2001/XMLSchema#boolean"),
            None,
        ),
    }
}

/// A literal's binding: its value, datatype (`xsd:string` for a plain text
/// that holds a `^^…` a reader would take for one) and language.
fn literal_binding(lexical: &str, datatype: Option<&str>, lang: Option<&str>) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), json!("literal"));
    o.insert("value".into(), json!(lexical));
    if let Some(d) = datatype {
        o.insert("datatype".into(), json!(d));
    } else if lang.is_none() && split_inline_datatype(lexical).is_some() {
        // written as a string, or a reader would take the `^^…` inside it
        // for a datatype
        o.insert("datatype".into(), json!(XSD_STRING));
    }
    if let Some(l) = lang {
        o.insert("xml:lang".into(), json!(l));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, AnswerSet, Format, Question, QuestionId};

    #[test]
    fn round_trips_through_the_reader() {
        let set = AnswerSet {
            answers: vec![
                Answer {
                    terms: vec![Term::Iri("http://e.org/a".into()), Term::plain("A")],
                },
                Answer {
                    terms: vec![Term::Literal {
                        lexical: "B".into(),
                        datatype: None,
                        lang: Some("en".into()),
                    }],
                },
            ],
            vars: vec!["x".into(), "l".into()],
            ..AnswerSet::default()
        };
        let d = Dataset {
            id: Some("ds".into()),
            format: Format::QaldJson,
            questions: vec![Question {
                id: QuestionId("ck:1-en".into()),
                texts: vec![("en".into(), "Who?".into())],
                query: Query::Sparql("SELECT ?x ?l WHERE {}".into()),
                answers: Some(set.clone()),
                ..Question::default()
            }],
            diagnostics: Vec::new(),
            ..Dataset::new(Format::QaldJson)
        };
        // the second row binds only ?l
        let cols = BTreeMap::from([("ck:1-en".to_string(), vec![vec![0, 1], vec![1]])]);
        let v = to_qald_json(&d, &cols);
        assert_eq!(
            v["questions"][0]["answers"][0]["results"]["bindings"][1]["l"]["xml:lang"],
            "en"
        );
        let back = crate::qald::parse(&serde_json::to_vec(&v).unwrap(), "x").unwrap();
        let q = &back.questions[0];
        assert_eq!(q.answers.as_ref().unwrap().answers, set.answers);
        assert_eq!(q.text("en"), Some("Who?"));
    }

    /// Found by the `qald_xml` fuzz target: a set with a boolean row and other
    /// rows lost the other rows when written; each boolean row is now an answer
    /// object of its own, in order. A boolean inside a row of several terms is
    /// written as an xsd:boolean literal (docs/scoring.md (Sameness): the same answer).
    #[test]
    fn booleans_beside_other_rows_are_kept() {
        let rows = vec![
            Answer::single(Term::plain("a")),
            Answer::single(Term::Boolean(true)),
            Answer::single(Term::Iri("http://e.org/b".into())),
            Answer::single(Term::Boolean(false)),
            Answer {
                terms: vec![Term::plain("c"), Term::Boolean(true)],
            },
        ];
        let mut d = Dataset::new(Format::QaldJson);
        d.questions.push(Question {
            id: QuestionId("1".into()),
            answers: Some(AnswerSet {
                answers: rows.clone(),
                vars: vec!["x".into(), "y".into()],
                ..AnswerSet::default()
            }),
            ..Question::default()
        });
        let v = to_qald_json(&d, &BTreeMap::new());
        assert_eq!(v["questions"][0]["answers"].as_array().unwrap().len(), 5);
        let bytes = serde_json::to_vec(&v).unwrap();
        for back in [
            crate::qald::parse(&bytes, "x").unwrap(),
            crate::qald::parse_tolerant(&bytes, "x").unwrap(),
        ] {
            let got = &back.questions[0].answers.as_ref().unwrap().answers;
            assert_eq!(got[..4], rows[..4]);
            assert_eq!(
                got[4].terms,
                [
                    Term::plain("c"),
                    Term::typed("true", "http://www.w3.org/2001/XMLSchema#boolean")
                ]
            );
        }
        // a row wider than the variables keeps its order (found by the
        // `qald_xml` fuzz target: a broken `</answer>` made one answer of 12
        // strings, read back as v0, v1, v10, v11, v2, …)
        let wide: Vec<Term> = (0..12).map(|i| Term::plain(format!("s{i}"))).collect();
        d.questions[0].answers.as_mut().unwrap().answers = vec![Answer {
            terms: wide.clone(),
        }];
        let v = to_qald_json(&d, &BTreeMap::new());
        let back = crate::qald::parse(&serde_json::to_vec(&v).unwrap(), "x").unwrap();
        assert_eq!(
            back.questions[0].answers.as_ref().unwrap().answers[0].terms,
            wide
        );
        // a set without rows is still one bindings object
        d.questions[0].answers.as_mut().unwrap().answers.clear();
        let v = to_qald_json(&d, &BTreeMap::new());
        assert_eq!(
            v["questions"][0]["answers"][0]["results"]["bindings"],
            json!([])
        );
    }
}
