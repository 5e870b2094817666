//! The RDF the service publishes: statements written as Turtle, N-Triples,
//! JSON-LD or RDF/XML, and a read-only SPARQL 1.1 store over them (oxigraph in
//! memory) that answers the protocol's queries in the format the client
//! accepts and refuses updates. A query runs on its own thread under the
//! server's limits: one of the gate's slots (or it is refused as busy), its
//! deadline, a cap on its rows and on its bytes, and the bounds of
//! [`super::guard`]; its results are streamed ([`super::stream`]).

use std::sync::mpsc;
use std::time::Instant;

use oxigraph::io::{JsonLdProfileSet, RdfFormat, RdfSerializer};
use oxigraph::model::{GraphName, Literal, NamedNode, Quad, Term as OxTerm, Triple};
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use oxigraph::sparql::{
    CancellationToken, QueryEvaluationError, QueryResults, QuerySolution, QuerySolutionIter,
    QueryTripleIter, SparqlEvaluator, Variable,
};
use oxigraph::store::Store;

use super::guard::{prepare, run_guarded, Caught, Guard};
use super::limits::{Budget, QueryGate, Stop, Timer};
use super::query_error::QueryError;
use super::stream::{Reply, Sink};
use super::ExecOptions;
use crate::model::Term;
use crate::query::ticks::TickError;

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

pub(super) fn triple(s: &Statement) -> Result<Triple, GraphError> {
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
    gate: Option<QueryGate>,
}

impl PublishedGraph {
    /// An empty graph, whose queries run without a gate.
    pub fn new() -> Result<PublishedGraph, GraphError> {
        Ok(PublishedGraph {
            store: Store::new().map_err(|e| GraphError::Store(e.to_string()))?,
            gate: None,
        })
    }

