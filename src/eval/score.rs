//! Scoring one run: joining its questions to the gold by id, matching and
//! scoring every question of every wanted sub-experiment under the profile, and
//! the aggregates and breakdowns (docs/scoring.md: Counting, Aggregates, Breakdowns).

use std::collections::{HashMap, HashSet};

use super::aggregates::{aggregate_report, execution_counts, mean, ranking, tables};
use super::breakdown::{breakdown, run_language};
use super::era::Era;
use super::judge::judge_run;
use super::prepare::{Ctx, GoldEntry, RunEntry};
use super::profiles::{challenge_aggregate, official_figures, Official, Resources};
use super::report::{ExperimentReport, Experiments, QuestionReport, RunReport, Status};
use super::{natural_key, Experiment, Options, Rules, Run, BOOTSTRAP_SEED};
use crate::annotate::annotate_question_as;
use crate::llm::Judged;
use crate::matching::Side;
use crate::metrics::{bootstrap, QuestionScore};
use crate::model::{Calls, Question};

mod question;

use question::score_question;

pub(super) fn evaluate_run(
    entries: &[GoldEntry<'_>],
    run: &Run<'_>,
    ctx: &Ctx<'_, '_>,
    options: &Options,
) -> (RunReport, RunNotes) {
    let gold_by_id: HashMap<&str, &GoldEntry<'_>> = entries
        .iter()
        .map(|e| (e.question.id.0.as_str(), e))
        .collect();
    let by_id = join_run(&gold_by_id, run, ctx, options);
    let extra = extra_ids(run, &gold_by_id);
    let judged = judge_run(entries, &by_id, ctx, options);
    let scope = Scope {
        entries,
        runs: &by_id,
        extra: extra.len(),
        ctx,
        options,
        calls: run.dataset.calls.as_ref(),
    };
    let inferred_types = by_id
        .values()
        .filter(|r| r.notes.iter().any(|n| n == crate::annotate::INFERRED_TYPE))
        .count();
    let (mut experiments, unsourced) = score_wanted(&scope, judged.as_ref());
    if let (Some(official), Some(qa)) = (ctx.profile.official(), experiments.qa.as_mut()) {
        attach_official(official, entries, run.dataset, options, qa);
    }
    if let Some(qa) = experiments.qa.as_mut() {
        qa.aggregate.free_text = free_text(entries, &by_id);
    }
    (
        RunReport {
            name: run.name.to_string(),
            source: run.source.to_string(),
            format: run.dataset.format.name(),
            experiments,
            llm_judge: judged.map(|j| {
                let exact = score_experiment(&scope, Experiment::Qa, None).map(|r| {
                    crate::llm::ExactFigures {
                        micro: r.aggregate.micro,
                        macro_: r.aggregate.macro_,
                        macro_qald: r.aggregate.macro_qald,
                    }
                });
                crate::llm::JudgeReport::of(&j, options.llm.as_deref(), exact)
            }),
            extra_ids: extra,
            failures: None,
        },
        RunNotes {
            unsourced,
            inferred_types,
        },
    )
}

/// The run's questions prepared for scoring (annotated, abstentions read,
/// marking sets built), by the id of the gold question each answers; a
/// question the gold lacks, or a repeated id after its first, is left out.
fn join_run<'a>(
    gold_by_id: &HashMap<&str, &GoldEntry<'_>>,
    run: &Run<'a>,
    ctx: &Ctx<'_, '_>,
    options: &Options,
) -> HashMap<&'a str, RunEntry<'a>> {
    let mut by_id: HashMap<&str, RunEntry<'_>> =
        HashMap::with_capacity(run.dataset.questions.len());
    for q in &run.dataset.questions {
        let id = q.id.0.as_str();
        let Some(gold) = gold_by_id.get(id) else {
            continue;
        };
        if by_id.contains_key(id) {
            continue;
        }
        let annotation = (ctx.annotate && ctx.wanted.any_markings())
            .then(|| annotate_question_as(q, ctx.opts(), ctx.profile.marking_style()));
        // an abstained question's QA answers are scored as none
        let abstained = super::truth::abstains(q, options.abstain_marker.as_deref());
        let qa = if abstained {
            Some(std::borrow::Cow::Owned(Vec::new()))
        } else {
            q.answers.as_ref().map(|a| ctx.profile.answers(a))
        };
        let (sets, texts) = ctx.sets(
            q,
            qa.as_deref(),
            annotation.as_ref(),
            Side::Run,
            gold.has_iri,
        );
        by_id.insert(
            id,
            RunEntry {
                question: q,
                sets,
                texts,
                qa,
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
                language: run_language(gold.question, q, options.lang.as_deref()),
                abstained,
            },
        );
    }
    by_id
}

