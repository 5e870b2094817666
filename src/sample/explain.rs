//! Why a system fails (docs/features.md, "Why a system fails"): questions
//! with F1 ≥ 0.5 are solved, the others failed, and a short decision list of
//! feature conditions separates them. Each rule is the single condition
//! (`feature >= t`, `feature <= t`, a boolean flag, or a question word or
//! answer type) with the most failures above those its size would have at the
//! failure rate of the questions left (weighted relative accuracy); the
//! questions it covers are then set aside and the next rule is learnt on the
//! rest. Each rule reports its support, the failure rate inside and outside it
//! (over all questions) and the questions it covers. Pure and deterministic:
//! conditions are tried in a fixed order and a tie keeps the first.

use std::collections::BTreeSet;

use super::features::{QuestionFeatures, NUMERIC};
use super::vocab::is_boolean;

/// F1 at or above which a question is solved.
pub const SOLVED_F1: f64 = 0.5;
/// The most rules learnt.
pub const MAX_RULES: usize = 5;

/// One rule of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The condition, e.g. `triple_patterns >= 3` or `qword = "how many"`.
    pub condition: String,
    /// Questions meeting it (over all questions).
    pub support: usize,
    /// Of those, the failed ones.
    pub failed: usize,
    /// Failure rate of the questions meeting it.
    pub failure_rate_inside: f64,
    /// Failure rate of the other questions.
    pub failure_rate_outside: f64,
    /// The ids of the questions it covers in the list (those meeting it that
    /// no earlier rule covers), in input order.
    pub questions: Vec<String>,
}

/// The explanation of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// Questions solved (F1 ≥ [`SOLVED_F1`]).
    pub solved: usize,
    /// Questions failed.
    pub failed: usize,
    /// The rules, in the order learnt.
    pub rules: Vec<Rule>,
}

