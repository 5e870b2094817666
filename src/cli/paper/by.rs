//! The paper tables of `--by` breakdowns: per feature, Macro F1 QALD by
//! value (rows) and run (columns), best per row in bold.

use super::{bold, cell, write_table, Style, Title};
use crate::eval::ExperimentReport;

/// Per `--by` feature: Macro F1 QALD by value (rows) and run (columns).
pub(super) fn by_tables(
    name: &str,
    runs: &[(&str, &ExperimentReport)],
    style: Style,
    title: &dyn Fn(String, Option<&str>) -> Title,
    out: &mut String,
) {
    let features: std::collections::BTreeSet<&String> = runs
        .iter()
        .filter_map(|(_, e)| e.breakdown.as_ref())
        .flat_map(|b| b.keys())
        .collect();
    for feature in features {
        let values: std::collections::BTreeSet<&String> = runs
            .iter()
            .filter_map(|(_, e)| e.breakdown.as_ref()?.get(feature))
            .flat_map(|m| m.keys())
            .collect();
        let mut header = vec![cell(feature, style)];
        header.extend(runs.iter().map(|(r, _)| cell(r, style)));
        let mut rows = Vec::new();
        for value in values {
            let scores: Vec<Option<(f64, usize)>> = runs
                .iter()
                .map(|(_, e)| {
                    let a = e.breakdown.as_ref()?.get(feature)?.get(value)?;
                    Some((a.macro_qald.f1, a.evaluated))
                })
                .collect();
            let best = scores
                .iter()
                .flatten()
                .map(|(v, _)| *v)
                .fold(f64::NEG_INFINITY, f64::max);
            let questions = scores.iter().flatten().map(|(_, n)| *n).max().unwrap_or(0);
            let mut row = vec![format!("{} ({questions})", cell(value, style))];
            for s in &scores {
                row.push(match s {
                    Some((v, _)) if (best - v).abs() < 1e-12 => bold(&format!("{v:.3}"), style),
                    Some((v, _)) => format!("{v:.3}"),
                    None => "–".to_string(),
                });
            }
            rows.push(row);
        }
        let title = title(
            format!("{} Macro F1 QALD by {feature}", name.to_uppercase()),
            Some(feature),
        );
        let note = format!(
            "In brackets: the questions evaluated with that {feature}. Best value per row in bold."
        );
        write_table(&title, &header, &rows, &note, style, out);
    }
}
