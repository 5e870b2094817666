//! The in-process baselines of `scripts/bench-api.sh`: the CLI's `evaluate`
//! path (parse the gold and the run, evaluate every sub-experiment with the
//! index) and `sameas` lookups of the IRIs the HTTP batch asks for. Prints one
//! JSON object. Usage: bench_api_baseline INDEX GOLD RUN ROUNDS

use std::time::Instant;

use qajudge::eval::{evaluate_with, IndexRef, Options, Run};
use qajudge::index::Index;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The IRIs of a batch: `n` known ones from `first` on, in the shapes
/// `examples/gen_dump.rs` writes.
fn iris(first: usize, n: usize) -> Vec<String> {
    (first..first + n)
        .map(|i| format!("http://www.wikidata.org/entity/Q{}", i * 7 + 3))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, index, gold, run, rounds] = args.as_slice() else {
        eprintln!("usage: bench_api_baseline INDEX GOLD RUN ROUNDS");
        std::process::exit(2);
    };
    let rounds: usize = rounds.parse().expect("ROUNDS is a number");
    let index = Index::open(std::path::Path::new(index)).expect("the index opens");
    let gold_bytes = std::fs::read(gold).expect("gold");
    let run_bytes = std::fs::read(run).expect("run");
    let mut times = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let g = qajudge::qald::parse(&gold_bytes, gold).expect("gold parses");
        let r = qajudge::qald::parse(&run_bytes, run).expect("run parses");
        let runs = [Run {
            name: "run",
            source: run,
            dataset: &r,
        }];
        let report = evaluate_with(
            &g,
            gold,
            &runs,
            Options {
                explain: true,
                ..Options::default()
            },
            Some(IndexRef::of(&index, "index")),
        );
        std::hint::black_box(report);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let batch = iris(0, 10_000);
    let t = Instant::now();
    for iri in &batch {
        std::hint::black_box(index.sameas(iri, 100).expect("lookup"));
    }
    let first = batch.len() as f64 / t.elapsed().as_secs_f64();
    let t = Instant::now();
    for iri in &batch {
        std::hint::black_box(index.sameas(iri, 100).expect("lookup"));
    }
    let again = batch.len() as f64 / t.elapsed().as_secs_f64();
    println!(
        "{{\"evaluate_ms_median\": {:.2}, \"evaluate_ms_first\": {:.2}, \"sameas_per_s_uncached\": {first:.0}, \"sameas_per_s_cached\": {again:.0}}}",
        median(times.clone()),
        times[0]
    );
}
