//! The equivalence closure: a union-find over the 64-bit keys of canonical IRIs
//! (`index::hash::iri_key`), with every spelling an IRI was written in kept once,
//! and the finished classes handed out in a deterministic order (by a mix of the
//! smallest key of each class), whatever the order of statements and files.
//!
//! Memory per IRI: the key table (12 bytes a slot, at most 7/8 full), parent, rank
//! and a 32-bit check hash (9 bytes), one bit. The spellings are records (a
//! 6-byte head, 11 bytes for texts of 127 bytes or more, then the text) in chunks of text that never move, held in
//! memory up to a budget and then spilled, chunk by chunk, to files in a
//! directory the caller gives; finishing sorts them in partitions of about the budget's size, so the
//! text of a dump of any size costs disk, not memory. Finishing also sorts the
//! keys in the key table's own memory (on a thread of its own while the forest
//! is flattened); when the text was spilled it writes them in order to a file
//! and frees the table before grouping, so that a large build peaks while
//! reading. Once flattened, the classes are numbered densely, so that what
//! finishing keeps per class (its key, then its id and size, and the count of
//! its spellings) is in arrays a fifth the size of arrays per node.
//! Spellings held in memory are grouped by a counting sort per class; the keys
//! are handed out as two streams, one per half of the key space, so that two
//! table writers can work at once. The memory of the key table's next size and
//! of the next chunk of text is made ready (its pages touched) on a thread of
//! its own, ahead of need, so that the reading thread does not wait for the
//! kernel to hand out fresh pages; once the caller has said how much of the
//! input is read, the key table's next size is the one the whole input is
//! expected to need, skipping the sizes between.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::read::read_full;

/// One end of an equivalence link.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint<'a> {
    /// The key of its canonical form.
    pub key: u64,
    /// A second, independent hash of its canonical form: two IRIs with one key
    /// but different checks are a key collision, counted and reported.
    pub check: u32,
    /// The IRI as written.
    pub written: &'a str,
    /// Whether the written IRI is its canonical form.
    pub canonical: bool,
}

