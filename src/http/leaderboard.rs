//! The leaderboard of a registered benchmark (`GET
//! /api/v1/benchmarks/{name}/leaderboard`): one row per run of each published,
//! finished experiment whose gold is that benchmark's file (the same SHA-256:
//! the registered benchmark, or the same file uploaded), with the headline
//! figures of its profile (`set_F`, `nDCG`, `set_F+nDCG` under
//! `text2sparql`; `Profile::headline`) and the QA measures every profile
//! has (macro F1, Macro F1 QALD, micro F1; docs/scoring.md, Aggregates),
//! sorted by default by the profile's first headline figure. Private experiments never appear, whoever asks. The
//! work is bounded: the route reads at most [`MAX_EXPERIMENTS`] records, those
//! of the newest published experiments of the server (which ones are published
//! is known from memory, [`super::access::Gate`]), and says when there were
//! more.

use std::cmp::Ordering;

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::OpenApi;

use super::common::ApiResult;
use super::error::{internal, ErrorBody, ErrorCode};
use super::experiment_store::{ExperimentStatus, Record};
use super::{ApiError, AppState};

/// The path of this module in the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(leaderboard))]
pub struct Api;

/// The most published experiments one leaderboard reads (the newest).
pub const MAX_EXPERIMENTS: usize = 1000;

/// Leaderboards computed at once: each reads and decodes up to
/// [`MAX_EXPERIMENTS`] records, so more callers wait for a 503 `busy`.
pub const MAX_AT_ONCE: usize = 2;

/// Leaderboards being computed now.
static COMPUTING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A place among the leaderboards computed at once, given back on drop.
struct Slot;

impl Slot {
    /// A slot, or `None` when [`MAX_AT_ONCE`] are taken.
    fn take() -> Option<Slot> {
        use std::sync::atomic::Ordering;
        let taken = COMPUTING.fetch_add(1, Ordering::SeqCst);
        if taken >= MAX_AT_ONCE {
            COMPUTING.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Slot)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        COMPUTING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// What a leaderboard can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    /// The first headline figure of each row's profile (`set_F` under
    /// `text2sparql`, Macro F1 QALD under the QALD profiles, the official
    /// script's first figure under a benchmark's), best first.
    Headline,
    /// Macro F1, best first.
    MacroF1,
    /// Macro F1 QALD, best first.
    MacroF1Qald,
    /// Micro F1, best first.
    MicroF1,
    /// The experiment's submission, newest first.
    Created,
}

impl Sort {
    /// Every order, by the name `?sort=` takes.
    const ALL: [(&'static str, Sort); 5] = [
        ("headline", Sort::Headline),
        ("macro_f1", Sort::MacroF1),
        ("macro_f1_qald", Sort::MacroF1Qald),
        ("micro_f1", Sort::MicroF1),
        ("created", Sort::Created),
    ];

    /// The order `?sort=` names (none: the headline), else a 400 naming it.
    fn parse(name: Option<&str>) -> Result<Sort, ApiError> {
        let name = name.unwrap_or("headline");
        Sort::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                ApiError::new(
                    ErrorCode::BadParameter,
                    format!(
                        "sort={name:?} is not a leaderboard column; use one of headline, macro_f1, macro_f1_qald, micro_f1, created"
                    ),
                )
            })
    }

    /// Its name.
    fn name(self) -> &'static str {
        Sort::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("headline", |(n, _)| n)
    }
}

/// The parameters of a leaderboard.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// The column to sort by: `headline` (default: each row's profile's first
    /// headline figure), `macro_f1`, `macro_f1_qald` or `micro_f1` (best
    /// first, runs without a QA score last), or `created` (newest first).
    /// Rows of different profiles are not comparable: give `profile=` too.
    sort: Option<String>,
    /// Only the experiments scored under this profile (`judge`, `gerbil`,
    /// `text2sparql`, …): runs of different profiles are not comparable.
    profile: Option<String>,
    /// Only the experiments whose questions were in this language (`en`, …).
    lang: Option<String>,
}

