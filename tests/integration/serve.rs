//! `qajudge serve` end to end: the real server on a loopback port, every route,
//! bad inputs, a restart that keeps stored experiments, and live QA systems (a real
//! HTTP QA system written for the test, on loopback) asked by the server and by
//! `qajudge evaluate --system-url`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const GOLD: &str = "tests/data/demo/gold.json";
pub const RUN: &str = "tests/data/demo/example-system.json";

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("serve")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

/// The demo index, built once.
pub fn demo_index() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("serve-demo-index");
            let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
                .args(["index", "build", "--out"])
                .arg(&out)
                .arg(root().join("tests/data/demo/kg.ttl"))
                .output()
                .expect("qajudge runs");
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            out
        })
        .clone()
}

/// A running `qajudge serve`, killed on drop.
pub struct Server {
    child: Child,
    /// The server's base URL.
    pub base: String,
    /// The lines of its stderr (request log included) after the one saying
    /// where it listens, when started with [`Server::start_capturing`].
    log: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>>,
}

impl Server {
    pub fn start(data: &Path, extra: &[&str]) -> Server {
        let index = demo_index();
        let mut args = vec!["--index", index.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        Server::start_bare(data, &args)
    }

    /// A server on the demo benchmark, without an index unless `extra` gives one.
    pub fn start_bare(data: &Path, extra: &[&str]) -> Server {
        // the live systems of the tests run on loopback; a server calls none
        // unless told (tests/integration/hostile.rs checks that default)
        if extra.contains(&"--allow-system-host") {
            Server::start_as_given(data, extra)
        } else {
            let mut args = vec!["--allow-system-host", "127.0.0.1"];
            args.extend_from_slice(extra);
            Server::start_as_given(data, &args)
        }
    }

    /// A server on the demo benchmark with exactly the arguments `extra`.
    pub fn start_as_given(data: &Path, extra: &[&str]) -> Server {
        Server::launch(data, extra, false)
    }

    /// [`Server::start_bare`] keeping its stderr for [`Server::log`].
    pub fn start_capturing(data: &Path, extra: &[&str]) -> Server {
        let mut args = vec!["--allow-system-host", "127.0.0.1"];
        args.extend_from_slice(extra);
        Server::launch(data, &args, true)
    }

    /// The stderr lines of a server started with [`Server::start_capturing`]
    /// so far.
    pub fn log(&self) -> Vec<String> {
        let log = self.log.as_ref().expect("a server started capturing");
        log.lock().expect("log lock").clone()
    }

    fn launch(data: &Path, extra: &[&str], capture: bool) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_qajudge"))
            .current_dir(root())
            .args(["serve", "--bind", "127.0.0.1:0", "--workers", "2", "--data"])
            .arg(data)
            .args(["--benchmark", &format!("demo={GOLD}")])
            .args(extra)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let base = loop {
            let line = lines
                .next()
                .expect("the server prints where it listens")
                .expect("stderr line");
            if let Some(rest) = line.split("listening on ").nth(1) {
                break rest.trim().to_string();
            }
        };
        let log: Option<std::sync::Arc<std::sync::Mutex<Vec<String>>>> =
            capture.then(std::sync::Arc::default);
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                if let Some(sink) = &sink {
                    sink.lock().expect("log lock").push(line);
                }
            }
        });
        Server { child, base, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The server's process id (for its memory in `/proc/PID/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (status, JSON body) of a response, errors included.
fn read(result: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let status = response.status();
    let text = response.into_string().expect("body");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// The server's peak resident memory so far (`VmHWM`), in kB.
pub fn peak_kb(s: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.pid()))
        .expect("the server's /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

pub fn get(s: &Server, path: &str) -> (u16, Value) {
    read(ureq::get(&s.url(path)).call())
}

/// A GET with an experiment's token, sent the way the page and the Python
/// client send it: in a header, never in the URL.
pub fn get_with_token(s: &Server, path: &str, token: &str) -> (u16, Value) {
    read(
        ureq::get(&s.url(path))
            .set("X-Experiment-Token", token)
            .call(),
    )
}

/// An empty POST with an experiment's token in its header.
pub fn post_with_token(s: &Server, path: &str, token: &str) -> (u16, Value) {
    read(
        ureq::post(&s.url(path))
            .set("X-Experiment-Token", token)
            .send_string(""),
    )
}

pub fn post_json(s: &Server, path: &str, body: &str) -> (u16, Value) {
    read(
        ureq::post(&s.url(path))
            .set("Content-Type", "application/json")
            .send_string(body),
    )
}

const BOUNDARY: &str = "qajudge-test-boundary";

/// A multipart/form-data body: (field, file name, bytes).
fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, file, bytes) in parts {
        out.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match file {
            Some(f) => out.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: application/json\r\n\r\n").as_bytes(),
            ),
            None => out.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        out.extend_from_slice(bytes);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

pub fn post_form(s: &Server, parts: &[(&str, Option<&str>, &[u8])]) -> (u16, Value) {
    read(
        ureq::post(&s.url("/api/v1/experiments"))
            .set(
                "Content-Type",
                &format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .send_bytes(&multipart(parts)),
    )
}

/// Polls an experiment, with the token of its submission (`created`), until it
/// is done or failed.
pub fn wait(s: &Server, created: &Value) -> Value {
    let id = created["id"].as_str().expect("an experiment id");
    let token = created["token"].as_str().expect("an experiment token");
    let start = Instant::now();
    loop {
        let (status, r) = get_with_token(s, &format!("/api/v1/experiments/{id}"), token);
        assert_eq!(status, 200, "{r}");
        if r["status"] == "done" || r["status"] == "failed" {
            return r;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "experiment {id} still {}",
            r["status"]
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn assert_error(status: u16, body: &Value, want_status: u16, want_code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(body["error"]["code"], want_code, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[test]
fn every_route_bad_inputs_and_a_restart() {
    let data = tmp("routes");
    let s = Server::start(&data, &["--max-body-bytes", "200000"]);

    let (status, h) = get(&s, "/api/v1/health");
    assert_eq!(status, 200);
    assert_eq!(h["status"], "ok");
    assert_eq!(
        h["index"]["format_version"],
        qajudge::index::format::FORMAT_VERSION
    );

    // sameas: GET and a POST batch; an unknown IRI is a class of one
    let (status, c) = get(
        &s,
        "/api/v1/sameas?iri=http%3A%2F%2Fwww.wikidata.org%2Fentity%2FQ76",
    );
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["class_size"], 5);
    assert!(c["members"]
        .as_array()
        .expect("members")
        .contains(&json!("http://dbpedia.org/resource/Barack_Obama")));
    let (status, list) = post_json(
        &s,
        "/api/v1/sameas",
        r#"["http://rdf.freebase.com/ns/m.02mjmr", "http://example.org/unknown"]"#,
    );
    assert_eq!(status, 200, "{list}");
    assert_eq!(list[0]["class_size"], 5);
    assert_eq!(list[1]["class_size"], 1);
    assert!(list[1]["class"].is_null());
    let (status, e) = get(&s, "/api/v1/sameas");
    assert_error(status, &e, 400, "missing_parameter");

    // labels and types
    let (status, hits) = get(&s, "/api/v1/labels?text=honolulu");
    assert_eq!(status, 200);
    assert_eq!(hits.as_array().expect("hits").len(), 2);
    let (status, hits) = get(&s, "/api/v1/labels?text=Honolule&fuzzy=1");
    assert_eq!((status, hits.as_array().map(Vec::len)), (200, Some(2)));
    let (status, e) = get(&s, "/api/v1/labels?text=x&fuzzy=abc");
    assert_error(status, &e, 400, "bad_query");
    let (status, t) = get(
        &s,
        "/api/v1/types?iri=http%3A%2F%2Fdbpedia.org%2Fresource%2FHonolulu",
    );
    assert_eq!(status, 200);
    assert_eq!(t["types"], json!(["http://dbpedia.org/ontology/City"]));

    // match: a Wikidata IRI and a label against DBpedia gold, explained
    let (status, m) = post_json(
        &s,
        "/api/v1/match",
        r#"{"gold": [{"type":"uri","value":"http://dbpedia.org/resource/Barack_Obama"},
                     {"type":"uri","value":"http://dbpedia.org/resource/Honolulu"}],
            "run": [{"type":"uri","value":"http://www.wikidata.org/entity/Q76"},
                    {"type":"literal","value":"Honolulu"},
                    {"type":"literal","value":"Paris"}]}"#,
    );
    assert_eq!(status, 200, "{m}");
    assert_eq!(
        (m["tp"].as_u64(), m["fp"].as_u64(), m["fn"].as_u64()),
        (Some(2), Some(1), Some(0))
    );
    let rules: Vec<&str> = m["explanation"]["pairs"]
        .as_array()
        .expect("pairs")
        .iter()
        .filter_map(|p| p["rule"].as_str())
        .collect();
    assert_eq!(rules, vec!["sameas", "label"]);
    let (status, g) = post_json(
        &s,
        "/api/v1/match",
        r#"{"profile":"gerbil","gold":[{"type":"uri","value":"http://dbpedia.org/resource/Honolulu"}],"run":[{"type":"literal","value":"Honolulu"}]}"#,
    );
    assert_eq!(status, 200, "{g}");
    assert_eq!(
        (g["tp"].as_u64(), g["fp"].as_u64()),
        (Some(1), Some(1)),
        "two label candidates"
    );
    let (status, e) = post_json(&s, "/api/v1/match", r#"{"gold": [1, 2"#);
    assert_error(status, &e, 400, "bad_json");
    let (status, e) = post_json(
        &s,
        "/api/v1/match",
        r#"{"gold": [{"type":"uri"}], "run": []}"#,
    );
    assert_error(status, &e, 400, "bad_answer");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("gold[0]"),
        "{e}"
    );
    let (status, e) = post_json(
        &s,
        "/api/v1/match",
        r#"{"gold":[],"run":[],"profile":"nope"}"#,
    );
    assert_error(status, &e, 400, "bad_parameter");

    // annotate
    let (status, a) = post_json(
        &s,
        "/api/v1/annotate",
        r#"{"sparql": "SELECT (COUNT(?x) AS ?n) WHERE { dbr:Ann_Dunham dbo:child ?x }"}"#,
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(
        a["markings"]["properties"],
        json!(["http://dbpedia.org/ontology/child"])
    );
    assert!(a["modifiers"]
        .as_array()
        .expect("modifiers")
        .contains(&json!("COUNT")));

    // oversized body
    let big = format!(r#"{{"sparql": "{}"}}"#, "x".repeat(300_000));
    let (status, e) = post_json(&s, "/api/v1/annotate", &big);
    assert_error(status, &e, 413, "payload_too_large");

    // benchmarks, openapi, page, unknown route
    let (status, b) = get(&s, "/api/v1/benchmarks");
    assert_eq!(status, 200);
    assert_eq!(b[0]["name"], "demo");
    assert_eq!(b[0]["questions"], 13);
    let (status, doc) = get(&s, "/api/v1/openapi.json");
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/api/v1/sameas",
        "/api/v1/labels",
        "/api/v1/types",
        "/api/v1/match",
        "/api/v1/annotate",
        "/api/v1/experiments",
        "/api/v1/experiments/{id}",
        "/api/v1/benchmarks",
        "/api/v1/health",
        "/sparql",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} documented");
    }
    let reference = ureq::get(&s.url("/api/v1/docs"))
        .call()
        .expect("reference page")
        .into_string()
        .expect("html");
    assert!(reference.contains("/api/v1/openapi.json"));
    let page = ureq::get(&s.url("/"))
        .call()
        .expect("page")
        .into_string()
        .expect("html");
    assert!(page.contains("<title>qajudge</title>"));
    let (status, e) = get(&s, "/api/v1/nothing");
    assert_error(status, &e, 404, "not_found");

    // experiments: a registered benchmark and an uploaded run
    let run = std::fs::read(root().join(RUN)).expect("run");
    let (status, created) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("run", Some("example-system.json"), &run),
            ("experiments", None, b"qa,at"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().expect("id").to_string();
    assert_eq!(id.len(), 12);
    assert!(id.bytes().all(|b| b.is_ascii_digit()));
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let report = &done["report"];
    assert_eq!(
        report["index"]["format_version"],
        qajudge::index::format::FORMAT_VERSION
    );
    let qa = &report["runs"][0]["experiments"]["qa"]["aggregate"];
    // the same figures as the command line with the index (tests/integration/cli.rs)
    assert!(
        (qa["micro"]["precision"].as_f64().expect("p") - 9.0 / 12.0).abs() < 1e-12,
        "{qa}"
    );
    assert!(report["runs"][0]["experiments"]["c2kb"].is_null());
    assert_eq!(report["runs"][0]["name"], "example-system");

    // an uploaded gold file too, and the ids keep counting
    let gold = std::fs::read(root().join(GOLD)).expect("gold");
    let (status, second) = post_form(
        &s,
        &[
            ("gold", Some("gold.json"), &gold),
            ("run", Some("example-system.json"), &run),
            ("profile", None, b"gerbil"),
        ],
    );
    assert_eq!(status, 202, "{second}");
    let id2 = second["id"].as_str().expect("id").to_string();
    assert!(id2 > id);
    assert_eq!(wait(&s, &second)["report"]["profile"], "gerbil");

    // bad uploads
    let (status, e) = post_form(
        &s,
        &[
            ("gold", Some("notes.json"), b"{\"hello\": 1"),
            ("run", Some("r.json"), &run),
        ],
    );
    assert_error(status, &e, 400, "bad_gold");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("notes.json"),
        "{e}"
    );
    let (status, e) = post_form(
        &s,
        &[
            ("benchmark", None, b"qald-42"),
            ("run", Some("r.json"), &run),
        ],
    );
    assert_error(status, &e, 404, "not_found");
    let (status, e) = post_form(&s, &[("benchmark", None, b"demo")]);
    assert_error(status, &e, 400, "missing_field");
    let (status, e) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, b"http://10.1.2.3/qa"),
        ],
    );
    assert_error(status, &e, 400, "bad_system_url");
    let (status, e) = get(&s, "/api/v1/experiments/209901010001");
    assert_error(status, &e, 404, "not_found");
    let (status, e) = get(&s, "/api/v1/experiments/abc");
    assert_error(status, &e, 404, "not_found");

    // private until published: not listed
    let (status, list) = get(&s, "/api/v1/experiments");
    assert_eq!(status, 200);
    assert_eq!(list.as_array().map(Vec::len), Some(0), "{list}");
    for c in [&created, &second] {
        let path = format!(
            "/api/v1/experiments/{}/publish",
            c["id"].as_str().expect("id")
        );
        let (status, p) = post_with_token(&s, &path, c["token"].as_str().expect("token"));
        assert_eq!(status, 200, "{p}");
    }
    let (_, list) = get(&s, "/api/v1/experiments");
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    assert_eq!(list[0]["id"], id2.as_str(), "newest first");

    // a restart keeps the stored experiments, with the same ids and reports
    drop(s);
    let s = Server::start(&data, &[]);
    let again = wait(&s, &created);
    assert_eq!(again["report"], done["report"]);
    let (_, list) = get(&s, "/api/v1/experiments");
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    // and new ids do not reuse old ones
    let (_, third) = post_form(
        &s,
        &[("benchmark", None, b"demo"), ("run", Some("r.json"), &run)],
    );
    assert!(third["id"].as_str().expect("id") > id2.as_str());
}

/// Reads one HTTP request from a connection of a test server and gives its
/// body; `None` when the connection ends first.
pub fn read_request_body(stream: &std::net::TcpStream) -> Option<Vec<u8>> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}

/// A QA system on loopback for a test, a thread a connection: `answer` turns
/// the body of a request into the status and the body of the reply. Its URL.
pub fn start_system(answer: impl Fn(&[u8]) -> (u16, String) + Send + Sync + 'static) -> String {
    let answer = std::sync::Arc::new(answer);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let Some(body) = read_request_body(&stream) else {
                    return;
                };
                let (status, body) = answer(&body);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    format!("http://{addr}/qa")
}

/// A QA system for the test: it answers by question text, some right, some wrong,
/// one slowly past the timeout, one with an HTTP error, one with garbage.
fn start_qa_system() -> String {
    start_system(|body| {
        let form = String::from_utf8_lossy(body).replace('+', " ");
        let query = form
            .split('&')
            .find_map(|kv| kv.strip_prefix("query="))
            .map(percent_decode)
            .unwrap_or_default();
        let uri = |v: &str| json!({"type": "uri", "value": v});
        let answer = |bindings: Vec<Value>| json!({"questions": [{"id": "1", "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": bindings.into_iter().map(|b| json!({"x": b})).collect::<Vec<_>>()}}]}]});
        if query.contains("children of Ann Dunham") {
            // the answers with the query that gave them: its IRIs are the
            // system's entity and property links (C2KB, P2KB)
            let mut a = answer(vec![
                uri("http://dbpedia.org/resource/Barack_Obama"),
                uri("http://www.wikidata.org/entity/Q76"),
            ]);
            a["questions"][0]["query"] = json!({"sparql": "SELECT ?uri WHERE { <http://dbpedia.org/resource/Ann_Dunham> <http://dbpedia.org/ontology/child> ?uri }"});
            (200, a.to_string())
        } else if query.contains("spouse") {
            (500, "internal error".to_string())
        } else if query.contains("When was Barack Obama born") {
            std::thread::sleep(Duration::from_millis(1500));
            (200, answer(vec![]).to_string())
        } else if query.contains("party") {
            (200, "<html>not json</html>".to_string())
        } else if query.contains("write about his father") {
            (
                200,
                answer(vec![
                    json!({"type": "literal", "value": "Dreams from My Father"}),
                ])
                .to_string(),
            )
        } else if query.contains("Is Barack Obama a citizen") {
            (
                200,
                json!({"questions": [{"id": "4", "answers": [{"head": {}, "boolean": true}]}]})
                    .to_string(),
            )
        } else {
            (
                200,
                answer(vec![uri("http://dbpedia.org/resource/Nowhere")]).to_string(),
            )
        }
    })
}

pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Checks a live run of the demo benchmark against the test's QA system.
fn check_live(report: &Value) {
    let run = &report["runs"][0]["experiments"]["qa"];
    let a = &run["aggregate"];
    // q2 times out, q6 is an HTTP 500, q10 is not JSON
    assert_eq!(a["errors"], 3, "{a}");
    assert_eq!(a["missing"], 0);
    assert!(
        a["runtime_ms_mean"]
            .as_f64()
            .is_some_and(|ms| ms > 0.0 && ms < 1500.0),
        "{a}"
    );
    let qs = run["questions"].as_array().expect("questions");
    let by_id = |id: &str| qs.iter().find(|q| q["id"] == id).expect("question");
    for id in ["2", "6", "10"] {
        assert_eq!(by_id(id)["status"], "error", "q{id}");
        assert_eq!(by_id(id)["f1"], 0.0);
    }
    assert!(
        by_id("2")["diagnostics"].to_string().contains("timed out"),
        "{}",
        by_id("2")
    );
    assert!(by_id("6")["diagnostics"].to_string().contains("500"));
    // retries are off unless asked for: one call, counted against the system
    assert!(!by_id("6")["diagnostics"].to_string().contains("attempts"));
    // q1: Barack Obama twice (DBpedia and Wikidata: one answer), Maya missed
    assert_eq!(
        (
            by_id("1")["tp"].as_u64(),
            by_id("1")["fp"].as_u64(),
            by_id("1")["fn"].as_u64()
        ),
        (Some(1), Some(0), Some(1))
    );
    // q12: a title string matched through its label; q4: a boolean
    assert_eq!(by_id("12")["f1"], 1.0);
    assert_eq!(by_id("4")["f1"], 1.0);
    // a wrong IRI
    assert_eq!(by_id("7")["f1"], 0.0);
    assert_eq!(by_id("7")["status"], "answered");
    // the query a live system returned gives its entity and property links
    for e in ["c2kb", "p2kb"] {
        let q1 = report["runs"][0]["experiments"][e]["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .find(|q| q["id"] == "1")
            .expect("question 1");
        assert_eq!(q1["f1"], 1.0, "{e}: {q1}");
    }
}

#[test]
fn live_qa_systems_from_the_server_and_the_command_line() {
    let system = start_qa_system();
    let data = tmp("live");
    let s = Server::start(&data, &["--timeout-ms", "500", "--max-error-rate", "0.9"]);
    let (status, created) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, system.as_bytes()),
            ("experiments", None, b"qa,c2kb,p2kb"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["runs"][0], "127.0.0.1");
    check_live(&done["report"]);

    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args([
            "evaluate",
            "--gold",
            GOLD,
            "--system-url",
            &system,
            "--timeout-ms",
            "500",
        ])
        .args([
            "--max-error-rate",
            "0.9",
            "--experiments",
            "qa,c2kb,p2kb",
            "--format",
            "json",
            "--index",
        ])
        .arg(demo_index())
        .output()
        .expect("qajudge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    check_live(&report);

    // some calls failed: scored, with a warning naming the count and the first
    let warning = "run 'SYSTEM': 3 of 13 calls to the live system failed (scored as empty answers, counted in errors); the first, for question 2: ";
    let warning = warning.replace("SYSTEM", "127.0.0.1");
    assert!(
        report["diagnostics"].as_array().is_some_and(|d| d
            .iter()
            .any(|x| x.as_str().is_some_and(|x| x.starts_with(&warning)))),
        "{}",
        report["diagnostics"]
    );
    // … and the table has an errors column
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["evaluate", "--gold", GOLD, "--system-url", &system])
        .args(["--timeout-ms", "500", "--experiments", "qa"])
        .output()
        .expect("qajudge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    let header = table
        .lines()
        .find(|l| l.starts_with("run "))
        .unwrap_or_default();
    assert!(header.contains(" errors "), "{table}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("3 of 13 calls to the live system failed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // the paper table has the errors too
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["evaluate", "--gold", GOLD, "--system-url", &system])
        .args(["--timeout-ms", "500", "--format", "markdown"])
        .output()
        .expect("qajudge runs");
    let md = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(md.contains("| Run | Errors | Macro P |"), "{md}");
    assert!(
        md.lines()
            .any(|l| l.contains("| 127.0.0.1 |") && l.contains("| 3 |")),
        "{md}"
    );

    // a system whose every call fails is a failed run: exit 1 naming the
    // first error, no table of zeros (docs/scoring.md, Live systems that fail)
    let dead = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["evaluate", "--gold", GOLD, "--system-url"])
        .args(["http://127.0.0.1:9/qa", "--timeout-ms", "300"])
        .args(["--experiments", "qa", "--format", "json"])
        .output()
        .expect("qajudge runs");
    let err = String::from_utf8_lossy(&dead.stderr).into_owned();
    assert_eq!(dead.status.code(), Some(1), "{err}");
    assert!(
        dead.stdout.is_empty(),
        "no report: {}",
        String::from_utf8_lossy(&dead.stdout)
    );
    assert!(
        err.contains("every call to the live system http://127.0.0.1:9/qa")
            && err.contains("13 of 13")
            && err.contains("for question 1: ")
            && err.contains("refused"),
        "{err}"
    );
    // under judge every question was asked; under gerbil GERBIL's threshold
    // stops after 10 calls (the 3 questions not asked count as failed), and
    // the run fails the same way
    let gerbil = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["evaluate", "--gold", GOLD, "--system-url"])
        .args(["http://127.0.0.1:9/qa", "--timeout-ms", "300"])
        .args(["--experiments", "qa", "--profile", "gerbil"])
        .output()
        .expect("qajudge runs");
    let err = String::from_utf8_lossy(&gerbil.stderr).into_owned();
    assert_eq!(gerbil.status.code(), Some(1), "{err}");
    assert!(
        err.contains("13 of 13") && err.contains("for question 1: "),
        "{err}"
    );

    // on the server, the experiment ends failed with the error
    let (status, created) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, b"http://127.0.0.1:9/qa"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let failed = wait(&s, &created);
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["report"].is_null(), "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("every call to the live system http://127.0.0.1:9/qa")),
        "{failed}"
    );
}

