//! Names of IRIs from an index's labels (index format 5, docs/index-format.md
//! "Names"): an index built from Turtle with labels in several languages names
//! entities, relations and classes in `features --index`, with the language
//! fallback, the preferred label predicate and the owl:sameAs class looked
//! through; an index built through `indexer::Generated` (as `index fetch`
//! builds) has names too; the server names them the same way from its
//! `--index`; an index of format 4 opens without names and `features --index`
//! asks to rebuild it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use qajudge::index::{Index, IndexError};
use qajudge::indexer::{BuildOptions, Generated, Silent};

use crate::cli::{qajudge, stderr};
use crate::serve::{get, Server};

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("names-tests");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

const GRAPH: &str = r#"
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix dbr: <http://dbpedia.org/resource/> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix wd: <http://www.wikidata.org/entity/> .

dbr:Ann_Dunham rdfs:label "Stanley Ann Dunham"@en , "Ann Dunham"@de ;
    skos:altLabel "Ann"@en .
dbo:child rdfs:label "child"@en , "Kind"@de .
dbo:birthDate rdfs:label "date of birth" .
dbo:Person rdfs:label "human being"@en-gb , "Mensch"@de .
wd:Q76 owl:sameAs dbr:Barack_Obama ;
    rdfs:label "Barack Obama (président)"@fr .
dbr:Barack_Obama rdfs:label "Barack Hussein Obama"@en .
"#;

/// A QALD-JSON question with an English text and a query.
fn question(id: &str, text: &str, sparql: &str) -> serde_json::Value {
    serde_json::json!({
        "id": id,
        "question": [{"language": "en", "string": text}],
        "query": {"sparql": sparql},
    })
}

const PREFIXES: &str = "PREFIX dbr: <http://dbpedia.org/resource/> PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX wd: <http://www.wikidata.org/entity/> ";

