//! The report (docs/report.md): per question and aggregate, per run and experiment.
//! Serialised as the public JSON contract; the CLI renders tables and CSV from it.

use serde::Serialize;

use crate::metrics::{Confidence, Prf, QuestionScore};

/// The whole evaluation report.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Report {
    /// The qajudge version that produced it.
    pub version: &'static str,
    /// The profile used.
    pub profile: &'static str,
    /// The gold benchmark.
    pub gold: GoldInfo,
    /// The index used, if any.
    pub index: Option<IndexInfo>,
    /// The knowledge graph queries were executed on, if any (docs/scoring.md, Executing SPARQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knowledge_graph: Option<KnowledgeGraphInfo>,
    /// One entry per run, in the order given.
    pub runs: Vec<RunReport>,
    /// Paired significance tests between every two runs (docs/scoring.md, Comparing runs), per
    /// sub-experiment; empty with fewer than two runs.
    pub comparisons: Vec<Comparison>,
    /// Problems of the gold file and of the runs that did not stop the evaluation.
    pub diagnostics: Vec<String>,
    /// The questions the gold marks unstable, scored apart from the figures
    /// above (docs/audit.md); absent when none is marked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unstable: Option<UnstableReport>,
    /// The gold's audit (`evaluate --audit`; docs/audit.md); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<crate::audit::AuditReport>,
    /// What the live systems and the SPARQL endpoint answered, call by call
    /// (docs/reproduce.md): `qajudge reproduce` scores these records, as
    /// live sources cannot be asked again as they were. Absent when every
    /// answer came from a file or an embedded store.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<super::recorded::Recorded>,
    /// What the figures were computed from, and its hash (docs/reproduce.md):
    /// `qajudge reproduce` re-derives the report from it. Every evaluation
    /// through the pipeline has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<super::receipt::Receipt>,
}

impl Report {
    /// The runs that have the query experiment, by name, in the report's
    /// order (the QUERY block of the table and the paper's query table).
    pub fn query_runs(&self) -> Vec<(&str, &super::query::QueryExperimentReport)> {
        self.runs
            .iter()
            .filter_map(|r| r.experiments.query.as_ref().map(|q| (r.name.as_str(), q)))
            .collect()
    }
}

/// The questions a gold marks unstable, and each run's QA figures over them
/// alone (docs/audit.md).
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct UnstableReport {
    /// Each unstable question and why, in the gold's order.
    pub questions: Vec<UnstableQuestion>,
    /// Each run's QA aggregate over the unstable questions.
    pub runs: Vec<UnstableRun>,
}

/// One question the gold marks unstable.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct UnstableQuestion {
    /// Its id.
    pub id: String,
    /// Why (the audit's findings).
    pub why: String,
}

/// A run's figures over the unstable questions.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct UnstableRun {
    /// The run's name.
    pub name: String,
    /// Its QA aggregate over them (`None` when none could be scored).
    pub qa: Option<AggregateReport>,
}

/// A paired significance test between two runs on one sub-experiment.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
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
    /// `p_f1` adjusted for the comparisons of the report (see `correction`).
    pub p_f1_adjusted: f64,
    /// `p_macro_f1_qald` adjusted for the comparisons of the report.
    pub p_macro_f1_qald_adjusted: f64,
    /// The correction for multiple testing: `holm-bonferroni`, over every
    /// comparison of the report, each statistic on its own.
    pub correction: &'static str,
}

/// What the gold benchmark was.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct GoldInfo {
    /// Its path or name.
    pub path: String,
    /// The format it was read as.
    pub format: &'static str,
    /// Number of (distinct) questions.
    pub questions: usize,
    /// The dataset id the file declares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The dataset's own metadata (eQALD `dataset.metadata`, e.g. the knowledge
    /// base version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<String>,
}

/// The index used for equivalence, with what identifies its build.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct IndexInfo {
    /// Its directory.
    pub path: String,
    /// Its on-disk format version.
    pub format_version: u32,
    /// The qajudge version that built it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub built_by: Option<String>,
    /// When the build finished (seconds since the Unix epoch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub built_at: Option<u64>,
    /// SHA-256 of its `meta.json` (inputs with their checksums, counts): one
    /// value per build.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_sha256: Option<String>,
    /// The files it was built from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<IndexInput>,
    /// Where its inputs came from, as its builder recorded (`index build
    /// --provenance`; the recipes of `indexes/` record dumps, versions, URLs).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub provenance: Option<serde_json::Value>,
}

