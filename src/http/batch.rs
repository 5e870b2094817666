//! The batch routes, for tools that look up many things at once: `POST /match`
//! over many questions, `POST /labels` and `POST /types` for many inputs, and
//! `POST /canonical` (canonical forms, no index needed). Each has a documented
//! limit per call, enforced with a JSON error before any work is done.

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::openapi::ErrorBody;
use super::routes::{answers, index, internal, profile, MAX_BATCH};
use super::{ApiError, AppState};
use crate::eval::{match_lists, MatchReport, Options};
use crate::index::{Equivalence, LabelHit};
use crate::terms::canonical::canonical_iri;

/// The most questions one `POST /match` may hold.
pub const MAX_MATCH_QUESTIONS: usize = 10_000;
/// The most label queries one `POST /labels` may hold (fuzzy queries walk the FST).
pub const MAX_LABEL_QUERIES: usize = 1_000;

type ApiResult = Result<HttpResponse, ApiError>;

fn too_many(what: &str, n: usize, max: usize) -> ApiError {
    ApiError::bad(
        "batch_too_large",
        format!("{n} {what} in one batch; send at most {max}"),
    )
}

/// One question of a batch match.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchQuestion {
    /// The question's id (any JSON value; echoed back).
    id: Value,
    /// The gold answers.
    #[schema(value_type = Vec<AnswerValue>)]
    gold: Vec<Value>,
    /// The run's answers.
    #[schema(value_type = Vec<AnswerValue>)]
    run: Vec<Value>,
}

/// One answer: a SPARQL-results term (`{"type": "uri"|"literal"|"bnode",
/// "value", "datatype"?, "xml:lang"?}`), a boolean, or an array of terms
/// (alternative forms of one answer).
#[derive(utoipa::ToSchema)]
#[allow(dead_code, reason = "a schema only: answers are read as JSON values")]
pub struct AnswerValue(Value);

/// The body of `POST /match`: one question's answer lists, or many questions.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MatchBody {
    /// One question's gold answers (with `run`).
    #[schema(value_type = Option<Vec<AnswerValue>>)]
    gold: Option<Vec<Value>>,
    /// One question's run answers (with `gold`).
    #[schema(value_type = Option<Vec<AnswerValue>>)]
    run: Option<Vec<Value>>,
    /// Many questions (at most 10,000), instead of `gold` and `run`.
    questions: Option<Vec<MatchQuestion>>,
    /// The profile (default `judge`).
    profile: Option<String>,
    /// `--strict-literals`.
    #[serde(default)]
    strict_literals: bool,
    /// `--lenient-dates`.
    #[serde(default)]
    lenient_dates: bool,
}

/// One question's match in a batch.
#[derive(Serialize, utoipa::ToSchema)]
pub struct QuestionMatch {
    /// The question's id, as sent.
    id: Value,
    /// The match.
    #[serde(flatten)]
    report: MatchReport,
}

/// The matches of a batch, in order.
#[derive(Serialize, utoipa::ToSchema)]
pub struct QuestionMatches {
    /// One per question.
    questions: Vec<QuestionMatch>,
}

/// The answer of `POST /match`: one report, or one per question.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
#[allow(dead_code, reason = "a schema only: the handler answers either shape")]
pub enum MatchAnswer {
    /// For `{gold, run}`.
    One(MatchReport),
    /// For `{questions}`.
    Many(QuestionMatches),
}

/// `POST /match`: `{gold, run}` gives one report, `{questions: [{id, gold, run}]}`
/// one per question, in order.
#[utoipa::path(post, path = "/api/v1/match", tag = "matching", request_body = MatchBody,
    responses((status = 200, description = "the match of one question, or of each", body = MatchAnswer),
        (status = 400, description = "a bad answer, neither shape, or more than 10,000 questions (batch_too_large)", body = ErrorBody),
        (status = 413, description = "body too large", body = ErrorBody)))]
