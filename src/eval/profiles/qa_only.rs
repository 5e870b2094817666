//! The rules the profiles named after an official script share (docs/scoring.md,
//! Other benchmark families): QA only, answers as read, nothing decided from
//! their shape, a question the run lacks an empty answer, the counts' P/R/F1,
//! every live question asked, no order scored, the official script's figures
//! beside. They differ in their term rules (the judge's, or exact values) and
//! in whether micro measures are reported; each profile's file declares its
//! [`QaOnly`] with the reason for each.

use std::borrow::Cow;

use super::{Judge, Official, Rules};
use crate::annotate::MarkingStyle;
use crate::eval::Experiment;
use crate::matching::{IriRule, LabelRule, LiteralRule, MatchOptions};
use crate::metrics::{score_question, QuestionScore};
use crate::model::{Answer, AnswerSet};

/// A QA-only profile that reproduces an official script.
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
    fn match_options(&self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        if self.judge_terms {
            Judge.match_options(strict_literals, lenient_dates)
        } else {
            MatchOptions {
                strict_literals: true,
                lenient_dates: false,
                iri: IriRule::Exact,
                literal: LiteralRule::Exact,
                label: LabelRule::Off,
            }
        }
    }

    fn uses_index(&self) -> bool {
        self.judge_terms
    }

    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        Cow::Borrowed(&set.answers)
    }

    fn structural_zero(&self, _gold: &AnswerSet, _run: &AnswerSet) -> Option<QuestionScore> {
        None
    }

    fn missing(&self, gold: usize) -> QuestionScore {
        self.score(gold, 0, 0)
    }

    fn score(&self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        score_question(gold, run, tp)
    }

    fn experiments(&self, e: Experiment) -> bool {
        e == Experiment::Qa
    }

    fn marking_style(&self) -> MarkingStyle {
        MarkingStyle::Judge
    }

    fn live_error_threshold(&self) -> Option<f64> {
        None
    }

    fn keep_duplicate_markings(&self) -> bool {
        false
    }

    fn empty_markings_score(&self) -> bool {
        false
    }

    fn orders_by_query(&self) -> bool {
        false
    }

    fn scores_value_sets(&self) -> bool {
        false
    }

    fn reports_micro(&self) -> bool {
        self.reports_micro
    }

    fn official(&self) -> Option<&'static dyn Official> {
        Some(self.official)
    }
}
