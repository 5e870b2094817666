//! The breakdowns of `--by` (docs/scoring.md, Breakdowns): a sub-experiment's
//! scored questions grouped by the values of a question feature, or by the
//! language the run answered each question in, with an aggregate per group;
//! and how that language is told (a TEXT2SPARQL id's suffix, the run's
//! languages, `--lang`).

use std::collections::{BTreeMap, HashMap};

use super::aggregates::aggregate_report;
use super::prepare::{GoldEntry, RunEntry};
use super::report::{AggregateReport, Status};
use super::{Options, Profile, Rules};
use crate::metrics::QuestionScore;
use crate::model::Question;

/// Per feature, per value, the aggregate of the questions that have it.
pub(super) type Breakdown = BTreeMap<String, BTreeMap<String, AggregateReport>>;

/// The `--by` breakdowns of one sub-experiment's scored questions
/// (docs/scoring.md, Breakdowns): per feature, the aggregate of each value's
/// questions; `None` without `--by`.
pub(super) fn breakdown(
    entries: &[GoldEntry<'_>],
    runs: &HashMap<&str, RunEntry<'_>>,
    scored: &[(usize, Status, QuestionScore)],
    profile: Profile,
    options: &Options,
) -> Option<Breakdown> {
    (!options.by.is_empty()).then(|| {
        let mut out: BTreeMap<String, BTreeMap<String, AggregateReport>> = BTreeMap::new();
        for feature in &options.by {
            let mut groups: BTreeMap<String, Vec<(usize, Status, QuestionScore)>> = BTreeMap::new();
            for item in scored {
                let entry = &entries[item.0];
                // a question counts under the language its run answered in
                if feature == "language" {
                    let lang = runs
                        .get(entry.question.id.0.as_str())
                        .and_then(|r| r.language.clone())
                        .or_else(|| gold_language(entry.question, options.lang.as_deref()));
                    if let Some(l) = lang {
                        groups.entry(l).or_default().push(*item);
                    }
                    continue;
                }
                let values = entry.features.get(feature.as_str());
                for v in values.into_iter().flatten() {
                    groups.entry(v.clone()).or_default().push(*item);
                }
            }
            out.insert(
                feature.clone(),
                groups
                    .into_iter()
                    .map(|(v, items)| {
                        let n = items.len();
                        let mut a = aggregate_report(&items, n, 0, 0);
                        if !profile.reports_micro() {
                            a.micro = None;
                        }
                        (v, a)
                    })
                    .collect(),
            );
        }
        out
    })
}

/// The language of a TEXT2SPARQL-style id (`ck25:1-en` → `en`).
fn id_language(id: &str) -> Option<&str> {
    id.rsplit_once('-')
        .map(|(_, l)| l)
        .filter(|l| (2..=3).contains(&l.len()) && l.chars().all(|c| c.is_ascii_lowercase()))
}

/// The language a run answered a question in: the language of a TEXT2SPARQL
/// id; else the run question's only language; else `--lang` (when the run file
/// has it among its languages, or has none); else the run's first language.
pub(super) fn run_language(gold: &Question, run: &Question, lang: Option<&str>) -> Option<String> {
    if let Some(l) = id_language(&gold.id.0) {
        return Some(l.to_string());
    }
    let mut langs: Vec<&str> = run.texts.iter().map(|(l, _)| l.as_str()).collect();
    langs.dedup();
    match (langs.as_slice(), lang) {
        ([only], _) => Some((*only).to_string()),
        ([], Some(l)) => Some(l.to_string()),
        (many, Some(l)) if many.contains(&l) => Some(l.to_string()),
        ([first, ..], _) => Some((*first).to_string()),
        ([], None) => None,
    }
}

/// The language of a gold question the run does not have: `--lang`, else its
/// id's, else its only language.
fn gold_language(gold: &Question, lang: Option<&str>) -> Option<String> {
    let only = match gold.texts.as_slice() {
        [(only, _)] => Some(only.as_str()),
        _ => None,
    };
    id_language(&gold.id.0)
        .or(lang)
        .or(only)
        .map(str::to_string)
}
