//! Component runs in JSON Lines: the output of an entity linker or relation
//! linker, one object per question, `{"id", "entities", "classes", "properties",
//! "triples": [[s, p, o], ...]}`, scored by C2KB, P2KB and RE2KB. Names are IRIs
//! (absolute or in angle brackets) or prefixed names whose prefix the file
//! declares on a line `{"prefixes": {"dbr": "http://dbpedia.org/resource/"}}` or
//! that SPARQL endpoints predefine. A question may add its text (`question`, with
//! `language`). A bad line is a diagnostic; the file goes on.

use serde_json::{Map, Value};

use super::keys::KeyScan;
use super::values::{id_of, scalar_string};
use super::QaldError;
use crate::model::{looks_like_iri, Dataset, Format, Question, QuestionId};
use crate::terms::prefixes;

/// Keys of one line.
const KEYS: &[&str] = &[
    "id",
    "entities",
    "classes",
    "properties",
    "triples",
    "prefixes",
    "question",
    "language",
];

/// True when the content is a JSON Lines component run: its first line is one
/// complete object with `id` and a component key, or with `prefixes` only.
pub fn looks_like(body: &[u8]) -> bool {
    let first = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    let Some(Ok(Value::Object(o))) = first.map(serde_json::from_slice::<Value>) else {
        return false;
    };
    let component = ["entities", "classes", "properties", "triples"]
        .iter()
        .any(|k| o.contains_key(*k));
    (o.contains_key("id") && component) || (o.len() == 1 && o.contains_key("prefixes"))
}

/// True when the first two non-blank lines are each one complete JSON object:
/// JSON Lines, whatever its keys.
pub fn one_object_per_line(body: &[u8]) -> bool {
    let mut lines = body
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(2)
        .map(serde_json::from_slice::<Value>);
    matches!(
        (lines.next(), lines.next()),
        (Some(Ok(Value::Object(_))), Some(Ok(Value::Object(_))))
    )
}

/// Parses a JSON Lines component run.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let lines = objects(body, source)?;
    let mut declared: Vec<(String, String)> = Vec::new();
    for (_, o) in &lines {
        if let Some(Value::Object(p)) = o.get("prefixes") {
            for (prefix, ns) in p {
                if let Some(ns) = ns.as_str() {
                    declared.push((prefix.clone(), ns.to_string()));
                }
            }
        }
    }
    let mut dataset = Dataset::new(Format::ComponentJsonl);
    let mut scan = KeyScan::default();
    for (n, o) in lines {
        if o.len() == 1 && o.contains_key("prefixes") {
            continue;
        }
        let Some(id) = id_of(o.get("id")) else {
            dataset
                .diagnostics
                .push(format!("line {n} has no usable `id`; skipped"));
            continue;
        };
        dataset
            .questions
            .push(question(n, id, &o, &declared, &mut scan));
    }
    dataset.unknown_keys = scan.finish();
    if dataset.questions.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    Ok(dataset)
}

/// A file's objects, each with its line number.
type Lines = Vec<(usize, Map<String, Value>)>;

/// The file's objects with their line numbers (from 1), blank lines skipped;
/// a line that is not one JSON object is an error at that line.
fn objects(body: &[u8], source: &str) -> Result<Lines, QaldError> {
    let mut lines: Lines = Vec::new();
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(o)) => lines.push((n + 1, o)),
            Ok(other) => {
                return Err(QaldError::Syntax {
                    source_name: source.to_string(),
                    line: n + 1,
                    column: 1,
                    message: format!(
                        "line holds {}, not a json object; write one object per question",
                        kind(&other)
                    ),
                })
            }
            Err(e) => {
                return Err(QaldError::Syntax {
                    source_name: source.to_string(),
                    line: n + 1,
                    column: e.column(),
                    message: format!(
                        "invalid json: {}; a JSON Lines run has one complete object per line",
                        super::strip_position(&e.to_string())
                    ),
                })
            }
        }
    }
    Ok(lines)
}

/// The question of line `n` (object `o`, of id `id`): its components with
/// names resolved by the `declared` prefixes, its text and usage, and its
/// problems as diagnostics naming the line; its keys noted in `scan`.
fn question(
    n: usize,
    id: QuestionId,
    o: &Map<String, Value>,
    declared: &[(String, String)],
    scan: &mut KeyScan,
) -> Question {
    let mut q = Question {
        id,
        ..Question::default()
    };
    scan.object_of(o, "line", &[KEYS, super::usage::KEYS], &q.id.0);
    super::usage::scan(o, "line", &q.id.0, scan);
    let mut problems = components(o, declared, &mut q);
    if let Some(text) = o.get("question").and_then(scalar_string) {
        let lang = o
            .get("language")
            .and_then(scalar_string)
            .unwrap_or_else(|| "en".to_string());
        q.texts.push((lang, text.trim().to_string()));
    }
    super::usage::read(o, &mut q);
    problems.append(&mut q.diagnostics);
    q.diagnostics = problems
        .into_iter()
        .map(|p| format!("question {} (line {n}): {p}", q.id))
        .collect();
    q
}

