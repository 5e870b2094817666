//! Renders a report as a text table (CSV: `csv.rs`). Presentation only: every
//! number comes from the report. This file lays out the table (a block per
//! sub-experiment, its breakdowns, per-question rows, explanations, paired
//! significance); the QUERY block is `render/query.rs`'s, the columns of the
//! measures beside F1 `render/measures.rs`'s.

mod measures;
mod query;

use std::fmt::Write;

use crate::eval::{ExperimentReport, Experiments, Report};
use measures::{era_columns, era_lines, era_question_columns};
use query::query_block;

fn f(v: f64) -> String {
    format!("{v:.4}")
}

/// A measure the profile may not report (`-` when absent).
fn fo(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

fn pad_table(rows: &[Vec<String>], out: &mut String) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c + 1 == row.len() {
                    cell.clone()
                } else {
                    format!("{cell:<w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
            let _ = writeln!(out, "{}", "-".repeat(total.min(160)));
        }
    }
}

/// Per experiment (in report order), each run's name and result.
/// The runs of one experiment: each run's name and its report of it.
type Runs<'a> = [(&'a str, Option<&'a ExperimentReport>)];

type ByExperiment<'a> = Vec<(&'static str, Vec<(&'a str, Option<&'a ExperimentReport>)>)>;

pub(super) fn experiments(report: &Report) -> ByExperiment<'_> {
    Experiments::NAMES
        .iter()
        .enumerate()
        .map(|(i, &name)| {
            let per_run = report
                .runs
                .iter()
                .map(|r| (r.name.as_str(), r.experiments.named()[i].1))
                .collect();
            (name, per_run)
        })
        .collect()
}

/// A run's headline figures, by name (`None`: not computed).
type Headline = Vec<(String, Option<f64>)>;

/// The profile's headline figures of each run (QA), first, when the profile
/// reproduces a tool whose figures are not the QA table's own columns (every
/// profile but the QALD ones): `text2sparql`'s set_F, nDCG and set_F+nDCG,
/// an official script's figures.
fn headline(report: &Report) -> String {
    let mut out = String::new();
    let Some(profile) = crate::eval::Profile::parse(report.profile) else {
        return out;
    };
    if matches!(
        profile,
        crate::eval::Profile::Judge | crate::eval::Profile::Gerbil | crate::eval::Profile::Mqald
    ) {
        return out;
    }
    let rows: Vec<(&str, Headline)> = report
        .runs
        .iter()
        .filter_map(|r| {
            let qa = r.experiments.qa.as_ref()?;
            Some((r.name.as_str(), profile.headline(&qa.aggregate)))
        })
        .filter(|(_, figures)| !figures.is_empty())
        .collect();
    if rows.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\nHEADLINE ({})", report.profile);
    for (run, figures) in rows {
        let shown: Vec<String> = figures
            .iter()
            .map(|(k, v)| {
                format!(
                    "{k} {}",
                    v.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"))
                )
            })
            .collect();
        let _ = writeln!(out, "{run}: {}", shown.join("  "));
    }
    out
}

/// The text table: the profile's headline figures, then per experiment, one
/// row per run; with `per_question`, a row per question after it.
pub fn table(report: &Report, per_question: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "gold: {} ({}, {} questions)  profile: {}",
        report.gold.path, report.gold.format, report.gold.questions, report.profile
    );
    out.push_str(&headline(report));
    unstable(report, &mut out);
    for (name, runs) in experiments(report) {
        if runs.iter().all(|(_, e)| e.is_none()) {
            continue;
        }
        let _ = writeln!(out, "\n{}", name.to_uppercase());
        let mut rows = run_rows(&runs);
        era_columns(&runs, &mut rows);
        pad_table(&rows, &mut out);
        era_lines(&runs, &mut out);
        run_lines(report, &runs, &mut out);
        let features: Vec<&String> = runs
            .iter()
            .filter_map(|(_, e)| e.and_then(|e| e.breakdown.as_ref()))
            .flat_map(|b| b.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for feature in features {
            by_table(name, feature, &runs, &mut out);
        }
        if per_question {
            for (run, e) in &runs {
                if let Some(e) = e {
                    question_rows(name, run, e, &mut out);
                }
            }
        }
        explained(name, &runs, &mut out);
    }
    query_block(report, per_question, &mut out);
    comparisons(report, &mut out);
    out
}

