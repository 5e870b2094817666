//! Executing SPARQL on a knowledge graph (docs/scoring.md, Executing SPARQL), the one module that names
//! oxigraph. Two backends behind [`KnowledgeGraph`]: oxigraph's
//! in-memory store loaded from RDF files (every format and compression the
//! indexer reads; the union of the files is the default graph), and a SPARQL 1.1
//! protocol endpoint asked through `live`'s HTTP client. Every execution has a
//! timeout (a query past it is cancelled and never blocks the run), a row cap
//! and a memory cap (`limits`: the deadline and the bytes are checked between
//! rows; `guard` checks them inside the store's own iteration, and bounds what
//! it holds to sort, group, deduplicate or subtract); a server also caps how
//! many run at once. Results become [`AnswerSet`]s in the order the store
//! returned them, with the same term conversion for both backends, so that
//! `--kg` and `--endpoint` give the same report. `run` fills benchmark and run questions from their
//! queries; `audit_store` is the audit's store (`audit::Store`) over a graph.

mod audit_store;
mod graph;
mod guard;
mod limits;
mod load;
pub use load::{set_call_max_text_bytes, set_max_text_bytes};
mod query_error;
mod remote;
mod run;
mod scratch;
mod stream;
mod strings;
mod tape;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use oxigraph::model::{NamedNodeRef, Term as OxTerm};
use oxigraph::sparql::{CancellationToken, QueryEvaluationError, QueryResults, SparqlEvaluator};
use oxigraph::store::Store;

pub use audit_store::AuditStore;
pub use graph::{negotiate_syntax, serialize, GraphError, PublishedGraph, Statement, Syntax};
pub use limits::{Held, QueryGate, Stop, DEFAULT_MAX_BYTES};
pub use query_error::QueryError;
pub use run::{execute_dataset, execute_experiment, Executing, Mode, RunSummary};
pub use scratch::ScratchGraph;
pub use stream::{Reply, ResultStream};

use crate::eval::recorded::EndpointTape;
use crate::eval::report::{KgFile, KnowledgeGraphInfo};
use crate::model::{Answer, AnswerSet, ExecStatus, Term};

/// The default timeout of one query (docs/scoring.md, Executing SPARQL).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The default row cap of one query (docs/scoring.md, Executing SPARQL).
pub const DEFAULT_MAX_ROWS: usize = 100_000;

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
const XSD_STRING: &str = "http://www.w3.org/2001/XMLSchema#string";
const RDF_LANG_STRING: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

/// A knowledge graph that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum KgError {
    /// A file cannot be opened or read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file's name does not say an RDF format.
    #[error("{path}: unknown rdf format; name the file .nt, .nq, .ttl, .trig, .rdf, .owl, .xml, .n3 or .jsonld (optionally .gz, .bz2, .zst)")]
    Format {
        /// The file.
        path: String,
    },
    /// A file does not parse.
    #[error("{path}:{line}:{column}: {message}; fix the file or leave it out of --kg")]
    Syntax {
        /// The file.
        path: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// The parser's message.
        message: String,
    },
    /// The in-memory store failed.
    #[error("the in-memory store failed: {0}")]
    Store(String),
}

/// How every query is executed.
#[derive(Debug, Clone, Copy)]
pub struct ExecOptions {
    /// The time one query may take.
    pub timeout: Duration,
    /// The most rows kept of one result.
    pub max_rows: usize,
    /// How many queries of a dataset run at once; 0: the cores, at most 4.
    pub workers: usize,
    /// The memory one query may use, in bytes: its result (estimated from its
    /// rows as they are collected) and what the store holds to sort, group,
    /// deduplicate or subtract.
    pub max_bytes: usize,
}

