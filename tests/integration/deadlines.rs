//! Work stops at its deadline and evaluations are admitted up to a limit
//! (docs/http-api.md, Limits and security), on the real server: an evaluation
//! of 20 T2S-Metrics cases whose queries are 180 KB each (seconds of text
//! measures per case in a debug build) answers 503 `timeout` at its
//! `timeout_ms`, and the server's CPU time then stops growing once the case
//! at hand ends (before, it scored all 20 after the answer); with both places
//! of a server started with `--max-evaluations 2` taken, a third gets 503 `busy` with
//! `Retry-After`; a stored experiment past `--experiment-timeout-s` fails,
//! saying why, and the next one runs.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{get, post_json, tmp, Server};

/// 20 cases, each a query of 6,000 triple patterns (180 KB), gold and generated.
fn slow_cases() -> String {
    let q: String = format!(
        "SELECT ?x WHERE {{ {} }}",
        (0..6000)
            .map(|i| format!("?x <http://e.org/p{i}> ?o{} .", i % 50))
            .collect::<Vec<_>>()
            .join(" ")
    );
    (0..20)
        .map(|i| {
            json!({"id": i.to_string(), "golden": q, "generated": q.replace("p1", "p2"), "order_matters": false})
                .to_string()
                + "\n"
        })
        .collect()
}

/// The server's user and system CPU time so far, in seconds (`/proc/PID/stat`).
fn cpu_seconds(s: &Server) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", s.pid())).expect("stat");
    // the fields after the command's closing parenthesis: utime is the 14th
    // field of the line, the 12th after it
    let rest = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks =
        fields[11].parse::<f64>().expect("utime") + fields[12].parse::<f64>().expect("stime");
    ticks / 100.0
}

fn body(cases: &str, timeout_ms: u64) -> String {
    json!({
        "gold": {"name": "cases.jsonl", "text": cases},
        "runs": [{"name": "run", "text": cases}],
        "profile": "t2s-metrics",
        "timeout_ms": timeout_ms,
    })
    .to_string()
}

#[test]
fn an_evaluation_stops_at_its_deadline_and_places_are_bounded() {
    let s = Server::start_bare(&tmp("deadlines"), &["--max-evaluations", "2"]);
    let cases = slow_cases();
    // the answer is the deadline's (a 503 `timeout`, not the 20 cases'
    // report); how soon it came is the machine's, not asserted
    let (status, e) = post_json(&s, "/api/v1/evaluate", &body(&cases, 2000));
    assert_eq!(status, 503, "{e}");
    assert_eq!(e["error"]["code"], "timeout", "{e}");
    // the case being scored at the deadline ends (a few seconds in a debug
    // build, longer on a loaded machine), then nothing more: the server goes
    // quiet well before the 20 cases would be done (about a minute). Counted
    // in windows of CPU time, not by a fixed wait the machine's speed decides.
    let mut windows = Vec::new();
    for _ in 0..10 {
        let before = cpu_seconds(&s);
        std::thread::sleep(Duration::from_secs(2));
        let burnt = cpu_seconds(&s) - before;
        windows.push(burnt);
        if burnt < 0.5 {
            break;
        }
    }
    assert!(
        windows.last().is_some_and(|b| *b < 0.5),
        "the server kept burning CPU after answering 503: {windows:?} s per 2 s window"
    );
    // the server's two places (--max-evaluations 2): two evaluations hold
    // them (8 s each), and one more is refused `busy`. On a loaded machine
    // the holders may be admitted after the third is sent: the third is
    // given 300 ms, so that one admitted first ends at once, and is sent
    // again until it finds the places taken (no fixed wait that the
    // machine's speed decides; at most 100 tries)
    let places = 2;
    let url = s.url("/api/v1/evaluate");
    let mut busy = None;
    let mut failures = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..places {
            let (url, text) = (url.clone(), body(&cases, 8000));
            scope.spawn(move || {
                let _ = ureq::post(&url)
                    .set("Content-Type", "application/json")
                    .send_string(&text);
            });
        }
        for _ in 0..100 {
            match ureq::post(&url)
                .set("Content-Type", "application/json")
                .send_string(&body(&cases, 300))
            {
                Err(ureq::Error::Status(code, r)) => {
                    let retry_after = r.header("Retry-After").map(str::to_string);
                    let text = r.into_string().unwrap_or_default();
                    if text.contains("\"busy\"") {
                        busy = Some((code, retry_after, text));
                        break;
                    }
                    // admitted before the holders, and stopped at its 300 ms
                    assert!(text.contains("\"timeout\""), "{code} {text}");
                }
                Ok(r) => panic!("20 slow cases scored within 300 ms: {}", r.status()),
                // a connection the loaded machine dropped: asked again
                Err(e) => failures.push(e.to_string()),
            }
        }
    });
    let Some((code, retry_after, text)) = busy else {
        panic!("no third evaluation was refused busy; transport errors: {failures:?}");
    };
    assert_eq!(code, 503, "{text}");
    assert!(text.contains("\"busy\""), "{text}");
    assert!(
        retry_after.is_some_and(|r| r.parse::<u32>().is_ok()),
        "{text}"
    );
    let (status, _) = get(&s, "/api/v1/health");
    assert_eq!(status, 200);
}

#[test]
fn a_stored_experiment_past_its_time_fails_saying_why() {
    let dir = tmp("deadline-experiment");
    let cases = dir.join("cases.jsonl");
    std::fs::write(&cases, slow_cases()).expect("cases");
    let s = Server::start_bare(
        &tmp("deadline-experiment-data"),
        &["--experiment-timeout-s", "2"],
    );
    let text = std::fs::read(&cases).expect("cases");
    let submit = |name: &str| -> Value {
        let (status, v) = crate::serve::post_form(
            &s,
            &[
                ("gold", Some(name), &text),
                ("run", Some(name), &text),
                ("profile", None, b"t2s-metrics"),
            ],
        );
        assert_eq!(status, 202, "{v}");
        v
    };
    let first = submit("cases.jsonl");
    let id = first["id"].as_str().expect("id").to_string();
    let token = first["token"].as_str().expect("token").to_string();
    let started = Instant::now();
    let record = loop {
        let (_, v) = crate::serve::get_with_token(&s, &format!("/api/v1/experiments/{id}"), &token);
        if v["status"] == "failed" || v["status"] == "done" {
            break v;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{v}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(record["status"], "failed", "{record}");
    assert!(
        record["error"]
            .as_str()
            .is_some_and(|e| e.contains("time limit")),
        "{record}"
    );
    // it failed within its time and the one case being scored
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
