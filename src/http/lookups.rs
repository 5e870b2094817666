//! The lookups: owl:sameAs classes (`/api/v1/sameas`), the IRIs carrying a
//! label (`/api/v1/labels`), the classes of an IRI (`/api/v1/types`), one at a
//! time (GET) or in batches (POST), and canonical forms (`POST
//! /api/v1/canonical`, no index needed). Each batch has a documented limit per
//! call, enforced with a JSON error before any work is done; a batch reads the
//! index on the blocking pool, off the server's threads.

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::OpenApi;

use super::common::ApiResult;
use super::error::{internal, ErrorBody, ErrorCode};
use super::{ApiError, AppState};
use crate::index::{Index, LabelHit, SameAs};
use crate::terms::canonical::canonical_iri;

/// The paths of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(
    sameas_get,
    sameas_post,
    labels,
    labels_post,
    types,
    types_post,
    canonical_post
))]
pub struct Api;

/// The most IRIs one batch may ask about.
pub const MAX_BATCH: usize = 10_000;
/// The most label queries one `POST /labels` may hold (fuzzy queries walk the FST).
pub const MAX_LABEL_QUERIES: usize = 1_000;
/// The members of a class returned unless the request says otherwise.
const DEFAULT_MEMBER_LIMIT: usize = 100;

/// The server's index, or the 503 of a server without one.
fn index(state: &AppState) -> Result<&Index, ApiError> {
    state.index.as_deref().ok_or_else(ApiError::no_index)
}

/// A query parameter that must be given and not blank.
fn required<'a>(value: &'a Option<String>, name: &str, what: &str) -> Result<&'a str, ApiError> {
    value
        .as_deref()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::MissingParameter,
                format!("give the {what} as ?{name}=…"),
            )
        })
}

/// The parameters of `GET /sameas`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SameAsQuery {
    /// The IRI.
    iri: Option<String>,
    /// Members returned at most (default 100).
    limit: Option<usize>,
}

/// The owl:sameAs class of an IRI (without an index: its canonical form, in a
/// class of one).
#[utoipa::path(get, path = "/api/v1/sameas", tag = "lookups", params(SameAsQuery),
    responses((status = 200, description = "the class", body = SameAs),
        (status = 400, description = "no iri", body = ErrorBody)))]
pub async fn sameas_get(state: web::Data<AppState>, q: web::Query<SameAsQuery>) -> ApiResult {
    let iri = required(&q.iri, "iri", "IRI")?;
    let limit = q.limit.unwrap_or(DEFAULT_MEMBER_LIMIT);
    // written from the index's bytes: no string per member is made
    let body = match state.index.as_deref() {
        Some(index) => serde_json::to_vec(&index.sameas_view(iri, limit).map_err(internal)?),
        None => serde_json::to_vec(&class_of_one(iri)),
    }
    .map_err(internal)?;
    Ok(json_body(body))
}

/// What `sameas` answers without an index: the IRI's canonical form, in a class
/// of its own (docs/scoring.md (Sameness) still makes its spellings equal).
fn class_of_one(iri: &str) -> SameAs {
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
pub enum SameAsBody {
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

/// The classes of a batch of IRIs, in order.
#[utoipa::path(post, path = "/api/v1/sameas", tag = "lookups", request_body = SameAsBody,
    responses((status = 200, description = "one class per IRI", body = Vec<SameAs>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody)))]
pub async fn sameas_post(state: web::Data<AppState>, body: web::Json<SameAsBody>) -> ApiResult {
    let (iris, limit) = match body.into_inner() {
        SameAsBody::List(iris) => (iris, None),
        SameAsBody::Object { iris, limit } => (iris, limit),
    };
    if iris.len() > MAX_BATCH {
        return Err(ApiError::batch_too_large("IRIs", iris.len(), MAX_BATCH));
    }
    let limit = limit.unwrap_or(DEFAULT_MEMBER_LIMIT);
    let Some(index) = state.index.clone() else {
        return Ok(
            HttpResponse::Ok().json(iris.iter().map(|i| class_of_one(i)).collect::<Vec<_>>())
        );
    };
    // a batch reads the store for a while: off the async workers; each class
    // is written from the index's bytes as it is looked up
    let body = web::block(move || batch_json(&index, &iris, limit))
        .await
        .map_err(internal)?
        .map_err(internal)?;
    Ok(json_body(body))
}

