//! The in-process caches of the sameAs lookups: recent answers by a 64-bit
//! key (an IRI's hash, a class id) in a direct-mapped table of sharded
//! slots, one memory access to find or miss and nothing allocated to
//! remember (docs/benchmarks.md, Lookups, measures them against the probes).

use std::sync::Mutex;

/// Shards of each cache (threads of a server rarely wait on one another).
const SHARDS: usize = 16;

/// The slots of one shard: a key and its value, or nothing.
type Slots<V> = Vec<Option<(u64, V)>>;

/// Recent answers by a 64-bit key in a direct-mapped cache: each key has one
/// slot, and a newer key of the same slot replaces the older. One memory access
/// to find or miss, nothing allocated to remember; a shard's slots are made at
/// its first use, so an index asked little costs little memory.
pub(super) struct Recent<V> {
    shards: Vec<Mutex<Slots<V>>>,
    slots_per_shard: usize,
}

impl<V: Clone> Recent<V> {
    pub(super) fn new(slots: usize) -> Recent<V> {
        Recent {
            shards: (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect(),
            slots_per_shard: (slots / SHARDS).max(1),
        }
    }

    /// The shard and slot of a key: IRI keys are hashes and class ids dense,
    /// so their low bits spread them.
    fn place(&self, key: u64) -> (usize, usize) {
        let shard = (key % SHARDS as u64) as usize;
        let slot = ((key / SHARDS as u64) % self.slots_per_shard as u64) as usize;
        (shard, slot)
    }

    pub(super) fn get(&self, key: u64) -> Option<V> {
        let (shard, slot) = self.place(key);
        let slots = self.shards[shard].lock().ok()?;
        match slots.get(slot) {
            Some(Some((k, v))) if *k == key => Some(v.clone()),
            _ => None,
        }
    }

    /// `f` of the value kept for `key`, read in place (nothing cloned but
    /// what `f` returns).
    pub(super) fn read<R>(&self, key: u64, f: impl FnOnce(&V) -> R) -> Option<R> {
        let (shard, slot) = self.place(key);
        let slots = self.shards[shard].lock().ok()?;
        match slots.get(slot) {
            Some(Some((k, v))) if *k == key => Some(f(v)),
            _ => None,
        }
    }

    pub(super) fn insert(&self, key: u64, value: V) {
        let (shard, slot) = self.place(key);
        let Ok(mut slots) = self.shards[shard].lock() else {
            return;
        };
        if slots.is_empty() {
            slots.resize_with(self.slots_per_shard, || None);
        }
        slots[slot] = Some((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_answers_keep_one_key_a_slot() {
        let recent: Recent<u32> = Recent::new(4 * SHARDS);
        assert_eq!(recent.get(7), None);
        recent.insert(7, 70);
        assert_eq!(recent.get(7), Some(70));
        // 7 + 4 × SHARDS has the same shard and slot: it replaces 7
        let same = 7 + 4 * SHARDS as u64;
        assert_eq!(recent.place(same), recent.place(7));
        recent.insert(same, 71);
        assert_eq!((recent.get(7), recent.get(same)), (None, Some(71)));
        // another slot of the shard is kept apart
        recent.insert(7 + SHARDS as u64, 72);
        assert_eq!(recent.get(same), Some(71));
        let slots = recent.shards[7].lock().expect("lock");
        assert_eq!(slots.len(), 4, "bounded: the slots made at first use");
    }
}
