//! The command line's entry points for a host process: the Python binding
//! (python/, docs/python.md) runs the whole command line from an argv (its
//! console command), and `evaluate`, `check`, `features` and `sample` parsed
//! exactly as the command line parses them, with their results returned
//! instead of printed, so that Python's options are the command's by name.

mod argv;
mod language;
mod typed;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

pub use super::check::Summary;
pub use super::evaluate::ReadRun;
pub use super::sample::Drawn;
use super::{Cli, Command};
use crate::eval::Report;
use crate::model::Dataset;
use crate::sample::QuestionFeatures;
pub use argv::{arguments, kind_in, kinds, MAX_ITEMS};
pub use language::language;
pub use typed::{kind, Kind, Value, OPTIONS};

/// Options a host gave that the command line refuses: clap's message (an
/// unknown option, a missing or malformed value).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UsageError {
    /// What clap says, with its usage line.
    pub message: String,
}

/// One option of a subcommand, as a host names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionInfo {
    /// The long name with `_` for `-` (`strict_literals` for `--strict-literals`).
    pub name: String,
    /// True for a flag (no value).
    pub flag: bool,
}

/// Runs the command line from `argv` (its first item the program's name) and
/// returns its exit code (0 success, 1 failure, 2 usage).
pub fn run<I, T>(argv: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let code = super::run_from(argv);
    // a host process does not flush Rust's stdout at exit as a binary's
    // runtime does: a last line without its line break would be lost
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

/// Parses `subcommand` and `args` as `qajudge SUBCOMMAND ARGS…`, with the
/// global `--max-input-mb` as the limit of this call, on this thread, until
/// the returned guard drops: calls on other threads keep their own.
fn parse(
    subcommand: &str,
    args: &[OsString],
) -> anyhow::Result<(Command, super::input::CallLimit)> {
    let argv = [OsString::from("qajudge"), OsString::from(subcommand)]
        .into_iter()
        .chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv).map_err(|e| UsageError {
        message: e.render().to_string().trim_end().to_string(),
    })?;
    let limit = super::input::CallLimit::set(cli.max_input_mb);
    Ok((cli.command, limit))
}

/// The options of a subcommand (`evaluate`, `features`, `sample`, `index
/// build`: nested ones by their words), with the global `max_input_mb`;
/// empty for an unknown subcommand.
pub fn options(subcommand: &str) -> Vec<OptionInfo> {
    let mut command = Cli::command();
    command.build();
    // a nested subcommand by its words: `index build`
    let mut sub = &command;
    for word in subcommand.split_whitespace() {
        match sub.find_subcommand(word) {
            Some(s) => sub = s,
            None => return Vec::new(),
        }
    }
    sub.get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            if long == "help" || long == "version" {
                return None;
            }
            Some(OptionInfo {
                name: long.replace('-', "_"),
                flag: !a.get_action().takes_values(),
            })
        })
        .collect()
}

/// The report `qajudge evaluate ARGS…` prints, returned (`--format` and
/// `--per-question` shape only the printed text, so they do not matter here).
/// `read` holds runs already read, by position among the `--run` files, whose
/// paths then only name them.
pub fn evaluate(args: &[OsString], read: Vec<Option<ReadRun>>) -> anyhow::Result<Report> {
    evaluate_until(args, read, crate::eval::Deadline::default())
}

/// [`evaluate`], stopping at `deadline` (the host's interrupt: Python's
/// Ctrl-C), when the evaluation is an error.
pub fn evaluate_until(
    args: &[OsString],
    read: Vec<Option<ReadRun>>,
    deadline: crate::eval::Deadline,
) -> anyhow::Result<Report> {
    match parse("evaluate", args)? {
        (Command::Evaluate(a), _limit) => super::evaluate::report(&a, read, deadline),
        _ => unreachable!("parsed as the evaluate subcommand"),
    }
}

