//! `--endpoint` against a real SPARQL server: the `oxigraph` server from PyPI
//! (installed by `scripts/install-servers.sh` in a venv under the build
//! directory) on a loopback port, loaded with the CK25 graph. The same figures
//! as the embedded store where both stores accept the query; a slow query times
//! out; an endpoint that is down or answers HTML is a per-question error.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use qajudge::eval::{Options, Profile, Report};
use qajudge::model::{Dataset, ExecStatus};
use qajudge::sparql::{execute_dataset, ExecOptions, KnowledgeGraph, Mode};

use crate::data::{eval_run, load};

/// A program of a venv that `scripts/install-servers.sh` makes under the
/// build directory (`venv-oxigraph/bin/oxigraph`, …), or `None` (a note)
/// outside CI.
pub fn venv_program(relative: &str) -> Option<PathBuf> {
    let exe = Path::new(env!("CARGO_BIN_EXE_qajudge"));
    let target = exe.parent()?.parent()?;
    let bin = target.join(relative);
    if bin.is_file() {
        return Some(bin);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "{} is missing: run bash scripts/install-servers.sh (the README's test command does)",
        bin.display()
    );
    eprintln!(
        "skipping: {} is missing (bash scripts/install-servers.sh)",
        bin.display()
    );
    None
}

/// A running oxigraph server, killed when dropped.
pub(crate) struct Server {
    child: Child,
    /// Its query URL.
    pub(crate) url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("test input")
        .local_addr()
        .expect("test input")
        .port()
}

/// Starts an in-memory oxigraph server and loads `files` into its default graph.
pub(crate) fn start(bin: &Path, files: &[PathBuf]) -> Server {
    start_at(bin, files, free_port())
}

/// [`start`] on `port` (a server started again where one was).
pub(crate) fn start_at(bin: &Path, files: &[PathBuf], port: u16) -> Server {
    let child = Command::new(bin)
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("oxigraph serve starts");
    let base = format!("http://127.0.0.1:{port}");
    let server = Server {
        child,
        url: format!("{base}/query"),
    };
    let started = Instant::now();
    while ureq::get(&format!("{base}/query?query=ASK%7B%7D"))
        .call()
        .is_err()
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "oxigraph did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    for f in files {
        ureq::post(&format!("{base}/store?default"))
            .set("Content-Type", "text/turtle")
            .send_bytes(&std::fs::read(f).expect("test input"))
            .expect("the graph loads");
    }
    server
}

fn report(gold: &Dataset, run: &Dataset) -> Report {
    let options = Options {
        profile: Profile::Text2sparql,
        ..Options::default()
    };
    eval_run(gold, run, "run", options, None)
}

