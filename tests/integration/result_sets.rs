//! The TEXT2SPARQL challenge's materialised result sets (docs/scoring.md,
//! Reading) as gold and as runs, on the real DB25 gold result set: runs
//! derived from it by `tests/data/text2sparql/result-set-runs.py` (answers
//! dropped, added, reordered, emptied and left out, ASK results flipped) score
//! under `--profile text2sparql` as `text2sparql evaluate` (text2sparql-client
//! 2.1.0, pytrec_eval 0.5 on trec_eval 9.0.8) printed them, with and without
//! the order the YAML asks for; the YAML and the result set given together
//! keep the YAML's texts and flags; bad result sets are located errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::cli::{qajudge, stderr, stdout};

/// The figures `text2sparql evaluate NAME GOLD RUN` printed in `average`
/// (`set_P`, `set_recall`, `set_F`), against the plain gold:
/// `text2sparql evaluate NAME db25_true_result_set.json NAME.json`.
const PLAIN: [(&str, [f64; 3]); 6] = [
    ("same", [0.94, 0.94, 0.94]),
    ("dropped", [0.805, 0.7129170094882398, 0.7413232036150302]),
    ("added", [0.8413555561540167, 0.94, 0.8702053966407504]),
    ("reordered", [0.94, 0.94, 0.94]),
    // over the 172 questions the run has: the client leaves a question the
    // system file lacks out of its mean (qajudge scores it 0: below)
    (
        "emptied",
        [0.7616279069767442, 0.7616279069767442, 0.7616279069767442],
    ),
    ("ask_flipped", [0.94, 0.94, 0.94]),
];

/// `ndcg` and `set_F_ndcg` of `average` against `gold_with_order.json` (the
/// gold with the `order_required` list `text2sparql query` builds from the
/// YAML): `text2sparql evaluate NAME gold_with_order.json NAME.json`.
const ORDERED: [(&str, [f64; 2]); 5] = [
    ("same", [1.0, 0.9402985074626866]),
    ("dropped", [0.8958587364402706, 0.7416779489479639]),
    ("added", [0.9971064338216296, 0.8707898166899037]),
    ("reordered", [1.0, 0.9402985074626866]),
    ("ask_flipped", [1.0, 0.9402985074626866]),
];

fn close(got: &Value, want: f64, what: &str) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: a number, not {got}"));
    assert!((g - want).abs() < 1e-12, "{what}: {g} != {want}");
}

/// The derived runs, written once into the test's directory.
fn runs(data: &Path) -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("result-set-runs");
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/text2sparql/result-set-runs.py");
    let status = Command::new("python3")
        .arg(script)
        .arg(data.join("text2sparql/benchmark/db25_true_result_set.json"))
        .arg(&out)
        .status()
        .expect("python3 runs the script");
    assert!(status.success());
    out
}

