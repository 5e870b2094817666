//! The `t2s-metrics` profile (docs/scoring.md, The `t2s-metrics` profile) on
//! the nine CK25 team files of T2S-Metrics' own dataset, both queries executed
//! on the CK25 graph: every query-text measure of every question as
//! T2S-Metrics 1.2.0 computed it (`tests/data/t2s-metrics/ck25-text.json`,
//! made by `tests/data/t2s-metrics/ck25_text.sh VENV CK25_DIR KG_TTL`), to
//! 1e-9, under its names, per question and as run means.

use serde_json::Value;
use std::process::Command;

use crate::require_data;

/// Measures T2S-Metrics computes on the raw text that the reader of its
/// files trims (`levenshtein` counts leading and trailing whitespace).
const ON_TRIMMED_TEXT: &[&str] = &["levenshtein"];

#[test]
fn ck25_text_measures_equal_t2s_metrics() {
    let data = require_data!();
    let ck25 = data.join("text2sparql/t2s-metrics/ck25");
    let kg = data.join("text2sparql/kg");
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::serve::root().join("tests/data/t2s-metrics/ck25-text.json"),
        )
        .expect("the fixture"),
    )
    .expect("json");
    let mut checked = 0;
    for (team, per_id) in expected["per_query"].as_object().expect("teams") {
        let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
            .args([
                "evaluate",
                "--profile",
                "t2s-metrics",
                "--format",
                "json",
                "--run",
            ])
            .arg(ck25.join(format!("{team}.jsonl")))
            .arg("--kg")
            .arg(kg.join("prod-inst.ttl"))
            .arg(kg.join("prod-vocab.ttl"))
            .output()
            .expect("qajudge runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report: Value = serde_json::from_slice(&o.stdout).expect("a json report");
        let qa = &report["runs"][0]["experiments"]["qa"];
        for q in qa["questions"].as_array().expect("questions") {
            let id = q["id"].as_str().expect("an id");
            for (metric, want) in per_id[id].as_object().expect("its scores") {
                if ON_TRIMMED_TEXT.contains(&metric.as_str()) {
                    continue;
                }
                let got = q["official"][metric].as_f64().expect("a figure");
                let want = want.as_f64().expect("a score");
                assert!(
                    (got - want).abs() < 1e-9,
                    "{team} {id} {metric}: {got} against {want}"
                );
                checked += 1;
            }
        }
        let means = &qa["aggregate"]["official"];
        for (metric, want) in expected["means"][team].as_object().expect("means") {
            if ON_TRIMMED_TEXT.contains(&metric.as_str()) {
                continue;
            }
            let got = means[metric].as_f64().expect("a mean");
            assert!(
                (got - want.as_f64().expect("a mean")).abs() < 1e-9,
                "{team} {metric}"
            );
        }
    }
    assert_eq!(checked, 440 * 11);
}
