//! One RDF statement as the readers hand it on (borrowed, small), and the
//! [`Sink`] that turns statements into what a build collects.

use super::IndexerError;

/// The object of a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obj<'a> {
    /// An IRI.
    Iri(&'a str),
    /// A literal: value, language.
    Literal(&'a str, Option<&'a str>),
    /// A blank node or anything else.
    Other,
}

/// One statement, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stmt<'a> {
    /// The subject IRI (`None` for a blank node).
    pub subject: Option<&'a str>,
    /// The predicate IRI.
    pub predicate: &'a str,
    /// The object.
    pub object: Obj<'a>,
}

/// What turns statements into facts: called from worker threads, each with its
/// own batch.
pub trait Sink: Sync {
    /// What one block of statements gives.
    type Batch: Send + Default;
    /// Adds what a statement says to a batch.
    fn statement(&self, s: Stmt<'_>, batch: &mut Self::Batch);
    /// Empties a batch the caller is done with, keeping its buffers for reuse.
    fn clear(batch: &mut Self::Batch);
}

/// The caller's side: takes each batch in file order, with the number of (stored)
/// bytes read so far and the number of statements in the batch.
pub type OnBatch<'a, B> = dyn FnMut(&mut B, u64, u64) -> Result<(), IndexerError> + 'a;
