//! Question features named by an index's labels: [`features_of`] computes
//! every question's features (`super::features`) with the names of its
//! entities, relations and classes read from an index of format 5 or later
//! (`Index::name`: the label in the asked language, else English, else any,
//! through the IRI's owl:sameAs class), remembering each IRI's name and the
//! first read error. [`features_named_if_possible`] is the form for callers
//! whose index serves scoring first (the server, `evaluate`): an index without
//! names gives local names there instead of an error.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::index::{Index, IndexError};
use crate::model::Dataset;

use super::QuestionFeatures;

/// Names IRIs by an index's labels for the feature computation, remembering
/// each IRI's name and the first error (the lookup itself cannot fail: an IRI
/// whose name cannot be read is named by its local name, and the error is
/// returned by [`IndexNames::finish`]).
struct IndexNames<'a> {
    index: &'a Index,
    lang: &'a str,
    max_class: usize,
    known: RefCell<HashMap<String, Option<String>>>,
    error: RefCell<Option<IndexError>>,
}

impl<'a> IndexNames<'a> {
    fn new(index: &'a Index, lang: &'a str, max_class: usize) -> Self {
        IndexNames {
            index,
            lang,
            max_class,
            known: RefCell::default(),
            error: RefCell::default(),
        }
    }

    /// The name of an IRI (see `Index::name`), `None` when the index has none.
    fn lookup(&self, iri: &str) -> Option<String> {
        if let Some(known) = self.known.borrow().get(iri) {
            return known.clone();
        }
        if self.error.borrow().is_some() {
            return None;
        }
        let name = match self.index.name(iri, self.lang, self.max_class) {
            Ok(name) => name,
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                return None;
            }
        };
        self.known
            .borrow_mut()
            .insert(iri.to_string(), name.clone());
        name
    }

    /// The first error met, if any.
    fn finish(self) -> Result<(), IndexError> {
        self.error.into_inner().map_or(Ok(()), Err)
    }
}

/// The features of every question of a benchmark, with names from `index`'s
/// labels when given (an index without names is an error that says to rebuild
/// it; an IRI's owl:sameAs class is looked through up to `max_class` IRIs),
/// else from local names. The CLI's `features`, `sample` and `evaluate
/// --explain-failures` and the server's features, sample and failure
/// explanations all name IRIs through it.
pub fn features_of(
    dataset: &Dataset,
    lang: &str,
    index: Option<&Index>,
    max_class: usize,
) -> Result<Vec<QuestionFeatures>, IndexError> {
    let Some(index) = index else {
        return Ok(QuestionFeatures::of_dataset(dataset, lang, None));
    };
    if !index.has_names() {
        return Err(IndexError::NoNames {
            path: index.dir().to_path_buf(),
            found: index.meta().format_version,
        });
    }
    let names = IndexNames::new(index, lang, max_class);
    let lookup = |iri: &str| names.lookup(iri);
    let all = QuestionFeatures::of_dataset(dataset, lang, Some(&lookup));
    names.finish()?;
    Ok(all)
}

/// As [`features_of`], but an index without names (format 4, still read for
/// scoring) names IRIs by their local names instead of being an error.
pub fn features_named_if_possible(
    dataset: &Dataset,
    lang: &str,
    index: Option<&Index>,
    max_class: usize,
) -> Result<Vec<QuestionFeatures>, IndexError> {
    features_of(dataset, lang, index.filter(|i| i.has_names()), max_class)
}
