//! The limits every query on an embedded store runs under, so that no query can
//! take the server's memory or keep its cores past its deadline: a deadline
//! checked between rows (and a timer that cancels the store's own iteration at
//! it), a cap on the bytes a result takes (estimated from its rows as they are
//! collected, or counted as they are written), and a gate that lets at most N
//! queries run at once. A query that passes a limit stops with a [`Stop`] that
//! says which and what to do.

use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use oxigraph::sparql::CancellationToken;

use crate::model::Term;

/// The default memory one query may use, in bytes (`--max-query-memory-mb`).
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;

/// What the store holds in memory to finish a query before it gives its first
/// row (the limit on it is [`Stop::Held`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// `ORDER BY`: every row is sorted first.
    Sort,
    /// `GROUP BY` or an aggregate: every row is grouped first.
    Group,
    /// `DISTINCT`: every distinct row is remembered.
    Deduplicate,
    /// `MINUS`: every row of its right side is held.
    Minus,
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Held::Sort => {
                "sort them (ORDER BY; a LIMIT does not help: the store sorts every row first)"
            }
            Held::Group => "group them (GROUP BY or an aggregate)",
            Held::Deduplicate => "deduplicate them (DISTINCT)",
            Held::Minus => "subtract them (the right side of MINUS)",
        })
    }
}

/// Why a query was stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Stop {
    /// Past its deadline.
    #[error("the query was stopped after its timeout of {ms} ms; narrow it or add a LIMIT")]
    Timeout {
        /// The timeout, in milliseconds.
        ms: u128,
    },
    /// More rows than the row cap.
    #[error("the results pass {max} rows; add a LIMIT or narrow the query")]
    Rows {
        /// The row cap.
        max: usize,
    },
    /// More bytes than the byte cap.
    #[error("the results pass {max} bytes; add a LIMIT or narrow the query")]
    Bytes {
        /// The byte cap.
        max: usize,
    },
    /// The strings the query's expressions build (`CONCAT`, `REPLACE`,
    /// `GROUP_CONCAT`, `STR` …), which the store keeps until the query ends,
    /// would pass the memory cap.
    #[error("the query builds more than {max} bytes of strings (CONCAT, REPLACE, GROUP_CONCAT, STR …); narrow it, or raise --max-query-memory-mb")]
    Built {
        /// The memory cap, in bytes.
        max: usize,
    },
    /// The store would hold more rows in memory than the memory cap allows.
    #[error("the query would hold more than {rows} rows in memory to {held}; narrow it, or raise --max-query-memory-mb")]
    Held {
        /// The most rows allowed at that point of the query.
        rows: usize,
        /// What the rows are held for.
        held: Held,
    },
}

/// The bytes one term takes in memory, roughly: its text and its allocation.
pub fn term_bytes(t: &Term) -> usize {
    const OVERHEAD: usize = 48;
    OVERHEAD
        + match t {
            Term::Iri(i) => i.len(),
            Term::Literal {
                lexical,
                datatype,
                lang,
            } => {
                lexical.len()
                    + datatype.as_ref().map_or(0, String::len)
                    + lang.as_ref().map_or(0, String::len)
            }
            Term::Boolean(_) => 0,
        }
}

/// The bytes one row of the store takes while it sorts, groups or deduplicates
/// (a slot per variable and the row's allocation), roughly.
pub fn held_row_bytes(variables: usize) -> usize {
    40 * (variables + 1) + 40
}

/// What a query may still use: its deadline and its bytes.
#[derive(Debug, Clone)]
pub struct Budget {
    deadline: Instant,
    timeout: Duration,
    max_bytes: usize,
    bytes: usize,
}

impl Budget {
    /// A budget that ends `timeout` after `started` and allows `max_bytes`.
    pub fn new(started: Instant, timeout: Duration, max_bytes: usize) -> Budget {
        Budget {
            deadline: started + timeout,
            timeout,
            max_bytes,
            bytes: 0,
        }
    }

    /// The byte cap.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The deadline.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// The time left (zero once past the deadline).
    pub fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The stop of a query past its deadline.
    pub fn timeout(&self) -> Stop {
        Stop::Timeout {
            ms: self.timeout.as_millis(),
        }
    }

    /// An error once past the deadline.
    pub fn check_time(&self) -> Result<(), Stop> {
        if Instant::now() > self.deadline {
            Err(self.timeout())
        } else {
            Ok(())
        }
    }

