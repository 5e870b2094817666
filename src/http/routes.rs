//! The routes of the JSON API and the web page. Each handler parses its input,
//! calls the library and returns JSON; every failure is an [`ApiError`].

use std::sync::Arc;

use actix_multipart::Multipart;
use actix_web::error::JsonPayloadError;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::experiments::{ExperimentStatus, Job, Record, RunSource};
use super::openapi::ErrorBody;
use super::{access, ApiError, AppState};
use crate::annotate::annotate_question;
use crate::eval::{Experiment, Options, Profile, DEFAULT_MAX_CLASS_SIZE};
use crate::index::{Index, LabelHit, SameAs};
use crate::live::{check_url, Protocol};
use crate::matching::MatchOptions;
use crate::model::{Answer, AnswerSet, Query, Question, QuestionId, Term};
use crate::qald::values::binding_term;
use crate::sparql::Plan;
use crate::terms::canonical::canonical_iri;

/// The web page (no external assets).
const PAGE: &str = include_str!("page.html");

type ApiResult = Result<HttpResponse, ApiError>;

/// Maps a JSON body error to an API error.
pub fn json_error(e: JsonPayloadError) -> ApiError {
    match e {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => ApiError::too_large(limit),
        JsonPayloadError::ContentType => ApiError::bad(
            "bad_content_type",
            "send the body as JSON with Content-Type: application/json",
        ),
        JsonPayloadError::Deserialize(e) => ApiError::bad(
            "bad_json",
            format!(
                "the JSON body is malformed at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        ),
        other => ApiError::bad("bad_json", other.to_string()),
    }
}

/// Registers the routes.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(page))
        .route(
            "/experiments/{id}",
            web::get().to(super::published::experiment_page),
        )
        .route("/sparql", web::get().to(super::published::sparql_get))
        .route("/sparql", web::post().to(super::published::sparql_post))
        .service(
            web::scope("/api/v1")
                .route("/health", web::get().to(health))
                .route("/sameas", web::get().to(sameas_get))
                .route("/sameas", web::post().to(sameas_post))
                .route("/labels", web::get().to(labels))
                .route("/labels", web::post().to(super::batch::labels_post))
                .route("/types", web::get().to(types))
                .route("/types", web::post().to(super::batch::types_post))
                .route("/canonical", web::post().to(super::batch::canonical_post))
                .route("/match", web::post().to(super::batch::match_route))
                .route("/evaluate", web::post().to(super::evaluate::evaluate))
                .route("/annotate", web::post().to(annotate))
                .route("/benchmarks", web::get().to(benchmarks))
                .route("/experiments", web::get().to(experiments_list))
                .route("/experiments", web::post().to(experiments_post))
                .route("/experiments/{id}", web::get().to(experiment_get))
                .route(
                    "/experiments/{id}/publish",
                    web::post().to(experiment_publish),
                )
                .route("/openapi.json", web::get().to(openapi))
                .route("/docs", web::get().to(docs))
                .default_service(web::to(unknown_route)),
        );
}

/// The web page.
#[utoipa::path(get, path = "/", tag = "page",
    responses((status = 200, description = "the web page: submit and browse experiments", content_type = "text/html")))]
pub(super) async fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(PAGE)
}

async fn unknown_route(req: HttpRequest) -> ApiResult {
    Err(ApiError::not_found(format!(
        "no route {} {}; see /api/v1/openapi.json",
        req.method(),
        req.path()
    )))
}

/// This document.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "service",
    responses((status = 200, description = "the OpenAPI 3.1 document of the API", body = Object)))]
pub(super) async fn openapi() -> HttpResponse {
    HttpResponse::Ok().json(super::openapi::document())
}

/// The API reference, rendered from the OpenAPI document (no external assets).
#[utoipa::path(get, path = "/api/v1/docs", tag = "service",
    responses((status = 200, description = "the API reference as a web page", content_type = "text/html")))]
pub(super) async fn docs() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(super::openapi::REFERENCE_PAGE)
}

