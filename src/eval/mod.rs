//! The evaluator: joins a gold benchmark and runs by question id, derives the
//! markings of every sub-experiment, matches, scores every question, aggregates and
//! splits by question features (SCORING 1–6, 9). Synchronous and deterministic:
//! the same inputs give a byte-identical report.

pub mod profile;
pub mod report;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::annotate::markings::join_triple;
use crate::annotate::{annotate_question_as, Annotation, Features};
use crate::index::Equivalence;
use crate::matching::{
    match_answers, prepare_markings, MatchOptions, Matching, Prepared, Reason, Resolver, Side,
};
use crate::metrics::{aggregate, bootstrap, QuestionScore};
use crate::model::{looks_like_iri, Answer, AnswerSet, Calls, Dataset, Question, Term};
pub use profile::Profile;
pub use report::{
    AggregateReport, Comparison, ExperimentReport, Experiments, Explanation, GoldInfo, IndexInfo,
    MatchedPair, QuestionReport, Report, RunReport, Status,
};

/// A sub-experiment (SCORING 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Experiment {
    /// Answer sets.
    Qa,
    /// Resources: entities and classes.
    C2kb,
    /// Properties.
    P2kb,
    /// Triples.
    Re2kb,
    /// Answer type.
    At,
    /// Answer item types.
    Ait2kb,
}

impl Experiment {
    /// All sub-experiments, in report order.
    pub const ALL: [Experiment; 6] = [
        Experiment::Qa,
        Experiment::C2kb,
        Experiment::P2kb,
        Experiment::Re2kb,
        Experiment::At,
        Experiment::Ait2kb,
    ];

    /// The name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        Experiments::NAMES[self as usize]
    }

    /// Parses a name (`qa`, `c2kb`, …).
    pub fn parse(name: &str) -> Option<Experiment> {
        Experiment::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The default of `--max-class-size`: matches through larger sameAs classes are
/// reported in the question's diagnostics.
pub const DEFAULT_MAX_CLASS_SIZE: usize = 1000;

/// What to evaluate and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The scoring profile.
    pub profile: Profile,
    /// `--strict-literals`.
    pub strict_literals: bool,
    /// `--lenient-dates`.
    pub lenient_dates: bool,
    /// Bootstrap resamples for confidence intervals (0: none).
    pub bootstrap: usize,
    /// The sub-experiments to run; empty means all (that the profile scores).
    pub experiments: Vec<Experiment>,
    /// Features to split every aggregate by (`--by`).
    pub by: Vec<String>,
    /// Add, per question, the matched pairs and why (`--explain`).
    pub explain: bool,
    /// Matches through a sameAs class larger than this are reported (`--max-class-size`).
    pub max_class_size: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            profile: Profile::Judge,
            strict_literals: false,
            lenient_dates: false,
            bootstrap: 0,
            experiments: Vec::new(),
            by: Vec::new(),
            explain: false,
            max_class_size: DEFAULT_MAX_CLASS_SIZE,
        }
    }
}

/// An index to evaluate with (SCORING 2b and the cross-kind rules).
#[derive(Clone, Copy)]
pub struct IndexRef<'a> {
    /// The lookups.
    pub equivalence: &'a dyn Equivalence,
    /// Its directory, for the report.
    pub path: &'a str,
    /// Its on-disk format version, for the report.
    pub format_version: u32,
}

/// The fixed seed of the bootstrap, so that reports are reproducible.
pub const BOOTSTRAP_SEED: u64 = 20_261_122;

/// One run to evaluate.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Its name in the report.
    pub name: &'a str,
    /// Its path or URL.
    pub source: &'a str,
    /// Its questions.
    pub dataset: &'a Dataset,
}

/// The prepared sets of one question, per experiment (`None`: no usable source).
type Sets = [Option<Vec<Prepared>>; 6];

/// The QA answers of one question as the profile scores them.
type Scored<'a> = Option<Cow<'a, [Answer]>>;

/// Everything one evaluation shares: rules, profile, index lookups.
struct Ctx<'r, 'i> {
    profile: Profile,
    resolver: &'r Resolver<'i>,
    wanted: [bool; 6],
    annotate: bool,
}

impl Ctx<'_, '_> {
    fn opts(&self) -> MatchOptions {
        self.resolver.options()
    }

