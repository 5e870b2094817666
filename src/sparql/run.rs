//! Answering the questions of a benchmark or a run from their queries (docs/scoring.md,
//! Executing SPARQL): which questions are executed, the query made executable for the store,
//! the checks (parses as SPARQL 1.1, IRIs that occur nowhere in the graph), and
//! what changed against answers the file already gave.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{ExecOptions, KnowledgeGraph};
use crate::eval::job::{Executor, Plan};
use crate::eval::recorded::EndpointTape;
use crate::eval::{Deadline, KnowledgeGraphInfo};
use crate::model::{AnswerSet, Dataset, ExecStatus, Execution, Query, Term};

/// Which questions with a query are executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Only those without answers.
    Missing,
    /// Every one (`--refresh-gold`, `--execute-run`); answers the file gave are
    /// compared with the results and replaced by them.
    All,
}

/// What executing a dataset's queries did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSummary {
    /// Queries executed.
    pub executed: usize,
    /// Executions per status name.
    pub by_status: BTreeMap<&'static str, usize>,
    /// Questions whose given answers differ from their query's results.
    pub changed: Vec<String>,
    /// Questions whose query failed, with why.
    pub failed: Vec<(String, String)>,
    /// Per executed question, per row, the variable of each term (for writing
    /// the results back as SPARQL JSON bindings).
    pub columns: BTreeMap<String, Vec<Vec<usize>>>,
    /// Queries not executed because the call was stopped (the deadline of
    /// the host's call on this thread passed: a notebook's Ctrl-C); each is
    /// also in `failed`, and its question keeps what the file gave.
    pub stopped: usize,
}

/// How many queries run at once: as asked, else the cores, at most 4 (an
/// endpoint is asked no harder than that).
fn workers(options: ExecOptions) -> usize {
    match options.workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
        n => n,
    }
}

/// Executes one query and runs its checks; the answers are not applied yet.
fn execute_one(
    kg: &KnowledgeGraph,
    query: &str,
    check_iris: bool,
    options: ExecOptions,
) -> (Execution, super::Outcome) {
    let prepared = crate::query::executable(query);
    let mut execution = Execution {
        parses: prepared.as_ref().is_ok_and(|p| p.strict),
        ..Execution::default()
    };
    let outcome = match (&prepared, kg.is_embedded()) {
        (Err(e), true) => super::Outcome::failed(
            ExecStatus::SyntaxError,
            e.to_string(),
            std::time::Instant::now(),
        ),
        (Ok(p), true) => {
            execution.notes.extend(p.notes.iter().map(|n| {
                format!("executed as standard SPARQL after reading it as the endpoints do: {n}")
            }));
            if super::uses_virtuoso_casts(query) {
                execution.notes.push(
                    "xsd:int / xsd:long / xsd:short are not SPARQL 1.1 functions; executed as Virtuoso does, as casts to integer".into(),
                );
            }
            kg.execute(&p.text, options)
        }
        // the endpoint decides what it accepts
        (_, false) => kg.execute(query, options),
    };
    if let (Ok(p), true) = (&prepared, check_iris) {
        execution.iris = p.iris.len();
        execution.unknown_iris = kg.unknown_iris(&p.iris, options);
    }
    execution.status = outcome.status;
    execution.message = outcome.message.clone();
    execution.rows = outcome.answers.answers.len();
    execution.ms = outcome.ms;
    (execution, outcome)
}

/// One query to execute: which dataset and question it answers.
struct Job {
    dataset: usize,
    question: usize,
    query: String,
    check_iris: bool,
}