pub async fn match_route(state: web::Data<AppState>, body: web::Json<MatchBody>) -> ApiResult {
    let body = body.into_inner();
    let options = Options {
        profile: profile(body.profile.as_deref())?,
        strict_literals: body.strict_literals,
        lenient_dates: body.lenient_dates,
        ..Options::default()
    };
    match (body.gold, body.run, body.questions) {
        (Some(gold), Some(run), None) => {
            let gold = answers("gold", &gold)?;
            let run = answers("run", &run)?;
            let state = state.clone();
            let report = web::block(move || {
                let index = state.index.as_deref().map(|i| i as &dyn Equivalence);
                match_lists(&gold, &run, &options, index)
            })
            .await
            .map_err(internal)?;
            Ok(HttpResponse::Ok().json(report))
        }
        (None, None, Some(questions)) => {
            if questions.len() > MAX_MATCH_QUESTIONS {
                return Err(too_many("questions", questions.len(), MAX_MATCH_QUESTIONS));
            }
            let mut parsed = Vec::with_capacity(questions.len());
            for (i, q) in questions.into_iter().enumerate() {
                let gold = answers(&format!("questions[{i}].gold"), &q.gold)?;
                let run = answers(&format!("questions[{i}].run"), &q.run)?;
                parsed.push((q.id, gold, run));
            }
            let state = state.clone();
            let out = web::block(move || {
                let index = state.index.as_deref().map(|i| i as &dyn Equivalence);
                parsed
                    .into_iter()
                    .map(|(id, gold, run)| QuestionMatch {
                        id,
                        report: match_lists(&gold, &run, &options, index),
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .map_err(internal)?;
            Ok(HttpResponse::Ok().json(QuestionMatches { questions: out }))
        }
        _ => Err(ApiError::bad(
            "bad_body",
            "give either gold and run (one question's answers) or questions: [{\"id\", \"gold\", \"run\"}]",
        )),
    }
}

/// One label query.
#[derive(Deserialize, Serialize, Clone, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LabelQuery {
    /// The label.
    text: String,
    /// Its language tag (none: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// Edits allowed: 0, 1 or 2.
    #[serde(default)]
    fuzzy: u32,
}

/// The body of `POST /labels`: a list of queries, or `{queries: [...]}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum LabelsBody {
    /// `[{text, lang?, fuzzy?}]`
    List(Vec<LabelQuery>),
    /// `{queries: [{text, lang?, fuzzy?}]}`
    Object {
        /// The queries.
        queries: Vec<LabelQuery>,
    },
}

/// The IRIs of one label query.
#[derive(Serialize, utoipa::ToSchema)]
pub struct LabelAnswer {
    /// The label asked for.
    text: String,
    /// The language asked for, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    /// The edits allowed.
    fuzzy: u32,
    /// The IRIs carrying the label.
    hits: Vec<LabelHit>,
}

/// `POST /labels`: the IRIs carrying each label, in order.
#[utoipa::path(post, path = "/api/v1/labels", tag = "lookups", request_body = LabelsBody,
    responses((status = 200, description = "one answer per query, in order", body = Vec<LabelAnswer>),
        (status = 400, description = "a bad query, or more than 1,000 (batch_too_large)", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub async fn labels_post(state: web::Data<AppState>, body: web::Json<LabelsBody>) -> ApiResult {
    index(&state)?;
    let queries = match body.into_inner() {
        LabelsBody::List(q) | LabelsBody::Object { queries: q } => q,
    };
    if queries.len() > MAX_LABEL_QUERIES {
        return Err(too_many("label queries", queries.len(), MAX_LABEL_QUERIES));
    }
    if let Some((i, q)) = queries.iter().enumerate().find(|(_, q)| q.fuzzy > 2) {
        return Err(ApiError::bad(
            "bad_parameter",
            format!(
                "queries[{i}].fuzzy={} is too large; use 0, 1 or 2 edits",
                q.fuzzy
            ),
        ));
    }
    let state = state.clone();
    let out = web::block(move || {
        let index = state.index.as_deref().ok_or_else(ApiError::no_index)?;
        queries
            .into_iter()
            .map(|query| {
                let lang = query.lang.as_deref().filter(|l| !l.is_empty());
                let hits = index
                    .labels(&query.text, lang, query.fuzzy)
                    .map_err(|e| ApiError::bad("bad_parameter", e.to_string()))?;
                Ok(LabelAnswer {
                    text: query.text,
                    lang: query.lang,
                    fuzzy: query.fuzzy,
                    hits,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(out))
}

/// The body of `POST /types` and `POST /canonical`: a list of IRIs, or `{iris: [...]}`.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum IrisBody {
    /// `["…", …]`
    List(Vec<String>),
    /// `{iris: ["…", …]}`
    Object {
        /// The IRIs.
        iris: Vec<String>,
    },
}

impl IrisBody {
    fn iris(self) -> Result<Vec<String>, ApiError> {
        let iris = match self {
            IrisBody::List(i) | IrisBody::Object { iris: i } => i,
        };
        if iris.len() > MAX_BATCH {
            return Err(too_many("IRIs", iris.len(), MAX_BATCH));
        }
        Ok(iris)
    }
}

/// The classes of one IRI.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Types {
    /// The IRI.
    pub(super) iri: String,
    /// Its classes (`rdf:type`, `wdt:P31`).
    pub(super) types: Vec<String>,
}

/// `POST /types`: the classes of each IRI, in order.
#[utoipa::path(post, path = "/api/v1/types", tag = "lookups", request_body = IrisBody,
    responses((status = 200, description = "the classes of each IRI, in order", body = Vec<Types>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody),
        (status = 503, description = "the server has no index", body = ErrorBody)))]
pub async fn types_post(state: web::Data<AppState>, body: web::Json<IrisBody>) -> ApiResult {
    index(&state)?;
    let iris = body.into_inner().iris()?;
    let state = state.clone();
    let out = web::block(move || {
        let index = state.index.as_deref().ok_or_else(ApiError::no_index)?;
        iris.into_iter()
            .map(|iri| {
                let types = index.types(&iri).map_err(internal)?;
                Ok(Types { iri, types })
            })
            .collect::<Result<Vec<_>, ApiError>>()
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(out))
}

/// The canonical form of one IRI.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Canonical {
    /// The IRI.
    iri: String,
    /// Its canonical form (SCORING 2a).
    canonical: String,
}

/// `POST /canonical`: the canonical form of each IRI (SCORING 2a), no index needed.
#[utoipa::path(post, path = "/api/v1/canonical", tag = "lookups", request_body = IrisBody,
    responses((status = 200, description = "the canonical form of each IRI, in order", body = Vec<Canonical>),
        (status = 400, description = "malformed body, or more than 10,000 IRIs (batch_too_large)", body = ErrorBody)))]
pub async fn canonical_post(body: web::Json<IrisBody>) -> ApiResult {
    let iris = body.into_inner().iris()?;
    let out: Vec<Canonical> = iris
        .into_iter()
        .map(|iri| Canonical {
            canonical: canonical_iri(&iri),
            iri,
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}
