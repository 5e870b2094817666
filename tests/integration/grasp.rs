//! GRASP (ad-freiburg/grasp; docs/scoring.md, The `grasp` profile) on
//! TEXT2SPARQL CK25: the five real outputs of `../shared/data/grasp/ck25`,
//! scored with `--profile grasp` on the CK25 graph, agree on every question
//! with GRASP's own code run on the same executions
//! (`tests/data/grasp/grasp_ck25.json`; tests/data/grasp/README.md gives the
//! command, which reads the executions [`grasp_executions_dump`] writes), and
//! so do the run figures of `calculate_metrics`. Hostile outputs are a
//! located error or a question's diagnostic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use qajudge::model::{AnswerSet, Dataset, Query, Term};
use qajudge::sparql::{execute_dataset, ExecOptions, KnowledgeGraph, Mode};

use crate::data::load;
use crate::require_data;

/// The five outputs, by file name.
const OUTPUTS: [&str; 5] = [
    "gpt-41-mini.search_extended.jsonl",
    "gpt-41-mini.search_extended_with_feedback.jsonl",
    "gpt-41.search_extended_with_feedback.jsonl",
    "iis-q.jsonl",
    "infai.jsonl",
];

/// The CK25 graph's files.
fn kg(data: &Path) -> [PathBuf; 2] {
    let t = data.join("text2sparql/kg");
    [t.join("prod-inst.ttl"), t.join("prod-vocab.ttl")]
}

/// An executed answer set as the SPARQL JSON results GRASP reads
/// (`{"boolean"}` or `{"head": {"vars"}, "results": {"bindings"}}`).
fn sparql_json(set: &AnswerSet) -> Value {
    if set.vars.is_empty() {
        if let [a] = set.answers.as_slice() {
            if let [Term::Boolean(b)] = a.terms.as_slice() {
                return json!({"head": {}, "boolean": b});
            }
        }
    }
    let bindings: Vec<Value> = set
        .answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut row = serde_json::Map::new();
            for (k, t) in a.terms.iter().enumerate() {
                let var = &set.vars[set.columns[i][k]];
                let b = match t {
                    Term::Iri(v) => match v.strip_prefix("_:") {
                        Some(n) => json!({"type": "bnode", "value": n}),
                        None => json!({"type": "uri", "value": v}),
                    },
                    Term::Literal {
                        lexical,
                        datatype,
                        lang,
                    } => {
                        let mut o = json!({"type": "literal", "value": lexical});
                        if let Some(d) = datatype {
                            o["datatype"] = json!(d);
                        }
                        if let Some(l) = lang {
                            o["xml:lang"] = json!(l);
                        }
                        o
                    }
                    Term::Boolean(b) => json!({"type": "literal", "value": b.to_string(),
                        "datatype": "http://www.w3.org/2001/XMLSchema#boolean"}),
                };
                row.insert(var.clone(), b);
            }
            Value::Object(row)
        })
        .collect();
    json!({"head": {"vars": set.vars}, "results": {"bindings": bindings}})
}

/// Each question's query and what executing it gave: the result, or why it failed.
fn dumped(d: &Dataset) -> Value {
    let mut out = serde_json::Map::new();
    for q in &d.questions {
        let Query::Sparql(sparql) = &q.query else {
            continue;
        };
        let x = q.execution.as_ref().expect("executed");
        let (result, err) = if x.status.answered() {
            (
                sparql_json(q.answers.as_ref().expect("answers")),
                Value::Null,
            )
        } else {
            (Value::Null, json!(x.message.clone().unwrap_or_default()))
        };
        out.insert(
            q.id.0.clone(),
            json!({"sparql": sparql, "result": result, "err": err}),
        );
    }
    Value::Object(out)
}

