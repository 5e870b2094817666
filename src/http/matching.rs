//! Answer matching and SPARQL annotation: `POST /api/v1/match` compares a gold
//! and a run answer list (one question, or a batch of up to 10,000 questions)
//! under a profile, and `POST /api/v1/annotate` derives the sub-experiment
//! markings and features of a SPARQL query (docs/scoring.md, Sub-experiments). The work runs on the
//! blocking pool, off the server's threads.

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::OpenApi;

use super::common::{profile, ApiResult};
use super::error::{internal, ErrorBody, ErrorCode};
use super::{ApiError, AppState};
use crate::annotate::annotate_question;
use crate::eval::{match_lists, MatchReport, Options};
use crate::index::Equivalence;
use crate::matching::MatchOptions;
use crate::model::{Answer, AnswerSet, Query, Question, QuestionId, Term};
use crate::qald::values::binding_term;

/// The paths of this module in the OpenAPI document, and the answer schema
/// the bodies name through `value_type` only.
#[derive(OpenApi)]
#[openapi(paths(match_route, annotate), components(schemas(AnswerValue)))]
pub struct Api;

/// The most questions one `POST /match` may hold.
pub const MAX_MATCH_QUESTIONS: usize = 10_000;

/// Reads a list of answers: each a SPARQL-results term, a boolean, or an array of
/// terms (alternative forms of one answer).
fn answers(side: &str, values: &[Value]) -> Result<AnswerSet, ApiError> {
    let term = |v: &Value, at: String| match v {
        Value::Bool(b) => Ok(Term::Boolean(*b)),
        other => binding_term(other).map_err(|e| {
            ApiError::new(
                ErrorCode::BadAnswer,
                format!("{at}: {e}; give terms as {{\"type\": \"uri\", \"value\": \"…\"}}"),
            )
        }),
    };
    let mut set = AnswerSet::default();
    for (i, v) in values.iter().enumerate() {
        let terms = match v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(j, t)| term(t, format!("{side}[{i}][{j}]")))
                .collect::<Result<Vec<_>, _>>()?,
            other => vec![term(other, format!("{side}[{i}]"))?],
        };
        set.answers.push(Answer { terms });
    }
    Ok(set)
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
            .map_err(internal)?
            .map_err(|e| ApiError::new(ErrorCode::BadAnswer, e.to_string()))?;
            Ok(HttpResponse::Ok().json(report))
        }
        (None, None, Some(questions)) => {
            if questions.len() > MAX_MATCH_QUESTIONS {
                return Err(ApiError::batch_too_large(
                    "questions",
                    questions.len(),
                    MAX_MATCH_QUESTIONS,
                ));
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
                    .enumerate()
                    .map(|(i, (id, gold, run))| {
                        let report = match_lists(&gold, &run, &options, index).map_err(|e| {
                            ApiError::new(ErrorCode::BadAnswer, format!("questions[{i}]: {e}"))
                        })?;
                        Ok(QuestionMatch { id, report })
                    })
                    .collect::<Result<Vec<_>, ApiError>>()
            })
            .await
            .map_err(internal)??;
            Ok(HttpResponse::Ok().json(QuestionMatches { questions: out }))
        }
        _ => Err(ApiError::new(
            ErrorCode::BadBody,
            "give either gold and run (one question's answers) or questions: [{\"id\", \"gold\", \"run\"}]",
        )),
    }
}

/// The body of `POST /annotate`.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct AnnotateBody {
    /// A SPARQL query.
    sparql: String,
}

/// The sub-experiment markings and features docs/scoring.md (Sub-experiments) derives from a query.
#[utoipa::path(post, path = "/api/v1/annotate", tag = "matching", request_body = AnnotateBody,
    responses((status = 200, description = "the markings", body = crate::annotate::Annotation),
        (status = 400, description = "malformed body, or a query past the size and nesting read (query_too_large)", body = ErrorBody)))]
pub async fn annotate(body: web::Json<AnnotateBody>) -> ApiResult {
    let q = Question {
        id: QuestionId("query".into()),
        query: Query::Sparql(body.sparql.clone()),
        ..Question::default()
    };
    let a = web::block(move || {
        // a query past the bounds read is refused, not annotated
        crate::query::check_bounds(&body.sparql)?;
        Ok::<_, crate::query::SparqlError>(annotate_question(&q, MatchOptions::default()))
    })
    .await
    .map_err(internal)?
    .map_err(|e| ApiError::new(ErrorCode::QueryTooLarge, e.to_string()))?;
    Ok(HttpResponse::Ok().json(a))
}
