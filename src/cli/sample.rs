//! `qajudge sample`: a micro-benchmark drawn from a benchmark's questions by
//! their features (docs/features.md, "Sampling"): the chosen features of every
//! question as a vector, normalised, and a sample of `--size` by FEASIBLE or at
//! random; written as `benchmark.json` (QALD-JSON of the chosen questions with
//! their gold data, readable by `evaluate`) and `ids.txt` (for `evaluate
//! --questions`) into a new or empty `--out` directory, with a summary (method,
//! size, seed, features, diversity, representativeness, the chosen ids).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::outln;
use crate::annotate::{annotate_walked, MarkingStyle};
use crate::matching::MatchOptions;
use crate::sample::select::{self, Method};
use crate::sample::{QuestionFeatures, NUMERIC};

/// Sampling methods on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum MethodArg {
    /// FEASIBLE: exemplars, clusters around them, each cluster's member
    /// nearest its centroid.
    Feasible,
    /// FEASIBLE's exemplars only.
    FeasibleExemplars,
    /// A seeded random sample.
    Random,
}

/// Summary formats.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SampleFormat {
    /// A few lines.
    Table,
    /// JSON.
    Json,
}

/// Arguments of `qajudge sample`.
#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The benchmark to draw from.
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The features of the vectors, comma-separated (see docs/features.md):
    /// words, entities, relations, classes, triple_patterns, result_size,
    /// filter, union, … .
    #[arg(long, value_delimiter = ',', required = true)]
    pub features: Vec<String>,
    /// Questions in the sample.
    #[arg(long)]
    pub size: usize,
    /// How the sample is drawn.
    #[arg(long, value_enum, default_value_t = MethodArg::Feasible)]
    pub method: MethodArg,
    /// The seed of `random` (the FEASIBLE methods are deterministic).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The language of the question texts (for word counts).
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// A new or empty directory for benchmark.json and ids.txt.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Summary format.
    #[arg(long, value_enum, default_value_t = SampleFormat::Table)]
    pub format: SampleFormat,
}

/// What the sample is, as `--format json` prints it.
#[derive(Debug, Serialize)]
struct Summary {
    method: &'static str,
    size: usize,
    seed: u64,
    features: Vec<String>,
    candidates: usize,
    diversity: f64,
    representativeness: f64,
    questions: Vec<String>,
}

/// Runs `qajudge sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<ExitCode> {
    for f in &args.features {
        if !NUMERIC.contains(&f.as_str()) {
            bail!(
                "unknown feature {f:?} for --features; use some of {}",
                NUMERIC.join(", ")
            );
        }
    }
    if args.size == 0 {
        bail!("--size 0 draws nothing; give the number of questions the sample should have");
    }
    check_out(&args.out)?;
    let gold = super::load(&args.gold)?;
    if args.size > gold.questions.len() {
        bail!(
            "--size {} is more than the {} questions of {}; give at most {}",
            args.size,
            gold.questions.len(),
            args.gold.display(),
            gold.questions.len()
        );
    }
    let opts = MatchOptions::default();
    let features: Vec<QuestionFeatures> = gold
        .questions
        .iter()
        .map(|q| {
            let (annotation, walked) = annotate_walked(q, opts, MarkingStyle::Judge);
            QuestionFeatures::compute(q, &annotation, walked.as_ref(), &args.lang, None)
        })
        .collect();
    let raw: Vec<Vec<f64>> = features
        .iter()
        .map(|f| {
            args.features
                .iter()
                .map(|name| f.value(name).unwrap_or(0.0))
                .collect()
        })
        .collect();
    let vectors = select::normalise(&raw);
    let ids: Vec<String> = features.iter().map(|f| f.id.clone()).collect();
    let method = match args.method {
        MethodArg::Feasible => Method::Feasible,
        MethodArg::FeasibleExemplars => Method::FeasibleExemplars,
        MethodArg::Random => Method::Random,
    };
    let chosen = match method {
        Method::Feasible => select::feasible(&vectors, &ids, args.size),
        Method::FeasibleExemplars => select::exemplars(&vectors, &ids, args.size),
        Method::Random => select::random(vectors.len(), args.size, args.seed),
    };
    let summary = Summary {
        method: method.name(),
        size: chosen.len(),
        seed: args.seed,
        features: args.features.clone(),
        candidates: vectors.len(),
        diversity: select::diversity(&vectors, &chosen),
        representativeness: select::representativeness(&vectors, &chosen),
        questions: chosen.iter().map(|&i| ids[i].clone()).collect(),
    };
    // the chosen questions in the benchmark's order, with their gold data
    let mut sample = gold.clone();
    let keep: std::collections::HashSet<&str> =
        summary.questions.iter().map(String::as_str).collect();
    sample.questions.retain(|q| keep.contains(q.id.0.as_str()));
    let doc = crate::qald::to_qald_json(&sample, &BTreeMap::new());
    write_new(
        &args.out.join("benchmark.json"),
        (serde_json::to_string_pretty(&doc)? + "\n").as_bytes(),
    )?;
    write_new(
        &args.out.join("ids.txt"),
        (summary.questions.join("\n") + "\n").as_bytes(),
    )?;
    match args.format {
        SampleFormat::Json => outln!("{}", serde_json::to_string_pretty(&summary)?)?,
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
            outln!("questions: {}", summary.questions.join(" "))?;
            outln!(
                "written: {}, {}",
                args.out.join("benchmark.json").display(),
                args.out.join("ids.txt").display()
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--out` must be absent, an empty directory, or a directory this command
/// wrote (it holds only benchmark.json and ids.txt); it is created when absent.
fn check_out(out: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(out) {
        Err(_) => std::fs::create_dir_all(out)
            .with_context(|| format!("cannot create --out {}", out.display())),
        Ok(m) if m.is_dir() => {
            let entries: Vec<String> = std::fs::read_dir(out)
                .with_context(|| format!("cannot read --out {}", out.display()))?
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .collect();
            if entries
                .iter()
                .any(|n| n != "benchmark.json" && n != "ids.txt")
            {
                bail!(
                    "--out {} holds other files ({}); give a new or empty directory",
                    out.display(),
                    entries.join(", ")
                );
            }
            Ok(())
        }
        Ok(_) => bail!(
            "--out {} is not a directory; give a new or empty directory",
            out.display()
        ),
    }
}

/// Writes `bytes` to `path` through a temporary name and a rename.
fn write_new(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}
