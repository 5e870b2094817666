//! The `tog` profile: reproduces Think-on-Graph's evaluation, read in
//! GasolSun36/ToG `eval/eval.py` and `eval/utils.py` at commit
//! 934064c4a8a391c7f351339676f29ed764e40054 (`eval/` last changed in
//! 44d63b8). Its rules, where they differ from `judge` (docs/scoring.md, Other
//! benchmark families):
//!
//! - **join**: an output names its question by text; it is scored against the
//!   first gold question with that text (qajudge compares the texts trimmed;
//!   a text the gold lacks, which crashes the script, is an extra question);
//! - **response**: when the model's `results` holds a `{`, the text after the
//!   first `{` up to the first `}` (Python's slice: without a `}`, all but the
//!   last character; a `}` before the `{`, nothing), else the whole text. A run
//!   of another format: its `prediction` text, else its first answer as
//!   written;
//! - **gold strings** (`align`): every gold answer's names, over all WebQSP
//!   parses (no quality filter): CWQ's answer and aliases, WebQSP's
//!   `EntityName` (its `AnswerArgument` when it has none), GrailQA's
//!   `entity_name` (else `answer_argument`), the names of SimpleQuestions and
//!   WebQuestions; duplicates once;
//! - **match** (`exact_match`, despite its name): both sides trimmed, spaces
//!   removed, lower-cased; right when they are equal or either contains the
//!   other (so an empty response `{}` is right against any gold, and a
//!   sentence containing a gold name is right); an empty gold is wrong;
//! - **refusals**: the script's `--constraints_refuse` never skips anything
//!   (its check cannot fire), so every output is scored;
//! - **run figures** (`official`): `Exact Match` = right outputs / outputs
//!   scored (not the gold size: a missing question is not counted; an output
//!   given twice counts twice), `right`, `error`.
//!
//! The usual P/R/F1 match the response, as one free-text answer, with
//! `judge`'s term rules. `tests/integration/official.rs` checks the figures
//! against the script's output.

use super::official::{count_too_large, MAX_TEXT_STEPS, TOO_LARGE};
use super::qa_only::QaOnly;
use super::written::{first_written, flag_string, names};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::Question;
use crate::qald::braced;

/// The rules of the `tog` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tog;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules for P/R/F1 (the official figure is computed apart from the answers as written); micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Tog,
};

/// The gold strings of `align`, over every parse when there are several.
fn gold_strings(gold: &Question) -> Vec<String> {
    let mut out: Vec<String> = if gold.parses.is_empty() {
        gold.answers.as_ref().map(names).unwrap_or_default()
    } else {
        gold.parses.iter().flat_map(|p| names(&p.answers)).collect()
    };
    out.sort();
    out.dedup();
    out
}

/// The response of one output: `results` (braced part, else all), else a
/// `prediction` string, else the first answer as written.
fn response(run: &Question) -> String {
    if let Some(results) = flag_string(run, "results") {
        return braced(&results).map_or_else(|| results.clone(), str::to_string);
    }
    flag_string(run, "prediction")
        .or_else(|| first_written(run))
        .unwrap_or_default()
}

/// ToG's `clean` of both sides: trimmed, spaces removed, lower case.
fn clean(s: &str) -> String {
    s.trim().replace(' ', "").to_lowercase()
}

/// ToG's `exact_match`.
#[cfg(test)]
fn exact_match(response: &str, answers: &[String]) -> bool {
    let cleaned: Vec<String> = answers.iter().map(|a| clean(a)).collect();
    exact_match_cleaned(response, &cleaned)
}

/// ToG's `exact_match` against answers cleaned once per question.
fn exact_match_cleaned(response: &str, answers: &[String]) -> bool {
    let r = clean(response);
    answers
        .iter()
        .any(|a| r == *a || a.contains(&r) || r.contains(a.as_str()))
}

impl Official for Tog {
    fn script(&self) -> &'static str {
        "Think-on-Graph's eval/eval.py and eval/utils.py (GasolSun36/ToG, commit 934064c4a8a391c7f351339676f29ed764e40054)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        if run.is_empty() {
            return None;
        }
        let answers: Vec<String> = gold_strings(gold).iter().map(|a| clean(a)).collect();
        let responses: Vec<String> = run.iter().map(|r| response(r)).collect();
        let answer_bytes: usize = answers.iter().map(String::len).sum();
        let steps = responses
            .iter()
            .map(|r| {
                r.len()
                    .saturating_mul(answers.len())
                    .saturating_add(answer_bytes)
            })
            .fold(0usize, usize::saturating_add);
        if steps > MAX_TEXT_STEPS {
            return Some(Figures::from([
                ("right".to_string(), 0.0),
                ("error".to_string(), run.len() as f64),
                (TOO_LARGE.to_string(), 1.0),
            ]));
        }
        let right = responses
            .iter()
            .filter(|r| exact_match_cleaned(r, &answers))
            .count() as f64;
        Some(Figures::from([
            ("right".to_string(), right),
            ("error".to_string(), run.len() as f64 - right),
        ]))
    }

    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let right: f64 = scored.iter().map(|(_, f)| f["right"]).sum();
        let error: f64 = scored.iter().map(|(_, f)| f["error"]).sum();
        let outputs = right + error;
        let mut out = Figures::from([
            (
                "Exact Match".to_string(),
                if outputs > 0.0 { right / outputs } else { 0.0 },
            ),
            ("right".to_string(), right),
            ("error".to_string(), error),
        ]);
        count_too_large(scored, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{strings, with_flag};
    use super::*;
    use crate::model::{AnswerSet, Term};

    #[test]
    fn a_question_past_the_text_steps_is_too_large() {
        let question = |answers: usize, response: usize| {
            let gold = Question {
                answers: Some(AnswerSet {
                    answers: (0..answers)
                        .map(|i| crate::model::Answer::single(Term::plain(format!("a{i}"))))
                        .collect(),
                    ..AnswerSet::default()
                }),
                ..Question::default()
            };
            let run = with_flag(
                "prediction",
                serde_json::json!(format!("a1{}", "x".repeat(response))),
            );
            Tog.question(&gold, &[&run], &Resources::default())
                .expect("figures")
        };
        let big = question(50_000, 50_000);
        assert_eq!(
            (big["too_large"], big["right"], big["error"]),
            (1.0, 0.0, 1.0)
        );
        let small = question(5, 100);
        assert!(!small.contains_key("too_large"));
        assert_eq!(small["right"], 1.0);
        let all = [(&Question::default(), &big), (&Question::default(), &small)];
        let aggregate = Tog.aggregate(&all, 2, &Resources::default());
        assert_eq!(
            (aggregate["too_large"], aggregate["Exact Match"]),
            (1.0, 0.5)
        );
    }

    #[test]
    fn containment_either_way_without_spaces() {
        let g = strings(&["Barack Obama", "Obama"]);
        assert!(exact_match("BarackObama", &g));
        assert!(exact_match("I think it is Michelle Obama", &g));
        assert!(exact_match("", &g));
        assert!(!exact_match("Paris", &g));
        assert!(!exact_match("", &[]));
    }
}