/// One run of a published experiment.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct LeaderboardRow {
    /// The experiment's stable id.
    experiment: String,
    /// The run's name in the report.
    run: String,
    /// The experiment's profile.
    profile: String,
    /// The language of the experiment's questions.
    lang: String,
    /// The questions the run was scored on (fewer than the benchmark's when
    /// the experiment chose some, e.g. a sample), when the report says.
    questions: Option<u64>,
    /// When the experiment was submitted (UTC, RFC 3339).
    created: String,
    /// The experiment's page.
    url: String,
    /// The figures the experiment's profile reads first, in order, under the
    /// names its tool prints (`set_F`, `nDCG`, `set_F+nDCG` under
    /// `text2sparql`; Macro F1 QALD, macro F1, micro F1 under the QALD
    /// profiles; the official script's under a benchmark's profile).
    headline: Vec<HeadlineFigure>,
    /// Macro F1 of QA (`null` when the run has no QA score).
    macro_f1: Option<f64>,
    /// Macro F1 QALD of QA.
    macro_f1_qald: Option<f64>,
    /// Micro F1 of QA (`null` also under the `mqald` profile, which does not
    /// report it).
    micro_f1: Option<f64>,
    /// The run's mean truthfulness (docs/scoring.md, Abstention and
    /// truthfulness); absent when the report has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    truthfulness: Option<f64>,
    /// Questions the run abstained on; absent when the report does not count them.
    #[serde(skip_serializing_if = "Option::is_none")]
    abstained: Option<u64>,
    /// The run's mean latency in ms (docs/scoring.md, Cost and latency);
    /// absent when no question gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    latency_ms: Option<f64>,
    /// The run's total cost; absent when no question gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    /// The run's total tokens, prompt and completion; absent when no
    /// question gives any.
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<f64>,
}

/// One headline figure of a row.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct HeadlineFigure {
    /// Its name, as the profile's tool prints it.
    name: String,
    /// Its value (`null`: not computed for this run).
    value: Option<f64>,
}

/// A benchmark's leaderboard.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Leaderboard {
    /// The registered benchmark.
    benchmark: String,
    /// The column the rows are sorted by.
    sort: &'static str,
    /// The published experiments read: the newest, at most `limit`.
    read: usize,
    /// The most published experiments read ([`MAX_EXPERIMENTS`]).
    limit: usize,
    /// There are more published experiments than `limit`: older ones are
    /// left out.
    truncated: bool,
    /// One row per run of each finished experiment on the benchmark.
    rows: Vec<LeaderboardRow>,
}

/// The rows of a record: one per run of a finished, published experiment
/// whose gold has the SHA-256 `sha256`; none for any other.
fn rows_of(record: &Record, sha256: &str) -> Vec<LeaderboardRow> {
    let on_benchmark = record.gold_sha256.as_deref() == Some(sha256);
    if !record.published || record.status != ExperimentStatus::Done || !on_benchmark {
        return Vec::new();
    }
    let Some(runs) = record.report.as_ref().and_then(|r| r["runs"].as_array()) else {
        return Vec::new();
    };
    runs.iter()
        .map(|run| {
            let qa = &run["experiments"]["qa"]["aggregate"];
            let f1 = |measure: &str| qa[measure]["f1"].as_f64();
            let headline = crate::eval::Profile::parse(&record.profile)
                .map(|p| p.headline_json(qa))
                .unwrap_or_default()
                .into_iter()
                .map(|(name, value)| HeadlineFigure { name, value })
                .collect();
            LeaderboardRow {
                experiment: record.id.clone(),
                run: run["name"].as_str().unwrap_or_default().to_string(),
                profile: record.profile.clone(),
                lang: record.lang.clone(),
                questions: qa["questions"].as_u64(),
                created: record.created.clone(),
                url: format!("/experiments/{}", record.id),
                headline,
                macro_f1: f1("macro"),
                macro_f1_qald: f1("macro_qald"),
                micro_f1: f1("micro"),
                truthfulness: qa["truthfulness"].as_f64(),
                abstained: qa["abstained"].as_u64(),
                latency_ms: qa["usage"]["latency_ms"]["mean"].as_f64(),
                cost: qa["usage"]["cost"]["total"].as_f64(),
                tokens: tokens_total(&qa["usage"]["tokens"]),
            }
        })
        .collect()
}

