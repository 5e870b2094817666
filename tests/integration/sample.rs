//! `qajudge sample` on QaldGenData and on real benchmarks: the paper's
//! Listings 1.2 and 1.3 (docs/listings), every chosen question checked against
//! the selection by reading `sample.ttl` here with oxrdfio, the diversity
//! recomputed here from `sample.ttl` and QaldGenData, same seed same sample,
//! the clustering methods, and `features --format turtle` as an input
//! interchangeable with the benchmark it was computed from.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use oxrdfio::{RdfFormat, RdfParser};

use crate::cli::{qajudge, stderr};

const QG: &str = "http://qald-gen.aksw.org/vocab#";
const LSQ: &str = "http://lsq.aksw.org/vocab#";

/// Each subject's statements: predicate IRI → objects (lexical form or IRI).
type Graph = BTreeMap<String, HashMap<String, Vec<String>>>;

fn read_graph(reader: impl std::io::Read) -> Graph {
    let mut g: Graph = BTreeMap::new();
    for t in RdfParser::from_format(RdfFormat::Turtle).for_reader(reader) {
        let t = t.expect("the turtle parses");
        let object = match &t.object {
            oxrdf::Term::NamedNode(n) => n.as_str().to_string(),
            oxrdf::Term::Literal(l) => l.value().to_string(),
            other => other.to_string(),
        };
        let oxrdf::NamedOrBlankNode::NamedNode(s) = &t.subject else {
            continue;
        };
        g.entry(s.as_str().to_string())
            .or_default()
            .entry(t.predicate.as_str().to_string())
            .or_default()
            .push(object);
    }
    g
}

fn qaldgendata(data: &Path) -> Graph {
    let file = std::fs::File::open(data.join("qaldgen/QaldGen-RDF.ttl.gz")).expect("QaldGenData");
    read_graph(flate2::read::GzDecoder::new(std::io::BufReader::new(file)))
}

fn one<'a>(props: &'a HashMap<String, Vec<String>>, p: &str) -> &'a str {
    props
        .get(p)
        .and_then(|v| v.first())
        .map_or("", String::as_str)
}

fn num(props: &HashMap<String, Vec<String>>, p: &str) -> f64 {
    one(props, p).parse().unwrap_or(0.0)
}

/// The features of the listings, as (namespace, local name).
const LISTING: [(&str, &str); 8] = [
    (QG, "length"),
    (QG, "totalEntities"),
    (QG, "totalRelations"),
    (QG, "totalClasses"),
    (LSQ, "tps"),
    (LSQ, "bgps"),
    (LSQ, "projectVars"),
    (LSQ, "resultSize"),
];

