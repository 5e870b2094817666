//! Micro-benchmarks over HTTP (docs/features.md): `GET
//! /api/v1/benchmarks/{name}/features` gives the QaldGen / LSQ features of a
//! registered benchmark's questions, and `POST /api/v1/sample` draws a sample
//! of a registered benchmark, or of one uploaded in the body (read as `POST
//! /api/v1/evaluate` reads an inline gold), as `qajudge sample --features …
//! --where …` does (the features graph in the embedded store, the same
//! selection, the same methods and scores). Both run on the blocking pool, at most
//! [`MAX_AT_ONCE`] at once (more are refused as `busy`); the body is bounded
//! by the server's JSON limit, the questions by [`MAX_SAMPLE_QUESTIONS`], the
//! expression by the `--where` bounds, k-means' work by [`MAX_TRIALS`] and
//! [`MAX_ITERATIONS`], every method's by [`MAX_WORK`], and the selection by
//! the store's timeout and caps. Memory stays linear in the upload with a
//! small constant: an uploaded benchmark is read from the body's bytes (no
//! JSON tree of it), and the store holds only the statements the selection
//! reads, added a block of questions at a time.

use std::time::Duration;

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use utoipa::OpenApi;

use super::common::ApiResult;
use super::error::{internal, ErrorBody, ErrorCode};
use super::{ApiError, AppState};
use crate::sample::draw::{self, Method, Params};
use crate::sample::{condition, vocab, QuestionFeatures, NUMERIC};
use crate::sparql::{ExecOptions, ScratchGraph, Statement};

/// The paths of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(features, sample))]
pub struct Api;

/// Feature computations and draws at once.
pub const MAX_AT_ONCE: usize = 2;
/// The most k-means restarts a draw may ask for.
pub const MAX_TRIALS: usize = 100;
/// The most Lloyd steps per restart a draw may ask for.
pub const MAX_ITERATIONS: usize = 1000;
/// The time the selection of a draw may take.
pub const SELECTION_TIMEOUT: Duration = Duration::from_secs(30);
/// The most questions a benchmark sampled on the server may have (more: a 413
/// naming the bound; `qajudge sample` has none).
pub const MAX_SAMPLE_QUESTIONS: usize = 50_000;
/// The questions whose statements are made and added to the store at once.
const QUESTIONS_AT_ONCE: usize = 1024;

/// Computations running now.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A place among the computations at once, or a 503 `busy` when
/// [`MAX_AT_ONCE`] are taken.
fn place() -> Result<super::common::Place, ApiError> {
    super::common::Place::take(&RUNNING, MAX_AT_ONCE, || {
        format!("{MAX_AT_ONCE} feature computations or samples are running; try again in a moment")
    })
}

/// The features of a registered benchmark's questions.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct BenchmarkFeatures {
    /// The benchmark.
    benchmark: String,
    /// One object per question, in the benchmark's order, with the fields of
    /// `qajudge features --format json` (docs/features.md): `id`, `text`,
    /// `words`, `entities`, `entity_words`, …, `triple_patterns`, `bgps`,
    /// `projection_variables`, `result_size` and the SPARQL feature flags.
    #[schema(value_type = Vec<Object>)]
    questions: Vec<Value>,
}

