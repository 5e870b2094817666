//! Helpers shared by the parsers: SPARQL-results bindings with every non-standard
//! type seen in real files, untyped answer text, ids and flags.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::model::{looks_like_iri, Answer, AnswerSet, QuestionId, Term};

const XSD_DECIMAL: &str = "http://www.w3.org/2001/XMLSchema#decimal";
/// The datatype IRI of a simple literal.
pub const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";

/// A question id from a JSON string or number; `None` for anything else.
pub fn id_of(value: Option<&Value>) -> Option<QuestionId> {
    match value? {
        Value::String(s) => Some(QuestionId(s.trim().to_string())),
        Value::Number(n) => Some(QuestionId(n.to_string())),
        _ => None,
    }
}

/// A flag or scalar as a string (`true`, `"true"`, `3` …).
pub fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An answer written as untyped text (QALD-5 JSON `string`, QALD-5/7 XML): an IRI
/// when it looks like one, a boolean for a boolean question, else a plain literal.
pub fn untyped_term(text: &str, answertype: Option<&str>) -> Term {
    let text = text.trim();
    if looks_like_iri(text) {
        return Term::Iri(text.to_string());
    }
    if answertype == Some("boolean") {
        if text.eq_ignore_ascii_case("true") {
            return Term::Boolean(true);
        }
        if text.eq_ignore_ascii_case("false") {
            return Term::Boolean(false);
        }
    }
    Term::plain(text)
}

/// Splits `"lexical^^datatype-IRI"` written inside a literal's value; the
/// datatype is an IRI or an `xsd:` name, without spaces.
pub fn split_inline_datatype(value: &str) -> Option<(&str, &str)> {
    let (lexical, dt) = value.rsplit_once("^^")?;
    let dt = dt.trim().trim_start_matches('<').trim_end_matches('>');
    let name = dt.strip_prefix("xsd:").filter(|n| !n.is_empty());
    ((looks_like_iri(dt) || name.is_some()) && !dt.contains(char::is_whitespace))
        .then_some((lexical, dt))
}

/// True for xsd:string, which a simple literal has in RDF 1.1 (written as a full
/// IRI or as `xsd:string`).
pub fn is_xsd_string(datatype: &str) -> bool {
    datatype == XSD_STRING || datatype == "xsd:string"
}

/// Normalises a variable name: quotes and a leading `?` are dropped.
pub fn var_name(raw: &str) -> String {
    raw.trim()
        .trim_matches('"')
        .trim_start_matches(['?', '$'])
        .to_string()
}

/// A binding that cannot be read as a term.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    /// The binding is not a JSON object.
    #[error("binding {0} is not an object")]
    NotObject(String),
    /// Its `value` is an array, object or null.
    #[error("binding value {0} is not a string")]
    ValueNotString(String),
    /// It has no `value`.
    #[error("binding has no value")]
    NoValue,
    /// A `boolean` binding whose value is neither `true` nor `false`.
    #[error("boolean binding value {0:?} is neither true nor false")]
    NotBoolean(String),
    /// A `type` that no real file uses.
    #[error("unknown binding type {0:?} (expected uri, literal, typed-literal, bnode, number, list, resource, text)")]
    UnknownType(String),
}

/// The parts of one binding `{"type", "value", "datatype", "xml:lang"}`, however
/// the file was read.
#[derive(Debug, Default)]
pub struct BindingParts<'a> {
    /// `type`, if present.
    pub kind: Option<&'a str>,
    /// `value` as text (numbers and booleans written as JSON scalars are turned
    /// into their text), or the reason it is unusable.
    pub value: Option<Result<Cow<'a, str>, BindingError>>,
    /// `datatype`, if present.
    pub datatype: Option<&'a str>,
    /// `xml:lang` (or `lang`), if present.
    pub lang: Option<&'a str>,
}

