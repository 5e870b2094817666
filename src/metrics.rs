//! Every counting convention of docs/scoring.md (Counting, Aggregates): per-question precision, recall and
//! F1 (with the QALD rule for a system that declares it cannot answer), and micro,
//! macro and Macro F1 QALD aggregates. Pure functions over counts.

use serde::Serialize;

use crate::rng::SplitMix64;

/// Precision, recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1 (for macro: the mean of per-question F1, not the harmonic mean).
    pub f1: f64,
}

/// Harmonic mean of two values, 0 when both are 0.
pub fn harmonic(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// The scores of one question.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct QuestionScore {
    /// Matched pairs.
    pub tp: usize,
    /// Unmatched run answers.
    pub fp: usize,
    /// Unmatched gold answers.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// Precision (docs/scoring.md, Counting).
    pub precision: f64,
    /// Recall (docs/scoring.md, Counting).
    pub recall: f64,
    /// F1 (docs/scoring.md, Counting).
    pub f1: f64,
    /// Precision under the QALD rule.
    pub precision_qald: f64,
    /// Recall under the QALD rule.
    pub recall_qald: f64,
}

/// The counting table of docs/scoring.md for `gold` distinct gold answers, `run` distinct run answers
/// and `tp` matched pairs (`tp <= min(gold, run)`).
pub fn table(gold: usize, run: usize, tp: usize) -> Prf {
    match (gold, run) {
        (0, 0) => Prf {
            precision: 1.0,
            recall: 1.0,
            f1: 1.0,
        },
        (0, _) | (_, 0) => Prf::default(),
        _ => {
            let precision = tp as f64 / run as f64;
            let recall = tp as f64 / gold as f64;
            let f1 = if tp == 0 {
                0.0
            } else {
                harmonic(precision, recall)
            };
            Prf {
                precision,
                recall,
                f1,
            }
        }
    }
}

/// Scores one question from its counts.
pub fn score_question(gold: usize, run: usize, tp: usize) -> QuestionScore {
    let prf = table(gold, run, tp);
    // QALD rule: non-empty gold, empty run -> P = 1, R = 0, F1 = 0.
    let (precision_qald, recall_qald) = if gold > 0 && run == 0 {
        (1.0, 0.0)
    } else {
        (prf.precision, prf.recall)
    };
    QuestionScore {
        tp,
        fp: run - tp,
        fn_: gold - tp,
        precision: prf.precision,
        recall: prf.recall,
        f1: prf.f1,
        precision_qald,
        recall_qald,
    }
}

/// The set measures of `trec_eval` (`set_P`, `set_recall`, `set_F` with β = 1)
/// from the number of relevant documents, retrieved documents and relevant
/// retrieved ones, as the TEXT2SPARQL challenge's scoring computes them through
/// `pytrec_eval`: a measure whose denominator is 0 is 0, and F is 0 unless
/// something relevant was retrieved (so an empty gold scores 0, never 1).
pub fn trec_set(relevant: usize, retrieved: usize, relevant_retrieved: usize) -> QuestionScore {
    let precision = if retrieved > 0 {
        relevant_retrieved as f64 / retrieved as f64
    } else {
        0.0
    };
    let recall = if relevant > 0 {
        relevant_retrieved as f64 / relevant as f64
    } else {
        0.0
    };
    let f1 = if relevant_retrieved > 0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    QuestionScore {
        tp: relevant_retrieved,
        fp: retrieved - relevant_retrieved,
        fn_: relevant - relevant_retrieved,
        precision,
        recall,
        f1,
        precision_qald: precision,
        recall_qald: recall,
    }
}

