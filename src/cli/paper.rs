//! Paper-ready tables of a report (`--format latex`, `--format markdown`): one
//! table per sub-experiment with the runs as rows and the headline measures as
//! columns (macro P, R, F1, Macro F1 QALD, and micro F1 where the profile
//! reports it), the best value of each column in bold, 95 % bootstrap
//! intervals when the report has them, and marks where a run is significantly
//! better (↑) or worse (↓) than the `--baseline` run after the report's
//! Holm–Bonferroni correction at α = 0.05; then, per `--by` feature, a table of
//! Macro F1 QALD with the feature's values as rows and the runs as columns.
//! The LaTeX needs `\usepackage{booktabs}` and nothing else: it is ASCII,
//! whatever the run names hold, so that it compiles with pdflatex under any
//! input encoding. A character outside ASCII is written as LaTeX's own command
//! for it: accented Latin letters as accents over their base (`ä` as `\"{a}`),
//! `ß`, `ø`, `æ` and the like by name, Greek letters and the arrows in math
//! (`Ω` as `$\Omega$`), dashes and quotes as LaTeX ligatures; one that has no
//! such command without a package (CJK, Cyrillic, …) as its code point in
//! typewriter type (`日` as `\texttt{U+65E5}`).

mod by;
mod latex;
mod query;

use std::fmt::Write;

use crate::eval::{AggregateReport, Comparison, ExperimentReport, Report, ALPHA};
use crate::metrics::Interval;
use latex::latex_escape;

/// Which output language a table is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Latex,
    Markdown,
}

/// A measure's comparison with the baseline: (difference, adjusted p-value).
type Test = fn(&Comparison) -> (f64, f64);

/// A column of the runs table: its header, its value, and how the comparison
/// with the baseline reads for it (difference, adjusted p-value), if it has one.
/// A column's value in a run's aggregate.
type Value = Box<dyn Fn(&AggregateReport) -> Option<f64>>;

struct Measure {
    header: String,
    value: Value,
    interval: fn(&AggregateReport) -> Option<Interval>,
    test: Option<Test>,
}

/// The columns of a sub-experiment's table: under a profile that names its
/// own headline figures (`text2sparql`'s set_F, nDCG and set_F+nDCG, an
/// official script's), QA shows those, as the command line's table and
/// Python's `_repr_html_` do; elsewhere [`measures`].
fn columns(report: &Report, name: &str, runs: &[(&str, &ExperimentReport)]) -> Vec<Measure> {
    use crate::eval::Profile;
    let profile = Profile::parse(report.profile);
    let own = profile.filter(|p| {
        name == "qa" && !matches!(p, Profile::Judge | Profile::Gerbil | Profile::Mqald)
    });
    let headers: Vec<String> = match (own, runs.first()) {
        (Some(p), Some((_, e))) => p
            .headline(&e.aggregate)
            .into_iter()
            .map(|(h, _)| h)
            .collect(),
        _ => Vec::new(),
    };
    let (Some(p), false) = (own, headers.is_empty()) else {
        return measures();
    };
    headers
        .into_iter()
        .map(|header| {
            let key = header.clone();
            Measure {
                header,
                value: Box::new(move |a: &AggregateReport| {
                    p.headline(a)
                        .into_iter()
                        .find(|(h, _)| *h == key)
                        .and_then(|(_, v)| v)
                }),
                interval: |_| None,
                test: None,
            }
        })
        .collect()
}

fn measures() -> Vec<Measure> {
    vec![
        Measure {
            header: "Macro P".into(),
            value: Box::new(|a| Some(a.macro_.precision)),
            interval: |_| None,
            test: None,
        },
        Measure {
            header: "Macro R".into(),
            value: Box::new(|a| Some(a.macro_.recall)),
            interval: |_| None,
            test: None,
        },
        Measure {
            header: "Macro F1".into(),
            value: Box::new(|a| Some(a.macro_.f1)),
            interval: |a| a.confidence.as_ref().map(|c| c.macro_.f1),
            test: Some(|c| (c.significance.f1_difference, c.p_f1_adjusted)),
        },
        Measure {
            header: "Macro F1 QALD".into(),
            value: Box::new(|a| Some(a.macro_qald.f1)),
            interval: |a| a.confidence.as_ref().map(|c| c.macro_qald.f1),
            test: Some(|c| {
                (
                    c.significance.macro_f1_qald_difference,
                    c.p_macro_f1_qald_adjusted,
                )
            }),
        },
        Measure {
            header: "Micro F1".into(),
            value: Box::new(|a| a.micro.map(|m| m.f1)),
            interval: |a| a.confidence.as_ref().map(|c| c.micro.f1),
            test: None,
        },
    ]
}