/// The ids of the run's questions the gold lacks, once each, in natural order.
fn extra_ids(run: &Run<'_>, gold_by_id: &HashMap<&str, &GoldEntry<'_>>) -> Vec<String> {
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
    extra
}

/// Scores every wanted sub-experiment of a run, with the judge's verdicts;
/// the ones the run gives no source of markings for are returned instead, not
/// scored (docs/scoring.md, Sub-experiments).
fn score_wanted(scope: &Scope<'_>, judged: Option<&Judged>) -> (Experiments, Vec<Experiment>) {
    let ctx = scope.ctx;
    let mut experiments = Experiments::default();
    let mut unsourced = Vec::new();
    for e in Experiment::ALL {
        if !ctx.wanted[e] {
            continue;
        }
        // no score for data nobody gave: a run without any source of markings
        // for a sub-experiment is not scored there (docs/scoring.md, Sub-experiments)
        if e != Experiment::Qa
            && !ctx.profile.empty_markings_score()
            && !scope
                .runs
                .values()
                .any(|r| gives_markings(e, r.question, ctx.resolver.has_types()))
        {
            unsourced.push(e);
            continue;
        }
        let report = score_experiment(scope, e, judged);
        if let Some(slot) = experiments.get_mut(e) {
            *slot = report;
        }
    }
    (experiments, unsourced)
}

/// The run answers that are free text (every term a literal) to gold
/// questions holding IRIs, or `None` when there is none (docs/scoring.md,
/// Other benchmark families).
fn free_text(entries: &[GoldEntry<'_>], by_id: &HashMap<&str, RunEntry<'_>>) -> Option<usize> {
    let n: usize = entries
        .iter()
        .filter(|e| e.has_iri)
        .filter_map(|e| by_id.get(e.question.id.0.as_str()))
        .filter_map(|r| r.qa.as_deref())
        .map(|answers| {
            answers
                .iter()
                .filter(|a| {
                    !a.terms.is_empty()
                        && a.terms
                            .iter()
                            .all(|t| matches!(t, crate::model::Term::Literal { .. }))
                })
                .count()
        })
        .sum();
    (n > 0).then_some(n)
}

/// Adds the official script's figures (docs/scoring.md, Other benchmark
/// families) to a run's QA report: per question where the script keeps it, and
/// for the run.
fn attach_official(
    official: &dyn Official,
    entries: &[GoldEntry<'_>],
    run: &crate::model::Dataset,
    options: &Options,
    qa: &mut ExperimentReport,
) {
    let gold: Vec<&Question> = entries.iter().map(|e| e.question).collect();
    let with = Resources {
        wordnet: options.wordnet.as_deref(),
        ontology: options.ontology.as_deref(),
        train: options.train.as_deref(),
        deadline: Some(&options.deadline),
    };
    let (mut per_question, aggregate) = official_figures(official, &gold, run, &with);
    for report in &mut qa.questions {
        report.official = per_question.remove(report.id.as_str());
    }
    qa.aggregate.official = Some(aggregate);
}

/// What the report says of a run once, not per question.
pub(super) struct RunNotes {
    /// Sub-experiments the run gives no source of markings for.
    pub(super) unsourced: Vec<Experiment>,
    /// Run questions whose answer type is inferred, not declared.
    pub(super) inferred_types: usize,
}

/// True when a run question gives a source of markings for sub-experiment `e`:
/// a SPARQL query, an annotation of that kind, a declared answer type (AT) or
/// item types, or answers the judge derives them from (AT always; AIT2KB with
/// an index holding types).
fn gives_markings(e: Experiment, q: &crate::model::Question, index_types: bool) -> bool {
    let query = matches!(q.query, crate::model::Query::Sparql(_));
    query
        || match e {
            Experiment::Qa => true,
            Experiment::C2kb => !q.entities.is_empty() || !q.classes.is_empty(),
            Experiment::C2kbEntities => !q.entities.is_empty(),
            Experiment::C2kbClasses => !q.classes.is_empty(),
            Experiment::P2kb => !q.properties.is_empty(),
            Experiment::Re2kb => !q.triples.is_empty(),
            Experiment::At => q.answertype.is_some() || q.answers.is_some(),
            Experiment::Ait2kb => !q.item_types.is_empty() || (index_types && q.answers.is_some()),
            Experiment::Query => false,
        }
}

/// What scoring any sub-experiment of one run reads: the gold entries, the
/// run's questions by gold id, how many run questions the gold lacks, and the
/// run's record of its calls to the system.
struct Scope<'s> {
    entries: &'s [GoldEntry<'s>],
    runs: &'s HashMap<&'s str, RunEntry<'s>>,
    extra: usize,
    ctx: &'s Ctx<'s, 's>,
    options: &'s Options,
    calls: Option<&'s Calls>,
}

