//! The one evaluation pipeline: checks a [`Request`], keeps the questions it
//! asks for, asks its live systems, executes the queries its plan asks for on
//! a knowledge graph, prepares the gold (or takes a registered benchmark's
//! prepared form from a [`GoldCache`]), scores every run and explains the
//! runs' failures into the report. `qajudge evaluate`, `POST /api/v1/evaluate`,
//! the server's stored experiments and the Python binding all call
//! [`run_job`]; none of them changes the report afterwards: the knowledge
//! graph's description, the execution diagnostics and the failure explanation
//! are inputs of the report, not patches on it.
//!
//! The pipeline does no I/O of its own. Live systems and knowledge graphs are
//! reached through the [`Systems`] and [`Executor`] traits, implemented by the
//! I/O modules (`live`, `sparql`), so that this module stays in the pipeline
//! layer and its tests need no network.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::recorded::{EndpointTape, Recorded, SystemTape};
use super::{
    evaluate_executed, prepare_gold, Deadline, Execution, IndexRef, KnowledgeGraphInfo, Options,
    Report, Run,
};
use crate::model::Dataset;

pub use super::gold_cache::GoldCache;
pub use super::request::{Plan, Request, RequestError, RunSource, CONFIDENCE_RESAMPLES};
pub use super::unexecuted::unexecuted_gold;
use super::unexecuted::{every_call_failed, scores_qa, unexecuted_run_warning};

/// A run read or asked, with its name and source, ready to be scored.
pub struct LoadedRun {
    /// Its name in the report.
    pub name: String,
    /// Its path or URL.
    pub source: String,
    /// Its questions.
    pub dataset: Dataset,
}

/// Why a live system gave no run at all (its per-question failures are in the
/// run, not here).
pub type SystemError = Box<dyn std::error::Error + Send + Sync>;

/// Live QA systems, as the pipeline asks them (implemented by `live`).
pub trait Systems: Sync {
    /// Asks the system at `url` every question of `gold` and returns its answers
    /// as a run; `asked` is called once per question asked (or failed). No
    /// request is sent once `deadline` has passed (the questions not asked
    /// then have no answers: the job is an error). With the run, the record
    /// of its calls (docs/reproduce.md), its `run` left for the job to name.
    fn ask(
        &self,
        url: &str,
        gold: &Dataset,
        deadline: &Deadline,
        asked: &(dyn Fn() + Sync),
    ) -> Result<(Dataset, SystemTape), SystemError>;
}

/// A knowledge graph the queries of the gold and the runs are executed on
/// (implemented by `sparql`).
pub trait Executor: Sync {
    /// What the report says of the knowledge graph.
    fn info(&self) -> KnowledgeGraphInfo;
    /// Executes the queries of the gold and of the named runs as `plan` says,
    /// filling in their answers, and returns the report's diagnostics of the
    /// execution, with the record of an endpoint's replies (docs/reproduce.md;
    /// `None` for an embedded store, known by its files' digests).
    /// `progress` gets (done, to do). No query starts once `deadline` has
    /// passed (the job is then an error).
    fn execute(
        &self,
        gold: &mut Dataset,
        runs: &mut [(&str, &mut Dataset)],
        plan: Plan,
        deadline: &Deadline,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> (Vec<String>, Option<EndpointTape>);
}

/// What a job is evaluated with.
pub struct Env<'a> {
    /// The index, if any.
    pub index: Option<IndexRef<'a>>,
    /// The live systems (used only when the job has [`RunSource::System`] runs).
    pub systems: &'a dyn Systems,
    /// The knowledge graph queries are executed on, if any.
    pub knowledge_graph: Option<&'a dyn Executor>,
    /// Prepared forms of registered benchmarks, if the caller keeps them.
    pub golds: Option<&'a GoldCache>,
}

/// What a caller is told while a job runs. Every method has an empty default.
pub trait Progress: Sync {
    /// The live system `url` is about to be asked `questions` questions.
    fn asking(&self, _url: &str, _questions: usize) {}
    /// One more question asked, counted over every live system of the job:
    /// `done` of `total`.
    fn asked(&self, _done: usize, _total: usize) {}
    /// The live system `url` has been asked every question.
    fn asked_all(&self, _url: &str) {}
    /// Queries are about to be executed on the knowledge graph.
    fn executing(&self) {}
    /// `done` of `total` queries executed.
    fn executed(&self, _done: usize, _total: usize) {}
    /// Every query has been executed.
    fn executed_all(&self) {}
}

