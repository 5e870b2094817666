//! `qajudge index build|info`, `qajudge sameas`, `qajudge labels`, `qajudge types`:
//! building an index from RDF dumps (with a progress bar on stderr) and looking
//! things up in it, as JSON on stdout.

use super::outln;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use crate::index::Index;
use crate::indexer::{build, build_from_components, export_links, BuildOptions, Phase, Progress};
use crate::terms::prefixes::expand;

/// `qajudge index …`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The index subcommand.
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// The index subcommands.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Build an index (sameAs closure, labels, types) from RDF dumps.
    Build(BuildArgs),
    /// Build the index a benchmark needs from SPARQL endpoints (Wikidata,
    /// DBpedia): the links, labels and types of the IRIs its gold names
    /// (docs/indexer.md, "Fetching an index for a benchmark").
    Fetch(super::fetch::FetchArgs),
    /// Print an index's metadata: inputs, counts, class sizes, largest classes.
    Info {
        /// The index directory.
        dir: PathBuf,
    },
}

/// Arguments of `qajudge index build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The index directory to write (replaced only when the build succeeds).
    #[arg(long, value_name = "DIR", required_unless_present = "export_links")]
    pub out: Option<PathBuf>,
    /// RDF files or directories (read recursively): .nt, .nq, .ttl, .trig, .rdf,
    /// .owl, .n3, optionally .gz, .bz2, .zst.
    #[arg(
        value_name = "FILE_OR_DIR",
        required_unless_present = "from_components",
        conflicts_with = "from_components"
    )]
    pub inputs: Vec<PathBuf>,
    /// Instead of an index, write the canonical equivalence links, labels and
    /// types as Parquet (with a manifest) into DIR, for a closure on Apache
    /// Spark (`scripts/spark/closure.py DIR`).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["out", "from_components"])]
    pub export_links: Option<PathBuf>,
    /// Build the index from an export directory whose `components/` table
    /// (IRI, component) `scripts/spark/closure.py` wrote.
    #[arg(long, value_name = "DIR")]
    pub from_components: Option<PathBuf>,
    /// A further equivalence predicate (IRI or prefixed name), repeatable:
    /// skos:exactMatch, dbo:wikiPageRedirects … (owl:sameAs, owl:equivalentClass
    /// and owl:equivalentProperty are always read).
    #[arg(long = "equivalence", value_name = "PRED")]
    pub equivalence: Vec<String>,
    /// Label predicates, repeatable (default: rdfs:label, skos:prefLabel,
    /// skos:altLabel, foaf:name, schema:name).
    #[arg(long = "label", value_name = "PRED")]
    pub labels: Vec<String>,
    /// Drop equivalence links that touch this host (and its subdomains), repeatable.
    #[arg(long = "exclude-host", value_name = "HOST")]
    pub exclude_hosts: Vec<String>,
    /// Skip and count malformed statements instead of stopping at the first one
    /// (and N-Triples/N-Quads lines longer than --max-line-kb).
    #[arg(long)]
    pub lenient: bool,
    /// The longest N-Triples or N-Quads line read, in KiB: a longer one stops
    /// the build with its file and line (or, with --lenient, is skipped and
    /// counted), and is never held in memory whole.
    #[arg(long, value_name = "KIB", default_value_t = crate::indexer::DEFAULT_MAX_LINE_BYTES >> 10)]
    pub max_line_kb: usize,
    /// Mebibytes of IRI text held in memory before it is spilled to disk (in the
    /// output's temporary directory); lower it to build large dumps in less memory.
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub buffer_mb: usize,
    /// A JSON file saying where the inputs came from (dump names, versions,
    /// checksums), kept in the index's `meta.json` as `provenance`.
    #[arg(long, value_name = "FILE")]
    pub provenance: Option<PathBuf>,
}

/// Arguments of `qajudge sameas`.
#[derive(Debug, Args)]
pub struct SameAsArgs {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// IRIs to look up.
    #[arg(required = true)]
    pub iris: Vec<String>,
    /// At most this many members per IRI.
    #[arg(long, default_value_t = 100)]
    pub limit: usize,
}

/// Arguments of `qajudge labels`.
#[derive(Debug, Args)]
pub struct LabelsArgs {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// The label to look up.
    pub text: String,
    /// Only labels in this language (`en` also matches `en-gb`).
    #[arg(long)]
    pub lang: Option<String>,
    /// Also labels within this many edits (Levenshtein automaton over the FST).
    #[arg(long, default_value_t = 0)]
    pub fuzzy: u32,
}

/// Arguments of `qajudge types`.
#[derive(Debug, Args)]
pub struct TypesArgs {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// The IRI whose classes to print.
    pub iri: String,
}

struct Bar {
    bar: ProgressBar,
    statements: u64,
    started: Instant,
    /// Phases so far with their durations; the last one is still running.
    phases: Vec<(String, Instant, f64)>,
}

impl Bar {
    fn enter(&mut self, name: &str) {
        if let Some(last) = self.phases.last_mut() {
            last.2 = last.1.elapsed().as_secs_f64();
        }
        self.phases.push((name.to_string(), Instant::now(), 0.0));
    }

