//! The `qajudge` binary end to end on the built-in example and on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn qajudge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the qajudge binary runs")
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const GOLD: &str = "tests/data/demo/gold.json";
const RUN: &str = "tests/data/demo/example-system.json";

fn tmp_file(name: &str, content: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(name);
    std::fs::write(&path, content).expect("tmp file");
    path
}

/// The demo index, built once from `tests/data/demo/kg.ttl`.
pub(crate) fn demo_index() -> String {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-demo-index");
            let o = qajudge(&[
                "index",
                "build",
                "--out",
                &out.display().to_string(),
                "tests/data/demo/kg.ttl",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            out.display().to_string()
        })
        .clone()
}

#[test]
fn demo_json_report_has_the_hand_computed_figures() {
    let index = demo_index();
    let o = qajudge(&[
        "evaluate", "--gold", GOLD, "--run", RUN, "--format", "json", "--index", &index,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(report["profile"], "judge");
    assert_eq!(report["gold"]["format"], "qald-json");
    assert_eq!(report["gold"]["questions"], 13);
    assert_eq!(
        report["index"]["format_version"],
        qajudge::index::format::FORMAT_VERSION
    );
    // which build: its meta.json's SHA-256 and its inputs with their checksums
    let sha = report["index"]["meta_sha256"].as_str().unwrap_or_default();
    assert!(
        sha.len() == 64 && sha.bytes().all(|c| c.is_ascii_hexdigit()),
        "{sha}"
    );
    assert_eq!(
        report["index"]["inputs"][0]["path"],
        "tests/data/demo/kg.ttl"
    );
    assert_eq!(
        report["index"]["inputs"][0]["xxh3_64"]
            .as_str()
            .map(str::len),
        Some(16)
    );
    let run = &report["runs"][0];
    assert_eq!(run["name"], "example-system");
    let a = &run["experiments"]["qa"]["aggregate"];
    assert_eq!(
        (
            a["answered"].as_u64(),
            a["empty"].as_u64(),
            a["missing"].as_u64(),
            a["extra"].as_u64()
        ),
        (Some(10), Some(2), Some(1), Some(1))
    );
    let close = |v: &serde_json::Value, x: f64| {
        assert!((v.as_f64().expect("number") - x).abs() < 1e-9, "{v} != {x}");
    };
    // 15 gold answers, 12 distinct run answers, 9 matched (q1 through Freebase,
    // q5 through Wikidata, q12 through a label)
    close(&a["micro"]["precision"], 9.0 / 12.0);
    close(&a["micro"]["recall"], 9.0 / 15.0);
    // per-question F1: 2/3, 1, 1, 1, 0.8, 0, 0, 1, 0, 1, 0, 1, 1
    close(
        &a["macro"]["f1"],
        (2.0 / 3.0 + 1.0 + 1.0 + 1.0 + 0.8 + 1.0 + 1.0 + 1.0 + 1.0) / 13.0,
    );
    let p =
        (1.0 + 1.0 + 1.0 + 1.0 + 2.0 / 3.0 + 0.0 + 1.0 + 1.0 + 1.0 + 1.0 + 0.0 + 1.0 + 1.0) / 13.0;
    let r = (0.5 + 1.0 + 1.0 + 1.0 + 1.0 + 0.0 + 0.0 + 1.0 + 0.0 + 1.0 + 0.0 + 1.0 + 1.0) / 13.0;
    close(&a["macro_qald"]["precision"], p);
    close(&a["macro_qald"]["recall"], r);
    close(&a["macro_qald"]["f1"], 2.0 * p * r / (p + r));
    // the example system gives no queries and no annotations: C2KB, P2KB
    // and RE2KB are not scored (null, one diagnostic says why), neither 0 nor 1
    // (AIT2KB is: the index gives its answers' types); it declares answer
    // types, all right for the 12 questions it answers
    for slot in ["c2kb", "c2kb_entities", "c2kb_classes", "p2kb", "re2kb"] {
        assert!(run["experiments"][slot].is_null(), "{slot}");
    }
    let why = format!(
        "run '{}': the run has no queries or annotations for c2kb, c2kb_entities, c2kb_classes, p2kb, re2kb: not scored (docs/scoring.md, Sub-experiments)",
        run["name"].as_str().unwrap_or("")
    );
    assert!(
        report["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|x| x.as_str() == Some(why.as_str()))),
        "{}",
        report["diagnostics"]
    );
    let at = &run["experiments"]["at"]["aggregate"];
    close(&at["macro"]["f1"], 12.0 / 13.0);
    let qs = run["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions");
    let status: Vec<&str> = qs
        .iter()
        .map(|q| q["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(status[6], "empty");
    assert_eq!(status[8], "missing");
    assert_eq!(qs[0]["id"], "1");
    assert!(
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .any(|d| d.as_str().unwrap_or("").contains("99")),
        "{}",
        report["diagnostics"]
    );
    // deterministic: the same inputs give the same bytes
    let again = qajudge(&[
        "evaluate", "--gold", GOLD, "--run", RUN, "--format", "json", "--index", &index,
    ]);
    assert_eq!(o.stdout, again.stdout);
    assert!(
        a.get("confidence").is_none(),
        "intervals only when asked for"
    );

    // --confidence adds bootstrap intervals that bracket the estimate, reproducibly
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--format",
        "json",
        "--confidence",
        "--index",
        &index,
    ]);
    let with: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    let c = &with["runs"][0]["experiments"]["qa"]["aggregate"]["confidence"];
    assert_eq!(c["resamples"], 1000);
    let f1 = a["macro_qald"]["f1"].as_f64().expect("f1");
    let (low, high) = (
        c["macro_qald"]["f1"]["low"].as_f64().expect("low"),
        c["macro_qald"]["f1"]["high"].as_f64().expect("high"),
    );
    assert!(low < f1 && f1 < high, "[{low}, {high}] vs {f1}");
    let again = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--format",
        "json",
        "--confidence",
        "--index",
        &index,
    ]);
    assert_eq!(o.stdout, again.stdout);
}

#[test]
fn demo_without_index_compares_canonical_forms_only() {
    let o = qajudge(&["evaluate", "--gold", GOLD, "--run", RUN, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert!(report["index"].is_null());
    let qa = &report["runs"][0]["experiments"]["qa"];
    let a = &qa["aggregate"];
    let close = |v: &serde_json::Value, x: f64| {
        assert!((v.as_f64().expect("number") - x).abs() < 1e-9, "{v} != {x}");
    };
    // without the index q1 (a Freebase IRI), the Wikidata IRI of q5 and q12 (a
    // label) do not match: 6 of 12 run answers, 6 of 15 gold answers
    close(&a["micro"]["precision"], 6.0 / 12.0);
    close(&a["micro"]["recall"], 6.0 / 15.0);
    // per-question F1: 0, 1, 1, 1, 0.4, 0, 0, 1, 0, 1, 0, 0, 1
    close(&a["macro"]["f1"], 6.4 / 13.0);
    let p = (3.0 + 1.0 / 3.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0) / 13.0;
    let r = (3.0 + 0.5 + 1.0 + 1.0 + 1.0) / 13.0;
    close(&a["macro_qald"]["precision"], p);
    close(&a["macro_qald"]["recall"], r);
    // the report says which rules could not apply
    assert!(report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .any(|d| d.as_str().unwrap_or("").contains("no index")));
    let q12 = &qa["questions"][11];
    assert!(
        q12["diagnostics"][0]
            .as_str()
            .unwrap_or("")
            .contains("needs an index"),
        "{q12}"
    );
}

#[test]
fn demo_table_and_csv() {
    let o = qajudge(&["evaluate", "--gold", GOLD, "--run", RUN, "--per-question"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("Macro F1 QALD"), "{out}");
    assert!(out.contains("example-system"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("9 ") && l.contains("missing")),
        "{out}"
    );
    assert!(stderr(&o).contains("not in the gold benchmark"));

    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--run",
        GOLD,
        "--name",
        "system",
        "--name",
        "oracle",
        "--format",
        "csv",
        "--experiments",
        "qa",
    ]);
    assert!(o.status.success());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("run,experiment,questions,"));
    assert!(lines[1].starts_with("system,qa,13,13,0,10,2,1,1,0,"));
    assert!(lines[2].starts_with("oracle,qa,13,13,0,"));
    // answered-only P/R/F1 then the truthfulness column every QA run has
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = header
        .iter()
        .position(|c| *c == "answered_only_f1")
        .expect("the column");
    assert_eq!(header.get(at + 1), Some(&"truthfulness"), "{}", lines[0]);
    let oracle: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(
        oracle[at - 2..=at + 1],
        ["1", "1", "1", "1"],
        "{}",
        lines[2]
    );

    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--format",
        "csv",
        "--per-question",
        "--experiments",
        "qa",
    ]);
    assert_eq!(stdout(&o).lines().count(), 14);
    // one CSV row per scored sub-experiment: the run gives answers (QA) and
    // answer types (AT), no queries or annotations for the others
    let o = qajudge(&["evaluate", "--gold", GOLD, "--run", RUN, "--format", "csv"]);
    let out = stdout(&o);
    let experiments: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap_or(""))
        .collect();
    assert_eq!(experiments, ["qa", "at"]);
}