/// The questions of `dataset` whose query is executed under `mode`.
fn todo(dataset: &Dataset, mode: Mode) -> Vec<(usize, String)> {
    dataset
        .questions
        .iter()
        .enumerate()
        .filter_map(|(i, q)| match &q.query {
            Query::Sparql(query) if mode == Mode::All || q.answers.is_none() => {
                Some((i, query.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Executes every job on `options.workers` threads (one pool for all, so that
/// the slow queries of several datasets overlap), each thread looking at
/// `deadline` before each query: past it, no query starts. Returns the
/// results in job order, whichever finished first, each with its job's place
/// (a job not started has none).
fn execute_jobs(
    kg: &KnowledgeGraph,
    jobs: &[Job],
    options: ExecOptions,
    deadline: &Deadline,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<(usize, Execution, super::Outcome)> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Execution, super::Outcome)>> =
        Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|scope| {
        for _ in 0..workers(options).min(jobs.len()) {
            scope.spawn(|| loop {
                if deadline.passed() {
                    return;
                }
                let n = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(n) else {
                    return;
                };
                let (execution, outcome) = execute_one(kg, &job.query, job.check_iris, options);
                if let Ok(mut r) = results.lock() {
                    r.push((n, execution, outcome));
                }
                progress(done.fetch_add(1, Ordering::SeqCst) + 1, jobs.len());
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(n, ..)| *n);
    results
}

/// Executes the queries of `dataset` on `kg` and stores the results as the
/// questions' answers (a failed query is an empty answer, unless the file gave
/// answers, which are then kept). `check_iris` also looks up every IRI of each
/// query in the graph. Queries run on `options.workers` threads; the results
/// are applied in question order, so the outcome does not depend on which
/// finished first. `progress` gets (done, to do). No query starts once the
/// deadline of the host's call on this thread has passed
/// ([`Deadline::of_this_thread`]; the command line sets none): the questions
/// left are counted in `stopped` and `failed`.
pub fn execute_dataset(
    kg: &KnowledgeGraph,
    dataset: &mut Dataset,
    mode: Mode,
    check_iris: bool,
    options: ExecOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> RunSummary {
    let jobs: Vec<Job> = todo(dataset, mode)
        .into_iter()
        .map(|(question, query)| Job {
            dataset: 0,
            question,
            query,
            check_iris,
        })
        .collect();
    let results = execute_jobs(kg, &jobs, options, &Deadline::of_this_thread(), progress);
    let mut started = vec![false; jobs.len()];
    for (n, ..) in &results {
        started[*n] = true;
    }
    let mut summary = apply(
        dataset,
        results
            .into_iter()
            .map(|(n, e, o)| (jobs[n].question, e, o)),
    );
    for (job, _) in jobs.iter().zip(started).filter(|(_, s)| !s) {
        summary.stopped += 1;
        summary.failed.push((
            dataset.questions[job.question].id.0.clone(),
            "not executed: the call was stopped".to_string(),
        ));
    }
    summary
}

/// Stores executed queries' results as the answers of their questions (in the
/// order given) and sums them up.
fn apply(
    dataset: &mut Dataset,
    results: impl Iterator<Item = (usize, Execution, super::Outcome)>,
) -> RunSummary {
    let mut summary = RunSummary::default();
    for (i, mut execution, outcome) in results {
        let q = &mut dataset.questions[i];
        summary.executed += 1;
        *summary.by_status.entry(outcome.status.name()).or_default() += 1;
        let id = q.id.0.clone();
        if !outcome.status.answered() {
            summary.failed.push((
                id.clone(),
                format!(
                    "{}: {}",
                    outcome.status.name(),
                    outcome.message.as_deref().unwrap_or("")
                ),
            ));
        }
        if outcome.status.answered() {
            summary.columns.insert(id.clone(), outcome.columns.clone());
        }
        match (&q.answers, outcome.status.answered()) {
            (Some(given), true) => {
                if !same_answers(given, &outcome.answers) {
                    execution.notes.push(format!(
                        "the answers the file gave ({}) differ from the query's results ({}); the results are scored",
                        given.answers.len(),
                        outcome.answers.answers.len()
                    ));
                    summary.changed.push(id);
                }
                q.answers = Some(outcome.answers);
            }
            (Some(_), false) => execution
                .notes
                .push("the query failed: the answers the file gave are kept".into()),
            (None, _) => q.answers = Some(outcome.answers),
        }
        q.execution = Some(execution);
    }
    summary
}

/// T2S-Metrics' `uri_hallucination` of each case of a run read from a
/// T2S-Metrics file (a question with its query's text as written;
/// docs/scoring.md, The `t2s-metrics` profile): the share of the IRIs its
/// code finds in the generated text that no triple of `kg` holds, kept in the
/// question's flag for the profile, which scores without the graph.
fn mark_uri_hallucination(kg: &KnowledgeGraph, dataset: &mut Dataset, options: ExecOptions) {
    use crate::eval::text::uris::{uri_hallucination, HALLUCINATION_FLAG};
    for q in &mut dataset.questions {
        let Some(raw) = q.flags.get(crate::qald::T2S_RAW_QUERY) else {
            continue;
        };
        let share = uri_hallucination(raw, |iri| kg.occurs(iri, options));
        q.flags
            .insert(HALLUCINATION_FLAG.to_string(), share.to_string());
    }
}

/// Executes the queries of a gold benchmark and of its runs (named) on `kg` as
/// `plan` says, and returns the diagnostics for the report: gold answers that
/// changed, gold queries that failed, run answers that differ from their
/// queries' results. The queries of all of them run in one pool of
/// `options.workers` threads. `progress` gets (done, to do). No query starts
/// once `deadline` has passed; the questions left keep what their files gave
/// (the pipeline then stops: what is left is not a report).
pub fn execute_experiment(
    kg: &KnowledgeGraph,
    gold: &mut Dataset,
    runs: &mut [(&str, &mut Dataset)],
    plan: Plan,
    options: ExecOptions,
    deadline: &Deadline,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<String> {
    let mode = |all: bool| if all { Mode::All } else { Mode::Missing };
    // one pool for the gold and every run: dataset 0 is the gold
    let mut jobs: Vec<Job> = Vec::new();
    let mut add = |dataset: usize, d: &Dataset, m: Mode, check_iris: bool| {
        jobs.extend(todo(d, m).into_iter().map(|(question, query)| Job {
            dataset,
            question,
            query,
            check_iris,
        }));
    };
    add(0, gold, mode(plan.refresh_gold), false);
    for (k, (_, d)) in runs.iter().enumerate() {
        add(k + 1, d, mode(plan.execute_run), true);
    }
    // interleaved (question 1 of each dataset, then question 2 …), so that one
    // dataset's slow queries do not all wait at the end of the queue
    jobs.sort_by_key(|j| (j.question, j.dataset));
    let mut results: Vec<Vec<(usize, Execution, super::Outcome)>> =
        (0..=runs.len()).map(|_| Vec::new()).collect();
    for (n, e, o) in execute_jobs(kg, &jobs, options, deadline, progress) {
        results[jobs[n].dataset].push((jobs[n].question, e, o));
    }
    for r in &mut results {
        r.sort_by_key(|(question, ..)| *question);
    }
    let mut results = results.into_iter();
    let mut diagnostics = Vec::new();
    let summary = apply(gold, results.next().unwrap_or_default().into_iter());
    if plan.refresh_gold && !summary.changed.is_empty() {
        diagnostics.push(format!(
            "gold: executing its queries (--refresh-gold, or the profile's rule) changed the answers of {} question(s): {}",
            summary.changed.len(),
            summary.changed.join(", ")
        ));
    }
    if !summary.failed.is_empty() {
        diagnostics.push(format!(
            "gold: {} gold query(ies) failed: {}",
            summary.failed.len(),
            summary
                .failed
                .iter()
                .map(|(id, why)| format!("{id} ({why})"))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    for ((name, dataset), executed) in runs.iter_mut().zip(results) {
        let s = apply(dataset, executed.into_iter());
        mark_uri_hallucination(kg, dataset, options);
        if plan.execute_run && !s.changed.is_empty() {
            diagnostics.push(format!(
                "run '{name}': the answers given for {} question(s) differ from their query's results: {}",
                s.changed.len(),
                s.changed.join(", ")
            ));
        }
    }
    diagnostics
}

/// A knowledge graph and the options its queries run under, as the
/// evaluation pipeline ([`crate::eval::job`]) executes them.
pub struct Executing<'a> {
    /// The knowledge graph.
    pub kg: &'a KnowledgeGraph,
    /// The timeout and row cap of each query.
    pub options: ExecOptions,
}

impl Executor for Executing<'_> {
    fn info(&self) -> KnowledgeGraphInfo {
        self.kg.info.clone()
    }

    fn execute(
        &self,
        gold: &mut Dataset,
        runs: &mut [(&str, &mut Dataset)],
        plan: Plan,
        deadline: &Deadline,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (Vec<String>, Option<EndpointTape>) {
        // an endpoint's replies are recorded for this evaluation only
        let recording = self.kg.recording();
        let kg = recording.as_ref().unwrap_or(self.kg);
        let diagnostics =
            execute_experiment(kg, gold, runs, plan, self.options, deadline, progress);
        (diagnostics, recording.and_then(|k| k.tape()))
    }
}

/// True when two answer sets hold the same answers, in any order.
fn same_answers(a: &AnswerSet, b: &AnswerSet) -> bool {
    let set = |s: &AnswerSet| -> HashSet<Vec<Term>> {
        s.answers
            .iter()
            .map(|a| {
                let mut t = a.terms.clone();
                t.sort();
                t
            })
            .collect()
    };
    set(a) == set(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Question, QuestionId};

    /// A graph of one triple, and a dataset of `n` questions querying it.
    fn graph_and_questions(tag: &str, n: usize) -> (KnowledgeGraph, Dataset) {
        let dir = std::env::temp_dir().join(format!("qajudge-run-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let path = dir.join("g.ttl");
        std::fs::write(
            &path,
            "<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n",
        )
        .expect("written");
        let kg = KnowledgeGraph::load(&[path], ExecOptions::default(), &|_, _| {}).expect("loads");
        let mut d = Dataset::new(Format::QaldJson);
        d.questions = (1..=n)
            .map(|i| Question {
                id: QuestionId(i.to_string()),
                query: Query::Sparql("SELECT ?o WHERE { <http://e.org/a> ?p ?o }".into()),
                ..Question::default()
            })
            .collect();
        (kg, d)
    }

    #[test]
    fn no_query_starts_once_the_deadline_passed() {
        let (kg, mut gold) = graph_and_questions("experiment", 6);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let deadline = Deadline::on(std::sync::Arc::clone(&stop));
        let options = ExecOptions {
            workers: 1,
            ..ExecOptions::default()
        };
        // stopped once two queries were executed
        execute_experiment(
            &kg,
            &mut gold,
            &mut [],
            Plan::default(),
            options,
            &deadline,
            &|done, _| {
                if done == 2 {
                    stop.store(true, Ordering::SeqCst);
                }
            },
        );
        let executed = gold.questions.iter().filter(|q| q.execution.is_some());
        assert_eq!(executed.count(), 2);
        assert!(gold.questions[2..].iter().all(|q| q.answers.is_none()));
    }

    #[test]
    fn a_hosts_stop_on_this_thread_leaves_the_rest_unexecuted_and_says_so() {
        let (kg, mut d) = graph_and_questions("dataset", 4);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let _entered = Deadline::on(std::sync::Arc::clone(&stop)).enter();
        let options = ExecOptions {
            workers: 1,
            ..ExecOptions::default()
        };
        let s = execute_dataset(&kg, &mut d, Mode::All, false, options, &|done, _| {
            if done == 1 {
                stop.store(true, Ordering::SeqCst);
            }
        });
        assert_eq!((s.executed, s.stopped), (1, 3));
        assert_eq!(s.failed.len(), 3);
        assert_eq!(
            s.failed[0],
            (
                "2".to_string(),
                "not executed: the call was stopped".to_string()
            )
        );
    }
}