#[test]
fn an_oxigraph_endpoint_scores_as_the_embedded_store() {
    let dir = crate::require_data!();
    let Some(bin) = venv_program("venv-oxigraph/bin/oxigraph") else {
        return;
    };
    let t = dir.join("text2sparql");
    let files = vec![t.join("kg/prod-inst.ttl"), t.join("kg/prod-vocab.ttl")];
    let server = start(&bin, &files);
    let opts = ExecOptions::default();
    let embedded = KnowledgeGraph::load(&files, opts, &|_, _| {}).expect("test input");
    let endpoint = KnowledgeGraph::endpoint(&server.url, opts);
    let run_with = |kg: &KnowledgeGraph| {
        let mut gold = load(&t.join("benchmark/questions_ck25.yml"));
        execute_dataset(kg, &mut gold, Mode::Missing, false, opts, &|_, _| {});
        let mut run = load(&t.join("systems/IIS-Q/ck25_answers.json"));
        execute_dataset(kg, &mut run, Mode::Missing, true, opts, &|_, _| {});
        (report(&gold, &run), gold, run)
    };
    let (a, _, run_a) = run_with(&embedded);
    let (b, gold_b, _) = run_with(&endpoint);
    let qa = |r: &Report| {
        r.runs[0]
            .experiments
            .qa
            .clone()
            .expect("test input")
            .questions
    };
    let (qa_a, qa_b) = (qa(&a), qa(&b));
    let mut compared = 0;
    for (x, y) in qa_a.iter().zip(&qa_b) {
        assert_eq!(x.id, y.id);
        let gold_x = gold_b
            .questions
            .iter()
            .find(|q| q.id.0 == x.id)
            .expect("test input");
        let run_x = run_a.questions.iter().find(|q| q.id.0 == x.id);
        // xsd:int casts (gold 37, 42) run only on the embedded store, as Virtuoso
        // does; a run query with undeclared prefixes only where they are read as
        // the endpoints predefine them
        let gold_ok = gold_x.execution.as_ref().expect("test input").status == ExecStatus::Ok;
        let strict = run_x
            .and_then(|q| q.execution.as_ref())
            .is_none_or(|e| e.parses);
        if !gold_ok || !strict {
            continue;
        }
        compared += 1;
        assert_eq!(
            (x.score.tp, x.score.fp, x.score.fn_, x.ndcg),
            (y.score.tp, y.score.fp, y.score.fn_, y.ndcg),
            "{}",
            x.id
        );
        assert_eq!(
            x.execution
                .as_ref()
                .map(|e| (e.status, e.rows, &e.unknown_iris)),
            y.execution
                .as_ref()
                .map(|e| (e.status, e.rows, &e.unknown_iris)),
            "{}",
            x.id
        );
    }
    assert!(compared >= 40, "{compared}");
    for id in ["ck25:37-en", "ck25:42-en"] {
        let q = gold_b
            .questions
            .iter()
            .find(|q| q.id.0 == id)
            .expect("test input");
        assert_eq!(
            q.execution.as_ref().expect("test input").status,
            ExecStatus::ExecutionError,
            "{id}"
        );
    }
    // a slow query stops at its timeout on the endpoint too
    let slow = endpoint.execute(
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
        ExecOptions {
            timeout: Duration::from_millis(300),
            ..opts
        },
    );
    assert_eq!(slow.status, ExecStatus::Timeout, "{slow:?}");
    // the server's web page is not a SPARQL endpoint
    let base = server.url.trim_end_matches("/query");
    let html = KnowledgeGraph::endpoint(&format!("{base}/"), opts).execute("ASK {}", opts);
    assert_eq!(html.status, ExecStatus::ExecutionError);
    assert!(html
        .message
        .expect("test input")
        .contains("not SPARQL results"));
    // a syntax error the server rejects, that is not SPARQL 1.1 either
    let bad = endpoint.execute("SELECT ?x WHERE { ?x", opts);
    assert_eq!(bad.status, ExecStatus::SyntaxError, "{bad:?}");
}

#[test]
fn a_down_endpoint_is_an_error_per_question() {
    let dir = crate::require_data!();
    let t = dir.join("text2sparql");
    let url = format!("http://127.0.0.1:{}/query", free_port());
    let kg = KnowledgeGraph::endpoint(&url, ExecOptions::default());
    let mut gold = load(&t.join("benchmark/questions_ck25.yml"));
    let s = execute_dataset(
        &kg,
        &mut gold,
        Mode::Missing,
        false,
        ExecOptions::default(),
        &|_, _| {},
    );
    assert_eq!(s.by_status.get("execution_error"), Some(&50));
    let q = &gold.questions[0];
    assert!(q
        .execution
        .as_ref()
        .expect("test input")
        .message
        .as_ref()
        .expect("test input")
        .contains(&url));
    assert!(q.answers.as_ref().expect("test input").is_empty());
}

/// A loopback server that answers at most `max` requests, each with what
/// `answer` makes of its request line, counting them; its base URL.
fn loopback(
    max: usize,
    answer: impl Fn(&str) -> Vec<u8> + Send + 'static,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let asked = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&asked);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(max) {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().expect("stream"));
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let _ = stream.write_all(&answer(&first));
        }
    });
    (base, asked)
}