/// A caller that wants no progress.
pub struct Silent;

impl Progress for Silent {}

/// Why a job has no report.
#[derive(Debug)]
pub enum JobError {
    /// Every call to a live system failed: a failed run, not a score
    /// (docs/scoring.md, Live systems that fail).
    RunFailed {
        /// The run's name.
        name: String,
        /// The system's URL.
        url: String,
        /// Calls that failed (every question's).
        failed: usize,
        /// The first question, in gold order, and why its call failed.
        first: (String, String),
    },
    /// A prediction file of one benchmark (KQA Pro's lines, Mintaka's `{id:
    /// answer}`) given with a gold of another: its ids would join the wrong
    /// questions, or none.
    Unpaired {
        /// The run's name.
        name: String,
        /// What the run file is.
        run: &'static str,
        /// The gold format it scores against.
        wants: &'static str,
        /// The gold's format.
        gold: &'static str,
    },
    /// A live system could not be asked at all (its URL is refused or does not
    /// resolve); shown as the system's own error, with its causes.
    System {
        /// The system's URL.
        url: String,
        /// Why it could not be asked.
        source: SystemError,
    },
    /// The index could not be read while naming the gold's IRIs for the
    /// failure explanation (a storage error, not a bad input).
    Index(crate::index::IndexError),
    /// The request breaks a rule between its options (docs/scoring.md).
    Request(super::request::RequestError),
    /// The evaluation passed its deadline (a request's `timeout_ms`, a stored
    /// experiment's time) and was stopped: no report of part of the work.
    Deadline,
    /// A run none of whose question ids is a gold question's: a run of
    /// another benchmark, or ids written another way; never a score of 0.
    Disjoint {
        /// The run's name.
        name: String,
        /// How many questions the run has.
        questions: usize,
        /// A few of the run's ids.
        run_ids: Vec<String>,
        /// A few of the gold's ids.
        gold_ids: Vec<String>,
    },
}

/// How many ids of each side a [`JobError::Disjoint`] names.
const IDS_SHOWN: usize = 3;

impl std::fmt::Display for JobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobError::Index(e) => write!(f, "naming the gold's IRIs by the index's labels: {e}"),
            JobError::Request(e) => std::fmt::Display::fmt(e, f),
            JobError::Deadline => write!(
                f,
                "the evaluation passed its time limit and was stopped; give it more time (timeout_ms, serve --experiment-timeout-s) or evaluate fewer questions or runs"
            ),
            JobError::Disjoint {
                name,
                questions,
                run_ids,
                gold_ids,
            } => write!(
                f,
                "run '{name}': none of its {questions} question ids is in the gold (the run has {}; the gold has {}): check that the run answers this benchmark, that its ids are written as the gold's (a prefix, a language suffix such as -en, numbers as text) and that its format was read as intended (`qajudge check` says which it is)",
                quoted(run_ids),
                quoted(gold_ids)
            ),
            JobError::System { source, .. } => std::fmt::Display::fmt(source, f),
            JobError::Unpaired {
                name,
                run,
                wants,
                gold,
            } => write!(
                f,
                "run '{name}' is {run} and scores only against the {wants} gold, not a {gold} gold; give that benchmark as the gold, or the run in a format with question ids (docs/scoring.md, Other benchmark families)"
            ),
            JobError::RunFailed {
                name,
                url,
                failed,
                first: (id, why),
            } => write!(
                f,
                "every call to the live system {url} (run '{name}') failed, {failed} of {failed}: a failed run has no scores; the first, for question {id}: {why}; check that the system runs at that URL and speaks the protocol given (--protocol)"
            ),
        }
    }
}

impl std::error::Error for JobError {
    /// The system error's own cause: the system error is this error's message.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JobError::System { source, .. } => source.source(),
            JobError::RunFailed { .. }
            | JobError::Unpaired { .. }
            | JobError::Index(_)
            | JobError::Deadline
            | JobError::Request(_)
            | JobError::Disjoint { .. } => None,
        }
    }
}

/// The gold a prediction file of one benchmark scores against, with what
/// the file is; `None` for a run that names its questions by the gold's ids.
fn paired_gold(run: crate::model::Format) -> Option<(&'static str, crate::model::Format)> {
    use crate::model::Format;
    match run {
        Format::KqaproPredictions => Some((
            "KQA Pro predictions (a .txt file, one answer per line, line N answering question N)",
            Format::Kqapro,
        )),
        Format::MintakaPredictions => Some(("Mintaka predictions ({id: answer})", Format::Mintaka)),
        _ => None,
    }
}

