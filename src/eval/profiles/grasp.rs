//! The `grasp` profile: reproduces GRASP's evaluation (ad-freiburg/grasp @
//! 2ff2482: `scripts/evaluate.py` with `grasp/sparql/metrics.py` per question,
//! `apps/evaluation/app.py` `calculate_metrics` for the run; docs/scoring.md,
//! The `grasp` profile). Both queries are executed on the graph (`--kg`) or
//! the endpoint (`--endpoint`); a question's score compares the two results:
//! ASK on either side as booleans, both empty 1, one empty 0, past
//! [`EXACT_AFTER`] rows exact F1 over rows as multisets of tuples, else the
//! assignment F1 over rows as multisets of values with a float32 matrix and
//! SciPy's `linear_sum_assignment`, as NumPy 1.x computes it. A value is a
//! binding as GRASP compares one: its kind, value, datatype and language.
//!
//! The official figures are GRASP's, over its *valid evaluations* only; beside
//! them `f1_all` is the same mean over every gold question asked (a failure
//! 0), and a run's diagnostic names the difference ([`Official::notes`]).

use std::collections::HashMap;

use super::lsap::linear_sum_assignment;
use super::official::flagged;
use super::overlap::{common, Counted, Values};
use super::qa_only::QaOnly;
use super::spinach::MAX_PAIRING_STEPS;
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::{Answer, AnswerSet, Query, Question, Term};
use crate::qald::{GRASP_ELAPSED, GRASP_INVALID, GRASP_LINE};

/// The rules of the `grasp` profile: QA only ([`QaOnly`]), exact values (GRASP
/// compares a binding's type, value, datatype and language), no index; micro
/// measures are ours, beside the official figures.
pub static RULES: QaOnly = QaOnly {
    judge_terms: false,
    reports_micro: true,
    official: &Grasp,
};

/// The script this profile follows.
const SCRIPT: &str = "GRASP's evaluation (ad-freiburg/grasp @ 2ff2482, scripts/evaluate.py with grasp/sparql/metrics.py f1_score, apps/evaluation/app.py calculate_metrics)";

/// `evaluate.py`'s `--exact-after`: past this many rows on either side, exact
/// F1 over row tuples.
pub const EXACT_AFTER: usize = 1024;

/// GRASP's evaluation, as the `grasp` profile reproduces it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Grasp;

/// A result as GRASP holds it: an ASK result or the rows of a SELECT, each
/// the bound values in the order of the variables.
enum Outcome<'a> {
    Ask(bool),
    Rows(&'a [Answer]),
}

impl Outcome<'_> {
    /// `get_result_size`: 1 for ASK, else the rows.
    fn size(&self) -> usize {
        match self {
            Outcome::Ask(_) => 1,
            Outcome::Rows(r) => r.len(),
        }
    }
}

/// A question's result: its rows or boolean, or why there is none.
fn outcome(q: &Question) -> Result<Outcome<'_>, String> {
    if let Some(x) = q.execution.as_ref().filter(|x| !x.status.answered()) {
        return Err(format!(
            "{}: {}",
            x.status.name(),
            x.message.as_deref().unwrap_or("")
        ));
    }
    let set = q
        .answers
        .as_ref()
        .ok_or_else(|| "not executed: give --kg or --endpoint".to_string())?;
    Ok(shape(set))
}

/// An answer set as a result: ASK when it is one boolean and no variable.
fn shape(set: &AnswerSet) -> Outcome<'_> {
    if set.vars.is_empty() {
        if let [Answer { terms }] = set.answers.as_slice() {
            if let [Term::Boolean(b)] = terms.as_slice() {
                return Outcome::Ask(*b);
            }
        }
    }
    Outcome::Rows(&set.answers)
}