/// The report's tables in LaTeX (booktabs).
pub fn latex(report: &Report, baseline: Option<&str>) -> String {
    tables(report, baseline, &Titles::default(), Style::Latex)
}

/// The report's tables in Markdown.
pub fn markdown(report: &Report, baseline: Option<&str>) -> String {
    tables(report, baseline, &Titles::default(), Style::Markdown)
}

/// The report's tables in LaTeX with the caller's caption and label (a
/// notebook's `to_latex(caption=, label=)`): with one table, the caption and
/// `\label` are the given ones; with several, each adds its sub-experiment
/// (`Caption (QA)`, `label:qa`) and its feature for a breakdown.
pub fn latex_titled(report: &Report, baseline: Option<&str>, titles: &Titles<'_>) -> String {
    tables(report, baseline, titles, Style::Latex)
}

/// A caller's caption and label for the tables; `None`: the default caption
/// (the sub-experiment on the gold's file name) and no label.
#[derive(Debug, Default, Clone, Copy)]
pub struct Titles<'a> {
    /// The caption.
    pub caption: Option<&'a str>,
    /// The LaTeX label.
    pub label: Option<&'a str>,
}

/// One table's caption and label.
struct Title {
    caption: String,
    label: Option<String>,
}

fn tables(report: &Report, baseline: Option<&str>, titles: &Titles<'_>, style: Style) -> String {
    let mut out = String::new();
    if style == Style::Latex {
        out.push_str("% qajudge tables; \\usepackage{booktabs} in the preamble\n");
    }
    let experiments = experiments(report);
    let with_query = report.runs.iter().any(|r| r.experiments.query.is_some());
    if experiments.is_empty() && !with_query {
        // never an empty output that reads as a table nobody filled
        let why = if report.unstable.is_some() {
            "every question of the gold is marked unstable; they are scored apart, in the report's `unstable` part (`--format json`)"
        } else {
            "no sub-experiment has a score (docs/scoring.md, Sub-experiments)"
        };
        match style {
            Style::Latex => out.push_str(&format!("% no table: {why}\n")),
            Style::Markdown => out.push_str(&format!("_No table: {why}._\n")),
        }
        return out;
    }
    let one = experiments.len() + usize::from(with_query) == 1
        && experiments.first().is_none_or(|x| {
            x.1.iter().all(|(_, e)| {
                e.breakdown
                    .as_ref()
                    .is_none_or(std::collections::BTreeMap::is_empty)
            })
        });
    let names = experiments
        .iter()
        .map(|(name, _)| *name)
        .chain(with_query.then_some("query"));
    for name in names {
        let title = |default: String, part: Option<&str>| -> Title {
            let suffix = |sep: &str| {
                std::iter::once(name.to_string())
                    .chain(part.map(str::to_string))
                    .collect::<Vec<_>>()
                    .join(sep)
            };
            Title {
                caption: match titles.caption {
                    Some(c) if one => c.to_string(),
                    Some(c) => format!("{c} ({})", suffix(", by ").to_uppercase()),
                    None => default,
                },
                label: titles.label.map(|l| {
                    if one {
                        l.to_string()
                    } else {
                        format!("{l}:{}", suffix("-by-"))
                    }
                }),
            }
        };
        match experiments.iter().find(|(n, _)| *n == name) {
            Some((_, experiment)) => {
                runs_table(report, name, experiment, baseline, style, &title, &mut out);
                by::by_tables(name, experiment, style, &title, &mut out);
            }
            None => query::query_table(report, style, &title, &mut out),
        }
    }
    out
}

