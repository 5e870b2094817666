//! The QUERY block of the text table (`--experiments query`; docs/scoring.md,
//! Query measures): per run, how many of its queries parse and execute, the
//! IRIs they invent, BLEU, SP-F1 and the equivalence verdicts; with
//! `--per-question`, the same per question.

use std::fmt::Write;

use super::{fo, pad_table, short, QUESTION_WIDTH};
use crate::eval::Report;

/// The QUERY block (`--experiments query`; docs/scoring.md, Query measures):
/// a row per run, and with `per_question` a row per question.
pub(super) fn query_block(report: &Report, per_question: bool, out: &mut String) {
    let runs = report.query_runs();
    if runs.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nQUERY");
    let pct = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0));
    let mut rows = vec![[
        "run",
        "compared",
        "parses",
        "executed ok",
        "unknown IRIs",
        "BLEU",
        "SP-F1",
        "equivalent",
        "different",
        "unknown",
    ]
    .map(String::from)
    .to_vec()];
    for (run, q) in &runs {
        let a = &q.aggregate;
        let verdict = |k: &str| a.equivalence.get(k).copied().unwrap_or(0).to_string();
        rows.push(vec![
            run.to_string(),
            a.compared.to_string(),
            format!("{}/{} ({})", a.parses, a.run_queries, pct(a.parse_rate)),
            if a.executed == 0 {
                "-".to_string()
            } else {
                pct(a.execution_rates.get("ok").copied().or(Some(0.0)))
            },
            match a.unknown_iris_source {
                Some(source) => format!(
                    "{}/{} {} ({source})",
                    a.unknown_iris,
                    a.iris,
                    pct(a.unknown_iri_rate)
                ),
                None => "-".to_string(),
            },
            fo(a.bleu),
            fo(a.sp_f1),
            verdict("equivalent"),
            verdict("different"),
            verdict("unknown"),
        ]);
    }
    pad_table(&rows, out);
    if !per_question {
        return;
    }
    for (run, q) in &runs {
        let _ = writeln!(out, "\nQUERY per question: {run}");
        let mut rows = vec![[
            "id",
            "question",
            "status",
            "parses",
            "execution",
            "unknown IRIs",
            "BLEU",
            "SP-F1",
            "equivalence",
            "note",
        ]
        .map(String::from)
        .to_vec()];
        for x in &q.questions {
            rows.push(vec![
                x.id.clone(),
                short(x.question.as_deref().unwrap_or_default(), QUESTION_WIDTH),
                x.status.to_string(),
                x.parses
                    .map(|p| if p { "yes" } else { "no" })
                    .unwrap_or("-")
                    .to_string(),
                x.execution.unwrap_or("-").to_string(),
                x.iris.map_or_else(
                    || "-".to_string(),
                    |n| format!("{}/{n}", x.unknown_iris.len()),
                ),
                fo(x.bleu),
                fo(x.sp_f1),
                x.equivalence.unwrap_or("-").to_string(),
                x.diagnostics.first().cloned().unwrap_or_default(),
            ]);
        }
        pad_table(&rows, out);
    }
}
