//! QALD-JSON in all its real variants (string or integer ids, boolean or string
//! flags, `body` for the question text, `query` as object, string or null), the
//! QALD-7 extended-json shape (`question.language[].SPARQL`), and eQALD
//! (`annotations`, `answeritemtype`, `confidence`). gAnswer's `sparql` and `status`
//! fields are read too.

use serde_json::{Map, Value};

use std::borrow::Cow;

use super::fast::{FastAnswer, FastFile, FastScalar};
use super::values::{
    id_of, read_answer_head, read_answer_object, read_row, scalar_string, BindingParts,
};
use crate::model::{AnswerSet, Dataset, FirstObject, Format, Query, Question, QuestionId};

const FLAGS: [&str; 5] = ["aggregation", "onlydbo", "hybrid", "yago", "qald-version"];

/// Parses a QALD-JSON object that has a `questions` array (the tolerant path).
pub fn parse(mut map: Map<String, Value>) -> Dataset {
    let questions = match map.remove("questions") {
        Some(Value::Array(qs)) => qs,
        _ => Vec::new(),
    };
    let questions = questions
        .into_iter()
        .map(|q| match q {
            Value::Object(fields) => Ok((fields, None)),
            other => Err(other),
        })
        .collect();
    build(map.get("dataset"), questions)
}

/// Builds the dataset from a file read by the fast path.
pub fn parse_fast(file: FastFile<'_>) -> Dataset {
    let questions = file
        .questions
        .into_iter()
        .map(|q| Ok((q.fields, q.answers)))
        .collect();
    build(file.dataset.as_ref(), questions)
}

type RawQuestion<'a> = Result<(Map<String, Value>, Option<Vec<FastAnswer<'a>>>), Value>;

fn build(dataset_field: Option<&Value>, questions: Vec<RawQuestion<'_>>) -> Dataset {
    let id = dataset_field
        .and_then(|d| d.get("id"))
        .and_then(scalar_string);
    let extended = questions.iter().any(|q| {
        q.as_ref()
            .is_ok_and(|(fields, _)| fields.get("question").is_some_and(Value::is_object))
    });
    let mut eqald = false;
    let mut dataset = Dataset {
        id,
        format: Format::QaldJson,
        questions: Vec::with_capacity(questions.len()),
        diagnostics: Vec::new(),
        calls: None,
    };
    for (i, q) in questions.into_iter().enumerate() {
        let Ok((mut q, fast)) = q else {
            dataset
                .diagnostics
                .push(format!("question #{} is not a json object; skipped", i + 1));
            continue;
        };
        if extended {
            if let Some(Value::Object(inner)) = q.remove("question") {
                q = flatten_extended(inner, q);
            }
        }
        eqald |= q.contains_key("annotations")
            || q.contains_key("answeritemtype")
            || q.contains_key("confidence");
        dataset.questions.push(question(q, fast, i));
    }
    dataset.format = if extended {
        Format::QaldExtendedJson
    } else if eqald {
        Format::Eqald
    } else {
        Format::QaldJson
    };
    dataset
}

/// Rewrites a QALD-7 extended-json question into the QALD-JSON keys.
fn flatten_extended(
    inner: Map<String, Value>,
    mut outer: Map<String, Value>,
) -> Map<String, Value> {
    for (k, v) in inner {
        match k.as_str() {
            "language" => {
                let mut texts = Vec::new();
                for l in v.as_array().into_iter().flatten() {
                    if let Some(s) = l.get("SPARQL").and_then(Value::as_str) {
                        if !outer.contains_key("query") {
                            outer.insert("query".into(), Value::String(s.to_string()));
                        }
                    }
                    let mut t = Map::new();
                    if let Some(lang) = l.get("language") {
                        t.insert("language".into(), lang.clone());
                    }
                    if let Some(s) = l.get("question") {
                        t.insert("string".into(), s.clone());
                    }
                    texts.push(Value::Object(t));
                }
                outer.insert("question".into(), Value::Array(texts));
            }
            "metadata" => {
                if let Value::Object(m) = v {
                    outer.extend(m);
                }
            }
            _ => {
                outer.insert(k, v);
            }
        }
    }
    outer
}

