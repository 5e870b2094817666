//! What is published: `/experiments/{id}` by content negotiation (the web page
//! to a browser, Turtle, N-Triples, JSON-LD or RDF/XML to a client that asks
//! for RDF), and the read-only SPARQL endpoint `/sparql` over every published
//! experiment (SPARQL 1.1 protocol, GET and POST; loaded from the record store
//! at start and updated as experiments finish or are published). Its queries
//! take one of the server's query slots (503 `busy` with `Retry-After` when
//! none is free) and run under the query timeout and the row and memory caps;
//! a result past the first MiB is streamed, and a limit passed after that cuts
//! the response short (the client sees an incomplete body).

use std::sync::Arc;

use actix_web::{web, HttpRequest, HttpResponse, ResponseError};
use futures_util::StreamExt;
use serde::Deserialize;
use utoipa::OpenApi;

use super::access::visible_record;
use super::common::{self, ApiResult};
use super::error::{internal, ErrorBody, ErrorCode};
use super::experiment_store::{ExperimentError, ExperimentStatus, ExperimentStore, Record};
use super::{linked, ApiError, AppState};
use crate::sparql::{negotiate_syntax, ExecOptions, GraphError, PublishedGraph, QueryError, Reply};

/// The paths of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(experiment_page, sparql_get, sparql_post))]
pub struct Api;

/// Why the published experiments cannot be loaded into `/sparql` at start.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The experiment store cannot be listed.
    #[error(transparent)]
    Store(#[from] ExperimentError),
    /// A published experiment's statements cannot be added to the graph.
    #[error("experiment {id}: {error}")]
    Insert {
        /// The experiment's id.
        id: String,
        /// Why its statements were refused.
        error: GraphError,
    },
}

/// True when a record belongs in the SPARQL endpoint: published and done.
fn listed(r: &Record) -> bool {
    r.published && r.status == ExperimentStatus::Done
}

/// Loads every published experiment into `graph` and keeps it up to date as
/// records change. Returns how many were loaded.
pub fn load(
    graph: &Arc<PublishedGraph>,
    store: &ExperimentStore,
    base: &str,
) -> Result<usize, LoadError> {
    let mut n = 0;
    for r in store.list()? {
        if listed(&r) {
            graph
                .insert(&linked::statements(base, &r))
                .map_err(|error| LoadError::Insert {
                    id: r.id.clone(),
                    error,
                })?;
            n += 1;
        }
    }
    let (graph, base) = (Arc::clone(graph), base.to_string());
    store.on_change(move |r| {
        if listed(r) {
            if let Err(e) = graph.insert(&linked::statements(&base, r)) {
                eprintln!("qajudge: experiment {} not added to /sparql: {e}", r.id);
            }
        }
    });
    Ok(n)
}

/// The `Accept` header, empty when absent.
fn accept(req: &HttpRequest) -> &str {
    req.headers()
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// `/experiments/{id}`: the web page, or the experiment as RDF when the client
/// asks for an RDF syntax and not for HTML.
#[utoipa::path(get, path = "/experiments/{id}", tag = "linked data",
    params(("id" = String, Path, description = "the experiment's id"),
        ("X-Experiment-Token" = Option<String>, Header, description = "a private experiment's token (or Authorization: Bearer TOKEN)")),
    responses((status = 200, description = "the web page (text/html), or the experiment in the W3C Data Cube vocabulary",
        content((String = "text/html"), (String = "text/turtle"), (String = "application/ld+json"), (String = "application/n-triples"), (String = "application/rdf+xml"))),
        (status = 404, description = "no such experiment, or a private one without its token", body = ErrorBody)))]
pub async fn experiment_page(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let accept = accept(&req).to_ascii_lowercase();
    let wants_rdf = !accept.contains("text/html") && !accept.trim().is_empty() && {
        let first = accept.split(',').next().unwrap_or("").trim();
        !first.starts_with("*/*")
    };
    let syntax = if wants_rdf {
        negotiate_syntax(&accept)
    } else {
        None
    };
    let Some(syntax) = syntax else {
        return Ok(common::page());
    };
    let record = visible_record(&state, &req, &id)?;
    let base = state.base();
    let statements = linked::statements(&base, &record);
    let body = web::block(move || crate::sparql::serialize(&statements, syntax, &linked::PREFIXES))
        .await
        .map_err(internal)?
        .map_err(internal)?;
    Ok(HttpResponse::Ok()
        .content_type(format!("{}; charset=utf-8", syntax.media_type()))
        .insert_header(("Vary", "Accept"))
        .body(body))
}

/// The parameters of the SPARQL protocol.
#[derive(Deserialize, utoipa::IntoParams, utoipa::ToSchema)]
#[into_params(parameter_in = Query)]
pub struct SparqlParams {
    /// A SELECT, ASK, CONSTRUCT or DESCRIBE query.
    query: Option<String>,
    /// An update (always refused).
    update: Option<String>,
}

