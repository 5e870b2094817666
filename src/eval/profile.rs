//! Scoring profiles (SCORING 8). Every rule that differs between `judge`, `gerbil`
//! and `mqald` lives here; the evaluator asks the profile instead of testing its
//! name. The rows of the SCORING 8 table map to these methods:
//!
//! | rule | method |
//! |---|---|
//! | IRI equivalence, literals, string vs IRI gold | [`Profile::match_options`] |
//! | answer set typing, variables | [`Profile::answers`] |
//! | variables (mqald: count and number checked first) | [`Profile::structural_zero`] |
//! | missing run question | [`Profile::missing`] |
//! | per-question measures (mqald: QALD precision) | [`Profile::score`] |
//! | sub-experiments | [`Profile::experiments`], [`Profile::marking_style`], [`Profile::keep_duplicate_markings`], [`Profile::empty_markings_score`] |
//! | reported | [`Profile::reports_micro`] |
//! | `text2sparql`: value sets, trec_eval measures, the challenge's nDCG | [`Profile::scores_value_sets`], [`challenge_score`] |

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::annotate::MarkingStyle;
use crate::matching::{IriRule, LabelRule, LiteralRule, MatchOptions};
use crate::metrics::{score_question, QuestionScore};
use crate::model::{looks_like_iri, Answer, AnswerSet, Term};

use super::Experiment;

/// A named bundle of scoring rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The default: SCORING 2–5 as written.
    #[default]
    Judge,
    /// Reproduces the GERBIL QA platform.
    Gerbil,
    /// Reproduces the evaluation tool published with MQALD.
    Mqald,
    /// Reproduces the TEXT2SPARQL challenge's scoring (`text2sparql-client`).
    Text2sparql,
}

impl Profile {
    /// Every profile, in the order of the SCORING 8 table.
    pub const ALL: [Profile; 4] = [
        Profile::Judge,
        Profile::Gerbil,
        Profile::Mqald,
        Profile::Text2sparql,
    ];

    /// The name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Judge => "judge",
            Profile::Gerbil => "gerbil",
            Profile::Mqald => "mqald",
            Profile::Text2sparql => "text2sparql",
        }
    }

    /// Parses a profile name.
    pub fn parse(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Parses a profile name, or says which names there are.
    pub fn from_name(name: &str) -> Result<Profile, super::UnknownName> {
        Profile::parse(name).ok_or_else(|| super::UnknownName {
            kind: "profile",
            name: name.to_string(),
            known: Profile::ALL.map(Profile::name).join(", "),
        })
    }

    /// The term rules this profile uses, given the user's switches (which only
    /// `judge` honours: the other profiles reproduce fixed tools).
    pub fn match_options(self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        match self {
            Profile::Judge => MatchOptions {
                strict_literals,
                lenient_dates,
                iri: IriRule::Equivalent,
                literal: LiteralRule::Typed,
                label: LabelRule::OneAnswer,
            },
            Profile::Gerbil => MatchOptions {
                strict_literals: true,
                lenient_dates: false,
                iri: IriRule::RunClosure,
                literal: LiteralRule::Exact,
                label: LabelRule::EachCandidate,
            },
            Profile::Mqald | Profile::Text2sparql => MatchOptions {
                strict_literals: true,
                lenient_dates: false,
                iri: IriRule::Exact,
                literal: LiteralRule::Exact,
                label: LabelRule::Off,
            },
        }
    }

    /// The answers of a set as this profile scores them. `judge`: as read (one
    /// answer per row, its terms alternatives). `gerbil`: every bound value its own
    /// answer, and the set typed as a whole (IRIs only if every value looks like an
    /// IRI, otherwise every value a string). `mqald`: the first answer object only.
    pub fn answers(self, set: &AnswerSet) -> Cow<'_, [Answer]> {
        match self {
            Profile::Judge | Profile::Text2sparql => Cow::Borrowed(&set.answers),
            Profile::Mqald => {
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
            Profile::Gerbil => {
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
                                Term::Iri(i) | Term::Literal { lexical: i, .. } => {
                                    Term::plain(i.clone())
                                }
                            })
                        })
                        .collect(),
                )
            }
        }
    }

    /// Under `mqald`, the checks made before the empty rules: an ASK answer against
    /// a SELECT answer, a different number of variables in gold and run, or more
    /// than one variable score 0; two boolean answers score 1 when equal, else 0.
    /// `None` when the ordinary rules apply.
    pub fn structural_zero(self, gold: &AnswerSet, run: &AnswerSet) -> Option<QuestionScore> {
        if self != Profile::Mqald {
            return None;
        }
        let first = |s: &AnswerSet| {
            let f = s.first_object.unwrap_or(crate::model::FirstObject {
                answers: s.answers.len(),
                vars: s.vars.len(),
            });
            let answers = &s.answers[..f.answers.min(s.answers.len())];
            let boolean = answers.iter().find_map(|a| match a.terms.as_slice() {
                [Term::Boolean(b)] => Some(*b),
                _ => None,
            });
            (boolean, f.vars)
        };
        let ((gb, gv), (rb, rv)) = (first(gold), first(run));
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

    /// The score of a question the run does not have (`gold` distinct answers):
    /// an empty answer, except under `mqald` (P = 1, R = 0, F = 0).
    pub fn missing(self, gold: usize) -> QuestionScore {
        match self {
            Profile::Mqald => QuestionScore {
                fn_: gold,
                precision: 1.0,
                precision_qald: 1.0,
                ..QuestionScore::default()
            },
            _ => self.score(gold, 0, 0),
        }
    }

    /// The score of a question from its counts. Under `mqald` the per-question
    /// precision and recall are those of the QALD rule (empty run: P = 1).
    pub fn score(self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        let s = score_question(gold, run, tp);
        match self {
            Profile::Mqald => QuestionScore {
                precision: s.precision_qald,
                recall: s.recall_qald,
                ..s
            },
            _ => s,
        }
    }

    /// The sub-experiments this profile scores: `mqald` only QA, `gerbil` no AIT2KB.
    pub fn experiments(self, e: Experiment) -> bool {
        match self {
            Profile::Judge => true,
            // GERBIL has neither AIT2KB nor the split of C2KB
            Profile::Gerbil => !matches!(
                e,
                Experiment::Ait2kb | Experiment::C2kbEntities | Experiment::C2kbClasses
            ),
            Profile::Mqald | Profile::Text2sparql => e == Experiment::Qa,
        }
    }

    /// True when QA is scored on sets of value strings with `trec_eval`'s
    /// measures, as the TEXT2SPARQL challenge does ([`challenge_score`]).
    pub fn scores_value_sets(self) -> bool {
        self == Profile::Text2sparql
    }

    /// True when a gold query with ORDER BY makes a question's order scored
    /// (`judge`, `gerbil`, `mqald`); under `text2sparql` only the
    /// `RESULT_ORDER_MATTERS` flag does, as in the challenge.
    pub fn orders_by_query(self) -> bool {
        self != Profile::Text2sparql
    }

    /// How sub-experiment markings are derived: `gerbil` as GERBIL's code derives
    /// them (`rdf:type` a property and its class a resource, paths and variable
    /// predicates stop the walk, FILTER / sub-queries / VALUES not walked).
    pub fn marking_style(self) -> MarkingStyle {
        match self {
            Profile::Gerbil => MarkingStyle::Gerbil,
            _ => MarkingStyle::Judge,
        }
    }

    /// True when markings keep their duplicates (`gerbil`).
    pub fn keep_duplicate_markings(self) -> bool {
        self == Profile::Gerbil
    }

    /// True when a question without markings on both sides scores 1.0 in a
    /// sub-experiment instead of being not evaluable (`gerbil`).
    pub fn empty_markings_score(self) -> bool {
        self == Profile::Gerbil
    }

    /// False when micro measures are not part of this profile's report (`mqald`,
    /// `text2sparql`).
    pub fn reports_micro(self) -> bool {
        !matches!(self, Profile::Mqald | Profile::Text2sparql)
    }
}

