//! `qajudge sample`: a micro-benchmark drawn by its features (docs/features.md,
//! "Sampling"). Every INPUT (a benchmark, its features computed here, or a
//! features graph in RDF such as QaldGenData) goes into one features graph in
//! the embedded store; a SPARQL SELECT over it (`--query`, or the one
//! `--features` and `--where` make) gives the candidates and their vectors,
//! normalised; a sampler of `crate::sample` draws `--size` of them. Written
//! into a new or empty `--out`: `sample.ttl` (the chosen questions with all
//! their statements), `ids.txt` (for `evaluate --sample`) and, when every
//! chosen question comes from a benchmark, `benchmark.json` (QALD-JSON with the
//! gold data); a summary (method, size, seed, features, diversity,
//! representativeness, the chosen ids) as a table or JSON.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{ArgGroup, Args, ValueEnum};
use serde::Serialize;

use super::outln;
use crate::model::Dataset;
use crate::sample::condition;
use crate::sample::draw::{self, Method, Params, Summary};
use crate::sample::vocab::{self, question_iri};
use crate::sparql::{ExecOptions, ScratchGraph};

/// Sampling methods on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum MethodArg {
    /// FEASIBLE: exemplars, clusters around them, each cluster's member
    /// nearest its centroid.
    Feasible,
    /// FEASIBLE's exemplars only.
    FeasibleExemplars,
    /// k-means with k-means++ seeding (`--trials`, `--max-iterations`), each
    /// cluster's member nearest its centroid.
    #[value(name = "kmeans++")]
    Kmeans,
    /// DBSCAN (`--radius`, `--min-points`) drops the outliers, then kmeans++.
    #[value(name = "dbscan+kmeans++")]
    DbscanKmeans,
    /// Average-linkage clustering cut at the size closest to `--size` (it
    /// cannot always give that size: the size it gave is reported).
    Agglomerative,
    /// A seeded random sample.
    Random,
}

impl From<MethodArg> for Method {
    fn from(m: MethodArg) -> Method {
        match m {
            MethodArg::Feasible => Method::Feasible,
            MethodArg::FeasibleExemplars => Method::FeasibleExemplars,
            MethodArg::Kmeans => Method::Kmeans,
            MethodArg::DbscanKmeans => Method::DbscanKmeans,
            MethodArg::Agglomerative => Method::Agglomerative,
            MethodArg::Random => Method::Random,
        }
    }
}

/// Summary formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SampleFormat {
    /// A few lines.
    Table,
    /// JSON.
    Json,
}

/// The largest `--query` file read.
const MAX_QUERY_BYTES: u64 = 1 << 20;

/// Arguments of `qajudge sample`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("selection").required(true).args(["query", "features"])))]
pub struct SampleArgs {
    /// Benchmarks (their features computed here) or features graphs in RDF
    /// (`.ttl`, `.ttl.gz`, `.nt`, …; QaldGenData itself, or the output of
    /// `qajudge features --format turtle`).
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// One more benchmark input.
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// A SPARQL SELECT over the features graph: the first variable is the
    /// question, the others numeric or boolean features forming the vectors
    /// (see docs/features.md, "Selecting by SPARQL").
    #[arg(long, value_name = "FILE.rq", conflicts_with = "condition")]
    pub query: Option<PathBuf>,
    /// The features of the vectors, comma-separated (see docs/features.md):
    /// words, entities, relations, classes, triple_patterns, result_size,
    /// filter, union, … .
    #[arg(long, value_delimiter = ',')]
    pub features: Vec<String>,
    /// Keep only the questions meeting a condition over the features, e.g.
    /// `triple_patterns > 1 and type = "what"` (docs/features.md, "Selecting
    /// without SPARQL").
    #[arg(long = "where", value_name = "EXPR", requires = "features")]
    pub condition: Option<String>,
    /// Questions in the sample.
    #[arg(long)]
    pub size: usize,
    /// How the sample is drawn.
    #[arg(long, value_enum, default_value_t = MethodArg::Feasible)]
    pub method: MethodArg,
    /// The seed of `random` and the k-means methods (the others are
    /// deterministic without one).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// DBSCAN's radius, in normalised units.
    #[arg(long, default_value_t = 0.1)]
    pub radius: f64,
    /// DBSCAN's fewest vectors within the radius (itself included) of a core vector.
    #[arg(long, default_value_t = 4)]
    pub min_points: usize,
    /// k-means' most Lloyd steps per trial.
    #[arg(long, default_value_t = 100)]
    pub max_iterations: usize,
    /// k-means' seeded restarts (the lowest within-cluster sum of squares wins).
    #[arg(long, default_value_t = 10)]
    pub trials: usize,
    /// The language of the question texts of benchmark inputs, and of the
    /// names taken from `--index`.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// An index whose labels name the entities, relations and classes of
    /// benchmark inputs (as `features --index`); without it, local names.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// A new or empty directory for sample.ttl, ids.txt and benchmark.json.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = SampleFormat::Table)]
    pub format: SampleFormat,
}

