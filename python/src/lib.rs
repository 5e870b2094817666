//! The extension module `qajudge._native` (PyO3) under the Python package
//! `qajudge` (python/qajudge/, docs/python.md): the command line run in
//! process (the `qajudge` console command), the evaluation as the command line
//! parses it, returning a report object, `check`, `features`, `sample`, and
//! an index's lookups. Every call releases the GIL while Rust works; errors
//! become the exceptions of `qajudge._errors`, chosen by the Rust error found
//! in the error's chain.

use std::ffi::OsString;
use std::path::PathBuf;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use qajudge::cli::embed::{self, ReadRun, UsageError};
use qajudge::eval::job::JobError;
use qajudge::eval::Report;
use qajudge::index::{Index, IndexError};
use qajudge::qald::QaldError;

/// Loading and matching allocate many small strings: the binary's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
fn py_error(py: Python<'_>, e: &anyhow::Error) -> PyErr {
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
fn guarded<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
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
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> anyhow::Result<T> + Send) -> PyResult<T> {
    py.detach(|| guarded(f)).map_err(|e| py_error(py, &e))
}

/// Runs the command line with `argv` (its first item the program's name) and
/// returns the exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<OsString>) -> PyResult<u8> {
    detached(py, || Ok(embed::run(argv)))
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

/// A report of `evaluate`: the Rust report, kept whole; the Python class
/// `qajudge.Report` wraps it.
#[pyclass(frozen, module = "qajudge._native", name = "NativeReport")]
struct NativeReport {
    report: Report,
}

#[pymethods]
impl NativeReport {
    /// The JSON report, exactly as `evaluate --format json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        let report = &self.report;
        detached(py, || Ok(serde_json::to_string_pretty(report)?))
    }

    /// The tables of `--format latex`, marked against `baseline`, with the
    /// caller's `caption` and `label` when given.
    #[pyo3(signature = (baseline=None, caption=None, label=None))]
    fn to_latex(
        &self,
        py: Python<'_>,
        baseline: Option<String>,
        caption: Option<String>,
        label: Option<String>,
    ) -> PyResult<String> {
        let report = &self.report;
        detached(py, || {
            Ok(embed::latex_titled(
                report,
                baseline.as_deref(),
                caption.as_deref(),
                label.as_deref(),
            ))
        })
    }

    /// The profile's headline figures of each run, as JSON: `[[run,
    /// [[name, value or null], …]], …]`, in the order the profile reads
    /// them (`Profile::headline`).
    fn headline_json(&self) -> PyResult<String> {
        let profile = qajudge::eval::Profile::parse(self.report.profile).unwrap_or_default();
        let rows: Vec<(&str, Headline)> = self
            .report
            .runs
            .iter()
            .filter_map(|r| {
                let qa = r.experiments.qa.as_ref()?;
                Some((r.name.as_str(), profile.headline(&qa.aggregate)))
            })
            .collect();
        serde_json::to_string(&rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The tables of `--format markdown`, marked against `baseline`.
    #[pyo3(signature = (baseline=None))]
    fn to_markdown(&self, py: Python<'_>, baseline: Option<String>) -> PyResult<String> {
        let report = &self.report;
        detached(py, || Ok(embed::markdown(report, baseline.as_deref())))
    }

    /// The table `evaluate` prints by default (`per_question`: a row per question).
    #[pyo3(signature = (per_question=false))]
    fn to_table(&self, py: Python<'_>, per_question: bool) -> PyResult<String> {
        let report = &self.report;
        detached(py, || Ok(embed::table(report, per_question)))
    }
}

/// A run's headline figures, by name (`None`: not computed).
type Headline = Vec<(String, Option<f64>)>;

/// How often a running evaluation looks at Python's signals (Ctrl-C).
const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(100);

/// The value of option `name` given from Python, of the option's kind
/// ([`embed::kind`]); a value of another kind is a `UsageError` naming the
/// keyword and the value (`confidence='yes': expected a bool`).
fn typed_value(name: &str, value: &Bound<'_, PyAny>) -> PyResult<embed::Value> {
    use embed::{Kind, Value};
    let py = value.py();
    let wrong = |what: &str| -> PyErr {
        let shown = value
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        let e = anyhow::Error::new(UsageError {
            message: format!("{name}={shown}: expected {what}"),
        });
        py_error(py, &e)
    };
    let kind = embed::kind(name).map_err(|e| py_error(py, &anyhow::Error::new(e)))?;
    // a path given as os.PathLike is its text
    let text = |v: &Bound<'_, PyAny>| -> Option<String> {
        if let Ok(t) = v.extract::<String>() {
            return Some(t);
        }
        let fspath = py.import("os").ok()?.getattr("fspath").ok()?;
        fspath.call1((v,)).ok()?.extract::<String>().ok()
    };
    let is_bool = value.is_instance_of::<pyo3::types::PyBool>();
    Ok(match kind {
        Kind::Flag if is_bool => Value::Flag(value.extract()?),
        Kind::Flag => return Err(wrong("a bool (True or False)")),
        Kind::Number if !is_bool => match value.extract::<u64>() {
            Ok(n) => Value::Number(n),
            Err(_) => return Err(wrong("a whole number, 0 or more")),
        },
        Kind::Number => return Err(wrong("a whole number, 0 or more")),
        Kind::Share if !is_bool => match value.extract::<f64>() {
            Ok(f) => Value::Share(f),
            Err(_) => return Err(wrong("a number from 0 to 1")),
        },
        Kind::Share => return Err(wrong("a number from 0 to 1")),
        Kind::Text => match text(value) {
            Some(t) => Value::Text(t),
            None => return Err(wrong("a text or a path")),
        },
        Kind::Texts => match text(value) {
            Some(t) => Value::Texts(vec![t]),
            None => {
                let items: Vec<Bound<'_, PyAny>> = match value.try_iter() {
                    Ok(iter) => iter.collect::<PyResult<_>>()?,
                    Err(_) => return Err(wrong("a text or a list of texts")),
                };
                let mut all = Vec::with_capacity(items.len());
                for item in &items {
                    all.push(text(item).ok_or_else(|| wrong("a text or a list of texts"))?);
                }
                Value::Texts(all)
            }
        },
    })
}

