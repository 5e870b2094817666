//! Access to the shared real data beside the project. Under CI (`CI=true`) a
//! missing `../shared/data` fails the test with a message; elsewhere it skips.

use std::path::{Path, PathBuf};

use qajudge::eval::{evaluate_with, Experiment, IndexRef, Options, Report, Run};
use qajudge::model::Dataset;
use serde_json::Value;

/// The shared data folder, or `None` (with a note on stderr) when it is missing
/// outside CI.
pub fn shared() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{} is missing: CI runs the tests with the shared real data beside the project (../shared/data)",
            dir.display()
        );
    }
    eprintln!("skipping: {} is missing", dir.display());
    None
}

/// Returns early from a test when the shared data is missing outside CI.
#[macro_export]
macro_rules! require_data {
    () => {
        match $crate::data::shared() {
            Some(dir) => dir,
            None => return,
        }
    };
}

/// Loads a benchmark or run file, panicking with the parser's message.
pub fn load(path: &Path) -> Dataset {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    qajudge::qald::parse(&bytes, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// Evaluates one run against a gold benchmark with the default options (all
/// sub-experiments).
pub fn eval_one(gold: &Dataset, run: &Dataset, name: &str) -> Report {
    eval_with(gold, run, name, &[])
}

/// Evaluates one run against a gold benchmark for the given sub-experiments only
/// (all when empty).
pub fn eval_with(gold: &Dataset, run: &Dataset, name: &str, experiments: &[Experiment]) -> Report {
    let options = Options {
        experiments: experiments.to_vec(),
        ..Options::default()
    };
    eval_run(gold, run, name, options, None)
}

/// Evaluates one run, named `name`, against a gold benchmark under `options`,
/// through `index` when given.
pub fn eval_run(
    gold: &Dataset,
    run: &Dataset,
    name: &str,
    options: Options,
    index: Option<IndexRef<'_>>,
) -> Report {
    let runs = [Run {
        name,
        source: name,
        dataset: run,
    }];
    evaluate_with(gold, "gold", &runs, options, index)
}

/// The question `id` of an experiment's JSON report (`{"questions": […]}`).
pub fn report_question<'a>(experiment: &'a Value, id: &str) -> &'a Value {
    experiment["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .find(|q| q["id"] == id)
        .unwrap_or_else(|| panic!("no question {id} in the report"))
}

/// Every file below `dir`, sorted.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
