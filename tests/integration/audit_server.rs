//! `GET /api/v1/benchmarks/{name}/audit` (docs/audit.md, On the server) on
//! a real `qajudge serve`: CK25 registered with its graph (`--benchmark-kg`)
//! is audited with its queries executed, and warns about q29's ties at the
//! edge of its window; DB25's YAML, registered without one, gets the checks
//! on the gold alone and warns about question 1's `SELECT DISTINCT COUNT`.
//! Both are the reports `qajudge audit --format json` prints for the same
//! gold and graph (one implementation of the store). An audit past its
//! `timeout_ms` is a 503 and is not kept; an unknown benchmark is a 404, a
//! `repeat` out of 1..=5 a 400, and the route is in the OpenAPI document. The page's Audit section is tested in a browser in
//! tests/integration/browser.rs.

use serde_json::Value;

use crate::cli::{qajudge, stderr, stdout};
use crate::serve::{get, tmp, Server};

/// `qajudge audit --format json` with `args`.
fn cli_audit(args: &[&str]) -> Value {
    let mut all = vec!["audit", "--format", "json"];
    all.extend_from_slice(args);
    let o = qajudge(&all);
    serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)))
}

/// The findings of question `id` with `code`.
fn findings<'a>(report: &'a Value, id: &str, code: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["question"] == id && f["code"] == code)
        .collect()
}

