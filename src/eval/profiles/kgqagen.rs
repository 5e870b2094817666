//! The `kgqagen` profile: reproduces KGQAGen-10k's exact-match scorer, read
//! in liangliang6v6/KGQAGen `src/baseline/ToG/eval/my_eval.py` at commit
//! f7a2a0c8d58e321d95257167304768e046dbf365. Its rules, where they differ
//! from `judge` (docs/scoring.md, Other benchmark families):
//!
//! - **join**: an output names its question by text (Think-on-Graph's
//!   `{question, results}`); the script keeps an output whose question is in
//!   the test set, once per question (a second output of a question is
//!   skipped), and scores nothing else: a gold question without an output is
//!   left out of the figures;
//! - **prediction** (`extract_pred`): the last `{…}` of `results` that holds
//!   no brace and at least one character (`re.findall(r"\{([^{}]+)\}")`),
//!   stripped; `""` when there is none (text without braces scores as an
//!   empty prediction, unlike ToG's rule). A run of another format: its
//!   `prediction` text, else its first answer as written, taken whole;
//! - **gold strings**: the record's `answer` as written (its values when it is
//!   an object; a single string is a list of its characters, as Python
//!   iterates it); for a gold of another format, each answer's first label,
//!   else its written value;
//! - **normalisation** (`normalize`): lower case, ASCII punctuation deleted,
//!   whitespace runs (Python's) collapsed to one space; no article removal;
//! - **match**: the normalised gold string is a substring of the normalised
//!   prediction (so gold `Haicheng (Q1011073)`, normalised `haicheng
//!   q1011073`, needs its id in the prediction);
//! - **per question**: `acc` = matched gold strings / gold strings, `hit` = 1
//!   when one matches, `precision` = matched / 1 (the one prediction: it can
//!   exceed 1), `recall` = matched / gold strings, `f1` their harmonic mean;
//!   a gold without strings (or one that is not text) makes the script fail:
//!   scored 0 and counted in the run's `script_fails`;
//! - **run figures** (`official`): `Accuracy`, `Hit@1`, `F1`, `P`, `R`, the
//!   means ×100 over the scored questions as the script prints them, and
//!   `questions`; the subgraph figures of docs/scoring.md (Subgraph
//!   retrieval) when the run gives retrieved triples.
//!
//! Departures: a question text two gold records share is joined to the first
//! (the script's dictionary keeps the last), and texts are compared trimmed.
//! The usual P/R/F1 match names with `judge`'s term rules.
//! `tests/integration/kgqa_scripts.rs` checks the figures against the
//! script's output.

use serde_json::Value;

use super::official::{count_flagged, count_too_large, percent_means, MAX_TEXT_STEPS, TOO_LARGE};
use super::python;
use super::qa_only::QaOnly;
use super::rog::gold_names;
use super::subgraph;
use super::written::{first_written, flag_string};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::Question;

/// The rules of the `kgqagen` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kgqagen;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules
/// for P/R/F1 (the official figures are computed apart, from the texts as
/// written); micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Kgqagen,
};

/// The figure counting questions on which the script fails.
const SCRIPT_FAILS: &str = "script_fails";

/// `extract_pred`: the last `{…}` holding at least one character and no
/// brace, stripped; `""` when there is none.
pub fn extract_pred(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut last = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            let close = bytes[i + 1..]
                .iter()
                .position(|&b| b == b'{' || b == b'}')
                .map(|k| i + 1 + k);
            if let Some(c) = close.filter(|&c| bytes[c] == b'}' && c > i + 1) {
                last = Some(&text[i + 1..c]);
                i = c + 1;
                continue;
            }
        }
        i += 1;
    }
    last.map_or("", python::strip)
}

/// `normalize`: lower case, ASCII punctuation deleted, whitespace collapsed.
pub fn normalize(s: &str) -> String {
    let lower: String = s
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    python::split(&lower).join(" ")
}

/// The gold strings as the script reads `answer`, or `None` where the script
/// fails (an answer that is not text, or null).
fn gold_strings(gold: &Question) -> Option<Vec<String>> {
    let Some(raw) = gold.flags.get(crate::qald::KGQAGEN_ANSWER) else {
        return Some(gold_names(gold));
    };
    let text = |v: &Value| v.as_str().map(str::to_string);
    match serde_json::from_str::<Value>(raw).ok()? {
        Value::Array(items) => items.iter().map(text).collect(),
        Value::Object(map) => map.values().map(text).collect(),
        Value::String(s) => Some(s.chars().map(String::from).collect()),
        _ => None,
    }
}