/// `metrics.f1_score(pred, target, exact_after)`, or `None` when the pairing
/// is past [`MAX_PAIRING_STEPS`] (scored 0 and counted as `too_large`).
fn f1_score(pred: &Outcome<'_>, target: &Outcome<'_>, exact_after: usize) -> Option<f64> {
    let (p, t) = match (pred, target) {
        (Outcome::Rows(p), Outcome::Rows(t)) => (*p, *t),
        _ => {
            let truth = |o: &Outcome<'_>| match o {
                Outcome::Ask(b) => *b,
                Outcome::Rows(r) => !r.is_empty(),
            };
            return Some(f64::from(u8::from(truth(pred) == truth(target))));
        }
    };
    match (p.is_empty(), t.is_empty()) {
        (true, true) => return Some(1.0),
        (true, false) | (false, true) => return Some(0.0),
        (false, false) => {}
    }
    if p.len() > exact_after || t.len() > exact_after {
        Some(exact_f1_score(p, t))
    } else {
        assignment_f1_score(p, t)
    }
}

/// `exact_f1_score`: rows as a multiset of tuples.
fn exact_f1_score(pred: &[Answer], target: &[Answer]) -> f64 {
    let mut counts: HashMap<&[Term], (usize, usize)> = HashMap::new();
    for a in pred {
        counts.entry(&a.terms).or_default().0 += 1;
    }
    for a in target {
        counts.entry(&a.terms).or_default().1 += 1;
    }
    let tp: usize = counts.values().map(|(p, t)| (*p).min(*t)).sum();
    if tp == 0 {
        return 0.0;
    }
    let (fp, fn_) = (pred.len() - tp, target.len() - tp);
    let prec = tp as f64 / (tp + fp) as f64;
    let rec = tp as f64 / (tp + fn_) as f64;
    2.0 * prec * rec / (prec + rec)
}

/// `assignment_f1_score`: `scores[i][j]` = |pred_i ∩ target_j| /
/// max(1, |target_j|) in float32, pairs by `linear_sum_assignment(maximize=True)`
/// (on the matrix as float64, as SciPy converts it), then NumPy 1.x's
/// arithmetic: the chosen scores summed in float32, the rest in float64.
fn assignment_f1_score(pred: &[Answer], target: &[Answer]) -> Option<f64> {
    let (np, nt) = (pred.len(), target.len());
    let (short, long) = (np.min(nt), np.max(nt));
    // each row's values counted (`Counter(row)`), with their number
    let mut numbered = Values::new();
    let targets: Vec<(Counted, usize)> = target
        .iter()
        .map(|row| numbered.count(row.terms.iter()))
        .collect();
    let values: usize = targets.iter().map(|(c, _)| c.len()).sum();
    if short.saturating_mul(short).saturating_mul(long) > MAX_PAIRING_STEPS
        || np.saturating_mul(values.max(nt)) > MAX_PAIRING_STEPS
    {
        return None;
    }
    let mut scores: Vec<f32> = Vec::with_capacity(np * nt);
    for row in pred {
        let (p, _) = numbered.count(row.terms.iter());
        scores.extend(targets.iter().map(|(t, total)| {
            // Python's int / int, stored into a float32 matrix
            (common(&p, t) as f64 / (*total).max(1) as f64) as f32
        }));
    }
    let cost: Vec<f64> = scores.iter().map(|s| f64::from(*s)).collect();
    let pairs = linear_sum_assignment(np, nt, &cost, true);
    let chosen: Vec<f32> = pairs.iter().map(|(i, j)| scores[i * nt + j]).collect();
    let rest: Vec<f32> = chosen.iter().map(|s| 1.0 - s).collect();
    let tp = super::lsap::numpy_sum(&chosen);
    let fn_ = f64::from(super::lsap::numpy_sum(&rest)) + nt as f64 - pairs.len() as f64;
    let fp = np - pairs.len();
    if tp <= 0.0 {
        return Some(0.0);
    }
    let tp = f64::from(tp);
    let prec = tp / (tp + fp as f64);
    let rec = tp / (tp + fn_);
    Some(2.0 * prec * rec / (prec + rec))
}

