//! What several resource modules share and no handler owns: the result type
//! of handlers, the profile, confidence and `by` parameters, and the web page (answered at `/` and,
//! to a browser, at `/experiments/{id}`). It imports no handler module, so
//! that handlers can import it without a circle.

use actix_web::HttpResponse;

use super::error::ErrorCode;
use super::ApiError;
use crate::eval::Profile;

/// The web page (no external assets).
const PAGE: &str = include_str!("page.html");

/// What a handler answers: a response, or an error sent as JSON.
pub type ApiResult = Result<HttpResponse, ApiError>;

/// The web page as a response.
pub fn page() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(PAGE)
}

/// The bootstrap resamples of a request that asks for confidence intervals
/// (`confidence`), as the CLI's `--confidence`.
pub const CONFIDENCE_RESAMPLES: usize = 1000;

/// The features a request splits aggregates by (`by`), as the CLI's `--by`
/// takes them: each one of [`crate::annotate::FEATURES`], else a 400
/// `bad_parameter` naming it.
pub fn features(names: &[String]) -> Result<Vec<String>, ApiError> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if !crate::annotate::FEATURES.contains(&name.as_str()) {
            return Err(ApiError::new(
                ErrorCode::BadParameter,
                format!(
                    "unknown feature {name:?} in by; use one of {}",
                    crate::annotate::FEATURES.join(", ")
                ),
            ));
        }
        // a feature named twice splits once: the work stays bounded by the
        // number of features, whatever the request repeats
        if !out.contains(name) {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// The scoring profile a request names: `judge` when it names none (or an
/// empty one), a 400 `bad_parameter` for an unknown one, and for `grailqa`,
/// whose Freebase schema files the server does not load.
pub fn profile(name: Option<&str>) -> Result<Profile, ApiError> {
    match name {
        None | Some("") => Ok(Profile::Judge),
        Some(n) => match Profile::from_name(n) {
            Ok(Profile::Grailqa) => Err(ApiError::new(
                ErrorCode::BadParameter,
                "profile \"grailqa\" compares logical forms with GrailQA's Freebase schema files, which the server does not load; evaluate with the command line (qajudge evaluate --profile grailqa --ontology DIR)".to_string(),
            )),
            Ok(p) => Ok(p),
            Err(e) => Err(ApiError::new(ErrorCode::BadParameter, e.to_string())),
        },
    }
}
