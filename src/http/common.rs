//! What several resource modules share and no handler owns: the result type
//! of handlers, the profile, confidence, `by` and `questions` parameters, and the web page (answered at `/` and,
//! to a browser, at `/experiments/{id}`). It imports no handler module, so
//! that handlers can import it without a circle.

use std::collections::{BTreeSet, HashSet};

use actix_web::HttpResponse;

use super::error::ErrorCode;
use super::ApiError;
use crate::eval::{Options, Profile};
use crate::model::Dataset;

/// The web page (no external assets).
const PAGE: &str = include_str!("page.html");

/// What a handler answers: a response, or an error sent as JSON.
pub type ApiResult = Result<HttpResponse, ApiError>;

/// The web page as a response.
pub fn page() -> HttpResponse {
    static POLICY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    html(PAGE, POLICY.get_or_init(|| content_policy(PAGE)))
}

/// One of the server's own pages (no external assets, one inline script) as
/// a response, with `policy` (its [`content_policy`]) and the headers that
/// keep it out of other sites' frames.
pub fn html(page: &'static str, policy: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Content-Security-Policy", policy.to_string()))
        .insert_header(("X-Frame-Options", "DENY"))
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(page)
}

/// The Content-Security-Policy of a page of the server's: its one inline
/// script allowed by its SHA-256 (nothing else runs, an injected script
/// included), inline styles, requests to this server only, no frames around
/// it, no forms elsewhere.
pub fn content_policy(page: &str) -> String {
    let script = page
        .split_once("<script>")
        .and_then(|(_, rest)| rest.split_once("</script>"))
        .map_or("", |(script, _)| script);
    format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        crate::digest::sha256_base64(script.as_bytes())
    )
}

pub use crate::eval::job::CONFIDENCE_RESAMPLES;

/// The most runs one evaluation may score (`POST /evaluate`, a submitted
/// experiment: run files and system URLs together); its pairwise comparisons
/// are then at most 190.
pub const MAX_RUNS: usize = 20;

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
/// empty one), a 400 `bad_parameter` for an unknown one.
pub fn profile(name: Option<&str>) -> Result<Profile, ApiError> {
    match name {
        None | Some("") => Ok(Profile::Judge),
        Some(n) => {
            Profile::from_name(n).map_err(|e| ApiError::new(ErrorCode::BadParameter, e.to_string()))
        }
    }
}

/// `options` with the resources of the registered benchmark the evaluation
/// scores against (`None`: an inline gold, which has none): a 400
/// `bad_parameter` for the `grailqa` profile without GrailQA's schema, which
/// only a benchmark registered with `--benchmark-ontology` has.
pub fn with_resources(
    options: Options,
    benchmark: Option<&super::Benchmark>,
) -> Result<Options, ApiError> {
    let resources = benchmark.map(|b| b.resources.clone()).unwrap_or_default();
    if options.profile == Profile::Grailqa && resources.ontology.is_none() {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            "profile \"grailqa\" compares logical forms with GrailQA's Freebase schema: score against a registered benchmark the server was started with --benchmark-ontology NAME=DIR for, or use the command line (qajudge evaluate --profile grailqa --ontology DIR)",
        ));
    }
    // each resource to the profile that reads it: a benchmark registered
    // with its ontology is still scored by every other profile
    Ok(Options {
        ontology: resources
            .ontology
            .filter(|_| options.profile == Profile::Grailqa),
        train: resources
            .train
            .filter(|_| options.profile == Profile::Kqapro),
        ..options
    })
}

/// The longest `abstain_marker` a request may give, in characters.
pub const MAX_ABSTAIN_MARKER_CHARS: usize = 1000;

/// A request's `abstain_marker` (docs/scoring.md, Abstention and
/// truthfulness): `None` when absent or blank, a 400 `bad_parameter` past
/// [`MAX_ABSTAIN_MARKER_CHARS`].
pub fn abstain_marker(text: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(t) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if t.chars().count() > MAX_ABSTAIN_MARKER_CHARS {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!(
                "abstain_marker is longer than {MAX_ABSTAIN_MARKER_CHARS} characters; give the short answer text that means \"I do not know\""
            ),
        ));
    }
    Ok(Some(t.to_string()))
}

/// The most unknown ids an error names.
const UNKNOWN_NAMED: usize = 10;

/// The questions a request scores (`questions`: a sample's ids, as the CLI's
/// `--questions`): `None` when it names none, else the set of ids, each one of
/// `gold`'s, or a 400 `bad_parameter` naming those that are not (at most
/// [`UNKNOWN_NAMED`] of them) or saying that the list is empty.
pub fn questions(
    gold: &Dataset,
    gold_name: &str,
    ids: Option<&[String]>,
) -> Result<Option<BTreeSet<String>>, ApiError> {
    let Some(ids) = ids else { return Ok(None) };
    if ids.is_empty() {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            "questions is empty; give the ids of the questions to score, or leave questions out to score them all",
        ));
    }
    let known: HashSet<&str> = gold.questions.iter().map(|q| q.id.0.as_str()).collect();
    // in the order given, each once (a set: a long hostile list stays linear)
    let mut seen = HashSet::new();
    let unknown: Vec<&str> = ids
        .iter()
        .map(String::as_str)
        .filter(|id| !known.contains(id) && seen.insert(*id))
        .collect();
    if !unknown.is_empty() {
        let named: Vec<String> = unknown
            .iter()
            .take(UNKNOWN_NAMED)
            .map(|id| format!("{id:?}"))
            .collect();
        let more = unknown.len().saturating_sub(UNKNOWN_NAMED);
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!(
                "{} {}{} {} not in the gold benchmark {gold_name:?}; give ids of its questions in questions (a sample drawn by POST /api/v1/sample, or ids from GET /api/v1/benchmarks/{{name}}/features)",
                if unknown.len() == 1 { "question" } else { "questions" },
                named.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() },
                if unknown.len() == 1 { "is" } else { "are" },
            ),
        ));
    }
    Ok(Some(ids.iter().cloned().collect()))
}

/// A place among the computations of one kind that run at once (`running`
/// counts them), given back when dropped: held by the work itself, so that
/// work that goes on after its answer still holds it.
pub struct Place(&'static std::sync::atomic::AtomicUsize);

impl Place {
    /// A place, or a 503 `busy` (with `Retry-After`) saying `busy` when
    /// `max` are taken.
    pub fn take(
        running: &'static std::sync::atomic::AtomicUsize,
        max: usize,
        busy: impl FnOnce() -> String,
    ) -> Result<Place, ApiError> {
        use std::sync::atomic::Ordering;
        if running.fetch_add(1, Ordering::SeqCst) >= max {
            running.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::new(ErrorCode::Busy, busy()));
        }
        Ok(Place(running))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}