/// Why a batch of classes was not written.
#[derive(Debug, thiserror::Error)]
enum BatchError {
    /// A lookup failed.
    #[error(transparent)]
    Index(#[from] crate::index::IndexError),
    /// A class could not be written as JSON.
    #[error("writing a class as json failed: {0}")]
    Json(#[from] serde_json::Error),
}

/// The JSON array of the classes of `iris`, each written as it is looked up.
fn batch_json(index: &Index, iris: &[String], limit: usize) -> Result<Vec<u8>, BatchError> {
    let mut out = Vec::with_capacity(64 + iris.len() * 160);
    out.push(b'[');
    for (i, iri) in iris.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, &index.sameas_view(iri, limit)?)?;
    }
    out.push(b']');
    Ok(out)
}

/// A 200 answer of JSON bytes already written.
fn json_body(body: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body)
}

/// The parameters of `GET /labels`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LabelsQuery {
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
pub async fn labels(state: web::Data<AppState>, q: web::Query<LabelsQuery>) -> ApiResult {
    let index = index(&state)?;
    let text = required(&q.text, "text", "label")?;
    let fuzzy = q.fuzzy.unwrap_or(0);
    if fuzzy > 2 {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!("fuzzy={fuzzy} is too large; use 0, 1 or 2 edits"),
        ));
    }
    let hits = index
        .labels(text, q.lang.as_deref().filter(|l| !l.is_empty()), fuzzy)
        .map_err(|e| ApiError::new(ErrorCode::BadParameter, e.to_string()))?;
    Ok(HttpResponse::Ok().json(hits))
}

/// One label query.
#[derive(Deserialize, Serialize, Clone, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LabelQuery {
    /// The label.
    text: String,
    /// Its language tag (none: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// Edits allowed: 0, 1 or 2.
    #[serde(default)]
    fuzzy: u32,
}

/// The body of `POST /labels`: a list of queries, or `{queries: [...]}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LabelsBody {
    /// `[{text, lang?, fuzzy?}]`
    List(Vec<LabelQuery>),
    /// `{queries: [{text, lang?, fuzzy?}]}`
    Object {
        /// The queries.
        queries: Vec<LabelQuery>,
    },
}

/// The IRIs of one label query.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LabelAnswer {
    /// The label asked for.
    text: String,
    /// The language asked for, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// The edits allowed.
    fuzzy: u32,
    /// The IRIs carrying the label.
    hits: Vec<LabelHit>,
}