    /// Prepares the marking sets of one question for the chosen experiments.
    fn sets(
        &self,
        q: &Question,
        qa: Option<&[Answer]>,
        annotation: Option<&Annotation>,
        side: Side,
        other_has_iris: bool,
    ) -> Sets {
        let r = self.resolver;
        let keep_duplicates = self.profile.keep_duplicate_markings();
        let iris = |list: &Option<Vec<String>>| {
            list.as_ref().map(|l| {
                let answers: Vec<Answer> = l
                    .iter()
                    .map(|i| Answer::single(Term::Iri(i.clone())))
                    .collect();
                if keep_duplicates {
                    r.prepare_list(&answers, side)
                } else {
                    r.prepare(&answers, side, true)
                }
            })
        };
        let mut out: Sets = Default::default();
        if self.wanted[0] {
            out[0] = qa.map(|a| r.prepare(a, side, other_has_iris));
        }
        if let Some(m) = annotation.map(|a| &a.markings) {
            if self.wanted[1] {
                out[1] = iris(&m.resources);
            }
            if self.wanted[2] {
                out[2] = iris(&m.properties);
            }
            if self.wanted[3] {
                out[3] = match (&m.triple_nodes, r.has_index()) {
                    // IRIs inside triples compare through the index's classes too
                    (Some(nodes), true) => {
                        let triples: Vec<String> = nodes
                            .iter()
                            .map(|n| {
                                let n = n.clone().map(|node| {
                                    match node
                                        .strip_prefix('<')
                                        .and_then(|x| x.strip_suffix('>'))
                                        .and_then(|iri| r.class(iri))
                                    {
                                        Some(c) => format!("<sameas:{}>", c.id),
                                        None => node,
                                    }
                                });
                                join_triple(&n)
                            })
                            .collect();
                        Some(prepare_markings(&triples, keep_duplicates))
                    }
                    _ => m
                        .triples
                        .as_ref()
                        .map(|t| prepare_markings(t, keep_duplicates)),
                };
            }
            if self.wanted[4] {
                out[4] = m.answer_type.map(|t| {
                    r.prepare(&[Answer::single(Term::plain(t.value.name()))], side, false)
                });
            }
            if self.wanted[5] {
                out[5] = iris(&m.item_types.clone().or_else(|| self.index_types(q)));
            }
        }
        out
    }

    /// AIT2KB's last source: the types the index gives every answer resource.
    fn index_types(&self, q: &Question) -> Option<Vec<String>> {
        if !self.resolver.has_types() {
            return None;
        }
        let answers = &q.answers.as_ref()?.answers;
        let mut shared: Option<Vec<String>> = None;
        for a in answers {
            let iri = a.terms.iter().find_map(|t| match t {
                Term::Iri(i) => Some(i),
                _ => None,
            })?;
            let types = self.resolver.types(iri);
            shared = Some(match shared {
                None => types,
                Some(s) => s.into_iter().filter(|t| types.contains(t)).collect(),
            });
        }
        shared
    }
}

/// A gold question prepared once for all runs.
struct GoldEntry<'a> {
    question: &'a Question,
    qa: Scored<'a>,
    sets: Sets,
    features: Features,
    notes: Vec<String>,
    has_iri: bool,
    has_literal: bool,
}

/// A run question prepared once for all experiments.
struct RunEntry<'a> {
    question: &'a Question,
    qa: Scored<'a>,
    sets: Sets,
    notes: Vec<String>,
}

