//! The Python client (`qajudge.Client`, python/qajudge/client.py) against the
//! real server: its pytest suite, run in the venv of
//! `scripts/python-wheel.sh` (the package installed from its wheel), with the
//! server's address, the demo benchmark and run, and the CLI's report of that
//! run (whose figures the client's evaluation must equal).

use std::process::Command;

use crate::api::cli_report_text;
use crate::python_module::wheel_python;
use crate::serve::{root, tmp, Server, GOLD, RUN};

#[test]
fn the_python_client_passes_its_tests_against_the_server() {
    let Some(python) = wheel_python() else {
        return;
    };
    let dir = tmp("python-client");
    let cli_report = dir.join("cli-report.json");
    std::fs::write(&cli_report, cli_report_text()).expect("written");
    let s = Server::start(&dir.join("data"), &[]);
    let out = Command::new(&python)
        .current_dir(root())
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests/test_client.py",
        ])
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
    assert!(text.contains("7 passed"), "{text}");
}