/// Runs a request: checks it ([`Request::check`]), keeps the questions it
/// asks for, asks its live systems in the order of its runs, executes the
/// queries its plan asks for when the environment has a knowledge graph (or
/// notes the gold questions that stay unanswered without one), prepares the
/// gold, scores every run and, when asked, explains each run's failures. The
/// same request and environment give a byte-identical report.
pub fn run_job(
    request: Request,
    env: &Env<'_>,
    progress: &dyn Progress,
) -> Result<Report, JobError> {
    request
        .check(env.knowledge_graph.is_some())
        .map_err(JobError::Request)?;
    let draft = super::provenance::Draft::of(&request);
    let Request {
        gold_name,
        gold,
        benchmark,
        mut runs,
        questions,
        options,
        plan,
        explain_failures,
        audit,
    } = request;
    for run in &runs {
        if let RunSource::File { name, dataset, .. } = run {
            if let Some((run, wants)) =
                paired_gold(dataset.format).filter(|(_, g)| *g != gold.format)
            {
                return Err(JobError::Unpaired {
                    name: name.clone(),
                    run,
                    wants: wants.name(),
                    gold: gold.format.name(),
                });
            }
        }
    }
    // a subset is not the registered benchmark: its prepared form is not the
    // benchmark's, nor kept for the next evaluation
    let benchmark = benchmark.filter(|_| questions.is_none());
    let gold = super::request::subset(gold, &mut runs, questions.as_ref());
    // names from the index's labels when it has them (an index of format 4
    // scores as well, and names by local names)
    let features = explain_failures
        .then(|| {
            crate::sample::named::features_named_if_possible(
                &gold,
                options.lang.as_deref().unwrap_or("en"),
                env.index.and_then(|i| i.names),
                options.max_class_size,
            )
        })
        .transpose()
        .map_err(JobError::Index)?;
    let job = Job {
        gold_name,
        gold,
        benchmark,
        options,
        plan,
    };
    let (loaded, systems) = load_runs(&job, runs, env, progress)?;
    let mut report = score_job(job, loaded, env, progress)?;
    if !systems.is_empty() {
        report
            .recorded
            .get_or_insert_with(Recorded::default)
            .systems = systems;
    }
    if let Some(features) = &features {
        super::failures::attach(&mut report, features);
    }
    report.audit = audit;
    report.receipt = Some(draft.finish(&report));
    Ok(report)
}

/// A request past its checks and its subset: what the scoring steps share.
struct Job {
    gold_name: String,
    gold: Arc<Dataset>,
    benchmark: Option<String>,
    options: Options,
    plan: Plan,
}

/// The runs read from files (each checked to meet the gold) and asked of
/// live systems, in the request's order; with the record of each system's
/// calls.
fn load_runs(
    job: &Job,
    runs: Vec<RunSource>,
    env: &Env<'_>,
    progress: &dyn Progress,
) -> Result<(Vec<LoadedRun>, Vec<SystemTape>), JobError> {
    let systems = runs
        .iter()
        .filter(|r| matches!(r, RunSource::System { .. }))
        .count();
    let total = job.gold.questions.len() * systems;
    let done = AtomicUsize::new(0);
    let deadline = &job.options.deadline;
    let mut loaded: Vec<LoadedRun> = Vec::with_capacity(runs.len());
    let mut tapes = Vec::new();
    for run in runs {
        // a stopped job asks no more systems and reads no more runs
        if deadline.passed() {
            return Err(JobError::Deadline);
        }
        match run {
            RunSource::File {
                name,
                source,
                mut dataset,
            } => {
                meets_gold(&job.gold, &name, &mut dataset)?;
                loaded.push(LoadedRun {
                    name,
                    source,
                    dataset: *dataset,
                });
            }
            RunSource::System { name, url, .. } => {
                progress.asking(&url, job.gold.questions.len());
                let asked = || {
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    progress.asked(n, total);
                };
                let (dataset, mut tape) = env
                    .systems
                    .ask(&url, &job.gold, deadline, &asked)
                    .map_err(|source| JobError::System {
                        url: url.clone(),
                        source,
                    })?;
                // the questions not asked once it stopped are not the system's failures
                if deadline.passed() {
                    return Err(JobError::Deadline);
                }
                progress.asked_all(&url);
                if let Some(first) = every_call_failed(&job.gold, &dataset) {
                    return Err(JobError::RunFailed {
                        failed: job.gold.questions.len(),
                        name,
                        url,
                        first,
                    });
                }
                tape.run.clone_from(&name);
                tapes.push(tape);
                loaded.push(LoadedRun {
                    name,
                    source: url,
                    dataset,
                });
            }
        }
    }
    Ok((loaded, tapes))
}

