use std::time::Duration;

use super::*;
use crate::model::{Dataset, Format, Query, Question, QuestionId};

const TTL: &str = "@prefix ex: <http://e.org/> .\nex:a ex:p ex:b ; ex:name \"A\"@en ; ex:n 3 .\nex:b ex:p ex:c ; ex:name \"B\" .\n";

fn kg(dir: &std::path::Path, name: &str, text: &str) -> KnowledgeGraph {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    KnowledgeGraph::load(&[path], ExecOptions::default(), &|_, _| {}).unwrap()
}

fn tmp(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("qajudge-sparql-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn loads_and_executes_in_order_with_kinds_kept() {
    let dir = tmp("load");
    let g = kg(&dir, "g.ttl", TTL);
    assert_eq!(g.info.triples, Some(5));
    assert_eq!(g.info.files[0].statements, 5);
    assert_eq!(g.info.files[0].sha256.len(), 64);
    let out = g.execute(
        "SELECT ?x ?l WHERE { ?x <http://e.org/name> ?l } ORDER BY DESC(?l)",
        ExecOptions::default(),
    );
    assert_eq!(out.status, ExecStatus::Ok);
    assert_eq!(out.answers.vars, ["x", "l"]);
    assert_eq!(
        out.answers.answers[0].terms,
        [Term::Iri("http://e.org/b".into()), Term::plain("B")]
    );
    assert_eq!(
        out.answers.answers[1].terms[1],
        Term::Literal {
            lexical: "A".into(),
            datatype: None,
            lang: Some("en".into())
        }
    );
    let n = g.execute(
        "SELECT ?n WHERE { ?x <http://e.org/n> ?n }",
        ExecOptions::default(),
    );
    assert_eq!(
        n.answers.answers[0].terms,
        [Term::typed("3", "http://www.w3.org/2001/XMLSchema#integer")]
    );
    let ask = g.execute("ASK { ?x ?p ?o }", ExecOptions::default());
    assert_eq!(ask.answers.answers[0].terms, [Term::Boolean(true)]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn statuses_syntax_cap_and_timeout() {
    let dir = tmp("status");
    let g = kg(&dir, "g.ttl", TTL);
    let bad = g.execute("SELECT ?x WHERE { ?x ", ExecOptions::default());
    assert_eq!(bad.status, ExecStatus::SyntaxError);
    assert!(bad.answers.is_empty());
    let capped = g.execute(
        "SELECT * WHERE { ?s ?p ?o }",
        ExecOptions {
            max_rows: 2,
            ..ExecOptions::default()
        },
    );
    assert_eq!(capped.status, ExecStatus::Truncated);
    assert_eq!(capped.answers.answers.len(), 2);
    // a cross product far too large to finish in 50 ms
    let slow = g.execute(
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o . ?p ?q ?r . ?s ?t ?u . ?v ?w ?x }",
        ExecOptions {
            timeout: Duration::from_millis(50),
            ..ExecOptions::default()
        },
    );
    assert_eq!(slow.status, ExecStatus::Timeout, "{slow:?}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_bad_file_names_line_and_column() {
    let dir = tmp("bad");
    let path = dir.join("bad.ttl");
    std::fs::write(&path, "<http://e.org/a> <http://e.org/p> <http://e.org/b> .\n<http://e.org/a> <http://e.org/p> \"x .\n").unwrap();
    let err = KnowledgeGraph::load(&[path], ExecOptions::default(), &|_, _| {})
        .expect_err("error")
        .to_string();
    assert!(err.contains("bad.ttl:2:"), "{err}");
    let err = KnowledgeGraph::load(&[dir.join("x.csv")], ExecOptions::default(), &|_, _| {})
        .expect_err("error")
        .to_string();
    assert!(err.contains("unknown rdf format"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn fills_questions_and_checks_iris() {
    let dir = tmp("fill");
    let g = kg(&dir, "g.ttl", TTL);
    let q = |id: &str, query: &str| Question {
        id: QuestionId(id.into()),
        query: Query::Sparql(query.into()),
        ..Question::default()
    };
    let mut d = Dataset {
        id: None,
        format: Format::QaldJson,
        questions: vec![
            q(
                "1",
                "SELECT ?o WHERE { <http://e.org/a> <http://e.org/p> ?o }",
            ),
            // an undeclared predefined prefix: not SPARQL 1.1, executed as the endpoints read it
            q(
                "2",
                "SELECT ?o WHERE { ?s rdfs:label ?o . ?s <http://e.org/invented> ?o }",
            ),
            q("3", "SELECT ?o WHERE { ?o"),
        ],
        diagnostics: Vec::new(),
        ..Dataset::new(Format::QaldJson)
    };
    let s = execute_dataset(
        &g,
        &mut d,
        Mode::Missing,
        true,
        ExecOptions::default(),
        &|_, _| {},
    );
    assert_eq!(s.executed, 3);
    assert_eq!(s.by_status.get("ok"), Some(&2));
    assert_eq!(s.failed.len(), 1);
    let x1 = d.questions[0].execution.as_ref().unwrap();
    assert!(x1.parses && x1.unknown_iris.is_empty());
    assert_eq!(d.questions[0].answers.as_ref().unwrap().answers.len(), 1);
    let x2 = d.questions[1].execution.as_ref().unwrap();
    assert!(!x2.parses);
    assert_eq!(x2.status, ExecStatus::Ok);
    assert!(x2
        .unknown_iris
        .contains(&"http://e.org/invented".to_string()));
    assert!(x2
        .unknown_iris
        .iter()
        .any(|i| i.ends_with("rdf-schema#label")));
    assert_eq!(
        d.questions[2].execution.as_ref().unwrap().status,
        ExecStatus::SyntaxError
    );
    assert!(d.questions[2].answers.as_ref().unwrap().is_empty());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_locked_oxigraph_version_is_the_reported_one() {
    let lock = include_str!("../../Cargo.lock");
    let at = lock
        .find("name = \"oxigraph\"\nversion = \"")
        .expect("oxigraph in Cargo.lock");
    let rest = &lock[at + "name = \"oxigraph\"\nversion = \"".len()..];
    assert_eq!(&rest[..rest.find('"').unwrap()], OXIGRAPH_LOCKED);
}
