//! Receipts and `qajudge reproduce` (docs/reproduce.md): a report of every
//! profile on real data reproduces ("reproduced: N figures, all equal");
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

/// Each profile's case: its arguments, on the shared data where it has a
/// file of that family, else on files written into `dir` from the tests'
/// own cases (Mintaka, KQA Pro with its training set, WebQSP's case A).
fn profile_cases(data: &Path, dir: &Path) -> Vec<(&'static str, Vec<String>)> {
    let s = |p: PathBuf| p.to_str().expect("utf-8").to_string();
    let d = |rel: &str| s(data.join(rel));
    let t = |rel: &str| s(root().join("tests/data").join(rel));
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("written");
        s(path)
    };
    let mintaka = write("mintaka-test.json", crate::families::MINTAKA_TEST);
    let kqapro = write("test_answer.json", crate::families::KQAPRO_GOLD);
    let webqsp = write(
        "webqsp-gold.json",
        r#"{"Version": "1.0", "Questions": [{"QuestionId": "Q1", "Parses": [{"AnnotatorComment": {"ParseQuality": "Complete", "QuestionQuality": "Good"}, "Answers": [{"AnswerType": "Entity", "AnswerArgument": "m.a"}, {"AnswerType": "Entity", "AnswerArgument": "m.b"}]}]}, {"QuestionId": "Q2", "Parses": [{"AnnotatorComment": {"ParseQuality": "Complete", "QuestionQuality": "Good"}, "Answers": [{"AnswerType": "Entity", "AnswerArgument": "m.a"}, {"AnswerType": "Entity", "AnswerArgument": "m.b"}]}]}, {"QuestionId": "Q3", "Parses": [{"AnnotatorComment": {"ParseQuality": "Complete", "QuestionQuality": "Good"}, "Answers": [{"AnswerType": "Entity", "AnswerArgument": "m.a"}]}]}]}"#,
    );
    let kg = [
        d("text2sparql/kg/prod-inst.ttl"),
        d("text2sparql/kg/prod-vocab.ttl"),
    ];
    let v = |args: &[&str]| args.iter().map(ToString::to_string).collect::<Vec<_>>();
    let with_kg = |mut args: Vec<String>| {
        args.push("--kg".into());
        args.extend(kg.iter().cloned());
        args
    };
    vec![
        (
            "judge",
            v(&[
                "--gold",
                &demo("gold.json"),
                "--run",
                &demo("example-system.json"),
                "--run",
                &demo("sparql-system.json"),
                "--kg",
                &demo("kg.ttl"),
                "--confidence",
            ]),
        ),
        (
            "gerbil",
            v(&[
                "--gold",
                &demo("gold.json"),
                "--run",
                &demo("example-system.json"),
                "--experiments",
                "qa",
            ]),
        ),
        (
            "mqald",
            v(&[
                "--gold",
                &d("mqald/MQALD.json"),
                "--run",
                &d("mqald/out/MQALD-test-QAnswer.json"),
            ]),
        ),
        (
            "text2sparql",
            with_kg(v(&[
                "--gold",
                &d("text2sparql/benchmark/questions_ck25.yml"),
                "--gold-answers",
                &d("text2sparql/benchmark/ck25_true_result_set.json"),
                "--run",
                &d("text2sparql/systems/INFAI/ck25_answers.json"),
                "--run",
                &d("text2sparql/systems/WSE/ck25_answers.json"),
            ])),
        ),
        (
            "spinach",
            v(&["--run", &d("wikidata/spinach/qald7-task4-spinach-run.json")]),
        ),
        (
            "mintaka",
            v(&[
                "--gold",
                &mintaka,
                "--run",
                &write("mintaka.json", crate::families::MINTAKA_PRED_KG),
            ]),
        ),
        (
            "mintaka-text",
            v(&[
                "--gold",
                &mintaka,
                "--run",
                &write("mintaka-text.json", crate::families::MINTAKA_PRED_TEXT),
            ]),
        ),
        (
            "kqapro",
            v(&[
                "--gold",
                &kqapro,
                "--run",
                &write("pred_all.txt", crate::families::KQAPRO_PREDICTIONS),
                "--train",
                &write(
                    "train.json",
                    r#"[{"question": "q", "answer": "Paris "}, {"answer": "5"}, {"answer": "100.0 meters"}, {"question": "r", "program": [], "answer": "yes"}, {"answer": null}]"#,
                ),
            ]),
        ),
        (
            "webqsp",
            v(&[
                "--gold",
                &webqsp,
                "--run",
                &write(
                    "webqsp-pred.json",
                    r#"[{"QuestionId":"Q1","Answers":["m.b","m.a"]},{"QuestionId":"Q2","Answers":["m.a","m.c"]},{"QuestionId":"Q3","Answers":[]}]"#,
                ),
            ]),
        ),
        (
            "rog",
            v(&["--run", &t("scripts/dynamic-kgqa/predictions.jsonl")]),
        ),
        (
            "cwq",
            v(&[
                "--gold",
                &d("freebase/tog/cwq-test.json"),
                "--run",
                &d("freebase/tog/cwq-test.json"),
            ]),
        ),
        (
            "tog",
            v(&[
                "--gold",
                &t("scripts/kgqagen/list/test.jsonl"),
                "--run",
                &t("scripts/kgqagen/ToG.jsonl"),
            ]),
        ),
        (
            "grailqa",
            v(&[
                "--ontology",
                &d("freebase/grailqa/ontology"),
                "--gold",
                &d("freebase/grailqa/debug_grail.json"),
                "--run",
                &d("freebase/grailqa/debug_grail.json"),
            ]),
        ),
        (
            "kgqagen",
            v(&[
                "--gold",
                &t("scripts/kgqagen/list/test.jsonl"),
                "--run",
                &t("scripts/kgqagen/ToG.jsonl"),
            ]),
        ),
        (
            "gtsqa",
            v(&["--run", &t("scripts/gtsqa/predictions.jsonl")]),
        ),
        (
            "t2s-metrics",
            with_kg(v(&["--run", &d("text2sparql/t2s-metrics/ck25/AIFB.jsonl")])),
        ),
        (
            "grasp",
            with_kg(v(&[
                "--gold",
                &d("grasp/ck25/test.jsonl"),
                "--run",
                &d("grasp/ck25/outputs/iis-q.jsonl"),
            ])),
        ),
    ]
}

