//! `POST /api/v1/evaluate`: a synchronous evaluation. JSON in (the gold as a
//! registered benchmark's name or an inline document, inline runs, the options
//! of `qajudge evaluate`), the report (docs/report.md) out, in one call, through the
//! same [`evaluate_job`] as stored experiments and so the same code as the CLI;
//! with the body size limit of the server and a time limit per call.

use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use utoipa::OpenApi;

use super::common::{features, profile, questions, CONFIDENCE_RESAMPLES, MAX_RUNS};
use super::error::{internal, ErrorBody, ErrorCode};
use super::job::evaluate_job;
use super::limits::{self, Tally};
use super::{ApiError, AppState};
use crate::eval::job::{JobError, Plan, Request, RunSource};
use crate::eval::{Experiment, GoldMarkings, Options, DEFAULT_MAX_CLASS_SIZE};
use crate::model::Dataset;

/// The path of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(evaluate))]
pub struct Api;

/// The time limit of a call unless the body asks for less.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;
/// The longest time limit a body may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// The most LLM judge calls one evaluation request makes (none after the
/// request's `timeout_ms`); past them answers are `unsure`, with a
/// diagnostic.
pub const LLM_MAX_CALLS: usize = 1_000;
/// The most verdicts one server process writes into the judge's cache,
/// whoever asks: past them verdicts are not kept.
pub const LLM_CACHE_WRITES: u64 = 100_000;

/// A benchmark or run document given inline: a JSON document (QALD-JSON, eQALD,
/// LC-QuAD, RuBQ, TEXT2SPARQL answers) as JSON, or any document (QALD-XML,
/// TEXT2SPARQL YAML, JSON Lines) as text.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Document {
    /// Its name in the report (a run's name; a file name, whose extension helps
    /// tell the format of a text).
    name: Option<String>,
    /// The document as JSON (kept as its text: read as a file of it is, with
    /// no tree of it in between).
    #[schema(value_type = Option<Object>)]
    document: Option<Box<RawValue>>,
    /// The document as text.
    text: Option<String>,
}

/// The gold: a registered benchmark's name, or a document (read by
/// [`gold_input`]).
#[derive(utoipa::ToSchema)]
#[serde(untagged)]
pub(super) enum GoldInput {
    /// A registered benchmark's name.
    Benchmark(String),
    /// A document.
    Document(Document),
}

/// The body of `POST /evaluate`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct EvaluateBody {
    /// The gold benchmark.
    #[serde(deserialize_with = "gold_input")]
    gold: GoldInput,
    /// The runs (at most 20).
    runs: Vec<Document>,
    /// The profile (default `judge`).
    profile: Option<String>,
    /// Sub-experiments (`qa`, `c2kb`, …, and `query`, the query measures,
    /// only when named); empty or absent: the profile's.
    #[serde(default)]
    experiments: Vec<String>,
    /// Add the matched pairs and why, per question.
    #[serde(default)]
    explain: bool,
    /// `--strict-literals`.
    #[serde(default)]
    strict_literals: bool,
    /// `--lenient-dates`.
    #[serde(default)]
    lenient_dates: bool,
    /// `--max-class-size` (default 1000).
    max_class_size: Option<usize>,
    /// `auto` (default) or `query`.
    gold_markings: Option<String>,
    /// The language the runs were asked in.
    lang: Option<String>,
    /// Execute the gold queries on the server's knowledge graph.
    #[serde(default)]
    refresh_gold: bool,
    /// Execute the runs' queries on the server's knowledge graph.
    #[serde(default)]
    execute_run: bool,
    /// Add 95 % bootstrap confidence intervals over questions (1000
    /// resamples, fixed seed; `aggregate.confidence`, docs/report.md), like the CLI's
    /// `--confidence`.
    #[serde(default)]
    confidence: bool,
    /// Split every aggregate by question features, like the CLI's `--by`
    /// (docs/scoring.md, Breakdowns):
    /// answertype, form, modifier, triples, aggregation, onlydbo, hybrid,
    /// tags, qword, language.
    #[serde(default)]
    by: Vec<String>,
    /// Score only these questions of the gold (a sample's ids, e.g. the
    /// `questions` of `POST /api/v1/sample`), like the CLI's `--questions`:
    /// the runs' answers to the others are left out; an id the gold does not
    /// have is a 400 naming it (docs/features.md, Output).
    questions: Option<Vec<String>>,
    /// Add each run's failure explanation (`runs[].failures`: the feature
    /// conditions that separate its failed questions from its solved ones),
    /// like the CLI's `--explain-failures` (docs/features.md, "Why a system
    /// fails").
    #[serde(default)]
    explain_failures: bool,
    /// The time limit of the call in ms (default 60,000, at most 600,000).
    timeout_ms: Option<u64>,
    /// The base URL of an OpenAI-compatible chat-completions server to ask
    /// as the LLM judge, like the CLI's `--llm-judge` (docs/scoring.md, The
    /// LLM judge): only a host of the server's `--allow-system-host` list,
    /// else a 400 `bad_system_url`; no key is sent.
    llm_judge: Option<String>,
    /// The judge's model (`--llm-model`; required with `llm_judge`).
    llm_model: Option<String>,
    /// Also judge query pairs whose equivalence is `unknown` (`--llm-queries`).
    #[serde(default)]
    llm_queries: bool,
    /// A run answer that means "I do not know", like the CLI's
    /// `--abstain-marker`: a question answered with it (and nothing else)
    /// counts as abstained (docs/scoring.md, Abstention and truthfulness);
    /// at most 1,000 characters.
    abstain_marker: Option<String>,
}