/// The gold's file name, without its folders, for a default caption.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The sub-experiments that have a score, with each run's report of it.
fn experiments(report: &Report) -> Vec<(&'static str, Vec<(&str, &ExperimentReport)>)> {
    let Some(first) = report.runs.first() else {
        return Vec::new();
    };
    first
        .experiments
        .named()
        .into_iter()
        .enumerate()
        .filter_map(|(k, (name, _))| {
            let runs: Vec<(&str, &ExperimentReport)> = report
                .runs
                .iter()
                .filter_map(|r| r.experiments.named()[k].1.map(|e| (r.name.as_str(), e)))
                .collect();
            (!runs.is_empty()).then_some((name, runs))
        })
        .collect()
}

fn runs_table(
    report: &Report,
    name: &str,
    runs: &[(&str, &ExperimentReport)],
    baseline: Option<&str>,
    style: Style,
    title: &dyn Fn(String, Option<&str>) -> Title,
    out: &mut String,
) {
    let columns: Vec<Measure> = columns(report, name, runs)
        .into_iter()
        .filter(|m| runs.iter().any(|(_, e)| (m.value)(&e.aggregate).is_some()))
        .collect();
    let best: Vec<Option<f64>> = columns
        .iter()
        .map(|m| {
            runs.iter()
                .filter_map(|(_, e)| (m.value)(&e.aggregate))
                .fold(None, |b: Option<f64>, v| Some(b.map_or(v, |b| b.max(v))))
        })
        .collect();
    let comparisons: Vec<&Comparison> = report
        .comparisons
        .iter()
        .filter(|c| c.experiment == name && Some(c.run_b.as_str()) == baseline)
        .collect();
    // failed calls of live systems get a column wherever a run has one
    // (docs/scoring.md, Live systems that fail)
    let errors = runs.iter().any(|(_, e)| e.aggregate.errors > 0);
    let mut header = vec![cell("Run", style)];
    if errors {
        header.push(cell("Errors", style));
    }
    header.extend(columns.iter().map(|m| cell(&m.header, style)));
    let mut rows = Vec::new();
    for (run, e) in runs {
        let mut row = vec![match baseline {
            Some(b) if b == *run => format!("{} (baseline)", cell(run, style)),
            _ => cell(run, style),
        }];
        if errors {
            row.push(e.aggregate.errors.to_string());
        }
        for (m, best) in columns.iter().zip(&best) {
            let Some(v) = (m.value)(&e.aggregate) else {
                row.push("–".to_string());
                continue;
            };
            let mut text = format!("{v:.3}");
            if best.is_some_and(|b| (b - v).abs() < 1e-12) {
                text = bold(&text, style);
            }
            if let Some(iv) = (m.interval)(&e.aggregate) {
                text.push_str(&interval(iv, style));
            }
            let mark = m.test.and_then(|test| {
                let c = comparisons.iter().find(|c| c.run_a == *run)?;
                let (difference, p) = test(c);
                (p < ALPHA && difference != 0.0).then_some(difference > 0.0)
            });
            if let Some(better) = mark {
                text.push_str(&arrow(better, style));
            }
            row.push(text);
        }
        rows.push(row);
    }
    let note = note(report, name, runs, baseline, &comparisons);
    let title = title(
        format!(
            "{} on {}",
            name.to_uppercase(),
            file_name(&report.gold.path)
        ),
        None,
    );
    write_table(&title, &header, &rows, &note, style, out);
}

/// The table's note: what bold, the interval and the marks mean.
fn note(
    report: &Report,
    name: &str,
    runs: &[(&str, &ExperimentReport)],
    baseline: Option<&str>,
    comparisons: &[&Comparison],
) -> String {
    let mut note = format!(
        "{} runs, {} questions, profile {}. Best value per column in bold.",
        runs.len(),
        report.gold.questions,
        report.profile
    );
    if let Some(u) = &report.unstable {
        let _ = write!(
            note,
            " {} question(s) excluded as unstable (their results differ between executions or stores; scored apart).",
            u.questions.len()
        );
    }
    if runs.iter().any(|(_, e)| e.aggregate.errors > 0) {
        note.push_str(" Errors: calls to a live system that failed, scored as empty answers.");
    }
    if runs.iter().any(|(_, e)| e.aggregate.confidence.is_some()) {
        note.push_str(" In brackets: 95 % bootstrap confidence intervals over questions.");
    }
    if let (Some(b), Some(c)) = (baseline, comparisons.first()) {
        let made = report
            .comparisons
            .iter()
            .filter(|c| c.experiment == name)
            .count();
        let _ = write!(
            note,
            " ↑/↓: significantly better/worse than the baseline {b} (paired approximate randomisation over questions, {} shuffles; Holm–Bonferroni correction over the {} comparisons of the report, α = {ALPHA}).",
            c.significance.shuffles,
            report.comparisons.len()
        );
        if made != report.comparisons.len() {
            let _ = write!(note, " {made} of them in this table.");
        }
    }
    // the receipt: anyone holding the inputs can re-derive the figures
    if let Some(r) = &report.receipt {
        let _ = write!(
            note,
            " qajudge {}, receipt {}…; `qajudge reproduce` checks it.",
            report.version,
            r.sha256.get(..12).unwrap_or(&r.sha256)
        );
    }
    note
}

