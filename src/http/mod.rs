//! The HTTP service (the one module that names actix-web): the JSON API under
//! `/api/v1` (lookups, matching, annotation, experiments, benchmarks, OpenAPI),
//! the stored experiments, and the web page. Handlers are thin: they parse, call
//! the library, and turn failures into JSON errors (`{"error": {"code",
//! "message"}}`) with the right status. Evaluation runs on a worker thread, never
//! on the server's threads. Every request is logged (the `log` facade, at
//! `info`; the CLI sets the level from `RUST_LOG`), with the values of secret
//! query parameters redacted; a request's head and body each have a deadline
//! (see [`requests`]).
//!
//! Layout: [`routes`] is the one route table; each resource module owns its
//! handlers and declares their OpenAPI paths ([`service`], [`lookups`],
//! [`matching`], [`evaluate`], [`experiments`], [`leaderboard`],
//! [`audit`], [`published`]), and
//! [`openapi`] merges those declarations into the document. Handlers share
//! [`common`] and [`error`] (codes, bodies, error mappings) and never import
//! one another, the table or the document: only this module does. Behind the
//! handlers: [`access`] (tokens, who sees what), [`experiment_store`] (records
//! and the queue), [`job`] (what an evaluation is and how it runs),
//! [`store`] (RocksDB) and [`linked`] (Data Cube RDF).

mod access;
mod audit;
mod common;
mod error;
mod evaluate;
mod experiment_store;
mod experiments;
mod job;
mod leaderboard;
mod limits;
mod linked;
mod lookups;
mod matching;
mod micro;
mod openapi;
mod peer;
mod published;
mod requests;
mod routes;
#[cfg(test)]
mod sample_tests;
mod service;
mod store;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use actix_web::{web, App, HttpServer};

use crate::eval::job::GoldCache;
use crate::index::Index;
use crate::live::LiveOptions;
use crate::model::Dataset;
use crate::sparql::{ExecOptions, KnowledgeGraph, PublishedGraph, QueryGate};
pub use error::{ApiError, ErrorCode};
pub use experiment_store::{ExperimentError, ExperimentStatus, ExperimentStore, Record};
pub use job::Worker;

/// How to run the service.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The index directory, if any (lookups and cross-graph matching need one).
    pub index: Option<PathBuf>,
    /// Where experiments are stored.
    pub data: PathBuf,
    /// The address to listen on (`127.0.0.1:8080`; port 0 picks a free one).
    pub bind: String,
    /// Registered benchmarks: (name, file).
    pub benchmarks: Vec<(String, PathBuf)>,
    /// What registered benchmarks' official profiles read beyond their
    /// questions (`--benchmark-ontology`, `--benchmark-train`), by name.
    pub benchmark_resources: BTreeMap<String, BenchmarkResources>,
    /// Live-system calls: timeout, concurrency, allowed hosts.
    pub live: LiveOptions,
    /// The knowledge graph queries are executed on (gold queries without
    /// answers, run queries, TEXT2SPARQL systems), if any.
    pub knowledge_graph: Option<Arc<KnowledgeGraph>>,
    /// Knowledge graphs of registered benchmarks (`--benchmark-kg`), by name:
    /// experiments on such a benchmark execute their queries there.
    pub benchmark_kgs: BTreeMap<String, Arc<KnowledgeGraph>>,
    /// The timeout and row cap of each query.
    pub exec: ExecOptions,
    /// The time one stored experiment may take once started (`None`: no limit).
    pub experiment_time: Option<std::time::Duration>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Evaluations of `POST /api/v1/evaluate` at once; past them 503 `busy`.
    pub max_evaluations: usize,
    /// Server worker threads.
    pub workers: usize,
    /// The token mutating routes ask for (`--api-token`), if any.
    pub api_token: Option<String>,
    /// The origins a web app may call the API from (`--cors-origin`); none:
    /// CORS is off.
    pub cors_origins: Vec<String>,
    /// The base of experiment IRIs (default: `http://` and the bound address).
    pub public_url: Option<String>,
    /// The time one query of `/sparql` may take.
    pub sparql_timeout: std::time::Duration,
    /// The slots of the queries that run at once (`--max-concurrent-queries`),
    /// shared by `/sparql` and the knowledge graph (which the caller gave the
    /// same gate).
    pub query_gate: QueryGate,
    /// The time a client has to send a request's head (request line and
    /// headers), from its first byte; a 408 after it.
    pub head_timeout: std::time::Duration,
    /// The time a client has to send a request's body, from its head; a 408
    /// and a closed connection after it.
    pub body_timeout: std::time::Duration,
    /// The WordNet of the `t2s-metrics` profile's `meteor` (`--wordnet`);
    /// `None`: looked for where NLTK and Debian keep it on first use.
    pub wordnet: Option<Arc<crate::wordnet::WordNet>>,
}

