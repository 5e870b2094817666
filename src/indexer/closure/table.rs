//! The key table of the closure: an open-addressing hash table from the 64-bit
//! key of a canonical IRI to its node, grown ahead of need (its next size made
//! ready on a thread of its own) and sorted in its own memory when the closure
//! finishes.

/// Memory made ready on a thread of its own: zeroes whose pages are already
/// touched, so that the reading thread, the busiest, does not pay for fresh
/// pages when the key table doubles or the text needs a new chunk (see
/// docs/benchmarks.md for what fresh pages cost on a virtual machine). Dropped
/// before it is taken, the work stops and the memory is freed.
pub(super) struct Ahead<T> {
    pub(super) handle: Option<std::thread::JoinHandle<Option<T>>>,
    pub(super) cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<T: Send + 'static> Ahead<T> {
    /// Starts `make` (given a flag that says to stop) on a thread of its own.
    pub(super) fn start(
        make: impl FnOnce(&std::sync::atomic::AtomicBool) -> Option<T> + Send + 'static,
    ) -> Ahead<T> {
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = cancel.clone();
        let handle = std::thread::Builder::new()
            .name("qajudge-ahead".into())
            .spawn(move || make(&flag))
            .ok();
        Ahead { handle, cancel }
    }

    /// Whether what is made is ready (taking it would not wait).
    pub(super) fn ready(&self) -> bool {
        self.handle
            .as_ref()
            .is_none_or(std::thread::JoinHandle::is_finished)
    }