/// The test's index and benchmark, made once.
fn fixture() -> &'static (String, String) {
    static MADE: OnceLock<(String, String)> = OnceLock::new();
    MADE.get_or_init(|| {
        let kg = tmp("kg.ttl");
        std::fs::write(&kg, GRAPH).expect("graph written");
        let out = tmp("index");
        let o = qajudge(&[
            "index",
            "build",
            "--out",
            out.to_str().expect("utf-8"),
            kg.to_str().expect("utf-8"),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let gold = serde_json::json!({"questions": [
            question("1", "Who are the children of Ann Dunham?",
                &format!("{PREFIXES}SELECT ?c WHERE {{ dbr:Ann_Dunham dbo:child ?c }}")),
            question("2", "When was Barack Obama born?",
                &format!("{PREFIXES}SELECT ?d WHERE {{ wd:Q76 dbo:birthDate ?d }}")),
            question("3", "Which persons are there?",
                &format!("{PREFIXES}SELECT ?x WHERE {{ ?x a dbo:Person }}")),
        ]});
        let path = tmp("gold.json");
        std::fs::write(&path, gold.to_string()).expect("gold written");
        (
            out.to_str().expect("utf-8").to_string(),
            path.to_str().expect("utf-8").to_string(),
        )
    })
}

/// `features --format json` of the fixture's benchmark with extra arguments.
fn features(extra: &[&str]) -> Vec<serde_json::Value> {
    let (_, gold) = fixture();
    let mut args = vec!["features", "--gold", gold.as_str(), "--format", "json"];
    args.extend_from_slice(extra);
    let o = qajudge(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<Vec<serde_json::Value>>(&o.stdout).expect("a json array")
}

#[test]
fn features_name_iris_by_the_index_labels_in_the_language_asked() {
    let (index, _) = fixture();
    let json = |v: &serde_json::Value| v.to_string();

    // without an index: local names, split as QaldGen does
    let plain = features(&[]);
    assert_eq!(json(&plain[0]["entities"]), r#"["Ann_Dunham"]"#);
    assert_eq!(json(&plain[0]["entity_words"]), "[2]");
    assert_eq!(json(&plain[1]["entities"]), r#"["Q76"]"#);

    let en = features(&["--index", index]);
    // rdfs:label before skos:altLabel ("Ann" is smaller but an alternative)
    assert_eq!(json(&en[0]["entities"]), r#"["Stanley Ann Dunham"]"#);
    assert_eq!(json(&en[0]["entity_words"]), "[3]");
    assert_eq!(en[0]["avg_entity_words"], 3.0);
    assert_eq!(json(&en[0]["relations"]), r#"["child"]"#);
    // wd:Q76 has only French: its sameAs twin's English comes first
    assert_eq!(json(&en[1]["entities"]), r#"["Barack Hussein Obama"]"#);
    assert_eq!(json(&en[1]["entity_words"]), "[3]");
    // a label without language when there is none in English
    assert_eq!(json(&en[1]["relations"]), r#"["date of birth"]"#);
    assert_eq!(json(&en[1]["relation_words"]), "[3]");
    // en takes en-gb
    assert_eq!(json(&en[2]["classes"]), r#"["human being"]"#);
    assert_eq!(json(&en[2]["class_words"]), "[2]");

    let de = features(&["--index", index, "--lang", "de"]);
    assert_eq!(json(&de[0]["entities"]), r#"["Ann Dunham"]"#);
    assert_eq!(json(&de[0]["entity_words"]), "[2]");
    assert_eq!(json(&de[0]["relations"]), r#"["Kind"]"#);
    assert_eq!(json(&de[2]["classes"]), r#"["Mensch"]"#);
    // no German for either twin: English (the twin's), not the IRI's French
    assert_eq!(json(&de[1]["entities"]), r#"["Barack Hussein Obama"]"#);

    let fr = features(&["--index", index, "--lang", "fr"]);
    assert_eq!(json(&fr[1]["entities"]), r#"["Barack Obama (président)"]"#);
    assert_eq!(json(&fr[1]["entity_words"]), "[3]");
}

#[test]
fn the_server_names_a_benchmark_s_iris_by_its_index_labels() {
    let (index, gold) = fixture();
    let data = crate::serve::tmp("names-server");
    let s = Server::start_bare(
        &data,
        &["--index", index, "--benchmark", &format!("names={gold}")],
    );
    let (status, body) = get(&s, "/api/v1/benchmarks/names/features");
    assert_eq!(status, 200, "{body}");
    let q = &body["questions"];
    assert_eq!(q[0]["entities"].to_string(), r#"["Stanley Ann Dunham"]"#);
    assert_eq!(q[1]["entities"].to_string(), r#"["Barack Hussein Obama"]"#);
    assert_eq!(q[2]["classes"].to_string(), r#"["human being"]"#);
    // as `features --index` names them
    let cli = features(&["--index", index]);
    assert_eq!(q[0], cli[0]);
    assert_eq!(q[1], cli[1]);
}

#[test]
fn the_index_answers_names_and_bounds_the_class_it_looks_through() {
    let (dir, _) = fixture();
    let index = Index::open(Path::new(dir)).expect("opens");
    assert!(index.has_names());
    assert_eq!(index.meta().counts.named_iris, 6);
    assert_eq!(
        index
            .names("http://dbpedia.org/resource/Ann_Dunham")
            .expect("names"),
        [("de", "Ann Dunham"), ("en", "Stanley Ann Dunham")]
            .map(|(l, n)| (l.to_string(), n.to_string()))
    );
    let q76 = "http://www.wikidata.org/entity/Q76";
    let name = |lang: &str, max_class: usize| index.name(q76, lang, max_class).expect("name");
    assert_eq!(name("en", 1000).as_deref(), Some("Barack Hussein Obama"));
    // a class larger than the bound is not looked through: the IRI's own
    // label in any language
    assert_eq!(name("en", 1).as_deref(), Some("Barack Obama (président)"));
    assert_eq!(
        index
            .name("http://x.org/unknown", "en", 1000)
            .expect("name"),
        None
    );
}

#[test]
fn an_index_built_from_generated_statements_has_names() {
    // `index fetch` writes what the endpoints answered into a Generated build
    let out = tmp("generated");
    let generated = Generated::begin(&out, "fetched.nt").expect("begins");
    std::fs::write(
        generated.file(),
        "<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> \"Douglas Adams\"@en .\n\
         <http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> \"ダグラス・アダムズ\"@ja .\n",
    )
    .expect("written");
    generated
        .finish(&BuildOptions::default(), &mut Silent)
        .expect("built");
    let index = Index::open(&out).expect("opens");
    let q42 = "http://www.wikidata.org/entity/Q42";
    assert_eq!(
        index.name(q42, "ja", 1000).expect("name").as_deref(),
        Some("ダグラス・アダムズ")
    );
    assert_eq!(
        index.name(q42, "es", 1000).expect("name").as_deref(),
        Some("Douglas Adams")
    );
}

/// A copy of the committed format-4 fixture (opening writes RocksDB's log).
fn v4_copy() -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/index-v4");
    let to = tmp("index-v4");
    if to.exists() {
        std::fs::remove_dir_all(&to).expect("clean");
    }
    let mut stack = vec![(from, to.clone())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst).expect("dir");
        for entry in std::fs::read_dir(&src).expect("the fixture is committed") {
            let path = entry.expect("entry").path();
            let target = dst.join(path.file_name().expect("name"));
            if path.is_dir() {
                stack.push((path, target));
            } else {
                std::fs::copy(&path, &target).expect("copied");
            }
        }
    }
    to
}

#[test]
fn an_index_of_format_4_opens_without_names_and_features_ask_to_rebuild_it() {
    let dir = v4_copy();
    let index = Index::open(&dir).expect("format 4 is still read");
    assert!(!index.has_names());
    assert_eq!(index.meta().counts.named_iris, 0);
    // its sameAs and labels answer as before
    let obama = index
        .sameas("http://www.wikidata.org/entity/Q76", 10)
        .expect("sameas");
    assert!(obama.class_size > 1, "{obama:?}");
    let err = index
        .name("http://www.wikidata.org/entity/Q76", "en", 1000)
        .expect_err("no names");
    assert!(matches!(err, IndexError::NoNames { found: 4, .. }), "{err}");
    drop(index);

    let (_, gold) = fixture();
    let o = qajudge(&[
        "features",
        "--gold",
        gold,
        "--index",
        dir.to_str().expect("utf-8"),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("holds no names") && err.contains("qajudge index build"),
        "{err}"
    );
}