/// A figure that says yes.
fn yes(f: &mut Figures, key: &str) {
    f.insert(key.to_string(), 1.0);
}

impl Official for Grasp {
    fn script(&self) -> &'static str {
        SCRIPT
    }

    /// Every gold question has figures: `f1` where GRASP computes a score
    /// (an output it calls valid, a gold that ran, a query), with `elapsed`,
    /// `size` and `gold_size`; `output`, `invalid_output`, `evaluation`,
    /// `invalid_evaluation` (gold failed or empty) as GRASP counts them; `f1_all`
    /// the score the honest mean counts (0 for every failure); `line`, the
    /// output's line (GRASP sums in file order).
    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let mut f = Figures::from([("f1_all".to_string(), 0.0)]);
        let Some(output) = run.first() else {
            return Some(f);
        };
        yes(&mut f, "output");
        if let Some(line) = output.flags.get(GRASP_LINE).and_then(|l| l.parse().ok()) {
            f.insert("line".into(), line);
        }
        if output.flags.contains_key(GRASP_INVALID) {
            yes(&mut f, "invalid_output");
            return Some(f);
        }
        yes(&mut f, "evaluation");
        let Ok(target) = outcome(gold) else {
            yes(&mut f, "gold_failed");
            yes(&mut f, "invalid_evaluation");
            return Some(f);
        };
        f.insert("gold_size".into(), target.size() as f64);
        if target.size() == 0 {
            yes(&mut f, "invalid_evaluation");
        }
        let no_query = matches!(output.query, Query::None) && output.answers.is_none();
        if no_query {
            return Some(f);
        }
        let elapsed = output
            .flags
            .get(GRASP_ELAPSED)
            .and_then(|e| e.parse().ok())
            .or(output.usage.latency_ms.map(|ms| ms / 1000.0))
            .unwrap_or(0.0);
        f.insert("elapsed".into(), elapsed);
        let score = match outcome(output) {
            Ok(pred) => {
                f.insert("size".into(), pred.size() as f64);
                f1_score(&pred, &target, EXACT_AFTER).unwrap_or_else(|| {
                    yes(&mut f, "too_large");
                    0.0
                })
            }
            Err(_) => {
                // `get_result_size(None)`
                f.insert("size".into(), 0.0);
                yes(&mut f, "failed");
                0.0
            }
        };
        f.insert("f1".into(), score);
        f.insert("f1_all".into(), score);
        Some(f)
    }

    /// `calculate_metrics` (`empty_target_valid` false): `f1` and `accuracy`
    /// over the valid evaluations, summed in the output file's order, `time`
    /// the mean `elapsed` of those with a score, and the counts; beside them
    /// `f1_all` over every gold question and `too_large`.
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let count = |k: &str| flagged(scored, k) as f64;
        // in the output file's order (the questions it lacks after), so that
        // `f1_all` is `f1` to the bit when nothing is left out
        let mut in_order: Vec<&Figures> = scored.iter().map(|(_, f)| *f).collect();
        in_order.sort_by(|a, b| {
            let line = |f: &Figures| f.get("line").copied().unwrap_or(f64::INFINITY);
            line(a).total_cmp(&line(b))
        });
        let evaluations: Vec<&Figures> = in_order
            .iter()
            .copied()
            .filter(|f| f.contains_key("evaluation"))
            .collect();
        let (mut valid, mut f1, mut accuracy, mut time, mut timed) = (0usize, 0.0, 0.0, 0.0, 0);
        for e in evaluations
            .iter()
            .filter(|e| !e.contains_key("invalid_evaluation"))
        {
            valid += 1;
            let score = e.get("f1").copied().unwrap_or(0.0);
            if let Some(elapsed) = e.get("elapsed").filter(|_| e.contains_key("f1")) {
                time += elapsed;
                timed += 1;
            }
            f1 += score;
            accuracy += f64::from(u8::from(score == 1.0));
        }
        let mut all = 0.0;
        for f in &in_order {
            all += f["f1_all"];
        }
        let mut out = Figures::from([
            ("num_total".to_string(), gold_questions as f64),
            ("num_outputs".to_string(), count("output")),
            ("num_invalid_outputs".to_string(), count("invalid_output")),
            ("num_evaluations".to_string(), evaluations.len() as f64),
            (
                "num_invalid_evaluations".to_string(),
                count("invalid_evaluation"),
            ),
            ("f1".to_string(), f1 / valid.max(1) as f64),
            ("accuracy".to_string(), accuracy / valid.max(1) as f64),
            ("time".to_string(), time / f64::from(timed.max(1))),
            (
                "f1_all".to_string(),
                if gold_questions > 0 {
                    all / gold_questions as f64
                } else {
                    0.0
                },
            ),
        ]);
        super::official::count_flagged(scored, "too_large", &mut out);
        out
    }

    /// When GRASP's `f1` leaves questions out: over how many, against the mean
    /// over all, and which were left out and why.
    fn notes(&self, questions: &[(&str, &Figures)], aggregate: &Figures) -> Vec<String> {
        let valid = aggregate.get("num_evaluations").copied().unwrap_or(0.0)
            - aggregate
                .get("num_invalid_evaluations")
                .copied()
                .unwrap_or(0.0);
        let all = questions.len();
        if valid as usize == all {
            return Vec::new();
        }
        let ids = |test: &dyn Fn(&Figures) -> bool| -> Option<String> {
            let hit: Vec<&str> = questions
                .iter()
                .filter(|(_, f)| test(f))
                .map(|(id, _)| *id)
                .collect();
            (!hit.is_empty()).then(|| format!("{} ({})", hit.len(), shown(&hit)))
        };
        let has = |k: &'static str| move |f: &Figures| f.contains_key(k);
        let reasons: Vec<String> = [
            (
                "not in the output file",
                ids(&|f| !f.contains_key("output")),
            ),
            ("invalid outputs", ids(&has("invalid_output"))),
            ("gold query failed", ids(&has("gold_failed"))),
            (
                "empty gold",
                ids(&|f| f.contains_key("invalid_evaluation") && !f.contains_key("gold_failed")),
            ),
        ]
        .into_iter()
        .filter_map(|(why, ids)| ids.map(|ids| format!("{why}: {ids}")))
        .collect();
        vec![format!(
            "GRASP's f1 is over {} of {all} questions: {:.4}; over all {all}: {:.4} (`f1_all`, a failure 0). Left out: {}; the audit's findings on these gold questions apply (qajudge audit; docs/scoring.md, The `grasp` profile)",
            valid as usize,
            aggregate.get("f1").copied().unwrap_or(0.0),
            aggregate.get("f1_all").copied().unwrap_or(0.0),
            reasons.join("; ")
        )]
    }
}

