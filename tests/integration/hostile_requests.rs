//! Single requests that used to take the server down or hold it for minutes
//! (docs/http-api.md, Limits and security), on the real binary over loopback:
//! a 546-byte query whose `CONCAT`s build a 2.2 GB string (the process
//! aborted), `GROUP_CONCAT` over rows of large strings, basic graph patterns
//! of thousands of triple patterns (the store's optimizer held a query slot
//! and a core for minutes past the deadline), and a large upload to `POST
//! /api/v1/sample` (170 times its size in memory). Each is refused with the
//! bound it passed, within its deadline and a second, in bounded memory, and
//! the server keeps answering.

use std::io::Read;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{get, peak_kb, post_json, tmp, Server};

fn start(name: &str) -> Server {
    Server::start_bare(
        &tmp(name),
        &[
            "--kg",
            "tests/data/demo/kg.ttl",
            // deadlines far past what the caps need, so that a cap, not
            // the machine's speed, decides what each test sees
            "--sparql-timeout-ms",
            "30000",
            "--query-timeout-ms",
            "30000",
            "--max-concurrent-queries",
            "2",
            "--max-query-memory-mb",
            "64",
        ],
    )
}

/// The server's peak resident memory so far, in MB.
fn peak_mb(s: &Server) -> u64 {
    peak_kb(s) / 1024
}

/// (status, body, time taken) of a query sent to `/sparql`.
fn sparql(s: &Server, query: &str) -> (u16, Value, Duration) {
    let started = Instant::now();
    let sent = ureq::post(&s.url("/sparql"))
        .set("Content-Type", "application/sparql-query")
        .set("Accept", "application/sparql-results+json")
        .timeout(Duration::from_secs(120))
        .send_string(query);
    let r = match sent {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error (did the server die?): {e}"),
    };
    let status = r.status();
    let mut body = Vec::new();
    r.into_reader()
        .take(16 << 20)
        .read_to_end(&mut body)
        .expect("a body");
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    (status, body, started.elapsed())
}

fn alive(s: &Server) {
    let (status, body) = get(s, "/api/v1/health");
    assert_eq!(status, 200, "{body}");
    let (status, body, _) = sparql(s, "SELECT (1 AS ?one) WHERE {}");
    assert_eq!(status, 200, "{body}");
}

/// `BIND(CONCAT(?prev ×n) AS ?next)` steps from a 68-character string: the
/// attack's 546-byte query (five ×16 steps, then two ×8: 4.6 GB asked).
fn concat_bomb() -> String {
    let mut q = format!(
        "SELECT (STRLEN(?h) AS ?l) WHERE {{ BIND(\"{}\" AS ?a)",
        "a".repeat(68)
    );
    let steps = [
        ('b', 16),
        ('c', 16),
        ('d', 16),
        ('e', 16),
        ('f', 16),
        ('g', 8),
        ('h', 8),
    ];
    let mut prev = 'a';
    for (var, n) in steps {
        let args = vec![format!("?{prev}"); n].join(",");
        q.push_str(&format!(" BIND(CONCAT({args}) AS ?{var})"));
        prev = var;
    }
    q.push_str(" }");
    q
}

