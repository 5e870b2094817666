//! What statements say, sorted into the facts an index holds: equivalence links
//! (with their ends' keys worked out on the reading threads), labels and types,
//! gathered per block into a batch and then into the build's state.

use super::closure::{Closure, Endpoint};
use super::statement::{Obj, Sink, Stmt};
use super::write::{label_rank, Postings};
use crate::index::hash::iri_key_and_check;
use crate::index::labels::normalize_label;
use crate::terms::canonical::{canonical_form, canonical_iri, freebase_literal_iri};

const SCHEMA_ABOUT: &str = "http://schema.org/about";
const WDT_P646: &str = "http://www.wikidata.org/prop/direct/P646";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const WDT_P31: &str = "http://www.wikidata.org/prop/direct/P31";

pub(super) fn host(iri: &str) -> &str {
    let rest = iri.split_once("://").map_or(iri, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

/// True when an IRI's host is one of `hosts` (lower case) or under one of them.
pub(super) fn excluded(iri: &str, hosts: &[String]) -> bool {
    if hosts.is_empty() {
        return false;
    }
    let h = host(iri).to_ascii_lowercase();
    hosts.iter().any(|x| {
        h == *x
            || (h.len() > x.len()
                && h.ends_with(x.as_str())
                && h.as_bytes()[h.len() - x.len() - 1] == b'.')
    })
}

/// Whether the canonical form of `written` is `written` itself: a borrowed form
/// of the same length is (it is a part of `written`), without comparing bytes.
pub(super) fn as_written(canonical: std::borrow::Cow<'_, str>, written: &str) -> bool {
    match canonical {
        std::borrow::Cow::Borrowed(c) => c.len() == written.len(),
        std::borrow::Cow::Owned(c) => c == written,
    }
}

/// One end of an equivalence link in a batch: its key and check hash, whether it
/// is written in canonical form, and where its written form is in the batch text.
#[derive(Clone, Copy)]
pub(super) struct End {
    key: u64,
    check: u32,
    canonical: bool,
    at: u32,
    len: u32,
}

impl End {
    /// The end written `written`, whose text is appended to `text`.
    pub(super) fn new(written: &str, text: &mut String) -> End {
        let canonical = canonical_form(written);
        let (key, check) = iri_key_and_check(&canonical);
        let at = text.len() as u32;
        text.push_str(written);
        End {
            key,
            check,
            canonical: as_written(canonical, written),
            at,
            len: written.len() as u32,
        }
    }

    /// Its written form in the batch text.
    pub(super) fn written<'t>(&self, text: &'t str) -> &'t str {
        &text[self.at as usize..(self.at + self.len) as usize]
    }
}

/// What the statements of one block say: equivalence links, labels, types.
#[derive(Default)]
pub struct Batch {
    links: Vec<[End; 2]>,
    text: String,
    /// The subject of the last link (dumps give one subject several links in a
    /// row): its canonical form and key are not worked out again.
    last_subject: Option<End>,
    labels: Postings,
    /// (key of the subject's canonical IRI, canonical class IRI, where the
    /// subject's canonical IRI is in `text` and its length)
    types: Vec<(u64, String, u32, u32)>,
    excluded_links: u64,
}

/// One end of a link as [`Batch::links`] hands it out.
pub(super) struct LinkEnd<'t> {
    /// The IRI as written.
    pub(super) written: &'t str,
    /// Whether `written` is its canonical form.
    pub(super) canonical: bool,
}

impl Batch {
    /// The batch's equivalence links, in the order of their statements.
    pub(super) fn links(&self) -> impl Iterator<Item = [LinkEnd<'_>; 2]> {
        let text = self.text.as_str();
        self.links.iter().map(move |ends| {
            ends.map(|e| LinkEnd {
                written: e.written(text),
                canonical: e.canonical,
            })
        })
    }

    /// The batch's labels.
    pub(super) fn labels(&self) -> &Postings {
        &self.labels
    }

    /// The batch's types: (canonical subject IRI, canonical class IRI).
    pub(super) fn types(&self) -> impl Iterator<Item = (&str, &str)> {
        self.types.iter().map(|(_, class, at, len)| {
            (
                &self.text[*at as usize..(*at + *len) as usize],
                class.as_str(),
            )
        })
    }

    /// Equivalence links dropped by `--exclude-host`.
    pub(super) fn excluded_links(&self) -> u64 {
        self.excluded_links
    }
}

