//! `qajudge audit` (docs/audit.md): a verdict on each gold question before any
//! system is scored on it. Each finding has a code, a severity (`error`: the
//! gold is wrong or cannot be scored; `warning`: the figure can differ between
//! stores or runs; `note`), the evidence and what to do. The checks without a
//! store read the gold alone ([`statics`]); with stores given, each gold query
//! is executed `repeat` times on each ([`dynamic`]) through the [`Store`]
//! trait, which the I/O edge implements (`sparql::AuditStore`, for the
//! command line and the server's `GET /api/v1/benchmarks/{name}/audit`), so
//! that this module does no I/O of its own.

mod dynamic;
mod statics;

use serde::Serialize;

use crate::model::{AnswerSet, Dataset, Query};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; no figure is wrong for it.
    Note,
    /// A figure can differ between stores, runs or readers.
    Warning,
    /// The gold is wrong, or cannot be scored.
    Error,
}

impl Severity {
    /// The name the report and the table use.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding on one question.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Finding {
    /// The question's id.
    pub question: String,
    /// What was found (`distinct_count`, `limit_without_order`, …; docs/audit.md).
    pub code: &'static str,
    /// How much it matters.
    pub severity: Severity,
    /// What shows it (the query's words, the stores' figures).
    pub evidence: String,
    /// What to do.
    pub action: String,
}

/// One query executed on a store, as the audit compares it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Executed {
    /// `ok`, `timeout`, `syntax_error`, `execution_error`, `truncated`.
    pub status: String,
    /// The error or the cap in words, when not `ok`.
    pub message: Option<String>,
    /// The result's variables, in order.
    pub vars: Vec<String>,
    /// Each row: per variable, its value as text (`None`: unbound), in the
    /// store's order.
    pub rows: Vec<Vec<Option<String>>>,
    /// The same result as typed terms (IRIs, literals with their datatype or
    /// language, booleans), one answer per row in the store's order: what
    /// `audit --write-gold` freezes, so that the frozen answers are exactly
    /// the ones the audit compared.
    pub answers: AnswerSet,
}

impl Executed {
    /// True when the query ran (its result whole or cut at the row cap).
    pub fn ran(&self) -> bool {
        self.status == "ok" || self.status == "truncated"
    }

    /// The rows as comparable texts, in order.
    fn row_texts(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.as_deref().unwrap_or("UNDEF"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect()
    }

    /// The column of `var`, if the result has it.
    fn column(&self, var: &str) -> Option<usize> {
        self.vars.iter().position(|v| v == var)
    }
}

/// A knowledge graph the gold queries are executed on (implemented by
/// `sparql::AuditStore`).
pub trait Store: Sync {
    /// What the report calls it (the embedded store, an endpoint's URL).
    fn name(&self) -> String;
    /// Executes a query (Virtuoso's dialect read as the endpoints read it).
    fn execute(&self, query: &str) -> Executed;
    /// True when some triple holds the IRI.
    fn holds(&self, iri: &str) -> bool;
}

/// What the audit is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct AuditOptions {
    /// Executions of each query on each store (at least 1).
    pub repeat: usize,
    /// The questions every system scores 0 on are those of the `text2sparql`
    /// profile (an empty gold, a false ASK).
    pub text2sparql: bool,
}

impl Default for AuditOptions {
    fn default() -> AuditOptions {
        AuditOptions {
            repeat: 3,
            text2sparql: false,
        }
    }
}

/// The audit of a benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct AuditReport {
    /// Questions audited.
    pub questions: usize,
    /// Of them, with a SPARQL query.
    pub with_query: usize,
    /// The stores queries were executed on, in order.
    pub stores: Vec<String>,
    /// Executions of each query on each store.
    pub repeat: usize,
    /// Findings per severity.
    pub counts: Counts,
    /// The findings, by question in the gold's order, then by severity
    /// (errors first).
    pub findings: Vec<Finding>,
}

