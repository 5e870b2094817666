//! `qajudge audit` (docs/audit.md): the gold checked before any system is
//! scored on it, without a store or with the stores given (`--kg` files in
//! the embedded store, `--endpoint` URLs, both at once to compare them), each
//! query executed `--repeat` times. Prints the findings as a table, JSON or
//! CSV; exit 1 when one is an error. The stores are `sparql::AuditStore`s,
//! the server's too.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::outln;
use crate::audit::{audit_keeping, AuditOptions, AuditReport, Executed, Store};
use crate::sparql::{AuditStore, ExecOptions, KnowledgeGraph};
use anyhow::bail;

/// Arguments of `qajudge audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The benchmark to audit (any format qajudge reads).
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The gold's answers from another file, by question id (as `evaluate
    /// --gold-answers`: the TEXT2SPARQL result set beside its YAML).
    #[arg(long, value_name = "FILE")]
    pub gold_answers: Option<PathBuf>,
    /// RDF files of the knowledge graph, loaded into the embedded store.
    #[arg(long = "kg", value_name = "FILE", num_args = 1..)]
    pub kg: Vec<PathBuf>,
    /// A SPARQL endpoint to execute the queries on too (repeatable).
    #[arg(long = "endpoint", value_name = "URL")]
    pub endpoints: Vec<String>,
    /// Executions of each query on each store.
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// The profile whose zero-for-every-system questions are named
    /// (`text2sparql`: an empty gold, a false ASK).
    #[arg(long, default_value = "judge", value_parser = super::args::profile_parser())]
    pub profile: crate::eval::Profile,
    /// The time one query may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub query_timeout_ms: u64,
    /// The most rows kept of one query's result.
    #[arg(long, value_name = "N", default_value_t = crate::sparql::DEFAULT_MAX_ROWS)]
    pub max_rows: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = AuditFormat::Table)]
    pub format: AuditFormat,
    /// Write the gold to FILE (QALD-JSON) with answers frozen from the first
    /// store's execution of every stable question, and each unstable one
    /// (results that differ between repeats or stores, ties at a LIMIT edge,
    /// cut at the row cap, failed) marked `"unstable"` with why, its given
    /// answers kept: `evaluate` scores such questions apart
    /// (docs/audit.md). FILE must be absent or a file qajudge wrote.
    #[arg(long, value_name = "FILE")]
    pub write_gold: Option<PathBuf>,
}

/// Output formats of `audit`.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum AuditFormat {
    /// One line per finding, grouped by question.
    Table,
    /// The report as JSON (docs/audit.md).
    Json,
    /// One CSV row per finding.
    Csv,
}

