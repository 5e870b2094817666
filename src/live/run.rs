//! A live system's run made from its calls' outcomes: each answer a question
//! of the gold's id and texts with its measured latency, each failure (and
//! each question never asked) an empty question with its error, the run's
//! notes on the answer cache and the retries, and the record of every call
//! that the report keeps (docs/reproduce.md). Asked live or replayed from a
//! record, a run is made here, so both are one.

use std::collections::BTreeMap;

use super::{AnswerCache, LiveRun, Outcome};
use crate::eval::recorded::{Call, SystemTape};
use crate::model::{Calls, Dataset, Format, Question};

/// The run of the calls' outcomes (by the gold questions' places): each
/// answer as a question of the gold's id and texts with its measured
/// latency, each failure (and each question not asked when the calls
/// `stopped`) an empty question with its error, and `notes` of (answers
/// from the cache, calls retried); with the record of the calls.
pub(super) fn live_run(
    gold: &Dataset,
    results: Vec<(usize, Outcome)>,
    stopped: Option<String>,
    notes: impl FnOnce(usize, usize) -> Vec<String>,
) -> LiveRun {
    let total = gold.questions.len();
    let mut dataset = Dataset::new(Format::QaldJson);
    dataset.questions.reserve(total);
    let mut errors = BTreeMap::new();
    let mut runtimes_ms = Vec::new();
    let mut asked = vec![false; total];
    let (mut cached, mut retried) = (0, 0);
    let mut tape = SystemTape::default();
    for (i, (outcome, attempts)) in results {
        asked[i] = true;
        retried += attempts.saturating_sub(1) as usize;
        let q = &gold.questions[i];
        let mut call = Call {
            id: q.id.0.clone(),
            attempts,
            ..Call::default()
        };
        match outcome {
            Ok(answered) => {
                // to the microsecond, as the latency is reported: a number
                // of at most 3 decimals reads back from JSON exactly
                call.ms = (answered.ms * 1000.0).round() / 1000.0;
                if answered.omitted {
                    call.omitted = true;
                } else {
                    call.body = Some(answered.body);
                }
                if tape.server.is_none() {
                    tape.server = answered.server;
                }
                runtimes_ms.push(answered.ms);
                cached += usize::from(answered.cached);
                let mut question = Question {
                    id: q.id.clone(),
                    texts: q.texts.clone(),
                    ..answered.question
                };
                // the measured latency, not one the system claims (docs/scoring.md,
                // Cost and latency); a cached answer keeps its call's
                question.usage.latency_ms = Some((answered.ms * 1000.0).round() / 1000.0);
                dataset.questions.push(question);
            }
            Err(e) => {
                call.error = Some(e.to_string());
                let why = if attempts > 1 {
                    format!("{e} (after {attempts} attempts)")
                } else {
                    e.to_string()
                };
                errors.insert(q.id.0.clone(), why);
                dataset.questions.push(Question {
                    id: q.id.clone(),
                    texts: q.texts.clone(),
                    ..Question::default()
                });
            }
        }
        tape.calls.push(call);
    }
    if let Some(why) = &stopped {
        for (i, q) in gold.questions.iter().enumerate() {
            if !asked[i] {
                errors.insert(q.id.0.clone(), format!("not asked: {why}"));
                dataset.questions.push(Question {
                    id: q.id.clone(),
                    ..Question::default()
                });
            }
        }
    }
    tape.notes = notes(cached, retried);
    tape.stopped.clone_from(&stopped);
    dataset.diagnostics.extend(tape.notes.iter().cloned());
    let mut run = LiveRun {
        dataset,
        errors,
        runtimes_ms,
        stopped,
        cached,
        retried,
        tape,
    };
    run.dataset.calls = Some(Calls {
        errors: run.errors.clone(),
        runtime_ms_mean: run.mean_runtime_ms(),
        stopped: run.stopped.clone(),
    });
    run
}

/// The run's notes on how its answers were had: how many came from the cache
/// and how many of its lines were unreadable, and how many calls were retried.
pub(super) fn call_notes(
    cache: Option<&AnswerCache>,
    cached: usize,
    retried: usize,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(cache) = cache {
        if cached > 0 {
            notes.push(format!(
                "{cached} answer(s) came from the cache {} instead of a call (leave out --cache to ask again)",
                cache.path().display()
            ));
        }
        if cache.skipped > 0 {
            notes.push(format!(
                "{} unreadable line(s) of the cache {} were skipped (a run killed while writing)",
                cache.skipped,
                cache.path().display()
            ));
        }
    }
    if retried > 0 {
        notes.push(format!(
            "{retried} call(s) were retried after a transient failure (connection refused or an HTTP 5xx status)"
        ));
    }
    notes
}
