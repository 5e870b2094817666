//! SPARQL JSON results of the fetcher's queries, read with a bound on their
//! size (the caller's) and a typed shape (so nesting is bounded by the shape):
//! rows of `?s ?p ?o` whose terms are IRIs or literals (blank nodes are
//! dropped), and those rows written as N-Triples for the index builder.

use std::collections::HashMap;

use serde::Deserialize;

/// An RDF term of a result row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RdfTerm {
    /// An IRI, as the endpoint wrote it.
    Iri(String),
    /// A literal with its language tag or datatype.
    Literal {
        /// The lexical form.
        value: String,
        /// The language tag, lower-cased.
        lang: Option<String>,
        /// The datatype IRI (not for language-tagged literals).
        datatype: Option<String>,
    },
}

/// One `?s ?p ?o` row: a statement of the endpoint's graph.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Row {
    /// The subject (an IRI).
    pub s: String,
    /// The predicate.
    pub p: String,
    /// The object.
    pub o: RdfTerm,
}

#[derive(Deserialize)]
struct Document {
    results: Results,
}

#[derive(Deserialize)]
struct Results {
    bindings: Vec<HashMap<String, Binding>>,
}

#[derive(Deserialize)]
struct Binding {
    #[serde(rename = "type")]
    kind: String,
    value: String,
    #[serde(rename = "xml:lang")]
    lang: Option<String>,
    datatype: Option<String>,
}

/// Why a body is not the results of a fetch query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultsError {
    /// Not SPARQL JSON results at all (an HTML page, a proxy's error …).
    #[error("the answer is not SPARQL JSON results ({media_type}, starting {start:?}): {reason}")]
    NotResults {
        /// The media type the endpoint said.
        media_type: String,
        /// The first characters of the body.
        start: String,
        /// What the JSON reader said.
        reason: String,
    },
}

/// The rows of a SPARQL JSON results body. Rows with an unbound or blank-node
/// position are dropped; a literal subject or predicate too.
pub fn parse_rows(body: &[u8], media_type: &str) -> Result<Vec<Row>, ResultsError> {
    let doc: Document = serde_json::from_slice(body).map_err(|e| ResultsError::NotResults {
        media_type: if media_type.is_empty() {
            "no media type".into()
        } else {
            media_type.to_string()
        },
        start: String::from_utf8_lossy(&body[..body.len().min(60)]).into_owned(),
        reason: e.to_string(),
    })?;
    let mut rows = Vec::with_capacity(doc.results.bindings.len());
    for b in doc.results.bindings {
        let (Some(s), Some(p), Some(o)) = (b.get("s"), b.get("p"), b.get("o")) else {
            continue;
        };
        if s.kind != "uri" || p.kind != "uri" || !absolute(&s.value) || !absolute(&p.value) {
            continue;
        }
        let o = match o.kind.as_str() {
            "uri" if absolute(&o.value) => RdfTerm::Iri(o.value.clone()),
            "literal" | "typed-literal" => {
                let lang = o
                    .lang
                    .as_ref()
                    .filter(|l| valid_lang(l))
                    .map(|l| l.to_ascii_lowercase());
                RdfTerm::Literal {
                    value: o.value.clone(),
                    datatype: if lang.is_some() {
                        None
                    } else {
                        o.datatype.clone()
                    },
                    lang,
                }
            }
            _ => continue,
        };
        rows.push(Row {
            s: s.value.clone(),
            p: p.value.clone(),
            o,
        });
    }
    Ok(rows)
}

/// True for an IRI with a scheme (`scheme:…`), which N-Triples requires; an
/// endpoint's relative or empty IRI is dropped with its row.
fn absolute(iri: &str) -> bool {
    iri.split_once(':').is_some_and(|(scheme, _)| {
        let mut bytes = scheme.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
            && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    })
}

/// A BCP 47-shaped tag N-Triples accepts: letters, then `-` and alphanumerics.
fn valid_lang(tag: &str) -> bool {
    let mut parts = tag.split('-');
    parts
        .next()
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphabetic()))
        && parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// An IRI as `<…>` in N-Triples or SPARQL: the characters neither allows
/// inside an IRI (space, controls, `<>"{}|^`\`) percent-encoded, which the
/// judge's canonical form decodes again.
pub fn iri_ref(iri: &str) -> String {
    let mut out = String::with_capacity(iri.len() + 2);
    out.push('<');
    for c in iri.chars() {
        if c <= ' ' || matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\') {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out.push('>');
    out
}

/// A string literal's quoted form in N-Triples or SPARQL.
pub fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The row as one N-Triples line (with its newline).
pub fn ntriples(row: &Row) -> String {
    let o = match &row.o {
        RdfTerm::Iri(i) => iri_ref(i),
        RdfTerm::Literal {
            value,
            lang: Some(lang),
            ..
        } => format!("{}@{lang}", quoted(value)),
        RdfTerm::Literal {
            value,
            datatype: Some(dt),
            ..
        } => format!("{}^^{}", quoted(value), iri_ref(dt)),
        RdfTerm::Literal { value, .. } => quoted(value),
    };
    format!("{} {} {o} .\n", iri_ref(&row.s), iri_ref(&row.p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_oxigraph_and_virtuoso_results() {
        let body = br#"{"head":{"vars":["s","p","o"]},"results":{"bindings":[
          {"s":{"type":"uri","value":"http://www.wikidata.org/entity/Q42"},"p":{"type":"uri","value":"http://www.w3.org/2000/01/rdf-schema#label"},"o":{"type":"literal","value":"Douglas \"DNA\" Adams","xml:lang":"EN"}},
          {"s":{"type":"uri","value":"http://www.wikidata.org/entity/Q42"},"p":{"type":"uri","value":"http://www.wikidata.org/prop/direct/P646"},"o":{"type":"typed-literal","value":"/m/0282x","datatype":"http://www.w3.org/2001/XMLSchema#string"}},
          {"s":{"type":"bnode","value":"b0"},"p":{"type":"uri","value":"http://x/p"},"o":{"type":"uri","value":"http://x/o"}},
          {"s":{"type":"uri","value":"http://dbpedia.org/resource/A B"},"p":{"type":"uri","value":"http://www.w3.org/2002/07/owl#sameAs"},"o":{"type":"uri","value":"http://x/o"}},
          {"s":{"type":"uri","value":"relative/x"},"p":{"type":"uri","value":"http://x/p"},"o":{"type":"uri","value":"http://x/o"}},
          {"s":{"type":"uri","value":"http://x/s"},"p":{"type":"uri","value":"http://x/p"},"o":{"type":"uri","value":""}}
        ]}}"#;
        let rows = parse_rows(body, "application/sparql-results+json").expect("results");
        assert_eq!(rows.len(), 3);
        assert_eq!(
            ntriples(&rows[0]),
            "<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> \"Douglas \\\"DNA\\\" Adams\"@en .\n"
        );
        assert!(ntriples(&rows[1])
            .ends_with("\"/m/0282x\"^^<http://www.w3.org/2001/XMLSchema#string> .\n"));
        assert!(ntriples(&rows[2]).starts_with("<http://dbpedia.org/resource/A%20B> "));
    }

    #[test]
    fn an_html_page_is_not_results() {
        let err = parse_rows(b"<!DOCTYPE html><html>", "text/html").expect_err("html");
        assert!(err.to_string().contains("text/html"), "{err}");
        assert!(err.to_string().contains("<!DOCTYPE"), "{err}");
    }
}
