//! The `gtsqa` profile: reproduces the exact-match rule the GTSQA paper
//! scores answers with, `new_exact_match` of graphcore-research/synth-kgqa
//! `synth_kgqa/eval.py` at commit 13fa2af12e2a79ac22289e4cf84b2ec486b09783
//! (the script asks a model and records, per question and try, whether its
//! answer is right as `io_em_k`, `cot_em_k`, `graphrag_em_k`). Its rules,
//! where they differ from `judge` (docs/scoring.md, Other benchmark
//! families):
//!
//! - **response**: the model's whole output: a run's `results` text (a
//!   Think-on-Graph output), else its `prediction` text, else its first
//!   answer as written;
//! - **cleaning**: both sides stripped, every space (U+0020 only) removed,
//!   lower-cased;
//! - **final answer**: the last `{…}` of the cleaned response (the shortest
//!   text up to the next `}`, within one line; it may be empty or hold a
//!   `{`), unless it is `yes` or `no`, when the whole cleaned response is
//!   taken; without braces, the whole cleaned response;
//! - **match**: right when the final answer and a cleaned gold name are
//!   equal or either contains the other (so an empty `{}` is right against
//!   any gold, and an answer without braces is right when it mentions a gold
//!   name); no gold name is wrong;
//! - **gold names**: each answer's labels (the names beside its IRI), else its
//!   written value, as the script takes the knowledge graph's labels of the
//!   answer entities;
//! - **per question** `em` (1 or 0); a gold question the run lacks scores 0
//!   (the script asks the model every question); of several outputs of one
//!   question the first counts;
//! - **run figures** (`official`): `em` (the mean over the gold questions),
//!   `right`, `questions`, and the subgraph figures of docs/scoring.md
//!   (Subgraph retrieval) when the run gives retrieved triples.
//!
//! The usual P/R/F1 match names with `judge`'s term rules.
//! `tests/integration/kgqa_scripts.rs` checks `em` against the script's
//! function on every case.

use super::official::{count_too_large, MAX_TEXT_STEPS, TOO_LARGE};
use super::python;
use super::qa_only::QaOnly;
use super::subgraph;
use super::written::{first_written, flag_string, names};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::Question;

/// The rules of the `gtsqa` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gtsqa;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules
/// for P/R/F1 (the official figure is computed apart, from the texts);
/// micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Gtsqa,
};

/// `s.strip().replace(" ", "").lower()`.
fn clean(s: &str) -> String {
    python::strip(s).replace(' ', "").to_lowercase()
}

/// The last match of `\{(.*?)\}` (no `re.DOTALL`: the text up to the first
/// `}` after a `{`, without a line feed), or `None`.
fn last_braced(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    let mut last = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            let end = bytes[i + 1..]
                .iter()
                .position(|&b| b == b'}' || b == b'\n')
                .map(|k| i + 1 + k);
            if let Some(c) = end.filter(|&c| bytes[c] == b'}') {
                last = Some(&s[i + 1..c]);
                i = c + 1;
                continue;
            }
        }
        i += 1;
    }
    last
}

/// `new_exact_match(response, answers)`.
#[cfg(test)]
fn new_exact_match(response: &str, answers: &[String]) -> bool {
    let cleaned: Vec<String> = answers.iter().map(|a| clean(a)).collect();
    matches_cleaned(response, &cleaned)
}

/// [`new_exact_match`] with the answers cleaned already.
fn matches_cleaned(response: &str, answers: &[String]) -> bool {
    let clean_result = clean(response);
    let final_ans = match last_braced(&clean_result) {
        Some(last) if last != "yes" && last != "no" => last,
        _ => clean_result.as_str(),
    };
    answers
        .iter()
        .any(|a| final_ans == a || final_ans.contains(a.as_str()) || a.contains(final_ans))
}

/// The gold names: each answer's labels (literals after its first term),
/// else its written value.
fn gold_names(gold: &Question) -> Vec<String> {
    gold.answers.as_ref().map(names).unwrap_or_default()
}

/// The model's response: `results`, else `prediction`, else the first answer
/// as written.
fn response(run: &Question) -> String {
    flag_string(run, "results")
        .or_else(|| flag_string(run, "prediction"))
        .or_else(|| first_written(run))
        .unwrap_or_default()
}

impl Official for Gtsqa {
    fn script(&self) -> &'static str {
        "GTSQA's new_exact_match (graphcore-research/synth-kgqa synth_kgqa/eval.py, commit 13fa2af12e2a79ac22289e4cf84b2ec486b09783)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let answers: Vec<String> = gold_names(gold).iter().map(|a| clean(a)).collect();
        let response = run.first().map(|r| response(r)).unwrap_or_default();
        let answer_bytes: usize = answers.iter().map(String::len).sum();
        let steps = response
            .len()
            .saturating_mul(answers.len())
            .saturating_add(answer_bytes.saturating_mul(2));
        let mut figures = if steps > MAX_TEXT_STEPS {
            Figures::from([("em".to_string(), 0.0), (TOO_LARGE.to_string(), 1.0)])
        } else {
            let right = !run.is_empty() && matches_cleaned(&response, &answers);
            Figures::from([("em".to_string(), f64::from(u8::from(right)))])
        };
        subgraph::add_question(gold, run, &mut figures);
        Some(figures)
    }

    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let n = scored.len() as f64;
        let right: f64 = scored.iter().map(|(_, f)| f["em"]).sum();
        let mut out = Figures::from([
            ("em".to_string(), if n > 0.0 { right / n } else { 0.0 }),
            ("right".to_string(), right),
            ("questions".to_string(), n),
        ]);
        count_too_large(scored, &mut out);
        subgraph::aggregate(scored, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::strings;
    use super::*;

    #[test]
    fn the_last_braces_unless_yes_or_no_and_containment_either_way() {
        let g = strings(&["Barack Obama"]);
        assert!(new_exact_match("It is {Barack Obama}.", &g));
        assert!(new_exact_match("{Michelle} no, {barackobama}", &g));
        assert!(new_exact_match("{Obama}", &g));
        assert!(new_exact_match("{}", &g));
        assert!(!new_exact_match("{yes}", &g));
        assert!(new_exact_match("{yes} Barack Obama", &g));
        assert!(!new_exact_match("{Paris}", &g));
        assert!(!new_exact_match("{Paris}", &[]));
        // `.` stops at a line feed: the braces do not close on this line
        assert!(new_exact_match(
            "{Barack\nObama}",
            &strings(&["barack\nobama"])
        ));
        assert_eq!(last_braced("{a{b}c}"), Some("a{b"));
    }
}