#[test]
fn strings_a_query_builds_are_bounded_by_its_memory_cap() {
    let s = start("hostile-strings");
    let bomb = concat_bomb();
    // REPLACE that multiplies, GROUP_CONCAT over rows of 1.1 MB strings,
    // UCASE of UCASE …: each asks for far more than 64 MB
    let replace = format!(
        "SELECT (STRLEN(?r) AS ?l) WHERE {{ BIND(\"{}\" AS ?a) BIND(REPLACE(?a, \"\", ?a) AS ?b) BIND(REPLACE(?b, \"\", ?b) AS ?r) }}",
        "a".repeat(300)
    );
    let values: Vec<String> = (0..300).map(|i| i.to_string()).collect();
    let group = format!(
        "SELECT (STRLEN(GROUP_CONCAT(?d)) AS ?l) WHERE {{ VALUES ?x {{ {} }} BIND(\"{}\" AS ?a) BIND(CONCAT(?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a,?a) AS ?b) BIND(CONCAT(?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b,?b) AS ?c) BIND(CONCAT(?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c,?c) AS ?d) }}",
        values.join(" "),
        "a".repeat(68)
    );
    for (name, q) in [
        ("concat", bomb.as_str()),
        ("replace", &replace),
        ("group_concat", &group),
    ] {
        // the cap's 413, not the deadline's 503: how soon is the machine's
        let (status, body, _) = sparql(&s, q);
        assert_eq!(status, 413, "{name}: {body}");
        assert_eq!(body["error"]["code"], "result_too_large", "{name}: {body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("builds more than 67108864 bytes of strings"),
            "{name}: {message}"
        );
        alive(&s);
    }
    // a query within the cap is answered as before
    let (status, body, _) = sparql(
        &s,
        "SELECT (CONCAT(\"a\"@en, \"b\"@en) AS ?x) (REPLACE(\"abc\", \"b\", \"[$0]\") AS ?y) (GROUP_CONCAT(?v; separator=\"|\") AS ?z) WHERE { VALUES ?v { \"1\" \"2\" } }",
    );
    assert_eq!(status, 200, "{body}");
    let row = &body["results"]["bindings"][0];
    assert_eq!(row["x"]["value"], "ab");
    assert_eq!(row["x"]["xml:lang"], "en");
    assert_eq!(row["y"]["value"], "a[b]c");
    assert_eq!(row["z"]["value"], "1|2");
    // through an evaluation's run queries too: the question's error, not the server's
    let question = |id: &str, sparql: &str| json!({"id": id, "question": [{"language": "en", "string": "q"}], "query": {"sparql": sparql}});
    let body = json!({
        "gold": "demo",
        "runs": [{"name": "x", "document": {"questions": [question("1", &bomb)]}}],
        "experiments": ["qa"],
        "execute_run": true,
    });
    let (status, report) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{report}");
    let q = &report["runs"][0]["experiments"]["qa"]["questions"];
    let execution = q
        .as_array()
        .and_then(|qs| qs.iter().find(|q| q["id"] == "1"))
        .map(|q| q["execution"].clone())
        .unwrap_or(Value::Null);
    assert_eq!(execution["status"], "execution_error", "{execution}");
    assert!(
        execution["message"]
            .as_str()
            .is_some_and(|m| m.contains("builds more than")),
        "{execution}"
    );
    alive(&s);
    // 64 MB per query: far from the 2.2 GB the bomb asked for
    let peak = peak_mb(&s);
    assert!(peak < 600, "the server peaked at {peak} MB");
}

#[test]
fn too_many_triple_patterns_are_refused_before_the_optimizer_sees_them() {
    let s = start("hostile-patterns");
    let separate: String = (0..500)
        .map(|i| format!("?s{i} <http://x/p> ?o{i} . "))
        .collect();
    let chained: String = (0..1000)
        .map(|i| format!("<http://x/p> ?o{i} ; "))
        .collect();
    // two groups of 48 that share a variable: the optimizer joins them into one
    let groups: String = (0..2)
        .map(|g| {
            let star: String = (0..48)
                .map(|i| format!("?s <http://x/p{g}_{i}> ?o{g}_{i} . "))
                .collect();
            format!("{{ {star} }} ")
        })
        .collect();
    for (q, figure) in [
        (
            format!("SELECT * WHERE {{ {separate} }}"),
            "500 triple patterns",
        ),
        (
            format!("SELECT * WHERE {{ ?s {chained} <http://x/p> ?last }}"),
            "1001 triple patterns",
        ),
        (
            format!("SELECT * WHERE {{ {groups} }}"),
            "96 triple patterns",
        ),
    ] {
        let (status, body, _) = sparql(&s, &q);
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"]["code"], "query_too_large", "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(figure), "{message}");
    }
    // a SERVICE named by a variable is refused as one named by an IRI
    let (status, body, _) = sparql(&s, "SELECT * WHERE { SERVICE ?x { ?s ?p ?o } }");
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "service_not_allowed", "{body}");
    // 16,000 variables: the parser compares a SELECT's variables pairwise
    let names: String = (0..8000)
        .map(|i| format!("?s{i} <http://x/p> ?o{i} . "))
        .collect();
    // refused by a count before the parser (the message gives it), not by
    // the parser's time
    let (status, body, _) = sparql(&s, &format!("SELECT * WHERE {{ {names} }}"));
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("16000 variable names, at most 1024")),
        "{body}"
    );
    let annotate = serde_json::json!({"sparql": format!("SELECT * WHERE {{ {names} }}")});
    let (status, body) = post_json(&s, "/api/v1/annotate", &annotate.to_string());
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "query_too_large", "{body}");
    // the largest query admitted, the optimizer's worst case (every pattern
    // shares a variable), is planned and answered within the deadline
    let largest: String = (0..64)
        .map(|i| format!("?s <http://x/p{i}> ?o{i} . "))
        .collect();
    // a 200 is an answer before the deadline (past it the server says 503)
    let (status, body, _) = sparql(&s, &format!("SELECT * WHERE {{ {largest} }}"));
    assert_eq!(status, 200, "{body}");
    alive(&s);
}

