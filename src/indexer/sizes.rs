//! The sizes of the sameAs classes an index build finds, as its metadata
//! reports them: a histogram in size buckets and the ten largest classes
//! with their first members.

use super::*;

/// The sizes of the sameAs classes, as the index's metadata reports them.
#[derive(Default)]
pub(super) struct ClassSizes {
    /// Class size → how many classes have it.
    histogram: BTreeMap<u64, u64>,
    /// The ten largest classes: (size, id, first members).
    largest: Vec<(u64, u32, Vec<String>)>,
}

impl ClassSizes {
    /// Counts a class, keeping it (with its first five members) while it is
    /// among the ten largest, the larger first, then the lower id.
    pub(super) fn add(&mut self, class: &closure::FinishedClass<'_>) {
        let size = class.written.len() as u64;
        *self.histogram.entry(size).or_default() += 1;
        let largest = &mut self.largest;
        if largest.len() < 10 || size > largest[largest.len() - 1].0 {
            let sample = class
                .written
                .iter()
                .take(5)
                .map(std::string::ToString::to_string)
                .collect();
            largest.push((size, class.id, sample));
            largest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            largest.truncate(10);
        }
    }

    /// The histogram with its sizes in buckets ([`size_bucket`]): how many
    /// classes in each, smallest sizes first.
    pub(super) fn buckets(&self) -> Vec<(String, u64)> {
        let mut buckets: Vec<(String, u64)> = Vec::new();
        for (&size, &n) in &self.histogram {
            let b = size_bucket(size);
            match buckets.last_mut() {
                Some((last, total)) if *last == b => *total += n,
                _ => buckets.push((b, n)),
            }
        }
        buckets
    }

    /// The largest classes, as the metadata lists them.
    pub(super) fn largest(self) -> Vec<LargeClass> {
        self.largest
            .into_iter()
            .map(|(size, id, sample)| LargeClass { id, size, sample })
            .collect()
    }
}