/// Executes the queries the plan asks for, prepares the gold and scores the
/// loaded runs into the report.
fn score_job(
    job: Job,
    mut loaded: Vec<LoadedRun>,
    env: &Env<'_>,
    progress: &dyn Progress,
) -> Result<Report, JobError> {
    let mut gold = Arc::clone(&job.gold);
    let deadline = job.options.deadline.clone();
    let mut endpoint = None;
    let execution = match env.knowledge_graph {
        Some(kg) => {
            let mut runs: Vec<(&str, &mut Dataset)> = loaded
                .iter_mut()
                .map(|r| (r.name.as_str(), &mut r.dataset))
                .collect();
            progress.executing();
            let (diagnostics, tape) = kg.execute(
                Arc::make_mut(&mut gold),
                &mut runs,
                job.plan.under(job.options.profile),
                &deadline,
                &|done, total| progress.executed(done, total),
            );
            // queries left unexecuted by a stop are no answers to score
            if deadline.passed() {
                return Err(JobError::Deadline);
            }
            progress.executed_all();
            endpoint = tape;
            Execution {
                knowledge_graph: Some(kg.info()),
                diagnostics,
            }
        }
        None => {
            if scores_qa(&job.options) && gold.questions.iter().any(|q| q.answers.is_some()) {
                for run in &mut loaded {
                    unexecuted_run_warning(&mut run.dataset);
                }
            }
            Execution {
                knowledge_graph: None,
                // only QA needs the gold's answers
                diagnostics: if scores_qa(&job.options) {
                    unexecuted_gold(&gold).into_iter().collect()
                } else {
                    Vec::new()
                },
            }
        }
    };
    let recorded = endpoint.map(|t| Recorded {
        systems: Vec::new(),
        endpoint: Some(t),
    });
    if gold.questions.iter().any(|q| q.unstable.is_some()) {
        let mut report = score_apart(job, &gold, &loaded, env, execution)?;
        report.recorded = recorded;
        return Ok(report);
    }
    let runs = Run::all(&loaded);
    // a registered benchmark the knowledge graph left as it was is prepared once
    let unchanged = Arc::ptr_eq(&gold, &job.gold);
    let equivalence = env.index.map(|i| i.equivalence);
    let prepared = match (&job.benchmark, env.golds) {
        (Some(name), Some(cache)) if unchanged => cache.get(name, &gold, &job.options, equivalence),
        _ => Arc::new(prepare_gold(&gold, &job.options, equivalence)),
    };
    if deadline.passed() {
        return Err(JobError::Deadline);
    }
    let report = evaluate_executed(
        &gold,
        &prepared,
        &job.gold_name,
        &runs,
        job.options,
        env.index,
        execution,
    );
    // the loops stopped at the deadline: what they left is not a report
    if deadline.passed() {
        return Err(JobError::Deadline);
    }
    Ok(Report { recorded, ..report })
}