/// The total of a run's prompt and completion tokens (either alone when the
/// other is absent), `None` when both are.
fn tokens_total(tokens: &serde_json::Value) -> Option<f64> {
    let prompt = tokens["prompt"]["total"].as_f64();
    let completion = tokens["completion"]["total"].as_f64();
    match (prompt, completion) {
        (None, None) => None,
        (p, c) => Some(p.unwrap_or(0.0) + c.unwrap_or(0.0)),
    }
}

/// True when a record is of the `profile` and `lang` asked for (none: any).
fn wanted(record: &Record, profile: Option<&str>, lang: Option<&str>) -> bool {
    profile.is_none_or(|p| p == record.profile) && lang.is_none_or(|l| l == record.lang)
}

/// Sorts rows: a measure best first (no score last), `created` newest first;
/// ties newest experiment first, then in the report's order of runs.
fn sort_rows(rows: &mut [LeaderboardRow], sort: Sort) {
    let measure = |r: &LeaderboardRow| match sort {
        Sort::Headline => r.headline.first().and_then(|f| f.value),
        Sort::MacroF1 => r.macro_f1,
        Sort::MacroF1Qald => r.macro_f1_qald,
        Sort::MicroF1 => r.micro_f1,
        Sort::Created => None,
    };
    // stable: rows come newest experiment first, runs in report order
    rows.sort_by(|a, b| match sort {
        Sort::Created => b.created.cmp(&a.created),
        _ => match (measure(a), measure(b)) {
            (Some(x), Some(y)) => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        },
    });
}

/// The leaderboard of a registered benchmark from its published experiments.
#[utoipa::path(get, path = "/api/v1/benchmarks/{name}/leaderboard", tag = "experiments",
    params(("name" = String, Path, description = "a registered benchmark's name"), LeaderboardQuery),
    responses((status = 200, description = "one row per run of each published, finished experiment on the benchmark (at most the 1000 newest published experiments are read)", body = Leaderboard),
        (status = 400, description = "an unknown sort column or profile (bad_parameter)", body = ErrorBody),
        (status = 404, description = "no such benchmark", body = ErrorBody)))]
