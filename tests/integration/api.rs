//! The backend routes other tools build on, on the real server over loopback:
//! the synchronous `POST /api/v1/evaluate` (whose figures equal the CLI's), the
//! batch routes (`/match` over many questions, `/labels`, `/types`,
//! `/canonical`), `/sameas` without an index, and every documented limit
//! exceeded (a JSON 4xx, the server unaffected).

use serde_json::{json, Value};

use crate::cli::{qajudge, stdout};
use crate::serve::{assert_error, demo_index, get, post_json, tmp, Server, GOLD, RUN};

fn file_json(path: &str) -> Value {
    let text = std::fs::read_to_string(crate::serve::root().join(path)).expect("fixture");
    serde_json::from_str(&text).expect("JSON fixture")
}

/// The CLI's JSON report of the demo run, with the demo index, as it printed
/// it (serde_json's parser may move a float's last digit; the text keeps it).
pub fn cli_report_text() -> String {
    let index = demo_index();
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--index",
        index.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(o.status.success());
    stdout(&o)
}

/// The CLI's JSON report of the demo run, with the demo index.
fn cli_report() -> Value {
    serde_json::from_str(&cli_report_text()).expect("report")
}

/// Every aggregate of a report's runs, by run and sub-experiment.
fn aggregates(report: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for run in report["runs"].as_array().expect("runs") {
        for (name, e) in run["experiments"].as_object().expect("experiments") {
            out.push((
                run["name"].as_str().unwrap_or("").to_string(),
                name.clone(),
                e["aggregate"].clone(),
            ));
        }
    }
    out
}

#[test]
fn synchronous_evaluation_equals_the_cli() {
    let data = tmp("api-evaluate");
    let s = Server::start(&data, &["--max-body-bytes", "400000"]);
    let run = file_json(RUN);
    let cli = cli_report();

    // the gold as a registered benchmark, the run inline
    let body = json!({"gold": "demo", "runs": [{"name": "example-system.json", "document": run}]});
    let (status, report) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["runs"][0]["name"], "example-system");
    assert_eq!(aggregates(&report), aggregates(&cli));
    assert!(!aggregates(&report).is_empty());

    // the gold inline, options, a run as text
    let body = json!({
        "gold": {"name": "gold.json", "document": file_json(GOLD)},
        "runs": [{"name": "a", "text": std::fs::read_to_string(crate::serve::root().join(RUN)).expect("run")}],
        "profile": "gerbil",
        "experiments": ["qa"],
        "explain": true
    });
    let (status, report) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["profile"], "gerbil");
    let names: Vec<&String> = report["runs"][0]["experiments"]
        .as_object()
        .expect("experiments")
        .iter()
        .filter(|(_, e)| !e.is_null())
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, vec!["qa"], "the others are not computed");

    // bad calls: each a JSON 4xx naming what is wrong
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"gold": "nope", "runs": [{"document": run}]}),
            404,
            "not_found",
        ),
        (json!({"gold": "demo", "runs": []}), 400, "missing_field"),
        (
            json!({"gold": "demo", "runs": vec![json!({"document": {"questions": []}}); 21]}),
            400,
            "too_many_runs",
        ),
        (
            json!({"gold": "demo", "runs": [{"document": run}], "timeout_ms": 0}),
            400,
            "bad_parameter",
        ),
        (
            json!({"gold": "demo", "runs": [{"name": "broken.json", "text": "{\"questions\": [1,"}]}),
            400,
            "bad_run",
        ),
        (
            json!({"gold": "demo", "runs": [{"document": run, "text": "x"}]}),
            400,
            "bad_document",
        ),
        (
            json!({"gold": "demo", "runs": [{"document": run}], "nope": 1}),
            400,
            "bad_json",
        ),
        (
            json!({"gold": "demo", "runs": [{"document": run}], "refresh_gold": true}),
            400,
            "no_knowledge_graph",
        ),
        (
            json!({"gold": "demo", "runs": [{"document": run}], "gold_markings": "x"}),
            400,
            "bad_parameter",
        ),
    ];
    for (body, want_status, want_code) in cases {
        let (status, e) = post_json(&s, "/api/v1/evaluate", &body.to_string());
        assert_error(status, &e, want_status, want_code);
    }
    let (status, e) = post_json(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": "demo", "runs": [{"name": "broken.json", "text": "{\"questions\": [1,"}]})
            .to_string(),
    );
    assert_eq!(status, 400);
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("broken.json")),
        "{e}"
    );
    // over the body limit
    let big = json!({"gold": "demo", "runs": [{"text": "x".repeat(500_000)}]});
    let (status, e) = post_json(&s, "/api/v1/evaluate", &big.to_string());
    assert_error(status, &e, 413, "payload_too_large");
    // and the server is unaffected
    let (status, report) = post_json(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": "demo", "runs": [{"document": run}]}).to_string(),
    );
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        aggregates(&report),
        aggregates(&cli)
            .into_iter()
            .map(|(_, e, a)| ("run1".to_string(), e, a))
            .collect::<Vec<_>>()
    );
}

