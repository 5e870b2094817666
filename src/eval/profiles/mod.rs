//! Scoring profiles (docs/scoring.md, Profiles): the [`Profile`] enum the CLI, the HTTP API and
//! reports name, and the vocabulary of rules in which profiles differ, the
//! [`Rules`] trait, whose default methods are the `judge` profile's rules
//! (docs/scoring.md as written). Each other profile's file (`gerbil.rs`,
//! `mqald.rs`, `text2sparql.rs`, `webqsp.rs`) overrides only the rules in
//! which it departs from `judge`, so reading one file tells how that profile
//! differs; the other profiles named after an official script (`spinach.rs`,
//! `mintaka.rs`, `kqapro.rs`, `rog.rs`, `cwq.rs`, `tog.rs`, `grailqa.rs`,
//! `kgqagen.rs`, `gtsqa.rs`, `t2s_metrics.rs`, `grasp.rs`) share the QA-only rules of
//! `qa_only.rs` and declare in their file the two in which they differ (term
//! rules, micro measures) and their script. The evaluator asks the profile and
//! never tests its name. The
//! rows of the profiles table of docs/scoring.md map to these methods:
//!
//! | rule | method |
//! |---|---|
//! | IRI equivalence, literals, string vs IRI gold | [`Rules::match_options`], [`Rules::uses_index`] |
//! | answer set typing, variables | [`Rules::answers`] |
//! | variables (mqald: count and number checked first) | [`Rules::structural_zero`] |
//! | missing run question | [`Rules::missing`] |
//! | per-question measures (mqald: QALD precision) | [`Rules::score`] |
//! | sub-experiments | [`Rules::experiments`], [`Rules::marking_style`], [`Rules::keep_duplicate_markings`], [`Rules::empty_markings_score`] |
//! | order (docs/scoring.md, Executing SPARQL) | [`Rules::orders_by_query`] |
//! | reported | [`Rules::reports_micro`] |
//! | `text2sparql`: value sets, trec_eval measures, the challenge's nDCG | [`Rules::scores_value_sets`], [`challenge_score`], `challenge_aggregate` |
//! | official scripts' own figures (docs/scoring.md, Other benchmark families) | [`Rules::official`], [`Official`] |

mod cwq;
mod gerbil;
mod grailqa;
mod grasp;
mod gtsqa;
mod judge;
mod kgqagen;
mod kqapro;
mod logical_form;
mod lsap;
mod mintaka;
mod mqald;
mod official;
mod overlap;
mod python;
mod qa_only;
mod rog;
mod spinach;
mod subgraph;
mod t2s_answers;
mod t2s_metrics;
mod text2sparql;
mod tog;
mod webqsp;
mod written;

use std::borrow::Cow;

use crate::annotate::MarkingStyle;
use crate::matching::{IriRule, LabelRule, LiteralRule, MatchOptions};
use crate::metrics::{score_question, QuestionScore};
use crate::model::{Answer, AnswerSet};

use super::Experiment;

pub use cwq::Cwq;
pub use gerbil::Gerbil;
pub use grailqa::Grailqa;
pub use grasp::Grasp;
pub use gtsqa::Gtsqa;
pub use judge::Judge;
pub use kgqagen::Kgqagen;
pub use kqapro::Kqapro;
pub use logical_form::Ontology;
pub use mintaka::Mintaka;
pub use mqald::Mqald;
pub use official::{official_figures, Official, Resources};
pub use rog::Rog;
pub use spinach::{row_major_f1, Spinach};
pub use t2s_metrics::T2sMetrics;
pub(super) use text2sparql::challenge_aggregate;
pub use text2sparql::{challenge_score, Text2sparql};
pub use tog::Tog;
pub use webqsp::Webqsp;

