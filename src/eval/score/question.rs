//! Scoring one question of one sub-experiment: its diagnostics, why it is not
//! evaluable, matching the run's markings to the gold's, its score under the
//! profile (by the matching, or on the answer values as the challenge does)
//! and what its report adds for QA (docs/scoring.md: Counting, Sub-experiments).

use super::{question_report, Scope, Tally};
use crate::eval::aggregates::{first_hit, order_score};
use crate::eval::explain::explain;
use crate::eval::notes::{cross_graph_note, cross_kind_notes, explained};
use crate::eval::prepare::{GoldEntry, RunEntry};
use crate::eval::profiles::challenge_score;
use crate::eval::report::{ExecutionReport, Explanation, QuestionReport, Status};
use crate::eval::{Experiment, Options, Profile, Rules};
use crate::llm::Judged;
use crate::matching::{match_answers, Matching, Prepared, Reason};
use crate::metrics::QuestionScore;
use crate::model::{AnswerSet, Question};

/// One gold entry and the run's answer to it under one sub-experiment: their
/// marking sets and how they match.
struct Sides<'q> {
    /// The entry's place among the gold entries.
    i: usize,
    entry: &'q GoldEntry<'q>,
    run: Option<&'q RunEntry<'q>>,
    gold_set: &'q [Prepared],
    run_set: &'q [Prepared],
    matching: Matching,
    /// The run's answers; none when it abstained, whatever it wrote.
    run_answers: Option<&'q AnswerSet>,
}

/// Scores gold entry `i` under sub-experiment `e` into the tally: matches the
/// run's marking set to the gold's and scores the question under the profile,
/// or records why it is not evaluable.
pub(super) fn score_question(
    scope: &Scope<'_>,
    e: Experiment,
    judged: Option<&Judged>,
    i: usize,
    entry: &GoldEntry<'_>,
    tally: &mut Tally,
) {
    let profile = scope.ctx.profile;
    let gq = entry.question;
    let run = scope.runs.get(gq.id.0.as_str());
    let mut diags = question_diagnostics(e, entry, run);
    let gold_set = match gold_set(e, entry, profile) {
        Ok(set) => set,
        Err(why) => return tally.not_evaluable(gq, diags, why.to_string()),
    };
    if e == Experiment::Qa && run.is_some_and(|r| unexecuted(r.question)) {
        // never scored 0 for want of a graph (docs/scoring.md, Executing SPARQL)
        return tally.not_evaluable(
            gq,
            diags,
            "not evaluable: the run gives a query and no answers, and no knowledge graph was given to execute it".into(),
        );
    }
    let run_set = run.and_then(|r| r.sets[e].as_deref()).unwrap_or(&[]);
    let call_error = scope.calls.and_then(|c| c.errors.get(gq.id.0.as_str()));
    if let Some(why) = call_error {
        diags.push(format!("the call to the system failed: {why}"));
    }
    let abstained = e == Experiment::Qa && run.is_some_and(|r| r.abstained);
    let status = status_of(run, call_error.is_some(), abstained, run_set.is_empty());
    let matching = match match_answers(gold_set, run_set) {
        Ok(matching) => matching,
        // no maximum matching exists to score by: the question is left
        // out and says why (docs/scoring.md, Sameness, counting)
        Err(too_many) => {
            return tally.not_evaluable(gq, diags, format!("not evaluable: {too_many}"))
        }
    };
    let qa = e == Experiment::Qa;
    // an abstained question's answers are none, whatever it wrote
    let run_answers = run
        .filter(|_| !abstained)
        .and_then(|r| r.question.answers.as_ref());
    let sides = Sides {
        i,
        entry,
        run,
        gold_set,
        run_set,
        matching,
        run_answers,
    };
    if qa {
        execution_notes(gq, run, &mut diags);
    }
    if qa && profile.scores_value_sets() {
        let no_answers = run_answers.is_none_or(AnswerSet::is_empty);
        let status = status_of(run, call_error.is_some(), abstained, no_answers);
        return tally.value_sets(scope.options, &sides, status, diags);
    }
    let score = exact_score(scope, e, judged, &sides, &mut diags);
    tally.matched(scope.options, e, &sides, status, score, diags);
}

/// True when a run question gives a SPARQL query and no answers, and the
/// query was not executed (no knowledge graph).
fn unexecuted(q: &Question) -> bool {
    q.answers.is_none()
        && q.execution.is_none()
        && matches!(q.query, crate::model::Query::Sparql(_))
}