/// A sample to draw.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleBody {
    /// A registered benchmark's name (or `gold`).
    benchmark: Option<String>,
    /// An uploaded benchmark (or `benchmark`): the file's text, in any format
    /// `qajudge evaluate` reads (QALD-JSON, QALD-XML, LC-QuAD, …), or a JSON
    /// document as JSON; within the server's body limit. A file that does not
    /// read is a 400 `bad_gold` naming it and where it is wrong.
    #[schema(value_type = Option<Object>)]
    gold: Option<Box<RawValue>>,
    /// The uploaded benchmark's file name (default `gold`): named in errors,
    /// and its extension helps tell the format of a text.
    gold_name: Option<String>,
    /// The numeric and boolean features of the vectors (docs/features.md):
    /// `words`, `entities`, `relations`, `classes`, `triple_patterns`,
    /// `result_size`, `filter`, `union`, … .
    features: Vec<String>,
    /// Keep only the questions meeting a condition, e.g. `triple_patterns > 1
    /// and type = "what"` (docs/features.md, "Selecting without SPARQL").
    #[serde(rename = "where")]
    condition: Option<String>,
    /// Questions in the sample.
    size: usize,
    /// `feasible` (default), `feasible-exemplars`, `kmeans++`,
    /// `dbscan+kmeans++`, `agglomerative` or `random`.
    method: Option<String>,
    /// The seed of `random` and the k-means methods (default 0).
    seed: Option<u64>,
    /// DBSCAN's radius (default 0.1).
    radius: Option<f64>,
    /// DBSCAN's fewest vectors within the radius of a core one (default 4).
    min_points: Option<usize>,
    /// k-means' most Lloyd steps per restart (default 100, at most 1000).
    max_iterations: Option<usize>,
    /// k-means' seeded restarts (default 10, at most 100).
    trials: Option<usize>,
}

/// A drawn sample, as `qajudge sample --format json` prints it.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SampleSummary {
    /// The method.
    method: String,
    /// Questions drawn.
    size: usize,
    /// Questions asked for (agglomerative clustering can give another number).
    requested_size: usize,
    /// The seed.
    seed: u64,
    /// The features of the vectors.
    features: Vec<String>,
    /// The candidates drawn from.
    candidates: usize,
    /// QaldGen's diversity (Definition 2; higher is more diverse).
    diversity: f64,
    /// FEASIBLE's similarity error (lower is more representative).
    representativeness: f64,
    /// The chosen question ids, in the order drawn.
    questions: Vec<String>,
    /// The text of each chosen question (English when it has one, else its
    /// first), in the same order; `null` for a question without text.
    texts: Vec<Option<String>>,
}

/// Where a sample is drawn from: a registered benchmark or an uploaded one.
enum Source {
    /// A registered benchmark: its name and questions.
    Registered(String, std::sync::Arc<crate::model::Dataset>),
    /// An uploaded benchmark, read on the blocking pool: its name and the
    /// body's bytes of it.
    Uploaded(Option<String>, Box<RawValue>),
}

fn bad(message: String) -> ApiError {
    ApiError::new(ErrorCode::BadParameter, message)
}

/// The features of a registered benchmark's questions.
#[utoipa::path(get, path = "/api/v1/benchmarks/{name}/features", tag = "experiments",
    params(("name" = String, Path, description = "a registered benchmark's name")),
    responses((status = 200, description = "the features of every question (docs/features.md)", body = BenchmarkFeatures),
        (status = 404, description = "no such benchmark", body = ErrorBody),
        (status = 503, description = "two computations are running (busy)", body = ErrorBody)))]
