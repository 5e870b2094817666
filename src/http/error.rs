//! The API's errors: every stable machine-readable code the API answers is one
//! variant of [`ErrorCode`], which also fixes its HTTP status and appears in the
//! OpenAPI document; an [`ApiError`] is a code and a message that names the
//! offending value and says what to do, sent as the one [`ErrorBody`]
//! (`{"error": {"code", "message"}}`) that the document describes too. The
//! mappings of the failures every handler meets (a JSON body that cannot be
//! read, an internal error, an experiment that cannot be stored) live here, so
//! that handlers share them without importing each other.

use actix_web::error::JsonPayloadError;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

use super::experiment_store::ExperimentError;

/// A stable, machine-readable error code (`bad_json`, `not_found`,
/// `batch_too_large`, …); each has one HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 400: an answer of `POST /match` is not a SPARQL-results term, a boolean
    /// or an array of terms.
    BadAnswer,
    /// 400: a `POST /match` body that is neither `{gold, run}` nor
    /// `{questions}`.
    BadBody,
    /// 400: a body sent with a content type the route does not read.
    BadContentType,
    /// 400: an inline document of `POST /evaluate` with both or neither of
    /// `document` and `text`.
    BadDocument,
    /// 400: an experiment form with an unknown field, a bad flag, or both a
    /// gold file and a benchmark.
    BadField,
    /// 400: a gold benchmark that cannot be read or holds no question.
    BadGold,
    /// 400: a JSON body that does not parse or does not fit the route's shape.
    BadJson,
    /// 400: a multipart form that cannot be read.
    BadMultipart,
    /// 400: a parameter or option out of its range (a profile, a
    /// sub-experiment, `fuzzy`, `timeout_ms`, a protocol, …).
    BadParameter,
    /// 400: a query string, or a `/sparql` query, that cannot be read.
    BadQuery,
    /// 400: a run that cannot be read.
    BadRun,
    /// 400: a live QA system's URL that may not be called.
    BadSystemUrl,
    /// 400: more items in one batch than the route takes.
    BatchTooLarge,
    /// 503: every query slot of the server is taken (with `Retry-After`).
    Busy,
    /// 403: an action the credentials sent do not allow.
    Forbidden,
    /// 507: the disk under the experiment store is full.
    InsufficientStorage,
    /// 500: a fault of the server.
    Internal,
    /// 400: a required body field is missing.
    MissingField,
    /// 400: a required query parameter is missing or blank.
    MissingParameter,
    /// 503: a route that needs an index, on a server started without one.
    NoIndex,
    /// 400: a request that executes queries, on a server without a knowledge
    /// graph.
    NoKnowledgeGraph,
    /// 406: no result format the `Accept` header takes.
    NotAcceptable,
    /// 404: no such route, experiment or benchmark (or a private experiment
    /// asked for without its token).
    NotFound,
    /// 413: a request body over `--max-body-bytes`, or documents that make
    /// more questions than one request may hold (docs/http-api.md, Server limits).
    PayloadTooLarge,
    /// 500: a `/sparql` query that failed in the store.
    QueryFailed,
    /// 400: a SPARQL query past the size and nesting bounds read.
    QueryTooLarge,
    /// 403: a SPARQL update sent to the read-only endpoint.
    ReadOnly,
    /// 408: a request body that did not arrive within `--body-timeout-ms`.
    RequestTimeout,
    /// 413: a `/sparql` result past the row or memory cap.
    ResultTooLarge,
    /// 400: a `/sparql` query with a `SERVICE` clause.
    ServiceNotAllowed,
    /// 503: the experiment store cannot write for another reason than a full
    /// disk.
    StoreUnavailable,
    /// 502: a live QA system of the evaluation could not be asked at all (its
    /// URL is refused or does not resolve): the failure is upstream.
    SystemUnavailable,
    /// 503: an evaluation or a query past its time limit.
    Timeout,
    /// 400: a token in the query string, which is never read.
    TokenInQuery,
    /// 400: more runs in one `POST /evaluate` than it scores.
    TooManyRuns,
    /// 401: a mutating route without the server's API token.
    Unauthorized,
}

