//! The counts of an LLM judge's verdicts (docs/report.md, The LLM judge): how
//! many of each verdict, and whether each came from the cache or a call. Both
//! the answers' judging and the report count with it.

use serde::Serialize;

use super::{Decision, Source, Verdict};

/// How many verdicts of each kind, and where they came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, utoipa::ToSchema)]
pub struct VerdictCounts {
    /// Asks.
    pub asked: usize,
    /// `same` verdicts.
    pub same: usize,
    /// `different` verdicts.
    pub different: usize,
    /// `unsure` verdicts (failed calls and unreadable replies included).
    pub unsure: usize,
    /// Verdicts read from the cache (or from an identical ask of the run).
    pub cached: usize,
    /// Verdicts from a call to the server.
    pub called: usize,
    /// Calls that got no reply (timeout, failed connection, HTTP error, a
    /// body that is no chat-completions answer): `unsure`, not cached.
    pub failed: usize,
    /// Calls whose reply was no verdict in any form read (docs/scoring.md,
    /// The LLM judge): `unsure`, not cached, not counted in `failed`.
    pub unreadable: usize,
    /// Asks not sent: the evaluation's calls or time for the judge were
    /// spent (docs/scoring.md, The LLM judge); `unsure`, not cached.
    pub refused: usize,
    /// `same` verdicts of the first prompt asked again with the second,
    /// independent one. `cached`, `called`, `failed`, `unreadable` and
    /// `refused` count these second asks too: `cached + called + refused =
    /// asked + checked`.
    pub checked: usize,
    /// Of those, the ones the second prompt, asked and answered, did not
    /// confirm (`distinct`, `unclear`, or a reply in none of its words):
    /// counted `unsure`. A second ask refused or without a reply leaves its
    /// `same` `unsure` too, counted in `refused` or `failed` instead.
    pub flipped: usize,
}

impl VerdictCounts {
    /// Counts one decision.
    pub fn add(&mut self, d: &Decision) {
        self.asked += 1;
        match d.verdict {
            Verdict::Same => self.same += 1,
            Verdict::Different => self.different += 1,
            Verdict::Unsure => self.unsure += 1,
        }
        self.source(d.source, d.failed, d.unreadable);
        if let Some(c) = &d.check {
            self.checked += 1;
            self.flipped += usize::from(d.flipped());
            self.source(c.source, c.failed, c.unreadable);
        }
    }

    /// Counts where one verdict came from.
    fn source(&mut self, source: Source, failed: bool, unreadable: bool) {
        match source {
            Source::Cached => self.cached += 1,
            Source::Called => {
                self.called += 1;
                self.failed += usize::from(failed && !unreadable);
                self.unreadable += usize::from(unreadable);
            }
            Source::Refused => self.refused += 1,
        }
    }
}