/// A condition over a question's features.
#[derive(Debug, Clone, PartialEq)]
enum Test {
    AtLeast(&'static str, f64),
    AtMost(&'static str, f64),
    Flag(&'static str, bool),
    Word(&'static str, String),
}

impl Test {
    fn holds(&self, f: &QuestionFeatures) -> bool {
        let v = |n: &str| f.value(n).unwrap_or(0.0);
        match self {
            Test::AtLeast(n, t) => v(n) >= *t,
            Test::AtMost(n, t) => v(n) <= *t,
            Test::Flag(n, b) => (v(n) > 0.0) == *b,
            Test::Word(n, w) => word(f, n) == Some(w.as_str()),
        }
    }

    fn text(&self) -> String {
        match self {
            Test::AtLeast(n, t) => format!("{n} >= {t}"),
            Test::AtMost(n, t) => format!("{n} <= {t}"),
            Test::Flag(n, b) => format!("{n} = {b}"),
            Test::Word(n, w) => format!("{n} = {w:?}"),
        }
    }
}

fn word<'a>(f: &'a QuestionFeatures, name: &str) -> Option<&'a str> {
    match name {
        "qword" => f.qword.as_deref(),
        "answer_type" => f.answer_type.as_deref(),
        _ => None,
    }
}

/// Every condition worth trying on the questions, in a fixed order.
fn tests(questions: &[&QuestionFeatures]) -> Vec<Test> {
    let mut out = Vec::new();
    for &n in &NUMERIC {
        if is_boolean(n) {
            out.push(Test::Flag(n, true));
            out.push(Test::Flag(n, false));
            continue;
        }
        // thresholds between the distinct values (bounded: at most 64 per feature)
        let values: BTreeSet<u64> = questions
            .iter()
            .filter_map(|f| f.value(n))
            .filter(|v| v.is_finite())
            .map(f64::to_bits)
            .collect();
        let mut values: Vec<f64> = values.into_iter().map(f64::from_bits).collect();
        values.sort_by(f64::total_cmp);
        let step = values.len().div_ceil(64).max(1);
        for v in values.iter().step_by(step) {
            out.push(Test::AtLeast(n, *v));
            out.push(Test::AtMost(n, *v));
        }
    }
    for n in ["qword", "answer_type"] {
        let words: BTreeSet<&str> = questions.iter().filter_map(|f| word(f, n)).collect();
        out.extend(words.into_iter().map(|w| Test::Word(n, w.to_string())));
    }
    out
}

/// Learns the rule list: `questions` with their F1 (the same order). A rule
/// must cover at least `min_support` questions (at least 1).
pub fn explain(questions: &[(&QuestionFeatures, f64)], min_support: usize) -> Explanation {
    let failed: Vec<bool> = questions.iter().map(|(_, f1)| *f1 < SOLVED_F1).collect();
    let all: Vec<&QuestionFeatures> = questions.iter().map(|(f, _)| *f).collect();
    let total_failed = failed.iter().filter(|x| **x).count();
    let candidates = tests(&all);
    let mut left: Vec<usize> = (0..all.len()).collect();
    let mut rules = Vec::new();
    let min_support = min_support.max(1);
    while rules.len() < MAX_RULES && !left.is_empty() {
        let n = left.len() as f64;
        let fails_left = left.iter().filter(|&&i| failed[i]).count() as f64;
        if fails_left == 0.0 {
            break;
        }
        let base = fails_left / n;
        let mut best: Option<(f64, &Test)> = None;
        for t in &candidates {
            let (mut covered, mut fails) = (0usize, 0usize);
            for &i in &left {
                if t.holds(all[i]) {
                    covered += 1;
                    fails += usize::from(failed[i]);
                }
            }
            if covered < min_support || covered == left.len() {
                continue;
            }
            // weighted relative accuracy: coverage × (rate inside − rate left)
            let score = (covered as f64 / n) * (fails as f64 / covered as f64 - base);
            if score > 1e-12 && best.is_none_or(|(b, _)| score > b + 1e-12) {
                best = Some((score, t));
            }
        }
        let Some((_, t)) = best else { break };
        let inside: Vec<usize> = (0..all.len()).filter(|&i| t.holds(all[i])).collect();
        let fails_inside = inside.iter().filter(|&&i| failed[i]).count();
        let outside = all.len() - inside.len();
        let rate = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let covered: Vec<usize> = left.iter().copied().filter(|&i| t.holds(all[i])).collect();
        rules.push(Rule {
            condition: t.text(),
            support: inside.len(),
            failed: fails_inside,
            failure_rate_inside: rate(fails_inside, inside.len()),
            failure_rate_outside: rate(total_failed - fails_inside, outside),
            questions: covered.iter().map(|&i| all[i].id.clone()).collect(),
        });
        left.retain(|&i| !t.holds(all[i]));
    }
    Explanation {
        solved: all.len() - total_failed,
        failed: total_failed,
        rules,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(id: &str, tps: usize, qword: &str, aggregates: bool) -> QuestionFeatures {
        QuestionFeatures {
            id: id.into(),
            text: None,
            words: 5,
            entities: vec![],
            entity_words: vec![],
            avg_entity_words: 0.0,
            relations: vec![],
            relation_words: vec![],
            avg_relation_words: 0.0,
            classes: vec![],
            class_words: vec![],
            avg_class_words: 0.0,
            answer_type: Some("resource".into()),
            number_answer: false,
            boolean_answer: false,
            qword: Some(qword.into()),
            triple_patterns: Some(tps),
            bgps: Some(1),
            projection_variables: Some(1),
            result_size: None,
            select: true,
            ask: false,
            distinct: false,
            filter: false,
            optional: false,
            union: false,
            order_by: false,
            group_by: false,
            aggregates,
            limit: false,
            offset: false,
            bind: false,
            functions: false,
            pos: vec![],
        }
    }

    #[test]
    fn a_hand_made_case() {
        // 10 questions: the system fails every one with 3 or more triple
        // patterns (q6..q9) and the one "how many" question with an
        // aggregate (q5); it solves the rest
        let qs: Vec<QuestionFeatures> = (0..10)
            .map(|i| {
                let tps = if i >= 6 { 3 } else { 1 };
                let (w, agg) = if i == 5 {
                    ("how many", true)
                } else {
                    ("what", false)
                };
                question(&format!("q{i}"), tps, w, agg)
            })
            .collect();
        let f1 = |i: usize| if i >= 5 { 0.0 } else { 1.0 };
        let input: Vec<(&QuestionFeatures, f64)> =
            qs.iter().enumerate().map(|(i, q)| (q, f1(i))).collect();
        let e = explain(&input, 1);
        assert_eq!((e.solved, e.failed), (5, 5));
        // first: triple_patterns >= 3 covers 4, all failed: WRAcc 0.4 × (1 − 0.5)
        // = 0.2 (aggregates = true: 0.1 × 0.5 = 0.05)
        assert_eq!(e.rules[0].condition, "triple_patterns >= 3");
        assert_eq!(e.rules[0].support, 4);
        assert_eq!(e.rules[0].failed, 4);
        assert!((e.rules[0].failure_rate_inside - 1.0).abs() < 1e-12);
        // outside: 1 failed of 6
        assert!((e.rules[0].failure_rate_outside - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(e.rules[0].questions, ["q6", "q7", "q8", "q9"]);
        // then, on q0..q5: aggregates = true (the first of the conditions that
        // pick q5 alone, in the fixed order: the flags come before the words)
        assert_eq!(e.rules[1].condition, "aggregates = true");
        assert_eq!(e.rules[1].questions, ["q5"]);
        // nothing is left to explain
        assert_eq!(e.rules.len(), 2);
        // with a minimum support of 2, q5 alone is no rule
        let e = explain(&input, 2);
        assert_eq!(e.rules.len(), 1);
        // everything solved: no rule
        let solved: Vec<(&QuestionFeatures, f64)> = qs.iter().map(|q| (q, 1.0)).collect();
        assert!(explain(&solved, 1).rules.is_empty());
    }
}
