//! The rules the profiles named after an official script share (docs/scoring.md,
//! Other benchmark families): QA only, answers as read, nothing decided from
//! their shape, a question the run lacks an empty answer, the counts' P/R/F1,
//! every live question asked, no order scored, the official script's figures
//! beside. They differ in their term rules (the judge's, or exact values) and
//! in whether micro measures are reported; each profile's file declares its
//! [`QaOnly`] with the reason for each.

use super::{Judge, Official, Rules, EXACT_TERMS};
use crate::eval::Experiment;
use crate::matching::MatchOptions;

/// A QA-only profile that reproduces an official script. The rules not
/// written here are the defaults of [`Rules`] (`judge`'s): answers as read,
/// nothing decided from their shape, a missing question an empty answer, the
/// counts' P/R/F1, every live question asked; the markings' rules do not
/// matter, markings are not scored.
pub struct QaOnly {
    /// True: the judge's term rules (canonical IRIs and the index's closure,
    /// typed literals, labels); false: exact values, no index.
    pub judge_terms: bool,
    /// True when micro measures are part of the profile's report.
    pub reports_micro: bool,
    /// The script whose figures the profile reports.
    pub official: &'static dyn Official,
}

impl Rules for QaOnly {
    /// The judge's term rules, or exact values whatever the user's switches
    /// (`judge_terms`).
    fn match_options(&self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        if self.judge_terms {
            Judge.match_options(strict_literals, lenient_dates)
        } else {
            EXACT_TERMS
        }
    }

    /// Only the judge's term rules use the index.
    fn uses_index(&self) -> bool {
        self.judge_terms
    }

    /// The scripts score answers only.
    fn experiments(&self, e: Experiment) -> bool {
        e == Experiment::Qa
    }

    /// The scripts do not score the order of answers.
    fn orders_by_query(&self) -> bool {
        false
    }

    /// As the profile's file declares (`reports_micro`).
    fn reports_micro(&self) -> bool {
        self.reports_micro
    }

    /// The profile's script.
    fn official(&self) -> Option<&'static dyn Official> {
        Some(self.official)
    }
}
