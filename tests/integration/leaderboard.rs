//! What the web page's plots and leaderboard read, on the real server over
//! loopback: run names, confidence intervals and `by` splits in a stored
//! experiment's form and in `POST /api/v1/evaluate`, and a benchmark's
//! leaderboard of published runs (private ones never in it), sorted by any
//! headline measure.

use serde_json::{json, Value};

use crate::serve::{
    assert_error, get, post_form, post_json, post_with_token, root, tmp, wait, Server, RUN,
};

const CROSS: &str = "tests/data/demo/cross-graph.json";

/// Submits the demo benchmark with the example run and the cross-graph run
/// and more fields; the answer of the submission.
fn submit(s: &Server, extra: &[(&str, Option<&str>, &[u8])]) -> (u16, Value) {
    let run = std::fs::read(root().join(RUN)).expect("run");
    let cross = std::fs::read(root().join(CROSS)).expect("run");
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![
        ("benchmark", None, b"demo"),
        ("run", Some("example-system.json"), &run),
        ("run", Some("cross-graph.json"), &cross),
    ];
    parts.extend_from_slice(extra);
    post_form(s, &parts)
}

/// A leaderboard as (experiment, run, macro F1) rows, with its answer.
fn board(s: &Server, query: &str) -> (Vec<(String, String, Option<f64>)>, Value) {
    let (status, b) = get(s, &format!("/api/v1/benchmarks/demo/leaderboard{query}"));
    assert_eq!(status, 200, "{b}");
    let rows = b["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["experiment"].as_str().expect("id").to_string(),
                r["run"].as_str().expect("run").to_string(),
                r["macro_f1"].as_f64(),
            )
        })
        .collect();
    (rows, b)
}

#[test]
fn named_runs_intervals_splits_and_a_leaderboard_of_published_runs() {
    let s = Server::start(&tmp("leaderboard"), &[]);
    // the first run named, the second keeps its file's stem; intervals and a split
    let (status, created) = submit(
        &s,
        &[
            ("name", None, b"alpha"),
            ("name", None, b""),
            ("confidence", None, b"true"),
            ("by", None, b"answertype"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let report = &done["report"];
    let names: Vec<&str> = report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["alpha", "cross-graph"]);
    let qa = &report["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["confidence"]["resamples"], 1000, "{qa}");
    let ci = &qa["aggregate"]["confidence"]["macro"]["f1"];
    let f1 = qa["aggregate"]["macro"]["f1"].as_f64().expect("f1");
    assert!(
        ci["low"].as_f64().expect("low") <= f1 && f1 <= ci["high"].as_f64().expect("high"),
        "{ci} around {f1}"
    );
    assert!(qa["breakdown"]["answertype"].is_object(), "{qa}");

    // form errors name the value and say what to do
    for (field, value, code) in [
        ("by", &b"colour"[..], "bad_parameter"),
        ("confidence", b"maybe", "bad_field"),
    ] {
        let (status, e) = submit(&s, &[(field, None, value)]);
        assert_error(status, &e, 400, code);
    }
    let (status, e) = submit(
        &s,
        &[
            ("name", None, b"a"),
            ("name", None, b"b"),
            ("name", None, b"c"),
        ],
    );
    assert_error(status, &e, 400, "bad_field");
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("3 name fields for 2 runs")),
        "{e}"
    );

    // private: not on the leaderboard, whoever asks
    let (rows, b) = board(&s, "");
    assert!(rows.is_empty(), "{b}");
    assert_eq!(
        (b["limit"].as_u64(), b["truncated"].as_bool()),
        (Some(1000), Some(false))
    );
    let id = created["id"].as_str().expect("id");
    let token = created["token"].as_str().expect("token");
    let (status, p) = post_with_token(&s, &format!("/api/v1/experiments/{id}/publish"), token);
    assert_eq!(status, 200, "{p}");
    // a second experiment, published at once, the same run under another name
    let (status, second) = submit(&s, &[("name", None, b"beta"), ("publish", None, b"true")]);
    assert_eq!(status, 202, "{second}");
    assert_eq!(wait(&s, &second)["status"], "done");
    // and a private one
    let (_, private) = submit(&s, &[("name", None, b"hidden")]);
    wait(&s, &private);

    // by default by the profile's first headline figure (Macro F1 QALD
    // under judge), each row with its profile's headline named
    let (rows, b) = board(&s, "");
    assert_eq!(b["sort"], "headline");
    assert_eq!(b["read"], 2, "{b}");
    assert_eq!(rows.len(), 4, "{b}");
    assert!(rows.iter().all(|r| r.1 != "hidden"), "{rows:?}");
    let heads: Vec<f64> = b["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            assert_eq!(r["headline"][0]["name"], "Macro F1 QALD", "{r}");
            assert_eq!(r["headline"][0]["value"], r["macro_f1_qald"], "{r}");
            r["headline"][0]["value"].as_f64().expect("a figure")
        })
        .collect();
    assert!(heads.windows(2).all(|w| w[0] >= w[1]), "best first: {b}");
    let (rows, b) = board(&s, "?sort=macro_f1");
    assert_eq!(b["sort"], "macro_f1");
    let scores: Vec<f64> = rows.iter().filter_map(|r| r.2).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best first: {rows:?}"
    );
    let row = &b["rows"][0];
    assert_eq!(
        row["url"],
        format!("/experiments/{}", row["experiment"].as_str().expect("id"))
    );
    for key in ["profile", "created", "macro_f1_qald", "micro_f1"] {
        assert!(!row[key].is_null(), "{key}: {row}");
    }
    // the same scores under both names: alpha and beta are the example run
    let of = |run: &str| rows.iter().find(|r| r.1 == run).and_then(|r| r.2);
    assert_eq!(of("alpha"), of("beta"));
    let (rows, b) = board(&s, "?sort=created");
    assert_eq!(b["sort"], "created");
    assert_eq!(
        rows[0].0,
        second["id"].as_str().expect("id"),
        "newest first"
    );
    let (_, b) = board(&s, "?sort=micro_f1");
    assert_eq!(b["sort"], "micro_f1");
    let (status, e) = get(&s, "/api/v1/benchmarks/demo/leaderboard?sort=f1");
    assert_error(status, &e, 400, "bad_parameter");
    let (status, e) = get(&s, "/api/v1/benchmarks/nothing/leaderboard");
    assert_error(status, &e, 404, "not_found");

    // the synchronous route takes the same options
    let document: Value =
        serde_json::from_slice(&std::fs::read(root().join(RUN)).expect("run")).expect("json");
    let body = json!({"gold": "demo", "runs": [{"name": "x.json", "document": document}],
        "confidence": true, "by": ["answertype", "form"]});
    let (status, r) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{r}");
    let qa = &r["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["confidence"]["resamples"], 1000);
    assert!(qa["breakdown"]["form"].is_object(), "{qa}");
    let body = json!({"gold": "demo", "runs": [{"document": document}], "by": ["colour"]});
    let (status, e) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_error(status, &e, 400, "bad_parameter");
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("\"colour\"") && m.contains("answertype")),
        "{e}"
    );
}