/// Listing 1.3's selection, written here again.
fn personalised(props: &HashMap<String, Vec<String>>) -> bool {
    one(props, &format!("{QG}questionOrigin")) == "qald9"
        && one(props, &format!("{QG}text"))
            .to_lowercase()
            .starts_with("what ")
        && num(props, &format!("{LSQ}tps")) > 1.0
        && num(props, &format!("{LSQ}resultSize")) >= 1.0
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sample")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn draw(args: &[&str], out: &Path) -> serde_json::Value {
    let mut all: Vec<&str> = vec!["sample"];
    all.extend_from_slice(args);
    let out = out.display().to_string();
    all.extend_from_slice(&["--format", "json", "--out", &out]);
    let o = qajudge(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("json")
}

fn ids(summary: &serde_json::Value) -> Vec<String> {
    summary["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| q.as_str().expect("an id").to_string())
        .collect()
}

#[test]
fn the_papers_listings_on_qaldgendata() {
    let data = crate::require_data!();
    let input = data
        .join("qaldgen/QaldGen-RDF.ttl.gz")
        .display()
        .to_string();
    let all = qaldgendata(&data);
    assert_eq!(all.len(), 5543);
    // Listing 1.2: every question of QaldGenData is a candidate
    let out = out_dir("listing-1.2");
    let s = draw(
        &[
            &input,
            "--query",
            "docs/listings/listing-1.2.rq",
            "--size",
            "50",
        ],
        &out,
    );
    assert_eq!(s["candidates"], 5543);
    assert_eq!(ids(&s).len(), 50);
    // a features graph holds no gold answers: no benchmark.json
    assert!(!out.join("benchmark.json").exists());
    // Listing 1.3: the personalised selection
    let candidates: Vec<&String> = all
        .iter()
        .filter(|(_, p)| personalised(p))
        .map(|(s, _)| s)
        .collect();
    let out = out_dir("listing-1.3");
    let s = draw(
        &[
            &input,
            "--query",
            "docs/listings/listing-1.3.rq",
            "--size",
            "10",
        ],
        &out,
    );
    assert_eq!(s["candidates"], candidates.len());
    assert_eq!(candidates.len(), 25);
    let file = std::fs::File::open(out.join("sample.ttl")).expect("sample.ttl");
    let sample = read_graph(std::io::BufReader::new(file));
    let chosen = ids(&s);
    assert_eq!(sample.len(), 10);
    for id in &chosen {
        let iri = format!("http://qald-gen.aksw.org/question#{id}");
        let props = sample
            .get(&iri)
            .unwrap_or_else(|| panic!("{iri} in sample.ttl"));
        assert!(personalised(props), "{id} does not meet Listing 1.3");
        // every statement of the question is written
        assert_eq!(props.len(), all[&iri].len(), "{id}");
    }
    // the diversity recomputed: each feature divided by its maximum over the
    // candidates, the population sd over the sample, the mean over features
    let mut sds = Vec::new();
    for (ns, local) in LISTING {
        let p = format!("{ns}{local}");
        let max = candidates
            .iter()
            .map(|c| num(&all[*c], &p))
            .fold(0.0, f64::max);
        let xs: Vec<f64> = sample
            .values()
            .map(|props| if max > 0.0 { num(props, &p) / max } else { 0.0 })
            .collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        sds.push(var.sqrt());
    }
    let diversity = sds.iter().sum::<f64>() / sds.len() as f64;
    let reported = s["diversity"].as_f64().unwrap_or(-1.0);
    assert!(
        (reported - diversity).abs() < 1e-9,
        "{reported} vs {diversity}"
    );
    // the same selection without SPARQL gives the same candidates and sample
    let s2 = draw(
        &[
            &input,
            "--features",
            "words,entities,relations,classes,triple_patterns,bgps,projection_variables,result_size",
            "--where",
            r#"origin = "qald9" and type = "what" and triple_patterns > 1 and result_size >= 1"#,
            "--size",
            "10",
        ],
        &out_dir("where"),
    );
    assert_eq!(s2["candidates"], s["candidates"]);
    assert_eq!(ids(&s2), chosen);
}

#[test]
fn clustering_methods_are_seeded_and_say_their_size() {
    let data = crate::require_data!();
    let gold = data
        .join("qald/9/qald-9-train-multilingual.json")
        .display()
        .to_string();
    let features = "words,entities,relations,triple_patterns,result_size,union";
    let run = |name: &str, method: &str, seed: &str| {
        draw(
            &[
                "--gold",
                &gold,
                "--features",
                features,
                "--size",
                "12",
                "--method",
                method,
                "--seed",
                seed,
                "--trials",
                "3",
            ],
            &out_dir(name),
        )
    };
    for method in ["kmeans++", "dbscan+kmeans++"] {
        let a = run(&format!("{method}-a"), method, "5");
        let b = run(&format!("{method}-b"), method, "5");
        assert_eq!(ids(&a), ids(&b), "{method}: same seed, same sample");
        assert_eq!(ids(&a).len(), 12, "{method}");
        assert_eq!(a["method"], method);
    }
    let a = run("agglomerative", "agglomerative", "0");
    assert_eq!(a["requested_size"], 12);
    assert_eq!(a["size"].as_u64(), Some(ids(&a).len() as u64));
    // the written benchmark holds the sample with its gold answers
    let written = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sample/kmeans++-a/benchmark.json");
    let o = qajudge(&["check", &written.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("questions: 12\n"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn features_as_turtle_are_an_input_like_the_benchmark() {
    let data = crate::require_data!();
    let gold = data
        .join("qald/9/qald-9-train-multilingual.json")
        .display()
        .to_string();
    let o = qajudge(&["features", "--gold", &gold, "--format", "turtle"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = out_dir("turtle");
    std::fs::create_dir_all(&dir).expect("dir");
    let ttl = dir.join("qald9-train.ttl");
    std::fs::write(&ttl, &o.stdout).expect("write");
    let g = read_graph(std::io::BufReader::new(
        std::fs::File::open(&ttl).expect("ttl"),
    ));
    assert_eq!(g.len(), 408);
    let q31 = &g["http://qald-gen.aksw.org/question#31"];
    assert_eq!(one(q31, &format!("{QG}entity1")), "Atlanta_Falcons");
    assert_eq!(one(q31, &format!("{QG}totalRelations")), "2");
    let features = "words,entities,relations,triple_patterns,result_size,filter,union";
    let a = draw(
        &["--gold", &gold, "--features", features, "--size", "15"],
        &dir.join("from-json"),
    );
    let b = draw(
        &[
            &ttl.display().to_string(),
            "--features",
            features,
            "--size",
            "15",
        ],
        &dir.join("from-turtle"),
    );
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(a["diversity"], b["diversity"]);
    // a question id in two inputs is refused, naming it
    let o = qajudge(&[
        "sample",
        &ttl.display().to_string(),
        "--gold",
        &gold,
        "--features",
        "words",
        "--size",
        "3",
        "--out",
        &dir.join("both").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("question 1 is also in an earlier input"),
        "{}",
        stderr(&o)
    );
    // a --where error names its column
    let o = qajudge(&[
        "sample",
        "--gold",
        &gold,
        "--features",
        "words",
        "--where",
        "words > 2 and wrods < 3",
        "--size",
        "3",
        "--out",
        &dir.join("bad-where").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--where column 15: unknown feature \"wrods\""),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("bad-where").exists(), "nothing written");
}

#[test]
fn evaluate_on_a_sample_explains_the_failures() {
    let data = crate::require_data!();
    let gold = data
        .join("qald/9/qald-9-train-multilingual.json")
        .display()
        .to_string();
    let out = out_dir("qald9-100");
    let s = draw(
        &[
            "--gold",
            &gold,
            "--features",
            "words,entities,relations,classes,triple_patterns,result_size,filter,union,aggregates",
            "--size",
            "100",
            "--method",
            "feasible-exemplars",
        ],
        &out,
    );
    assert_eq!(ids(&s).len(), 100);
    let runs = data.join("systems/nliwod/qald9");
    let run = |name: &str| runs.join(name).display().to_string();
    let (a, b) = (
        run("QANSWER_QALD9_Train.json"),
        run("GANSWER2_QALD9_Train.json"),
    );
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &gold,
        "--sample",
        &out.display().to_string(),
        "--run",
        &a,
        &b,
        "--explain-failures",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(report["gold"]["questions"], 100);
    let features = qajudge(&["features", "--gold", &gold, "--format", "json"]);
    let features: serde_json::Value = serde_json::from_slice(&features.stdout).expect("json");
    let by_id: HashMap<String, &serde_json::Value> = features
        .as_array()
        .expect("questions")
        .iter()
        .map(|f| (f["id"].as_str().unwrap_or_default().to_string(), f))
        .collect();
    for r in report["runs"].as_array().expect("runs") {
        let f = &r["failures"];
        let questions = r["experiments"]["qa"]["questions"].as_array().expect("qa");
        let failed = questions
            .iter()
            .filter(|q| q["status"] != "not_evaluable" && q["f1"].as_f64().unwrap_or(0.0) < 0.5)
            .count();
        assert_eq!(f["failed"].as_u64(), Some(failed as u64));
        let rules = f["rules"].as_array().expect("rules");
        assert!(!rules.is_empty());
        // every covered question meets its rule's condition (read here from
        // `qajudge features`), and failure rates are rates
        for rule in rules {
            let cond = rule["condition"].as_str().expect("condition");
            let (name, rest) = cond.split_once(' ').expect("a condition");
            for id in rule["questions"].as_array().expect("ids") {
                let q = by_id[id.as_str().expect("id")];
                // a part-of-speech flag (`pos_in`) is a tag of the `pos` list
                if let Some(tag) = name.strip_prefix("pos_") {
                    let has = q["pos"]
                        .as_array()
                        .expect("pos")
                        .iter()
                        .any(|t| t.as_str().is_some_and(|t| t.eq_ignore_ascii_case(tag)));
                    assert_eq!(rest, format!("= {has}"), "{cond} on {id}");
                    continue;
                }
                let v = match &q[name] {
                    serde_json::Value::Array(a) => a.len() as f64,
                    serde_json::Value::Bool(b) => f64::from(u8::from(*b)),
                    serde_json::Value::String(s) => {
                        assert_eq!(rest, format!("= {s:?}"), "{cond} on {id}");
                        continue;
                    }
                    v => v.as_f64().unwrap_or(0.0),
                };
                let ok = match rest.split_once(' ') {
                    Some((">=", t)) => v >= t.parse::<f64>().expect("t"),
                    Some(("<=", t)) => v <= t.parse::<f64>().expect("t"),
                    Some(("=", "true")) => v > 0.0,
                    Some(("=", "false")) => v == 0.0,
                    other => panic!("{other:?}"),
                };
                assert!(ok, "{cond} on {id}");
            }
            let inside = rule["failure_rate_inside"].as_f64().expect("rate");
            assert!((0.0..=1.0).contains(&inside));
        }
    }
    // the table says it after the scores; without the flag the report has none
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &gold,
        "--sample",
        &out.display().to_string(),
        "--run",
        &a,
        "--explain-failures",
    ]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("why QANSWER_QALD9_Train fails"));
    let o = qajudge(&[
        "evaluate",
        "--gold",
        &gold,
        "--sample",
        &out.display().to_string(),
        "--run",
        &a,
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(report["runs"][0].get("failures").is_none());
}

#[test]
fn the_server_gives_features_and_draws_the_samples_the_cli_draws() {
    use crate::serve::{assert_error, get, post_json, tmp, Server};
    let data = crate::require_data!();
    let gold = data
        .join("qald/9/qald-9-train-multilingual.json")
        .display()
        .to_string();
    let registered = format!("qald9={gold}");
    let s = Server::start_bare(&tmp("sample-server"), &["--benchmark", &registered]);
    let (status, b) = get(&s, "/api/v1/benchmarks/qald9/features");
    assert_eq!(status, 200, "{b}");
    let questions = b["questions"].as_array().expect("questions");
    assert_eq!(questions.len(), 408);
    let q31 = questions
        .iter()
        .find(|q| q["id"] == "31")
        .expect("question 31");
    assert_eq!(q31["entities"], serde_json::json!(["Atlanta_Falcons"]));
    let (status, b) = get(&s, "/api/v1/benchmarks/nope/features");
    assert_error(status, &b, 404, "not_found");
    // the same draw as the command line
    let features = "words,entities,relations,triple_patterns,result_size,union";
    let cli = draw(
        &[
            "--gold",
            &gold,
            "--features",
            features,
            "--where",
            "triple_patterns > 1",
            "--size",
            "10",
            "--method",
            "kmeans++",
            "--seed",
            "2",
        ],
        &out_dir("server-cli"),
    );
    let body = serde_json::json!({
        "benchmark": "qald9",
        "features": features.split(',').collect::<Vec<_>>(),
        "where": "triple_patterns > 1",
        "size": 10,
        "method": "kmeans++",
        "seed": 2,
    });
    let (status, b) = post_json(&s, "/api/v1/sample", &body.to_string());
    assert_eq!(status, 200, "{b}");
    assert_eq!(b["questions"], cli["questions"]);
    assert_eq!(b["candidates"], cli["candidates"]);
    assert_eq!(b["diversity"], cli["diversity"]);
    let bad = serde_json::json!({"benchmark": "qald9", "features": ["words"], "where": "words >", "size": 3});
    let (status, b) = post_json(&s, "/api/v1/sample", &bad.to_string());
    assert_error(status, &b, 400, "bad_parameter");
    assert!(
        b["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("column 8")),
        "{b}"
    );
    let many = serde_json::json!({"benchmark": "qald9", "features": ["words"], "size": 500});
    let (status, b) = post_json(&s, "/api/v1/sample", &many.to_string());
    assert_error(status, &b, 400, "bad_parameter");
}
