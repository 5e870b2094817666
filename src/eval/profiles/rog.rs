//! The `rog` profile: reproduces the evaluation of Reasoning on Graphs (RoG),
//! `eval_result` with its defaults as `predict_answer.py` calls it
//! (`cal_f1=True`, `top_k=-1`), read in RManLuo/reasoning-on-graphs
//! `src/qa_prediction/evaluate_results.py` at commit
//! ccf8ec847bf61005a1b27cc9e5aff5c8ead7a24b (last changed in 8553f30). Its
//! rules, where they differ from `judge` (docs/scoring.md, Other benchmark
//! families):
//!
//! - **what is compared**: free text. A prediction written as a string is split
//!   on newlines, every line one item (an empty line too, and nothing is cut);
//!   a list is de-duplicated and ordered by how often each item occurs (ties
//!   keep the first occurrence). The gold is the file's `ground_truth` list as
//!   written; with another gold, each answer's first name (a label), else its
//!   written value;
//! - **normalisation** (`normalize`): lower case, ASCII punctuation deleted
//!   (`U.S.` → `us`), the words `a`, `an`, `the` replaced by a space,
//!   whitespace collapsed;
//! - **match**: a gold answer matches when its normalised text is a substring
//!   of the normalised text of *all* prediction items joined with spaces (so
//!   gold `US` matches `Russia`, and a gold that normalises to nothing matches
//!   everything);
//! - **per question**: `acc` = matched gold answers / gold answers; `hit` = 1
//!   when any gold answer matches the joined items; `precision` = matched gold
//!   answers / prediction items (it can exceed 1: one line naming two gold
//!   answers), `recall` = matched / gold answers, `f1` their harmonic mean (0
//!   with no item); an empty gold, which crashes the script, scores 0;
//! - **Hits@1 in two variants** (docs/scoring.md, Other benchmark families):
//!   `hits@1/any` is the script's `Hit` (any item, as RoG reports "Hits@1");
//!   `hits@1/first` asks the same match of the first item alone;
//! - **run figures** (`official`): the means ×100 as the script prints them,
//!   `Accuracy`, `Hit`, `F1`, `Precision`, `Recall`, and `hits@1/first`,
//!   `hits@1/any` ×100 too;
//! - **lists of aliases**: a `ground_truth` item that is itself a list (on
//!   which the script fails) is one gold answer with alternative names,
//!   matched when one of them is, as Dynamic-KGQA's `match_presence` reads
//!   it (docs/scoring.md, Dynamic-KGQA);
//! - **questions**: the script has no join, every line counts; with the file's
//!   own gold every line is a gold question. A gold question the run lacks
//!   (another --gold) scores 0. A duplicate id is scored once (its first line;
//!   the load's diagnostics name it), where the script counts each line.
//!
//! The usual P/R/F1 match names with `judge`'s term rules (containment is not
//! an equivalence). `tests/integration/official.rs` checks the figures against
//! the script's output.

use super::official::{count_too_large, percent_means, MAX_TEXT_STEPS, TOO_LARGE};
use super::qa_only::QaOnly;
use super::written::{term_text, written};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::{Question, Term};

/// The rules of the `rog` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rog;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules for P/R/F1 (the official figure is computed apart from the answers as written); micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Rog,
};

