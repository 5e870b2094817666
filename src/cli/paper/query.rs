//! The paper table of the query experiment (`--experiments query`;
//! docs/scoring.md, Query measures): a row per run with how many of its
//! queries parse and execute, the IRIs they invent, BLEU, SP-F1 and the
//! equivalence verdicts — the figures of the text table's QUERY block, best
//! per column in bold where higher is better.

use super::{bold, cell, write_table, Style, Title};
use crate::eval::query::QueryExperimentReport;
use crate::eval::Report;

/// The query experiment's table, when a run has one.
pub(super) fn query_table(
    report: &Report,
    style: Style,
    title: &dyn Fn(String, Option<&str>) -> Title,
    out: &mut String,
) {
    let runs = report.query_runs();
    if runs.is_empty() {
        return;
    }
    let header: Vec<String> = [
        "Run",
        "Compared",
        "Parses",
        "Executes",
        "Unknown IRIs",
        "BLEU",
        "SP-F1",
        "Equivalent",
    ]
    .iter()
    .map(|h| cell(h, style))
    .collect();
    // per column: the run's value, and whether higher is better (bold)
    type Figure = fn(&QueryExperimentReport) -> Option<f64>;
    let figures: [(Figure, bool); 6] = [
        (|q| q.aggregate.parse_rate, true),
        (
            |q| {
                (q.aggregate.executed > 0).then(|| {
                    q.aggregate
                        .execution_rates
                        .get("ok")
                        .copied()
                        .unwrap_or(0.0)
                })
            },
            true,
        ),
        (|q| q.aggregate.unknown_iri_rate, false),
        (|q| q.aggregate.bleu, true),
        (|q| q.aggregate.sp_f1, true),
        (
            |q| {
                let n = q.aggregate.compared;
                let same = q
                    .aggregate
                    .equivalence
                    .get("equivalent")
                    .copied()
                    .unwrap_or(0);
                (n > 0).then(|| same as f64 / n as f64)
            },
            true,
        ),
    ];
    let best: Vec<Option<f64>> = figures
        .iter()
        .map(|(f, higher)| {
            runs.iter()
                .filter_map(|(_, q)| f(q))
                .fold(None, |b: Option<f64>, v| {
                    Some(b.map_or(v, |b| if *higher { b.max(v) } else { b.min(v) }))
                })
        })
        .collect();
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|(run, q)| {
            let mut row = vec![cell(run, style), q.aggregate.compared.to_string()];
            for ((f, _), best) in figures.iter().zip(&best) {
                row.push(match f(q) {
                    None => "–".to_string(),
                    Some(v) if best.is_some_and(|b| (b - v).abs() < 1e-12) => {
                        bold(&format!("{v:.3}"), style)
                    }
                    Some(v) => format!("{v:.3}"),
                });
            }
            row
        })
        .collect();
    let note = format!(
        "{} runs, {} questions, profile {}. Rates over the run's queries; Unknown IRIs: the share of its IRIs the graph does not hold (lower is better); Equivalent: the share of compared queries judged equivalent to the gold's. Best value per column in bold.",
        runs.len(),
        report.gold.questions,
        report.profile
    );
    let title = title(
        format!("QUERY on {}", super::file_name(&report.gold.path)),
        None,
    );
    write_table(&title, &header, &rows, &note, style, out);
}