pub(super) fn index(state: &AppState) -> Result<&Index, ApiError> {
    state.index.as_deref().ok_or_else(ApiError::no_index)
}

/// A query parameter that must be given and not blank.
fn required<'a>(value: &'a Option<String>, name: &str, what: &str) -> Result<&'a str, ApiError> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ApiError::bad("missing_parameter", format!("give the {what} as ?{name}=…")))
}

pub(super) fn internal(e: impl std::error::Error) -> ApiError {
    ApiError::internal(crate::error_chain(&e))
}

/// Maps a failure to store an experiment: a full disk is a 507
/// `insufficient_storage`, a store that cannot write for another reason a 503
/// `store_unavailable` (both pass once the store writes again, which `/health`
/// tells), anything else a 500.
pub(super) fn store_error(e: super::ExperimentError) -> ApiError {
    if e.disk_full() {
        ApiError::insufficient_storage(
            "the experiment could not be stored: the disk under the server's data directory is full; free space on it (the server recovers by itself) and submit again once GET /api/v1/health answers ok",
        )
    } else if e.store_unavailable() {
        ApiError::store_unavailable(
            "the experiment could not be stored: the server's experiment store cannot write (GET /api/v1/health says why); submit again once it answers ok",
        )
    } else {
        internal(e)
    }
}

/// What `GET /health` answers.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct Health {
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
}

/// The experiment store of `GET /health`.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct HealthStore {
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
pub(super) struct HealthIndex {
    /// Its directory.
    path: String,
    /// Its format version.
    format_version: u32,
    /// What it holds, by kind.
    #[schema(value_type = Object)]
    counts: Value,
}

/// Service status, index and counts, and whether the experiment store can
/// write. A degraded store is retried first (reopened when that is due), so
/// that the server recovers even when only health checks reach it.
#[utoipa::path(get, path = "/api/v1/health", tag = "service",
    responses((status = 200, description = "the service's status", body = Health),
        (status = 503, description = "the experiment store cannot write (status degraded; store says why and since when)", body = Health)))]
pub(super) async fn health(state: web::Data<AppState>) -> ApiResult {
    let store = Arc::clone(&state.store);
    let (experiments, store_state) = web::block(move || {
        store.recover();
        (store.list().ok().map(|l| l.len()), store.state())
    })
    .await
    .map_err(internal)?;
    let healthy = store_state.health == super::store::StoreHealth::Ok;
    let store = match store_state.health {
        super::store::StoreHealth::Ok => HealthStore {
            state: "ok",
            disk_full: false,
            error: None,
            since: None,
            pending_writes: store_state.pending,
        },
        super::store::StoreHealth::Degraded {
            error,
            disk_full,
            since,
        } => HealthStore {
            state: "degraded",
            disk_full,
            error: Some(error),
            since: Some(super::experiments::rfc3339(since)),
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
            counts: serde_json::to_value(&i.meta().counts).unwrap_or(Value::Null),
        }),
        benchmarks: state.benchmarks.len(),
        knowledge_graph: state.knowledge_graph.as_ref().map(|k| k.info.clone()),
        experiments,
        published_statements: state.published.len(),
        store,
    }))
}

/// The parameters of `GET /sameas`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct SameAsQuery {
    /// The IRI.
    iri: Option<String>,
    /// Members returned at most (default 100).
    limit: Option<usize>,
}

const DEFAULT_MEMBER_LIMIT: usize = 100;

/// The owl:sameAs class of an IRI (without an index: its canonical form, in a
/// class of one).
#[utoipa::path(get, path = "/api/v1/sameas", tag = "lookups", params(SameAsQuery),
    responses((status = 200, description = "the class", body = SameAs),
        (status = 400, description = "no iri", body = ErrorBody)))]
