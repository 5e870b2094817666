//! Live systems as a report recorded them (docs/reproduce.md): each
//! recorded reply is read again as the system's answer, with its measured
//! time and attempts, each recorded failure is the failure it was, and the
//! questions the calls never reached stay unasked. The run and its record
//! come out as the live calls made them, so that `qajudge reproduce` scores
//! what the systems answered then.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{live_run, read_answer, Answered, CallError, Protocol};
use crate::eval::recorded::SystemTape;
use crate::eval::Deadline;
use crate::model::Dataset;

/// The recorded systems, each record used once, in the order of the runs.
pub struct Replaying {
    tapes: Vec<SystemTape>,
    used: Mutex<Vec<bool>>,
}

/// A system URL the report holds no (further) record of.
#[derive(Debug, thiserror::Error)]
#[error("the report records no answers of the system {url:?} (or not all of them): it cannot be scored as it was asked")]
pub struct NotRecorded {
    /// The system's URL.
    pub url: String,
}

impl Replaying {
    /// Systems answering as `tapes` recorded.
    pub fn new(tapes: Vec<SystemTape>) -> Replaying {
        let used = Mutex::new(vec![false; tapes.len()]);
        Replaying { tapes, used }
    }

    /// The next unused record of `url`.
    fn take(&self, url: &str) -> Option<&SystemTape> {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let i = (0..self.tapes.len()).find(|&i| !used[i] && self.tapes[i].url == url)?;
        used[i] = true;
        Some(&self.tapes[i])
    }
}

impl crate::eval::job::Systems for Replaying {
    fn ask(
        &self,
        url: &str,
        gold: &Dataset,
        _deadline: &Deadline,
        asked: &(dyn Fn() + Sync),
    ) -> Result<(Dataset, SystemTape), crate::eval::job::SystemError> {
        let tape = self.take(url).ok_or_else(|| NotRecorded {
            url: url.to_string(),
        })?;
        let protocol = Protocol::from_name(&tape.asked.protocol).unwrap_or(Protocol::Gerbil);
        let calls: HashMap<&str, &crate::eval::recorded::Call> =
            tape.calls.iter().map(|c| (c.id.as_str(), c)).collect();
        let mut results = Vec::with_capacity(calls.len());
        for (i, q) in gold.questions.iter().enumerate() {
            let Some(call) = calls.get(q.id.0.as_str()) else {
                continue;
            };
            asked();
            if call.omitted {
                return Err(Box::new(NotRecorded {
                    url: url.to_string(),
                }));
            }
            let outcome = match &call.body {
                Some(body) => read_answer(protocol, body.as_bytes()).map(|question| Answered {
                    question,
                    ms: call.ms,
                    cached: call.attempts == 0,
                    body: body.clone(),
                    server: None,
                    omitted: false,
                }),
                None => Err(CallError::Recorded(call.error.clone().unwrap_or_default())),
            };
            results.push((i, (outcome, call.attempts)));
        }
        let mut run = live_run(gold, results, tape.stopped.clone(), |_, _| {
            tape.notes.clone()
        });
        run.tape.url = tape.url.clone();
        run.tape.at = tape.at.clone();
        run.tape.server = tape.server.clone();
        run.tape.asked = tape.asked.clone();
        Ok((run.dataset, run.tape))
    }
}

/// An answer body read as the system of `protocol` (by name) answers it:
/// its rows sorted (the order of an answer is not its content) and its
/// query's text; `None` when it cannot be read. `reproduce --re-execute`
/// compares a recorded answer with a new one so.
pub fn read_reply(protocol: &str, body: &str) -> Option<(Vec<Vec<crate::model::Term>>, String)> {
    let protocol = Protocol::from_name(protocol)?;
    let q = read_answer(protocol, body.as_bytes()).ok()?;
    let mut rows: Vec<Vec<crate::model::Term>> = q
        .answers
        .map(|a| a.answers.into_iter().map(|a| a.terms).collect())
        .unwrap_or_default();
    rows.sort();
    let query = match q.query {
        crate::model::Query::Sparql(s) | crate::model::Query::Pseudo(s) => s,
        crate::model::Query::None => String::new(),
    };
    Some((rows, query))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::job::Systems as _;
    use crate::model::{Question, QuestionId};

    fn gold(n: usize) -> Dataset {
        let mut d = Dataset::new(crate::model::Format::QaldJson);
        d.questions = (1..=n)
            .map(|i| Question {
                id: QuestionId(i.to_string()),
                texts: vec![("en".into(), format!("q{i}"))],
                ..Question::default()
            })
            .collect();
        d
    }

    fn answered(body: &str, ms: f64, cached: bool) -> Result<Answered, CallError> {
        read_answer(Protocol::Gerbil, body.as_bytes()).map(|question| Answered {
            question,
            ms,
            cached,
            body: body.to_string(),
            server: Some("sys/1".into()),
            omitted: false,
        })
    }

    #[test]
    fn a_recorded_run_replays_as_it_was_asked() {
        let gold = gold(4);
        let body = r#"{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"http://e.org/a"}}]}}"#;
        let results = vec![
            (0, (answered(body, 12.25, false), 2)),
            (1, (Err(CallError::Status(500)), 3)),
            (2, (answered(r#"{"boolean":true}"#, 1.5, true), 0)),
        ];
        // the fourth question was never asked: the calls stopped
        let stopped = Some("stopped after 3 calls".to_string());
        let mut run = live_run(&gold, results, stopped, |cached, retried| {
            vec![format!("{cached} cached, {retried} retried")]
        });
        run.tape.url = "http://127.0.0.1:1/qa".into();
        run.tape.at = "2026-11-29T00:00:00Z".into();
        assert_eq!(run.tape.server.as_deref(), Some("sys/1"));
        assert_eq!(run.tape.calls.len(), 3);
        let text = serde_json::to_string(&run.tape).expect("serialises");
        let tape: SystemTape = serde_json::from_str(&text).expect("reads back");
        let replaying = Replaying::new(vec![tape.clone()]);
        let (dataset, again) = replaying
            .ask(&tape.url, &gold, &Deadline::default(), &|| {})
            .expect("replayed");
        assert_eq!(again, tape);
        assert_eq!(again.digest(), run.tape.digest());
        assert_eq!(format!("{dataset:?}"), format!("{:?}", run.dataset));
        // a record is used once; a system it does not hold is an error
        let twice = replaying.ask(&tape.url, &gold, &Deadline::default(), &|| {});
        assert!(twice.is_err());
        // a record that omits a body cannot be scored again
        let mut omitted = tape;
        omitted.calls[0].body = None;
        omitted.calls[0].omitted = true;
        let url = omitted.url.clone();
        let replaying = Replaying::new(vec![omitted]);
        let e = replaying
            .ask(&url, &gold, &Deadline::default(), &|| {})
            .expect_err("omitted");
        assert!(e.to_string().contains("records no answers"), "{e}");
    }
}
