//! Evaluates the 11 NLIWOD system runs against their QALD-8 / QALD-9 train gold,
//! file parsing included, and measures a plain `serde_json` parse of the same
//! bytes as the baseline (ratios are what to quote: this machine is shared).
//!
//! Run with `cargo bench --bench evaluate`; needs `../shared/data`.

// criterion_main! writes a `main` without a doc comment
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use qajudge::eval::{evaluate, Experiment, Options, Report, Run};
use qajudge::model::Dataset;

// the same allocator as the binary
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    dir.is_dir().then_some(dir)
}

/// Parses a run and evaluates it against a parsed gold.
fn parse_and_evaluate(gold: &Dataset, name: &str, run_bytes: &[u8], options: Options) -> Report {
    let run = qajudge::qald::parse(run_bytes, "run").expect("run parses");
    evaluate(
        gold,
        "gold",
        &[Run {
            name,
            source: name,
            dataset: &run,
        }],
        options,
    )
}

fn qa_only() -> Options {
    Options {
        experiments: vec![Experiment::Qa],
        ..Options::default()
    }
}

fn runs(dir: &Path) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for (gold, sub) in [
        (
            "qald/8/qald-8-train-multilingual.json",
            "systems/nliwod/qald8",
        ),
        (
            "qald/9/qald-9-train-multilingual.json",
            "systems/nliwod/qald9",
        ),
    ] {
        let gold_bytes = std::fs::read(dir.join(gold)).expect("gold file");
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
            .expect("runs dir")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_stem().expect("stem").to_string_lossy().into_owned();
            out.push((
                name,
                gold_bytes.clone(),
                std::fs::read(&f).expect("run file"),
            ));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let Some(dir) = shared() else {
        eprintln!("benches/evaluate: ../shared/data is missing; nothing to measure");
        return;
    };
    let runs = runs(&dir);
    let mut group = c.benchmark_group("nliwod");
    for (name, gold_bytes, run_bytes) in &runs {
        let gold = qajudge::qald::parse(gold_bytes, "gold").expect("gold parses");
        // parse the run + evaluate (the gold parsed once, as for several runs)
        group.bench_function(format!("{name}/parse_run+evaluate"), |b| {
            b.iter(|| {
                black_box(parse_and_evaluate(
                    &gold,
                    name,
                    black_box(run_bytes),
                    qa_only(),
                ))
            });
        });
        // the baseline: a plain serde_json parse of the same run bytes
        group.bench_function(format!("{name}/serde_json_parse_run"), |b| {
            b.iter(|| {
                let v: serde_json::Value =
                    serde_json::from_slice(black_box(run_bytes)).expect("json");
                black_box(v)
            });
        });
    }
    // everything for all 11 runs: both gold files and all runs parsed, all evaluated
    group.bench_function("all11/parse_all+evaluate", |b| {
        b.iter(|| {
            for (name, gold_bytes, run_bytes) in &runs {
                let gold = qajudge::qald::parse(gold_bytes, "gold").expect("gold");
                black_box(parse_and_evaluate(&gold, name, run_bytes, qa_only()));
            }
        });
    });
    group.bench_function("all11/serde_json_parse_all", |b| {
        b.iter(|| {
            for (_, gold_bytes, run_bytes) in &runs {
                let g: serde_json::Value = serde_json::from_slice(gold_bytes).expect("json");
                let r: serde_json::Value = serde_json::from_slice(run_bytes).expect("json");
                black_box((g, r));
            }
        });
    });
    // all six sub-experiments (annotating the gold's and the run's queries) for
    // each QALD-9 run, the gold parsed once
    for (name, gold_bytes, run_bytes) in runs.iter().filter(|r| r.0.contains("QALD9")) {
        let gold = qajudge::qald::parse(gold_bytes, "gold").expect("gold parses");
        group.bench_function(format!("{name}/parse_run+evaluate_all_experiments"), |b| {
            b.iter(|| {
                black_box(parse_and_evaluate(
                    &gold,
                    name,
                    black_box(run_bytes),
                    Options::default(),
                ))
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
