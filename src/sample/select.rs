//! Choosing a micro-benchmark from feature vectors (docs/features.md,
//! "Sampling"): vectors normalised per dimension by its maximum, Euclidean
//! distance, FEASIBLE's exemplars and prototypes, a seeded random sample, and
//! the sample's diversity (QaldGen, Definition 2) and representativeness
//! (FEASIBLE's similarity error). Pure and deterministic: the same vectors,
//! ids, size and seed give the same sample.

use crate::rng::SplitMix64;

/// Every dimension divided by its maximum over the vectors (a dimension whose
/// maximum is 0 stays 0), as FEASIBLE normalises.
pub fn normalise(vectors: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let dims = vectors.first().map_or(0, Vec::len);
    let max: Vec<f64> = (0..dims)
        .map(|d| vectors.iter().map(|v| v[d]).fold(0.0, f64::max))
        .collect();
    vectors
        .iter()
        .map(|v| {
            v.iter()
                .zip(&max)
                .map(|(x, m)| if *m > 0.0 { x / m } else { 0.0 })
                .collect()
        })
        .collect()
}

pub(super) fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

pub(super) fn mean_vector(vectors: &[&[f64]]) -> Vec<f64> {
    let dims = vectors.first().map_or(0, |v| v.len());
    let n = vectors.len().max(1) as f64;
    (0..dims)
        .map(|d| vectors.iter().map(|v| v[d]).sum::<f64>() / n)
        .collect()
}

/// The index of the best candidate by `score` (larger is better); a tie goes
/// to the smallest id, compared as strings.
pub(super) fn best_by(
    candidates: &[usize],
    ids: &[String],
    score: impl Fn(usize) -> f64,
) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for &i in candidates {
        let s = score(i);
        best = match best {
            Some((b, bs)) if bs > s || (bs == s && ids[b] <= ids[i]) => Some((b, bs)),
            _ => Some((i, s)),
        };
    }
    best.map(|(i, _)| i)
}

/// FEASIBLE's exemplars: the vector furthest from the mean first, then each
/// time the one with the largest sum of distances to those chosen, until
/// `size` (ties to the smallest id).
pub fn exemplars(vectors: &[Vec<f64>], ids: &[String], size: usize) -> Vec<usize> {
    let all: Vec<&[f64]> = vectors.iter().map(Vec::as_slice).collect();
    let mean = mean_vector(&all);
    let mut chosen: Vec<usize> = Vec::new();
    let mut sum = vec![0.0; vectors.len()];
    let mut left: Vec<usize> = (0..vectors.len()).collect();
    while chosen.len() < size.min(vectors.len()) {
        let next = if chosen.is_empty() {
            best_by(&left, ids, |i| distance(&vectors[i], &mean))
        } else {
            best_by(&left, ids, |i| sum[i])
        };
        let Some(next) = next else { break };
        chosen.push(next);
        left.retain(|&i| i != next);
        for &i in &left {
            sum[i] += distance(&vectors[i], &vectors[next]);
        }
    }
    chosen
}

/// FEASIBLE's prototypes: every vector joins its nearest exemplar (ties to the
/// earlier exemplar), and each cluster gives its member nearest the cluster's
/// centroid, or its exemplar when that member was already given.
pub fn feasible(vectors: &[Vec<f64>], ids: &[String], size: usize) -> Vec<usize> {
    let centres = exemplars(vectors, ids, size);
    let mut clusters: Vec<Vec<usize>> = vec![Vec::new(); centres.len()];
    for (i, v) in vectors.iter().enumerate() {
        let mut best = (0usize, f64::INFINITY);
        for (k, &c) in centres.iter().enumerate() {
            let d = distance(v, &vectors[c]);
            if d < best.1 {
                best = (k, d);
            }
        }
        if !centres.is_empty() {
            clusters[best.0].push(i);
        }
    }
    let mut chosen: Vec<usize> = Vec::new();
    for (k, members) in clusters.iter().enumerate() {
        let rows: Vec<&[f64]> = members.iter().map(|&i| vectors[i].as_slice()).collect();
        let centroid = mean_vector(&rows);
        let nearest = best_by(members, ids, |i| -distance(&vectors[i], &centroid));
        match nearest {
            Some(p) if !chosen.contains(&p) => chosen.push(p),
            _ => chosen.push(centres[k]),
        }
    }
    chosen
}

/// `size` distinct vectors drawn by the seeded generator (a partial
/// Fisher–Yates shuffle), in the order drawn.
pub fn random(count: usize, size: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    let mut rng = SplitMix64(seed);
    let take = size.min(count);
    for i in 0..take {
        let span = (count - i) as u64;
        let j = i + (rng.next_u64() % span) as usize;
        order.swap(i, j);
    }
    order.truncate(take);
    order
}

