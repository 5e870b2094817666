//! The clustering samplers (docs/features.md, "Methods"): k-means with
//! k-means++ seeding and restarts, DBSCAN's outlier removal, and
//! average-linkage agglomerative clustering cut at the size closest to the one
//! asked; each cluster gives its member nearest the cluster's centroid (ties to
//! the smallest id). Identical vectors are merged into one weighted point
//! first (feature vectors repeat a lot), so the work grows with the distinct
//! vectors, and no distance cache over all pairs of questions is kept.
//! Pure and deterministic: the same vectors, ids and seed give the same sample.

use std::collections::BTreeMap;

use super::select::{best_by, distance, mean_vector};
use crate::rng::SplitMix64;

/// The most distinct vectors agglomerative clustering takes (its distances
/// are a matrix over them).
pub const MAX_AGGLOMERATIVE: usize = 1000;

/// Identical vectors merged: each distinct vector and the indices it stands
/// for, in the order first seen.
struct Points {
    coords: Vec<Vec<f64>>,
    members: Vec<Vec<usize>>,
}

impl Points {
    fn of(vectors: &[Vec<f64>], keep: &[usize]) -> Points {
        let mut index: BTreeMap<Vec<u64>, usize> = BTreeMap::new();
        let mut p = Points {
            coords: Vec::new(),
            members: Vec::new(),
        };
        for &i in keep {
            let key: Vec<u64> = vectors[i].iter().map(|x| x.to_bits()).collect();
            let at = *index.entry(key).or_insert_with(|| {
                p.coords.push(vectors[i].clone());
                p.members.push(Vec::new());
                p.coords.len() - 1
            });
            p.members[at].push(i);
        }
        p
    }

    fn weight(&self, i: usize) -> f64 {
        self.members[i].len() as f64
    }
}

/// A uniform number in [0, 1).
fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The index of the centre nearest `x` (ties to the first) and its squared
/// distance.
fn nearest(x: &[f64], centres: &[Vec<f64>]) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (k, c) in centres.iter().enumerate() {
        let d = distance(x, c).powi(2);
        if d < best.1 {
            best = (k, d);
        }
    }
    best
}

/// k-means++ seeding over weighted points: the first centre drawn by weight,
/// each next by weight times the squared distance to the nearest centre; stops
/// early when every point is a centre.
fn seed_centres(p: &Points, k: usize, rng: &mut SplitMix64) -> Vec<Vec<f64>> {
    let n = p.coords.len();
    let total: f64 = (0..n).map(|i| p.weight(i)).sum();
    let draw = |rng: &mut SplitMix64, w: &dyn Fn(usize) -> f64, total: f64| {
        let mut r = uniform(rng) * total;
        for i in 0..n {
            r -= w(i);
            if r < 0.0 {
                return i;
            }
        }
        (0..n).rev().find(|&i| w(i) > 0.0).unwrap_or(0)
    };
    let mut centres = vec![p.coords[draw(rng, &|i| p.weight(i), total)].clone()];
    let mut d2: Vec<f64> = p
        .coords
        .iter()
        .map(|x| distance(x, &centres[0]).powi(2))
        .collect();
    while centres.len() < k {
        let w = |i: usize| p.weight(i) * d2[i];
        let total: f64 = (0..n).map(w).sum();
        if total <= 0.0 {
            break;
        }
        let next = draw(rng, &w, total);
        centres.push(p.coords[next].clone());
        for (i, x) in p.coords.iter().enumerate() {
            d2[i] = d2[i].min(distance(x, &p.coords[next]).powi(2));
        }
    }
    centres
}

/// One k-means run: the point clusters and the within-cluster sum of squares.
fn lloyd(p: &Points, mut centres: Vec<Vec<f64>>, max_iterations: usize) -> (Vec<usize>, f64) {
    let mut assign: Vec<usize> = p.coords.iter().map(|x| nearest(x, &centres).0).collect();
    for _ in 0..max_iterations {
        let dims = centres.first().map_or(0, Vec::len);
        let mut sums = vec![vec![0.0; dims]; centres.len()];
        let mut weights = vec![0.0; centres.len()];
        for (i, &k) in assign.iter().enumerate() {
            weights[k] += p.weight(i);
            for (s, x) in sums[k].iter_mut().zip(&p.coords[i]) {
                *s += x * p.weight(i);
            }
        }
        for (k, c) in centres.iter_mut().enumerate() {
            if weights[k] > 0.0 {
                *c = sums[k].iter().map(|s| s / weights[k]).collect();
            }
        }
        let next: Vec<usize> = p.coords.iter().map(|x| nearest(x, &centres).0).collect();
        if next == assign {
            break;
        }
        assign = next;
    }
    let wcss = p
        .coords
        .iter()
        .enumerate()
        .map(|(i, x)| p.weight(i) * distance(x, &centres[assign[i]]).powi(2))
        .sum();
    (assign, wcss)
}