/// A QALD-JSON benchmark of `n` questions with queries, about 290 bytes each.
fn many_questions(n: usize) -> String {
    let questions: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "id": i.to_string(),
                "question": [{"language": "en", "string": format!("Which river flows through the city number {i}?")}],
                "query": {"sparql": format!("SELECT ?r WHERE {{ ?r <http://dbpedia.org/ontology/city> <http://dbpedia.org/resource/C{i}> }}")},
            })
        })
        .collect();
    json!({"questions": questions}).to_string()
}

#[test]
fn an_uploaded_benchmark_is_sampled_in_memory_linear_in_its_size() {
    let s = start("hostile-sample");
    let gold = many_questions(20_000);
    let mb = gold.len() / (1 << 20);
    let before = peak_mb(&s);
    let body = format!(
        "{{\"gold\": {gold}, \"gold_name\": \"many.json\", \"features\": [\"words\", \"triple_patterns\"], \"size\": 10, \"method\": \"kmeans++\", \"trials\": 1}}"
    );
    let (status, b) = post_json(&s, "/api/v1/sample", &body);
    assert_eq!(status, 200, "{b}");
    assert_eq!(b["candidates"], 20_000, "{b}");
    let grew = peak_mb(&s).saturating_sub(before);
    eprintln!("a {mb} MB upload of 20,000 questions: the peak grew by {grew} MB");
    // was 1.2 GB for this upload (about 210 times its size)
    assert!(
        grew < 40 * mb as u64 + 100,
        "the peak grew by {grew} MB for a {mb} MB upload"
    );
    // more questions than the route samples, or a quadratic method on too
    // many candidates: 413 naming the bound
    let too_many = many_questions(50_001);
    let body = format!("{{\"gold\": {too_many}, \"features\": [\"words\"], \"size\": 10}}");
    let (status, b) = post_json(&s, "/api/v1/sample", &body);
    assert_eq!(status, 413, "{b}");
    assert_eq!(b["error"]["code"], "payload_too_large", "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("50001 questions") && m.contains("50000")),
        "{b}"
    );
    let body = format!(
        "{{\"gold\": {gold}, \"features\": [\"words\", \"triple_patterns\"], \"size\": 10, \"method\": \"agglomerative\"}}"
    );
    let (status, b) = post_json(&s, "/api/v1/sample", &body);
    assert_eq!(status, 413, "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("more than this server draws")),
        "{b}"
    );
    alive(&s);
}

/// A loopback endpoint that answers every request with a redirect to a file.
fn redirecting_endpoint() -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/sparql", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("stream"));
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let _ = stream.write_all(
                b"HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    url
}

#[test]
fn an_endpoint_redirecting_to_a_file_is_an_execution_error_not_a_panic() {
    let endpoint = redirecting_endpoint();
    let s = Server::start_bare(&tmp("hostile-redirect"), &["--endpoint", &endpoint]);
    let run = std::fs::read(crate::serve::root().join(crate::serve::RUN)).expect("run");
    let submit = |refresh: &[u8]| {
        crate::serve::post_form(
            &s,
            &[
                ("benchmark", None, b"demo"),
                ("run", Some("example-system.json"), &run),
                ("refresh_gold", None, refresh),
            ],
        )
    };
    let (status, created) = submit(b"true");
    assert_eq!(status, 202, "{created}");
    // the gold queries fail to execute, each with the reason; nothing panics
    let done = crate::serve::wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let text = done["report"].to_string();
    assert!(
        text.contains("file:///etc/passwd") && text.contains("which is not followed"),
        "{}",
        &text[..text.len().min(2000)]
    );
    // the worker lives: the server is healthy and the next experiment runs
    let (status, health) = get(&s, "/api/v1/health");
    assert_eq!(
        (status, health["worker"].as_str()),
        (200, Some("ok")),
        "{health}"
    );
    let (status, created) = submit(b"false");
    assert_eq!(status, 202, "{created}");
    assert_eq!(crate::serve::wait(&s, &created)["status"], "done");
}

