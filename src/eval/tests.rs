//! Tests of whole evaluations.

use super::*;
use crate::qald::parse;

fn dataset(json: &str) -> Dataset {
    parse(json.as_bytes(), "t").unwrap()
}
fn uris(values: &[&str]) -> String {
    let rows: Vec<String> = values
        .iter()
        .map(|v| format!(r#"{{"x":{{"type":"uri","value":"{v}"}}}}"#))
        .collect();
    format!(
        r#"[{{"head":{{"vars":["x"]}},"results":{{"bindings":[{}]}}}}]"#,
        rows.join(",")
    )
}

#[test]
fn missing_extra_empty_and_ids() {
    let gold = dataset(&format!(
        r#"{{"questions":[{{"id":1,"answers":{}}},{{"id":"2","answers":{}}},{{"id":"3","answers":{}}},{{"id":"4"}}]}}"#,
        uris(&["http://a.org/1"]),
        uris(&["http://a.org/2", "http://a.org/3"]),
        uris(&[])
    ));
    let run = dataset(&format!(
        r#"{{"questions":[{{"id":"1","answers":{}}},{{"id":2,"answers":[]}},{{"id":"07","answers":[]}}]}}"#,
        uris(&["https://a.org/1"])
    ));
    let report = evaluate(
        &gold,
        "g",
        &[Run {
            name: "r",
            source: "r.json",
            dataset: &run,
        }],
        Options::default(),
    );
    let qa = report.runs[0].experiments.qa.as_ref().unwrap();
    let a = &qa.aggregate;
    assert_eq!((a.questions, a.evaluated, a.not_evaluable), (4, 3, 1));
    assert_eq!((a.answered, a.empty, a.missing, a.extra), (1, 1, 1, 1));
    assert_eq!(report.runs[0].extra_ids, vec!["07"]);
    let st: Vec<Status> = qa.questions.iter().map(|q| q.status).collect();
    assert_eq!(
        st,
        vec![
            Status::Answered,
            Status::Empty,
            Status::Missing,
            Status::NotEvaluable
        ]
    );
    // q1: https vs http on a non-KG host differ -> 0; q2: empty -> 0 (QALD P = 1);
    // q3: gold empty and run missing -> 1.
    assert_eq!(qa.questions[0].score.f1, 0.0);
    assert_eq!(qa.questions[1].score.precision_qald, 1.0);
    assert_eq!(qa.questions[2].score.f1, 1.0);
    assert!((a.macro_.f1 - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn string_answers_against_iri_gold_are_explained() {
    let gold = dataset(&format!(
        r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
        uris(&["http://dbpedia.org/resource/Barack_Obama"])
    ));
    let run = dataset(
        r#"{"questions":[{"id":1,"answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"Barack Obama"}}]}}]}]}"#,
    );
    let report = evaluate(
        &gold,
        "g",
        &[Run {
            name: "r",
            source: "r",
            dataset: &run,
        }],
        Options::default(),
    );
    let q = &report.runs[0].experiments.qa.as_ref().unwrap().questions[0];
    assert_eq!((q.score.tp, q.score.fp, q.score.fn_), (0, 1, 1));
    assert!(
        q.diagnostics.iter().any(|d| d.contains("needs an index")),
        "{:?}",
        q.diagnostics
    );
}

#[test]
fn gold_without_answers_gives_null_qa() {
    let gold = dataset(r#"[{"_id":"1","corrected_question":"q","sparql_query":"SELECT ?x {}"}]"#);
    let report = evaluate(
        &gold,
        "g",
        &[Run {
            name: "r",
            source: "r",
            dataset: &gold,
        }],
        Options::default(),
    );
    assert!(report.runs[0].experiments.qa.is_none());
    let json = serde_json::to_value(&report).unwrap();
    assert!(json["runs"][0]["experiments"]["qa"].is_null());
    // the query parses but names no IRI: its empty C2KB set has nothing to
    // find, so C2KB is not evaluable (null), not a free 1.0; AT has no answers
    // and no declared type
    assert!(json["runs"][0]["experiments"]["c2kb"].is_null());
    assert!(json["runs"][0]["experiments"]["at"].is_null());
}

#[test]
fn an_index_unifies_iris_in_every_sub_experiment() {
    let q = |query: &str, answer: &str| {
        format!(
            r#"{{"questions":[{{"id":1,"query":{{"sparql":"{query}"}},"answers":{}}}]}}"#,
            uris(&[answer])
        )
    };
    let gold = dataset(&q(
        "SELECT ?x WHERE { <http://dbpedia.org/resource/Barack_Obama> <http://dbpedia.org/ontology/spouse> ?x . ?x a <http://dbpedia.org/ontology/Person> }",
        "http://dbpedia.org/resource/Michelle_Obama",
    ));
    let run = dataset(&q(
        "SELECT ?x WHERE { <http://www.wikidata.org/entity/Q76> <http://www.wikidata.org/prop/direct/P26> ?x . ?x a <http://www.wikidata.org/entity/Q5> }",
        "http://www.wikidata.org/entity/Q13133",
    ));
    let mut kg = crate::index::MemoryIndex::new();
    kg.same_as(
        "http://dbpedia.org/resource/Barack_Obama",
        "http://www.wikidata.org/entity/Q76",
    )
    .same_as(
        "http://dbpedia.org/resource/Michelle_Obama",
        "http://www.wikidata.org/entity/Q13133",
    )
    .same_as(
        "http://dbpedia.org/ontology/spouse",
        "http://www.wikidata.org/prop/direct/P26",
    )
    .same_as(
        "http://dbpedia.org/ontology/Person",
        "http://www.wikidata.org/entity/Q5",
    );
    let runs = [Run {
        name: "r",
        source: "r",
        dataset: &run,
    }];
    let with = evaluate_with(
        &gold,
        "g",
        &runs,
        Options::default(),
        Some(IndexRef {
            equivalence: &kg,
            path: "memory",
            format_version: 0,
            built: None,
            names: None,
        }),
    );
    let e = &with.runs[0].experiments;
    for (name, x) in e.named() {
        if let Some(x) = x {
            assert_eq!(x.aggregate.macro_.f1, 1.0, "{name} with the index");
        }
    }
    assert!(e.re2kb.is_some() && e.p2kb.is_some() && e.ait2kb.is_some());
    // a gold prepared once gives the same report, again and again; one
    // prepared for other options or without the index is prepared afresh
    let index = Some(IndexRef {
        equivalence: &kg,
        path: "memory",
        format_version: 0,
        built: None,
        names: None,
    });
    let prepared = prepare_gold(&gold, &Options::default(), Some(&kg));
    for _ in 0..2 {
        let again = evaluate_prepared(&gold, &prepared, "g", &runs, Options::default(), index);
        assert_eq!(again, with);
    }
    let unfit = prepare_gold(&gold, &Options::default(), None);
    assert!(!unfit.fits(&gold, &Options::default(), Some(&kg)));
    assert_eq!(
        evaluate_prepared(&gold, &unfit, "g", &runs, Options::default(), index),
        with
    );
    let gerbil = Options {
        profile: Profile::Gerbil,
        ..Options::default()
    };
    assert!(!prepared.fits(&gold, &gerbil, Some(&kg)));
    assert_eq!(
        evaluate_prepared(&gold, &prepared, "g", &runs, gerbil.clone(), index),
        evaluate_with(&gold, "g", &runs, gerbil, index)
    );
    let without = evaluate(&gold, "g", &runs, Options::default());
    let e = &without.runs[0].experiments;
    for x in [&e.qa, &e.c2kb, &e.p2kb, &e.re2kb, &e.ait2kb] {
        assert_eq!(x.as_ref().map(|x| x.aggregate.macro_.f1), Some(0.0));
    }
}

#[test]
fn large_classes_are_reported() {
    let gold = dataset(&format!(
        r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
        uris(&["http://e.org/a"])
    ));
    let run = dataset(&format!(
        r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
        uris(&["http://e.org/z"])
    ));
    let mut kg = crate::index::MemoryIndex::new();
    for i in 0..5 {
        kg.same_as("http://e.org/a", &format!("http://e.org/m{i}"));
    }
    kg.same_as("http://e.org/a", "http://e.org/z");
    let report = evaluate_with(
        &gold,
        "g",
        &[Run {
            name: "r",
            source: "r",
            dataset: &run,
        }],
        Options {
            max_class_size: 3,
            explain: true,
            ..Options::default()
        },
        Some(IndexRef {
            equivalence: &kg,
            path: "memory",
            format_version: 0,
            built: None,
            names: None,
        }),
    );
    let q = &report.runs[0].experiments.qa.as_ref().unwrap().questions[0];
    assert_eq!(q.score.tp, 1);
    assert!(
        q.diagnostics.iter().any(|d| d.contains("class of 7 IRIs")),
        "{:?}",
        q.diagnostics
    );
    let x = q.explanation.as_ref().unwrap();
    assert_eq!(
        (x.pairs[0].rule, x.pairs[0].class_size),
        ("sameas", Some(7))
    );
}

/// A gold question's ORDER BY is read from its annotation when there is one,
/// and from its query alone when there is none: both say the same.
#[test]
fn a_gold_query_orders_the_same_with_and_without_an_annotation() {
    let gold = dataset(
        r#"{"questions":[
            {"id":1,"query":{"sparql":"SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?o"}},
            {"id":2,"query":{"sparql":"SELECT ?x WHERE { { SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?o LIMIT 1 } }"}},
            {"id":3,"query":{"sparql":"SELECT ?x WHERE { ?x ?p 'ORDER BY' }"}},
            {"id":4,"query":{"sparql":"SELECT ?x WHERE { ?x ?p } ORDER BY ?x"}},
            {"id":5,"query":{"sparql":"OUT OF SCOPE"}},
            {"id":6}
        ]}"#,
    );
    let annotated = prepare_gold(&gold, &Options::default(), None);
    let qa_only = Options {
        experiments: vec![Experiment::Qa],
        ..Options::default()
    };
    let not_annotated = prepare_gold(&gold, &qa_only, None);
    let ordered = |p: &PreparedGold| p.entries.iter().map(|e| e.ordered).collect::<Vec<_>>();
    assert_eq!(
        ordered(&annotated),
        vec![true, true, false, false, false, false]
    );
    assert_eq!(ordered(&not_annotated), ordered(&annotated));
}

#[test]
fn answers_in_another_knowledge_graph_get_a_note_naming_both_graphs() {
    let gold = dataset(&format!(
        r#"{{"questions":[{{"id":"1","answers":{}}},{{"id":"2","answers":{}}}]}}"#,
        uris(&["http://dbpedia.org/resource/Bernhard_Riemann"]),
        uris(&["http://dbpedia.org/resource/Berlin"])
    ));
    let run = dataset(&format!(
        r#"{{"questions":[{{"id":"1","answers":{}}},{{"id":"2","answers":{}}}]}}"#,
        uris(&["http://www.wikidata.org/entity/Q42299"]),
        uris(&["http://dbpedia.org/resource/Munich"])
    ));
    let report = evaluate(
        &gold,
        "g",
        &[Run {
            name: "r",
            source: "r.json",
            dataset: &run,
        }],
        Options::default(),
    );
    let qa = report.runs[0].experiments.qa.as_ref().unwrap();
    let note = |i: usize| {
        qa.questions[i]
            .diagnostics
            .iter()
            .find(|d| d.contains("different knowledge graphs"))
            .cloned()
    };
    assert_eq!(
        note(0).as_deref(),
        Some("gold http://dbpedia.org/resource/Bernhard_Riemann and run http://www.wikidata.org/entity/Q42299 are in different knowledge graphs (DBpedia, Wikidata) and no index links them (--index), so they cannot match; build or fetch an index that links DBpedia and Wikidata (see indexes/ and docs/index-format.md)")
    );
    // a wrong answer in the gold's own graph is just wrong
    assert_eq!(note(1), None);
}