/// Every profile's report reproduces: the shared data's files (or the
/// tests' own cases) evaluated, then `reproduce` of the report, which finds
/// every input, GrailQA's ontology and KQA Pro's training set among them,
/// by its digest and gets every figure again.
#[test]
fn every_profile_s_report_reproduces() {
    let data = crate::require_data!();
    let dir = scratch("profiles");
    let cases = profile_cases(&data, &dir);
    let named: Vec<&str> = cases.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        named,
        qajudge::eval::Profile::ALL.map(qajudge::eval::Profile::name),
        "a case per profile, in order"
    );
    for (profile, args) in &cases {
        let mut argv: Vec<&str> = vec!["--profile", profile];
        argv.extend(args.iter().map(String::as_str));
        let path = report(&dir, &format!("report-{profile}.json"), &argv);
        let (code, said) = reproduce(&path, &[]);
        assert_eq!(code, Some(0), "{profile}: {said}");
        assert!(said.contains("figures, all equal"), "{profile}: {said}");
        // what the profile read beside the gold and runs is an input too
        let written: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("report")).expect("json");
        let roles: Vec<&str> = written["receipt"]["inputs"]
            .as_array()
            .expect("inputs")
            .iter()
            .filter_map(|i| i["role"].as_str())
            .collect();
        match *profile {
            "grailqa" => assert!(roles.contains(&"ontology"), "{roles:?}"),
            "kqapro" => assert!(roles.contains(&"train"), "{roles:?}"),
            // a dictionary found on this machine is an input; none found is
            // asked again as none (`--wordnet none`)
            "t2s-metrics" => assert_eq!(
                roles.contains(&"wordnet"),
                written["receipt"]["options"]["wordnet"] == true,
                "{roles:?}"
            ),
            _ => {}
        }
    }
    // a compressed training set is known by its bytes as stored
    let gz = dir.join("train.json.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(
        &mut encoder,
        &std::fs::read(dir.join("train.json")).expect("train"),
    )
    .expect("gzip");
    std::fs::write(&gz, encoder.finish().expect("gzip")).expect("written");
    let s = |p: PathBuf| p.to_str().expect("utf-8").to_string();
    let (gold, pred, gz) = (
        s(dir.join("test_answer.json")),
        s(dir.join("pred_all.txt")),
        s(gz),
    );
    let path = report(
        &dir,
        "report-kqapro-gz.json",
        &[
            "--profile",
            "kqapro",
            "--gold",
            &gold,
            "--run",
            &pred,
            "--train",
            &gz,
        ],
    );
    let (code, said) = reproduce(&path, &[]);
    assert_eq!(code, Some(0), "{said}");
    // a changed training set is named as such, and nothing is evaluated
    let kqapro = dir.join("report-kqapro.json");
    std::fs::write(dir.join("train.json"), r#"[{"answer": "5"}]"#).expect("changed");
    let (code, said) = reproduce(&kqapro, &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("changed: train"), "{said}");
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
