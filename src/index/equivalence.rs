//! What evaluation asks of an index (docs/scoring.md (With an index) and the cross-kind rules): the
//! owl:sameAs class of an IRI, the members of a class, the IRIs carrying a label and
//! the types of an IRI. The `Equivalence` trait has two implementations: the
//! on-disk [`Index`](super::Index) and [`MemoryIndex`], built from a few facts in
//! memory for tests and for callers that have no index directory.

use rustc_hash::FxHashMap;

use super::labels::normalize_label;
use super::IndexError;
use crate::terms::canonical::canonical_iri;

/// The owl:sameAs class of an IRI that is in a class of two or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// The class id (stable within one index).
    pub id: u32,
    /// The number of IRIs in the class, as written.
    pub size: u32,
}

/// The lookups evaluation needs from an index.
pub trait Equivalence {
    /// The class of an IRI (canonicalised first); `None` for a class of one.
    fn class(&self, iri: &str) -> Result<Option<Class>, IndexError>;
    /// The class of an IRI already in canonical form (saves canonicalising twice).
    fn class_of_canonical(&self, canonical: &str) -> Result<Option<Class>, IndexError> {
        self.class(canonical)
    }
    /// The members of a class, as written.
    fn members(&self, class: u32) -> Result<Vec<String>, IndexError>;
    /// The IRIs carrying a label (normalised, any language), deduplicated.
    fn label_iris(&self, label: &str) -> Result<Vec<String>, IndexError>;
    /// The classes (rdf:type, wdt:P31) of an IRI.
    fn types(&self, iri: &str) -> Result<Vec<String>, IndexError>;
    /// True when the index holds any type at all (AIT2KB may use it).
    fn has_types(&self) -> bool;
}

/// An index held in memory: sameAs links, labels and types given as facts.
#[derive(Debug, Default, Clone)]
pub struct MemoryIndex {
    parent: Vec<usize>,
    ids: FxHashMap<String, usize>,
    written: Vec<String>,
    labels: FxHashMap<String, Vec<String>>,
    types: FxHashMap<String, Vec<String>>,
}

impl MemoryIndex {
    /// An empty index.
    pub fn new() -> MemoryIndex {
        MemoryIndex::default()
    }

    fn node(&mut self, iri: &str) -> usize {
        let key = canonical_iri(iri);
        if let Some(&n) = self.ids.get(&key) {
            return n;
        }
        let n = self.parent.len();
        self.parent.push(n);
        self.written.push(iri.to_string());
        self.ids.insert(key, n);
        n
    }

    fn root(&self, mut n: usize) -> usize {
        while self.parent[n] != n {
            n = self.parent[n];
        }
        n
    }

    /// Declares two IRIs the same (owl:sameAs, equivalentClass, equivalentProperty).
    pub fn same_as(&mut self, a: &str, b: &str) -> &mut MemoryIndex {
        let (x, y) = (self.node(a), self.node(b));
        let (rx, ry) = (self.root(x), self.root(y));
        if rx != ry {
            let (lo, hi) = (rx.min(ry), rx.max(ry));
            self.parent[hi] = lo;
        }
        self
    }

    /// Gives an IRI a label.
    pub fn label(&mut self, iri: &str, label: &str) -> &mut MemoryIndex {
        let list = self.labels.entry(normalize_label(label)).or_default();
        if !list.iter().any(|i| i == iri) {
            list.push(iri.to_string());
        }
        self
    }

    /// Gives an IRI a type.
    pub fn typed(&mut self, iri: &str, class: &str) -> &mut MemoryIndex {
        let list = self.types.entry(canonical_iri(iri)).or_default();
        if !list.iter().any(|c| c == class) {
            list.push(class.to_string());
        }
        self
    }

    fn class_members(&self, root: usize) -> Vec<String> {
        let mut out: Vec<String> = (0..self.parent.len())
            .filter(|&n| self.root(n) == root)
            .map(|n| self.written[n].clone())
            .collect();
        out.sort();
        out
    }
}

impl Equivalence for MemoryIndex {
    fn class(&self, iri: &str) -> Result<Option<Class>, IndexError> {
        let Some(&n) = self.ids.get(&canonical_iri(iri)) else {
            return Ok(None);
        };
        let root = self.root(n);
        let size = self.class_members(root).len() as u32;
        Ok((size > 1).then_some(Class {
            id: root as u32,
            size,
        }))
    }

    fn members(&self, class: u32) -> Result<Vec<String>, IndexError> {
        Ok(self.class_members(class as usize))
    }

    fn label_iris(&self, label: &str) -> Result<Vec<String>, IndexError> {
        Ok(self
            .labels
            .get(&normalize_label(label))
            .cloned()
            .unwrap_or_default())
    }

    fn types(&self, iri: &str) -> Result<Vec<String>, IndexError> {
        Ok(self
            .types
            .get(&canonical_iri(iri))
            .cloned()
            .unwrap_or_default())
    }

    fn has_types(&self) -> bool {
        !self.types.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_index_closure_labels_types() {
        let mut m = MemoryIndex::new();
        m.same_as(
            "http://dbpedia.org/resource/Douglas_Adams",
            "http://www.wikidata.org/entity/Q42",
        )
        .same_as(
            "https://www.wikidata.org/wiki/Q42",
            "http://rdf.freebase.com/ns/m.0282x",
        )
        .label("http://www.wikidata.org/entity/Q42", "Douglas Adams")
        .typed(
            "http://www.wikidata.org/entity/Q42",
            "http://www.wikidata.org/entity/Q5",
        );
        let a = m
            .class("http://dbpedia.org/resource/Douglas_Adams")
            .unwrap();
        let b = m.class("http://rdf.freebase.com/ns/m.0282x").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.unwrap().size, 3);
        assert_eq!(m.class("http://e.org/unknown").unwrap(), None);
        assert_eq!(m.label_iris("douglas  ADAMS").unwrap().len(), 1);
        assert_eq!(
            m.types("https://www.wikidata.org/wiki/Q42").unwrap().len(),
            1
        );
        assert!(m.has_types());
    }
}
