//! Limits checked inside oxigraph's own iteration. The store checks a query's
//! cancellation token only when it reads a triple, and a cross product makes
//! rows without reading anything: a sort of five patterns over a few hundred
//! triples collects billions of rows between two reads, and a filter over them
//! runs minutes past its deadline. So the query's algebra is rewritten before
//! it runs, with calls of counting functions ("ticks") where rows pass:
//!
//! - a `BIND` of a tick (to an unbound variable: the rows are unchanged) under
//!   each `ORDER BY` and `GROUP BY` (or aggregate of `DISTINCT` values: one count
//!   or sum holds no row), over each `DISTINCT`, and on
//!   the right of each `MINUS`, whose rows the store holds in memory: past as
//!   many rows as the memory cap allows (rows × their width) the query stops
//!   with [`Stop::Held`];
//! - the same, for the deadline only, on the right of each `OPTIONAL` (the
//!   store may evaluate it once per row on its left, holding none), and where
//!   rows are dropped without a read: under each `DISTINCT` and `REDUCED`, on
//!   the left of each `MINUS`, under each `OFFSET`;
//! - each `FILTER`'s expression passed through a tick, which gives back its
//!   value, so that a filter that drops every row still checks the deadline.
//!
//! Every tick stops the query at its deadline or once its token is cancelled.
//! A tick stops it by unwinding out of the store's iteration to
//! [`run_guarded`] on the query's thread (with `resume_unwind`, which runs no
//! panic hook, so nothing is printed): the only way to leave oxigraph's
//! iteration between two reads. Built with `panic = "abort"`, a tick cancels the
//! token instead, and the query stops at its next read.
//!
//! Not covered: a join whose two sides make rows without reading and rarely
//! match, and the rows a join, an `OPTIONAL` or an `EXISTS` holds while it
//! builds its side (a tick there would stop the optimizer from reordering the
//! joins). Those stop at the store's next read after the deadline, and keep
//! their query slot until then.
//!
//! Strings are ticks too: `CONCAT`, `REPLACE` and `GROUP_CONCAT` are
//! evaluated here (`strings.rs`), measured before they are built, and the
//! value of every other function that builds a string is measured as it
//! passes; past the memory cap the query stops with [`Stop::Built`]. The
//! store keeps every string an expression builds until the query ends, so
//! one query's strings are counted together.
//!
//! The rewrite itself is `query::ticks` (the SPARQL algebra is `query`'s): it
//! places the ticks, says where the store holds the rows and how wide they
//! are, and refuses a query too large for the store's optimizer. This module
//! turns that into each tick's cap, registers the ticks as custom functions
//! (and aggregates) of oxigraph's evaluator, and hands it the rewritten
//! algebra to evaluate.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use oxigraph::model::{Literal, NamedNode, Term as OxTerm};
use oxigraph::sparql::{
    AggregateFunctionAccumulator, CancellationToken, PreparedSparqlQuery, SparqlEvaluator,
};

use super::limits::{held_row_bytes, Budget, Held, Stop};
use super::strings::{self, Built, GroupConcat, Patterns};
use crate::query::ticks::{self, Hold, TickError};

/// The IRI of tick `k` (a valid IRI for every `k`), as the store names it.
fn function_iri(k: usize) -> NamedNode {
    NamedNode::new_unchecked(ticks::tick_iri(k))
}

/// How often (in rows) a tick reads the clock.
const CLOCK_EVERY: usize = 256;

/// One tick of a query as the guard runs it.
#[derive(Debug, Clone)]
enum Tick {
    /// Rows passing: the rows it allows (none: the deadline only) and what
    /// they are held for.
    Rows(Option<(usize, Held)>),
    /// A filter's value, passed through (`true`: its expression's strings
    /// settled).
    Filter(bool),
    /// A built string, measured and passed through.
    Built,
    /// A whole expression's value, passed through: its strings settled
    /// (`true`: the value kept).
    Settled(bool),
    /// A whole expression's failure: its strings settled.
    Failed,
    /// `CONCAT`, evaluated here.
    Concat,
    /// `REPLACE`, evaluated here.
    Replace,
    /// `GROUP_CONCAT` with its separator, an aggregate evaluated here.
    GroupConcat(String),
}