/// Evaluates every run against the gold benchmark, without an index.
pub fn evaluate(gold: &Dataset, gold_path: &str, runs: &[Run<'_>], options: Options) -> Report {
    evaluate_with(gold, gold_path, runs, options, None)
}

/// Evaluates every run against the gold benchmark, with an index when given.
pub fn evaluate_with(
    gold: &Dataset,
    gold_path: &str,
    runs: &[Run<'_>],
    options: Options,
    index: Option<IndexRef<'_>>,
) -> Report {
    let profile = options.profile;
    let match_options = profile.match_options(options.strict_literals, options.lenient_dates);
    let resolver = Resolver::new(match_options, index.map(|i| i.equivalence));
    let mut wanted = [options.experiments.is_empty(); 6];
    for e in &options.experiments {
        wanted[*e as usize] = true;
    }
    let mut diagnostics: Vec<String> = gold
        .diagnostics
        .iter()
        .map(|d| format!("gold: {d}"))
        .collect();
    for e in Experiment::ALL {
        if wanted[e as usize] && !profile.experiments(e) {
            wanted[e as usize] = false;
            if !options.experiments.is_empty() {
                diagnostics.push(format!(
                    "the {} profile does not score {}; left out",
                    profile.name(),
                    e.name()
                ));
            }
        }
    }
    let annotate = wanted[1..].iter().any(|w| *w) || !options.by.is_empty();
    let ctx = Ctx {
        profile,
        resolver: &resolver,
        wanted,
        annotate,
    };
    for f in &options.by {
        if !crate::annotate::FEATURES.contains(&f.as_str()) {
            diagnostics.push(format!(
                "unknown feature {f:?} for --by (known: {})",
                crate::annotate::FEATURES.join(", ")
            ));
        }
    }
    if index.is_none() && profile != Profile::Mqald {
        diagnostics.push(
            "no index (--index): IRIs are compared by canonical form only, and string answers are not compared with IRIs through labels"
                .to_string(),
        );
    }
    let mut seen = HashSet::new();
    let entries: Vec<GoldEntry<'_>> = gold
        .questions
        .iter()
        .filter(|q| seen.insert(q.id.0.as_str()))
        .map(|q| {
            let annotation =
                annotate.then(|| annotate_question_as(q, match_options, profile.marking_style()));
            let qa = q.answers.as_ref().map(|a| profile.answers(a));
            let terms = || qa.iter().flat_map(|a| a.iter()).flat_map(|a| &a.terms);
            let has_iri = terms().any(Term::is_iri);
            let has_literal = terms().any(|t| matches!(t, Term::Literal { .. }));
            GoldEntry {
                question: q,
                sets: ctx.sets(q, qa.as_deref(), annotation.as_ref(), Side::Gold, true),
                qa,
                features: annotation
                    .as_ref()
                    .map(|a| a.features.clone())
                    .unwrap_or_default(),
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
                has_iri,
                has_literal,
            }
        })
        .collect();
    let mut reports = Vec::with_capacity(runs.len());
    for run in runs {
        diagnostics.extend(
            run.dataset
                .diagnostics
                .iter()
                .map(|d| format!("run '{}': {d}", run.name)),
        );
        if let Some(why) = run.dataset.calls.as_ref().and_then(|c| c.stopped.as_ref()) {
            diagnostics.push(format!("run '{}': the live system {why}", run.name));
        }
        let report = evaluate_run(&entries, run, &ctx, &options);
        if !report.extra_ids.is_empty() {
            diagnostics.push(format!(
                "run '{}': {} question(s) not in the gold benchmark were ignored: {}",
                run.name,
                report.extra_ids.len(),
                report.extra_ids.join(", ")
            ));
        }
        reports.push(report);
    }
    let comparisons = compare_runs(&reports);
    diagnostics.extend(
        resolver
            .take_errors()
            .into_iter()
            .map(|e| format!("index: {e}")),
    );
    Report {
        version: env!("CARGO_PKG_VERSION"),
        profile: profile.name(),
        gold: GoldInfo {
            path: gold_path.to_string(),
            format: gold.format.name(),
            questions: entries.len(),
        },
        index: index.map(|i| IndexInfo {
            path: i.path.to_string(),
            format_version: i.format_version,
        }),
        runs: reports,
        comparisons,
        diagnostics,
    }
}

/// The shuffles of the paired significance tests (SCORING 7).
pub const SIGNIFICANCE_SHUFFLES: usize = 10_000;

/// Paired approximate-randomisation tests between every two runs, per
/// sub-experiment, over the questions evaluated in both (fixed seed).
fn compare_runs(runs: &[RunReport]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            for ((name, ea), (_, eb)) in
                a.experiments.named().into_iter().zip(b.experiments.named())
            {
                let (Some(ea), Some(eb)) = (ea, eb) else {
                    continue;
                };
                let pairs: Vec<crate::metrics::PairedScores> = ea
                    .questions
                    .iter()
                    .zip(&eb.questions)
                    .filter(|(qa, qb)| {
                        qa.status != Status::NotEvaluable && qb.status != Status::NotEvaluable
                    })
                    .map(|(qa, qb)| {
                        (
                            [qa.f1, qa.precision_qald, qa.recall_qald],
                            [qb.f1, qb.precision_qald, qb.recall_qald],
                        )
                    })
                    .collect();
                out.push(Comparison {
                    run_a: a.name.clone(),
                    run_b: b.name.clone(),
                    experiment: name,
                    significance: crate::metrics::paired_randomization(
                        &pairs,
                        SIGNIFICANCE_SHUFFLES,
                        BOOTSTRAP_SEED,
                    ),
                });
            }
        }
    }
    out
}