/// The clusters of indices (into `vectors`) of a point assignment, empty ones
/// left out, in the order of their cluster number.
fn clusters_of(p: &Points, assign: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); k];
    for (i, &c) in assign.iter().enumerate() {
        out[c].extend_from_slice(&p.members[i]);
    }
    out.retain(|c| !c.is_empty());
    out
}

/// k-means with k-means++ seeding over the vectors `keep` names: `trials`
/// seeded runs of at most `max_iterations` Lloyd steps each, the one with the
/// lowest within-cluster sum of squares kept (ties to the first). Gives at
/// most `k` clusters (fewer when there are fewer distinct vectors).
pub fn kmeans(
    vectors: &[Vec<f64>],
    keep: &[usize],
    k: usize,
    seed: u64,
    max_iterations: usize,
    trials: usize,
) -> Vec<Vec<usize>> {
    let p = Points::of(vectors, keep);
    if p.coords.is_empty() || k == 0 {
        return Vec::new();
    }
    let mut rng = SplitMix64(seed);
    let mut best: Option<(Vec<usize>, f64, usize)> = None;
    for _ in 0..trials.max(1) {
        let centres = seed_centres(&p, k.min(p.coords.len()), &mut rng);
        let count = centres.len();
        let (assign, wcss) = lloyd(&p, centres, max_iterations);
        if best.as_ref().is_none_or(|b| wcss < b.1) {
            best = Some((assign, wcss, count));
        }
    }
    best.map(|(assign, _, count)| clusters_of(&p, &assign, count))
        .unwrap_or_default()
}

/// DBSCAN's outlier removal: the indices of the vectors that are core (at
/// least `min_points` vectors, itself included, within `radius`) or within
/// `radius` of a core vector; the others are noise.
pub fn dbscan_keep(vectors: &[Vec<f64>], radius: f64, min_points: usize) -> Vec<usize> {
    let all: Vec<usize> = (0..vectors.len()).collect();
    let p = Points::of(vectors, &all);
    let n = p.coords.len();
    let core: Vec<bool> = (0..n)
        .map(|i| {
            let near: f64 = (0..n)
                .filter(|&j| distance(&p.coords[i], &p.coords[j]) <= radius)
                .map(|j| p.weight(j))
                .sum();
            near >= min_points as f64
        })
        .collect();
    let mut keep: Vec<usize> = (0..n)
        .filter(|&i| {
            core[i] || (0..n).any(|j| core[j] && distance(&p.coords[i], &p.coords[j]) <= radius)
        })
        .flat_map(|i| p.members[i].clone())
        .collect();
    keep.sort_unstable();
    keep
}

/// Average-linkage agglomerative clustering of the vectors, cut at the merge
/// height that gives the number of clusters closest to `size` (ties to the
/// larger number; identical vectors always share a cluster). Refuses more
/// than [`MAX_AGGLOMERATIVE`] distinct vectors (their count is the error).
pub fn agglomerative(vectors: &[Vec<f64>], size: usize) -> Result<Vec<Vec<usize>>, usize> {
    let all: Vec<usize> = (0..vectors.len()).collect();
    let p = Points::of(vectors, &all);
    let n = p.coords.len();
    if n > MAX_AGGLOMERATIVE {
        return Err(n);
    }
    let mut d: Vec<Vec<f64>> = p
        .coords
        .iter()
        .map(|a| p.coords.iter().map(|b| distance(a, b)).collect())
        .collect();
    let mut alive: Vec<bool> = vec![true; n];
    let mut weight: Vec<f64> = (0..n).map(|i| p.weight(i)).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    // merges (height, kept, absorbed) in order
    let mut merges: Vec<(f64, usize, usize)> = Vec::with_capacity(n.saturating_sub(1));
    for _ in 1..n {
        let mut best = (f64::INFINITY, 0, 0);
        for i in (0..n).filter(|&i| alive[i]) {
            for j in (i + 1..n).filter(|&j| alive[j]) {
                if d[i][j] < best.0 {
                    best = (d[i][j], i, j);
                }
            }
        }
        let (h, a, b) = best;
        for c in (0..n).filter(|&c| alive[c] && c != a && c != b) {
            let x = (weight[a] * d[a][c] + weight[b] * d[b][c]) / (weight[a] + weight[b]);
            d[a][c] = x;
            d[c][a] = x;
        }
        weight[a] += weight[b];
        alive[b] = false;
        merges.push((h, a, b));
    }
    // the cut: after j merges there are n - j clusters; only cuts between
    // different heights can be made
    let mut best_j = 0;
    let mut best_gap = n.abs_diff(size);
    for j in 1..=merges.len() {
        let cut_ok = j == merges.len() || merges[j].0 > merges[j - 1].0;
        if cut_ok && (n - j).abs_diff(size) < best_gap {
            best_gap = (n - j).abs_diff(size);
            best_j = j;
        }
    }
    for &(_, a, b) in &merges[..best_j] {
        parent[b] = a;
    }
    let root = |mut i: usize| {
        while parent[i] != i {
            i = parent[i];
        }
        i
    };
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        groups
            .entry(root(i))
            .or_default()
            .extend_from_slice(&p.members[i]);
    }
    Ok(groups.into_values().collect())
}