pub(super) async fn sameas_get(
    state: web::Data<AppState>,
    q: web::Query<SameAsQuery>,
) -> ApiResult {
    let iri = required(&q.iri, "iri", "IRI")?;
    let limit = q.limit.unwrap_or(DEFAULT_MEMBER_LIMIT);
    let found = match state.index.as_deref() {
        Some(index) => index.sameas(iri, limit).map_err(internal)?,
        None => class_of_one(iri),
    };
    Ok(HttpResponse::Ok().json(found))
}

/// What `sameas` answers without an index: the IRI's canonical form, in a class
/// of its own (SCORING 2a still makes its spellings equal).
pub(super) fn class_of_one(iri: &str) -> SameAs {
    SameAs {
        iri: iri.to_string(),
        canonical: canonical_iri(iri),
        class: None,
        class_size: 1,
        members: vec![iri.to_string()],
    }
}

/// The body of `POST /sameas`: a list of IRIs, or `{iris, limit?}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub(super) enum SameAsBody {
    /// The IRIs (at most 10,000).
    List(Vec<String>),
    /// The IRIs (at most 10,000) and the members returned per class at most.
    Object {
        /// The IRIs.
        iris: Vec<String>,
        /// Members returned per class at most (default 100).
        limit: Option<usize>,
    },
}

/// The most IRIs one batch may ask about.
pub(super) const MAX_BATCH: usize = 10_000;

/// The classes of a batch of IRIs, in order.
#[utoipa::path(post, path = "/api/v1/sameas", tag = "lookups", request_body = SameAsBody,
    responses((status = 200, description = "one class per IRI", body = Vec<SameAs>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody)))]
pub(super) async fn sameas_post(
    state: web::Data<AppState>,
    body: web::Json<SameAsBody>,
) -> ApiResult {
    let (iris, limit) = match body.into_inner() {
        SameAsBody::List(iris) => (iris, None),
        SameAsBody::Object { iris, limit } => (iris, limit),
    };
    if iris.len() > MAX_BATCH {
        return Err(ApiError::bad(
            "batch_too_large",
            format!("{} IRIs in one batch; send at most {MAX_BATCH}", iris.len()),
        ));
    }
    let limit = limit.unwrap_or(DEFAULT_MEMBER_LIMIT);
    let Some(index) = state.index.clone() else {
        return Ok(
            HttpResponse::Ok().json(iris.iter().map(|i| class_of_one(i)).collect::<Vec<_>>())
        );
    };
    // a batch reads the store for a while: off the async workers
    let out = web::block(move || {
        iris.iter()
            .map(|iri| index.sameas(iri, limit))
            .collect::<Result<Vec<_>, _>>()
    })
    .await
    .map_err(internal)?
    .map_err(internal)?;
    Ok(HttpResponse::Ok().json(out))
}

/// The parameters of `GET /labels`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct LabelsQuery {
    /// The label.
    text: Option<String>,
    /// Its language tag (none: any language).
    lang: Option<String>,
    /// Edits allowed (0, 1 or 2; default 0).
    fuzzy: Option<u32>,
}