/// Scores a gold some of whose questions are marked unstable (`audit
/// --write-gold`, `evaluate --audit`): the report is the others'; the
/// unstable ones are scored on their own (QA) into `report.unstable`, with
/// why each is unstable, and a diagnostic says how many were set apart —
/// never dropped without a word (docs/audit.md).
fn score_apart(
    job: Job,
    gold: &Dataset,
    loaded: &[LoadedRun],
    env: &Env<'_>,
    execution: Execution,
) -> Result<Report, JobError> {
    let apart: Vec<super::report::UnstableQuestion> = gold
        .questions
        .iter()
        .filter_map(|q| {
            q.unstable
                .as_ref()
                .map(|why| super::report::UnstableQuestion {
                    id: q.id.0.clone(),
                    why: why.clone(),
                })
        })
        .collect();
    let ids: std::collections::HashSet<&str> = apart.iter().map(|u| u.id.as_str()).collect();
    // each side: the gold's questions and the runs' answers to them (a run's
    // answers to questions the gold lacks stay with the stable side, as extra)
    let side = |unstable: bool| -> (Dataset, Vec<LoadedRun>) {
        let mut g = gold.clone();
        g.questions
            .retain(|q| ids.contains(q.id.0.as_str()) == unstable);
        let runs = loaded
            .iter()
            .map(|r| {
                let mut dataset = r.dataset.clone();
                dataset.questions.retain(|q| {
                    let marked = ids.contains(q.id.0.as_str());
                    if unstable {
                        marked
                    } else {
                        !marked
                    }
                });
                LoadedRun {
                    name: r.name.clone(),
                    source: r.source.clone(),
                    dataset,
                }
            })
            .collect();
        (g, runs)
    };
    let equivalence = env.index.map(|i| i.equivalence);
    let deadline = job.options.deadline.clone();
    let (unstable_gold, unstable_runs) = side(true);
    let options = Options {
        experiments: vec![super::Experiment::Qa],
        bootstrap: 0,
        by: Vec::new(),
        baseline: None,
        ..job.options.clone()
    };
    let apart_report = evaluate_executed(
        &unstable_gold,
        &prepare_gold(&unstable_gold, &options, equivalence),
        &job.gold_name,
        &Run::all(&unstable_runs),
        options,
        env.index,
        Execution::default(),
    );
    let (stable_gold, stable_runs) = side(false);
    let mut report = evaluate_executed(
        &stable_gold,
        &prepare_gold(&stable_gold, &job.options, equivalence),
        &job.gold_name,
        &Run::all(&stable_runs),
        job.options,
        env.index,
        execution,
    );
    if deadline.passed() {
        return Err(JobError::Deadline);
    }
    report.diagnostics.push(format!(
        "gold: {} question(s) marked unstable are scored apart (the report's `unstable`), not in the figures above: {}",
        apart.len(),
        quoted(&apart.iter().take(IDS_SHOWN).map(|u| u.id.clone()).collect::<Vec<_>>())
    ));
    report.unstable = Some(super::report::UnstableReport {
        questions: apart,
        runs: apart_report
            .runs
            .into_iter()
            .map(|r| super::report::UnstableRun {
                name: r.name,
                qa: r.experiments.qa.map(|e| e.aggregate),
            })
            .collect(),
    });
    Ok(report)
}

/// Checks that a run read from a file meets the gold: an error when none of
/// its ids is a gold question's, a diagnostic of the run when it meets fewer
/// than half of the gold's questions (docs/scoring.md, Reading).
fn meets_gold(gold: &Dataset, name: &str, run: &mut Dataset) -> Result<(), JobError> {
    if gold.questions.is_empty() {
        return Ok(());
    }
    if run.questions.is_empty() {
        // as `check` says of it: scored, every gold question missing
        run.diagnostics.push(
            "warning: the run holds no question: it answered nothing, and every gold question counts as missing"
                .into(),
        );
        return Ok(());
    }
    let gold_ids: std::collections::HashSet<&str> =
        gold.questions.iter().map(|q| q.id.0.as_str()).collect();
    let met: std::collections::HashSet<&str> = run
        .questions
        .iter()
        .map(|q| q.id.0.as_str())
        .filter(|id| gold_ids.contains(id))
        .collect();
    if met.is_empty() {
        let first = |ids: &mut dyn Iterator<Item = &str>| -> Vec<String> {
            ids.take(IDS_SHOWN).map(str::to_string).collect()
        };
        return Err(JobError::Disjoint {
            name: name.to_string(),
            questions: run.questions.len(),
            run_ids: first(&mut run.questions.iter().map(|q| q.id.0.as_str())),
            gold_ids: first(&mut gold.questions.iter().map(|q| q.id.0.as_str())),
        });
    }
    if met.len() * 2 < gold_ids.len() {
        run.diagnostics.push(format!(
            "warning: the run answers {} of the gold's {} questions, fewer than half: check that it is the run of this benchmark; the others count as missing",
            met.len(),
            gold_ids.len()
        ));
    }
    Ok(())
}

