//! Stored experiments and the benchmarks they score against: the registered
//! benchmarks (`GET /api/v1/benchmarks`), the list of experiments, a submission
//! (`POST /api/v1/experiments`, a multipart form of a gold benchmark or a
//! registered one, run files and live-system URLs, stored private and queued
//! for the worker), one experiment with its report, and its publication. The
//! store and the queue are [`super::experiment_store`]'s; who may see what is
//! [`super::access`]'s.

use std::sync::Arc;

use actix_multipart::Multipart;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Serialize;
use utoipa::OpenApi;

use super::common::{features, profile, questions, ApiResult, CONFIDENCE_RESAMPLES, MAX_RUNS};
use super::error::{internal, store_error, ErrorBody, ErrorCode};
use super::experiment_store::{ExperimentError, ExperimentStatus, Record};
use super::job::Submitted;
use super::{access, ApiError, AppState};
use crate::eval::job::{Plan, Request, RunSource};
use crate::eval::{Experiment, Options, DEFAULT_MAX_CLASS_SIZE};
use crate::live::{check_url, LiveOptions, Protocol};
use crate::model::Dataset;

/// The paths of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(
    benchmarks,
    experiments_list,
    experiments_post,
    experiment_get,
    experiment_publish
))]
pub struct Api;

/// A registered benchmark.
#[derive(Serialize, utoipa::ToSchema)]
pub struct BenchmarkInfo {
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
pub async fn benchmarks(state: web::Data<AppState>) -> ApiResult {
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
pub struct ExperimentSummary {
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
pub async fn experiments_list(state: web::Data<AppState>, req: HttpRequest) -> ApiResult {
    let admin = access::Credentials::of(&state, &req)?.is_admin();
    let mut list = state.store.list().map_err(internal)?;
    list.retain(|r| r.published || admin);
    list.reverse();
    Ok(HttpResponse::Ok().json(list.iter().map(summary).collect::<Vec<_>>()))
}

/// A stored experiment with its report (a private one needs its token, in
/// `X-Experiment-Token` or `Authorization: Bearer`; never in the URL).
#[utoipa::path(get, path = "/api/v1/experiments/{id}", tag = "experiments",
    params(("id" = String, Path, description = "the experiment's id, YYYYMMDDNNNN"),
        ("X-Experiment-Token" = Option<String>, Header, description = "the experiment's secret token (or Authorization: Bearer TOKEN)")),
    responses((status = 200, description = "the experiment", body = Record),
        (status = 400, description = "a token in the query string (token_in_query): send it in a header", body = ErrorBody),
        (status = 404, description = "no such experiment, or a private one without its token", body = ErrorBody)))]
pub async fn experiment_get(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let record = access::visible_record(&state, &req, &id)?;
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
pub async fn experiment_publish(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> ApiResult {
    let id = id.into_inner();
    let credentials = access::Credentials::of(&state, &req)?;
    let record = access::visible_with(&state, &credentials, &id)?;
    if !credentials.can_publish(&record) {
        // published already and asked without its token: nothing to change
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!("experiment {id} is public; only its token or the server's API token may publish it"),
        ));
    }
    // the gate learns of it on the blocking thread, which finishes even when
    // the client goes away before the answer
    let shared = state.clone();
    let record = web::block(move || {
        let published = shared.store.publish(&id)?;
        if let Some(r) = &published {
            shared.gate.admit(r);
        }
        Ok::<_, ExperimentError>(published)
    })
    .await
    .map_err(internal)?
    .map_err(store_error)?
    .ok_or_else(|| access::no_experiment(&record.id))?;
    Ok(HttpResponse::Ok().json(summary(&record)))
}

/// The fields of an experiment form, read from a multipart body.
#[derive(Default, utoipa::ToSchema)]
pub struct Form {
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
    /// A run's name in the report (repeatable, like the CLI's `--name`): the
    /// names apply in order to the run files, then to the system URLs; an
    /// empty one keeps the default (the file's stem, the URL).
    #[schema(rename = "name")]
    names: Vec<String>,
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
    /// Add 95 % bootstrap confidence intervals over questions (1000
    /// resamples, fixed seed; `aggregate.confidence`, docs/report.md), like the CLI's
    /// `--confidence`.
    confidence: bool,
    /// Split every aggregate by a question feature (repeatable, like the
    /// CLI's `--by`; docs/scoring.md, Breakdowns): answertype, form, modifier, triples, aggregation,
    /// onlydbo, hybrid, tags, qword, language.
    by: Vec<String>,
    /// Score only these questions of the gold: ids, one per line (repeatable;
    /// a sample's ids, as the CLI's `--questions` file); the runs' answers to
    /// the others are left out, and an id the gold does not have is a 400
    /// naming it.
    #[schema(value_type = Option<String>)]
    questions: Vec<String>,
    /// Add each run's failure explanation (`runs[].failures`), as the CLI's
    /// `--explain-failures` (`true`/`false`).
    explain_failures: bool,
    /// A run answer that means "I do not know", like the CLI's
    /// `--abstain-marker` (docs/scoring.md, Abstention and truthfulness).
    abstain_marker: Option<String>,
}

/// What `POST /experiments` answers.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Created {
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

/// Reads an experiment form from a multipart body: a 413 once its fields pass
/// `limit` bytes in all, a 400 `bad_field` for a field it does not know.
async fn read_form(mut payload: Multipart, limit: usize) -> Result<Form, ApiError> {
    let mut form = Form::default();
    let mut total = 0usize;
    while let Some(field) = payload.next().await {
        let mut field = field.map_err(|e| {
            ApiError::new(
                ErrorCode::BadMultipart,
                format!("the form is malformed: {e}"),
            )
        })?;
        let name = field.name().unwrap_or_default().to_string();
        let filename = field
            .content_disposition()
            .and_then(|c| c.get_filename())
            .map(str::to_string);
        let mut bytes = Vec::new();
        while let Some(chunk) = field.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::new(ErrorCode::BadMultipart, format!("field {name}: {e}"))
            })?;
            total += chunk.len();
            if total > limit {
                return Err(ApiError::too_large(limit));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = || String::from_utf8_lossy(&bytes).trim().to_string();
        match name.as_str() {
            "gold" => form.gold = Some((filename.unwrap_or_else(|| "gold".into()), bytes)),
            "run" | "system_url" if form.runs.len() + form.systems.len() >= MAX_RUNS => {
                return Err(ApiError::new(
                    ErrorCode::TooManyRuns,
                    format!(
                        "more than {MAX_RUNS} runs (run and system_url) in one experiment; submit at most {MAX_RUNS}, or several experiments"
                    ),
                ))
            }
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
            "name" => {
                let n = text();
                if n.chars().count() > MAX_NAME_CHARS || n.chars().any(char::is_control) {
                    return Err(ApiError::new(
                        ErrorCode::BadField,
                        format!(
                            "the run name {:?} is longer than {MAX_NAME_CHARS} characters or holds a control character (a line break, a tab); give a short name on one line",
                            n.chars().take(80).collect::<String>()
                        ),
                    ));
                }
                form.names.push(n);
            }
            "confidence" => form.confidence = flag(&name, &text())?,
            "by" => {
                let t = text();
                if !t.is_empty() {
                    form.by.push(t);
                }
            }
            "questions" => form.questions.extend(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            ),
            "explain_failures" => form.explain_failures = flag(&name, &text())?,
            "profile" => form.profile = Some(text()),
            "experiments" => form.experiments = Some(text()),
            "lang" => form.lang = Some(text()).filter(|t| !t.is_empty()),
            "abstain_marker" => form.abstain_marker = Some(text()),
            "protocol" => form.protocol = Some(text()).filter(|t| !t.is_empty()),
            "dataset" => form.dataset = Some(text()).filter(|t| !t.is_empty()),
            "refresh_gold" => form.refresh_gold = flag(&name, &text())?,
            "execute_run" => form.execute_run = flag(&name, &text())?,
            "publish" => form.publish = flag(&name, &text())?,
            other => {
                return Err(ApiError::new(
                    ErrorCode::BadField,
                    format!("unknown form field {other:?}; use gold, benchmark, run, system_url, name, protocol, dataset, profile, experiments, lang, refresh_gold, execute_run, confidence, by, questions, explain_failures, abstain_marker, publish"),
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
        other => Err(ApiError::new(
            ErrorCode::BadField,
            format!("field {name} is {other:?}; give true or false"),
        )),
    }
}

/// The longest run name the form takes, in characters.
const MAX_NAME_CHARS: usize = 200;

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
pub async fn experiments_post(
    state: web::Data<AppState>,
    req: HttpRequest,
    payload: Multipart,
) -> ApiResult {
    access::Credentials::of(&state, &req)?.require_api_token(&state)?;
    let form = read_form(payload, state.max_body_bytes).await?;
    let token = super::access::new_token()?;
    let token_sha256 = crate::digest::sha256_hex(token.as_bytes());
    let shared = state.clone();
    // the form's documents are parsed and checked, and the experiment stored,
    // on the blocking pool, which finishes even when the client goes away
    let record = web::block(move || {
        let (record, job) = submission(&shared, &form, token_sha256)?;
        let record = shared.store.submit(record, job).map_err(store_error)?;
        shared.gate.admit(&record);
        Ok::<_, ApiError>(record)
    })
    .await
    .map_err(internal)??;
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

/// The stored record and the queued request of a submitted form: its gold,
/// runs, live-call options and scoring options, checked as every door
/// checks a request ([`Request::check`]).
fn submission(
    state: &AppState,
    form: &Form,
    token_sha256: String,
) -> Result<(Record, Submitted), ApiError> {
    tally_of(state, form).check()?;
    let (gold_name, gold, gold_sha256) = gold_of(state, form)?;
    if form.runs.is_empty() && form.systems.is_empty() {
        return Err(ApiError::new(
            ErrorCode::MissingField,
            "give at least one run file (field run) or QA-system URL (field system_url)",
        ));
    }
    let given = form.runs.len() + form.systems.len();
    if form.names.len() > given {
        return Err(ApiError::new(
            ErrorCode::BadField,
            format!(
                "{} name fields for {given} runs (run and system_url); give at most one name per run, in the order of the run files, then the system URLs",
                form.names.len()
            ),
        ));
    }
    let questions = questions(
        &gold,
        &gold_name,
        (!form.questions.is_empty()).then_some(form.questions.as_slice()),
    )?;
    let options = options_of(state, form)?;
    let live = live_of(state, form, &gold, options.profile)?;
    let (runs, names) = runs_of(form, &live)?;
    let record = Record {
        id: String::new(),
        status: ExperimentStatus::default(),
        created: String::new(),
        finished: None,
        profile: options.profile.name().to_string(),
        experiments: options
            .experiments
            .iter()
            .map(|e| e.name().to_string())
            .collect(),
        lang: live.lang.clone(),
        protocol: live.protocol.name().to_string(),
        gold: gold_name.clone(),
        runs: names,
        progress: None,
        error: None,
        report: None,
        gold_sha256: Some(gold_sha256),
        token_sha256: Some(token_sha256),
        published: form.publish,
    };
    let request = Request {
        benchmark: form.benchmark.clone(),
        gold_name,
        gold,
        runs,
        questions,
        options,
        plan: Plan {
            refresh_gold: form.refresh_gold,
            execute_run: form.execute_run,
        },
        explain_failures: form.explain_failures,
        audit: None,
    };
    state
        .worker
        .check(&request)
        .map_err(super::evaluate::request_error)?;
    let job = Submitted {
        id: String::new(),
        request,
        live,
    };
    Ok((record, job))
}

/// The questions of a form's documents, counted before any is read
/// (docs/http-api.md, Server limits).
fn tally_of(state: &AppState, form: &Form) -> super::limits::Tally {
    use super::limits::{bound, Tally};
    let gold = match (&form.gold, &form.benchmark) {
        (Some((name, bytes)), _) => bound(bytes, name),
        (None, Some(b)) => state
            .benchmarks
            .get(b)
            .map_or(0, |b| b.dataset.questions.len()),
        (None, None) => 0,
    };
    let mut tally = Tally::new(gold);
    for (name, bytes) in &form.runs {
        tally.document(bound(bytes, name));
    }
    tally.systems(form.systems.len());
    tally
}

/// The form's gold: its uploaded file (parsed) or a registered benchmark,
/// with its name and the SHA-256 of its bytes.
fn gold_of(state: &AppState, form: &Form) -> Result<(String, Arc<Dataset>, String), ApiError> {
    match (&form.gold, &form.benchmark) {
        (Some(_), Some(_)) => Err(ApiError::new(
            ErrorCode::BadField,
            "give either a gold file or a registered benchmark, not both",
        )),
        (Some((name, bytes)), None) => {
            let dataset = crate::qald::parse(bytes, name).map_err(|e| {
                ApiError::new(
                    ErrorCode::BadGold,
                    format!("the gold file is not a benchmark: {e}"),
                )
            })?;
            if dataset.questions.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::BadGold,
                    format!("the gold file {name} holds no question"),
                ));
            }
            Ok((
                name.clone(),
                Arc::new(dataset),
                crate::digest::sha256_hex(bytes),
            ))
        }
        (None, Some(name)) => match state.benchmarks.get(name) {
            Some(b) => Ok((name.clone(), Arc::clone(&b.dataset), b.sha256.clone())),
            None => Err(ApiError::not_found(format!(
                "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones"
            ))),
        },
        (None, None) => Err(ApiError::new(
            ErrorCode::MissingField,
            "give a gold file (field gold) or a registered benchmark (field benchmark)",
        )),
    }
}

/// The form's scoring options: its profile, experiments, features and
/// flags, the server's WordNet and the registered benchmark's resources.
fn options_of(state: &AppState, form: &Form) -> Result<Options, ApiError> {
    let profile = profile(form.profile.as_deref())?;
    let experiments = Experiment::list_from_names(form.experiments.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::new(ErrorCode::BadParameter, e.to_string()))?;
    let options = Options {
        profile,
        experiments,
        bootstrap: if form.confidence {
            CONFIDENCE_RESAMPLES
        } else {
            0
        },
        by: features(&form.by)?,
        explain: true,
        max_class_size: DEFAULT_MAX_CLASS_SIZE,
        abstain_marker: super::common::abstain_marker(form.abstain_marker.as_deref())?,
        wordnet: state.wordnet(profile),
        ..Options::default()
    };
    let benchmark = form
        .benchmark
        .as_deref()
        .and_then(|b| state.benchmarks.get(b));
    super::common::with_resources(options, benchmark.map(AsRef::as_ref))
}

/// How the form's live systems are called: the server's options with the
/// form's language, protocol (by default the benchmark's or the profile's)
/// and dataset id.
fn live_of(
    state: &AppState,
    form: &Form,
    gold: &Dataset,
    profile: crate::eval::Profile,
) -> Result<LiveOptions, ApiError> {
    let mut live = state.live.clone();
    if let Some(lang) = &form.lang {
        live.lang = lang.clone();
    }
    match &form.protocol {
        Some(name) => {
            live.protocol = Protocol::from_name(name).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::BadParameter,
                    format!("unknown protocol {name:?}; use gerbil or text2sparql"),
                )
            })?;
        }
        // without one, a TEXT2SPARQL benchmark or profile asks in its protocol
        None if live.protocol == Protocol::Gerbil => {
            live.protocol = crate::live::protocol_for(gold, profile);
        }
        None => {}
    }
    if form.dataset.is_some() {
        live.dataset.clone_from(&form.dataset);
    }
    Ok(live)
}