/// The IRIs carrying a label.
#[utoipa::path(get, path = "/api/v1/labels", tag = "lookups", params(LabelsQuery),
    responses((status = 200, description = "the IRIs with the label", body = Vec<LabelHit>),
        (status = 400, description = "no text, or fuzzy above 2", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub(super) async fn labels(state: web::Data<AppState>, q: web::Query<LabelsQuery>) -> ApiResult {
    let index = index(&state)?;
    let text = required(&q.text, "text", "label")?;
    let fuzzy = q.fuzzy.unwrap_or(0);
    if fuzzy > 2 {
        return Err(ApiError::bad(
            "bad_parameter",
            format!("fuzzy={fuzzy} is too large; use 0, 1 or 2 edits"),
        ));
    }
    let hits = index
        .labels(text, q.lang.as_deref().filter(|l| !l.is_empty()), fuzzy)
        .map_err(|e| ApiError::bad("bad_parameter", e.to_string()))?;
    Ok(HttpResponse::Ok().json(hits))
}

/// The parameters of `GET /types`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct TypesQuery {
    /// The IRI.
    iri: Option<String>,
}

/// The classes of an IRI.
#[utoipa::path(get, path = "/api/v1/types", tag = "lookups", params(TypesQuery),
    responses((status = 200, description = "its classes", body = super::batch::Types),
        (status = 400, description = "no iri", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub(super) async fn types(state: web::Data<AppState>, q: web::Query<TypesQuery>) -> ApiResult {
    let index = index(&state)?;
    let iri = required(&q.iri, "iri", "IRI")?;
    let types = index.types(iri).map_err(internal)?;
    Ok(HttpResponse::Ok().json(super::batch::Types {
        iri: iri.to_string(),
        types,
    }))
}

/// Reads a list of answers: each a SPARQL-results term, a boolean, or an array of
/// terms (alternative forms of one answer).
pub(super) fn answers(side: &str, values: &[Value]) -> Result<AnswerSet, ApiError> {
    let term = |v: &Value, at: String| match v {
        Value::Bool(b) => Ok(Term::Boolean(*b)),
        other => binding_term(other).map_err(|e| {
            ApiError::bad(
                "bad_answer",
                format!("{at}: {e}; give terms as {{\"type\": \"uri\", \"value\": \"…\"}}"),
            )
        }),
    };
    let mut set = AnswerSet::default();
    for (i, v) in values.iter().enumerate() {
        let terms = match v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(j, t)| term(t, format!("{side}[{i}][{j}]")))
                .collect::<Result<Vec<_>, _>>()?,
            other => vec![term(other, format!("{side}[{i}]"))?],
        };
        set.answers.push(Answer { terms });
    }
    Ok(set)
}

pub(super) fn profile(name: Option<&str>) -> Result<Profile, ApiError> {
    match name {
        None | Some("") => Ok(Profile::Judge),
        Some(n) => Profile::from_name(n).map_err(|e| ApiError::bad("bad_parameter", e.to_string())),
    }
}

/// The body of `POST /annotate`.
#[derive(Deserialize, utoipa::ToSchema)]
pub(super) struct AnnotateBody {
    /// A SPARQL query.
    sparql: String,
}

/// The sub-experiment markings and features SCORING 5 derives from a query.
#[utoipa::path(post, path = "/api/v1/annotate", tag = "matching", request_body = AnnotateBody,
    responses((status = 200, description = "the markings", body = crate::annotate::Annotation),
        (status = 400, description = "malformed body, or a query past the size and nesting read (query_too_large)", body = ErrorBody)))]
pub(super) async fn annotate(body: web::Json<AnnotateBody>) -> ApiResult {
    let q = Question {
        id: QuestionId("query".into()),
        query: Query::Sparql(body.sparql.clone()),
        ..Question::default()
    };
    let a = web::block(move || {
        // a query past the bounds read is refused, not annotated
        crate::query::check_bounds(&body.sparql)?;
        Ok::<_, crate::query::SparqlError>(annotate_question(&q, MatchOptions::default()))
    })
    .await
    .map_err(internal)?
    .map_err(|e| ApiError::bad("query_too_large", e.to_string()))?;
    Ok(HttpResponse::Ok().json(a))
}

/// A registered benchmark.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct BenchmarkInfo {
    /// Its name (the `benchmark` of an experiment, the `gold` of an evaluation).
    name: String,
    /// Its file.
    path: String,
    /// Its format.
    format: &'static str,
    /// Its number of questions.
    questions: usize,
    /// The SHA-256 of its file.
    sha256: String,
}

/// The registered benchmarks.
#[utoipa::path(get, path = "/api/v1/benchmarks", tag = "experiments",
    responses((status = 200, description = "the benchmarks", body = Vec<BenchmarkInfo>)))]
