//! In-process lookups on an index built by `scripts/bench-index.sh` (the directory
//! in `QAJUDGE_BENCH_INDEX`): sameAs lookups and label lookups per second on one
//! thread, with an IRI the index does not hold as the baseline, the sameAs
//! lookups both memory-mapped (format 6) and with positioned reads (format 5's
//! way, the baseline of the same run) on the same files; and the evaluation
//! of each QALD-9 train run of NLIWOD with all sub-experiments against that index,
//! with the same evaluation without an index as the baseline (needs
//! `../shared/data`).

// criterion_main! writes a `main` without a doc comment
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qajudge::eval::{evaluate_with, IndexRef, Options, Run};
use qajudge::index::Index;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("QAJUDGE_BENCH_INDEX").map(PathBuf::from) else {
        eprintln!("benches/index: set QAJUDGE_BENCH_INDEX (scripts/bench-index.sh does); nothing to measure");
        return;
    };
    // the index as this qajudge opens it (mapped from format 6 on) and the
    // same files read with positioned reads (format 5's way): the baseline of
    // the same run
    let index = Index::open(&dir).expect("index opens");
    let read = Index::open_read(&dir).expect("index opens");
    let probes = Index::open(&dir).expect("index opens").without_caches();
    eprintln!(
        "benches/index: {} (format {}): {} and read",
        dir.display(),
        index.meta().format_version,
        index.access()
    );
    // IRIs in the shapes gen_dump writes
    let n = 10_000u64;
    let known: Vec<String> = (1..=n)
        .map(|e| format!("http://www.wikidata.org/entity/Q{}", e * 7 + 3))
        .collect();
    let unknown: Vec<String> = (1..=n)
        .map(|e| format!("http://example.org/none/{e}"))
        .collect();
    // gen_dump labels one entity in four "Entity <n>"; about a quarter of these hit
    let labels: Vec<String> = (1..=n).map(|e| format!("entity {e}")).collect();
    let mut group = c.benchmark_group("index");
    group.throughput(Throughput::Elements(n));
    group.sample_size(10);
    // the same lookups over IRIs that were not asked before: each iteration takes
    // the next 10,000 of three million entities (a 20-million-statement dump has
    // 3.67 million), so no cache has seen them (the in-process cache keeps far
    // fewer than the three million); both ways draw from one counter
    let pool: Vec<String> = (1..=3_000_000u64)
        .map(|e| format!("http://www.wikidata.org/entity/Q{}", e * 7 + 3))
        .collect();
    // the files themselves in the OS page cache, as after any use of the index
    // (a freshly built index may have been written back and dropped from it)
    for sub in [dir.clone(), dir.join("kv")] {
        for entry in std::fs::read_dir(sub).expect("index dir").flatten() {
            if entry.path().is_file() {
                let mut file = std::fs::File::open(entry.path()).expect("index file");
                std::io::copy(&mut file, &mut std::io::sink()).expect("read");
            }
        }
    }
    let next = std::cell::Cell::new(0usize);
    let ways = [
        ("read", &read),
        (index.access(), &index),
        ("uncached", &probes),
    ];
    for (way, index) in ways {
        group.bench_function(format!("{way}/sameas_known_10k"), |b| {
            b.iter(|| {
                for iri in &known {
                    black_box(index.sameas(iri, 100).expect("lookup"));
                }
            });
        });
        // the same lookups borrowed (what the server writes its JSON from):
        // every member walked, none copied
        let walk = |iri: &str| {
            let v = index.sameas_view(iri, 100).expect("lookup");
            v.members().map(|m| m.len()).sum::<usize>() + v.canonical().len()
        };
        group.bench_function(format!("{way}/sameas_view_known_10k"), |b| {
            b.iter(|| {
                for iri in &known {
                    black_box(walk(iri));
                }
            });
        });
        group.bench_function(format!("{way}/sameas_view_unseen_10k"), |b| {
            b.iter(|| {
                let from = next.get();
                next.set((from + n as usize) % pool.len());
                for iri in &pool[from..from + n as usize] {
                    black_box(walk(iri));
                }
            });
        });
        group.bench_function(format!("{way}/sameas_unseen_10k"), |b| {
            b.iter(|| {
                let from = next.get();
                next.set((from + n as usize) % pool.len());
                for iri in &pool[from..from + n as usize] {
                    black_box(index.sameas(iri, 100).expect("lookup"));
                }
            });
        });
        group.bench_function(format!("{way}/class_of_unknown_10k"), |b| {
            b.iter(|| {
                for iri in &unknown {
                    black_box(index.class_of(iri).expect("lookup"));
                }
            });
        });
    }
    group.bench_function("labels_10k", |b| {
        b.iter(|| {
            for l in &labels {
                black_box(index.labels(l, None, 0).expect("lookup"));
            }
        });
    });
    group.finish();
    evaluations(c, &index, &dir.display().to_string());
}

/// QALD-9 train, all sub-experiments, each NLIWOD run, with and without the index.
fn evaluations(c: &mut Criterion, index: &Index, path: &str) {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let Ok(gold_bytes) = std::fs::read(data.join("qald/9/qald-9-train-multilingual.json")) else {
        eprintln!("benches/index: ../shared/data is missing; no evaluation benchmark");
        return;
    };
    let gold = qajudge::qald::parse(&gold_bytes, "gold").expect("gold parses");
    let mut runs: Vec<PathBuf> = std::fs::read_dir(data.join("systems/nliwod/qald9"))
        .expect("runs dir")
        .map(|e| e.expect("entry").path())
        .collect();
    runs.sort();
    let mut group = c.benchmark_group("evaluate_qald9_all_experiments");
    group.sample_size(10);
    for path_run in runs {
        let name = path_run
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(&path_run).expect("run file");
        let run = qajudge::qald::parse(&bytes, &name).expect("run parses");
        let runs = [Run {
            name: &name,
            source: &name,
            dataset: &run,
        }];
        let with = IndexRef {
            equivalence: index,
            path,
            format_version: index.meta().format_version,
            built: None,
            names: None,
        };
        group.bench_function(format!("{name}/with_index"), |b| {
            b.iter(|| {
                black_box(evaluate_with(
                    &gold,
                    "gold",
                    &runs,
                    Options::default(),
                    Some(with),
                ))
            });
        });
        group.bench_function(format!("{name}/without_index"), |b| {
            b.iter(|| {
                black_box(evaluate_with(
                    &gold,
                    "gold",
                    &runs,
                    Options::default(),
                    None,
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
