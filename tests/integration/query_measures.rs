//! `--experiments query` (docs/scoring.md, Query measures) through the CLI
//! and `POST /api/v1/evaluate`: the same figures, the table's QUERY block, and
//! unknown entities told by the demo index.

use serde_json::{json, Value};

use crate::cli::{qajudge, stdout};
use crate::serve::{demo_index, post_json, tmp, Server, GOLD};

const SPARQL_RUN: &str = "tests/data/demo/sparql-system.json";

fn cli(format: &str) -> String {
    let index = demo_index();
    let o = qajudge(&[
        "evaluate",
        "--gold",
        GOLD,
        "--run",
        SPARQL_RUN,
        "--index",
        index.to_str().expect("utf-8"),
        "--experiments",
        "query",
        "--per-question",
        "--format",
        format,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stdout(&o)
}

#[test]
fn query_measures_are_the_same_on_the_cli_and_the_server() {
    let report: Value = serde_json::from_str(&cli("json")).expect("a json report");
    let query = &report["runs"][0]["experiments"]["query"];
    let a = &query["aggregate"];
    assert_eq!(a["questions"], 13, "{a}");
    assert_eq!(a["compared"], 13, "{a}");
    assert_eq!(a["parses"], 12, "{a}");
    assert_eq!(a["unknown_iris_source"], "index", "{a}");
    assert_eq!(
        (a["iris"].as_u64(), a["unknown_iris"].as_u64()),
        (Some(15), Some(0))
    );
    assert_eq!(
        a["equivalence"],
        json!({"equivalent": 6, "different": 4, "unknown": 3})
    );
    let q = query["questions"].as_array().expect("questions");
    // the same query but for DISTINCT over a single pattern's object
    assert_eq!(q[1]["equivalence"], "equivalent", "{}", q[1]);
    // COUNT(DISTINCT ?uri) against the list of ?uri
    assert_eq!(q[2]["equivalence"], "unknown", "{}", q[2]);
    assert_eq!(q[7]["parses"], false, "{}", q[7]);
    // its answers are not scored: the run gives queries, and there is no
    // graph to execute them on (docs/scoring.md, Executing SPARQL)
    assert!(report["runs"][0]["experiments"]["qa"].is_null());

    let data = tmp("api-query-measures");
    let s = Server::start(&data, &[]);
    let run: Value = serde_json::from_str(
        &std::fs::read_to_string(crate::serve::root().join(SPARQL_RUN)).expect("run"),
    )
    .expect("json run");
    let body = json!({
        "gold": "demo",
        "runs": [{"name": "sparql-system.json", "document": run}],
        "experiments": ["query"]
    });
    let (status, served) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{served}");
    assert_eq!(served["runs"][0]["experiments"]["query"], *query);

    // QA of a run of queries without a graph: refused, naming the run, never zeros
    let body = json!({
        "gold": "demo",
        "runs": [{"name": "sparql-system.json", "document": run}],
        "experiments": ["qa", "query"]
    });
    let (status, served) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(
        served["error"]["code"], "no_knowledge_graph",
        "{status} {served}"
    );
    assert!(served.to_string().contains("sparql-system"), "{served}");

    // without asking, no query block
    let body =
        json!({"gold": "demo", "runs": [{"name": "r", "document": run}], "experiments": ["c2kb"]});
    let (status, served) = post_json(&s, "/api/v1/evaluate", &body.to_string());
    assert_eq!(status, 200, "{served}");
    assert!(
        served["runs"][0]["experiments"].get("query").is_none(),
        "{served}"
    );
}

#[test]
fn the_table_has_a_query_block() {
    let table = cli("table");
    let block = &table[table.find("\nQUERY\n").expect("a QUERY block")..];
    assert!(block.contains("equivalent  different  unknown"), "{block}");
    assert!(block.contains("12/13 (92.3%)"), "{block}");
    assert!(block.contains("0/15 0.0% (index)"), "{block}");
    assert!(
        block.contains("QUERY per question: sparql-system"),
        "{block}"
    );
    assert!(block.contains("run query: sparql syntax error"), "{block}");
}
