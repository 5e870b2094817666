//! What the readers of the LLM-era benchmark families share (docs/scoring.md,
//! Other benchmark families), and nothing else: the families of record arrays,
//! and the value rules: a Freebase or Wikidata id written as a string
//! (`m.0abc`, `Q42`) is an IRI whose written form is kept for the official
//! scripts that compare strings, and a nested value the model has no field for
//! is kept as its JSON text. It imports no reader, so every arrow between the
//! dispatcher (`kgqa.rs`) and the readers (`freebase.rs`, `webqsp.rs`,
//! `llm.rs`, …) points one way.

use serde_json::{Map, Value};

use super::QaldError;
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

/// The first non-blank line of a JSON Lines file as one JSON object, for
/// telling a family from its keys; `None` when it is not one.
pub fn first_line_object(body: &[u8]) -> Option<Map<String, Value>> {
    let first = body
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    match serde_json::from_slice::<Value>(first) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

/// The objects of a JSON Lines file with their 1-based line numbers.
pub type Lines = Vec<(usize, Map<String, Value>)>;

/// The objects of a JSON Lines file, each with its 1-based line number
/// (blank lines are skipped). A line that is not one complete JSON object is
/// an error at that line, saying that `what` (the family's record) is one
/// object per line.
pub fn json_lines(body: &[u8], source: &str, what: &str) -> Result<Lines, QaldError> {
    let mut out = Vec::new();
    for (n, line) in body.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(o)) => out.push((n + 1, o)),
            Ok(other) => {
                return Err(QaldError::Syntax {
                    source_name: source.to_string(),
                    line: n + 1,
                    column: 1,
                    message: format!(
                        "line holds {}, not a json object; {what} is one json object per line",
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
                        "invalid json: {}; {what} is one complete json object per line",
                        super::strip_position(&e.to_string())
                    ),
                })
            }
        }
    }
    Ok(out)
}

/// A Wikidata id written after a label in parentheses, as KGQAGen writes
/// entities and properties (`Tekkan Yosano (Q1206405)`, `place of birth
/// (P19)`): the label and the id; `None` when the text does not end so.
pub fn labelled_id(text: &str) -> Option<(&str, &str)> {
    let text = text.trim();
    let inner = text.strip_suffix(')')?;
    let open = inner.rfind(" (")?;
    let id = &inner[open + 2..];
    let wikidata_id = id.len() > 1
        && matches!(id.as_bytes()[0], b'Q' | b'P' | b'L')
        && id[1..].bytes().all(|b| b.is_ascii_digit());
    wikidata_id.then(|| (inner[..open].trim(), id))
}