pub(super) async fn benchmarks(state: web::Data<AppState>) -> ApiResult {
    let list: Vec<BenchmarkInfo> = state
        .benchmarks
        .iter()
        .map(|(name, b)| BenchmarkInfo {
            name: name.clone(),
            path: b.path.display().to_string(),
            format: b.dataset.format.name(),
            questions: b.dataset.questions.len(),
            sha256: b.sha256.clone(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(list))
}

/// A stored experiment without its report, for lists.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct ExperimentSummary {
    /// Its stable id.
    id: String,
    /// Where it is in its life.
    status: ExperimentStatus,
    /// When it was submitted.
    created: String,
    /// When it finished.
    finished: Option<String>,
    /// The profile.
    profile: String,
    /// The gold benchmark.
    gold: String,
    /// The runs.
    runs: Vec<String>,
    /// Why it failed.
    error: Option<String>,
    /// Public (listed, in `/sparql`).
    published: bool,
    /// Its page.
    url: String,
}

/// A record without its report, for lists.
fn summary(r: &Record) -> ExperimentSummary {
    ExperimentSummary {
        id: r.id.clone(),
        status: r.status,
        created: r.created.clone(),
        finished: r.finished.clone(),
        profile: r.profile.clone(),
        gold: r.gold.clone(),
        runs: r.runs.clone(),
        error: r.error.clone(),
        published: r.published,
        url: format!("/experiments/{}", r.id),
    }
}

/// The published experiments, newest first (with the API token: all).
#[utoipa::path(get, path = "/api/v1/experiments", tag = "experiments",
    responses((status = 200, description = "the experiments", body = Vec<ExperimentSummary>),
        (status = 400, description = "a token in the query string (token_in_query): send it in a header", body = ErrorBody)))]
pub(super) async fn experiments_list(state: web::Data<AppState>, req: HttpRequest) -> ApiResult {
    let admin = access::Credentials::of(&state, &req)?.is_admin();
    let mut list = state.store.list().map_err(internal)?;
    list.retain(|r| r.published || admin);
    list.reverse();
    Ok(HttpResponse::Ok().json(list.iter().map(summary).collect::<Vec<_>>()))
}

/// A stored experiment the request may see, or the 404 of an unknown id.
/// Whether it may be seen is decided before the store is read, so that a
/// private experiment without its token answers as fast as an unknown id.
pub(super) fn visible_record(
    state: &AppState,
    req: &HttpRequest,
    id: &str,
) -> Result<Record, ApiError> {
    visible_with(state, &access::Credentials::of(state, req)?, id)
}

/// [`visible_record`] with the request's credentials read already.
fn visible_with(
    state: &AppState,
    credentials: &access::Credentials,
    id: &str,
) -> Result<Record, ApiError> {
    if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::not_found(format!(
            "no experiment {id:?}: ids are twelve digits (YYYYMMDDNNNN)"
        )));
    }
    if !state.gate.may_see(id, credentials) {
        return Err(access::no_experiment(id));
    }
    state
        .store
        .get(id)
        .map_err(internal)?
        .ok_or_else(|| access::no_experiment(id))
}

/// A stored experiment with its report (a private one needs its token, in
/// `X-Experiment-Token` or `Authorization: Bearer`; never in the URL).
#[utoipa::path(get, path = "/api/v1/experiments/{id}", tag = "experiments",
    params(("id" = String, Path, description = "the experiment's id, YYYYMMDDNNNN"),
        ("X-Experiment-Token" = Option<String>, Header, description = "the experiment's secret token (or Authorization: Bearer TOKEN)")),
    responses((status = 200, description = "the experiment", body = Record),
        (status = 400, description = "a token in the query string (token_in_query): send it in a header", body = ErrorBody),
        (status = 404, description = "no such experiment, or a private one without its token", body = ErrorBody)))]
pub(super) async fn experiment_get(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let record = visible_record(&state, &req, &id)?;
    Ok(HttpResponse::Ok().json(record.shown()))
}