/// Reads a line's entities, classes, properties and triples into `q`, names
/// resolved by the `declared` prefixes; what could not be read, each said.
fn components(
    o: &Map<String, Value>,
    declared: &[(String, String)],
    q: &mut Question,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut names = |key: &str| -> Vec<String> {
        let mut out = Vec::new();
        match o.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match item.as_str().and_then(|t| iri(t, declared)) {
                        Some(i) => out.push(i),
                        None => problems.push(format!(
                            "{key}: {item} is neither an IRI nor a prefixed name with a declared prefix; ignored (declare it on a line {{\"prefixes\": {{…}}}})"
                        )),
                    }
                }
            }
            Some(other) => problems.push(format!("`{key}` {other} is not a list; ignored")),
        }
        out
    };
    q.entities = names("entities");
    q.classes = names("classes");
    q.properties = names("properties");
    match o.get("triples") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for t in items {
                match triple(t, declared) {
                    Some(t) => q.triples.push(t),
                    None => problems.push(format!(
                        "triple {t} is not a list of three strings [s, p, o]; ignored"
                    )),
                }
            }
        }
        Some(other) => problems.push(format!("`triples` {other} is not a list; ignored")),
    }
    problems
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Object(_) => "an object",
    }
}

/// An IRI from `<iri>`, an absolute IRI, or a prefixed name with a declared or
/// predefined prefix.
fn iri(text: &str, declared: &[(String, String)]) -> Option<String> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
        return Some(inner.to_string());
    }
    if looks_like_iri(t) {
        return Some(t.to_string());
    }
    let (prefix, local) = t.split_once(':')?;
    if let Some((_, ns)) = declared.iter().rev().find(|(p, _)| p == prefix) {
        return Some(format!("{ns}{local}"));
    }
    let expanded = prefixes::expand(t);
    looks_like_iri(&expanded).then_some(expanded)
}

/// A triple `[s, p, o]`: names that are IRIs are expanded, `?variables` and
/// literals are kept as written.
fn triple(value: &Value, declared: &[(String, String)]) -> Option<[String; 3]> {
    let items = value.as_array()?;
    let [s, p, o] = items.as_slice() else {
        return None;
    };
    let node = |v: &Value| -> Option<String> {
        let t = v.as_str()?.trim();
        Some(
            if t.starts_with('?') || t.starts_with('$') || t.starts_with("_:") {
                t.to_string()
            } else {
                iri(t, declared).map_or_else(|| t.to_string(), |i| format!("<{i}>"))
            },
        )
    };
    Some([node(s)?, node(p)?, node(o)?])
}

#[cfg(test)]
mod tests {
    use crate::model::Format;
    use crate::qald::parse;

    #[test]
    fn reads_component_lines() {
        let text = br#"{"prefixes": {"ex": "http://example.org/"}}
{"id": 1, "entities": ["ex:A", "http://dbpedia.org/resource/B", "dbr:C"], "classes": ["dbo:Film"], "properties": ["<http://example.org/p>"], "triples": [["?x", "ex:p", "ex:A"], ["?x", "rdfs:label", "Some text"]]}

{"id": "2", "entities": ["nope:X"], "triples": [["a", "b"]], "score": 3}
"#;
        let d = parse(text, "el.jsonl").unwrap();
        assert_eq!(d.format, Format::ComponentJsonl);
        assert_eq!(d.questions.len(), 2);
        let q = &d.questions[0];
        assert_eq!(
            q.entities,
            vec![
                "http://example.org/A",
                "http://dbpedia.org/resource/B",
                "http://dbpedia.org/resource/C"
            ]
        );
        assert_eq!(q.classes, vec!["http://dbpedia.org/ontology/Film"]);
        assert_eq!(q.properties, vec!["http://example.org/p"]);
        assert_eq!(
            q.triples[1],
            [
                "?x".to_string(),
                "<http://www.w3.org/2000/01/rdf-schema#label>".to_string(),
                "Some text".to_string()
            ]
        );
        let q2 = &d.questions[1];
        assert!(q2.entities.is_empty());
        assert_eq!(q2.diagnostics.len(), 2, "{:?}", q2.diagnostics);
        assert!(q2.diagnostics[0].contains("line 4"), "{:?}", q2.diagnostics);
        assert_eq!(d.unknown_keys[0].path, "line.score");
    }

    #[test]
    fn bad_lines_name_their_line() {
        let err = parse(
            b"{\"id\": 1, \"entities\": []}\n{\"id\": 2, \"entities\": [}\n",
            "x.jsonl",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("x.jsonl:2:"), "{err}");
    }
}
