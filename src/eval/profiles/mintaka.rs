//! The `mintaka` and `mintaka-text` profiles: reproduce Mintaka's official
//! evaluation (amazon-science/mintaka @ b6146ff, `evaluate/evaluate.py`, read
//! in its code; docs/scoring.md, The `mintaka` profiles) in its `kg` and `text`
//! modes. Its figures ([`Official`]) compare the values as the script's
//! Python does; P/R/F1 beside them follow the judge's rules (canonical IRIs,
//! typed literals, labels: a gold entity carries its labels). The token search
//! and the multiset intersections count their steps first: a question past
//! the work cap of every official profile is scored 0 and counted as
//! `too_large` (docs/scoring.md, Limits).

use regex::Regex;

use super::lsap::numpy_sum;
use super::official::{count_too_large, flagged, TOO_LARGE};
use super::python::{self, within_steps, Py, TooLarge};
use super::qa_only::QaOnly;
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::{AnswerSet, Question};

/// The Wikidata entity namespace Mintaka's Q-ids are written without.
const WD: &str = "http://www.wikidata.org/entity/";
/// The flag of a prediction written as a list (the Mintaka reader's).
const LIST: &str = "prediction_list";
/// The flag of a gold entity answer without a linked entity.
const UNLINKED: &str = "answer_null";

/// The rules of the Mintaka profiles; `text` selects the script's text mode.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mintaka {
    /// True for `--mode text`, false for `--mode kg`.
    pub text: bool,
}

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules for P/R/F1 (a gold entity carries its labels); the official figures are computed apart, in kg mode.
pub static RULES_KG: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: true,
    official: &Mintaka { text: false },
};

/// The rules of the profile: QA only ([`QaOnly`]). As [`RULES_KG`], the official figures in text mode.
pub static RULES_TEXT: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: true,
    official: &Mintaka { text: true },
};

/// The script this profile follows.
const SCRIPT_KG: &str = "Mintaka's evaluation in kg mode (amazon-science/mintaka @ b6146ffb4156, evaluate/evaluate.py --mode kg)";
const SCRIPT_TEXT: &str = "Mintaka's evaluation in text mode (amazon-science/mintaka @ b6146ffb4156, evaluate/evaluate.py --mode text --lang en)";

/// A gold or predicted answer in kg mode: `None` or a list of values.
fn kg_values(set: Option<&AnswerSet>) -> Option<Vec<Py>> {
    set.map(|s| {
        s.answers
            .iter()
            .filter_map(|a| a.terms.first())
            .map(|t| Py::of(t, WD))
            .collect()
    })
}

/// The gold answer as `format_answers` gives it.
fn gold_kg(gold: &Question) -> Option<Vec<Py>> {
    if gold.flags.contains_key(UNLINKED) {
        return None;
    }
    kg_values(gold.answers.as_ref())
}

/// The gold text: the entities' labels in English joined by spaces, the
/// mention where no entity was linked, else `str()` of the first value.
fn gold_text(gold: &Question) -> Option<String> {
    if gold.flags.contains_key(UNLINKED) {
        return gold.flags.get("mention").cloned();
    }
    let set = gold.answers.as_ref()?;
    if gold.answertype.as_deref() == Some("entity") {
        let labels: Vec<&str> = set
            .answers
            .iter()
            .filter_map(|a| {
                a.terms.iter().find_map(|t| match t {
                    crate::model::Term::Literal {
                        lexical,
                        lang: Some(l),
                        ..
                    } if l == "en" => Some(lexical.as_str()),
                    _ => None,
                })
            })
            .collect();
        return Some(labels.join(" "));
    }
    set.answers
        .first()
        .and_then(|a| a.terms.first())
        .map(|t| Py::of(t, WD).str())
}

/// The prediction as `format_predictions` gives it in text mode: `str(pred)`.
fn pred_text(run: &Question) -> Option<String> {
    let values = kg_values(run.answers.as_ref())?;
    if run.flags.contains_key(LIST) {
        return Some(python::list_str(&values));
    }
    values.first().map(Py::str)
}

/// The DPR tokenizer the script uses: NFD, runs of letters, digits and marks
/// or single other visible characters, lower-cased.
fn tokens(text: &str) -> Vec<String> {
    static TOKEN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let re = TOKEN.get_or_init(|| {
        Regex::new(r"(?im)([\p{L}\p{N}\p{M}]+)|([^\p{Z}\p{C}])").expect("the DPR token pattern")
    });
    re.find_iter(&crate::terms::literal::nfd(text))
        .map(|m| m.as_str().to_lowercase())
        .collect()
}