/// Each cluster's member nearest the cluster's centroid (ties to the smallest
/// id), in the clusters' order.
pub fn prototypes(vectors: &[Vec<f64>], ids: &[String], clusters: &[Vec<usize>]) -> Vec<usize> {
    clusters
        .iter()
        .filter_map(|members| {
            let rows: Vec<&[f64]> = members.iter().map(|&i| vectors[i].as_slice()).collect();
            let centroid = mean_vector(&rows);
            best_by(members, ids, |i| -distance(&vectors[i], &centroid))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("q{i}")).collect()
    }

    fn line(xs: &[f64]) -> Vec<Vec<f64>> {
        xs.iter().map(|x| vec![*x]).collect()
    }

    #[test]
    fn kmeans_finds_well_separated_groups() {
        // three groups on a line: {0, 1, 2}, {10, 11}, {20, 20}
        let v = line(&[0.0, 1.0, 2.0, 10.0, 11.0, 20.0, 20.0]);
        let all: Vec<usize> = (0..v.len()).collect();
        let mut c = kmeans(&v, &all, 3, 7, 100, 10);
        c.sort();
        assert_eq!(c, vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
        // prototypes: nearest the centroids 1, 10.5 (10 and 11 tie: q3), 20
        // (a tie of identical vectors: q5)
        assert_eq!(prototypes(&v, &ids(7), &c), vec![1, 3, 5]);
        // same seed, same clusters; more clusters than distinct vectors: as many
        // as there are
        assert_eq!(kmeans(&v, &all, 3, 7, 100, 10).len(), 3);
        assert_eq!(kmeans(&v, &all, 10, 1, 100, 3).len(), 6);
        assert!(kmeans(&v, &[], 3, 1, 100, 3).is_empty());
    }

    #[test]
    fn dbscan_drops_the_outliers() {
        // a dense group at 0 and one at 0.5; 1.0 stands alone
        let v = line(&[0.0, 0.0, 0.02, 0.5, 0.51, 0.52, 1.0]);
        assert_eq!(dbscan_keep(&v, 0.05, 3), vec![0, 1, 2, 3, 4, 5]);
        // with a radius that reaches 1.0 from 0.52's neighbours nothing is noise
        assert_eq!(dbscan_keep(&v, 0.5, 3).len(), 7);
        // border points (within the radius of a core one) stay
        let v = line(&[0.0, 0.01, 0.02, 0.06]);
        assert_eq!(dbscan_keep(&v, 0.05, 3), vec![0, 1, 2, 3]);
    }

    #[test]
    fn agglomerative_cuts_at_the_closest_size() {
        // 0, 1 | 6 | 9, 10: merges at 1 (0 and 1), 1 (9 and 10), then 6 with
        // {9, 10} at (3 + 4) / 2 = 3.5 (with {0, 1}: 5.5), then everything
        let v = line(&[0.0, 1.0, 6.0, 9.0, 10.0]);
        let c = agglomerative(&v, 3).expect("small");
        assert_eq!(c, vec![vec![0, 1], vec![2], vec![3, 4]]);
        // 4 clusters cannot be cut (the two merges at 1 tie): 5 and 3 are
        // equally close, the larger wins
        assert_eq!(agglomerative(&v, 4).expect("small").len(), 5);
        assert_eq!(agglomerative(&v, 1).expect("small").len(), 1);
        let c = agglomerative(&v, 2).expect("small");
        assert_eq!(c, vec![vec![0, 1], vec![2, 3, 4]]);
        // identical vectors are one point
        assert_eq!(
            agglomerative(&line(&[0.3, 0.3, 0.3]), 3)
                .expect("small")
                .len(),
            1
        );
        // centroids 0.5 (0 and 1 tie: q0) and 25/3 (nearest 9: q3)
        assert_eq!(prototypes(&v, &ids(5), &c), vec![0, 3]);
    }
}