/// What the sample is, as `--format json` prints it.
#[derive(Debug, Serialize)]
pub struct Drawn {
    /// The sample.
    #[serde(flatten)]
    pub summary: Summary,
    /// The files written into `--out`.
    pub written: Vec<String>,
    /// Why no benchmark.json was written, when none was.
    #[serde(skip)]
    pub note: Option<&'static str>,
}

/// Where a benchmark question came from: its benchmark and its index there.
type Origin = (usize, usize);

/// Every input in one features graph, made for the selection `query` (its
/// store holds what the query reads, the graph everything); the benchmarks
/// read and where each of their questions is.
fn build(
    args: &SampleArgs,
    query: &str,
) -> anyhow::Result<(ScratchGraph, Vec<Dataset>, HashMap<String, Origin>)> {
    let graph = ScratchGraph::for_query(query)?;
    let mut inputs: Vec<&PathBuf> = args.inputs.iter().collect();
    inputs.extend(args.gold.iter());
    if inputs.is_empty() {
        bail!("no input; give benchmarks or features graphs (QaldGenData's .ttl.gz) as INPUT, or --gold FILE");
    }
    // graphs first, so that a benchmark question whose IRI a graph holds is
    // found and refused
    let (graphs, benchmarks): (Vec<&PathBuf>, Vec<&PathBuf>) = inputs
        .into_iter()
        .partition(|p| crate::indexer::rdf_media_type(p).is_some());
    if !benchmarks.is_empty() {
        crate::sample::pos::warm();
    }
    for path in graphs {
        graph.load(path)?;
    }
    let mut datasets = Vec::new();
    let mut origins: HashMap<String, Origin> = HashMap::new();
    let index = args
        .index
        .as_deref()
        .map(crate::index::Index::open)
        .transpose()?;
    for path in benchmarks {
        let dataset = super::load(path)?;
        let all = crate::sample::named::features_of(
            &dataset,
            &args.lang,
            index.as_ref(),
            crate::eval::DEFAULT_MAX_CLASS_SIZE,
        )?;
        for (i, f) in all.iter().enumerate() {
            let iri = question_iri(&f.id);
            if origins.contains_key(&iri) || graph.has_subject(&iri)? {
                bail!(
                    "{}: question {} is also in an earlier input; sample inputs whose question ids differ",
                    path.display(),
                    f.id
                );
            }
            origins.insert(iri, (datasets.len(), i));
        }
        let statements =
            super::features::statements(&dataset, &all, &super::features::origin(path));
        graph.insert(&statements)?;
        datasets.push(dataset);
    }
    Ok((graph, datasets, origins))
}

/// The selection's SPARQL: the `--query` file, or the one `--features` and
/// `--where` make; and what to name it in errors.
fn selection(args: &SampleArgs) -> anyhow::Result<(String, String)> {
    if let Some(path) = &args.query {
        let meta = std::fs::metadata(path)
            .with_context(|| format!("cannot read --query {}", path.display()))?;
        if meta.len() > MAX_QUERY_BYTES {
            bail!(
                "--query {} has {} bytes; give a query of at most {MAX_QUERY_BYTES}",
                path.display(),
                meta.len()
            );
        }
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read --query {}", path.display()))?;
        return Ok((text, path.display().to_string()));
    }
    for f in &args.features {
        if !vocab::is_numeric(f) {
            bail!(
                "unknown feature {f:?} for --features; use some of {}",
                crate::sample::NUMERIC.join(", ")
            );
        }
    }
    let condition = args
        .condition
        .as_deref()
        .map(condition::parse)
        .transpose()?;
    let filter = condition
        .as_ref()
        .map(|c| (c.sparql.as_str(), c.features.as_slice()));
    Ok((
        vocab::select_query(&args.features, filter),
        "--features".to_string(),
    ))
}

