//! `qajudge annotate`: the annotator alone. Prints the markings (C2KB resources,
//! P2KB properties, RE2KB triples, answer type, answer item types), the features
//! and the modifiers of a query or of every question of a benchmark, as JSON.

use super::outln;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Args};

use crate::annotate::annotate_question;
use crate::matching::MatchOptions;
use crate::model::{Query, Question, QuestionId};

/// Arguments of `qajudge annotate`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["sparql", "gold"])))]
pub struct AnnotateArgs {
    /// A SPARQL query to annotate.
    #[arg(long, value_name = "QUERY")]
    pub sparql: Option<String>,
    /// A benchmark or run file: annotate every question (one JSON object each).
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
}

/// Runs `qajudge annotate`.
pub fn run(args: AnnotateArgs) -> anyhow::Result<ExitCode> {
    let opts = MatchOptions::default();
    if let Some(sparql) = args.sparql {
        let q = Question {
            id: QuestionId("query".into()),
            query: Query::Sparql(sparql),
            ..Question::default()
        };
        let a = annotate_question(&q, opts);
        let failed = a.markings.triples.is_none();
        outln!("{}", serde_json::to_string_pretty(&a)?)?;
        if failed {
            eprintln!("error: {}", a.diagnostics.join("; "));
            return Ok(ExitCode::from(1));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.gold.unwrap_or_default();
    let dataset = super::load(&path)?;
    let all: Vec<_> = dataset
        .questions
        .iter()
        .map(|q| annotate_question(q, opts))
        .collect();
    let unparsed = all
        .iter()
        .filter(|a| {
            a.diagnostics
                .iter()
                .any(|d| d.contains("does not parse") || d.contains("too large to read"))
        })
        .count();
    outln!("{}", serde_json::to_string_pretty(&all)?)?;
    eprintln!(
        "{}: {} questions annotated, {} queries could not be read",
        path.display(),
        all.len(),
        unparsed
    );
    Ok(ExitCode::SUCCESS)
}
