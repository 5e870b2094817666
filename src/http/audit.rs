//! The audit of a registered benchmark (`GET
//! /api/v1/benchmarks/{name}/audit`; docs/audit.md, On the server): the
//! report of `qajudge audit --format json` on the benchmark's gold. Without
//! a knowledge graph for the benchmark (its `--benchmark-kg`, else the
//! server's `--kg` or `--endpoint`, as its evaluations use) the checks on the
//! gold alone; with one, each gold query executed `repeat` times there
//! (1 to [`MAX_REPEAT`], default 3), through the same store as the command
//! line (`sparql::AuditStore`), each query within the server's query timeout
//! and row cap and the knowledge graph's query slots. The audit runs on the
//! blocking pool, at most [`MAX_AT_ONCE`] at once (more are refused as
//! `busy`), within the call's time limit (`timeout_ms`: no query starts
//! after it and none runs past it; a 503 `timeout` then). A registered
//! benchmark does not change, so each whole report is kept, serialised, in
//! [`Audits`] (at most one per benchmark, `repeat` and profile kind: ten per
//! benchmark) and answered from there without a place; a report with an
//! execution that failed or timed out (an endpoint down for a moment) is
//! answered but not kept, so that the next call executes again. A client
//! that disconnects stops its audit: no query starts after it went.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::future::Either;
use serde::Deserialize;
use utoipa::OpenApi;

use super::common::{ApiResult, Place};
use super::error::{internal, ErrorBody, ErrorCode};
use super::{ApiError, AppState};
use crate::audit::{audit, AuditOptions, AuditReport, Executed, Store};
use crate::sparql::AuditStore;

/// The path of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(benchmark_audit))]
pub struct Api;

/// Audits computed at once.
pub const MAX_AT_ONCE: usize = 2;
/// The most executions of each query a call may ask for.
pub const MAX_REPEAT: usize = 5;
/// The executions of each query unless the call asks for others.
pub const DEFAULT_REPEAT: usize = 3;
/// The time limit of a call unless it asks for less or more.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;
/// The longest time limit a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Sets its flag when dropped: held by the handler, whose future actix
/// drops when the client disconnects, so that the audit on the blocking pool
/// (which reads the flag through its thread's [`crate::eval::Deadline`])
/// starts no query for nobody.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Audits running now.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What a kept report is the audit of: the benchmark, the executions of each
/// query, and whether the `text2sparql` profile's zeros were named.
type Key = (String, usize, bool);

/// The reports computed so far, as JSON, by [`Key`]: bounded by the
/// registered benchmarks (ten keys each), which do not change while the
/// server runs.
#[derive(Default)]
pub struct Audits(Mutex<HashMap<Key, Bytes>>);

impl Audits {
    fn get(&self, key: &Key) -> Option<Bytes> {
        self.0.lock().ok()?.get(key).cloned()
    }

    fn put(&self, key: Key, report: Bytes) {
        if let Ok(mut kept) = self.0.lock() {
            kept.insert(key, report);
        }
    }
}

/// The parameters of an audit.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Executions of each gold query on the benchmark's knowledge graph, 1 to
    /// 5 (default 3); without a knowledge graph nothing is executed.
    #[param(minimum = 1, maximum = 5)]
    repeat: Option<usize>,
    /// The profile whose zero-for-every-system questions are named (`judge`
    /// by default; `text2sparql`: an empty gold, a false ASK), as `qajudge
    /// audit --profile`.
    profile: Option<String>,
    /// The time limit of the call in ms (default 60,000, at most 600,000).
    #[param(minimum = 1, maximum = 600_000)]
    timeout_ms: Option<u64>,
}

/// The audit of a registered benchmark's gold (docs/audit.md).
#[utoipa::path(get, path = "/api/v1/benchmarks/{name}/audit", tag = "experiments",
    params(("name" = String, Path, description = "a registered benchmark's name"), AuditQuery),
    responses((status = 200, description = "the audit: the checks on the gold alone, and with the benchmark's knowledge graph each query executed `repeat` times (`stores` names it; empty: no knowledge graph)", body = AuditReport),
        (status = 400, description = "repeat, profile or timeout_ms out of range (bad_parameter), or not a number (bad_query)", body = ErrorBody),
        (status = 404, description = "no such benchmark", body = ErrorBody),
        (status = 503, description = "past the time limit (timeout), or two audits are running (busy, with Retry-After)", body = ErrorBody)))]