/// One input file of an index.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct IndexInput {
    /// Its path as given to the build.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// XXH3-64 checksum of its bytes, in hex.
    pub xxh3_64: String,
}

/// What queries were executed on (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct KnowledgeGraphInfo {
    /// The store and its version (`oxigraph 0.5.13 (in memory, embedded)`), or
    /// `sparql endpoint`.
    pub store: String,
    /// The endpoint URL, for an endpoint.
    pub endpoint: Option<String>,
    /// The files loaded, for the embedded store.
    pub files: Vec<KgFile>,
    /// Distinct triples in the store (embedded only).
    pub triples: Option<u64>,
    /// The timeout of one query in milliseconds.
    pub timeout_ms: u64,
    /// The row cap of one query.
    pub max_rows: usize,
    /// How long loading took, in milliseconds (embedded only).
    pub load_ms: Option<f64>,
}

/// One file of the knowledge graph.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct KgFile {
    /// Its path.
    pub path: String,
    /// The sha256 of its bytes as stored (compressed, if it is).
    pub sha256: String,
    /// Statements read from it.
    pub statements: u64,
}

/// How a question's query was executed (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct ExecutionReport {
    /// `ok`, `syntax_error`, `execution_error`, `timeout` or `truncated`.
    pub status: &'static str,
    /// Why, when not `ok`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Result rows kept.
    pub rows: usize,
    /// Wall time in milliseconds.
    pub ms: f64,
    /// True when the query is standard SPARQL 1.1 as written.
    pub parses: bool,
    /// IRIs of the query that were looked up in the graph.
    pub iris: usize,
    /// Those that occur nowhere in it (invented IRIs).
    pub unknown_iris: Vec<String>,
}

impl ExecutionReport {
    /// The report of an execution.
    pub fn of(e: &crate::model::Execution) -> ExecutionReport {
        ExecutionReport {
            status: e.status.name(),
            message: e.message.clone(),
            rows: e.rows,
            ms: (e.ms * 1000.0).round() / 1000.0,
            parses: e.parses,
            iris: e.iris,
            unknown_iris: e.unknown_iris.clone(),
        }
    }
}

/// Executions of a run's queries, counted (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
pub struct ExecutionCounts {
    /// Queries executed.
    pub executed: usize,
    /// Executions per status (`ok`, `syntax_error`, `execution_error`,
    /// `timeout`, `truncated`).
    pub by_status: std::collections::BTreeMap<&'static str, usize>,
    /// Queries that are standard SPARQL 1.1 as written.
    pub parses: usize,
    /// IRIs looked up in the graph.
    pub iris: usize,
    /// Of them, those that occur nowhere in it.
    pub unknown_iris: usize,
    /// `unknown_iris / iris` (invented IRIs), `null` with no IRI.
    pub unknown_iri_rate: Option<f64>,
}

/// The TEXT2SPARQL challenge's run-level figures (the `text2sparql` profile).
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
pub struct ChallengeAggregate {
    /// Mean set precision over questions (`set_P`).
    pub set_p: f64,
    /// Mean set recall (`set_recall`).
    pub set_recall: f64,
    /// Mean set F1 (`set_F`).
    pub set_f: f64,
    /// Questions flagged `RESULT_ORDER_MATTERS`.
    pub ordered_questions: usize,
    /// Mean nDCG over them (`ndcg`), `null` without any.
    pub ndcg: Option<f64>,
    /// The combined figure (`set_F_ndcg`), as the challenge's code computes it.
    pub set_f_ndcg: Option<f64>,
    /// The set measures per language (the suffix of the question ids).
    pub by_language: std::collections::BTreeMap<String, LanguageAggregate>,
}

/// The challenge's set measures for the questions of one language.
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
pub struct LanguageAggregate {
    /// Questions in that language.
    pub questions: usize,
    /// Mean set precision.
    pub set_p: f64,
    /// Mean set recall.
    pub set_recall: f64,
    /// Mean set F1.
    pub set_f: f64,
}

/// The results of one run.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
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
    /// Why the run fails (`evaluate --explain-failures`; docs/features.md,
    /// "Why a system fails"); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<FailureExplanation>,
    /// The LLM judge's verdicts, agreement with exact match and the QA
    /// figures of exact match alone (`--llm-judge`; docs/scoring.md, The LLM
    /// judge); absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_judge: Option<crate::llm::JudgeReport>,
}

