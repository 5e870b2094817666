//! SPARQL execution on the CK25 knowledge graph of the TEXT2SPARQL challenge:
//! loading the graph (the baseline: quote the others as ratios to it, this
//! machine is shared), executing the 50 gold queries (on the default threads and
//! on one), and a whole evaluation of one system (INFAI) under `text2sparql`,
//! graph load included.
//!
//! Run with `cargo bench --bench sparql`; needs `../shared/data`.

// criterion_main! writes a `main` without a doc comment
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use qajudge::eval::job::Plan;
use qajudge::eval::{evaluate, Options, Profile, Run};
use qajudge::sparql::{execute_dataset, execute_experiment, ExecOptions, KnowledgeGraph, Mode};

// the same allocator as the binary
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/text2sparql");
    dir.is_dir().then_some(dir)
}

fn kg_files(dir: &Path) -> Vec<PathBuf> {
    vec![dir.join("kg/prod-inst.ttl"), dir.join("kg/prod-vocab.ttl")]
}

fn load(path: &Path) -> qajudge::model::Dataset {
    qajudge::qald::parse(&std::fs::read(path).expect("file"), "x").expect("parses")
}

fn bench(c: &mut Criterion) {
    let Some(dir) = shared() else {
        eprintln!("skipping: ../shared/data is missing");
        return;
    };
    let files = kg_files(&dir);
    let opts = ExecOptions::default();
    let mut g = c.benchmark_group("ck25");
    g.sample_size(10);
    g.bench_function("load graph (baseline)", |b| {
        b.iter(|| black_box(KnowledgeGraph::load(&files, opts, &|_, _| {}).expect("loads")));
    });
    let kg = KnowledgeGraph::load(&files, opts, &|_, _| {}).expect("loads");
    let gold = load(&dir.join("benchmark/questions_ck25.yml"));
    // on the default threads, and on one: the figure the pool is compared with
    for (name, workers) in [
        ("execute 50 gold queries", 0),
        ("execute 50 gold queries, 1 thread", 1),
    ] {
        let options = ExecOptions { workers, ..opts };
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut d = gold.clone();
                black_box(execute_dataset(
                    &kg,
                    &mut d,
                    Mode::Missing,
                    false,
                    options,
                    &|_, _| {},
                ))
            });
        });
    }
    let run = load(&dir.join("systems/INFAI/ck25_answers.json"));
    g.bench_function("evaluate INFAI, load included", |b| {
        b.iter(|| {
            let kg = KnowledgeGraph::load(&files, opts, &|_, _| {}).expect("loads");
            let mut gd = gold.clone();
            let mut rd = run.clone();
            // as `qajudge evaluate --kg` does: gold and run queries in one pool
            execute_experiment(
                &kg,
                &mut gd,
                &mut [("INFAI", &mut rd)],
                Plan::default(),
                opts,
                &qajudge::eval::Deadline::default(),
                &|_, _| {},
            );
            black_box(evaluate(
                &gd,
                "gold",
                &[Run {
                    name: "INFAI",
                    source: "INFAI",
                    dataset: &rd,
                }],
                Options {
                    profile: Profile::Text2sparql,
                    ..Options::default()
                },
            ))
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
