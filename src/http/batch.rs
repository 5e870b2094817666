//! The batch routes, for tools that look up many things at once: `POST /match`
//! over many questions, `POST /labels` and `POST /types` for many inputs, and
//! `POST /canonical` (canonical forms, no index needed). Each has a documented
//! limit per call, enforced with a JSON error before any work is done.

use actix_web::{web, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchQuestion {
    id: Value,
    gold: Vec<Value>,
    run: Vec<Value>,
}

/// The body of `POST /match`: one question's answer lists, or many questions.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchBody {
    gold: Option<Vec<Value>>,
    run: Option<Vec<Value>>,
    questions: Option<Vec<MatchQuestion>>,
    profile: Option<String>,
    #[serde(default)]
    strict_literals: bool,
    #[serde(default)]
    lenient_dates: bool,
}

/// One question's match in a batch.
#[derive(Serialize)]
struct QuestionMatch {
    id: Value,
    #[serde(flatten)]
    report: MatchReport,
}

/// `POST /match`: `{gold, run}` gives one report, `{questions: [{id, gold, run}]}`
/// one per question, in order.
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
            Ok(HttpResponse::Ok().json(serde_json::json!({ "questions": out })))
        }
        _ => Err(ApiError::bad(
            "bad_body",
            "give either gold and run (one question's answers) or questions: [{\"id\", \"gold\", \"run\"}]",
        )),
    }
}

/// One label query.
#[derive(Deserialize, Serialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct LabelQuery {
    text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lang: Option<String>,
    #[serde(default)]
    fuzzy: u32,
}

/// The body of `POST /labels`: a list of queries, or `{queries: [...]}`.
#[derive(Deserialize)]
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

#[derive(Serialize)]
struct LabelAnswer {
    #[serde(flatten)]
    query: LabelQuery,
    hits: Vec<LabelHit>,
}

/// `POST /labels`: the IRIs carrying each label, in order.
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
                Ok(LabelAnswer { query, hits })
            })
            .collect::<Result<Vec<_>, ApiError>>()
    })
    .await
    .map_err(internal)??;
    Ok(HttpResponse::Ok().json(out))
}

/// The body of `POST /types` and `POST /canonical`: a list of IRIs, or `{iris: [...]}`.
#[derive(Deserialize)]
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

#[derive(Serialize)]
struct Types {
    iri: String,
    types: Vec<String>,
}

/// `POST /types`: the classes of each IRI, in order.
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

#[derive(Serialize)]
struct Canonical {
    iri: String,
    canonical: String,
}

/// `POST /canonical`: the canonical form of each IRI (SCORING 2a), no index needed.
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