/// Per-dimension mean and standard deviation of `rows` (`sample`: divided by
/// n − 1, else by n).
fn moments(rows: &[&[f64]], sample: bool) -> (Vec<f64>, Vec<f64>) {
    let mean = mean_vector(rows);
    let n = rows.len() as f64;
    let denominator = if sample { n - 1.0 } else { n };
    let sd = (0..mean.len())
        .map(|d| {
            if denominator <= 0.0 {
                return 0.0;
            }
            let ss: f64 = rows.iter().map(|r| (r[d] - mean[d]).powi(2)).sum();
            (ss / denominator).sqrt()
        })
        .collect();
    (mean, sd)
}

/// QaldGen's diversity (Definition 2): the mean over the features of the
/// population standard deviation of the normalised feature in the sample.
pub fn diversity(vectors: &[Vec<f64>], chosen: &[usize]) -> f64 {
    let rows: Vec<&[f64]> = chosen.iter().map(|&i| vectors[i].as_slice()).collect();
    let (_, sd) = moments(&rows, false);
    if sd.is_empty() {
        0.0
    } else {
        sd.iter().sum::<f64>() / sd.len() as f64
    }
}

/// FEASIBLE's similarity error of the sample against all vectors: with the
/// per-feature means and sample standard deviations, E_μ and E_σ the mean
/// squared differences, the score 2·E_μ·E_σ/(E_μ+E_σ) (0 when both are 0);
/// lower is more representative.
pub fn representativeness(vectors: &[Vec<f64>], chosen: &[usize]) -> f64 {
    let all: Vec<&[f64]> = vectors.iter().map(Vec::as_slice).collect();
    let rows: Vec<&[f64]> = chosen.iter().map(|&i| vectors[i].as_slice()).collect();
    let (mu_all, sd_all) = moments(&all, true);
    let (mu, sd) = moments(&rows, true);
    let k = mu_all.len().max(1) as f64;
    let e = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / k;
    let (em, es) = (e(&mu_all, &mu), e(&sd_all, &sd));
    if em + es == 0.0 {
        0.0
    } else {
        2.0 * em * es / (em + es)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("q{i}")).collect()
    }

    #[test]
    fn normalising_divides_by_each_dimensions_maximum() {
        let v = normalise(&[vec![2.0, 0.0], vec![4.0, 0.0], vec![1.0, 0.0]]);
        assert_eq!(v, vec![vec![0.5, 0.0], vec![1.0, 0.0], vec![0.25, 0.0]]);
    }

    #[test]
    fn exemplars_and_prototypes_by_hand() {
        // five points on a line: 0, 0.1, 0.5, 0.9, 1.0 (mean 0.5)
        let v: Vec<Vec<f64>> = [0.0, 0.1, 0.5, 0.9, 1.0].iter().map(|x| vec![*x]).collect();
        let ids = ids(5);
        // furthest from the mean: 0.0 and 1.0 tie at 0.5 → q0 (smaller id);
        // then the largest sum of distances to {0.0}: 1.0 (q4); then to
        // {0.0, 1.0}: every other point sums to 1.0 → q1 (smallest id)
        assert_eq!(exemplars(&v, &ids, 3), vec![0, 4, 1]);
        // clusters: q0 {0.0}, q4 {0.9, 1.0}, q1 {0.1, 0.5}; centroids 0.0,
        // 0.95, 0.3: nearest members q0, q3 (0.9 and 1.0 tie at 0.05 → q3),
        // q1 and q2 tie at 0.2 → q1
        assert_eq!(feasible(&v, &ids, 3), vec![0, 3, 1]);
    }

    #[test]
    fn a_random_sample_is_distinct_and_repeatable() {
        let a = random(100, 10, 7);
        assert_eq!(a, random(100, 10, 7));
        let mut s = a.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 10);
        assert_ne!(a, random(100, 10, 8));
        assert_eq!(random(3, 10, 1).len(), 3);
    }

    #[test]
    fn diversity_and_representativeness_by_hand() {
        let v: Vec<Vec<f64>> = [0.0, 0.5, 1.0].iter().map(|x| vec![*x]).collect();
        // population sd of {0, 1} is 0.5
        assert!((diversity(&v, &[0, 2]) - 0.5).abs() < 1e-12);
        // the whole set is perfectly representative of itself
        assert_eq!(representativeness(&v, &[0, 1, 2]), 0.0);
        // {0, 1}: means equal (0.5), sample sds 0.5 vs 0.7071: E_μ = 0 → 0
        assert_eq!(representativeness(&v, &[0, 2]), 0.0);
        let r = representativeness(&v, &[0, 1]);
        assert!(r > 0.0, "{r}");
    }
}
