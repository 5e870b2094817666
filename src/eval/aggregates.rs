//! The run-level figures of one sub-experiment from its scored questions:
//! the aggregate counts and measures (docs/scoring.md, Aggregates), the order
//! score of a question whose answer order is scored (docs/scoring.md,
//! Executing SPARQL), the ranking measures and the row-wise F1 of tables
//! (docs/scoring.md, Ranked answers and tables), and the counts of the run's
//! query executions.

use std::collections::HashMap;

use super::prepare::{GoldEntry, RunEntry};
use super::report::{AggregateReport, ExecutionCounts, Figures, Status};
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
            // counted apart (docs/scoring.md, Abstention and truthfulness)
            Status::Abstained => {}
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
    let (gold, ranks) = super::order::ranks(gold_set, run_set, matching);
    crate::metrics::ordered_ndcg(gold, &ranks)
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

/// The rank (from 0, in the run's order) of the run's first answer that
/// matched a gold answer, `None` when none did.
pub(super) fn first_hit(run_set: &[Prepared], matching: &Matching) -> Option<usize> {
    let mut order: Vec<usize> = run_set.iter().map(|p| p.index).collect();
    order.sort_unstable();
    // a pair names the run answer by its place in the run's list, as the
    // prepared answers' `index` does (duplicates and keyless answers dropped)
    matching
        .pairs
        .iter()
        .filter_map(|p| order.binary_search(&p.run).ok())
        .min()
}

/// The ranking measures of a run over its evaluated questions that have gold
/// answers, each with the
/// rank of its first right answer (`None`: none right, or no answer): MRR,
/// `hits@1/first` (the first answer is right), `hits@1/any` (some answer is
/// right), `hits@3`, `hits@10`.
pub(super) fn ranking(ranks: &[Option<usize>]) -> Figures {
    let n = ranks.len().max(1) as f64;
    let share = |hit: &dyn Fn(usize) -> bool| {
        ranks.iter().filter(|r| r.is_some_and(hit)).count() as f64 / n
    };
    let mrr = ranks
        .iter()
        .map(|r| r.map_or(0.0, |r| 1.0 / (r + 1) as f64))
        .sum::<f64>()
        / n;
    Figures::from([
        ("mrr".to_string(), mrr),
        ("hits@1/first".to_string(), share(&|r| r == 0)),
        ("hits@1/any".to_string(), share(&|_| true)),
        ("hits@3".to_string(), share(&|r| r < 3)),
        ("hits@10".to_string(), share(&|r| r < 10)),
    ])
}

/// The row-wise figures of the questions whose answers are tables (more than
/// one column on either side): how many, and their mean row-wise F1.
pub(super) fn tables(row_f1s: &[f64]) -> Option<Figures> {
    (!row_f1s.is_empty()).then(|| {
        Figures::from([
            ("questions".to_string(), row_f1s.len() as f64),
            ("row_f1".to_string(), mean(row_f1s)),
        ])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_takes_the_first_right_answer() {
        // right at rank 0, at rank 2, at rank 12, never
        let r = ranking(&[Some(0), Some(2), Some(12), None]);
        assert_eq!(r["hits@1/first"], 0.25);
        assert_eq!(r["hits@1/any"], 0.75);
        assert_eq!(r["hits@3"], 0.5);
        assert_eq!(r["hits@10"], 0.5);
        assert_eq!(r["mrr"], (1.0 + 1.0 / 3.0 + 1.0 / 13.0) / 4.0);
        assert!(tables(&[]).is_none());
        assert_eq!(tables(&[1.0, 0.5]).map(|t| t["row_f1"]), Some(0.75));
    }
}
