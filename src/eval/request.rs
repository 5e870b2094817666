//! The evaluation request: everything one evaluation is asked to do — the
//! gold, its runs (files read or live systems to ask), the subset of questions
//! to score, the profile with its resources and every option, which queries
//! are executed, whether failures are explained — owned here, in the
//! pipeline, so that the three doors (the CLI, each HTTP route, the Python
//! binding) only translate their input into one [`Request`] and hand it to
//! [`super::job::run_job`]. [`Request::check`] holds the rules between
//! options that every door shares; what a door's own form allows (a flag's
//! spelling, a field's type) stays with the door.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{Options, Profile};
use crate::model::Dataset;

/// The bootstrap resamples of an evaluation that asks for confidence
/// intervals (`--confidence`, `confidence`), with a fixed seed.
pub const CONFIDENCE_RESAMPLES: usize = 1000;

/// Which queries of an experiment are executed on the knowledge graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Plan {
    /// Execute every gold query (`--refresh-gold`), not only those without answers.
    pub refresh_gold: bool,
    /// Execute every run query (`--execute-run`), not only those without answers.
    pub execute_run: bool,
}

impl Plan {
    /// True when the plan executes queries whatever the answers given.
    pub fn executes(&self) -> bool {
        self.refresh_gold || self.execute_run
    }

    /// The plan the queries are executed under for `profile`: `grasp`
    /// executes every gold and run query whatever answers the files give,
    /// as GRASP's `evaluate.py` does (its benchmark files keep the
    /// benchmark's own answers beside some queries; docs/scoring.md, The
    /// `grasp` profile); every other profile, as asked.
    pub fn under(self, profile: Profile) -> Plan {
        if profile == Profile::Grasp {
            Plan {
                refresh_gold: true,
                execute_run: true,
            }
        } else {
            self
        }
    }
}

/// Where a run's answers come from.
pub enum RunSource {
    /// A file or document already read.
    File {
        /// The run's name in the report.
        name: String,
        /// Its path (the CLI), or its name again (the server, Python's objects), for the report.
        source: String,
        /// Its questions (boxed: a dataset is large beside a URL).
        dataset: Box<Dataset>,
    },
    /// A live QA system, asked every gold question.
    System {
        /// The run's name in the report.
        name: String,
        /// The system's URL (the report's `source`).
        url: String,
        /// True when the system answers with a query (the TEXT2SPARQL
        /// protocol), which must be executed on a knowledge graph.
        answers_with_query: bool,
    },
}

impl RunSource {
    /// The run's name in the report.
    pub fn name(&self) -> &str {
        match self {
            RunSource::File { name, .. } | RunSource::System { name, .. } => name,
        }
    }
}

/// One evaluation, as every door asks for it.
pub struct Request {
    /// The gold benchmark's name or path, for the report.
    pub gold_name: String,
    /// The gold benchmark.
    pub gold: Arc<Dataset>,
    /// The registered benchmark the gold is, when it is one: its prepared form
    /// is taken from (and kept in) the environment's gold cache, unless only
    /// some of its questions are scored.
    pub benchmark: Option<String>,
    /// The runs, scored in this order.
    pub runs: Vec<RunSource>,
    /// Score only these questions of the gold (`--questions`, a sample's ids):
    /// the others, and the runs' answers to them, are left out (not counted as
    /// extra). Every id must be a gold question's ([`Request::check`]).
    pub questions: Option<BTreeSet<String>>,
    /// The profile, its resources and every scoring option.
    pub options: Options,
    /// Which queries are executed when there is a knowledge graph.
    pub plan: Plan,
    /// Explain each run's failures (`runs[].failures`): the feature
    /// conditions that separate its failed questions from its solved ones.
    pub explain_failures: bool,
    /// The gold's audit, when asked (`evaluate --audit`): the report carries
    /// it, and the questions it found unstable are already marked in `gold`
    /// (scored apart).
    pub audit: Option<crate::audit::AuditReport>,
}

