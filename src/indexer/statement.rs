//! What the readers share: one RDF statement as they hand it on (borrowed,
//! small), the [`Sink`] that turns statements into what a build collects, the
//! file being read and what reading it gave ([`FileStats`]).

use std::path::Path;

use super::decompress::Tally;
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

/// A malformed statement: 1-based line and column, message.
pub(super) type Located = (u64, u64, String);

/// What reading one file gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Bytes of the file as stored.
    pub bytes: u64,
    /// XXH3-64 checksum of those bytes.
    pub xxh3_64: u64,
    /// Statements read.
    pub statements: u64,
    /// Malformed statements skipped (lenient reading).
    pub skipped: u64,
    /// The first malformed statement's location and message, when any.
    pub first_error: Option<String>,
    /// Lines read by the reference parser because the fast reader was unsure.
    pub slow_lines: u64,
    /// Problems that did not stop the read (lenient reading).
    pub warnings: Vec<String>,
}

impl FileStats {
    /// A malformed statement: the error that stops a strict read, or (lenient)
    /// the first one kept for the metadata. The caller counts skipped statements.
    pub(super) fn malformed(
        &mut self,
        path: &Path,
        lenient: bool,
        (line, column, message): Located,
    ) -> Result<(), IndexerError> {
        if !lenient {
            return Err(IndexerError::Syntax {
                path: path.display().to_string(),
                line,
                column,
                message,
            });
        }
        if self.first_error.is_none() {
            self.first_error = Some(format!("{line}:{column}: {message}"));
        }
        Ok(())
    }
}

/// The file being read.
pub(super) struct Input<'a> {
    pub(super) path: &'a Path,
    pub(super) tally: &'a Tally,
}