/// The report of `evaluate` with the run files `runs` named `names` (empty:
/// the command's default names) and the host's typed `options` (by keyword,
/// see [`OPTIONS`]), set on the command's arguments field by field — never a
/// command line parsed again. `read` and `deadline` are [`evaluate_until`]'s.
pub fn evaluate_typed(
    runs: Vec<PathBuf>,
    names: Vec<String>,
    options: Vec<(String, Value)>,
    read: Vec<Option<ReadRun>>,
    deadline: crate::eval::Deadline,
    progress: &Counter,
) -> anyhow::Result<Report> {
    let (args, max_input_mb) = typed::arguments(runs, names, options)?;
    // the call's limit when given, else the process's
    let _limit = max_input_mb.map(super::input::CallLimit::set);
    super::evaluate::report_with(&args, read, deadline, progress)
}

/// The progress of an evaluation as two numbers another thread reads (a
/// host's progress bar polls them): the questions asked of live systems and
/// the queries executed so far (`done`) of all there are (`total`).
#[derive(Debug, Default)]
pub struct Counter {
    done: std::sync::atomic::AtomicUsize,
    total: std::sync::atomic::AtomicUsize,
}

impl Counter {
    /// (done, total) now.
    pub fn get(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.done.load(Relaxed), self.total.load(Relaxed))
    }

    fn set(&self, done: usize, total: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        self.total.store(total, Relaxed);
        self.done.store(done, Relaxed);
    }
}

impl crate::eval::job::Progress for Counter {
    fn asked(&self, done: usize, total: usize) {
        self.set(done, total);
    }

    fn executed(&self, done: usize, total: usize) {
        self.set(done, total);
    }
}

/// Reads a benchmark or run given as an object (its JSON text in `bytes`),
/// as a file of that content is read ([`crate::qald::parse_document`]; `name`
/// stands for its path in messages).
pub fn read(bytes: &[u8], name: &str) -> Result<Dataset, crate::qald::QaldError> {
    crate::qald::parse_document(bytes, name)
}

/// What `qajudge check FILE` says of a file.
pub fn check(path: &Path) -> Summary {
    super::check::summary(path)
}

/// The features `qajudge features ARGS… --format json` prints, returned.
pub fn features(args: &[OsString]) -> anyhow::Result<Vec<QuestionFeatures>> {
    let (Command::Features(a), _limit) = parse("features", args)? else {
        unreachable!("parsed as the features subcommand")
    };
    crate::sample::pos::warm();
    let dataset = super::load(&a.gold)?;
    let index = a
        .index
        .as_deref()
        .map(crate::index::Index::open)
        .transpose()?;
    Ok(crate::sample::named::features_of(
        &dataset,
        &a.lang,
        index.as_ref(),
        crate::eval::DEFAULT_MAX_CLASS_SIZE,
    )?)
}

/// The audit `qajudge audit ARGS… --format json` prints, returned.
pub fn audit(args: &[OsString]) -> anyhow::Result<crate::audit::AuditReport> {
    let (Command::Audit(a), _limit) = parse("audit", args)? else {
        unreachable!("parsed as the audit subcommand")
    };
    super::audit::report(&a)
}

/// What `qajudge reproduce` finds of a report (docs/reproduce.md): the file
/// `path` (read within the command line's input bound) or, without one, the
/// report's JSON `text`; its inputs looked for under `inputs` too; with
/// `re_execute`, its live sources asked again for their drift.
pub fn reproduce(
    path: Option<&Path>,
    text: Option<&str>,
    inputs: Option<&Path>,
    re_execute: bool,
) -> anyhow::Result<super::reproduce::Outcome> {
    use super::reproduce::check;
    match (path, text) {
        (Some(path), _) => {
            let bytes = super::input::read(path)?;
            check(&bytes, &path.display().to_string(), inputs, re_execute)
        }
        (None, Some(text)) => check(text.as_bytes(), "the report", inputs, re_execute),
        (None, None) => anyhow::bail!("no report: give its file or its JSON"),
    }
}

/// Runs `qajudge SUBCOMMAND ARGS…` (`refresh`, `index build`, `index
/// fetch`, …) in process with its output on this process's stdout, parsed
/// as the command line parses it; its exit code.
pub fn command(subcommand: &str, args: &[OsString]) -> anyhow::Result<u8> {
    // a nested subcommand's words come first: `index build` is `index` with
    // `build` before its options
    let mut words = subcommand.split_whitespace();
    let first = words.next().unwrap_or_default();
    let args: Vec<OsString> = words
        .map(OsString::from)
        .chain(args.iter().cloned())
        .collect();
    let (command, _limit) = parse(first, &args)?;
    let code = super::dispatch(command)?;
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    Ok((0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1))
}