/// `calculate_em` in text mode: the answer's tokens as a run of the
/// prediction's, each of its windows compared token by token (the windows
/// times the answer's tokens: the steps checked first).
fn em_text(pred: Option<&str>, answer: Option<&str>) -> Result<bool, TooLarge> {
    Ok(
        match (
            pred.filter(|p| !p.is_empty()),
            answer.filter(|a| !a.is_empty()),
        ) {
            (Some(p), Some(a)) => {
                let (p, a) = (tokens(p), tokens(a));
                let windows = (p.len() + 1).saturating_sub(a.len());
                within_steps(windows.saturating_mul(a.len()))?;
                (0..windows).any(|i| p[i..i + a.len()] == a[..])
            }
            _ => pred == answer,
        },
    )
}

/// `calculate_f1` in text mode: whitespace tokens, case kept.
fn f1_text(pred: Option<&str>, answer: Option<&str>) -> Result<f64, TooLarge> {
    match (
        pred.filter(|p| !p.is_empty()),
        answer.filter(|a| !a.is_empty()),
    ) {
        (Some(p), Some(a)) => {
            let (p, a) = (python::split(p), python::split(a));
            let p: Vec<Py> = p.into_iter().map(|t| Py::Str(t.into())).collect();
            let a: Vec<Py> = a.into_iter().map(|t| Py::Str(t.into())).collect();
            f1_lists(&p, &a)
        }
        _ => Ok(f64::from(u8::from(pred == answer))),
    }
}

/// The F1 of two non-empty lists by their multiset overlap.
fn f1_lists(pred: &[Py], answer: &[Py]) -> Result<f64, TooLarge> {
    let same = python::common(pred, answer)?;
    if same == 0 {
        return Ok(0.0);
    }
    let precision = 1.0 * same as f64 / pred.len() as f64;
    let recall = 1.0 * same as f64 / answer.len() as f64;
    Ok((2.0 * precision * recall) / (precision + recall))
}

/// `int(a == b)` for two optional lists.
fn same_lists(a: Option<&[Py]>, b: Option<&[Py]>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => python::list_eq(a, b),
        _ => false,
    }
}

impl Official for Mintaka {
    fn script(&self) -> &'static str {
        if self.text {
            SCRIPT_TEXT
        } else {
            SCRIPT_KG
        }
    }

    /// `em`, `f1` and `hits@1/any` (the script's Hits@1: any prediction of
    /// the list is right) of every gold question (the test set drives the
    /// script's join), and `hits@1/first` (not the script's: only the first
    /// prediction counts; in text mode the same as `em`). A question without
    /// a prediction makes the script fail; here it scores 0. A question past
    /// the work cap scores 0 with `too_large`.
    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let figures = |em: bool, f1: f64, hit: bool, first: bool| {
            Figures::from([
                ("em".to_string(), f64::from(u8::from(em))),
                ("f1".to_string(), f1),
                ("hits@1/any".to_string(), f64::from(u8::from(hit))),
                ("hits@1/first".to_string(), f64::from(u8::from(first))),
            ])
        };
        let Some(run) = run.last() else {
            // the script stops on a missing prediction: 0, and counted as such
            let mut f = figures(false, 0.0, false, false);
            f.insert("missing".to_string(), 1.0);
            return Some(f);
        };
        let scored = if self.text {
            self.text_figures(gold, run)
        } else {
            self.kg_figures(gold, run)
        };
        Some(match scored {
            Ok((em, f1, hit, first)) => figures(em, f1, hit, first),
            Err(TooLarge) => {
                let mut f = figures(false, 0.0, false, false);
                f.insert(TOO_LARGE.to_string(), 1.0);
                f
            }
        })
    }

    /// The means over the test questions, as pandas computes them (NumPy's
    /// sums): `em`, `f1`, `hits@1/any`, `hits@1/first` and `questions`;
    /// `missing` counts the questions without a prediction (scored 0 where
    /// the script stops), `too_large` those past the work cap (only when some
    /// were).
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let n = scored.len() as f64;
        let mean = |k: &str| {
            let v: Vec<f64> = scored.iter().map(|(_, f)| f[k]).collect();
            if v.is_empty() {
                0.0
            } else {
                numpy_sum(&v) / n
            }
        };
        let mut out = Figures::from([
            ("questions".to_string(), n),
            ("em".to_string(), mean("em")),
            ("f1".to_string(), mean("f1")),
            ("hits@1/any".to_string(), mean("hits@1/any")),
            ("hits@1/first".to_string(), mean("hits@1/first")),
            ("missing".to_string(), flagged(scored, "missing") as f64),
        ]);
        count_too_large(scored, &mut out);
        out
    }
}