/// What the service cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The index cannot be opened.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    /// A registered benchmark cannot be read.
    #[error("benchmark {name:?}: {message}")]
    Benchmark {
        /// Its name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The experiment store cannot be opened.
    #[error("experiment store {path}: cannot open it; check --data")]
    Store {
        /// The store's directory.
        path: String,
        /// What is wrong.
        #[source]
        source: ExperimentError,
    },
    /// The address cannot be bound, or the server failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// What a registered benchmark's official profile reads beyond its
/// questions, given when it is registered: values of the evaluations on it,
/// never of the process.
#[derive(Debug, Clone, Default)]
pub struct BenchmarkResources {
    /// GrailQA's Freebase schema, for the `grailqa` profile.
    pub ontology: Option<Arc<crate::eval::profiles::Ontology>>,
    /// KQA Pro's training answers, for the `kqapro` profile's `zero-shot`.
    pub train: Option<Arc<crate::qald::TrainAnswers>>,
}

/// A registered benchmark.
pub struct Benchmark {
    /// Its file.
    pub path: PathBuf,
    /// What its official profile reads beyond its questions.
    pub resources: BenchmarkResources,
    /// Its questions (shared with the experiments that score against it).
    pub dataset: Arc<Dataset>,
    /// The SHA-256 of its file.
    pub sha256: String,
}

/// The state shared by every handler.
pub struct AppState {
    index: Option<Arc<Index>>,
    index_path: String,
    benchmarks: BTreeMap<String, Arc<Benchmark>>,
    store: Arc<ExperimentStore>,
    live: LiveOptions,
    knowledge_graph: Option<Arc<KnowledgeGraph>>,
    max_body_bytes: usize,
    /// Evaluations of `POST /api/v1/evaluate` at once.
    max_evaluations: usize,
    /// What stored experiments are evaluated with, for synchronous evaluations.
    worker: Worker,
    /// The SHA-256 of `--api-token`, if any.
    api_token_sha256: Option<String>,
    /// Who may see each stored experiment, decided before the store is read.
    gate: access::Gate,
    /// The base of experiment IRIs, set once the address is bound.
    base: std::sync::OnceLock<String>,
    /// The published experiments as RDF, for `/sparql`.
    published: Arc<PublishedGraph>,
    /// The time one query of `/sparql` may take.
    sparql_timeout: std::time::Duration,
    /// The OpenAPI document, assembled once (`GET /api/v1/openapi.json`).
    document: serde_json::Value,
    /// The WordNet of the `t2s-metrics` profile's `meteor`.
    wordnet: crate::wordnet::Shared,
    /// The verdicts the LLM judge's cache may still take in this process
    /// (`evaluate::LLM_CACHE_WRITES`), shared by every request.
    llm_cache_writes: Arc<std::sync::atomic::AtomicU64>,
    /// The audits of registered benchmarks computed so far.
    audits: audit::Audits,
}

impl AppState {
    /// The base of experiment IRIs (the public URL, or the bound address).
    fn base(&self) -> String {
        self.base.get().cloned().unwrap_or_default()
    }

    /// The WordNet an evaluation under `profile` reads: only the
    /// `t2s-metrics` profile's `meteor` reads one.
    fn wordnet(&self, profile: crate::eval::Profile) -> Option<Arc<crate::wordnet::WordNet>> {
        (profile == crate::eval::Profile::T2sMetrics)
            .then(|| self.wordnet.get())
            .flatten()
    }
}

/// Registers every route on an actix-web service configuration.
pub fn configure(cfg: &mut web::ServiceConfig, state: web::Data<AppState>) {
    let limit = state.max_body_bytes;
    cfg.app_data(state)
        .app_data(
            web::JsonConfig::default()
                .limit(limit)
                .error_handler(|e, _| error::json_error(e).into()),
        )
        .app_data(web::PayloadConfig::new(limit))
        .app_data(
            web::QueryConfig::default()
                .error_handler(|e, _| ApiError::new(ErrorCode::BadQuery, e.to_string()).into()),
        )
        .configure(routes::routes);
}

/// Says how many published experiments `/sparql` starts with.
fn log_loaded(n: usize) {
    if n > 0 {
        eprintln!("qajudge: {n} published experiment(s) in /sparql");
    }
}

/// The CORS middleware: off (no CORS headers, browsers refuse cross-origin
/// calls) unless origins are given.
fn cors(origins: &[String]) -> actix_web::middleware::Condition<actix_cors::Cors> {
    let mut cors = actix_cors::Cors::default()
        .allowed_methods(["GET", "POST"])
        .allowed_headers([
            actix_web::http::header::AUTHORIZATION,
            actix_web::http::header::CONTENT_TYPE,
            actix_web::http::header::ACCEPT,
        ])
        .allowed_header("x-api-token")
        .allowed_header("x-experiment-token")
        .expose_headers([actix_web::http::header::LOCATION])
        .max_age(3600);
    for origin in origins {
        cors = cors.allowed_origin(origin);
    }
    actix_web::middleware::Condition::new(!origins.is_empty(), cors)
}

/// Opens the index, the benchmarks and the store, binds, calls `on_listening` with
/// the bound address, and serves until stopped.
pub fn run(config: ServeConfig, on_listening: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let index = config
        .index
        .as_deref()
        .map(Index::open)
        .transpose()?
        .map(Arc::new);
    let mut benchmarks = BTreeMap::new();
    for (name, path) in &config.benchmarks {
        let bytes = std::fs::read(path).map_err(|e| ServeError::Benchmark {
            name: name.clone(),
            message: format!("cannot read {}: {e}", path.display()),
        })?;
        let sha256 = crate::digest::sha256_hex(&bytes);
        let dataset = crate::qald::parse(&bytes, &path.display().to_string()).map_err(|e| {
            ServeError::Benchmark {
                name: name.clone(),
                message: e.to_string(),
            }
        })?;
        benchmarks.insert(
            name.clone(),
            Arc::new(Benchmark {
                path: path.clone(),
                resources: config
                    .benchmark_resources
                    .get(name)
                    .cloned()
                    .unwrap_or_default(),
                dataset: Arc::new(dataset),
                sha256,
            }),
        );
    }
    let store = ExperimentStore::open(&config.data).map_err(|e| ServeError::Store {
        path: config.data.display().to_string(),
        source: e,
    })?;
    let store = Arc::new(store);
    let index_path = config
        .index
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let worker = Worker {
        index: index.clone(),
        index_path: index_path.clone(),
        knowledge_graph: config.knowledge_graph.clone(),
        benchmark_kgs: Arc::new(config.benchmark_kgs.clone()),
        exec: config.exec,
        golds: Arc::new(GoldCache::default()),
        experiment_time: config.experiment_time,
    };
    store.start_worker(worker.clone());
    let gate = access::Gate::load(&store.list().map_err(|e| ServeError::Store {
        path: config.data.display().to_string(),
        source: e,
    })?);
    let state = web::Data::new(AppState {
        index,
        index_path,
        benchmarks,
        store,
        live: config.live.clone(),
        knowledge_graph: config.knowledge_graph.clone(),
        max_body_bytes: config.max_body_bytes,
        max_evaluations: config.max_evaluations.max(1),
        worker,
        api_token_sha256: config
            .api_token
            .as_deref()
            .map(|t| crate::digest::sha256_hex(t.as_bytes())),
        gate,
        base: std::sync::OnceLock::new(),
        published: Arc::new(
            PublishedGraph::new()
                .map_err(|e| std::io::Error::other(e.to_string()))?
                .with_gate(config.query_gate.clone()),
        ),
        sparql_timeout: config.sparql_timeout,
        wordnet: crate::wordnet::Shared::new(config.wordnet.clone()),
        llm_cache_writes: Arc::new(std::sync::atomic::AtomicU64::new(
            evaluate::LLM_CACHE_WRITES,
        )),
        document: openapi::document(),
        audits: audit::Audits::default(),
    });
    let workers = config.workers.max(1);
    let body_timeout = config.body_timeout;
    actix_web::rt::System::new().block_on(async move {
        let server = HttpServer::new({
            let state = state.clone();
            let origins = config.cors_origins.clone();
            move || {
                App::new()
                    .wrap_fn(move |req, service| {
                        requests::with_body_deadline(req, service, body_timeout)
                    })
                    .wrap(cors(&origins))
                    // %r would print the query string as sent, tokens included
                    .wrap(
                        actix_web::middleware::Logger::new("%a \"%{request}xi\" %s %b %Dms")
                            .custom_request_replace("request", requests::log_line),
                    )
                    .configure(|cfg| configure(cfg, state.clone()))
            }
        })
        .on_connect(peer::remember)
        .workers(workers)
        .client_request_timeout(config.head_timeout)
        .bind(&config.bind)?;
        let addr = server.addrs().first().copied();
        let base = match (&config.public_url, addr) {
            (Some(url), _) => url.trim_end_matches('/').to_string(),
            (None, Some(a)) => format!("http://{a}"),
            (None, None) => String::new(),
        };
        let _ = state.base.set(base.clone());
        let loaded = published::load(&state.published, &state.store, &base).map_err(|e| {
            std::io::Error::other(format!("cannot load the published experiments: {e}"))
        })?;
        log_loaded(loaded);
        if let Some(addr) = addr {
            on_listening(addr);
        }
        server.run().await
    })?;
    Ok(())
}
