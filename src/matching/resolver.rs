//! Term comparison with a profile's rules and, optionally, an index: the keys of
//! every answer on one side (through the sameAs closure and labels), duplicate
//! removal, and the index lookups cached for one evaluation.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::key::{term_keys, Key, Prepared};
use super::{IriRule, LabelRule, LiteralRule, MatchOptions, Side, MAX_LABEL_CANDIDATES};
use crate::index::{Class, Equivalence, IndexError};
use crate::model::{Answer, Term};
use crate::terms::canonical::{canonical_iri, gerbil_iri};
use crate::terms::literal::{is_date_datatype, is_numeric_datatype, xsd_local};

/// Computes keys without an index and removes duplicates (see [`Resolver::prepare`]).
pub fn prepare(answers: &[Answer], opts: MatchOptions) -> Vec<Prepared> {
    Resolver::new(opts, None).prepare(answers, Side::Gold, true)
}

/// Term comparison with the chosen rules and, optionally, an index; caches index
/// lookups for the lifetime of one evaluation and collects index read errors.
pub struct Resolver<'a> {
    opts: MatchOptions,
    index: Option<&'a dyn Equivalence>,
    classes: RefCell<FxHashMap<String, Option<Class>>>,
    members: RefCell<FxHashMap<u32, Rc<Vec<String>>>>,
    labels: RefCell<FxHashMap<String, Rc<Vec<String>>>>,
    errors: RefCell<Vec<String>>,
}