/// Makes an experiment public: listed, in `/sparql`, visible without its token.
#[utoipa::path(post, path = "/api/v1/experiments/{id}/publish", tag = "experiments",
    params(("id" = String, Path, description = "the experiment's id"),
        ("X-Experiment-Token" = Option<String>, Header, description = "the experiment's secret token (or Authorization: Bearer TOKEN, or the server's API token)")),
    responses((status = 200, description = "published", body = ExperimentSummary),
        (status = 400, description = "a token in the query string (token_in_query): send it in a header", body = ErrorBody),
        (status = 403, description = "public already, and asked without its token", body = ErrorBody),
        (status = 404, description = "no such experiment, or a private one without its token", body = ErrorBody),
        (status = 503, description = "the experiment store cannot write (store_unavailable)", body = ErrorBody),
        (status = 507, description = "the disk under the data directory is full (insufficient_storage)", body = ErrorBody)))]
pub(super) async fn experiment_publish(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let id = id.into_inner();
    let credentials = access::Credentials::of(&state, &req)?;
    let record = visible_with(&state, &credentials, &id)?;
    if !credentials.can_publish(&record) {
        // published already and asked without its token: nothing to change
        return Err(ApiError {
            status: 403,
            code: "forbidden",
            message: format!("experiment {id} is public; only its token or the server's API token may publish it"),
        });
    }
    // the gate learns of it on the blocking thread, which finishes even when
    // the client goes away before the answer
    let shared = state.clone();
    let record = web::block(move || {
        let published = shared.store.publish(&id)?;
        if let Some(r) = &published {
            shared.gate.admit(r);
        }
        Ok::<_, super::ExperimentError>(published)
    })
    .await
    .map_err(internal)?
    .map_err(store_error)?
    .ok_or_else(|| access::no_experiment(&record.id))?;
    Ok(HttpResponse::Ok().json(summary(&record)))
}

/// The fields of an experiment form, read from a multipart body.
#[derive(Default, utoipa::ToSchema)]
pub(super) struct Form {
    /// A gold benchmark file (or `benchmark`).
    #[schema(value_type = Option<String>, format = Binary)]
    gold: Option<(String, Vec<u8>)>,
    /// A registered benchmark's name (or `gold`).
    benchmark: Option<String>,
    /// A run file (repeatable).
    #[schema(rename = "run", value_type = Vec<String>, format = Binary)]
    runs: Vec<(String, Vec<u8>)>,
    /// A live QA system's URL (repeatable).
    #[schema(rename = "system_url")]
    systems: Vec<String>,
    /// The profile (default `judge`).
    profile: Option<String>,
    /// Sub-experiments, comma-separated (default: all the profile scores).
    experiments: Option<String>,
    /// The language of the questions sent to live systems.
    lang: Option<String>,
    /// The API of live systems: `gerbil` or `text2sparql`.
    protocol: Option<String>,
    /// The TEXT2SPARQL dataset IRI sent to live systems.
    dataset: Option<String>,
    /// Execute the gold queries on the knowledge graph (`true`/`false`).
    refresh_gold: bool,
    /// Execute the runs' queries on the knowledge graph.
    execute_run: bool,
    /// Public at once.
    publish: bool,
}

/// What `POST /experiments` answers.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct Created {
    /// The stable id.
    id: String,
    /// `queued`.
    status: ExperimentStatus,
    /// The secret token that shows a private experiment (shown once).
    token: String,
    /// Public already (the form's `publish`).
    published: bool,
    /// Its page, with the token in the fragment (`#token=…`), which browsers
    /// never send to the server.
    url: String,
    /// Its API address.
    api: String,
}