pub async fn benchmark_audit(
    req: HttpRequest,
    state: web::Data<AppState>,
    name: web::Path<String>,
    q: web::Query<AuditQuery>,
) -> ApiResult {
    let started = Instant::now();
    let name = name.into_inner();
    let Some(benchmark) = state.benchmarks.get(&name).cloned() else {
        return Err(ApiError::not_found(format!(
            "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones"
        )));
    };
    let repeat = q.repeat.unwrap_or(DEFAULT_REPEAT);
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!("repeat={repeat}; give 1 to {MAX_REPEAT} executions of each query (qajudge audit --repeat takes more)"),
        ));
    }
    let timeout_ms = q.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 || timeout_ms > MAX_TIMEOUT_MS {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!("timeout_ms={timeout_ms}; give 1 to {MAX_TIMEOUT_MS}"),
        ));
    }
    if q.profile.as_deref() == Some("") {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            "profile= is empty; name a profile (text2sparql, …) or leave the parameter out for the default",
        ));
    }
    let profile = super::common::profile(q.profile.as_deref())?;
    let options = AuditOptions {
        repeat,
        text2sparql: profile == crate::eval::Profile::Text2sparql,
    };
    let key = (name.clone(), repeat, options.text2sparql);
    if let Some(report) = state.audits.get(&key) {
        return Ok(json(report));
    }
    let place = Place::take(&RUNNING, MAX_AT_ONCE, || {
        format!("{MAX_AT_ONCE} audits are running; try again in a moment, or run qajudge audit")
    })?;
    let limit = Duration::from_millis(timeout_ms);
    let deadline = started + limit;
    // the client went away (actix drops this handler's future), or the time
    // limit answered: no query of the audit starts after that
    let stop = Arc::new(AtomicBool::new(false));
    let _abandoned = StopOnDrop(Arc::clone(&stop));
    let kg = state.worker.knowledge_graph_for(Some(&name)).cloned();
    let exec = state.worker.exec;
    let shared = state.clone();
    let work = web::block(move || -> Result<Option<Bytes>, ApiError> {
        let _place = place;
        let _stop = crate::eval::Deadline::on(stop).enter();
        let store = kg
            .as_deref()
            .map(|kg| AuditStore::new(kg, exec).until(deadline));
        let watched = store.as_ref().map(|s| Watched::new(s));
        let stores: Vec<&dyn Store> = watched.iter().map(|s| s as &dyn Store).collect();
        let report: AuditReport = audit(&benchmark.dataset, &stores, options);
        // a report the time limit cut is not the gold's audit
        if store.as_ref().is_some_and(AuditStore::cut) {
            return Ok(None);
        }
        let report = Bytes::from(serde_json::to_vec(&report).map_err(internal)?);
        // kept even when it ends just after the answer, unless an execution
        // failed: the next call executes again
        if !watched
            .as_ref()
            .is_some_and(|w| w.failed.load(Ordering::Relaxed))
        {
            shared.audits.put(key, report.clone());
        }
        Ok(Some(report))
    });
    let left = limit.saturating_sub(started.elapsed());
    let answer = std::pin::pin!(actix_web::rt::time::timeout(left, work));
    let left_us = std::pin::pin!(super::peer::gone(&req));
    match futures_util::future::select(answer, left_us).await {
        Either::Left((Ok(done), _)) => done
            .map_err(internal)??
            .map(json)
            .ok_or_else(|| too_slow(timeout_ms)),
        Either::Left((Err(_), _)) => Err(too_slow(timeout_ms)),
        // nobody reads the answer; the guard stops the audit
        Either::Right(((), _)) => Err(ApiError::new(
            ErrorCode::Timeout,
            "the client closed the connection; the audit stopped",
        )),
    }
}

/// A store noting whether an execution failed or timed out: a report with
/// one is answered but not kept.
struct Watched<'a> {
    inner: &'a dyn Store,
    /// An execution failed or timed out.
    failed: AtomicBool,
}

impl<'a> Watched<'a> {
    fn new(inner: &'a dyn Store) -> Self {
        Watched {
            inner,
            failed: AtomicBool::new(false),
        }
    }
}

impl Store for Watched<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn execute(&self, query: &str) -> Executed {
        let done = self.inner.execute(query);
        if matches!(done.status.as_str(), "timeout" | "execution_error") {
            self.failed.store(true, Ordering::Relaxed);
        }
        done
    }

    fn holds(&self, iri: &str) -> bool {
        self.inner.holds(iri)
    }
}

/// A report as the answer.
fn json(report: Bytes) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(report)
}

/// The answer of a call past its time limit.
fn too_slow(timeout_ms: u64) -> ApiError {
    ApiError::new(
        ErrorCode::Timeout,
        format!(
            "the audit took longer than timeout_ms={timeout_ms}; give a larger timeout_ms (at most {MAX_TIMEOUT_MS}), fewer repeats, or run qajudge audit"
        ),
    )
}
