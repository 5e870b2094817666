//! `qajudge check FILE`: load a benchmark or run and report what it holds and what
//! is wrong with it, with locations: problems per question, keys the reader does
//! not know, answer objects whose data yields no answer. Exit 1 when the file is
//! unusable or answers would be lost.

use super::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::model::{Dataset, Query};

/// Arguments of `qajudge check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The benchmark or run file.
    pub file: PathBuf,
}

/// What `qajudge check` says of a file (the Python binding's `check` returns
/// it as a dictionary).
#[derive(Debug, Serialize)]
pub struct Summary {
    /// The file.
    pub path: String,
    /// False when the file cannot be read as a benchmark or run, answers
    /// would be lost: exit 1. A file of no question is usable as a run (it
    /// answered nothing; `evaluate` scores every gold question missing) and
    /// says so.
    pub usable: bool,
    /// Why the file cannot be read at all (then the counts are zero).
    pub problem: Option<String>,
    /// The reader's location of that problem, when it has one: 1-based line.
    pub line: Option<usize>,
    /// And 1-based column.
    pub column: Option<usize>,
    /// The format read (`qald-json`, `lcquad`, …).
    pub format: Option<&'static str>,
    /// The compression the file was read through (`gzip`, `bzip2`, `zstd`,
    /// `zip`), told by its first bytes; `None` for a plain file.
    pub compression: Option<&'static str>,
    /// The dataset id the file declares.
    pub dataset_id: Option<String>,
    /// Questions.
    pub questions: usize,
    /// Questions with an answer set.
    pub with_answers: usize,
    /// Of those, the empty ones.
    pub empty: usize,
    /// Answers in all.
    pub answers: usize,
    /// Questions with a SPARQL query.
    pub sparql: usize,
    /// Questions with a pseudo query (a logical form).
    pub pseudo: usize,
    /// The languages of the question texts, sorted.
    pub languages: Vec<String>,
    /// The dataset's metadata, as the file gives it.
    pub metadata: Option<String>,
    /// Questions with entity, class or property annotations.
    pub annotated: usize,
    /// Annotated entities, classes, properties and triples, in all.
    pub annotations: [usize; 4],
    /// Keys the reader does not know: (where, how often, an example question).
    pub unknown_keys: Vec<(String, usize, String)>,
    /// Problems of the file and of its questions, with their locations.
    pub problems: Vec<String>,
    /// Answer objects whose data yields no answer.
    pub answers_lost: usize,
}

/// The summary of a file: what it holds and what is wrong with it.
pub fn summary(path: &Path) -> Summary {
    let mut out = Summary::unread(path);
    let loaded = super::input::read_compressed(path).and_then(|(bytes, compression)| {
        out.compression = compression;
        Ok(crate::qald::parse(&bytes, &path.display().to_string())?)
    });
    let dataset: Dataset = match loaded {
        Ok(d) => d,
        Err(e) => {
            if let Some(crate::qald::QaldError::Syntax { line, column, .. }) =
                e.downcast_ref::<crate::qald::QaldError>()
            {
                out.line = Some(*line);
                out.column = Some(*column);
            }
            out.problem = Some(format!("{e:#}"));
            return out;
        }
    };
    out.format = Some(dataset.format.name());
    out.dataset_id.clone_from(&dataset.id);
    out.count(&dataset);
    out.metadata.clone_from(&dataset.metadata);
    out.unknown_keys = dataset
        .unknown_keys
        .iter()
        .map(|k| (k.path.clone(), k.count, k.example.clone()))
        .collect();
    // every question's problem names its question
    out.problems = dataset
        .diagnostics
        .iter()
        .cloned()
        .chain(dataset.questions.iter().flat_map(|q| {
            q.diagnostics.iter().map(move |d| {
                if d.contains(q.id.0.as_str()) {
                    d.clone()
                } else {
                    format!("question {}: {d}", q.id)
                }
            })
        }))
        .collect();
    out.answers_lost = dataset.lost.len();
    out.usable = out.answers_lost == 0;
    out
}