impl Default for ExecOptions {
    fn default() -> ExecOptions {
        ExecOptions {
            timeout: DEFAULT_TIMEOUT,
            max_rows: DEFAULT_MAX_ROWS,
            workers: 0,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// What executing one query gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The status.
    pub status: ExecStatus,
    /// The error or the cap in words, when not `ok`.
    pub message: Option<String>,
    /// The answers, one per row, in the store's order (empty on failure).
    pub answers: AnswerSet,
    /// Per row, the variable (index into `answers.vars`) of each of its terms.
    pub columns: Vec<Vec<usize>>,
    /// Wall time in milliseconds.
    pub ms: f64,
}

impl Outcome {
    fn failed(status: ExecStatus, message: String, started: Instant) -> Outcome {
        Outcome {
            status,
            message: Some(message),
            answers: AnswerSet::default(),
            columns: Vec::new(),
            ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }
}

enum Backend {
    Store(Store),
    Endpoint(String),
    /// An endpoint's replies as a report recorded them (`qajudge reproduce`).
    Replay(tape::Replay),
}

/// A knowledge graph to run queries on.
pub struct KnowledgeGraph {
    backend: Backend,
    /// The slots queries on the embedded store wait for, on a server.
    gate: Option<QueryGate>,
    /// The record of an endpoint's replies, kept for one evaluation
    /// ([`KnowledgeGraph::recording`]).
    recorder: Option<tape::Recorder>,
    /// What it is, for the report.
    pub info: KnowledgeGraphInfo,
}

impl std::fmt::Debug for KnowledgeGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnowledgeGraph")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl KnowledgeGraph {
    /// Loads RDF files into an in-memory store. `progress` is called with (bytes
    /// read, bytes in all) as the files are read.
    pub fn load(
        files: &[PathBuf],
        options: ExecOptions,
        progress: &dyn Fn(u64, u64),
    ) -> Result<KnowledgeGraph, KgError> {
        let started = Instant::now();
        let store = Store::new().map_err(|e| KgError::Store(e.to_string()))?;
        let total: u64 = files
            .iter()
            .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
            .sum();
        let mut done = 0u64;
        let mut infos = Vec::with_capacity(files.len());
        for path in files {
            let (sha256, statements, bytes) =
                load::load_file(&store, path, &|n| progress(done + n, total))?;
            done += bytes;
            infos.push(KgFile {
                path: path.display().to_string(),
                sha256,
                statements,
            });
        }
        progress(total, total);
        let triples = store.len().map_err(|e| KgError::Store(e.to_string()))?;
        Ok(KnowledgeGraph {
            backend: Backend::Store(store),
            gate: None,
            recorder: None,
            info: KnowledgeGraphInfo {
                store: format!("oxigraph {OXIGRAPH_LOCKED} (in memory, embedded)"),
                endpoint: None,
                files: infos,
                triples: Some(triples as u64),
                timeout_ms: options.timeout.as_millis() as u64,
                max_rows: options.max_rows,
                load_ms: Some(started.elapsed().as_secs_f64() * 1000.0),
            },
        })
    }

    /// A SPARQL 1.1 protocol endpoint.
    pub fn endpoint(url: &str, options: ExecOptions) -> KnowledgeGraph {
        KnowledgeGraph {
            backend: Backend::Endpoint(url.to_string()),
            gate: None,
            recorder: None,
            info: KnowledgeGraphInfo {
                store: "sparql endpoint".to_string(),
                endpoint: Some(url.to_string()),
                files: Vec::new(),
                triples: None,
                timeout_ms: options.timeout.as_millis() as u64,
                max_rows: options.max_rows,
                load_ms: None,
            },
        }
    }

    /// The same graph, whose queries on the embedded store wait for a slot of
    /// `gate` (shared with the server's other queries) before they run; the
    /// wait counts toward their timeout.
    #[must_use]
    pub fn with_gate(mut self, gate: QueryGate) -> KnowledgeGraph {
        self.gate = Some(gate);
        self
    }

    /// The endpoint whose replies a report recorded (`tape`), answering
    /// each query as recorded, described as the endpoint was.
    pub fn replaying(tape: &EndpointTape, options: ExecOptions) -> KnowledgeGraph {
        KnowledgeGraph {
            backend: Backend::Replay(tape::Replay::of(tape)),
            ..KnowledgeGraph::endpoint(&tape.url, options)
        }
    }

    /// For an endpoint (or a replayed one), the same endpoint recording its
    /// replies for one evaluation ([`KnowledgeGraph::tape`]); `None` for the
    /// embedded store, which its files' digests describe.
    pub fn recording(&self) -> Option<KnowledgeGraph> {
        let (backend, recorder) = match &self.backend {
            Backend::Store(_) => return None,
            Backend::Endpoint(url) => (
                Backend::Endpoint(url.clone()),
                tape::Recorder::new(crate::clock::now_rfc3339(), None),
            ),
            Backend::Replay(r) => (
                Backend::Replay(r.clone()),
                tape::Recorder::new(r.at.clone(), r.server.clone()),
            ),
        };
        Some(KnowledgeGraph {
            backend,
            gate: None,
            recorder: Some(recorder),
            info: self.info.clone(),
        })
    }

    /// The record of the replies of a [`KnowledgeGraph::recording`].
    pub fn tape(&self) -> Option<EndpointTape> {
        let url = self.info.endpoint.as_deref().unwrap_or_default();
        self.recorder.as_ref().map(|r| r.tape(url))
    }

    /// True for the embedded store (it executes standard SPARQL 1.1 only).
    pub fn is_embedded(&self) -> bool {
        matches!(self.backend, Backend::Store(_))
    }

    /// Executes one query (on a recording endpoint, a text already asked
    /// gets the reply it got).
    pub fn execute(&self, query: &str, options: ExecOptions) -> Outcome {
        match &self.recorder {
            Some(recorder) => recorder.reply(query, || self.execute_unrecorded(query, options)),
            None => self.execute_unrecorded(query, options),
        }
    }

    fn execute_unrecorded(&self, query: &str, options: ExecOptions) -> Outcome {
        match &self.backend {
            Backend::Store(store) => execute_embedded(store, self.gate.as_ref(), query, options),
            Backend::Endpoint(url) => {
                let (outcome, server) = remote::execute_endpoint(url, query, options);
                if let Some(recorder) = &self.recorder {
                    recorder.saw_server(server);
                }
                outcome
            }
            Backend::Replay(replay) => replay.reply(query),
        }
    }

    /// The IRIs of `iris` that occur in no triple of the graph (in any position).
    /// On an endpoint each is asked with ASK; an IRI whose check fails counts as
    /// known.
    pub fn unknown_iris(&self, iris: &[String], options: ExecOptions) -> Vec<String> {
        iris.iter()
            .filter(|iri| !self.occurs(iri, options))
            .cloned()
            .collect()
    }

    /// True when some triple of the graph holds `iri` (as subject, predicate
    /// or object); an endpoint whose ASK fails counts it as held.
    pub fn occurs(&self, iri: &str, options: ExecOptions) -> bool {
        match &self.backend {
            Backend::Store(store) => {
                let Ok(node) = NamedNodeRef::new(iri) else {
                    return false;
                };
                let has = |s, p, o| store.quads_for_pattern(s, p, o, None).next().is_some();
                has(Some(node.into()), None, None)
                    || has(None, Some(node), None)
                    || has(None, None, Some(node.into()))
            }
            Backend::Endpoint(_) | Backend::Replay(_) => {
                let q = format!(
                    "ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s <{iri}> ?o }} UNION {{ ?s ?p <{iri}> }} }}"
                );
                let out = self.execute(&q, options);
                !out.status.answered()
                    || out
                        .answers
                        .answers
                        .iter()
                        .any(|a| a.terms == [Term::Boolean(true)])
            }
        }
    }
}

/// The oxigraph crate version in Cargo.lock (checked by a test).
pub const OXIGRAPH_LOCKED: &str = "0.5.13";

/// Converts a store term to a model term (blank nodes as `_:id`, simple literals
/// without datatype, language strings without datatype).
fn term(t: &OxTerm) -> Term {
    match t {
        OxTerm::NamedNode(n) => Term::Iri(n.as_str().to_string()),
        OxTerm::BlankNode(b) => Term::Iri(format!("_:{}", b.as_str())),
        OxTerm::Literal(l) => {
            let dt = l.datatype().as_str();
            Term::Literal {
                lexical: l.value().to_string(),
                datatype: (dt != XSD_STRING && dt != RDF_LANG_STRING).then(|| dt.to_string()),
                lang: l.language().map(str::to_string),
            }
        }
        #[allow(
            unreachable_patterns,
            reason = "RDF 1.2 triple terms exist only with a feature"
        )]
        _ => Term::plain(t.to_string()),
    }
}

