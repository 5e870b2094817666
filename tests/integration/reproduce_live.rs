//! `qajudge reproduce` of a report whose answers came from live sources
//! (docs/reproduce.md): a TEXT2SPARQL system on loopback answering the CK25
//! questions with the queries the INFAI system really returned (one past
//! the timeout, one HTTP 500 on its first call), its queries executed on a
//! real oxigraph server holding the CK25 graph. The report records every
//! call and every reply; `reproduce` scores the records without asking
//! anyone; an edited record is named; `--re-execute` asks again and names
//! what drifted once the endpoint's data changed.

use std::process::Command;
use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::cli::{stderr, stdout};
use crate::endpoint::{start, start_at, venv_program};
use crate::live_text2sparql::{infai_queries, start_system};
use crate::serve::tmp;

fn qajudge(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(args)
        .output()
        .expect("qajudge runs");
    (o.status.code(), stdout(&o), stderr(&o))
}

#[test]
fn a_report_of_live_sources_reproduces_from_its_records_and_names_drift() {
    let dir = crate::require_data!();
    let Some(bin) = venv_program("venv-oxigraph/bin/oxigraph") else {
        return;
    };
    let t = dir.join("text2sparql");
    let files = vec![t.join("kg/prod-inst.ttl"), t.join("kg/prod-vocab.ttl")];
    let endpoint = start(&bin, &files);
    let (system, state) = start_system(infai_queries(&dir));
    let gold = t.join("benchmark/questions_ck25.yml");
    let (code, out, err) = qajudge(&[
        "evaluate",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--system-url",
        &system,
        "--name",
        "infai-live",
        "--protocol",
        "text2sparql",
        "--timeout-ms",
        "1000",
        "--endpoint",
        &endpoint.url,
        "--profile",
        "text2sparql",
        "--experiments",
        "qa",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let report: Value = serde_json::from_str(&out).expect("a json report");
    let recorded = &report["recorded"];
    let calls = recorded["systems"][0]["calls"].as_array().expect("calls");
    let failed: Vec<&str> = calls
        .iter()
        .filter(|c| c.get("error").is_some())
        .map(|c| c["error"].as_str().expect("error"))
        .collect();
    // the answer past the timeout and the 500 are recorded as they failed
    // (a loaded machine may time out another: at least these two)
    assert!(failed.len() >= 2, "{failed:?}");
    assert!(failed.iter().any(|e| e.contains("timed out")), "{failed:?}");
    assert!(failed.contains(&"http status 500"), "{failed:?}");
    let replies = recorded["endpoint"]["queries"].as_array().expect("replies");
    assert!(replies.len() > 40, "{}", replies.len());
    // what the endpoint says of itself, and the record's digest, in the receipt
    let live = report["receipt"]["live"].as_array().expect("live");
    assert_eq!(live.len(), 2);
    assert!(
        live.iter().all(|l| l["recorded_sha256"].is_string()),
        "{live:?}"
    );
    let dir = tmp("reproduce-live");
    let path = dir.join("report.json");
    std::fs::write(&path, &out).expect("written");
    let path = path.to_str().expect("utf-8");

    // scored from the records: nobody is asked (the endpoint is down)
    let asked = state.total.load(Ordering::SeqCst);
    drop(endpoint);
    let (code, said, err) = qajudge(&["reproduce", path]);
    assert_eq!(code, Some(0), "{said}{err}");
    assert!(said.contains("reproduced: "), "{said}");
    assert!(said.contains("as the report recorded them"), "{said}");
    assert_eq!(state.total.load(Ordering::SeqCst), asked);

    // an edited record is named, and nothing is evaluated
    let mut edited = report.clone();
    let body = edited["recorded"]["systems"][0]["calls"][0]["body"]
        .as_str()
        .expect("a body")
        .replace("SELECT", "SELECT DISTINCT");
    edited["recorded"]["systems"][0]["calls"][0]["body"] = Value::String(body);
    let edited_path = dir.join("edited.json");
    std::fs::write(&edited_path, edited.to_string()).expect("written");
    let (code, said, _) = qajudge(&["reproduce", edited_path.to_str().expect("utf-8")]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("changed: the record of what the system \"infai-live\""),
        "{said}"
    );

    // asked again: the endpoint, started where it was, lost the graph's
    // instances; the 500 passes now
    let port: u16 = old_port(&report);
    let endpoint = start_at(&bin, &[t.join("kg/prod-vocab.ttl")], port);
    let (code, said, err) = qajudge(&["reproduce", path, "--re-execute"]);
    assert_eq!(code, Some(1), "{said}{err}");
    assert!(
        said.contains("drift: system \"infai-live\", question \"ck25:49-en\": it failed then (http status 500), and now answers"),
        "{said}"
    );
    assert!(said.contains("drift: endpoint, query "), "{said}");
    assert!(
        said.contains("drift: run \"infai-live\", qa, question "),
        "{said}"
    );
    assert!(said.contains("asked again, they drifted"), "{said}");
    assert!(state.total.load(Ordering::SeqCst) > asked);

    // a system that fails every call now is drift, not the end of the check
    state.hang_after.store(0, Ordering::SeqCst);
    let (code, said, err) = qajudge(&["reproduce", path, "--re-execute"]);
    assert_eq!(code, Some(1), "{said}{err}");
    assert!(
        said.contains("drift: asked again, the evaluation failed: "),
        "{said}"
    );
    assert!(said.contains("reproduced: "), "{said}");
    drop(endpoint);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The port of the endpoint the report names.
fn old_port(report: &Value) -> u16 {
    let url = report["knowledge_graph"]["endpoint"].as_str().expect("url");
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host");
    authority
        .rsplit(':')
        .next()
        .expect("port")
        .parse()
        .expect("a port")
}
