//! The API's errors: an HTTP status, a stable machine-readable code and a message
//! that names the offending value and says what to do, sent as
//! `{"error": {"code", "message"}}`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};

/// An API error: an HTTP status, a stable code and a message that names the
/// offending value and says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// A stable, machine-readable code (`bad_json`, `not_found`, …).
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
}

impl ApiError {
    /// A 400 with a code.
    pub fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            code,
            message: message.into(),
        }
    }

    /// A 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            code: "not_found",
            message: message.into(),
        }
    }

    /// A 413 for a body over the limit.
    pub fn too_large(limit: usize) -> ApiError {
        ApiError {
            status: 413,
            code: "payload_too_large",
            message: format!("the request body is larger than {limit} bytes; send less or start the server with a larger --max-body-bytes"),
        }
    }

    /// A 503 when the server has no index.
    pub fn no_index() -> ApiError {
        ApiError {
            status: 503,
            code: "no_index",
            message: "the server has no index; start it with --index DIR".into(),
        }
    }

    /// A 401: a mutating route without the server's API token.
    pub fn unauthorized() -> ApiError {
        ApiError {
            status: 401,
            code: "unauthorized",
            message: "this server asks for its API token on this route; send it as Authorization: Bearer TOKEN or X-Api-Token: TOKEN".into(),
        }
    }

    /// A 400: a token in the query string (`?token=`), which is never read,
    /// since URLs end up in logs, browser history and `Referer` headers.
    pub fn token_in_query(name: &str) -> ApiError {
        ApiError {
            status: 400,
            code: "token_in_query",
            message: format!("the query parameter {name:?} is not read: tokens in URLs end up in logs and browser history; send the token in a header instead (an experiment's token as X-Experiment-Token: TOKEN, the server's API token as Authorization: Bearer TOKEN or X-Api-Token: TOKEN) and drop it from the URL"),
        }
    }

    /// A 408: a request body that did not arrive in time.
    pub fn body_timeout(timeout: std::time::Duration) -> ApiError {
        ApiError {
            status: 408,
            code: "request_timeout",
            message: format!("the request body did not arrive within {} ms of its head; send it faster, or start the server with a larger --body-timeout-ms", timeout.as_millis()),
        }
    }

    /// A 507: the disk under the experiment store is full, so nothing can be
    /// stored until space is freed (the store recovers by itself then).
    pub fn insufficient_storage(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 507,
            code: "insufficient_storage",
            message: message.into(),
        }
    }

    /// A 503: the experiment store cannot write for another reason than a
    /// full disk (it recovers by itself once it can).
    pub fn store_unavailable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 503,
            code: "store_unavailable",
            message: message.into(),
        }
    }

    /// A 500.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            code: "internal",
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code()).json(serde_json::json!({
            "error": {"code": self.code, "message": self.message}
        }))
    }
}