/// Evaluates as `qajudge evaluate` does and returns the report: the run
/// files `runs` named `names` (empty: the command's names), every other
/// option typed, by keyword, in `options` (None values left out by the
/// caller), set on the command's arguments without a command line. `read`
/// gives runs as objects (any format qajudge reads, detected from their JSON
/// text): `(position among the runs, source, bytes)`, read in place of that
/// file. The evaluation runs on a thread of its own while this one looks at
/// Python's signals every 100 ms: a Ctrl-C stops the scoring at its next
/// question and raises `KeyboardInterrupt` at once.
#[pyfunction]
#[pyo3(signature = (options, runs, names, read, progress=None))]
fn evaluate(
    py: Python<'_>,
    options: &Bound<'_, PyDict>,
    runs: Vec<PathBuf>,
    names: Vec<String>,
    read: Vec<(usize, String, Vec<u8>)>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<NativeReport> {
    let mut typed = Vec::with_capacity(options.len());
    for (key, value) in options.iter() {
        let name: String = key.extract()?;
        typed.push((name.clone(), typed_value(&name, &value)?));
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let deadline = qajudge::eval::Deadline::on(std::sync::Arc::clone(&stop));
    let counter = std::sync::Arc::new(embed::Counter::default());
    let counting = std::sync::Arc::clone(&counter);
    let mut told = (0, 0);
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("qajudge-evaluate".into())
        .spawn(move || {
            let report = guarded(move || {
                let runs_paths = runs;
                let mut runs: Vec<Option<ReadRun>> = Vec::new();
                for (position, source, bytes) in read {
                    let dataset = embed::read(&bytes, &source)?;
                    if runs.len() <= position {
                        runs.resize_with(position + 1, || None);
                    }
                    runs[position] = Some(ReadRun { source, dataset });
                }
                embed::evaluate_typed(runs_paths, names, typed, runs, deadline, &counting)
            });
            let _ = tx.send(report);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the evaluation: {e}")))?;
    // a receiver is not shared between threads; behind a lock it is
    let rx = std::sync::Mutex::new(rx);
    loop {
        let received = py.detach(|| {
            rx.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv_timeout(SIGNAL_CHECK)
        });
        match received {
            Ok(report) => {
                let _ = worker.join();
                // the last counts, which the polls may not have seen
                let now = counter.get();
                if let (Some(callable), true) = (&progress, now != told) {
                    callable.call1(now)?;
                }
                return report
                    .map(|report| NativeReport { report })
                    .map_err(|e| py_error(py, &e));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // the progress callable is called here, with the GIL, when
                // the counts moved; its error stops the evaluation as Ctrl-C does
                let now = counter.get();
                if let (Some(callable), true) = (&progress, now != told) {
                    told = now;
                    if let Err(e) = callable.call1(now) {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        return Err(e);
                    }
                }
                if let Err(interrupt) = py.check_signals() {
                    // the worker stops at its next question and ends alone
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    return Err(interrupt);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                let _ = worker.join();
                return Err(PyRuntimeError::new_err(
                    "the evaluation ended without a report (a bug in qajudge)",
                ));
            }
        }
    }
}

/// What `qajudge check FILE` says of a file, as JSON.
#[pyfunction]
fn check(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    detached(py, move || Ok(serde_json::to_string(&embed::check(&path))?))
}

/// The features `qajudge features ARGS… --format json` prints, as JSON.
#[pyfunction]
fn features(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    detached(py, move || {
        Ok(serde_json::to_string(&embed::features(&args)?)?)
    })
}

/// The audit `qajudge audit ARGS… --format json` prints, as JSON.
#[pyfunction]
fn audit(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    detached(py, move || {
        Ok(serde_json::to_string(&embed::audit(&args)?)?)
    })
}

/// Runs `qajudge SUBCOMMAND ARGS…` in process (`refresh`, `index build`,
/// `index fetch`), its output on stdout; its exit code, or its error as the
/// Python exception.
#[pyfunction]
fn command(py: Python<'_>, subcommand: String, args: Vec<OsString>) -> PyResult<u8> {
    detached(py, move || embed::command(&subcommand, &args))
}

/// Draws a sample as `qajudge sample ARGS… --format json` does; its summary as JSON.
#[pyfunction]
fn sample(py: Python<'_>, args: Vec<OsString>) -> PyResult<String> {
    detached(py, move || {
        Ok(serde_json::to_string(&embed::sample(&args)?)?)
    })
}

/// An index built by `qajudge index build`, opened for lookups
/// (docs/index-format.md). Lookups release the GIL; several threads may
/// share one index.
#[pyclass(frozen, module = "qajudge._native", name = "Index")]
struct PyIndex {
    index: Index,
}

#[pymethods]
impl PyIndex {
    /// Opens the index directory `path`.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let index = detached(py, || Ok(Index::open(&path)?))?;
        Ok(PyIndex { index })
    }

    /// The index directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.index.dir().to_path_buf()
    }

    /// The index's metadata (`qajudge index info`), as JSON.
    fn info_json(&self) -> PyResult<String> {
        serde_json::to_string(self.index.meta()).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The members of the owl:sameAs class of `iri` (sorted, at most
    /// `limit`), as `qajudge sameas` lists them; the IRI alone when the index
    /// does not know it.
    #[pyo3(signature = (iri, limit=100))]
    fn sameas(&self, py: Python<'_>, iri: &str, limit: usize) -> PyResult<Vec<String>> {
        let index = &self.index;
        detached(py, || Ok(index.sameas(iri, limit)?.members))
    }

    /// The members of the class of each IRI: a dict IRI → members.
    #[pyo3(signature = (iris, limit=100))]
    fn sameas_many<'py>(
        &self,
        py: Python<'py>,
        iris: Vec<String>,
        limit: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let index = &self.index;
        let found = detached(py, || {
            Ok(iris
                .iter()
                .map(|i| index.sameas(i, limit).map(|s| (i.clone(), s.members)))
                .collect::<Result<Vec<_>, _>>()?)
        })?;
        let out = PyDict::new(py);
        for (iri, members) in found {
            out.set_item(iri, members)?;
        }
        Ok(out)
    }

    /// The IRIs carrying the label `text` (normalised; within `fuzzy` edits),
    /// in `lang` when given: a list of `{"iri", "label", "lang"}`, as
    /// `qajudge labels` prints them.
    #[pyo3(signature = (text, lang=None, fuzzy=0))]
    fn labels<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        lang: Option<&str>,
        fuzzy: u32,
    ) -> PyResult<Bound<'py, PyList>> {
        let index = &self.index;
        let hits = detached(py, || Ok(index.labels(text, lang, fuzzy)?))?;
        let out = PyList::empty(py);
        for h in hits {
            let d = PyDict::new(py);
            d.set_item("iri", h.iri)?;
            d.set_item("label", h.label)?;
            d.set_item("lang", h.lang)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// The classes (rdf:type, wdt:P31) of `iri`, as `qajudge types` prints them.
    fn types(&self, py: Python<'_>, iri: &str) -> PyResult<Vec<String>> {
        let index = &self.index;
        detached(py, || Ok(index.types(iri)?))
    }

    /// The name of `iri` in `lang` (else English, else without language, else
    /// any), through its owl:sameAs class of at most `max_class` IRIs when it
    /// has no label itself; `None` when it has none.
    #[pyo3(signature = (iri, lang="en", max_class=qajudge::eval::DEFAULT_MAX_CLASS_SIZE))]
    fn name(
        &self,
        py: Python<'_>,
        iri: &str,
        lang: &str,
        max_class: usize,
    ) -> PyResult<Option<String>> {
        let index = &self.index;
        detached(py, || Ok(index.name(iri, lang, max_class)?))
    }

    fn __repr__(&self) -> String {
        format!(
            "qajudge.Index({:?})",
            self.index.dir().display().to_string()
        )
    }
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(features, m)?)?;
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(command, m)?)?;
    m.add_class::<NativeReport>()?;
    m.add_class::<PyIndex>()?;
    Ok(())
}