    /// Counts `bytes` more; an error once past the byte cap or the deadline.
    pub fn spend(&mut self, bytes: usize) -> Result<(), Stop> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.max_bytes {
            return Err(Stop::Bytes {
                max: self.max_bytes,
            });
        }
        self.check_time()
    }
}

/// Cancels a query's token at its deadline, unless the query ends first (the
/// timer is dropped): the store checks the token as it reads, so a query that
/// is inside the store when its deadline passes stops at its next read.
pub struct Timer {
    _done: mpsc::Sender<()>,
}

impl Timer {
    /// Starts the timer (one small thread that sleeps until the deadline).
    pub fn start(token: CancellationToken, deadline: Instant) -> Timer {
        let (done, wait) = mpsc::channel::<()>();
        let spawned = std::thread::Builder::new()
            .name("sparql-timer".into())
            .stack_size(64 << 10)
            .spawn(move || {
                let left = deadline.saturating_duration_since(Instant::now());
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(left) {
                    token.cancel();
                }
            });
        // without a timer thread, the checks between rows still stop the query
        drop(spawned);
        Timer { _done: done }
    }
}

/// At most N queries at once. Clones share the slots.
#[derive(Debug, Clone)]
pub struct QueryGate {
    inner: Arc<GateInner>,
}

#[derive(Debug)]
struct GateInner {
    slots: usize,
    used: Mutex<usize>,
    freed: Condvar,
}

/// One of a [`QueryGate`]'s slots, given back when dropped (when the query's
/// thread ends, not when its caller stops waiting for it).
#[derive(Debug)]
pub struct Permit {
    inner: Arc<GateInner>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Ok(mut used) = self.inner.used.lock() {
            *used = used.saturating_sub(1);
        }
        self.inner.freed.notify_one();
    }
}

impl QueryGate {
    /// A gate of `slots` queries at once (at least one).
    pub fn new(slots: usize) -> QueryGate {
        QueryGate {
            inner: Arc::new(GateInner {
                slots: slots.max(1),
                used: Mutex::new(0),
                freed: Condvar::new(),
            }),
        }
    }

    /// How many queries may run at once.
    pub fn slots(&self) -> usize {
        self.inner.slots
    }

    /// A slot now, or `None` when every slot is taken.
    pub fn try_acquire(&self) -> Option<Permit> {
        let mut used = self.inner.used.lock().ok()?;
        if *used >= self.inner.slots {
            return None;
        }
        *used += 1;
        Some(Permit {
            inner: Arc::clone(&self.inner),
        })
    }

    /// A slot as soon as one is free, or `None` at `deadline`.
    pub fn acquire_until(&self, deadline: Instant) -> Option<Permit> {
        let mut used = self.inner.used.lock().ok()?;
        while *used >= self.inner.slots {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            used = self.inner.freed.wait_timeout(used, left).ok()?.0;
        }
        *used += 1;
        Some(Permit {
            inner: Arc::clone(&self.inner),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_gives_at_most_its_slots_and_takes_them_back_on_drop() {
        let gate = QueryGate::new(2);
        let a = gate.try_acquire().expect("first slot");
        let b = gate.clone().try_acquire().expect("second slot");
        assert!(gate.try_acquire().is_none(), "a third query is refused");
        let soon = Instant::now() + Duration::from_millis(50);
        assert!(
            gate.acquire_until(soon).is_none(),
            "waiting ends at the deadline"
        );
        assert!(Instant::now() >= soon);
        drop(a);
        let c = gate.try_acquire().expect("a slot given back");
        // a waiter gets the slot freed by another thread
        let waiter = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                gate.acquire_until(Instant::now() + Duration::from_secs(10))
                    .is_some()
            })
        };
        std::thread::sleep(Duration::from_millis(20));
        drop(b);
        assert!(waiter.join().expect("waiter"));
        drop(c);
        assert_eq!(QueryGate::new(0).slots(), 1, "at least one slot");
    }

    #[test]
    fn the_budget_stops_at_its_bytes_and_its_deadline() {
        let mut b = Budget::new(Instant::now(), Duration::from_secs(60), 100);
        assert_eq!(b.spend(60), Ok(()));
        assert_eq!(b.spend(40), Ok(()));
        assert_eq!(b.spend(1), Err(Stop::Bytes { max: 100 }));
        let late = Budget::new(
            Instant::now() - Duration::from_secs(2),
            Duration::from_secs(1),
            100,
        );
        assert_eq!(late.check_time(), Err(Stop::Timeout { ms: 1000 }));
        assert!(late.left().is_zero());
        assert_eq!(
            Stop::Bytes { max: 100 }.to_string(),
            "the results pass 100 bytes; add a LIMIT or narrow the query"
        );
    }