#[test]
fn a_registered_benchmark_is_audited_with_its_graph_or_without_one() {
    let data = crate::require_data!();
    let (ck25, files) = crate::text2sparql::ck25(&data);
    let db25 = data.join("text2sparql/benchmark/questions_db25.yaml");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let (ck25, db25) = (path(&ck25), path(&db25));
    let files: Vec<String> = files.iter().map(|f| path(f)).collect();
    let mut args = vec![
        "--benchmark".to_string(),
        format!("ck25={ck25}"),
        "--benchmark".to_string(),
        format!("db25={db25}"),
    ];
    for f in &files {
        args.push("--benchmark-kg".into());
        args.push(format!("ck25={f}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = Server::start_bare(&tmp("audit"), &args);

    // CK25 with its graph: executed three times on the embedded store
    let (status, r) = get(&s, "/api/v1/benchmarks/ck25/audit");
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["questions"], 50);
    assert_eq!(r["repeat"], 3);
    assert_eq!(r["stores"], serde_json::json!(["the embedded store"]));
    let ties = findings(&r, "ck25:29-en", "ties_at_edge");
    assert_eq!(ties.len(), 1, "{}", r["findings"]);
    assert_eq!(ties[0]["severity"], "warning");
    let evidence = ties[0]["evidence"].as_str().expect("evidence");
    assert!(
        evidence.contains("rows 10 and 11 tie") && evidence.contains("rows 15 and 16 tie"),
        "{evidence}"
    );
    assert!(ties[0]["action"].as_str().is_some_and(|a| !a.is_empty()));
    // the counts are those of the findings
    let of = |severity: &str| {
        r["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["severity"] == severity)
            .count() as u64
    };
    for severity in ["error", "warning", "note"] {
        assert_eq!(
            r["counts"][severity].as_u64(),
            Some(of(severity)),
            "{severity}"
        );
    }
    // the report of the command line on the same gold and graph
    let mut cli = vec!["--gold", ck25.as_str(), "--kg"];
    cli.extend(files.iter().map(String::as_str));
    assert_eq!(cli_audit(&cli), r);
    // asked again: the kept report, the same
    let (status, again) = get(&s, "/api/v1/benchmarks/ck25/audit?repeat=3");
    assert_eq!(status, 200);
    assert_eq!(again, r);

    // DB25 without a graph: the gold alone, question 1's counted ?author
    let (status, r) = get(&s, "/api/v1/benchmarks/db25/audit");
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["stores"], serde_json::json!([]));
    let distinct = findings(&r, "db25:1-en", "distinct_count");
    assert_eq!(distinct.len(), 1, "{}", r["findings"]);
    assert_eq!(distinct[0]["severity"], "warning");
    let evidence = distinct[0]["evidence"].as_str().expect("evidence");
    assert!(evidence.contains("?author can repeat"), "{evidence}");
    assert_eq!(cli_audit(&["--gold", db25.as_str()]), r);
    // under the text2sparql profile, a report of its own
    let (status, t) = get(&s, "/api/v1/benchmarks/db25/audit?profile=text2sparql");
    assert_eq!(status, 200, "{t}");
    assert_eq!(findings(&t, "db25:1-en", "distinct_count").len(), 1);

    // past its time limit: a 503, and nothing kept of the cut audit
    let (status, e) = get(&s, "/api/v1/benchmarks/ck25/audit?repeat=1&timeout_ms=1");
    assert_eq!(status, 503, "{e}");
    assert_eq!(e["error"]["code"], "timeout", "{e}");
    let (status, whole) = get(&s, "/api/v1/benchmarks/ck25/audit?repeat=1");
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["repeat"], 1);
    assert_eq!(findings(&whole, "ck25:29-en", "ties_at_edge").len(), 1);
    assert!(
        findings(&whole, "ck25:29-en", "timeout").is_empty(),
        "{}",
        whole["findings"]
    );

    // what is refused
    let error = |path: &str, status: u16, code: &str| {
        let (got, e) = get(&s, path);
        assert_eq!(got, status, "{path}: {e}");
        assert_eq!(e["error"]["code"], code, "{path}: {e}");
        e["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let message = error("/api/v1/benchmarks/nothing/audit", 404, "not_found");
    assert!(message.contains("\"nothing\""), "{message}");
    for bad in ["0", "6", "100000"] {
        let message = error(
            &format!("/api/v1/benchmarks/ck25/audit?repeat={bad}"),
            400,
            "bad_parameter",
        );
        assert!(message.contains("give 1 to 5"), "{message}");
    }
    error(
        "/api/v1/benchmarks/ck25/audit?repeat=three",
        400,
        "bad_query",
    );
    error(
        "/api/v1/benchmarks/ck25/audit?profile=nope",
        400,
        "bad_parameter",
    );
    let message = error(
        "/api/v1/benchmarks/ck25/audit?profile=",
        400,
        "bad_parameter",
    );
    assert!(message.contains("profile= is empty"), "{message}");
    error(
        "/api/v1/benchmarks/ck25/audit?timeout_ms=0",
        400,
        "bad_parameter",
    );

    // the route and its report in the OpenAPI document
    let (status, doc) = get(&s, "/api/v1/openapi.json");
    assert_eq!(status, 200);
    let op = &doc["paths"]["/api/v1/benchmarks/{name}/audit"]["get"];
    assert!(op.is_object(), "{}", doc["paths"]);
    assert_eq!(
        op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/AuditReport"
    );
    for status in ["400", "404", "503"] {
        assert!(op["responses"][status].is_object(), "{status}");
    }
    let repeat = op["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .find(|p| p["name"] == "repeat")
        .expect("the repeat parameter");
    assert_eq!(repeat["in"], "query");
    assert_eq!(repeat["schema"]["maximum"], 5);
    let schemas = &doc["components"]["schemas"];
    for (name, fields) in [
        (
            "AuditReport",
            &[
                "questions",
                "with_query",
                "stores",
                "repeat",
                "counts",
                "findings",
            ][..],
        ),
        (
            "Finding",
            &["question", "code", "severity", "evidence", "action"][..],
        ),
        ("Counts", &["error", "warning", "note"][..]),
    ] {
        for field in fields {
            assert!(
                schemas[name]["properties"][field].is_object(),
                "{name}.{field}: {}",
                schemas[name]
            );
        }
    }
    assert_eq!(
        schemas["Severity"]["enum"],
        serde_json::json!(["note", "warning", "error"])
    );
}

/// A loopback SPARQL endpoint for the demo gold's queries: it answers 500
/// until `healthy`, one row after; `asked` counts the queries.
struct Endpoint {
    url: String,
    asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    healthy: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Endpoint {
    fn start(healthy: bool) -> Endpoint {
        Endpoint::start_slow(healthy, std::time::Duration::ZERO)
    }

    /// An endpoint that waits `delay` before each answer.
    fn start_slow(healthy: bool, delay: std::time::Duration) -> Endpoint {
        use std::io::{BufRead, BufReader, Read, Write};
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::Arc;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}/sparql", listener.local_addr().expect("address"));
        let (asked, healthy) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(healthy)),
        );
        let (a, h) = (asked.clone(), healthy.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(500) {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("stream"));
                let (mut line, mut length) = (String::new(), 0usize);
                while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut body = vec![0; length.min(1 << 20)];
                let _ = reader.read_exact(&mut body);
                a.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(delay);
                let (status, body) = if h.load(Ordering::SeqCst) {
                    (
                        "200 OK",
                        r#"{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://ex/a"}}]}}"#,
                    )
                } else {
                    ("500 Internal Server Error", "down for a moment")
                };
                let kind = if status.starts_with("200") {
                    "application/sparql-results+json"
                } else {
                    "text/plain"
                };
                let _ = stream.write_all(
                    format!("HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).as_bytes(),
                );
            }
        });
        Endpoint {
            url,
            asked,
            healthy,
        }
    }

    fn asked(&self) -> usize {
        self.asked.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn an_audit_whose_executions_failed_is_not_kept() {
    use std::sync::atomic::Ordering;
    let endpoint = Endpoint::start(false);
    let s = Server::start_bare(&tmp("audit-transient"), &["--endpoint", &endpoint.url]);
    let path = "/api/v1/benchmarks/demo/audit?repeat=1";
    let (status, down) = get(&s, path);
    assert_eq!(status, 200, "{down}");
    assert!(
        !findings_coded(&down, "execution_failed").is_empty(),
        "{down}"
    );
    let asked = endpoint.asked();
    // the endpoint is back: the next call executes again (it answered the
    // failed report from memory until the server restarted)
    endpoint.healthy.store(true, Ordering::SeqCst);
    let (status, up) = get(&s, path);
    assert_eq!(status, 200, "{up}");
    assert!(findings_coded(&up, "execution_failed").is_empty(), "{up}");
    assert!(endpoint.asked() > asked, "nothing executed again");
    // a whole report is kept
    let asked = endpoint.asked();
    let (status, again) = get(&s, path);
    assert_eq!((status, &again), (200, &up));
    assert_eq!(endpoint.asked(), asked);
}

/// The findings of any question with `code`.
fn findings_coded<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == code)
        .collect()
}

/// A client that disconnects stops its audit: its `timeout_ms` of ten
/// minutes no longer holds one of the two places while queries run for
/// nobody (at most the query in flight ends after it went).
#[test]
fn a_client_that_disconnects_stops_its_audit() {
    use std::io::Write;
    use std::time::Duration;
    let endpoint = Endpoint::start_slow(true, Duration::from_millis(300));
    let s = Server::start_bare(&tmp("audit-disconnect"), &["--endpoint", &endpoint.url]);
    let address = s.base.trim_start_matches("http://").trim_end_matches('/');
    let mut client = std::net::TcpStream::connect(address).expect("the server");
    client
        .write_all(
            b"GET /api/v1/benchmarks/demo/audit?repeat=5&timeout_ms=600000 HTTP/1.1\r\nHost: qajudge\r\n\r\n",
        )
        .expect("sent");
    // 65 executions of 300 ms: the audit has far to go when the client leaves
    let started = std::time::Instant::now();
    while endpoint.asked() < 3 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(endpoint.asked() >= 3, "the audit never started");
    drop(client);
    // quiet: no new query in a window of five answers' time, bounded
    let mut before = endpoint.asked();
    let mut quiet = false;
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(1500));
        let now = endpoint.asked();
        if now == before {
            quiet = true;
            break;
        }
        before = now;
    }
    assert!(
        quiet && endpoint.asked() < 20,
        "the audit went on after its client left: {} queries",
        endpoint.asked()
    );
}