/// The gold of a body: a string is a registered benchmark's name, anything
/// else a [`Document`] (read from its text, so that its `document` stays text).
fn gold_input<'de, D: Deserializer<'de>>(d: D) -> Result<GoldInput, D::Error> {
    use serde::de::Error;
    let raw = Box::<RawValue>::deserialize(d)?;
    if raw.get().starts_with('"') {
        serde_json::from_str(raw.get()).map(GoldInput::Benchmark)
    } else {
        serde_json::from_str(raw.get()).map(GoldInput::Document)
    }
    .map_err(D::Error::custom)
}

/// The LLM judge a request asks for: its URL checked against the server's
/// allow-list as a live system's is, verdicts cached in the server user's
/// cache directory, no call after `left` (the request's time); `None`
/// without `llm_judge`.
fn llm_judge(
    body: &EvaluateBody,
    state: &AppState,
    left: Duration,
) -> Result<Option<Arc<crate::llm::Judge>>, ApiError> {
    let Some(url) = body.llm_judge.as_deref() else {
        if body.llm_model.is_some() || body.llm_queries {
            return Err(ApiError::new(
                ErrorCode::BadParameter,
                "llm_model and llm_queries need llm_judge, the judge server's base URL",
            ));
        }
        return Ok(None);
    };
    let Some(model) = body.llm_model.clone().filter(|m| !m.is_empty()) else {
        return Err(ApiError::new(
            ErrorCode::MissingField,
            "llm_judge needs llm_model, the model the judge server runs",
        ));
    };
    // no call outlives the request: its timeout is what is left of it
    let server = crate::live::ChatServer::new(
        url,
        None,
        Duration::from_millis(DEFAULT_TIMEOUT_MS)
            .min(left)
            .max(Duration::from_millis(1)),
        state.live.allowed_hosts.as_deref(),
    )
    .map_err(|e| ApiError::new(ErrorCode::BadSystemUrl, format!("llm_judge: {e}")))?;
    let mut settings = crate::llm::JudgeSettings::new(model);
    settings.queries = body.llm_queries;
    settings.cache = crate::llm::default_cache_dir();
    // one request's calls and the server's verdicts on disk are bounded
    settings.max_calls = LLM_MAX_CALLS;
    // no call after the request's own time (the work is not cancelled)
    settings.deadline = left;
    settings.cache_writes = Some(Arc::clone(&state.llm_cache_writes));
    crate::llm::Judge::new(settings, Box::new(server))
        .map(|j| Some(Arc::new(j)))
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// Parses an inline document, naming it (and where it is wrong) in the error.
fn parse(doc: &Document, what: &'static str, default_name: &str) -> Result<Dataset, ApiError> {
    let name = doc.name.clone().unwrap_or_else(|| default_name.to_string());
    let (bytes, object) = text_of(doc, what, &name)?;
    let code = if what == "gold" {
        ErrorCode::BadGold
    } else {
        ErrorCode::BadRun
    };
    // a document is read as a file of its content is (a list of JSON Lines
    // records as those lines)
    let read = if object {
        crate::qald::parse_document(bytes, &name)
    } else {
        crate::qald::parse(bytes, &name)
    };
    read.map_err(|e| ApiError::new(code, format!("{what} {name:?} is not readable: {e}")))
}

/// A document's text, and whether it is one JSON value (`document`) rather
/// than a file's text (`text`); a 400 `bad_document` naming it when it has
/// both or neither.
fn text_of<'d>(doc: &'d Document, what: &str, name: &str) -> Result<(&'d [u8], bool), ApiError> {
    match (&doc.document, &doc.text) {
        (Some(v), None) => Ok((v.get().as_bytes(), true)),
        (None, Some(t)) => Ok((t.as_bytes(), false)),
        _ => Err(ApiError::new(
            ErrorCode::BadDocument,
            format!("{what} {name:?}: give exactly one of document (JSON) or text"),
        )),
    }
}

