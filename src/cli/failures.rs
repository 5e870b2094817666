//! `evaluate --explain-failures`: per run, the rule list of
//! `crate::sample::explain` over the gold questions' features and the run's QA
//! F1, put into the report (`failures`) and printed after the table.

use std::collections::HashMap;

use crate::eval::report::{FailureExplanation, FailureRule};
use crate::eval::{Report, Status};
use crate::sample::explain::{explain, SOLVED_F1};
use crate::sample::QuestionFeatures;

/// The fewest questions a rule covers: 2 % of the evaluated questions, at
/// least 3.
fn min_support(evaluated: usize) -> usize {
    (evaluated / 50).max(3)
}

/// Explains every run's failures from its QA questions (those evaluated).
pub(super) fn attach(report: &mut Report, features: &[QuestionFeatures]) {
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

/// The explanations as text: per run, its rules (at most 10 question ids each).
pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    for run in &report.runs {
        let Some(f) = &run.failures else { continue };
        out.push_str(&format!(
            "\nwhy {} fails (QA F1 below {}: {} failed, {} solved):\n",
            run.name, f.solved_f1, f.failed, f.solved
        ));
        if f.rules.is_empty() {
            out.push_str("  no feature condition separates the failed questions\n");
        }
        for (i, r) in f.rules.iter().enumerate() {
            let shown: Vec<&str> = r.questions.iter().take(10).map(String::as_str).collect();
            let more = r.questions.len().saturating_sub(10);
            out.push_str(&format!(
                "  {}. {}: {} questions, {:.0}% failed (outside {:.0}%); covers {}{}\n",
                i + 1,
                r.condition,
                r.support,
                100.0 * r.failure_rate_inside,
                100.0 * r.failure_rate_outside,
                shown.join(" "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}
