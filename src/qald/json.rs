//! QALD-JSON in all its real variants (string or integer ids, boolean or string
//! flags, `body` for the question text, `query` as object, string or null), the
//! QALD-7 extended-json shape (`question.language[].SPARQL`), and eQALD exactly as
//! the GERBIL QA paper draws it (dataset `metadata`; a question `metadata` object;
//! `keywords`; `annotations` of type ENTITY, CLASS or PROPERTY; a `query` object
//! with its SPARQL key in any case and `schemaless`; `answers` as one object or a
//! list, with `bindings` directly and `confidence`). gAnswer's `sparql`, `status`
//! and `message` and QAnswer's `language[].SPARQL` / `confidence` are read too.
//! Every key is either read, listed in [`super::keys::IGNORED`], or counted as
//! unknown.

use serde_json::{Map, Value};

use std::borrow::Cow;

use super::fast::{FastAnswer, FastFile, FastScalar};
use super::keys::{self, holds_data, is_sparql_key, KeyScan};
use super::values::{
    id_of, read_answer_head, read_answer_object, read_row, scalar_string, BindingParts,
};
use crate::model::{AnswerSet, Dataset, FirstObject, Format, Query, Question, QuestionId};

/// The question flags the reader keeps (with `status`), lowercased.
pub(crate) const FLAGS: [&str; 5] = ["aggregation", "onlydbo", "hybrid", "yago", "qald-version"];

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
    let top: Vec<String> = map.keys().cloned().collect();
    build(map.get("dataset"), &top, questions)
}

/// Builds the dataset from a file read by the fast path.
pub fn parse_fast(file: FastFile<'_>) -> Dataset {
    let questions = file
        .questions
        .into_iter()
        .map(|q| Ok((q.fields, q.answers)))
        .collect();
    build(file.dataset.as_ref(), &file.other_keys, questions)
}

type RawQuestion<'a> = Result<(Map<String, Value>, Option<Vec<FastAnswer<'a>>>), Value>;

fn build(
    dataset_field: Option<&Value>,
    top_keys: &[String],
    questions: Vec<RawQuestion<'_>>,
) -> Dataset {
    let mut scan = KeyScan::default();
    for key in top_keys {
        if !keys::TOP.contains(&key.as_str()) {
            scan.unknown(key.clone(), "(file)");
        }
    }
    let mut dataset = Dataset::new(Format::QaldJson);
    if let Some(d) = dataset_field {
        dataset.id = d.get("id").and_then(scalar_string);
        dataset.metadata = d.get("metadata").and_then(|m| match m {
            Value::Null => None,
            Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            other => Some(other.to_string()),
        });
        if let Value::Object(o) = d {
            scan.object(o, "dataset", keys::DATASET, "(file)");
        }
    }
    let extended = questions.iter().any(|q| {
        q.as_ref()
            .is_ok_and(|(fields, _)| fields.get("question").is_some_and(Value::is_object))
    });
    let mut eqald = false;
    dataset.questions.reserve(questions.len());
    for (i, q) in questions.into_iter().enumerate() {
        let Ok((mut q, fast)) = q else {
            dataset
                .diagnostics
                .push(format!("question #{} is not a json object; skipped", i + 1));
            continue;
        };
        if extended {
            if let Some(Value::Object(inner)) = q.remove("question") {
                let id = id_text(inner.get("id").or_else(|| q.get("id")), i);
                scan.object(&inner, "questions[].question", keys::QUESTION, &id);
                scan.objects(
                    inner.get("language"),
                    "questions[].question.language[]",
                    keys::EXTENDED_LANGUAGE,
                    &id,
                );
                q = flatten_extended(inner, q);
            }
        }
        eqald |= q.contains_key("annotations")
            || q.contains_key("answeritemtype")
            || q.contains_key("confidence")
            || q.get("metadata").is_some_and(Value::is_object)
            || q.get("query")
                .and_then(Value::as_object)
                .is_some_and(|o| o.contains_key("schemaless"))
            || q.get("answers").is_some_and(Value::is_object)
            || q.get("question")
                .and_then(Value::as_array)
                .is_some_and(|t| {
                    t.iter()
                        .any(|t| t.get("annotations").is_some() || t.get("keywords").is_some())
                });
        let id = id_text(q.get("id"), i);
        scan_question(&q, fast.as_deref(), extended, &id, &mut scan);
        let question = question(q, fast, i);
        dataset.lost.extend(
            question
                .diagnostics
                .iter()
                .filter(|d| d.contains(LOST))
                .cloned(),
        );
        dataset.questions.push(question);
    }
    dataset.format = if extended {
        Format::QaldExtendedJson
    } else if eqald {
        Format::Eqald
    } else {
        Format::QaldJson
    };
    dataset.unknown_keys = scan.finish();
    dataset
}

