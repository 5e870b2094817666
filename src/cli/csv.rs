//! The evaluation report as CSV (`evaluate --format csv`; docs/report.md):
//! one row per run, sub-experiment and aggregate (overall and per `--by`
//! value), or per question with `--per-question`, fields quoted as RFC 4180
//! asks; and the field rule every CSV the commands write follows ([`field`]).

use std::fmt::Write;

use super::render::experiments;
use crate::eval::Report;

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
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !s.trim().parse::<f64>().is_ok_and(f64::is_finite);
    let s = if formula {
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

/// One CSV row of aggregate measures, with the `--by` columns given.
fn csv_aggregate(
    out: &mut String,
    run: &str,
    experiment: &str,
    by: &[&str],
    a: &crate::eval::AggregateReport,
    with_confidence: bool,
) {
    let _ = write!(out, "{},{experiment},", field(run));
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
    out.push('\n');
}

/// CSV: one row per run and experiment, or one row per question with `per_question`.
pub fn csv(report: &Report, per_question: bool) -> String {
    let mut out = String::new();
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
    if per_question {
        out.push_str(
            "run,experiment,id,question,status,tp,fp,fn,precision,recall,f1,precision_qald,recall_qald\n",
        );
    } else {
        out.push_str("run,experiment,");
        for f in &features {
            let _ = write!(out, "{},", field(&format!("by_{f}")));
        }
        out.push_str("questions,evaluated,not_evaluable,answered,empty,missing,extra,errors,micro_precision,micro_recall,micro_f1,macro_precision,macro_recall,macro_f1,macro_qald_precision,macro_qald_recall,macro_qald_f1,right,partial,answered_only_precision,answered_only_recall,answered_only_f1");
        if with_confidence {
            out.push_str(",micro_f1_low,micro_f1_high,macro_f1_low,macro_f1_high,macro_qald_f1_low,macro_qald_f1_high");
        }
        out.push('\n');
    }
    for (name, runs) in experiments(report) {
        for (run, e) in runs {
            let Some(e) = e else { continue };
            if per_question {
                for q in &e.questions {
                    let _ = writeln!(
                        out,
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
                    );
                }
            } else {
                let by = vec![""; features.len()];
                csv_aggregate(&mut out, run, name, &by, &e.aggregate, with_confidence);
                // one row per value of each --by feature, in its own column
                for (k, feature) in features.iter().enumerate() {
                    let Some(split) = e.breakdown.as_ref().and_then(|b| b.get(*feature)) else {
                        continue;
                    };
                    for (value, a) in split {
                        let mut by = vec![""; features.len()];
                        by[k] = value.as_str();
                        csv_aggregate(&mut out, run, name, &by, a, with_confidence);
                    }
                }
            }
        }
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