/// Ids as a diagnostic lists them: the first ten, then how many more.
fn shown(ids: &[&str]) -> String {
    const SHOWN: usize = 10;
    let mut out = ids
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        out.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: &[&[&str]]) -> Vec<Answer> {
        rows.iter()
            .map(|r| Answer {
                terms: r.iter().map(|v| Term::plain(*v)).collect(),
            })
            .collect()
    }

    /// GRASP's own unit tests of `metrics.py` (`TestF1Score`).
    #[test]
    fn grasps_unit_tests_pass() {
        let s = |p: &[&[&str]], t: &[&[&str]]| {
            let (p, t) = (rows(p), rows(t));
            f1_score(&Outcome::Rows(&p), &Outcome::Rows(&t), EXACT_AFTER).expect("small")
        };
        let e = |p: &[&[&str]], t: &[&[&str]]| exact_f1_score(&rows(p), &rows(t));
        assert_eq!(
            e(&[&["a", "b"], &["c", "d"]], &[&["a", "b"], &["c", "d"]]),
            1.0
        );
        assert_eq!(e(&[&["a", "b"]], &[&["e", "f"]]), 0.0);
        let third = e(
            &[&["a", "b"], &["c", "d"], &["e", "f"]],
            &[&["a", "b"], &["g", "h"], &["i", "j"]],
        );
        assert!((third - 1.0 / 3.0).abs() < 1e-12);
        let dup = e(
            &[&["a", "b"], &["a", "b"], &["c", "d"]],
            &[&["a", "b"], &["c", "d"], &["c", "d"]],
        );
        assert_eq!(dup, 0.6666666666666666);
        assert_eq!(
            s(&[&["a", "b"], &["c", "d"]], &[&["a", "b"], &["c", "d"]]),
            1.0
        );
        assert_eq!(
            s(&[&["a", "b"], &["c", "d"]], &[&["e", "f"], &["g", "h"]]),
            0.0
        );
        let partial = s(
            &[&["a", "b", "c"], &["d", "e"]],
            &[&["a", "b"], &["d", "e", "f"]],
        );
        assert!((partial - 0.9090909090909091).abs() < 1e-6, "{partial}");
        let lengths = s(
            &[&["a", "b"], &["c", "d"], &["e", "f"]],
            &[&["a", "b"], &["g", "h"]],
        );
        assert_eq!(lengths, 0.5);
        let extras = s(
            &[&["c", "extra1", "a", "b"], &["f", "e", "d", "extra2"]],
            &[&["a", "b", "c"], &["d", "e", "f"]],
        );
        assert_eq!(extras, 1.0);
        let (ask_t, ask_f) = (Outcome::Ask(true), Outcome::Ask(false));
        assert_eq!(f1_score(&ask_t, &ask_t, 1), Some(1.0));
        assert_eq!(f1_score(&ask_f, &ask_f, 1), Some(1.0));
        assert_eq!(f1_score(&ask_t, &ask_f, 1), Some(0.0));
        let (none, one) = (rows(&[]), rows(&[&["value"]]));
        let (empty, value) = (Outcome::Rows(&none), Outcome::Rows(&one));
        assert_eq!(f1_score(&empty, &empty, 1), Some(1.0));
        assert_eq!(f1_score(&empty, &value, 1), Some(0.0));
        assert_eq!(f1_score(&value, &empty, 1), Some(0.0));
        // a SELECT with rows against ASK true is true
        assert_eq!(f1_score(&value, &ask_t, 1), Some(1.0));
    }

    #[test]
    fn assignment_arithmetic_is_numpy_1s() {
        // 1/3 stored as float32, summed in float32, then float64: GRASP's
        // assignment_f1_score under NumPy 1.26 gives 0.2857142966620777 (one
        // of three target values found, two predicted rows, one target row)
        let score = s2(&[&["a", "x"], &["y"]], &[&["a", "b", "c"]]);
        assert_eq!(score, 0.2857142966620777);
        let third = f64::from(1.0f32 / 3.0);
        let prec = third / (third + 1.0);
        let rec = third / (third + f64::from(1.0f32 - (1.0f32 / 3.0)));
        assert_eq!(score, 2.0 * prec * rec / (prec + rec));
        // eight values and more: pairwise, not left to right
        let v: Vec<f32> = (0..20).map(|i| 1.0 / (i as f32 + 3.0)).collect();
        let mut naive = 0.0f32;
        for x in &v {
            naive += x;
        }
        assert!((crate::eval::profiles::lsap::numpy_sum(&v) - naive).abs() < 1e-5);
    }

    fn s2(p: &[&[&str]], t: &[&[&str]]) -> f64 {
        assignment_f1_score(&rows(p), &rows(t)).expect("small")
    }
}