/// The status of a question's answer: missing, a failed call, abstained,
/// empty (by `empty`, what the caller counts as no answer) or answered.
fn status_of(
    run: Option<&RunEntry<'_>>,
    call_failed: bool,
    abstained: bool,
    empty: bool,
) -> Status {
    match run {
        None => Status::Missing,
        Some(_) if call_failed => Status::Error,
        Some(_) if abstained => Status::Abstained,
        Some(_) if empty => Status::Empty,
        Some(_) => Status::Answered,
    }
}

/// The diagnostics a question's report starts with: the gold's and the run's
/// own and, outside QA, their annotations' notes, each naming its side.
fn question_diagnostics(
    e: Experiment,
    entry: &GoldEntry<'_>,
    run: Option<&RunEntry<'_>>,
) -> Vec<String> {
    let mut diags: Vec<String> = entry
        .question
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
    diags
}

/// The gold's marking set of a question for sub-experiment `e` (empty where
/// the profile scores markings the gold lacks), or why the question is not
/// evaluable there: the gold marks nothing for it, or has no answers (QA) or
/// no usable query or annotation.
fn gold_set<'q>(
    e: Experiment,
    entry: &GoldEntry<'q>,
    profile: Profile,
) -> Result<&'q [Prepared], NotEvaluable> {
    match &entry.sets[e] {
        // an empty gold marking set has nothing to find: no score for it
        Some(set) if set.is_empty() && e != Experiment::Qa && !profile.empty_markings_score() => {
            Err(NotEvaluable::MarksNothing(e))
        }
        Some(set) => Ok(set),
        None if e != Experiment::Qa && profile.empty_markings_score() => Ok(&[]),
        None => Err(NotEvaluable::NoGold(e)),
    }
}

/// Why a gold question cannot be scored for a sub-experiment; its text is
/// the question's diagnostic.
#[derive(Debug, Clone, Copy)]
enum NotEvaluable {
    /// The gold question marks nothing for the sub-experiment.
    MarksNothing(Experiment),
    /// It has no answers (QA), or no usable query or annotation.
    NoGold(Experiment),
}

impl std::fmt::Display for NotEvaluable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotEvaluable::MarksNothing(e) => write!(
                f,
                "not evaluable for {}: the gold question marks nothing for it, so no run can be scored there",
                e.name()
            ),
            NotEvaluable::NoGold(Experiment::Qa) => {
                write!(f, "not evaluable: the gold question has no answers")
            }
            NotEvaluable::NoGold(e) => write!(
                f,
                "not evaluable for {}: the gold question has no usable query or annotation",
                e.name()
            ),
        }
    }
}

/// Adds what executing the gold's and the run's queries noted to a QA
/// question's diagnostics: their notes, how a failed one ended, and the IRIs
/// of the run's query that the knowledge graph lacks.
fn execution_notes(gq: &Question, run: Option<&RunEntry<'_>>, diags: &mut Vec<String>) {
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

/// A question's score by its matching under the profile: the profile's score
/// of a missing answer, its structural zero, or its score of the true
/// positives and the matches the LLM judge adds; notes the sameAs classes past
/// `--max-class-size` and (QA) run answers of another kind or graph.
fn exact_score(
    scope: &Scope<'_>,
    e: Experiment,
    judged: Option<&Judged>,
    sides: &Sides<'_>,
    diags: &mut Vec<String>,
) -> QuestionScore {
    let profile = scope.ctx.profile;
    let gq = sides.entry.question;
    let matching = &sides.matching;
    let structural = match (e, gq.answers.as_ref(), sides.run_answers) {
        (Experiment::Qa, Some(g), Some(r)) => profile.structural_zero(g, r),
        _ => None,
    };
    let score = match (sides.run, structural) {
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
            if class_size as usize > scope.options.max_class_size {
                diags.push(format!(
                    "answer {} matched through an owl:sameAs class of {class_size} IRIs, larger than --max-class-size {}; check the class with `qajudge sameas`",
                    p.gold, scope.options.max_class_size
                ));
            }
        }
    }
    if e == Experiment::Qa {
        // the answers the run set was prepared from (a profile may have
        // flattened the rows), so that its indexes point into them
        // a question whose answers the LLM judge matched was compared
        let judge_matched = judged.is_some_and(|j| j.of(&gq.id.0).0 > 0);
        let run_qa = sides.run.and_then(|r| r.qa.as_deref());
        if let Some(answers) = run_qa.filter(|_| !judge_matched) {
            let (entry, ctx) = (sides.entry, scope.ctx);
            cross_kind_notes(entry, answers, sides.run_set, matching, ctx, diags);
            if let Some(note) =
                cross_graph_note(entry, sides.gold_set, answers, sides.run_set, matching, ctx)
            {
                diags.push(note);
            }
        }
    }
    score
}

