//! Abstention and truthfulness (docs/scoring.md, Abstention and
//! truthfulness): when a run question counts as abstained (it says so with
//! `"abstained": true`, or its answer is the `--abstain-marker` text and
//! nothing else), and the per-question truthfulness after CRAG: 1 when
//! F1 = 1, 0 when abstained or no answer was given, −1 when F1 = 0 with
//! answers given, and F1 itself in between.

use crate::model::{Question, Term};

/// True when the run question abstains: declared (`abstained`), or every one
/// of its (at least one) answers has a term whose text, trimmed, is `marker`
/// exactly (a literal's lexical form, or an IRI as written).
pub fn abstains(q: &Question, marker: Option<&str>) -> bool {
    if q.abstained {
        return true;
    }
    let Some(marker) = marker.map(str::trim).filter(|m| !m.is_empty()) else {
        return false;
    };
    let Some(answers) = q.answers.as_ref().map(|a| &a.answers) else {
        return false;
    };
    !answers.is_empty()
        && answers.iter().all(|a| {
            a.terms.iter().any(|t| match t {
                Term::Literal { lexical, .. } => lexical.trim() == marker,
                Term::Iri(iri) => iri.trim() == marker,
                Term::Boolean(_) => false,
            })
        })
}

/// The truthfulness of one evaluated question: 0 when it abstained; 1 when
/// F1 = 1; 0 when no answer was given (empty, missing, a failed call); −1 when
/// F1 = 0 with answers given; F1 itself when 0 < F1 < 1.
pub fn truthfulness(f1: f64, abstained: bool, answered: bool) -> f64 {
    if abstained {
        0.0
    } else if f1 >= 1.0 {
        1.0
    } else if !answered {
        0.0
    } else if f1 <= 0.0 {
        -1.0
    } else {
        f1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, AnswerSet};

    fn with(answers: &[&str]) -> Question {
        Question {
            answers: Some(AnswerSet {
                answers: answers
                    .iter()
                    .map(|a| Answer::single(Term::plain(*a)))
                    .collect(),
                ..AnswerSet::default()
            }),
            ..Question::default()
        }
    }

    #[test]
    fn every_branch_of_truthfulness() {
        assert_eq!(truthfulness(1.0, false, true), 1.0);
        assert_eq!(truthfulness(0.5, false, true), 0.5);
        assert_eq!(truthfulness(0.0, false, true), -1.0);
        assert_eq!(truthfulness(0.0, false, false), 0.0);
        // abstaining is 0 whatever the F1 (an empty gold gives F1 1 to no answer)
        assert_eq!(truthfulness(1.0, true, false), 0.0);
        assert_eq!(truthfulness(0.0, true, false), 0.0);
        // no answer to an empty gold is right
        assert_eq!(truthfulness(1.0, false, false), 1.0);
    }

    #[test]
    fn abstention_by_flag_and_by_marker() {
        let declared = Question {
            abstained: true,
            ..with(&["Paris"])
        };
        assert!(abstains(&declared, None));
        assert!(abstains(&with(&[" I don't know "]), Some("I don't know")));
        assert!(abstains(&with(&["IDK", "IDK"]), Some("IDK")));
        // the marker beside a real answer, another case, no answer, no marker
        assert!(!abstains(&with(&["IDK", "Paris"]), Some("IDK")));
        assert!(!abstains(&with(&["idk"]), Some("IDK")));
        assert!(!abstains(&with(&[]), Some("IDK")));
        assert!(!abstains(&with(&["IDK"]), None));
        assert!(!abstains(&with(&["IDK"]), Some("  ")));
    }
}