    /// The same graph, whose queries take a slot of `gate` (a query finding
    /// none is refused as [`QueryError::Busy`]).
    #[must_use]
    pub fn with_gate(mut self, gate: QueryGate) -> PublishedGraph {
        self.gate = Some(gate);
        self
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

    /// Answers a query in the format `accept` asks for, under `options`' timeout
    /// and caps (`max_rows` rows or triples, `max_bytes` bytes written and held
    /// by a sort, group or deduplication). Returns when the answer starts: a
    /// result smaller than [`super::stream::HEAD_BYTES`] (or an error) whole,
    /// a larger one streaming. An update is refused; a query still without an
    /// answer at its deadline is cancelled. The query's thread keeps its slot
    /// until it ends.
    pub fn answer(
        &self,
        query: &str,
        accept: &str,
        options: ExecOptions,
    ) -> Result<Reply, QueryError> {
        crate::query::check_bounds(query).map_err(|e| QueryError::TooLarge(e.to_string()))?;
        let permit = match &self.gate {
            Some(gate) => Some(gate.try_acquire().ok_or(QueryError::Busy {
                slots: gate.slots(),
                retry_after: options.timeout.as_secs_f64().ceil().max(1.0) as u64,
            })?),
            None => None,
        };
        let budget = Budget::new(Instant::now(), options.timeout, options.max_bytes);
        let token = CancellationToken::new();
        let (tx, rx) = mpsc::channel();
        let store = self.store.clone();
        let inner = token.clone();
        let (text, accept) = (query.to_string(), accept.to_string());
        let (max_rows, deadline) = (options.max_rows, budget.deadline());
        let first_budget = budget.clone();
        std::thread::Builder::new()
            .name("sparql-endpoint".into())
            .stack_size(crate::stack::DEEP_STACK_BYTES)
            .spawn(move || {
                let timer = Timer::start(inner.clone(), deadline);
                let mut sink = Sink::new(tx, first_budget);
                let result = match run_guarded(|| {
                    parse_and_answer(&store, &text, &inner, &accept, max_rows, &mut sink)
                }) {
                    Ok(result) => result,
                    Err(Caught::Stop(stop)) => Err(stop.into()),
                    Err(Caught::Panic(m)) => Err(QueryError::Failed(format!(
                        "the store failed on this query ({m})"
                    ))),
                };
                // the query is over: its slot is free before its client hears
                // of it, so that a client's next query finds it free
                drop((timer, permit));
                sink.finish(result);
            })
            .map_err(|e| QueryError::Failed(format!("cannot start the query: {e}")))?;
        match rx.recv_timeout(budget.left()) {
            Ok(answer) => answer,
            Err(_) => {
                token.cancel();
                Err(budget.timeout().into())
            }
        }
    }
}

impl PublishedGraph {
    /// Answers a query whole, as [`PublishedGraph::answer`] does with
    /// `timeout` and the default caps, waiting for a streamed result's end:
    /// (media type, body).
    pub fn query(
        &self,
        query: &str,
        accept: &str,
        timeout: std::time::Duration,
    ) -> Result<(&'static str, Vec<u8>), QueryError> {
        let options = ExecOptions {
            timeout,
            ..ExecOptions::default()
        };
        match self.answer(query, accept, options)? {
            Reply::Complete { media, body } => Ok((media, body)),
            Reply::Streaming { media, head, rest } => {
                let mut body = head;
                rest.read_to_end(&mut body)?;
                Ok((media, body))
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

/// The longest text tried as an update when it does not parse as a query (to
/// tell an update, refused, from a syntax error); longer ones are syntax errors.
const MAX_UPDATE_BYTES: usize = 64 << 10;

/// Refuses what is not a query (an update, a syntax error), then answers it
/// into `sink`. Runs on a thread with a deep stack, after the query's bounds
/// are checked, inside `run_guarded`.
fn parse_and_answer(
    store: &Store,
    query: &str,
    token: &CancellationToken,
    accept: &str,
    max_rows: usize,
    sink: &mut Sink,
) -> Result<(), QueryError> {
    let evaluator = SparqlEvaluator::new().with_cancellation_token(token.clone());
    let (prepared, guard) = match prepare(query, evaluator, token, sink.budget()) {
        Ok(p) => p,
        Err(e @ TickError::TooLarge { .. }) => return Err(QueryError::TooLarge(e.to_string())),
        Err(e) => {
            let update = query.len() <= MAX_UPDATE_BYTES
                && SparqlEvaluator::new().parse_update(query).is_ok();
            return Err(if update {
                QueryError::Update
            } else {
                QueryError::Syntax(e.to_string().replace('\n', " "))
            });
        }
    };
    let clock = sink.budget().clone();
    let failed = |e: QueryEvaluationError| match e {
        QueryEvaluationError::Cancelled => clock.timeout().into(),
        // a SERVICE named by a variable is refused as one named by an IRI
        QueryEvaluationError::UnboundService | QueryEvaluationError::InvalidServiceName(_) => {
            QueryError::ServiceNotAllowed("named by a variable".into())
        }
        QueryEvaluationError::UnsupportedService(service) => {
            QueryError::ServiceNotAllowed(format!("<{}>", service.as_str()))
        }
        e => QueryError::Failed(e.to_string()),
    };
    let refuse = || QueryError::NotAcceptable(accept.to_string());
    let written = match prepared.on_store(store).execute().map_err(failed)? {
        QueryResults::Solutions(solutions) => {
            let (media, f) = negotiate_results(accept).ok_or_else(refuse)?;
            sink.set_media(media);
            let rows = Rows {
                clock: &clock,
                guard: &guard,
                max: max_rows,
                failed: &failed,
            };
            write_solutions(solutions, f, &mut *sink, &rows)
        }
        QueryResults::Boolean(b) => {
            guard.check()?;
            let (media, f) = negotiate_results(accept).ok_or_else(refuse)?;
            sink.set_media(media);
            QueryResultsSerializer::from_format(f)
                .serialize_boolean_to_writer(&mut *sink, b)
                .map(|_| ())
                .map_err(Failure::Io)
        }
        QueryResults::Graph(triples) => {
            let syntax = negotiate_syntax(accept).ok_or_else(refuse)?;
            sink.set_media(syntax.media_type());
            let rows = Rows {
                clock: &clock,
                guard: &guard,
                max: max_rows,
                failed: &failed,
            };
            write_triples(triples, syntax, &mut *sink, &rows)
        }
    };
    match written {
        Ok(()) => Ok(guard.check()?),
        Err(Failure::Query(e)) => Err(e),
        Err(Failure::Io(e)) => Err(sink.error(|| QueryError::Failed(e.to_string()))),
    }
}

/// Why writing results stopped: the query, or the writer (whose reason the
/// sink keeps).
enum Failure {
    Query(QueryError),
    Io(std::io::Error),
}

impl From<QueryError> for Failure {
    fn from(e: QueryError) -> Failure {
        Failure::Query(e)
    }
}

impl From<Stop> for Failure {
    fn from(e: Stop) -> Failure {
        Failure::Query(e.into())
    }
}

/// What is checked before each row or triple is written.
struct Rows<'a> {
    clock: &'a Budget,
    guard: &'a Guard,
    max: usize,
    failed: &'a dyn Fn(QueryEvaluationError) -> QueryError,
}

impl Rows<'_> {
    /// An error past the deadline, past the row cap (`n` rows written so far)
    /// or once a bound cut the rows.
    fn check(&self, n: usize) -> Result<(), Stop> {
        self.clock.check_time()?;
        if n >= self.max {
            return Err(Stop::Rows { max: self.max });
        }
        self.guard.check()
    }
}

/// Writes solutions as `format`, checking each row first.
fn write_solutions(
    solutions: QuerySolutionIter<'_>,
    format: QueryResultsFormat,
    sink: &mut Sink,
    rows: &Rows<'_>,
) -> Result<(), Failure> {
    let mut out = QueryResultsSerializer::from_format(format)
        .serialize_solutions_to_writer(sink, solutions.variables().to_vec())
        .map_err(Failure::Io)?;
    let csv = format == QueryResultsFormat::Csv;
    for (n, s) in solutions.enumerate() {
        let s = s.map_err(rows.failed)?;
        rows.check(n)?;
        if csv {
            let safe = csv_safe(&s);
            out.serialize(safe.iter().map(|(v, t)| (v, t)))
                .map_err(Failure::Io)?;
        } else {
            out.serialize(&s).map_err(Failure::Io)?;
        }
    }
    out.finish().map_err(Failure::Io)?;
    Ok(())
}

/// A solution's bindings for CSV, where a literal is its lexical form alone:
/// one a spreadsheet would run as a formula (a run named `=HYPERLINK(…)`;
/// [`crate::terms::spreadsheet_formula`]) gets a `'` first, as the report's
/// CSV does. IRIs and blank nodes cannot start so.
fn csv_safe(s: &QuerySolution) -> Vec<(Variable, OxTerm)> {
    s.iter()
        .map(|(v, t)| {
            let t = match t {
                OxTerm::Literal(l) if crate::terms::spreadsheet_formula(l.value()) => {
                    OxTerm::Literal(Literal::new_simple_literal(format!("'{}", l.value())))
                }
                t => t.clone(),
            };
            (v.clone(), t)
        })
        .collect()
}

/// Writes triples in `syntax`, checking each triple first.
fn write_triples(
    triples: QueryTripleIter<'_>,
    syntax: Syntax,
    sink: &mut Sink,
    rows: &Rows<'_>,
) -> Result<(), Failure> {
    let mut out = RdfSerializer::from_format(syntax.format()).for_writer(sink);
    for (n, t) in triples.enumerate() {
        let t = t.map_err(rows.failed)?;
        rows.check(n)?;
        out.serialize_triple(&t).map_err(Failure::Io)?;
    }
    out.finish().map_err(Failure::Io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The options of a query with this timeout, and generous caps.
    fn within(timeout: Duration) -> ExecOptions {
        ExecOptions {
            timeout,
            ..ExecOptions::default()
        }
    }

    /// (media type, body) of a query answered whole.
    fn whole(
        g: &PublishedGraph,
        query: &str,
        accept: &str,
    ) -> Result<(&'static str, Vec<u8>), QueryError> {
        match g.answer(query, accept, within(Duration::from_secs(5)))? {
            Reply::Complete { media, body } => Ok((media, body)),
            Reply::Streaming { .. } => panic!("a small result is answered whole"),
        }
    }

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
            let (_, body) =
                whole(&g, "ASK { <http://x/e1> <http://x/f1> 0.75e0 }", "").expect("answered");
            assert_eq!(
                String::from_utf8_lossy(&body),
                r#"{"head":{},"boolean":true}"#,
                "{syntax:?}"
            );
        }
    }

    #[test]
    fn a_csv_answer_never_holds_a_formula_cell() {
        let g = PublishedGraph::new().expect("store");
        let names = [
            "=HYPERLINK(\"http://evil/\",\"x\")",
            "@SUM(1)",
            "-0.5",
            "plain",
        ];
        let statements: Vec<Statement> = names
            .iter()
            .enumerate()
            .map(|(i, n)| st(&format!("http://x/r{i}"), "http://x/name", Term::plain(*n)))
            .collect();
        g.insert(&statements).expect("inserted");
        let q = "SELECT ?n WHERE { ?r <http://x/name> ?n } ORDER BY ?r";
        let (_, body) = whole(&g, q, "text/csv").expect("csv");
        assert_eq!(
            String::from_utf8_lossy(&body),
            "n\r\n\"'=HYPERLINK(\"\"http://evil/\"\",\"\"x\"\")\"\r\n'@SUM(1)\r\n-0.5\r\nplain\r\n"
        );
        // the other formats keep the value as it is
        let (_, body) = whole(&g, q, "text/tab-separated-values").expect("tsv");
        assert!(String::from_utf8_lossy(&body).contains("\"=HYPERLINK("));
    }

    #[test]
    fn queries_are_negotiated_and_updates_refused() {
        let g = PublishedGraph::new().expect("store");
        g.insert(&sample()).expect("inserted");
        g.insert(&sample()).expect("inserted twice");
        assert_eq!(g.len(), 3);
        let select = "SELECT ?s WHERE { ?s <http://x/f1> ?o } ORDER BY ?s";
        let (media, body) = whole(&g, select, "text/csv").expect("csv");
        assert_eq!(media, "text/csv");
        assert_eq!(
            String::from_utf8_lossy(&body),
            "s\r\nhttp://x/e1\r\nhttp://x/e2\r\n"
        );
        let (media, _) = whole(
            &g,
            select,
            "text/html, application/sparql-results+xml;q=0.9, */*;q=0.1",
        )
        .expect("xml");
        assert_eq!(media, "application/sparql-results+xml");
        let (media, body) = whole(
            &g,
            "CONSTRUCT WHERE { ?s <http://x/bench> ?o }",
            "application/n-triples",
        )
        .expect("graph");
        assert_eq!(media, "application/n-triples");
        assert_eq!(
            String::from_utf8_lossy(&body).trim(),
            "<http://x/e1> <http://x/bench> \"qald-9\" ."
        );
        assert_eq!(
            whole(
                &g,
                "INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }",
                ""
            ),
            Err(QueryError::Update)
        );
        assert_eq!(g.len(), 3);
        assert!(matches!(
            whole(&g, "SELEKT * {}", ""),
            Err(QueryError::Syntax(_))
        ));
        assert!(matches!(
            whole(&g, select, "image/png"),
            Err(QueryError::NotAcceptable(_))
        ));
    }

    #[test]
    fn a_query_past_the_timeout_is_stopped() {
        let g = many(300);
        let cross = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?s ?h }";
        assert!(matches!(
            g.answer(cross, "", within(Duration::from_millis(50))),
            Err(QueryError::Timeout(50))
        ));
    }