async fn read_form(mut payload: Multipart, limit: usize) -> Result<Form, ApiError> {
    let mut form = Form::default();
    let mut total = 0usize;
    while let Some(field) = payload.next().await {
        let mut field = field
            .map_err(|e| ApiError::bad("bad_multipart", format!("the form is malformed: {e}")))?;
        let name = field.name().unwrap_or_default().to_string();
        let filename = field
            .content_disposition()
            .and_then(|c| c.get_filename())
            .map(str::to_string);
        let mut bytes = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk =
                chunk.map_err(|e| ApiError::bad("bad_multipart", format!("field {name}: {e}")))?;
            total += chunk.len();
            if total > limit {
                return Err(ApiError::too_large(limit));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = || String::from_utf8_lossy(&bytes).trim().to_string();
        match name.as_str() {
            "gold" => form.gold = Some((filename.unwrap_or_else(|| "gold".into()), bytes)),
            "run" => {
                let n = form.runs.len() + 1;
                form.runs
                    .push((filename.unwrap_or_else(|| format!("run{n}")), bytes));
            }
            "benchmark" => form.benchmark = Some(text()).filter(|t| !t.is_empty()),
            "system_url" => {
                let t = text();
                if !t.is_empty() {
                    form.systems.push(t);
                }
            }
            "profile" => form.profile = Some(text()),
            "experiments" => form.experiments = Some(text()),
            "lang" => form.lang = Some(text()).filter(|t| !t.is_empty()),
            "protocol" => form.protocol = Some(text()).filter(|t| !t.is_empty()),
            "dataset" => form.dataset = Some(text()).filter(|t| !t.is_empty()),
            "refresh_gold" => form.refresh_gold = flag(&name, &text())?,
            "execute_run" => form.execute_run = flag(&name, &text())?,
            "publish" => form.publish = flag(&name, &text())?,
            other => {
                return Err(ApiError::bad(
                    "bad_field",
                    format!("unknown form field {other:?}; use gold, benchmark, run, system_url, protocol, dataset, profile, experiments, lang, refresh_gold, execute_run, publish"),
                ))
            }
        }
    }
    Ok(form)
}

/// A boolean form field: `true`/`on`/`1` or `false`/`off`/`0`/empty.
fn flag(name: &str, value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" | "" => Ok(false),
        other => Err(ApiError::bad(
            "bad_field",
            format!("field {name} is {other:?}; give true or false"),
        )),
    }
}

/// The stem of a file name, for run names.
fn stem(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(s, _)| s).to_string()
}

/// Stores an experiment (private until published) and queues it.
#[utoipa::path(post, path = "/api/v1/experiments", tag = "experiments",
    request_body(content = Form, content_type = "multipart/form-data"),
    responses((status = 202, description = "queued; poll its API address with its token", body = Created),
        (status = 400, description = "a bad field or file, or a token in the query string (token_in_query): send the API token in a header", body = ErrorBody),
        (status = 401, description = "the server asks for its API token", body = ErrorBody),
        (status = 404, description = "no such benchmark", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody),
        (status = 503, description = "the experiment store cannot write (store_unavailable); submit again once /api/v1/health answers ok", body = ErrorBody),
        (status = 507, description = "the disk under the data directory is full (insufficient_storage); submit again once space is freed and /api/v1/health answers ok", body = ErrorBody)))]
