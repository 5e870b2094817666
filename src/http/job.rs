//! The server's side of an evaluation: a [`Job`] as submitted (the gold, its
//! runs as files or live systems, the options, the live-call options), the
//! [`Worker`] it runs with (the server's index and knowledge graph, and the
//! prepared registered benchmarks), and [`evaluate_job`], which hands both to
//! the one evaluation pipeline (`eval::job`) for stored experiments and the
//! synchronous `POST /api/v1/evaluate`.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use crate::eval::job::{
    run_job, Env, Executor, GoldCache, Job as EvalJob, JobError, Plan, Progress,
    RunSource as EvalRun,
};
use crate::eval::{IndexRef, Options, Report};
use crate::index::Index;
use crate::live::{Asking, LiveOptions};
use crate::model::Dataset;
use crate::sparql::{ExecOptions, Executing, KnowledgeGraph};

/// A run to evaluate: a parsed file, or a live system to ask.
pub enum RunSource {
    /// An uploaded run file.
    File {
        /// Its name in the report.
        name: String,
        /// Its questions (boxed: a dataset is large beside a URL).
        dataset: Box<Dataset>,
    },
    /// A live QA system.
    System {
        /// Its name in the report (the form's `name`, else its URL).
        name: String,
        /// Its URL.
        url: String,
    },
}

/// A submitted experiment waiting for the worker.
pub struct Job {
    /// Its id (set by `submit`).
    pub id: String,
    /// The registered benchmark's name when the gold is one (its prepared
    /// form is kept for the next experiment).
    pub benchmark: Option<String>,
    /// The gold benchmark's name, for the report.
    pub gold_name: String,
    /// The gold benchmark.
    pub gold: Arc<Dataset>,
    /// Its runs.
    pub runs: Vec<RunSource>,
    /// Evaluation options.
    pub options: Options,
    /// Live-call options.
    pub live: LiveOptions,
    /// Which queries are executed when the server has a knowledge graph.
    pub plan: Plan,
    /// Score only these questions of the gold (a sample's ids, as the CLI's
    /// `--questions`; checked against the gold by the route with
    /// [`super::common::questions`]): the others and the runs' answers to
    /// them are left out.
    pub questions: Option<BTreeSet<String>>,
    /// Add each run's failure explanation (`runs[].failures`), as the CLI's
    /// `--explain-failures`.
    pub explain_failures: bool,
}

/// What the worker evaluates with: the index and the knowledge graph the server
/// was started with.
#[derive(Clone)]
pub struct Worker {
    /// The index, if any.
    pub index: Option<Arc<Index>>,
    /// Its path, for the report.
    pub index_path: String,
    /// The knowledge graph, if any.
    pub knowledge_graph: Option<Arc<KnowledgeGraph>>,
    /// Knowledge graphs of registered benchmarks, by name.
    pub benchmark_kgs: Arc<std::collections::BTreeMap<String, Arc<KnowledgeGraph>>>,
    /// The timeout and row cap of each query.
    pub exec: ExecOptions,
    /// Registered benchmarks prepared for the options experiments used.
    pub golds: Arc<GoldCache>,
    /// The time one stored experiment may take once started
    /// (`--experiment-timeout-s`); past it the experiment fails, saying so.
    pub experiment_time: Option<std::time::Duration>,
}

impl Worker {
    /// The knowledge graph queries of an evaluation on `benchmark` (a
    /// registered one, or `None` for an uploaded gold) are executed on: the
    /// benchmark's own (`--benchmark-kg`), else the server's (`--kg`,
    /// `--endpoint`).
    pub fn knowledge_graph_for(&self, benchmark: Option<&str>) -> Option<&Arc<KnowledgeGraph>> {
        benchmark
            .and_then(|b| self.benchmark_kgs.get(b))
            .or(self.knowledge_graph.as_ref())
    }
}

