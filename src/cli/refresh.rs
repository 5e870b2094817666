//! `qajudge refresh`: execute every gold query of a benchmark on a knowledge
//! graph and write a QALD-JSON benchmark whose answers are the results (GERBIL
//! QA's "update answers" for a new knowledge-graph version); says which
//! questions changed, which failed and why.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use super::args::KgArgs;
use super::evaluate::query_bar;
use super::outln;
use crate::sparql::{execute_dataset, Mode};

/// Arguments of `qajudge refresh`.
#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// The benchmark whose queries are executed (any format qajudge reads).
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The knowledge graph.
    #[command(flatten)]
    pub kg: KgArgs,
    /// Where to write the refreshed benchmark (QALD-JSON).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Runs `qajudge refresh`.
pub fn run(args: RefreshArgs) -> anyhow::Result<ExitCode> {
    if !args.kg.given() {
        bail!("refresh executes the gold queries: give the knowledge graph with --kg FILE... or --endpoint URL");
    }
    let mut gold = super::load(&args.gold)?;
    let Some(kg) = args.kg.open()? else {
        bail!("no knowledge graph");
    };
    let bar = query_bar();
    bar.set_message("gold");
    let summary = execute_dataset(
        &kg,
        &mut gold,
        Mode::All,
        false,
        args.kg.options(),
        &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    let doc = crate::qald::to_qald_json(&gold, &summary.columns);
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    std::fs::write(&args.out, text)
        .with_context(|| format!("cannot write {}: check the path", args.out.display()))?;
    let without = gold.questions.len() - summary.executed;
    outln!(
        "executed {} of {} questions' queries on {}{}",
        summary.executed,
        gold.questions.len(),
        kg.info.endpoint.as_deref().unwrap_or(&kg.info.store),
        if without > 0 {
            format!(" ({without} without a SPARQL query kept as they were)")
        } else {
            String::new()
        }
    )?;
    for (status, n) in &summary.by_status {
        outln!("  {status}: {n}")?;
    }
    if !summary.changed.is_empty() {
        outln!(
            "answers changed for {} question(s): {}",
            summary.changed.len(),
            summary.changed.join(", ")
        )?;
    }
    for (id, why) in &summary.failed {
        outln!("failed {id}: {why}")?;
    }
    outln!("wrote {}", args.out.display())?;
    Ok(ExitCode::SUCCESS)
}
