//! The equivalence closure: a union-find over the 64-bit keys of canonical IRIs
//! (`index::hash::iri_key`), with every spelling an IRI was written in kept once
//! in an arena, and the finished classes handed out in a deterministic order
//! (by the smallest key of each class), whatever the order of statements and files.
//!
//! Memory per IRI: the key table (12 bytes a slot, at most 3/4 full), parent and
//! rank (5 bytes), one bit, and the IRI's text once (plus any other spelling).

use crate::index::canonical::canonical_iri;

/// One end of an equivalence link.
#[derive(Debug, Clone, Copy)]
pub struct Endpoint<'a> {
    /// The key of its canonical form.
    pub key: u64,
    /// The IRI as written.
    pub written: &'a str,
    /// Whether the written IRI is its canonical form.
    pub canonical: bool,
}

/// An open-addressing map from key to node id with linear probing, where a key's
/// home slot is given by its top bits, so that the slots hold the keys almost in
/// order (see [`Table::for_each_sorted`]).
struct Table {
    keys: Vec<u64>,
    nodes: Vec<u32>,
    shift: u32,
    len: usize,
}

/// The key that marks an empty slot (a real key of 0 is stored as 1).
const EMPTY: u64 = 0;

impl Table {
    fn with_bits(bits: u32) -> Table {
        Table {
            keys: vec![EMPTY; 1 << bits],
            nodes: vec![0; 1 << bits],
            shift: 64 - bits,
            len: 0,
        }
    }

