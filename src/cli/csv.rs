//! The evaluation report as CSV (`evaluate --format csv`; docs/report.md):
//! one row per run, sub-experiment and aggregate (overall and per `--by`
//! value), or per question with `--per-question`, fields quoted as RFC 4180
//! asks, the LLM era's and the official script's figures in columns of their
//! own when some row has them; and the field rule every CSV the commands
//! write follows ([`field`]).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::render::experiments;
use crate::eval::{AggregateReport, QuestionReport, Report};

/// A measure the profile may not report, for CSV (empty when absent).
fn co(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// A CSV field: a text a spreadsheet would run as a formula (it starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return, and is not a number)
/// gets a `'` first, as OWASP's advice on CSV injection asks (a run name or
/// a question text is whatever its file says); then quoted when it holds a
/// comma, a quote or a line break (RFC 4180).
pub(super) fn field(s: &str) -> String {
    let s = if crate::terms::spreadsheet_formula(s) {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

/// The columns after the fixed ones, in this order when a row has them:
/// the challenge's figures, abstention, truthfulness and graded order, then usage (docs/scoring.md,
/// Cost and latency); the official script's figures follow, `official_`
/// and their names, sorted.
const ERA_COLUMNS: &[&str] = &[
    // the TEXT2SPARQL challenge's figures (the `text2sparql` profile's
    // headline, docs/scoring.md), first where a row has them
    "set_p",
    "set_recall",
    "set_f",
    "ndcg",
    "set_f_ndcg",
    "abstained",
    "truthfulness",
    "ndcg_graded",
    "kendall_tau",
    "latency_ms",
    "latency_ms_mean",
    "latency_ms_median",
    "latency_ms_p95",
    "latency_ms_total",
    "prompt_tokens",
    "prompt_tokens_total",
    "completion_tokens",
    "completion_tokens_total",
    "cost",
    "cost_mean",
    "cost_total",
    "calls",
    "calls_total",
];

/// The figures of a row beyond the fixed columns, by column name.
type Extras = BTreeMap<String, f64>;

/// The official figures of a row as `official_<name>` columns.
fn official(extras: &mut Extras, figures: Option<&crate::eval::report::Figures>) {
    for (k, v) in figures.into_iter().flatten() {
        extras.insert(format!("official_{k}"), *v);
    }
}

/// A run's usage as `<measure>_mean`, `_median`, `_p95` and `_total` columns.
fn summary(extras: &mut Extras, name: &str, s: Option<&crate::eval::usage::Summary>) {
    if let Some(s) = s {
        for (suffix, v) in [
            ("mean", s.mean),
            ("median", s.median),
            ("p95", s.p95),
            ("total", s.total),
        ] {
            extras.insert(format!("{name}_{suffix}"), v);
        }
    }
}

/// The figures that are there, under their column names.
fn present<const N: usize>(extras: &mut Extras, figures: [(&str, Option<f64>); N]) {
    for (k, v) in figures {
        if let Some(v) = v {
            extras.insert(k.to_string(), v);
        }
    }
}

/// Truthfulness and graded order, where a row has them.
fn truth_and_order(
    extras: &mut Extras,
    truthfulness: Option<f64>,
    ndcg_graded: Option<f64>,
    kendall_tau: Option<f64>,
) {
    present(
        extras,
        [
            ("truthfulness", truthfulness),
            ("ndcg_graded", ndcg_graded),
            ("kendall_tau", kendall_tau),
        ],
    );
}

/// An aggregate's figures beyond the fixed columns.
fn aggregate_extras(a: &AggregateReport) -> Extras {
    let mut out = Extras::new();
    if let Some(c) = &a.challenge {
        present(
            &mut out,
            [
                ("set_p", Some(c.set_p)),
                ("set_recall", Some(c.set_recall)),
                ("set_f", Some(c.set_f)),
                ("ndcg", c.ndcg),
                ("set_f_ndcg", c.set_f_ndcg),
            ],
        );
    }
    let abstained = a.abstained.map(|n| n as f64);
    present(&mut out, [("abstained", abstained)]);
    truth_and_order(&mut out, a.truthfulness, a.ndcg_graded, a.kendall_tau);
    if let Some(u) = &a.usage {
        summary(&mut out, "latency_ms", u.latency_ms.as_ref());
        let tokens = u.tokens.as_ref();
        summary(
            &mut out,
            "prompt_tokens",
            tokens.and_then(|t| t.prompt.as_ref()),
        );
        summary(
            &mut out,
            "completion_tokens",
            tokens.and_then(|t| t.completion.as_ref()),
        );
        summary(&mut out, "cost", u.cost.as_ref());
        summary(&mut out, "calls", u.calls.as_ref());
    }
    official(&mut out, a.official.as_ref());
    out
}

/// A question's figures beyond the fixed columns.
fn question_extras(q: &QuestionReport) -> Extras {
    let mut out = Extras::new();
    truth_and_order(&mut out, q.truthfulness, q.ndcg_graded, q.kendall_tau);
    if let Some(u) = &q.usage {
        let tokens = u.tokens.as_ref();
        present(
            &mut out,
            [
                ("latency_ms", u.latency_ms),
                (
                    "prompt_tokens",
                    tokens.and_then(|t| t.prompt).map(|n| n as f64),
                ),
                (
                    "completion_tokens",
                    tokens.and_then(|t| t.completion).map(|n| n as f64),
                ),
                ("cost", u.cost),
                ("calls", u.calls.map(|n| n as f64)),
            ],
        );
    }
    official(&mut out, q.official.as_ref());
    out
}

/// One CSV row of aggregate measures (no line end), with the `--by` columns
/// given.
fn csv_aggregate(
    run: &str,
    experiment: &str,
    by: &[&str],
    a: &AggregateReport,
    with_confidence: bool,
) -> String {
    let mut out = format!("{},{experiment},", field(run));
    for v in by {
        let _ = write!(out, "{},", field(v));
    }
    let _ = write!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        a.questions,
        a.evaluated,
        a.not_evaluable,
        a.answered,
        a.empty,
        a.missing,
        a.extra,
        a.errors,
        co(a.micro.map(|m| m.precision)),
        co(a.micro.map(|m| m.recall)),
        co(a.micro.map(|m| m.f1)),
        a.macro_.precision,
        a.macro_.recall,
        a.macro_.f1,
        a.macro_qald.precision,
        a.macro_qald.recall,
        a.macro_qald.f1,
        a.right,
        a.partial,
        a.answered_only.precision,
        a.answered_only.recall,
        a.answered_only.f1
    );
    if with_confidence {
        match &a.confidence {
            Some(c) => {
                let _ = write!(
                    out,
                    ",{},{},{},{},{},{}",
                    c.micro.f1.low,
                    c.micro.f1.high,
                    c.macro_.f1.low,
                    c.macro_.f1.high,
                    c.macro_qald.f1.low,
                    c.macro_qald.f1.high
                );
            }
            None => out.push_str(",,,,,,"),
        }
    }
    out
}

/// CSV: one row per run and experiment, or one row per question with
/// `per_question`; after the fixed columns, one per further figure some row
/// has ([`ERA_COLUMNS`], then `official_<name>`), empty where a row has not.
pub fn csv(report: &Report, per_question: bool) -> String {
    let with_confidence = report
        .runs
        .iter()
        .flat_map(|r| r.experiments.named())
        .filter_map(|(_, e)| e)
        .any(|e| e.aggregate.confidence.is_some());
    // --by features, a column each (empty on the rows of the whole run)
    let features: Vec<&String> = report
        .runs
        .iter()
        .flat_map(|r| r.experiments.named())
        .filter_map(|(_, e)| e.and_then(|e| e.breakdown.as_ref()))
        .flat_map(|b| b.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let header = header(per_question, &features, with_confidence);
    let mut rows: Vec<(String, Extras)> = Vec::new();
    for (name, runs) in experiments(report) {
        for (run, e) in runs {
            let Some(e) = e else { continue };
            if per_question {
                for q in &e.questions {
                    rows.push((question_row(run, name, q), question_extras(q)));
                }
            } else {
                let by = vec![""; features.len()];
                let row = csv_aggregate(run, name, &by, &e.aggregate, with_confidence);
                rows.push((row, aggregate_extras(&e.aggregate)));
                // one row per value of each --by feature, in its own column
                for (k, feature) in features.iter().enumerate() {
                    let Some(split) = e.breakdown.as_ref().and_then(|b| b.get(*feature)) else {
                        continue;
                    };
                    for (value, a) in split {
                        let mut by = vec![""; features.len()];
                        by[k] = value.as_str();
                        let row = csv_aggregate(run, name, &by, a, with_confidence);
                        rows.push((row, aggregate_extras(a)));
                    }
                }
            }
        }
    }
    with_extras(header, &rows)
}

/// The header of the fixed columns: a question's, or a run's with a column
/// per `--by` feature and, `with_confidence`, the bounds of the F1s.
fn header(per_question: bool, features: &[&String], with_confidence: bool) -> String {
    let mut header = String::new();
    if per_question {
        header.push_str(
            "run,experiment,id,question,status,tp,fp,fn,precision,recall,f1,precision_qald,recall_qald",
        );
    } else {
        header.push_str("run,experiment,");
        for f in features {
            let _ = write!(header, "{},", field(&format!("by_{f}")));
        }
        header.push_str("questions,evaluated,not_evaluable,answered,empty,missing,extra,errors,micro_precision,micro_recall,micro_f1,macro_precision,macro_recall,macro_f1,macro_qald_precision,macro_qald_recall,macro_qald_f1,right,partial,answered_only_precision,answered_only_recall,answered_only_f1");
        if with_confidence {
            header.push_str(",micro_f1_low,micro_f1_high,macro_f1_low,macro_f1_high,macro_qald_f1_low,macro_qald_f1_high");
        }
    }
    header
}

/// The fixed columns of one question's row.
fn question_row(run: &str, name: &str, q: &QuestionReport) -> String {
    format!(
        "{},{name},{},{},{},{},{},{},{},{},{},{},{}",
        field(run),
        field(&q.id),
        field(q.question.as_deref().unwrap_or_default()),
        q.status.name(),
        q.score.tp,
        q.score.fp,
        q.score.fn_,
        q.score.precision,
        q.score.recall,
        q.score.f1,
        q.score.precision_qald,
        q.score.recall_qald
    )
}

/// The CSV of the rows under `header`: a column for each further figure
/// some row has ([`ERA_COLUMNS`] in their order, then the `official_`
/// ones), empty where a row has not.
fn with_extras(header: String, rows: &[(String, Extras)]) -> String {
    let seen: std::collections::BTreeSet<&str> = rows
        .iter()
        .flat_map(|(_, x)| x.keys().map(String::as_str))
        .collect();
    let columns: Vec<&str> = ERA_COLUMNS
        .iter()
        .copied()
        .filter(|c| seen.contains(c))
        .chain(seen.iter().copied().filter(|c| c.starts_with("official_")))
        .collect();
    let mut out = header;
    for c in &columns {
        out.push(',');
        out.push_str(&field(c));
    }
    out.push('\n');
    for (row, extras) in rows {
        out.push_str(row);
        for c in &columns {
            out.push(',');
            if let Some(v) = extras.get(*c) {
                out.push_str(&v.to_string());
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod field_tests {
    use super::field;

    #[test]
    fn formulas_are_defused_and_numbers_stay_numbers() {
        for (cell, written) in [
            (
                "=HYPERLINK(\"http://x\")",
                "\"'=HYPERLINK(\"\"http://x\"\")\"",
            ),
            ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("-2+3", "'-2+3"),
            ("\t=1", "'\t=1"),
            ("-0.25", "-0.25"),
            ("+5", "+5"),
            ("1e-3", "1e-3"),
            ("-inf", "'-inf"),
            ("a, b", "\"a, b\""),
            ("plain", "plain"),
        ] {
            assert_eq!(field(cell), written, "{cell}");
        }
    }
}
