//! The text table's columns and lines of the measures reported beside F1
//! (docs/scoring.md: Abstention and truthfulness, Graded order, Cost and
//! latency): abstained questions, truthfulness, graded nDCG, Kendall τ-b, and
//! the usage of live systems (latency, tokens, cost, calls), each shown only
//! when some run or question has it.

use std::fmt::Write;

use super::f;
use crate::eval::ExperimentReport;

/// A per-question cell of the measures beside F1.
pub(super) type QuestionCell = fn(&crate::eval::QuestionReport) -> String;

/// The run-table columns of the measures beside F1 (docs/scoring.md:
/// Abstention and truthfulness, Graded order, Cost and latency), each only
/// when some run has it: abstained, truthfulness, graded nDCG, Kendall τ-b,
/// mean latency and total cost.
pub(super) fn era_columns(runs: &[(&str, Option<&ExperimentReport>)], rows: &mut [Vec<String>]) {
    type Cell = fn(&crate::eval::AggregateReport) -> Option<String>;
    let columns: [(&str, Cell); 6] = [
        ("abstained", |a| a.abstained.map(|n| n.to_string())),
        ("truth", |a| a.truthfulness.map(f)),
        ("nDCG graded", |a| a.ndcg_graded.map(f)),
        ("tau-b", |a| a.kendall_tau.map(f)),
        ("latency ms", |a| {
            a.usage
                .and_then(|u| u.latency_ms)
                .map(|s| format!("{:.1}", s.mean))
        }),
        ("cost", |a| {
            a.usage
                .and_then(|u| u.cost)
                .map(|s| format!("{:.4}", s.total))
        }),
    ];
    for (header, cell) in columns {
        if !runs
            .iter()
            .any(|(_, e)| e.is_some_and(|e| cell(&e.aggregate).is_some()))
        {
            continue;
        }
        rows[0].push(header.to_string());
        for (row, (_, e)) in rows[1..].iter_mut().zip(runs) {
            if let Some(e) = e {
                row.push(cell(&e.aggregate).unwrap_or_else(|| "-".to_string()));
            }
        }
    }
}

/// One line per run with usage: each measure's mean, median, p95 and total.
pub(super) fn era_lines(runs: &[(&str, Option<&ExperimentReport>)], out: &mut String) {
    for (run, e) in runs {
        let Some(u) = e.and_then(|e| e.aggregate.usage) else {
            continue;
        };
        let s = |name: &str, s: Option<crate::eval::usage::Summary>| {
            s.map(|s| {
                format!(
                    "{name} mean {} median {} p95 {} total {} ({} question(s))",
                    f(s.mean),
                    f(s.median),
                    f(s.p95),
                    f(s.total),
                    s.questions
                )
            })
        };
        let parts: Vec<String> = [
            s("latency ms", u.latency_ms),
            s("prompt tokens", u.tokens.and_then(|t| t.prompt)),
            s("completion tokens", u.tokens.and_then(|t| t.completion)),
            s("cost", u.cost),
            s("calls", u.calls),
        ]
        .into_iter()
        .flatten()
        .collect();
        let _ = writeln!(out, "{run}: usage {}", parts.join("; "));
    }
}

/// The per-question columns of the measures beside F1 that some question of
/// `e` has.
pub(super) fn era_question_columns(e: &ExperimentReport) -> Vec<(&'static str, QuestionCell)> {
    let all: [(&str, QuestionCell); 5] = [
        ("truth", |q| q.truthfulness.map(f).unwrap_or_default()),
        ("nDCG graded", |q| q.ndcg_graded.map(f).unwrap_or_default()),
        ("tau-b", |q| q.kendall_tau.map(f).unwrap_or_default()),
        ("latency ms", |q| {
            q.usage
                .and_then(|u| u.latency_ms)
                .map(|l| format!("{l:.1}"))
                .unwrap_or_default()
        }),
        ("cost", |q| {
            q.usage
                .and_then(|u| u.cost)
                .map(|c| format!("{c:.6}"))
                .unwrap_or_default()
        }),
    ];
    all.into_iter()
        .filter(|(_, cell)| e.questions.iter().any(|q| !cell(q).is_empty()))
        .collect()
}