/// The casts to integer types that Virtuoso (the store the TEXT2SPARQL
/// organisers used) accepts as functions and SPARQL 1.1 does not define; the
/// embedded store executes them as Virtuoso does, as a cast to an integer.
pub const VIRTUOSO_INTEGER_CASTS: [&str; 3] = ["int", "long", "short"];

/// True when a query calls one of [`VIRTUOSO_INTEGER_CASTS`].
pub fn uses_virtuoso_casts(query: &str) -> bool {
    VIRTUOSO_INTEGER_CASTS.iter().any(|n| {
        query.contains(&format!("xsd:{n}(")) || query.contains(&format!("XMLSchema#{n}>("))
    })
}

/// `xsd:int(x)` and the like: an integer from a number or a number-shaped
/// string (a fraction is cut toward zero), else unbound.
fn integer_cast(args: &[OxTerm]) -> Option<OxTerm> {
    let [OxTerm::Literal(l)] = args else {
        return None;
    };
    let text = l.value().trim();
    let n: i64 = match text.parse::<i64>() {
        Ok(n) => n,
        Err(_) => {
            let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
            f.trunc() as i64
        }
    };
    Some(OxTerm::Literal(
        oxigraph::model::Literal::new_typed_literal(
            n.to_string(),
            oxigraph::model::vocab::xsd::INTEGER,
        ),
    ))
}

