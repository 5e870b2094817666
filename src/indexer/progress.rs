//! What a build tells its caller while it runs: the file being read, bytes and
//! statements read, and the phase after reading (the CLI draws a bar and times
//! the phases).

use std::path::Path;

/// A phase of a build after reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The union-find is finished: forest flattened, classes numbered, keys sorted.
    Closure,
    /// Spellings are grouped by class and the members written.
    Grouping,
    /// The IRI table (key → class) is written.
    WritingIriTable,
    /// The type and label indexes are written.
    WritingTypesAndLabels,
    /// The finished index replaces the previous one.
    Renaming,
}

impl Phase {
    /// Its name in progress reports.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Closure => "closure",
            Phase::Grouping => "grouping classes",
            Phase::WritingIriTable => "writing the IRI table",
            Phase::WritingTypesAndLabels => "writing types and labels",
            Phase::Renaming => "renaming into place",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Progress of a build, reported to the caller (the CLI draws a bar).
pub trait Progress {
    /// A file is about to be read.
    fn file(&mut self, path: &Path, bytes: u64);
    /// More bytes and statements were read.
    fn advance(&mut self, bytes: u64, statements: u64);
    /// A phase after reading started.
    fn phase(&mut self, phase: Phase);
}

/// Progress that reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn file(&mut self, _: &Path, _: u64) {}
    fn advance(&mut self, _: u64, _: u64) {}
    fn phase(&mut self, _: Phase) {}
}