/// Answers a query of the protocol (or refuses an update).
async fn answer(state: &AppState, req: &HttpRequest, params: SparqlParams) -> ApiResult {
    if params.update.is_some() {
        return Err(refused(QueryError::Update));
    }
    let Some(query) = params.query.filter(|q| !q.trim().is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::MissingParameter,
            "give the query as ?query=… (GET), as a form field query (POST, application/x-www-form-urlencoded) or as the body (POST, application/sparql-query)",
        ));
    };
    let graph = Arc::clone(&state.published);
    let accept = accept(req).to_string();
    let options = ExecOptions {
        timeout: state.sparql_timeout,
        ..state.worker.exec
    };
    let reply = web::block(move || graph.answer(&query, &accept, options))
        .await
        .map_err(internal)?;
    let reply = match reply {
        Ok(r) => r,
        Err(e @ QueryError::Busy { retry_after, .. }) => {
            let mut busy = refused(e).error_response();
            busy.headers_mut().insert(
                actix_web::http::header::RETRY_AFTER,
                actix_web::http::header::HeaderValue::from(retry_after),
            );
            return Ok(busy);
        }
        Err(e) => return Err(refused(e)),
    };
    let mut ok = HttpResponse::Ok();
    match reply {
        Reply::Complete { media, body } => Ok(ok
            .content_type(media)
            .insert_header(("Vary", "Accept"))
            .body(body)),
        Reply::Streaming { media, head, rest } => {
            let head = futures_util::stream::once(async move { Ok(web::Bytes::from(head)) });
            let rest = futures_util::stream::poll_fn(move |cx| {
                rest.poll_chunk(cx).map(|chunk| {
                    chunk.map(|c| {
                        c.map(web::Bytes::from).inspect_err(|e| {
                            eprintln!("qajudge: a /sparql answer was cut short: {e}");
                        })
                    })
                })
            });
            Ok(ok
                .content_type(media)
                .insert_header(("Vary", "Accept"))
                .streaming(head.chain(rest)))
        }
    }
}

/// The API error of a query without an answer.
fn refused(e: QueryError) -> ApiError {
    let code = match &e {
        QueryError::Syntax(_) => ErrorCode::BadQuery,
        QueryError::ServiceNotAllowed(_) => ErrorCode::ServiceNotAllowed,
        QueryError::TooLarge(_) => ErrorCode::QueryTooLarge,
        QueryError::Update => ErrorCode::ReadOnly,
        QueryError::Timeout(_) => ErrorCode::Timeout,
        QueryError::ResultTooLarge(_) => ErrorCode::ResultTooLarge,
        QueryError::Busy { .. } => ErrorCode::Busy,
        QueryError::NotAcceptable(_) => ErrorCode::NotAcceptable,
        QueryError::Failed(_) | QueryError::Closed => ErrorCode::QueryFailed,
    };
    ApiError::new(code, e.to_string())
}

/// `GET /sparql?query=…`.
#[utoipa::path(get, path = "/sparql", tag = "linked data", params(SparqlParams),
    responses((status = 200, description = "the results, in the format the Accept header asks for",
        content((String = "application/sparql-results+json"), (String = "application/sparql-results+xml"), (String = "text/csv"), (String = "text/tab-separated-values"), (String = "text/turtle"), (String = "application/ld+json"))),
        (status = 400, description = "no query, or one that does not parse", body = ErrorBody),
        (status = 403, description = "an update (read_only)", body = ErrorBody),
        (status = 406, description = "no acceptable format", body = ErrorBody),
        (status = 413, description = "the results pass the row cap (--max-rows) or the memory cap (--max-query-memory-mb) before the first MiB was sent (result_too_large); past it, the response is cut short", body = ErrorBody),
        (status = 503, description = "past the query timeout (timeout), or every query slot taken (busy, with Retry-After)", body = ErrorBody)))]
pub async fn sparql_get(
    state: web::Data<AppState>,
    req: HttpRequest,
    params: web::Query<SparqlParams>,
) -> ApiResult {
    answer(&state, &req, params.into_inner()).await
}

/// `POST /sparql`: a form (`query=…`), or the query as the body
/// (`application/sparql-query`); `application/sparql-update` is refused.
#[utoipa::path(post, path = "/sparql", tag = "linked data",
    request_body(content((SparqlParams = "application/x-www-form-urlencoded"), (String = "application/sparql-query"))),
    responses((status = 200, description = "the results, in the format the Accept header asks for",
        content((String = "application/sparql-results+json"), (String = "application/sparql-results+xml"), (String = "text/csv"), (String = "text/tab-separated-values"), (String = "text/turtle"), (String = "application/ld+json"))),
        (status = 400, description = "no query, one that does not parse, or another content type", body = ErrorBody),
        (status = 403, description = "an update (read_only)", body = ErrorBody),
        (status = 406, description = "no acceptable format", body = ErrorBody),
        (status = 413, description = "the results pass the row cap (--max-rows) or the memory cap (--max-query-memory-mb) before the first MiB was sent (result_too_large); past it, the response is cut short", body = ErrorBody),
        (status = 503, description = "past the query timeout (timeout), or every query slot taken (busy, with Retry-After)", body = ErrorBody)))]
pub async fn sparql_post(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Bytes,
) -> ApiResult {
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let text = || {
        String::from_utf8(body.to_vec())
            .map_err(|_| ApiError::new(ErrorCode::BadQuery, "the query is not UTF-8"))
    };
    let params = match content_type.as_str() {
        "application/sparql-query" => SparqlParams {
            query: Some(text()?),
            update: None,
        },
        "application/sparql-update" => return Err(refused(QueryError::Update)),
        "application/x-www-form-urlencoded" => web::Query::<SparqlParams>::from_query(&text()?)
            .map_err(|e| ApiError::new(ErrorCode::BadQuery, format!("the form is malformed: {e}")))?
            .into_inner(),
        other => {
            return Err(ApiError::new(
                ErrorCode::BadContentType,
                format!("content type {other:?}: send application/sparql-query or application/x-www-form-urlencoded"),
            ))
        }
    };
    answer(&state, &req, params).await
}