/// Rows collected from solutions: the answers, each term's variable, and
/// whether the cap cut them.
type Collected = (AnswerSet, Vec<Vec<usize>>, bool);

/// Why a query has no answers: its status and the reason.
type Failed = (ExecStatus, String);

/// The status and message of a query stopped by a limit.
fn stopped(stop: Stop) -> Failed {
    match stop {
        Stop::Timeout { ms } => (ExecStatus::Timeout, timed_out(ms)),
        other => (ExecStatus::ExecutionError, other.to_string()),
    }
}

/// The message of a query stopped at its timeout of `ms`.
fn timed_out(ms: u128) -> String {
    format!("stopped after the timeout of {ms} ms (raise --query-timeout-ms)")
}

/// Collects rows until `max_rows` (the rest are dropped: truncated), charging
/// each row's estimated bytes to `budget`, which stops the query past its
/// byte cap or its deadline.
fn collect(
    vars: Vec<String>,
    rows: impl Iterator<Item = Result<Vec<(usize, Term)>, Failed>>,
    max_rows: usize,
    budget: &mut limits::Budget,
) -> Result<Collected, Failed> {
    const ROW_BYTES: usize = 48;
    let mut set = AnswerSet {
        vars,
        ..AnswerSet::default()
    };
    let mut columns = Vec::new();
    for row in rows {
        let row = row?;
        if set.answers.len() == max_rows {
            return Ok((set, columns, true));
        }
        let bytes = ROW_BYTES
            + row
                .iter()
                .map(|(_, t)| 8 + limits::term_bytes(t))
                .sum::<usize>();
        budget.spend(bytes).map_err(stopped)?;
        columns.push(row.iter().map(|(c, _)| *c).collect());
        set.columns.push(row.iter().map(|(c, _)| *c).collect());
        set.answers.push(Answer {
            terms: row.into_iter().map(|(_, t)| t).collect(),
        });
    }
    Ok((set, columns, false))
}

/// The terms of one solution with the index of their variable.
fn row<'a>(
    vars: &[oxigraph::sparql::Variable],
    solution: impl Iterator<Item = (&'a oxigraph::sparql::Variable, &'a OxTerm)>,
) -> Vec<(usize, Term)> {
    solution
        .map(|(v, t)| (vars.iter().position(|x| x == v).unwrap_or(0), term(t)))
        .collect()
}

fn boolean(b: bool) -> Collected {
    (
        AnswerSet {
            answers: vec![Answer::single(Term::Boolean(b))],
            ..AnswerSet::default()
        },
        vec![Vec::new()],
        false,
    )
}

fn finish(result: Result<Collected, Failed>, max_rows: usize, started: Instant) -> Outcome {
    match result {
        Ok((answers, columns, truncated)) => Outcome {
            status: if truncated {
                ExecStatus::Truncated
            } else {
                ExecStatus::Ok
            },
            message: truncated.then(|| {
                format!("more than {max_rows} rows: the rest were dropped (raise --max-rows)")
            }),
            answers,
            columns,
            ms: started.elapsed().as_secs_f64() * 1000.0,
        },
        Err((status, message)) => Outcome::failed(status, message, started),
    }
}

