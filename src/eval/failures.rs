//! Why a system fails, put into a report (`evaluate --explain-failures` and
//! the server's `explain_failures`; docs/features.md, "Why a system fails"):
//! per run, the rule list of `crate::sample::explain` over the gold
//! questions' features and the run's QA F1, as `runs[].failures`. Pure: the
//! features are computed by the caller, once per gold.

use std::collections::HashMap;

use super::report::{FailureExplanation, FailureRule};
use super::{Report, Status};
use crate::sample::explain::{explain, SOLVED_F1};
use crate::sample::QuestionFeatures;

/// The fewest questions a rule covers: 2 % of the evaluated questions, at
/// least 3.
fn min_support(evaluated: usize) -> usize {
    (evaluated / 50).max(3)
}

/// Explains every run's failures from its QA questions (those evaluated;
/// a run without QA results gets none).
pub fn attach(report: &mut Report, features: &[QuestionFeatures]) {
    let by_id: HashMap<&str, &QuestionFeatures> =
        features.iter().map(|f| (f.id.as_str(), f)).collect();
    for run in &mut report.runs {
        let Some(qa) = &run.experiments.qa else {
            continue;
        };
        let input: Vec<(&QuestionFeatures, f64)> = qa
            .questions
            .iter()
            .filter(|q| q.status != Status::NotEvaluable)
            .filter_map(|q| by_id.get(q.id.as_str()).map(|f| (*f, q.score.f1)))
            .collect();
        let e = explain(&input, min_support(input.len()));
        run.failures = Some(FailureExplanation {
            solved_f1: SOLVED_F1,
            solved: e.solved,
            failed: e.failed,
            rules: e
                .rules
                .into_iter()
                .map(|r| FailureRule {
                    condition: r.condition,
                    support: r.support,
                    failed: r.failed,
                    failure_rate_inside: r.failure_rate_inside,
                    failure_rate_outside: r.failure_rate_outside,
                    questions: r.questions,
                })
                .collect(),
        });
    }
}
