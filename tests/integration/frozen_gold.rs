//! `audit --write-gold` against a hostile SPARQL endpoint on loopback whose
//! answer to the gold query changes after the audit's executions: the frozen
//! gold holds exactly the result the audit checked (never a fourth
//! execution's), a question whose audited result failed is marked `unstable`
//! (never frozen from the old file), and the frozen gold keeps what the
//! scoring reads (order flags, texts, annotations) and nothing its own reader
//! calls unknown.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

use crate::cli::{qajudge, stderr};

/// What the endpoint answers the gold query from its fourth call on.
#[derive(Clone, Copy)]
enum Later {
    /// HTTP 500.
    Fails,
    /// Another result, `http://ex/EVIL`.
    Differs,
}

/// A SPARQL endpoint on a loopback port answering at most `max` requests:
/// the gold query (`?x` over `<http://ex/p>`) gives `http://ex/a` to its
/// first three calls, then what `later` says; any other query (the audit's
/// IRI checks and windows) gives an ASK `true` or an empty result.
fn endpoint(later: Later, max: usize) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/sparql", listener.local_addr().expect("addr"));
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(max) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut head = String::new();
            let mut length = 0usize;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
                line.clear();
            }
            let mut body = vec![0; length.min(1 << 20)];
            let _ = reader.read_exact(&mut body);
            let request = format!("{head}{}", String::from_utf8_lossy(&body));
            let gold = request.contains("ex%2Fp") || request.contains("ex/p");
            let ask = request.contains("ASK");
            let (status, text) = if gold && !ask {
                let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
                match (n <= 3, later) {
                    (true, _) => ("200 OK", rows("http://ex/a")),
                    (false, Later::Fails) => ("500 Internal Server Error", "down".to_string()),
                    (false, Later::Differs) => ("200 OK", rows("http://ex/EVIL")),
                }
            } else if ask {
                ("200 OK", r#"{"head": {}, "boolean": true}"#.to_string())
            } else {
                (
                    "200 OK",
                    r#"{"head": {"vars": ["x"]}, "results": {"bindings": []}}"#.to_string(),
                )
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: application/sparql-results+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (url, calls)
}

fn rows(iri: &str) -> String {
    format!(
        r#"{{"head": {{"vars": ["x"]}}, "results": {{"bindings": [{{"x": {{"type": "uri", "value": "{iri}"}}}}]}}}}"#
    )
}

/// A two-question gold: q1's given answer is stale (`http://ex/OLD`), q2 is
/// flagged `RESULT_ORDER_MATTERS` with an annotation and keywords.
const GOLD: &str = r#"{"dataset": {"id": "frozen"}, "questions": [
  {"id": "q1", "question": [{"language": "en", "string": "Which x?"}],
   "query": {"sparql": "SELECT ?x WHERE { ?x <http://ex/p> ?y }"},
   "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://ex/OLD"}}]}}]},
  {"id": "q2", "question": [{"language": "en", "string": "Which y, in order?", "keywords": "y, order"},
                            {"language": "de", "string": "Welche y, geordnet?"}],
   "query": {"sparql": "SELECT ?y WHERE { ?y <http://ex/q> ?z } ORDER BY ?y"},
   "modifiers": ["RESULT_ORDER_MATTERS"], "aggregation": false,
   "annotations": [{"URI": "http://ex/q", "type": "PROPERTY"}],
   "answers": [{"head": {"vars": ["y"]}, "results": {"bindings": []}}]}
]}"#;