/// The reports and figures of one sub-experiment's questions as they are
/// scored, for its aggregate.
struct Tally {
    questions: Vec<QuestionReport>,
    /// Each scored question's place among the gold entries, status and score.
    scored: Vec<(usize, Status, QuestionScore)>,
    not_evaluable: usize,
    /// The order scores (nDCG) of the questions that have one, by place.
    ndcgs: Vec<(usize, Option<f64>)>,
    /// The rank of the first right run answer of each QA question with gold answers.
    ranks: Vec<Option<usize>>,
    /// The row-wise F1 of the QA questions whose answers are tables.
    row_f1s: Vec<f64>,
    era: Era,
}

/// Scores one sub-experiment of one run, with the LLM judge's verdicts when
/// given; `None` when no gold question has data.
fn score_experiment(
    scope: &Scope<'_>,
    e: Experiment,
    judged: Option<&Judged>,
) -> Option<ExperimentReport> {
    let mut tally = Tally::new(scope.entries.len(), scope.options);
    for (i, entry) in scope.entries.iter().enumerate() {
        // past the deadline the job is an error (`run_job`): nothing more
        if scope.options.deadline.passed() {
            break;
        }
        score_question(scope, e, judged, i, entry, &mut tally);
    }
    // T2S-Metrics' query-text measures need no answers: without a graph its
    // profile still reports QA, every question not evaluable, for them
    let text_measures = e == Experiment::Qa && scope.options.profile == super::Profile::T2sMetrics;
    if tally.scored.is_empty() && !text_measures {
        return None;
    }
    Some(tally.report(scope, e))
}

impl Tally {
    /// An empty tally for `n` gold entries.
    fn new(n: usize, options: &Options) -> Tally {
        Tally {
            questions: Vec::with_capacity(n),
            scored: Vec::with_capacity(n),
            not_evaluable: 0,
            ndcgs: Vec::new(),
            ranks: Vec::new(),
            row_f1s: Vec::new(),
            era: Era::new(options.abstain_marker.is_some()),
        }
    }

    /// The sub-experiment's report: the question reports with their texts
    /// and the run's confidences, the aggregate with the figures the profile
    /// and sub-experiment report, and the breakdowns.
    fn report(mut self, scope: &Scope<'_>, e: Experiment) -> ExperimentReport {
        let (entries, runs, options) = (scope.entries, scope.runs, scope.options);
        let profile = scope.ctx.profile;
        let lang = options.lang.as_deref().unwrap_or("en");
        // one report per gold entry, in the entries' order
        debug_assert_eq!(self.questions.len(), entries.len());
        for (report, entry) in self.questions.iter_mut().zip(entries) {
            report.confidence = runs
                .get(report.id.as_str())
                .and_then(|r| r.question.confidence);
            report.question = entry.question.text(lang).map(str::to_string);
        }
        let scored = &self.scored;
        let mut agg = aggregate_report(scored, entries.len(), self.not_evaluable, scope.extra);
        agg.runtime_ms_mean = scope.calls.and_then(|c| c.runtime_ms_mean);
        let order_scores: Vec<f64> = self.ndcgs.iter().filter_map(|(_, n)| *n).collect();
        if !order_scores.is_empty() {
            agg.ndcg = Some(mean(&order_scores));
        }
        if e == Experiment::Qa && !profile.scores_value_sets() && !scored.is_empty() {
            agg.ranking = Some(ranking(&self.ranks));
            agg.tables = tables(&self.row_f1s);
        }
        if e == Experiment::Qa {
            self.era.finish(&mut agg);
            agg.executions = execution_counts(entries, runs);
            if profile.scores_value_sets() {
                let questions: Vec<&Question> = entries.iter().map(|e| e.question).collect();
                agg.challenge = Some(challenge_aggregate(&questions, scored, &self.ndcgs));
            }
        }
        if !profile.reports_micro() {
            agg.micro = None;
        }
        if options.bootstrap > 0 {
            let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
            agg.confidence = Some(bootstrap(&scores, options.bootstrap, BOOTSTRAP_SEED));
        }
        let breakdown = breakdown(entries, runs, scored, profile, options);
        ExperimentReport {
            aggregate: agg,
            questions: self.questions,
            breakdown,
        }
    }
}

pub(super) fn question_report(
    q: &Question,
    status: Status,
    score: Option<QuestionScore>,
    diagnostics: Vec<String>,
) -> QuestionReport {
    QuestionReport {
        id: q.id.0.clone(),
        question: None,
        status,
        score: score.unwrap_or_default(),
        ndcg: None,
        confidence: None,
        execution: None,
        gold_execution: None,
        diagnostics,
        explanation: None,
        official: None,
        row_f1: None,
        usage: None,
        truthfulness: None,
        ndcg_graded: None,
        kendall_tau: None,
    }
}
