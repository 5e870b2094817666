//! Keyword values from Python, checked against their option's kind before
//! any work starts ([`typed_value`]): every keyword of every function goes
//! through it, `evaluate`'s and every other command's alike. A list is
//! collected from any iterable, at most [`embed::MAX_ITEMS`] items, looking
//! at Python's signals as it goes: an endless iterable is a `UsageError`
//! naming the keyword, and a Ctrl-C stops the collecting.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

use qajudge::cli::embed::{self, Kind, Value};

use crate::errors::usage;

/// The most characters of a value's `repr` a message quotes.
const SHOWN: usize = 200;

/// Signals are looked at once per this many items collected.
const SIGNALS_EVERY: usize = 256;

/// `repr(value)`, at most [`SHOWN`] characters of it.
fn shown(value: &Bound<'_, PyAny>) -> String {
    let text = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{} … ({} characters)", &text[..cut], text.chars().count()),
        None => text,
    }
}

/// A path given as a text or an `os.PathLike`, as its text.
fn text(value: &Bound<'_, PyAny>) -> Option<String> {
    if let Ok(t) = value.extract::<String>() {
        return Some(t);
    }
    if !value.hasattr("__fspath__").unwrap_or(false) {
        return None;
    }
    let fspath = value.py().import("os").ok()?.getattr("fspath").ok()?;
    fspath.call1((value,)).ok()?.extract::<String>().ok()
}

/// The value of option `name`, of kind `kind`, given from Python; a value of
/// another kind is a `UsageError` naming the keyword and the value
/// (`confidence='yes': expected a bool`).
pub(crate) fn typed_value(name: &str, kind: Kind, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = value.py();
    let wrong = |what: &str| usage(py, format!("{name}={}: expected {what}", shown(value)));
    let is_bool = value.is_instance_of::<PyBool>();
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
            None => Value::Texts(texts(name, value)?),
        },
    })
}

/// The texts of an iterable given for the list option `name`: at most
/// [`embed::MAX_ITEMS`], each a text or a path, Python's signals looked at as
/// they are collected.
fn texts(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let py = value.py();
    let wrong = |what: &str| usage(py, format!("{name}={}: expected {what}", shown(value)));
    let Ok(iter) = value.try_iter() else {
        return Err(wrong("a text or a list of texts"));
    };
    let mut all = Vec::new();
    for item in iter {
        if all.len() % SIGNALS_EVERY == 0 {
            py.check_signals()?;
        }
        if all.len() == embed::MAX_ITEMS {
            return Err(usage(
                py,
                format!(
                    "{name}= gives more than {} items (an endless iterable?): give a list of at most {}",
                    embed::MAX_ITEMS,
                    embed::MAX_ITEMS
                ),
            ));
        }
        let item = item?;
        all.push(text(&item).ok_or_else(|| {
            usage(
                py,
                format!(
                    "{name}: item {} is {}: expected a text or a path",
                    all.len(),
                    shown(&item)
                ),
            )
        })?);
    }
    Ok(all)
}

/// The typed options of `evaluate` (its kinds: [`embed::kind`]), `None`
/// values left out.
pub(crate) fn evaluate_options(options: &Bound<'_, PyDict>) -> PyResult<Vec<(String, Value)>> {
    let py = options.py();
    let mut typed = Vec::with_capacity(options.len());
    for (key, value) in options.iter() {
        if value.is_none() {
            continue;
        }
        let name: String = key.extract()?;
        let kind = embed::kind(&name).map_err(|e| usage(py, e.message))?;
        typed.push((name.clone(), typed_value(&name, kind, &value)?));
    }
    Ok(typed)
}

/// The arguments of `subcommand` (`audit`, `features`, `sample`, `refresh`,
/// `index build`, `index fetch`) for the keyword `options` (`None` values
/// left out), each checked against its option's kind as `evaluate`'s are.
#[pyfunction]
pub(crate) fn arguments(
    py: Python<'_>,
    subcommand: &str,
    options: &Bound<'_, PyDict>,
) -> PyResult<Vec<std::ffi::OsString>> {
    let mut typed = Vec::with_capacity(options.len());
    for (key, value) in options.iter() {
        if value.is_none() {
            continue;
        }
        let name: String = key.extract()?;
        let kind = embed::kind_in(subcommand, &name).map_err(|e| usage(py, e.message))?;
        typed.push((name.clone(), typed_value(&name, kind, &value)?));
    }
    embed::arguments(subcommand, typed).map_err(|e| usage(py, e.message))
}