pub async fn features(state: web::Data<AppState>, name: web::Path<String>) -> ApiResult {
    let name = name.into_inner();
    let Some(benchmark) = state.benchmarks.get(&name).cloned() else {
        return Err(ApiError::not_found(format!(
            "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones"
        )));
    };
    let slot = place()?;
    let index = state.index.clone();
    let questions = web::block(move || -> Result<Vec<Value>, ApiError> {
        let _slot = slot;
        Ok(named_features(&benchmark.dataset, index.as_deref())?
            .iter()
            .map(|f| serde_json::to_value(f).unwrap_or(Value::Null))
            .collect())
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(BenchmarkFeatures {
        benchmark: name,
        questions,
    }))
}

/// The features of a benchmark's questions in English, with names from the
/// server's index when it holds names (else local names; docs/features.md).
fn named_features(
    dataset: &crate::model::Dataset,
    index: Option<&crate::index::Index>,
) -> Result<Vec<QuestionFeatures>, ApiError> {
    crate::sample::named::features_named_if_possible(
        dataset,
        "en",
        index,
        crate::eval::DEFAULT_MAX_CLASS_SIZE,
    )
    .map_err(internal)
}

/// Checks a body's options: the method, the features, k-means' bounds.
fn params(body: &SampleBody) -> Result<Params, ApiError> {
    let method = match body.method.as_deref() {
        None | Some("") => Method::Feasible,
        Some(m) => Method::parse(m).ok_or_else(|| {
            bad(format!(
                "method {m:?} is not a sampling method; use one of {}",
                Method::ALL.map(|(n, _)| n).join(", ")
            ))
        })?,
    };
    if body.features.is_empty() {
        return Err(bad(
            "features is empty; name the features of the vectors, e.g. [\"words\", \"triple_patterns\"]".into(),
        ));
    }
    for f in &body.features {
        if !NUMERIC.contains(&f.as_str()) {
            return Err(bad(format!(
                "unknown feature {f:?} in features; use some of {}",
                NUMERIC.join(", ")
            )));
        }
    }
    let defaults = Params::default();
    let trials = body.trials.unwrap_or(defaults.trials);
    let max_iterations = body.max_iterations.unwrap_or(defaults.max_iterations);
    if trials > MAX_TRIALS || max_iterations > MAX_ITERATIONS {
        return Err(bad(format!(
            "trials {trials} and max_iterations {max_iterations}: give at most {MAX_TRIALS} and {MAX_ITERATIONS}"
        )));
    }
    Ok(Params {
        method,
        size: body.size,
        seed: body.seed.unwrap_or(0),
        radius: body.radius.unwrap_or(defaults.radius),
        min_points: body.min_points.unwrap_or(defaults.min_points),
        max_iterations,
        trials,
    })
}

/// The most steps a drawn sample may take on the server (a step: one distance
/// over the features), so that a request cannot hold a slot for hours.
pub const MAX_WORK: f64 = 2e10;

/// The steps a draw of `params` takes on `n` candidates of `d` features, at
/// worst: k-means' trials × iterations × candidates × clusters, DBSCAN's
/// candidates², average linkage's candidates³, FEASIBLE's size × candidates.
fn work(params: &draw::Params, n: usize, d: usize) -> f64 {
    let (n, d, k) = (n as f64, d.max(1) as f64, params.size as f64);
    let kmeans = params.trials as f64 * params.max_iterations as f64 * n * k * d;
    match params.method {
        draw::Method::Kmeans => kmeans,
        draw::Method::DbscanKmeans => kmeans + n * n * d,
        draw::Method::Agglomerative => n * n * n * d,
        draw::Method::Feasible | draw::Method::FeasibleExemplars => 2.0 * k * n * d,
        draw::Method::Random => n,
    }
}

/// Draws a sample of a registered benchmark or an uploaded one.
#[utoipa::path(post, path = "/api/v1/sample", tag = "experiments", request_body = SampleBody,
    responses((status = 200, description = "the sample, its diversity and representativeness (docs/features.md, Sampling)", body = SampleSummary),
        (status = 400, description = "an unknown feature or method, a bad where expression (its column named), a size of 0 or more than the candidates, bounds exceeded, both benchmark and gold (bad_parameter); neither (missing_field); an uploaded file that does not read (bad_gold, naming it, its line and column)", body = ErrorBody),
        (status = 413, description = "body too large (an uploaded benchmark past the server's body limit), a benchmark of more questions than the server samples (50,000), or a draw of more work than it draws (payload_too_large, naming the bound)", body = ErrorBody),
        (status = 404, description = "no such benchmark", body = ErrorBody),
        (status = 503, description = "two computations are running (busy)", body = ErrorBody)))]
