//! The service's own routes: the web page (`/`), the status of the service
//! (`GET /api/v1/health`: version, index, counts, and whether the experiment
//! store can write), the OpenAPI document (`GET /api/v1/openapi.json`, which
//! server setup assembles once and puts in the state, so that this module needs
//! no import of the assembly) and its reference page (`GET /api/v1/docs`).

use std::sync::Arc;

use actix_web::{web, HttpResponse};
use serde::Serialize;
use serde_json::Value;
use utoipa::OpenApi;

use super::common::{self, ApiResult};
use super::error::internal;
use super::store::StoreHealth;
use super::AppState;
use crate::clock::rfc3339;

/// The API reference page: renders `/api/v1/openapi.json` in the browser, with
/// no external assets.
const REFERENCE_PAGE: &str = include_str!("reference.html");

/// The paths of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(page, health, openapi, docs))]
pub struct Api;

/// The web page.
#[utoipa::path(get, path = "/", tag = "page",
    responses((status = 200, description = "the web page: submit and browse experiments", content_type = "text/html")))]
pub async fn page() -> HttpResponse {
    common::page()
}

/// This document.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "service",
    responses((status = 200, description = "the OpenAPI 3.1 document of the API", body = Object)))]
pub async fn openapi(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(&state.document)
}

/// The API reference, rendered from the OpenAPI document (no external assets).
#[utoipa::path(get, path = "/api/v1/docs", tag = "service",
    responses((status = 200, description = "the API reference as a web page", content_type = "text/html")))]
pub async fn docs() -> HttpResponse {
    static POLICY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    common::html(
        REFERENCE_PAGE,
        POLICY.get_or_init(|| common::content_policy(REFERENCE_PAGE)),
    )
}

/// What `GET /health` answers.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`, or `degraded` when the experiment store cannot write (then the
    /// answer is a 503, so that a load balancer takes the server out).
    status: &'static str,
    /// The qajudge version.
    version: &'static str,
    /// The index, if the server has one.
    index: Option<HealthIndex>,
    /// The number of registered benchmarks.
    benchmarks: usize,
    /// The knowledge graph queries are executed on, if any.
    knowledge_graph: Option<crate::eval::report::KnowledgeGraphInfo>,
    /// The number of stored experiments (`null` when the store cannot be
    /// read).
    experiments: Option<usize>,
    /// The number of published experiments in `/sparql`'s statements.
    published_statements: usize,
    /// Whether the experiment store can write.
    store: HealthStore,
    /// `ok` while the worker that evaluates submitted experiments runs,
    /// `down` otherwise (the status is then `degraded`, 503).
    worker: &'static str,
}

/// The experiment store of `GET /health`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct HealthStore {
    /// `ok` when its last write succeeded; `degraded` when it failed, also
    /// after the store was reopened (a full disk, say: submissions then answer
    /// 507 `insufficient_storage` until space is freed).
    state: &'static str,
    /// Whether the disk under it is full (when degraded).
    disk_full: bool,
    /// The last write's error (when degraded).
    error: Option<String>,
    /// When writes began to fail (UTC, RFC 3339; when degraded).
    since: Option<String>,
    /// Experiments that finished (failed: their result could not be stored)
    /// whose final record waits for the store to write again.
    pending_writes: usize,
}

/// The index of `GET /health`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct HealthIndex {
    /// Its directory.
    path: String,
    /// Its format version.
    format_version: u32,
    /// How its sameAs files are read: `mapped` (memory-mapped, format 6 on)
    /// or `read` (positioned reads, older formats).
    access: &'static str,
    /// False when a mapped file was cut shorter under the running server
    /// (the status is then `degraded`: restart it on a whole index).
    whole: bool,
    /// What it holds, by kind.
    #[schema(value_type = Object)]
    counts: Value,
}

/// Service status, index and counts, and whether the experiment store can
/// write. A degraded store is retried first (reopened when that is due), so
/// that the server recovers even when only health checks reach it.
#[utoipa::path(get, path = "/api/v1/health", tag = "service",
    responses((status = 200, description = "the service's status", body = Health),
        (status = 503, description = "the experiment store cannot write, the experiment worker is down, or a mapped file of the index was cut under the server (status degraded; store says why and since when, worker whether it runs, index.whole)", body = Health)))]
pub async fn health(state: web::Data<AppState>) -> ApiResult {
    let store = Arc::clone(&state.store);
    let (experiments, store_state, worker_up) = web::block(move || {
        store.recover();
        (
            store.list().ok().map(|l| l.len()),
            store.state(),
            store.worker_up(),
        )
    })
    .await
    .map_err(internal)?;
    let index_whole = state.index.as_ref().is_none_or(|i| i.is_whole());
    let healthy = store_state.health == StoreHealth::Ok && worker_up && index_whole;
    let store = match store_state.health {
        StoreHealth::Ok => HealthStore {
            state: "ok",
            disk_full: false,
            error: None,
            since: None,
            pending_writes: store_state.pending,
        },
        StoreHealth::Degraded {
            error,
            disk_full,
            since,
        } => HealthStore {
            state: "degraded",
            disk_full,
            error: Some(error),
            since: Some(rfc3339(since)),
            pending_writes: store_state.pending,
        },
    };
    let (status, mut response) = if healthy {
        ("ok", HttpResponse::Ok())
    } else {
        ("degraded", HttpResponse::ServiceUnavailable())
    };
    Ok(response.json(Health {
        status,
        version: env!("CARGO_PKG_VERSION"),
        index: state.index.as_ref().map(|i| HealthIndex {
            path: state.index_path.clone(),
            format_version: i.meta().format_version,
            access: i.access(),
            whole: index_whole,
            counts: serde_json::to_value(&i.meta().counts).unwrap_or(Value::Null),
        }),
        benchmarks: state.benchmarks.len(),
        knowledge_graph: state.knowledge_graph.as_ref().map(|k| k.info.clone()),
        experiments,
        published_statements: state.published.len(),
        store,
        worker: if worker_up { "ok" } else { "down" },
    }))
}
