//! The report of SCORING 9: per question and aggregate, per run and experiment.
//! Serialised as the public JSON contract; the CLI renders tables and CSV from it.

use serde::Serialize;

use crate::metrics::{Confidence, Prf, QuestionScore};

/// The whole evaluation report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// The qajudge version that produced it.
    pub version: &'static str,
    /// The profile used.
    pub profile: &'static str,
    /// The gold benchmark.
    pub gold: GoldInfo,
    /// The index used, if any.
    pub index: Option<IndexInfo>,
    /// One entry per run, in the order given.
    pub runs: Vec<RunReport>,
    /// Paired significance tests between every two runs (SCORING 7), per
    /// sub-experiment; empty with fewer than two runs.
    pub comparisons: Vec<Comparison>,
    /// Problems of the gold file and of the runs that did not stop the evaluation.
    pub diagnostics: Vec<String>,
}

/// A paired significance test between two runs on one sub-experiment.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Comparison {
    /// The first run's name.
    pub run_a: String,
    /// The second run's name.
    pub run_b: String,
    /// The sub-experiment.
    pub experiment: &'static str,
    /// The test's outcome (differences are A minus B).
    #[serde(flatten)]
    pub significance: crate::metrics::Significance,
}

/// What the gold benchmark was.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GoldInfo {
    /// Its path or name.
    pub path: String,
    /// The format it was read as.
    pub format: &'static str,
    /// Number of (distinct) questions.
    pub questions: usize,
}

/// The index used for equivalence.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IndexInfo {
    /// Its directory.
    pub path: String,
    /// Its on-disk format version.
    pub format_version: u32,
}

/// The results of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunReport {
    /// The run's name (file stem or `--name`).
    pub name: String,
    /// Its path or URL.
    pub source: String,
    /// The format the run file was read as.
    pub format: &'static str,
    /// One entry per sub-experiment; `null` when the run has nothing to evaluate there.
    pub experiments: Experiments,
    /// Ids of run questions that are not in the gold benchmark.
    pub extra_ids: Vec<String>,
}

/// The sub-experiments of SCORING 5.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct Experiments {
    /// Answer sets.
    pub qa: Option<ExperimentReport>,
    /// Resources: entities and classes.
    pub c2kb: Option<ExperimentReport>,
    /// Properties.
    pub p2kb: Option<ExperimentReport>,
    /// Triples.
    pub re2kb: Option<ExperimentReport>,
    /// Answer type.
    pub at: Option<ExperimentReport>,
    /// Answer item types.
    pub ait2kb: Option<ExperimentReport>,
}

impl Experiments {
    /// The names of the sub-experiments, in report order.
    pub const NAMES: [&'static str; 6] = ["qa", "c2kb", "p2kb", "re2kb", "at", "ait2kb"];

    /// The report of one sub-experiment.
    pub fn get_mut(&mut self, e: super::Experiment) -> &mut Option<ExperimentReport> {
        use super::Experiment;
        match e {
            Experiment::Qa => &mut self.qa,
            Experiment::C2kb => &mut self.c2kb,
            Experiment::P2kb => &mut self.p2kb,
            Experiment::Re2kb => &mut self.re2kb,
            Experiment::At => &mut self.at,
            Experiment::Ait2kb => &mut self.ait2kb,
        }
    }

    /// Each sub-experiment with its name, in report order.
    pub fn named(&self) -> [(&'static str, Option<&ExperimentReport>); 6] {
        [
            ("qa", self.qa.as_ref()),
            ("c2kb", self.c2kb.as_ref()),
            ("p2kb", self.p2kb.as_ref()),
            ("re2kb", self.re2kb.as_ref()),
            ("at", self.at.as_ref()),
            ("ait2kb", self.ait2kb.as_ref()),
        ]
    }
}

/// One sub-experiment of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExperimentReport {
    /// The aggregate measures.
    pub aggregate: AggregateReport,
    /// One entry per gold question, in gold order.
    pub questions: Vec<QuestionReport>,
    /// Aggregates split by question feature (`--by`): feature → value → aggregate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, AggregateReport>>,
    >,
}

/// Aggregate counts and measures (SCORING 4).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct AggregateReport {
    /// Gold questions.
    pub questions: usize,
    /// Questions that entered the averages.
    pub evaluated: usize,
    /// Questions left out because the gold has nothing to compare.
    pub not_evaluable: usize,
    /// Evaluated questions with a non-empty run answer.
    pub answered: usize,
    /// Evaluated questions whose run answer is empty.
    pub empty: usize,
    /// Evaluated questions absent from the run.
    pub missing: usize,
    /// Run questions whose id is not in the gold.
    pub extra: usize,
    /// Failed live-system calls (scored as empty answers).
    pub errors: usize,
    /// Mean runtime of successful live calls in milliseconds.
    pub runtime_ms_mean: Option<f64>,
    /// Micro P/R/F1 (`null` under the `mqald` profile, which does not report it).
    pub micro: Option<Prf>,
    /// Macro P/R/F1.
    #[serde(rename = "macro")]
    pub macro_: Prf,
    /// Macro under the QALD rule; `f1` is Macro F1 QALD.
    pub macro_qald: Prf,
    /// 95% bootstrap confidence intervals, when asked for (`--confidence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
}

/// The status of a question in a run.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The run gave a non-empty answer.
    Answered,
    /// The run gave an empty answer.
    Empty,
    /// The run does not have the question.
    Missing,
    /// A live call failed.
    Error,
    /// The gold has nothing to compare for this experiment.
    NotEvaluable,
}

impl Status {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::Empty => "empty",
            Status::Missing => "missing",
            Status::Error => "error",
            Status::NotEvaluable => "not_evaluable",
        }
    }
}

/// One question of one experiment of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QuestionReport {
    /// The question id, as a string.
    pub id: String,
    /// Its status.
    pub status: Status,
    /// Its counts and measures.
    #[serde(flatten)]
    pub score: QuestionScore,
    /// Problems with this question, gold or run.
    pub diagnostics: Vec<String>,
    /// The matched pairs and why, and the unmatched answers (`--explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
}

/// Why a question scored what it did (`--explain`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Explanation {
    /// Each true positive: which gold answer matched which run answer, and why.
    pub pairs: Vec<MatchedPair>,
    /// Gold answers no run answer matched (false negatives).
    pub unmatched_gold: Vec<String>,
    /// Run answers that matched no gold answer (false positives).
    pub unmatched_run: Vec<String>,
}

/// One matched pair of answers.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MatchedPair {
    /// The gold answer (terms, alternatives joined by ` | `).
    pub gold: String,
    /// The run answer.
    pub run: String,
    /// Why they are the same: `same_iri`, `canonical_iri`, `sameas`, `label`,
    /// `string`, `number`, `date`, `boolean`, `year`, `marking` or `exact`.
    pub rule: &'static str,
    /// For `sameas`: the number of IRIs in the class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_size: Option<u32>,
}