fn evaluate(args: &[&str]) -> Value {
    let mut all = vec!["evaluate", "--profile", "text2sparql", "--format", "json"];
    all.extend_from_slice(args);
    let o = qajudge(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("a json report")
}

fn qa(report: &Value) -> &Value {
    &report["runs"][0]["experiments"]["qa"]
}

#[test]
fn db25_result_sets_score_as_text2sparql_evaluate() {
    let data = crate::require_data!();
    let dir = runs(&data);
    let gold = data.join("text2sparql/benchmark/db25_true_result_set.json");
    let gold = gold.to_str().expect("utf-8");
    let o = qajudge(&["check", gold]);
    assert!(
        stdout(&o).contains(": text2sparql-result-set\n"),
        "{}",
        stdout(&o)
    );
    let path = |name: &str| dir.join(format!("{name}.json")).display().to_string();
    for (name, [p, r, f]) in PLAIN {
        let report = evaluate(&["--gold", gold, "--run", &path(name)]);
        let c = &qa(&report)["aggregate"]["challenge"];
        if name == "emptied" {
            // 28 questions left out of the file: missing, scored 0 here
            assert_eq!(qa(&report)["aggregate"]["missing"], 28);
            for (k, v) in [("set_p", p), ("set_recall", r), ("set_f", f)] {
                close(&c[k], v * 172.0 / 200.0, name);
            }
            continue;
        }
        close(&c["set_p"], p, name);
        close(&c["set_recall"], r, name);
        close(&c["set_f"], f, name);
        assert!(c["ndcg"].is_null(), "{name}: no order asked");
    }
    // a question of `dropped`: 1,455 of 2,911 answers kept
    let dropped = evaluate(&["--gold", gold, "--run", &path("dropped")]);
    let q23 = qa(&dropped)["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .find(|q| q["id"] == "db25:23-en")
        .expect("db25:23-en");
    close(&q23["recall"], 0.49965635738831615, "db25:23-en recall");
    close(&q23["f1"], 0.6663611365719523, "db25:23-en f1");
    let ordered = path("gold_with_order");
    for (name, [ndcg, combined]) in ORDERED {
        let report = evaluate(&["--gold", &ordered, "--run", &path(name)]);
        let c = &qa(&report)["aggregate"]["challenge"];
        assert_eq!(c["ordered_questions"], 4, "{name}");
        close(&c["ndcg"], ndcg, name);
        close(&c["set_f_ndcg"], combined, name);
    }
    // per language (`-l "['en', 'es']"` with gold_with_order.json: the
    // client's average-en and average-es)
    let report = evaluate(&["--gold", &ordered, "--run", &path("dropped")]);
    let by = &qa(&report)["aggregate"]["challenge"]["by_language"];
    close(&by["en"]["set_f"], 0.7462123873978714, "en set_F");
    close(&by["en"]["set_p"], 0.82, "en set_P");
    close(&by["es"]["set_f"], 0.7364340198321893, "es set_F");
    close(&by["es"]["set_recall"], 0.7114073371283998, "es set_recall");
    // the YAML and the result set together: the YAML's RESULT_ORDER_MATTERS
    // asks the order, its texts name the questions
    let yaml = data.join("text2sparql/benchmark/questions_db25.yaml");
    let report = evaluate(&[
        "--gold",
        yaml.to_str().expect("utf-8"),
        "--gold-answers",
        gold,
        "--run",
        &path("dropped"),
    ]);
    let c = &qa(&report)["aggregate"]["challenge"];
    assert_eq!(c["ordered_questions"], 4);
    close(&c["ndcg"], 0.8958587364402706, "ndcg with the YAML");
    close(&c["set_f"], 0.7413232036150302, "set_F with the YAML");
    let first = &qa(&report)["questions"][0];
    assert!(
        first["question"]
            .as_str()
            .is_some_and(|t| t.contains("unique authors")),
        "{first}"
    );
    assert!(
        report["diagnostics"]
            .to_string()
            .contains("200 of 200 questions take their answers from"),
        "{}",
        report["diagnostics"]
    );
}

#[test]
fn bad_result_sets_are_located_errors() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("result-set-bad");
    std::fs::create_dir_all(&dir).expect("dir");
    // nine good questions, then the bad one at line 11
    let good: String = (1..=9)
        .map(|i| format!("  \"x:{i}-en\": {{\"a\": 1}},\n"))
        .collect();
    for (name, text, line, needle) in [
        (
            "text.json",
            format!("{{\n{good}  \"x:10-en\": {{\"b\": \"yes\"}}\n}}\n"),
            11,
            "not a number",
        ),
        (
            "nested.json",
            format!("{{\n{good}  \"x:10-en\": {{\"b\": {{\"c\": 1}}}}\n}}\n"),
            11,
            "not a number",
        ),
        (
            "scalar.json",
            "{\n  \"x:1-en\": {\"a\": 1},\n  \"order_required\": 5\n}\n".to_string(),
            3,
            "order_required",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let o = qajudge(&["check", path.to_str().expect("utf-8")]);
        let out = stdout(&o);
        assert!(
            out.contains(&format!("{}:{line}:", path.display())) && out.contains(needle),
            "{name}: {out}"
        );
    }
    // 100,000 ids read as gold and as run, the bounds of any input file
    let mut big = String::from("{");
    for i in 0..100_000 {
        if i > 0 {
            big.push(',');
        }
        big.push_str(&format!("\"x:{i}-en\":{{\"http://e.org/{i}\":1}}"));
    }
    big.push('}');
    let path = dir.join("big.json");
    std::fs::write(&path, &big).expect("write");
    let p = path.to_str().expect("utf-8");
    let report = evaluate(&["--gold", p, "--run", p]);
    close(&qa(&report)["aggregate"]["challenge"]["set_f"], 1.0, "big");
}

/// An `order_required` list of 200,000 ids over as many questions is read in
/// one pass (a set of the ids, looked up once per question): searching the
/// list for every question, as the reader did, takes some 2·10¹⁰ string
/// comparisons here and does not finish within any test run.
#[test]
fn a_long_order_required_list_is_read_in_one_pass() {
    let n = 200_000;
    let mut text = String::from("{");
    for i in 0..n {
        text.push_str(&format!("\"x:{i}-en\": {{\"a\": 1}}, "));
    }
    text.push_str("\"order_required\": [");
    let ids: Vec<String> = (0..n).rev().map(|i| format!("\"x:{i}-en\"")).collect();
    text.push_str(&ids.join(", "));
    // one id the set does not hold, named in a diagnostic
    text.push_str(", \"x:missing-en\"]}");
    let dataset = qajudge::qald::parse(text.as_bytes(), "rs.json").expect("a result set");
    assert_eq!(dataset.questions.len(), n);
    assert!(dataset.questions.iter().all(|q| q
        .tags
        .iter()
        .any(|t| t == qajudge::model::RESULT_ORDER_MATTERS)));
    assert!(
        dataset
            .diagnostics
            .iter()
            .any(|d| d.contains("x:missing-en")),
        "{:?}",
        dataset.diagnostics
    );
}

/// A result set that gives an id twice scores the same on every path — as
/// `--gold`, and as `--gold-answers` beside a benchmark — with the last
/// answer set of the id (as Python's `json.load` reads the object) and a
/// warning naming it on both.
#[test]
fn an_id_given_twice_counts_its_last_answers_on_every_path() {
    let dir = std::env::temp_dir().join(format!("qajudge-rs-twice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("written");
        path.to_str().expect("utf-8").to_string()
    };
    let rs = write(
        "gold_rs.json",
        r#"{"x:1-en": {"http://ex/old": 1}, "x:2-en": {"http://ex/b": 1}, "x:1-en": {"http://ex/new": 1}}"#,
    );
    let run = write(
        "run.json",
        r#"{"x:1-en": {"http://ex/new": 1}, "x:2-en": {"http://ex/b": 1}}"#,
    );
    let yaml = write(
        "questions.yaml",
        "dataset:\n  id: http://ex/x/\n  prefix: x\nquestions:\n  - id: \"1\"\n    question:\n      en: one\n    query:\n      sparql: SELECT ?v WHERE { ?v ?p ?o }\n  - id: \"2\"\n    question:\n      en: two\n    query:\n      sparql: SELECT ?v WHERE { ?v ?p ?o }\n",
    );
    let direct = evaluate(&["--gold", &rs, "--run", &run]);
    let beside = evaluate(&["--gold", &yaml, "--gold-answers", &rs, "--run", &run]);
    for report in [&direct, &beside] {
        let f = &qa(report)["aggregate"]["challenge"]["set_f"];
        close(f, 1.0, "set_F with the last answers of x:1-en");
        let said = report["diagnostics"].to_string();
        assert!(
            said.contains("warning: ")
                && said.contains("more than once")
                && said.contains("x:1-en"),
            "{said}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