/// Memory made ready on a thread of its own: zeroes whose pages are already
/// touched. Fresh pages are dear on this kind of machine (a virtual machine
/// whose balloon device reports free memory to the host, which takes it back
/// after a few seconds): the first touch of memory the host took back cost 4.2 s
/// per GB (measured: 3 GB of huge pages in 12.8 s after 20 s idle, 1.0 s right
/// after another process freed as much), and the reading thread, the busiest, is
/// the one that would pay it when the key table doubles or the text needs a new
/// chunk; made ahead, it pays only the copy. Dropped before it is taken, the
/// work stops and the memory is freed.
struct Ahead<T> {
    handle: Option<std::thread::JoinHandle<Option<T>>>,
    cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl<T: Send + 'static> Ahead<T> {
    /// Starts `make` (given a flag that says to stop) on a thread of its own.
    fn start(
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
    fn ready(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// What was made (waiting for it); `None` when the thread could not run.
    fn take(mut self) -> Option<T> {
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
fn touched<T: Copy>(n: usize, value: T, cancel: &std::sync::atomic::AtomicBool) -> Option<Vec<T>> {
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
const AHEAD_MIN_SLOTS: usize = 1 << 20;

/// Tables of more slots than this grow without help too: a build that ends
/// between 70% and 7/8 full has made its next size for nothing, and for the
/// largest builds that would raise the peak by twice the table (the next size
/// of 2²⁵ slots is 768 MB; that of 2²⁸ would be 6 GB).
const AHEAD_MAX_SLOTS: usize = 1 << 25;

/// An open-addressing map from key to node id with linear probing, where a key's
/// home slot is given by its top bits, so that the slots hold the keys almost in
/// order (see [`Table::into_sorted`]).
struct Table {
    keys: Vec<u64>,
    nodes: Vec<u32>,
    shift: u32,
    len: usize,
    /// The next size's memory, made ahead once the table is 70% full (only
    /// for tables of up to [`AHEAD_MAX_SLOTS`] slots that grow to twice
    /// [`AHEAD_MIN_SLOTS`] or more).
    next: Option<Ahead<(Vec<u64>, Vec<u32>)>>,
    /// The slots of the memory being made ahead.
    next_slots: usize,
    /// Keys the whole input is expected to hold (0 when not known).
    expected: usize,
}

/// The key that marks an empty slot (a real key of 0 is stored as 1).
const EMPTY: u64 = 0;

impl Table {
    fn with_bits(bits: u32) -> Table {
        Table::from_parts(vec![EMPTY; 1 << bits], vec![0; 1 << bits])
    }

    /// An empty table on `keys` and `nodes` (all empty, of one power-of-two length).
    fn from_parts(keys: Vec<u64>, nodes: Vec<u32>) -> Table {
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
    /// skips the sizes between (each made, filled and freed for nothing: 350 MB
    /// and 27 M moved keys for 18 M keys).
    fn slots_to_grow_to(&self) -> usize {
        let mut slots = 2 * self.keys.len();
        while slots < AHEAD_MAX_SLOTS && self.expected.saturating_mul(8) > slots * 7 {
            slots *= 2;
        }
        slots
    }

    fn home(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    /// The node of a key, inserting `next` when the key is new.
    fn get_or_insert(&mut self, key: u64, next: u32) -> (u32, bool) {
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

    fn grow(&mut self) {
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
    fn touch(&self, keys: impl Iterator<Item = u64>) {
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
    fn into_sorted(mut self) -> (Vec<u64>, Vec<u32>) {
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

/// Links whose memory is read ahead together in [`Closure::link_all`].
const AHEAD: usize = 32;

/// Bytes of one chunk of an [`Arena`].
const CHUNK_BYTES: usize = 32 << 20;

/// Bytes of the longest head of a spelling record: the node as five 7-bit
/// digits (least significant first), then the text's length, one byte when it
/// is below [`LONG`] (almost every IRI), else [`LONG`] and five 7-bit digits; so
/// that a chunk of records stays valid UTF-8 and its text is read back without
/// checks.
const HEAD: usize = 11;

/// Bytes of the head of a record whose text is shorter than [`LONG`].
const SHORT_HEAD: usize = 6;

/// The length byte that says five digits of length follow.
const LONG: u8 = 0x7f;

/// The head of a spelling record, and its length.
fn head(node: u32, len: u32) -> ([u8; HEAD], usize) {
    let digits = |v: u32, out: &mut [u8]| {
        for (i, d) in out.iter_mut().enumerate() {
            *d = ((v >> (7 * i)) & 0x7f) as u8;
        }
    };
    let mut h = [0u8; HEAD];
    digits(node, &mut h[..5]);
    if len < u32::from(LONG) {
        h[5] = len as u8;
        return (h, SHORT_HEAD);
    }
    h[5] = LONG;
    digits(len, &mut h[SHORT_HEAD..]);
    (h, HEAD)
}

/// The node, the text's length and the head's length of the record head at the
/// start of `h` (`None` when `h` ends first).
fn read_head(h: &[u8]) -> Option<(u32, u32, usize)> {
    let digits = |d: &[u8]| (0..5).fold(0u32, |v, i| v | (u32::from(d[i] & 0x7f) << (7 * i)));
    let node = digits(h.get(..5)?);
    match *h.get(5)? {
        LONG => Some((node, digits(h.get(SHORT_HEAD..HEAD)?), HEAD)),
        len => Some((node, u32::from(len), SHORT_HEAD)),
    }
}

/// Text in chunks that never move: appending never copies what is held (a
/// growing `String` or `Vec` copies all of it, into pages the kernel must first
/// zero, at every doubling, which cost a third of the reading thread's time), and
/// chunks emptied by [`Arena::clear`] are filled again without new page faults.
/// Spellings are kept in it as records (a head, then the text), one after the
/// other, so that they need no table of their own.
#[derive(Default)]
struct Arena {
    chunks: Vec<String>,
    /// Chunks in use: the last of them is being filled.
    used: usize,
    /// Bytes held.
    len: usize,
    /// The next chunk, made ahead once the arena has grown past one chunk.
    next: Option<Ahead<String>>,
}

impl Arena {
    /// An arena of one chunk holding `text`.
    fn from_text(text: String) -> Arena {
        let len = text.len();
        Arena {
            chunks: vec![text],
            used: 1,
            len,
            next: None,
        }
    }

    /// The chunk to append `bytes` bytes to, and its number.
    fn room(&mut self, bytes: usize) -> (usize, &mut String) {
        let fits = |c: &String| c.capacity() - c.len() >= bytes;
        if self.used == 0 || !fits(&self.chunks[self.used - 1]) {
            if self.used < self.chunks.len() && fits(&self.chunks[self.used]) {
                self.used += 1;
            } else {
                let chunk = match self.next.take().and_then(Ahead::take) {
                    Some(c) if c.capacity() >= bytes => c,
                    _ => String::with_capacity(CHUNK_BYTES.max(bytes)),
                };
                self.chunks.insert(self.used, chunk);
                self.used += 1;
                if self.chunks.len() >= 2 {
                    self.next = Some(Ahead::start(|cancel| {
                        let mut chunk = String::from_utf8(touched(CHUNK_BYTES, 0, cancel)?).ok()?;
                        chunk.clear();
                        Some(chunk)
                    }));
                }
            }
        }
        self.len += bytes;
        (self.used - 1, &mut self.chunks[self.used - 1])
    }

    /// Appends the spelling record of `node`: its head, then `text`.
    fn push_record(&mut self, node: u32, text: &str) {
        let (h, head_len) = head(node, text.len() as u32);
        let (_, chunk) = self.room(head_len + text.len());
        // a head is ASCII (7-bit digits): one copy instead of a push per byte
        if let Ok(h) = std::str::from_utf8(&h[..head_len]) {
            chunk.push_str(h);
        }
        chunk.push_str(text);
    }

    /// The text of `len` bytes at `at`: chunk (high half), offset (low half).
    fn get(&self, at: u64, len: u32) -> &str {
        let start = at as u32 as usize;
        &self.chunks[(at >> 32) as usize][start..start + len as usize]
    }

    /// Whether every record's place fits in 32 bits ([`Arena::small_place`]).
    fn small_places(&self) -> bool {
        self.used <= 1 << SMALL_CHUNK_BITS
            && self.chunks[..self.used]
                .iter()
                .all(|c| c.len() <= 1 << SMALL_OFFSET_BITS)
    }

    /// A record's place (as [`Arena::for_each_record`] gives it) in 32 bits,
    /// when [`Arena::small_places`]: the chunk in the high bits, the offset in
    /// the low ones.
    fn small_place(at: u64) -> u32 {
        ((at >> 32) as u32) << SMALL_OFFSET_BITS | (at as u32)
    }

    /// The place of 64 bits of a place of 32 ([`Arena::small_place`]).
    fn from_small_place(small: u32) -> u64 {
        (u64::from(small >> SMALL_OFFSET_BITS) << 32)
            | u64::from(small & ((1 << SMALL_OFFSET_BITS) - 1))
    }

    /// The text of the record at `at` (as [`Arena::for_each_record`] gives it).
    fn record_text(&self, at: u64) -> &str {
        let chunk = &self.chunks[(at >> 32) as usize];
        let start = at as u32 as usize;
        let (_, len, head_len) = read_head(&chunk.as_bytes()[start..]).unwrap_or_default();
        let text = start + head_len;
        &chunk[text..text + len as usize]
    }

    /// Calls `f` with every record held, in the order appended: where it is
    /// and its node (a loop per chunk: an iterator flattened over the chunks
    /// was a tenth of the grouping).
    fn for_each_record(&self, mut f: impl FnMut(u64, u32)) {
        for (c, chunk) in self.chunks[..self.used].iter().enumerate() {
            let bytes = chunk.as_bytes();
            let mut at = 0;
            while let Some((node, len, head_len)) = bytes.get(at..).and_then(read_head) {
                f(((c as u64) << 32) | at as u64, node);
                at += head_len + len as usize;
            }
        }
    }

    /// The bytes held, chunk by chunk.
    fn held_bytes(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.chunks[..self.used].iter().map(|c| c.as_bytes())
    }

    /// Forgets the text, keeping the chunks to be filled again.
    fn clear(&mut self) {
        for c in &mut self.chunks[..self.used] {
            c.clear();
        }
        self.used = 0;
        self.len = 0;
    }
}

/// Bits of the offset in a record's place of 32 bits (chunks are no larger).
const SMALL_OFFSET_BITS: u32 = 25;

/// Bits of the chunk in a record's place of 32 bits.
const SMALL_CHUNK_BITS: u32 = 32 - SMALL_OFFSET_BITS;

// chunks of the usual size have places of 32 bits
const _: () = assert!(CHUNK_BYTES <= 1 << SMALL_OFFSET_BITS);

/// Spellings waiting for the classes to be known: records in memory up to a
/// budget, then in spill files of the same records.
struct Spill {
    budget: usize,
    dir: Option<PathBuf>,
    files: Vec<PathBuf>,
    bytes_on_disk: u64,
    arena: Arena,
}

impl Spill {
    fn push(&mut self, node: u32, written: &str) -> std::io::Result<()> {
        self.arena.push_record(node, written);
        if self.dir.is_some() && self.arena.len > self.budget {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what is in memory to a new spill file.
    fn flush(&mut self) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        if self.arena.len == 0 {
            return Ok(());
        }
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("spill-{}", self.files.len()));
        let mut w = File::create(&path)?;
        for bytes in self.arena.held_bytes() {
            w.write_all(bytes)?;
        }
        self.bytes_on_disk += self.arena.len as u64;
        self.files.push(path);
        self.arena.clear();
        Ok(())
    }
}

/// The union-find being built.
pub struct Closure {
    table: Table,
    parent: Vec<u32>,
    rank: Vec<u8>,
    check: Vec<u32>,
    /// One bit per node: its canonical spelling is kept.
    canonical_kept: Vec<u64>,
    spill: Spill,
    collisions: u64,
}

impl Closure {
    /// A closure that holds up to `budget` bytes of spellings in memory and then
    /// spills them into `dir` (never, when `dir` is `None`).
    pub fn new(budget: usize, dir: Option<PathBuf>) -> Closure {
        Closure {
            table: Table::with_bits(10),
            parent: Vec::new(),
            rank: Vec::new(),
            check: Vec::new(),
            canonical_kept: Vec::new(),
            spill: Spill {
                budget,
                dir,
                files: Vec::new(),
                bytes_on_disk: 0,
                arena: Arena::default(),
            },
            collisions: 0,
        }
    }
}

impl Default for Closure {
    fn default() -> Self {
        Closure::new(usize::MAX, None)
    }
}

/// One finished class.
pub struct FinishedClass<'a> {
    /// Its id (classes are numbered from 0 in the order they are handed out).
    pub id: u32,
    /// Its IRIs as written, distinct and sorted.
    pub written: &'a [&'a str],
}

/// What [`Closure::finish`] found besides the classes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Finished {
    /// Classes of two or more IRIs as written.
    pub classes: u64,
    /// Distinct IRIs (as written) in those classes.
    pub iris: u64,
    /// Keys shared by two different canonical IRIs (the two were merged).
    pub key_collisions: u64,
}

impl Closure {
    /// The node of an endpoint's key, created when the key is new.
    fn node(&mut self, e: &Endpoint<'_>) -> u32 {
        let next = self.parent.len() as u32;
        let (node, new) = self.table.get_or_insert(e.key, next);
        if new {
            self.parent.push(node);
            self.rank.push(0);
            self.check.push(e.check);
            if node as usize / 64 >= self.canonical_kept.len() {
                self.canonical_kept.push(0);
            }
        }
        node
    }

    /// Checks an endpoint against its node's check hash and keeps its spelling
    /// (the canonical one once).
    fn spelling(&mut self, node: u32, e: &Endpoint<'_>) -> std::io::Result<()> {
        if self.check[node as usize] != e.check {
            self.collisions += 1;
        }
        let (word, bit) = (node as usize / 64, 1u64 << (node % 64));
        if e.canonical {
            if self.canonical_kept[word] & bit != 0 {
                return Ok(());
            }
            self.canonical_kept[word] |= bit;
        }
        self.spill.push(node, e.written)
    }

    /// Tells how much of the input has been read (`done` of `total`, in bytes
    /// say): once a 64th of it is, the key table grows straight to the size
    /// the whole input is expected to need instead of one doubling at a time.
    pub fn read_so_far(&mut self, done: u64, total: u64) {
        if done > 0 && done >= total / 64 {
            let expected = u128::from(total) * self.table.len as u128 / u128::from(done);
            self.table.expected = usize::try_from(expected).unwrap_or(usize::MAX);
        }
    }

    fn find(&mut self, x: u32) -> u32 {
        find(&mut self.parent, x)
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (rka, rkb) = (self.rank[ra as usize], self.rank[rb as usize]);
        if rka < rkb {
            self.parent[ra as usize] = rb;
        } else {
            self.parent[rb as usize] = ra;
            if rka == rkb {
                self.rank[ra as usize] = rka.saturating_add(1);
            }
        }
    }

    /// Records that the two IRIs of each link name the same thing (an error is a
    /// spill file that cannot be written); the outcome does not depend on how links
    /// are grouped into calls. The table slots and the forest entries they need are all over memory:
    /// they are read ahead in groups, so that the cache misses of a group overlap
    /// instead of coming one after the other.
    pub fn link_all(&mut self, links: &[(Endpoint<'_>, Endpoint<'_>)]) -> std::io::Result<()> {
        let mut nodes = [0u32; 2 * AHEAD];
        for group in links.chunks(AHEAD) {
            self.table
                .touch(group.iter().flat_map(|(a, b)| [a.key, b.key]));
            for (i, (a, b)) in group.iter().enumerate() {
                nodes[2 * i] = self.node(a);
                nodes[2 * i + 1] = self.node(b);
            }
            let nodes = &nodes[..2 * group.len()];
            let mut seen = 0u32;
            for &n in nodes {
                seen ^= self.parent[n as usize] ^ self.check[n as usize];
            }
            std::hint::black_box(seen);
            for (pair, (a, b)) in nodes.chunks_exact(2).zip(group) {
                self.spelling(pair[0], a)?;
                self.spelling(pair[1], b)?;
                self.union(pair[0], pair[1]);
            }
        }
        Ok(())
    }

    /// Finishes the closure: `on_class` gets every class of two or more IRIs as
    /// written, numbered from 0 in an order that depends only on the classes (that
    /// of a bijective mix of each class's smallest key); then
    /// `on_key` gets every canonical key of those classes with its class id and
    /// class size, and the half of the key space it is in (0 for keys below 2⁶³,
    /// 1 for the rest): the keys of each half come in increasing order, the two
    /// halves in turns. Errors of the callbacks stop it; errors
    /// of the spill files are handed to `io`; `phase` is told when grouping the
    /// classes starts (the forest is flattened and the memory made ahead for
    /// reading is freed by then; a spilled build has freed its key table and
    /// text buffer too) and when handing out the keys starts.
    pub fn finish<E>(
        mut self,
        on_class: &mut dyn FnMut(FinishedClass<'_>) -> Result<(), E>,
        on_key: &mut dyn FnMut(usize, u64, u32, u32) -> Result<(), E>,
        io: &dyn Fn(std::io::Error) -> E,
        phase: &mut dyn FnMut(&str),
    ) -> Result<Finished, E> {
        // memory made ahead for more reading is not needed
        self.table.next = None;
        self.spill.arena.next = None;
        let n = self.parent.len();
        if n > CLASS as usize {
            return Err(io(std::io::Error::other(format!(
                "the closure holds {n} distinct IRIs, more than the {CLASS} it can number: build separate indexes from parts of the input"
            ))));
        }
        let spilled = !self.spill.files.is_empty();
        self.rank = Vec::new();
        // the keys in key order with their nodes are all the last pass needs of
        // the table: they are sorted in the table's own memory, on a thread of
        // their own while the forest is flattened (after reading, the other
        // core is idle)
        let table = std::mem::replace(&mut self.table, Table::with_bits(1));
        let parent = &mut self.parent;
        // (a thread that cannot start leaves the table for this one to sort)
        let table = std::sync::Mutex::new(Some(table));
        let sort = || table.lock().ok()?.take().map(Table::into_sorted);
        let (classes, sorted) = std::thread::scope(|scope| {
            let sorting = std::thread::Builder::new()
                .name("qajudge-sort".into())
                .spawn_scoped(scope, sort);
            flatten(parent);
            // from here on `parent` gives each node's class number
            let classes = number_classes(parent);
            let sorted = match sorting {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => sort(),
            };
            (classes, sorted)
        });
        let Some((sorted, mut of_key)) = sorted else {
            return Err(io(std::io::Error::other("the key table was not sorted")));
        };
        // a build held in memory reuses the check hashes' memory to group classes;
        // a spilled (large) one frees it before the key table's last pass
        if spilled {
            self.check = Vec::new();
        }
        self.canonical_kept = Vec::new();
        // the smallest key of each class, then mixed (a bijection) so that class
        // keys spread evenly: classes are handed out in the order of their mixed
        // keys, and spilled spellings are partitioned by them
        let mut class_key = vec![u64::MAX; classes];
        let class_of = &self.parent;
        // in batches: the nodes of keys in key order are all over `class_of`, and
        // loads that do not wait on each other overlap
        for (keys, of_key) in sorted.chunks(GATHER).zip(of_key.chunks_mut(GATHER)) {
            for node in of_key.iter_mut() {
                *node = class_of[*node as usize];
            }
            for (&key, &class) in keys.iter().zip(of_key.iter()) {
                let k = &mut class_key[class as usize];
                if *k == u64::MAX {
                    *k = key;
                }
            }
        }
        let below = sorted.partition_point(|&key| key >> 63 == 0);
        // when the text was spilled (a large build) they go to a file, so that
        // their memory is free while classes are grouped
        let keys = if !spilled {
            SortedKeys::Memory {
                keys: sorted,
                classes: of_key,
                below,
            }
        } else {
            let dir = self.spill.dir.as_deref().unwrap_or(Path::new("."));
            SortedKeys::to_file(dir.join("keys"), &sorted, &of_key, below).map_err(io)?
        };
        for k in class_key.iter_mut() {
            if *k != u64::MAX {
                *k = mix(*k);
            }
        }
        if spilled {
            self.spill.flush().map_err(io)?;
            // the in-memory buffer (up to the budget) is not needed any more
            self.spill.arena = Arena::default();
        }
        // what is held from here on is below the peak of reading (a spilled
        // build has freed its key table and text buffer)
        phase(GROUPING);
        let mut found = Finished {
            key_collisions: self.collisions,
            ..Finished::default()
        };
        // from here on class_key[class] becomes the class id (high half) and size
        // (low half), or u64::MAX for a class of fewer than two spellings
        let mut groups = Groups {
            on_class,
            found: &mut found,
            class_info: &mut class_key,
        };
        // the spellings held in memory, or in partition files by class key
        let parts = if !spilled {
            // the check hashes' memory, already in place, counts spellings per class
            let mut counts = std::mem::take(&mut self.check);
            counts.truncate(classes);
            counts.fill(0);
            groups.emit_held(&self.spill.arena, &self.parent, counts)?;
            Vec::new()
        } else {
            partition(&self.spill, groups.class_info, &self.parent).map_err(io)?
        };
        // the partitions name their classes: the forest is not needed any more
        self.parent = Vec::new();
        for part in parts {
            let (mut records, text) = read_partition(&part).map_err(io)?;
            std::fs::remove_file(&part).map_err(io)?;
            groups.emit(&mut records, &text)?;
        }
        self.spill.arena = Arena::default();
        phase("writing the IRI table");
        // the two halves of the key space in turns, a group at a time, so that two
        // consumers can write them at once
        let mut streams = keys.streams().map_err(io)?;
        let mut live = [true; 2];
        let mut batch_keys = Vec::with_capacity(GATHER);
        let mut batch_classes = Vec::with_capacity(GATHER);
        let mut values = Vec::with_capacity(GATHER);
        while live.contains(&true) {
            for (half, stream) in streams.iter_mut().enumerate() {
                if !live[half] {
                    continue;
                }
                live[half] = stream
                    .next_batch(&mut batch_keys, &mut batch_classes)
                    .map_err(io)?;
                // the gather first, on its own, so that its loads overlap
                values.clear();
                values.extend(batch_classes.iter().map(|&class| class_key[class as usize]));
                for (&value, &key) in values.iter().zip(&batch_keys) {
                    if value != u64::MAX {
                        on_key(half, key, (value >> 32) as u32, value as u32)?;
                    }
                }
            }
        }
        Ok(found)
    }
}

/// The phase [`Closure::finish`] reports when it starts grouping classes, the
/// closure itself done.
pub const GROUPING: &str = "grouping classes";

/// Nodes and classes are numbered below this: its bit marks a root while the
/// classes are numbered.
const CLASS: u32 = 1 << 31;

/// The root of `x` in a forest, halving the path to it.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

/// Makes every node of a forest point at its root.
fn flatten(parent: &mut [u32]) {
    for x in 0..parent.len() {
        let root = find(parent, x as u32);
        parent[x] = root;
    }
}

/// Numbers the classes of a flattened forest (every node's parent is its
/// root) from 0, in the order of their roots, and makes each node's entry the
/// number of its class; returns how many classes there are. Arrays by class are
/// a fifth of arrays by node (3.7 M classes for 18 M IRIs), and the passes that
/// gather from them at random miss the cache less.
fn number_classes(parent: &mut [u32]) -> usize {
    let mut classes = 0u32;
    for (x, p) in parent.iter_mut().enumerate() {
        if *p == x as u32 {
            *p = CLASS | classes;
            classes += 1;
        }
    }
    for x in 0..parent.len() {
        let p = parent[x];
        // a root's entry holds its number, marked; another node's entry names its
        // root, whose entry is its number (marked or not yet)
        parent[x] = if p & CLASS != 0 {
            p
        } else {
            parent[p as usize]
        } & !CLASS;
    }
    classes as usize
}

/// Bytes of one record of a [`SortedKeys::File`]: key u64, class u32 (little
/// endian).
const KEY_RECORD: usize = 12;

/// Entries looked up together in the passes that gather from node-indexed arrays.
const GATHER: usize = 1024;

/// The table's keys with their classes, in increasing key order: in memory, or in a
/// file of the spill directory.
enum SortedKeys {
    /// The keys, their classes, and how many keys are below 2⁶³.
    Memory {
        keys: Vec<u64>,
        classes: Vec<u32>,
        below: usize,
    },
    /// The file of records, and how many have a key below 2⁶³.
    File(PathBuf, u64),
}

impl SortedKeys {
    /// Writes the keys and their classes to a file at `path`.
    fn to_file(
        path: PathBuf,
        keys: &[u64],
        classes: &[u32],
        below: usize,
    ) -> std::io::Result<Self> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for (&key, &class) in keys.iter().zip(classes) {
            let mut record = [0u8; KEY_RECORD];
            record[..8].copy_from_slice(&key.to_le_bytes());
            record[8..].copy_from_slice(&class.to_le_bytes());
            w.write_all(&record)?;
        }
        w.flush()?;
        Ok(SortedKeys::File(path, below as u64))
    }

    /// The entries back, in key order, as two streams: those with keys below 2⁶³
    /// and the rest (a file is removed once opened).
    fn streams(&self) -> std::io::Result<[KeyStream<'_>; 2]> {
        Ok(match self {
            SortedKeys::Memory {
                keys,
                classes,
                below,
            } => {
                let (low_keys, high_keys) = keys.split_at(*below);
                let (low_classes, high_classes) = classes.split_at(*below);
                [
                    KeyStream::Slices(low_keys, low_classes),
                    KeyStream::Slices(high_keys, high_classes),
                ]
            }
            SortedKeys::File(path, below) => {
                let low = File::open(path)?;
                let mut high = File::open(path)?;
                std::fs::remove_file(path)?;
                high.seek(SeekFrom::Start(*below * KEY_RECORD as u64))?;
                let low = low.take(*below * KEY_RECORD as u64);
                let buf = || vec![0u8; GATHER * KEY_RECORD];
                [
                    KeyStream::Reader(Box::new(BufReader::with_capacity(1 << 20, low)), buf()),
                    KeyStream::Reader(Box::new(BufReader::with_capacity(1 << 20, high)), buf()),
                ]
            }
        })
    }
}

/// One half of the [`SortedKeys`], read a batch at a time.
enum KeyStream<'a> {
    /// Keys and their classes still to be read.
    Slices(&'a [u64], &'a [u32]),
    /// Records still to be read, and a buffer of one batch.
    Reader(Box<dyn Read + 'a>, Vec<u8>),
}

impl KeyStream<'_> {
    /// The next batch of up to [`GATHER`] entries, into `keys` and `classes`;
    /// `false` when the stream has ended (the batch may still hold entries).
    fn next_batch(&mut self, keys: &mut Vec<u64>, classes: &mut Vec<u32>) -> std::io::Result<bool> {
        keys.clear();
        classes.clear();
        match self {
            KeyStream::Slices(k, r) => {
                let n = k.len().min(GATHER);
                keys.extend_from_slice(&k[..n]);
                classes.extend_from_slice(&r[..n]);
                *k = &k[n..];
                *r = &r[n..];
                Ok(!k.is_empty())
            }
            KeyStream::Reader(reader, buf) => {
                let filled = read_full(reader, buf)?;
                for record in buf[..filled - filled % KEY_RECORD].chunks_exact(KEY_RECORD) {
                    let (key, class) = record.split_at(8);
                    keys.push(u64::from_le_bytes(key.try_into().expect("8 bytes")));
                    classes.push(u32::from_le_bytes(class.try_into().expect("4 bytes")));
                }
                Ok(filled == buf.len())
            }
        }
    }
}

/// SplitMix64's finaliser: a bijection of `u64` that spreads the smallest keys of
/// classes (skewed towards 0 for large classes) evenly.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A spelling with its class key and its class's number, ready to be grouped.
struct Record {
    class_key: u64,
    class: u32,
    len: u32,
    offset: u64,
}

/// Hands out classes from records grouped by class key.
struct Groups<'c, 'f, E> {
    on_class: &'c mut dyn FnMut(FinishedClass<'_>) -> Result<(), E>,
    found: &'f mut Finished,
    class_info: &'f mut [u64],
}

impl<E> Groups<'_, '_, E> {
    /// Sorts records by class key and hands out one class per key.
    fn emit(&mut self, records: &mut [Record], text: &Arena) -> Result<(), E> {
        records.sort_unstable_by_key(|r| r.class_key);
        let mut written: Vec<&str> = Vec::new();
        for group in records.chunk_by(|a, b| a.class_key == b.class_key) {
            written.clear();
            written.extend(group.iter().map(|r| text.get(r.offset, r.len)));
            self.hand_out(group[0].class, &mut written)?;
        }
        Ok(())
    }

    /// Hands out the classes of the spellings held in memory, in class-key order,
    /// grouped by a counting sort: `counts` (zeroes, one per class) counts the
    /// spellings of each class, then says where they go; only the classes of
    /// two or more spellings are sorted, and each spelling moves as the place
    /// of its record (4 bytes when the text allows, else 8) instead of a
    /// 24-byte record. The places go in `counts`' spare memory (that of the
    /// check hashes, one per node) when it has room.
    fn emit_held(&mut self, text: &Arena, class_of: &[u32], mut counts: Vec<u32>) -> Result<(), E> {
        text.for_each_record(|_, node| counts[class_of[node as usize] as usize] += 1);
        // (class key, class) of the classes of two or more spellings
        let mut classes: Vec<(u64, u32)> = Vec::with_capacity(counts.len());
        for (class, &n) in counts.iter().enumerate() {
            if n >= 2 {
                classes.push((self.class_info[class], class as u32));
            } else if n == 1 {
                self.class_info[class] = u64::MAX;
            }
        }
        classes.sort_unstable();
        let mut at = 0u32;
        for &(_, class) in &classes {
            let n = counts[class as usize];
            counts[class as usize] = at;
            at += n;
        }
        if text.small_places() {
            let held = counts.len();
            counts.resize(held + at as usize, 0);
            let (counts, order) = counts.split_at_mut(held);
            let places = (Arena::small_place, Arena::from_small_place);
            self.place_and_hand_out(text, class_of, counts, order, &classes, places)
        } else {
            let mut order = vec![0u64; at as usize];
            let places = (|p| p, |p| p);
            self.place_and_hand_out(text, class_of, &mut counts, &mut order, &classes, places)
        }
    }

    /// The end of [`Groups::emit_held`]: puts the places of the spellings in
    /// `order` by class (`counts` says where each class's go), then hands out the
    /// classes; `places` turns a record's place into an entry of `order` and back.
    fn place_and_hand_out<P: Copy>(
        &mut self,
        text: &Arena,
        class_of: &[u32],
        counts: &mut [u32],
        order: &mut [P],
        classes: &[(u64, u32)],
        places: (impl Fn(u64) -> P, impl Fn(P) -> u64),
    ) -> Result<(), E> {
        let (pack, unpack) = places;
        let class_info = &*self.class_info;
        text.for_each_record(|place, node| {
            let class = class_of[node as usize] as usize;
            if class_info[class] != u64::MAX {
                order[counts[class] as usize] = pack(place);
                counts[class] += 1;
            }
        });
        let mut written: Vec<&str> = Vec::new();
        let mut begin = 0;
        for &(_, class) in classes {
            let end = counts[class as usize] as usize;
            written.clear();
            written.extend(
                order[begin..end]
                    .iter()
                    .map(|&p| text.record_text(unpack(p))),
            );
            self.hand_out(class, &mut written)?;
            begin = end;
        }
        Ok(())
    }

    /// Hands out one class, given its spellings (in any order, maybe repeated).
    fn hand_out(&mut self, class: u32, written: &mut Vec<&str>) -> Result<(), E> {
        written.sort_unstable();
        written.dedup();
        if written.len() >= 2 {
            let id = self.found.classes as u32;
            (self.on_class)(FinishedClass { id, written })?;
            self.found.classes += 1;
            self.found.iris += written.len() as u64;
            self.class_info[class as usize] = (u64::from(id) << 32) | written.len() as u64;
        } else {
            self.class_info[class as usize] = u64::MAX;
        }
        Ok(())
    }
}

/// Spreads the spill files into partition files by class-key range (records
/// `class key u64, class u32, len u32, bytes`), in class-key order, each about half
/// the budget.
fn partition(spill: &Spill, class_key: &[u64], class_of: &[u32]) -> std::io::Result<Vec<PathBuf>> {
    let dir = spill.dir.as_deref().unwrap_or(Path::new("."));
    let parts = (spill.bytes_on_disk * 3 / (spill.budget.max(1) as u64)).clamp(1, 4096) as usize;
    let paths: Vec<PathBuf> = (0..parts).map(|p| dir.join(format!("part-{p}"))).collect();
    let mut writers = paths
        .iter()
        .map(|p| File::create(p).map(|f| BufWriter::with_capacity(256 << 10, f)))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut buf = Vec::new();
    for file in &spill.files {
        let mut r = BufReader::with_capacity(1 << 20, File::open(file)?);
        let mut h = [0u8; HEAD];
        loop {
            match r.read_exact(&mut h[..SHORT_HEAD]) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(e),
            }
            if h[SHORT_HEAD - 1] == LONG {
                r.read_exact(&mut h[SHORT_HEAD..])?;
            }
            let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "damaged spill file");
            let (node, len, _) = read_head(&h).ok_or_else(bad)?;
            buf.resize(len as usize, 0);
            r.read_exact(&mut buf)?;
            let class = class_of[node as usize];
            let key = class_key[class as usize];
            let part = ((u128::from(key) * parts as u128) >> 64) as usize;
            let w = &mut writers[part];
            w.write_all(&key.to_le_bytes())?;
            w.write_all(&class.to_le_bytes())?;
            w.write_all(&len.to_le_bytes())?;
            w.write_all(&buf)?;
        }
        std::fs::remove_file(file)?;
    }
    for mut w in writers {
        w.flush()?;
    }
    Ok(paths)
}

/// Reads one partition file back: its records and their text. The text is
/// gathered as bytes and checked to be UTF-8 once, as a whole (a check per
/// spelling, a call for a few dozen bytes each, was a tenth of the grouping).
fn read_partition(path: &Path) -> std::io::Result<(Vec<Record>, Arena)> {
    let bytes = std::fs::read(path)?;
    let mut records = Vec::new();
    let mut text = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "damaged spill file");
    while i + 16 <= bytes.len() {
        let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        let class_key = u64::from_le_bytes(bytes[i..i + 8].try_into().map_err(|_| bad())?);
        let class = u32::from_le_bytes(word(i + 8));
        let len = u32::from_le_bytes(word(i + 12));
        let start = i + 16;
        let end = start + len as usize;
        records.push(Record {
            class_key,
            class,
            len,
            offset: text.len() as u64,
        });
        text.extend_from_slice(bytes.get(start..end).ok_or_else(bad)?);
        i = end;
    }
    // spellings are whole strings: the text is UTF-8, and each of them starts
    // and ends on a character boundary (checked, as a damaged file may not)
    let text = String::from_utf8(text).map_err(|_| bad())?;
    let whole = |r: &Record| {
        text.is_char_boundary(r.offset as usize)
            && text.is_char_boundary(r.offset as usize + r.len as usize)
    };
    if !records.iter().all(whole) {
        return Err(bad());
    }
    Ok((records, Arena::from_text(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::canonical::canonical_iri;
    use crate::index::hash::iri_key;

    /// The endpoint of an IRI as written (computing its canonical form and key).
    fn endpoint_of(written: &str) -> (u64, bool) {
        let canonical = canonical_iri(written);
        (iri_key(&canonical), canonical == written)
    }

    /// Classes as sorted lists of written IRIs, in the order handed out, and the
    /// keys with their class ids and sizes.
    type Out = (Vec<Vec<String>>, Vec<(u64, u32, u32)>);

    fn closure(links: &[(&str, &str)]) -> Out {
        closure_in(links, Closure::default())
    }

    /// The closure of links given in groups of `group` to [`Closure::link_all`].
    fn closure_in(links: &[(&str, &str)], c: Closure) -> Out {
        closure_grouped(links, c, links.len().max(1))
    }

    /// The endpoint of an IRI as written, with a check hash of its own.
    fn endpoint(w: &str) -> Endpoint<'_> {
        let (key, canonical) = endpoint_of(w);
        Endpoint {
            key,
            check: key as u32 ^ 1,
            written: w,
            canonical,
        }
    }

    fn closure_grouped(links: &[(&str, &str)], mut c: Closure, group: usize) -> Out {
        let endpoints: Vec<_> = links
            .iter()
            .map(|(a, b)| (endpoint(a), endpoint(b)))
            .collect();
        for part in endpoints.chunks(group) {
            c.link_all(part).expect("link");
        }
        let mut classes = Vec::new();
        let mut keys = Vec::new();
        let mut phases = Vec::new();
        let found = c
            .finish::<()>(
                &mut |class| {
                    assert_eq!(class.id as usize, classes.len());
                    classes.push(class.written.iter().map(|s| s.to_string()).collect());
                    Ok(())
                },
                &mut |half, k, id, size| {
                    assert_eq!(half as u64, k >> 63);
                    keys.push((k, id, size));
                    Ok(())
                },
                &|e| panic!("{e}"),
                &mut |name| phases.push(name.to_string()),
            )
            .expect("finish");
        assert_eq!(phases, ["grouping classes", "writing the IRI table"]);
        // each half of the key space in increasing key order
        for half in 0..2 {
            let keys: Vec<u64> = keys
                .iter()
                .map(|k| k.0)
                .filter(|k| k >> 63 == half)
                .collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        }
        assert_eq!(found.classes as usize, classes.len());
        assert_eq!(found.key_collisions, 0);
        (classes, keys)
    }

    #[test]
    fn transitive_and_order_independent() {
        let links = [
            ("http://a.org/1", "http://b.org/1"),
            ("http://b.org/1", "http://c.org/1"),
            ("http://x.org/2", "http://y.org/2"),
            ("http://c.org/1", "http://a.org/1"),
        ];
        let forward = closure(&links);
        let mut reversed = links;
        reversed.reverse();
        let swapped: Vec<(&str, &str)> = links.iter().map(|(a, b)| (*b, *a)).collect();
        assert_eq!(forward, closure(&reversed));
        assert_eq!(forward, closure(&swapped));
        assert_eq!(forward.0.len(), 2);
        assert_eq!(forward.1.len(), 5);
        // keys in increasing order, each with its class's size
        assert!(forward.1.windows(2).all(|w| w[0].0 < w[1].0));
        for (_, id, size) in &forward.1 {
            assert_eq!(forward.0[*id as usize].len(), *size as usize);
        }
    }

    #[test]
    fn spellings_of_one_iri_are_one_node_but_all_kept() {
        let (classes, keys) = closure(&[(
            "http://dbpedia.org/resource/Caf%C3%A9",
            "http://dbpedia.org/resource/Café",
        )]);
        assert_eq!(classes.len(), 1);
        assert_eq!(keys.len(), 1);
        assert_eq!(classes[0].len(), 2);
        // an IRI linked to itself is no class
        assert_eq!(closure(&[("http://a.org/1", "http://a.org/1")]).0.len(), 0);
    }

    #[test]
    fn key_collisions_are_counted() {
        let mut c = Closure::default();
        let e = |written, check| Endpoint {
            key: 42,
            check,
            written,
            canonical: true,
        };
        let other = Endpoint {
            key: 7,
            check: 7,
            written: "http://b.org/",
            canonical: true,
        };
        c.link_all(&[(e("http://a.org/", 1), other)]).expect("link");
        c.link_all(&[(e("http://c.org/", 2), other)]).expect("link");
        let found = c
            .finish::<()>(
                &mut |_| Ok(()),
                &mut |_, _, _, _| Ok(()),
                &|e| panic!("{e}"),
                &mut |_| {},
            )
            .expect("finish");
        assert_eq!(found.key_collisions, 1);
    }

    /// Each key with its node (its place in `keys`), in key order: what
    /// [`Table::into_sorted`] gives once `keys` were inserted in turn.
    fn keys_with_nodes_in_order(keys: &[u64]) -> Vec<(u64, u32)> {
        let mut expected: Vec<(u64, u32)> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32))
            .collect();
        expected.sort_unstable();
        expected
    }

    #[test]
    fn the_table_grows_and_stays_sorted() {
        let mut t = Table::with_bits(2);
        let mut rng = crate::metrics::SplitMix64(7);
        let mut keys: Vec<u64> = (0..5000).map(|_| rng.next_u64() | 1).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get_or_insert(*k, i as u32), (i as u32, true));
        }
        assert_eq!(t.get_or_insert(keys[17], 99), (17, false));
        // keys near the top wrap around to the first slots
        for top in [u64::MAX, u64::MAX - 1, u64::MAX - 2] {
            let n = t.len as u32;
            t.get_or_insert(top, n);
            keys.push(top);
        }
        // each key keeps its node when the table is sorted in place
        let expected = keys_with_nodes_in_order(&keys);
        let (sorted, nodes) = t.into_sorted();
        let seen: Vec<(u64, u32)> = sorted.into_iter().zip(nodes).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn places_of_32_bits_round_trip_and_large_chunks_keep_64() {
        for at in [
            0u64,
            5,
            (1 << 32) | 7,
            (3 << 32) | ((1 << 25) - 1),
            (127 << 32) | 1,
        ] {
            assert_eq!(Arena::from_small_place(Arena::small_place(at)), at);
        }
        let mut arena = Arena::default();
        arena.push_record(1, "http://a.org/x");
        assert!(arena.small_places());
        // a spelling longer than a chunk gets a chunk of its own, too large for
        // places of 32 bits; the classes come out the same
        let long = format!("http://a.org/{}", "x".repeat(CHUNK_BYTES));
        arena.push_record(2, &long);
        arena.push_record(3, "http://b.org/y");
        assert!(!arena.small_places());
        let links = [
            (long.as_str(), "http://b.org/y"),
            ("http://b.org/y", "http://c.org/z"),
            ("http://d.org/1", "http://e.org/2"),
        ];
        let (classes, _) = closure(&links);
        let mut sizes: Vec<usize> = classes.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, [2, 3]);
        assert!(classes.iter().any(|c| c.contains(&long)));
    }

    #[test]
    fn classes_are_numbered_in_the_order_of_their_roots() {
        // roots 1, 3 and 4; nodes point at roots before and after them
        let mut parent = vec![3, 1, 1, 3, 4, 3, 1];
        assert_eq!(number_classes(&mut parent), 3);
        assert_eq!(parent, vec![1, 0, 0, 1, 2, 1, 0]);
        let mut none: Vec<u32> = Vec::new();
        assert_eq!(number_classes(&mut none), 0);
    }

    #[test]
    fn the_table_grows_straight_to_the_size_expected() {
        let mut t = Table::with_bits(2);
        // nothing expected: one doubling
        assert_eq!(t.slots_to_grow_to(), 8);
        // the smallest size that holds the expected keys 7/8 full
        t.expected = 1000;
        assert_eq!(t.slots_to_grow_to(), 2048);
        t.expected = 1792;
        assert_eq!(t.slots_to_grow_to(), 2048);
        t.expected = 1793;
        assert_eq!(t.slots_to_grow_to(), 4096);
        // never past AHEAD_MAX_SLOTS, but always at least double
        t.expected = usize::MAX;
        assert_eq!(t.slots_to_grow_to(), AHEAD_MAX_SLOTS);
        let big = Table::from_parts(vec![EMPTY; AHEAD_MAX_SLOTS], vec![0; AHEAD_MAX_SLOTS]);
        let big = Table {
            expected: usize::MAX,
            ..big
        };
        assert_eq!(big.slots_to_grow_to(), 2 * AHEAD_MAX_SLOTS);
    }

    #[test]
    fn the_expected_keys_come_from_the_share_of_input_read() {
        let mut c = Closure::default();
        let links: Vec<(String, String)> = (0..100)
            .map(|i| (format!("http://a.org/{i}"), format!("http://b.org/{i}")))
            .collect();
        let pairs: Vec<_> = links
            .iter()
            .map(|(a, b)| (endpoint(a), endpoint(b)))
            .collect();
        c.link_all(&pairs).expect("in memory");
        // less than a 64th read: no estimate
        c.read_so_far(10, 1000);
        assert_eq!(c.table.expected, 0);
        // 200 keys in a tenth of the input
        c.read_so_far(100, 1000);
        assert_eq!(c.table.expected, 2000);
        c.read_so_far(1000, 1000);
        assert_eq!(c.table.expected, 200);
    }

    #[test]
    fn a_table_growing_towards_an_estimate_keeps_every_key() {
        // the size expected (2²² slots) is made ahead while the table doubles,
        // then taken at a later growth
        let mut t = Table::with_bits(2);
        t.expected = 3_000_000;
        let mut rng = crate::metrics::SplitMix64(11);
        let keys: Vec<u64> = (0..1_900_000).map(|_| rng.next_u64() | 1).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get_or_insert(*k, i as u32), (i as u32, true));
        }
        assert_eq!(t.keys.len(), 1 << 22);
        for (i, k) in keys.iter().enumerate().step_by(997) {
            assert_eq!(t.get_or_insert(*k, 0), (i as u32, false));
        }
        let expected = keys_with_nodes_in_order(&keys);
        let (sorted, nodes) = t.into_sorted();
        assert!(sorted
            .iter()
            .zip(nodes)
            .eq(expected.iter().map(|(k, n)| (k, *n))));
    }