pub async fn leaderboard(
    state: web::Data<AppState>,
    name: web::Path<String>,
    q: web::Query<LeaderboardQuery>,
) -> ApiResult {
    let name = name.into_inner();
    let sort = Sort::parse(q.sort.as_deref())?;
    // a profile the server does not know is a 400 naming it, not an empty board
    let profile = match q.profile.as_deref() {
        Some(p) if !p.is_empty() => Some(super::common::profile(Some(p))?.name().to_string()),
        _ => None,
    };
    let lang = q.lang.clone().filter(|l| !l.is_empty());
    let Some(benchmark) = state.benchmarks.get(&name) else {
        return Err(ApiError::not_found(format!(
            "no benchmark {name:?}; GET /api/v1/benchmarks lists the registered ones"
        )));
    };
    let sha256 = benchmark.sha256.clone();
    let shared = state.clone();
    let Some(slot) = Slot::take() else {
        return Err(ApiError::new(
            super::error::ErrorCode::Busy,
            format!("{MAX_AT_ONCE} leaderboards are being computed; try again in a moment"),
        ));
    };
    // records are read and decoded on the blocking pool, one at a time; one
    // that cannot be read is left out rather than failing the whole board
    let (ids, total, rows) = web::block(move || {
        let _slot = slot;
        let (ids, total) = shared.gate.published_newest(MAX_EXPERIMENTS);
        let mut rows = Vec::new();
        for id in &ids {
            if let Ok(Some(record)) = shared.store.get(id) {
                if wanted(&record, profile.as_deref(), lang.as_deref()) {
                    rows.extend(rows_of(&record, &sha256));
                }
            }
        }
        (ids, total, rows)
    })
    .await
    .map_err(internal)?;
    let mut rows = rows;
    sort_rows(&mut rows, sort);
    Ok(HttpResponse::Ok().json(Leaderboard {
        benchmark: name,
        sort: sort.name(),
        read: ids.len(),
        limit: MAX_EXPERIMENTS,
        truncated: total > ids.len(),
        rows,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_board_keeps_the_profile_and_language_asked_for() {
        let mut r = record("202601010001", "sha", true, [Some(0.5), None]);
        r.profile = "gerbil".into();
        r.lang = "de".into();
        assert!(wanted(&r, None, None));
        assert!(wanted(&r, Some("gerbil"), Some("de")));
        assert!(!wanted(&r, Some("judge"), None));
        assert!(!wanted(&r, None, Some("en")));
        let rows = rows_of(&r, "sha");
        assert_eq!((rows[0].lang.as_str(), rows[0].questions), ("de", None));
    }

    /// A finished record of two runs on the gold `sha`.
    fn record(id: &str, sha: &str, published: bool, scores: [Option<f64>; 2]) -> Record {
        let run = |name: &str, f1: Option<f64>| match f1 {
            Some(f) => json!({"name": name, "experiments": {"qa": {"aggregate": {
                "macro": {"f1": f}, "macro_qald": {"f1": f / 2.0}, "micro": null}}}}),
            None => json!({"name": name, "experiments": {"qa": null}}),
        };
        Record {
            id: id.into(),
            status: ExperimentStatus::Done,
            created: format!("2026-01-0{}T00:00:00Z", &id[11..]),
            finished: None,
            profile: "judge".into(),
            experiments: Vec::new(),
            lang: "en".into(),
            protocol: "gerbil".into(),
            gold: "demo".into(),
            runs: vec!["a".into(), "b".into()],
            progress: None,
            error: None,
            report: Some(json!({"runs": [run("a", scores[0]), run("b", scores[1])]})),
            gold_sha256: Some(sha.into()),
            token_sha256: None,
            published,
        }
    }

    #[test]
    fn rows_of_published_finished_experiments_on_the_benchmark_only() {
        let on = record("202601010001", "s", true, [Some(0.5), None]);
        let rows = rows_of(&on, "s");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].run, "a");
        assert_eq!(rows[0].macro_f1, Some(0.5));
        assert_eq!(rows[0].macro_f1_qald, Some(0.25));
        assert_eq!(rows[0].micro_f1, None);
        assert_eq!(rows[0].url, "/experiments/202601010001");
        // the judge profile's headline: Macro F1 QALD first
        assert_eq!(
            rows[0].headline.first(),
            Some(&HeadlineFigure {
                name: "Macro F1 QALD".into(),
                value: Some(0.25)
            })
        );
        assert_eq!(rows[1].macro_f1, None);
        assert!(rows_of(&on, "other").is_empty(), "another benchmark");
        let private = record("202601010002", "s", false, [Some(0.5), None]);
        assert!(rows_of(&private, "s").is_empty(), "private");
        let mut failed = on.clone();
        failed.status = ExperimentStatus::Failed;
        assert!(rows_of(&failed, "s").is_empty(), "failed");
    }

    #[test]
    fn sorted_best_first_with_no_score_last() {
        let mut rows = rows_of(&record("202601010002", "s", true, [None, Some(0.2)]), "s");
        rows.extend(rows_of(
            &record("202601010001", "s", true, [Some(0.9), Some(0.2)]),
            "s",
        ));
        sort_rows(&mut rows, Sort::MacroF1);
        let order: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.experiment.as_str(), r.run.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                ("202601010001", "a"),
                ("202601010002", "b"),
                ("202601010001", "b"),
                ("202601010002", "a")
            ]
        );
        sort_rows(&mut rows, Sort::Created);
        assert_eq!(rows[0].experiment, "202601010002");
        assert_eq!(Sort::parse(None), Ok(Sort::Headline));
        assert_eq!(Sort::parse(Some("micro_f1")), Ok(Sort::MicroF1));
        let e = Sort::parse(Some("f1")).expect_err("unknown");
        assert_eq!(e.code, ErrorCode::BadParameter);
        assert!(e.message.contains("\"f1\""), "{}", e.message);
    }
}