/// Findings per severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Counts {
    /// Errors.
    pub error: usize,
    /// Warnings.
    pub warning: usize,
    /// Notes.
    pub note: usize,
}

/// Audits `gold`: the checks without a store, then, for each store given,
/// the executions.
pub fn audit(gold: &Dataset, stores: &[&dyn Store], options: AuditOptions) -> AuditReport {
    audit_keeping(gold, stores, options).0
}

/// [`audit`], and beside the report, per gold question (in the gold's
/// order), the first execution of its query on the **first** store when
/// every execution there ran: the result `audit --write-gold` freezes, so
/// that the frozen gold holds exactly what the audit checked (`None`: no
/// query, no store, or an execution that failed).
pub fn audit_keeping(
    gold: &Dataset,
    stores: &[&dyn Store],
    options: AuditOptions,
) -> (AuditReport, Vec<Option<Executed>>) {
    let repeat = options.repeat.max(1);
    let mut findings = Vec::new();
    let mut results = Vec::with_capacity(gold.questions.len());
    let languages = statics::Languages::of(gold);
    for (i, q) in gold.questions.iter().enumerate() {
        let mut mine = statics::question(q, options, !stores.is_empty());
        mine.extend(languages.question(gold, i));
        let mut first = None;
        if let Query::Sparql(text) = &q.query {
            if !stores.is_empty() {
                let (found, executed) = dynamic::question(q, text, stores, repeat);
                mine.extend(found);
                first = executed;
            }
        }
        results.push(first);
        // a store's verdict on DISTINCT replaces the one the text alone gives
        if mine
            .iter()
            .any(|f| f.code == "distinct_count" && f.evidence.contains("executed"))
        {
            mine.retain(|f| f.code != "distinct_count" || f.evidence.contains("executed"));
        }
        mine.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.code.cmp(b.code)));
        findings.extend(mine);
    }
    let mut counts = Counts::default();
    for f in &findings {
        match f.severity {
            Severity::Error => counts.error += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Note => counts.note += 1,
        }
    }
    let report = AuditReport {
        questions: gold.questions.len(),
        with_query: gold
            .questions
            .iter()
            .filter(|q| matches!(q.query, Query::Sparql(_)))
            .count(),
        stores: stores.iter().map(|s| s.name()).collect(),
        repeat,
        counts,
        findings,
    };
    (report, results)
}

/// The codes whose finding means a question's result is not one fixed
/// answer: it differed between executions (`unstable`) or stores
/// (`store_dependent`, a warning: other rows, not only another order), ties
/// at its `LIMIT`/`OFFSET` edge, was cut at the row cap, or could not be
/// executed at all.
pub const UNSTABLE_CODES: &[&str] = &[
    "unstable",
    "store_dependent",
    "ties_at_edge",
    "row_cap",
    "timeout",
    "execution_failed",
];

/// The questions of an audit whose answers cannot be frozen, by id, with
/// why (their findings of [`UNSTABLE_CODES`] at warning or error severity,
/// `code: evidence` joined by `; `), in the report's order.
pub fn unstable_questions(report: &AuditReport) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for f in &report.findings {
        if f.severity == Severity::Note || !UNSTABLE_CODES.contains(&f.code) {
            continue;
        }
        let why = format!("{}: {}", f.code, f.evidence);
        match out.last_mut() {
            Some((id, reasons)) if *id == f.question => {
                reasons.push_str("; ");
                reasons.push_str(&why);
            }
            _ => out.push((f.question.clone(), why)),
        }
    }
    out
}

/// A finding.
fn finding(
    question: &str,
    code: &'static str,
    severity: Severity,
    evidence: impl Into<String>,
    action: impl Into<String>,
) -> Finding {
    Finding {
        question: question.to_string(),
        code,
        severity,
        evidence: evidence.into(),
        action: action.into(),
    }
}
