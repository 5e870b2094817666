//! Annotates the 5000 LC-QuAD 1.0 queries (parse, walk, markings, features), and
//! only parses and walks them (`query::walk`) as the baseline. Needs
//! `../shared/data`.

// criterion_main! writes a `main` without a doc comment
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use qajudge::annotate::annotate_question;
use qajudge::matching::MatchOptions;
use qajudge::model::Question;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn questions() -> Option<Vec<Question>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/lcquad");
    if !dir.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    for f in ["train-data.json", "test-data.json"] {
        let bytes = std::fs::read(dir.join(f)).expect("lcquad file");
        out.extend(
            qajudge::qald::parse(&bytes, f)
                .expect("lcquad parses")
                .questions,
        );
    }
    Some(out)
}

fn bench(c: &mut Criterion) {
    let Some(questions) = questions() else {
        eprintln!("benches/annotate: ../shared/data is missing; nothing to measure");
        return;
    };
    assert_eq!(questions.len(), 5000);
    let mut group = c.benchmark_group("lcquad5000");
    group.sample_size(10);
    group.bench_function("annotate", |b| {
        b.iter(|| {
            for q in &questions {
                black_box(annotate_question(q, MatchOptions::default()));
            }
        });
    });
    group.bench_function("walk_only", |b| {
        b.iter(|| {
            for q in &questions {
                if let qajudge::model::Query::Sparql(s) = &q.query {
                    let _ = black_box(qajudge::query::walk(s));
                }
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