fn freeze(later: Later) -> (Value, String, usize) {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "qajudge-frozen-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let gold = dir.join("gold.json");
    std::fs::write(&gold, GOLD).expect("gold");
    let out = dir.join("out.json");
    let (url, calls) = endpoint(later, 200);
    let o = qajudge(&[
        "audit",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--endpoint",
        &url,
        "--write-gold",
        out.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    let written: Value = serde_json::from_slice(&std::fs::read(&out).expect("written"))
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    let _ = std::fs::remove_dir_all(&dir);
    (written, stderr(&o), calls.load(Ordering::SeqCst))
}

fn answers(q: &Value) -> Vec<String> {
    q["answers"][0]["results"]["bindings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["x"]["value"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_frozen_gold_holds_what_the_audit_saw_whatever_a_fourth_call_answers() {
    for later in [Later::Fails, Later::Differs] {
        let (written, err, calls) = freeze(later);
        let q1 = &written["questions"][0];
        assert_eq!(answers(q1), ["http://ex/a"], "{written}\n{err}");
        assert!(q1["unstable"].is_null(), "{q1}");
        // the gold query was executed only by the audit
        assert_eq!(calls, 3, "{err}");
        assert!(
            err.contains("2 question(s) frozen, 0 marked unstable"),
            "{err}"
        );
    }
}

#[test]
fn the_frozen_gold_keeps_what_scoring_reads_and_nothing_its_reader_calls_unknown() {
    let (written, err, _) = freeze(Later::Differs);
    let q2 = &written["questions"][1];
    assert_eq!(
        q2["modifiers"],
        serde_json::json!(["RESULT_ORDER_MATTERS"]),
        "{q2}"
    );
    assert_eq!(q2["aggregation"], false, "a boolean stays one: {q2}");
    assert_eq!(q2["question"][0]["keywords"], "y, order");
    assert_eq!(q2["question"][1]["language"], "de");
    assert_eq!(q2["annotations"][0]["type"], "PROPERTY");
    assert!(q2.get("features").is_none(), "{q2}");
    // the frozen file reads back with no unknown key and the order flag kept
    let back =
        qajudge::qald::parse(written.to_string().as_bytes(), "frozen.json").expect("reads back");
    assert!(
        back.unknown_keys.is_empty(),
        "{:?}\n{err}",
        back.unknown_keys
    );
    assert!(back.questions[1].order_flagged());
    assert_eq!(back.questions[1].properties, ["http://ex/q"]);
}

/// An endpoint on a loopback port that answers its first 100 requests with
/// an HTTP 500 whose body is `body`; its query URL.
fn failing(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let url = format!("http://{}/sparql", listener.local_addr().expect("addr"));
    std::thread::spawn(move || {
        for stream in listener.incoming().take(100) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// A fresh scratch directory holding [`GOLD`] as `gold.json`.
fn scratch(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("qajudge-frozen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let gold = dir.join("gold.json");
    std::fs::write(&gold, GOLD).expect("gold");
    (dir, gold)
}

/// A question whose audited execution failed is marked unstable, its given
/// answers kept, and never counted as frozen.
#[test]
fn a_question_whose_audited_result_failed_is_marked_unstable() {
    let url = failing("down");
    let (dir, gold) = scratch("fail");
    let out = dir.join("out.json");
    let o = qajudge(&[
        "audit",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--endpoint",
        &url,
        "--write-gold",
        out.to_str().expect("utf-8"),
    ]);
    let written: Value =
        serde_json::from_slice(&std::fs::read(&out).expect("written")).expect("json");
    for q in written["questions"].as_array().expect("questions") {
        assert!(q["unstable"].is_string(), "{q}\n{}", stderr(&o));
    }
    assert_eq!(
        answers(&written["questions"][0]),
        ["http://ex/OLD"],
        "given answers kept"
    );
    assert!(
        stderr(&o).contains("0 question(s) frozen, 2 marked unstable"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An endpoint's error body holding terminal escapes (ESC, BEL, an OSC 52
/// clipboard write) reaches the audit's table and the command's errors as
/// visible text, never as escapes a terminal would act on.
#[test]
fn an_endpoints_terminal_escapes_never_reach_the_terminal() {
    let url = failing("boom \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\r gone");
    let (dir, gold) = scratch("escapes");
    for format in ["table", "csv"] {
        let o = qajudge(&[
            "audit",
            "--gold",
            gold.to_str().expect("utf-8"),
            "--endpoint",
            &url,
            "--format",
            format,
        ]);
        let all = format!("{}{}", crate::cli::stdout(&o), stderr(&o));
        assert!(all.contains("execution_failed"), "{all}");
        for c in ['\u{1b}', '\u{7}', '\r'] {
            assert!(
                !all.contains(c),
                "{format}: {c:?} reached the terminal: {all:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
