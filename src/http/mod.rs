//! The HTTP service (the one module that names actix-web): the JSON API under
//! `/api/v1` (lookups, matching, annotation, experiments, benchmarks, OpenAPI),
//! the stored experiments, and the web page. Handlers are thin: they parse, call
//! the library, and turn failures into JSON errors (`{"error": {"code",
//! "message"}}`) with the right status. Evaluation runs on a worker thread, never
//! on the server's threads. Every request is logged (the `log` facade, at
//! `info`; the CLI sets the level from `RUST_LOG`).

mod batch;
mod error;
mod evaluate;
mod experiments;
mod openapi;
mod routes;
mod store;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use actix_web::{web, App, HttpServer};

use crate::index::Index;
use crate::live::LiveOptions;
use crate::model::Dataset;
use crate::sparql::{ExecOptions, KnowledgeGraph};
pub use error::ApiError;
pub use experiments::{ExperimentError, ExperimentStatus, ExperimentStore, Record, Worker};

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
    /// Live-system calls: timeout, concurrency, allowed hosts.
    pub live: LiveOptions,
    /// The knowledge graph queries are executed on (gold queries without
    /// answers, run queries, TEXT2SPARQL systems), if any.
    pub knowledge_graph: Option<Arc<KnowledgeGraph>>,
    /// The timeout and row cap of each query.
    pub exec: ExecOptions,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Server worker threads.
    pub workers: usize,
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

/// A registered benchmark.
pub struct Benchmark {
    /// Its file.
    pub path: PathBuf,
    /// Its questions.
    pub dataset: Dataset,
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
    /// What stored experiments are evaluated with, for synchronous evaluations.
    worker: Worker,
}

/// Registers every route on an actix-web service configuration.
pub fn configure(cfg: &mut web::ServiceConfig, state: web::Data<AppState>) {
    let limit = state.max_body_bytes;
    cfg.app_data(state)
        .app_data(
            web::JsonConfig::default()
                .limit(limit)
                .error_handler(|e, _| routes::json_error(e).into()),
        )
        .app_data(web::PayloadConfig::new(limit))
        .app_data(
            web::QueryConfig::default()
                .error_handler(|e, _| ApiError::bad("bad_query", e.to_string()).into()),
        )
        .configure(routes::routes);
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
                dataset,
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
        exec: config.exec,
    };
    store.start_worker(worker.clone());
    let state = web::Data::new(AppState {
        index,
        index_path,
        benchmarks,
        store,
        live: config.live.clone(),
        knowledge_graph: config.knowledge_graph.clone(),
        max_body_bytes: config.max_body_bytes,
        worker,
    });
    let workers = config.workers.max(1);
    actix_web::rt::System::new().block_on(async move {
        let server = HttpServer::new({
            let state = state.clone();
            move || {
                App::new()
                    .wrap(actix_web::middleware::Logger::new("%a \"%r\" %s %b %Dms"))
                    .configure(|cfg| configure(cfg, state.clone()))
            }
        })
        .workers(workers)
        .bind(&config.bind)?;
        if let Some(addr) = server.addrs().first() {
            on_listening(*addr);
        }
        server.run().await
    })?;
    Ok(())
}
