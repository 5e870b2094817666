//! The evaluator: joins a gold benchmark and runs by question id, derives the
//! markings of every sub-experiment, matches, scores every question, aggregates and
//! splits by question features (docs/scoring.md and docs/report.md). Synchronous and deterministic:
//! the same inputs give a byte-identical report.

mod aggregates;
mod breakdown;
mod compare;
mod deadline;
mod era;
mod experiment;
mod explain;
pub mod failures;
mod gold_cache;
pub mod job;
pub mod join;
mod judge;
mod notes;
mod options;
mod order;
mod prepare;
pub mod profiles;
mod provenance;
pub mod query;
pub mod receipt;
pub mod recorded;
pub mod report;
pub mod request;
mod score;
pub mod text;
pub mod truth;
mod unexecuted;
pub mod usage;

use std::collections::HashSet;

use crate::annotate::annotate_question_as;
use crate::index::Equivalence;
use crate::matching::{Resolver, Side};
use crate::model::{Dataset, Term};
use compare::compare_runs;
pub use compare::{holm, ALPHA, CORRECTION, SIGNIFICANCE_SHUFFLES};
pub use deadline::Deadline;
pub use experiment::{Experiment, PerExperiment, UnknownName};
pub use explain::{match_lists, MatchReport};
pub use options::{
    Execution, GoldMarkings, IndexRef, Options, BOOTSTRAP_SEED, DEFAULT_MAX_CLASS_SIZE,
};
use prepare::{Ctx, GoldEntry};
pub use profiles::{Profile, Rules};
pub use report::{
    AggregateReport, ChallengeAggregate, Comparison, ExecutionCounts, ExecutionReport,
    ExperimentReport, Experiments, Explanation, GoldInfo, IndexInfo, IndexInput, KgFile,
    KnowledgeGraphInfo, LanguageAggregate, MatchedPair, QuestionReport, Report, RunReport, Status,
    UnstableQuestion, UnstableReport, UnstableRun,
};
use score::{evaluate_run, RunNotes};

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