/// A named bundle of scoring rules: what is parsed from `--profile`, stored and
/// printed in reports. Its rules are those of [`Profile::rules`]; `Profile`
/// implements [`Rules`] by asking them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The default: docs/scoring.md as written.
    #[default]
    Judge,
    /// Reproduces the GERBIL QA platform.
    Gerbil,
    /// Reproduces the evaluation tool published with MQALD.
    Mqald,
    /// Reproduces the TEXT2SPARQL challenge's scoring (`text2sparql-client`).
    Text2sparql,
    /// Reproduces the SPINACH evaluation (row-major F1 over matched result rows).
    Spinach,
    /// Reproduces Mintaka's evaluation in kg mode.
    Mintaka,
    /// Reproduces Mintaka's evaluation in text mode.
    MintakaText,
    /// Reproduces KQA Pro's evaluation (accuracy by `whether_equal`).
    Kqapro,
    /// Reproduces WebQSP's official `eval.py`.
    Webqsp,
    /// Reproduces Reasoning on Graphs' `evaluate_results.py`.
    Rog,
    /// Reproduces ComplexWebQuestions' official `eval_script.py`.
    Cwq,
    /// Reproduces Think-on-Graph's `eval/eval.py`.
    Tog,
    /// Reproduces GrailQA's official `evaluate.py`.
    Grailqa,
    /// Reproduces KGQAGen-10k's `my_eval.py`.
    Kgqagen,
    /// Reproduces GTSQA's exact-match rule (`new_exact_match` of SynthKGQA's `eval.py`).
    Gtsqa,
    /// Reproduces T2S-Metrics 1.2.0's query-text measures.
    T2sMetrics,
    /// Reproduces GRASP's `scripts/evaluate.py` and `calculate_metrics`.
    Grasp,
}

impl Profile {
    /// Every profile, in the order of the profiles table of docs/scoring.md.
    pub const ALL: [Profile; 17] = [
        Profile::Judge,
        Profile::Gerbil,
        Profile::Mqald,
        Profile::Text2sparql,
        Profile::Spinach,
        Profile::Mintaka,
        Profile::MintakaText,
        Profile::Kqapro,
        Profile::Webqsp,
        Profile::Rog,
        Profile::Cwq,
        Profile::Tog,
        Profile::Grailqa,
        Profile::Kgqagen,
        Profile::Gtsqa,
        Profile::T2sMetrics,
        Profile::Grasp,
    ];