    #[test]
    fn the_timer_cancels_at_the_deadline_and_not_after_the_query_ended() {
        let token = CancellationToken::new();
        let _timer = Timer::start(token.clone(), Instant::now() + Duration::from_millis(30));
        let until = Instant::now() + Duration::from_secs(10);
        while !token.is_cancelled() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(token.is_cancelled());
        let other = CancellationToken::new();
        drop(Timer::start(
            other.clone(),
            Instant::now() + Duration::from_millis(30),
        ));
        std::thread::sleep(Duration::from_millis(80));
        assert!(!other.is_cancelled(), "a query that ended is not cancelled");
    }

    /// A knowledge graph of `n` statements (one subject each) in `dir`.
    fn kg(n: usize, tag: &str) -> crate::sparql::KnowledgeGraph {
        let dir = std::env::temp_dir().join(format!("qajudge-limits-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("g.nt");
        let text: String = (0..n)
            .map(|i| format!("<http://x/s{i}> <http://x/p> \"{i}\" .\n"))
            .collect();
        std::fs::write(&path, text).expect("written");
        let kg = crate::sparql::KnowledgeGraph::load(&[path], ExecOptions::default(), &|_, _| {})
            .expect("loaded");
        std::fs::remove_dir_all(dir).ok();
        kg
    }

    use crate::model::ExecStatus;
    use crate::sparql::ExecOptions;

    #[test]
    fn an_execution_stops_at_its_bytes_its_memory_and_its_deadline() {
        let g = kg(300, "caps");
        let small = ExecOptions {
            max_bytes: 2000,
            ..ExecOptions::default()
        };
        let out = g.execute("SELECT * WHERE { ?s ?p ?o }", small);
        assert_eq!(out.status, ExecStatus::ExecutionError);
        assert_eq!(
            out.message.as_deref(),
            Some("the results pass 2000 bytes; add a LIMIT or narrow the query")
        );
        assert!(out.answers.is_empty());
        // a sort of 300^4 rows stops at the memory cap, at once
        let sorted = g.execute(
            "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l } ORDER BY ?a",
            ExecOptions {
                max_bytes: 1 << 20,
                ..ExecOptions::default()
            },
        );
        assert_eq!(sorted.status, ExecStatus::ExecutionError);
        assert!(
            sorted
                .message
                .as_deref()
                .is_some_and(|m| m.contains("to sort them")),
            "{sorted:?}"
        );
        // --max-rows still truncates what fits
        let capped = g.execute(
            "SELECT * WHERE { ?s ?p ?o } ORDER BY ?o",
            ExecOptions {
                max_rows: 3,
                ..ExecOptions::default()
            },
        );
        assert_eq!(capped.status, ExecStatus::Truncated);
        assert_eq!(capped.answers.answers.len(), 3);
    }

    #[test]
    fn an_execution_waits_for_a_slot_within_its_timeout_and_frees_it_at_its_deadline() {
        let gate = QueryGate::new(1);
        let g = kg(300, "gate").with_gate(gate.clone());
        let quick = ExecOptions {
            timeout: Duration::from_millis(100),
            ..ExecOptions::default()
        };
        let held = gate.try_acquire().expect("the one slot");
        let out = g.execute("ASK {}", quick);
        assert_eq!(out.status, ExecStatus::Timeout);
        assert!(
            out.message
                .as_deref()
                .is_some_and(|m| m.contains("ran its 1 queries")),
            "{out:?}"
        );
        drop(held);
        assert_eq!(g.execute("ASK {}", quick).status, ExecStatus::Ok);
        let started = Instant::now();
        let out = g.execute(
            "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l
               FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j))) < 0) }",
            ExecOptions {
                timeout: Duration::from_millis(300),
                ..ExecOptions::default()
            },
        );
        assert_eq!(out.status, ExecStatus::Timeout);
        // the query's thread ended at its deadline: its slot is free
        assert!(
            gate.acquire_until(started + Duration::from_millis(1300))
                .is_some(),
            "the query still ran {:?} after it began",
            started.elapsed()
        );
    }

    #[test]
    fn terms_and_held_rows_are_estimated_from_their_size() {
        assert_eq!(term_bytes(&Term::Iri("http://x/a".into())), 48 + 10);
        assert_eq!(term_bytes(&Term::Boolean(true)), 48);
        assert_eq!(held_row_bytes(2), 160);
    }
}