/// Runs `qajudge sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<ExitCode> {
    let drawn = draw_into(&args)?;
    let (summary, written) = (&drawn.summary, &drawn.written);
    match args.format {
        SampleFormat::Json => {
            outln!("{}", serde_json::to_string_pretty(&drawn)?)?;
        }
        SampleFormat::Table => {
            outln!(
                "{} questions of {} by {} over {} (seed {}): diversity {:.4}, representativeness {:.4} (lower is closer to the whole)",
                summary.size,
                summary.candidates,
                summary.method,
                summary.features.join(", "),
                summary.seed,
                summary.diversity,
                summary.representativeness
            )?;
            if summary.size != args.size {
                outln!(
                    "{} gave {} questions, not the {} asked: {}",
                    summary.method,
                    summary.size,
                    args.size,
                    if args.method == MethodArg::Agglomerative {
                        "agglomerative clustering cannot give every size; it is cut at the size closest to --size"
                    } else {
                        "the selection has fewer distinct vectors than that"
                    }
                )?;
            }
            outln!("questions: {}", summary.questions.join(" "))?;
            outln!("written: {}", written.join(", "))?;
        }
    }
    if let Some(note) = drawn.note {
        eprintln!("note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Draws the sample the arguments ask for and writes its files into `--out`;
/// returns what `--format json` prints.
pub fn draw_into(args: &SampleArgs) -> anyhow::Result<Drawn> {
    if args.size == 0 {
        bail!("--size 0 draws nothing; give the number of questions the sample should have");
    }
    let (query, source) = selection(args)?;
    check_out(&args.out)?;
    let (graph, datasets, origins) = build(args, &query)?;
    let out = graph.execute(&query, ExecOptions::default());
    if !out.status.answered() || out.message.is_some() {
        bail!(
            "{source}: the selection failed: {}; fix the query",
            out.message.unwrap_or_else(|| format!("{:?}", out.status))
        );
    }
    let c = draw::candidates(&out.answers, &out.columns).with_context(|| source.clone())?;
    let params = Params {
        method: args.method.into(),
        size: args.size,
        seed: args.seed,
        radius: args.radius,
        min_points: args.min_points,
        max_iterations: args.max_iterations,
        trials: args.trials,
    };
    let summary = draw::draw(&c, &params)?;
    let chosen = &summary.chosen;
    let chosen_iris: Vec<String> = chosen.iter().map(|&i| c.iris[i].clone()).collect();
    let mut written = Vec::new();
    let ttl = args.out.join("sample.ttl");
    write_new(&ttl, &super::features::turtle(&graph.about(&chosen_iris)?)?)?;
    written.push(ttl.display().to_string());
    let ids_txt = args.out.join("ids.txt");
    write_new(&ids_txt, (summary.questions.join("\n") + "\n").as_bytes())?;
    written.push(ids_txt.display().to_string());
    // the chosen questions with their gold data, when all come from benchmarks
    let from: Option<Vec<Origin>> = chosen_iris
        .iter()
        .map(|i| origins.get(i).copied())
        .collect();
    let benchmark_note = match from {
        Some(from) => {
            let mut sample = datasets[from[0].0].clone();
            let mut keep: Vec<Origin> = from;
            keep.sort_unstable();
            sample.questions = keep
                .iter()
                .map(|&(d, i)| datasets[d].questions[i].clone())
                .collect();
            let doc = crate::qald::to_qald_json(&sample, &BTreeMap::new());
            let path = args.out.join("benchmark.json");
            write_new(
                &path,
                (serde_json::to_string_pretty(&doc)? + "\n").as_bytes(),
            )?;
            written.push(path.display().to_string());
            None
        }
        None => {
            // a benchmark.json of an earlier draw into this --out is not this sample's
            let stale = args.out.join("benchmark.json");
            if stale.is_file() {
                std::fs::remove_file(&stale)
                    .with_context(|| format!("cannot remove the earlier {}", stale.display()))?;
            }
            Some("no benchmark.json: some chosen questions come from a features graph, which holds no gold answers; their ids in ids.txt are the graph's (QaldGenData numbers its questions itself), so match them to a benchmark by the texts in sample.ttl before `evaluate --questions`")
        }
    };
    Ok(Drawn {
        summary,
        written,
        note: benchmark_note,
    })
}

/// The files `sample` writes into `--out`.
const OURS: [&str; 3] = ["benchmark.json", "ids.txt", "sample.ttl"];

/// The file that marks a directory this command wrote: only such a directory
/// (or an empty or absent one) is written into, so that a user's own
/// `benchmark.json` is never replaced.
const MARK: &str = ".qajudge-sample";

/// `--out` must be absent, an empty directory, or a directory this command
/// wrote (it holds [`MARK`] and only [`OURS`]); it is created when absent,
/// and marked.
fn check_out(out: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(out) {
        Err(_) => std::fs::create_dir_all(out)
            .with_context(|| format!("cannot create --out {}", out.display()))?,
        Ok(m) if m.is_dir() => {
            let entries: Vec<String> = std::fs::read_dir(out)
                .with_context(|| format!("cannot read --out {}", out.display()))?
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            let ours = entries.iter().any(|n| n == MARK)
                && entries
                    .iter()
                    .all(|n| n == MARK || OURS.contains(&n.as_str()));
            if !entries.is_empty() && !ours {
                bail!(
                    "--out {} holds files qajudge sample did not write ({}); give a new or empty directory",
                    out.display(),
                    entries.join(", ")
                );
            }
        }
        Ok(_) => bail!(
            "--out {} is not a directory; give a new or empty directory",
            out.display()
        ),
    }
    std::fs::write(out.join(MARK), b"written by qajudge sample\n")
        .with_context(|| format!("cannot write {}", out.join(MARK).display()))
}

/// Writes `bytes` to `path` through a temporary name and a rename.
fn write_new(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}
