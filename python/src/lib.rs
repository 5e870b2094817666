//! The extension module `qajudge._native` (PyO3) under the Python package
//! `qajudge` (python/qajudge/, docs/python.md): the command line run in
//! process (the `qajudge` console command), the evaluation as the command line
//! parses it, returning a report object ([`report`]), `check`, `features`,
//! `sample`, `audit` and the commands run for their files ([`commands`]),
//! every keyword's value checked against its option's kind ([`typed`]), and
//! an index's lookups ([`index`]). Every call releases the GIL while Rust
//! works, and a long one runs on a thread of its own that a Ctrl-C stops
//! ([`worker`]); errors become the exceptions of `qajudge._errors`, chosen by
//! the Rust error found in the error's chain ([`errors`]).

use std::ffi::OsString;

use pyo3::prelude::*;

use qajudge::cli::embed;

mod commands;
mod errors;
mod index;
mod report;
mod typed;
mod worker;

/// Loading and matching allocate many small strings: the binary's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs the command line with `argv` (its first item the program's name) and
/// returns the exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> PyResult<u8> {
    errors::detached(py, || Ok(embed::run(argv)))
}

/// The options of a subcommand (`evaluate`, `features`, `sample`): a list of
/// `(name, is_flag)`, names with `_` for `-`.
#[pyfunction]
fn options(subcommand: &str) -> Vec<(String, bool)> {
    embed::options(subcommand)
        .into_iter()
        .map(|o| (o.name, o.flag))
        .collect()
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("_MAX_ITEMS", embed::MAX_ITEMS)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(typed::arguments, m)?)?;
    m.add_function(wrap_pyfunction!(commands::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(commands::check, m)?)?;
    m.add_function(wrap_pyfunction!(commands::features, m)?)?;
    m.add_function(wrap_pyfunction!(commands::sample, m)?)?;
    m.add_function(wrap_pyfunction!(commands::audit, m)?)?;
    m.add_function(wrap_pyfunction!(commands::command, m)?)?;
    m.add_function(wrap_pyfunction!(commands::reproduce, m)?)?;
    m.add_class::<report::NativeReport>()?;
    m.add_class::<index::PyIndex>()?;
    Ok(())
}