impl ErrorCode {
    /// Every code, in the order of the enum.
    pub const ALL: [ErrorCode; 36] = [
        ErrorCode::BadAnswer,
        ErrorCode::BadBody,
        ErrorCode::BadContentType,
        ErrorCode::BadDocument,
        ErrorCode::BadField,
        ErrorCode::BadGold,
        ErrorCode::BadJson,
        ErrorCode::BadMultipart,
        ErrorCode::BadParameter,
        ErrorCode::BadQuery,
        ErrorCode::BadRun,
        ErrorCode::BadSystemUrl,
        ErrorCode::BatchTooLarge,
        ErrorCode::Busy,
        ErrorCode::Forbidden,
        ErrorCode::InsufficientStorage,
        ErrorCode::Internal,
        ErrorCode::MissingField,
        ErrorCode::MissingParameter,
        ErrorCode::NoIndex,
        ErrorCode::NoKnowledgeGraph,
        ErrorCode::NotAcceptable,
        ErrorCode::NotFound,
        ErrorCode::PayloadTooLarge,
        ErrorCode::QueryFailed,
        ErrorCode::QueryTooLarge,
        ErrorCode::ReadOnly,
        ErrorCode::RequestTimeout,
        ErrorCode::ResultTooLarge,
        ErrorCode::ServiceNotAllowed,
        ErrorCode::StoreUnavailable,
        ErrorCode::SystemUnavailable,
        ErrorCode::Timeout,
        ErrorCode::TokenInQuery,
        ErrorCode::TooManyRuns,
        ErrorCode::Unauthorized,
    ];

    /// The code as sent (the serde name; a test checks that they agree).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadAnswer => "bad_answer",
            ErrorCode::BadBody => "bad_body",
            ErrorCode::BadContentType => "bad_content_type",
            ErrorCode::BadDocument => "bad_document",
            ErrorCode::BadField => "bad_field",
            ErrorCode::BadGold => "bad_gold",
            ErrorCode::BadJson => "bad_json",
            ErrorCode::BadMultipart => "bad_multipart",
            ErrorCode::BadParameter => "bad_parameter",
            ErrorCode::BadQuery => "bad_query",
            ErrorCode::BadRun => "bad_run",
            ErrorCode::BadSystemUrl => "bad_system_url",
            ErrorCode::BatchTooLarge => "batch_too_large",
            ErrorCode::Busy => "busy",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::InsufficientStorage => "insufficient_storage",
            ErrorCode::Internal => "internal",
            ErrorCode::MissingField => "missing_field",
            ErrorCode::MissingParameter => "missing_parameter",
            ErrorCode::NoIndex => "no_index",
            ErrorCode::NoKnowledgeGraph => "no_knowledge_graph",
            ErrorCode::NotAcceptable => "not_acceptable",
            ErrorCode::NotFound => "not_found",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::QueryFailed => "query_failed",
            ErrorCode::QueryTooLarge => "query_too_large",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::ResultTooLarge => "result_too_large",
            ErrorCode::ServiceNotAllowed => "service_not_allowed",
            ErrorCode::StoreUnavailable => "store_unavailable",
            ErrorCode::SystemUnavailable => "system_unavailable",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TokenInQuery => "token_in_query",
            ErrorCode::TooManyRuns => "too_many_runs",
            ErrorCode::Unauthorized => "unauthorized",
        }
    }

    /// The HTTP status every error of this code answers with.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadAnswer
            | ErrorCode::BadBody
            | ErrorCode::BadContentType
            | ErrorCode::BadDocument
            | ErrorCode::BadField
            | ErrorCode::BadGold
            | ErrorCode::BadJson
            | ErrorCode::BadMultipart
            | ErrorCode::BadParameter
            | ErrorCode::BadQuery
            | ErrorCode::BadRun
            | ErrorCode::BadSystemUrl
            | ErrorCode::BatchTooLarge
            | ErrorCode::MissingField
            | ErrorCode::MissingParameter
            | ErrorCode::NoKnowledgeGraph
            | ErrorCode::QueryTooLarge
            | ErrorCode::ServiceNotAllowed
            | ErrorCode::TokenInQuery
            | ErrorCode::TooManyRuns => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden | ErrorCode::ReadOnly => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            ErrorCode::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ErrorCode::PayloadTooLarge | ErrorCode::ResultTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::Internal | ErrorCode::QueryFailed => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Busy
            | ErrorCode::NoIndex
            | ErrorCode::StoreUnavailable
            | ErrorCode::Timeout => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::InsufficientStorage => StatusCode::INSUFFICIENT_STORAGE,
            ErrorCode::SystemUnavailable => StatusCode::BAD_GATEWAY,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An API error: a stable code (which fixes the HTTP status) and a message
/// that names the offending value and says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The code, and through it the HTTP status.
    pub code: ErrorCode,
    /// What is wrong.
    pub message: String,
}