/// An uploaded gold benchmark given as the body's bytes of one JSON value,
/// read as this route reads an inline gold but without a JSON tree of it (a
/// string: the file's text, in any format `qajudge evaluate` reads; else the
/// document's JSON text itself): its name (`name`, else `gold`) and its
/// questions, or a 400 `bad_gold` naming the file and where it is wrong (line
/// and column), or saying it holds no question.
pub(super) fn parse_gold_raw(
    name: Option<String>,
    gold: &serde_json::value::RawValue,
) -> Result<(String, Arc<Dataset>), ApiError> {
    let raw = gold.get();
    let text: std::borrow::Cow<'_, str> = if raw.starts_with('"') {
        serde_json::from_str::<String>(raw)
            .map_err(|e| ApiError::new(ErrorCode::BadGold, format!("gold: {e}")))?
            .into()
    } else {
        raw.into()
    };
    let shown = name.clone().unwrap_or_else(|| "gold".into());
    // counted before it is read: a gold past the cap is never built
    Tally::new(limits::bound(text.as_bytes(), &shown)).check()?;
    let dataset = crate::qald::parse(text.as_bytes(), &shown).map_err(|e| {
        ApiError::new(
            ErrorCode::BadGold,
            format!("gold {shown:?} is not readable: {e}"),
        )
    })?;
    if dataset.questions.is_empty() {
        return Err(ApiError::new(
            ErrorCode::BadGold,
            "the gold document holds no question",
        ));
    }
    Ok((shown, Arc::new(dataset)))
}

/// The name a run is reported under: its `name`, else `runN`.
fn run_name(doc: &Document, n: usize) -> String {
    doc.name
        .as_deref()
        .map(|name| {
            let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
            base.rsplit_once('.').map_or(base, |(s, _)| s).to_string()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| format!("run{n}"))
}

/// `POST /api/v1/evaluate`: the report (docs/report.md) of runs against a gold
/// benchmark, synchronously.
#[utoipa::path(post, path = "/api/v1/evaluate", tag = "evaluation", request_body = EvaluateBody,
    responses((status = 200, description = "the report", body = crate::eval::Report),
        (status = 400, description = "a bad document or option, an id in questions the gold does not have (bad_parameter, naming it), or more than 20 runs", body = ErrorBody),
        (status = 404, description = "no such benchmark", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody),
        (status = 503, description = "past the time limit (timeout: the work stops at its next question), or every evaluation place taken (busy, with Retry-After)", body = ErrorBody)))]
pub async fn evaluate(
    state: web::Data<AppState>,
    body: web::Json<EvaluateBodyJson>,
) -> Result<HttpResponse, ApiError> {
    let mut body = body.into_inner().0;
    let started = Instant::now();
    // a place among the evaluations at once, held until the work ends (not
    // when the answer is sent: past timeout_ms the work stops at its next
    // question, and the place is free then)
    let slot = Arc::new(place(state.max_evaluations)?);
    let timeout_ms = limits(&body)?;
    let by = features(&body.by)?;
    // inline documents are parsed on the blocking pool, within the call's
    // time limit: a large or awkward document never stalls the server's workers
    let registered = match &body.gold {
        GoldInput::Benchmark(name) => match state.benchmarks.get(name) {
            Some(b) => Some((name.clone(), Arc::clone(&b.dataset))),
            None => {
                return Err(ApiError::not_found(format!(
                    "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones, or give the gold inline as {{\"document\": …}}"
                )))
            }
        },
        GoldInput::Document(_) => None,
    };
    let from_benchmark = registered.is_some();
    let gold_doc = match std::mem::replace(&mut body.gold, GoldInput::Benchmark(String::new())) {
        GoldInput::Document(doc) => Some(doc),
        GoldInput::Benchmark(_) => None,
    };
    let run_docs = std::mem::take(&mut body.runs);
    let parsing_slot = Arc::clone(&slot);
    let registered_questions = registered.as_ref().map(|(_, d)| d.questions.len());
    let parsing = web::block(move || {
        let parsed = parse_documents(gold_doc, &run_docs, registered_questions);
        drop(parsing_slot);
        parsed
    });
    let (gold_doc, runs) =
        match actix_web::rt::time::timeout(remaining(started, timeout_ms), parsing).await {
            Ok(parsed) => parsed.map_err(internal)??,
            Err(_) => return Err(too_slow(timeout_ms)),
        };
    let (gold_name, gold) = match (registered, gold_doc) {
        (Some(named), _) => named,
        (None, Some(parsed)) => parsed,
        (None, None) => {
            return Err(ApiError::internal(
                "no gold after parsing (a bug in qajudge)",
            ))
        }
    };
    let benchmark = from_benchmark.then(|| gold_name.clone());
    let questions = questions(&gold, &gold_name, body.questions.as_deref())?;
    let options = options(
        &body,
        &state,
        benchmark.as_deref(),
        by,
        remaining(started, timeout_ms),
    )?;
    let request = Request {
        gold_name,
        gold,
        benchmark,
        runs,
        questions,
        options,
        plan: Plan {
            refresh_gold: body.refresh_gold,
            execute_run: body.execute_run,
        },
        explain_failures: body.explain_failures,
        audit: None,
    };
    state.worker.check(&request).map_err(request_error)?;
    let (worker, live) = (state.worker.clone(), state.live.clone());
    let work = web::block(move || {
        let report = evaluate_job(request, live, &worker, &|_, _| {});
        drop(slot);
        report
    });
    match actix_web::rt::time::timeout(remaining(started, timeout_ms), work).await {
        Ok(done) => {
            let report = done
                .map_err(internal)?
                .map_err(|e| job_error(e, timeout_ms))?;
            Ok(HttpResponse::Ok().json(report))
        }
        Err(_) => Err(too_slow(timeout_ms)),
    }
}

