//! Hostile inputs against the real binary (issue: hardening): queries nested or
//! chained far past what a parser's stack holds, sent to every route that reads
//! a query and to the command line. Each is refused with its own code (400
//! `query_too_large`) or becomes the question's diagnostic, and the server keeps
//! serving (`/health` after each). A server started without
//! `--allow-system-host` calls no live system, loopback included.

use serde_json::{json, Value};

use crate::cli::qajudge;
use crate::serve::{assert_error, get, post_form, post_json, tmp, wait, Server};

/// `FILTER` around `n` levels of parentheses.
fn parens(n: usize) -> String {
    format!(
        "SELECT * WHERE {{ ?s ?p ?o FILTER({}1{}) }}",
        "(".repeat(n),
        ")".repeat(n)
    )
}

/// `n` OPTIONALs, each inside the one before.
fn optionals(n: usize) -> String {
    let mut q = String::from("SELECT * WHERE { ?s ?p ?o ");
    for _ in 0..n {
        q.push_str("OPTIONAL { ?s ?p ?o ");
    }
    q.push_str(&"}".repeat(n + 1));
    q
}

/// `1+1+…+1` with `n` terms: no bracket nesting, an algebra `n` deep.
fn chain(n: usize) -> String {
    format!(
        "SELECT * WHERE {{ ?s ?p ?o FILTER({}1) }}",
        "1+".repeat(n - 1)
    )
}

/// Every bomb: nested brackets (1 000 and 100 000 levels, 5 000 OPTIONALs)
/// and a chain 100 000 deep.
fn bombs() -> Vec<(&'static str, String)> {
    vec![
        ("parens-1000", parens(1000)),
        ("parens-100k", parens(100_000)),
        ("optionals-5000", optionals(5000)),
        ("chain-100k", chain(100_000)),
    ]
}

fn healthy(s: &Server) {
    let (status, body) = get(s, "/api/v1/health");
    assert_eq!(status, 200, "the server still serves: {body}");
}

/// A QALD-JSON run of the demo's question 1 whose query is `query`.
fn run_with_query(query: &str) -> Value {
    json!({"questions": [{
        "id": "1",
        "question": [{"language": "en", "string": "bomb"}],
        "query": {"sparql": query}
    }]})
}

#[test]
fn depth_bombs_are_refused_on_every_route_and_the_server_keeps_serving() {
    let data = tmp("hostile-depth");
    let s = Server::start_bare(&data, &["--kg", "tests/data/demo/kg.ttl"]);
    for (name, q) in bombs() {
        // the annotator
        let (status, e) = post_json(&s, "/api/v1/annotate", &json!({ "sparql": q }).to_string());
        assert_error(status, &e, 400, "query_too_large");
        assert!(e.to_string().contains("too large to read"), "{name}: {e}");
        healthy(&s);

        // the SPARQL endpoint, the query as the body
        let answer = ureq::post(&s.url("/sparql"))
            .set("Content-Type", "application/sparql-query")
            .send_string(&q);
        let (status, e) = match answer {
            Err(ureq::Error::Status(code, r)) => (
                code,
                serde_json::from_str(&r.into_string().expect("body")).expect("json"),
            ),
            other => panic!("{name}: /sparql answered {other:?}"),
        };
        assert_error(status, &e, 400, "query_too_large");
        healthy(&s);

        // a run's query executed on the server's graph: the question's diagnostic
        let body = json!({
            "gold": "demo",
            "runs": [{"name": name, "document": run_with_query(&q)}],
            "experiments": ["qa", "c2kb", "p2kb"],
            "execute_run": true,
        });
        let (status, report) = post_json(&s, "/api/v1/evaluate", &body.to_string());
        assert_eq!(status, 200, "{name}: {report}");
        let text = report.to_string();
        assert!(text.contains("too large to read"), "{name}: {text}");
        healthy(&s);
    }

    // a stored experiment, evaluated on the server's worker thread
    for (name, q) in bombs() {
        let run = run_with_query(&q).to_string();
        let (status, created) = post_form(
            &s,
            &[
                ("benchmark", None, b"demo"),
                ("run", Some("bomb.json"), run.as_bytes()),
                ("experiments", None, b"qa,c2kb,p2kb"),
            ],
        );
        assert_eq!(status, 202, "{name}: {created}");
        let done = wait(&s, &created);
        assert_eq!(done["status"], "done", "{name}: {done}");
        assert!(done.to_string().contains("too large to read"), "{name}");
        healthy(&s);
    }
}