#[test]
fn each_benchmark_executes_on_its_own_knowledge_graph() {
    let data = tmp("benchmark-kg");
    let s = Server::start(
        &data,
        &[
            "--benchmark",
            &format!("other={GOLD}"),
            "--benchmark-kg",
            "demo=tests/data/demo/kg.ttl",
            "--benchmark-kg",
            "demo=tests/data/demo/facts.ttl",
        ],
    );
    let run = std::fs::read_to_string(root().join("tests/data/demo/sparql-system.json"))
        .expect("the demo's sparql run");
    let body = |gold: &str| {
        format!(
            r#"{{"gold": "{gold}", "runs": [{{"name": "sparql", "document": {run}}}], "execute_run": true, "experiments": ["qa"]}}"#
        )
    };
    // demo has its graph: the report names its two files
    let (status, report) = post_json(&s, "/api/v1/evaluate", &body("demo"));
    assert_eq!(status, 200, "{report}");
    let files: Vec<&str> = report["knowledge_graph"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(
        files,
        ["tests/data/demo/kg.ttl", "tests/data/demo/facts.ttl"]
    );
    // the same gold registered as `other` has none, and the server no --kg
    let (status, e) = post_json(&s, "/api/v1/evaluate", &body("other"));
    assert_eq!(status, 400, "{e}");
    assert_eq!(e["error"]["code"], "no_knowledge_graph");
    drop(s);
    // a graph for a benchmark that is not registered is refused at start
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .current_dir(root())
        .args(["serve", "--data"])
        .arg(tmp("benchmark-kg-refused"))
        .args(["--benchmark", &format!("demo={GOLD}")])
        .args(["--benchmark-kg", "qald8=tests/data/demo/kg.ttl"])
        .output()
        .expect("qajudge runs");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("names no registered benchmark \"qald8\""),
        "{err}"
    );
}
