//! An index opened for lookups ([`PyIndex`], the Python class
//! `qajudge.Index`): `sameas`, `labels`, `types`, `name`, each releasing the
//! GIL.

use std::path::PathBuf;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use qajudge::index::Index;

use crate::errors::detached;

/// An index built by `qajudge index build`, opened for lookups
/// (docs/index-format.md). Lookups release the GIL; several threads may
/// share one index.
#[pyclass(frozen, module = "qajudge._native", name = "Index")]
pub(crate) struct PyIndex {
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