/// Why a request cannot be evaluated as asked: a rule between its options,
/// the same whichever door it came through.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Two runs share a name, so the report could not tell them apart.
    #[error("two runs are named {0:?}: give each its own name (one per run, in order)")]
    SameName(String),
    /// The baseline names no run.
    #[error("--baseline {baseline:?} names no run (in Python, baseline=); the runs are {runs}: give one of them (a file's stem, or its name)")]
    NoBaseline {
        /// The baseline asked for.
        baseline: String,
        /// The runs' names, quoted and comma-separated.
        runs: String,
    },
    /// Queries are to be executed and there is no knowledge graph.
    #[error("refreshing the gold and executing the runs' queries need a knowledge graph: give one (--kg FILE... or --endpoint URL)")]
    PlanWithoutGraph,
    /// The `grasp` profile executes both queries, and there is no knowledge
    /// graph.
    #[error("--profile grasp executes the gold's and the run's queries and compares their results (docs/scoring.md, The `grasp` profile): give the knowledge graph (--kg FILE... or --endpoint URL; in Python kg= or endpoint=)")]
    GraspWithoutGraph,
    /// A live system answers with queries and there is no knowledge graph.
    #[error("the live system {0} answers with a query (text2sparql), which is executed: give the knowledge graph (--kg FILE... or --endpoint URL)")]
    QueriesWithoutGraph(String),
    /// A run gives queries and no answers where answers are scored, and
    /// there is no knowledge graph to execute them (docs/scoring.md,
    /// Executing SPARQL): every question of it would be unanswered.
    #[error("run {run:?} gives queries and no answers ({queries} question(s)), and no knowledge graph was given to execute them, so its answers cannot be scored: give the knowledge graph (--kg FILE... or --endpoint URL; in Python kg= or endpoint=), or the run's own answers (its result set); the text measures of its queries need no graph (--experiments query)")]
    RunQueriesWithoutGraph {
        /// The run's name.
        run: String,
        /// Its questions with a query and no answers.
        queries: usize,
    },
    /// An LLM judge given where nothing would ask it: under a profile that
    /// scores value sets exactly (`text2sparql`), or without QA, and not for
    /// query pairs.
    #[error("the LLM judge (--llm-judge, llm_judge=) would never be asked: {why}; leave it out, or give a profile that judges free-text answers (judge, gerbil, mqald and the official profiles other than text2sparql), or --llm-queries with --experiments query")]
    JudgeNeverAsked {
        /// Why, naming the profile or the experiments.
        why: String,
    },
    /// The `grailqa` profile without GrailQA's schema.
    #[error("the grailqa profile compares logical forms with GrailQA's schema: give the ontology (--ontology DIR, the folder of fb_roles, fb_types and reverse_properties)")]
    NoOntology,
    /// KQA Pro's training answers under another profile.
    #[error("KQA Pro's training answers (--train, train=) are read only by the kqapro profile: give --profile kqapro, or leave them out")]
    TrainElsewhere,
    /// GrailQA's schema under another profile.
    #[error("GrailQA's schema (--ontology, ontology=) is read only by the grailqa profile: give --profile grailqa, or leave it out")]
    OntologyElsewhere,
    /// A question of the subset that the gold does not have.
    #[error("question {id:?} of the questions to score is not in the gold (it has {gold} questions): check the ids against the gold")]
    UnknownQuestion {
        /// The first such id.
        id: String,
        /// How many questions the gold has.
        gold: usize,
    },
}