/// Ids as a message lists them: quoted, with an ellipsis when there are more.
fn quoted(ids: &[String]) -> String {
    let list: Vec<String> = ids.iter().map(|i| format!("{i:?}")).collect();
    format!("{} …", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qald::parse;
    use std::sync::Mutex;

    /// A QALD-JSON document whose questions answer `iri`.
    fn answering(ids: &[&str], iri: &str) -> Dataset {
        let questions: Vec<String> = ids
            .iter()
            .map(|id| {
                format!(
                    r#"{{"id":"{id}","question":[{{"language":"en","string":"q{id}"}}],"answers":[{{"head":{{"vars":["x"]}},"results":{{"bindings":[{{"x":{{"type":"uri","value":"{iri}"}}}}]}}}}]}}"#
                )
            })
            .collect();
        let doc = format!(r#"{{"questions":[{}]}}"#, questions.join(","));
        parse(doc.as_bytes(), "t").expect("a qald-json document")
    }

    /// Systems that answer every question with `http://ex.org/a`, or fail.
    struct Fake {
        fail: bool,
        asked: AtomicUsize,
    }

    impl Systems for Fake {
        fn ask(
            &self,
            url: &str,
            gold: &Dataset,
            deadline: &Deadline,
            asked: &(dyn Fn() + Sync),
        ) -> Result<(Dataset, SystemTape), SystemError> {
            if self.fail {
                return Err(format!("system url {url:?} is refused").into());
            }
            let ids: Vec<String> = gold.questions.iter().map(|q| q.id.0.clone()).collect();
            for _ in &ids {
                if deadline.passed() {
                    break;
                }
                self.asked.fetch_add(1, Ordering::SeqCst);
                asked();
            }
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            Ok((answering(&ids, "http://ex.org/a"), SystemTape::default()))
        }
    }

    /// Remembers what it is told.
    #[derive(Default)]
    struct Counted {
        asked: Mutex<Vec<(usize, usize)>>,
    }

    impl Progress for Counted {
        fn asked(&self, done: usize, total: usize) {
            if let Ok(mut a) = self.asked.lock() {
                a.push((done, total));
            }
        }
    }

    fn job(runs: Vec<RunSource>) -> Request {
        Request {
            gold_name: "g".into(),
            gold: Arc::new(answering(&["1", "2"], "http://ex.org/a")),
            benchmark: None,
            runs,
            questions: None,
            options: Options::default(),
            plan: Plan::default(),
            explain_failures: false,
            audit: None,
        }
    }

    fn env(fake: &Fake) -> Env<'_> {
        Env {
            index: None,
            systems: fake,
            knowledge_graph: None,
            golds: None,
        }
    }

    #[test]
    fn a_live_system_is_scored_like_a_file_with_its_answers() {
        let fake = Fake {
            fail: false,
            asked: AtomicUsize::new(0),
        };
        let progress = Counted::default();
        let live = run_job(
            job(vec![RunSource::System {
                name: "s".into(),
                url: "http://127.0.0.1:1/".into(),
                answers_with_query: false,
            }]),
            &env(&fake),
            &progress,
        )
        .expect("report");
        assert_eq!(fake.asked.load(Ordering::SeqCst), 2);
        assert_eq!(
            progress.asked.lock().map(|a| a.clone()).unwrap_or_default(),
            vec![(1, 2), (2, 2)]
        );
        let scored = run_job(
            job(vec![RunSource::File {
                name: "s".into(),
                source: "http://127.0.0.1:1/".into(),
                dataset: Box::new(answering(&["1", "2"], "http://ex.org/a")),
            }]),
            &env(&fake),
            &Silent,
        )
        .expect("report");
        // the same figures; only the receipts differ (a live system, a
        // file), and the live one records its calls, named as its run
        assert_eq!(live.receipt.as_ref().map(|r| r.live.len()), Some(1));
        let recorded = live.recorded.as_ref().map(|r| r.systems[0].run.as_str());
        assert_eq!(recorded, Some("s"));
        assert!(scored.recorded.is_none());
        let json = |r: &Report| {
            let mut r = r.clone();
            r.receipt = None;
            r.recorded = None;
            serde_json::to_string(&r).unwrap_or_default()
        };
        assert_eq!(json(&live), json(&scored));
        assert!(json(&live).contains("\"source\":\"http://127.0.0.1:1/\""));
    }

    #[test]
    fn a_system_that_cannot_be_asked_is_a_typed_error_naming_it() {
        let fake = Fake {
            fail: true,
            asked: AtomicUsize::new(0),
        };
        let e = run_job(
            job(vec![RunSource::System {
                name: "s".into(),
                url: "http://10.0.0.1/".into(),
                answers_with_query: false,
            }]),
            &env(&fake),
            &Silent,
        )
        .expect_err("no report");
        assert!(
            matches!(&e, JobError::System { url, .. } if url == "http://10.0.0.1/"),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "system url \"http://10.0.0.1/\" is refused");
    }

    /// Stops the job (its deadline's flag) once `after` questions were asked.
    struct StopAfter {
        after: usize,
        stop: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Progress for StopAfter {
        fn asked(&self, done: usize, _total: usize) {
            if done >= self.after {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn a_stopped_job_asks_no_more_questions_and_gives_no_report() {
        let fake = Fake {
            fail: false,
            asked: AtomicUsize::new(0),
        };
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let system = |n: usize| RunSource::System {
            name: format!("s{n}"),
            url: format!("http://127.0.0.1:{n}/"),
            answers_with_query: false,
        };
        let mut request = job(vec![system(1), system(2)]);
        request.options.deadline = Deadline::on(Arc::clone(&stop));
        let progress = StopAfter {
            after: 1,
            stop: Arc::clone(&stop),
        };
        let e = run_job(request, &env(&fake), &progress).expect_err("stopped");
        assert!(matches!(e, JobError::Deadline), "{e:?}");
        // one question of the first system, none of the second
        assert_eq!(fake.asked.load(Ordering::SeqCst), 1);
    }

    /// A system whose calls fail for the questions in `failing`.
    struct Failing(&'static [&'static str]);

    impl Systems for Failing {
        fn ask(
            &self,
            _url: &str,
            gold: &Dataset,
            _deadline: &Deadline,
            _asked: &(dyn Fn() + Sync),
        ) -> Result<(Dataset, SystemTape), SystemError> {
            let ids: Vec<&str> = gold.questions.iter().map(|q| q.id.0.as_str()).collect();
            let mut d = answering(&ids, "http://ex.org/a");
            let mut calls = crate::model::Calls::default();
            for id in self.0 {
                calls
                    .errors
                    .insert((*id).to_string(), format!("http status 501 ({id})"));
            }
            d.calls = Some(calls);
            Ok((d, SystemTape::default()))
        }
    }

    #[test]
    fn a_run_whose_every_call_failed_is_a_failed_run_naming_the_first() {
        let system = |failing| {
            let f = Failing(failing);
            let env = Env {
                index: None,
                systems: &f,
                knowledge_graph: None,
                golds: None,
            };
            run_job(
                job(vec![RunSource::System {
                    name: "s".into(),
                    url: "http://127.0.0.1:1/".into(),
                    answers_with_query: false,
                }]),
                &env,
                &Silent,
            )
        };
        let e = system(&["2", "1"]).expect_err("a failed run");
        assert!(
            matches!(&e, JobError::RunFailed { failed: 2, first, .. } if first.0 == "1"),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .contains("for question 1: http status 501 (1)"),
            "{e}"
        );
        // one call answered: a scored run, its failures counted and warned of
        let report = system(&["2"]).expect("a scored run");
        let json = serde_json::to_value(&report).unwrap_or_default();
        assert_eq!(
            json["runs"][0]["experiments"]["qa"]["aggregate"]["errors"],
            1
        );
        assert!(
            json["diagnostics"].to_string().contains(
                "run 's': 1 of 2 calls to the live system failed (scored as empty answers, counted in errors); the first, for question 2: http status 501 (2)"
            ),
            "{}",
            json["diagnostics"]
        );
    }

    #[test]
    fn a_gold_with_unanswered_queries_is_noted_without_a_knowledge_graph() {
        let mut g = answering(&["1"], "http://ex.org/a");
        assert_eq!(unexecuted_gold(&g), None);
        g.questions[0].answers = None;
        g.questions[0].query = crate::model::Query::Sparql("SELECT * WHERE { ?s ?p ?o }".into());
        assert!(unexecuted_gold(&g).is_some_and(|d| d.contains("--kg FILE")));
    }

    #[test]
    fn a_registered_benchmark_is_prepared_once_per_options() {
        let cache = GoldCache::default();
        let g = answering(&["1"], "http://ex.org/a");
        let a = cache.get("demo", &g, &Options::default(), None);
        let b = cache.get("demo", &g, &Options::default(), None);
        assert!(Arc::ptr_eq(&a, &b));
        let strict = Options {
            strict_literals: true,
            ..Options::default()
        };
        let c = cache.get("demo", &g, &strict, None);
        assert!(!Arc::ptr_eq(&a, &c));
    }
}
