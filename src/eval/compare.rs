//! Comparing runs (docs/scoring.md, Comparing runs): paired approximate-randomisation tests between
//! every two runs of one evaluation, per sub-experiment.

use super::report::{Comparison, RunReport, Status};
use super::BOOTSTRAP_SEED;

/// The shuffles of the paired significance tests (docs/scoring.md, Comparing runs).
pub const SIGNIFICANCE_SHUFFLES: usize = 10_000;

/// Paired approximate-randomisation tests between every two runs, per
/// sub-experiment, over the questions evaluated in both (fixed seed).
pub(super) fn compare_runs(runs: &[RunReport]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            for ((name, ea), (_, eb)) in
                a.experiments.named().into_iter().zip(b.experiments.named())
            {
                let (Some(ea), Some(eb)) = (ea, eb) else {
                    continue;
                };
                let pairs: Vec<crate::metrics::PairedScores> = ea
                    .questions
                    .iter()
                    .zip(&eb.questions)
                    .filter(|(qa, qb)| {
                        qa.status != Status::NotEvaluable && qb.status != Status::NotEvaluable
                    })
                    .map(|(qa, qb)| {
                        (
                            [qa.score.f1, qa.score.precision_qald, qa.score.recall_qald],
                            [qb.score.f1, qb.score.precision_qald, qb.score.recall_qald],
                        )
                    })
                    .collect();
                out.push(Comparison {
                    run_a: a.name.clone(),
                    run_b: b.name.clone(),
                    experiment: name,
                    significance: crate::metrics::paired_randomization(
                        &pairs,
                        SIGNIFICANCE_SHUFFLES,
                        BOOTSTRAP_SEED,
                    ),
                });
            }
        }
    }
    out
}