/// Triples written as `[subject, predicate, object]` lists of strings (a
/// number or boolean read as its text); another item is a diagnostic.
pub fn triples(
    value: Option<&Value>,
    key: &str,
    id: &crate::model::QuestionId,
    diagnostics: &mut Vec<String>,
) -> Vec<[String; 3]> {
    let items = match value {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            diagnostics.push(format!(
                "question {id}: `{key}` is {}, not a list of [subject, predicate, object]; ignored",
                kind(other)
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let parts: Option<Vec<String>> = match item {
            Value::Array(parts) if parts.len() == 3 => {
                parts.iter().map(super::values::scalar_string).collect()
            }
            _ => None,
        };
        match parts {
            Some(p) => out.push([p[0].clone(), p[1].clone(), p[2].clone()]),
            None => diagnostics.push(format!(
                "question {id}: `{key}` item {i} (0-based) is {item}, not [subject, predicate, object] written as strings; ignored"
            )),
        }
    }
    out
}

/// The prefixes among `candidates` that `query` uses undeclared, in the
/// order of `candidates`: a `name:` outside IRIs and strings (`""` is the
/// default prefix `:`, whose local name must start with a letter or `_`)
/// without a `PREFIX name:` declaration. Benchmarks write their queries for
/// an endpoint that predefines such prefixes; their readers declare them.
pub fn undeclared_prefixes<'a>(query: &str, candidates: &[&'a str]) -> Vec<&'a str> {
    let bytes = query.as_bytes();
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.';
    let lower = query.to_ascii_lowercase();
    let declared: Vec<&str> = lower
        .match_indices("prefix")
        .filter(|(i, _)| i.checked_sub(1).is_none_or(|j| !name_byte(bytes[j])))
        .filter_map(|(i, _)| {
            let rest = query[i + "prefix".len()..].trim_start();
            let (name, _) = rest.split_once(':')?;
            name.bytes().all(name_byte).then_some(name)
        })
        .collect();
    let mut used: Vec<&str> = Vec::new();
    let (mut in_iri, mut quote) = (false, None::<u8>);
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q && bytes.get(i.wrapping_sub(1)) != Some(&b'\\') => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') if !in_iri => quote = Some(b),
            (None, b'<') if bytes.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) => {
                in_iri = true;
            }
            (None, b'>') => in_iri = false,
            (None, b':') if !in_iri => {
                let start = bytes[..i]
                    .iter()
                    .rposition(|&c| !name_byte(c))
                    .map_or(0, |j| j + 1);
                let name = &query[start..i];
                let variable = start
                    .checked_sub(1)
                    .is_some_and(|j| matches!(bytes[j], b'?' | b'$'));
                let after = bytes.get(i + 1).copied();
                let local = if name.is_empty() {
                    after.is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                } else {
                    after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                };
                let well_formed = name.is_empty() || name.as_bytes()[0].is_ascii_alphabetic();
                if local && well_formed && !variable && !used.contains(&name) {
                    used.push(name);
                }
            }
            _ => {}
        }
    }
    candidates
        .iter()
        .copied()
        .filter(|c| used.contains(c) && !declared.contains(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_prefixes_outside_strings_and_iris() {
        let q = "SELECT ?d WHERE { wd:Q1 p:P2046 ?s . ?s psn:P2046 ?d . FILTER(?d != \"geof:x\") BIND(<http://a/geof:b> AS ?i) }";
        assert_eq!(
            undeclared_prefixes(q, &["psn", "geof", "p", ""]),
            ["psn", "p"]
        );
        let declared = "PREFIX psn: <http://www.wikidata.org/prop/statement/value-normalized/> SELECT * WHERE { ?s psn:P1 ?o }";
        assert!(undeclared_prefixes(declared, &["psn"]).is_empty());
        assert_eq!(
            undeclared_prefixes("SELECT ?x WHERE { ?x :p ?y }", &[""]),
            [""]
        );
        assert!(undeclared_prefixes("SELECT ?x WHERE { ?x dbo:p ?y }", &[""]).is_empty());
    }

    #[test]
    fn labels_with_ids_are_split() {
        assert_eq!(
            labelled_id("Haicheng (Q1011073)"),
            Some(("Haicheng", "Q1011073"))
        );
        assert_eq!(
            labelled_id("place of birth (P19)"),
            Some(("place of birth", "P19"))
        );
        // a label that itself ends in parentheses keeps them
        assert_eq!(
            labelled_id("Journey (film) (Q3)"),
            Some(("Journey (film)", "Q3"))
        );
        assert_eq!(labelled_id("12 Angry Men (1957 film)"), None);
        assert_eq!(labelled_id("/m/030tfl"), None);
        assert_eq!(labelled_id("(Q5)"), None);
    }

    #[test]
    fn json_lines_name_the_bad_line() {
        let body = b"{\"a\": 1}\n\n[1]\n";
        let e = json_lines(body, "f.jsonl", "a record")
            .expect_err("an array line")
            .to_string();
        assert!(e.starts_with("f.jsonl:3:1: line holds a list"), "{e}");
        let lines = json_lines(b"{\"a\": 1}\n  \n{\"b\": 2}", "f", "x").expect("two lines");
        assert_eq!(lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [1, 3]);
        assert!(first_line_object(b"\n {\"a\": 1}\n").is_some());
        assert!(first_line_object(b"[1]").is_none());
    }

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
