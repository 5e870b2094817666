//! The command line: clap definitions and one file per subcommand. The only place,
//! with `main.rs`, that prints to stdout or reads files for the evaluator.

mod annotate;
mod args;
mod audit;
mod check;
mod csv;
mod diff;
pub mod embed;
mod evaluate;
mod failures;
mod features;
mod fetch;
mod index;
mod input;
mod paper;
mod progress;
mod refresh;
mod render;
mod reproduce;
mod sample;
mod serve;
mod terminal;

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::model::Dataset;

/// What `--version` prints after the name: the crate's version (the
/// workspace's, Cargo.toml) and the index format this build writes
/// ([`crate::index::format::FORMAT_VERSION`]).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (index format {})",
        env!("CARGO_PKG_VERSION"),
        crate::index::format::FORMAT_VERSION
    )
});

/// Judge question-answering systems over knowledge graphs.
#[derive(Debug, Parser)]
#[command(name = "qajudge", version = VERSION.as_str(), about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
    /// The largest benchmark, run, `--kg` or `--provenance` file read, in MiB
    /// (index build inputs are limited per line instead: `--max-line-kb`).
    #[arg(long, global = true, value_name = "MIB", default_value_t = input::DEFAULT_MAX_INPUT_MB)]
    pub max_input_mb: u64,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score one or more runs against a gold benchmark.
    Evaluate(evaluate::EvaluateArgs),
    /// The questions one run gets right and another does not, with the question
    /// text, the gold answers and both runs' answers.
    Diff(diff::DiffArgs),
    /// Validate a benchmark or run file and say what it holds.
    Check(check::CheckArgs),
    /// Print the markings and features of a query or of every question of a file.
    Annotate(annotate::AnnotateArgs),
    /// Print the QaldGen question features and LSQ query features of every
    /// question of a benchmark (table, CSV or JSON).
    Features(features::FeaturesArgs),
    /// Build an index from RDF dumps or SPARQL endpoints, or print its metadata.
    Index(index::IndexArgs),
    /// Print the owl:sameAs class of IRIs (JSON).
    Sameas(index::SameAsArgs),
    /// Print the IRIs that carry a label (JSON).
    Labels(index::LabelsArgs),
    /// Print the classes of an IRI (JSON).
    Types(index::TypesArgs),
    /// Draw a micro-benchmark from a benchmark's questions by their features
    /// (FEASIBLE or at random) and write it as a benchmark and a list of ids.
    Sample(sample::SampleArgs),
    /// Serve the JSON API, stored experiments and the web page over HTTP.
    Serve(serve::ServeArgs),
    /// Execute every gold query on a knowledge graph and write the benchmark
    /// with the results as answers (QALD-JSON).
    Refresh(refresh::RefreshArgs),
    /// Check a benchmark's gold before systems are scored on it: queries that
    /// are wrong, unstable or store-dependent, answers that are stale
    /// (docs/audit.md).
    Audit(audit::AuditArgs),
    /// Check a report's receipt: find its inputs and their digests, evaluate
    /// again from the receipt alone and compare every figure
    /// (docs/reproduce.md).
    Reproduce(reproduce::ReproduceArgs),
}

/// Writes a line to stdout, returning the error (a pipe closed early) instead of
/// panicking as `println!` does.
/// Whatever it prints passes through `terminal::printable`: a text from
/// outside cannot move the cursor, ring or write the clipboard.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        writeln!(std::io::stdout().lock(), "{}", $crate::cli::terminal::printable(&line))
    }};
}
pub(crate) use outln;

/// True when the error is a write to a pipe whose reader has gone
/// (`qajudge evaluate … | head`): the output was not wanted any more.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Parses the command line and runs it; the exit code follows the project's rule
/// (0 success, 1 failure, 2 usage).
pub fn run() -> ExitCode {
    run_from(std::env::args_os())
}

/// Parses `argv` (its first item the program's name) as the command line and
/// runs it, as [`run`] does with the process's own arguments: a usage error,
/// `--help` and `--version` print clap's text and return its exit code.
pub fn run_from<I, T>(argv: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            // what clap's own exit would print, on stdout or stderr as it says
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    input::set_max_input_mb(cli.max_input_mb);
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", terminal::printable(&format!("{e:#}")));
            ExitCode::from(1)
        }
    }
}

/// Runs a parsed subcommand; its exit code, or its error.
fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Evaluate(args) => evaluate::run(args),
        Command::Check(args) => check::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Annotate(args) => annotate::run(args),
        Command::Features(args) => features::run(args),
        Command::Index(args) => index::run(args),
        Command::Sameas(args) => index::run_sameas(args),
        Command::Labels(args) => index::run_labels(args),
        Command::Types(args) => index::run_types(args),
        Command::Sample(args) => sample::run(args),
        Command::Serve(args) => serve::run_serve(args),
        Command::Refresh(args) => refresh::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Reproduce(args) => reproduce::run(args),
    }
}

/// Reads and parses a benchmark or run file: a regular file within
/// `--max-input-mb` (see [`input`]).
pub(crate) fn load(path: &Path) -> anyhow::Result<Dataset> {
    let bytes = input::read(path)?;
    Ok(crate::qald::parse(&bytes, &path.display().to_string())?)
}
