//! What a report records of the answers no file holds (docs/reproduce.md):
//! each live system's replies, call by call (the body as sent, or why the
//! call failed, with its measured time and attempts), and each reply of a
//! SPARQL endpoint, query by query (its status, rows and the variable of
//! each term). A live source cannot be asked again as it was; `qajudge
//! reproduce` scores these records instead, and its `--re-execute` asks
//! again and names each question whose answer drifted.
//!
//! The receipt holds each record's digest ([`SystemTape::digest`],
//! [`EndpointTape::digest`]), so a record edited after the report was
//! written is named as changed. The digest leaves out the time the source
//! was asked and, for an endpoint, how long each query took: neither decides
//! a figure. No I/O: `live` and `sparql` fill the records and replay them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::Term;

/// The records of a report's live sources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Recorded {
    /// Each live system asked, in the order of the runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub systems: Vec<SystemTape>,
    /// The SPARQL endpoint the queries were executed on, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<EndpointTape>,
}

impl Recorded {
    /// True when nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty() && self.endpoint.is_none()
    }
}

/// How a live system was asked, as the replies depend on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Asked {
    /// The API: `gerbil` or `text2sparql`.
    pub protocol: String,
    /// The language of the texts sent (TEXT2SPARQL sends each question's own).
    pub lang: String,
    /// The dataset id sent with TEXT2SPARQL questions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// The time one call could take, in milliseconds.
    pub timeout_ms: u64,
    /// How often a call that failed transiently was tried again.
    pub retries: u32,
    /// The share of failed calls that stopped the run, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_error_rate: Option<f64>,
    /// Calls made before the error rate was checked.
    pub min_calls: usize,
}

/// One live system's replies to a benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SystemTape {
    /// The run's name in the report.
    pub run: String,
    /// The system's URL.
    pub url: String,
    /// When it was first asked (RFC 3339, UTC; not in the digest).
    pub at: String,
    /// What it says of itself: its `Server` header, if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// How it was asked.
    pub asked: Asked,
    /// One call per question asked, in the gold's order.
    pub calls: Vec<Call>,
    /// Why the calls stopped early, if they did (the questions after it were
    /// not asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The run's notes on how its answers were had (the answer cache, retries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One question's call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Call {
    /// The gold question's id.
    pub id: String,
    /// The measured time of the call, in milliseconds.
    pub ms: f64,
    /// The requests made (0: the answer came from the answer cache).
    pub attempts: u32,
    /// The reply's body as sent, when the call was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Why the call failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// True when the call was answered and its body is not kept: the
    /// record's bound ([`MAX_RECORDED_BYTES`]) was reached. A record that
    /// omits a body cannot be scored again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// The most bytes of bodies one system's record keeps, and of rows an
/// endpoint's record keeps (a body or reply past it is marked `omitted`):
/// the record lives in the report, which a server holds in memory.
pub const MAX_RECORDED_BYTES: usize = 64 << 20;

impl SystemTape {
    /// SHA-256 of the record without the time it was asked.
    pub fn digest(&self) -> String {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = value.as_object_mut() {
            o.remove("at");
        }
        crate::digest::sha256_hex(&serde_json::to_vec(&value).unwrap_or_default())
    }
}

/// A SPARQL endpoint's replies to the queries executed on it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EndpointTape {
    /// The endpoint's URL.
    pub url: String,
    /// When it was first asked (RFC 3339, UTC; not in the digest).
    pub at: String,
    /// What it says of itself: its `Server` header, if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// One reply per query text, sorted by the text (a text executed twice,
    /// for the gold and for a run, was asked once).
    pub queries: Vec<Reply>,
}

impl EndpointTape {
    /// SHA-256 of the record without the time it was asked and the time
    /// each query took.
    pub fn digest(&self) -> String {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = value.as_object_mut() {
            o.remove("at");
            if let Some(Value::Array(queries)) = o.get_mut("queries") {
                for q in queries.iter_mut().filter_map(Value::as_object_mut) {
                    q.remove("ms");
                }
            }
        }
        crate::digest::sha256_hex(&serde_json::to_vec(&value).unwrap_or_default())
    }
}