#[test]
fn depth_bombs_on_the_command_line_are_a_clear_error_or_a_diagnostic() {
    // one query: exit 1 with the reason, not an abort (an argument is at most
    // 128 KiB on Linux: the longer bombs go in a file below)
    let shorter = [("chain-50k", chain(50_000))];
    for (name, q) in bombs()
        .into_iter()
        .chain(shorter)
        .filter(|(_, q)| q.len() < 120_000)
    {
        let o = qajudge(&["annotate", "--sparql", &q]);
        assert_eq!(o.status.code(), Some(1), "{name}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("too large to read"), "{name}: {err}");
    }
    // a benchmark with every bomb: each question gets its diagnostic, the run goes on
    let dir = tmp("hostile-cli");
    // and one query that reads, so that c2kb has a question to score
    let fine =
        "SELECT ?x WHERE { ?x <http://dbpedia.org/ontology/p> <http://dbpedia.org/resource/A> }";
    let questions: Vec<Value> = bombs()
        .iter()
        .map(|(_, q)| q.as_str())
        .chain([fine])
        .enumerate()
        .map(|(i, q)| {
            json!({
                "id": (i + 1).to_string(),
                "question": [{"language": "en", "string": "bomb"}],
                "query": {"sparql": q},
                "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
                    {"x": {"type": "uri", "value": "http://dbpedia.org/resource/A"}}]}}]
            })
        })
        .collect();
    let gold = dir.join("bombs.json");
    std::fs::write(&gold, json!({ "questions": questions }).to_string()).expect("gold");
    let gold = gold.to_str().expect("utf-8");
    let o = qajudge(&["annotate", "--gold", gold]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("4 queries could not be read"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = qajudge(&[
        "evaluate",
        "--gold",
        gold,
        "--run",
        gold,
        "--experiments",
        "qa,c2kb,p2kb",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{o:?}");
    let report: Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(
        report["runs"][0]["experiments"]["qa"]["aggregate"]["macro"]["f1"], 1.0,
        "the answers are still scored: {report}"
    );
    let c2kb = &report["runs"][0]["experiments"]["c2kb"];
    assert_eq!(c2kb["aggregate"]["not_evaluable"], 4, "{c2kb}");
    assert!(c2kb.to_string().contains("too large to read"), "{c2kb}");
}

#[test]
fn a_server_calls_no_live_system_unless_its_hosts_are_named() {
    // a listener that records whether anyone connected
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!(
        "http://127.0.0.1:{}/qa",
        listener.local_addr().expect("addr").port()
    );
    let s = Server::start_as_given(&tmp("hostile-no-hosts"), &[]);
    let (status, e) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, url.as_bytes()),
        ],
    );
    assert_error(status, &e, 400, "bad_system_url");
    assert!(e.to_string().contains("none were given"), "{e}");
    assert!(listener.accept().is_err(), "the system was not called");
    healthy(&s);
}

#[test]
fn a_fuzzy_label_search_past_the_matcher_limit_says_so() {
    let index = crate::serve::demo_index();
    let text = "Bernhard Riemann ".repeat(40);
    let o = qajudge(&[
        "labels",
        "--index",
        index.to_str().expect("utf-8"),
        "--fuzzy",
        "2",
        &text,
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("size limit") && !err.contains("rebuild"),
        "{err}"
    );
}

#[test]
fn nested_yaml_is_refused_before_the_parser_and_the_server_keeps_serving() {
    let s = Server::start_bare(&tmp("hostile-yaml"), &[]);
    for levels in [40_000, 110_000] {
        let yaml = format!("questions: {}{}\n", "[".repeat(levels), "]".repeat(levels));
        let body = json!({"gold": {"name": "bomb.yaml", "text": yaml}, "runs": [{"text": "{}"}]});
        let (status, e) = post_json(&s, "/api/v1/evaluate", &body.to_string());
        assert_error(status, &e, 400, "bad_gold");
        // the parser never sees it (110 000 levels took 48 s in the YAML
        // parser): "nests about" is the scan's refusal, which runs first; no
        // bound on the wall time, which a loaded machine would decide
        assert!(e.to_string().contains("nests about"), "{e}");
        healthy(&s);
    }
}

#[test]
fn a_service_clause_on_sparql_is_refused_as_such() {
    let s = Server::start_bare(&tmp("hostile-service"), &[]);
    let answer = ureq::post(&s.url("/sparql"))
        .set("Content-Type", "application/sparql-query")
        .send_string("SELECT * WHERE { SERVICE <http://169.254.169.254/sparql> { ?s ?p ?o } }");
    let (status, e) = match answer {
        Err(ureq::Error::Status(code, r)) => (
            code,
            serde_json::from_str(&r.into_string().expect("body")).expect("json"),
        ),
        other => panic!("/sparql answered {other:?}"),
    };
    assert_error(status, &e, 400, "service_not_allowed");
    healthy(&s);
}
