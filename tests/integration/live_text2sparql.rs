//! A live TEXT2SPARQL system: a real HTTP server on loopback speaking the
//! challenge's API (`GET ?dataset=ID&question=TEXT`, answer `{dataset, question,
//! query}`), answering the CK25 questions with the queries the INFAI system
//! really returned, except one syntax error, one answer past the timeout and one
//! HTTP 500 before a success. The run is killed midway and started again with
//! the same answer cache: only the questions not yet cached are asked.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{get, percent_decode, post_form, root, tmp, wait, Server};

const DATASET: &str = "https://text2sparql.aksw.org/2025/corporate/";

/// The test system's state, shared with the test.
#[derive(Default)]
pub struct System {
    /// Requests received per question text.
    pub asked: Mutex<BTreeMap<String, usize>>,
    /// Requests received in all.
    pub total: AtomicUsize,
    /// After this many requests every answer hangs (the run is then killed).
    pub hang_after: AtomicUsize,
}

/// The query params of a request line `GET /path?a=b&c=d HTTP/1.1`.
fn params(request_line: &str) -> BTreeMap<String, String> {
    let target = request_line.split(' ').nth(1).unwrap_or_default();
    let query = target.split_once('?').map(|(_, q)| q).unwrap_or_default();
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), percent_decode(&v.replace('+', " "))))
        .collect()
}

/// Starts the system; `queries` maps a question text to (qname, query).
pub fn start_system(queries: BTreeMap<String, (String, String)>) -> (String, Arc<System>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let state = Arc::new(System {
        hang_after: AtomicUsize::new(usize::MAX),
        ..System::default()
    });
    let shared = Arc::clone(&state);
    let queries = Arc::new(queries);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let state = Arc::clone(&shared);
            let queries = Arc::clone(&queries);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                    return;
                }
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                }
                let p = params(&request_line);
                let question = p.get("question").cloned().unwrap_or_default();
                let n = state.total.fetch_add(1, Ordering::SeqCst) + 1;
                let times = {
                    let mut asked = state.asked.lock().expect("lock");
                    let c = asked.entry(question.clone()).or_insert(0);
                    *c += 1;
                    *c
                };
                if n > state.hang_after.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_secs(30));
                    return;
                }
                let (status, body) = match (p.get("dataset"), queries.get(&question)) {
                    (Some(d), Some((qname, query))) if d == DATASET => {
                        let query = match qname.as_str() {
                            "ck25:47-en" => "SELECT ?x WHERE { ?x ?p }".to_string(),
                            "ck25:48-en" => {
                                std::thread::sleep(Duration::from_millis(2500));
                                query.clone()
                            }
                            "ck25:49-en" if times == 1 => String::new(),
                            _ => query.clone(),
                        };
                        if query.is_empty() {
                            (500, "overloaded".to_string())
                        } else {
                            (
                                200,
                                json!({"dataset": DATASET, "question": question, "query": query})
                                    .to_string(),
                            )
                        }
                    }
                    _ => (
                        422,
                        json!({"detail": [{"loc": ["query", "dataset"], "msg": "unknown", "type": "value_error"}]})
                            .to_string(),
                    ),
                };
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    (format!("http://{addr}/text2sparql"), state)
}

/// The INFAI system's CK25 queries by question text.
pub fn infai_queries(dir: &Path) -> BTreeMap<String, (String, String)> {
    let answers: Vec<Value> = serde_json::from_slice(
        &std::fs::read(dir.join("text2sparql/systems/INFAI/ck25_answers.json"))
            .expect("test input"),
    )
    .expect("test input");
    answers
        .iter()
        .map(|a| {
            (
                a["question"].as_str().expect("question").to_string(),
                (
                    a["qname"].as_str().expect("qname").to_string(),
                    a["query"].as_str().expect("query").to_string(),
                ),
            )
        })
        .collect()
}

fn evaluate_args(dir: &Path) -> Vec<String> {
    let t = dir.join("text2sparql");
    [
        "evaluate",
        "--gold",
        &t.join("benchmark/questions_ck25.yml").display().to_string(),
        "--kg",
        &t.join("kg/prod-inst.ttl").display().to_string(),
        &t.join("kg/prod-vocab.ttl").display().to_string(),
        "--profile",
        "text2sparql",
        "--experiments",
        "qa",
        "--format",
        "json",
    ]
    .iter()
    .map(|s| (*s).to_string())
    .collect()
}

