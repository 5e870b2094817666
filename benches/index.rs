//! In-process lookups on an index built by `scripts/bench-index.sh` (the directory
//! in `QAJUDGE_BENCH_INDEX`): sameAs lookups and label lookups per second on one
//! thread, with a RocksDB miss (an unknown IRI) as the baseline.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qajudge::index::Index;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("QAJUDGE_BENCH_INDEX").map(PathBuf::from) else {
        eprintln!("benches/index: set QAJUDGE_BENCH_INDEX (scripts/bench-index.sh does); nothing to measure");
        return;
    };
    let index = Index::open(&dir).expect("index opens");
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
    group.bench_function("sameas_known_10k", |b| {
        b.iter(|| {
            for iri in &known {
                black_box(index.sameas(iri, 100).expect("lookup"));
            }
        })
    });
    group.bench_function("class_of_unknown_10k", |b| {
        b.iter(|| {
            for iri in &unknown {
                black_box(index.class_of(iri).expect("lookup"));
            }
        })
    });
    group.bench_function("labels_10k", |b| {
        b.iter(|| {
            for l in &labels {
                black_box(index.labels(l, None, 0).expect("lookup"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