    /// A graph of `n` statements, one subject each.
    fn many(n: usize) -> PublishedGraph {
        let g = PublishedGraph::new().expect("store");
        let many: Vec<Statement> = (0..n)
            .map(|i| {
                st(
                    &format!("http://x/s{i}"),
                    "http://x/p",
                    Term::plain(i.to_string()),
                )
            })
            .collect();
        g.insert(&many).expect("inserted");
        g
    }

    #[test]
    fn the_row_cap_and_the_byte_cap_stop_a_result() {
        let g = many(300);
        let rows = g.answer(
            "SELECT * WHERE { ?s ?p ?o }",
            "text/csv",
            ExecOptions {
                max_rows: 5,
                ..within(Duration::from_secs(5))
            },
        );
        assert_eq!(
            rows.map(|_| ()),
            Err(QueryError::ResultTooLarge(Stop::Rows { max: 5 }))
        );
        // 90 000 rows of CSV, past the first MiB: streamed whole
        let cross = "SELECT ?s ?t WHERE { ?s ?p ?o . ?t ?q ?r }";
        let Reply::Streaming { head, rest, .. } = g
            .answer(cross, "text/csv", within(Duration::from_secs(30)))
            .expect("streams")
        else {
            panic!("a result past the first MiB streams");
        };
        let mut body = head;
        rest.read_to_end(&mut body).expect("whole");
        assert_eq!(
            body.split(|b| *b == b'\n')
                .filter(|l| !l.is_empty())
                .count(),
            90_001
        );
        // past its byte cap after the first MiB: cut short
        let Reply::Streaming { head, rest, .. } = g
            .answer(
                cross,
                "text/csv",
                ExecOptions {
                    max_bytes: 2 << 20,
                    ..within(Duration::from_secs(30))
                },
            )
            .expect("streams")
        else {
            panic!("a result past the first MiB streams");
        };
        let mut body = head;
        assert_eq!(
            rest.read_to_end(&mut body),
            Err(QueryError::ResultTooLarge(Stop::Bytes { max: 2 << 20 }))
        );
        assert!(body.len() <= 2 << 20, "{}", body.len());
        // before the first MiB: an error instead of the result
        assert_eq!(
            g.answer(
                cross,
                "text/csv",
                ExecOptions {
                    max_bytes: 1000,
                    ..within(Duration::from_secs(5))
                },
            )
            .map(|_| ()),
            Err(QueryError::ResultTooLarge(Stop::Bytes { max: 1000 }))
        );
    }

    #[test]
    fn a_full_gate_refuses_and_a_stopped_query_gives_its_slot_back() {
        let gate = QueryGate::new(1);
        let g = many(300).with_gate(gate.clone());
        let held = gate.try_acquire().expect("the one slot");
        assert_eq!(
            g.answer("ASK {}", "", within(Duration::from_millis(4500)))
                .map(|_| ()),
            Err(QueryError::Busy {
                slots: 1,
                retry_after: 5
            })
        );
        drop(held);
        // a filter that drops every row of a cross product: stopped at its
        // deadline inside the store, so the slot is free right after
        let q = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l
            FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j))) < 0) }";
        let started = std::time::Instant::now();
        assert!(matches!(
            g.answer(q, "", within(Duration::from_millis(300))),
            Err(QueryError::Timeout(300))
        ));
        let slot = gate.acquire_until(started + Duration::from_millis(1300));
        assert!(
            slot.is_some(),
            "the query still ran {:?} after it began",
            started.elapsed()
        );
    }
}