    /// What was made (waiting for it); `None` when the thread could not run.
    pub(super) fn take(mut self) -> Option<T> {
        self.handle.take()?.join().ok().flatten()
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `n` copies of `value`, every page written (not a zeroed allocation, whose
/// pages the kernel would hand out only at their first touch); `None` once
/// `cancel` is set.
pub(super) fn touched<T: Copy>(
    n: usize,
    value: T,
    cancel: &std::sync::atomic::AtomicBool,
) -> Option<Vec<T>> {
    let mut v = Vec::with_capacity(n);
    // a value the compiler cannot see, so that writing zeroes is not turned into
    // a zeroed allocation
    let value = std::hint::black_box(value);
    while v.len() < n {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let step = (n - v.len()).min(1 << 18);
        v.resize(v.len() + step, value);
    }
    Some(v)
}

/// Tables that grow to fewer than twice this many slots grow without help:
/// their memory is small.
pub(super) const AHEAD_MIN_SLOTS: usize = 1 << 20;

/// Tables of more slots than this grow without help too: a next size made ahead
/// for nothing (a build that ends before it is needed) would raise the peak of
/// the largest builds by twice the table.
pub(super) const AHEAD_MAX_SLOTS: usize = 1 << 25;

/// An open-addressing map from key to node id with linear probing, where a key's
/// home slot is given by its top bits, so that the slots hold the keys almost in
/// order (see [`Table::into_sorted`]).
pub(super) struct Table {
    pub(super) keys: Vec<u64>,
    pub(super) nodes: Vec<u32>,
    pub(super) shift: u32,
    pub(super) len: usize,
    /// The next size's memory, made ahead once the table is 70% full (only
    /// for tables of up to [`AHEAD_MAX_SLOTS`] slots that grow to twice
    /// [`AHEAD_MIN_SLOTS`] or more).
    pub(super) next: Option<Ahead<(Vec<u64>, Vec<u32>)>>,
    /// The slots of the memory being made ahead.
    pub(super) next_slots: usize,
    /// Keys the whole input is expected to hold (0 when not known).
    pub(super) expected: usize,
}

/// The key that marks an empty slot (a real key of 0 is stored as 1).
pub(super) const EMPTY: u64 = 0;

impl Table {
    pub(super) fn with_bits(bits: u32) -> Table {
        Table::from_parts(vec![EMPTY; 1 << bits], vec![0; 1 << bits])
    }

    /// An empty table on `keys` and `nodes` (all empty, of one power-of-two length).
    pub(super) fn from_parts(keys: Vec<u64>, nodes: Vec<u32>) -> Table {
        Table {
            shift: 64 - keys.len().trailing_zeros(),
            keys,
            nodes,
            len: 0,
            next: None,
            next_slots: 0,
            expected: 0,
        }
    }

    /// The size to grow to: the next one, or, when more keys are expected, the
    /// one that holds them (up to [`AHEAD_MAX_SLOTS`]), so that a large build
    /// skips the sizes between, each of which would be made, filled and freed.
    pub(super) fn slots_to_grow_to(&self) -> usize {
        let mut slots = 2 * self.keys.len();
        while slots < AHEAD_MAX_SLOTS && self.expected.saturating_mul(8) > slots * 7 {
            slots *= 2;
        }
        slots
    }

    pub(super) fn home(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    /// The node of a key, inserting `next` when the key is new.
    pub(super) fn get_or_insert(&mut self, key: u64, next: u32) -> (u32, bool) {
        let key = key.max(1);
        if (self.len + 1) * 8 > self.keys.len() * 7 {
            self.grow();
        } else if self.next.is_none()
            && self.len * 10 > self.keys.len() * 7
            && self.keys.len() <= AHEAD_MAX_SLOTS
            && self.slots_to_grow_to() >= 2 * AHEAD_MIN_SLOTS
        {
            // 70% full, four fifths of the way to 7/8
            let slots = self.slots_to_grow_to();
            self.next_slots = slots;
            self.next = Some(Ahead::start(move |cancel| {
                Some((touched(slots, EMPTY, cancel)?, touched(slots, 0, cancel)?))
            }));
        }
        let mask = self.keys.len() - 1;
        let mut slot = self.home(key);
        loop {
            let k = self.keys[slot];
            if k == key {
                return (self.nodes[slot], false);
            }
            if k == EMPTY {
                self.keys[slot] = key;
                self.nodes[slot] = next;
                self.len += 1;
                return (next, true);
            }
            slot = (slot + 1) & mask;
        }
    }

    pub(super) fn grow(&mut self) {
        let double = 2 * self.keys.len();
        // memory made ahead for a size past the next one is not waited for: the
        // table doubles meanwhile, and takes it at a later growth
        let (made, kept) = match self.next.take() {
            Some(ahead) if self.next_slots == double || ahead.ready() => (ahead.take(), None),
            other => (None, other),
        };
        let mut new = match made {
            Some((keys, nodes))
                if keys.len() >= double
                    && keys.len().is_power_of_two()
                    && nodes.len() == keys.len() =>
            {
                Table::from_parts(keys, nodes)
            }
            _ => Table::from_parts(vec![EMPTY; double], vec![0; double]),
        };
        new.expected = self.expected;
        if kept.is_some() {
            new.next = kept;
            new.next_slots = self.next_slots;
        }
        let old = std::mem::replace(self, new);
        let mask = self.keys.len() - 1;
        for (key, node) in old.keys.into_iter().zip(old.nodes) {
            if key == EMPTY {
                continue;
            }
            let mut slot = self.home(key);
            while self.keys[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            self.keys[slot] = key;
            self.nodes[slot] = node;
        }
        self.len = old.len;
    }

    /// Reads the home slots of keys, so that the cache misses of a group of
    /// lookups overlap before the lookups themselves.
    pub(super) fn touch(&self, keys: impl Iterator<Item = u64>) {
        let mut seen = 0u64;
        for key in keys {
            seen ^= self.keys[self.home(key.max(1))];
        }
        std::hint::black_box(seen);
    }

    /// Moves every (key, node) to the front of the slots, in increasing key order
    /// (in place: no second copy of the keys), sorting only the short runs
    /// between empty slots; the table is not a map any more. Returns the keys
    /// and nodes, each `len` long.
    pub(super) fn into_sorted(mut self) -> (Vec<u64>, Vec<u32>) {
        let mut run: Vec<(u64, u32)> = Vec::new();
        let mut wrapped: Vec<(u64, u32)> = Vec::new();
        let mut first_run = true;
        // entries are written back only after they are read, and never past the
        // slot being read: `out` counts entries written, all read from slots up
        // to this one
        let mut out = 0;
        let mut put = |keys: &mut [u64], nodes: &mut [u32], run: &mut Vec<(u64, u32)>| {
            run.sort_unstable();
            for &(k, n) in run.iter() {
                keys[out] = k;
                nodes[out] = n;
                out += 1;
            }
            run.clear();
        };
        for slot in 0..self.keys.len() {
            let key = self.keys[slot];
            if key == EMPTY {
                first_run = false;
                put(&mut self.keys, &mut self.nodes, &mut run);
            } else if first_run && self.home(key) > slot {
                // probed past the end of the table and wrapped to its start
                wrapped.push((key, self.nodes[slot]));
            } else {
                run.push((key, self.nodes[slot]));
            }
        }
        run.extend(wrapped);
        put(&mut self.keys, &mut self.nodes, &mut run);
        self.keys.truncate(self.len);
        self.nodes.truncate(self.len);
        (
            std::mem::take(&mut self.keys),
            std::mem::take(&mut self.nodes),
        )
    }
}