    fn home(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    /// The node of a key, inserting `next` when the key is new.
    fn get_or_insert(&mut self, key: u64, next: u32) -> (u32, bool) {
        let key = key.max(1);
        if (self.len + 1) * 4 > self.keys.len() * 3 {
            self.grow();
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
        let bits = 64 - self.shift + 1;
        let old = std::mem::replace(self, Table::with_bits(bits));
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

    /// Calls `f` with every (key, node) in increasing key order, sorting only the
    /// short runs between empty slots.
    fn for_each_sorted(&self, mut f: impl FnMut(u64, u32)) {
        let mut run: Vec<(u64, u32)> = Vec::new();
        let mut wrapped: Vec<(u64, u32)> = Vec::new();
        let mut first_run = true;
        for slot in 0..self.keys.len() {
            let key = self.keys[slot];
            if key == EMPTY {
                first_run = false;
                run.sort_unstable();
                for &(k, n) in &run {
                    f(k, n);
                }
                run.clear();
            } else if first_run && self.home(key) > slot {
                // probed past the end of the table and wrapped to its start
                wrapped.push((key, self.nodes[slot]));
            } else {
                run.push((key, self.nodes[slot]));
            }
        }
        run.extend(wrapped);
        run.sort_unstable();
        for (k, n) in run {
            f(k, n);
        }
    }
}

/// A spelling of a node, in the arena.
#[derive(Clone, Copy)]
struct Spelling {
    node: u32,
    /// Length, with the top bit set when the spelling is the canonical form.
    len: u32,
    offset: u64,
}

const CANONICAL_BIT: u32 = 1 << 31;

/// The union-find being built.
pub struct Closure {
    table: Table,
    parent: Vec<u32>,
    rank: Vec<u8>,
    /// One bit per node: its canonical spelling is in the arena.
    canonical_kept: Vec<u64>,
    spellings: Vec<Spelling>,
    arena: Vec<u8>,
}

impl Default for Closure {
    fn default() -> Self {
        Closure {
            table: Table::with_bits(10),
            parent: Vec::new(),
            rank: Vec::new(),
            canonical_kept: Vec::new(),
            spellings: Vec::new(),
            arena: Vec::new(),
        }
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
    fn node(&mut self, e: Endpoint<'_>) -> u32 {
        let next = self.parent.len() as u32;
        let (node, new) = self.table.get_or_insert(e.key, next);
        if new {
            self.parent.push(node);
            self.rank.push(0);
            if node as usize / 64 >= self.canonical_kept.len() {
                self.canonical_kept.push(0);
            }
        }
        let (word, bit) = (node as usize / 64, 1u64 << (node % 64));
        if e.canonical {
            if self.canonical_kept[word] & bit != 0 {
                return node;
            }
            self.canonical_kept[word] |= bit;
        }
        let len = e.written.len() as u32 & !CANONICAL_BIT;
        self.spellings.push(Spelling {
            node,
            len: if e.canonical {
                len | CANONICAL_BIT
            } else {
                len
            },
            offset: self.arena.len() as u64,
        });
        self.arena.extend_from_slice(e.written.as_bytes());
        node
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Records that two IRIs name the same thing.
    pub fn link(&mut self, a: Endpoint<'_>, b: Endpoint<'_>) {
        let (a, b) = (self.node(a), self.node(b));
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

    fn text(&self, s: &Spelling) -> &str {
        let start = s.offset as usize;
        let bytes = &self.arena[start..start + (s.len & !CANONICAL_BIT) as usize];
        // the arena holds only whole `&str`s
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// Finishes the closure: `on_class` gets every class of two or more IRIs as
    /// written, in increasing order of its smallest key, numbered from 0; then
    /// `on_key` gets every canonical key of those classes, in increasing key order,
    /// with its class id and class size.
    pub fn finish<E>(
        mut self,
        on_class: &mut dyn FnMut(FinishedClass<'_>) -> Result<(), E>,
        on_key: &mut dyn FnMut(u64, u32, u32) -> Result<(), E>,
    ) -> Result<Finished, E> {
        let n = self.parent.len();
        for x in 0..n as u32 {
            let root = self.find(x);
            self.parent[x as usize] = root;
        }
        self.rank = Vec::new();
        // the smallest key of each class, kept at its root
        let mut class_key = vec![u64::MAX; n];
        self.table.for_each_sorted(|key, node| {
            let root = self.parent[node as usize] as usize;
            if class_key[root] == u64::MAX {
                class_key[root] = key;
            }
        });
        // spellings grouped by class, in class-key order
        let mut order: Vec<(u64, u32)> = self
            .spellings
            .iter()
            .enumerate()
            .map(|(i, s)| (class_key[self.parent[s.node as usize] as usize], i as u32))
            .collect();
        order.sort_unstable();
        let mut found = Finished::default();
        // class_key[root] becomes the class id (high half) and size (low half), or
        // u64::MAX for a class of fewer than two spellings
        let mut start = 0;
        let mut members: Vec<(u32, &str, bool)> = Vec::new();
        let mut written: Vec<&str> = Vec::new();
        let mut info: Vec<(usize, u64)> = Vec::new();
        while start < order.len() {
            let key = order[start].0;
            let end = order[start..]
                .iter()
                .position(|o| o.0 != key)
                .map_or(order.len(), |p| start + p);
            members.clear();
            for &(_, i) in &order[start..end] {
                let s = &self.spellings[i as usize];
                members.push((s.node, self.text(s), s.len & CANONICAL_BIT != 0));
            }
            members.sort_unstable();
            members.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
            // two canonical IRIs under one key: count the collision
            let mut i = 0;
            while i < members.len() {
                let node = members[i].0;
                let mut j = i;
                let mut canonical: Option<std::borrow::Cow<'_, str>> = None;
                while j < members.len() && members[j].0 == node {
                    let c = if members[j].2 {
                        std::borrow::Cow::Borrowed(members[j].1)
                    } else {
                        std::borrow::Cow::Owned(canonical_iri(members[j].1))
                    };
                    match &canonical {
                        Some(prev) if *prev != c => {
                            found.key_collisions += 1;
                        }
                        None => canonical = Some(c),
                        _ => {}
                    }
                    j += 1;
                }
                i = j;
            }
            written.clear();
            written.extend(members.iter().map(|m| m.1));
            written.sort_unstable();
            written.dedup();
            let root = self.parent[members[0].0 as usize] as usize;
            if written.len() >= 2 {
                let id = found.classes as u32;
                on_class(FinishedClass {
                    id,
                    written: &written,
                })?;
                found.classes += 1;
                found.iris += written.len() as u64;
                info.push((root, (u64::from(id) << 32) | written.len() as u64));
            } else {
                info.push((root, u64::MAX));
            }
            start = end;
        }
        drop(order);
        for (root, value) in info {
            class_key[root] = value;
        }
        let mut result = Ok(());
        self.table.for_each_sorted(|key, node| {
            let value = class_key[self.parent[node as usize] as usize];
            if value != u64::MAX && result.is_ok() {
                result = on_key(key, (value >> 32) as u32, value as u32);
            }
        });
        result.map(|()| found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let mut c = Closure::default();
        for (a, b) in links {
            let ((ka, ca), (kb, cb)) = (endpoint_of(a), endpoint_of(b));
            c.link(
                Endpoint {
                    key: ka,
                    written: a,
                    canonical: ca,
                },
                Endpoint {
                    key: kb,
                    written: b,
                    canonical: cb,
                },
            );
        }
        let mut classes = Vec::new();
        let mut keys = Vec::new();
        let found = c
            .finish::<()>(
                &mut |class| {
                    assert_eq!(class.id as usize, classes.len());
                    classes.push(class.written.iter().map(|s| s.to_string()).collect());
                    Ok(())
                },
                &mut |k, id, size| {
                    keys.push((k, id, size));
                    Ok(())
                },
            )
            .expect("finish");
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
        let mut seen = Vec::new();
        t.for_each_sorted(|k, _| seen.push(k));
        keys.sort_unstable();
        assert_eq!(seen, keys);
    }

    /// One of several spellings of entity `e` (so canonical forms merge them).
    fn spelling(e: usize, variant: usize) -> String {
        match variant % 5 {
            0 => format!("http://dbpedia.org/resource/E{e}"),
            1 => format!("https://dbpedia.org/page/E{e}"),
            2 => format!("http://www.wikidata.org/entity/Q{e}"),
            3 => format!("https://www.wikidata.org/wiki/Q{e}"),
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
        }
    }
}