/// The scoring options of a call: its fields, the server's WordNet and the
/// registered benchmark's resources, the deadline at the call's time limit
/// (`remaining`: nothing runs on after a 503).
fn options(
    body: &EvaluateBody,
    state: &AppState,
    benchmark: Option<&str>,
    by: Vec<String>,
    remaining: Duration,
) -> Result<Options, ApiError> {
    let experiments = Experiment::list_from_names(&body.experiments.join(","))
        .map_err(|e| ApiError::new(ErrorCode::BadParameter, e.to_string()))?;
    let gold_markings = match body.gold_markings.as_deref() {
        None | Some("auto") => GoldMarkings::Auto,
        Some("query") => GoldMarkings::Query,
        Some(other) => {
            return Err(ApiError::new(
                ErrorCode::BadParameter,
                format!("gold_markings={other:?}; give auto or query"),
            ))
        }
    };
    let profile = profile(body.profile.as_deref())?;
    let options = Options {
        profile,
        experiments,
        bootstrap: if body.confidence {
            CONFIDENCE_RESAMPLES
        } else {
            0
        },
        by,
        explain: body.explain,
        strict_literals: body.strict_literals,
        lenient_dates: body.lenient_dates,
        max_class_size: body.max_class_size.unwrap_or(DEFAULT_MAX_CLASS_SIZE),
        gold_markings,
        lang: body.lang.clone(),
        llm: llm_judge(body, state, remaining)?,
        abstain_marker: super::common::abstain_marker(body.abstain_marker.as_deref())?,
        wordnet: state.wordnet(profile),
        deadline: crate::eval::Deadline::after(remaining),
        ..Options::default()
    };
    let benchmark = benchmark.and_then(|b| state.benchmarks.get(b));
    super::common::with_resources(options, benchmark.map(AsRef::as_ref))
}

/// The answer to an evaluation that gave no report.
fn job_error(e: JobError, timeout_ms: u64) -> ApiError {
    match e {
        // a live system that cannot be asked, or that failed every call, is
        // a failed upstream
        JobError::System { .. } | JobError::RunFailed { .. } => {
            ApiError::new(ErrorCode::SystemUnavailable, e.to_string())
        }
        JobError::Unpaired { .. } | JobError::Disjoint { .. } => {
            ApiError::new(ErrorCode::BadRun, e.to_string())
        }
        JobError::Request(e) => request_error(e),
        JobError::Index(_) => ApiError::internal(e.to_string()),
        JobError::Deadline => too_slow(timeout_ms),
    }
}