impl<'a> Resolver<'a> {
    /// A resolver with the given rules and index.
    pub fn new(opts: MatchOptions, index: Option<&'a dyn Equivalence>) -> Resolver<'a> {
        Resolver {
            opts,
            index,
            classes: RefCell::default(),
            members: RefCell::default(),
            labels: RefCell::default(),
            errors: RefCell::default(),
        }
    }

    /// The rules in use.
    pub fn options(&self) -> MatchOptions {
        self.opts
    }

    /// True when an index is available.
    pub fn has_index(&self) -> bool {
        self.index.is_some()
    }

    /// Index read errors met so far (each once), emptied.
    pub fn take_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.errors.borrow_mut())
    }

    fn note_error(&self, e: IndexError) {
        let message = crate::error_chain(&e);
        let mut errors = self.errors.borrow_mut();
        if !errors.contains(&message) {
            errors.push(message);
        }
    }

    /// The sameAs class of an IRI (`None`: a class of one, or no index).
    pub fn class(&self, iri: &str) -> Option<Class> {
        self.index?;
        self.class_canonical(&canonical_iri(iri))
    }

    /// The sameAs class of an IRI in canonical form, cached.
    fn class_canonical(&self, canonical: &str) -> Option<Class> {
        let index = self.index?;
        if let Some(c) = self.classes.borrow().get(canonical) {
            return *c;
        }
        let c = index.class_of_canonical(canonical).unwrap_or_else(|e| {
            self.note_error(e);
            None
        });
        self.classes.borrow_mut().insert(canonical.to_string(), c);
        c
    }

    fn members(&self, class: Class) -> Rc<Vec<String>> {
        let Some(index) = self.index else {
            return Rc::default();
        };
        if let Some(m) = self.members.borrow().get(&class.id) {
            return Rc::clone(m);
        }
        let m = Rc::new(index.members(class.id).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        }));
        self.members.borrow_mut().insert(class.id, Rc::clone(&m));
        m
    }

    fn label_iris(&self, label: &str) -> Rc<Vec<String>> {
        let Some(index) = self.index else {
            return Rc::default();
        };
        if let Some(l) = self.labels.borrow().get(label) {
            return Rc::clone(l);
        }
        let mut iris = index.label_iris(label).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        });
        iris.truncate(MAX_LABEL_CANDIDATES);
        let iris = Rc::new(iris);
        self.labels
            .borrow_mut()
            .insert(label.to_string(), Rc::clone(&iris));
        iris
    }

    /// The types of an IRI in the index (empty without one).
    pub fn types(&self, iri: &str) -> Vec<String> {
        let Some(index) = self.index else {
            return Vec::new();
        };
        index.types(iri).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        })
    }

    /// True when the index holds types.
    pub fn has_types(&self) -> bool {
        self.index
            .is_some_and(super::super::index::equivalence::Equivalence::has_types)
    }

    /// The keys of an IRI on one side.
    fn iri_keys(&self, iri: &str, side: Side, out: &mut Vec<Key>) {
        match self.opts.iri {
            IriRule::Exact => out.push(Key::Exact(iri.to_string())),
            IriRule::Equivalent => {
                let canonical = canonical_iri(iri);
                let class = self.class_canonical(&canonical);
                out.push(Key::Iri(canonical));
                if let Some(c) = class {
                    out.push(Key::Class(c));
                }
            }
            IriRule::RunClosure => {
                out.push(Key::Iri(gerbil_iri(iri)));
                if side == Side::Run {
                    if let Some(c) = self.class(iri) {
                        for m in self.members(c).iter() {
                            out.push(Key::Member(gerbil_iri(m), c.size));
                        }
                    }
                }
            }
        }
    }

    /// The keys of one term: direct keys, keys through labels, and the number of
    /// answers it counts as.
    fn term_keys(
        &self,
        term: &Term,
        side: Side,
        other_has_iris: bool,
        keys: &mut Vec<Key>,
        via_label: &mut Vec<Key>,
    ) -> usize {
        let lexical = match term {
            Term::Iri(iri) => {
                self.iri_keys(iri, side, keys);
                return 1;
            }
            Term::Boolean(b) => {
                keys.push(Key::Bool(*b));
                return 1;
            }
            Term::Literal { lexical, .. } => lexical,
        };
        match (self.opts.literal, self.opts.iri) {
            (_, IriRule::Exact) | (LiteralRule::Exact, _) => keys.push(Key::Exact(lexical.clone())),
            (LiteralRule::Typed, _) => term_keys(term, self.opts, keys),
        }
        if self.index.is_none() || !is_stringish(term) {
            return 1;
        }
        match self.opts.label {
            LabelRule::Off => 1,
            LabelRule::OneAnswer => {
                for iri in self.label_iris(lexical).iter() {
                    self.iri_keys(iri, Side::Gold, via_label);
                }
                1
            }
            LabelRule::EachCandidate => {
                if side != Side::Run || !other_has_iris {
                    return 1;
                }
                let candidates = self.label_iris(lexical);
                for iri in candidates.iter() {
                    self.iri_keys(iri, Side::Run, via_label);
                }
                candidates.len().max(1)
            }
        }
    }

    /// Computes keys and removes duplicates. An answer of one distinct term is a
    /// duplicate of an earlier one-term answer it is equivalent to; a row of several
    /// distinct terms is a duplicate of an earlier row with the same terms (rows that
    /// merely share a term are different answers). Keys reached through labels never
    /// make duplicates. `other_has_iris` says whether the other side holds IRIs
    /// (GERBIL's label rule applies only then). Returns the kept answers in order.
    pub fn prepare(&self, answers: &[Answer], side: Side, other_has_iris: bool) -> Vec<Prepared> {
        self.prepare_inner(answers, side, other_has_iris, true)
    }

    /// Computes keys and keeps every answer, duplicates too (GERBIL's markings).
    pub fn prepare_list(&self, answers: &[Answer], side: Side) -> Vec<Prepared> {
        self.prepare_inner(answers, side, true, false)
    }

    fn prepare_inner(
        &self,
        answers: &[Answer],
        side: Side,
        other_has_iris: bool,
        dedupe: bool,
    ) -> Vec<Prepared> {
        // keys of every answer, and for rows of several distinct terms their signature
        let mut all: Vec<(Prepared, Option<Vec<Key>>)> = Vec::with_capacity(answers.len());
        for (index, answer) in answers.iter().enumerate() {
            let mut keys = Vec::with_capacity(answer.terms.len() * 2);
            let mut via_label = Vec::new();
            let mut primary = Vec::new();
            let mut weight = 1;
            for term in &answer.terms {
                let start = keys.len();
                weight = weight.max(self.term_keys(
                    term,
                    side,
                    other_has_iris,
                    &mut keys,
                    &mut via_label,
                ));
                if answer.terms.len() > 1 {
                    if let Some(first) = keys.get(start) {
                        primary.push(first.clone());
                    }
                }
            }
            for list in [&mut keys, &mut via_label] {
                if list.len() > 1 {
                    list.sort_unstable();
                    list.dedup();
                }
            }
            primary.sort_unstable();
            primary.dedup();
            all.push((
                Prepared {
                    index,
                    keys,
                    via_label,
                    weight,
                },
                (primary.len() > 1).then_some(primary),
            ));
        }
        let mut keep = vec![false; all.len()];
        {
            let mut seen: FxHashSet<&Key> = FxHashSet::default();
            seen.reserve(all.len() * 2);
            let mut seen_rows: FxHashSet<&[Key]> = FxHashSet::default();
            for (i, (p, row)) in all.iter().enumerate() {
                if p.keys.is_empty() {
                    continue;
                }
                if !dedupe {
                    keep[i] = true;
                    continue;
                }
                keep[i] = match row {
                    Some(signature) => seen_rows.insert(signature.as_slice()),
                    None => {
                        let duplicate = p.keys.iter().any(|k| k.each_lookup(|l| seen.contains(l)));
                        if !duplicate {
                            seen.extend(p.keys.iter());
                        }
                        !duplicate
                    }
                };
            }
        }
        all.into_iter()
            .enumerate()
            .filter(|(i, _)| keep[*i])
            .map(|(_, (p, _))| p)
            .collect()
    }
}

/// True for a literal that may be a label: no numeric, date or boolean datatype.
fn is_stringish(term: &Term) -> bool {
    match term {
        Term::Literal {
            lexical, datatype, ..
        } => {
            !lexical.trim().is_empty()
                && datatype.as_deref().is_none_or(|dt| {
                    !is_numeric_datatype(dt)
                        && !is_date_datatype(dt)
                        && xsd_local(dt) != Some("boolean")
                })
        }
        _ => false,
    }
}
