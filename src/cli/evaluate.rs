//! `qajudge evaluate`: load a gold benchmark and runs, evaluate, print the report
//! as a table, JSON or CSV. This file holds the command's arguments, checks
//! them and runs the evaluation job; the gold's other sources and side files
//! are `evaluate/gold.rs`'s, the LLM judge's options `evaluate/llm_args.rs`'s.

mod gold;
mod llm_args;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::bail;
use clap::{Args, ValueEnum};

use super::args::{parse_experiment, parse_feature, profile_parser, KgArgs, LiveArgs};

use super::progress::Bars;
use super::{paper, render};
use crate::eval::job::{run_job, Env, Executor, Plan, Request, RunSource, CONFIDENCE_RESAMPLES};
use crate::eval::recorded::Recorded;
use crate::eval::{Experiment, GoldMarkings, IndexRef, Options, Profile, DEFAULT_MAX_CLASS_SIZE};
use crate::index::Index;
use crate::live::{protocol_for, Asking, LiveOptions, Protocol, Replaying};
use crate::sparql::{Executing, KnowledgeGraph};
use crate::wordnet::{WordNet, WordNetError};
use gold::{audited, own_gold, question_ids};
pub(super) use gold::{load_ontology, load_train, ontology_digest};
pub use llm_args::LlmArgs;

/// Output formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// A human-readable table.
    Table,
    /// The JSON report (docs/report.md).
    Json,
    /// One CSV row per run (or per question with --per-question).
    Csv,
    /// A LaTeX table (booktabs) per sub-experiment for a paper: runs as rows,
    /// best values in bold, marks against --baseline (QA only unless
    /// --experiments says otherwise).
    Latex,
    /// The same tables in Markdown.
    Markdown,
}

/// What `--explain` shows.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ExplainArg {
    /// Every matched pair and every unmatched answer.
    All,
    /// Only the missed and wrong answers.
    Errors,
}

/// Where the gold's markings come from, on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum GoldMarkingsArg {
    /// Annotations when the file has them, else the query (docs/scoring.md, Sub-experiments).
    Auto,
    /// The query only.
    Query,
}

impl From<GoldMarkingsArg> for GoldMarkings {
    fn from(g: GoldMarkingsArg) -> GoldMarkings {
        match g {
            GoldMarkingsArg::Auto => GoldMarkings::Auto,
            GoldMarkingsArg::Query => GoldMarkings::Query,
        }
    }
}