/// `POST /labels`: the IRIs carrying each label, in order.
#[utoipa::path(post, path = "/api/v1/labels", tag = "lookups", request_body = LabelsBody,
    responses((status = 200, description = "one answer per query, in order", body = Vec<LabelAnswer>),
        (status = 400, description = "a bad query, or more than 1,000 (batch_too_large)", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub async fn labels_post(state: web::Data<AppState>, body: web::Json<LabelsBody>) -> ApiResult {
    index(&state)?;
    let queries = match body.into_inner() {
        LabelsBody::List(q) | LabelsBody::Object { queries: q } => q,
    };
    if queries.len() > MAX_LABEL_QUERIES {
        return Err(ApiError::batch_too_large(
            "label queries",
            queries.len(),
            MAX_LABEL_QUERIES,
        ));
    }
    if let Some((i, q)) = queries.iter().enumerate().find(|(_, q)| q.fuzzy > 2) {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!(
                "queries[{i}].fuzzy={} is too large; use 0, 1 or 2 edits",
                q.fuzzy
            ),
        ));
    }
    let state = state.clone();
    let out = web::block(move || {
        let index = state.index.as_deref().ok_or_else(ApiError::no_index)?;
        queries
            .into_iter()
            .map(|query| {
                let lang = query.lang.as_deref().filter(|l| !l.is_empty());
                let hits = index
                    .labels(&query.text, lang, query.fuzzy)
                    .map_err(|e| ApiError::new(ErrorCode::BadParameter, e.to_string()))?;
                Ok(LabelAnswer {
                    text: query.text,
                    lang: query.lang,
                    fuzzy: query.fuzzy,
                    hits,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(out))
}

/// The parameters of `GET /types`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TypesQuery {
    /// The IRI.
    iri: Option<String>,
}

/// The classes of one IRI.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Types {
    /// The IRI.
    iri: String,
    /// Its classes (`rdf:type`, `wdt:P31`).
    types: Vec<String>,
}

/// The classes of an IRI.
#[utoipa::path(get, path = "/api/v1/types", tag = "lookups", params(TypesQuery),
    responses((status = 200, description = "its classes", body = Types),
        (status = 400, description = "no iri", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub async fn types(state: web::Data<AppState>, q: web::Query<TypesQuery>) -> ApiResult {
    let index = index(&state)?;
    let iri = required(&q.iri, "iri", "IRI")?;
    let types = index.types(iri).map_err(internal)?;
    Ok(HttpResponse::Ok().json(Types {
        iri: iri.to_string(),
        types,
    }))
}

/// The body of `POST /types` and `POST /canonical`: a list of IRIs, or `{iris: [...]}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum IrisBody {
    /// `["…", …]`
    List(Vec<String>),
    /// `{iris: ["…", …]}`
    Object {
        /// The IRIs.
        iris: Vec<String>,
    },
}

impl IrisBody {
    /// The IRIs, or a 400 `batch_too_large` past [`MAX_BATCH`].
    fn iris(self) -> Result<Vec<String>, ApiError> {
        let iris = match self {
            IrisBody::List(i) | IrisBody::Object { iris: i } => i,
        };
        if iris.len() > MAX_BATCH {
            return Err(ApiError::batch_too_large("IRIs", iris.len(), MAX_BATCH));
        }
        Ok(iris)
    }
}

/// `POST /types`: the classes of each IRI, in order.
#[utoipa::path(post, path = "/api/v1/types", tag = "lookups", request_body = IrisBody,
    responses((status = 200, description = "the classes of each IRI, in order", body = Vec<Types>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub async fn types_post(state: web::Data<AppState>, body: web::Json<IrisBody>) -> ApiResult {
    index(&state)?;
    let iris = body.into_inner().iris()?;
    let state = state.clone();
    let out = web::block(move || {
        let index = state.index.as_deref().ok_or_else(ApiError::no_index)?;
        iris.into_iter()
            .map(|iri| {
                let types = index.types(&iri).map_err(internal)?;
                Ok(Types { iri, types })
            })
            .collect::<Result<Vec<_>, ApiError>>()
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(out))
}

/// The canonical form of one IRI.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Canonical {
    /// The IRI.
    iri: String,
    /// Its canonical form (docs/scoring.md, Sameness).
    canonical: String,
}

/// `POST /canonical`: the canonical form of each IRI (docs/scoring.md, Sameness), no index needed.
#[utoipa::path(post, path = "/api/v1/canonical", tag = "lookups", request_body = IrisBody,
    responses((status = 200, description = "the canonical form of each IRI, in order", body = Vec<Canonical>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody)))]
pub async fn canonical_post(body: web::Json<IrisBody>) -> ApiResult {
    let iris = body.into_inner().iris()?;
    let out: Vec<Canonical> = iris
        .into_iter()
        .map(|iri| Canonical {
            canonical: canonical_iri(&iri),
            iri,
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}