/// Sorts statements into facts (runs on the reading threads).
pub(super) struct Classifier<'o> {
    pub(super) equivalence: Vec<&'o str>,
    pub(super) labels: &'o [String],
    pub(super) exclude_hosts: Vec<String>,
}

impl Classifier<'_> {
    pub(super) fn link(&self, a: &str, b: &str, batch: &mut Batch) {
        if excluded(a, &self.exclude_hosts) || excluded(b, &self.exclude_hosts) {
            batch.excluded_links += 1;
            return;
        }
        let ea = match batch.last_subject {
            Some(last) if last.written(&batch.text) == a => last,
            _ => {
                let end = End::new(a, &mut batch.text);
                batch.last_subject = Some(end);
                end
            }
        };
        let eb = End::new(b, &mut batch.text);
        batch.links.push([ea, eb]);
    }
}

impl Sink for Classifier<'_> {
    type Batch = Batch;

    fn clear(batch: &mut Batch) {
        batch.links.clear();
        batch.text.clear();
        batch.last_subject = None;
        batch.labels.clear();
        batch.types.clear();
        batch.excluded_links = 0;
    }

    fn statement(&self, s: Stmt<'_>, batch: &mut Batch) {
        let Some(subject) = s.subject else { return };
        let p = s.predicate;
        match s.object {
            Obj::Iri(o) => {
                if self.equivalence.contains(&p) {
                    self.link(subject, o, batch);
                } else if p == SCHEMA_ABOUT && host(subject).ends_with("wikipedia.org") {
                    // Wikidata sitelink: <https://xx.wikipedia.org/wiki/T> schema:about wd:Q
                    self.link(subject, o, batch);
                } else if p == RDF_TYPE || p == WDT_P31 {
                    let subject = canonical_form(subject);
                    let (key, _) = iri_key_and_check(&subject);
                    let at = batch.text.len() as u32;
                    batch.text.push_str(&subject);
                    batch
                        .types
                        .push((key, canonical_iri(o), at, subject.len() as u32));
                }
            }
            Obj::Literal(value, lang) => {
                if p == WDT_P646 {
                    if let Some(freebase) = freebase_literal_iri(value) {
                        self.link(subject, &freebase, batch);
                    }
                } else if self.labels.iter().any(|l| l == p) {
                    batch.labels.push(
                        &normalize_label(value),
                        &lang.unwrap_or("").to_ascii_lowercase(),
                        &canonical_form(subject),
                        value,
                        label_rank(self.labels, p),
                    );
                }
            }
            Obj::Other => {}
        }
    }
}

/// The state collected from the batches, on the caller's thread.
pub(super) struct Collector {
    pub(super) closure: Closure,
    pub(super) labels: Postings,
    /// (key of the subject, id of the class in `type_names`)
    pub(super) types: Vec<(u64, u32)>,
    pub(super) type_ids: rustc_hash::FxHashMap<String, u32>,
    pub(super) type_names: Vec<String>,
    pub(super) links: u64,
    pub(super) excluded_links: u64,
}

impl Collector {
    pub(super) fn add(&mut self, batch: &mut Batch) -> std::io::Result<()> {
        let text = batch.text.as_str();
        let endpoint = |e: &End| Endpoint {
            key: e.key,
            check: e.check,
            written: e.written(text),
            canonical: e.canonical,
        };
        // a group at a time, in one small buffer, instead of a buffer for the
        // whole batch (a few MB) made and freed per batch
        let mut group = Vec::with_capacity(LINK_GROUP);
        for links in batch.links.chunks(LINK_GROUP) {
            group.clear();
            group.extend(links.iter().map(|[a, b]| (endpoint(a), endpoint(b))));
            self.closure.link_all(&group)?;
        }
        self.links += batch.links.len() as u64;
        self.excluded_links += batch.excluded_links;
        self.labels.append(&mut batch.labels);
        for (key, class, _, _) in batch.types.drain(..) {
            self.add_type(key, class);
        }
        Ok(())
    }

    /// Adds that the IRI with key `key` has the class `class`.
    pub(super) fn add_type(&mut self, key: u64, class: String) {
        let id = match self.type_ids.get(&class) {
            Some(&id) => id,
            None => {
                let id = self.type_names.len() as u32;
                self.type_names.push(class.clone());
                self.type_ids.insert(class, id);
                id
            }
        };
        self.types.push((key, id));
    }
}

/// Links handed to the closure at once.
pub(super) const LINK_GROUP: usize = 256;