impl Request {
    /// The rules between the request's options: run names are unique, the
    /// baseline names a run, queries to execute have a knowledge graph
    /// (`has_graph`), the profile's resources are given to the profile that
    /// reads them, and the subset's ids are the gold's.
    pub fn check(&self, has_graph: bool) -> Result<(), RequestError> {
        let names: Vec<&str> = self.runs.iter().map(RunSource::name).collect();
        if let Some(dup) = names
            .iter()
            .enumerate()
            .find_map(|(i, n)| names[..i].contains(n).then_some(n))
        {
            return Err(RequestError::SameName((*dup).to_string()));
        }
        if let Some(b) = self
            .options
            .baseline
            .as_deref()
            .filter(|b| !names.contains(b))
        {
            return Err(RequestError::NoBaseline {
                baseline: b.to_string(),
                runs: names
                    .iter()
                    .map(|n| format!("{n:?}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if !has_graph {
            if self.plan.executes() {
                return Err(RequestError::PlanWithoutGraph);
            }
            if self.options.profile == Profile::Grasp {
                return Err(RequestError::GraspWithoutGraph);
            }
            if let Some(url) = self.runs.iter().find_map(|r| match r {
                RunSource::System {
                    url,
                    answers_with_query: true,
                    ..
                } => Some(url),
                _ => None,
            }) {
                return Err(RequestError::QueriesWithoutGraph(url.clone()));
            }
            if let Some((run, queries)) = self.runs_of_queries_only() {
                return Err(RequestError::RunQueriesWithoutGraph { run, queries });
            }
        }
        let profile = self.options.profile;
        if let Some(why) = self.judge_never_asked() {
            return Err(RequestError::JudgeNeverAsked { why });
        }
        if self.options.ontology.is_none() && profile == Profile::Grailqa {
            return Err(RequestError::NoOntology);
        }
        if self.options.ontology.is_some() && profile != Profile::Grailqa {
            return Err(RequestError::OntologyElsewhere);
        }
        if self.options.train.is_some() && profile != Profile::Kqapro {
            return Err(RequestError::TrainElsewhere);
        }
        if let Some(keep) = &self.questions {
            let ids: std::collections::HashSet<&str> = self
                .gold
                .questions
                .iter()
                .map(|q| q.id.0.as_str())
                .collect();
            if let Some(id) = keep.iter().find(|id| !ids.contains(id.as_str())) {
                return Err(RequestError::UnknownQuestion {
                    id: id.clone(),
                    gold: ids.len(),
                });
            }
        }
        Ok(())
    }
}

impl Request {
    /// The first file run that gives queries and not one answer, with its
    /// count of such questions, when answers are scored (QA is among the
    /// experiments and the gold has answers): without a knowledge graph its
    /// answers cannot be had. A run that answers some questions is scored,
    /// its unexecuted questions not evaluable ([`unexecuted_run`]).
    fn runs_of_queries_only(&self) -> Option<(String, usize)> {
        let scores_qa = self.options.experiments.is_empty()
            || self.options.experiments.contains(&super::Experiment::Qa);
        if !scores_qa || !self.gold.questions.iter().any(|q| q.answers.is_some()) {
            return None;
        }
        self.runs.iter().find_map(|r| match r {
            RunSource::File { name, dataset, .. } => {
                let queries = unexecuted_run(dataset);
                let answered = dataset.questions.iter().any(|q| q.answers.is_some());
                (queries > 0 && !answered).then(|| (name.clone(), queries))
            }
            RunSource::System { .. } => None,
        })
    }
}

impl Request {
    /// Why the LLM judge given would never be asked, if so: the judge asks
    /// about QA answers under a profile that matches answers (not one that
    /// scores value sets), and about query pairs with `--llm-queries` when
    /// the query experiment is scored.
    fn judge_never_asked(&self) -> Option<String> {
        use super::Rules as _;
        let judge = self.options.llm.as_deref()?;
        let wants = |e| {
            (self.options.experiments.is_empty() && e != super::Experiment::Query)
                || self.options.experiments.contains(&e)
        };
        let answers = wants(super::Experiment::Qa) && !self.options.profile.scores_value_sets();
        let queries = judge.judges_queries() && wants(super::Experiment::Query);
        if answers || queries {
            return None;
        }
        Some(if wants(super::Experiment::Qa) {
            format!(
                "the {} profile scores the answers' values exactly, as its official script does",
                self.options.profile.name()
            )
        } else {
            "QA is not among the experiments scored".to_string()
        })
    }
}

/// The questions of a run that give a SPARQL query and no answers, and were
/// not executed: without a knowledge graph they are not evaluable.
pub fn unexecuted_run(run: &Dataset) -> usize {
    run.questions
        .iter()
        .filter(|q| {
            q.answers.is_none()
                && q.execution.is_none()
                && matches!(q.query, crate::model::Query::Sparql(_))
        })
        .count()
}

/// The gold's questions whose ids `keep` holds, in the gold's order, and
/// the file runs without their answers to the others. Every file run is first
/// joined to the whole gold (a run that joins by question text, or by
/// position, is given the gold's ids), so that the answers it leaves out are
/// the left-out questions' and not counted as extra.
pub(super) fn subset(
    gold: Arc<Dataset>,
    runs: &mut [RunSource],
    keep: Option<&BTreeSet<String>>,
) -> Arc<Dataset> {
    // the gold questions left out: a run's answers to them are left out too,
    // while its answers to questions the gold lacks stay (counted as extra)
    let left_out: std::collections::HashSet<&str> = match keep {
        Some(keep) => gold
            .questions
            .iter()
            .map(|q| q.id.0.as_str())
            .filter(|id| !keep.contains(*id))
            .collect(),
        None => Default::default(),
    };
    for run in runs.iter_mut() {
        if let RunSource::File { dataset, .. } = run {
            super::join::join(&gold, dataset);
            if !left_out.is_empty() {
                dataset
                    .questions
                    .retain(|q| !left_out.contains(q.id.0.as_str()));
            }
        }
    }
    drop(left_out);
    match keep {
        Some(keep) => {
            let mut kept = Arc::unwrap_or_clone(gold);
            kept.questions.retain(|q| keep.contains(&q.id.0));
            Arc::new(kept)
        }
        None => gold,
    }
}