/// Runs `qajudge audit`.
pub fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    let report = report(&args)?;
    match args.format {
        AuditFormat::Json => outln!("{}", serde_json::to_string_pretty(&report)?)?,
        AuditFormat::Csv => print_csv(&report)?,
        AuditFormat::Table => print_table(&args.gold.display().to_string(), &report)?,
    }
    Ok(if report.counts.error > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The audit `qajudge audit` prints, computed from its arguments (the Python
/// binding's `audit()` returns it).
pub fn report(args: &AuditArgs) -> anyhow::Result<AuditReport> {
    let mut gold = super::load(&args.gold)?;
    if let Some(path) = &args.gold_answers {
        let answers = super::load(path)?;
        crate::eval::join::gold_answers(&mut gold, answers, &path.display().to_string())?;
    }
    let profile = args.profile;
    let options = ExecOptions {
        timeout: std::time::Duration::from_millis(args.query_timeout_ms),
        max_rows: args.max_rows,
        ..ExecOptions::default()
    };
    let mut kgs = Vec::new();
    if !args.kg.is_empty() {
        kgs.push(KnowledgeGraph::load(&args.kg, options, &|_, _| {})?);
    }
    for given in &args.endpoints {
        kgs.push(KnowledgeGraph::endpoint(
            &super::args::endpoint(given)?,
            options,
        ));
    }
    if let Some(out) = &args.write_gold {
        if kgs.is_empty() {
            bail!("--write-gold freezes answers from executions: give the knowledge graph with --kg FILE... or --endpoint URL");
        }
        super::refresh::check_out(out)?;
    }
    let graphs: Vec<AuditStore<'_>> = kgs.iter().map(|kg| AuditStore::new(kg, options)).collect();
    let stores: Vec<&dyn Store> = graphs.iter().map(|g| g as &dyn Store).collect();
    let (report, results) = audit_keeping(
        &gold,
        &stores,
        AuditOptions {
            repeat: args.repeat,
            text2sparql: profile == crate::eval::Profile::Text2sparql,
        },
    );
    if args.write_gold.is_some() && graphs.iter().any(AuditStore::cut) {
        bail!("the audit was stopped before every query ran: the gold is not frozen, and --write-gold's file is left as it was");
    }
    if let (Some(out), Some(store)) = (&args.write_gold, report.stores.first()) {
        let (doc, frozen, unstable) = freeze(gold, results, store, &report);
        let text = serde_json::to_string_pretty(&doc)? + "\n";
        super::refresh::write_replacing(out, text.as_bytes())?;
        eprintln!(
            "wrote {}: {frozen} question(s) frozen, {unstable} marked unstable",
            out.display()
        );
    }
    Ok(report)
}

/// The frozen gold (QALD-JSON, marked as qajudge's) of an audit: every
/// question whose query the audit found stable takes, as its answers, the
/// very result the audit compared on the first store (`store`), never a new
/// execution; a question with a query whose audit found it unstable, or for
/// which the audit holds no result (an execution that failed), keeps its
/// given answers and is marked `unstable` with why; a question without a
/// query is written as it was. Returns the document, and the counts of
/// frozen and unstable questions.
pub(crate) fn freeze(
    gold: crate::model::Dataset,
    results: Vec<Option<Executed>>,
    store: &str,
    report: &AuditReport,
) -> (serde_json::Value, usize, usize) {
    let unstable: std::collections::HashMap<String, String> =
        crate::audit::unstable_questions(report)
            .into_iter()
            .collect();
    let mut frozen = gold;
    let mut columns = std::collections::BTreeMap::new();
    let (mut fixed, mut marked) = (0, 0);
    for (q, result) in frozen.questions.iter_mut().zip(results) {
        if !matches!(q.query, crate::model::Query::Sparql(_)) {
            continue;
        }
        if let Some(why) = unstable.get(&q.id.0) {
            q.unstable = Some(why.clone());
            marked += 1;
            continue;
        }
        match result {
            Some(executed) => {
                let mut answers = executed.answers;
                columns.insert(q.id.0.clone(), std::mem::take(&mut answers.columns));
                q.answers = Some(answers);
                q.unstable = None;
                fixed += 1;
            }
            None => {
                q.unstable = Some(format!(
                    "not_executed: the audit holds no result of the query on {store}; its given answers are kept"
                ));
                marked += 1;
            }
        }
    }
    let mut doc = crate::qald::to_qald_json(&frozen, &columns);
    super::refresh::mark_ours(&mut doc, "qajudge audit --write-gold");
    (doc, fixed, marked)
}

fn print_table(gold: &str, r: &AuditReport) -> anyhow::Result<()> {
    let stores = if r.stores.is_empty() {
        "no store (the gold alone)".to_string()
    } else {
        format!("{}, each query {} times", r.stores.join(" and "), r.repeat)
    };
    outln!(
        "{gold}: {} questions ({} with a query); {stores}",
        r.questions,
        r.with_query
    )?;
    outln!(
        "{} errors, {} warnings, {} notes (docs/audit.md says each)",
        r.counts.error,
        r.counts.warning,
        r.counts.note
    )?;
    let mut last = "";
    for f in &r.findings {
        if f.question != last {
            outln!("{}", f.question)?;
            last = &f.question;
        }
        outln!("  {:7} {}: {}", f.severity.name(), f.code, f.evidence)?;
        outln!("          → {}", f.action)?;
    }
    Ok(())
}

fn print_csv(r: &AuditReport) -> anyhow::Result<()> {
    outln!("question,severity,code,evidence,action")?;
    for f in &r.findings {
        outln!(
            "{},{},{},{},{}",
            super::csv::field(&f.question),
            f.severity.name(),
            f.code,
            super::csv::field(&f.evidence),
            super::csv::field(&f.action)
        )?;
    }
    Ok(())
}