    /// The name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Judge => "judge",
            Profile::Gerbil => "gerbil",
            Profile::Mqald => "mqald",
            Profile::Text2sparql => "text2sparql",
            Profile::Spinach => "spinach",
            Profile::Mintaka => "mintaka",
            Profile::MintakaText => "mintaka-text",
            Profile::Kqapro => "kqapro",
            Profile::Webqsp => "webqsp",
            Profile::Rog => "rog",
            Profile::Cwq => "cwq",
            Profile::Tog => "tog",
            Profile::Grailqa => "grailqa",
            Profile::Kgqagen => "kgqagen",
            Profile::Gtsqa => "gtsqa",
            Profile::T2sMetrics => "t2s-metrics",
            Profile::Grasp => "grasp",
        }
    }

    /// What the profile reproduces, in one line (the command line's help).
    pub fn summary(self) -> &'static str {
        match self {
            Profile::Judge => "docs/scoring.md as written (default)",
            Profile::Gerbil => "Reproduces the GERBIL QA platform's scores",
            Profile::Mqald => "Reproduces the evaluation tool published with MQALD",
            Profile::Text2sparql => "Reproduces the TEXT2SPARQL challenge's scoring",
            Profile::Spinach => "Reproduces the SPINACH evaluation: row-major F1 over one-to-one matched result rows (docs/scoring.md, The `spinach` profile)",
            Profile::Mintaka => "Reproduces Mintaka's evaluation in kg mode (docs/scoring.md, The `mintaka` profiles)",
            Profile::MintakaText => "Reproduces Mintaka's evaluation in text mode",
            Profile::Kqapro => "Reproduces KQA Pro's evaluation (docs/scoring.md, The `kqapro` profile)",
            Profile::Webqsp => "Reproduces WebQSP's official eval.py (docs/scoring.md, Other benchmark families)",
            Profile::Rog => "Reproduces Reasoning on Graphs' evaluate_results.py (docs/scoring.md, Other benchmark families)",
            Profile::Cwq => "Reproduces ComplexWebQuestions' eval_script.py (docs/scoring.md, Other benchmark families)",
            Profile::Tog => "Reproduces Think-on-Graph's eval/eval.py (docs/scoring.md, Other benchmark families)",
            Profile::Grailqa => "Reproduces GrailQA's evaluate.py; needs --ontology (docs/scoring.md, Other benchmark families)",
            Profile::Kgqagen => "Reproduces KGQAGen-10k's my_eval.py (docs/scoring.md, Other benchmark families)",
            Profile::Gtsqa => "Reproduces GTSQA's exact-match rule, SynthKGQA's new_exact_match (docs/scoring.md, Other benchmark families)",
            Profile::T2sMetrics => "T2S-Metrics 1.2.0's query-text measures (docs/scoring.md, The `t2s-metrics` profile)",
            Profile::Grasp => "Reproduces GRASP's evaluate.py and calculate_metrics: both queries executed, assignment F1 over result rows; needs --kg or --endpoint (docs/scoring.md, The `grasp` profile)",
        }
    }

    /// The figures a user of this profile reads first, from a run's QA
    /// aggregate, in order, under the names the profile's tool prints: the
    /// challenge's `set_F`, `nDCG` and `set_F+nDCG` under `text2sparql`, the
    /// official script's figures under a benchmark's profile, and Macro F1
    /// QALD, macro F1 and micro F1 under the QALD profiles (`None`: not
    /// computed for this run).
    pub fn headline(self, a: &crate::eval::report::AggregateReport) -> Vec<(String, Option<f64>)> {
        match self {
            Profile::Judge | Profile::Gerbil | Profile::Mqald => vec![
                ("Macro F1 QALD".to_string(), Some(a.macro_qald.f1)),
                ("macro F1".to_string(), Some(a.macro_.f1)),
                ("micro F1".to_string(), a.micro.map(|m| m.f1)),
            ],
            Profile::Text2sparql => {
                let c = a.challenge.as_ref();
                vec![
                    ("set_F".to_string(), c.map(|c| c.set_f)),
                    ("nDCG".to_string(), c.and_then(|c| c.ndcg)),
                    ("set_F+nDCG".to_string(), c.and_then(|c| c.set_f_ndcg)),
                ]
            }
            _ => a
                .official
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), Some(*v)))
                .collect(),
        }
    }

    /// [`Profile::headline`] of a QA aggregate as a JSON report holds it (a
    /// stored experiment's): the same figures under the same names, in the
    /// same order (a test holds the two together).
    pub fn headline_json(self, a: &serde_json::Value) -> Vec<(String, Option<f64>)> {
        let named = |name: &str, v: &serde_json::Value| (name.to_string(), v.as_f64());
        match self {
            Profile::Judge | Profile::Gerbil | Profile::Mqald => vec![
                named("Macro F1 QALD", &a["macro_qald"]["f1"]),
                named("macro F1", &a["macro"]["f1"]),
                named("micro F1", &a["micro"]["f1"]),
            ],
            Profile::Text2sparql => vec![
                named("set_F", &a["challenge"]["set_f"]),
                named("nDCG", &a["challenge"]["ndcg"]),
                named("set_F+nDCG", &a["challenge"]["set_f_ndcg"]),
            ],
            _ => a["official"]
                .as_object()
                .map(|o| o.iter().map(|(k, v)| named(k, v)).collect())
                .unwrap_or_default(),
        }
    }

    /// Parses a profile name.
    pub fn parse(name: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Parses a profile name, or says which names there are.
    pub fn from_name(name: &str) -> Result<Profile, super::UnknownName> {
        Profile::parse(name).ok_or_else(|| super::UnknownName {
            kind: "profile",
            name: name.to_string(),
            known: Profile::ALL.map(Profile::name).join(", "),
        })
    }

    /// The rules of this profile, from its file.
    pub fn rules(self) -> &'static dyn Rules {
        match self {
            Profile::Judge => &Judge,
            Profile::Gerbil => &Gerbil,
            Profile::Mqald => &Mqald,
            Profile::Text2sparql => &Text2sparql,
            Profile::Spinach => &spinach::RULES,
            Profile::Mintaka => &mintaka::RULES_KG,
            Profile::MintakaText => &mintaka::RULES_TEXT,
            Profile::Kqapro => &kqapro::RULES,
            Profile::Webqsp => &Webqsp,
            Profile::Rog => &rog::RULES,
            Profile::Cwq => &cwq::RULES,
            Profile::Tog => &tog::RULES,
            Profile::Grailqa => &grailqa::RULES,
            Profile::Kgqagen => &kgqagen::RULES,
            Profile::Gtsqa => &gtsqa::RULES,
            Profile::T2sMetrics => &t2s_metrics::RULES,
            Profile::Grasp => &grasp::RULES,
        }
    }
}