/// `trec_eval`'s nDCG with binary gains: `ranked` says, rank by rank, whether the
/// document there is relevant; `relevant` is how many relevant documents there
/// are. DCG = Σ gain / log2(rank + 1); the ideal puts every relevant document
/// first; 0 when there is nothing relevant.
pub fn trec_ndcg(ranked: &[bool], relevant: usize) -> f64 {
    let discount = |i: usize| ((i + 2) as f64).log2();
    let ideal: f64 = (0..relevant)
        .map(|i| 1.0 / discount(i))
        .fold(0.0, |a, b| a + b);
    if ideal <= 0.0 {
        return 0.0;
    }
    let dcg: f64 = ranked
        .iter()
        .enumerate()
        .filter(|(_, r)| **r)
        .map(|(i, _)| 1.0 / discount(i))
        .fold(0.0, |a, b| a + b);
    dcg / ideal
}

/// The order score of docs/scoring.md (Executing SPARQL) (qajudge's, documented in docs/scoring.md): the
/// gold list has `gold` answers in its order, and `run_ranks[i]` is the gold
/// position matched by the run's i-th answer (`None`: no match). The answer at
/// gold position k has gain `gold - k`, so that putting earlier gold answers
/// earlier scores more; DCG = Σ gain / log2(i + 2) over the run's order, divided
/// by the DCG of the gold order itself. 1 only for the gold order with nothing
/// before it; any swap of two matched answers changes it.
pub fn ordered_ndcg(gold: usize, run_ranks: &[Option<usize>]) -> f64 {
    let discount = |i: usize| ((i + 2) as f64).log2();
    let ideal: f64 = (0..gold)
        .map(|k| (gold - k) as f64 / discount(k))
        .fold(0.0, |a, b| a + b);
    if ideal <= 0.0 {
        return if run_ranks.is_empty() { 1.0 } else { 0.0 };
    }
    let dcg: f64 = run_ranks
        .iter()
        .enumerate()
        .filter_map(|(i, k)| k.map(|k| (gold.saturating_sub(k)) as f64 / discount(i)))
        .fold(0.0, |a, b| a + b);
    dcg / ideal
}

/// The aggregate measures of a run over its evaluated questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Aggregate {
    /// Micro: sums of TP, FP, FN, then the table.
    pub micro: Prf,
    /// Macro: means of per-question P, R and F1.
    #[serde(rename = "macro")]
    pub macro_: Prf,
    /// Means of P and R under the QALD rule, and their harmonic mean (Macro F1 QALD).
    pub macro_qald: Prf,
}

fn mean(values: impl Iterator<Item = f64>, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        values.sum::<f64>() / n as f64
    }
}

/// Aggregates per-question scores (docs/scoring.md, Aggregates).
pub fn aggregate(scores: &[QuestionScore]) -> Aggregate {
    let n = scores.len();
    let (tp, fp, fn_) = scores
        .iter()
        .fold((0, 0, 0), |(a, b, c), s| (a + s.tp, b + s.fp, c + s.fn_));
    let micro = table(tp + fn_, tp + fp, tp);
    let macro_ = Prf {
        precision: mean(scores.iter().map(|s| s.precision), n),
        recall: mean(scores.iter().map(|s| s.recall), n),
        f1: mean(scores.iter().map(|s| s.f1), n),
    };
    let p = mean(scores.iter().map(|s| s.precision_qald), n);
    let r = mean(scores.iter().map(|s| s.recall_qald), n);
    Aggregate {
        micro,
        macro_,
        macro_qald: Prf {
            precision: p,
            recall: r,
            f1: harmonic(p, r),
        },
    }
}

/// The QALD-1/2 measures (docs/scoring.md (Aggregates); Lopez et al.): questions answered right
/// (F1 = 1) and partially (0 < F1 < 1), and P/R/F1 over the answered questions
/// only: the mean per-question P and R, and their harmonic mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Qald12 {
    /// Questions with F1 = 1.
    pub right: usize,
    /// Questions with 0 < F1 < 1.
    pub partial: usize,
    /// Mean P and R over the answered questions, and their harmonic mean.
    pub answered_only: Prf,
}