pub async fn sample(state: web::Data<AppState>, body: web::Json<SampleBody>) -> ApiResult {
    let body = body.into_inner();
    let params = params(&body)?;
    let condition = body
        .condition
        .as_deref()
        .map(condition::parse)
        .transpose()
        .map_err(|e| bad(e.to_string().replacen("--where", "where", 1)))?;
    let source = source(&state, body.benchmark, body.gold, body.gold_name)?;
    let filter = condition
        .as_ref()
        .map(|c| (c.sparql.clone(), c.features.clone()));
    let query = vocab::select_query(
        &body.features,
        filter.as_ref().map(|(s, f)| (s.as_str(), f.as_slice())),
    );
    let slot = place()?;
    let index = state.index.clone();
    let drawn = web::block(move || {
        let _slot = slot;
        draw_from(source, &query, &params, index.as_deref())
    })
    .await
    .map_err(internal)??;
    let (drawn, texts) = drawn;
    Ok(HttpResponse::Ok().json(SampleSummary {
        method: drawn.method.to_string(),
        size: drawn.size,
        requested_size: drawn.requested_size,
        seed: drawn.seed,
        features: drawn.features,
        candidates: drawn.candidates,
        diversity: drawn.diversity,
        representativeness: drawn.representativeness,
        questions: drawn.questions,
        texts,
    }))
}

/// The benchmark a draw is of: the registered one named `benchmark`, or the
/// one uploaded as `gold`; a 404 for an unknown name, a 400 for both or
/// neither.
fn source(
    state: &AppState,
    benchmark: Option<String>,
    gold: Option<Box<RawValue>>,
    gold_name: Option<String>,
) -> Result<Source, ApiError> {
    match (benchmark, gold) {
        (Some(name), None) => match state.benchmarks.get(&name) {
            Some(b) => Ok(Source::Registered(name, std::sync::Arc::clone(&b.dataset))),
            None => Err(ApiError::not_found(format!(
                "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones, or upload it as gold"
            ))),
        },
        (None, Some(gold)) => Ok(Source::Uploaded(gold_name, gold)),
        (Some(_), Some(_)) => Err(bad(
            "both benchmark and gold are given; give either a registered benchmark's name (benchmark) or an uploaded benchmark (gold), not both".into(),
        )),
        (None, None) => Err(ApiError::new(
            ErrorCode::MissingField,
            "give a registered benchmark's name (benchmark) or an uploaded benchmark's text (gold, with gold_name)",
        )),
    }
}

/// Draws the sample on the blocking pool: reads an uploaded benchmark, bounds
/// its questions, selects the candidates by `query` over their features, and
/// bounds the draw's work before it draws; the sample and the text of each
/// question drawn.
fn draw_from(
    source: Source,
    query: &str,
    params: &Params,
    index: Option<&crate::index::Index>,
) -> Result<(draw::Summary, Vec<Option<String>>), ApiError> {
    let (origin, dataset) = match source {
        Source::Registered(name, dataset) => (name, dataset),
        Source::Uploaded(name, gold) => super::evaluate::parse_gold_raw(name, &gold)?,
    };
    let dataset = &*dataset;
    if dataset.questions.len() > MAX_SAMPLE_QUESTIONS {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the benchmark has {} questions; this server samples at most {MAX_SAMPLE_QUESTIONS}: narrow it, or draw it with `qajudge sample`",
                dataset.questions.len()
            ),
        ));
    }
    let all = named_features(dataset, index)?;
    let c = select(dataset, &all, &origin, query)?;
    let work = work(params, c.iris.len(), c.features.len());
    if work > MAX_WORK {
        return Err(ApiError::new(ErrorCode::PayloadTooLarge, format!(
            "method {} on {} candidates with {} features, size {}, {} trials of {} iterations is about {work:.1e} steps, more than this server draws ({MAX_WORK:.0e}); narrow the selection, or lower size, trials or max_iterations, or draw it with `qajudge sample`",
            params.method.name(),
            c.iris.len(),
            c.features.len(),
            params.size,
            params.trials,
            params.max_iterations
        )));
    }
    let drawn = draw::draw(&c, params).map_err(|e| bad(e.to_string()))?;
    let text: std::collections::HashMap<&str, &str> = all
        .iter()
        .filter_map(|f| Some((f.id.as_str(), f.text.as_deref()?)))
        .collect();
    let texts = drawn
        .questions
        .iter()
        .map(|id| text.get(id.as_str()).map(|t| (*t).to_string()))
        .collect();
    Ok((drawn, texts))
}

