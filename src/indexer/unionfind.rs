//! Union-find over canonical IRIs, keeping every spelling each IRI was written in,
//! and the closure's classes in a deterministic order (whatever the order of
//! statements and files).

use rustc_hash::FxHashMap;

use crate::index::canonical::canonical_iri;

/// One equivalence class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    /// Its canonical IRIs, sorted.
    pub canonical: Vec<String>,
    /// Its IRIs as written (distinct), sorted.
    pub written: Vec<String>,
}

impl Class {
    /// The number of IRIs as written.
    pub fn len(&self) -> usize {
        self.written.len()
    }
}

/// The union-find. Each canonical IRI is stored once (as the map key); spellings
/// other than the canonical one are kept beside it, and a flag says whether the
/// canonical spelling itself was written.
#[derive(Default)]
pub struct UnionFind {
    ids: FxHashMap<Box<str>, u32>,
    other_spellings: Vec<Vec<Box<str>>>,
    canonical_written: Vec<bool>,
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn node(&mut self, iri: &str) -> u32 {
        let canonical = canonical_iri(iri);
        let same = canonical == iri;
        let id = match self.ids.get(canonical.as_str()) {
            Some(&id) => id,
            None => {
                let id = self.parent.len() as u32;
                self.ids.insert(canonical.into_boxed_str(), id);
                self.other_spellings.push(Vec::new());
                self.canonical_written.push(false);
                self.parent.push(id);
                self.size.push(1);
                id
            }
        };
        if same {
            self.canonical_written[id as usize] = true;
        } else {
            let spellings = &mut self.other_spellings[id as usize];
            if !spellings.iter().any(|w| &**w == iri) {
                spellings.push(iri.into());
            }
        }
        id
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
    pub fn union(&mut self, a: &str, b: &str) {
        let (a, b) = (self.node(a), self.node(b));
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (big, small) = if self.size[ra as usize] >= self.size[rb as usize] {
            (ra, rb)
        } else {
            (rb, ra)
        };
        self.parent[small as usize] = big;
        self.size[big as usize] += self.size[small as usize];
    }

    /// The classes of two or more IRIs as written, ordered by their smallest
    /// canonical IRI (so ids do not depend on the order of statements).
    pub fn classes(mut self) -> Vec<Class> {
        let n = self.parent.len();
        let mut canonical_of: Vec<Box<str>> = vec![Box::from(""); n];
        for (iri, id) in std::mem::take(&mut self.ids) {
            canonical_of[id as usize] = iri;
        }
        let mut groups: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for x in 0..n as u32 {
            let root = self.find(x);
            groups.entry(root).or_default().push(x);
        }
        let mut classes: Vec<Class> = groups
            .into_values()
            .filter_map(|nodes| {
                let spellings: usize = nodes
                    .iter()
                    .map(|&x| {
                        usize::from(self.canonical_written[x as usize])
                            + self.other_spellings[x as usize].len()
                    })
                    .sum();
                if spellings < 2 {
                    return None;
                }
                let mut canonical: Vec<String> = nodes
                    .iter()
                    .map(|&x| canonical_of[x as usize].to_string())
                    .collect();
                canonical.sort_unstable();
                let mut written: Vec<String> = Vec::with_capacity(spellings);
                for &x in &nodes {
                    if self.canonical_written[x as usize] {
                        written.push(canonical_of[x as usize].to_string());
                    }
                    written.extend(
                        self.other_spellings[x as usize]
                            .iter()
                            .map(|w| w.to_string()),
                    );
                }
                written.sort_unstable();
                written.dedup();
                Some(Class { canonical, written })
            })
            .collect();
        classes.sort_unstable_by(|a, b| a.canonical[0].cmp(&b.canonical[0]));
        classes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closure(links: &[(&str, &str)]) -> Vec<Class> {
        let mut uf = UnionFind::default();
        for (a, b) in links {
            uf.union(a, b);
        }
        uf.classes()
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
        assert_eq!(forward.len(), 2);
        assert_eq!(forward[0].len(), 3);
        // every IRI in exactly one class
        let mut all: Vec<&String> = forward.iter().flat_map(|c| &c.written).collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    #[test]
    fn spellings_of_one_iri_are_one_node_but_all_kept() {
        let c = closure(&[(
            "http://dbpedia.org/resource/Caf%C3%A9",
            "http://dbpedia.org/resource/Café",
        )]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].canonical.len(), 1);
        assert_eq!(c[0].written.len(), 2);
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
            let refs = |l: &[(String, String)]| -> Vec<Class> {
                let mut uf = UnionFind::default();
                for (a, b) in l {
                    uf.union(a, b);
                }
                uf.classes()
            };
            let got = refs(&links);
            let mut as_sets: Vec<Vec<String>> = got.iter().map(|c| c.written.clone()).collect();
            as_sets.sort();
            assert_eq!(as_sets, naive(&links), "case {case}");
            // every IRI in exactly one class
            let mut all: Vec<&String> = got.iter().flat_map(|c| &c.written).collect();
            let total = all.len();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), total, "case {case}");
            // the same classes, in the same order, for a shuffled and swapped input
            let mut shuffled = links.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            let shuffled: Vec<(String, String)> = shuffled
                .into_iter()
                .map(|(a, b)| if rng.below(2) == 0 { (b, a) } else { (a, b) })
                .collect();
            assert_eq!(refs(&shuffled), got, "case {case}");
        }
    }
}
