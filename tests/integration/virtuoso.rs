//! `--endpoint` against Virtuoso (Debian's `virtuoso-opensource-7`, the store the
//! TEXT2SPARQL organisers used), started on loopback by `scripts/sparql-store.sh`
//! with the CK25 graph. The gold executed on Virtuoso reproduces the organisers'
//! result set where the embedded store cannot (its integer division, its order
//! of ties), and the (system, question) pairs where Virtuoso and the embedded
//! store give different figures are exactly the ones listed here, each with why.

use std::collections::{BTreeMap, BTreeSet};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Command;

use qajudge::eval::Profile;
use qajudge::sparql::{ExecOptions, KnowledgeGraph};

use crate::data::load;
use crate::text2sparql::{ck25, documents, executed, systems_report_on};

/// CK25 questions whose gold executed on Virtuoso differs from the organisers'
/// result set, and why. `true`: always; `false`: depending on the load (ties).
const VIRTUOSO_GOLD_EXCEPTIONS: [(&str, bool, &str); 4] = [
    (
        "ck25:29-en",
        false,
        "ties under ORDER BY DESC(?price) LIMIT 5 OFFSET 10 at both edges: rows 10 and 11 share 5.96 (Page, Hernandez and Ayala / Mcdaniel, Dean and Delgado), rows 15 and 16 share 5.92 (Cook LLC / Newton Inc); the organisers' Virtuoso kept Page and Newton, and which this Virtuoso keeps changed between loads (seen once in a full test run under load, 2026-11-27)",
    ),
    (
        "ck25:41-en",
        true,
        "Virtuoso 7.2.5.1 returns the same 13 rows as oxigraph; the organisers' result is empty. Their store was another Virtuoso build (or its query failed there and their client turned the error into an empty result); the cause is not in the query",
    ),
    (
        "ck25:46-en",
        false,
        "ties under LIMIT 5: which of the suppliers at 0.962 is kept depends on the store's internal order, which changed between two loads of this Virtuoso",
    ),
    (
        "ck25:50-en",
        false,
        "ties under LIMIT 1: this Virtuoso kept dept-85880 (as oxigraph does) in every load seen, the organisers' Virtuoso kept dept-22183",
    ),
];

/// The (system, question) pairs whose figures differ between Virtuoso 7.2.5.1
/// and the embedded store (each store executing the gold and the run), and why.
/// Those under `TIES` depend on the stores' internal order and may match in
/// some loads; the others differ always.
const VIRTUOSO_DIFFERENCES: [(&str, &str, &str); 16] = [
    ("IIS-L", "ck25:25-en", DIVISION),
    ("IIS-Q", "ck25:25-en", DIVISION),
    ("INFAI", "ck25:25-en", DIVISION),
    ("INFAI", "ck25:50-en", TIES),
    ("IIS-L", "ck25:29-en", TIES),
    ("LACODAM", "ck25:12-en", TIES),
    ("LACODAM", "ck25:34-en", TIES),
    ("LACODAM", "ck25:39-en", TIES),
    ("LACODAM", "ck25:40-en", TIES),
    ("LACODAM", "ck25:44-en", TIES),
    ("LACODAM", "ck25:46-en", TIES),
    ("WSE", "ck25:40-en", TIES),
    ("INFAI", "ck25:31-en", PATH),
    ("INFAI", "ck25:42-en", PATH),
    ("INFAI", "ck25:48-en", PATH),
    ("INFAI", "ck25:43-en", IRI_ORDER),
];
const DIVISION: &str = "the gold query divides integers: Virtuoso fails with 'Division by 0' (the organisers' empty result), SPARQL 1.1 gives a decimal; the gold differs, so the system's score does";
const TIES: &str = "LIMIT without a total order (no ORDER BY, or ties at the cut): SPARQL leaves open which rows are kept, and the two stores keep different ones";
const PATH: &str = "Virtuoso 7.2.5.1 drops rows when rdf:type/rdfs:subClassOf* is joined with further patterns (ck25:48: 1 BOM instead of 3; the same query with rdf:type gives 3 on Virtuoso too): a Virtuoso bug, oxigraph gives the SPARQL 1.1 answer";
const IRI_ORDER: &str = "FILTER(?a < ?b) on IRIs: not defined in SPARQL 1.1 (an error, so the filter drops every row in oxigraph); Virtuoso compares the IRI strings and returns 969 pairs";

/// The CK25 systems the comparison runs.
const SYSTEMS: [&str; 12] = [
    "AIFB",
    "DBPEDIA-CG",
    "DBPEDIA-CL",
    "DBPEDIA-SC",
    "FRANZ",
    "IIS-L",
    "IIS-Q",
    "INFAI",
    "LABIC",
    "LACODAM",
    "MIPT",
    "WSE",
];

/// A Virtuoso started by `scripts/sparql-store.sh`, stopped on drop.
pub(crate) struct Virtuoso {
    dir: PathBuf,
    /// Its SPARQL endpoint.
    pub(crate) url: String,
}