fn write_table(
    title: &Title,
    header: &[String],
    rows: &[Vec<String>],
    note: &str,
    style: Style,
    out: &mut String,
) {
    match style {
        Style::Latex => {
            let _ = writeln!(out, "\\begin{{table}}[ht]\n\\centering");
            let _ = writeln!(out, "\\caption{{{}}}", latex_escape(&title.caption));
            if let Some(label) = &title.label {
                // a label keeps the characters LaTeX reads in one
                let label: String = label
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_' | '.'))
                    .collect();
                let _ = writeln!(out, "\\label{{{label}}}");
            }
            let _ = writeln!(
                out,
                "\\begin{{tabular}}{{l{}}}",
                "r".repeat(header.len() - 1)
            );
            let _ = writeln!(out, "\\toprule\n{} \\\\\n\\midrule", header.join(" & "));
            for r in rows {
                let _ = writeln!(out, "{} \\\\", r.join(" & "));
            }
            let _ = writeln!(out, "\\bottomrule\n\\end{{tabular}}");
            let _ = writeln!(
                out,
                "\\par\\smallskip\\footnotesize {}\n\\end{{table}}\n",
                latex_escape(note)
            );
        }
        Style::Markdown => {
            let _ = writeln!(out, "**{}**\n", cell(&title.caption, style));
            let _ = writeln!(out, "| {} |", header.join(" | "));
            let align: Vec<&str> = (0..header.len())
                .map(|i| if i == 0 { ":---" } else { "---:" })
                .collect();
            let _ = writeln!(out, "| {} |", align.join(" | "));
            for r in rows {
                let _ = writeln!(out, "| {} |", r.join(" | "));
            }
            let _ = writeln!(out, "\n{}\n", cell(note, style));
        }
    }
}

/// A name or value as a table cell, on one line: escaped for LaTeX; for
/// Markdown `|` escaped and `<`, `>`, `&` as entities (no raw HTML passes).
fn cell(text: &str, style: Style) -> String {
    let line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match style {
        Style::Latex => latex_escape(&line),
        Style::Markdown => line
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('|', "\\|"),
    }
}

fn bold(text: &str, style: Style) -> String {
    match style {
        Style::Latex => format!("\\textbf{{{text}}}"),
        Style::Markdown => format!("**{text}**"),
    }
}

fn interval(iv: Interval, style: Style) -> String {
    match style {
        Style::Latex => format!("\\,{{\\scriptsize[{:.3}, {:.3}]}}", iv.low, iv.high),
        Style::Markdown => format!(" [{:.3}, {:.3}]", iv.low, iv.high),
    }
}

fn arrow(better: bool, style: Style) -> String {
    match (style, better) {
        (Style::Latex, true) => "\\,$\\uparrow$".to_string(),
        (Style::Latex, false) => "\\,$\\downarrow$".to_string(),
        (Style::Markdown, true) => " ↑".to_string(),
        (Style::Markdown, false) => " ↓".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_one_line_and_pass_no_markup() {
        assert_eq!(
            cell("two\nlines <b>x</b> | a&b", Style::Markdown),
            "two lines &lt;b&gt;x&lt;/b&gt; \\| a&amp;b"
        );
        assert_eq!(
            cell("a|b<c>\td", Style::Latex),
            "a\\textbar{}b\\textless{}c\\textgreater{} d"
        );
    }
}