/// Draws the sample `qajudge sample ARGS…` draws, writing its files into
/// `--out` as the command does, and returns what `--format json` prints.
pub fn sample(args: &[OsString]) -> anyhow::Result<Drawn> {
    let (Command::Sample(a), _limit) = parse("sample", args)? else {
        unreachable!("parsed as the sample subcommand")
    };
    super::sample::draw_into(&a)
}

/// The report as `--format latex` prints it (tables of the sub-experiments it
/// holds, marks against `baseline`).
pub fn latex(report: &Report, baseline: Option<&str>) -> String {
    super::paper::latex(report, baseline)
}

/// [`latex`] with the caller's caption and label (`caption`: the caption of
/// a lone table, or the start of each table's; `label`: its `\label`).
pub fn latex_titled(
    report: &Report,
    baseline: Option<&str>,
    caption: Option<&str>,
    label: Option<&str>,
) -> String {
    super::paper::latex_titled(report, baseline, &super::paper::Titles { caption, label })
}

/// The report as `--format markdown` prints it.
pub fn markdown(report: &Report, baseline: Option<&str>) -> String {
    super::paper::markdown(report, baseline)
}

/// The report as the default table prints it (`per_question`: a row per question).
pub fn table(report: &Report, per_question: bool) -> String {
    super::render::table(report, per_question)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo(rest: &[&str]) -> Vec<OsString> {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut args: Vec<OsString> = vec![
            "--gold".into(),
            format!("{root}/tests/data/demo/gold.json").into(),
            "--run".into(),
            format!("{root}/tests/data/demo/example-system.json").into(),
        ];
        args.extend(rest.iter().map(OsString::from));
        args
    }

    #[test]
    fn evaluate_returns_the_report_the_command_prints() {
        let report = evaluate(&demo(&[]), Vec::new()).expect("the demo scores");
        assert_eq!(report.runs.len(), 1);
        assert_eq!(report.runs[0].name, "example-system");
        assert_eq!(report.gold.questions, 13);
        // an unknown option is the command line's usage error, typed
        let e = evaluate(&demo(&["--no-such-option"]), Vec::new()).expect_err("refused");
        let usage = e.downcast_ref::<UsageError>().expect("a usage error");
        assert!(usage.message.contains("--no-such-option"), "{usage}");
    }

    #[test]
    fn a_run_already_read_replaces_its_file_and_keeps_its_source() {
        let root = env!("CARGO_MANIFEST_DIR");
        let bytes = std::fs::read(format!("{root}/tests/data/demo/example-system.json"))
            .expect("the demo run");
        let dataset = read(&bytes, "mine").expect("it reads");
        let args = demo(&[]);
        let from_file = evaluate(&args, Vec::new()).expect("scored");
        let mut args = args;
        args[3] = "mine.json".into();
        let from_memory = evaluate(
            &args,
            vec![Some(ReadRun {
                source: "(memory)".into(),
                dataset,
            })],
        )
        .expect("scored");
        assert_eq!(from_memory.runs[0].name, "mine");
        assert_eq!(from_memory.runs[0].source, "(memory)");
        assert_eq!(
            serde_json::to_value(&from_memory.runs[0].experiments).expect("json"),
            serde_json::to_value(&from_file.runs[0].experiments).expect("json")
        );
    }

    #[test]
    fn options_name_the_flags_and_the_valued_options() {
        let evaluate = options("evaluate");
        let find = |n: &str| evaluate.iter().find(|o| o.name == n).cloned();
        assert_eq!(find("strict_literals").map(|o| o.flag), Some(true));
        assert_eq!(find("gold").map(|o| o.flag), Some(false));
        assert_eq!(find("max_input_mb").map(|o| o.flag), Some(false));
        assert!(find("help").is_none());
        assert!(options("no-such-command").is_empty());
    }

    #[test]
    fn run_passes_the_exit_code_through() {
        assert_eq!(run(["qajudge", "--version"]), 0);
        assert_eq!(run(["qajudge", "evaluate", "--no-such-option"]), 2);
        assert_eq!(run(["qajudge", "check", "/no/such/file.json"]), 1);
    }
}
