//! What one evaluation is asked to do and with what: its [`Options`] (the
//! command line's `--profile`, `--by`, `--explain`, `--abstain-marker`,
//! `--llm-judge`, …), where the gold's markings come from, the index it looks
//! IRIs and labels up in, how its queries were executed before it, and the
//! fixed seed that makes its resampling reproducible. Types only: the
//! pipeline that reads them is the evaluator ([`super`]).

use super::{Experiment, KnowledgeGraphInfo, Profile};
use crate::index::Equivalence;

/// The default of `--max-class-size`: matches through larger sameAs classes are
/// reported in the question's diagnostics.
pub const DEFAULT_MAX_CLASS_SIZE: usize = 1000;

/// What to evaluate and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The scoring profile.
    pub profile: Profile,
    /// `--strict-literals`.
    pub strict_literals: bool,
    /// `--lenient-dates`.
    pub lenient_dates: bool,
    /// Bootstrap resamples for confidence intervals (0: none).
    pub bootstrap: usize,
    /// The sub-experiments to run; empty means all (that the profile scores).
    pub experiments: Vec<Experiment>,
    /// Features to split every aggregate by (`--by`).
    pub by: Vec<String>,
    /// Add, per question, the matched pairs and why (`--explain`).
    pub explain: bool,
    /// With `explain`: only the missed and wrong answers, on the questions
    /// that have some (`--explain errors`).
    pub explain_errors_only: bool,
    /// Matches through a sameAs class larger than this are reported (`--max-class-size`).
    pub max_class_size: usize,
    /// Where the gold's markings come from (`--gold-markings`).
    pub gold_markings: GoldMarkings,
    /// The language the runs were asked in (`--lang`), for `--by language`.
    pub lang: Option<String>,
    /// The run every other run is compared with (`--baseline`); without one,
    /// every two runs are compared.
    pub baseline: Option<String>,
    /// A run answer that means "I do not know" (`--abstain-marker`;
    /// docs/scoring.md, Abstention and truthfulness).
    pub abstain_marker: Option<String>,
    /// The LLM judge (`--llm-judge`; docs/scoring.md, The LLM judge): `None`,
    /// the default, sends nothing anywhere.
    pub llm: Option<std::sync::Arc<crate::llm::Judge>>,
    /// The WordNet dictionary of the `t2s-metrics` profile's `meteor`
    /// (`--wordnet`, or found where NLTK and Debian keep it); `None`: that
    /// measure is left out, and the report says why.
    pub wordnet: Option<std::sync::Arc<crate::wordnet::WordNet>>,
    /// GrailQA's Freebase schema of the `grailqa` profile (`--ontology`), a
    /// value of this evaluation: two evaluations in one process may each
    /// have their own.
    pub ontology: Option<std::sync::Arc<super::profiles::Ontology>>,
    /// KQA Pro's training answers of the `kqapro` profile's `zero-shot`
    /// category (`--train`), a value of this evaluation as `ontology` is.
    pub train: Option<std::sync::Arc<crate::qald::TrainAnswers>>,
    /// When the evaluation stops (a server request's `timeout_ms`, a stored
    /// experiment's time): the scoring loops look at it per question and
    /// stop, and the job is an error, never a report of part of the work.
    pub deadline: super::deadline::Deadline,
}

/// Where the gold's sub-experiment markings come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoldMarkings {
    /// docs/scoring.md (Sub-experiments): explicit annotations when the file has them, else the query.
    #[default]
    Auto,
    /// The gold query only, even when the file has annotations (to score a file's
    /// own annotations, given as the run, against its queries).
    Query,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            profile: Profile::Judge,
            strict_literals: false,
            lenient_dates: false,
            bootstrap: 0,
            experiments: Vec::new(),
            by: Vec::new(),
            explain: false,
            explain_errors_only: false,
            max_class_size: DEFAULT_MAX_CLASS_SIZE,
            gold_markings: GoldMarkings::Auto,
            lang: None,
            baseline: None,
            abstain_marker: None,
            llm: None,
            wordnet: None,
            ontology: None,
            train: None,
            deadline: super::deadline::Deadline::default(),
        }
    }
}

/// An index to evaluate with (docs/scoring.md (With an index) and the cross-kind rules).
#[derive(Clone, Copy)]
pub struct IndexRef<'a> {
    /// The lookups.
    pub equivalence: &'a dyn Equivalence,
    /// Its directory, for the report.
    pub path: &'a str,
    /// Its on-disk format version, for the report.
    pub format_version: u32,
    /// The built index's metadata and the SHA-256 of its `meta.json`, for the
    /// report's provenance (`None` for an index held in memory).
    pub built: Option<(&'a crate::index::format::IndexMeta, &'a str)>,
    /// The built index, whose labels name the gold's IRIs in the failure
    /// explanation (`None` for an index held in memory).
    pub names: Option<&'a crate::index::Index>,
}

impl<'a> IndexRef<'a> {
    /// A built index opened from `path`, with its provenance.
    pub fn of(index: &'a crate::index::Index, path: &'a str) -> IndexRef<'a> {
        IndexRef {
            equivalence: index,
            path,
            format_version: index.meta().format_version,
            built: Some((index.meta(), index.meta_sha256())),
            names: Some(index),
        }
    }
}

/// The fixed seed of the bootstrap, so that reports are reproducible.
pub const BOOTSTRAP_SEED: u64 = 20_261_122;

/// How the queries of an evaluation were executed before it, as the report
/// tells: the knowledge graph, and the execution's diagnostics (listed after
/// the evaluation's own).
#[derive(Debug, Clone, Default)]
pub struct Execution {
    /// The knowledge graph queries were executed on, if any.
    pub knowledge_graph: Option<KnowledgeGraphInfo>,
    /// What the execution found (changed gold answers, failed queries, gold
    /// questions left unanswered without a knowledge graph).
    pub diagnostics: Vec<String>,
}