/// The answer to a request that breaks a rule between its options.
pub(super) fn request_error(e: crate::eval::job::RequestError) -> ApiError {
    use crate::eval::job::RequestError as R;
    let code = match &e {
        R::PlanWithoutGraph
        | R::GraspWithoutGraph
        | R::QueriesWithoutGraph(_)
        | R::RunQueriesWithoutGraph { .. } => ErrorCode::NoKnowledgeGraph,
        R::SameName(_) | R::NoBaseline { .. } | R::JudgeNeverAsked { .. } => ErrorCode::BadField,
        R::NoOntology | R::TrainElsewhere | R::OntologyElsewhere | R::UnknownQuestion { .. } => {
            ErrorCode::BadParameter
        }
    };
    ApiError::new(code, e.to_string())
}

/// The call's time limit, once its runs are counted: at least one, at most
/// [`MAX_RUNS`]; `timeout_ms` from 1 to [`MAX_TIMEOUT_MS`].
fn limits(body: &EvaluateBody) -> Result<u64, ApiError> {
    if body.runs.is_empty() {
        return Err(ApiError::new(
            ErrorCode::MissingField,
            "give at least one run in runs: [{\"name\": …, \"document\": …}]",
        ));
    }
    if body.runs.len() > MAX_RUNS {
        return Err(ApiError::new(
            ErrorCode::TooManyRuns,
            format!(
                "{} runs in one call; send at most {MAX_RUNS}, or submit a stored experiment",
                body.runs.len()
            ),
        ));
    }
    let timeout_ms = body.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 || timeout_ms > MAX_TIMEOUT_MS {
        return Err(ApiError::new(
            ErrorCode::BadParameter,
            format!("timeout_ms={timeout_ms}; give 1 to {MAX_TIMEOUT_MS}"),
        ));
    }
    Ok(timeout_ms)
}

/// Evaluations running now (parsing or scoring).
static EVALUATIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A place among the `max` evaluations at once (`serve --max-evaluations`),
/// or a 503 `busy` (with `Retry-After`) when every one is taken.
fn place(max: usize) -> Result<super::common::Place, ApiError> {
    super::common::Place::take(&EVALUATIONS, max, || {
        format!("{max} evaluations are running, as many as this server runs at once; try again in a moment, or submit a stored experiment (POST /api/v1/experiments)")
    })
}

/// What is left of the call's time limit.
fn remaining(started: Instant, timeout_ms: u64) -> Duration {
    Duration::from_millis(timeout_ms).saturating_sub(started.elapsed())
}

/// The answer of a call past its time limit.
fn too_slow(timeout_ms: u64) -> ApiError {
    ApiError::new(
        ErrorCode::Timeout,
        format!(
            "the evaluation took longer than timeout_ms={timeout_ms}; give a larger timeout_ms (at most {MAX_TIMEOUT_MS}) or submit it as a stored experiment (POST /api/v1/experiments)"
        ),
    )
}

/// A gold document parsed (its name and dataset), and the runs.
type Parsed = (Option<(String, Arc<Dataset>)>, Vec<RunSource>);

/// Parses the inline gold (when given) and the runs, naming each in errors,
/// once their questions are counted: a request past [`limits::MAX_QUESTIONS`]
/// (with a registered gold of `registered` questions) is a 413 before any of
/// them is read.
fn parse_documents(
    gold: Option<Document>,
    runs: &[Document],
    registered: Option<usize>,
) -> Result<Parsed, ApiError> {
    let gold_questions = match &gold {
        Some(doc) => {
            let name = doc.name.as_deref().unwrap_or("gold");
            limits::bound(text_of(doc, "gold", name)?.0, name)
        }
        None => registered.unwrap_or(0),
    };
    let mut tally = Tally::new(gold_questions);
    for (i, doc) in runs.iter().enumerate() {
        let name = run_name(doc, i + 1);
        let shown = doc.name.as_deref().unwrap_or(&name);
        tally.document(limits::bound(text_of(doc, "run", shown)?.0, shown));
    }
    tally.check()?;
    let gold = match gold {
        Some(doc) => {
            let dataset = parse(&doc, "gold", "gold")?;
            if dataset.questions.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::BadGold,
                    "the gold document holds no question",
                ));
            }
            Some((doc.name.unwrap_or_else(|| "gold".into()), Arc::new(dataset)))
        }
        None => None,
    };
    let mut sources = Vec::with_capacity(runs.len());
    for (i, doc) in runs.iter().enumerate() {
        let name = run_name(doc, i + 1);
        let dataset = parse(doc, "run", &name)?;
        sources.push(RunSource::File {
            source: name.clone(),
            name,
            dataset: Box::new(dataset),
        });
    }
    Ok((gold, sources))
}

/// The body of `POST /api/v1/evaluate` (a newtype so that the route's signature
/// does not expose the private fields).
#[derive(Deserialize)]
#[serde(transparent)]
pub struct EvaluateBodyJson(EvaluateBody);