/// Writes what qajudge executes for the five outputs and the gold, as the
/// fixture's command reads it (`GRASP_EXECUTIONS`, a path). Run by hand:
/// `GRASP_EXECUTIONS=/tmp/x.json cargo test --test integration grasp_executions_dump -- --ignored`.
#[test]
#[ignore = "writes the fixture's executions; run by hand (tests/data/grasp/README.md)"]
fn grasp_executions_dump() {
    let data = require_data!();
    let out = std::env::var("GRASP_EXECUTIONS").expect("GRASP_EXECUTIONS names the output");
    let kg = KnowledgeGraph::load(&kg(&data), ExecOptions::default(), &|_, _| {}).expect("kg");
    let mut all = serde_json::Map::new();
    let mut gold = load(&data.join("grasp/ck25/test.jsonl"));
    execute_dataset(
        &kg,
        &mut gold,
        Mode::Missing,
        false,
        ExecOptions::default(),
        &|_, _| {},
    );
    all.insert("gold".into(), dumped(&gold));
    for name in OUTPUTS {
        let mut run = load(&data.join("grasp/ck25/outputs").join(name));
        execute_dataset(
            &kg,
            &mut run,
            Mode::Missing,
            false,
            ExecOptions::default(),
            &|_, _| {},
        );
        all.insert(name.into(), dumped(&run));
    }
    std::fs::write(out, serde_json::to_vec(&Value::Object(all)).expect("json")).expect("written");
}

/// `qajudge evaluate --profile grasp` of the five outputs on the CK25 graph.
fn evaluate(data: &Path, runs: &[PathBuf]) -> Value {
    let mut graph = vec!["--kg".into()];
    graph.extend(kg(data).map(PathBuf::into_os_string));
    evaluate_on(&data.join("grasp/ck25/test.jsonl"), runs, &graph)
}

