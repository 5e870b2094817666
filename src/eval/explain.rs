//! Explanations: which run answer matched which gold answer and by which rule,
//! and what was left unmatched; and the matching of two answer lists on their
//! own (the HTTP `/match` route).

use std::collections::HashSet;

use super::prepare::{GoldEntry, RunEntry};
use super::report::{Explanation, MatchedPair};
use super::{Experiment, Options, Rules};
use crate::index::Equivalence;
use crate::matching::{match_answers, Matching, Prepared, Reason, Resolver, Side, TooManyLinks};
use crate::model::{Answer, AnswerSet, Term};

/// The outcome of matching two answer lists with the rules of a profile (the
/// HTTP `/match` route): counts, measures and the explanation.
#[derive(Debug, Clone, serde::Serialize, PartialEq, utoipa::ToSchema)]
pub struct MatchReport {
    /// The profile whose rules were used.
    pub profile: &'static str,
    /// True positives.
    pub tp: usize,
    /// False positives.
    pub fp: usize,
    /// False negatives.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// Precision (docs/scoring.md, Counting).
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// The matched pairs and the unmatched answers.
    pub explanation: Explanation,
    /// Index read problems, if any.
    pub diagnostics: Vec<String>,
}

/// Matches a run's answers against gold answers with the profile's rules and,
/// when given, an index; an error when they share terms in too many pairs to
/// match ([`crate::matching::MAX_MATCH_LINKS`]).
pub fn match_lists(
    gold: &AnswerSet,
    run: &AnswerSet,
    options: &Options,
    index: Option<&dyn Equivalence>,
) -> Result<MatchReport, TooManyLinks> {
    let profile = options.profile;
    let resolver = Resolver::new(
        profile.match_options(options.strict_literals, options.lenient_dates),
        index,
    );
    let gold_answers = profile.answers(gold);
    let run_answers = profile.answers(run);
    let gold_has_iris = gold_answers.iter().flat_map(|a| &a.terms).any(Term::is_iri);
    let g = resolver.prepare(&gold_answers, Side::Gold, true);
    let r = resolver.prepare(&run_answers, Side::Run, gold_has_iris);
    let matching = match_answers(&g, &r)?;
    let score = profile
        .structural_zero(gold, run)
        .unwrap_or_else(|| profile.score(matching.gold, matching.run, matching.tp()));
    Ok(MatchReport {
        profile: profile.name(),
        tp: score.tp,
        fp: score.fp,
        fn_: score.fn_,
        precision: score.precision,
        recall: score.recall,
        f1: score.f1,
        explanation: explain_sets(Some(&gold_answers), Some(&run_answers), &g, &r, &matching),
        diagnostics: resolver.take_errors(),
    })
}

/// The text of an answer for explanations: its terms, alternatives joined by ` | `.
fn answer_text(answer: &Answer) -> String {
    answer
        .terms
        .iter()
        .map(Term::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The matched pairs of one question and the answers left unmatched, with reasons.
pub(super) fn explain(
    e: Experiment,
    entry: &GoldEntry<'_>,
    run: Option<&RunEntry<'_>>,
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> Explanation {
    let text = |answers: Option<&[Answer]>, texts: &[String], set: &[Prepared], i: usize| {
        if e == Experiment::Qa {
            answers
                .and_then(|a| a.get(i))
                .map(answer_text)
                .unwrap_or_default()
        } else {
            // markings by their text: IRIs as IRIs, prefixed where the gold
            // declares the prefix
            texts.get(i).cloned().unwrap_or_else(|| key_text(set, i))
        }
    };
    let run_texts = run.map_or(&[][..], |r| &r.texts[e][..]);
    explain_with(
        |i| text(entry.qa.as_deref(), &entry.texts[e], gold_set, i),
        |i| text(run.and_then(|r| r.qa.as_deref()), run_texts, run_set, i),
        gold_set,
        run_set,
        matching,
    )
}

/// The first key of the prepared answer at `index`, as text.
/// The prepared sets list answers in order, so the answer is found by
/// bisection (a scan only if it is not there, should a set not be in order).
fn key_text(set: &[Prepared], index: usize) -> String {
    set.binary_search_by_key(&index, |p| p.index)
        .ok()
        .map(|at| &set[at])
        .or_else(|| set.iter().find(|p| p.index == index))
        .and_then(|p| p.keys.first())
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// Explains a matching of answers given as lists (the `/match` route).
fn explain_sets(
    gold_answers: Option<&[Answer]>,
    run_answers: Option<&[Answer]>,
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> Explanation {
    let text = |answers: Option<&[Answer]>, set: &[Prepared], index: usize| match answers {
        Some(a) => a.get(index).map(answer_text).unwrap_or_default(),
        None => key_text(set, index),
    };
    explain_with(
        |i| text(gold_answers, gold_set, i),
        |i| text(run_answers, run_set, i),
        gold_set,
        run_set,
        matching,
    )
}

/// Explains a matching, naming answers by index with `gold_text` and `run_text`.
fn explain_with(
    gold_text: impl Fn(usize) -> String,
    run_text: impl Fn(usize) -> String,
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> Explanation {
    let matched_gold: HashSet<usize> = matching.pairs.iter().map(|p| p.gold).collect();
    let matched_run: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let pairs = matching
        .pairs
        .iter()
        .map(|p| {
            let gold = gold_text(p.gold);
            let run = run_text(p.run);
            let rule = match p.reason {
                Reason::Iri if gold == run => "same_iri",
                Reason::Iri => "canonical_iri",
                other => other.name(),
            };
            MatchedPair {
                rule,
                class_size: match p.reason {
                    Reason::SameAs { class_size } => Some(class_size),
                    _ => None,
                },
                gold,
                run,
            }
        })
        .collect();
    Explanation {
        pairs,
        unmatched_gold: gold_set
            .iter()
            .filter(|p| !matched_gold.contains(&p.index))
            .map(|p| gold_text(p.index))
            .collect(),
        unmatched_run: run_set
            .iter()
            .filter(|p| !matched_run.contains(&p.index))
            .map(|p| run_text(p.index))
            .collect(),
    }
}
