//! No number without a word (docs/scoring.md, Executing SPARQL): DB25's teams
//! give queries and no answers, and without a knowledge graph their answers
//! cannot be scored — an error naming the run and what to give, on the
//! command line and over HTTP, never twelve teams at 0.0; a run that answers
//! some questions and gives only queries for others has those not evaluable,
//! with a warning that counts them; a benchmark YAML given as the gold's
//! answers is an error naming what it was read as; an empty run warns; an
//! LLM judge that nothing would ask is an error naming the profile.

use serde_json::Value;

use crate::cli::{qajudge, stderr, stdout};

fn db25(data: &std::path::Path) -> (String, String, String) {
    let t = data.join("text2sparql");
    let s = |p: std::path::PathBuf| p.to_str().expect("utf-8").to_string();
    (
        s(t.join("benchmark/questions_db25.yaml")),
        s(t.join("benchmark/db25_true_result_set.json")),
        s(t.join("systems/INFAI/db25_answers.json")),
    )
}

#[test]
fn db25_teams_without_a_graph_are_an_error_naming_the_run_never_zero() {
    let data = crate::require_data!();
    let (yaml, answers, infai) = db25(&data);
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &yaml,
        "--gold-answers",
        &answers,
        "--run",
        &infai,
        "--profile",
        "text2sparql",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(e.contains("gives queries and no answers"), "{e}");
    assert!(e.contains("db25_answers"), "names the run: {e}");
    assert!(e.contains("--kg") && e.contains("--endpoint"), "{e}");
    // the text measures of the queries need no graph
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &yaml,
        "--run",
        &infai,
        "--profile",
        "text2sparql",
        "--experiments",
        "query",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_run_with_some_unexecuted_queries_has_them_not_evaluable_with_a_warning() {
    let dir = std::env::temp_dir().join(format!("qajudge-unexecuted-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let answer = |iri: &str| {
        format!(
            r#"[{{"head": {{"vars": ["x"]}}, "results": {{"bindings": [{{"x": {{"type": "uri", "value": "{iri}"}}}}]}}}}]"#
        )
    };
    let gold = format!(
        r#"{{"questions": [{{"id": "1", "question": [{{"language": "en", "string": "a?"}}], "answers": {a}}},
                           {{"id": "2", "question": [{{"language": "en", "string": "b?"}}], "answers": {b}}}]}}"#,
        a = answer("http://ex/a"),
        b = answer("http://ex/b")
    );
    let run = format!(
        r#"{{"questions": [{{"id": "1", "question": [{{"language": "en", "string": "a?"}}], "answers": {a}}},
                           {{"id": "2", "question": [{{"language": "en", "string": "b?"}}], "query": {{"sparql": "SELECT ?x WHERE {{ ?x ?p ?o }}"}}}}]}}"#,
        a = answer("http://ex/a")
    );
    let (g, r) = (dir.join("gold.json"), dir.join("run.json"));
    std::fs::write(&g, gold).expect("gold");
    std::fs::write(&r, run).expect("run");
    let o = qajudge(&[
        "evaluate",
        "--gold",
        g.to_str().expect("utf-8"),
        "--run",
        r.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let qa = &report["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["not_evaluable"], 1, "{qa}");
    assert_eq!(qa["aggregate"]["evaluated"], 1, "{qa}");
    let q2 = qa["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .find(|q| q["id"] == "2")
        .expect("question 2");
    assert_eq!(q2["status"], "not_evaluable", "{q2}");
    let text = report.to_string();
    assert!(
        text.contains("warning: 1 of the run's 2 questions give a query and no answers"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_benchmark_given_as_the_golds_answers_is_an_error_naming_what_it_read() {
    let data = crate::require_data!();
    let (yaml, answers, _) = db25(&data);
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &yaml,
        "--gold-answers",
        &yaml,
        "--run",
        &answers,
        "--profile",
        "text2sparql",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(
        e.contains("holds no answer set") && e.contains("questions_db25.yaml"),
        "{e}"
    );
    assert!(e.contains("text2sparql"), "names the format read: {e}");
}

#[test]
fn an_empty_run_warns_and_an_unasked_judge_is_an_error() {
    let data = crate::require_data!();
    let t = data.join("text2sparql");
    let (yaml, kg) = crate::text2sparql::ck25(&data);
    let empty = t.join("systems/DBPEDIA-CG/ck25_answers.json");
    let mut args = vec![
        "evaluate".to_string(),
        "--gold".into(),
        yaml.to_str().expect("utf-8").into(),
        "--run".into(),
        empty.to_str().expect("utf-8").into(),
        "--profile".into(),
        "text2sparql".into(),
        "--format".into(),
        "json".into(),
        "--kg".into(),
    ];
    args.extend(kg.iter().map(|p| p.to_str().expect("utf-8").to_string()));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = qajudge(&argv);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("warning: the run holds no question"),
        "{}",
        stderr(&o)
    );
    // a judge under text2sparql would never be asked
    let mut judged = argv.clone();
    judged.extend(["--llm-judge", "http://127.0.0.1:9/v1", "--llm-model", "m"]);
    let o = qajudge(&judged);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let e = stderr(&o);
    assert!(
        e.contains("would never be asked") && e.contains("text2sparql"),
        "{e}"
    );
}
