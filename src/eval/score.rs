//! Scoring one run: joining its questions to the gold by id, matching and
//! scoring every question of every wanted sub-experiment under the profile, and
//! the aggregates and breakdowns (docs/scoring.md: Counting, Aggregates, Breakdowns).

use std::collections::{HashMap, HashSet};

use super::aggregates::{
    aggregate_report, execution_counts, first_hit, mean, order_score, ranking, tables,
};
use super::breakdown::{breakdown, run_language};
use super::explain::explain;
use super::judge::judge_run;
use super::notes::{cross_graph_note, cross_kind_notes, explained};
use super::prepare::{Ctx, GoldEntry, RunEntry};
use super::profiles::{
    challenge_aggregate, challenge_score, official_figures, Official, Resources,
};
use super::report::{
    ExecutionReport, ExperimentReport, Experiments, QuestionReport, RunReport, Status,
};
use super::{natural_key, Experiment, Options, Rules, Run, BOOTSTRAP_SEED};
use crate::annotate::annotate_question_as;
use crate::matching::{match_answers, Reason, Side};
use crate::metrics::{bootstrap, QuestionScore};
use crate::model::{Calls, Question};

pub(super) fn evaluate_run(
    entries: &[GoldEntry<'_>],
    run: &Run<'_>,
    ctx: &Ctx<'_, '_>,
    options: &Options,
) -> (RunReport, RunNotes) {
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
    let mut unsourced = Vec::new();
    let judged = judge_run(entries, &by_id, ctx, options);
    // one experiment of this run scored, with the judge's verdicts or without
    let n_extra = extra.len();
    let score = |e: Experiment, judged: Option<&crate::llm::Judged>| {
        score_experiment(
            e,
            entries,
            &by_id,
            n_extra,
            ctx,
            options,
            run.dataset.calls.as_ref(),
            judged,
        )
    };
    let inferred_types = by_id
        .values()
        .filter(|r| r.notes.iter().any(|n| n == crate::annotate::INFERRED_TYPE))
        .count();
    for e in Experiment::ALL {
        if !ctx.wanted[e] {
            continue;
        }
        // no score for data nobody gave: a run without any source of markings
        // for a sub-experiment is not scored there (docs/scoring.md, Sub-experiments)
        if e != Experiment::Qa
            && !ctx.profile.empty_markings_score()
            && !by_id
                .values()
                .any(|r| gives_markings(e, r.question, ctx.resolver.has_types()))
        {
            unsourced.push(e);
            continue;
        }
        let report = score(e, judged.as_ref());
        if let Some(slot) = experiments.get_mut(e) {
            *slot = report;
        }
    }
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
                let exact = score(Experiment::Qa, None).map(|r| crate::llm::ExactFigures {
                    micro: r.aggregate.micro,
                    macro_: r.aggregate.macro_,
                    macro_qald: r.aggregate.macro_qald,
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

/// The row-wise F1 of a question whose gold or run answers are a table (more
/// than one column), as SPINACH's evaluation pairs rows
/// ([`super::profiles::row_major_f1`]); `None` otherwise, or past its size
/// bound.
fn table_f1(
    gold: Option<&crate::model::AnswerSet>,
    run: Option<&crate::model::AnswerSet>,
) -> Option<f64> {
    let wide = |s: Option<&crate::model::AnswerSet>| s.is_some_and(|s| s.vars.len() > 1);
    if !(wide(gold) || wide(run)) {
        return None;
    }
    super::profiles::row_major_f1(run, gold)
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

/// Scores one sub-experiment of one run; `None` when no gold question has data.
#[allow(clippy::too_many_arguments)]
fn score_experiment(
    e: Experiment,
    entries: &[GoldEntry<'_>],
    runs: &HashMap<&str, RunEntry<'_>>,
    extra: usize,
    ctx: &Ctx<'_, '_>,
    options: &Options,
    calls: Option<&Calls>,
    judged: Option<&crate::llm::Judged>,
) -> Option<ExperimentReport> {
    let profile = ctx.profile;
    let mut questions = Vec::with_capacity(entries.len());
    let mut scored: Vec<(usize, Status, QuestionScore)> = Vec::with_capacity(entries.len());
    let mut not_evaluable = 0;
    let mut ndcgs: Vec<(usize, Option<f64>)> = Vec::new();
    let mut ranks: Vec<Option<usize>> = Vec::new();
    let mut row_f1s: Vec<f64> = Vec::new();
    let mut era = super::era::Era::new(options.abstain_marker.is_some());
    let empty_markings = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        // past the deadline the job is an error (`run_job`): nothing more
        if options.deadline.passed() {
            break;
        }
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
            // an inferred answer type is told once per file, not per row
            let told = |d: &&String| d.as_str() != crate::annotate::INFERRED_TYPE;
            diags.extend(
                entry
                    .notes
                    .iter()
                    .filter(told)
                    .map(|d| format!("gold: {d}")),
            );
            if let Some(r) = run {
                diags.extend(r.notes.iter().filter(told).map(|d| format!("run: {d}")));
            }
        }
        let gold_set = match &entry.sets[e] {
            // an empty gold marking set has nothing to find: no score for it
            Some(set)
                if set.is_empty() && e != Experiment::Qa && !profile.empty_markings_score() =>
            {
                not_evaluable += 1;
                diags.push(format!(
                    "not evaluable for {}: the gold question marks nothing for it, so no run can be scored there",
                    e.name()
                ));
                questions.push(question_report(gq, Status::NotEvaluable, None, diags));
                continue;
            }
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
        let run_set = run.and_then(|r| r.sets[e].as_ref()).unwrap_or(&empty);
        let call_error = calls.and_then(|c| c.errors.get(gq.id.0.as_str()));
        if let Some(why) = call_error {
            diags.push(format!("the call to the system failed: {why}"));
        }
        let abstained = e == Experiment::Qa && run.is_some_and(|r| r.abstained);
        let status = match run {
            None => Status::Missing,
            Some(_) if call_error.is_some() => Status::Error,
            Some(_) if abstained => Status::Abstained,
            Some(_) if run_set.is_empty() => Status::Empty,
            Some(_) => Status::Answered,
        };
        let matching = match match_answers(gold_set, run_set) {
            Ok(matching) => matching,
            Err(too_many) => {
                // no maximum matching exists to score by: the question is left
                // out and says why (docs/scoring.md, Sameness, counting)
                not_evaluable += 1;
                diags.push(format!("not evaluable: {too_many}"));
                questions.push(question_report(gq, Status::NotEvaluable, None, diags));
                continue;
            }
        };
        let qa = e == Experiment::Qa;
        // an abstained question's answers are none, whatever it wrote
        let run_answers = run
            .filter(|_| !abstained)
            .and_then(|r| r.question.answers.as_ref());
        if qa {
            if let Some(x) = gq.execution.as_ref() {
                diags.extend(x.notes.iter().map(|n| format!("gold query: {n}")));
                if let Some(m) = x.message.as_ref() {
                    diags.push(format!("gold query {}: {m}", x.status.name()));
                }
            }
            if let Some(x) = run.and_then(|r| r.question.execution.as_ref()) {
                diags.extend(x.notes.iter().map(|n| format!("run query: {n}")));
                if let Some(m) = x.message.as_ref() {
                    diags.push(format!("run query {}: {m}", x.status.name()));
                }
                if !x.unknown_iris.is_empty() {
                    diags.push(format!(
                        "run query names {} IRI(s) that occur nowhere in the knowledge graph: {}",
                        x.unknown_iris.len(),
                        x.unknown_iris.join(", ")
                    ));
                }
            }
        }
        if qa && profile.scores_value_sets() {
            let (score, ndcg) = challenge_score(gq.answers.as_ref(), run_answers, entry.ordered);
            let status = match run {
                None => Status::Missing,
                Some(_) if call_error.is_some() => Status::Error,
                Some(_) if abstained => Status::Abstained,
                Some(_) if run_answers.is_none_or(crate::model::AnswerSet::is_empty) => {
                    Status::Empty
                }
                Some(_) => Status::Answered,
            };
            scored.push((i, status, score));
            ndcgs.push((i, ndcg));
            let mut report = question_report(gq, status, Some(score), diags);
            report.ndcg = ndcg;
            era.question(&mut report, entry, run, (gold_set, run_set), &matching);
            attach_executions(&mut report, gq, run);
            if options.explain {
                report.explanation = explained(
                    explain(e, entry, run, gold_set, run_set, &matching),
                    options,
                );
            }
            questions.push(report);
            continue;
        }
        let structural = match (e, gq.answers.as_ref(), run_answers) {
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
            (Some(_), None) => {
                // the matches the LLM judge's `same` verdicts add (QA only;
                // docs/scoring.md, The LLM judge)
                let (added, notes) = judged
                    .filter(|_| e == Experiment::Qa)
                    .map_or((0, &[][..]), |j| j.of(&gq.id.0));
                diags.extend(notes.iter().cloned());
                profile.score(matching.gold, matching.run, matching.tp() + added)
            }
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
            // the answers the run set was prepared from (a profile may have
            // flattened the rows), so that its indexes point into them
            // a question whose answers the LLM judge matched was compared
            let judge_matched = judged.is_some_and(|j| j.of(&gq.id.0).0 > 0);
            if let Some(answers) = run.and_then(|r| r.qa.as_deref()).filter(|_| !judge_matched) {
                cross_kind_notes(entry, answers, run_set, &matching, ctx, &mut diags);
                if let Some(note) =
                    cross_graph_note(entry, gold_set, answers, run_set, &matching, ctx)
                {
                    diags.push(note);
                }
            }
        }
        scored.push((i, status, score));
        let mut report = question_report(gq, status, Some(score), diags);
        if qa {
            // a gold with no answer has nothing to rank
            if !gold_set.is_empty() {
                ranks.push(run.and_then(|_| first_hit(run_set, &matching)));
            }
            report.row_f1 = table_f1(gq.answers.as_ref(), run_answers);
            row_f1s.extend(report.row_f1);
        }
        if qa && entry.ordered {
            let ndcg = order_score(gold_set, run_set, &matching, run.is_some());
            report.ndcg = Some(ndcg);
            ndcgs.push((i, Some(ndcg)));
        }
        if qa {
            era.question(&mut report, entry, run, (gold_set, run_set), &matching);
            attach_executions(&mut report, gq, run);
        }
        if options.explain {
            report.explanation = explained(
                explain(e, entry, run, gold_set, run_set, &matching),
                options,
            );
        }
        questions.push(report);
    }
    // T2S-Metrics' query-text measures need no answers: without a graph its
    // profile still reports QA, every question not evaluable, for them
    let text_measures = e == Experiment::Qa && options.profile == super::Profile::T2sMetrics;
    if scored.is_empty() && !text_measures {
        return None;
    }
    let lang = options.lang.as_deref().unwrap_or("en");
    // one report per gold entry, in the entries' order
    debug_assert_eq!(questions.len(), entries.len());
    for (report, entry) in questions.iter_mut().zip(entries) {
        report.confidence = runs
            .get(report.id.as_str())
            .and_then(|r| r.question.confidence);
        report.question = entry.question.text(lang).map(str::to_string);
    }
    let mut agg = aggregate_report(&scored, entries.len(), not_evaluable, extra);
    agg.runtime_ms_mean = calls.and_then(|c| c.runtime_ms_mean);
    let order_scores: Vec<f64> = ndcgs.iter().filter_map(|(_, n)| *n).collect();
    if !order_scores.is_empty() {
        agg.ndcg = Some(mean(&order_scores));
    }
    if e == Experiment::Qa && !profile.scores_value_sets() && !scored.is_empty() {
        agg.ranking = Some(ranking(&ranks));
        agg.tables = tables(&row_f1s);
    }
    if e == Experiment::Qa {
        era.finish(&mut agg);
        agg.executions = execution_counts(entries, runs);
        if profile.scores_value_sets() {
            let questions: Vec<&Question> = entries.iter().map(|e| e.question).collect();
            agg.challenge = Some(challenge_aggregate(&questions, &scored, &ndcgs));
        }
    }
    if !profile.reports_micro() {
        agg.micro = None;
    }
    if options.bootstrap > 0 {
        let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
        agg.confidence = Some(bootstrap(&scores, options.bootstrap, BOOTSTRAP_SEED));
    }
    let breakdown = breakdown(entries, runs, &scored, profile, options);
    Some(ExperimentReport {
        aggregate: agg,
        questions,
        breakdown,
    })
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

fn attach_executions(report: &mut QuestionReport, gold: &Question, run: Option<&RunEntry<'_>>) {
    report.gold_execution = gold.execution.as_ref().map(ExecutionReport::of);
    report.execution = run
        .and_then(|r| r.question.execution.as_ref())
        .map(ExecutionReport::of);
}