#[test]
fn batch_routes_and_their_limits() {
    let data = tmp("api-batch");
    let s = Server::start(&data, &[]);
    let obama = |v: &str| json!({"type": "uri", "value": v});

    // match over many questions, in order
    let body = json!({"questions": [
        {"id": "1", "gold": [obama("http://dbpedia.org/resource/Barack_Obama")], "run": [obama("http://www.wikidata.org/entity/Q76")]},
        {"id": 2, "gold": [obama("http://dbpedia.org/resource/Honolulu")], "run": [{"type": "literal", "value": "Paris"}]},
        {"id": "3", "gold": [], "run": []}
    ]});
    let (status, m) = post_json(&s, "/api/v1/match", &body.to_string());
    assert_eq!(status, 200, "{m}");
    let qs = m["questions"].as_array().expect("questions");
    assert_eq!(qs.len(), 3);
    assert_eq!(
        (qs[0]["id"].clone(), qs[0]["tp"].as_u64()),
        (json!("1"), Some(1))
    );
    assert_eq!(qs[0]["explanation"]["pairs"][0]["rule"], "sameas");
    assert_eq!(
        (qs[1]["id"].clone(), qs[1]["fp"].as_u64()),
        (json!(2), Some(1))
    );
    assert_eq!(qs[2]["f1"], 1.0, "empty gold and empty run");
    let (status, e) = post_json(
        &s,
        "/api/v1/match",
        &json!({"questions": [{"id": 1, "gold": [{"type": "uri"}], "run": []}]}).to_string(),
    );
    assert_error(status, &e, 400, "bad_answer");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("questions[0].gold[0]"),
        "{e}"
    );
    let (status, e) = post_json(&s, "/api/v1/match", r#"{"gold": [], "questions": []}"#);
    assert_error(status, &e, 400, "bad_body");

    // labels and types in batches
    let (status, l) = post_json(
        &s,
        "/api/v1/labels",
        r#"[{"text": "honolulu"}, {"text": "Honolule", "fuzzy": 1}, {"text": "no such label"}]"#,
    );
    assert_eq!(status, 200, "{l}");
    let counts: Vec<usize> = l
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a["hits"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(counts, vec![2, 2, 0]);
    assert_eq!(l[1]["text"], "Honolule");
    let (status, e) = post_json(
        &s,
        "/api/v1/labels",
        r#"{"queries": [{"text": "a", "fuzzy": 3}]}"#,
    );
    assert_error(status, &e, 400, "bad_parameter");
    let many: Vec<Value> = (0..1001)
        .map(|i| json!({"text": format!("l{i}")}))
        .collect();
    let (status, e) = post_json(&s, "/api/v1/labels", &Value::Array(many).to_string());
    assert_error(status, &e, 400, "batch_too_large");
    let (status, t) = post_json(
        &s,
        "/api/v1/types",
        r#"{"iris": ["http://dbpedia.org/resource/Honolulu", "http://example.org/x"]}"#,
    );
    assert_eq!(status, 200, "{t}");
    assert_eq!(t[0]["types"], json!(["http://dbpedia.org/ontology/City"]));
    assert_eq!(t[1]["types"], json!([]));

    // canonical forms, and every batch limit of 10,000 IRIs
    let (status, c) = post_json(
        &s,
        "/api/v1/canonical",
        r#"["https://dbpedia.org/resource/Barack_Obama", "http://dbpedia.org/resource/Barack_Obama"]"#,
    );
    assert_eq!(status, 200, "{c}");
    assert_eq!(c[0]["canonical"], c[1]["canonical"]);
    assert_eq!(c[0]["iri"], "https://dbpedia.org/resource/Barack_Obama");
    let iris: Vec<String> = (0..10_001).map(|i| format!("http://e.org/{i}")).collect();
    let iris = serde_json::to_string(&iris).expect("json");
    for route in ["/api/v1/sameas", "/api/v1/types", "/api/v1/canonical"] {
        let (status, e) = post_json(&s, route, &iris);
        assert_error(status, &e, 400, "batch_too_large");
    }
    let (status, h) = get(&s, "/api/v1/health");
    assert_eq!((status, h["status"].clone()), (200, json!("ok")));
}

#[test]
fn without_an_index_sameas_answers_canonical_classes_of_one() {
    let data = tmp("api-no-index");
    let s = Server::start_bare(&data, &["--max-body-bytes", "2000000"]);
    let (status, c) = get(
        &s,
        "/api/v1/sameas?iri=https%3A%2F%2Fdbpedia.org%2Fresource%2FBarack_Obama",
    );
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["class_size"], 1);
    assert!(c["class"].is_null());
    assert_eq!(
        c["members"],
        json!(["https://dbpedia.org/resource/Barack_Obama"])
    );
    let (status, list) = post_json(
        &s,
        "/api/v1/sameas",
        r#"{"iris": ["http://dbpedia.org/resource/Barack_Obama"]}"#,
    );
    assert_eq!(status, 200, "{list}");
    assert_eq!(list[0]["canonical"], c["canonical"]);
    // routes that need an index say so
    let (status, e) = post_json(&s, "/api/v1/types", r#"["http://e.org/x"]"#);
    assert_error(status, &e, 503, "no_index");
    let (status, e) = post_json(&s, "/api/v1/labels", r#"[{"text": "x"}]"#);
    assert_error(status, &e, 503, "no_index");
    // match without an index still matches by canonical form
    let many: Vec<Value> = (0..10_001)
        .map(|i| json!({"id": i, "gold": [], "run": []}))
        .collect();
    let (status, e) = post_json(
        &s,
        "/api/v1/match",
        &json!({ "questions": many }).to_string(),
    );
    assert_error(status, &e, 400, "batch_too_large");
}