    /// "reading 8.1 s, closure 1.2 s, …"
    fn timings(&mut self) -> String {
        self.enter("");
        self.phases.pop();
        self.phases
            .iter()
            .map(|(n, _, s)| format!("{n} {s:.1} s"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Progress for Bar {
    fn file(&mut self, path: &Path, _bytes: u64) {
        if self.phases.is_empty() {
            self.enter("reading");
        }
        self.bar.set_message(format!("{}", path.display()));
    }
    fn advance(&mut self, bytes: u64, statements: u64) {
        self.bar.inc(bytes);
        if statements > 0 {
            self.statements += statements;
            let secs = self.started.elapsed().as_secs_f64().max(1e-9);
            self.bar.set_prefix(format!(
                "{} statements, {:.0}/s",
                self.statements,
                self.statements as f64 / secs
            ));
        }
    }
    fn phase(&mut self, phase: Phase) {
        self.enter(phase.name());
        self.bar.set_message(phase.name());
    }
}

fn run_build(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let files = match &args.from_components {
        Some(_) => Vec::new(),
        None => crate::indexer::input_files(&args.inputs)?,
    };
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    let bar = ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} {prefix} {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut progress = Bar {
        bar,
        statements: 0,
        started: Instant::now(),
        phases: Vec::new(),
    };
    let mut opts = BuildOptions {
        equivalence: args.equivalence.iter().map(|p| expand(p)).collect(),
        exclude_hosts: args.exclude_hosts,
        lenient: args.lenient,
        max_line_bytes: args.max_line_kb.max(1).saturating_mul(1 << 10),
        buffer_bytes: args.buffer_mb.max(1) << 20,
        ..BuildOptions::default()
    };
    if !args.labels.is_empty() {
        opts.labels = args.labels.iter().map(|p| expand(p)).collect();
    }
    if let Some(path) = &args.provenance {
        opts.provenance = Some(read_provenance(path)?);
    }
    let started = Instant::now();
    if let Some(dir) = &args.export_links {
        let manifest = export_links(&args.inputs, dir, &opts, &mut progress);
        progress.bar.finish_and_clear();
        let manifest = manifest?;
        let secs = started.elapsed().as_secs_f64();
        let c = &manifest.counts;
        eprintln!(
            "{}: {} statements from {} files in {:.1} s ({:.0}/s); {} skipped; {} links, {} labels, {} types exported; next: scripts/spark/closure.py {}",
            dir.display(),
            c.statements,
            manifest.inputs.len(),
            secs,
            c.statements as f64 / secs.max(1e-9),
            c.skipped,
            manifest.rows.links,
            manifest.rows.labels,
            manifest.rows.types,
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let Some(out) = &args.out else {
        anyhow::bail!("no --out directory; give the index directory to write");
    };
    let meta = match &args.from_components {
        Some(dir) => build_from_components(dir, out, &opts, &mut progress),
        None => build(&args.inputs, out, &opts, &mut progress),
    };
    progress.bar.finish_and_clear();
    let meta = meta?;
    let secs = started.elapsed().as_secs_f64();
    let c = &meta.counts;
    eprintln!(
        "{}: {} statements from {} files in {:.1} s ({:.0}/s); {} skipped; {} equivalence links, {} classes over {} IRIs; {} labels; {} typed IRIs",
        out.display(),
        c.statements,
        meta.inputs.len(),
        secs,
        c.statements as f64 / secs.max(1e-9),
        c.skipped,
        c.equivalence_links,
        c.classes,
        c.iris,
        c.labels,
        c.typed_iris
    );
    eprintln!("phases: {}", progress.timings());
    if c.key_collisions > 0 {
        eprintln!(
            "warning: {} IRI keys were shared by two different IRIs, which were merged; please report this with the inputs",
            c.key_collisions
    );
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON object of a `--provenance` file (a regular file within
/// `--max-input-mb`), or an error naming the file and where its JSON is wrong.
fn read_provenance(path: &Path) -> anyhow::Result<serde_json::Value> {
    let bytes = super::input::read(path).context("--provenance")?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: the provenance file is not JSON: {e}; give a JSON object",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    if !value.is_object() {
        anyhow::bail!(
            "{}: the provenance file holds a JSON {}, not an object; give a JSON object",
            path.display(),
            match value {
                serde_json::Value::Array(_) => "array",
                serde_json::Value::String(_) => "string",
                serde_json::Value::Number(_) => "number",
                serde_json::Value::Bool(_) => "boolean",
                _ => "null",
            }
        );
    }
    Ok(value)
}

/// Runs `qajudge index …`.
pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        IndexCommand::Build(b) => run_build(b),
        IndexCommand::Fetch(f) => super::fetch::run(f),
        IndexCommand::Info { dir } => {
            let index = Index::open(&dir)?;
            // the metadata, and how this qajudge reads the sameAs files
            #[derive(serde::Serialize)]
            struct Info<'a> {
                #[serde(flatten)]
                meta: &'a crate::index::format::IndexMeta,
                access: &'a str,
            }
            let info = Info {
                meta: index.meta(),
                access: index.access(),
            };
            outln!("{}", serde_json::to_string_pretty(&info)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Runs `qajudge sameas`.
pub fn run_sameas(args: SameAsArgs) -> anyhow::Result<ExitCode> {
    let index = Index::open(&args.index)?;
    let out: Vec<_> = args
        .iris
        .iter()
        .map(|i| index.sameas(i, args.limit))
        .collect::<Result<_, _>>()?;
    outln!("{}", serde_json::to_string_pretty(&out)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `qajudge labels`.
pub fn run_labels(args: LabelsArgs) -> anyhow::Result<ExitCode> {
    let index = Index::open(&args.index)?;
    let hits = index.labels(&args.text, args.lang.as_deref(), args.fuzzy)?;
    outln!("{}", serde_json::to_string_pretty(&hits)?)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `qajudge types`.
pub fn run_types(args: TypesArgs) -> anyhow::Result<ExitCode> {
    let index = Index::open(&args.index)?;
    let types = index.types(&args.iri)?;
    outln!("{}", serde_json::to_string_pretty(&types)?)?;
    Ok(ExitCode::SUCCESS)
}
