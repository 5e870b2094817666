//! Multiset overlaps of result rows, for the profiles that pair rows by
//! their shared values (`spinach`'s `row_major_f1`, `grasp`'s
//! `assignment_f1_score`): every distinct value is numbered once, and each
//! row becomes its values' numbers with their counts, sorted, so that the
//! p × g matrix of overlaps merges two short sorted lists per cell instead of
//! hashing every value of every pair (docs/benchmarks.md, SPARQL execution:
//! the matrix was a third of a GRASP evaluation's time). The counts are the
//! ones `collections.Counter` gives; the figures do not change.

use std::collections::HashMap;
use std::hash::Hash;

/// A row as a multiset: (value number, count), sorted by number.
pub(super) type Counted = Vec<(u32, usize)>;

/// The numbers of the distinct values of the rows counted so far.
pub(super) struct Values<K> {
    numbers: HashMap<K, u32>,
}

impl<K: Hash + Eq> Values<K> {
    pub(super) fn new() -> Values<K> {
        Values {
            numbers: HashMap::new(),
        }
    }

    /// The multiset of `values` (each numbered, the same value the same
    /// number in every row counted by `self`) and how many values it holds.
    pub(super) fn count(&mut self, values: impl IntoIterator<Item = K>) -> (Counted, usize) {
        let mut numbers: Vec<u32> = values
            .into_iter()
            .map(|v| {
                let next = u32::try_from(self.numbers.len()).unwrap_or(u32::MAX);
                *self.numbers.entry(v).or_insert(next)
            })
            .collect();
        let total = numbers.len();
        numbers.sort_unstable();
        let mut counted: Counted = Vec::with_capacity(numbers.len());
        for n in numbers {
            match counted.last_mut() {
                Some((last, count)) if *last == n => *count += 1,
                _ => counted.push((n, 1)),
            }
        }
        (counted, total)
    }
}

/// Σ over the values both rows hold of the smaller count: `|a ∩ b|` of two
/// multisets (`Counter(a) & Counter(b)`), by one merge of the sorted lists.
pub(super) fn common(a: &[(u32, usize)], b: &[(u32, usize)]) -> usize {
    let (mut i, mut j, mut sum) = (0, 0, 0);
    while let (Some(&(x, m)), Some(&(y, n))) = (a.get(i), b.get(j)) {
        match x.cmp(&y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                sum += m.min(n);
                i += 1;
                j += 1;
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlaps_are_counters_intersections() {
        let mut values = Values::new();
        let (a, total_a) = values.count(["x", "y", "x", "z"]);
        let (b, total_b) = values.count(["x", "x", "x", "w", "z"]);
        assert_eq!((total_a, total_b), (4, 5));
        // Counter("xyxz") & Counter("xxxwz") = {x: 2, z: 1}
        assert_eq!(common(&a, &b), 3);
        assert_eq!(common(&b, &a), 3);
        let (empty, none) = values.count(Vec::<&str>::new());
        assert_eq!((common(&a, &empty), none), (0, 0));
        // the same value has one number in every row
        assert_eq!(a[0].0, b[0].0);
    }
}