/// The TEXT2SPARQL challenge's figures of each run (its profile): set_P,
/// set_recall, set_F, nDCG over the ordered questions and set_F_ndcg, then
/// per language.
fn challenge_lines(runs: &Runs<'_>, out: &mut String) {
    for (run, e) in runs {
        // the TEXT2SPARQL challenge's headline figures (its profile)
        if let Some(c) = e.and_then(|e| e.aggregate.challenge.as_ref()) {
            let ordered = match (c.ndcg, c.set_f_ndcg) {
                (Some(n), Some(both)) => format!(
                    "; nDCG {} over {} ordered question(s); set_F_ndcg {}",
                    f(n),
                    c.ordered_questions,
                    f(both)
                ),
                _ => "; no question flagged RESULT_ORDER_MATTERS".to_string(),
            };
            let _ = writeln!(
                out,
                "{run}: TEXT2SPARQL set_P {} set_recall {} set_F {}{ordered}",
                f(c.set_p),
                f(c.set_recall),
                f(c.set_f)
            );
            for (lang, l) in &c.by_language {
                let _ = writeln!(
                    out,
                    "{run}: TEXT2SPARQL [{lang}] {} question(s): set_P {} set_recall {} set_F {}",
                    l.questions,
                    f(l.set_p),
                    f(l.set_recall),
                    f(l.set_f)
                );
            }
        }
    }
}

/// The gold's audit (`--audit`) in one line, and the questions it marks
/// unstable with each run's QA figures over them alone (scored apart).
fn unstable(report: &Report, out: &mut String) {
    if let Some(a) = &report.audit {
        let _ = writeln!(
            out,
            "\naudit: {} error(s), {} warning(s), {} note(s) on {} question(s){} (--format json, or qajudge audit, lists them)",
            a.counts.error,
            a.counts.warning,
            a.counts.note,
            a.questions,
            if a.stores.is_empty() {
                String::new()
            } else {
                format!(", each query executed {} times on {}", a.repeat, a.stores.join(" and "))
            }
        );
    }
    let Some(u) = &report.unstable else {
        return;
    };
    let ids: Vec<&str> = u.questions.iter().map(|q| q.id.as_str()).collect();
    let _ = writeln!(
        out,
        "\nUNSTABLE ({} question(s) scored apart, not in the tables below: {})",
        ids.len(),
        ids.join(", ")
    );
    for r in &u.runs {
        let figures = r.qa.as_ref().map_or_else(
            || "nothing to score".to_string(),
            |a| {
                format!(
                    "evaluated {}, macro F1 {}, Macro F1 QALD {}",
                    a.evaluated,
                    f(a.macro_.f1),
                    f(a.macro_qald.f1)
                )
            },
        );
        let _ = writeln!(out, "{}: {figures}", r.name);
    }
}

/// The runs of one experiment as the table's rows: a header, then per run
/// its counts and P/R/F1 (the `errors` column only when some run has failed
/// calls of a live system).
fn run_rows(runs: &Runs<'_>) -> Vec<Vec<String>> {
    // failed calls of live systems get a column wherever a run has one
    let errors = runs
        .iter()
        .any(|(_, e)| e.is_some_and(|e| e.aggregate.errors > 0));
    let mut rows = vec![[
        "run",
        "eval",
        "answered",
        "empty",
        "missing",
        "extra",
        "errors",
        "micro P",
        "micro R",
        "micro F1",
        "macro P",
        "macro R",
        "macro F1",
        "QALD P",
        "QALD R",
        "Macro F1 QALD",
    ]
    .map(String::from)
    .to_vec()];
    for (run, e) in runs {
        let Some(e) = e else {
            rows.push(vec![run.to_string(), "-".into()]);
            continue;
        };
        let a = &e.aggregate;
        // no question evaluated (the t2s-metrics profile's text measures
        // without a graph): no P/R/F1 to show, not zeros
        let some = |v: f64| (a.evaluated > 0).then_some(v);
        rows.push(vec![
            run.to_string(),
            a.evaluated.to_string(),
            a.answered.to_string(),
            a.empty.to_string(),
            a.missing.to_string(),
            a.extra.to_string(),
            a.errors.to_string(),
            fo(a.micro.and_then(|m| some(m.precision))),
            fo(a.micro.and_then(|m| some(m.recall))),
            fo(a.micro.and_then(|m| some(m.f1))),
            fo(some(a.macro_.precision)),
            fo(some(a.macro_.recall)),
            fo(some(a.macro_.f1)),
            fo(some(a.macro_qald.precision)),
            fo(some(a.macro_qald.recall)),
            fo(some(a.macro_qald.f1)),
        ]);
    }
    if !errors {
        for row in &mut rows {
            if row.len() > 6 {
                row.remove(6);
            }
        }
    }
    rows
}