    /// One of several spellings of entity `e` (so canonical forms merge them).
    fn spelling(e: usize, variant: usize) -> String {
        match variant % 5 {
            0 => format!("http://dbpedia.org/resource/E{e}"),
            1 => format!("https://dbpedia.org/page/E{e}"),
            2 => format!("http://www.wikidata.org/entity/Q{e}"),
            3 => format!("https://www.wikidata.org/wiki/Q{e}"),
            // long enough for the long record head (127 bytes or more), and not ASCII
            4 if e.is_multiple_of(3) => format!("http://other.org/{}/é%2C{e}", "long".repeat(30)),
            _ => format!("http://other.org/x%2C{e}"),
        }
    }

    /// The components by a naive search over canonical forms, as sorted sets of
    /// written IRIs (classes of two or more written forms only).
    fn naive(links: &[(String, String)]) -> Vec<Vec<String>> {
        let mut adjacent: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        let mut written: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            Default::default();
        for (a, b) in links {
            let (ca, cb) = (canonical_iri(a), canonical_iri(b));
            adjacent.entry(ca.clone()).or_default().push(cb.clone());
            adjacent.entry(cb.clone()).or_default().push(ca.clone());
            written.entry(ca).or_default().insert(a.clone());
            written.entry(cb).or_default().insert(b.clone());
        }
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for start in adjacent.keys() {
            if !seen.insert(start.clone()) {
                continue;
            }
            let mut stack = vec![start.clone()];
            let mut members = std::collections::BTreeSet::new();
            while let Some(x) = stack.pop() {
                members.extend(written[&x].iter().cloned());
                for y in &adjacent[&x] {
                    if seen.insert(y.clone()) {
                        stack.push(y.clone());
                    }
                }
            }
            if members.len() > 1 {
                out.push(members.into_iter().collect());
            }
        }
        out.sort();
        out
    }

