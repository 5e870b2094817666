//! The record of a SPARQL endpoint's replies during one evaluation
//! (docs/reproduce.md), and its replay: each query text is asked once per
//! evaluation (the gold and a run that send the same text get the same
//! reply, asked once), its reply kept as the executor read it; a replayed
//! endpoint answers each query from the record, and a query the record lacks
//! is an execution error saying so.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use super::Outcome;
use crate::eval::recorded::{EndpointTape, RecordedTerm, Reply, MAX_RECORDED_BYTES};
use crate::model::{Answer, AnswerSet, ExecStatus, Term};

/// The replies of one evaluation, as they come.
pub(super) struct Recorder {
    /// When the endpoint was first asked.
    at: String,
    /// The first `Server` header it sent.
    server: Mutex<Option<String>>,
    /// Per query text, its reply (set once, by the first to ask).
    replies: Mutex<BTreeMap<String, Arc<OnceLock<Outcome>>>>,
}

impl Recorder {
    /// A record begun now, or at `at` with `server` for a replay (the
    /// record of a replay is the record it replays).
    pub(super) fn new(at: String, server: Option<String>) -> Recorder {
        Recorder {
            at,
            server: Mutex::new(server),
            replies: Mutex::new(BTreeMap::new()),
        }
    }

    /// The reply to `query`: the one recorded, else `ask`'s (recorded).
    pub(super) fn reply(&self, query: &str, ask: impl FnOnce() -> Outcome) -> Outcome {
        let cell = {
            let mut replies = self.replies.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(replies.entry(query.to_string()).or_default())
        };
        cell.get_or_init(ask).clone()
    }

    /// Keeps `server` as what the endpoint says of itself, unless one is kept.
    pub(super) fn saw_server(&self, server: Option<String>) {
        let mut kept = self.server.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.is_none() {
            *kept = server;
        }
    }

    /// The record, its replies sorted by query text; the rows of those past
    /// [`MAX_RECORDED_BYTES`] (counted in that order) are omitted.
    pub(super) fn tape(&self, url: &str) -> EndpointTape {
        let replies = self.replies.lock().unwrap_or_else(PoisonError::into_inner);
        let mut kept = 0usize;
        let mut bounded = |mut r: Reply| {
            kept += r.query.len() + r.rows.iter().flatten().map(term_bytes).sum::<usize>();
            if kept > MAX_RECORDED_BYTES {
                r.rows = Vec::new();
                r.columns = Vec::new();
                r.omitted = true;
            }
            r
        };
        EndpointTape {
            url: url.to_string(),
            at: self.at.clone(),
            server: self
                .server
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            queries: replies
                .iter()
                .filter_map(|(q, cell)| cell.get().map(|o| bounded(reply_of(q, o))))
                .collect(),
        }
    }
}

/// About the bytes a recorded term takes in the report.
fn term_bytes(t: &RecordedTerm) -> usize {
    16 + match t {
        RecordedTerm::Uri { value } => value.len(),
        RecordedTerm::Literal {
            value,
            datatype,
            lang,
        } => {
            value.len()
                + datatype.as_ref().map_or(0, String::len)
                + lang.as_ref().map_or(0, String::len)
        }
        RecordedTerm::Boolean { .. } => 0,
    }
}

/// A recorded reply as it was executed.
fn reply_of(query: &str, o: &Outcome) -> Reply {
    Reply {
        query: query.to_string(),
        status: o.status.name().to_string(),
        message: o.message.clone(),
        vars: o.answers.vars.clone(),
        rows: o
            .answers
            .answers
            .iter()
            .map(|a| a.terms.iter().map(RecordedTerm::from).collect())
            .collect(),
        columns: o.columns.clone(),
        ms: (o.ms * 1000.0).round() / 1000.0,
        omitted: false,
    }
}

