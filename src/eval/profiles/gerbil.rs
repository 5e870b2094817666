//! The `gerbil` profile: reproduces the GERBIL QA platform's scoring, as the
//! `gerbil` column of docs/scoring.md (Profiles) reads GERBIL's QA
//! code. One difference we know of: the run IRI's class is looked up by its
//! canonical form (the index stores canonical keys), where GERBIL would look up
//! the IRI as written. `tests/integration/profiles.rs` checks it on QALD runs.

use std::borrow::Cow;

use super::Rules;
use crate::annotate::MarkingStyle;
use crate::eval::Experiment;
use crate::matching::{IriRule, LabelRule, LiteralRule, MatchOptions};
use crate::model::{looks_like_iri, Answer, AnswerSet, Term};

/// The rules of the `gerbil` profile. A rule not written here is the default
/// of [`Rules`] (`judge`'s), which is GERBIL's too: the run IRI's class and the
/// labels come from the index; every answer set is scored by the ordinary
/// rules, a missing question as an empty answer, by the counts' P/R/F1 with
/// Macro F1 QALD, micro and macro measures reported. The order score of
/// docs/scoring.md (Executing SPARQL) is qajudge's, added beside GERBIL's
/// figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gerbil;

impl Rules for Gerbil {
    /// GERBIL's term rules, whatever the user's switches: only GERBIL's few
    /// canonical rules (`en.dbpedia.org`, the last segment percent-decoded,
    /// Wikipedia ↔ DBpedia) and the sameAs class of the run's IRI (the gold is
    /// not expanded); literals by their exact, case-sensitive value; a run string
    /// against gold IRIs becomes one answer per IRI carrying its label (one TP at
    /// most, the rest FP; none found: the string itself).
    fn match_options(&self, _strict_literals: bool, _lenient_dates: bool) -> MatchOptions {
        MatchOptions {
            strict_literals: true,
            lenient_dates: false,
            iri: IriRule::RunClosure,
            literal: LiteralRule::Exact,
            label: LabelRule::EachCandidate,
        }
    }

    /// GERBIL reads every bound value as its own answer (rows flattened) and
    /// types the set as a whole: IRIs only if every value looks like an IRI,
    /// otherwise every value a string.
    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        let values = set.answers.iter().flat_map(|a| &a.terms);
        let all_iris = values.clone().all(|t| match t {
            Term::Iri(i) => looks_like_iri(i),
            Term::Literal { lexical, .. } => looks_like_iri(lexical.trim()),
            Term::Boolean(_) => false,
        });
        Cow::Owned(
            values
                .map(|t| {
                    Answer::single(match t {
                        Term::Boolean(b) => Term::Boolean(*b),
                        Term::Iri(i) | Term::Literal { lexical: i, .. } if all_iris => {
                            Term::Iri(i.trim().to_string())
                        }
                        Term::Iri(i) | Term::Literal { lexical: i, .. } => Term::plain(i.clone()),
                    })
                })
                .collect(),
        )
    }

    /// GERBIL has neither AIT2KB nor the split of C2KB into entities and classes.
    fn experiments(&self, e: Experiment) -> bool {
        !matches!(
            e,
            Experiment::Ait2kb | Experiment::C2kbEntities | Experiment::C2kbClasses
        )
    }

    /// As GERBIL's code derives markings: `rdf:type` a property and its class a
    /// resource, property paths and variable predicates stop the walk, FILTER,
    /// sub-queries and VALUES not walked.
    fn marking_style(&self) -> MarkingStyle {
        MarkingStyle::Gerbil
    }

    /// GERBIL QA gives up on a system that makes too many single errors;
    /// qajudge's threshold for it: more than half of the calls failed, checked
    /// after 10 calls.
    fn live_error_threshold(&self) -> Option<f64> {
        Some(0.5)
    }

    /// GERBIL keeps duplicate markings.
    fn keep_duplicate_markings(&self) -> bool {
        true
    }

    /// GERBIL scores a question without markings on both sides 1.0, and
    /// scores every run whether or not it gave markings.
    fn empty_markings_score(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{iri, set};
    use super::super::Profile;
    use super::*;

    #[test]
    fn gerbil_flattens_rows_and_types_sets_whole() {
        let s = set(
            vec![
                vec![iri("http://e.org/a"), Term::plain("http://e.org/b")],
                vec![iri("http://e.org/c")],
            ],
            2,
            None,
        );
        let a = Profile::Gerbil.answers(&s);
        assert_eq!(a.len(), 3);
        assert!(a.iter().all(|a| a.terms.len() == 1 && a.terms[0].is_iri()));
        // one value that is not an IRI makes every value a string
        let s = set(
            vec![vec![iri("http://e.org/a")], vec![Term::plain("Berlin")]],
            1,
            None,
        );
        let a = Profile::Gerbil.answers(&s);
        assert!(a.iter().all(|a| matches!(a.terms[0], Term::Literal { .. })));
        // judge keeps rows
        assert_eq!(Profile::Judge.answers(&s).len(), 2);
    }
}