/// Every rule in which profiles differ (docs/scoring.md, Profiles). Each
/// method's default is the rule of the `judge` profile, docs/scoring.md as
/// written ([`Judge`] takes every default); a profile's file overrides only
/// the rules in which it departs from `judge`, each saying why, so reading one
/// file tells how that profile differs.
pub trait Rules {
    /// The term rules (IRI equivalence, literals, string answers against IRI
    /// gold), given the user's `--strict-literals` and `--lenient-dates`.
    ///
    /// Default: IRIs by canonical form and the index's sameAs closure on both
    /// sides (docs/scoring.md, Sameness), literals by the typed rules of
    /// docs/scoring.md (Sameness) with the user's `--strict-literals` and
    /// `--lenient-dates` (only `judge`'s term rules honour them), a string
    /// answer against IRI gold one answer matched through the label index.
    fn match_options(&self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        MatchOptions {
            strict_literals,
            lenient_dates,
            iri: IriRule::Equivalent,
            literal: LiteralRule::Typed,
            label: LabelRule::OneAnswer,
        }
    }

    /// True when the term rules use an index (sameAs closure, labels), so that
    /// evaluating without one is worth a report diagnostic ("no index").
    ///
    /// Default: true, the closure and the labels come from the index; without
    /// one, IRIs are compared by canonical form only and strings never meet
    /// IRIs.
    fn uses_index(&self) -> bool {
        true
    }

