//! The `spinach` profile: reproduces the evaluation of the SPINACH agent
//! (stanford-oval/spinach @ 8bb2d9c, `eval.py::f1` and
//! `spinach_agent/evaluate_parser.py::calculate_metrics`, read in their code;
//! docs/scoring.md, The `spinach` profile). A question's answers are a table:
//! gold and run result rows are paired one-to-one by SciPy's
//! `linear_sum_assignment` to maximise the summed row recall, so a
//! multi-column answer is not flattened. Its figures are the official ones
//! ([`Official`]); P/R/F1 beside them count values exactly as written (IRI,
//! literal with its language and datatype), no index.

use std::borrow::Cow;

use super::lsap::{linear_sum_assignment, numpy_sum};
use super::official::flagged;
use super::overlap::{common, Counted, Values};
use super::qa_only::QaOnly;
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::{Answer, AnswerSet, Question, Term};

/// The rules of the `spinach` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spinach;

/// The rules of the profile: QA only ([`QaOnly`]). Exact values: the script compares a binding's type, value, language and datatype; micro measures are ours, beside the official figures.
pub static RULES: QaOnly = QaOnly {
    judge_terms: false,
    reports_micro: true,
    official: &Spinach,
};

/// The script this profile follows.
const SCRIPT: &str = "the SPINACH evaluation (stanford-oval/spinach @ 8bb2d9cfa7f5, eval.py f1 and spinach_agent/evaluate_parser.py calculate_metrics)";

impl Official for Spinach {
    fn script(&self) -> &'static str {
        SCRIPT
    }

    /// `f1` (row-major F1) and `em` (1 when `f1` is exactly 1) of a question
    /// the run has (the script iterates over the run's entries: a question
    /// the run lacks is not in its figures), and `none` (1 when the run's
    /// answer is falsy in Python: no answer, no row, or ASK false).
    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let run = run.first()?;
        let f1 = row_major_f1(run.answers.as_ref(), gold.answers.as_ref());
        let none = match run.answers.as_ref().map(tuple) {
            None => true,
            Some(Tuple::Bool(b)) => !b,
            Some(Tuple::Rows(rows)) => rows.is_empty(),
        };
        let mut figures = Figures::from([
            ("f1".to_string(), f1.unwrap_or(0.0)),
            ("em".to_string(), f64::from(u8::from(f1 == Some(1.0)))),
            ("none".to_string(), f64::from(u8::from(none))),
        ]);
        if f1.is_none() {
            figures.insert("too_large".to_string(), 1.0);
        }
        // no row on either side: the script divides 0 by 0 and stops; the 0
        // here is no score, and is counted as such
        let empty = |s: Option<&AnswerSet>| {
            s.map(tuple)
                .is_none_or(|t| matches!(t, Tuple::Rows(r) if r.is_empty()))
        };
        if run.answers.is_some() && empty(run.answers.as_ref()) && empty(gold.answers.as_ref()) {
            figures.insert("script_fails".to_string(), 1.0);
        }
        Some(figures)
    }

    /// As `calculate_metrics` prints them, unrounded: `row_major_f1` (the sum
    /// of F1 × 100 / count), `row_major_em` (% of F1 == 1), `none_answers` (%
    /// of falsy answers) and `evaluated` (count); `too_large` counts the
    /// questions past [`MAX_CELLS`] or [`MAX_PAIRING_STEPS`] and `script_fails` those with no row on
    /// either side (the script stops on 0/0), both scored 0.
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let count = scored.len() as f64;
        let mut f1_score = 0.0;
        let mut em = 0usize;
        let mut none = 0usize;
        for (_, f) in scored {
            f1_score += f["f1"];
            em += usize::from(f["em"] == 1.0);
            none += usize::from(f["none"] == 1.0);
        }
        let percent = |x: f64| if count > 0.0 { x * 100.0 / count } else { 0.0 };
        let count_of = |k: &str| flagged(scored, k) as f64;
        Figures::from([
            ("too_large".to_string(), count_of("too_large")),
            ("script_fails".to_string(), count_of("script_fails")),
            ("evaluated".to_string(), count),
            ("row_major_f1".to_string(), percent(f1_score)),
            ("row_major_em".to_string(), percent(em as f64)),
            ("none_answers".to_string(), percent(none as f64)),
        ])
    }
}