    #[test]
    fn record_heads_round_trip_and_stay_ascii() {
        for (node, len, short) in [
            (0, 0, true),
            (1, 126, true),
            (2, 127, false),
            (128, 1 << 20, false),
            (u32::MAX, (1 << 31) - 1, false),
        ] {
            let (h, head_len) = head(node, len);
            assert!(h.is_ascii());
            assert_eq!(head_len, if short { SHORT_HEAD } else { HEAD });
            assert_eq!(read_head(&h[..head_len]), Some((node, len, head_len)));
            assert_eq!(read_head(&h[..head_len - 1]), None);
        }
        let mut arena = Arena::default();
        arena.push_record(7, "http://a.org/x");
        arena.push_record(u32::MAX, "http://b.org/ÿ");
        let mut got: Vec<(u32, &str)> = Vec::new();
        arena.for_each_record(|at, node| got.push((node, arena.record_text(at))));
        assert_eq!(got, [(7, "http://a.org/x"), (u32::MAX, "http://b.org/ÿ")]);
    }

    #[test]
    fn randomized_closures_match_a_naive_search_in_any_order() {
        let mut rng = crate::metrics::SplitMix64(20_261_122);
        for case in 0..200 {
            let entities = 2 + rng.below(30);
            let n = rng.below(60);
            let links: Vec<(String, String)> = (0..n)
                .map(|_| {
                    (
                        spelling(rng.below(entities), rng.below(5)),
                        spelling(rng.below(entities), rng.below(5)),
                    )
                })
                .collect();
            let run = |l: &[(String, String)]| -> Out {
                let refs: Vec<(&str, &str)> =
                    l.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
                closure(&refs)
            };
            let got = run(&links);
            let mut as_sets = got.0.clone();
            as_sets.sort();
            assert_eq!(as_sets, naive(&links), "case {case}");
            // every IRI in exactly one class
            let mut all: Vec<&String> = got.0.iter().flatten().collect();
            let total = all.len();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), total, "case {case}");
            // every canonical IRI of a class has its key, with that class
            for (id, class) in got.0.iter().enumerate() {
                for w in class {
                    let key = iri_key(&canonical_iri(w));
                    assert!(
                        got.1.iter().any(|k| k.0 == key && k.1 as usize == id),
                        "case {case}: {w}"
                    );
                }
            }
            // the same classes, in the same order, for a shuffled and swapped input
            let mut shuffled = links.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            let shuffled: Vec<(String, String)> = shuffled
                .into_iter()
                .map(|(a, b)| if rng.below(2) == 0 { (b, a) } else { (a, b) })
                .collect();
            assert_eq!(run(&shuffled), got, "case {case}");
            // the same when the links come one at a time or in groups of any size
            let refs: Vec<(&str, &str)> = links
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let group = 1 + rng.below(links.len().max(1));
            assert_eq!(
                closure_grouped(&refs, Closure::default(), group),
                got,
                "case {case}"
            );
            // the same when the spellings are spilled to disk every few bytes
            if case % 20 == 0 {
                let dir = std::env::temp_dir()
                    .join(format!("qajudge-spill-{}-{case}", std::process::id()));
                let refs: Vec<(&str, &str)> = links
                    .iter()
                    .map(|(a, b)| (a.as_str(), b.as_str()))
                    .collect();
                let spilled = closure_in(&refs, Closure::new(200, Some(dir.clone())));
                assert_eq!(spilled, got, "case {case}");
                let left: Vec<_> = std::fs::read_dir(&dir)
                    .map(|d| d.flatten().map(|e| e.path()).collect())
                    .unwrap_or_default();
                assert!(left.is_empty(), "spill files left: {left:?}");
                std::fs::remove_dir_all(&dir).ok();
            }
        }
    }
}
