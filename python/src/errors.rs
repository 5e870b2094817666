//! Errors as Python sees them: each Rust error becomes the exception of
//! `qajudge._errors` its chain names ([`py_error`]), and a panic (a bug) a
//! `QajudgeError` ([`guarded`]), never pyo3's `PanicException`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use qajudge::cli::embed::UsageError;
use qajudge::eval::job::JobError;
use qajudge::index::IndexError;
use qajudge::qald::QaldError;

/// The exception class (in `qajudge._errors`), message and fields an error
/// becomes: the first error of the chain that has a class of its own.
fn classify(e: &anyhow::Error) -> (&'static str, Vec<(&'static str, Field)>) {
    for cause in e.chain() {
        if cause.downcast_ref::<UsageError>().is_some() {
            return ("UsageError", Vec::new());
        }
        if let Some(q) = cause.downcast_ref::<QaldError>() {
            return match q {
                QaldError::Syntax {
                    source_name,
                    line,
                    column,
                    ..
                } => (
                    "QaldError",
                    vec![
                        ("path", Field::Text(source_name.clone())),
                        ("line", Field::Number(*line)),
                        ("column", Field::Number(*column)),
                    ],
                ),
                QaldError::Read { source_name, .. } => (
                    "QaldError",
                    vec![("path", Field::Text(source_name.clone()))],
                ),
            };
        }
        if let Some(j) = cause.downcast_ref::<JobError>() {
            return match j {
                JobError::RunFailed { url, name, .. } => (
                    "LiveSystemError",
                    vec![
                        ("url", Field::Text(url.clone())),
                        ("run", Field::Text(name.clone())),
                    ],
                ),
                JobError::System { url, .. } => {
                    ("LiveSystemError", vec![("url", Field::Text(url.clone()))])
                }
                _ => ("JobError", Vec::new()),
            };
        }
        if let Some(i) = cause.downcast_ref::<IndexError>() {
            return ("IndexFileError", index_fields(i));
        }
        if cause.downcast_ref::<qajudge::sparql::KgError>().is_some() {
            return ("KgError", Vec::new());
        }
        if cause.downcast_ref::<qajudge::fetch::FetchError>().is_some() {
            return ("FetchError", Vec::new());
        }
        if cause.downcast_ref::<qajudge::live::LiveError>().is_some() {
            return ("LiveError", Vec::new());
        }
        if cause
            .downcast_ref::<qajudge::query::SparqlError>()
            .is_some()
        {
            return ("SparqlError", Vec::new());
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return ("InputError", Vec::new());
        }
    }
    ("QajudgeError", Vec::new())
}

/// The directory an index error names, when it names one.
fn index_fields(e: &IndexError) -> Vec<(&'static str, Field)> {
    match e {
        IndexError::NoMeta { path, .. }
        | IndexError::BadMeta { path, .. }
        | IndexError::Store { path, .. }
        | IndexError::SameAs { path, .. }
        | IndexError::Labels { path, .. }
        | IndexError::Version { path, .. }
        | IndexError::NoNames { path, .. } => {
            vec![("path", Field::Text(path.display().to_string()))]
        }
        _ => Vec::new(),
    }
}

/// A field of an exception.
enum Field {
    Text(String),
    Number(usize),
}

/// The Python exception of an error: its class from [`classify`], its message
/// the whole chain as the command line prints it.
pub(crate) fn py_error(py: Python<'_>, e: &anyhow::Error) -> PyErr {
    let (class, fields) = classify(e);
    let message = format!("{e:#}");
    let build = || -> PyResult<PyErr> {
        let kwargs = PyDict::new(py);
        for (name, value) in fields {
            match value {
                Field::Text(t) => kwargs.set_item(name, t)?,
                Field::Number(n) => kwargs.set_item(name, n)?,
            }
        }
        let cls = py.import("qajudge._errors")?.getattr(class)?;
        Ok(PyErr::from_value(
            cls.call((message.clone(),), Some(&kwargs))?,
        ))
    };
    build().unwrap_or_else(|err| err)
}

/// Runs `f`, a panic (a bug in qajudge) turned into an error: Python gets a
/// `QajudgeError`, which `except Exception` catches, never pyo3's
/// `PanicException` (a `BaseException`).
pub(crate) fn guarded<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Err(anyhow::anyhow!(
            "internal error (a bug in qajudge; please report it with the input that caused it): {message}"
        ))
    })
}

/// Runs `f` without the GIL and turns its error (or panic) into the Python
/// exception.
pub(crate) fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> anyhow::Result<T> + Send,
) -> PyResult<T> {
    py.detach(|| guarded(f)).map_err(|e| py_error(py, &e))
}

/// The `UsageError` of `message` (a keyword's value refused).
pub(crate) fn usage(py: Python<'_>, message: String) -> PyErr {
    py_error(py, &anyhow::Error::new(UsageError { message }))
}