/// RoG's `normalize`.
pub fn normalize(s: &str) -> String {
    let lower: String = s
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    // \b(a|an|the)\b → " ", with Python's Unicode word characters
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(lower.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if matches!(run.as_str(), "a" | "an" | "the") {
            out.push(' ');
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in lower.chars() {
        if word(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The prediction items as the script makes them: a string split on
/// newlines; a list de-duplicated and ordered by frequency (stable).
pub fn prediction_items(run: &Question) -> Vec<String> {
    let raw = run
        .flags
        .get("prediction")
        .and_then(|p| serde_json::from_str::<serde_json::Value>(p).ok());
    match raw {
        Some(serde_json::Value::String(s)) => s.split('\n').map(str::to_string).collect(),
        Some(serde_json::Value::Array(items)) => by_frequency(
            items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect(),
        ),
        // a run of another format: its answers as a list
        _ => by_frequency(run.answers.as_ref().map(written).unwrap_or_default()),
    }
}

/// `extract_topk_prediction` with k = -1.
fn by_frequency(items: Vec<String>) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for item in items {
        match at.get(&item) {
            Some(&i) => counts[i].1 += 1,
            None => {
                at.insert(item.clone(), counts.len());
                counts.push((item, 1));
            }
        }
    }
    // a stable sort keeps the first occurrence first among ties
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.into_iter().map(|(i, _)| i).collect()
}

/// The gold answers, each as its alternative names: an item of the file's
/// `ground_truth` that is itself a list gives every string inside it (at any
/// depth: Dynamic-KGQA's `match_presence`, where RoG's script fails), any
/// other item one name as [`gold_names`] reads it.
pub fn gold_alternatives(gold: &Question) -> Vec<Vec<String>> {
    fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
            serde_json::Value::String(s) => out.push(s.clone()),
            other => out.push(other.to_string()),
        }
    }
    if let Some(serde_json::Value::Array(items)) = ground_truth(gold) {
        return items
            .iter()
            .map(|v| {
                let mut out = Vec::new();
                strings(v, &mut out);
                out
            })
            .collect();
    }
    gold_names(gold).into_iter().map(|n| vec![n]).collect()
}

/// The file's `ground_truth` as read, `None` when there is none (or it is
/// not JSON).
fn ground_truth(gold: &Question) -> Option<serde_json::Value> {
    serde_json::from_str(gold.flags.get("ground_truth")?).ok()
}

/// The gold names: the file's `ground_truth` as written, else each answer's
/// first label (a literal after its first term), else its written value.
pub fn gold_names(gold: &Question) -> Vec<String> {
    match ground_truth(gold) {
        Some(serde_json::Value::Array(items)) => {
            return items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect();
        }
        Some(serde_json::Value::String(s)) => return vec![s],
        _ => {}
    }
    let Some(set) = gold.answers.as_ref() else {
        return Vec::new();
    };
    let values = written(set);
    set.answers
        .iter()
        .zip(values)
        .map(|(a, value)| {
            a.terms
                .iter()
                .skip(1)
                .find(|t| matches!(t, Term::Literal { .. }))
                .map_or(value, term_text)
        })
        .collect()
}

impl Official for Rog {
    fn script(&self) -> &'static str {
        "RoG's evaluate_results.py (RManLuo/reasoning-on-graphs src/qa_prediction/evaluate_results.py, commit ccf8ec847bf61005a1b27cc9e5aff5c8ead7a24b; cal_f1, all items)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let answer = gold_alternatives(gold);
        let prediction = run.first().map(|r| prediction_items(r)).unwrap_or_default();
        // normalised once: `match` normalises both sides
        let answer_n: Vec<Vec<String>> = answer
            .iter()
            .map(|alts| alts.iter().map(|a| normalize(a)).collect())
            .collect();
        let joined = normalize(&prediction.join(" "));
        let first = prediction.first().map(|p| normalize(p));
        let names = answer_n.iter().map(Vec::len).sum::<usize>();
        let answer_bytes: usize = answer_n.iter().flatten().map(String::len).sum();
        let steps = names
            .saturating_mul(joined.len() + first.as_ref().map_or(0, String::len))
            .saturating_add(2 * answer_bytes);
        if steps > MAX_TEXT_STEPS {
            let zero = |k: &str| (k.to_string(), 0.0);
            return Some(Figures::from([
                zero("acc"),
                zero("hit"),
                zero("f1"),
                zero("precision"),
                zero("recall"),
                zero("hits@1/first"),
                zero("hits@1/any"),
                (TOO_LARGE.to_string(), 1.0),
            ]));
        }
        let matched = answer_n
            .iter()
            .filter(|alts| alts.iter().any(|a| joined.contains(a.as_str())))
            .count() as f64;
        let of_gold = |n: f64| {
            if answer.is_empty() {
                0.0
            } else {
                n / answer.len() as f64
            }
        };
        let (f1, precision, recall) = if prediction.is_empty() {
            (0.0, 0.0, 0.0)
        } else {
            let p = matched / prediction.len() as f64;
            let r = of_gold(matched);
            let f = if p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            };
            (f, p, r)
        };
        let hit = f64::from(u8::from(matched > 0.0));
        let first =
            first.is_some_and(|p| answer_n.iter().flatten().any(|a| p.contains(a.as_str())));
        Some(Figures::from([
            ("acc".to_string(), of_gold(matched)),
            ("hit".to_string(), hit),
            ("f1".to_string(), f1),
            ("precision".to_string(), precision),
            ("recall".to_string(), recall),
            ("hits@1/first".to_string(), f64::from(u8::from(first))),
            ("hits@1/any".to_string(), hit),
        ]))
    }

    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        // the script's `sum * 100 / n`: the same product as 100 × sum
        let mut out = percent_means(
            scored,
            &[
                ("Accuracy", "acc"),
                ("Hit", "hit"),
                ("F1", "f1"),
                ("Precision", "precision"),
                ("Recall", "recall"),
                ("hits@1/first", "hits@1/first"),
                ("hits@1/any", "hits@1/any"),
            ],
        );
        count_too_large(scored, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::with_flag;
    use super::*;

    #[test]
    fn a_question_past_the_text_steps_is_too_large() {
        let question = |answers: usize, prediction: usize| {
            let gold = with_flag(
                "ground_truth",
                serde_json::json!((0..answers).map(|i| format!("a{i}")).collect::<Vec<_>>()),
            );
            let run = with_flag(
                "prediction",
                serde_json::json!(format!("a1 {}", "x".repeat(prediction))),
            );
            Rog.question(&gold, &[&run], &Resources::default())
                .expect("figures")
        };
        // 50,000 answers against 50 KB: 2.5 · 10⁹ steps
        let big = question(50_000, 50_000);
        assert_eq!((big["too_large"], big["hit"]), (1.0, 0.0));
        let small = question(5, 100);
        assert!(!small.contains_key("too_large"));
        assert_eq!(small["hit"], 1.0);
        let all = [(&Question::default(), &big), (&Question::default(), &small)];
        let aggregate = Rog.aggregate(&all, 2, &Resources::default());
        assert_eq!((aggregate["too_large"], aggregate["Hit"]), (1.0, 50.0));
    }

    #[test]
    fn normalize_as_rog_does() {
        assert_eq!(normalize("The U.S. of  America"), "us of america");
        assert_eq!(normalize("Jean-Paul Sartre"), "jeanpaul sartre");
        assert_eq!(normalize("Theatre an Island"), "theatre island");
        assert_eq!(normalize("The"), "");
        // `match`: the normalised gold is a substring of the normalised prediction
        assert!(normalize("Russia").contains(&normalize("US")));
    }

    #[test]
    fn lists_are_ordered_by_frequency_with_stable_ties() {
        let items = ["Paris", "Lyon", "Lyon", "Nice", "Paris"]
            .map(String::from)
            .to_vec();
        assert_eq!(by_frequency(items), ["Paris", "Lyon", "Nice"]);
    }
}