impl ApiError {
    /// An error of `code` (answered with its status).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    /// A 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, message)
    }

    /// A 413 for a body over the limit.
    pub fn too_large(limit: usize) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("the request body is larger than {limit} bytes; send less or start the server with a larger --max-body-bytes"),
        )
    }

    /// A 400: `n` `what` in one batch, more than the `max` the route takes.
    pub fn batch_too_large(what: &str, n: usize, max: usize) -> ApiError {
        ApiError::new(
            ErrorCode::BatchTooLarge,
            format!("{n} {what} in one batch; send at most {max}"),
        )
    }

    /// A 503 when the server has no index.
    pub fn no_index() -> ApiError {
        ApiError::new(
            ErrorCode::NoIndex,
            "the server has no index; start it with --index DIR",
        )
    }

    /// A 401: a mutating route without the server's API token.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            ErrorCode::Unauthorized,
            "this server asks for its API token on this route; send it as Authorization: Bearer TOKEN or X-Api-Token: TOKEN",
        )
    }

    /// A 400: a token in the query string (`?token=`), which is never read,
    /// since URLs end up in logs, browser history and `Referer` headers.
    pub fn token_in_query(name: &str) -> ApiError {
        ApiError::new(
            ErrorCode::TokenInQuery,
            format!("the query parameter {name:?} is not read: tokens in URLs end up in logs and browser history; send the token in a header instead (an experiment's token as X-Experiment-Token: TOKEN, the server's API token as Authorization: Bearer TOKEN or X-Api-Token: TOKEN) and drop it from the URL"),
        )
    }

    /// A 408: a request body that did not arrive in time.
    pub fn body_timeout(timeout: std::time::Duration) -> ApiError {
        ApiError::new(
            ErrorCode::RequestTimeout,
            format!("the request body did not arrive within {} ms of its head; send it faster, or start the server with a larger --body-timeout-ms", timeout.as_millis()),
        )
    }

    /// A 507: the disk under the experiment store is full, so nothing can be
    /// stored until space is freed (the store recovers by itself then).
    pub fn insufficient_storage(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::InsufficientStorage, message)
    }

    /// A 503: the experiment store cannot write for another reason than a
    /// full disk (it recovers by itself once it can).
    pub fn store_unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::StoreUnavailable, message)
    }

    /// A 500.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// Every error's body: `{"error": {"code", "message"}}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The error.
    error: ErrorDetail,
}

/// An error: a stable code and a message naming the offending value.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// A stable, machine-readable code (`bad_json`, `not_found`, `batch_too_large`, …).
    code: ErrorCode,
    /// What is wrong and what to do.
    message: String,
}

impl ErrorBody {
    /// The body of an error.
    pub fn of(e: &ApiError) -> ErrorBody {
        ErrorBody {
            error: ErrorDetail {
                code: e.code,
                message: e.message.clone(),
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        // every place taken: a client should come back, not hammer
        if self.code == ErrorCode::Busy {
            response.insert_header((actix_web::http::header::RETRY_AFTER, BUSY_RETRY_AFTER_S));
        }
        response.json(ErrorBody::of(self))
    }
}

/// The `Retry-After` of a 503 `busy`, in seconds.
pub const BUSY_RETRY_AFTER_S: u32 = 2;

/// A 500 naming a failure and its causes.
pub fn internal(e: impl std::error::Error) -> ApiError {
    ApiError::internal(crate::error_chain(&e))
}

/// Maps a failure to store an experiment: a full disk is a 507
/// `insufficient_storage`, a store that cannot write for another reason a 503
/// `store_unavailable` (both pass once the store writes again, which `/health`
/// tells), anything else a 500.
pub fn store_error(e: ExperimentError) -> ApiError {
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

/// Maps a JSON body error to an API error.
pub fn json_error(e: JsonPayloadError) -> ApiError {
    match e {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => ApiError::too_large(limit),
        JsonPayloadError::ContentType => ApiError::new(
            ErrorCode::BadContentType,
            "send the body as JSON with Content-Type: application/json",
        ),
        JsonPayloadError::Deserialize(e) => ApiError::new(
            ErrorCode::BadJson,
            format!(
                "the JSON body is malformed at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        ),
        other => ApiError::new(ErrorCode::BadJson, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::PartialSchema;

    #[test]
    fn every_code_is_listed_and_sent_as_its_name() {
        // the schema lists every variant (the derive sees them all), so a code
        // missing from ALL, or an as_str that differs from serde's name, fails
        let schema = serde_json::to_value(ErrorCode::schema()).expect("schema");
        let listed: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        let in_schema: Vec<&str> = schema["enum"]
            .as_array()
            .expect("an enum schema")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(listed, in_schema);
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).expect("code"),
                serde_json::Value::String(code.as_str().into())
            );
        }
    }

    #[test]
    fn the_body_is_code_then_message() {
        let e = ApiError::new(ErrorCode::BatchTooLarge, "10001 IRIs");
        let body = serde_json::to_string(&ErrorBody::of(&e)).expect("body");
        assert_eq!(
            body,
            r#"{"error":{"code":"batch_too_large","message":"10001 IRIs"}}"#
        );
        assert_eq!(e.code.status(), StatusCode::BAD_REQUEST);
        assert_eq!(e.to_string(), "batch_too_large: 10001 IRIs");
    }
}