/// The most cells (run rows × gold rows) a question's table pairing is
/// computed for: past it the question's official figures are 0 and say
/// `too_large` (the pairing's time grows with the cube of the rows).
pub const MAX_CELLS: usize = 4_000_000;

/// The most steps one question's pairing may take, counted as the
/// comparisons of its cost matrix (run rows × the gold rows' distinct values)
/// and the assignment's (shorter side² × longer side): past either the
/// question is `too_large` as past [`MAX_CELLS`] (two tables of 1,000 rows
/// take 10⁹ assignment steps, about a second).
pub const MAX_PAIRING_STEPS: usize = 2_000_000_000;

/// An answer set as the script sees it: a boolean (ASK) or result rows, each
/// cell (its variable when known, the binding as compared).
enum Tuple<'a> {
    Bool(bool),
    Rows(Vec<Vec<(Option<&'a str>, Cow<'a, str>)>>),
}

/// A term as the script compares a binding (`tuple(sorted(value.items()))`):
/// its type, value, language and datatype, written as the SPINACH reader
/// writes a binding as read, so that the two meet.
fn key(term: &Term) -> String {
    let mut b = std::collections::BTreeMap::new();
    match term {
        Term::Iri(v) => match v.strip_prefix("_:") {
            Some(n) => {
                b.insert("type", "bnode");
                b.insert("value", n);
            }
            None => {
                b.insert("type", "uri");
                b.insert("value", v.as_str());
            }
        },
        Term::Literal {
            lexical,
            datatype,
            lang,
        } => {
            b.insert("type", "literal");
            b.insert("value", lexical.as_str());
            if let Some(l) = lang {
                b.insert("xml:lang", l.as_str());
            }
            if let Some(d) = datatype {
                b.insert("datatype", d.as_str());
            }
        }
        Term::Boolean(v) => {
            b.insert("type", "literal");
            b.insert("value", if *v { "true" } else { "false" });
            b.insert("datatype", "http://www.w3.org/2001/XMLSchema#boolean");
        }
    }
    serde_json::to_string(&b).unwrap_or_default()
}

/// The rows of a set: as the file wrote them when the reader kept them (a
/// SPINACH run's), else from the terms, each cell with its variable's name
/// when the reader knows the columns.
fn tuple(set: &AnswerSet) -> Tuple<'_> {
    if set.vars.is_empty() {
        if let [Answer { terms }] = set.answers.as_slice() {
            if let [Term::Boolean(b)] = terms.as_slice() {
                return Tuple::Bool(*b);
            }
        }
    }
    if let Some(table) = &set.table {
        return Tuple::Rows(
            table
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|(v, k)| (Some(v.as_str()), Cow::Borrowed(k.as_str())))
                        .collect()
                })
                .collect(),
        );
    }
    let columns = (set.columns.len() == set.answers.len()).then_some(&set.columns);
    Tuple::Rows(
        set.answers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.terms
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let var = columns
                            .and_then(|c| c[i].get(k))
                            .and_then(|v| set.vars.get(*v))
                            .map(String::as_str);
                        (var, Cow::Owned(key(t)))
                    })
                    .collect()
            })
            .collect(),
    )
}

/// A row's cells counted, as `Counter` counts them.
/// A gold row's cells that count (its `…Label` and `…Description` columns
/// left out), counted, with their number.
fn gold_counts<'a>(
    values: &mut Values<&'a str>,
    row: &'a [(Option<&str>, Cow<'_, str>)],
) -> (Counted, usize) {
    values.count(
        row.iter()
            .filter(|(var, _)| {
                !var.is_some_and(|v| v.ends_with("Label") || v.ends_with("Description"))
            })
            .map(|(_, k)| k.as_ref()),
    )
}