    /// The answers of a set as this profile scores them (answer set typing,
    /// rows and variables).
    ///
    /// Default: as read, one answer per binding row, its terms alternatives,
    /// each term typed on its own.
    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        Cow::Borrowed(&set.answers)
    }

    /// The score of a QA question decided before the ordinary (and the empty)
    /// rules from the shape of the two answer sets, or `None` when the ordinary
    /// rules apply.
    ///
    /// Default: `None`, the shape of the answers decides nothing, the ordinary
    /// rules do.
    fn structural_zero(&self, _gold: &AnswerSet, _run: &AnswerSet) -> Option<QuestionScore> {
        None
    }

    /// The score of a question the run does not have (`gold` distinct answers).
    ///
    /// Default: scored as an empty answer, by [`Rules::score`].
    fn missing(&self, gold: usize) -> QuestionScore {
        self.score(gold, 0, 0)
    }

    /// The score of a question from its counts: `gold` and `run` distinct
    /// answers, `tp` of them matched.
    ///
    /// Default: docs/scoring.md (Counting), precision, recall and F1 of the
    /// counts, and the QALD variants.
    fn score(&self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        score_question(gold, run, tp)
    }

    /// True when this profile scores the sub-experiment `e` (docs/scoring.md, Sub-experiments).
    ///
    /// Default: every sub-experiment of docs/scoring.md (Sub-experiments).
    fn experiments(&self, _e: Experiment) -> bool {
        true
    }

    /// How sub-experiment markings are derived from a query.
    ///
    /// Default: docs/scoring.md (Sub-experiments), the whole query is walked
    /// (also where markings are not scored: the walk still gives the
    /// features).
    fn marking_style(&self) -> MarkingStyle {
        MarkingStyle::Judge
    }

    /// The share of failed calls after which a live system is no longer asked
    /// (the questions not asked count as failed), unless the user gives one;
    /// `None`: every question is asked.
    ///
    /// Default: `None`, every question is asked of a live system, however many
    /// calls fail (docs/scoring.md, Live systems that fail): a run whose every
    /// call failed is a failed run, not a score.
    fn live_error_threshold(&self) -> Option<f64> {
        None
    }

    /// True when markings keep their duplicates.
    ///
    /// Default: false, markings are sets: duplicates count once.
    fn keep_duplicate_markings(&self) -> bool {
        false
    }

    /// True when a sub-experiment is scored where nobody gave markings: a
    /// question without markings on both sides scores 1.0, an empty gold set
    /// is scored, and a run with no source of markings gets a score. False:
    /// no score for data nobody gave (an empty gold set is not evaluable, such
    /// a run's sub-experiment is `null`).
    ///
    /// Default: false, no score for data nobody gave (docs/scoring.md,
    /// Sub-experiments): a question whose gold has no usable source, or an
    /// empty marking set, is not evaluable for that sub-experiment, and a run
    /// with no source of markings for it (no query, no annotation of that
    /// kind) is not scored.
    fn empty_markings_score(&self) -> bool {
        false
    }

    /// True when a gold query with ORDER BY makes a question's order scored
    /// (docs/scoring.md, Executing SPARQL); the `RESULT_ORDER_MATTERS` flag always does.
    ///
    /// Default: true, docs/scoring.md (Executing SPARQL): ORDER BY in the gold
    /// query, or the flag, scores the order.
    fn orders_by_query(&self) -> bool {
        true
    }

    /// True when QA is scored on sets of value strings with `trec_eval`'s
    /// measures ([`challenge_score`]) and the run gets the challenge's figures
    /// (`challenge_aggregate`) instead of the matching rules.
    ///
    /// Default: false, QA answers are matched term by term with
    /// [`Rules::match_options`].
    fn scores_value_sets(&self) -> bool {
        false
    }

    /// False when micro measures are not part of this profile's report (the
    /// aggregate's `micro` is `null`).
    ///
    /// Default: true, everything of docs/scoring.md (Aggregates) is reported,
    /// micro measures included.
    fn reports_micro(&self) -> bool {
        true
    }

    /// The official script whose own figures this profile reproduces beside
    /// P/R/F1 (QA's `official`), or `None`.
    ///
    /// Default: `None`, no official script's own figures.
    fn official(&self) -> Option<&'static dyn Official> {
        None
    }
}

/// The term rules of the profiles that compare values as written, whatever
/// the user's switches: IRIs and literals by their exact string (an IRI equals
/// a literal with the same text), no labels, so no index.
const EXACT_TERMS: MatchOptions = MatchOptions {
    strict_literals: true,
    lenient_dates: false,
    iri: IriRule::Exact,
    literal: LiteralRule::Exact,
    label: LabelRule::Off,
};

