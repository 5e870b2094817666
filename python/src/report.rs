//! The report of `evaluate` as Python holds it ([`NativeReport`]): the Rust
//! report, kept whole, and its formats; the Python class `qajudge.Report`
//! wraps it.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use qajudge::cli::embed;
use qajudge::eval::Report;

use crate::errors::detached;

/// A report of `evaluate`: the Rust report, kept whole; the Python class
/// `qajudge.Report` wraps it.
#[pyclass(frozen, module = "qajudge._native", name = "NativeReport")]
pub(crate) struct NativeReport {
    pub(crate) report: Report,
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