/// `qajudge evaluate --profile grasp --format json` of `runs` against
/// `gold` with the graph's arguments `graph` (`--kg FILES`, `--endpoint
/// URL`): the report, the exit asserted successful.
fn evaluate_on(gold: &Path, runs: &[PathBuf], graph: &[std::ffi::OsString]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args([
            "evaluate",
            "--profile",
            "grasp",
            "--format",
            "json",
            "--gold",
        ])
        .arg(gold)
        .arg("--run")
        .args(runs)
        .args(graph)
        .output()
        .expect("qajudge runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("a json report")
}

#[test]
fn the_five_ck25_outputs_score_as_grasps_own_code() {
    let data = require_data!();
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::serve::root().join("tests/data/grasp/grasp_ck25.json"))
            .expect("the fixture"),
    )
    .expect("json");
    let runs: Vec<PathBuf> = OUTPUTS
        .iter()
        .map(|n| data.join("grasp/ck25/outputs").join(n))
        .collect();
    let report = evaluate(&data, &runs);
    let mut agree: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (run, name) in report["runs"].as_array().expect("runs").iter().zip(OUTPUTS) {
        assert_eq!(run["format"], "grasp-outputs");
        let want = &fixture[name];
        let qa = &run["experiments"]["qa"];
        let count = agree.entry(name).or_default();
        for q in qa["questions"].as_array().expect("questions") {
            let id = q["id"].as_str().expect("an id");
            let ours = &q["official"];
            let theirs = &want["questions"][id];
            count.1 += 1;
            // GRASP scores the question (`prediction`) exactly when we do
            assert_eq!(
                ours.get("f1").and_then(Value::as_f64),
                theirs.get("score").and_then(Value::as_f64),
                "{name} {id}: {ours} against {theirs}"
            );
            let number = |v: &Value| v.as_f64();
            assert_eq!(
                number(&ours["gold_size"]),
                number(&theirs["target_size"]),
                "{name} {id}"
            );
            if let Some(size) = theirs.get("size") {
                assert_eq!(number(&ours["size"]), number(size), "{name} {id}");
            }
            assert_eq!(
                ours.get("invalid_evaluation").is_some(),
                theirs["invalid_evaluation"].as_bool().expect("a flag"),
                "{name} {id}"
            );
            count.0 += 1;
        }
        let metrics = want["metrics"].as_object().expect("metrics");
        let official = &qa["aggregate"]["official"];
        for (k, v) in metrics {
            assert_eq!(
                official[k].as_f64(),
                v.as_f64(),
                "{name}: {k} (official: {official})"
            );
        }
        assert_eq!(
            want["invalid_outputs"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
    }
    for (name, (agreeing, total)) in &agree {
        assert_eq!((agreeing, total), (&50, &50), "{name}");
    }
    // every gold query gives rows on this graph and every output is valid:
    // GRASP leaves nothing out, so the honest mean is its f1 and no note
    for run in report["runs"].as_array().expect("runs") {
        let official = &run["experiments"]["qa"]["aggregate"]["official"];
        assert_eq!(official["f1_all"], official["f1"], "{official}");
    }
    let text = report["diagnostics"].to_string();
    assert!(!text.contains("GRASP's f1 is over"), "{text}");
}

#[test]
fn hostile_outputs_are_located_errors_or_question_diagnostics() {
    let data = require_data!();
    let dir = crate::serve::tmp("grasp-hostile");
    std::fs::create_dir_all(&dir).expect("tmp");
    // a 1 MB query, a null id, a huge messages array (8 MB of tool messages
    // and a failed tool call at their end) on one line each
    let long = format!("SELECT * WHERE {{ ?s ?p ?o }} #{}", "x".repeat(1 << 20));
    let message = json!({"role": "tool", "content": "x".repeat(1000)}).to_string();
    let mut messages = vec![message; 8000].join(",");
    messages.push_str(r#",{"role": "tool", "content": "503 Server Error: Service Unavailable"}"#);
    let lines = [
        json!({"id": "1", "sparql": long, "elapsed": 1.0}).to_string(),
        json!({"id": null, "sparql": "ASK {}", "elapsed": 1.0}).to_string(),
        format!(r#"{{"id": "3", "sparql": "ASK {{}}", "elapsed": 1.0, "messages": [{messages}]}}"#),
    ];
    let path = dir.join("hostile.jsonl");
    std::fs::write(&path, lines.join("\n")).expect("written");
    let report = evaluate(&data, std::slice::from_ref(&path));
    let qa = &report["runs"][0]["experiments"]["qa"];
    let question = |id: &str| -> &Value {
        qa["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .find(|q| q["id"] == id)
            .expect("the question")
    };
    // the long query fails to execute: scored 0 by GRASP's rule, and said why
    let q1 = question("1");
    assert_eq!(q1["official"]["f1"], 0.0, "{q1}");
    assert_eq!(q1["official"]["failed"], 1.0, "{q1}");
    let said = q1.to_string();
    assert!(said.contains("bytes, at most 1048576"), "{said}");
    // the failed tool call at the end of 8 MB of messages: invalid, kept
    let q3 = question("3");
    assert_eq!(q3["official"]["invalid_output"], 1.0, "{q3}");
    assert!(
        q3["diagnostics"].to_string().contains("failed tool call"),
        "{q3}"
    );
    // the null id is named by its line, which the gold lacks
    let text = report["diagnostics"].to_string();
    assert!(text.contains("#line 2"), "{text}");
    // GRASP's f1 is over the one valid evaluation; the note says so
    let official = &qa["aggregate"]["official"];
    assert_eq!(official["num_evaluations"], 1.0, "{official}");
    assert_eq!(official["num_invalid_outputs"], 1.0, "{official}");
    assert_eq!(official["f1_all"], 0.0, "{official}");
    assert!(
        text.contains("GRASP's f1 is over 1 of 50 questions: 0.0000; over all 50: 0.0000")
            && text.contains("invalid outputs: 1 (3)")
            && text.contains("not in the output file: 48 ("),
        "{text}"
    );
    // a line cut short is an error at its line
    std::fs::write(
        &path,
        format!("{}\n{{\"id\": \"2\", \"sparql\": ", lines[1]),
    )
    .expect("written");
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(["check"])
        .arg(&path)
        .output()
        .expect("qajudge runs");
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        !o.status.success() && said.contains("hostile.jsonl:2:22: EOF while parsing"),
        "{said}"
    );
}

/// The profile executes both queries: without a graph it scores nothing, and
/// says so instead of a report without figures.
#[test]
fn the_grasp_profile_without_a_graph_is_an_error_naming_what_to_give() {
    let data = require_data!();
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(["evaluate", "--profile", "grasp", "--gold"])
        .arg(data.join("grasp/ck25/test.jsonl"))
        .arg("--run")
        .arg(data.join("grasp/ck25/outputs/iis-q.jsonl"))
        .output()
        .expect("qajudge runs");
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(
        said.contains("--profile grasp executes") && said.contains("--kg FILE"),
        "{said}"
    );
    assert!(o.stdout.is_empty());
}

/// GRASP's agents ask QLever over the SPARQL protocol; this machine cannot
/// reach it, so an oxigraph server on loopback holding the CK25 graph stands
/// for it: `--endpoint URL` scores an output as the embedded store does on
/// every question whose gold query runs on both stores.
#[test]
fn an_output_scores_with_an_endpoint_as_with_the_graph_s_files() {
    let data = require_data!();
    let Some(bin) = crate::endpoint::venv_program("venv-oxigraph/bin/oxigraph") else {
        return;
    };
    let server = crate::endpoint::start(&bin, &kg(&data));
    let run = data.join("grasp/ck25/outputs/gpt-41.search_extended_with_feedback.jsonl");
    let with_files = evaluate(&data, std::slice::from_ref(&run));
    let with_endpoint = evaluate_on(
        &data.join("grasp/ck25/test.jsonl"),
        std::slice::from_ref(&run),
        &["--endpoint".into(), server.url.clone().into()],
    );
    assert_eq!(
        with_endpoint["knowledge_graph"]["endpoint"],
        server.url.as_str()
    );
    let questions = |r: &Value| r["runs"][0]["experiments"]["qa"]["questions"].clone();
    let (a, b) = (questions(&with_files), questions(&with_endpoint));
    let mut compared = 0;
    for (x, y) in a
        .as_array()
        .expect("questions")
        .iter()
        .zip(b.as_array().expect("questions"))
    {
        assert_eq!(x["id"], y["id"]);
        // the xsd:int casts of two gold queries run on the embedded store
        // only (as on Virtuoso): those questions are invalid evaluations there
        let ran = |q: &Value| q["gold_execution"]["status"] == "ok";
        if !(ran(x) && ran(y)) {
            assert!(y["official"].get("invalid_evaluation").is_some(), "{y}");
            continue;
        }
        compared += 1;
        assert_eq!(x["official"]["f1"], y["official"]["f1"], "{}", x["id"]);
        assert_eq!(x["official"]["size"], y["official"]["size"], "{}", x["id"]);
    }
    assert!(compared >= 45, "{compared}");
}

/// GRASP executes the gold query whatever answers its benchmark file keeps
/// (QALD-9 and WebQuestions keep theirs in `info`): so does the profile,
/// and the recorded answers it replaced are said.
#[test]
fn the_gold_query_is_executed_even_where_the_file_keeps_answers() {
    let data = require_data!();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("grasp-recorded");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = std::fs::read_to_string(data.join("grasp/ck25/test.jsonl")).expect("test.jsonl");
    let mut line: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let id = line["id"].clone();
    line["info"] = serde_json::json!({"results": [{"x": {"type": "uri", "value": "http://example.org/recorded"}}]});
    let gold = dir.join("test.jsonl");
    std::fs::write(&gold, format!("{line}\n")).expect("written");
    let mut graph = vec!["--kg".into()];
    graph.extend(kg(&data).map(PathBuf::into_os_string));
    let report = evaluate_on(
        &gold,
        &[data.join("grasp/ck25/outputs/iis-q.jsonl")],
        &graph,
    );
    let q = &report["runs"][0]["experiments"]["qa"]["questions"][0];
    assert_eq!(q["id"], id);
    assert_eq!(q["gold_execution"]["status"], "ok", "{q}");
    let said = report.to_string();
    assert!(said.contains("changed the answers of 1 question"), "{said}");
}