/// The lines under an experiment's table, per run: QALD-1/2's counts, the
/// ranking and table measures, the challenge's figures, the official
/// script's, the free-text answers and the bootstrap intervals.
fn run_lines(report: &Report, runs: &Runs<'_>, out: &mut String) {
    for (run, e) in runs {
        let Some(a) = e.map(|e| &e.aggregate).filter(|a| a.evaluated > 0) else {
            continue;
        };
        let _ = writeln!(
            out,
            "{run}: QALD-1/2 right {}, partial {}; answered only P {} R {} F1 {}",
            a.right,
            a.partial,
            f(a.answered_only.precision),
            f(a.answered_only.recall),
            f(a.answered_only.f1)
        );
    }
    for (run, e) in runs {
        // ranked answers and tables (docs/scoring.md, Ranked answers and tables)
        let Some(a) = e.map(|e| &e.aggregate) else {
            continue;
        };
        if let Some(r) = &a.ranking {
            let g = |k: &str| f(r.get(k).copied().unwrap_or(0.0));
            let _ = writeln!(
                out,
                "{run}: ranking MRR {}, Hits@1/first {}, Hits@1/any {}, Hits@3 {}, Hits@10 {}",
                g("mrr"),
                g("hits@1/first"),
                g("hits@1/any"),
                g("hits@3"),
                g("hits@10")
            );
        }
        if let Some(t) = &a.tables {
            let _ = writeln!(
                out,
                "{run}: {} question(s) with table answers, row-wise F1 {}",
                t.get("questions").copied().unwrap_or(0.0),
                f(t.get("row_f1").copied().unwrap_or(0.0))
            );
        }
    }
    challenge_lines(runs, out);
    for (run, e) in runs {
        // an official script's own figures, under its own names
        if let Some(n) = e.and_then(|e| e.aggregate.free_text) {
            let how = if report.index.is_some() {
                "each one answer matched through the label index"
            } else {
                "each one answer; without an index (--index) none is matched through labels"
            };
            let _ = writeln!(
                out,
                "{run}: {n} free-text answer(s) where the gold holds resources, {how}"
            );
        }
        if let Some(o) = e.and_then(|e| e.aggregate.official.as_ref()) {
            let figures: Vec<String> = o.iter().map(|(k, v)| format!("{k} {}", f(*v))).collect();
            let _ = writeln!(out, "{run}: official {}", figures.join(", "));
        }
    }
    for (run, e) in runs {
        if let Some(c) = e.and_then(|e| e.aggregate.confidence.as_ref()) {
            let iv = |i: &crate::metrics::Interval| format!("[{}, {}]", f(i.low), f(i.high));
            let _ = writeln!(
                out,
                "{run}: {:.0}% bootstrap intervals ({} resamples): micro F1 {}, macro F1 {}, Macro F1 QALD {}",
                c.level * 100.0,
                c.resamples,
                iv(&c.micro.f1),
                iv(&c.macro_.f1),
                iv(&c.macro_qald.f1)
            );
        }
    }
}