/// The outcome a recorded reply stands for; an unknown status is an
/// execution error that names it.
fn outcome_of(r: &Reply) -> Outcome {
    let status = ExecStatus::ALL.into_iter().find(|s| s.name() == r.status);
    let Some(status) = status else {
        return Outcome::failed(
            ExecStatus::ExecutionError,
            format!(
                "the record holds the status {:?}, which this qajudge does not know",
                r.status
            ),
            Instant::now(),
        );
    };
    if r.omitted {
        return Outcome::failed(
            ExecStatus::ExecutionError,
            "the report does not record this reply of the endpoint (its record's bound was reached)".into(),
            Instant::now(),
        );
    }
    // the executor gives each row's variables to the answer set too, but for
    // an ASK answer (its one row has no variable): as it did
    let per_row = r.columns.len() == r.rows.len()
        && r.columns
            .iter()
            .zip(&r.rows)
            .all(|(c, row)| c.len() == row.len());
    Outcome {
        status,
        message: r.message.clone(),
        answers: AnswerSet {
            answers: r
                .rows
                .iter()
                .map(|row| Answer {
                    terms: row.iter().cloned().map(Term::from).collect(),
                })
                .collect(),
            vars: r.vars.clone(),
            columns: if per_row {
                r.columns.clone()
            } else {
                Vec::new()
            },
            ..AnswerSet::default()
        },
        columns: r.columns.clone(),
        ms: r.ms,
    }
}

/// A recorded endpoint: its replies by query text, and when it was asked
/// and what it said of itself.
#[derive(Debug, Clone)]
pub(super) struct Replay {
    replies: HashMap<String, Outcome>,
    pub(super) at: String,
    pub(super) server: Option<String>,
}

impl Replay {
    pub(super) fn of(tape: &EndpointTape) -> Replay {
        Replay {
            replies: tape
                .queries
                .iter()
                .map(|r| (r.query.clone(), outcome_of(r)))
                .collect(),
            at: tape.at.clone(),
            server: tape.server.clone(),
        }
    }

    /// The recorded reply to `query`, or an execution error saying the
    /// record has none.
    pub(super) fn reply(&self, query: &str) -> Outcome {
        self.replies.get(query).cloned().unwrap_or_else(|| {
            Outcome::failed(
                ExecStatus::ExecutionError,
                "the report records no reply of the endpoint to this query".into(),
                Instant::now(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_reply_replays_as_it_was_read() {
        let recorder = Recorder::new("2026-11-29T00:00:00Z".into(), None);
        let outcome = Outcome {
            status: ExecStatus::Truncated,
            message: Some("more than 1 rows".into()),
            // as the executor makes it: each row's variables in the set too
            answers: AnswerSet {
                answers: vec![Answer {
                    terms: vec![Term::Iri("http://e.org/a".into()), Term::plain("x")],
                }],
                vars: vec!["s".into(), "o".into()],
                columns: vec![vec![0, 1]],
                ..AnswerSet::default()
            },
            columns: vec![vec![0, 1]],
            ms: 2.0,
        };
        // an ASK answer: one row of no variable, none in the set
        let ask = Outcome {
            status: ExecStatus::Ok,
            message: None,
            answers: AnswerSet {
                answers: vec![Answer::single(Term::Boolean(true))],
                ..AnswerSet::default()
            },
            columns: vec![Vec::new()],
            ms: 1.0,
        };
        assert_eq!(recorder.reply("ASK {}", || ask.clone()), ask);
        let mut asked = 0;
        for _ in 0..2 {
            let got = recorder.reply("SELECT * {}", || {
                asked += 1;
                outcome.clone()
            });
            assert_eq!(got, outcome);
        }
        // a text is asked once per evaluation
        assert_eq!(asked, 1);
        recorder.saw_server(Some("QLever".into()));
        recorder.saw_server(Some("other".into()));
        let tape = recorder.tape("http://127.0.0.1:1/");
        assert_eq!(tape.server.as_deref(), Some("QLever"));
        let replay = Replay::of(&tape);
        assert_eq!(replay.reply("SELECT * {}"), outcome);
        assert_eq!(replay.reply("ASK {}"), ask);
        let missing = replay.reply("ASK { ?s ?p ?o }");
        assert_eq!(missing.status, ExecStatus::ExecutionError);
        assert!(missing
            .message
            .is_some_and(|m| m.contains("records no reply")));
    }
}
