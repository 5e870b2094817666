//! Evaluates QALD-9 train against a real run many times, for profilers
//! (`perf record`, `valgrind --tool=callgrind`). Needs `../shared/data`.

use qajudge::eval::{evaluate, Options, Run};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let run_file = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "systems/nliwod/qald9/TeBaQA_QALD9_Train.json".into());
    let gold_bytes =
        std::fs::read(dir.join("qald/9/qald-9-train-multilingual.json")).expect("gold");
    let run_bytes = std::fs::read(dir.join(run_file)).expect("run");
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut times = [0.0f64; 4];
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        let v: serde_json::Value = serde_json::from_slice(&gold_bytes).expect("json");
        std::hint::black_box(v);
        times[0] += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let gold = qajudge::qald::parse(&gold_bytes, "gold").expect("gold parses");
        times[1] += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let run = qajudge::qald::parse(&run_bytes, "run").expect("run parses");
        times[2] += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let report = evaluate(
            &gold,
            "gold",
            &[Run {
                name: "r",
                source: "r",
                dataset: &run,
            }],
            Options {
                experiments: vec![qajudge::eval::Experiment::Qa],
                ..Options::default()
            },
        );
        std::hint::black_box(report);
        times[3] += t.elapsed().as_secs_f64();
    }
    let ms = |x: f64| x * 1000.0 / rounds as f64;
    eprintln!(
        "serde gold {:.2} ms, parse gold {:.2} ms, parse run {:.2} ms, evaluate {:.2} ms",
        ms(times[0]),
        ms(times[1]),
        ms(times[2]),
        ms(times[3])
    );
}
