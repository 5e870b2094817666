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