/// An HTTP/1.1 response of `status` with `headers` and `body`.
fn response(status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

#[test]
fn an_endpoint_follows_redirects_only_within_its_origin() {
    use std::sync::atomic::Ordering;
    let timeout = Duration::from_secs(10);
    // a host nobody configured, with a secret in its error page
    let (elsewhere, asked_elsewhere) = loopback(4, |_| {
        response(
            "500 Internal Server Error",
            "Content-Type: text/plain\r\n",
            b"SECRET-TOKEN-abc123 internal admin data",
        )
    });
    let target = format!("{elsewhere}/admin");
    let (configured, _) = loopback(4, move |_| {
        response("302 Found", &format!("Location: {target}\r\n"), b"")
    });
    let e = qajudge::live::sparql_request(&format!("{configured}/sparql"), "ASK {}", timeout)
        .expect_err("a redirect to another port is not followed")
        .to_string();
    assert!(
        e.contains("another origin") && e.contains(&elsewhere) && !e.contains("SECRET"),
        "{e}"
    );
    // the metadata address too
    let (metadata, _) = loopback(2, |_| {
        response(
            "307 Temporary Redirect",
            "Location: http://169.254.169.254/latest/meta-data/\r\n",
            b"",
        )
    });
    let e = qajudge::live::sparql_request(&format!("{metadata}/sparql"), "ASK {}", timeout)
        .expect_err("a redirect to another host is not followed")
        .to_string();
    assert!(e.contains("http://169.254.169.254"), "{e}");
    // through a knowledge graph: the question's error names the origin, and
    // no byte of the other host's answer
    let kg = KnowledgeGraph::endpoint(&format!("{configured}/sparql"), ExecOptions::default());
    let out = kg.execute("ASK {}", ExecOptions::default());
    let message = out.message.clone().unwrap_or_default();
    assert_eq!(out.status, ExecStatus::ExecutionError, "{out:?}");
    assert!(
        message.contains("another origin") && !message.contains("SECRET"),
        "{message}"
    );
    assert_eq!(
        asked_elsewhere.load(Ordering::SeqCst),
        0,
        "the other host was asked"
    );
    // within the origin a redirect is followed
    let (same, _) = loopback(4, |first| {
        if first.starts_with("GET /moved") {
            response(
                "200 OK",
                "Content-Type: application/sparql-results+json\r\n",
                br#"{"head": {}, "boolean": true}"#,
            )
        } else {
            response("301 Moved Permanently", "Location: /moved\r\n", b"")
        }
    });
    let reply = qajudge::live::sparql_request(&format!("{same}/sparql"), "ASK {}", timeout)
        .expect("a redirect within the origin is followed");
    assert_eq!(reply.status, 200);
}

#[test]
fn an_endpoint_error_is_quoted_as_a_short_escaped_excerpt() {
    let mut body = b"\x1b]52;c;SGVsbG8=\x07 \x1b[2Jquery \t\n failed\xc2\x9b \xe2\x80\xae".to_vec();
    body.extend(std::iter::repeat_n(b'x', 100_000));
    let (url, _) = loopback(4, move |_| {
        response(
            "500 Internal Server Error",
            "Content-Type: text/plain\r\n",
            &body,
        )
    });
    let reply =
        qajudge::live::sparql_request(&url, "ASK {}", Duration::from_secs(10)).expect("a reply");
    assert_eq!(reply.status, 500);
    let text = String::from_utf8(reply.body).expect("text");
    assert!(
        text.chars().count() <= 301,
        "{} characters",
        text.chars().count()
    );
    assert!(
        !text.chars().any(|c| c.is_control() || c == '\u{202e}'),
        "{text:?}"
    );
    assert!(
        text.starts_with("\\u{1b}]52;c;SGVsbG8=\\u{7} \\u{1b}[2Jquery failed\\u{9b} \\u{202e}"),
        "{text:?}"
    );
    let kg = KnowledgeGraph::endpoint(&url, ExecOptions::default());
    let out = kg.execute("ASK {}", ExecOptions::default());
    let message = out.message.unwrap_or_default();
    assert!(
        message.contains("endpoint answered http 500: \\u{1b}]52"),
        "{message}"
    );
    assert!(!message.chars().any(char::is_control), "{message:?}");
}
