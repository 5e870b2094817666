//! The `judge` profile, the default: qajudge's own rules, docs/scoring.md as
//! written (docs/scoring.md, the `judge` column of the Profiles table). It
//! reproduces no other tool; the other profiles' files say where they depart
//! from it.

use std::borrow::Cow;

use super::Rules;
use crate::annotate::MarkingStyle;
use crate::eval::Experiment;
use crate::matching::{IriRule, LabelRule, LiteralRule, MatchOptions};
use crate::metrics::{score_question, QuestionScore};
use crate::model::{Answer, AnswerSet};

/// The rules of the `judge` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Judge;

impl Rules for Judge {
    /// IRIs by canonical form and the index's sameAs closure on both sides
    /// (docs/scoring.md, Sameness), literals by the typed rules of docs/scoring.md (Sameness) with the user's
    /// `--strict-literals` and `--lenient-dates` (only `judge` honours them), a
    /// string answer against IRI gold one answer matched through the label index.
    fn match_options(&self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        MatchOptions {
            strict_literals,
            lenient_dates,
            iri: IriRule::Equivalent,
            literal: LiteralRule::Typed,
            label: LabelRule::OneAnswer,
        }
    }

    /// The closure and the labels come from the index: without one, IRIs are
    /// compared by canonical form only and strings never meet IRIs.
    fn uses_index(&self) -> bool {
        true
    }

    /// As read: one answer per binding row, its terms alternatives, each term
    /// typed on its own.
    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        Cow::Borrowed(&set.answers)
    }

    /// None: the shape of the answers decides nothing, the ordinary rules do.
    fn structural_zero(&self, _gold: &AnswerSet, _run: &AnswerSet) -> Option<QuestionScore> {
        None
    }

    /// A question the run does not have scores as an empty answer.
    fn missing(&self, gold: usize) -> QuestionScore {
        self.score(gold, 0, 0)
    }

    /// docs/scoring.md (Counting): precision, recall and F1 of the counts, and the QALD variants.
    fn score(&self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        score_question(gold, run, tp)
    }

    /// Every sub-experiment of docs/scoring.md (Sub-experiments).
    fn experiments(&self, _e: Experiment) -> bool {
        true
    }

    /// docs/scoring.md (Sub-experiments): the whole query is walked.
    fn marking_style(&self) -> MarkingStyle {
        MarkingStyle::Judge
    }

    /// Every question is asked of a live system, however many calls fail
    /// (docs/scoring.md, Live systems that fail): a run whose every call
    /// failed is a failed run, not a score.
    fn live_error_threshold(&self) -> Option<f64> {
        None
    }

    /// Markings are sets: duplicates count once.
    fn keep_duplicate_markings(&self) -> bool {
        false
    }

    /// No score for data nobody gave (docs/scoring.md, Sub-experiments): a
    /// question whose gold has no usable source, or an empty marking set, is
    /// not evaluable for that sub-experiment, and a run with no source of
    /// markings for it (no query, no annotation of that kind) is not scored.
    fn empty_markings_score(&self) -> bool {
        false
    }

    /// docs/scoring.md (Executing SPARQL): ORDER BY in the gold query, or the flag, scores the order.
    fn orders_by_query(&self) -> bool {
        true
    }

    /// QA answers are matched term by term with `match_options` above.
    fn scores_value_sets(&self) -> bool {
        false
    }

    /// Everything of docs/scoring.md (Aggregates) is reported, micro measures included.
    fn reports_micro(&self) -> bool {
        true
    }

    /// None: no official script's own figures.
    fn official(&self) -> Option<&'static dyn super::Official> {
        None
    }
}
