//! The `grailqa` profile: reproduces GrailQA's official evaluation script,
//! read in WuXuan374/Pangu `grail_evaluate.py` at commit
//! ac084aa11d97423d751ac519092eb5f242477e9a (a copy of the script of the
//! GrailQA leaderboard's CodaLab bundle; its graph code is dki-lab/GrailQA's
//! `utils/logic_form_util.py`). Its rules, where they differ from `judge`
//! (docs/scoring.md, Other benchmark families):
//!
//! - **EM**: the predicted logical form and the gold `s_expression` are the
//!   same query graph ([`same_logical_form`]): symbols typed by the Freebase
//!   schema files (`fb_roles`, `fb_types`, `reverse_properties`, given with
//!   `--ontology DIR`; without them no official figure is computed), so that
//!   reordered conjunctions, a relation and its reverse under `R`, and a type
//!   that is the relation's own domain give the same graph; `@@UNKNOWN@@` or a
//!   form that does not build is not EM;
//! - **F1**: 1 where EM holds, whatever the answers; else the set F1 of the
//!   predicted answers against the gold `answer_argument`s, exact strings (0
//!   when they share nothing, so an empty side scores 0); a predicted `answer`
//!   written `"null"` is the set of its characters, as in the script;
//! - **missing prediction**: EM 0, F1 0, still counted;
//! - **run figures** (`official`): `em`, `f1` over every gold question, and per
//!   level `em_iid`, `f1_iid`, `em_comp`, `f1_comp`, `em_zero`, `f1_zero` (a
//!   level the gold lacks, where the script divides by zero, is absent);
//! - **departure**: the script's node comparison removes the `function` and
//!   `TC` attributes of the nodes it compares (`pop`), so on graphs with two
//!   nodes of the same id and type its answer depends on its search order (a
//!   form can fail to match itself); qajudge compares the attributes without
//!   removing them, as the script's own commented-out code intends.
//!
//! The usual P/R/F1 match answers with `judge`'s term rules.
//! `tests/integration/official.rs` checks the figures against the script's
//! output.

use std::collections::HashSet;

use super::logical_form::same_logical_form;
use super::qa_only::QaOnly;
use super::written::written;
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::Question;

/// The rules of the `grailqa` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Grailqa;

/// The rules of the profile: QA only ([`QaOnly`]). The judge's term rules for P/R/F1 (the official figure is computed apart from the answers as written); micro measures are not part of the script's report.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &Grailqa,
};

/// The suffix of a level's figures.
fn level_suffix(level: &str) -> Option<&'static str> {
    match level {
        "i.i.d." => Some("iid"),
        "compositional" => Some("comp"),
        "zero-shot" => Some("zero"),
        _ => None,
    }
}

impl Official for Grailqa {
    fn script(&self) -> &'static str {
        "GrailQA's official evaluate.py (WuXuan374/Pangu grail_evaluate.py, commit ac084aa11d97423d751ac519092eb5f242477e9a)"
    }

    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        with: &Resources<'_>,
    ) -> Option<Figures> {
        let ontology = with.ontology?;
        // the script's dict of predictions: one per qid (the last one read)
        let (em, f1) = match run.last() {
            None => (false, 0.0),
            Some(p) => {
                let em = same_logical_form(
                    p.logical_form.as_deref().unwrap_or(""),
                    gold.logical_form.as_deref().unwrap_or(""),
                    ontology,
                );
                let f1 = if em {
                    1.0
                } else {
                    let answer: HashSet<String> = gold
                        .answers
                        .as_ref()
                        .map(written)
                        .unwrap_or_default()
                        .into_iter()
                        .collect();
                    let predicted: HashSet<String> =
                        if p.flags.get("answer").map(String::as_str) == Some("null") {
                            "null".chars().map(String::from).collect()
                        } else {
                            p.answers
                                .as_ref()
                                .map(written)
                                .unwrap_or_default()
                                .into_iter()
                                .collect()
                        };
                    let common = predicted.intersection(&answer).count() as f64;
                    if common == 0.0 {
                        0.0
                    } else {
                        let precision = common / predicted.len() as f64;
                        let recall = common / answer.len() as f64;
                        2.0 * recall * precision / (recall + precision)
                    }
                };
                (em, f1)
            }
        };
        Some(Figures::from([
            ("em".to_string(), f64::from(u8::from(em))),
            ("f1".to_string(), f1),
        ]))
    }

    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        gold_questions: usize,
        with: &Resources<'_>,
    ) -> Figures {
        let mut out = Figures::new();
        if with.ontology.is_none() || gold_questions == 0 {
            return out;
        }
        let n = gold_questions as f64;
        out.insert(
            "em".into(),
            scored.iter().map(|(_, f)| f["em"]).sum::<f64>() / n,
        );
        out.insert(
            "f1".into(),
            scored.iter().map(|(_, f)| f["f1"]).sum::<f64>() / n,
        );
        for suffix in ["iid", "comp", "zero"] {
            let of_level: Vec<&Figures> = scored
                .iter()
                .filter(|(q, _)| q.flags.get("level").and_then(|l| level_suffix(l)) == Some(suffix))
                .map(|(_, f)| *f)
                .collect();
            if of_level.is_empty() {
                continue;
            }
            let m = of_level.len() as f64;
            out.insert(
                format!("em_{suffix}"),
                of_level.iter().map(|f| f["em"]).sum::<f64>() / m,
            );
            out.insert(
                format!("f1_{suffix}"),
                of_level.iter().map(|f| f["f1"]).sum::<f64>() / m,
            );
        }
        out
    }
}
