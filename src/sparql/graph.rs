//! The RDF the service publishes: statements written as Turtle, N-Triples,
//! JSON-LD or RDF/XML, and a read-only SPARQL 1.1 store over them (oxigraph in
//! memory) that answers the protocol's queries in the format the client
//! accepts, within a time limit, and refuses updates.

use std::sync::mpsc;
use std::time::Duration;

use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term as OxTerm, Triple};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{CancellationToken, QueryEvaluationError, QueryResults, SparqlEvaluator};
use oxigraph::store::Store;

use crate::model::Term;

/// One statement: an IRI subject, an IRI predicate and a term.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The subject's IRI.
    pub subject: String,
    /// The predicate's IRI.
    pub predicate: String,
    /// The object.
    pub object: Term,
}

/// An RDF syntax the service writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Turtle (`text/turtle`).
    Turtle,
    /// N-Triples (`application/n-triples`).
    NTriples,
    /// JSON-LD (`application/ld+json`).
    JsonLd,
    /// RDF/XML (`application/rdf+xml`).
    RdfXml,
}

impl Syntax {
    /// Every syntax, the default (Turtle) first.
    pub const ALL: [Syntax; 4] = [
        Syntax::Turtle,
        Syntax::NTriples,
        Syntax::JsonLd,
        Syntax::RdfXml,
    ];

    /// Its media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Syntax::Turtle => "text/turtle",
            Syntax::NTriples => "application/n-triples",
            Syntax::JsonLd => "application/ld+json",
            Syntax::RdfXml => "application/rdf+xml",
        }
    }

    fn format(self) -> RdfFormat {
        match self {
            Syntax::Turtle => RdfFormat::Turtle,
            Syntax::NTriples => RdfFormat::NTriples,
            Syntax::JsonLd => RdfFormat::JsonLd {
                profile: JsonLdProfileSet::empty(),
            },
            Syntax::RdfXml => RdfFormat::RdfXml,
        }
    }
}

/// Statements that cannot be written or stored.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// A subject, predicate or datatype is not an IRI.
    #[error("{0:?} is not an iri")]
    Iri(String),
    /// A literal's language tag is malformed.
    #[error("{0:?} is not a language tag")]
    Language(String),
    /// Writing failed.
    #[error("cannot write rdf: {0}")]
    Write(#[from] std::io::Error),
    /// The store failed.
    #[error("the published graph's store failed: {0}")]
    Store(String),
}

fn named(iri: &str) -> Result<NamedNode, GraphError> {
    NamedNode::new(iri).map_err(|_| GraphError::Iri(iri.to_string()))
}

fn object(t: &Term) -> Result<OxTerm, GraphError> {
    Ok(match t {
        Term::Iri(i) => named(i)?.into(),
        Term::Literal {
            lexical,
            datatype,
            lang,
        } => match (lang, datatype) {
            (Some(l), _) => Literal::new_language_tagged_literal(lexical, l)
                .map_err(|_| GraphError::Language(l.clone()))?
                .into(),
            (None, Some(d)) => Literal::new_typed_literal(lexical, named(d)?).into(),
            (None, None) => Literal::new_simple_literal(lexical).into(),
        },
        Term::Boolean(b) => Literal::from(*b).into(),
    })
}

fn triple(s: &Statement) -> Result<Triple, GraphError> {
    Ok(Triple::new(
        named(&s.subject)?,
        named(&s.predicate)?,
        object(&s.object)?,
    ))
}

/// Writes statements in a syntax, declaring `prefixes` (name, namespace) where
/// the syntax has prefixes.
pub fn serialize(
    statements: &[Statement],
    syntax: Syntax,
    prefixes: &[(&str, &str)],
) -> Result<Vec<u8>, GraphError> {
    let mut serializer = RdfSerializer::from_format(syntax.format());
    for (name, namespace) in prefixes {
        serializer = serializer
            .with_prefix(*name, *namespace)
            .map_err(|_| GraphError::Iri((*namespace).to_string()))?;
    }
    let mut writer = serializer.for_writer(Vec::new());
    for s in statements {
        writer.serialize_triple(&triple(s)?)?;
    }
    Ok(writer.finish()?)
}