/// The QALD-1/2 measures of scored questions, each with whether the system
/// answered it (a non-empty answer).
pub fn qald12(scores: &[(bool, QuestionScore)]) -> Qald12 {
    let right = scores.iter().filter(|(_, s)| s.f1 >= 1.0).count();
    let partial = scores
        .iter()
        .filter(|(_, s)| s.f1 > 0.0 && s.f1 < 1.0)
        .count();
    let answered: Vec<&QuestionScore> = scores.iter().filter(|(a, _)| *a).map(|(_, s)| s).collect();
    let n = answered.len();
    let p = mean(answered.iter().map(|s| s.precision), n);
    let r = mean(answered.iter().map(|s| s.recall), n);
    Qald12 {
        right,
        partial,
        answered_only: Prf {
            precision: p,
            recall: r,
            f1: harmonic(p, r),
        },
    }
}

/// A two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// Confidence intervals of precision, recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct PrfInterval {
    /// Precision.
    pub precision: Interval,
    /// Recall.
    pub recall: Interval,
    /// F1.
    pub f1: Interval,
}

/// Bootstrap confidence intervals of every aggregate measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Confidence {
    /// The confidence level (0.95).
    pub level: f64,
    /// The number of bootstrap resamples.
    pub resamples: usize,
    /// Micro P/R/F1.
    pub micro: PrfInterval,
    /// Macro P/R/F1.
    #[serde(rename = "macro")]
    pub macro_: PrfInterval,
    /// Macro under the QALD rule.
    pub macro_qald: PrfInterval,
}

/// 95% percentile-bootstrap intervals over questions: `resamples` resamples of the
/// questions with replacement, each aggregated as [`aggregate`] does, with a fixed
/// `seed`. The same inputs always give the same intervals.
pub fn bootstrap(scores: &[QuestionScore], resamples: usize, seed: u64) -> Confidence {
    let n = scores.len();
    let level = 0.95;
    if n == 0 || resamples == 0 {
        return Confidence {
            level,
            resamples,
            ..Confidence::default()
        };
    }
    let mut rng = SplitMix64(seed);
    let mut samples: Vec<[f64; 9]> = Vec::with_capacity(resamples);
    let mut resample = Vec::with_capacity(n);
    for _ in 0..resamples {
        resample.clear();
        resample.extend((0..n).map(|_| scores[rng.below(n)]));
        let a = aggregate(&resample);
        samples.push([
            a.micro.precision,
            a.micro.recall,
            a.micro.f1,
            a.macro_.precision,
            a.macro_.recall,
            a.macro_.f1,
            a.macro_qald.precision,
            a.macro_qald.recall,
            a.macro_qald.f1,
        ]);
    }
    let interval = |i: usize| {
        let mut v: Vec<f64> = samples.iter().map(|s| s[i]).collect();
        v.sort_by(f64::total_cmp);
        let lo = ((1.0 - level) / 2.0 * (resamples - 1) as f64).floor() as usize;
        let hi = ((1.0 + level) / 2.0 * (resamples - 1) as f64).ceil() as usize;
        Interval {
            low: v[lo],
            high: v[hi.min(resamples - 1)],
        }
    };
    let prf = |i: usize| PrfInterval {
        precision: interval(i),
        recall: interval(i + 1),
        f1: interval(i + 2),
    };
    Confidence {
        level,
        resamples,
        micro: prf(0),
        macro_: prf(3),
        macro_qald: prf(6),
    }
}

/// One question of a paired comparison: (F1, precision and recall under the QALD
/// rule) of run A and of run B.
pub type PairedScores = ([f64; 3], [f64; 3]);

/// The outcome of a paired approximate-randomisation test (docs/scoring.md, Comparing runs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default, utoipa::ToSchema)]
pub struct Significance {
    /// Questions compared.
    pub questions: usize,
    /// Mean per-question F1 of A minus that of B.
    pub f1_difference: f64,
    /// p-value of the difference in mean per-question F1.
    pub p_f1: f64,
    /// Macro F1 QALD of A minus that of B.
    pub macro_f1_qald_difference: f64,
    /// p-value of the difference in Macro F1 QALD.
    pub p_macro_f1_qald: f64,
    /// Shuffles made.
    pub shuffles: usize,
}