/// The documents of one answer set as the challenge's code sees them
/// (`DBpediaDict2PytrecDict`): the value string of every bound term of every row,
/// once; an ASK result is the document `true`, relevant (gold) only when the
/// answer is true.
fn challenge_documents(set: Option<&AnswerSet>) -> BTreeMap<&str, bool> {
    let mut docs = BTreeMap::new();
    for a in set.map_or(&[][..], |s| s.answers.as_slice()) {
        for t in &a.terms {
            match t {
                Term::Iri(v) | Term::Literal { lexical: v, .. } => {
                    docs.insert(v.as_str(), true);
                }
                Term::Boolean(b) => {
                    docs.insert("true", *b);
                }
            }
        }
    }
    docs
}

/// A question scored as the TEXT2SPARQL challenge scores it: `set_P`,
/// `set_recall` and `set_F` of `trec_eval` over the value documents, and, for an
/// `ordered` question, `trec_eval`'s nDCG. Every document of a result has the
/// same score, so `trec_eval` ranks them by document id, descending (byte
/// order): the challenge's nDCG does not see the order the system returned.
/// Quirks kept: a false ASK gold has no relevant document, so it scores 0
/// whatever the system says; any ASK answer matches a true ASK gold.
pub fn challenge_score(
    gold: Option<&AnswerSet>,
    run: Option<&AnswerSet>,
    ordered: bool,
) -> (QuestionScore, Option<f64>) {
    let gold = challenge_documents(gold);
    let run = challenge_documents(run);
    let relevant = gold.values().filter(|r| **r).count();
    let hit = |d: &&str| gold.get(d).copied().unwrap_or(false);
    let relevant_retrieved = run.keys().filter(|d| hit(d)).count();
    let score = crate::metrics::trec_set(relevant, run.len(), relevant_retrieved);
    let ndcg = ordered.then(|| {
        let ranked: Vec<bool> = run.keys().rev().map(hit).collect();
        crate::metrics::trec_ndcg(&ranked, relevant)
    });
    (score, ndcg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FirstObject;

    fn set(rows: Vec<Vec<Term>>, vars: usize, first: Option<usize>) -> AnswerSet {
        AnswerSet {
            answers: rows.into_iter().map(|terms| Answer { terms }).collect(),
            vars: (0..vars).map(|i| format!("v{i}")).collect(),
            first_object: first.map(|answers| FirstObject { answers, vars }),
            raw_values: Vec::new(),
        }
    }
    fn iri(s: &str) -> Term {
        Term::Iri(s.into())
    }

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::parse(p.name()), Some(p));
        }
        assert_eq!(Profile::parse("GERBIL"), Some(Profile::Gerbil));
        assert_eq!(Profile::parse("qald"), None);
    }

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