/// Arguments of `qajudge evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// The gold benchmark (QALD-JSON, QALD-XML, eQALD, LC-QuAD, RuBQ, and the
    /// families of docs/scoring.md, Other benchmark families). Without it, the
    /// gold is the one the run files carry (a SPINACH run's gold answers, an
    /// LLM prediction file's `ground_truth`, T2S-Metrics' `golden` queries).
    #[arg(long, value_name = "FILE", required_unless_present = "runs")]
    pub gold: Option<PathBuf>,
    /// The gold's answers from another file, by question id: the TEXT2SPARQL
    /// result set (`*_true_result_set.json`) beside its benchmark YAML, whose
    /// texts, languages and `RESULT_ORDER_MATTERS` flags are kept
    /// (docs/scoring.md, Reading).
    #[arg(long, value_name = "FILE", requires = "gold")]
    pub gold_answers: Option<PathBuf>,
    /// GrailQA's Freebase schema files (`fb_roles`, `fb_types`,
    /// `reverse_properties`) in DIR, which the `grailqa` profile types
    /// logical forms with (docs/scoring.md, Other benchmark families).
    #[arg(long, value_name = "DIR")]
    pub ontology: Option<PathBuf>,
    /// KQA Pro's training set (`train.json`), from which the `kqapro` profile
    /// counts the script's `zero-shot` category: the questions whose answer
    /// no training question has (docs/scoring.md, The `kqapro` profile).
    #[arg(long, value_name = "FILE")]
    pub train: Option<PathBuf>,
    /// Score only these questions of the gold: a file of question ids, one per
    /// line (blank lines and lines starting with `#` are skipped), for a
    /// micro-benchmark drawn from a benchmark without rewriting it.
    #[arg(long, value_name = "FILE", conflicts_with = "sample")]
    pub questions: Option<PathBuf>,
    /// Score only the questions of a sample `qajudge sample` drew: its
    /// `--out` directory (its ids.txt is read, as `--questions` reads a file).
    #[arg(long, value_name = "DIR")]
    pub sample: Option<PathBuf>,
    /// Runs to score: one or more files after one flag (`--run a.json b.json`,
    /// shell globs), or the flag repeated.
    #[arg(
        long = "run",
        value_name = "FILE",
        num_args = 1..,
        action = clap::ArgAction::Append,
        required_unless_present = "systems"
    )]
    pub runs: Vec<PathBuf>,
    /// A live QA system to ask every gold question, in the API of --protocol;
    /// repeatable. Scored after the run files.
    #[arg(long = "system-url", value_name = "URL")]
    pub systems: Vec<String>,
    /// How live QA systems are called.
    #[command(flatten)]
    pub live: LiveArgs,
    /// The language of the question texts sent to QA systems (default: en), and
    /// the language a run question counts under for `--by language` when its run
    /// file does not say.
    #[arg(long)]
    pub lang: Option<String>,
    /// A name for each run, in the order of --run (default: the file stem).
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Add a row per question.
    #[arg(long)]
    pub per_question: bool,
    /// Scoring profile.
    #[arg(long, default_value = "judge", value_parser = profile_parser())]
    pub profile: Profile,
    /// Compare literals as exact strings: no case folding, no number or date rules.
    #[arg(long)]
    pub strict_literals: bool,
    /// Let a gYear equal a date of that year.
    #[arg(long)]
    pub lenient_dates: bool,
    /// Add 95% bootstrap confidence intervals over questions (1000 resamples, fixed seed).
    #[arg(long, alias = "ci")]
    pub confidence: bool,
    /// Compare every other run with this one (by its name) instead of every
    /// two runs; paper tables mark significant differences against it
    /// (docs/scoring.md, Comparing runs).
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// A run answer that means "I do not know": a question answered with it
    /// (and nothing else) counts as abstained, not wrong, as does one with
    /// `"abstained": true` (docs/scoring.md, Abstention and truthfulness).
    #[arg(long, value_name = "TEXT")]
    pub abstain_marker: Option<String>,
    /// The WordNet 3.0 dictionary directory (holding index.noun) of the
    /// t2s-metrics profile's `meteor`; without it, NLTK's places
    /// (NLTK_DATA, ~/nltk_data, … /corpora/wordnet) and Debian's
    /// /usr/share/wordnet are looked in, and `meteor` is left out when none
    /// has it; `--wordnet none` leaves it out whatever is installed
    /// (docs/scoring.md, The `t2s-metrics` profile).
    #[arg(long, value_name = "DIR")]
    pub wordnet: Option<PathBuf>,
    /// The sub-experiments to run, comma-separated: qa,c2kb,p2kb,re2kb,at,ait2kb
    /// (default: all that have data); c2kb brings c2kb_entities and c2kb_classes,
    /// its split; query adds the query measures, only when named (docs/scoring.md,
    /// Query measures).
    #[arg(long, value_delimiter = ',', value_parser = parse_experiment)]
    pub experiments: Vec<Experiment>,
    /// Where the gold's C2KB/P2KB/RE2KB/AIT2KB markings come from: auto (its
    /// annotations when it has them, else its query) or query (its query only, to
    /// score a file's own annotations, given as the run, against its queries).
    #[arg(long, value_enum, default_value_t = GoldMarkingsArg::Auto)]
    pub gold_markings: GoldMarkingsArg,
    /// Split every aggregate by a question feature (repeatable): answertype, form,
    /// modifier, triples, aggregation, onlydbo, hybrid, tags, qword, language.
    #[arg(long = "by", value_name = "FEATURE", value_parser = parse_feature)]
    pub by: Vec<String>,
    /// An index built with `qajudge index build`: IRIs of one owl:sameAs class are
    /// the same answer, strings match IRIs through labels, types feed AIT2KB.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Instead of --index, fetch the index this gold needs from these SPARQL
    /// endpoints (comma-separated, as `index fetch --endpoint` takes them:
    /// `wikidata,dbpedia`) into `$XDG_CACHE_HOME/qajudge/fetched/` (or
    /// `~/.cache/qajudge/fetched/`), once per gold and endpoints, and use it.
    #[arg(
        long,
        value_name = "ENDPOINTS",
        value_delimiter = ',',
        conflicts_with = "index"
    )]
    pub fetch_index: Vec<String>,
    /// Add, per question, which run answer matched which gold answer and why
    /// (`--explain`, or `--explain all`); `--explain errors` shows only the
    /// missed and wrong answers, on the questions that have some.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "all", value_name = "WHAT")]
    pub explain: Option<ExplainArg>,
    /// Audit the gold first (docs/audit.md): its checks, and with --kg or
    /// --endpoint each query executed 3 times; the report carries the audit
    /// (`audit`), and the questions found unstable are scored apart
    /// (`unstable`), so that a table can say how many were set apart.
    #[arg(long)]
    pub audit: bool,
    /// Explain why each run fails: the feature conditions that separate its
    /// failed questions (QA F1 below 0.5) from its solved ones, after the
    /// table and in the JSON report (docs/features.md, "Why a system fails").
    #[arg(long)]
    pub explain_failures: bool,
    /// Report matches through owl:sameAs classes larger than this.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CLASS_SIZE)]
    pub max_class_size: usize,
    /// The knowledge graph to execute queries on.
    #[command(flatten)]
    pub kg: KgArgs,
    /// Execute every gold query, also where the gold gives answers, and score the
    /// results (the report lists the questions whose answers changed).
    #[arg(long)]
    pub refresh_gold: bool,
    /// Execute every run query, also where the run gives answers.
    #[arg(long)]
    pub execute_run: bool,
    /// The LLM judge (docs/scoring.md, The LLM judge); boxed, so that the
    /// command's arguments stay small.
    #[command(flatten)]
    pub llm: Box<LlmArgs>,
}

