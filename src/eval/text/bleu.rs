//! BLEU and token precision, recall and F1 of a candidate token list against
//! one reference, as T2S-Metrics 1.2.0 computes them: NLTK 3.10's
//! `sentence_bleu` with weights (¼, ¼, ¼, ¼) and `SmoothingFunction().method4`
//! (clipped n-gram counts; 0 when no unigram matches; an n-gram order with no
//! match gets `1 / (2^k · 5 / ln(len))` over its count, k counting such
//! orders, when the candidate has two tokens or more; the brevity penalty
//! `exp(1 − r / c)`, 0 for an empty candidate), and token measures over
//! multisets (0 when a denominator is 0).

use std::collections::HashMap;

/// N-gram orders of BLEU-4.
const ORDERS: usize = 4;

/// Chen and Cherry's `k` (NLTK's default).
const K: f64 = 5.0;

fn ngrams(tokens: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut counts = HashMap::new();
    if tokens.len() >= n {
        for w in tokens.windows(n) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

/// BLEU-4 of `candidate` against `reference`.
pub fn bleu(reference: &[String], candidate: &[String]) -> f64 {
    let mut numerators = [0usize; ORDERS];
    let mut denominators = [0usize; ORDERS];
    for n in 1..=ORDERS {
        let cand = ngrams(candidate, n);
        let refs = ngrams(reference, n);
        numerators[n - 1] = cand
            .iter()
            .map(|(g, c)| (*c).min(refs.get(g).copied().unwrap_or(0)))
            .sum();
        denominators[n - 1] = cand.values().sum::<usize>().max(1);
    }
    if numerators[0] == 0 {
        return 0.0;
    }
    let (c, r) = (candidate.len(), reference.len());
    let bp = if c > r {
        1.0
    } else if c == 0 {
        0.0
    } else {
        (1.0 - r as f64 / c as f64).exp()
    };
    let mut k = 1;
    let mut sum = 0.0;
    for n in 0..ORDERS {
        let p = if numerators[n] == 0 && c > 1 {
            let numerator = 1.0 / (f64::from(1u32 << k) * K / (c as f64).ln());
            k += 1;
            numerator / denominators[n] as f64
        } else {
            numerators[n] as f64 / denominators[n] as f64
        };
        if p > 0.0 {
            sum += 0.25 * p.ln();
        }
    }
    bp * sum.exp()
}

/// Token precision, recall and F1 over multisets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenPrf {
    /// Shared tokens over the candidate's.
    pub precision: f64,
    /// Shared tokens over the reference's.
    pub recall: f64,
    /// Their harmonic mean.
    pub f1: f64,
}

/// Token precision, recall and F1 of `candidate` against `reference`.
pub fn token_prf(reference: &[String], candidate: &[String]) -> TokenPrf {
    let gold = ngrams(reference, 1);
    let pred = ngrams(candidate, 1);
    let tp: usize = pred
        .iter()
        .map(|(g, c)| (*c).min(gold.get(g).copied().unwrap_or(0)))
        .sum();
    let (np, ng) = (candidate.len(), reference.len());
    let precision = if np > 0 { tp as f64 / np as f64 } else { 0.0 };
    let recall = if ng > 0 { tp as f64 / ng as f64 } else { 0.0 };
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    TokenPrf {
        precision,
        recall,
        f1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn bleu_as_nltk_computes_it() {
        // NLTK 3.10.4: sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method4)
        let r = words("It is a guide to action that ensures that the military will forever heed Party commands");
        let h = words("It is a guide to action which ensures that the military always obeys the commands of the party");
        assert!(
            (bleu(&r, &h) - 0.411_803_763_569_157_77).abs() < 1e-12,
            "{}",
            bleu(&r, &h)
        );
        assert_eq!(bleu(&r, &[]), 0.0);
        assert_eq!(bleu(&r, &words("nothing shared")), 0.0);
        assert_eq!(bleu(&r, &r), 1.0);
        let p = token_prf(&words("a b b c"), &words("b b d"));
        assert_eq!((p.precision, p.recall), (2.0 / 3.0, 0.5));
    }
}