#[test]
fn check_reports_what_a_file_holds() {
    let o = qajudge(&["check", GOLD]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains("qald-json") && out.contains("questions: 13"),
        "{out}"
    );
    assert!(out.contains("problems: 0"), "{out}");

    let bad = tmp_file(
        "bad.json",
        b"{\"questions\": [\n {\"id\": 1,\n  \"answers\": [}\n]}",
    );
    let o = qajudge(&["check", bad.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("bad.json:3:15: invalid json"), "{out}");

    let odd = tmp_file("odd.json", br#"{"questions":[{"id":"1","answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"blob","value":"a"}}]}}]}]}"#);
    let o = qajudge(&["check", odd.to_str().expect("utf-8 path")]);
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("question 1: variable x: unknown binding type \"blob\""),
        "{}",
        stdout(&o)
    );
}

#[test]
fn errors_and_usage() {
    let o = qajudge(&["evaluate", "--gold", "no/such/file.json", "--run", RUN]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read no/such/file.json"),
        "{}",
        stderr(&o)
    );

    let bad = tmp_file("bad.xml", b"<dataset>\n<question id=\"1\">\n</dataset>");
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        bad.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.xml:3:1: malformed xml"),
        "{}",
        stderr(&o)
    );

    let o = qajudge(&["evaluate", "--gold", GOLD]);
    assert_eq!(o.status.code(), Some(2));
    let o = qajudge(&[
        "evaluate", "--gold", GOLD, "--run", RUN, "--name", "a", "--name", "b",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("2 --name given for 1 --run"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn annotate_a_query_and_a_file() {
    let o = qajudge(&[
        "annotate",
        "--sparql",
        "SELECT COUNT(DISTINCT ?uri) WHERE { ?uri dbo:child res:Ann_Dunham }",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        a["markings"]["resources"][0],
        "http://dbpedia.org/resource/Ann_Dunham"
    );
    assert_eq!(
        a["markings"]["properties"][0],
        "http://dbpedia.org/ontology/child"
    );
    assert_eq!(a["markings"]["answer_type"]["type"], "number");
    assert_eq!(a["markings"]["answer_type"]["declared"], false);
    assert_eq!(a["features"]["form"][0], "count");
    let diags = a["diagnostics"].to_string();
    assert!(
        diags.contains("virtuoso syntax") && diags.contains("dbo, res"),
        "{diags}"
    );

    let o = qajudge(&["annotate", "--sparql", "SELECT ?x WHERE { ?x ?p }"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("does not parse"), "{}", stderr(&o));

    let o = qajudge(&["annotate", "--gold", GOLD]);
    assert!(o.status.success());
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(all.as_array().map(Vec::len), Some(13));
    assert_eq!(all[3]["features"]["form"][0], "ask");
    assert_eq!(all[3]["markings"]["answer_type"]["declared"], true);

    let o = qajudge(&["annotate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn breakdown_by_feature() {
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--format",
        "json",
        "--by",
        "form",
        "--by",
        "answertype",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let b = &r["runs"][0]["experiments"]["qa"]["breakdown"];
    // the demo has 2 ASK questions (4 right, 11 wrong) and 1 COUNT (3 right)
    assert_eq!(b["form"]["ask"]["evaluated"], 2);
    assert_eq!(b["form"]["ask"]["macro"]["f1"], 0.5);
    assert_eq!(b["form"]["count"]["macro"]["f1"], 1.0);
    assert_eq!(b["answertype"]["boolean"]["evaluated"], 2);
    let o = qajudge(&["evaluate", "--gold", GOLD, "--run", RUN, "--by", "form"]);
    assert!(stdout(&o).contains("QA by form"), "{}", stdout(&o));
    let o = qajudge(&["evaluate", "--gold", GOLD, "--run", RUN, "--by", "colour"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown feature"), "{}", stderr(&o));
}

#[test]
fn evaluate_and_refresh_execute_queries_on_a_knowledge_graph() {
    let dir = crate::require_data!();
    let t = dir.join("text2sparql");
    let p = |s: &str| t.join(s).display().to_string();
    let (yaml, inst, vocab) = (
        p("benchmark/questions_ck25.yml"),
        p("kg/prod-inst.ttl"),
        p("kg/prod-vocab.ttl"),
    );
    let out = qajudge(&[
        "evaluate",
        "--gold",
        &yaml,
        "--run",
        &p("systems/INFAI/ck25_answers.json"),
        "--kg",
        &inst,
        &vocab,
        "--profile",
        "text2sparql",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json report");
    let kg = &report["knowledge_graph"];
    assert_eq!(kg["triples"], 26_903);
    assert_eq!(kg["files"].as_array().map(Vec::len), Some(2));
    assert_eq!(kg["files"][0]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(kg["timeout_ms"], 60_000);
    let qa = &report["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["executions"]["executed"], 50);
    assert_eq!(qa["questions"][0]["execution"]["status"], "ok");
    // the table shows it too
    let out = qajudge(&[
        "evaluate",
        "--gold",
        &yaml,
        "--run",
        &p("systems/AIFB/ck25_answers.json"),
        "--kg",
        &inst,
        &vocab,
        "--profile",
        "text2sparql",
        "--per-question",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // refresh writes a benchmark that evaluates against itself as 1.0 under judge
    let tmp = std::env::temp_dir().join(format!("qajudge-refresh-{}.json", std::process::id()));
    let out = qajudge(&[
        "refresh",
        "--gold",
        &yaml,
        "--kg",
        &inst,
        &vocab,
        "--out",
        &tmp.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("ok: 50"), "{}", stdout(&out));
    let tmp_s = tmp.display().to_string();
    let out = qajudge(&[
        "evaluate", "--gold", &tmp_s, "--run", &tmp_s, "--format", "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json report");
    assert_eq!(
        report["runs"][0]["experiments"]["qa"]["aggregate"]["macro"]["f1"],
        1.0
    );
    std::fs::remove_file(tmp).ok();
}

#[test]
fn a_bad_knowledge_graph_or_yaml_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("qajudge-badkg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad_kg = dir.join("bad.ttl");
    std::fs::write(&bad_kg, "<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n<http://e.org/a> <http://e.org/p> \"x .\n").expect("write");
    let yaml = dir.join("q.yml");
    std::fs::write(&yaml, "dataset:\n  prefix: x\nquestions:\n  - id: 1\n    question: {en: Who?}\n    query: {sparql: 'SELECT ?x WHERE { ?x ?p ?o }'}\n").expect("write");
    let out = qajudge(&[
        "evaluate",
        "--gold",
        &yaml.display().to_string(),
        "--run",
        &yaml.display().to_string(),
        "--kg",
        &bad_kg.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad.ttl:2:"), "{}", stderr(&out));
    let shape = dir.join("shape.yml");
    std::fs::write(&shape, "dataset:\n  prefix: x\nquestions: 3\n").expect("write");
    let out = qajudge(&["check", &shape.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out)
            .contains("shape.yml:1:1: not a TEXT2SPARQL benchmark: `questions` must be a list"),
        "{}",
        stdout(&out)
    );
    // without a knowledge graph the report says what to give
    let out = qajudge(&[
        "evaluate",
        "--gold",
        &yaml.display().to_string(),
        "--run",
        &yaml.display().to_string(),
    ]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("--kg FILE"), "{}", stderr(&out));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn demo_sparql_system_is_executed_on_the_demo_graph() {
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        "tests/data/demo/sparql-system.json",
        "--kg",
        "tests/data/demo/kg.ttl",
        "tests/data/demo/facts.ttl",
        "--index",
        &demo_index(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        r["knowledge_graph"]["files"].as_array().map(Vec::len),
        Some(2)
    );
    let qa = &r["runs"][0]["experiments"]["qa"];
    let a = &qa["aggregate"];
    // 11 of 16 answers right, 11 of 15 gold answers found (hand-counted per question)
    assert_eq!(a["micro"]["precision"], 11.0 / 16.0, "{a}");
    assert_eq!(a["micro"]["recall"], 11.0 / 15.0, "{a}");
    assert_eq!(a["executions"]["executed"], 13);
    assert_eq!(a["executions"]["by_status"]["ok"], 12);
    assert_eq!(a["executions"]["by_status"]["syntax_error"], 1);
    assert_eq!(a["executions"]["unknown_iris"], 1);
    let q = |id: &str| crate::data::report_question(qa, id);
    // a property that does not exist; a query cut short; undeclared prefixes
    assert_eq!(
        q("6")["execution"]["unknown_iris"][0],
        "http://dbpedia.org/ontology/wife"
    );
    let x8 = q("8")["execution"].clone();
    assert_eq!(x8["status"], "syntax_error");
    assert!(
        x8["message"]
            .as_str()
            .is_some_and(|m| m.len() < 200 && m.contains("1:")),
        "{x8}"
    );
    assert_eq!(q("9")["execution"]["parses"], false);
    assert!(q("9")["diagnostics"].to_string().contains("dbo, dbr"));
    assert_eq!(q("9")["f1"], 1.0);
    // the queries are the system's entity and property links
    let c2kb = &r["runs"][0]["experiments"]["c2kb"]["aggregate"];
    assert!(
        c2kb["macro"]["f1"].as_f64().is_some_and(|f| f > 0.8),
        "{c2kb}"
    );
}

#[test]
fn several_runs_after_one_flag_and_explanations_of_errors_only() {
    let cross = "tests/data/demo/cross-graph.json";
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        cross,
        "--experiments",
        "qa",
        "--format",
        "json",
        "--explain",
        "errors",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let names: Vec<&str> = r["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(|x| x["name"].as_str())
        .collect();
    assert_eq!(names, ["example-system", "cross-graph"]);
    let qs = r["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions");
    // only missed and wrong answers, on the questions that have some
    for q in qs {
        let x = &q["explanation"];
        if q["f1"] == 1.0 {
            assert!(x.is_null(), "{q}");
        } else if !x.is_null() {
            assert_eq!(x["pairs"].as_array().map(Vec::len), Some(0), "{q}");
        }
    }
    assert!(qs.iter().any(|q| !q["explanation"].is_null()));
    // a bare --explain is every pair, as before
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--experiments",
        "qa",
        "--explain",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let pairs: usize = r["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .filter_map(|q| q["explanation"]["pairs"].as_array().map(Vec::len))
        .sum();
    assert!(pairs > 0);
}

#[test]
fn diff_lists_what_one_run_gets_right_and_the_other_not_as_evaluate_scores_it() {
    let data = crate::require_data!();
    let gold = data.join("qald/9/qald-9-train-multilingual.json");
    let a = data.join("systems/nliwod/qald9/GANSWER2_QALD9_Train.json");
    let b = data.join("systems/nliwod/qald9/QANSWER_QALD9_Train.json");
    let path = |p: &std::path::Path| p.display().to_string();
    let o = qajudge(&[
        "diff",
        "--gold",
        &path(&gold),
        "--run",
        &path(&a),
        &path(&b),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let diff: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &path(&gold),
        "--run",
        &path(&a),
        &path(&b),
        "--experiments",
        "qa",
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let right = |k: usize| -> std::collections::BTreeSet<String> {
        r["runs"][k]["experiments"]["qa"]["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .filter(|q| q["f1"] == 1.0 && q["status"] != "not_evaluable")
            .filter_map(|q| q["id"].as_str().map(str::to_string))
            .collect()
    };
    let (ra, rb) = (right(0), right(1));
    let ids = |key: &str| -> std::collections::BTreeSet<String> {
        diff[key]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|d| d["id"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(ids("a_only"), ra.difference(&rb).cloned().collect());
    assert_eq!(ids("b_only"), rb.difference(&ra).cloned().collect());
    let first = &diff["a_only"][0];
    assert!(
        first["question"].as_str().is_some_and(|t| !t.is_empty()),
        "{first}"
    );
    assert!(
        first["gold"].as_array().is_some_and(|g| !g.is_empty()),
        "{first}"
    );
    // Markdown: a table per direction
    let o = qajudge(&[
        "diff",
        "--gold",
        &path(&gold),
        "--run",
        &path(&a),
        &path(&b),
        "--format",
        "markdown",
    ]);
    let md = stdout(&o);
    assert_eq!(
        md.matches("| id | question | F1 A | F1 B | gold | A | B |")
            .count(),
        2
    );
}

#[test]
fn by_features_get_a_csv_column_each_and_a_table_column_per_run() {
    let cross = "tests/data/demo/cross-graph.json";
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--experiments",
        "qa",
        "--by",
        "form",
        "--by",
        "answertype",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = stdout(&o);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("run,experiment,by_answertype,by_form,questions,"));
    let width = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == width), "{csv}");
    // the whole run, then one row per value of each feature
    assert!(lines[1].starts_with("example-system,qa,,,13,"), "{csv}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("example-system,qa,,ask,")),
        "{csv}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("example-system,qa,resource,,")),
        "{csv}"
    );
    // two runs: the --by table has a column per run
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        cross,
        "--experiments",
        "qa",
        "--by",
        "form",
    ]);
    let table = stdout(&o);
    let header = table
        .lines()
        .skip_while(|l| !l.starts_with("QA by form"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        header.starts_with("form")
            && header.contains("example-system")
            && header.contains("cross-graph"),
        "{table}"
    );
}

#[test]
fn questions_limits_the_scoring_to_a_sample_of_the_gold() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("questions-sample");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let ids = dir.join("ids.txt");
    std::fs::write(&ids, "# a sample\n1\n2\n\n5\n").expect("write");
    let ids = ids.display().to_string();
    let full = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--experiments",
        "qa",
        "--format",
        "json",
    ]);
    let full: serde_json::Value = serde_json::from_slice(&full.stdout).expect("json");
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--experiments",
        "qa",
        "--format",
        "json",
        "--questions",
        &ids,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(r["gold"]["questions"], 3);
    let f1 = |report: &serde_json::Value, id: &str| {
        report["runs"][0]["experiments"]["qa"]["questions"]
            .as_array()
            .and_then(|qs| qs.iter().find(|q| q["id"] == id))
            .map(|q| q["f1"].clone())
    };
    for id in ["1", "2", "5"] {
        assert_eq!(f1(&r, id), f1(&full, id), "{id}");
    }
    let mean: f64 = ["1", "2", "5"]
        .iter()
        .filter_map(|id| f1(&full, id).and_then(|v| v.as_f64()))
        .sum::<f64>()
        / 3.0;
    let macro_f1 = r["runs"][0]["experiments"]["qa"]["aggregate"]["macro"]["f1"]
        .as_f64()
        .unwrap_or(-1.0);
    assert!((macro_f1 - mean).abs() < 1e-12, "{macro_f1} vs {mean}");
    // the run's answers to questions outside the sample are not "extra"
    assert_eq!(r["runs"][0]["extra_ids"], serde_json::json!(["99"]));
    // an id the gold does not have is an error naming the line
    std::fs::write(dir.join("bad.txt"), "1\n77\n").expect("write");
    let bad = dir.join("bad.txt").display().to_string();
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        RUN,
        "--questions",
        &bad,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.txt:2: question \"77\" is not in the gold benchmark"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sample_draws_a_repeatable_micro_benchmark_with_its_diversity() {
    let data = crate::require_data!();
    let gold = data
        .join("qald/9/qald-9-train-multilingual.json")
        .display()
        .to_string();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sample-qald9");
    let _ = std::fs::remove_dir_all(&dir);
    let features = "words,entities,relations,triple_patterns,result_size,filter,union,aggregates";
    let draw = |out: &str, method: &str, seed: &str| -> serde_json::Value {
        let o = qajudge(&[
            "sample",
            "--gold",
            &gold,
            "--features",
            features,
            "--size",
            "20",
            "--method",
            method,
            "--seed",
            seed,
            "--format",
            "json",
            "--out",
            &dir.join(out).display().to_string(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).expect("json")
    };
    let a = draw("a", "feasible", "0");
    let b = draw("b", "feasible", "0");
    assert_eq!(a["questions"], b["questions"], "same inputs, same sample");
    assert_eq!(a["questions"].as_array().map(Vec::len), Some(20));
    let r1 = draw("r1", "random", "3");
    assert_eq!(r1["questions"], draw("r2", "random", "3")["questions"]);
    assert_ne!(r1["questions"], draw("r3", "random", "4")["questions"]);
    // the written benchmark holds the 20 questions and is read by evaluate
    let o = qajudge(&["check", &dir.join("a/benchmark.json").display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids = std::fs::read_to_string(dir.join("a/ids.txt")).expect("ids");
    assert_eq!(ids.lines().count(), 20);
    // diversity recomputed here from `qajudge features`: the mean over the
    // features of the population sd of each feature divided by its maximum
    let o = qajudge(&["features", "--gold", &gold, "--format", "json"]);
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let all = all.as_array().expect("questions");
    let value = |q: &serde_json::Value, f: &str| -> f64 {
        match f {
            "entities" | "relations" => q[f].as_array().map_or(0.0, |v| v.len() as f64),
            _ => match &q[f] {
                serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
                v => v.as_f64().unwrap_or(0.0),
            },
        }
    };
    let chosen: Vec<&serde_json::Value> = a["questions"]
        .as_array()
        .expect("ids")
        .iter()
        .filter_map(|id| all.iter().find(|q| q["id"] == *id))
        .collect();
    assert_eq!(chosen.len(), 20);
    let mut sds = Vec::new();
    for f in features.split(',') {
        let max = all.iter().map(|q| value(q, f)).fold(0.0, f64::max);
        let xs: Vec<f64> = chosen
            .iter()
            .map(|q| if max > 0.0 { value(q, f) / max } else { 0.0 })
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        sds.push(var.sqrt());
    }
    let diversity = sds.iter().sum::<f64>() / sds.len() as f64;
    let reported = a["diversity"].as_f64().unwrap_or(-1.0);
    assert!(
        (reported - diversity).abs() < 1e-9,
        "{reported} vs {diversity}"
    );
    // FEASIBLE spreads the sample: more diverse than a random one here
    assert!(reported > r1["diversity"].as_f64().unwrap_or(1.0));
    // an --out holding other files is refused, nothing written
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).expect("dir");
    std::fs::write(foreign.join("notes.txt"), "mine").expect("write");
    let o = qajudge(&[
        "sample",
        "--gold",
        &gold,
        "--features",
        "words",
        "--size",
        "5",
        "--out",
        &foreign.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("did not write (notes.txt)"),
        "{}",
        stderr(&o)
    );
    assert!(!foreign.join("benchmark.json").exists());
    // a user's own benchmark.json, even alone, is never replaced
    let own = dir.join("own");
    std::fs::create_dir_all(&own).expect("dir");
    std::fs::write(own.join("benchmark.json"), "mine").expect("write");
    let o = qajudge(&[
        "sample",
        "--gold",
        &gold,
        "--features",
        "words",
        "--size",
        "5",
        "--out",
        &own.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(own.join("benchmark.json")).expect("read"),
        "mine"
    );
}