/// The words that mark a diagnostic about data that yielded nothing.
const LOST: &str = "holds data but yields no answer";

/// The id of a question for messages.
fn id_text(id: Option<&Value>, position: usize) -> String {
    id_of(id).map_or_else(|| format!("#{}", position + 1), |id| id.0)
}

/// Counts the unknown keys of one question (extended questions are flattened).
fn scan_question(
    q: &Map<String, Value>,
    fast: Option<&[FastAnswer<'_>]>,
    extended: bool,
    id: &str,
    scan: &mut KeyScan,
) {
    let p = "questions[]";
    scan.object_of(q, p, &[keys::QUESTION, super::usage::KEYS], id);
    super::usage::scan(q, p, id, scan);
    for key in ["question", "body"] {
        if let Some(Value::Array(texts)) = q.get(key) {
            for t in texts.iter().filter_map(Value::as_object) {
                scan.object(t, &format!("{p}.{key}[]"), keys::TEXT, id);
                scan.objects(
                    t.get("annotations"),
                    &format!("{p}.{key}[].annotations[]"),
                    keys::ANNOTATION,
                    id,
                );
            }
        }
    }
    if !extended {
        scan.objects(
            q.get("language"),
            &format!("{p}.language[]"),
            keys::SYSTEM_LANGUAGE,
            id,
        );
    }
    scan.objects(
        q.get("annotations"),
        &format!("{p}.annotations[]"),
        keys::ANNOTATION,
        id,
    );
    if let Some(Value::Object(m)) = q.get("metadata") {
        scan.object(m, &format!("{p}.metadata"), keys::METADATA, id);
    }
    if let Some(Value::Object(o)) = q.get("query") {
        scan.object(o, &format!("{p}.query"), keys::QUERY, id);
    }
    match (fast, q.get("answers")) {
        (Some(objects), _) => {
            for o in objects {
                if let Some(Value::Object(h)) = &o.head {
                    scan.object(h, &format!("{p}.answers[].head"), keys::HEAD, id);
                }
            }
        }
        (None, Some(Value::Array(objects))) => {
            for o in objects.iter().filter_map(Value::as_object) {
                scan.answer(o, &format!("{p}.answers[]"), id);
            }
        }
        (None, Some(Value::Object(o))) => scan.answer(o, &format!("{p}.answers"), id),
        _ => {}
    }
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
                    if let Some(k) = l.get("keywords") {
                        t.insert("keywords".into(), k.clone());
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

/// Reads the question texts and keywords of `question` / `body`.
fn texts_of(value: &Value, q: &mut Question) {
    match value {
        Value::Array(items) => {
            for item in items {
                let lang = item
                    .get("language")
                    .and_then(Value::as_str)
                    .unwrap_or("en")
                    .to_string();
                if let Some(s) = item.get("string").and_then(Value::as_str) {
                    q.texts.push((lang.clone(), s.trim().to_string()));
                }
                if let Some(k) = item.get("keywords").and_then(keywords_text) {
                    q.keywords.push((lang, k));
                }
                if let Some(a) = item.get("annotations") {
                    annotations_of(a, q);
                }
            }
        }
        Value::String(s) => q.texts.push(("en".into(), s.trim().to_string())),
        _ => {}
    }
}

/// Keywords as one comma-separated text (a string, or a list of strings).
fn keywords_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::Array(items) => items
            .iter()
            .filter_map(scalar_string)
            .collect::<Vec<_>>()
            .join(", "),
        other => scalar_string(other)?,
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The SPARQL text under a query object's SPARQL key, in any letter case.
fn sparql_of(o: &Map<String, Value>) -> Option<&str> {
    o.iter()
        .find(|(k, _)| is_sparql_key(k))
        .and_then(|(_, v)| v.as_str())
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
            if let Some(s) = sparql_of(o).and_then(text) {
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

/// Reads eQALD annotations: ENTITY, CLASS and PROPERTY (any case); any other
/// type, or none, is a diagnostic and counts nowhere.
fn annotations_of(value: &Value, q: &mut Question) {
    for a in value.as_array().into_iter().flatten() {
        let Some(uri) = a
            .get("URI")
            .or_else(|| a.get("uri"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|u| !u.is_empty())
        else {
            q.diagnostics
                .push(format!("annotation {a} has no `URI`; ignored"));
            continue;
        };
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("");
        if kind.eq_ignore_ascii_case("ENTITY") {
            q.entities.push(uri.to_string());
        } else if kind.eq_ignore_ascii_case("CLASS") {
            q.classes.push(uri.to_string());
        } else if kind.eq_ignore_ascii_case("PROPERTY") {
            q.properties.push(uri.to_string());
        } else {
            q.diagnostics.push(format!(
                "annotation of {uri} has type {}, not ENTITY, CLASS or PROPERTY; it counts nowhere",
                a.get("type")
                    .map_or("(none)".to_string(), ToString::to_string)
            ));
        }
    }
}

/// Reads a confidence: a number, or a string that reads as one.
fn confidence_of(value: &Value, q: &mut Question) {
    let number = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|c| c.is_finite()),
        Value::Null => return,
        _ => None,
    };
    match number {
        Some(c) => q.confidence = Some(c),
        None => q
            .diagnostics
            .push(format!("confidence {value} is not a number; ignored")),
    }
}

/// QAnswer's question-level `language[]`: the system's query and confidence, and
/// the question text when given.
fn system_language(value: &Value, q: &mut Question) {
    for entry in value.as_array().into_iter().flatten() {
        let Some(o) = entry.as_object() else { continue };
        if q.query == Query::None {
            q.query = query_of(o.iter().find(|(k, _)| is_sparql_key(k)).map(|(_, v)| v));
        }
        if let Some(c) = o.get("confidence") {
            confidence_of(c, q);
        }
        let lang = o
            .get("language")
            .and_then(Value::as_str)
            .unwrap_or("en")
            .to_string();
        if let Some(t) = o
            .get("question")
            .or_else(|| o.get("string"))
            .and_then(Value::as_str)
        {
            q.texts.push((lang.clone(), t.trim().to_string()));
        }
        if let Some(k) = o.get("keywords").and_then(keywords_text) {
            q.keywords.push((lang, k));
        }
    }
}

fn question(
    mut map: Map<String, Value>,
    fast: Option<Vec<FastAnswer<'_>>>,
    position: usize,
) -> Question {
    let mut q = Question::default();
    q.id = question_id(map.get("id"), position, &mut q.diagnostics);
    // eQALD's question `metadata` object holds what QALD-JSON has at the top
    match map.remove("metadata") {
        Some(Value::Object(m)) => {
            for (k, v) in m {
                map.entry(k).or_insert(v);
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => q.diagnostics.push(format!(
            "question metadata {other} is not an object; ignored"
        )),
    }
    if let Some(v) = map.get("question").or_else(|| map.get("body")) {
        texts_of(v, &mut q);
    }
    q.query = query_of(map.get("query"));
    if q.query == Query::None {
        q.query = query_of(map.get("sparql"));
    }
    if let Some(Value::Object(o)) = map.get("query") {
        q.schemaless = o
            .get("schemaless")
            .and_then(scalar_string)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
    }
    if let Some(l) = map.get("language") {
        system_language(l, &mut q);
    }
    described(&map, &mut q);
    if let Some(c) = map.get("confidence") {
        confidence_of(c, &mut q);
    }
    super::usage::read(&map, &mut q);
    q.answers = answers_of(fast, map.remove("answers"), &mut q);
    for d in &mut q.diagnostics {
        if !d.starts_with("question ") {
            *d = format!("question {}: {d}", q.id);
        }
    }
    q
}

/// The question's id; one that is missing or unusable is named by the
/// question's position (`#n`, counted from 1), noted in `diagnostics`.
fn question_id(id: Option<&Value>, position: usize, diagnostics: &mut Vec<String>) -> QuestionId {
    match id_of(id) {
        Some(id) => id,
        None => {
            diagnostics.push(format!(
                "question #{} has no usable id ({}); it is named #{} and cannot be joined",
                position + 1,
                id.map_or("missing".into(), std::string::ToString::to_string),
                position + 1
            ));
            QuestionId(format!("#{}", position + 1))
        }
    }
}

/// What the question says of itself besides its text, query and answers: its
/// answer type, flags and status, the system's message, its modifiers (as
/// tags), its annotations and its answer item types.
fn described(map: &Map<String, Value>, q: &mut Question) {
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
    // a question the audit found unstable (`audit --write-gold`): its reason,
    // or `true`
    q.unstable = match map.get("unstable") {
        Some(Value::String(why))
            if !why.trim().is_empty() && !why.trim().eq_ignore_ascii_case("false") =>
        {
            Some(why.clone())
        }
        Some(Value::Bool(true)) => Some("marked unstable".into()),
        None | Some(Value::Null | Value::Bool(false)) => None,
        Some(other) => {
            // never ignored silently: the question is scored with the others
            q.diagnostics.push(format!(
                "`unstable` {} is not a reason (a non-empty string) or true: the question is not marked unstable; write why, as audit --write-gold does",
                other.to_string().chars().take(80).collect::<String>()
            ));
            None
        }
    };
    if let Some(m) = map.get("message").and_then(scalar_string) {
        q.diagnostics.push(format!("the system's message: {m}"));
    }
    if let Some(Value::Array(mods)) = map.get("modifiers") {
        q.tags = mods.iter().filter_map(scalar_string).collect();
    }
    if let Some(a) = map.get("annotations") {
        annotations_of(a, q);
    }
    match map.get("answeritemtype") {
        Some(Value::Array(items)) => {
            q.item_types = items.iter().filter_map(scalar_string).collect();
        }
        Some(Value::String(s)) if !s.trim().is_empty() => q.item_types = vec![s.trim().into()],
        _ => {}
    }
}

/// The question's answers: the answer objects the fast reader read, else its
/// `answers` value (one object or an array of them; `null`: none), each
/// object's rows added to one set; `None` when it has none.
fn answers_of(
    fast: Option<Vec<FastAnswer<'_>>>,
    answers: Option<Value>,
    q: &mut Question,
) -> Option<AnswerSet> {
    match (fast, answers) {
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
                    Value::Object(o) => answer_object(&o, &mut set, q),
                    other => q.diagnostics.push(format!(
                        "answer object {other} is not a json object; ignored"
                    )),
                }
                mark_first_object(&mut set);
            }
            Some(set)
        }
    }
}

/// Adds the rows of one answer object to `set`, and reads its confidence;
/// an object of which nothing reads though it holds data is noted as lost.
fn answer_object(o: &Map<String, Value>, set: &mut AnswerSet, q: &mut Question) {
    let before = (set.answers.len(), q.diagnostics.len());
    read_answer_object(o, q.answertype.as_deref(), set, &mut q.diagnostics);
    if let Some(c) = o.get("confidence") {
        confidence_of(c, q);
    }
    if (set.answers.len(), q.diagnostics.len()) == before && holds_data(&Value::Object(o.clone())) {
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        q.diagnostics.push(format!(
            "the answer object with keys {} {LOST}: write its rows as `results.bindings` (or `bindings`) of SPARQL JSON results",
            keys.join(", ")
        ));
    }
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
    let mut index = super::values::VarIndex::default();
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
            &mut index,
            diagnostics,
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query, Term};
    use crate::qald::parse;

    #[test]
    fn an_unstable_mark_is_a_reason_or_true_and_anything_else_is_said() {
        let d = parse(
            br#"{"questions":[{"id":"1","unstable":"ties_at_edge: q"},{"id":"2","unstable":true},
            {"id":"3","unstable":{}},{"id":"4","unstable":[1]},{"id":"5","unstable":0},
            {"id":"6","unstable":"false"},{"id":"7","unstable":false}]}"#,
            "u.json",
        )
        .expect("reads");
        let marked: Vec<bool> = d.questions.iter().map(|q| q.unstable.is_some()).collect();
        assert_eq!(marked, [true, true, false, false, false, false, false]);
        for q in &d.questions[2..5] {
            assert!(
                q.diagnostics.iter().any(|x| x.contains("is not a reason")),
                "{:?}",
                q.diagnostics
            );
        }
    }

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