/// The state a query's ticks share: their counts, the strings built, and the
/// first stop (kept when the query cannot unwind).
#[derive(Debug)]
pub struct Guard {
    ticks: Vec<Tick>,
    counts: Arc<Vec<AtomicUsize>>,
    built: Arc<Built>,
    stopped: Arc<Mutex<Option<Stop>>>,
}

/// What a tick needs to stop its query.
#[derive(Clone)]
struct Stopper {
    token: CancellationToken,
    stopped: Arc<Mutex<Option<Stop>>>,
    built: Arc<Built>,
}

impl Stopper {
    /// Stops the query: its strings pass the memory cap.
    fn too_large(&self) {
        abort(
            Stop::Built {
                max: self.built.max(),
            },
            &self.token,
            &self.stopped,
        );
    }
}

/// One `GROUP_CONCAT` of one group, for the store's evaluator.
struct GroupConcatTick {
    state: GroupConcat,
    stopper: Stopper,
}

impl AggregateFunctionAccumulator for GroupConcatTick {
    fn accumulate(&mut self, element: OxTerm) {
        if self.state.add(&element, &self.stopper.built).is_err() {
            self.stopper.too_large();
        }
    }

    fn finish(&mut self) -> Option<OxTerm> {
        self.state.finish()
    }
}

/// Parses `text` as a query, rewrites it with ticks (see the module) whose
/// caps come from `budget`'s byte cap and which stop at its deadline or once
/// `token` is cancelled, and prepares it on `evaluator`; a query past the
/// bounds of the rewrite is refused. Runs on the query's thread, inside
/// [`run_guarded`] (the rewrite recurses as deep as the query nests).
pub fn prepare(
    text: &str,
    evaluator: SparqlEvaluator,
    token: &CancellationToken,
    budget: &Budget,
) -> Result<(PreparedSparqlQuery, Guard), TickError> {
    let ticked = ticks::with_ticks(text)?;
    let guard = Guard::new(&ticked.ticks, budget.max_bytes());
    let evaluator = guard.register(evaluator, token, budget);
    Ok((evaluator.for_query(ticked.query), guard))
}

/// Runs `f` (a query's evaluation) and catches a tick's stop; any other panic
/// of the store is a [`Stop`]-less error with its message.
pub fn run_guarded<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        match payload.downcast::<Stop>() {
            Ok(stop) => Caught::Stop(*stop),
            Err(other) => Caught::Panic(
                other
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| other.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into()),
            ),
        }
    })
}

/// What [`run_guarded`] caught.
#[derive(Debug)]
pub enum Caught {
    /// A tick stopped the query.
    Stop(Stop),
    /// The store panicked (a bug of the store), with its message.
    Panic(String),
}

/// Leaves the store's iteration with `stop` (see the module).
fn abort(stop: Stop, token: &CancellationToken, stopped: &Mutex<Option<Stop>>) {
    if let Ok(mut s) = stopped.lock() {
        s.get_or_insert(stop.clone());
    }
    token.cancel();
    #[cfg(panic = "unwind")]
    std::panic::resume_unwind(Box::new(stop));
}

impl Guard {
    /// The guard of a query rewritten with `placed` (see the module): each
    /// tick allows as many rows as `max_bytes` holds at their width, where the
    /// store holds them.
    fn new(placed: &[ticks::Tick], max_bytes: usize) -> Guard {
        let ticks: Vec<Tick> = placed
            .iter()
            .map(|t| match t {
                ticks::Tick::Rows { held } => Tick::Rows(held.map(|(hold, width)| {
                    ((max_bytes / held_row_bytes(width)).max(1), held_for(hold))
                })),
                ticks::Tick::Filter { settles } => Tick::Filter(*settles),
                ticks::Tick::Built => Tick::Built,
                ticks::Tick::Settled { keep } => Tick::Settled(*keep),
                ticks::Tick::Failed => Tick::Failed,
                ticks::Tick::Concat => Tick::Concat,
                ticks::Tick::Replace => Tick::Replace,
                ticks::Tick::GroupConcat { separator } => Tick::GroupConcat(separator.clone()),
            })
            .collect();
        let counts = Arc::new(ticks.iter().map(|_| AtomicUsize::new(0)).collect());
        Guard {
            ticks,
            counts,
            built: Arc::new(Built::new(max_bytes)),
            stopped: Arc::new(Mutex::new(None)),
        }
    }