/// `em`, `f1`, `hits@1/any` and `hits@1/first` of one question.
type Four = (bool, f64, bool, bool);

impl Mintaka {
    /// The figures in text mode (`hits@1` is `em`).
    fn text_figures(&self, gold: &Question, run: &Question) -> Result<Four, TooLarge> {
        let (p, a) = (pred_text(run), gold_text(gold));
        let em = em_text(p.as_deref(), a.as_deref())?;
        Ok((em, f1_text(p.as_deref(), a.as_deref())?, em, em))
    }

    /// The figures in kg mode.
    fn kg_figures(&self, gold: &Question, run: &Question) -> Result<Four, TooLarge> {
        let (p, a) = (kg_values(run.answers.as_ref()), gold_kg(gold));
        let em = same_lists(p.as_deref(), a.as_deref());
        let f1 = match (p.as_deref(), a.as_deref()) {
            (Some(p), Some(a)) if !p.is_empty() && !a.is_empty() => f1_lists(p, a)?,
            _ => f64::from(u8::from(em)),
        };
        let hit = match (p.as_deref(), a.as_deref()) {
            (Some(p), Some(a)) => python::common(p, a)? > 0,
            _ => em,
        };
        // not the script's: only the first prediction counts
        let first = match (p.as_deref(), a.as_deref()) {
            (Some(p), Some(a)) => p
                .first()
                .is_some_and(|x| a.iter().any(|y| python::eq(x, y))),
            _ => em,
        };
        Ok((em, f1, hit, first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_as_dpr() {
        assert_eq!(
            tokens("It is Mount Lucania."),
            ["it", "is", "mount", "lucania", "."]
        );
        assert_eq!(tokens("5.0"), ["5", ".", "0"]);
        assert_eq!(
            em_text(Some("It is Mount Lucania."), Some("Mount Lucania")),
            Ok(true)
        );
        assert_eq!(em_text(Some(""), Some("x")), Ok(false));
        assert_eq!(em_text(None, None), Ok(true));
    }

    #[test]
    fn a_question_past_the_work_cap_is_too_large_in_both_modes() {
        use crate::model::{Answer, Term};
        let set = |values: Vec<String>| AnswerSet {
            answers: values
                .into_iter()
                .map(|v| Answer::single(Term::Iri(format!("{WD}{v}"))))
                .collect(),
            ..AnswerSet::default()
        };
        let question = |answers: usize, predictions: usize| {
            let gold = Question {
                answers: Some(set((0..answers).map(|i| format!("Q{i}")).collect())),
                ..Question::default()
            };
            let run = Question {
                answers: Some(set((0..predictions).map(|i| format!("Q{i}")).collect())),
                ..Question::default()
            };
            (gold, run)
        };
        // 50,000 gold values against 50,000 predicted: 2.5 · 10⁹ pairings
        let (gold, run) = question(50_000, 50_000);
        let big = Mintaka { text: false }
            .question(&gold, &[&run], &Resources::default())
            .expect("figures");
        assert_eq!((big[TOO_LARGE], big["f1"], big["em"]), (1.0, 0.0, 0.0));
        let (gold, run) = question(3, 2);
        let small = Mintaka { text: false }
            .question(&gold, &[&run], &Resources::default())
            .expect("figures");
        assert!(!small.contains_key(TOO_LARGE));
        assert_eq!(small["hits@1/any"], 1.0);
        let all = [(&Question::default(), &big), (&Question::default(), &small)];
        let aggregate = Mintaka { text: false }.aggregate(&all, 2, &Resources::default());
        assert_eq!((aggregate[TOO_LARGE], aggregate["hits@1/any"]), (1.0, 0.5));
        // text mode: a prediction of 100,000 tokens searched for an answer of
        // 30,000 (the token search's windows times the answer's tokens)
        let text = |words: usize| {
            (0..words)
                .map(|i| format!("w{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            em_text(Some(&text(100_000)), Some(&text(30_000))),
            Err(TooLarge)
        );
        assert_eq!(
            f1_text(Some(&text(100_000)), Some(&text(30_000))),
            Err(TooLarge)
        );
        assert_eq!(em_text(Some(&text(100)), Some(&text(30))), Ok(true));
    }
}