/// Why a query got no answer, each a status of the SPARQL protocol.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum QueryError {
    /// Not a SPARQL query (400).
    #[error("the query does not parse: {0}")]
    Syntax(String),
    /// An update (refused: the endpoint is read-only).
    #[error("this endpoint is read-only: updates are refused; send a SELECT, ASK, CONSTRUCT or DESCRIBE query")]
    Update,
    /// Past the time limit (cancelled).
    #[error("the query was stopped after {0} ms; narrow it or add a LIMIT")]
    Timeout(u128),
    /// No format the client accepts fits the query's results (406).
    #[error("no result format of {0:?} fits this query; accept application/sparql-results+json, application/sparql-results+xml, text/csv or text/tab-separated-values for SELECT and ASK, text/turtle, application/n-triples, application/ld+json or application/rdf+xml for CONSTRUCT and DESCRIBE")]
    NotAcceptable(String),
    /// Evaluation failed.
    #[error("the query failed: {0}")]
    Failed(String),
}

/// The media types of an `Accept` header, most preferred first (by `q`, then
/// order); empty or absent: any.
fn accepted(accept: &str) -> Vec<String> {
    let mut types: Vec<(f32, usize, String)> = accept
        .split(',')
        .enumerate()
        .filter_map(|(i, part)| {
            let mut fields = part.split(';');
            let media = fields.next()?.trim().to_ascii_lowercase();
            let q = fields
                .filter_map(|f| f.trim().strip_prefix("q="))
                .find_map(|v| v.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (!media.is_empty() && q > 0.0).then_some((q, i, media))
        })
        .collect();
    types.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    types.into_iter().map(|(_, _, m)| m).collect()
}

/// The first of `offered` (media type, value) that `accept` takes, the first
/// offered when it takes anything.
fn negotiate<T: Copy>(accept: &str, offered: &[(&str, T)]) -> Option<T> {
    let wanted = accepted(accept);
    if wanted.is_empty() {
        return offered.first().map(|(_, v)| *v);
    }
    wanted.iter().find_map(|w| {
        if w == "*/*" {
            return offered.first().map(|(_, v)| *v);
        }
        let (kind, sub) = w.split_once('/')?;
        offered.iter().find_map(|(m, v)| {
            let (mk, ms) = m.split_once('/')?;
            (mk == kind && (sub == "*" || ms == sub)).then_some(*v)
        })
    })
}

/// The RDF syntax an `Accept` header asks for, if any of [`Syntax::ALL`]
/// (`application/json` counts as JSON-LD).
pub fn negotiate_syntax(accept: &str) -> Option<Syntax> {
    let mut offered: Vec<(&str, Syntax)> =
        Syntax::ALL.iter().map(|s| (s.media_type(), *s)).collect();
    offered.push(("text/plain", Syntax::NTriples));
    negotiate(accept, &offered)
}

const RESULT_FORMATS: [(&str, QueryResultsFormat); 4] = [
    ("application/sparql-results+json", QueryResultsFormat::Json),
    ("application/sparql-results+xml", QueryResultsFormat::Xml),
    ("text/csv", QueryResultsFormat::Csv),
    ("text/tab-separated-values", QueryResultsFormat::Tsv),
];

/// A read-only SPARQL store of published statements, in memory.
pub struct PublishedGraph {
    store: Store,
}

impl PublishedGraph {
    /// An empty graph.
    pub fn new() -> Result<PublishedGraph, GraphError> {
        Ok(PublishedGraph {
            store: Store::new().map_err(|e| GraphError::Store(e.to_string()))?,
        })
    }

    /// Adds statements (a statement already there is not repeated).
    pub fn insert(&self, statements: &[Statement]) -> Result<(), GraphError> {
        let quads = statements
            .iter()
            .map(|s| {
                let t = triple(s)?;
                Ok(Quad::new(
                    t.subject,
                    t.predicate,
                    t.object,
                    GraphName::DefaultGraph,
                ))
            })
            .collect::<Result<Vec<_>, GraphError>>()?;
        self.store
            .extend(quads)
            .map_err(|e| GraphError::Store(e.to_string()))
    }

    /// The number of statements.
    pub fn len(&self) -> usize {
        self.store.len().unwrap_or(0)
    }

    /// True when there is no statement.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Answers a query in the format `accept` asks for: (media type, body).
    /// An update is refused; a query past `timeout` is cancelled.
    pub fn query(
        &self,
        query: &str,
        accept: &str,
        timeout: Duration,
    ) -> Result<(&'static str, Vec<u8>), QueryError> {
        if let Err(e) = SparqlEvaluator::new().parse_query(query) {
            return Err(if SparqlEvaluator::new().parse_update(query).is_ok() {
                QueryError::Update
            } else {
                QueryError::Syntax(e.to_string().replace('\n', " "))
            });
        }
        let token = CancellationToken::new();
        let (tx, rx) = mpsc::channel();
        let store = self.store.clone();
        let inner = token.clone();
        let (text, accept) = (query.to_string(), accept.to_string());
        std::thread::Builder::new()
            .name("sparql-endpoint".into())
            .spawn(move || {
                let _ = tx.send(answer(&store, &text, inner, &accept));
            })
            .map_err(|e| QueryError::Failed(format!("cannot start the query: {e}")))?;
        match rx.recv_timeout(timeout) {
            Ok(result) => result,
            Err(_) => {
                token.cancel();
                Err(QueryError::Timeout(timeout.as_millis()))
            }
        }
    }
}

/// The results format `accept` asks for (`application/json` counts as the
/// SPARQL results JSON).
fn negotiate_results(accept: &str) -> Option<(&'static str, QueryResultsFormat)> {
    let mut offered: Vec<(&str, (&'static str, QueryResultsFormat))> =
        RESULT_FORMATS.iter().map(|(m, f)| (*m, (*m, *f))).collect();
    offered.push(("application/json", RESULT_FORMATS[0]));
    negotiate(accept, &offered)
}

/// Evaluates one query and writes its results in the format `accept` asks for
/// (a results format for solutions and booleans, an RDF syntax for graphs).
fn answer(
    store: &Store,
    query: &str,
    token: CancellationToken,
    accept: &str,
) -> Result<(&'static str, Vec<u8>), QueryError> {
    let refuse = || QueryError::NotAcceptable(accept.to_string());
    let failed = |e: QueryEvaluationError| match e {
        QueryEvaluationError::Cancelled => QueryError::Timeout(0),
        e => QueryError::Failed(e.to_string()),
    };
    let io = |e: std::io::Error| QueryError::Failed(e.to_string());
    let prepared = SparqlEvaluator::new()
        .with_cancellation_token(token)
        .parse_query(query)
        .map_err(|e| QueryError::Syntax(e.to_string()))?;
    match prepared.on_store(store).execute().map_err(failed)? {
        QueryResults::Solutions(solutions) => {
            let (media, f) = negotiate_results(accept).ok_or_else(refuse)?;
            let mut out = QueryResultsSerializer::from_format(f)
                .serialize_solutions_to_writer(Vec::new(), solutions.variables().to_vec())
                .map_err(io)?;
            for s in solutions {
                out.serialize(&s.map_err(failed)?).map_err(io)?;
            }
            Ok((media, out.finish().map_err(io)?))
        }
        QueryResults::Boolean(b) => {
            let (media, f) = negotiate_results(accept).ok_or_else(refuse)?;
            let body = QueryResultsSerializer::from_format(f)
                .serialize_boolean_to_writer(Vec::new(), b)
                .map_err(io)?;
            Ok((media, body))
        }
        QueryResults::Graph(triples) => {
            let syntax = negotiate_syntax(accept).ok_or_else(refuse)?;
            let mut out = RdfSerializer::from_format(syntax.format()).for_writer(Vec::new());
            for t in triples {
                out.serialize_triple(&t.map_err(failed)?).map_err(io)?;
            }
            Ok((syntax.media_type(), out.finish().map_err(io)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(s: &str, p: &str, o: Term) -> Statement {
        Statement {
            subject: s.into(),
            predicate: p.into(),
            object: o,
        }
    }

    fn sample() -> Vec<Statement> {
        vec![
            st(
                "http://x/e1",
                "http://x/f1",
                Term::Literal {
                    lexical: "0.75".into(),
                    datatype: Some("http://www.w3.org/2001/XMLSchema#double".into()),
                    lang: None,
                },
            ),
            st("http://x/e1", "http://x/bench", Term::plain("qald-9")),
            st("http://x/e2", "http://x/f1", Term::Boolean(true)),
        ]
    }

    #[test]
    fn every_syntax_writes_what_a_reader_reads_back() {
        for syntax in Syntax::ALL {
            let bytes = serialize(&sample(), syntax, &[("x", "http://x/")]).expect("written");
            let g = PublishedGraph::new().expect("store");
            let format = syntax.format();
            let quads: Vec<Quad> = oxigraph::io::RdfParser::from_format(format)
                .for_slice(&bytes)
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{syntax:?}: {e}"));
            assert_eq!(quads.len(), 3, "{syntax:?}");
            g.store.extend(quads).expect("stored");
            let (_, body) = g
                .query(
                    "ASK { <http://x/e1> <http://x/f1> 0.75e0 }",
                    "",
                    Duration::from_secs(5),
                )
                .expect("answered");
            assert_eq!(
                String::from_utf8_lossy(&body),
                r#"{"head":{},"boolean":true}"#,
                "{syntax:?}"
            );
        }
    }

    #[test]
    fn queries_are_negotiated_and_updates_refused() {
        let g = PublishedGraph::new().expect("store");
        g.insert(&sample()).expect("inserted");
        g.insert(&sample()).expect("inserted twice");
        assert_eq!(g.len(), 3);
        let select = "SELECT ?s WHERE { ?s <http://x/f1> ?o } ORDER BY ?s";
        let (media, body) = g
            .query(select, "text/csv", Duration::from_secs(5))
            .expect("csv");
        assert_eq!(media, "text/csv");
        assert_eq!(
            String::from_utf8_lossy(&body),
            "s\r\nhttp://x/e1\r\nhttp://x/e2\r\n"
        );
        let (media, _) = g
            .query(
                select,
                "text/html, application/sparql-results+xml;q=0.9, */*;q=0.1",
                Duration::from_secs(5),
            )
            .expect("xml");
        assert_eq!(media, "application/sparql-results+xml");
        let (media, body) = g
            .query(
                "CONSTRUCT WHERE { ?s <http://x/bench> ?o }",
                "application/n-triples",
                Duration::from_secs(5),
            )
            .expect("graph");
        assert_eq!(media, "application/n-triples");
        assert_eq!(
            String::from_utf8_lossy(&body).trim(),
            "<http://x/e1> <http://x/bench> \"qald-9\" ."
        );
        assert_eq!(
            g.query(
                "INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }",
                "",
                Duration::from_secs(5)
            ),
            Err(QueryError::Update)
        );
        assert_eq!(g.len(), 3);
        assert!(matches!(
            g.query("SELEKT * {}", "", Duration::from_secs(5)),
            Err(QueryError::Syntax(_))
        ));
        assert!(matches!(
            g.query(select, "image/png", Duration::from_secs(5)),
            Err(QueryError::NotAcceptable(_))
        ));
    }

    #[test]
    fn a_query_past_the_timeout_is_stopped() {
        let g = PublishedGraph::new().expect("store");
        let many: Vec<Statement> = (0..300)
            .map(|i| {
                st(
                    &format!("http://x/s{i}"),
                    "http://x/p",
                    Term::plain(i.to_string()),
                )
            })
            .collect();
        g.insert(&many).expect("inserted");
        let cross = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?s ?h }";
        assert_eq!(
            g.query(cross, "", Duration::from_millis(50)),
            Err(QueryError::Timeout(50))
        );
    }
}