    /// Adds the ticks to an evaluator.
    fn register(
        &self,
        mut evaluator: SparqlEvaluator,
        token: &CancellationToken,
        budget: &Budget,
    ) -> SparqlEvaluator {
        let (deadline, timeout) = (budget.deadline(), budget.timeout());
        let stopper = Stopper {
            token: token.clone(),
            stopped: Arc::clone(&self.stopped),
            built: Arc::clone(&self.built),
        };
        for (k, tick) in self.ticks.iter().cloned().enumerate() {
            if let Tick::GroupConcat(separator) = tick {
                let stopper = stopper.clone();
                evaluator = evaluator.with_custom_aggregate_function(function_iri(k), move || {
                    Box::new(GroupConcatTick {
                        state: GroupConcat::new(separator.clone()),
                        stopper: stopper.clone(),
                    })
                });
                continue;
            }
            let (counts, stopper) = (Arc::clone(&self.counts), stopper.clone());
            let timeout = timeout.clone();
            let patterns = Patterns::default();
            evaluator =
                evaluator.with_custom_function(function_iri(k), move |args: &[OxTerm]| {
                    let n = counts
                        .get(k)
                        .map_or(0, |c| c.fetch_add(1, Ordering::Relaxed));
                    let (token, stopped) = (&stopper.token, &stopper.stopped);
                    if token.is_cancelled()
                        || (n % CLOCK_EVERY == CLOCK_EVERY - 1 && Instant::now() > deadline)
                    {
                        abort(timeout.clone(), token, stopped);
                    }
                    let made = match &tick {
                        Tick::Rows(cap) => {
                            if let Some((cap, held)) = cap.filter(|(cap, _)| n >= *cap) {
                                abort(Stop::Held { rows: cap, held }, token, stopped);
                            }
                            return None;
                        }
                        // the filter's own value (or false once stopped); the
                        // strings its expression made are gone
                        Tick::Filter(settles) => {
                            if *settles {
                                stopper.built.settle(None);
                            }
                            return Some(
                                args.first()
                                    .cloned()
                                    .unwrap_or_else(|| Literal::from(false).into()),
                            );
                        }
                        Tick::Settled(keep) => {
                            let value = args.first()?;
                            if stopper.built.settle(keep.then_some(value)) {
                                Ok(Some(value.clone()))
                            } else {
                                Err(strings::TooLarge)
                            }
                        }
                        Tick::Failed => {
                            stopper.built.settle(None);
                            return None;
                        }
                        Tick::Built => {
                            let value = args.first()?;
                            if stopper.built.charge(strings::term_len(value)) {
                                Ok(Some(value.clone()))
                            } else {
                                Err(strings::TooLarge)
                            }
                        }
                        Tick::Concat => strings::concat(args, &stopper.built),
                        Tick::Replace => strings::replace(args, &patterns, &stopper.built),
                        Tick::GroupConcat(_) => Ok(None),
                    };
                    made.unwrap_or_else(|_| {
                        stopper.too_large();
                        None
                    })
                });
        }
        evaluator
    }

