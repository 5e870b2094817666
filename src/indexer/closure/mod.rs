//! The equivalence closure: a union-find over the 64-bit keys of canonical IRIs
//! (`index::hash::iri_key`), with every spelling an IRI was written in kept once,
//! and the finished classes handed out in a deterministic order (by a mix of the
//! smallest key of each class), whatever the order of statements and files.
//!
//! Memory per IRI: the key table (12 bytes a slot, at most 7/8 full), parent, rank
//! and a 32-bit check hash (9 bytes), one bit. The spellings are records (a
//! 6-byte head, 11 bytes for texts of 127 bytes or more, then the text) in
//! chunks of text that never move, held in memory up to a budget and then
//! spilled, chunk by chunk, to files in a directory the caller gives; finishing
//! sorts them in partitions of about the budget's size, so the text of a dump
//! of any size costs disk, not memory. Finishing also sorts the
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

use std::path::{Path, PathBuf};

mod arena;
mod group;
mod keys;
mod table;
#[cfg(test)]
mod tests;

use arena::{Arena, Spill};
use group::{partition, read_partition, Groups};
use keys::{SortedKeys, GATHER};
use table::Table;

use super::progress::Phase;
use crate::rng::mix;

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

/// Links whose memory is read ahead together in [`Closure::link_all`].
const AHEAD: usize = 32;

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
        phase: &mut dyn FnMut(Phase),
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
        let (classes, sorted) = self.sort_and_number();
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
        let mut class_key = smallest_keys(&sorted, &mut of_key, &self.parent, classes);
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
        for k in &mut class_key {
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
        phase(Phase::Grouping);
        let mut found = Finished {
            key_collisions: self.collisions,
            ..Finished::default()
        };
        // from here on class_key[class] becomes the class id (high half) and size
        // (low half), or u64::MAX for a class of fewer than two spellings
        let groups = Groups {
            on_class,
            found: &mut found,
            class_info: &mut class_key,
        };
        self.group(spilled, classes, groups, io)?;
        phase(Phase::WritingIriTable);
        hand_out_keys(&keys, &class_key, on_key, io)?;
        Ok(found)
    }

    /// Flattens the forest and numbers its classes (from then on `parent`
    /// gives each node's class number) while another thread sorts the key
    /// table, taken from the closure, into the keys in key order with their
    /// nodes; the number of classes, and the sorted keys unless the sort
    /// failed.
    fn sort_and_number(&mut self) -> (usize, Option<SortedTable>) {
        // the keys in key order with their nodes are all the last pass needs of
        // the table: they are sorted in the table's own memory, on a thread of
        // their own while the forest is flattened (after reading, the other
        // core is idle)
        let table = std::mem::replace(&mut self.table, Table::with_bits(1));
        let parent = &mut self.parent;
        // (a thread that cannot start leaves the table for this one to sort)
        let table = std::sync::Mutex::new(Some(table));
        let sort = || table.lock().ok()?.take().map(Table::into_sorted);
        std::thread::scope(|scope| {
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
        })
    }

    /// Hands out the classes of two or more spellings through `groups`: from
    /// the spellings held in memory (counted per class in the check hashes'
    /// memory) or, when the text was spilled, from partition files by class
    /// key, the forest freed before they are read; the text is freed after.
    fn group<E>(
        &mut self,
        spilled: bool,
        classes: usize,
        mut groups: Groups<'_, '_, E>,
        io: &dyn Fn(std::io::Error) -> E,
    ) -> Result<(), E> {
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
        Ok(())
    }
}

/// The smallest key of each of the `classes` classes, from the keys in key
/// order (`sorted`) and their nodes (`of_key`, turned into their classes by
/// `class_of` here); `u64::MAX` for a class without a key.
fn smallest_keys(sorted: &[u64], of_key: &mut [u32], class_of: &[u32], classes: usize) -> Vec<u64> {
    let mut class_key = vec![u64::MAX; classes];
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
    class_key
}

/// Hands `on_key` every key of a class of two or more spellings with its
/// class id and size (`class_info`: id in the high half, size in the low, or
/// `u64::MAX`), the two halves of the key space in turns, a group at a
/// time, so that two consumers can write them at once.
fn hand_out_keys<E>(
    keys: &SortedKeys,
    class_info: &[u64],
    on_key: &mut dyn FnMut(usize, u64, u32, u32) -> Result<(), E>,
    io: &dyn Fn(std::io::Error) -> E,
) -> Result<(), E> {
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
            values.extend(
                batch_classes
                    .iter()
                    .map(|&class| class_info[class as usize]),
            );
            for (&value, &key) in values.iter().zip(&batch_keys) {
                if value != u64::MAX {
                    on_key(half, key, (value >> 32) as u32, value as u32)?;
                }
            }
        }
    }
    Ok(())
}

/// The keys of the table in key order, and the node of each.
type SortedTable = (Vec<u64>, Vec<u32>);

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
/// smaller than arrays by node (a class has several IRIs), and the passes that
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
