//! `qajudge diff`: the questions one run gets right (QA F1 = 1) and another
//! does not, with the question text, the gold answers and both runs' answers,
//! as a table, Markdown or JSON. Both runs are scored by the one evaluation
//! pipeline with the same options, so a diff agrees with `evaluate`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::bail;
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::args::profile_parser;
use crate::eval::job::{run_job, Env, Plan, Request, RunSource, Silent, Systems};
use crate::eval::{Experiment, IndexRef, Options, Profile, QuestionReport, Report};
use crate::index::Index;
use crate::live::{Asking, LiveOptions};

/// Output formats of `qajudge diff`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum DiffFormat {
    /// A human-readable table per direction.
    Table,
    /// Markdown tables.
    Markdown,
    /// JSON.
    Json,
}

/// Arguments of `qajudge diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The gold benchmark.
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The two runs, A then B (`--run A B` or `--run A --run B`).
    #[arg(long = "run", value_name = "FILE", num_args = 1.., action = clap::ArgAction::Append, required = true)]
    pub runs: Vec<PathBuf>,
    /// Names for A and B (default: the file stems).
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,
    /// An index built with `qajudge index build` (answers of one owl:sameAs
    /// class are the same, strings match IRIs through labels).
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Scoring profile.
    #[arg(long, default_value = "judge", value_parser = profile_parser())]
    pub profile: Profile,
    /// The language of the question texts shown (default: en, else the first).
    #[arg(long)]
    pub lang: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
}

/// One question one run gets right and the other does not.
#[derive(Debug, Serialize)]
struct Differing {
    id: String,
    question: Option<String>,
    gold: Vec<String>,
    a: Side,
    b: Side,
}

/// One run's side of a differing question.
#[derive(Debug, Serialize)]
struct Side {
    status: &'static str,
    f1: f64,
    answers: Vec<String>,
}

/// The whole diff, as JSON prints it.
#[derive(Debug, Serialize)]
struct Diff {
    gold: String,
    profile: &'static str,
    run_a: String,
    run_b: String,
    /// Questions A gets right and B does not.
    a_only: Vec<Differing>,
    /// Questions B gets right and A does not.
    b_only: Vec<Differing>,
}

/// Runs `qajudge diff`.
pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    if args.runs.len() != 2 {
        bail!(
            "diff compares two runs, and {} were given: give --run A B",
            args.runs.len()
        );
    }
    let gold = super::load(&args.gold)?;
    let mut runs = Vec::with_capacity(2);
    for (i, path) in args.runs.iter().enumerate() {
        let dataset = super::load(path)?;
        let stem = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let name = args.names.get(i).cloned().unwrap_or(stem);
        runs.push(RunSource::File {
            name,
            source: path.display().to_string(),
            dataset: Box::new(dataset),
        });
    }
    let names: Vec<String> = runs.iter().map(|r| r.name().to_string()).collect();
    if names[0] == names[1] {
        bail!("both runs are named {:?}: give --name A --name B", names[0]);
    }
    let index = args.index.as_deref().map(Index::open).transpose()?;
    let index_path = args
        .index
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let job = Request {
        gold_name: args.gold.display().to_string(),
        gold: Arc::new(gold),
        benchmark: None,
        runs,
        questions: None,
        explain_failures: false,
        audit: None,
        options: Options {
            profile: args.profile,
            experiments: vec![Experiment::Qa],
            explain: true,
            lang: args.lang.clone(),
            ..Options::default()
        },
        plan: Plan::default(),
    };
    let no_systems = Asking(LiveOptions::default());
    let env = Env {
        index: index.as_ref().map(|i| IndexRef::of(i, &index_path)),
        systems: &no_systems as &dyn Systems,
        knowledge_graph: None,
        golds: None,
    };
    let report = run_job(job, &env, &Silent)?;
    let diff = diff(&report, &names[0], &names[1]);
    let out = match args.format {
        DiffFormat::Json => serde_json::to_string_pretty(&diff)? + "\n",
        DiffFormat::Table => render(&diff, false),
        DiffFormat::Markdown => render(&diff, true),
    };
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The questions of the report's QA that one run gets right and the other not.
fn diff(report: &Report, a: &str, b: &str) -> Diff {
    let questions = |name: &str| -> Vec<&QuestionReport> {
        report
            .runs
            .iter()
            .find(|r| r.name == name)
            .and_then(|r| r.experiments.qa.as_ref())
            .map(|e| e.questions.iter().collect())
            .unwrap_or_default()
    };
    let (qa, qb) = (questions(a), questions(b));
    let right =
        |q: &QuestionReport| q.score.f1 >= 1.0 && q.status != crate::eval::Status::NotEvaluable;
    let mut out = Diff {
        gold: report.gold.path.clone(),
        profile: report.profile,
        run_a: a.to_string(),
        run_b: b.to_string(),
        a_only: Vec::new(),
        b_only: Vec::new(),
    };
    for x in &qa {
        let Some(y) = qb.iter().find(|y| y.id == x.id) else {
            continue;
        };
        if right(x) == right(y) {
            continue;
        }
        let item = Differing {
            id: x.id.clone(),
            question: x.question.clone(),
            gold: answers(x, true),
            a: side(x),
            b: side(y),
        };
        if right(x) {
            out.a_only.push(item);
        } else {
            out.b_only.push(item);
        }
    }
    out
}