    /// The stop a tick recorded (when the query could not unwind), if any.
    pub fn check(&self) -> Result<(), Stop> {
        match self.stopped.lock().ok().and_then(|s| s.clone()) {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }
}

/// What the limits call what the store holds rows for.
fn held_for(hold: Hold) -> Held {
    match hold {
        Hold::Sort => Held::Sort,
        Hold::Group => Held::Group,
        Hold::Deduplicate => Held::Deduplicate,
        Hold::Minus => Held::Minus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxigraph::sparql::QueryResults;
    use oxigraph::store::Store;
    use std::time::Duration;

    fn store(triples: usize) -> Store {
        let store = Store::new().expect("store");
        let text: String = (0..triples)
            .map(|i| format!("<http://x/s{i}> <http://x/p{}> \"{i}\" .\n", i % 7))
            .collect();
        store
            .load_from_slice(oxigraph::io::RdfFormat::NTriples, text.as_bytes())
            .expect("loaded");
        store
    }

    /// (variables, rows as text) of a query run guarded, or why it stopped.
    fn run(
        store: &Store,
        query: &str,
        max_bytes: usize,
        timeout: Duration,
    ) -> Result<(Vec<String>, Vec<String>), Stop> {
        let budget = Budget::new(Instant::now(), timeout, max_bytes);
        let token = CancellationToken::new();
        let ran = run_guarded(|| {
            let (prepared, guard) =
                prepare(query, SparqlEvaluator::new(), &token, &budget).expect("parses");
            let QueryResults::Solutions(solutions) =
                prepared.on_store(store).execute().expect("runs")
            else {
                panic!("not solutions");
            };
            let vars = solutions
                .variables()
                .iter()
                .map(|v| v.as_str().to_string())
                .collect();
            let rows = solutions.map(|s| text(&s.expect("row"))).collect();
            guard.check().map(|()| (vars, rows))
        });
        match ran {
            Ok(result) => result,
            Err(Caught::Stop(stop)) => Err(stop),
            Err(Caught::Panic(p)) => panic!("{p}"),
        }
    }

    fn text(s: &oxigraph::sparql::QuerySolution) -> String {
        s.iter()
            .map(|(v, t)| format!("{v}={t}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn unguarded(store: &Store, query: &str) -> Vec<String> {
        let QueryResults::Solutions(s) = SparqlEvaluator::new()
            .parse_query(query)
            .expect("parses")
            .on_store(store)
            .execute()
            .expect("runs")
        else {
            panic!("not solutions");
        };
        s.map(|s| text(&s.expect("row"))).collect()
    }

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn a_query_within_the_caps_gives_the_same_rows_and_columns() {
        let store = store(50);
        for q in [
            "SELECT * WHERE { ?s ?p ?o } ORDER BY DESC(?o) LIMIT 5",
            "SELECT DISTINCT ?p WHERE { ?s ?p ?o } ORDER BY ?p",
            "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p HAVING (COUNT(*) > 7) ORDER BY ?p",
            "SELECT * WHERE { { SELECT DISTINCT ?p WHERE { ?s ?p ?o } } ?s2 ?p ?o2 } ORDER BY ?s2",
            "SELECT (COUNT(DISTINCT *) AS ?n) WHERE { ?s ?p ?o }",
            "SELECT ?s ?o WHERE { ?s ?p ?o FILTER(STRLEN(?o) > 1 && ?p != <http://x/p3>) } ORDER BY ?s",
            "SELECT ?s ?o WHERE { ?s ?p ?o FILTER(?o) }",
            "SELECT ?s ?x WHERE { ?s <http://x/p1> ?o OPTIONAL { ?s <http://x/p2> ?x } MINUS { ?s <http://x/p1> \"8\" } } ORDER BY ?s",
            "SELECT ?s WHERE { ?s ?p ?o FILTER NOT EXISTS { ?s <http://x/p0> ?o } } ORDER BY ?s",
        ] {
            let (vars, rows) = run(&store, q, 1 << 20, MINUTE).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(rows, unguarded(&store, q), "{q}");
            assert!(!rows.is_empty(), "{q}");
            assert!(
                !vars.iter().any(|v| v.starts_with("qajudge_tick")),
                "{q}: {vars:?}"
            );
        }
    }

    #[test]
    fn what_the_store_would_hold_past_the_cap_stops_the_query() {
        let store = store(60);
        // 60^4 = 13 million rows: never all made
        let cross = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l";
        let cap = 100 * held_row_bytes(13);
        let started = Instant::now();
        let q = format!("SELECT * WHERE {{ {cross} }} ORDER BY ?a");
        assert_eq!(
            run(&store, &q, cap, MINUTE),
            Err(Stop::Held {
                rows: 100,
                held: Held::Sort
            })
        );
        // a count of groups holds a row per group; one count holds none,
        // and stops at its deadline only
        let q = format!("SELECT ?a (COUNT(*) AS ?n) WHERE {{ {cross} }} GROUP BY ?a");
        assert!(matches!(
            run(&store, &q, cap, MINUTE),
            Err(Stop::Held {
                held: Held::Group,
                ..
            })
        ));
        let q = format!("SELECT (COUNT(*) AS ?n) WHERE {{ {cross} }}");
        assert_eq!(
            run(&store, &q, cap, Duration::from_millis(300)),
            Err(Stop::Timeout { ms: 300 })
        );
        let q = format!("SELECT DISTINCT ?a ?d ?g WHERE {{ {cross} }}");
        assert_eq!(
            run(&store, &q, 100 * held_row_bytes(5), MINUTE),
            Err(Stop::Held {
                rows: 100,
                held: Held::Deduplicate
            })
        );
        let q = format!("SELECT * WHERE {{ ?x ?y ?z MINUS {{ {cross} }} }}");
        assert!(matches!(
            run(&store, &q, cap, MINUTE),
            Err(Stop::Held {
                held: Held::Minus,
                ..
            })
        ));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn strings_are_counted_while_made_and_while_kept() {
        let store = store(60);
        let cap = 1 << 20;
        // a filter's strings are gone once it has its value: only the deadline stops it
        let cross = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o";
        let q = format!("SELECT * WHERE {{ {cross} FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j), STR(?m))) < 0) }}");
        assert_eq!(
            run(&store, &q, cap, Duration::from_millis(300)),
            Err(Stop::Timeout { ms: 300 })
        );
        // one expression that makes 16 × 64 KiB, then 16 × that
        let a = "a".repeat(64 << 10);
        let sixteen = |x: &str| vec![x; 16].join(", ");
        let nested = format!(
            "SELECT (STRLEN(CONCAT({})) AS ?n) WHERE {{}}",
            sixteen(&format!("CONCAT({})", sixteen(&format!("\"{a}\""))))
        );
        assert_eq!(
            run(&store, &nested, cap, MINUTE),
            Err(Stop::Built { max: cap })
        );
        // values a BIND keeps add up over the rows: 60 rows of 32 KiB
        let kept = format!(
            "SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o BIND(CONCAT(STR(?s), \"{}\") AS ?x) }}",
            "b".repeat(32 << 10)
        );
        assert_eq!(
            run(&store, &kept, cap, MINUTE),
            Err(Stop::Built { max: cap })
        );
        // a sort key is worked out again for each comparison, and kept by
        // none: 60 keys of 32 KiB sort within 1 MiB
        let sorted = format!(
            "SELECT ?s WHERE {{ ?s ?p ?o }} ORDER BY DESC(CONCAT(STR(?s), \"{}\"))",
            "c".repeat(32 << 10)
        );
        let (_, rows) = run(&store, &sorted, cap, MINUTE).expect("sorted within the cap");
        assert_eq!(rows, unguarded(&store, &sorted));
        // a DISTINCT aggregate keeps what it saw
        let distinct = format!(
            "SELECT (COUNT(DISTINCT CONCAT(STR(?s), \"{}\")) AS ?n) WHERE {{ ?s ?p ?o }}",
            "d".repeat(32 << 10)
        );
        assert_eq!(
            run(&store, &distinct, cap, MINUTE),
            Err(Stop::Built { max: cap })
        );
        // within the cap, the values are the store's
        for q in [
            "SELECT ?x WHERE { BIND(CONCAT(\"a\"@en, \"b\"@en) AS ?x) }",
            "SELECT ?x WHERE { BIND(REPLACE(\"abc\", \"(b)\", \"[$1]\") AS ?x) }",
            "SELECT (GROUP_CONCAT(DISTINCT ?o; SEPARATOR=\"|\") AS ?x) WHERE { ?s <http://x/p1> ?o } ORDER BY ?x",
            "SELECT ?s WHERE { ?s ?p ?o } ORDER BY DESC(UCASE(STR(?o))) LIMIT 3",
            "SELECT ?x WHERE { ?s ?p ?o BIND(xsd:integer(CONCAT(\"x\", ?o)) AS ?x) } LIMIT 3",
        ] {
            let q = format!("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> {q}");
            let (_, rows) = run(&store, &q, cap, MINUTE).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(rows, unguarded(&store, &q), "{q}");
        }
    }

    #[test]
    fn rows_dropped_without_a_read_stop_at_the_deadline() {
        let store = store(60);
        let cross = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o";
        for q in [
            format!("SELECT * WHERE {{ {cross} FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j), STR(?m))) < 0) }}"),
            format!("SELECT DISTINCT ?a ?d ?g WHERE {{ {cross} }}"),
            format!("SELECT * WHERE {{ {cross} }} OFFSET 100000000000"),
            format!("SELECT * WHERE {{ {{ {cross} }} MINUS {{ ?a ?b ?c }} }}"),
        ] {
            let started = Instant::now();
            assert_eq!(
                run(&store, &q, 1 << 30, Duration::from_millis(300)),
                Err(Stop::Timeout { ms: 300 }),
                "{q}"
            );
            let took = started.elapsed();
            assert!(took < Duration::from_millis(1300), "{q}: stopped {took:?} after it began");
        }
    }
}