#[test]
fn an_experiment_takes_at_most_twenty_runs() {
    let s = Server::start_bare(&tmp("hostile-runs"), &[]);
    let run = std::fs::read(crate::serve::root().join(crate::serve::RUN)).expect("run");
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("benchmark", None, b"demo")];
    let names: Vec<String> = (0..21).map(|i| format!("run{i}.json")).collect();
    for name in &names {
        parts.push(("run", Some(name.as_str()), &run));
    }
    let (status, body) = crate::serve::post_form(&s, &parts);
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "too_many_runs", "{body}");
    parts.pop();
    let (status, created) = crate::serve::post_form(&s, &parts);
    assert_eq!(status, 202, "{created}");
}

#[test]
fn the_pages_forbid_frames_and_run_only_their_own_script() {
    let s = Server::start_bare(&tmp("hostile-headers"), &[]);
    for path in ["/", "/api/v1/docs"] {
        let r = ureq::get(&s.url(path)).call().expect("the page");
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(
            r.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        let policy = r
            .header("content-security-policy")
            .unwrap_or_default()
            .to_string();
        assert!(
            policy.contains("frame-ancestors 'none'")
                && policy.contains("script-src 'sha256-")
                && !policy.contains("unsafe-eval")
                && !policy.contains("script-src 'unsafe-inline'"),
            "{path}: {policy}"
        );
    }
}

/// A gold of `n` questions of an id alone (`{"id": "N"}`, some 16 bytes each):
/// in memory each was a record of some 800 bytes.
fn bare_questions(n: usize) -> String {
    let mut out = String::with_capacity(n * 16 + 20);
    out.push_str("{\"questions\": [");
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("{{\"id\": \"{i}\"}}"));
    }
    out.push_str("]}");
    out
}

#[test]
fn documents_of_more_questions_than_a_request_holds_are_refused_before_they_are_read() {
    let s = start("hostile-questions");
    let gold = bare_questions(300_000);
    let mb = gold.len() / (1 << 20) + 1;
    let before = peak_mb(&s);
    // inline, with a run of none: 413 naming the cap, before any question is
    // built (was: read, then scored or past the time limit; at 3,000,000
    // questions the process aborted)
    let body = format!(
        "{{\"gold\": {{\"name\": \"bare.json\", \"document\": {gold}}}, \"runs\": [{{\"name\": \"none.json\", \"document\": {{\"questions\": []}}}}]}}"
    );
    let (status, b) = post_json(&s, "/api/v1/evaluate", &body);
    assert_eq!(status, 413, "{b}");
    assert_eq!(b["error"]["code"], "payload_too_large", "{b}");
    let message = b["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("200000") && message.contains("a gold of up to 30000"),
        "{message}"
    );
    // the same gold as the text of a file, and as an experiment's file
    let body = json!({"gold": {"name": "bare.json", "text": gold}, "runs": [{"document": {"questions": []}}]});
    let (status, b) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 413, "{b}");
    let run = std::fs::read(crate::serve::root().join(crate::serve::RUN)).expect("run");
    let (status, b) = crate::serve::post_form(
        &s,
        &[
            ("gold", Some("bare.json"), gold.as_bytes()),
            ("run", Some("example-system.json"), &run),
        ],
    );
    assert_eq!(status, 413, "{b}");
    assert!(
        b["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("200000")),
        "{b}"
    );
    // a registered gold scored for more runs than the request holds rows for
    // is counted too; a gold under the cap is read and scored
    let (status, b) = post_json(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": {"document": serde_json::from_str::<Value>(&bare_questions(1_000)).expect("json")}, "runs": [{"document": {"questions": [{"id": "1", "answers": []}]}}]}).to_string(),
    );
    assert_eq!(status, 200, "{b}");
    let grew = peak_mb(&s).saturating_sub(before);
    eprintln!("three {mb} MB documents of 300,000 questions refused: the peak grew by {grew} MB");
    assert!(grew < 8 * mb as u64 + 50, "the peak grew by {grew} MB");
    alive(&s);
}