impl Summary {
    /// The summary of a file not read (yet): nothing counted, not usable.
    fn unread(path: &Path) -> Summary {
        Summary {
            path: path.display().to_string(),
            usable: false,
            problem: None,
            line: None,
            column: None,
            format: None,
            compression: None,
            dataset_id: None,
            questions: 0,
            with_answers: 0,
            empty: 0,
            answers: 0,
            sparql: 0,
            pseudo: 0,
            languages: Vec::new(),
            metadata: None,
            annotated: 0,
            annotations: [0; 4],
            unknown_keys: Vec::new(),
            problems: Vec::new(),
            answers_lost: 0,
        }
    }

    /// Counts what the dataset's questions hold: answers, queries, the
    /// languages of their texts and their annotations.
    fn count(&mut self, dataset: &Dataset) {
        let qs = &dataset.questions;
        self.questions = qs.len();
        self.with_answers = qs.iter().filter(|q| q.answers.is_some()).count();
        self.empty = qs
            .iter()
            .filter(|q| {
                q.answers
                    .as_ref()
                    .is_some_and(super::super::model::AnswerSet::is_empty)
            })
            .count();
        self.answers = qs
            .iter()
            .filter_map(|q| q.answers.as_ref())
            .map(|a| a.answers.len())
            .sum();
        self.sparql = qs
            .iter()
            .filter(|q| matches!(q.query, Query::Sparql(_)))
            .count();
        self.pseudo = qs
            .iter()
            .filter(|q| matches!(q.query, Query::Pseudo(_)))
            .count();
        let mut langs: Vec<&str> = qs
            .iter()
            .flat_map(|q| q.texts.iter().map(|(l, _)| l.as_str()))
            .collect();
        langs.sort_unstable();
        langs.dedup();
        self.languages = langs.into_iter().map(str::to_string).collect();
        self.annotated = qs
            .iter()
            .filter(|q| !q.entities.is_empty() || !q.classes.is_empty() || !q.properties.is_empty())
            .count();
        self.annotations = [
            qs.iter().map(|q| q.entities.len()).sum(),
            qs.iter().map(|q| q.classes.len()).sum(),
            qs.iter().map(|q| q.properties.len()).sum(),
            qs.iter().map(|q| q.triples.len()).sum(),
        ];
    }
}

/// Runs `qajudge check`.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let s = summary(&args.file);
    let (Some(format), None) = (s.format, &s.problem) else {
        outln!("{}: unusable", args.file.display())?;
        outln!("  problem: {}", s.problem.as_deref().unwrap_or_default())?;
        return Ok(ExitCode::from(1));
    };
    outln!("{}: {format}", args.file.display())?;
    if let Some(compression) = s.compression {
        outln!("  compression: {compression}")?;
    }
    if let Some(id) = &s.dataset_id {
        outln!("  dataset id: {id}")?;
    }
    outln!("  questions: {}", s.questions)?;
    outln!(
        "  with answers: {} ({} empty, {} answers in all)",
        s.with_answers,
        s.empty,
        s.answers
    )?;
    outln!(
        "  queries: {} sparql, {} pseudo, {} none",
        s.sparql,
        s.pseudo,
        s.questions - s.sparql - s.pseudo
    )?;
    outln!("  languages: {}", s.languages.join(", "))?;
    if let Some(m) = &s.metadata {
        outln!("  dataset metadata: {m}")?;
    }
    if s.annotated > 0 {
        let [entities, classes, properties, triples] = s.annotations;
        outln!(
            "  annotated: {} ({entities} entities, {classes} classes, {properties} properties, {triples} triples)",
            s.annotated
        )?;
    }
    outln!("  unknown keys: {}", s.unknown_keys.len())?;
    for (path, count, example) in &s.unknown_keys {
        outln!("    {path} ({count}×, e.g. question {example})")?;
    }
    outln!("  problems: {}", s.problems.len())?;
    for p in &s.problems {
        outln!("    {p}")?;
    }
    if s.answers_lost > 0 {
        outln!(
            "  answers lost: {} answer object(s) hold data that yields no answer; fix them before scoring",
            s.answers_lost
        )?;
        return Ok(ExitCode::from(1));
    }
    if s.questions == 0 {
        outln!("  the file holds no question: as a run, it answered nothing (evaluate counts every gold question missing); as a gold, there is nothing to score")?;
    }
    Ok(ExitCode::SUCCESS)
}