/// One run's row per question of an experiment (`--per-question`): counts,
/// P/R/F1, the query's execution, the order score, the LLM-era measures and
/// the first note.
fn question_rows(name: &str, run: &str, e: &ExperimentReport, out: &mut String) {
    let _ = writeln!(out, "\n{} per question: {run}", name.to_uppercase());
    // executed queries add their status (and invented IRIs) and the order score
    let executed = e.questions.iter().any(|q| q.execution.is_some());
    let ordered = e.questions.iter().any(|q| q.ndcg.is_some());
    let mut header: Vec<String> = ["id", "question", "status", "tp", "fp", "fn", "P", "R", "F1"]
        .map(String::from)
        .to_vec();
    if executed {
        header.push("query".to_string());
    }
    if ordered {
        header.push("nDCG".to_string());
    }
    let era = era_question_columns(e);
    header.extend(era.iter().map(|(h, _)| (*h).to_string()));
    header.push("note".into());
    let mut rows = vec![header];
    for q in &e.questions {
        let mut row = vec![
            q.id.clone(),
            short(q.question.as_deref().unwrap_or_default(), QUESTION_WIDTH),
            q.status.name().to_string(),
            q.score.tp.to_string(),
            q.score.fp.to_string(),
            q.score.fn_.to_string(),
            f(q.score.precision),
            f(q.score.recall),
            f(q.score.f1),
        ];
        if executed {
            row.push(q.execution.as_ref().map_or_else(
                String::new,
                |x| match x.unknown_iris.len() {
                    0 => x.status.to_string(),
                    1 => format!("{} (1 unknown IRI)", x.status),
                    n => format!("{} ({n} unknown IRIs)", x.status),
                },
            ));
        }
        if ordered {
            row.push(q.ndcg.map(f).unwrap_or_default());
        }
        row.extend(era.iter().map(|(_, cell)| cell(q)));
        row.push(q.diagnostics.first().cloned().unwrap_or_default());
        rows.push(row);
    }
    pad_table(&rows, out);
}

/// The matched pairs and unmatched answers of every explained question
/// (`--explain`), per run.
fn explained(name: &str, runs: &Runs<'_>, out: &mut String) {
    for (run, e) in runs {
        let Some(e) = e else { continue };
        if e.questions.iter().all(|q| q.explanation.is_none()) {
            continue;
        }
        let _ = writeln!(out, "\n{} explained: {run}", name.to_uppercase());
        for q in &e.questions {
            let Some(x) = &q.explanation else { continue };
            let confidence = q
                .confidence
                .map(|c| format!(", confidence {c}"))
                .unwrap_or_default();
            let text = q
                .question
                .as_deref()
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{}{text} ({}, F1 {}{confidence})",
                q.id,
                q.status.name(),
                f(q.score.f1)
            );
            for p in &x.pairs {
                let size = p.class_size.map(|n| format!(" of {n}")).unwrap_or_default();
                let _ = writeln!(out, "  = {}  ~  {}  [{}{size}]", p.gold, p.run, p.rule);
            }
            for g in &x.unmatched_gold {
                let _ = writeln!(out, "  - missed {g}");
            }
            for r in &x.unmatched_run {
                let _ = writeln!(out, "  + wrong  {r}");
            }
        }
    }
}

/// The paired significance tests between runs, when there are any.
fn comparisons(report: &Report, out: &mut String) {
    if !report.comparisons.is_empty() {
        let shuffles = report.comparisons[0].significance.shuffles;
        let _ = writeln!(
            out,
            "\nPAIRED SIGNIFICANCE (approximate randomisation, {shuffles} shuffles; differences are A - B; p adjusted: {} over the {} comparisons, significant below {})",
            report.comparisons[0].correction,
            report.comparisons.len(),
            crate::eval::ALPHA
        );
        let p = |v: f64| p_value(v, shuffles);
        let mut rows = vec![[
            "experiment",
            "run A",
            "run B",
            "questions",
            "macro F1 diff",
            "p",
            "p adjusted",
            "Macro F1 QALD diff",
            "p",
            "p adjusted",
        ]
        .map(String::from)
        .to_vec()];
        for c in &report.comparisons {
            let s = &c.significance;
            rows.push(vec![
                c.experiment.to_uppercase(),
                c.run_a.clone(),
                c.run_b.clone(),
                s.questions.to_string(),
                f(s.f1_difference),
                p(s.p_f1),
                p(c.p_f1_adjusted),
                f(s.macro_f1_qald_difference),
                p(s.p_macro_f1_qald),
                p(c.p_macro_f1_qald_adjusted),
            ]);
        }
        pad_table(&rows, out);
    }
}

