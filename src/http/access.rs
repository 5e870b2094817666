//! Who may see and change what: private experiments visible only with their
//! secret token (`Authorization: Bearer` or `?token=`), the optional API token
//! of the whole server (`--api-token`) on mutating routes, which also sees and
//! publishes every experiment. A private experiment without its token answers
//! 404, as an unknown id does, so that ids cannot be probed.

use actix_web::HttpRequest;
use serde::Deserialize;

use super::experiments::Record;
use super::{ApiError, AppState};

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// The bearer token of `Authorization`, if any.
fn bearer(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The tokens a request carries: its bearer token, `X-Api-Token` and `?token=`.
fn tokens(req: &HttpRequest) -> Vec<String> {
    let mut out: Vec<String> = bearer(req).map(str::to_string).into_iter().collect();
    if let Some(t) = req
        .headers()
        .get("x-api-token")
        .and_then(|v| v.to_str().ok())
    {
        out.push(t.trim().to_string());
    }
    if let Ok(q) = actix_web::web::Query::<TokenQuery>::from_query(req.query_string()) {
        out.extend(q.into_inner().token.filter(|t| !t.is_empty()));
    }
    out
}

/// True when the request carries the server's API token.
pub fn is_admin(state: &AppState, req: &HttpRequest) -> bool {
    state.api_token_sha256.as_deref().is_some_and(|hash| {
        tokens(req)
            .iter()
            .any(|t| crate::digest::token_matches(t, hash))
    })
}

/// Refuses a mutating route when the server has an API token and the request
/// does not carry it.
pub fn require_api_token(state: &AppState, req: &HttpRequest) -> Result<(), ApiError> {
    if state.api_token_sha256.is_none() || is_admin(state, req) {
        Ok(())
    } else {
        Err(ApiError::unauthorized())
    }
}

/// True when the request may see the experiment: it is published, or the
/// request carries its token or the server's API token.
pub fn can_see(state: &AppState, req: &HttpRequest, record: &Record) -> bool {
    record.published || tokens(req).iter().any(|t| record.token_is(t)) || is_admin(state, req)
}

/// True when the request may publish the experiment: it carries its token or
/// the server's API token.
pub fn can_publish(state: &AppState, req: &HttpRequest, record: &Record) -> bool {
    tokens(req).iter().any(|t| record.token_is(t)) || is_admin(state, req)
}

/// The 404 of an experiment that does not exist or may not be seen.
pub fn no_experiment(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no experiment {id} (a private experiment needs its token: Authorization: Bearer TOKEN or ?token=TOKEN)"
    ))
}