/// `_compute_match_ratio`: the share of a gold row's counted cells found in
/// the predicted row, as multisets; 0 for a gold row with none.
fn match_ratio(predicted: &Counted, gold: &(Counted, usize)) -> f64 {
    let (wanted, total) = gold;
    if *total == 0 {
        return 0.0;
    }
    common(predicted, wanted) as f64 / *total as f64
}

/// `eval.f1` with maximal matching, or `None` past [`MAX_CELLS`] or
/// [`MAX_PAIRING_STEPS`]. Where the
/// script fails (no predicted and no gold row: 0/0, an `AssertionError`), 0.
pub fn row_major_f1(predicted: Option<&AnswerSet>, gold: Option<&AnswerSet>) -> Option<f64> {
    let Some(predicted) = predicted else {
        return Some(0.0);
    };
    let gold = gold.map(tuple).unwrap_or(Tuple::Rows(Vec::new()));
    let (p, g) = match (tuple(predicted), gold) {
        (Tuple::Bool(a), Tuple::Bool(b)) => return Some(f64::from(u8::from(a == b))),
        (Tuple::Bool(_), _) | (_, Tuple::Bool(_)) => return Some(0.0),
        (Tuple::Rows(p), Tuple::Rows(g)) => (p, g),
    };
    let (short, long) = (p.len().min(g.len()), p.len().max(g.len()));
    if p.len().saturating_mul(g.len()) > MAX_CELLS
        || short.saturating_mul(short).saturating_mul(long) > MAX_PAIRING_STEPS
    {
        return None;
    }
    let mut values = Values::new();
    let gold_rows: Vec<(Counted, usize)> = g.iter().map(|r| gold_counts(&mut values, r)).collect();
    let gold_values: usize = gold_rows.iter().map(|(c, _)| c.len()).sum();
    if p.len().saturating_mul(gold_values) > MAX_PAIRING_STEPS {
        return None;
    }
    let mut cost = Vec::with_capacity(p.len() * g.len());
    for pr in &p {
        let (counts, _) = values.count(pr.iter().map(|(_, k)| k.as_ref()));
        cost.extend(gold_rows.iter().map(|gr| match_ratio(&counts, gr)));
    }
    let pairs = linear_sum_assignment(p.len(), g.len(), &cost, true);
    let assigned: Vec<f64> = pairs.iter().map(|(i, j)| cost[i * g.len() + j]).collect();
    let positive: Vec<f64> = assigned.iter().copied().filter(|v| *v > 0.0).collect();
    let tp = numpy_sum(&positive);
    let partial: Vec<f64> = assigned
        .iter()
        .filter(|v| **v < 1.0 && **v > 0.0)
        .map(|v| 1.0 - v)
        .collect();
    let mut fp_or_fn = numpy_sum(&partial);
    fp_or_fn += (2 * assigned.iter().filter(|v| **v <= 0.0).count()) as f64;
    fp_or_fn += ((p.len() - pairs.len()) + (g.len() - pairs.len())) as f64;
    let denominator = 2.0 * tp + fp_or_fn;
    Some(if denominator == 0.0 {
        0.0
    } else {
        2.0 * tp / denominator
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, Term};

    /// `n` one-column rows `0 … n-1`.
    fn rows(n: usize) -> AnswerSet {
        AnswerSet {
            vars: vec!["x".into()],
            answers: (0..n)
                .map(|i| Answer::single(Term::plain(i.to_string())))
                .collect(),
            ..AnswerSet::default()
        }
    }

    #[test]
    fn pairings_past_their_steps_are_too_large() {
        // 1,000 × 1,000: 10^9 assignment steps, paired (every row matches)
        assert_eq!(
            row_major_f1(Some(&rows(1000)), Some(&rows(1000))),
            Some(1.0)
        );
        // 1,300 × 1,300: 1.69 million cells, but 2.2 · 10^9 steps
        assert_eq!(row_major_f1(Some(&rows(1300)), Some(&rows(1300))), None);
        // 3,000 × 10: within both
        assert!(row_major_f1(Some(&rows(3000)), Some(&rows(10))).is_some());
    }
}
