//! The commands Python calls: `evaluate` (a report object), `check`,
//! `features`, `sample`, `audit` and the commands run for their files
//! (`refresh`, `index build`, `index fetch`). Each but `check` runs on a
//! thread of its own while this one looks at Python's signals
//! ([`on_worker`]): a Ctrl-C stops it, and it has ended when the call
//! returns.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use qajudge::cli::embed::{self, Counter, ReadRun};

use crate::errors::detached;
use crate::report::NativeReport;
use crate::typed::evaluate_options;
use crate::worker::{on_worker, Told};

/// Evaluates as `qajudge evaluate` does and returns the report: the run
/// files `runs` named `names` (empty: the command's names), every other
/// option typed, by keyword, in `options` (`None` values left out), set on
/// the command's arguments without a command line. `read` gives runs as
/// objects (any format qajudge reads, detected from their JSON text):
/// `(position among the runs, source, bytes)`, read in place of that file.
/// A Ctrl-C or an exception of `progress` stops every part of it (asking
/// live systems, executing queries, scoring) and is raised once it stopped.
#[pyfunction]
#[pyo3(signature = (options, runs, names, read, progress=None))]
pub(crate) fn evaluate(
    py: Python<'_>,
    options: &Bound<'_, PyDict>,
    runs: Vec<PathBuf>,
    names: Vec<String>,
    read: Vec<(usize, String, Vec<u8>)>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<NativeReport> {
    let typed = evaluate_options(options)?;
    let counter = Arc::new(Counter::default());
    let counting = Arc::clone(&counter);
    let told = Told {
        callable: progress.as_ref(),
        counter,
    };
    let report = on_worker(py, "qajudge-evaluate", &told, move |deadline| {
        let mut read_runs: Vec<Option<ReadRun>> = Vec::new();
        for (position, source, bytes) in read {
            if deadline.passed() {
                break;
            }
            let dataset = embed::read(&bytes, &source)?;
            if read_runs.len() <= position {
                read_runs.resize_with(position + 1, || None);
            }
            read_runs[position] = Some(ReadRun { source, dataset });
        }
        embed::evaluate_typed(runs, names, typed, read_runs, deadline, &counting)
    })?;
    Ok(NativeReport { report })
}

/// What `qajudge check FILE` says of a file, as JSON.
#[pyfunction]
pub(crate) fn check(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    detached(py, move || Ok(serde_json::to_string(&embed::check(&path))?))
}

/// Runs `job` on a worker with no progress to tell ([`on_worker`]).
fn quietly<T: Send + 'static>(
    py: Python<'_>,
    name: &str,
    job: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> PyResult<T> {
    let told = Told {
        callable: None,
        counter: Arc::new(Counter::default()),
    };
    on_worker(py, name, &told, move |_deadline| job())
}

/// The features `qajudge features ARGS… --format json` prints, as JSON.
#[pyfunction]
pub(crate) fn features(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    quietly(py, "qajudge-features", move || {
        Ok(serde_json::to_string(&embed::features(&args)?)?)
    })
}

/// The audit `qajudge audit ARGS… --format json` prints, as JSON.
#[pyfunction]
pub(crate) fn audit(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    quietly(py, "qajudge-audit", move || {
        Ok(serde_json::to_string(&embed::audit(&args)?)?)
    })
}

/// Runs `qajudge SUBCOMMAND ARGS…` in process (`refresh`, `index build`,
/// `index fetch`), its output on stdout; its exit code, or its error as the
/// Python exception.
#[pyfunction]
pub(crate) fn command(py: Python<'_>, subcommand: String, args: Vec<OsString>) -> PyResult<u8> {
    quietly(py, "qajudge-command", move || {
        embed::command(&subcommand, &args)
    })
}

/// Draws a sample as `qajudge sample ARGS… --format json` does; its summary as JSON.
#[pyfunction]
pub(crate) fn sample(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    quietly(py, "qajudge-sample", move || {
        Ok(serde_json::to_string(&embed::sample(&args)?)?)
    })
}

/// What `qajudge reproduce` finds of a report (a file, or its JSON text), as
/// JSON: `verdict`, `figures`, `receipt`, `lines`; `re_execute` asks the
/// report's live sources again for their drift.
#[pyfunction]
#[pyo3(signature = (path=None, text=None, inputs=None, re_execute=false))]
pub(crate) fn reproduce(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    inputs: Option<PathBuf>,
    re_execute: bool,
) -> PyResult<String> {
    quietly(py, "qajudge-reproduce", move || {
        let outcome = embed::reproduce(
            path.as_deref(),
            text.as_deref(),
            inputs.as_deref(),
            re_execute,
        )?;
        Ok(serde_json::to_string(&outcome)?)
    })
}