/// The feature conditions that separate a run's failed questions (QA F1
/// below `solved_f1`) from its solved ones, as a decision list.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct FailureExplanation {
    /// The F1 at or above which a question is solved (0.5).
    pub solved_f1: f64,
    /// Evaluated questions solved.
    pub solved: usize,
    /// Evaluated questions failed.
    pub failed: usize,
    /// The rules, in the order learnt: each covers the questions meeting it
    /// that no earlier rule covers.
    pub rules: Vec<FailureRule>,
}

/// One condition of a failure explanation.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct FailureRule {
    /// The condition over the question features, e.g. `triple_patterns >= 3`.
    pub condition: String,
    /// Evaluated questions meeting it.
    pub support: usize,
    /// Of those, the failed ones.
    pub failed: usize,
    /// The failure rate of the questions meeting it.
    pub failure_rate_inside: f64,
    /// The failure rate of the other evaluated questions.
    pub failure_rate_outside: f64,
    /// The questions it covers (meeting it, not covered by an earlier rule).
    pub questions: Vec<String>,
}

/// The sub-experiments of docs/scoring.md (Sub-experiments).
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
pub struct Experiments {
    /// Answer sets.
    pub qa: Option<ExperimentReport>,
    /// Resources: entities and classes.
    pub c2kb: Option<ExperimentReport>,
    /// C2KB on entities only.
    pub c2kb_entities: Option<ExperimentReport>,
    /// C2KB on classes only.
    pub c2kb_classes: Option<ExperimentReport>,
    /// Properties.
    pub p2kb: Option<ExperimentReport>,
    /// Triples.
    pub re2kb: Option<ExperimentReport>,
    /// Answer type.
    pub at: Option<ExperimentReport>,
    /// Answer item types.
    pub ait2kb: Option<ExperimentReport>,
    /// The run's queries against the gold's (`--experiments query`;
    /// docs/scoring.md, Query measures); absent unless asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<super::query::QueryExperimentReport>,
}

impl Experiments {
    /// The names of the sub-experiments that compare sets, in report order.
    pub const NAMES: [&'static str; 8] = super::experiment::SET_NAMES;

    /// The report of one sub-experiment that compares sets (`None` for
    /// `query`, whose report is [`Experiments::query`]).
    pub fn get_mut(&mut self, e: super::Experiment) -> Option<&mut Option<ExperimentReport>> {
        use super::Experiment;
        Some(match e {
            Experiment::Qa => &mut self.qa,
            Experiment::C2kb => &mut self.c2kb,
            Experiment::C2kbEntities => &mut self.c2kb_entities,
            Experiment::C2kbClasses => &mut self.c2kb_classes,
            Experiment::P2kb => &mut self.p2kb,
            Experiment::Re2kb => &mut self.re2kb,
            Experiment::At => &mut self.at,
            Experiment::Ait2kb => &mut self.ait2kb,
            Experiment::Query => return None,
        })
    }

    /// Each sub-experiment with its name, in report order.
    pub fn named(&self) -> [(&'static str, Option<&ExperimentReport>); 8] {
        [
            ("qa", self.qa.as_ref()),
            ("c2kb", self.c2kb.as_ref()),
            ("c2kb_entities", self.c2kb_entities.as_ref()),
            ("c2kb_classes", self.c2kb_classes.as_ref()),
            ("p2kb", self.p2kb.as_ref()),
            ("re2kb", self.re2kb.as_ref()),
            ("at", self.at.as_ref()),
            ("ait2kb", self.ait2kb.as_ref()),
        ]
    }
}

/// One sub-experiment of one run.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
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

/// Aggregate counts and measures (docs/scoring.md, Aggregates).
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
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
    /// QALD-1/2: evaluated questions with F1 = 1.
    pub right: usize,
    /// QALD-1/2: evaluated questions with 0 < F1 < 1.
    pub partial: usize,
    /// QALD-1/2: the mean per-question P and R over the answered questions only,
    /// and their harmonic mean.
    pub answered_only: Prf,
    /// 95% bootstrap confidence intervals, when asked for (`--confidence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// Mean order score (nDCG) over the questions whose order is scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndcg: Option<f64>,
    /// The run's query executions (QA only, when queries were executed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executions: Option<ExecutionCounts>,
    /// The challenge's figures (the `text2sparql` profile, QA only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<ChallengeAggregate>,
    /// The run-level figures of the official script a benchmark's profile
    /// reproduces, under the script's own names (QA only; docs/scoring.md,
    /// Other benchmark families).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub official: Option<Figures>,
    /// Run answers that are free text (literals only) where the gold holds
    /// resources, over the questions scored: each is one answer, matched
    /// through the label index (QA only; absent when there is none;
    /// docs/scoring.md, Other benchmark families).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_text: Option<usize>,
    /// QA's ranking measures in the run's answer order: `mrr`, `hits@1/first`,
    /// `hits@1/any`, `hits@3`, `hits@10` (docs/scoring.md, Ranked answers and
    /// tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Figures>,
    /// QA's questions whose answers are tables, scored row-wise: `questions`
    /// and their mean `row_f1` (docs/scoring.md, Ranked answers and tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Figures>,
    /// QA: the run's cost and latency, each measure's mean, median, p95 and
    /// total over the questions that give it (docs/scoring.md, Cost and
    /// latency); absent when no question gives any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<super::usage::RunUsage>,
    /// QA: evaluated questions the run abstained on (docs/scoring.md,
    /// Abstention and truthfulness); absent when the run declares no
    /// abstention and no `--abstain-marker` was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abstained: Option<usize>,
    /// QA: the mean truthfulness over the evaluated questions (docs/scoring.md,
    /// Abstention and truthfulness).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truthfulness: Option<f64>,
    /// QA: the mean graded nDCG over the questions whose gold is ordered
    /// (docs/scoring.md, Graded order); absent without any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndcg_graded: Option<f64>,
    /// QA: the mean Kendall τ-b over the ordered questions that have one
    /// (docs/scoring.md, Graded order); absent without any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kendall_tau: Option<f64>,
}

/// Figures under an official script's own names (`hits@1/first`, `f1`,
/// `em_iid` …), in name order.
pub type Figures = std::collections::BTreeMap<String, f64>;

/// The status of a question in a run.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, utoipa::ToSchema)]
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
    /// The run abstained (QA; docs/scoring.md, Abstention and truthfulness):
    /// scored as an empty answer, counted apart.
    Abstained,
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
            Status::Abstained => "abstained",
        }
    }
}