fn evaluate_run(
    entries: &[GoldEntry<'_>],
    run: &Run<'_>,
    ctx: &Ctx<'_, '_>,
    options: &Options,
) -> RunReport {
    let mut by_id: HashMap<&str, RunEntry<'_>> =
        HashMap::with_capacity(run.dataset.questions.len());
    let gold_by_id: HashMap<&str, &GoldEntry<'_>> = entries
        .iter()
        .map(|e| (e.question.id.0.as_str(), e))
        .collect();
    for q in &run.dataset.questions {
        let id = q.id.0.as_str();
        let Some(gold) = gold_by_id.get(id) else {
            continue;
        };
        if by_id.contains_key(id) {
            continue;
        }
        let annotation = (ctx.annotate && ctx.wanted[1..].iter().any(|w| *w))
            .then(|| annotate_question_as(q, ctx.opts(), ctx.profile.marking_style()));
        let qa = q.answers.as_ref().map(|a| ctx.profile.answers(a));
        by_id.insert(
            id,
            RunEntry {
                question: q,
                sets: ctx.sets(
                    q,
                    qa.as_deref(),
                    annotation.as_ref(),
                    Side::Run,
                    gold.has_iri,
                ),
                qa,
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
            },
        );
    }
    let mut extra: Vec<String> = run
        .dataset
        .questions
        .iter()
        .map(|q| q.id.0.as_str())
        .filter(|id| !gold_by_id.contains_key(id))
        .collect::<HashSet<&str>>()
        .into_iter()
        .map(str::to_string)
        .collect();
    extra.sort_by(|a, b| natural_key(a).cmp(&natural_key(b)));
    let mut experiments = Experiments::default();
    for e in Experiment::ALL {
        if !ctx.wanted[e as usize] {
            continue;
        }
        let report = score_experiment(
            e,
            entries,
            &by_id,
            extra.len(),
            ctx,
            options,
            run.dataset.calls.as_ref(),
        );
        match e {
            Experiment::Qa => experiments.qa = report,
            Experiment::C2kb => experiments.c2kb = report,
            Experiment::P2kb => experiments.p2kb = report,
            Experiment::Re2kb => experiments.re2kb = report,
            Experiment::At => experiments.at = report,
            Experiment::Ait2kb => experiments.ait2kb = report,
        }
    }
    RunReport {
        name: run.name.to_string(),
        source: run.source.to_string(),
        format: run.dataset.format.name(),
        experiments,
        extra_ids: extra,
    }
}

/// Scores one sub-experiment of one run; `None` when no gold question has data.
fn score_experiment(
    e: Experiment,
    entries: &[GoldEntry<'_>],
    runs: &HashMap<&str, RunEntry<'_>>,
    extra: usize,
    ctx: &Ctx<'_, '_>,
    options: &Options,
    calls: Option<&Calls>,
) -> Option<ExperimentReport> {
    let k = e as usize;
    let profile = ctx.profile;
    let mut questions = Vec::with_capacity(entries.len());
    let mut scored: Vec<(usize, Status, QuestionScore)> = Vec::with_capacity(entries.len());
    let mut not_evaluable = 0;
    let empty_markings = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let gq = entry.question;
        let run = runs.get(gq.id.0.as_str());
        let mut diags: Vec<String> = gq
            .diagnostics
            .iter()
            .map(|d| format!("gold: {d}"))
            .collect();
        if let Some(r) = run {
            diags.extend(r.question.diagnostics.iter().map(|d| format!("run: {d}")));
        }
        if e != Experiment::Qa {
            diags.extend(entry.notes.iter().map(|d| format!("gold: {d}")));
            if let Some(r) = run {
                diags.extend(r.notes.iter().map(|d| format!("run: {d}")));
            }
        }
        let gold_set = match &entry.sets[k] {
            Some(set) => set,
            None if e != Experiment::Qa && profile.empty_markings_score() => &empty_markings,
            None => {
                not_evaluable += 1;
                diags.push(match e {
                    Experiment::Qa => "not evaluable: the gold question has no answers".to_string(),
                    _ => format!(
                        "not evaluable for {}: the gold question has no usable query or annotation",
                        e.name()
                    ),
                });
                questions.push(question_report(gq, Status::NotEvaluable, None, diags));
                continue;
            }
        };
        let empty = Vec::new();
        let run_set = run.and_then(|r| r.sets[k].as_ref()).unwrap_or(&empty);
        let call_error = calls.and_then(|c| c.errors.get(gq.id.0.as_str()));
        if let Some(why) = call_error {
            diags.push(format!("the call to the system failed: {why}"));
        }
        let status = match run {
            None => Status::Missing,
            Some(_) if call_error.is_some() => Status::Error,
            Some(_) if run_set.is_empty() => Status::Empty,
            Some(_) => Status::Answered,
        };
        let matching = match_answers(gold_set, run_set);
        let structural = match (
            e,
            gq.answers.as_ref(),
            run.and_then(|r| r.question.answers.as_ref()),
        ) {
            (Experiment::Qa, Some(g), Some(r)) => profile.structural_zero(g, r),
            _ => None,
        };
        let score = match (run, structural) {
            (None, _) => profile.missing(matching.gold),
            (Some(_), Some(zero)) => {
                diags.push(format!(
                    "scored 0 by the {} profile: the answers differ in kind (ASK/SELECT) or in their number of variables, or have more than one",
                    profile.name()
                ));
                zero
            }
            (Some(_), None) => profile.score(matching.gold, matching.run, matching.tp()),
        };
        for p in &matching.pairs {
            if let Reason::SameAs { class_size } = p.reason {
                if class_size as usize > options.max_class_size {
                    diags.push(format!(
                        "answer {} matched through an owl:sameAs class of {class_size} IRIs, larger than --max-class-size {}; check the class with `qajudge sameas`",
                        p.gold, options.max_class_size
                    ));
                }
            }
        }
        if e == Experiment::Qa {
            if let Some(answers) = run.and_then(|r| r.question.answers.as_ref()) {
                cross_kind_notes(
                    entry,
                    answers,
                    run_set,
                    &matching,
                    ctx.resolver.has_index(),
                    &mut diags,
                );
            }
        }
        scored.push((i, status, score));
        let mut report = question_report(gq, status, Some(score), diags);
        if options.explain {
            report.explanation = Some(explain(e, entry, run, gold_set, run_set, &matching));
        }
        questions.push(report);
    }
    if scored.is_empty() {
        return None;
    }
    let mut agg = aggregate_report(&scored, entries.len(), not_evaluable, extra);
    agg.runtime_ms_mean = calls.and_then(|c| c.runtime_ms_mean);
    if !profile.reports_micro() {
        agg.micro = None;
    }
    if options.bootstrap > 0 {
        let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
        agg.confidence = Some(bootstrap(&scores, options.bootstrap, BOOTSTRAP_SEED));
    }
    let breakdown = (!options.by.is_empty()).then(|| {
        let mut out: BTreeMap<String, BTreeMap<String, AggregateReport>> = BTreeMap::new();
        for feature in &options.by {
            let mut groups: BTreeMap<String, Vec<(usize, Status, QuestionScore)>> = BTreeMap::new();
            for item in &scored {
                let values = entries[item.0].features.get(feature.as_str());
                for v in values.into_iter().flatten() {
                    groups.entry(v.clone()).or_default().push(*item);
                }
            }
            out.insert(
                feature.clone(),
                groups
                    .into_iter()
                    .map(|(v, items)| {
                        let n = items.len();
                        let mut a = aggregate_report(&items, n, 0, 0);
                        if !profile.reports_micro() {
                            a.micro = None;
                        }
                        (v, a)
                    })
                    .collect(),
            );
        }
        out
    });
    Some(ExperimentReport {
        aggregate: agg,
        questions,
        breakdown,
    })
}

/// The outcome of matching two answer lists with the rules of a profile (the
/// HTTP `/match` route): counts, measures and the explanation.
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct MatchReport {
    /// The profile whose rules were used.
    pub profile: &'static str,
    /// True positives.
    pub tp: usize,
    /// False positives.
    pub fp: usize,
    /// False negatives.
    #[serde(rename = "fn")]
    pub fn_: usize,
    /// Precision (SCORING 3).
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// The matched pairs and the unmatched answers.
    pub explanation: Explanation,
    /// Index read problems, if any.
    pub diagnostics: Vec<String>,
}

/// Matches a run's answers against gold answers with the profile's rules and,
/// when given, an index.
pub fn match_lists(
    gold: &AnswerSet,
    run: &AnswerSet,
    options: &Options,
    index: Option<&dyn Equivalence>,
) -> MatchReport {
    let profile = options.profile;
    let resolver = Resolver::new(
        profile.match_options(options.strict_literals, options.lenient_dates),
        index,
    );
    let gold_answers = profile.answers(gold);
    let run_answers = profile.answers(run);
    let gold_has_iris = gold_answers.iter().flat_map(|a| &a.terms).any(Term::is_iri);
    let g = resolver.prepare(&gold_answers, Side::Gold, true);
    let r = resolver.prepare(&run_answers, Side::Run, gold_has_iris);
    let matching = match_answers(&g, &r);
    let score = profile
        .structural_zero(gold, run)
        .unwrap_or_else(|| profile.score(matching.gold, matching.run, matching.tp()));
    MatchReport {
        profile: profile.name(),
        tp: score.tp,
        fp: score.fp,
        fn_: score.fn_,
        precision: score.precision,
        recall: score.recall,
        f1: score.f1,
        explanation: explain_sets(Some(&gold_answers), Some(&run_answers), &g, &r, &matching),
        diagnostics: resolver.take_errors(),
    }
}

/// The text of an answer for explanations: its terms, alternatives joined by ` | `.
fn answer_text(answer: &Answer) -> String {
    answer
        .terms
        .iter()
        .map(Term::to_string)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The matched pairs of one question and the answers left unmatched, with reasons.
fn explain(
    e: Experiment,
    entry: &GoldEntry<'_>,
    run: Option<&RunEntry<'_>>,
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> Explanation {
    let gold_answers = entry.qa.as_deref().filter(|_| e == Experiment::Qa);
    let run_answers = run
        .and_then(|r| r.qa.as_deref())
        .filter(|_| e == Experiment::Qa);
    explain_sets(gold_answers, run_answers, gold_set, run_set, matching)
}

/// Explains a matching; answers are named by their terms when given, else by
/// their first key (markings).
fn explain_sets(
    gold_answers: Option<&[Answer]>,
    run_answers: Option<&[Answer]>,
    gold_set: &[Prepared],
    run_set: &[Prepared],
    matching: &Matching,
) -> Explanation {
    let markings = |p: &Prepared| p.keys.first().map(|k| format!("{k:?}")).unwrap_or_default();
    let text = |answers: Option<&[Answer]>, set: &[Prepared], index: usize| match answers {
        Some(a) => a.get(index).map(answer_text).unwrap_or_default(),
        None => set
            .iter()
            .find(|p| p.index == index)
            .map(markings)
            .unwrap_or_default(),
    };
    let matched_gold: HashSet<usize> = matching.pairs.iter().map(|p| p.gold).collect();
    let matched_run: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let pairs = matching
        .pairs
        .iter()
        .map(|p| {
            let gold = text(gold_answers, gold_set, p.gold);
            let run = text(run_answers, run_set, p.run);
            let rule = match p.reason {
                Reason::Iri if gold == run => "same_iri",
                Reason::Iri => "canonical_iri",
                other => other.name(),
            };
            MatchedPair {
                rule,
                class_size: match p.reason {
                    Reason::SameAs { class_size } => Some(class_size),
                    _ => None,
                },
                gold,
                run,
            }
        })
        .collect();
    Explanation {
        pairs,
        unmatched_gold: gold_set
            .iter()
            .filter(|p| !matched_gold.contains(&p.index))
            .map(|p| text(gold_answers, gold_set, p.index))
            .collect(),
        unmatched_run: run_set
            .iter()
            .filter(|p| !matched_run.contains(&p.index))
            .map(|p| text(run_answers, run_set, p.index))
            .collect(),
    }
}

/// The aggregate of scored questions (index, status, score).
fn aggregate_report(
    scored: &[(usize, Status, QuestionScore)],
    questions: usize,
    not_evaluable: usize,
    extra: usize,
) -> AggregateReport {
    let mut agg = AggregateReport {
        questions,
        evaluated: scored.len(),
        not_evaluable,
        extra,
        ..AggregateReport::default()
    };
    for (_, status, _) in scored {
        match status {
            Status::Missing => agg.missing += 1,
            Status::Empty => agg.empty += 1,
            Status::Error => agg.errors += 1,
            _ => agg.answered += 1,
        }
    }
    let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
    let measures = aggregate(&scores);
    agg.micro = Some(measures.micro);
    agg.macro_ = measures.macro_;
    agg.macro_qald = measures.macro_qald;
    agg
}

/// Says which run answers could not be compared across kinds without an index.
fn cross_kind_notes(
    entry: &GoldEntry<'_>,
    answers: &AnswerSet,
    run_set: &[Prepared],
    matching: &Matching,
    has_index: bool,
    diags: &mut Vec<String>,
) {
    let matched: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let unmatched = run_set
        .iter()
        .filter(|p| !matched.contains(&p.index))
        .map(|p| &answers.answers[p.index]);
    let (mut strings, mut iri_texts, mut iris) = (0, Vec::new(), 0);
    for a in unmatched {
        match a.terms.as_slice() {
            [Term::Literal { lexical, .. }] if looks_like_iri(lexical.trim()) => {
                iri_texts.push(lexical.trim())
            }
            terms if terms.iter().all(|t| matches!(t, Term::Literal { .. })) => strings += 1,
            terms if terms.iter().all(Term::is_iri) => iris += 1,
            _ => {}
        }
    }
    if !iri_texts.is_empty() && entry.has_iri {
        diags.push(format!(
            "{} literal answer(s) hold IRI text (such as {:?}) and are not IRIs: a term keeps its kind, so they do not match gold IRIs; answer with type \"uri\"",
            iri_texts.len(),
            iri_texts[0]
        ));
    }
    if has_index {
        return;
    }
    if strings > 0 && entry.has_iri {
        diags.push(format!(
            "{strings} string answer(s) could not be compared with the gold IRIs: matching labels needs an index (--index)"
        ));
    }
    if iris > 0 && entry.has_literal && !entry.has_iri {
        diags.push(format!(
            "{iris} IRI answer(s) could not be compared with the gold strings: matching labels needs an index (--index)"
        ));
    }
}

fn question_report(
    q: &Question,
    status: Status,
    score: Option<QuestionScore>,
    diagnostics: Vec<String>,
) -> QuestionReport {
    let s = score.unwrap_or_default();
    QuestionReport {
        id: q.id.0.clone(),
        status,
        tp: s.tp,
        fp: s.fp,
        fn_: s.fn_,
        precision: s.precision,
        recall: s.recall,
        f1: s.f1,
        precision_qald: s.precision_qald,
        recall_qald: s.recall_qald,
        diagnostics,
        explanation: None,
    }
}

/// Sorts ids numerically when they are numbers, else as strings.
fn natural_key(id: &str) -> (u8, u64, &str) {
    match id.parse::<u64>() {
        Ok(n) => (0, n, id),
        Err(_) => (1, 0, id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qald::parse;

    fn dataset(json: &str) -> Dataset {
        parse(json.as_bytes(), "t").unwrap()
    }
    fn uris(values: &[&str]) -> String {
        let rows: Vec<String> = values
            .iter()
            .map(|v| format!(r#"{{"x":{{"type":"uri","value":"{v}"}}}}"#))
            .collect();
        format!(
            r#"[{{"head":{{"vars":["x"]}},"results":{{"bindings":[{}]}}}}]"#,
            rows.join(",")
        )
    }

    #[test]
    fn missing_extra_empty_and_ids() {
        let gold = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}},{{"id":"2","answers":{}}},{{"id":"3","answers":{}}},{{"id":"4"}}]}}"#,
            uris(&["http://a.org/1"]),
            uris(&["http://a.org/2", "http://a.org/3"]),
            uris(&[])
        ));
        let run = dataset(&format!(
            r#"{{"questions":[{{"id":"1","answers":{}}},{{"id":2,"answers":[]}},{{"id":"07","answers":[]}}]}}"#,
            uris(&["https://a.org/1"])
        ));
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r.json",
                dataset: &run,
            }],
            Options::default(),
        );
        let qa = report.runs[0].experiments.qa.as_ref().unwrap();
        let a = &qa.aggregate;
        assert_eq!((a.questions, a.evaluated, a.not_evaluable), (4, 3, 1));
        assert_eq!((a.answered, a.empty, a.missing, a.extra), (1, 1, 1, 1));
        assert_eq!(report.runs[0].extra_ids, vec!["07"]);
        let st: Vec<Status> = qa.questions.iter().map(|q| q.status).collect();
        assert_eq!(
            st,
            vec![
                Status::Answered,
                Status::Empty,
                Status::Missing,
                Status::NotEvaluable
            ]
        );
        // q1: https vs http on a non-KG host differ -> 0; q2: empty -> 0 (QALD P = 1);
        // q3: gold empty and run missing -> 1.
        assert_eq!(qa.questions[0].f1, 0.0);
        assert_eq!(qa.questions[1].precision_qald, 1.0);
        assert_eq!(qa.questions[2].f1, 1.0);
        assert!((a.macro_.f1 - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn string_answers_against_iri_gold_are_explained() {
        let gold = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
            uris(&["http://dbpedia.org/resource/Barack_Obama"])
        ));
        let run = dataset(
            r#"{"questions":[{"id":1,"answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"Barack Obama"}}]}}]}]}"#,
        );
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r",
                dataset: &run,
            }],
            Options::default(),
        );
        let q = &report.runs[0].experiments.qa.as_ref().unwrap().questions[0];
        assert_eq!((q.tp, q.fp, q.fn_), (0, 1, 1));
        assert!(
            q.diagnostics.iter().any(|d| d.contains("needs an index")),
            "{:?}",
            q.diagnostics
        );
    }

    #[test]
    fn gold_without_answers_gives_null_qa() {
        let gold =
            dataset(r#"[{"_id":"1","corrected_question":"q","sparql_query":"SELECT ?x {}"}]"#);
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r",
                dataset: &gold,
            }],
            Options::default(),
        );
        assert!(report.runs[0].experiments.qa.is_none());
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["runs"][0]["experiments"]["qa"].is_null());
        // the query still gives C2KB markings; AT has no answers and no declared type
        assert_eq!(
            json["runs"][0]["experiments"]["c2kb"]["aggregate"]["macro"]["f1"],
            1.0
        );
        assert!(json["runs"][0]["experiments"]["at"].is_null());
    }

    #[test]
    fn an_index_unifies_iris_in_every_sub_experiment() {
        let q = |query: &str, answer: &str| {
            format!(
                r#"{{"questions":[{{"id":1,"query":{{"sparql":"{query}"}},"answers":{}}}]}}"#,
                uris(&[answer])
            )
        };
        let gold = dataset(&q(
            "SELECT ?x WHERE { <http://dbpedia.org/resource/Barack_Obama> <http://dbpedia.org/ontology/spouse> ?x . ?x a <http://dbpedia.org/ontology/Person> }",
            "http://dbpedia.org/resource/Michelle_Obama",
        ));
        let run = dataset(&q(
            "SELECT ?x WHERE { <http://www.wikidata.org/entity/Q76> <http://www.wikidata.org/prop/direct/P26> ?x . ?x a <http://www.wikidata.org/entity/Q5> }",
            "http://www.wikidata.org/entity/Q13133",
        ));
        let mut kg = crate::index::MemoryIndex::new();
        kg.same_as(
            "http://dbpedia.org/resource/Barack_Obama",
            "http://www.wikidata.org/entity/Q76",
        )
        .same_as(
            "http://dbpedia.org/resource/Michelle_Obama",
            "http://www.wikidata.org/entity/Q13133",
        )
        .same_as(
            "http://dbpedia.org/ontology/spouse",
            "http://www.wikidata.org/prop/direct/P26",
        )
        .same_as(
            "http://dbpedia.org/ontology/Person",
            "http://www.wikidata.org/entity/Q5",
        );
        let runs = [Run {
            name: "r",
            source: "r",
            dataset: &run,
        }];
        let with = evaluate_with(
            &gold,
            "g",
            &runs,
            Options::default(),
            Some(IndexRef {
                equivalence: &kg,
                path: "memory",
                format_version: 0,
            }),
        );
        let e = &with.runs[0].experiments;
        for (name, x) in e.named() {
            if let Some(x) = x {
                assert_eq!(x.aggregate.macro_.f1, 1.0, "{name} with the index");
            }
        }
        assert!(e.re2kb.is_some() && e.p2kb.is_some() && e.ait2kb.is_some());
        let without = evaluate(&gold, "g", &runs, Options::default());
        let e = &without.runs[0].experiments;
        for x in [&e.qa, &e.c2kb, &e.p2kb, &e.re2kb, &e.ait2kb] {
            assert_eq!(x.as_ref().map(|x| x.aggregate.macro_.f1), Some(0.0));
        }
    }

    #[test]
    fn large_classes_are_reported() {
        let gold = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
            uris(&["http://e.org/a"])
        ));
        let run = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
            uris(&["http://e.org/z"])
        ));
        let mut kg = crate::index::MemoryIndex::new();
        for i in 0..5 {
            kg.same_as("http://e.org/a", &format!("http://e.org/m{i}"));
        }
        kg.same_as("http://e.org/a", "http://e.org/z");
        let report = evaluate_with(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r",
                dataset: &run,
            }],
            Options {
                max_class_size: 3,
                explain: true,
                ..Options::default()
            },
            Some(IndexRef {
                equivalence: &kg,
                path: "memory",
                format_version: 0,
            }),
        );
        let q = &report.runs[0].experiments.qa.as_ref().unwrap().questions[0];
        assert_eq!(q.tp, 1);
        assert!(
            q.diagnostics.iter().any(|d| d.contains("class of 7 IRIs")),
            "{:?}",
            q.diagnostics
        );
        let x = q.explanation.as_ref().unwrap();
        assert_eq!(
            (x.pairs[0].rule, x.pairs[0].class_size),
            ("sameas", Some(7))
        );
    }
}