/// A profile's rules are those of its file ([`Profile::rules`]).
impl Rules for Profile {
    fn match_options(&self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        self.rules().match_options(strict_literals, lenient_dates)
    }
    fn uses_index(&self) -> bool {
        self.rules().uses_index()
    }
    fn answers<'a>(&self, set: &'a AnswerSet) -> Cow<'a, [Answer]> {
        self.rules().answers(set)
    }
    fn structural_zero(&self, gold: &AnswerSet, run: &AnswerSet) -> Option<QuestionScore> {
        self.rules().structural_zero(gold, run)
    }
    fn missing(&self, gold: usize) -> QuestionScore {
        self.rules().missing(gold)
    }
    fn score(&self, gold: usize, run: usize, tp: usize) -> QuestionScore {
        self.rules().score(gold, run, tp)
    }
    fn experiments(&self, e: Experiment) -> bool {
        self.rules().experiments(e)
    }
    fn marking_style(&self) -> MarkingStyle {
        self.rules().marking_style()
    }
    fn live_error_threshold(&self) -> Option<f64> {
        self.rules().live_error_threshold()
    }
    fn keep_duplicate_markings(&self) -> bool {
        self.rules().keep_duplicate_markings()
    }
    fn empty_markings_score(&self) -> bool {
        self.rules().empty_markings_score()
    }
    fn orders_by_query(&self) -> bool {
        self.rules().orders_by_query()
    }
    fn scores_value_sets(&self) -> bool {
        self.rules().scores_value_sets()
    }
    fn reports_micro(&self) -> bool {
        self.rules().reports_micro()
    }
    fn official(&self) -> Option<&'static dyn Official> {
        self.rules().official()
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_headline_of_a_json_report_is_the_headline_of_its_aggregate() {
        use crate::eval::report::{AggregateReport, ChallengeAggregate};
        let mut a = AggregateReport::default();
        a.macro_qald.f1 = 0.25;
        a.macro_.f1 = 0.5;
        a.challenge = Some(ChallengeAggregate {
            set_f: 0.75,
            ndcg: Some(0.5),
            ..ChallengeAggregate::default()
        });
        a.official = Some([("hits@1".to_string(), 0.4), ("f1".to_string(), 0.3)].into());
        let json = serde_json::to_value(&a).expect("json");
        for p in Profile::ALL {
            assert_eq!(p.headline(&a), p.headline_json(&json), "{}", p.name());
        }
    }

    use super::*;
    use crate::model::{FirstObject, Term};

    /// An answer set of `rows`, `vars` variables, and a first answer object of
    /// `first` answers when given.
    pub(super) fn set(rows: Vec<Vec<Term>>, vars: usize, first: Option<usize>) -> AnswerSet {
        AnswerSet {
            answers: rows.into_iter().map(|terms| Answer { terms }).collect(),
            vars: (0..vars).map(|i| format!("v{i}")).collect(),
            first_object: first.map(|answers| FirstObject { answers, vars }),
            raw_values: Vec::new(),
            columns: Vec::new(),
            table: None,
        }
    }
    pub(super) fn iri(s: &str) -> Term {
        Term::Iri(s.into())
    }
    pub(super) fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_string()).collect()
    }
    /// A question with one flag, `key`, holding `value` as JSON text.
    pub(super) fn with_flag(key: &str, value: serde_json::Value) -> crate::model::Question {
        crate::model::Question {
            flags: [(key.to_string(), value.to_string())].into(),
            ..crate::model::Question::default()
        }
    }

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::parse(p.name()), Some(p));
        }
        assert_eq!(Profile::parse("GERBIL"), Some(Profile::Gerbil));
        assert_eq!(Profile::parse("qald"), None);
    }

    #[test]
    fn which_profiles_use_an_index() {
        let using: Vec<&str> = Profile::ALL
            .into_iter()
            .filter(Rules::uses_index)
            .map(Profile::name)
            .collect();
        assert_eq!(
            using,
            [
                "judge",
                "gerbil",
                "mintaka",
                "mintaka-text",
                "rog",
                "cwq",
                "tog",
                "grailqa",
                "kgqagen",
                "gtsqa",
                "t2s-metrics",
            ]
        );
    }
}