impl<'a> BindingParts<'a> {
    /// The parts of a binding held as a JSON value.
    pub fn of_value(binding: &'a Value) -> Result<BindingParts<'a>, BindingError> {
        let obj = binding
            .as_object()
            .ok_or_else(|| BindingError::NotObject(binding.to_string()))?;
        let value = obj.get("value").map(|v| match v {
            Value::String(s) => Ok(Cow::Borrowed(s.as_str())),
            Value::Number(n) => Ok(Cow::Owned(n.to_string())),
            Value::Bool(b) => Ok(Cow::Owned(b.to_string())),
            other => Err(BindingError::ValueNotString(other.to_string())),
        });
        Ok(BindingParts {
            kind: obj.get("type").and_then(Value::as_str),
            value,
            datatype: obj.get("datatype").and_then(Value::as_str),
            lang: obj
                .get("xml:lang")
                .or_else(|| obj.get("lang"))
                .and_then(Value::as_str),
        })
    }
}

/// One binding `{"type": …, "value": …}` as a term. `Err` names what is wrong.
pub fn binding_term(binding: &Value) -> Result<Term, BindingError> {
    parts_term(BindingParts::of_value(binding)?)
}

/// The term of a binding's parts, with every non-standard type of docs/scoring.md (Reading).
pub fn parts_term(parts: BindingParts<'_>) -> Result<Term, BindingError> {
    let value = match parts.value {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(e),
        None => return Err(BindingError::NoValue),
    };
    let kind = parts.kind.unwrap_or("literal");
    let datatype = parts.datatype;
    match kind {
        "uri" | "iri" | "resource" => Ok(uri_term(&value)),
        "bnode" => Ok(Term::Iri(format!("_:{}", value.trim()))),
        "literal" | "typed-literal" | "list" | "text" | "string" | "number"
            if datatype.is_none() && split_inline_datatype(&value).is_some() =>
        {
            let (lexical, dt) = split_inline_datatype(&value).unwrap_or_default();
            Ok(Term::typed(lexical, dt))
        }
        "literal" | "typed-literal" | "list" | "text" | "string" => Ok(Term::Literal {
            lexical: value.into_owned(),
            // a simple literal is an xsd:string (RDF 1.1): one term, read one way
            datatype: datatype.filter(|d| !is_xsd_string(d)).map(str::to_string),
            lang: parts.lang.map(str::to_string),
        }),
        "number" => Ok(Term::Literal {
            lexical: value.into_owned(),
            datatype: Some(datatype.unwrap_or(XSD_DECIMAL).to_string()),
            lang: None,
        }),
        "boolean" => match value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Term::Boolean(true)),
            "false" => Ok(Term::Boolean(false)),
            _ => Err(BindingError::NotBoolean(value.into_owned())),
        },
        other => Err(BindingError::UnknownType(other.to_string())),
    }
}

fn boolean_of(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// The term of a value given as an IRI (a `uri` binding, QALD-XML's `<uri>`): an
/// IRI when it has a scheme, else a plain literal (real gold files write numbers,
/// dates and booleans as `uri` bindings, QALD-7 train q14: "50035").
pub fn uri_term(value: &str) -> Term {
    let v = value.trim();
    if v.contains(':') {
        Term::Iri(v.to_string())
    } else {
        Term::plain(v)
    }
}

/// The position of each of an answer set's variables, kept in step with
/// `AnswerSet::vars` (which only grows) by the reader of one answer set, so
/// that telling a new variable and finding a variable's column take constant
/// time: a head or row of many variables is read in linear time.
#[derive(Debug, Default)]
pub struct VarIndex {
    /// Each variable's first column.
    positions: HashMap<String, usize>,
    /// How many of `AnswerSet::vars` are in `positions`.
    synced: usize,
}

impl VarIndex {
    /// Catches up with variables pushed to `set.vars` since the last call.
    fn sync(&mut self, set: &AnswerSet) {
        for (i, v) in set.vars.iter().enumerate().skip(self.synced) {
            self.positions.entry(v.clone()).or_insert(i);
        }
        self.synced = set.vars.len();
    }

    /// The column of `name` in `set`, if it is one of its variables.
    fn position(&mut self, set: &AnswerSet, name: &str) -> Option<usize> {
        self.sync(set);
        self.positions.get(name).copied()
    }

    /// Adds `name` to the set's variables unless it is one already.
    pub fn push(&mut self, set: &mut AnswerSet, name: String) {
        if self.position(set, &name).is_none() {
            self.positions.insert(name.clone(), set.vars.len());
            set.vars.push(name);
            self.synced = set.vars.len();
        }
    }
}

/// The parts of one answer object other than its binding rows.
pub fn read_answer_head(
    head: Option<&Value>,
    boolean: Option<&Value>,
    string: Option<&Value>,
    answertype: Option<&str>,
    set: &mut AnswerSet,
    diagnostics: &mut Vec<String>,
) {
    if let Some(b) = boolean {
        match boolean_of(b) {
            Some(b) => set.answers.push(Answer::single(Term::Boolean(b))),
            None => diagnostics.push(format!("boolean answer {b} is neither true nor false")),
        }
    }
    if let Some(s) = string {
        match scalar_string(s) {
            Some(s) => set
                .answers
                .push(Answer::single(untyped_term(&s, answertype))),
            None => diagnostics.push(format!("answer string {s} is not a string")),
        }
    }
    if let Some(vars) = head.and_then(|h| h.get("vars")).and_then(Value::as_array) {
        let mut index = VarIndex::default();
        for v in vars.iter().filter_map(Value::as_str) {
            index.push(set, var_name(v));
        }
    }
}

/// Adds one binding row (variable, parts) as one answer.
/// `index` is the answer set's ([`VarIndex`]): one per answer set, given to
/// every row of it.
pub fn read_row<'a>(
    row: impl IntoIterator<Item = (&'a str, Result<BindingParts<'a>, BindingError>)>,
    set: &mut AnswerSet,
    index: &mut VarIndex,
    diagnostics: &mut Vec<String>,
) {
    let row: Vec<_> = row.into_iter().collect();
    // variables the head did not declare are added in name order, not in the
    // file's key order: a JSON object's key order carries no meaning (and the
    // tolerant reader's maps do not keep it), so both readers give one order
    let mut new: Vec<String> = row
        .iter()
        .map(|(key, _)| var_name(key))
        .filter(|name| index.position(set, name).is_none())
        .collect();
    new.sort_unstable();
    new.dedup();
    set.vars.extend(new);
    // bindings in the order of the variables (head first), whatever the file's key
    // order, so that terms and diagnostics come out the same from both readers
    let mut row: Vec<(usize, String, _)> = row
        .into_iter()
        .map(|(key, parts)| {
            let name = var_name(key);
            let position = index.position(set, &name).unwrap_or(usize::MAX);
            (position, name, parts)
        })
        .collect();
    row.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    // (position, term, the value as written when the reader reinterpreted it)
    let mut terms: Vec<(usize, Term, Option<String>)> = Vec::new();
    for (position, name, parts) in row {
        let inline = parts.as_ref().ok().and_then(|p| match &p.value {
            Some(Ok(v)) if p.datatype.is_none() && v.contains("^^") => Some(v.to_string()),
            _ => None,
        });
        match parts.and_then(parts_term) {
            Ok(term) => {
                let raw = inline
                    .filter(|raw| matches!(&term, Term::Literal { lexical, .. } if lexical != raw));
                terms.push((position, term, raw));
            }
            Err(e) => diagnostics.push(format!("variable {name}: {e}")),
        }
    }
    if !terms.is_empty() {
        let answer = set.answers.len();
        let mut row = Vec::with_capacity(terms.len());
        let mut columns = Vec::with_capacity(terms.len());
        for (i, (position, term, raw)) in terms.into_iter().enumerate() {
            if let Some(raw) = raw {
                set.raw_values.push((answer, i, raw));
            }
            row.push(term);
            columns.push(position);
        }
        // columns are known for every row or for none
        if set.columns.len() == answer {
            set.columns.push(columns);
        }
        set.answers.push(Answer { terms: row });
    }
}

