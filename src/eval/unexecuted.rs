//! What the pipeline says of what it cannot execute or was not given: a
//! live run whose every call failed, a run whose queries have no graph to
//! run on (its questions not evaluable, with a warning), a gold whose
//! questions have a query and no answers without a graph (docs/scoring.md,
//! Executing SPARQL); and whether the options score QA at all.

use super::Options;
use crate::model::{Dataset, Query};

/// The first failed call, in gold order, when every question of a non-empty
/// gold has a failed call in `run` (a live system's answers).
pub(super) fn every_call_failed(gold: &Dataset, run: &Dataset) -> Option<(String, String)> {
    let errors = &run.calls.as_ref()?.errors;
    if gold.questions.is_empty() || gold.questions.iter().any(|q| !errors.contains_key(&q.id.0)) {
        return None;
    }
    let first = &gold.questions[0].id.0;
    errors.get(first).map(|why| (first.clone(), why.clone()))
}

/// True when the options score QA (all sub-experiments, or QA among them).
pub(super) fn scores_qa(options: &Options) -> bool {
    options.experiments.is_empty() || options.experiments.contains(&super::Experiment::Qa)
}

/// The warning of a run some of whose questions give a query and no
/// answers while no knowledge graph was given: those questions are not
/// evaluable (a run with no answer at all is refused by `Request::check`).
pub(super) fn unexecuted_run_warning(run: &mut Dataset) {
    let n = super::request::unexecuted_run(run);
    if n > 0 {
        run.diagnostics.push(format!(
            "warning: {n} of the run's {} questions give a query and no answers, and no knowledge graph was given to execute them: they are not evaluable (give --kg FILE... or --endpoint URL, in Python kg= or endpoint=)",
            run.questions.len()
        ));
    }
}

/// The diagnostic for a gold benchmark whose questions have a query and no
/// answers when no knowledge graph was given, if it has such questions.
pub fn unexecuted_gold(gold: &Dataset) -> Option<String> {
    gold.questions
        .iter()
        .any(|q| q.answers.is_none() && matches!(q.query, Query::Sparql(_)))
        .then(|| "gold: questions with a query and no answers are not evaluable without a knowledge graph; give --kg FILE... or --endpoint URL to execute their queries".to_string())
}