/// Runs a query on the embedded store: waits for a slot of `gate` (if any),
/// then evaluates it on a thread with a deep stack, which keeps the slot until
/// it ends; stops waiting at the deadline and cancels the query then.
fn execute_embedded(
    store: &Store,
    gate: Option<&QueryGate>,
    query: &str,
    options: ExecOptions,
) -> Outcome {
    let started = Instant::now();
    let budget = limits::Budget::new(started, options.timeout, options.max_bytes);
    // the text of `query::executable`: written back, it nests as deep as its algebra
    if let Err(e) = crate::query::check_executable_bounds(query) {
        return Outcome::failed(ExecStatus::SyntaxError, e.to_string(), started);
    }
    let permit = match gate {
        Some(gate) => match gate.acquire_until(budget.deadline()) {
            Some(p) => Some(p),
            None => {
                return Outcome::failed(
                    ExecStatus::Timeout,
                    format!(
                        "the server ran its {} queries at once for the whole timeout of {} ms; try again later, or raise --query-timeout-ms or --max-concurrent-queries",
                        gate.slots(),
                        options.timeout.as_millis()
                    ),
                    started,
                )
            }
        },
        None => None,
    };
    let token = CancellationToken::new();
    let (tx, rx) = mpsc::channel();
    let (store, text, inner_token) = (store.clone(), query.to_string(), token.clone());
    let max_rows = options.max_rows;
    let inner_budget = budget.clone();
    let spawned = std::thread::Builder::new()
        .name("sparql".into())
        .stack_size(crate::stack::DEEP_STACK_BYTES)
        .spawn(move || {
            let result = match guard::run_guarded(|| {
                evaluate(&store, &text, inner_token, max_rows, inner_budget)
            }) {
                Ok(result) => result,
                Err(guard::Caught::Stop(stop)) => Err(stopped(stop)),
                Err(guard::Caught::Panic(m)) => Err((
                    ExecStatus::ExecutionError,
                    format!("the store failed on this query ({m}); report it with the query"),
                )),
            };
            // the query is over: its slot is free before its caller hears of it
            drop(permit);
            let _ = tx.send(result);
        });
    if let Err(e) = spawned {
        return Outcome::failed(
            ExecStatus::ExecutionError,
            format!("cannot start the query: {e}"),
            started,
        );
    }
    match rx.recv_timeout(budget.left()) {
        Ok(result) => finish(result, max_rows, started),
        Err(_) => {
            token.cancel();
            Outcome::failed(
                ExecStatus::Timeout,
                timed_out(options.timeout.as_millis()),
                started,
            )
        }
    }
}

/// Evaluates one query on the query's thread, inside `guard::run_guarded`:
/// parsed, given the guard's ticks, its rows collected under `budget` (the
/// deadline and the bytes are checked between rows).
fn evaluate(
    store: &Store,
    query: &str,
    token: CancellationToken,
    max_rows: usize,
    mut budget: limits::Budget,
) -> Result<Collected, Failed> {
    let mut evaluator = SparqlEvaluator::new().with_cancellation_token(token.clone());
    for name in VIRTUOSO_INTEGER_CASTS {
        if let Ok(iri) = oxigraph::model::NamedNode::new(format!("{XSD}{name}")) {
            evaluator = evaluator.with_custom_function(iri, integer_cast);
        }
    }
    let (prepared, guard) = guard::prepare(query, evaluator, &token, &budget).map_err(|e| {
        let status = match e {
            crate::query::ticks::TickError::Syntax(_) => ExecStatus::SyntaxError,
            crate::query::ticks::TickError::TooLarge { .. } => ExecStatus::ExecutionError,
        };
        (status, e.to_string().replace('\n', " "))
    })?;
    let timeout = budget.timeout();
    let failed = |e: QueryEvaluationError| match e {
        QueryEvaluationError::Cancelled => stopped(timeout.clone()),
        e => (ExecStatus::ExecutionError, e.to_string()),
    };
    let result = match prepared.on_store(store).execute().map_err(failed)? {
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            let vars = variables.iter().map(|v| v.as_str().to_string()).collect();
            let rows = solutions.map(|s| {
                let s = s.map_err(failed)?;
                guard.check().map_err(stopped)?;
                Ok(row(&variables, s.iter()))
            });
            collect(vars, rows, max_rows, &mut budget)?
        }
        QueryResults::Boolean(b) => boolean(b),
        QueryResults::Graph(_) => return Err((
            ExecStatus::ExecutionError,
            "a CONSTRUCT or DESCRIBE query gives triples, not answers; write a SELECT or ASK query"
                .to_string(),
        )),
    };
    guard.check().map_err(stopped)?;
    Ok(result)
}

#[cfg(test)]
mod tests;