/// A p-value of a test with `shuffles` rounds, (k+1)/(N+1) for k of N
/// shuffles at least as extreme (docs/scoring.md, Comparing runs): one that no
/// shuffle reached is the least the test can say, printed as `≤ 1/(N+1)`
/// with its figure (`≤ 0.0001`), never as 0.
fn p_value(p: f64, shuffles: usize) -> String {
    let floor = 1.0 / (shuffles as f64 + 1.0);
    if p <= floor * (1.0 + 1e-9) {
        format!("≤ {}", f(floor))
    } else {
        f(p)
    }
}

/// The aggregates of one sub-experiment split by `feature`: with one run, its
/// counts and F1 measures per value; with several, one column per run
/// (Macro F1 QALD) beside the questions evaluated.
fn by_table(
    name: &str,
    feature: &str,
    runs: &[(&str, Option<&crate::eval::ExperimentReport>)],
    out: &mut String,
) {
    let split = |e: &Option<&crate::eval::ExperimentReport>, value: &str| {
        e.and_then(|e| e.breakdown.as_ref())
            .and_then(|b| b.get(feature))
            .and_then(|m| m.get(value))
            .cloned()
    };
    let mut values: Vec<&String> = runs
        .iter()
        .filter_map(|(_, e)| e.and_then(|e| e.breakdown.as_ref()))
        .filter_map(|b| b.get(feature))
        .flat_map(|m| m.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    values.sort_by_key(|v| (v.parse::<u64>().unwrap_or(u64::MAX), (*v).clone()));
    if runs.len() > 1 {
        let _ = writeln!(
            out,
            "\n{} by {feature} (Macro F1 QALD per run)",
            name.to_uppercase()
        );
        let mut header = vec![feature.to_string(), "eval".to_string()];
        header.extend(runs.iter().map(|(r, _)| (*r).to_string()));
        let mut rows = vec![header];
        for value in values {
            let cells: Vec<Option<crate::eval::AggregateReport>> =
                runs.iter().map(|(_, e)| split(e, value)).collect();
            let evaluated = cells
                .iter()
                .flatten()
                .map(|a| a.evaluated)
                .max()
                .unwrap_or(0);
            let mut row = vec![value.clone(), evaluated.to_string()];
            row.extend(cells.iter().map(|a| {
                a.as_ref()
                    .map_or_else(|| "-".to_string(), |a| f(a.macro_qald.f1))
            }));
            rows.push(row);
        }
        pad_table(&rows, out);
        return;
    }
    let _ = writeln!(out, "\n{} by {feature}", name.to_uppercase());
    let mut rows = vec![[
        feature,
        "run",
        "eval",
        "micro F1",
        "macro F1",
        "Macro F1 QALD",
    ]
    .map(String::from)
    .to_vec()];
    for value in values {
        for (run, e) in runs {
            let Some(a) = split(e, value) else {
                continue;
            };
            rows.push(vec![
                value.clone(),
                (*run).to_string(),
                a.evaluated.to_string(),
                fo(a.micro.map(|m| m.f1)),
                f(a.macro_.f1),
                f(a.macro_qald.f1),
            ]);
        }
    }
    pad_table(&rows, out);
}

/// The widest question text a per-question table prints.
const QUESTION_WIDTH: usize = 48;

/// `text` cut to `width` characters, with `…` where it was cut.
fn short(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod p_value_tests {
    use super::*;

    #[test]
    fn a_p_value_no_shuffle_reached_is_the_least_the_test_can_say() {
        assert_eq!(p_value(1.0 / 10_001.0, 10_000), "≤ 0.0001");
        assert_eq!(p_value(2.0 / 10_001.0, 10_000), "0.0002");
        assert_eq!(p_value(0.5, 10_000), "0.5000");
    }
}