/// The form's runs (its files parsed, then its system URLs checked), each
/// named by its `name` field or its file's stem (a system by its host), and
/// the record's names of them: the same names, as the report and the
/// published list show them (not three `ck25_answers.json`).
fn runs_of(form: &Form, live: &LiveOptions) -> Result<(Vec<RunSource>, Vec<String>), ApiError> {
    let mut runs = Vec::new();
    let mut names = Vec::new();
    // the name given for the i-th run (files, then systems), if any
    let named = |i: usize| form.names.get(i).filter(|n| !n.is_empty()).cloned();
    for (i, (name, bytes)) in form.runs.iter().enumerate() {
        let dataset = crate::qald::parse(bytes, name).map_err(|e| {
            ApiError::new(
                ErrorCode::BadRun,
                format!("the run file is not readable: {e}"),
            )
        })?;
        let given = named(i).unwrap_or_else(|| stem(name));
        names.push(given.clone());
        runs.push(RunSource::File {
            name: given,
            source: name.clone(),
            dataset: Box::new(dataset),
        });
    }
    for (i, url) in form.systems.iter().enumerate() {
        check_url(url, live).map_err(|e| ApiError::new(ErrorCode::BadSystemUrl, e.to_string()))?;
        let given = named(form.runs.len() + i)
            .unwrap_or_else(|| crate::live::system_name(url, &form.systems));
        names.push(given.clone());
        runs.push(RunSource::System {
            name: given,
            url: url.clone(),
            answers_with_query: live.protocol == Protocol::Text2sparql,
        });
    }
    Ok((runs, names))
}