/// The candidates of a draw: the questions' features (`all`, of the benchmark
/// named `origin`) put into a scratch store as statements (only those the
/// selection reads, a block of questions at a time), and `query` run there
/// within [`SELECTION_TIMEOUT`].
fn select(
    dataset: &crate::model::Dataset,
    all: &[QuestionFeatures],
    origin: &str,
    query: &str,
) -> Result<draw::Candidates, ApiError> {
    let graph = ScratchGraph::new().map_err(internal)?;
    // only the statements the selection reads, a block of questions at a time
    let read = crate::query::read_predicates(query);
    let pairs: Vec<(&crate::model::Question, &QuestionFeatures)> =
        dataset.questions.iter().zip(all).collect();
    for block in pairs.chunks(QUESTIONS_AT_ONCE) {
        let statements: Vec<Statement> = block
            .iter()
            .flat_map(|(q, f)| {
                let text = match &q.query {
                    crate::model::Query::Sparql(s) => Some(s.as_str()),
                    _ => None,
                };
                vocab::facts(f, origin, text)
            })
            .filter(|f| read.as_ref().is_none_or(|r| r.contains(&f.predicate)))
            .map(|f| Statement {
                subject: f.subject,
                predicate: f.predicate,
                object: f.object,
            })
            .collect();
        graph.insert(&statements).map_err(internal)?;
    }
    let options = ExecOptions {
        timeout: SELECTION_TIMEOUT,
        ..ExecOptions::default()
    };
    let out = graph.execute(query, options);
    if !out.status.answered() || out.message.is_some() {
        return Err(bad(format!(
            "the selection failed: {}",
            out.message.unwrap_or_else(|| format!("{:?}", out.status))
        )));
    }
    draw::candidates(&out.answers, &out.columns).map_err(|e| bad(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> SampleBody {
        serde_json::from_str(json).expect("a body")
    }

    #[test]
    fn a_draw_past_the_work_bound_is_told_before_it_starts() {
        let p = |method: &str, trials: usize, iterations: usize| {
            let mut p = params(&body(&format!(
                r#"{{"benchmark": "b", "features": ["words"], "size": 200, "method": "{method}", "trials": {trials}, "max_iterations": {iterations}}}"#
            )))
            .expect("valid options");
            p.size = 200;
            p
        };
        // QaldGenData's 5,543 questions, 3 features
        assert!(work(&p("kmeans++", 10, 100), 5543, 3) < MAX_WORK);
        assert!(work(&p("kmeans++", 100, 1000), 5543, 3) > MAX_WORK);
        assert!(work(&p("agglomerative", 1, 1), 1000, 3) < MAX_WORK);
        assert!(work(&p("dbscan+kmeans++", 100, 100), 5543, 3) > MAX_WORK);
        assert!(work(&p("feasible", 1, 1), 5543, 3) < MAX_WORK);
    }

    #[test]
    fn options_are_checked() {
        let p = params(&body(
            r#"{"benchmark": "b", "features": ["words"], "size": 5, "method": "kmeans++", "seed": 3}"#,
        ))
        .expect("valid");
        assert_eq!(
            (p.method, p.size, p.seed, p.trials),
            (Method::Kmeans, 5, 3, 10)
        );
        let e = params(&body(
            r#"{"benchmark": "b", "features": ["wrods"], "size": 5}"#,
        ));
        assert!(e.is_err_and(|e| e.to_string().contains("unknown feature \"wrods\"")));
        let e = params(&body(
            r#"{"benchmark": "b", "features": ["words"], "size": 5, "method": "best"}"#,
        ));
        assert!(e.is_err_and(|e| e.to_string().contains("not a sampling method")));
        let e = params(&body(
            r#"{"benchmark": "b", "features": ["words"], "size": 5, "trials": 1000}"#,
        ));
        assert!(e.is_err_and(|e| e.to_string().contains("at most 100")));
        assert!(serde_json::from_str::<SampleBody>(
            r#"{"benchmark": "b", "features": [], "size": 1, "x": 1}"#
        )
        .is_err());
    }
}
