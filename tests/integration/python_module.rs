//! The Python package (`pip install .`, python/): its pytest suites
//! `python/tests/test_module.py` (the console command, and `qajudge.evaluate`,
//! `Index`, `check`, `features`, `sample` against this binary's output, on the
//! demo and on the real NLIWOD QALD-9 runs), `test_llm_era.py` (T2S-Metrics'
//! measures, the query experiment, cost, abstention and the LLM judge through
//! Python, against this binary and tests/llm_server.py), `test_objects.py`
//! (runs given as objects read as their files, runs that miss the gold),
//! `test_resources.py` (two schemas, two training sets in one process) and
//! `test_client_redirect.py`,
//! run in the venv `scripts/python-wheel.sh` makes from the wheel it builds.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::serve::root;

/// The Python of the venv `scripts/python-wheel.sh` makes under the build
/// directory, or `None` (a note) outside CI.
pub fn wheel_python() -> Option<PathBuf> {
    let exe = Path::new(env!("CARGO_BIN_EXE_qajudge"));
    let python = exe.parent()?.parent()?.join("venv-python/bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "{} is missing: run bash scripts/python-wheel.sh (the README's test command does)",
        python.display()
    );
    eprintln!(
        "skipping: {} is missing (bash scripts/python-wheel.sh)",
        python.display()
    );
    None
}

#[test]
fn the_python_package_passes_its_tests_against_the_binary() {
    let Some(python) = wheel_python() else {
        return;
    };
    let out = Command::new(&python)
        .current_dir(root())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests/test_module.py",
            "python/tests/test_llm_era.py",
            "python/tests/test_objects.py",
            "python/tests/test_resources.py",
            "python/tests/test_client_redirect.py",
            "python/tests/test_notebook.py",
            "python/tests/test_silent_numbers.py",
        ])
        .env("QAJUDGE_BIN", env!("CARGO_BIN_EXE_qajudge"))
        .output()
        .expect("pytest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{text}");
    // every test ran: none skipped (the shared data is there or CI failed)
    assert!(!text.contains("skipped"), "{text}");
    assert!(text.contains(" passed"), "{text}");
}
