//! The limits of the queries an open server runs (issue 38, item 4), on the
//! real binary over loopback: cross products of five patterns, whose results
//! would take far more than any deadline and any memory, sent to `/sparql`
//! (over one published experiment: about 1 800 statements, so 10^16 rows) and
//! as run queries of `POST /api/v1/evaluate` with `execute_run` (over the demo
//! graph: 80 statements, 3·10^9 rows). Each ends within its deadline and one
//! second, as an error that names the limit it passed, and the server's peak
//! memory (`VmHWM`) stays under [`PEAK_KB`]. Beyond `--max-concurrent-queries`
//! a query gets 503 `busy` with `Retry-After`; the stopped queries give their
//! slots back at once, and the server keeps answering.

use std::io::Read;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{get, peak_kb, post_form, post_json, post_with_token, tmp, wait, Server, RUN};

/// The deadline of every query (`--sparql-timeout-ms`, `--query-timeout-ms`).
const DEADLINE: Duration = Duration::from_millis(2000);
/// How long after its deadline a query may end.
const SLACK: Duration = Duration::from_secs(1);
/// The bound on the server's peak resident memory, in kB. The server itself
/// (debug build, demo graph, no index) peaks near 70 MB; its two query slots
/// may each use `--max-query-memory-mb 64` (an estimate: allow half as much
/// again), plus 1.25 MiB of stream buffers each: 70 + 2 × 96 ≈ 260 MB. The
/// same queries reached 4 to 12 GB before the limits.
const PEAK_KB: u64 = 400 * 1024;

/// Five patterns that share no variable.
const CROSS: &str = "?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o";

/// A filter over the whole cross product that drops every row.
fn no_row() -> String {
    format!("SELECT * WHERE {{ {CROSS} FILTER(STRLEN(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j), STR(?m))) < 0) }}")
}

/// A server on the demo graph with short deadlines, two query slots and
/// `memory_mb` per query.
fn start(name: &str, memory_mb: &str) -> Server {
    Server::start_bare(
        &tmp(name),
        &[
            "--kg",
            "tests/data/demo/kg.ttl",
            "tests/data/demo/facts.ttl",
            "--sparql-timeout-ms",
            "2000",
            "--query-timeout-ms",
            "2000",
            "--max-concurrent-queries",
            "2",
            "--max-query-memory-mb",
            memory_mb,
        ],
    )
}

fn assert_memory(s: &Server, after: &str) {
    let kb = peak_kb(s);
    assert!(
        kb < PEAK_KB,
        "after {after}: the server peaked at {} MB",
        kb / 1024
    );
}

/// Publishes one evaluated experiment, so that `/sparql` has statements.
fn publish(s: &Server) {
    let run = std::fs::read(crate::serve::root().join(RUN)).expect("run");
    let (status, created) = post_form(
        s,
        &[
            ("benchmark", None, b"demo"),
            ("run", Some("example-system.json"), &run),
        ],
    );
    assert_eq!(status, 202, "{created}");
    assert_eq!(wait(s, &created)["status"], "done");
    let id = created["id"].as_str().expect("id");
    let token = created["token"].as_str().expect("token");
    let (status, p) = post_with_token(s, &format!("/api/v1/experiments/{id}/publish"), token);
    assert_eq!(status, 200, "{p}");
}

/// What `/sparql` answered.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: String,
    /// False when the body was cut short.
    complete: bool,
    took: Duration,
}

impl Answer {
    fn error(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.body);
        let e = self.error();
        assert_eq!(e["error"]["code"], code, "{}", self.body);
    }
}

