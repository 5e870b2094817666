//! The `mqald` profile: reproduces the evaluation tool published with MQALD (its
//! `Eval`), as the `mqald` column of docs/scoring.md (Profiles) reads
//! it: exact strings, the first answer object only, structural zeros, QALD
//! precision per question, and macro figures only. `tests/integration/profiles.rs`
//! checks the tool's figures on the three MQALD runs to the last digit.

use std::borrow::Cow;

use super::{Rules, EXACT_TERMS};
use crate::eval::Experiment;
use crate::matching::MatchOptions;
use crate::metrics::{score_question, QuestionScore};
use crate::model::{Answer, AnswerSet, FirstObject, Term};

/// The rules of the `mqald` profile. A rule not written here is the default
/// of [`Rules`] (`judge`'s): Eval scores files, not live systems, so every
/// question is asked; markings are not scored (qajudge's walk still gives the
/// features); the order score of docs/scoring.md (Executing SPARQL) is
/// qajudge's, added beside Eval's figures; no official script's own figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mqald;

impl Rules for Mqald {
    /// Eval compares value strings: IRIs and literals by their exact string
    /// (an IRI equals a literal with the same text), no labels, whatever the
    /// user's switches.
    fn match_options(&self, _strict_literals: bool, _lenient_dates: bool) -> MatchOptions {
        EXACT_TERMS
    }

    /// Exact strings need no index.
    fn uses_index(&self) -> bool {
        false
    }

    /// Eval reads the first answer object only, and compares the values as
    /// written (an inline datatype such as `5.0^^…usDollar` stays part of the
    /// value), not as the reader understood them.
    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        let n = set
            .first_object
            .map_or(set.answers.len(), |f| f.answers.min(set.answers.len()));
        let first = &set.answers[..n];
        if !set.raw_values.iter().any(|(a, _, _)| *a < n) {
            return Cow::Borrowed(first);
        }
        // compare the values as written, not as the reader understood them
        let mut owned = first.to_vec();
        for (a, t, raw) in &set.raw_values {
            if let Some(term) = owned.get_mut(*a).and_then(|x| x.terms.get_mut(*t)) {
                *term = Term::plain(raw.clone());
            }
        }
        Cow::Owned(owned)
    }

    /// Eval's checks before the empty rules, on the first answer objects: an ASK
    /// answer against a SELECT answer, a different number of variables in gold
    /// and run, or more than one variable score 0; two boolean answers score 1
    /// when equal, else 0. `None` when the ordinary rules apply.
    fn structural_zero(&self, gold: &AnswerSet, run: &AnswerSet) -> Option<QuestionScore> {
        let ((gb, gv), (rb, rv)) = (first_object(gold), first_object(run));
        let zero = QuestionScore {
            fn_: usize::from(gb.is_some() || !gold.answers.is_empty()),
            ..QuestionScore::default()
        };
        match (gb, rb) {
            (Some(g), Some(r)) => Some(if g == r {
                score_question(1, 1, 1)
            } else {
                zero
            }),
            (Some(_), None) | (None, Some(_)) => Some(zero),
            (None, None) if gv != rv || gv != 1 => Some(zero),
            (None, None) => None,
        }
    }

    /// Eval scores a question the run does not have P = 1, R = 0, F = 0.
    fn missing(&self, gold: usize) -> QuestionScore {
        QuestionScore {
            fn_: gold,
            precision: 1.0,
            precision_qald: 1.0,
            ..QuestionScore::default()
        }
    }

    /// Eval's per-question precision and recall are those of the QALD rule (an
    /// empty run answer has P = 1).
    fn score(&self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        let s = score_question(gold, run, tp);
        QuestionScore {
            precision: s.precision_qald,
            recall: s.recall_qald,
            ..s
        }
    }

    /// Eval scores answer sets only.
    fn experiments(&self, e: Experiment) -> bool {
        e == Experiment::Qa
    }

    /// Eval reports macro P, macro R, the mean per-question F and F-QALD; the
    /// aggregate's `micro` is `null`.
    fn reports_micro(&self) -> bool {
        false
    }
}