/// Reads one answer object (`head`/`results`/`boolean`, eQALD's `bindings` without
/// `results`, or QALD-5's `{"string": …}`)
/// into `set`; problems go to `diagnostics`.
pub fn read_answer_object(
    object: &Map<String, Value>,
    answertype: Option<&str>,
    set: &mut AnswerSet,
    diagnostics: &mut Vec<String>,
) {
    read_answer_head(
        object.get("head"),
        object.get("boolean"),
        object.get("string"),
        answertype,
        set,
        diagnostics,
    );
    // eQALD as the GERBIL QA paper draws it puts `bindings` in the answer object
    let bindings = match object.get("results") {
        Some(Value::Object(r)) => r.get("bindings"),
        _ => object.get("bindings"),
    };
    let rows = match bindings {
        Some(Value::Array(rows)) => rows,
        Some(Value::Null) | None => return,
        Some(other) => {
            diagnostics.push(format!("results.bindings {other} is not an array"));
            return;
        }
    };
    let mut index = VarIndex::default();
    for row in rows {
        let Some(row) = row.as_object() else {
            diagnostics.push(format!("binding row {row} is not an object"));
            continue;
        };
        read_row(
            row.iter()
                .map(|(k, b)| (k.as_str(), BindingParts::of_value(b))),
            set,
            &mut index,
            diagnostics,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn non_standard_binding_types() {
        assert_eq!(
            binding_term(&json!({"type": "number", "value": "3"})).unwrap(),
            Term::typed("3", XSD_DECIMAL)
        );
        assert_eq!(
            binding_term(&json!({"type": "resource", "value": " http://x.org/a "})).unwrap(),
            Term::Iri("http://x.org/a".into())
        );
        assert_eq!(
            binding_term(&json!({"type": "typed-literal", "value": "3", "datatype": "http://www.w3.org/2001/XMLSchema#int"})).unwrap(),
            Term::typed("3", "http://www.w3.org/2001/XMLSchema#int")
        );
        assert_eq!(
            binding_term(&json!({"type": "list", "value": "a, b"})).unwrap(),
            Term::plain("a, b")
        );
        assert_eq!(
            binding_term(&json!({"type": "number", "value": "5000000.0^^http://dbpedia.org/datatype/usDollar"})).unwrap(),
            Term::typed("5000000.0", "http://dbpedia.org/datatype/usDollar")
        );
        assert_eq!(
            binding_term(&json!({"type": "uri", "value": "50035"})).unwrap(),
            Term::plain("50035")
        );
        assert!(binding_term(&json!({"type": "weird", "value": "x"}))
            .unwrap_err()
            .to_string()
            .contains("\"weird\""));
    }

    #[test]
    fn rows_with_several_variables_are_one_answer() {
        let obj = json!({"head": {"vars": ["?uri", "\"label\""]}, "results": {"bindings": [
            {"uri": {"type": "uri", "value": "http://x.org/a"}, "label": {"type": "literal", "value": "A"}},
            {}
        ]}});
        let mut set = AnswerSet::default();
        let mut diags = Vec::new();
        read_answer_object(obj.as_object().unwrap(), None, &mut set, &mut diags);
        assert_eq!(set.answers.len(), 1);
        assert_eq!(set.answers[0].terms.len(), 2);
        assert_eq!(set.vars, vec!["uri", "label"]);
        assert!(diags.is_empty());
    }
}
