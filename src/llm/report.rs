//! The LLM judge's part of a run's report (docs/report.md, The LLM judge):
//! the model and prompt version, the verdict counts, the matches the judge
//! added, its agreement with exact match, and the QA figures of exact match
//! alone, so that the judge's influence is visible.

use serde::Serialize;

use super::counts::VerdictCounts;
use super::Agreement;
use crate::metrics::Prf;

/// The QA figures of exact match alone (the judge's `same` verdicts left out).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ExactFigures {
    /// Micro P/R/F1 (`null` where the profile reports none).
    pub micro: Option<Prf>,
    /// Macro P/R/F1.
    #[serde(rename = "macro")]
    pub macro_: Prf,
    /// Macro under the QALD rule.
    pub macro_qald: Prf,
}

/// The judge on query pairs whose equivalence is `unknown` (`--llm-queries`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct QueryJudgement {
    /// The verdicts.
    pub verdicts: VerdictCounts,
    /// The ids of the questions whose pair was judged `same`.
    pub same_ids: Vec<String>,
    /// Pairs judged `equivalent` by their normal forms, plus those judged
    /// `same`, over the compared pairs; `null` with none compared.
    pub equivalent_rate: Option<f64>,
}

/// The judge's part of a run.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct JudgeReport {
    /// The model asked.
    pub model: String,
    /// The prompt version (docs/scoring.md, The LLM judge).
    pub prompt_version: &'static str,
    /// The verdicts on answer pairs (deciding and agreement asks).
    pub answers: VerdictCounts,
    /// Run answers counted as matched through a `same` verdict: true positives
    /// the judge added to exact match's.
    pub matched: usize,
    /// QA questions whose TP the judge changed.
    pub questions_changed: usize,
    /// QA questions not judged for having too many pairs.
    pub questions_skipped: usize,
    /// Free-text run answers holding instruction-like text, flagged
    /// `suspicious`: the judge was asked, but their `same` is never counted.
    pub suspicious: usize,
    /// Cohen's κ between the judge and exact match over the free-text run
    /// answers both judged.
    pub agreement: Agreement,
    /// QA figures by exact match alone (`null` when QA was not scored).
    pub exact: Option<ExactFigures>,
    /// The judge on `unknown` query pairs; absent without `--llm-queries`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries: Option<QueryJudgement>,
}

impl JudgeReport {
    /// The report of a run's judged answers; `exact` is QA by exact match alone.
    pub fn of(
        judged: &super::Judged,
        judge: Option<&super::Judge>,
        exact: Option<ExactFigures>,
    ) -> JudgeReport {
        JudgeReport {
            model: judge.map(|j| j.model().to_string()).unwrap_or_default(),
            prompt_version: super::PROMPT_VERSION,
            answers: judged.counts,
            matched: judged.matched(),
            questions_changed: judged.changed(),
            questions_skipped: judged.skipped,
            suspicious: judged.suspicious,
            agreement: judged.agreement,
            exact,
            queries: None,
        }
    }
}