/// The gold (`gold`) or run answers an explanation lists, matched ones first.
fn answers(q: &QuestionReport, gold: bool) -> Vec<String> {
    let Some(x) = &q.explanation else {
        return Vec::new();
    };
    let mut list: Vec<String> = x
        .pairs
        .iter()
        .map(|p| if gold { p.gold.clone() } else { p.run.clone() })
        .collect();
    list.extend(if gold {
        x.unmatched_gold.iter().cloned()
    } else {
        x.unmatched_run.iter().cloned()
    });
    list.dedup();
    list
}

fn side(q: &QuestionReport) -> Side {
    Side {
        status: q.status.name(),
        f1: q.score.f1,
        answers: answers(q, false),
    }
}

/// The diff as two tables (plain or Markdown), one per direction.
fn render(diff: &Diff, markdown: bool) -> String {
    let mut out = format!(
        "gold: {}  profile: {}  A: {}  B: {}\n",
        diff.gold, diff.profile, diff.run_a, diff.run_b
    );
    for (title, rows) in [
        (
            format!("right in {}, not in {}", diff.run_a, diff.run_b),
            &diff.a_only,
        ),
        (
            format!("right in {}, not in {}", diff.run_b, diff.run_a),
            &diff.b_only,
        ),
    ] {
        out.push_str(&format!("\n{title}: {} question(s)\n\n", rows.len()));
        let header = ["id", "question", "F1 A", "F1 B", "gold", "A", "B"];
        let lines: Vec<[String; 7]> = rows
            .iter()
            .map(|d| {
                [
                    d.id.clone(),
                    d.question.clone().unwrap_or_default(),
                    format!("{:.4}", d.a.f1),
                    format!("{:.4}", d.b.f1),
                    list(&d.gold),
                    list(&d.a.answers),
                    list(&d.b.answers),
                ]
            })
            .collect();
        if markdown {
            let cell = |s: &str| s.replace('|', "\\|");
            out.push_str(&format!("| {} |\n", header.join(" | ")));
            out.push_str("| :--- | :--- | ---: | ---: | :--- | :--- | :--- |\n");
            for l in &lines {
                let cells: Vec<String> = l.iter().map(|c| cell(c)).collect();
                out.push_str(&format!("| {} |\n", cells.join(" | ")));
            }
        } else {
            let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
            for l in &lines {
                for (w, c) in widths.iter_mut().zip(l) {
                    *w = (*w).max(c.chars().count());
                }
            }
            let row = |cells: &[&str]| -> String {
                let padded: Vec<String> = cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect();
                padded.join("  ").trim_end().to_string() + "\n"
            };
            out.push_str(&row(&header));
            out.push_str(&format!(
                "{}\n",
                "-".repeat(widths.iter().sum::<usize>() + 2 * 6)
            ));
            for l in &lines {
                let cells: Vec<&str> = l.iter().map(String::as_str).collect();
                out.push_str(&row(&cells));
            }
        }
    }
    out
}

/// Answers joined for one cell.
fn list(answers: &[String]) -> String {
    if answers.is_empty() {
        "–".to_string()
    } else {
        answers.join("; ")
    }
}
