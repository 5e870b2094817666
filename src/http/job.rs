//! What an evaluation is made of and how it runs: a [`Job`] (the gold, its
//! runs as files or live systems, the options), the [`Worker`] it runs with
//! (the server's index and knowledge graph, and the [`GoldCache`] of prepared
//! registered benchmarks), and [`evaluate_job`], the one path of stored
//! experiments and of the synchronous `POST /api/v1/evaluate`.

use std::sync::{Arc, Mutex};

use crate::eval::{evaluate_prepared, prepare_gold, IndexRef, Options, PreparedGold, Report, Run};
use crate::index::Index;
use crate::live::{ask_all, LiveOptions};
use crate::model::Dataset;
use crate::sparql::{execute_experiment, unexecuted_gold, ExecOptions, KnowledgeGraph, Plan};

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
    /// The timeout and row cap of each query.
    pub exec: ExecOptions,
    /// Registered benchmarks prepared for the options experiments used.
    pub golds: Arc<GoldCache>,
}

/// Prepared forms of registered benchmarks, per benchmark and options, so that
/// the next experiment on a benchmark does not annotate and resolve it again.
#[derive(Default)]
pub struct GoldCache {
    prepared: Mutex<std::collections::HashMap<String, Vec<Arc<PreparedGold>>>>,
}

/// Prepared forms kept per benchmark (the oldest is dropped first).
const PREPARED_PER_BENCHMARK: usize = 8;

impl GoldCache {
    /// The prepared form of benchmark `name` for these options, prepared now
    /// when there is none yet.
    pub fn get(
        &self,
        name: &str,
        gold: &Dataset,
        options: &Options,
        index: Option<&Index>,
    ) -> Arc<PreparedGold> {
        let index = index.map(|i| i as &dyn crate::index::Equivalence);
        let found = self.prepared.lock().ok().and_then(|m| {
            m.get(name)?
                .iter()
                .find(|p| p.fits(gold, options, index))
                .cloned()
        });
        if let Some(p) = found {
            return p;
        }
        let p = Arc::new(prepare_gold(gold, options, index));
        if let Ok(mut m) = self.prepared.lock() {
            let list = m.entry(name.to_string()).or_default();
            if list.len() == PREPARED_PER_BENCHMARK {
                list.remove(0);
            }
            list.push(Arc::clone(&p));
        }
        p
    }
}

/// Evaluates a job: asks its live systems (calling `progress` with the
/// questions asked so far and in all), executes the queries its plan asks for
/// when the worker has a knowledge graph, and scores the runs. The one path of
/// stored experiments and of the synchronous `POST /api/v1/evaluate`. The error
/// says why there is no report (a live system that could not be asked).
pub fn evaluate_job(
    job: Job,
    worker: &Worker,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, String> {
    let total = job.gold.questions.len()
        * job
            .runs
            .iter()
            .filter(|r| matches!(r, RunSource::System { .. }))
            .count();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut datasets: Vec<(String, String, Dataset)> = Vec::new();
    for run in job.runs {
        match run {
            RunSource::File { name, dataset } => {
                datasets.push((name.clone(), name, *dataset));
            }
            RunSource::System { url } => {
                let asked = |_: usize, _: usize| {
                    let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                    progress(n, total);
                };
                let live =
                    ask_all(&url, &job.gold, &job.live, &asked).map_err(|e| e.to_string())?;
                datasets.push((url.clone(), url, live.dataset));
            }
        }
    }
    let mut gold = Arc::clone(&job.gold);
    let kg_diagnostics = match &worker.knowledge_graph {
        Some(kg) => {
            let mut runs: Vec<(&str, &mut Dataset)> = datasets
                .iter_mut()
                .map(|(name, _, d)| (name.as_str(), d))
                .collect();
            execute_experiment(
                kg,
                Arc::make_mut(&mut gold),
                &mut runs,
                job.plan,
                worker.exec,
                &|_, _| {},
            )
        }
        None => unexecuted_gold(&gold).into_iter().collect(),
    };
    let runs = Run::all(&datasets);
    // a registered benchmark the knowledge graph left as it was is prepared once
    let unchanged = Arc::ptr_eq(&gold, &job.gold);
    let index = worker.index.as_deref();
    let prepared = match &job.benchmark {
        Some(name) if unchanged => worker.golds.get(name, &gold, &job.options, index),
        _ => Arc::new(prepare_gold(
            &gold,
            &job.options,
            index.map(|i| i as &dyn crate::index::Equivalence),
        )),
    };
    let mut report = evaluate_prepared(
        &gold,
        &prepared,
        &job.gold_name,
        &runs,
        job.options,
        index.map(|i| IndexRef {
            equivalence: i,
            path: &worker.index_path,
            format_version: i.meta().format_version,
        }),
    );
    report.knowledge_graph = worker.knowledge_graph.as_ref().map(|k| k.info.clone());
    report.diagnostics.extend(kg_diagnostics);
    Ok(report)
}
