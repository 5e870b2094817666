//! Receipts and `qajudge reproduce` (docs/reproduce.md): reports of several
//! profiles on real data reproduce ("reproduced: N figures, all equal");
//! one byte of a run, one option of the receipt, or the index changed is
//! named exactly; the inputs are found by digest under `--inputs`; the
//! receipt is the same byte for byte on a second evaluation, and its hash
//! is the same from the command line and the server.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::cli::{qajudge, stderr, stdout};
use crate::serve::{post_json, tmp, Server};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn demo(name: &str) -> String {
    root()
        .join("tests/data/demo")
        .join(name)
        .to_str()
        .expect("utf-8")
        .to_string()
}

/// Evaluates with `args` (JSON), writes the report into `dir` and returns its path.
fn report(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let mut all = vec!["evaluate", "--format", "json"];
    all.extend_from_slice(args);
    let o = qajudge(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = dir.join(name);
    std::fs::write(&path, stdout(&o)).expect("report");
    path
}

fn reproduce(report: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["reproduce", report.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    let o = qajudge(&args);
    (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qajudge-reproduce-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

#[test]
fn reports_of_several_profiles_reproduce_on_real_data() {
    let data = crate::require_data!();
    let dir = scratch("profiles");
    let t = data.join("text2sparql");
    let s = |p: PathBuf| p.to_str().expect("utf-8").to_string();
    let (yaml, answers) = (
        s(t.join("benchmark/questions_ck25.yml")),
        s(t.join("benchmark/ck25_true_result_set.json")),
    );
    let infai = s(t.join("systems/INFAI/ck25_answers.json"));
    let wse = s(t.join("systems/WSE/ck25_answers.json"));
    let kg = [
        s(t.join("kg/prod-inst.ttl")),
        s(t.join("kg/prod-vocab.ttl")),
    ];
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "judge",
            vec![
                "--gold".into(),
                demo("gold.json"),
                "--run".into(),
                demo("example-system.json"),
                "--run".into(),
                demo("sparql-system.json"),
                "--kg".into(),
                demo("kg.ttl"),
                "--confidence".into(),
            ],
        ),
        (
            "text2sparql",
            vec![
                "--gold".into(),
                yaml.clone(),
                "--gold-answers".into(),
                answers.clone(),
                "--run".into(),
                infai,
                "--run".into(),
                wse,
                "--profile".into(),
                "text2sparql".into(),
                "--kg".into(),
                kg[0].clone(),
                kg[1].clone(),
            ],
        ),
        (
            "gerbil",
            vec![
                "--gold".into(),
                demo("gold.json"),
                "--run".into(),
                demo("example-system.json"),
                "--profile".into(),
                "gerbil".into(),
                "--experiments".into(),
                "qa".into(),
            ],
        ),
    ];
    for (profile, args) in &cases {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let path = report(&dir, &format!("{profile}.json"), &argv);
        let (code, said) = reproduce(&path, &[]);
        assert_eq!(code, Some(0), "{profile}: {said}");
        assert!(said.contains("figures, all equal"), "{profile}: {said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_changed_byte_option_or_index_is_named_exactly() {
    let dir = scratch("changes");
    let inputs = dir.join("inputs");
    std::fs::create_dir_all(&inputs).expect("inputs");
    for f in ["gold.json", "example-system.json"] {
        std::fs::copy(demo(f), inputs.join(f)).expect("copy");
    }
    let gold = inputs.join("gold.json");
    let run = inputs.join("example-system.json");
    let index = dir.join("index");
    let o = qajudge(&[
        "index",
        "build",
        "--out",
        index.to_str().expect("utf-8"),
        &demo("kg.ttl"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let path = report(
        &dir,
        "r.json",
        &[
            "--gold",
            gold.to_str().expect("utf-8"),
            "--run",
            run.to_str().expect("utf-8"),
            "--index",
            index.to_str().expect("utf-8"),
        ],
    );
    let (code, said) = reproduce(&path, &[]);
    assert_eq!(code, Some(0), "{said}");

    // the same evaluation again: the receipt byte for byte
    let again = report(
        &dir,
        "again.json",
        &[
            "--gold",
            gold.to_str().expect("utf-8"),
            "--run",
            run.to_str().expect("utf-8"),
            "--index",
            index.to_str().expect("utf-8"),
        ],
    );
    let receipt = |p: &Path| -> Value {
        let v: Value = serde_json::from_slice(&std::fs::read(p).expect("report")).expect("json");
        v["receipt"].clone()
    };
    assert_eq!(receipt(&path), receipt(&again));

    // moved: found under --inputs by name, and by digest under another name
    let moved = dir.join("moved");
    std::fs::create_dir_all(&moved).expect("moved");
    std::fs::copy(&gold, moved.join("renamed-gold.json")).expect("copy");
    std::fs::copy(&run, moved.join("example-system.json")).expect("copy");
    let text = std::fs::read_to_string(&path).expect("report");
    let elsewhere = dir.join("elsewhere.json");
    std::fs::write(
        &elsewhere,
        text.replace(inputs.to_str().expect("utf-8"), "/nowhere"),
    )
    .expect("report");
    let (code, said) = reproduce(&elsewhere, &["--inputs", moved.to_str().expect("utf-8")]);
    // the gold found by its digest, the run by its name; the index where it was
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("figures, all equal"), "{said}");

    // one byte of the run
    let mut bytes = std::fs::read(&run).expect("run");
    let at = bytes.iter().position(|b| *b == b'5').expect("a digit");
    bytes[at] = b'6';
    std::fs::write(&run, &bytes).expect("run");
    let (code, said) = reproduce(&path, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("changed: run \"example-system\""), "{said}");
    assert!(!said.contains("changed: gold"), "{said}");
    std::fs::copy(demo("example-system.json"), &run).expect("restore");

    // one option of the receipt: named as an edit, and the figures it moves
    let mut edited: Value = serde_json::from_str(&text).expect("json");
    edited["receipt"]["options"]["strict_literals"] = json!(true);
    let edited_path = dir.join("edited.json");
    std::fs::write(&edited_path, edited.to_string()).expect("edited");
    let (code, said) = reproduce(&edited_path, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("receipt: edited"), "{said}");

    // the index's meta.json changed
    let meta = index.join("meta.json");
    let mut m = std::fs::read(&meta).expect("meta");
    m.push(b'\n');
    std::fs::write(&meta, m).expect("meta");
    let (code, said) = reproduce(&path, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("changed: index"), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_server_and_the_command_line_give_one_receipt_hash() {
    let data = tmp("receipt-server");
    let s = Server::start_bare(&data, &[]);
    let gold = std::fs::read_to_string(demo("gold.json")).expect("gold");
    let run = std::fs::read_to_string(demo("example-system.json")).expect("run");
    let body = json!({
        "gold": {"name": "gold.json", "text": gold},
        "runs": [{"name": "example-system", "text": run}],
    });
    let (status, served) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{served}");
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &demo("gold.json"),
        "--run",
        &demo("example-system.json"),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert!(cli["receipt"]["sha256"].is_string(), "{}", cli["receipt"]);
    assert_eq!(
        served["receipt"]["sha256"], cli["receipt"]["sha256"],
        "server {}\ncli {}",
        served["receipt"], cli["receipt"]
    );
}