impl Drop for Virtuoso {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(crate::serve::root().join("scripts/sparql-store.sh"))
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// Two free consecutive ports (HTTP, SQL).
fn free_ports() -> u16 {
    loop {
        let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = l.local_addr().expect("address").port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
}

/// Starts Virtuoso with `files`, or `None` (a note) outside CI when it is missing.
fn start(files: &[PathBuf]) -> Option<Virtuoso> {
    start_in("virtuoso-db", files)
}

/// [`start`] with its database in the test directory `name` (one per test
/// that runs at the same time as others).
pub(crate) fn start_in(name: &str, files: &[PathBuf]) -> Option<Virtuoso> {
    let found = Command::new("virtuoso-t").arg("-?").output().is_ok();
    if !found {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "virtuoso-t is missing: the README's test command installs it (bash scripts/install-deps.sh --virtuoso)"
        );
        eprintln!("skipping: virtuoso-t is missing (bash scripts/install-deps.sh --virtuoso)");
        return None;
    }
    let dir = crate::serve::tmp(name);
    let port = free_ports();
    let o = Command::new("bash")
        .arg(crate::serve::root().join("scripts/sparql-store.sh"))
        .arg("virtuoso")
        .arg(&dir)
        .arg(port.to_string())
        .args(files)
        .output()
        .expect("scripts/sparql-store.sh runs");
    let url = String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    let server = Virtuoso { dir, url };
    assert!(
        o.status.success(),
        "virtuoso did not start: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(server.url, format!("http://127.0.0.1:{port}/sparql"));
    Some(server)
}

#[test]
fn virtuoso_executes_ck25_as_the_organisers_did() {
    let dir = crate::require_data!();
    let (yaml, files) = ck25(&dir);
    let Some(virtuoso) = start(&files) else {
        return;
    };
    let options = ExecOptions::default();
    let on_virtuoso = KnowledgeGraph::endpoint(&virtuoso.url, options);
    let embedded = KnowledgeGraph::load(&files, options, &|_, _| {}).expect("kg loads");

    // the gold on Virtuoso against the organisers' result set
    let mut gold = load(&yaml);
    executed(&mut gold, &on_virtuoso, false);
    let truth: BTreeMap<String, BTreeMap<String, u8>> = serde_json::from_slice(
        &std::fs::read(dir.join("text2sparql/benchmark/ck25_true_result_set.json"))
            .expect("test input"),
    )
    .expect("test input");
    let mut differ = BTreeSet::new();
    for q in &gold.questions {
        if &documents(&gold, &q.id.0) != truth.get(&q.id.0).expect("in the truth set") {
            differ.insert(q.id.0.as_str());
        }
    }
    for (id, always, why) in VIRTUOSO_GOLD_EXCEPTIONS {
        assert!(!always || differ.contains(id), "{id} should differ: {why}");
    }
    let listed: BTreeSet<&str> = VIRTUOSO_GOLD_EXCEPTIONS
        .iter()
        .map(|(id, ..)| *id)
        .collect();
    assert!(
        differ.is_subset(&listed),
        "gold questions that differ on Virtuoso and are not listed: {:?}",
        differ.difference(&listed).collect::<Vec<_>>()
    );
    let q25 = gold
        .questions
        .iter()
        .find(|q| q.id.0 == "ck25:25-en")
        .and_then(|q| q.execution.as_ref())
        .expect("executed");
    assert_eq!(q25.status.name(), "execution_error");
    assert!(
        q25.message
            .as_deref()
            .unwrap_or("")
            .contains("Division by 0"),
        "{:?}",
        q25.message
    );
    // the Virtuoso-only casts run on Virtuoso as written
    for id in ["ck25:37-en", "ck25:42-en"] {
        let q = gold
            .questions
            .iter()
            .find(|q| q.id.0 == id)
            .expect("question");
        assert_eq!(q.execution.as_ref().expect("executed").status.name(), "ok");
    }

    // every system on both stores: the pairs that differ, and only those
    let v = systems_report_on(&dir, &on_virtuoso, Profile::Text2sparql, &SYSTEMS);
    let e = systems_report_on(&dir, &embedded, Profile::Text2sparql, &SYSTEMS);
    let mut pairs = BTreeSet::new();
    for (rv, re) in v.runs.iter().zip(&e.runs) {
        assert_eq!(rv.name, re.name);
        let qv = &rv.experiments.qa.as_ref().expect("qa").questions;
        let qe = &re.experiments.qa.as_ref().expect("qa").questions;
        for (a, b) in qv.iter().zip(qe) {
            assert_eq!(a.id, b.id);
            let figures = |q: &qajudge::eval::QuestionReport| {
                (q.score.precision, q.score.recall, q.score.f1, q.ndcg)
            };
            if figures(a) != figures(b) {
                pairs.insert((rv.name.clone(), a.id.clone()));
            }
        }
    }
    let listed: BTreeSet<(String, String)> = VIRTUOSO_DIFFERENCES
        .iter()
        .map(|(s, q, _)| ((*s).to_string(), (*q).to_string()))
        .collect();
    assert!(
        pairs.is_subset(&listed),
        "(system, question) pairs that differ and are not listed: {:?}",
        pairs.difference(&listed).collect::<Vec<_>>()
    );
    for (system, id, why) in VIRTUOSO_DIFFERENCES {
        let pair = (system.to_string(), id.to_string());
        assert!(
            why == TIES || pairs.contains(&pair),
            "{system} {id} should differ: {why}"
        );
    }
    eprintln!(
        "virtuoso vs embedded: {} (system, question) pairs differ of {} listed",
        pairs.len(),
        listed.len()
    );
}