/// Evaluates a job through the one evaluation pipeline ([`run_job`]) with
/// the worker's index, knowledge graph and prepared golds, calling `progress`
/// with the questions asked so far and in all. The one path of stored
/// experiments and of the synchronous `POST /api/v1/evaluate`.
pub fn evaluate_job(
    job: Job,
    worker: &Worker,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, JobError> {
    let executing = worker
        .knowledge_graph_for(job.benchmark.as_deref())
        .map(|kg| Executing {
            kg,
            options: worker.exec,
        });
    let (gold, runs, benchmark) = match &job.questions {
        Some(keep) => {
            let (gold, runs) = keep_questions(job.gold, job.runs, keep);
            // a sample is not the registered benchmark: its prepared form is
            // not the benchmark's, nor kept for the next experiment
            (Arc::new(gold), runs, None)
        }
        None => (job.gold, job.runs, job.benchmark),
    };
    let runs = runs
        .into_iter()
        .map(|r| match r {
            RunSource::File { name, dataset } => EvalRun::File {
                source: name.clone(),
                name,
                dataset,
            },
            RunSource::System { name, url } => EvalRun::System { name, url },
        })
        .collect();
    let env = Env {
        index: worker
            .index
            .as_deref()
            .map(|i| IndexRef::of(i, &worker.index_path)),
        systems: &Asking(job.live.for_profile(job.options.profile)),
        knowledge_graph: executing.as_ref().map(|e| e as &dyn Executor),
        golds: Some(&worker.golds),
    };
    // names from the index's labels when it has them, as the CLI's
    // `evaluate --explain-failures`
    let features = job
        .explain_failures
        .then(|| {
            crate::sample::named::features_named_if_possible(
                &gold,
                job.options.lang.as_deref().unwrap_or("en"),
                worker.index.as_deref(),
                job.options.max_class_size,
            )
        })
        .transpose()
        .map_err(JobError::Index)?;
    // a stored experiment's time starts when the worker takes it; a request's
    // deadline (`timeout_ms`) was set by its route
    let mut options = job.options;
    if !options.deadline.is_set() {
        if let Some(limit) = worker.experiment_time {
            options.deadline = crate::eval::Deadline::after(limit);
        }
    }
    let eval_job = EvalJob {
        gold_name: job.gold_name,
        gold,
        benchmark,
        runs,
        options,
        plan: job.plan,
    };
    let mut report = run_job(eval_job, &env, &Asked(progress))?;
    if let Some(features) = &features {
        crate::eval::failures::attach(&mut report, features);
    }
    Ok(report)
}

/// The gold's questions whose ids `keep` holds, in the gold's order, and the
/// runs without their answers to the others (a run that joins its gold by
/// question text is joined to the whole gold first), as the CLI's
/// `--questions` does.
fn keep_questions(
    gold: Arc<Dataset>,
    runs: Vec<RunSource>,
    keep: &BTreeSet<String>,
) -> (Dataset, Vec<RunSource>) {
    let left_out: HashSet<&str> = gold
        .questions
        .iter()
        .map(|q| q.id.0.as_str())
        .filter(|id| !keep.contains(*id))
        .collect();
    let runs = runs
        .into_iter()
        .map(|r| match r {
            RunSource::File { name, mut dataset } => {
                crate::eval::join::join(&gold, &mut dataset);
                dataset
                    .questions
                    .retain(|q| !left_out.contains(q.id.0.as_str()));
                RunSource::File { name, dataset }
            }
            system => system,
        })
        .collect();
    let mut kept = Arc::unwrap_or_clone(gold);
    kept.questions.retain(|q| keep.contains(&q.id.0));
    (kept, runs)
}

/// The questions asked of a job's live systems, told to a closure.
struct Asked<'a>(&'a (dyn Fn(usize, usize) + Sync));

impl Progress for Asked<'_> {
    fn asked(&self, done: usize, total: usize) {
        (self.0)(done, total);
    }
}