pub(super) async fn experiments_post(
    state: web::Data<AppState>,
    req: HttpRequest,
    payload: Multipart,
) -> ApiResult {
    access::Credentials::of(&state, &req)?.require_api_token(&state)?;
    let form = read_form(payload, state.max_body_bytes).await?;
    let (gold_name, gold, gold_sha256) = match (&form.gold, &form.benchmark) {
        (Some(_), Some(_)) => {
            return Err(ApiError::bad(
                "bad_field",
                "give either a gold file or a registered benchmark, not both",
            ))
        }
        (Some((name, bytes)), None) => {
            let dataset = crate::qald::parse(bytes, name).map_err(|e| {
                ApiError::bad("bad_gold", format!("the gold file is not a benchmark: {e}"))
            })?;
            if dataset.questions.is_empty() {
                return Err(ApiError::bad(
                    "bad_gold",
                    format!("the gold file {name} holds no question"),
                ));
            }
            (
                name.clone(),
                Arc::new(dataset),
                crate::digest::sha256_hex(bytes),
            )
        }
        (None, Some(name)) => match state.benchmarks.get(name) {
            Some(b) => (name.clone(), Arc::clone(&b.dataset), b.sha256.clone()),
            None => {
                return Err(ApiError::not_found(format!(
                    "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones"
                )))
            }
        },
        (None, None) => {
            return Err(ApiError::bad(
                "missing_field",
                "give a gold file (field gold) or a registered benchmark (field benchmark)",
            ))
        }
    };
    if form.runs.is_empty() && form.systems.is_empty() {
        return Err(ApiError::bad(
            "missing_field",
            "give at least one run file (field run) or QA-system URL (field system_url)",
        ));
    }
    let profile = profile(form.profile.as_deref())?;
    let experiments = Experiment::list_from_names(form.experiments.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::bad("bad_parameter", e.to_string()))?;
    let mut live = state.live.clone();
    if let Some(lang) = &form.lang {
        live.lang = lang.clone();
    }
    if let Some(name) = &form.protocol {
        live.protocol = Protocol::from_name(name).ok_or_else(|| {
            ApiError::bad(
                "bad_parameter",
                format!("unknown protocol {name:?}; use gerbil or text2sparql"),
            )
        })?;
    }
    if form.dataset.is_some() {
        live.dataset.clone_from(&form.dataset);
    }
    let executes = live.protocol == Protocol::Text2sparql && !form.systems.is_empty()
        || form.refresh_gold
        || form.execute_run;
    if executes && state.knowledge_graph.is_none() {
        return Err(ApiError::bad(
            "no_knowledge_graph",
            "this experiment executes queries (text2sparql systems, refresh_gold or execute_run) and the server has no knowledge graph; start it with --kg FILE... or --endpoint URL",
        ));
    }
    let token = crate::digest::secret_token().map_err(|e| {
        ApiError::internal(format!("cannot draw a secret token from /dev/urandom: {e}"))
    })?;
    let mut runs = Vec::new();
    let mut names = Vec::new();
    for (name, bytes) in &form.runs {
        let dataset = crate::qald::parse(bytes, name)
            .map_err(|e| ApiError::bad("bad_run", format!("the run file is not readable: {e}")))?;
        names.push(name.clone());
        runs.push(RunSource::File {
            name: stem(name),
            dataset: Box::new(dataset),
        });
    }
    for url in &form.systems {
        check_url(url, &live).map_err(|e| ApiError::bad("bad_system_url", e.to_string()))?;
        names.push(url.clone());
        runs.push(RunSource::System { url: url.clone() });
    }
    let record = Record {
        id: String::new(),
        status: ExperimentStatus::default(),
        created: String::new(),
        finished: None,
        profile: profile.name().to_string(),
        experiments: experiments.iter().map(|e| e.name().to_string()).collect(),
        lang: live.lang.clone(),
        protocol: live.protocol.name().to_string(),
        gold: gold_name.clone(),
        runs: names,
        progress: None,
        error: None,
        report: None,
        gold_sha256: Some(gold_sha256),
        token_sha256: Some(crate::digest::sha256_hex(token.as_bytes())),
        published: form.publish,
    };
    let options = Options {
        profile,
        experiments,
        explain: true,
        max_class_size: DEFAULT_MAX_CLASS_SIZE,
        ..Options::default()
    };
    let store = Arc::clone(&state.store);
    let plan = Plan {
        refresh_gold: form.refresh_gold,
        execute_run: form.execute_run,
    };
    let job = Job {
        id: String::new(),
        benchmark: form.benchmark.clone(),
        gold_name,
        gold,
        runs,
        options,
        live,
        plan,
    };
    let shared = state.clone();
    let record = web::block(move || {
        let record = store.submit(record, job)?;
        // on the blocking thread, which finishes even when the client goes away
        shared.gate.admit(&record);
        Ok::<_, super::ExperimentError>(record)
    })
    .await
    .map_err(internal)?
    .map_err(store_error)?;
    Ok(HttpResponse::Accepted()
        .insert_header(("Location", format!("/api/v1/experiments/{}", record.id)))
        .json(Created {
            url: format!("/experiments/{}#token={token}", record.id),
            api: format!("/api/v1/experiments/{}", record.id),
            id: record.id,
            status: record.status,
            token,
            published: record.published,
        }))
}