/// The prediction of a run question: `extract_pred` of its `results`, else
/// its `prediction` text, else its first answer as written.
fn prediction(run: &Question) -> String {
    if run.flags.contains_key("results") {
        return extract_pred(&flag_string(run, "results").unwrap_or_default()).to_string();
    }
    flag_string(run, "prediction")
        .or_else(|| first_written(run))
        .unwrap_or_default()
}

/// Zero figures, with one more flag (`too_large`, `script_fails`).
fn zeros(flag: &str) -> Figures {
    let mut f: Figures = ["acc", "hit", "f1", "precision", "recall"]
        .into_iter()
        .map(|k| (k.to_string(), 0.0))
        .collect();
    f.insert(flag.to_string(), 1.0);
    f
}

impl Official for Kgqagen {
    fn script(&self) -> &'static str {
        "KGQAGen's my_eval.py (liangliang6v6/KGQAGen src/baseline/ToG/eval/my_eval.py, commit f7a2a0c8d58e321d95257167304768e046dbf365)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let first = run.first()?;
        let pred = normalize(&prediction(first));
        let mut figures = match gold_strings(gold).filter(|g| !g.is_empty()) {
            None => zeros(SCRIPT_FAILS),
            Some(gts) => {
                let gts: Vec<String> = gts.iter().map(|g| normalize(g)).collect();
                let steps = gts.len().saturating_mul(pred.len());
                if steps > MAX_TEXT_STEPS {
                    zeros(TOO_LARGE)
                } else {
                    let m = gts.iter().filter(|g| pred.contains(g.as_str())).count() as f64;
                    let n = gts.len() as f64;
                    // f1_score([pred], gts): one prediction
                    let (p, r) = (m, m / n);
                    let f1 = if p + r > 0.0 {
                        2.0 * p * r / (p + r)
                    } else {
                        0.0
                    };
                    Figures::from([
                        ("acc".to_string(), m / n),
                        ("hit".to_string(), f64::from(u8::from(m > 0.0))),
                        ("f1".to_string(), f1),
                        ("precision".to_string(), p),
                        ("recall".to_string(), r),
                    ])
                }
            }
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
        let mut out = percent_means(
            scored,
            &[
                ("Accuracy", "acc"),
                ("Hit@1", "hit"),
                ("F1", "f1"),
                ("P", "precision"),
                ("R", "recall"),
            ],
        );
        out.insert("questions".to_string(), scored.len() as f64);
        count_flagged(scored, SCRIPT_FAILS, &mut out);
        count_too_large(scored, &mut out);
        subgraph::aggregate(scored, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_braced_text_without_braces_inside() {
        assert_eq!(extract_pred("I think {Paris}. Final: { Lyon }"), "Lyon");
        assert_eq!(extract_pred("{Tekkan {Yosano}}"), "Yosano");
        assert_eq!(extract_pred("{} and {}"), "");
        assert_eq!(extract_pred("no braces"), "");
        assert_eq!(extract_pred("{a\nb} {"), "a\nb");
    }

    #[test]
    fn normalize_keeps_articles_and_folds_whitespace() {
        assert_eq!(
            normalize("The  St. Louis\u{1c}Cardinals!"),
            "the st louis cardinals"
        );
        assert_eq!(normalize("Jean-Paul"), "jeanpaul");
    }

    #[test]
    fn a_string_answer_is_its_characters_and_an_empty_one_fails() {
        let gold = |answer: &str| Question {
            flags: [(crate::qald::KGQAGEN_ANSWER.to_string(), answer.to_string())].into(),
            ..Question::default()
        };
        let run = Question {
            flags: [("results".to_string(), "\"{ab}\"".to_string())].into(),
            ..Question::default()
        };
        let f = Kgqagen
            .question(&gold("\"abz\""), &[&run], &Resources::default())
            .expect("scored");
        // `a` and `b` are in `ab`, `z` is not
        assert!((f["acc"] - 2.0 / 3.0).abs() < 1e-12, "{f:?}");
        assert_eq!(f["precision"], 2.0);
        let f = Kgqagen
            .question(&gold("[]"), &[&run], &Resources::default())
            .expect("scored");
        assert_eq!((f["script_fails"], f["hit"]), (1.0, 0.0));
        assert!(Kgqagen
            .question(&gold("[]"), &[], &Resources::default())
            .is_none());
    }
}