/// The WordNet of the `t2s-metrics` profile's `meteor`: `--wordnet`'s
/// directory (an error when it cannot be read), else the first found where
/// NLTK and Debian keep it (none found: `meteor` is left out and the report
/// says so). Other profiles read none and refuse the flag.
fn wordnet(args: &EvaluateArgs) -> anyhow::Result<Option<Arc<WordNet>>> {
    if args.profile != Profile::T2sMetrics {
        if let Some(dir) = &args.wordnet {
            bail!(
                "--wordnet {} is read only by --profile t2s-metrics (its meteor); leave it out",
                dir.display()
            );
        }
        return Ok(None);
    }
    // `none`: no dictionary, as on a machine without one (what `reproduce`
    // asks of a report whose meteor was left out)
    if args.wordnet.as_deref() == Some(std::path::Path::new("none")) {
        return Ok(None);
    }
    match WordNet::find(args.wordnet.as_deref()) {
        Ok(w) => Ok(Some(Arc::new(w))),
        Err(WordNetError::NotFound { .. }) if args.wordnet.is_none() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

use super::terminal::printable;

/// Runs `qajudge evaluate`.
pub fn run(args: EvaluateArgs) -> anyhow::Result<ExitCode> {
    let report = report(&args, Vec::new(), crate::eval::Deadline::default())?;
    {
        use std::io::Write;
        // a large report is written as it is serialised, through one buffer,
        // not built in memory first (docs/benchmarks.md, Official scripts)
        let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        match args.format {
            OutputFormat::Json => {
                serde_json::to_writer_pretty(&mut stdout, &report)?;
                stdout.write_all(b"\n")?;
            }
            // texts from outside (answers, questions, diagnostics) cannot act
            // on the terminal; JSON escapes them itself
            OutputFormat::Table => {
                let table =
                    render::table(&report, args.per_question) + &super::failures::render(&report);
                stdout.write_all(printable(&table).as_bytes())?;
            }
            OutputFormat::Csv => {
                let csv = super::csv::csv(&report, args.per_question);
                stdout.write_all(printable(&csv).as_bytes())?;
            }
            OutputFormat::Latex => {
                let latex = paper::latex(&report, args.baseline.as_deref());
                stdout.write_all(printable(&latex).as_bytes())?;
            }
            OutputFormat::Markdown => {
                let markdown = paper::markdown(&report, args.baseline.as_deref());
                stdout.write_all(printable(&markdown).as_bytes())?;
            }
        }
        stdout.flush()?;
    }
    if args.format != OutputFormat::Json {
        for d in report.diagnostics.iter().take(20) {
            eprintln!("warning: {}", printable(d));
        }
        if report.diagnostics.len() > 20 {
            eprintln!(
                "warning: {} more diagnostics (see --format json)",
                report.diagnostics.len() - 20
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A run already read, given to [`report`] in place of its `--run` file (the
/// Python binding's runs given as objects): its dataset and the `source` the
/// report names.
pub struct ReadRun {
    /// Where the run came from, as the report's `source` says it.
    pub source: String,
    /// The run.
    pub dataset: crate::model::Dataset,
}

/// The report `qajudge evaluate` prints, computed from its arguments: `read`
/// holds, by position among `args.runs`, runs already read, which are not
/// read from their path (that path only names them); the others are read from
/// their files. The scoring stops at `deadline` (a host's Ctrl-C), and the
/// evaluation is then an error. The arguments become one [`Request`], which
/// the one pipeline ([`run_job`]) evaluates.
pub fn report(
    args: &EvaluateArgs,
    read: Vec<Option<ReadRun>>,
    deadline: crate::eval::Deadline,
) -> anyhow::Result<crate::eval::Report> {
    report_with(args, read, deadline, &Bars::default())
}

/// [`report`], its live systems and endpoint answering as `recorded` holds
/// (`qajudge reproduce`; docs/reproduce.md), or asked when that is `None`.
pub fn report_replaying(
    args: &EvaluateArgs,
    recorded: Option<&Recorded>,
    deadline: crate::eval::Deadline,
) -> anyhow::Result<crate::eval::Report> {
    report_from(args, Vec::new(), deadline, &Bars::default(), recorded)
}

/// [`report`], telling `progress` of the live systems asked and the queries
/// executed (a host's progress bar) instead of drawing the terminal's bars.
pub fn report_with(
    args: &EvaluateArgs,
    read: Vec<Option<ReadRun>>,
    deadline: crate::eval::Deadline,
    progress: &dyn crate::eval::job::Progress,
) -> anyhow::Result<crate::eval::Report> {
    report_from(args, read, deadline, progress, None)
}

fn report_from(
    args: &EvaluateArgs,
    read: Vec<Option<ReadRun>>,
    deadline: crate::eval::Deadline,
    progress: &dyn crate::eval::job::Progress,
    recorded: Option<&Recorded>,
) -> anyhow::Result<crate::eval::Report> {
    if args.names.len() > args.runs.len() + args.systems.len() {
        bail!(
            "{} --name given for {} --run and --system-url: give at most one name per run",
            args.names.len(),
            args.runs.len() + args.systems.len()
        );
    }
    if args.explain_failures && !matches!(args.format, OutputFormat::Table | OutputFormat::Json) {
        bail!("--explain-failures prints its rules after the table or in the JSON report: give --format table or --format json");
    }
    let (mut loaded, sources) = load_runs(args, read)?;
    let (mut gold, gold_name) = match &args.gold {
        Some(path) => (super::load(path)?, path.display().to_string()),
        None => own_gold(&args.runs, &mut loaded)?,
    };
    if let Some(path) = &args.gold_answers {
        let answers = super::load(path)?;
        crate::eval::join::gold_answers(&mut gold, answers, &path.display().to_string())?;
    }
    // the ids of a --questions file or a sample's ids.txt, checked against the gold
    let ids_file = args
        .questions
        .clone()
        .or_else(|| args.sample.as_ref().map(|d| d.join("ids.txt")));
    let questions = ids_file
        .map(|path| question_ids(&gold, &path))
        .transpose()?;
    let protocol = match args.live.protocol {
        Some(p) => p.into(),
        None => protocol_for(&gold, args.profile),
    };
    let runs = run_sources(args, loaded, sources, protocol);
    // a knowledge graph that does not load stops the run before any system
    // is asked; a recorded endpoint answers from its record
    let kg = match recorded.and_then(|r| r.endpoint.as_ref()) {
        Some(tape) => Some(KnowledgeGraph::replaying(tape, args.kg.options())),
        None => args.kg.open()?,
    };
    let live = LiveOptions {
        lang: args.lang.clone().unwrap_or_else(|| "en".to_string()),
        protocol,
        ..args.live.options()
    }
    .for_profile(args.profile);
    let index_dir = if args.fetch_index.is_empty() {
        args.index.clone()
    } else {
        Some(super::fetch::fetched_index(
            &gold,
            &gold_name,
            &args.fetch_index,
            args.lang.as_deref(),
        )?)
    };
    let index = index_dir.as_deref().map(Index::open).transpose()?;
    let index_path = index_dir
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let audit = args
        .audit
        .then(|| audited(&mut gold, kg.as_ref(), args.kg.options(), args.profile));
    let request = Request {
        gold_name,
        gold: Arc::new(gold),
        benchmark: None,
        runs,
        questions,
        options: options(args, deadline)?,
        plan: Plan {
            refresh_gold: args.refresh_gold,
            execute_run: args.execute_run,
        },
        explain_failures: args.explain_failures,
        audit,
    };
    let executing = kg.as_ref().map(|kg| Executing {
        kg,
        options: args.kg.options(),
    });
    let asking = Asking(live);
    let replaying = recorded.map(|r| Replaying::new(r.systems.clone()));
    let systems: &dyn crate::eval::job::Systems = match &replaying {
        Some(r) => r,
        None => &asking,
    };
    let env = Env {
        index: index.as_ref().map(|i| IndexRef::of(i, &index_path)),
        systems,
        knowledge_graph: executing.as_ref().map(|e| e as &dyn Executor),
        golds: None,
    };
    Ok(run_job(request, &env, progress)?)
}

/// The runs of `--run`, each taken from `read` at its position when it is
/// there, else read from its file; with the `source` the report names.
fn load_runs(
    args: &EvaluateArgs,
    mut read: Vec<Option<ReadRun>>,
) -> anyhow::Result<(Vec<crate::model::Dataset>, Vec<String>)> {
    let mut loaded = Vec::with_capacity(args.runs.len());
    let mut sources = Vec::with_capacity(args.runs.len());
    for (i, path) in args.runs.iter().enumerate() {
        match read.get_mut(i).and_then(Option::take) {
            Some(run) => {
                loaded.push(run.dataset);
                sources.push(run.source);
            }
            None => {
                loaded.push(super::load(path)?);
                sources.push(path.display().to_string());
            }
        }
    }
    Ok((loaded, sources))
}

/// The request's runs: the run files, named by `--name` or their stem (and
/// their folder when two share a stem), then the live systems, named by
/// `--name` or their URL.
fn run_sources(
    args: &EvaluateArgs,
    loaded: Vec<crate::model::Dataset>,
    sources: Vec<String>,
    protocol: Protocol,
) -> Vec<RunSource> {
    let mut runs: Vec<RunSource> = Vec::with_capacity(args.runs.len() + args.systems.len());
    for (((i, path), mut dataset), source) in args.runs.iter().enumerate().zip(loaded).zip(sources)
    {
        dataset.own_gold = None;
        let name = args.names.get(i).cloned().unwrap_or_else(|| {
            // runs that share a file stem (systems/A/answers.json, systems/B/answers.json)
            // are named by their folder too
            let shared = args.runs.iter().filter(|p| stem(p) == stem(path)).count() > 1;
            match path.parent().and_then(|p| p.file_name()).filter(|_| shared) {
                Some(dir) => format!("{}/{}", dir.to_string_lossy(), stem(path)),
                None => stem(path),
            }
        });
        runs.push(RunSource::File {
            name,
            source,
            dataset: Box::new(dataset),
        });
    }
    for (i, url) in args.systems.iter().enumerate() {
        let name = args
            .names
            .get(args.runs.len() + i)
            .cloned()
            .unwrap_or_else(|| crate::live::system_name(url, &args.systems));
        runs.push(RunSource::System {
            name,
            url: url.clone(),
            answers_with_query: protocol == Protocol::Text2sparql,
        });
    }
    runs
}

/// The scoring options of the arguments, with the profile's resources read
/// from their files (`--ontology`, `--train`, the WordNet).
fn options(args: &EvaluateArgs, deadline: crate::eval::Deadline) -> anyhow::Result<Options> {
    let paper = matches!(args.format, OutputFormat::Latex | OutputFormat::Markdown);
    let experiments = if paper && args.experiments.is_empty() {
        // a paper's table is QA unless the user asks for more
        vec![Experiment::Qa]
    } else {
        args.experiments.clone()
    };
    Ok(Options {
        profile: args.profile,
        strict_literals: args.strict_literals,
        lenient_dates: args.lenient_dates,
        bootstrap: if args.confidence {
            CONFIDENCE_RESAMPLES
        } else {
            0
        },
        experiments,
        by: args.by.clone(),
        explain: args.explain.is_some(),
        explain_errors_only: args.explain == Some(ExplainArg::Errors),
        max_class_size: args.max_class_size,
        gold_markings: args.gold_markings.into(),
        lang: args.lang.clone(),
        baseline: args.baseline.clone(),
        abstain_marker: args.abstain_marker.clone(),
        llm: args.llm.judge()?,
        wordnet: wordnet(args)?,
        ontology: args
            .ontology
            .as_deref()
            .map(load_ontology)
            .transpose()?
            .map(Arc::new),
        train: args
            .train
            .as_deref()
            .map(load_train)
            .transpose()?
            .map(Arc::new),
        deadline,
    })
}