fn sparql(s: &Server, query: &str, accept: &str) -> Answer {
    let started = Instant::now();
    let sent = ureq::post(&s.url("/sparql"))
        .set("Content-Type", "application/sparql-query")
        .set("Accept", accept)
        .timeout(Duration::from_secs(60))
        .send_string(query);
    let r = match sent {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let (status, retry_after) = (r.status(), r.header("retry-after").map(str::to_string));
    let mut body = Vec::new();
    // at most 256 MiB are read: a longer body fails the test below
    let complete = r
        .into_reader()
        .take(256 << 20)
        .read_to_end(&mut body)
        .is_ok();
    Answer {
        status,
        retry_after,
        body: String::from_utf8_lossy(&body).into_owned(),
        complete,
        took: started.elapsed(),
    }
}

fn healthy(s: &Server) {
    let (status, body) = get(s, "/api/v1/health");
    assert_eq!(status, 200, "{body}");
}

#[test]
fn sparql_cross_products_end_at_a_limit_in_bounded_memory() {
    let s = start("query-limits-sparql", "64");
    publish(&s);
    let count = sparql(&s, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "text/csv");
    assert_eq!(count.status, 200, "{}", count.body);
    let n: u64 = count
        .body
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .expect("a count");
    // one experiment's Data Cube: its cross product with itself is
    // hundreds of thousands of rows, far past the limits below
    assert!(n > 500, "{n} statements");

    // streamed past its first MiB, then cut short at its deadline or its bytes
    let all = sparql(
        &s,
        &format!("SELECT * WHERE {{ {CROSS} }}"),
        "application/sparql-results+json",
    );
    assert_eq!(all.status, 200);
    assert!(!all.complete, "the answer of 10^16 rows is cut short");
    assert!(
        all.body.starts_with("{\"head\":{\"vars\":[\"a\","),
        "{}",
        &all.body[..200.min(all.body.len())]
    );
    assert!(
        all.body.len() >= 1 << 20 && all.body.len() <= 64 << 20,
        "{}",
        all.body.len()
    );
    assert!(all.took < DEADLINE + SLACK, "{:?}", all.took);
    assert_memory(&s, "a streamed cross product");

    // a sort and a grouped count would hold every row: refused at the memory cap
    for (query, held) in [
        (
            format!("SELECT * WHERE {{ {CROSS} }} ORDER BY ?a"),
            "to sort them",
        ),
        (
            format!("SELECT ?a (COUNT(*) AS ?n) WHERE {{ {CROSS} }} GROUP BY ?a"),
            "to group them",
        ),
    ] {
        let a = sparql(&s, &query, "text/csv");
        a.assert_error(413, "result_too_large");
        let message = a.error()["error"]["message"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            message.contains(held) && message.contains("--max-query-memory-mb"),
            "{message}"
        );
        assert!(a.took < DEADLINE + SLACK, "{query}: {:?}", a.took);
        assert_memory(&s, &query);
    }

    // a filter that drops every row, and one count of every row, hold
    // nothing: stopped at their deadline
    for query in [
        no_row(),
        format!("SELECT (COUNT(*) AS ?n) WHERE {{ {CROSS} }}"),
    ] {
        let a = sparql(&s, &query, "text/csv");
        a.assert_error(503, "timeout");
        assert!(
            a.took >= DEADLINE - Duration::from_millis(100) && a.took < DEADLINE + SLACK,
            "{query}: {:?}",
            a.took
        );
        assert_memory(&s, &query);
    }

    // both slots are free at once: the stopped queries ended in the store too
    let ask = sparql(&s, "ASK { ?s ?p ?o }", "application/sparql-results+json");
    assert_eq!(
        (ask.status, ask.body.as_str()),
        (200, r#"{"head":{},"boolean":true}"#)
    );
    healthy(&s);
}

#[test]
fn a_query_beyond_the_concurrent_ones_is_busy_and_the_server_keeps_answering() {
    let s = Arc::new(start("query-limits-busy", "64"));
    publish(&s);
    let barrier = Arc::new(Barrier::new(3));
    let answers: Vec<Answer> = (0..3)
        .map(|_| {
            let (s, barrier) = (Arc::clone(&s), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                sparql(&s, &no_row(), "text/csv")
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|t| t.join().expect("a client"))
        .collect();
    let busy: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.error()["error"]["code"] == "busy")
        .collect();
    assert_eq!(
        busy.len(),
        1,
        "statuses: {:?}",
        answers.iter().map(|a| &a.body).collect::<Vec<_>>()
    );
    busy[0].assert_error(503, "busy");
    assert_eq!(busy[0].retry_after.as_deref(), Some("2"));
    assert!(
        busy[0].took < Duration::from_millis(500),
        "{:?}",
        busy[0].took
    );
    for a in answers
        .iter()
        .filter(|a| a.error()["error"]["code"] != "busy")
    {
        a.assert_error(503, "timeout");
        assert!(a.took < DEADLINE + SLACK, "{:?}", a.took);
    }
    assert_memory(&s, "three cross products at once");
    healthy(&s);
    // a cancelled query gives its slot back once its thread has seen the
    // stop: on a loaded machine a moment after its 503 (bounded wait)
    let mut ask = sparql(&s, "ASK { ?s ?p ?o }", "text/csv");
    for _ in 0..50 {
        if ask.status == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
        ask = sparql(&s, "ASK { ?s ?p ?o }", "text/csv");
    }
    assert_eq!(ask.status, 200, "a slot is free again: {}", ask.body);
}

#[test]
fn run_queries_of_an_evaluation_end_at_a_limit_in_bounded_memory() {
    let s = start("query-limits-evaluate", "64");
    let question = |id: &str, sparql: String| json!({"id": id, "question": [{"language": "en", "string": "q"}], "query": {"sparql": sparql}});
    let body = json!({
        "gold": "demo",
        "runs": [{"name": "x", "document": {"questions": [
            question("1", format!("SELECT * WHERE {{ {CROSS} }} ORDER BY ?a")),
            question("2", format!("SELECT * WHERE {{ {CROSS} }}")),
            question("3", no_row()),
        ]}}],
        "experiments": ["qa"],
        "execute_run": true,
    });
    let started = Instant::now();
    let (status, report) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{report}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let questions = report["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions");
    let execution = |id: &str| -> Value {
        questions
            .iter()
            .find(|q| q["id"] == id)
            .map(|q| q["execution"].clone())
            .unwrap_or_else(|| panic!("question {id} in {report}"))
    };
    let ms = |e: &Value| e["ms"].as_f64().expect("ms");
    let limit_ms = (DEADLINE + SLACK).as_millis() as f64;

    // the sort: refused at the memory cap, long before its deadline
    let sorted = execution("1");
    assert_eq!(sorted["status"], "execution_error", "{sorted}");
    assert!(
        sorted["message"]
            .as_str()
            .is_some_and(|m| m.contains("to sort them")),
        "{sorted}"
    );
    assert!(ms(&sorted) < limit_ms, "{sorted}");

    // the plain product: stopped at its bytes (or its deadline, on a slow machine)
    let all = execution("2");
    let by_bytes = all["status"] == "execution_error"
        && all["message"]
            .as_str()
            .is_some_and(|m| m.contains("the results pass"));
    assert!(by_bytes || all["status"] == "timeout", "{all}");
    assert!(ms(&all) < limit_ms, "{all}");

    // the filter: stopped at its deadline
    let filtered = execution("3");
    assert_eq!(filtered["status"], "timeout", "{filtered}");
    assert!(ms(&filtered) < limit_ms, "{filtered}");

    assert_memory(&s, "an evaluation's cross products");
    healthy(&s);
}