/// Mean F1 and Macro F1 QALD of one side, with each question's pair swapped where
/// `swap` says so.
fn paired_stats(pairs: &[PairedScores], swap: &[bool], side_a: bool) -> (f64, f64) {
    let n = pairs.len() as f64;
    let (mut f1, mut p, mut r) = (0.0, 0.0, 0.0);
    for (pair, &swapped) in pairs.iter().zip(swap) {
        let s = if swapped == side_a { &pair.1 } else { &pair.0 };
        f1 += s[0];
        p += s[1];
        r += s[2];
    }
    (f1 / n, harmonic(p / n, r / n))
}

/// Paired approximate randomisation over questions: each of `shuffles` rounds swaps
/// the two runs' scores of every question with probability ½ (fixed `seed`); the
/// p-value of a statistic is (rounds with a difference at least the observed one,
/// plus one) over (rounds plus one). Two-sided, for the mean per-question F1 and
/// for Macro F1 QALD.
pub fn paired_randomization(pairs: &[PairedScores], shuffles: usize, seed: u64) -> Significance {
    if pairs.is_empty() {
        return Significance {
            shuffles,
            p_f1: 1.0,
            p_macro_f1_qald: 1.0,
            ..Significance::default()
        };
    }
    let none = vec![false; pairs.len()];
    let (fa, qa) = paired_stats(pairs, &none, true);
    let (fb, qb) = paired_stats(pairs, &none, false);
    let (d_f1, d_q) = (fa - fb, qa - qb);
    let mut rng = SplitMix64(seed);
    let mut swap = vec![false; pairs.len()];
    let (mut at_least_f1, mut at_least_q) = (0usize, 0usize);
    // a tolerance so that rounding does not hide ties with the observed value
    let eps = 1e-12;
    for _ in 0..shuffles {
        for s in &mut swap {
            *s = rng.next_u64() & 1 == 1;
        }
        let (fa, qa) = paired_stats(pairs, &swap, true);
        let (fb, qb) = paired_stats(pairs, &swap, false);
        if (fa - fb).abs() + eps >= d_f1.abs() {
            at_least_f1 += 1;
        }
        if (qa - qb).abs() + eps >= d_q.abs() {
            at_least_q += 1;
        }
    }
    let p = |k: usize| (k + 1) as f64 / (shuffles + 1) as f64;
    Significance {
        questions: pairs.len(),
        f1_difference: d_f1,
        p_f1: p(at_least_f1),
        macro_f1_qald_difference: d_q,
        p_macro_f1_qald: p(at_least_q),
        shuffles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_randomization_finds_real_differences_only() {
        // identical runs: nothing to find
        let same: Vec<PairedScores> = (0..40)
            .map(|i| {
                let v = f64::from(i % 3) / 2.0;
                ([v, v, v], [v, v, v])
            })
            .collect();
        let s = paired_randomization(&same, 2000, 7);
        assert_eq!((s.p_f1, s.p_macro_f1_qald), (1.0, 1.0));
        // A right on every question, B wrong on every one: p is as small as the
        // number of shuffles allows
        let apart: Vec<PairedScores> = (0..40)
            .map(|_| ([1.0, 1.0, 1.0], [0.0, 1.0, 0.0]))
            .collect();
        let s = paired_randomization(&apart, 2000, 7);
        assert!(s.p_f1 < 0.001 && s.p_macro_f1_qald < 0.001, "{s:?}");
        assert_eq!(s.f1_difference, 1.0);
        // one question apart of 40: not significant
        let mut one = same.clone();
        one[0] = ([1.0, 1.0, 1.0], [0.0, 1.0, 0.0]);
        assert!(paired_randomization(&one, 2000, 7).p_f1 > 0.3);
        // reproducible
        assert_eq!(
            paired_randomization(&one, 500, 9),
            paired_randomization(&one, 500, 9)
        );
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn every_row_of_the_table() {
        let s = score_question(0, 0, 0);
        assert_eq!((s.precision, s.recall, s.f1), (1.0, 1.0, 1.0));
        assert_eq!((s.precision_qald, s.recall_qald), (1.0, 1.0));
        let s = score_question(0, 3, 0);
        assert_eq!((s.precision, s.recall, s.f1, s.fp), (0.0, 0.0, 0.0, 3));
        assert_eq!((s.precision_qald, s.recall_qald), (0.0, 0.0));
        let s = score_question(2, 0, 0);
        assert_eq!((s.precision, s.recall, s.f1, s.fn_), (0.0, 0.0, 0.0, 2));
        // the QALD rule: the system declared it cannot answer
        assert_eq!((s.precision_qald, s.recall_qald), (1.0, 0.0));
        let s = score_question(4, 2, 1);
        close(s.precision, 0.5);
        close(s.recall, 0.25);
        close(s.f1, 2.0 * 0.5 * 0.25 / 0.75);
        assert_eq!((s.tp, s.fp, s.fn_), (1, 1, 3));
        let s = score_question(4, 2, 0);
        assert_eq!((s.precision, s.recall, s.f1), (0.0, 0.0, 0.0));
    }

    #[test]
    fn micro_versus_macro() {
        // q1: 1 of 1 right; q2: 1 right of 3 returned, gold 1; q3: gold 10, run 10 all right
        let scores = [
            score_question(1, 1, 1),
            score_question(1, 3, 1),
            score_question(10, 10, 10),
        ];
        let a = aggregate(&scores);
        close(a.micro.precision, 12.0 / 14.0);
        close(a.micro.recall, 1.0);
        close(a.macro_.precision, (1.0 + 1.0 / 3.0 + 1.0) / 3.0);
        close(a.macro_.recall, 1.0);
        close(a.macro_.f1, (1.0 + 0.5 + 1.0) / 3.0);
        // macro F1 is not the harmonic mean of macro P and macro R
        assert!((a.macro_.f1 - harmonic(a.macro_.precision, a.macro_.recall)).abs() > 0.01);
    }

    #[test]
    fn macro_qald_uses_the_qald_rule() {
        let scores = [score_question(1, 1, 1), score_question(2, 0, 0)];
        let a = aggregate(&scores);
        close(a.macro_.precision, 0.5);
        close(a.macro_qald.precision, 1.0);
        close(a.macro_qald.recall, 0.5);
        close(a.macro_qald.f1, 2.0 * 0.5 / 1.5);
        let zero = aggregate(&[score_question(1, 1, 0)]);
        assert_eq!(zero.macro_qald.f1, 0.0);
    }

    #[test]
    fn bootstrap_is_reproducible_and_brackets_the_estimate() {
        let scores: Vec<QuestionScore> = (0..50).map(|i| score_question(2, 2, i % 3)).collect();
        let a = aggregate(&scores);
        let c = bootstrap(&scores, 1000, 42);
        assert_eq!(c, bootstrap(&scores, 1000, 42));
        assert_ne!(c, bootstrap(&scores, 1000, 43));
        for (iv, v) in [
            (c.micro.f1, a.micro.f1),
            (c.macro_.f1, a.macro_.f1),
            (c.macro_qald.f1, a.macro_qald.f1),
        ] {
            assert!(iv.low < v && v < iv.high, "{iv:?} should bracket {v}");
        }
        // all questions alike: no spread
        let same = vec![score_question(1, 1, 1); 10];
        let c = bootstrap(&same, 200, 1);
        assert_eq!((c.macro_.f1.low, c.macro_.f1.high), (1.0, 1.0));
        assert_eq!(bootstrap(&[], 10, 1).macro_.f1, Interval::default());
    }

    #[test]
    fn micro_on_all_empty_is_one() {
        let a = aggregate(&[score_question(0, 0, 0)]);
        assert_eq!(a.micro.f1, 1.0);
        let a = aggregate(&[score_question(0, 0, 0), score_question(0, 2, 0)]);
        assert_eq!(a.micro.f1, 0.0);
    }
}