/// The boolean of a set's first answer object, if it is an ASK answer, and its
/// number of variables (the whole set when the reader marked no first object).
fn first_object(s: &AnswerSet) -> (Option<bool>, usize) {
    let f = s.first_object.unwrap_or(FirstObject {
        answers: s.answers.len(),
        vars: s.vars.len(),
    });
    let answers = &s.answers[..f.answers.min(s.answers.len())];
    let boolean = answers.iter().find_map(|a| match a.terms.as_slice() {
        [Term::Boolean(b)] => Some(*b),
        _ => None,
    });
    (boolean, f.vars)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{iri, set};
    use super::super::Profile;
    use super::*;

    #[test]
    fn mqald_first_object_and_variables() {
        let two_objects = set(
            vec![vec![iri("http://e.org/a")], vec![iri("http://e.org/b")]],
            1,
            Some(1),
        );
        assert_eq!(Profile::Mqald.answers(&two_objects).len(), 1);
        assert_eq!(Profile::Judge.answers(&two_objects).len(), 2);
        let one_var = set(vec![vec![iri("http://e.org/a")]], 1, Some(1));
        let two_vars = set(
            vec![vec![iri("http://e.org/a"), iri("http://e.org/b")]],
            2,
            Some(1),
        );
        // different number of variables: 0, even before the empty rules
        let empty_two_vars = set(vec![], 2, Some(0));
        let z = Profile::Mqald
            .structural_zero(&one_var, &empty_two_vars)
            .expect("zero");
        assert_eq!(
            (z.precision, z.recall, z.f1, z.precision_qald),
            (0.0, 0.0, 0.0, 0.0)
        );
        // more than one variable on both sides: 0
        assert!(Profile::Mqald
            .structural_zero(&two_vars, &two_vars)
            .is_some());
        // one variable each: ordinary rules
        assert!(Profile::Mqald.structural_zero(&one_var, &one_var).is_none());
        // values compare as written: an inline datatype stays part of the value
        let mut inline = set(
            vec![vec![Term::typed(
                "5.0",
                "http://dbpedia.org/datatype/usDollar",
            )]],
            1,
            Some(1),
        );
        inline.raw_values = vec![(0, 0, "5.0^^http://dbpedia.org/datatype/usDollar".into())];
        assert_eq!(
            Profile::Mqald.answers(&inline)[0].terms[0],
            Term::plain("5.0^^http://dbpedia.org/datatype/usDollar")
        );
        assert_eq!(
            Profile::Judge.answers(&inline)[0].terms[0],
            inline.answers[0].terms[0]
        );
        // booleans
        let t = set(vec![vec![Term::Boolean(true)]], 0, Some(1));
        let f = set(vec![vec![Term::Boolean(false)]], 0, Some(1));
        assert_eq!(
            Profile::Mqald.structural_zero(&t, &t).map(|s| s.f1),
            Some(1.0)
        );
        assert_eq!(
            Profile::Mqald.structural_zero(&t, &f).map(|s| s.f1),
            Some(0.0)
        );
        assert_eq!(
            Profile::Mqald.structural_zero(&t, &one_var).map(|s| s.f1),
            Some(0.0)
        );
        assert!(Profile::Judge.structural_zero(&t, &one_var).is_none());
    }

    #[test]
    fn missing_and_empty_rules() {
        let m = Profile::Mqald.missing(3);
        assert_eq!((m.precision, m.recall, m.f1, m.fn_), (1.0, 0.0, 0.0, 3));
        let j = Profile::Judge.missing(3);
        assert_eq!((j.precision, j.recall, j.precision_qald), (0.0, 0.0, 1.0));
        // mqald: an empty run answer has P = 1 in the per-question precision
        assert_eq!(Profile::Mqald.score(2, 0, 0).precision, 1.0);
        assert_eq!(Profile::Judge.score(2, 0, 0).precision, 0.0);
        // and a missing gold-empty question under mqald still scores P = 1, R = 0
        assert_eq!(Profile::Mqald.missing(0).recall, 0.0);
    }
}
