//! The `text2sparql` profile: reproduces the TEXT2SPARQL challenge's scoring,
//! `text2sparql-client`'s `evaluate`, read in its code (docs/scoring.md, The
//! `text2sparql` profile): QA only, on sets of value strings with `trec_eval`'s
//! set measures and nDCG ([`challenge_score`]), and the challenge's run-level
//! figures ([`challenge_aggregate`]). `tests/integration/text2sparql.rs` checks
//! the published figures and lists the questions where they cannot be reproduced.

use std::collections::BTreeMap;

use super::{Rules, EXACT_TERMS};
use crate::eval::{ChallengeAggregate, Experiment, LanguageAggregate, Status};
use crate::matching::MatchOptions;
use crate::metrics::QuestionScore;
use crate::model::{AnswerSet, Question, Term};

/// The rules of the `text2sparql` profile. A rule not written here is the
/// default of [`Rules`] (`judge`'s): answers as read (the value documents are
/// taken from the sets themselves by [`challenge_score`]); the challenge
/// decides nothing from their shape; a missing question scores as an empty
/// answer, by the counts' P, R and F1 (docs/scoring.md, Counting) beside the
/// challenge's figures; every question is asked (the TEXT2SPARQL client asks
/// every question of the benchmark); markings are not scored (qajudge's walk
/// still gives the features); no official script's own figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct Text2sparql;

impl Rules for Text2sparql {
    /// No canonical IRIs, no sameAs, no labels: exact strings, whatever the
    /// user's switches. QA does not use them ([`challenge_score`]); explanations
    /// (`match_lists`) do.
    fn match_options(&self, _strict_literals: bool, _lenient_dates: bool) -> MatchOptions {
        EXACT_TERMS
    }

    /// Exact strings need no index.
    fn uses_index(&self) -> bool {
        false
    }

    /// The challenge scores answer sets only.
    fn experiments(&self, e: Experiment) -> bool {
        e == Experiment::Qa
    }

    /// Only the `RESULT_ORDER_MATTERS` flag makes a question ordered, as in the
    /// challenge; ORDER BY in the gold query does not.
    fn orders_by_query(&self) -> bool {
        false
    }

    /// QA is scored on sets of value strings ([`challenge_score`]) and the run
    /// gets the challenge's figures (`challenge_aggregate`).
    fn scores_value_sets(&self) -> bool {
        true
    }

    /// The challenge reports plain means over questions; the aggregate's `micro`
    /// is `null`.
    fn reports_micro(&self) -> bool {
        false
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

/// The challenge's run-level figures: plain means over questions, per language
/// too, the mean nDCG of the ordered questions and the combined figure exactly
/// as `text2sparql-client` computes it (`combine_metrics` averages, over every
/// question, the nDCG of an ordered one and the F of the others, and, because
/// it iterates over its results dictionary, the `average` entry's nDCG too).
/// `scored` are (question, status, score) and `ndcgs` (question, nDCG) by
/// position in `questions` (the gold's, in the order they were scored).
pub(in crate::eval) fn challenge_aggregate(
    questions: &[&Question],
    scored: &[(usize, Status, QuestionScore)],
    ndcgs: &[(usize, Option<f64>)],
) -> ChallengeAggregate {
    let pick = |f: fn(&QuestionScore) -> f64, items: &[&(usize, Status, QuestionScore)]| {
        let v: Vec<f64> = items.iter().map(|(_, _, s)| f(s)).collect();
        mean(&v)
    };
    let all: Vec<&(usize, Status, QuestionScore)> = scored.iter().collect();
    let order: BTreeMap<usize, f64> = ndcgs
        .iter()
        .filter_map(|(i, n)| n.map(|n| (*i, n)))
        .collect();
    // in question order, so that the sum is the same in every run
    let ordered: Vec<f64> = order.values().copied().collect();
    let ndcg = (!ordered.is_empty()).then(|| mean(&ordered));
    let set_f_ndcg = ndcg.map(|avg| {
        let mut combined: Vec<f64> = scored
            .iter()
            .map(|(i, _, s)| order.get(i).copied().unwrap_or(s.f1))
            .collect();
        combined.push(avg);
        mean(&combined)
    });
    let mut langs: BTreeMap<String, Vec<&(usize, Status, QuestionScore)>> = BTreeMap::new();
    for item in scored {
        let lang = questions[item.0].language().unwrap_or("").to_string();
        langs.entry(lang).or_default().push(item);
    }
    ChallengeAggregate {
        set_p: pick(|s| s.precision, &all),
        set_recall: pick(|s| s.recall, &all),
        set_f: pick(|s| s.f1, &all),
        ordered_questions: ordered.len(),
        ndcg,
        set_f_ndcg,
        by_language: langs
            .into_iter()
            .map(|(l, items)| {
                (
                    l,
                    LanguageAggregate {
                        questions: items.len(),
                        set_p: pick(|s| s.precision, &items),
                        set_recall: pick(|s| s.recall, &items),
                        set_f: pick(|s| s.f1, &items),
                    },
                )
            })
            .collect(),
    }
}

/// The plain mean, summed left to right as the scorer's means are (0 when
/// empty).
fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().fold(0.0, |a, b| a + b) / values.len() as f64
    }
}
