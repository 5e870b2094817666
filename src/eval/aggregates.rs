//! The run-level figures of one sub-experiment from its scored questions:
//! the aggregate counts and measures (docs/scoring.md, Aggregates), the order
//! score of a question whose answer order is scored (docs/scoring.md,
//! Executing SPARQL), and the counts of the run's query executions.

use std::collections::HashMap;

use super::prepare::{GoldEntry, RunEntry};
use super::report::{AggregateReport, ExecutionCounts, Status};
use crate::matching::{Matching, Prepared};
use crate::metrics::{aggregate, qald12, QuestionScore};

/// The aggregate of scored questions (index, status, score).
pub(super) fn aggregate_report(
    scored: &[(usize, Status, QuestionScore)],
    questions: usize,
    not_evaluable: usize,
    extra: usize,
) -> AggregateReport {
    let mut agg = AggregateReport {
        questions,
        evaluated: scored.len(),
        not_evaluable,
        extra,
        ..AggregateReport::default()
    };
    for (_, status, _) in scored {
        match status {
            Status::Missing => agg.missing += 1,
            Status::Empty => agg.empty += 1,
            Status::Error => agg.errors += 1,
            _ => agg.answered += 1,
        }
    }
    let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
    let measures = aggregate(&scores);
    agg.micro = Some(measures.micro);
    agg.macro_ = measures.macro_;
    agg.macro_qald = measures.macro_qald;
    let answered: Vec<(bool, QuestionScore)> = scored
        .iter()
        .map(|(_, status, s)| (*status == Status::Answered, *s))
        .collect();
    let q12 = qald12(&answered);
    agg.right = q12.right;
    agg.partial = q12.partial;
    agg.answered_only = q12.answered_only;
    agg
}

/// The plain mean of `values`, 0 for none.
pub(super) fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().fold(0.0, |a, b| a + b) / values.len() as f64
    }
}

/// The order score of a question under the matching rules (docs/scoring.md, Executing SPARQL): the
/// gold answers in their order, the run's answers in theirs, and which gold
/// answer each run answer matched ([`crate::metrics::ordered_ndcg`]).
pub(super) fn order_score(
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
    answered: bool,
) -> f64 {
    if !answered {
        return crate::metrics::ordered_ndcg(gold_set.len(), &[]);
    }
    let mut gold_order: Vec<usize> = gold_set.iter().map(|p| p.index).collect();
    gold_order.sort_unstable();
    let rank_of_gold: HashMap<usize, usize> = gold_order
        .iter()
        .enumerate()
        .map(|(k, g)| (*g, k))
        .collect();
    let gold_of_run: HashMap<usize, usize> =
        matching.pairs.iter().map(|p| (p.run, p.gold)).collect();
    let mut run_order: Vec<usize> = run_set.iter().map(|p| p.index).collect();
    run_order.sort_unstable();
    let ranks: Vec<Option<usize>> = run_order
        .iter()
        .map(|r| {
            gold_of_run
                .get(r)
                .and_then(|g| rank_of_gold.get(g))
                .copied()
        })
        .collect();
    crate::metrics::ordered_ndcg(gold_order.len(), &ranks)
}

/// Counts the executions of the run's queries, over the gold questions.
pub(super) fn execution_counts(
    entries: &[GoldEntry<'_>],
    runs: &HashMap<&str, RunEntry<'_>>,
) -> Option<ExecutionCounts> {
    let mut c = ExecutionCounts::default();
    for entry in entries {
        let Some(x) = runs
            .get(entry.question.id.0.as_str())
            .and_then(|r| r.question.execution.as_ref())
        else {
            continue;
        };
        c.executed += 1;
        *c.by_status.entry(x.status.name()).or_default() += 1;
        c.parses += usize::from(x.parses);
        c.iris += x.iris;
        c.unknown_iris += x.unknown_iris.len();
    }
    if c.executed == 0 {
        return None;
    }
    c.unknown_iri_rate = (c.iris > 0).then(|| c.unknown_iris as f64 / c.iris as f64);
    Some(c)
}