impl Tally {
    /// Records a question left out of the scores, its diagnostics ending
    /// with why.
    fn not_evaluable(&mut self, gq: &Question, mut diags: Vec<String>, why: String) {
        self.not_evaluable += 1;
        diags.push(why);
        self.questions
            .push(question_report(gq, Status::NotEvaluable, None, diags));
    }

    /// Records a QA question scored on the answer values as the challenge
    /// does ([`challenge_score`]), with its order score, not by the matching.
    fn value_sets(
        &mut self,
        options: &Options,
        sides: &Sides<'_>,
        status: Status,
        diags: Vec<String>,
    ) {
        let gq = sides.entry.question;
        let (score, ndcg) =
            challenge_score(gq.answers.as_ref(), sides.run_answers, sides.entry.ordered);
        self.scored.push((sides.i, status, score));
        self.ndcgs.push((sides.i, ndcg));
        let mut report = question_report(gq, status, Some(score), diags);
        report.ndcg = ndcg;
        let sets = (sides.gold_set, sides.run_set);
        self.era
            .question(&mut report, sides.entry, sides.run, sets, &sides.matching);
        attach_executions(&mut report, gq, sides.run);
        if options.explain {
            report.explanation = sides.explanation(Experiment::Qa, options);
        }
        self.questions.push(report);
    }

    /// Records a question scored by its matching and, for QA, the rank of its
    /// first right answer, its row-wise F1, its order score (ordered gold)
    /// and its truthfulness figures.
    fn matched(
        &mut self,
        options: &Options,
        e: Experiment,
        sides: &Sides<'_>,
        status: Status,
        score: QuestionScore,
        diags: Vec<String>,
    ) {
        let qa = e == Experiment::Qa;
        let gq = sides.entry.question;
        let (gold_set, run_set, matching) = (sides.gold_set, sides.run_set, &sides.matching);
        self.scored.push((sides.i, status, score));
        let mut report = question_report(gq, status, Some(score), diags);
        if qa {
            // a gold with no answer has nothing to rank
            if !gold_set.is_empty() {
                self.ranks
                    .push(sides.run.and_then(|_| first_hit(run_set, matching)));
            }
            report.row_f1 = table_f1(gq.answers.as_ref(), sides.run_answers);
            self.row_f1s.extend(report.row_f1);
        }
        if qa && sides.entry.ordered {
            let ndcg = order_score(gold_set, run_set, matching, sides.run.is_some());
            report.ndcg = Some(ndcg);
            self.ndcgs.push((sides.i, Some(ndcg)));
        }
        if qa {
            self.era.question(
                &mut report,
                sides.entry,
                sides.run,
                (gold_set, run_set),
                matching,
            );
            attach_executions(&mut report, gq, sides.run);
        }
        if options.explain {
            report.explanation = sides.explanation(e, options);
        }
        self.questions.push(report);
    }
}

impl Sides<'_> {
    /// The explanation of the question's matching under sub-experiment `e`,
    /// as `--explain-errors-only` keeps it.
    fn explanation(&self, e: Experiment, options: &Options) -> Option<Explanation> {
        let x = explain(
            e,
            self.entry,
            self.run,
            self.gold_set,
            self.run_set,
            &self.matching,
        );
        explained(x, options)
    }
}

/// The row-wise F1 of a question whose gold or run answers are a table (more
/// than one column), as SPINACH's evaluation pairs rows
/// ([`crate::eval::profiles::row_major_f1`]); `None` otherwise, or past its size
/// bound.
fn table_f1(
    gold: Option<&crate::model::AnswerSet>,
    run: Option<&crate::model::AnswerSet>,
) -> Option<f64> {
    let wide = |s: Option<&crate::model::AnswerSet>| s.is_some_and(|s| s.vars.len() > 1);
    if !(wide(gold) || wide(run)) {
        return None;
    }
    crate::eval::profiles::row_major_f1(run, gold)
}

/// Adds the gold's and the run's query executions to a QA question's report.
fn attach_executions(report: &mut QuestionReport, gold: &Question, run: Option<&RunEntry<'_>>) {
    report.gold_execution = gold.execution.as_ref().map(ExecutionReport::of);
    report.execution = run
        .and_then(|r| r.question.execution.as_ref())
        .map(ExecutionReport::of);
}
