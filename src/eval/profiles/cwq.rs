//! The `cwq` profile: reproduces ComplexWebQuestions' official evaluation
//! script, read in alontalmor/WebAsKB `eval_script.py` at commit
//! 595827adc7ff5e39b44eda90af5308c0546abd7d ("Official evaluation script for
//! v1.0 of the ComplexWebQuestions dataset"). Its rules, where they differ from
//! `judge` (docs/scoring.md, Other benchmark families):
//!
//! - **one answer per question**: a prediction is one string (`{ID, answer}`);
//!   it is compared exactly as written, not trimmed, not lower-cased;
//! - **gold strings**: every gold answer's `answer` followed by its `aliases`,
//!   each lower-cased and trimmed, and each also in a second form: NFKD with
//!   non-ASCII characters dropped, every non-word character a space (not
//!   collapsed), trimmed, and one leading `the `, then `a `, then `an `
//!   removed. A gold in ToG's shape (one `answer` name, no aliases) is that
//!   name;
//! - **match**: the prediction equals one of the two forms of a gold string;
//!   or, when the lower-cased question contains `year`, it equals the first
//!   four-digit year (1000–2999) of a lower-cased gold string;
//! - **P1** per question: 100 when a prediction matches, else 0; a question
//!   whose gold holds a null answer or alias scores 0; a question predicted
//!   twice counts each prediction (a question can count 200);
//! - **run figure** (`official`): `P1` = the sum over predictions / the number
//!   of gold questions (a missing question counts 0); `predictions` and
//!   `questions` beside it. A predicted id that is not in the gold, which
//!   crashes the script, is an extra question, left out.
//!
//! The usual P/R/F1 match terms with `judge`'s rules. The F1 and Hits@1 papers
//! report on CWQ come from other scripts (the `rog` profile).
//! `tests/integration/official.rs` checks the figures against the script's
//! output.

use super::qa_only::QaOnly;
use super::written::{first_written, term_text, written};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::Question;
use crate::terms::literal::nfkd_ascii;
use std::collections::HashSet;

/// The rules of the `cwq` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cwq;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules for P/R/F1 (the official figure is computed apart from the answers as written); micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Cwq,
};

/// The gold strings (answer, then aliases, per answer), `None` when one is
/// null.
fn gold_strings(gold: &Question) -> Option<Vec<String>> {
    let written_answers = gold
        .flags
        .get("answers")
        .and_then(|a| serde_json::from_str::<serde_json::Value>(a).ok());
    if let Some(serde_json::Value::Array(answers)) = written_answers {
        let mut out = Vec::new();
        for a in &answers {
            match a.get("answer") {
                Some(serde_json::Value::String(s)) => out.push(s.clone()),
                _ => return None,
            }
            for alias in a
                .get("aliases")
                .and_then(|v| v.as_array())
                .into_iter()
                .flatten()
            {
                out.push(alias.as_str()?.to_string());
            }
        }
        return Some(out);
    }
    // ToG's shape: the names as read, each answer's labels after its first form
    let set = gold.answers.as_ref()?;
    let values = written(set);
    Some(
        set.answers
            .iter()
            .zip(values)
            .flat_map(|(a, v)| std::iter::once(v).chain(a.terms.iter().skip(1).map(term_text)))
            .collect(),
    )
}

/// The script's `pre_proc_answer` of a lower-cased, trimmed gold string.
fn pre_proc(answer: &str) -> String {
    let ascii = nfkd_ascii(answer);
    let spaced: String = ascii
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let mut p = spaced.to_lowercase().trim().to_string();
    for article in ["the ", "a ", "an "] {
        if let Some(rest) = p.strip_prefix(article) {
            p = rest.to_string();
        }
    }
    p
}

/// The first `[1-2][0-9]{3}` of a text.
fn first_year(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(3)).find_map(|i| {
        (matches!(b[i], b'1' | b'2') && b[i + 1..i + 4].iter().all(u8::is_ascii_digit))
            .then(|| &s[i..i + 4])
    })
}

/// Every prediction string `compare_span_to_answer` takes for one of the
/// gold strings: each lower-cased and trimmed, its `pre_proc` form, and its
/// first year when the question asks for a year. Made once per question, so
/// a question's predictions are each one lookup.
fn accepted(golden: &[String], question: &str) -> HashSet<String> {
    let year = question.to_lowercase().trim().contains("year");
    let mut out = HashSet::new();
    for g in golden {
        let answer = g.to_lowercase().trim().to_string();
        if year {
            if let Some(y) = first_year(&answer) {
                out.insert(y.to_string());
            }
        }
        out.insert(pre_proc(&answer));
        out.insert(answer);
    }
    out
}

/// True when `prediction` matches a gold string as `compare_span_to_answer` does.
#[cfg(test)]
fn matches(prediction: &str, golden: &[String], question: &str) -> bool {
    accepted(golden, question).contains(prediction)
}

/// The prediction string as written (the flag `answer`), else the written
/// value of the first answer.
fn prediction(run: &Question) -> Option<String> {
    match run
        .flags
        .get("answer")
        .and_then(|a| serde_json::from_str::<serde_json::Value>(a).ok())
    {
        Some(serde_json::Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
        None => first_written(run),
    }
}

impl Official for Cwq {
    fn script(&self) -> &'static str {
        "ComplexWebQuestions' eval_script.py (alontalmor/WebAsKB eval_script.py, commit 595827adc7ff5e39b44eda90af5308c0546abd7d)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let question = gold.text("en").unwrap_or("");
        let golden = gold_strings(gold).map(|g| accepted(&g, question));
        let p1: f64 = run
            .iter()
            .map(|r| match (&golden, prediction(r)) {
                (Some(g), Some(p)) if g.contains(&p) => 100.0,
                _ => 0.0,
            })
            .sum();
        Some(Figures::from([
            ("P1".to_string(), p1),
            ("predictions".to_string(), run.len() as f64),
        ]))
    }

    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let sum: f64 = scored.iter().map(|(_, f)| f["P1"]).sum();
        let predictions: f64 = scored.iter().map(|(_, f)| f["predictions"]).sum();
        Figures::from([
            (
                "P1".to_string(),
                if gold_questions > 0 {
                    sum / gold_questions as f64
                } else {
                    0.0
                },
            ),
            ("predictions".to_string(), predictions),
            ("questions".to_string(), gold_questions as f64),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_forms_as_the_script_makes_them() {
        assert_eq!(pre_proc("st. louis cardinals"), "st  louis cardinals");
        assert_eq!(pre_proc("the a x"), "x");
        assert_eq!(pre_proc("méxico"), "mexico");
        assert_eq!(first_year("1995 world series"), Some("1995"));
        assert_eq!(first_year("world series 3995"), None);
        let g = vec!["Barack Obama".to_string()];
        assert!(matches("barack obama", &g, "who"));
        assert!(!matches("Barack Obama", &g, "who"));
        assert!(!matches(" barack obama", &g, "who"));
    }
}
