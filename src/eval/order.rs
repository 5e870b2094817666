//! Graded order measures of a question whose gold is ordered (docs/scoring.md,
//! Graded order): graded nDCG, where the gold's i-th of n answers has
//! relevance n − i + 1 and the run's answers count in their order, and
//! Kendall's τ-b between the gold's order and the run's over the answers both
//! hold. Answers are paired by the judge's matching (the same maximum
//! one-to-one matching that counts TP), never by their strings. Apart from the
//! binary `ndcg` of the `text2sparql` profile, which stays as it is.

use std::collections::HashMap;

use crate::matching::{Matching, Prepared};

/// The graded figures of one ordered question: `ndcg_graded` (absent when
/// the gold has no answer) and `kendall_tau` (absent with fewer than two
/// answers in common, or when one side ties them all).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Graded {
    pub(super) ndcg: Option<f64>,
    pub(super) tau: Option<f64>,
}

/// For each run answer in the run's order, the rank (from 0, in the gold's
/// order) of the gold answer the matching paired it with; and the number of
/// gold answers. The prepared sets name answers by their place in their
/// file's list (duplicates and keyless answers dropped), so ordering them by
/// that place gives each side's order.
pub(super) fn ranks(
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> (usize, Vec<Option<usize>>) {
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
    let ranks = run_order
        .iter()
        .map(|r| {
            gold_of_run
                .get(r)
                .and_then(|g| rank_of_gold.get(g))
                .copied()
        })
        .collect();
    (gold_order.len(), ranks)
}

/// The graded figures of an ordered question; a question the run does not
/// answer (missing, empty, abstained) has nDCG 0 and no τ.
pub(super) fn graded(
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
    answered: bool,
) -> Graded {
    if !answered {
        return Graded {
            ndcg: graded_ndcg(gold_set.len(), &[]),
            tau: None,
        };
    }
    let (n, ranks) = ranks(gold_set, run_set, matching);
    let common: Vec<(f64, f64)> = ranks
        .iter()
        .enumerate()
        .filter_map(|(position, rank)| rank.map(|g| (g as f64, position as f64)))
        .collect();
    Graded {
        ndcg: graded_ndcg(n, &ranks),
        tau: kendall_tau_b(&common),
    }
}

/// Graded nDCG: the run's answers in their order, each with the relevance
/// n − k of the gold answer of rank k (from 0) it matched, 0 when none;
/// DCG = Σ_j rel_j / log2(j + 2) over the run's positions j (from 0), divided
/// by the DCG of the gold's own order. `None` when the gold has no answer.
pub(super) fn graded_ndcg(gold: usize, run_ranks: &[Option<usize>]) -> Option<f64> {
    if gold == 0 {
        return None;
    }
    let discount = |j: usize| ((j + 2) as f64).log2();
    // folded from +0.0 (an empty float sum is −0.0)
    let ideal = (0..gold).fold(0.0, |s, k| s + (gold - k) as f64 / discount(k));
    let dcg = run_ranks
        .iter()
        .enumerate()
        .filter_map(|(j, r)| {
            r.filter(|k| *k < gold)
                .map(|k| (gold - k) as f64 / discount(j))
        })
        .fold(0.0, |s, x| s + x);
    Some(dcg / ideal)
}

/// Whether two pairs are tied (in one value, or in both).
type Same = dyn Fn(&(f64, f64), &(f64, f64)) -> bool;

/// Kendall's τ-b of paired values: (C − D) / √((n0 − n1)(n0 − n2)), with C and
/// D the concordant and discordant pairs, n0 = m(m − 1)/2 and n1, n2 the
/// pairs tied in the first and in the second value; Knight's O(m log m)
/// algorithm. `None` with fewer than two pairs, or when every pair of one side
/// is tied (the denominator is 0).
pub fn kendall_tau_b(pairs: &[(f64, f64)]) -> Option<f64> {
    let m = pairs.len();
    if m < 2 {
        return None;
    }
    let mut sorted = pairs.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let tied = |same: &Same, v: &[(f64, f64)]| -> u64 {
        let mut total = 0u64;
        let mut run = 1u64;
        for w in v.windows(2) {
            if same(&w[0], &w[1]) {
                run += 1;
            } else {
                total += run * (run - 1) / 2;
                run = 1;
            }
        }
        total + run * (run - 1) / 2
    };
    let n1 = tied(&|a, b| a.0 == b.0, &sorted);
    let n3 = tied(&|a, b| a.0 == b.0 && a.1 == b.1, &sorted);
    let mut ys: Vec<f64> = sorted.iter().map(|p| p.1).collect();
    let swaps = inversions(&mut ys);
    let y_pairs: Vec<(f64, f64)> = ys.iter().map(|y| (*y, 0.0)).collect();
    let n2 = tied(&|a, b| a.0 == b.0, &y_pairs);
    let n0 = (m as u64) * (m as u64 - 1) / 2;
    let denominator = ((n0 - n1) as f64 * (n0 - n2) as f64).sqrt();
    if denominator == 0.0 {
        return None;
    }
    let numerator = n0 as f64 - n1 as f64 - n2 as f64 + n3 as f64 - 2.0 * swaps as f64;
    Some(numerator / denominator)
}

/// Sorts `v` (a stable merge sort, bottom-up) and returns how many pairs
/// i < j had v[i] > v[j] (strictly; equal values are no inversion).
fn inversions(v: &mut [f64]) -> u64 {
    let n = v.len();
    let mut buffer = v.to_vec();
    let mut swaps = 0u64;
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if v[j] < v[i] {
                    buffer[k] = v[j];
                    swaps += (mid - i) as u64;
                    j += 1;
                } else {
                    buffer[k] = v[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&v[i..mid]);
            k += mid - i;
            buffer[k..k + (end - j)].copy_from_slice(&v[j..end]);
            start = end;
        }
        v.copy_from_slice(&buffer);
        width *= 2;
    }
    swaps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// τ-b by its definition, pair by pair.
    fn brute(p: &[(f64, f64)]) -> Option<f64> {
        let (mut c, mut d, mut tx, mut ty) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                if dx == 0.0 {
                    tx += 1.0;
                }
                if dy == 0.0 {
                    ty += 1.0;
                }
                if dx * dy > 0.0 {
                    c += 1.0;
                } else if dx * dy < 0.0 {
                    d += 1.0;
                }
            }
        }
        let n0 = (p.len() * p.len().saturating_sub(1) / 2) as f64;
        let den = ((n0 - tx) * (n0 - ty)).sqrt();
        (p.len() >= 2 && den > 0.0).then(|| (c - d) / den)
    }

    #[test]
    fn graded_ndcg_by_hand() {
        // gold A B C (relevance 3 2 1); the run says B A C:
        // DCG = 2/1 + 3/log2 3 + 1/2, IDCG = 3 + 2/log2 3 + 1/2
        let l3 = 3f64.log2();
        let want = (2.0 + 3.0 / l3 + 0.5) / (3.0 + 2.0 / l3 + 0.5);
        let got = graded_ndcg(3, &[Some(1), Some(0), Some(2)]).expect("defined");
        assert!((got - want).abs() < 1e-12, "{got} {want}");
        // the gold's own order is 1; nothing right is 0; an unmatched answer
        // first pushes the rest down: (3/log2 3) / IDCG
        assert_eq!(graded_ndcg(3, &[Some(0), Some(1), Some(2)]), Some(1.0));
        let zero = graded_ndcg(3, &[None, None]).expect("defined");
        assert!(zero == 0.0 && zero.is_sign_positive());
        let got = graded_ndcg(3, &[None, Some(0)]).expect("defined");
        assert!((got - (3.0 / l3) / (3.0 + 2.0 / l3 + 0.5)).abs() < 1e-12);
        // no gold answer: nothing to rank
        assert_eq!(graded_ndcg(0, &[Some(0)]), None);
    }

    #[test]
    fn kendall_tau_b_by_hand_with_ties() {
        // the same order, the reverse order
        let same = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)];
        assert_eq!(kendall_tau_b(&same), Some(1.0));
        let reverse = [(0.0, 2.0), (1.0, 1.0), (2.0, 0.0)];
        assert_eq!(kendall_tau_b(&reverse), Some(-1.0));
        // one swap among 4: C = 5, D = 1, n0 = 6: 4/6
        let one = [(0.0, 1.0), (1.0, 0.0), (2.0, 2.0), (3.0, 3.0)];
        assert!((kendall_tau_b(&one).expect("defined") - 4.0 / 6.0).abs() < 1e-12);
        // ties: x = 1 1 2 3, y = 1 2 2 3. Pairs: (1,2) tied in x; (2,3) tied
        // in y; the other 4 concordant. C = 4, D = 0, n0 = 6, n1 = 1, n2 = 1:
        // 4 / √(5·5) = 0.8
        let ties = [(1.0, 1.0), (1.0, 2.0), (2.0, 2.0), (3.0, 3.0)];
        assert!((kendall_tau_b(&ties).expect("defined") - 0.8).abs() < 1e-12);
        // a pair tied on both sides and a discordant one: x = 1 1 2, y = 5 5 4:
        // (1,2) tied both; (1,3), (2,3) discordant. C − D = −2, n1 = n2 = 1:
        // −2 / √(2·2) = −1
        let both = [(1.0, 5.0), (1.0, 5.0), (2.0, 4.0)];
        assert_eq!(kendall_tau_b(&both), Some(-1.0));
        // degenerate: fewer than two pairs, or one side all tied
        assert_eq!(kendall_tau_b(&[(0.0, 0.0)]), None);
        assert_eq!(kendall_tau_b(&[(0.0, 1.0), (0.0, 2.0)]), None);
        // against the definition, on a scrambled list with ties
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            ((state >> 33) % 6) as f64
        };
        for _ in 0..50 {
            let p: Vec<(f64, f64)> = (0..9).map(|_| (next(), next())).collect();
            match (kendall_tau_b(&p), brute(&p)) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-12, "{p:?}"),
                (a, b) => assert_eq!(a, b, "{p:?}"),
            }
        }
    }
}
