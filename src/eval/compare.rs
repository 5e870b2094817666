//! Comparing runs (docs/scoring.md, Comparing runs): paired approximate-randomisation tests between
//! every two runs of one evaluation, per sub-experiment.

use super::report::{Comparison, RunReport, Status};
use super::BOOTSTRAP_SEED;

/// The shuffles of the paired significance tests (docs/scoring.md, Comparing runs).
pub const SIGNIFICANCE_SHUFFLES: usize = 10_000;

/// The correction for multiple testing the report names.
pub const CORRECTION: &str = "holm-bonferroni";

/// The significance level paper-ready tables mark differences at, after the
/// correction.
pub const ALPHA: f64 = 0.05;

/// Paired approximate-randomisation tests per sub-experiment, over the
/// questions evaluated in both runs (fixed seed): every run against the
/// baseline (A = the run, B = the baseline), or every two runs without one;
/// the p-values of each statistic corrected with Holm–Bonferroni over all the
/// comparisons made that have a question in common.
pub(super) fn compare_runs(runs: &[RunReport], baseline: Option<&str>) -> Vec<Comparison> {
    let mut pairs_of_runs: Vec<(&RunReport, &RunReport)> = Vec::new();
    match baseline.and_then(|b| runs.iter().find(|r| r.name == b)) {
        Some(base) => {
            for r in runs.iter().filter(|r| r.name != base.name) {
                pairs_of_runs.push((r, base));
            }
        }
        None => {
            for (i, a) in runs.iter().enumerate() {
                for b in &runs[i + 1..] {
                    pairs_of_runs.push((a, b));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (a, b) in pairs_of_runs {
        for ((name, ea), (_, eb)) in a.experiments.named().into_iter().zip(b.experiments.named()) {
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
            let significance =
                crate::metrics::paired_randomization(&pairs, SIGNIFICANCE_SHUFFLES, BOOTSTRAP_SEED);
            out.push(Comparison {
                run_a: a.name.clone(),
                run_b: b.name.clone(),
                experiment: name,
                significance,
                p_f1_adjusted: significance.p_f1,
                p_macro_f1_qald_adjusted: significance.p_macro_f1_qald,
                correction: CORRECTION,
            });
        }
    }
    // comparisons without a question in common test nothing: they keep p = 1
    // and are not counted in the correction
    let tested: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].significance.questions > 0)
        .collect();
    let f1 = holm(
        &tested
            .iter()
            .map(|&i| out[i].significance.p_f1)
            .collect::<Vec<_>>(),
    );
    let qald = holm(
        &tested
            .iter()
            .map(|&i| out[i].significance.p_macro_f1_qald)
            .collect::<Vec<_>>(),
    );
    for ((&i, f), q) in tested.iter().zip(f1).zip(qald) {
        out[i].p_f1_adjusted = f;
        out[i].p_macro_f1_qald_adjusted = q;
    }
    out
}

/// Holm–Bonferroni adjusted p-values, in the order given: sorted ascending,
/// the k-th smallest (from 0) is multiplied by (m − k), made non-decreasing
/// along the order, and capped at 1.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_multiplies_by_the_remaining_tests_and_keeps_the_order() {
        // p = 0.01, 0.04, 0.03, 0.20: sorted 0.01·4, 0.03·3, 0.04·2, 0.20·1
        let a = holm(&[0.01, 0.04, 0.03, 0.20]);
        let want = [0.04, 0.09, 0.09, 0.20];
        for (x, w) in a.iter().zip(want) {
            assert!((x - w).abs() < 1e-12, "{a:?}");
        }
        assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