/// One question of one experiment of one run.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct QuestionReport {
    /// The question id, as a string.
    pub id: String,
    /// The gold question's text in the report's language (`--lang`), else
    /// English, else its first; absent when the gold has no text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Its status.
    pub status: Status,
    /// Its counts and measures.
    #[serde(flatten)]
    pub score: QuestionScore,
    /// The order score (nDCG) of a question whose answer order is scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndcg: Option<f64>,
    /// The confidence the run gave its answer (eQALD `confidence`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// How the run's query was executed (QA only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<ExecutionReport>,
    /// How the gold query was executed (QA only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gold_execution: Option<ExecutionReport>,
    /// Problems with this question, gold or run.
    pub diagnostics: Vec<String>,
    /// The matched pairs and why, and the unmatched answers (`--explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
    /// The question's figures as the official script of the profile computes
    /// them (QA only; absent where the script leaves the question out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub official: Option<Figures>,
    /// The row-wise F1 of a question whose answers are tables (QA only;
    /// docs/scoring.md, Ranked answers and tables).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_f1: Option<f64>,
    /// What answering it cost, as the run gave it or as measured for a live
    /// system (QA only; docs/scoring.md, Cost and latency); absent when nothing says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<super::usage::QuestionUsage>,
    /// The truthfulness of an evaluated QA question: 1, 0, −1 or its F1
    /// (docs/scoring.md, Abstention and truthfulness).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truthfulness: Option<f64>,
    /// The graded nDCG of a QA question whose gold is ordered (docs/scoring.md,
    /// Graded order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndcg_graded: Option<f64>,
    /// Kendall's τ-b between the gold's and the run's order over the answers
    /// both hold, with at least two of them (docs/scoring.md, Graded order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kendall_tau: Option<f64>,
}

/// Why a question scored what it did (`--explain`).
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Explanation {
    /// Each true positive: which gold answer matched which run answer, and why.
    pub pairs: Vec<MatchedPair>,
    /// Gold answers no run answer matched (false negatives).
    pub unmatched_gold: Vec<String>,
    /// Run answers that matched no gold answer (false positives).
    pub unmatched_run: Vec<String>,
}

/// One matched pair of answers.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
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
