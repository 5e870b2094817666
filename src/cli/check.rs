//! `qajudge check FILE`: load a benchmark or run and report what it holds and what
//! is wrong with it, with locations: problems per question, keys the reader does
//! not know, answer objects whose data yields no answer. Exit 1 when the file is
//! unusable or answers would be lost.

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
    if let Some(m) = &dataset.metadata {
        outln!("  dataset metadata: {m}")?;
    }
    let annotated = qs
        .iter()
        .filter(|q| !q.entities.is_empty() || !q.classes.is_empty() || !q.properties.is_empty())
        .count();
    if annotated > 0 {
        outln!(
            "  annotated: {annotated} ({} entities, {} classes, {} properties, {} triples)",
            qs.iter().map(|q| q.entities.len()).sum::<usize>(),
            qs.iter().map(|q| q.classes.len()).sum::<usize>(),
            qs.iter().map(|q| q.properties.len()).sum::<usize>(),
            qs.iter().map(|q| q.triples.len()).sum::<usize>()
        )?;
    }
    outln!("  unknown keys: {}", dataset.unknown_keys.len())?;
    for k in &dataset.unknown_keys {
        outln!("    {} ({}×, e.g. question {})", k.path, k.count, k.example)?;
    }
    let problems: Vec<&String> = dataset
        .diagnostics
        .iter()
        .chain(qs.iter().flat_map(|q| &q.diagnostics))
        .collect();
    outln!("  problems: {}", problems.len())?;
    for p in problems {
        outln!("    {p}")?;
    }
    if !dataset.lost.is_empty() {
        outln!(
            "  answers lost: {} answer object(s) hold data that yields no answer; fix them before scoring",
            dataset.lost.len()
        )?;
        return Ok(ExitCode::from(1));
    }
    if qs.is_empty() {
        outln!("  the file holds no question: it cannot be evaluated")?;
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
