//! `qajudge check FILE`: load a benchmark or run and report what it holds and what
//! is wrong with it, with locations. Exit 1 when the file is unusable.

use super::outln;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::model::Query;

/// Arguments of `qajudge check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The benchmark or run file.
    pub file: PathBuf,
}

/// Runs `qajudge check`.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let dataset = match super::load(&args.file) {
        Ok(d) => d,
        Err(e) => {
            outln!("{}: unusable", args.file.display())?;
            outln!("  problem: {e:#}")?;
            return Ok(ExitCode::from(1));
        }
    };
    let qs = &dataset.questions;
    let with_answers = qs.iter().filter(|q| q.answers.is_some()).count();
    let empty = qs
        .iter()
        .filter(|q| {
            q.answers
                .as_ref()
                .is_some_and(super::super::model::AnswerSet::is_empty)
        })
        .count();
    let answers: usize = qs
        .iter()
        .filter_map(|q| q.answers.as_ref())
        .map(|a| a.answers.len())
        .sum();
    let sparql = qs
        .iter()
        .filter(|q| matches!(q.query, Query::Sparql(_)))
        .count();
    let pseudo = qs
        .iter()
        .filter(|q| matches!(q.query, Query::Pseudo(_)))
        .count();
    let mut langs: Vec<&str> = qs
        .iter()
        .flat_map(|q| q.texts.iter().map(|(l, _)| l.as_str()))
        .collect();
    langs.sort_unstable();
    langs.dedup();
    outln!("{}: {}", args.file.display(), dataset.format.name())?;
    if let Some(id) = &dataset.id {
        outln!("  dataset id: {id}")?;
    }
    outln!("  questions: {}", qs.len())?;
    outln!("  with answers: {with_answers} ({empty} empty, {answers} answers in all)")?;
    outln!(
        "  queries: {sparql} sparql, {pseudo} pseudo, {} none",
        qs.len() - sparql - pseudo
    )?;
    outln!("  languages: {}", langs.join(", "))?;
    let problems: Vec<&String> = dataset
        .diagnostics
        .iter()
        .chain(qs.iter().flat_map(|q| &q.diagnostics))
        .collect();
    outln!("  problems: {}", problems.len())?;
    for p in problems {
        outln!("    {p}")?;
    }
    if qs.is_empty() {
        outln!("  the file holds no question: it cannot be evaluated")?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