fn questions(report: &Value) -> BTreeMap<String, Value> {
    report["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| (q["id"].as_str().expect("id").to_string(), q.clone()))
        .collect()
}

#[test]
fn a_live_text2sparql_system_is_asked_executed_retried_and_resumed() {
    let dir = crate::require_data!();
    let (url, system) = start_system(infai_queries(&dir));
    let cache = tmp("live-text2sparql-cache");
    let live = |extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_qajudge"));
        c.current_dir(root())
            .args(evaluate_args(&dir))
            .args(["--system-url", &url, "--protocol", "text2sparql", "--cache"])
            .arg(&cache)
            .args(["--concurrency", "1", "--timeout-ms", "1000"])
            .args(["--retries", "3", "--retry-backoff-ms", "20"])
            .args(["--max-error-rate", "0.9"])
            .args(extra);
        c
    };

    // first run: killed while the 11th question hangs; 10 answers are cached
    system.hang_after.store(10, Ordering::SeqCst);
    let mut child = live(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("qajudge runs");
    let started = Instant::now();
    while system.total.load(Ordering::SeqCst) < 11 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run never reached the 11th question"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill");
    let _ = child.wait();
    let cached = std::fs::read_to_string(cache.join("live-answers.jsonl")).expect("cache");
    assert_eq!(cached.lines().filter(|l| !l.trim().is_empty()).count(), 10);

    // second run: the 40 questions not cached are asked, one of them twice (500)
    system.hang_after.store(usize::MAX, Ordering::SeqCst);
    system.asked.lock().expect("lock").clear();
    system.total.store(0, Ordering::SeqCst);
    let o = live(&[]).output().expect("qajudge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let asked = system.asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 40, "questions asked again: {asked:?}");
    assert_eq!(system.total.load(Ordering::SeqCst), 41);
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    let diagnostics = report["diagnostics"].to_string();
    assert!(
        diagnostics.contains("10 answer(s) came from the cache"),
        "{diagnostics}"
    );
    assert!(
        diagnostics.contains("1 call(s) were retried"),
        "{diagnostics}"
    );
    let live_qs = questions(&report);
    assert_eq!(live_qs.len(), 50);
    let q47 = &live_qs["ck25:47-en"];
    assert_eq!(q47["execution"]["status"], "syntax_error", "{q47}");
    assert_eq!(q47["f1"], 0.0);
    let q48 = &live_qs["ck25:48-en"];
    assert_eq!(q48["status"], "error", "{q48}");
    assert!(
        q48["diagnostics"].to_string().contains("timed out"),
        "{q48}"
    );
    assert_eq!(live_qs["ck25:49-en"]["execution"]["status"], "ok");

    // every other question scores as the INFAI answers file does
    let infai = dir.join("text2sparql/systems/INFAI/ck25_answers.json");
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(evaluate_args(&dir))
        .arg("--run")
        .arg(&infai)
        .output()
        .expect("qajudge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file_qs = questions(&serde_json::from_slice(&o.stdout).expect("json"));
    for (id, q) in &file_qs {
        if id == "ck25:47-en" || id == "ck25:48-en" {
            continue;
        }
        assert_eq!(
            (&q["precision"], &q["recall"], &q["f1"]),
            (
                &live_qs[id]["precision"],
                &live_qs[id]["recall"],
                &live_qs[id]["f1"]
            ),
            "{id}"
        );
    }

    // a wrong dataset id is the system's 422 on every question: not a crash,
    // and not a table of zeros either but a failed run naming the first
    let o = live(&["--dataset", "https://e.org/other/"])
        .output()
        .expect("qajudge runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(o.stdout.is_empty());
    assert!(
        err.contains("every call to the live system")
            && err.contains("50 of 50")
            && err.contains("422"),
        "{err}"
    );
}

#[test]
fn text2sparql_systems_need_a_knowledge_graph() {
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["evaluate", "--gold", crate::serve::GOLD])
        .args(["--system-url", "http://127.0.0.1:9/t", "--protocol"])
        .arg("text2sparql")
        .output()
        .expect("qajudge runs");
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--kg"), "{err}");
}

/// A server with the CK25 graph (`--kg`), the CK25 benchmark registered as
/// `ck25`, a 1 s call timeout and 3 quick retries.
pub fn ck25_server(dir: &Path, name: &str) -> Server {
    let t = dir.join("text2sparql");
    let (inst, vocab) = (t.join("kg/prod-inst.ttl"), t.join("kg/prod-vocab.ttl"));
    let bench = format!("ck25={}", t.join("benchmark/questions_ck25.yml").display());
    Server::start(
        &tmp(name),
        &[
            "--kg",
            &inst.display().to_string(),
            &vocab.display().to_string(),
            "--benchmark",
            &bench,
            "--timeout-ms",
            "1000",
            "--retries",
            "3",
            "--retry-backoff-ms",
            "20",
        ],
    )
}

#[test]
fn the_server_asks_a_text2sparql_system_and_executes_its_queries() {
    let dir = crate::require_data!();
    let (url, _system) = start_system(infai_queries(&dir));
    // without a knowledge graph a text2sparql experiment is refused at once
    let bare = Server::start(&tmp("t2s-bare"), &[]);
    let (status, body) = post_form(
        &bare,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, url.as_bytes()),
            ("protocol", None, b"text2sparql"),
        ],
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "no_knowledge_graph", "{body}");
    drop(bare);

    let s = ck25_server(&dir, "t2s-kg");
    let (_, health) = get(&s, "/api/v1/health");
    assert_eq!(health["knowledge_graph"]["triples"], 26_903, "{health}");
    let (status, created) = post_form(
        &s,
        &[
            ("benchmark", None, b"ck25"),
            ("system_url", None, url.as_bytes()),
            ("protocol", None, b"text2sparql"),
            ("profile", None, b"text2sparql"),
            ("experiments", None, b"qa"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["protocol"], "text2sparql");
    let report = &done["report"];
    assert_eq!(report["knowledge_graph"]["triples"], 26_903);
    let qs = questions(report);
    assert_eq!(qs["ck25:47-en"]["execution"]["status"], "syntax_error");
    assert_eq!(qs["ck25:48-en"]["status"], "error");
    assert_eq!(qs["ck25:49-en"]["execution"]["status"], "ok");
    assert_eq!(qs["ck25:1-en"]["execution"]["status"], "ok");
    assert!(report["runs"][0]["experiments"]["qa"]["aggregate"]["challenge"].is_object());

    // an uploaded run of queries is executed on the server's graph too
    let infai =
        std::fs::read(dir.join("text2sparql/systems/INFAI/ck25_answers.json")).expect("test input");
    let (status, created) = post_form(
        &s,
        &[
            ("benchmark", None, b"ck25"),
            ("run", Some("INFAI.json"), &infai),
            ("profile", None, b"text2sparql"),
            ("experiments", None, b"qa"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    let file_qs = questions(&done["report"]);
    for id in ["ck25:1-en", "ck25:49-en"] {
        assert_eq!(file_qs[id]["f1"], qs[id]["f1"], "{id}");
    }
}
