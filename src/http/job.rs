//! The server's side of an evaluation: a [`Submitted`] experiment (the
//! evaluation [`Request`] and how its live systems are called), the
//! [`Worker`] it runs with (the server's index and knowledge graph, and the
//! prepared registered benchmarks), and [`evaluate_job`], which hands both to
//! the one evaluation pipeline (`eval::job`) for stored experiments and the
//! synchronous `POST /api/v1/evaluate`.

use std::sync::Arc;

use crate::eval::job::{run_job, Env, Executor, GoldCache, JobError, Progress, Request};
use crate::eval::{IndexRef, Report};
use crate::index::Index;
use crate::live::{Asking, LiveOptions};
use crate::sparql::{ExecOptions, Executing, KnowledgeGraph};

/// A submitted experiment waiting for the worker.
pub struct Submitted {
    /// Its id (set by `submit`).
    pub id: String,
    /// What to evaluate.
    pub request: Request,
    /// How its live systems are called.
    pub live: LiveOptions,
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

impl Worker {
    /// Checks a request as `run_job` will ([`Request::check`]) with the
    /// knowledge graph the worker would execute its queries on, so that a
    /// route refuses it before any work (a stored experiment before it is
    /// queued).
    pub fn check(&self, request: &Request) -> Result<(), crate::eval::job::RequestError> {
        let has_graph = self
            .knowledge_graph_for(request.benchmark.as_deref())
            .is_some();
        request.check(has_graph)
    }
}

/// Evaluates a request through the one evaluation pipeline ([`run_job`])
/// with the worker's index, knowledge graph and prepared golds, its live
/// systems called as `live` says, calling `progress` with the questions asked
/// so far and in all. The one path of stored experiments and of the
/// synchronous `POST /api/v1/evaluate`.
pub fn evaluate_job(
    mut request: Request,
    live: LiveOptions,
    worker: &Worker,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, JobError> {
    let executing = worker
        .knowledge_graph_for(request.benchmark.as_deref())
        .map(|kg| Executing {
            kg,
            options: worker.exec,
        });
    let env = Env {
        index: worker
            .index
            .as_deref()
            .map(|i| IndexRef::of(i, &worker.index_path)),
        systems: &Asking(live.for_profile(request.options.profile)),
        knowledge_graph: executing.as_ref().map(|e| e as &dyn Executor),
        golds: Some(&worker.golds),
    };
    // a stored experiment's time starts when the worker takes it; a request's
    // deadline (`timeout_ms`) was set by its route
    if !request.options.deadline.is_set() {
        if let Some(limit) = worker.experiment_time {
            request.options.deadline = crate::eval::Deadline::after(limit);
        }
    }
    run_job(request, &env, &Asked(progress))
}

/// The questions asked of a job's live systems, told to a closure.
struct Asked<'a>(&'a (dyn Fn(usize, usize) + Sync));

impl Progress for Asked<'_> {
    fn asked(&self, done: usize, total: usize) {
        (self.0)(done, total);
    }
}