fn texts_of(value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => {
            for item in items {
                let lang = item
                    .get("language")
                    .and_then(Value::as_str)
                    .unwrap_or("en")
                    .to_string();
                if let Some(s) = item.get("string").and_then(Value::as_str) {
                    out.push((lang, s.trim().to_string()));
                }
            }
        }
        Value::String(s) => out.push(("en".into(), s.trim().to_string())),
        _ => {}
    }
}

fn query_of(value: Option<&Value>) -> Query {
    let text = |s: &str| {
        let s = s.trim();
        (!s.is_empty()).then(|| s.to_string())
    };
    match value {
        Some(Value::String(s)) => text(s).map_or(Query::None, Query::Sparql),
        Some(Value::Array(items)) => items
            .iter()
            .find_map(|v| v.as_str().and_then(text))
            .map_or(Query::None, Query::Sparql),
        Some(Value::Object(o)) => {
            if let Some(s) = o.get("sparql").and_then(Value::as_str).and_then(text) {
                Query::Sparql(s)
            } else if let Some(s) = o.get("pseudo").and_then(Value::as_str).and_then(text) {
                Query::Pseudo(s)
            } else {
                Query::None
            }
        }
        _ => Query::None,
    }
}

fn annotations_of(value: &Value, q: &mut Question) {
    for a in value.as_array().into_iter().flatten() {
        let Some(uri) = a
            .get("URI")
            .or_else(|| a.get("uri"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("ENTITY");
        if kind.eq_ignore_ascii_case("PROPERTY") {
            q.properties.push(uri.to_string());
        } else {
            q.entities.push(uri.to_string());
        }
    }
}

fn question(
    mut map: Map<String, Value>,
    fast: Option<Vec<FastAnswer<'_>>>,
    position: usize,
) -> Question {
    let mut q = Question::default();
    q.id = match id_of(map.get("id")) {
        Some(id) => id,
        None => {
            q.diagnostics.push(format!(
                "question #{} has no usable id ({}); it is named #{} and cannot be joined",
                position + 1,
                map.get("id")
                    .map_or("missing".into(), std::string::ToString::to_string),
                position + 1
            ));
            QuestionId(format!("#{}", position + 1))
        }
    };
    if let Some(v) = map.get("question").or_else(|| map.get("body")) {
        texts_of(v, &mut q.texts);
        for item in v.as_array().into_iter().flatten() {
            if let Some(a) = item.get("annotations") {
                annotations_of(a, &mut q);
            }
        }
    }
    q.query = query_of(map.get("query"));
    if q.query == Query::None {
        q.query = query_of(map.get("sparql"));
    }
    q.answertype = map
        .get("answertype")
        .and_then(scalar_string)
        .map(|s| s.to_ascii_lowercase());
    for flag in FLAGS {
        if let Some(v) = map.get(flag).and_then(scalar_string) {
            q.flags.insert(flag.to_string(), v.to_ascii_lowercase());
        }
    }
    if let Some(v) = map.get("status").and_then(scalar_string) {
        q.flags.insert("status".into(), v);
    }
    if let Some(Value::Array(mods)) = map.get("modifiers") {
        q.tags = mods.iter().filter_map(scalar_string).collect();
    }
    if let Some(a) = map.get("annotations") {
        annotations_of(a, &mut q);
    }
    match map.get("answeritemtype") {
        Some(Value::Array(items)) => {
            q.item_types = items.iter().filter_map(scalar_string).collect();
        }
        Some(Value::String(s)) => q.item_types = vec![s.clone()],
        _ => {}
    }
    q.answers = match (fast, map.remove("answers")) {
        (Some(objects), _) => {
            let mut set = AnswerSet::default();
            for o in &objects {
                read_fast_answer(o, q.answertype.as_deref(), &mut set, &mut q.diagnostics);
                mark_first_object(&mut set);
            }
            Some(set)
        }
        (None, None) => None,
        (None, Some(Value::Null)) => Some(AnswerSet::default()),
        (None, Some(value)) => {
            let mut set = AnswerSet::default();
            let objects: Vec<Value> = match value {
                Value::Array(items) => items,
                other => vec![other],
            };
            for object in objects {
                match object {
                    Value::Object(o) => read_answer_object(
                        &o,
                        q.answertype.as_deref(),
                        &mut set,
                        &mut q.diagnostics,
                    ),
                    other => q.diagnostics.push(format!(
                        "answer object {other} is not a json object; ignored"
                    )),
                }
                mark_first_object(&mut set);
            }
            Some(set)
        }
    };
    for d in &mut q.diagnostics {
        if !d.starts_with("question ") {
            *d = format!("question {}: {d}", q.id);
        }
    }
    q
}

/// Records the extent of the first answer object, once.
fn mark_first_object(set: &mut AnswerSet) {
    if set.first_object.is_none() {
        set.first_object = Some(FirstObject {
            answers: set.answers.len(),
            vars: set.vars.len(),
        });
    }
}

fn text<'a>(s: &'a Option<FastScalar<'_>>) -> Option<&'a str> {
    s.as_ref().map(|v| v.0.as_ref())
}

fn read_fast_answer(
    object: &FastAnswer<'_>,
    answertype: Option<&str>,
    set: &mut AnswerSet,
    diagnostics: &mut Vec<String>,
) {
    read_answer_head(
        object.head.as_ref(),
        object.boolean.as_ref(),
        object.string.as_ref(),
        answertype,
        set,
        diagnostics,
    );
    let rows = object.results.as_ref().and_then(|r| r.bindings.as_ref());
    for row in rows.into_iter().flatten() {
        read_row(
            row.0.iter().map(|(key, b)| {
                let parts = BindingParts {
                    kind: text(&b.kind),
                    value: b.value.as_ref().map(|v| Ok(Cow::Borrowed(v.0.as_ref()))),
                    datatype: text(&b.datatype),
                    lang: text(&b.xml_lang).or(text(&b.lang)),
                };
                (key.0.as_ref(), Ok(parts))
            }),
            set,
            diagnostics,
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query, Term};
    use crate::qald::parse;

    #[test]
    fn qald5_body_and_string_answers() {
        let d = parse(
            br#"{"dataset":{"id":"q5"},"questions":[{"id":"1","answertype":"resource","aggregation":"false",
            "body":[{"language":"en","string":"Give me all cosmonauts."}],"query":" SELECT ?x {} ",
            "answers":[{"string":"http://dbpedia.org/resource/A"},{"string":"Some text"}]},
            {"id":2,"answertype":"boolean","answers":[{"string":"true"}]}]}"#,
            "q5.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::QaldJson);
        let q = &d.questions[0];
        assert_eq!(q.text("en"), Some("Give me all cosmonauts."));
        assert_eq!(q.query, Query::Sparql("SELECT ?x {}".into()));
        assert_eq!(q.flags["aggregation"], "false");
        let a = q.answers.as_ref().unwrap();
        assert_eq!(
            a.answers[0].terms[0],
            Term::Iri("http://dbpedia.org/resource/A".into())
        );
        assert_eq!(a.answers[1].terms[0], Term::plain("Some text"));
        assert_eq!(d.questions[1].id.0, "2");
        assert_eq!(
            d.questions[1].answers.as_ref().unwrap().answers[0].terms[0],
            Term::Boolean(true)
        );
    }

    #[test]
    fn no_answer_shapes() {
        for answers in [
            r#"[{"head":{"vars":["x"]},"results":{}}]"#,
            r#"[{"head":{"vars":["x"]},"results":{"bindings":[]}}]"#,
            r#"[{"head":{"vars":["x"]},"results":{"bindings":[{}]}}]"#,
            r#"[]"#,
            r#"[{"head":{"vars":["empty"]}}]"#,
        ] {
            let text = format!(r#"{{"questions":[{{"id":"1","answers":{answers}}}]}}"#);
            let d = parse(text.as_bytes(), "t").unwrap();
            let set = d.questions[0].answers.as_ref().unwrap();
            assert!(set.is_empty(), "{answers}");
            assert!(d.questions[0].diagnostics.is_empty(), "{answers}");
        }
        let d = parse(br#"{"questions":[{"id":"1"}]}"#, "t").unwrap();
        assert!(d.questions[0].answers.is_none());
    }

    #[test]
    fn boolean_shapes() {
        for answers in [
            r#"[{"head":{},"boolean":true}]"#,
            r#"[{"head":{},"results":{},"boolean":true}]"#,
            r#"[{"head":{},"boolean":"true"}]"#,
        ] {
            let text = format!(r#"{{"questions":[{{"id":"1","answers":{answers}}}]}}"#);
            let d = parse(text.as_bytes(), "t").unwrap();
            assert_eq!(
                d.questions[0].answers.as_ref().unwrap().answers[0].terms[0],
                Term::Boolean(true)
            );
        }
    }

    #[test]
    fn query_shapes() {
        for (query, expect) in [
            (r#"{"sparql":"ASK {}"}"#, Query::Sparql("ASK {}".into())),
            (
                r#"{"pseudo":"SELECT ?x { ?x text:\"a\" }"}"#,
                Query::Pseudo("SELECT ?x { ?x text:\"a\" }".into()),
            ),
            (r#"{}"#, Query::None),
            (r#"{"sparql":null}"#, Query::None),
        ] {
            let text = format!(r#"{{"questions":[{{"id":"1","query":{query},"answers":[]}}]}}"#);
            assert_eq!(
                parse(text.as_bytes(), "t").unwrap().questions[0].query,
                expect
            );
        }
        // gAnswer: sparql as a list of strings
        let d = parse(br#"{"questions":[{"id":"1","sparql":["SELECT 1","SELECT 2"],"status":"200","answers":[]}]}"#, "t").unwrap();
        assert_eq!(d.questions[0].query, Query::Sparql("SELECT 1".into()));
    }

    #[test]
    fn extended_json_and_eqald() {
        let d = parse(
            br#"{"questions":[{"question":{"id":"0","answertype":"date","language":[{"language":"en","question":"When?","SPARQL":"SELECT ?d {}"}],
            "answers":{"head":{"vars":["d"]},"results":{"bindings":[{"d":{"type":"literal","value":"1863-07-03"}}]}},
            "metadata":{"aggregation":false}}}]}"#,
            "x",
        )
        .unwrap();
        assert_eq!(d.format, Format::QaldExtendedJson);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "0");
        assert_eq!(q.text("en"), Some("When?"));
        assert_eq!(q.query, Query::Sparql("SELECT ?d {}".into()));
        assert_eq!(q.flags["aggregation"], "false");
        assert_eq!(q.answers.as_ref().unwrap().answers.len(), 1);

        let d = parse(
            br#"{"questions":[{"id":"1","answeritemtype":["http://dbpedia.org/ontology/Person"],"confidence":0.9,
            "question":[{"language":"en","string":"Who?","annotations":[{"char_begin":0,"char_end":3,"URI":"http://dbpedia.org/resource/X","type":"ENTITY"},{"URI":"http://dbpedia.org/ontology/p","type":"PROPERTY"}]}],
            "answers":[]}]}"#,
            "e",
        )
        .unwrap();
        assert_eq!(d.format, Format::Eqald);
        assert_eq!(
            d.questions[0].entities,
            vec!["http://dbpedia.org/resource/X"]
        );
        assert_eq!(
            d.questions[0].properties,
            vec!["http://dbpedia.org/ontology/p"]
        );
        assert_eq!(d.questions[0].item_types.len(), 1);
    }

    #[test]
    fn bad_question_is_a_diagnostic() {
        let d = parse(
            br#"{"questions":[{"id":"5","answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"zzz","value":"a"}},{"x":{"type":"uri","value":"http://a.org/"}}]}}]}, 7, {"answers":[]}]}"#,
            "t",
        )
        .unwrap();
        assert_eq!(d.questions.len(), 2);
        assert!(
            d.questions[0].diagnostics[0]
                .starts_with("question 5: variable x: unknown binding type"),
            "{:?}",
            d.questions[0].diagnostics
        );
        assert_eq!(d.questions[0].answers.as_ref().unwrap().answers.len(), 1);
        assert!(d.diagnostics[0].contains("question #2"));
        assert!(d.questions[1].diagnostics[0].contains("no usable id"));
    }
}
