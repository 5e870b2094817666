//! The Python client (`clients/python`) against the real server: its pytest
//! suite, run in the client venv of `scripts/install-servers.sh`, with the
//! server's address, the demo benchmark and run, and the CLI's report of that
//! run (whose figures the client's evaluation must equal).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::{qajudge, stdout};
use crate::serve::{demo_index, root, tmp, Server, GOLD, RUN};

/// The client venv's Python, or `None` (a note) outside CI.
fn python() -> Option<PathBuf> {
    let exe = Path::new(env!("CARGO_BIN_EXE_qajudge"));
    let target = exe.parent()?.parent()?;
    let bin = target.join("venv-client/bin/python");
    if bin.is_file() {
        return Some(bin);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "{} is missing: run bash scripts/install-servers.sh (the README's test command does)",
        bin.display()
    );
    eprintln!(
        "skipping: {} is missing (bash scripts/install-servers.sh)",
        bin.display()
    );
    None
}

#[test]
fn the_python_client_passes_its_tests_against_the_server() {
    let Some(python) = python() else { return };
    let index = demo_index();
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--index",
        index.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(o.status.success());
    let dir = tmp("python-client");
    let cli_report = dir.join("cli-report.json");
    std::fs::write(&cli_report, stdout(&o)).expect("written");
    let s = Server::start(&dir.join("data"), &[]);
    let out = Command::new(&python)
        .current_dir(root())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "clients/python/tests",
        ])
        .env("PYTHONPATH", root().join("clients/python/src"))
        .env("QAJUDGE_URL", &s.base)
        .env("QAJUDGE_GOLD", root().join(GOLD))
        .env("QAJUDGE_RUN", root().join(RUN))
        .env("QAJUDGE_CLI_REPORT", &cli_report)
        .output()
        .expect("pytest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{text}");
    assert!(text.contains("6 passed"), "{text}");
}