/// One query's reply, as the executor read it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Reply {
    /// The query as sent.
    pub query: String,
    /// The execution status (`ok`, `timeout`, `truncated` …).
    pub status: String,
    /// The error or the cap in words, when not `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The result's variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vars: Vec<String>,
    /// The rows, each its terms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<Vec<RecordedTerm>>,
    /// Per row, the variable (index into `vars`) of each of its terms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Vec<usize>>,
    /// How long it took, in milliseconds (not in the digest).
    pub ms: f64,
    /// True when its rows are not kept: the record's bound
    /// ([`MAX_RECORDED_BYTES`]) was reached. A record that omits a reply
    /// cannot be scored again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// A term of a recorded row, as SPARQL JSON results write one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RecordedTerm {
    /// An IRI (a blank node as `_:label`).
    Uri {
        /// The IRI.
        value: String,
    },
    /// A literal.
    Literal {
        /// Its lexical form.
        value: String,
        /// Its datatype IRI, if it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        datatype: Option<String>,
        /// Its language tag, if it has one.
        #[serde(default, rename = "xml:lang", skip_serializing_if = "Option::is_none")]
        lang: Option<String>,
    },
    /// An ASK query's answer.
    Boolean {
        /// The answer.
        value: bool,
    },
}

impl From<&Term> for RecordedTerm {
    fn from(t: &Term) -> RecordedTerm {
        match t {
            Term::Iri(i) => RecordedTerm::Uri { value: i.clone() },
            Term::Literal {
                lexical,
                datatype,
                lang,
            } => RecordedTerm::Literal {
                value: lexical.clone(),
                datatype: datatype.clone(),
                lang: lang.clone(),
            },
            Term::Boolean(b) => RecordedTerm::Boolean { value: *b },
        }
    }
}

impl From<RecordedTerm> for Term {
    fn from(t: RecordedTerm) -> Term {
        match t {
            RecordedTerm::Uri { value } => Term::Iri(value),
            RecordedTerm::Literal {
                value,
                datatype,
                lang,
            } => Term::Literal {
                lexical: value,
                datatype,
                lang,
            },
            RecordedTerm::Boolean { value } => Term::Boolean(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_digest_ignores_when_and_how_long_and_sees_every_reply() {
        let tape = EndpointTape {
            url: "http://127.0.0.1:1/sparql".into(),
            at: "2026-11-29T00:00:00Z".into(),
            server: Some("Virtuoso/07.20".into()),
            queries: vec![Reply {
                query: "SELECT ?x {}".into(),
                status: "ok".into(),
                vars: vec!["x".into()],
                rows: vec![vec![RecordedTerm::from(&Term::Literal {
                    lexical: "5".into(),
                    datatype: Some("http://www.w3.org/2001/XMLSchema#integer".into()),
                    lang: None,
                })]],
                columns: vec![vec![0]],
                ms: 3.0,
                ..Reply::default()
            }],
        };
        let mut later = tape.clone();
        later.at = "2027-01-01T00:00:00Z".into();
        later.queries[0].ms = 900.0;
        assert_eq!(tape.digest(), later.digest());
        let mut edited = tape.clone();
        edited.queries[0].rows[0][0] = RecordedTerm::Uri {
            value: "http://e.org/x".into(),
        };
        assert_ne!(tape.digest(), edited.digest());
        // read back as written
        let text = serde_json::to_string(&tape).expect("serialises");
        assert!(text.contains(r#""type":"literal""#), "{text}");
        let back: EndpointTape = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, tape);
        let system = SystemTape {
            run: "s".into(),
            calls: vec![Call {
                id: "1".into(),
                ms: 12.5,
                attempts: 1,
                body: Some("{}".into()),
                ..Call::default()
            }],
            ..SystemTape::default()
        };
        let mut slower = system.clone();
        slower.calls[0].ms = 13.0;
        // a system's latency is a figure (docs/scoring.md, Cost and latency)
        assert_ne!(system.digest(), slower.digest());
    }
}