impl<'a> Run<'a> {
    /// The runs of loaded runs, in order.
    pub fn all(loaded: &'a [job::LoadedRun]) -> Vec<Run<'a>> {
        loaded
            .iter()
            .map(|r| Run {
                name: &r.name,
                source: &r.source,
                dataset: &r.dataset,
            })
            .collect()
    }
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
    let prepared = prepare_gold(gold, &options, index.map(|i| i.equivalence));
    evaluate_prepared(gold, &prepared, gold_path, runs, options, index)
}

/// A gold benchmark prepared once for many evaluations with the same options
/// (annotated, its answers and markings resolved through the index), so that a
/// service that scores many runs against one benchmark does that work once.
pub struct PreparedGold {
    /// The options it was prepared for (see [`PreparedGold::fits`]).
    key: String,
    /// The index it was resolved through (its address), if any.
    index: Option<usize>,
    /// The number of questions of the benchmark it was prepared from.
    questions: usize,
    /// The prefixes its queries declare.
    prefixes: crate::terms::prefixes::Namespaces,
    entries: Vec<prepare::StoredEntry>,
}

impl PreparedGold {
    /// True when it was prepared from a benchmark of this size with these
    /// options and this index.
    pub fn fits(&self, gold: &Dataset, options: &Options, index: Option<&dyn Equivalence>) -> bool {
        self.key == gold_key(options)
            && self.index == index_address(index)
            && self.questions == gold.questions.len()
    }
}

/// What of the options shapes the prepared gold.
fn gold_key(o: &Options) -> String {
    format!(
        "{:?}",
        (
            o.profile,
            o.strict_literals,
            o.lenient_dates,
            &o.experiments,
            !o.by.is_empty(),
            o.gold_markings
        )
    )
}

fn index_address(index: Option<&dyn Equivalence>) -> Option<usize> {
    index.map(|i| std::ptr::from_ref(i).cast::<()>() as usize)
}

/// The sub-experiments scored, and why asked-for ones are left out.
fn wanted(options: &Options) -> (PerExperiment<bool>, Vec<String>) {
    let profile = options.profile;
    let mut wanted = PerExperiment::from_fn(|_| options.experiments.is_empty());
    for e in &options.experiments {
        wanted[*e] = true;
        // C2KB comes with its split into entities and classes
        if *e == Experiment::C2kb {
            wanted[Experiment::C2kbEntities] = true;
            wanted[Experiment::C2kbClasses] = true;
        }
    }
    // the query measures are scored only when asked for, under every profile
    wanted[Experiment::Query] = options.experiments.contains(&Experiment::Query);
    let mut notes = Vec::new();
    for e in Experiment::ALL {
        if wanted[e] && !profile.experiments(e) {
            wanted[e] = false;
            if options.experiments.contains(&e) {
                notes.push(format!(
                    "the {} profile does not score {}; left out",
                    profile.name(),
                    e.name()
                ));
            }
        }
    }
    (wanted, notes)
}

/// The prefixes the gold's queries declare, in order of first declaration.
fn gold_prefixes(gold: &Dataset) -> Vec<(String, String)> {
    let mut prefixes: Vec<(String, String)> = Vec::new();
    let mut seen = HashSet::new();
    for q in &gold.questions {
        if let crate::model::Query::Sparql(text) = &q.query {
            for p in crate::terms::prefixes::declared(text) {
                if seen.insert(p.clone()) {
                    prefixes.push(p);
                }
            }
        }
    }
    prefixes
}

/// The context one evaluation shares, and why asked-for sub-experiments are
/// left out.
fn context<'r, 'i>(
    options: &Options,
    resolver: &'r Resolver<'i>,
    prefixes: crate::terms::prefixes::Namespaces,
) -> (Ctx<'r, 'i>, Vec<String>) {
    let (wanted, left_out) = wanted(options);
    let annotate = wanted.any_markings() || !options.by.is_empty();
    let ctx = Ctx {
        profile: options.profile,
        resolver,
        wanted,
        annotate,
        prefixes,
    };
    (ctx, left_out)
}

/// Prepares a gold benchmark for evaluations with `options` and `index`.
pub fn prepare_gold(
    gold: &Dataset,
    options: &Options,
    index: Option<&dyn Equivalence>,
) -> PreparedGold {
    let profile = options.profile;
    let match_options = profile.match_options(options.strict_literals, options.lenient_dates);
    let resolver = Resolver::new(match_options, index);
    // the prefixes only print markings: a QA-only evaluation does not read
    // every gold query for them
    let prefixes = if wanted(options).0.any_markings() {
        crate::terms::prefixes::Namespaces::new(&gold_prefixes(gold))
    } else {
        crate::terms::prefixes::Namespaces::default()
    };
    let (ctx, _) = context(options, &resolver, prefixes);
    let annotate = ctx.annotate;
    let mut seen = HashSet::new();
    let entries = gold
        .questions
        .iter()
        .enumerate()
        .filter(|(_, q)| seen.insert(q.id.0.as_str()))
        .map(|(i, q)| {
            let annotation = annotate.then(|| {
                let style = profile.marking_style();
                match options.gold_markings {
                    GoldMarkings::Auto => annotate_question_as(q, match_options, style),
                    GoldMarkings::Query => {
                        annotate_question_as(&without_annotations(q), match_options, style)
                    }
                }
            });
            let qa = q.answers.as_ref().map(|a| profile.answers(a));
            let terms = || qa.iter().flat_map(|a| a.iter()).flat_map(|a| &a.terms);
            let has_iri = terms().any(Term::is_iri);
            let has_literal = terms().any(|t| matches!(t, Term::Literal { .. }));
            // the annotation's walk already read the query; read it only when
            // there is none
            let ordered = q.order_flagged()
                || (profile.orders_by_query()
                    && annotation
                        .as_ref()
                        .map_or_else(|| gold_query_orders(q), |a| a.ordered));
            // the graded order measures take every sign of order, under every profile
            let graded_order = ordered
                || (!profile.orders_by_query()
                    && annotation
                        .as_ref()
                        .map_or_else(|| gold_query_orders(q), |a| a.ordered));
            let (sets, texts) = ctx.sets(q, qa.as_deref(), annotation.as_ref(), Side::Gold, true);
            prepare::StoredEntry {
                question: i,
                qa: qa.map(std::borrow::Cow::into_owned),
                sets,
                texts,
                features: annotation
                    .as_ref()
                    .map(|a| a.features.clone())
                    .unwrap_or_default(),
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
                has_iri,
                has_literal,
                ordered,
                graded_order,
            }
        })
        .collect();
    PreparedGold {
        key: gold_key(options),
        index: index_address(index),
        questions: gold.questions.len(),
        prefixes: ctx.prefixes,
        entries,
    }
}

/// Evaluates every run against a gold benchmark prepared with
/// [`prepare_gold`] (one that does not fit `gold`, `options` and `index` is
/// prepared again), with an index when given.
pub fn evaluate_prepared(
    gold: &Dataset,
    prepared: &PreparedGold,
    gold_path: &str,
    runs: &[Run<'_>],
    options: Options,
    index: Option<IndexRef<'_>>,
) -> Report {
    evaluate_executed(
        gold,
        prepared,
        gold_path,
        runs,
        options,
        index,
        Execution::default(),
    )
}

/// [`evaluate_prepared`] after queries were executed as `execution` says.
pub fn evaluate_executed(
    gold: &Dataset,
    prepared: &PreparedGold,
    gold_path: &str,
    runs: &[Run<'_>],
    options: Options,
    index: Option<IndexRef<'_>>,
    execution: Execution,
) -> Report {
    let equivalence = index.map(|i| i.equivalence);
    let fresh;
    let prepared = if prepared.fits(gold, &options, equivalence) {
        prepared
    } else {
        fresh = prepare_gold(gold, &options, equivalence);
        &fresh
    };
    let profile = options.profile;
    let match_options = profile.match_options(options.strict_literals, options.lenient_dates);
    let resolver = Resolver::new(match_options, equivalence);
    let (ctx, left_out) = context(&options, &resolver, prepared.prefixes.clone());
    let mut diagnostics = evaluation_notes(gold, &options, index.is_some(), left_out);
    let entries: Vec<GoldEntry<'_>> = prepared
        .entries
        .iter()
        .map(|e| e.view(&gold.questions[e.question]))
        .collect();
    let at = ctx.wanted[Experiment::At];
    let inferred = entries
        .iter()
        .filter(|e| e.notes.iter().any(|n| n == crate::annotate::INFERRED_TYPE))
        .count();
    if at && inferred > 0 {
        diagnostics.push(format!(
            "gold: {}, for {inferred} of {} question(s) (AT compares it)",
            crate::annotate::INFERRED_TYPE,
            entries.len()
        ));
    }
    let mut reports = Vec::with_capacity(runs.len());
    for run in runs {
        diagnostics.extend(run_input_notes(gold, run));
        let (mut report, notes) = evaluate_run(&entries, run, &ctx, &options);
        if ctx.wanted[Experiment::Query] {
            report.experiments.query = Some(query::evaluate_queries(
                gold,
                run.dataset,
                options.lang.as_deref(),
                equivalence,
                options.deadline.clone(),
            ));
            judge::judge_unknown_queries(&mut report, gold, run.dataset, &options);
        }
        diagnostics.extend(run_result_notes(run, &report, &notes, at));
        diagnostics.extend(official_notes(profile, &report));
        reports.push(report);
    }
    let comparisons = compare_runs(&reports, options.baseline.as_deref());
    diagnostics.extend(
        resolver
            .take_errors()
            .into_iter()
            .map(|e| format!("index: {e}")),
    );
    diagnostics.extend(execution.diagnostics);
    Report {
        version: env!("CARGO_PKG_VERSION"),
        profile: profile.name(),
        gold: GoldInfo {
            path: gold_path.to_string(),
            format: gold.format.name(),
            questions: entries.len(),
            id: gold.id.clone(),
            metadata: gold.metadata.clone(),
        },
        index: index.map(index_info),
        knowledge_graph: execution.knowledge_graph,
        runs: reports,
        comparisons,
        diagnostics,
        unstable: None,
        audit: None,
        recorded: None,
        receipt: None,
    }
}

/// The report's first diagnostics, of the evaluation as a whole: the gold's
/// own and its unknown keys, the sub-experiments `left_out`, unknown `--by`
/// features, and what the profile lacks or reproduces (no index, no WordNet
/// for meteor, the official script whose figures it adds).
fn evaluation_notes(
    gold: &Dataset,
    options: &Options,
    has_index: bool,
    left_out: Vec<String>,
) -> Vec<String> {
    let profile = options.profile;
    let mut diagnostics: Vec<String> = gold
        .diagnostics
        .iter()
        .map(|d| format!("gold: {d}"))
        .collect();
    diagnostics.extend(unknown_keys_note(gold).map(|n| format!("gold: {n}")));
    diagnostics.extend(left_out);
    for f in &options.by {
        if !crate::annotate::FEATURES.contains(&f.as_str()) {
            diagnostics.push(format!(
                "unknown feature {f:?} for --by (known: {})",
                crate::annotate::FEATURES.join(", ")
            ));
        }
    }
    if !has_index && profile.uses_index() {
        diagnostics.push(
            "no index (--index): IRIs are compared by canonical form only, and string answers are not compared with IRIs through labels"
                .to_string(),
        );
    }
    if profile == Profile::T2sMetrics {
        match options.wordnet.as_deref() {
            None => diagnostics.push(
                "meteor is left out: no WordNet 3.0 dictionary was found (give its directory with --wordnet DIR; docs/scoring.md, The `t2s-metrics` profile)"
                    .to_string(),
            ),
            Some(w) if w.version() != "3.0" => diagnostics.push(format!(
                "meteor reads WordNet {:?}, not 3.0 (NLTK's `wordnet`): its figures can differ from T2S-Metrics'",
                w.version()
            )),
            Some(_) => {}
        }
    }
    if let Some(official) = profile.official() {
        diagnostics.push(format!(
            "the {} profile reproduces {}; its own figures are under `official` in each run's QA aggregate and question (docs/scoring.md, Other benchmark families)",
            profile.name(),
            official.script()
        ));
    }
    diagnostics
}

/// The diagnostics of a run as it was read, before it is scored: its own,
/// its unknown keys, why its live system was stopped, and its failed calls.
fn run_input_notes(gold: &Dataset, run: &Run<'_>) -> Vec<String> {
    let mut diagnostics: Vec<String> = run
        .dataset
        .diagnostics
        .iter()
        .map(|d| format!("run '{}': {d}", run.name))
        .collect();
    diagnostics.extend(unknown_keys_note(run.dataset).map(|n| format!("run '{}': {n}", run.name)));
    if let Some(why) = run.dataset.calls.as_ref().and_then(|c| c.stopped.as_ref()) {
        diagnostics.push(format!("run '{}': the live system {why}", run.name));
    }
    if let Some(note) = failed_calls(gold, run) {
        diagnostics.push(note);
    }
    diagnostics
}

/// The diagnostics of a scored run: its inferred answer types (when AT is
/// wanted, `at`), the sub-experiments it gave no markings for, and its
/// questions the gold lacks.
fn run_result_notes(run: &Run<'_>, report: &RunReport, notes: &RunNotes, at: bool) -> Vec<String> {
    let mut diagnostics = Vec::new();
    if at && notes.inferred_types > 0 {
        diagnostics.push(format!(
            "run '{}': {}, for {} question(s) (AT compares it)",
            run.name,
            crate::annotate::INFERRED_TYPE,
            notes.inferred_types
        ));
    }
    if !notes.unsourced.is_empty() {
        let names: Vec<&str> = notes.unsourced.iter().map(|e| e.name()).collect();
        diagnostics.push(format!(
            "run '{}': the run has no queries or annotations for {}: not scored (docs/scoring.md, Sub-experiments)",
            run.name,
            names.join(", ")
        ));
    }
    if !report.extra_ids.is_empty() {
        diagnostics.push(format!(
            "run '{}': {} question(s) not in the gold benchmark were ignored: {}",
            run.name,
            report.extra_ids.len(),
            report.extra_ids.join(", ")
        ));
    }
    diagnostics
}

/// What the profile's official script says of a run beside its figures
/// ([`profiles::Official::notes`]).
fn official_notes(profile: Profile, report: &RunReport) -> Vec<String> {
    let (Some(official), Some(qa)) = (profile.official(), report.experiments.qa.as_ref()) else {
        return Vec::new();
    };
    let Some(aggregate) = qa.aggregate.official.as_ref() else {
        return Vec::new();
    };
    let questions: Vec<(&str, &report::Figures)> = qa
        .questions
        .iter()
        .filter_map(|q| q.official.as_ref().map(|f| (q.id.as_str(), f)))
        .collect();
    official
        .notes(&questions, aggregate)
        .into_iter()
        .map(|n| format!("run '{}': {n}", report.name))
        .collect()
}

/// The report's account of the index: its path, format and, for a built
/// index, who built it when from which inputs, and its provenance.
fn index_info(i: IndexRef<'_>) -> IndexInfo {
    IndexInfo {
        path: i.path.to_string(),
        format_version: i.format_version,
        built_by: i.built.map(|(m, _)| m.built_by.clone()),
        built_at: i.built.map(|(m, _)| m.built_at),
        meta_sha256: i.built.map(|(_, sha)| sha.to_string()),
        inputs: i
            .built
            .map(|(m, _)| {
                m.inputs
                    .iter()
                    .map(|f| IndexInput {
                        path: f.path.clone(),
                        bytes: f.bytes,
                        xxh3_64: f.xxh3_64.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        provenance: i.built.and_then(|(m, _)| m.provenance.clone()),
    }
}

/// The warning of a live run some of whose calls failed: how many, and the
/// first in gold order (docs/scoring.md, Live systems that fail).
fn failed_calls(gold: &Dataset, run: &Run<'_>) -> Option<String> {
    let errors = &run.dataset.calls.as_ref()?.errors;
    let (id, why) = gold
        .questions
        .iter()
        .find_map(|q| errors.get(&q.id.0).map(|why| (&q.id.0, why)))?;
    let failed = gold
        .questions
        .iter()
        .filter(|q| errors.contains_key(&q.id.0))
        .count();
    Some(format!(
        "run '{}': {failed} of {} calls to the live system failed (scored as empty answers, counted in errors); the first, for question {id}: {why}",
        run.name,
        gold.questions.len()
    ))
}

/// One diagnostic listing the keys a file has that the reader does not know.
fn unknown_keys_note(d: &Dataset) -> Option<String> {
    if d.unknown_keys.is_empty() {
        return None;
    }
    let list: Vec<String> = d
        .unknown_keys
        .iter()
        .map(|k| format!("{} ({}×, e.g. question {})", k.path, k.count, k.example))
        .collect();
    Some(format!(
        "{} unknown key(s) were not read: {}",
        d.unknown_keys.len(),
        list.join("; ")
    ))
}

/// The question without its declared markings, so that they come from its query.
fn without_annotations(q: &crate::model::Question) -> crate::model::Question {
    crate::model::Question {
        entities: Vec::new(),
        classes: Vec::new(),
        properties: Vec::new(),
        triples: Vec::new(),
        item_types: Vec::new(),
        ..q.clone()
    }
}

/// True when the solutions of a gold question's SPARQL query are ordered
/// (ORDER BY), for a question with no annotation to read it from: the one
/// read of its query ([`crate::query::orders`]).
fn gold_query_orders(q: &crate::model::Question) -> bool {
    match &q.query {
        crate::model::Query::Sparql(s) => crate::query::orders(s),
        _ => false,
    }
}

/// Sorts ids numerically when they are numbers, else as strings.
pub(super) fn natural_key(id: &str) -> (u8, u64, &str) {
    match id.parse::<u64>() {
        Ok(n) => (0, n, id),
        Err(_) => (1, 0, id),
    }
}

#[cfg(test)]
mod tests;
