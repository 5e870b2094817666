//! Experiments as linked data, as GERBIL QA publishes them: each stored
//! experiment as RDF in the W3C Data Cube vocabulary (a `qb:DataSet` per
//! experiment, one `qb:Observation` per run and sub-experiment with the
//! aggregate measures, one per run, sub-experiment and question), with its
//! provenance (profile, benchmark and its SHA-256, index, knowledge graph and
//! its files, qajudge version, times). The terms of qajudge's own vocabulary
//! are under [`VOCAB`]; `docs/linked-data.md` lists them.

use serde_json::Value;

use super::experiment_store::Record;
use crate::model::Term;
use crate::sparql::Statement;

/// qajudge's vocabulary.
pub const VOCAB: &str = "https://w3id.org/qajudge/vocab#";
const QB: &str = "http://purl.org/linked-data/cube#";
const DCT: &str = "http://purl.org/dc/terms/";
const PROV: &str = "http://www.w3.org/ns/prov#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// The prefixes the RDF is written with.
pub const PREFIXES: [(&str, &str); 7] = [
    ("qj", VOCAB),
    ("qb", QB),
    ("dct", DCT),
    ("prov", PROV),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("xsd", XSD),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
];

/// The aggregate measures: (path in the JSON aggregate, property name).
const AGGREGATE_MEASURES: [(&[&str], &str); 22] = [
    (&["micro", "precision"], "microPrecision"),
    (&["micro", "recall"], "microRecall"),
    (&["micro", "f1"], "microF1"),
    (&["macro", "precision"], "macroPrecision"),
    (&["macro", "recall"], "macroRecall"),
    (&["macro", "f1"], "macroF1"),
    (&["macro_qald", "precision"], "precisionQALD"),
    (&["macro_qald", "recall"], "recallQALD"),
    (&["macro_qald", "f1"], "macroF1QALD"),
    (&["answered_only", "f1"], "answeredOnlyF1"),
    (&["questions"], "questions"),
    (&["evaluated"], "evaluated"),
    (&["not_evaluable"], "notEvaluable"),
    (&["answered"], "answered"),
    (&["empty"], "empty"),
    (&["missing"], "missing"),
    (&["extra"], "extra"),
    (&["errors"], "errors"),
    (&["right"], "right"),
    (&["partial"], "partial"),
    (&["runtime_ms_mean"], "meanRuntimeMs"),
    (&["ndcg"], "ndcg"),
];

/// The per-question measures: (field of the JSON question, property name).
const QUESTION_MEASURES: [(&str, &str); 8] = [
    ("tp", "truePositives"),
    ("fp", "falsePositives"),
    ("fn", "falseNegatives"),
    ("precision", "precision"),
    ("recall", "recall"),
    ("f1", "f1"),
    ("precision_qald", "precisionQALD"),
    ("recall_qald", "recallQALD"),
];

/// The IRI of an experiment under the service's public address.
pub fn experiment_iri(base: &str, id: &str) -> String {
    format!("{}/experiments/{id}", base.trim_end_matches('/'))
}

/// Percent-encodes what may not stand in an IRI fragment as is.
fn fragment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Collects statements about subjects.
struct Graph(Vec<Statement>);

impl Graph {
    fn add(&mut self, s: &str, p: &str, o: Term) {
        self.0.push(Statement {
            subject: s.to_string(),
            predicate: p.to_string(),
            object: o,
        });
    }

    fn iri(&mut self, s: &str, p: &str, o: &str) {
        self.add(s, p, Term::Iri(o.to_string()));
    }

    fn text(&mut self, s: &str, p: &str, o: &str) {
        self.add(s, p, Term::plain(o));
    }

    /// A JSON number as `xsd:integer` or `xsd:double`; null and absent: nothing.
    fn number(&mut self, s: &str, p: &str, v: Option<&Value>) {
        let Some(Value::Number(n)) = v else { return };
        let (lexical, datatype) = match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => (u.to_string(), "integer"),
            (_, Some(i), _) => (i.to_string(), "integer"),
            (_, _, Some(f)) if f.is_finite() => (format!("{f:?}"), "double"),
            _ => return,
        };
        self.add(
            s,
            p,
            Term::Literal {
                lexical,
                datatype: Some(format!("{XSD}{datatype}")),
                lang: None,
            },
        );
    }

    fn typed(&mut self, s: &str, p: &str, lexical: &str, datatype: &str) {
        self.add(
            s,
            p,
            Term::Literal {
                lexical: lexical.to_string(),
                datatype: Some(format!("{XSD}{datatype}")),
                lang: None,
            },
        );
    }
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn vocab(name: &str) -> String {
    format!("{VOCAB}{name}")
}

/// The data structure definition every experiment points to: the dimensions
/// (run, sub-experiment, question) and the measures.
fn structure(g: &mut Graph) {
    let dsd = vocab("structure");
    g.iri(&dsd, RDF_TYPE, &format!("{QB}DataStructureDefinition"));
    let dims = ["run", "experiment", "question"];
    let measures = AGGREGATE_MEASURES
        .iter()
        .map(|(_, m)| *m)
        .chain(QUESTION_MEASURES.iter().map(|(_, m)| *m))
        .chain(["status"]);
    for (i, d) in dims.iter().enumerate() {
        let c = vocab(&format!("component-{d}"));
        g.iri(&dsd, &format!("{QB}component"), &c);
        g.iri(&c, &format!("{QB}dimension"), &vocab(d));
        g.typed(&c, &format!("{QB}order"), &(i + 1).to_string(), "integer");
        g.iri(&vocab(d), RDF_TYPE, &format!("{QB}DimensionProperty"));
    }
    let mut seen = std::collections::BTreeSet::new();
    for m in measures {
        if !seen.insert(m) {
            continue;
        }
        let c = vocab(&format!("component-{m}"));
        g.iri(&dsd, &format!("{QB}component"), &c);
        g.iri(&c, &format!("{QB}measure"), &vocab(m));
        g.iri(&vocab(m), RDF_TYPE, &format!("{QB}MeasureProperty"));
    }
}

/// The provenance of an experiment: the profile, the benchmark and its
/// checksum, the index, the knowledge graph, the software and the times.
fn provenance(g: &mut Graph, e: &str, r: &Record, report: Option<&Value>) {
    g.iri(e, RDF_TYPE, &format!("{QB}DataSet"));
    g.iri(e, RDF_TYPE, &format!("{PROV}Entity"));
    g.iri(e, &format!("{QB}structure"), &vocab("structure"));
    g.text(e, &format!("{DCT}identifier"), &r.id);
    g.text(e, RDFS_LABEL, &format!("qajudge experiment {}", r.id));
    g.typed(e, &format!("{DCT}created"), &r.created, "dateTime");
    if let Some(f) = &r.finished {
        g.typed(e, &format!("{PROV}generatedAtTime"), f, "dateTime");
    }
    g.text(
        e,
        &vocab("status"),
        &serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
    );
    g.text(e, &vocab("profile"), &r.profile);
    for x in &r.experiments {
        g.iri(e, &vocab("selectedExperiment"), &vocab(x));
    }
    let b = format!("{e}#benchmark");
    g.iri(e, &vocab("benchmark"), &b);
    g.iri(&b, RDF_TYPE, &vocab("Benchmark"));
    g.text(&b, RDFS_LABEL, &r.gold);
    if let Some(sha) = &r.gold_sha256 {
        g.text(&b, &vocab("sha256"), sha);
    }
    let Some(report) = report else { return };
    if let Some(v) = report.get("version").and_then(Value::as_str) {
        g.text(e, &vocab("software"), &format!("qajudge {v}"));
    }
    if let Some(gold) = report.get("gold") {
        for (key, p) in [("format", "format"), ("id", "datasetId")] {
            if let Some(v) = gold.get(key).and_then(Value::as_str) {
                g.text(&b, &vocab(p), v);
            }
        }
        g.number(&b, &vocab("questions"), gold.get("questions"));
    }
    if let Some(index) = report.get("index").filter(|v| !v.is_null()) {
        let i = format!("{e}#index");
        g.iri(e, &vocab("index"), &i);
        g.iri(&i, RDF_TYPE, &vocab("Index"));
        if let Some(p) = index.get("path").and_then(Value::as_str) {
            g.text(&i, &vocab("path"), p);
        }
        g.number(&i, &vocab("formatVersion"), index.get("format_version"));
    }
    if let Some(kg) = report.get("knowledge_graph").filter(|v| !v.is_null()) {
        let k = format!("{e}#knowledge-graph");
        g.iri(e, &vocab("knowledgeGraph"), &k);
        g.iri(&k, RDF_TYPE, &vocab("KnowledgeGraph"));
        if let Some(s) = kg.get("store").and_then(Value::as_str) {
            g.text(&k, &vocab("store"), s);
        }
        if let Some(s) = kg.get("endpoint").and_then(Value::as_str) {
            g.iri(&k, &vocab("endpoint"), s);
        }
        g.number(&k, &vocab("triples"), kg.get("triples"));
        for (n, f) in kg
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let file = format!("{e}#knowledge-graph-file-{}", n + 1);
            g.iri(&k, &vocab("file"), &file);
            if let Some(p) = f.get("path").and_then(Value::as_str) {
                g.text(&file, &vocab("path"), p);
            }
            if let Some(p) = f.get("sha256").and_then(Value::as_str) {
                g.text(&file, &vocab("sha256"), p);
            }
            g.number(&file, &vocab("statements"), f.get("statements"));
        }
    }
}

/// The statements of a stored experiment: its provenance and, once it has a
/// report, one observation per run and sub-experiment and one per run,
/// sub-experiment and question. `base` is the service's public address.
pub fn statements(base: &str, r: &Record) -> Vec<Statement> {
    let e = experiment_iri(base, &r.id);
    let mut g = Graph(Vec::new());
    structure(&mut g);
    let report = r.report.as_ref();
    provenance(&mut g, &e, r, report);
    let runs = report.and_then(|v| v.get("runs")).and_then(Value::as_array);
    for (n, run) in runs.into_iter().flatten().enumerate() {
        let run_iri = format!("{e}#run-{}", n + 1);
        g.iri(&e, &vocab("run"), &run_iri);
        g.iri(&run_iri, RDF_TYPE, &vocab("Run"));
        if let Some(name) = run.get("name").and_then(Value::as_str) {
            g.text(&run_iri, RDFS_LABEL, name);
        }
        if let Some(source) = run.get("source").and_then(Value::as_str) {
            g.text(&run_iri, &vocab("source"), source);
        }
        let Some(experiments) = run.get("experiments").and_then(Value::as_object) else {
            continue;
        };
        for (name, x) in experiments {
            if x.is_null() {
                continue;
            }
            let obs = format!("{e}#run-{}-{name}", n + 1);
            observation(&mut g, &e, &obs, &run_iri, name);
            if let Some(agg) = x.get("aggregate") {
                for (path, p) in AGGREGATE_MEASURES {
                    g.number(&obs, &vocab(p), at(agg, path));
                }
            }
            for q in x
                .get("questions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(id) = q.get("id").and_then(Value::as_str) else {
                    continue;
                };
                let qo = format!("{obs}-q-{}", fragment(id));
                observation(&mut g, &e, &qo, &run_iri, name);
                g.text(&qo, &vocab("question"), id);
                if let Some(s) = q.get("status").and_then(Value::as_str) {
                    g.text(&qo, &vocab("status"), s);
                }
                for (field, p) in QUESTION_MEASURES {
                    g.number(&qo, &vocab(p), q.get(field));
                }
            }
        }
    }
    g.0
}

/// The dimensions every observation has.
fn observation(g: &mut Graph, e: &str, obs: &str, run: &str, experiment: &str) {
    g.iri(obs, RDF_TYPE, &format!("{QB}Observation"));
    g.iri(obs, &format!("{QB}dataSet"), e);
    g.iri(obs, &vocab("run"), run);
    g.iri(obs, &vocab("experiment"), &vocab(experiment));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::ExperimentStatus;

    fn record() -> Record {
        let report = serde_json::json!({
            "version": "0.1.0",
            "gold": {"path": "g.json", "format": "qald-json", "questions": 2, "id": "demo"},
            "index": null,
            "runs": [{"name": "sys a", "source": "a.json", "experiments": {
                "qa": {"aggregate": {"questions": 2, "micro": {"precision": 0.75, "recall": 0.5, "f1": 0.6},
                    "macro": {"precision": 0.5, "recall": 0.5, "f1": 0.5},
                    "macro_qald": {"precision": 1.0, "recall": 0.5, "f1": 0.6666666666666666}},
                    "questions": [{"id": "q 1/ä", "status": "answered", "tp": 1, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.5, "f1": 0.6666666666666666}]},
                "c2kb": null
            }}]
        });
        Record {
            id: "202611230001".into(),
            status: ExperimentStatus::Done,
            created: "2026-11-23T10:00:00Z".into(),
            finished: Some("2026-11-23T10:00:01Z".into()),
            profile: "judge".into(),
            experiments: vec![],
            lang: "en".into(),
            protocol: "gerbil".into(),
            gold: "demo".into(),
            runs: vec!["a.json".into()],
            progress: None,
            error: None,
            report: Some(report),
            gold_sha256: Some("ab".repeat(32)),
            token_sha256: None,
            published: true,
        }
    }

    #[test]
    fn observations_carry_the_reports_figures() {
        let st = statements("http://h:1/", &record());
        let e = "http://h:1/experiments/202611230001";
        let find = |s: &str, p: &str| {
            st.iter()
                .filter(|x| x.subject == s && x.predicate == vocab(p))
                .map(|x| x.object.clone())
                .collect::<Vec<_>>()
        };
        let obs = format!("{e}#run-1-qa");
        assert_eq!(
            find(&obs, "microPrecision"),
            vec![Term::Literal {
                lexical: "0.75".into(),
                datatype: Some(format!("{XSD}double")),
                lang: None
            }]
        );
        assert_eq!(
            find(&obs, "questions"),
            vec![Term::Literal {
                lexical: "2".into(),
                datatype: Some(format!("{XSD}integer")),
                lang: None
            }]
        );
        assert_eq!(find(&obs, "macroF1QALD").len(), 1);
        // a null sub-experiment has no observation
        assert!(find(&format!("{e}#run-1-c2kb"), "experiment").is_empty());
        // the question's id is encoded in its observation's IRI, and kept as is
        let q = format!("{e}#run-1-qa-q-q%201%2F%C3%A4");
        assert_eq!(find(&q, "question"), vec![Term::plain("q 1/ä")]);
        assert_eq!(find(&q, "f1").len(), 1);
        assert_eq!(
            find(&format!("{e}#benchmark"), "sha256"),
            vec![Term::plain("ab".repeat(32))]
        );
        // every statement can be written
        let ttl = crate::sparql::serialize(&st, crate::sparql::Syntax::Turtle, &PREFIXES)
            .expect("turtle");
        assert!(String::from_utf8_lossy(&ttl).contains("qb:Observation"));
        // the example queries of docs/linked-data.md answer
        let graph = crate::sparql::PublishedGraph::new().expect("store");
        graph.insert(&st).expect("inserted");
        let docs = include_str!("../../docs/linked-data.md");
        let queries: Vec<&str> = docs
            .split("```sparql\n")
            .skip(1)
            .filter_map(|b| b.split("```").next())
            .collect();
        assert_eq!(queries.len(), 3);
        let ask = |q: &str| {
            let (_, body) = graph
                .query(q, "text/csv", std::time::Duration::from_secs(10))
                .expect("answered");
            String::from_utf8_lossy(&body).into_owned()
        };
        assert_eq!(
            ask(queries[0]),
            "benchmark,best\r\ndemo,0.6666666666666666\r\n"
        );
        let by_system = queries[1].replace("GANSWER2", "sys a");
        assert!(ask(&by_system)
            .contains("202611230001,2026-11-23T10:00:00Z,judge,demo,0.6666666666666666"));
        assert_eq!(
            ask(&queries[2].replace("GANSWER2", "sys a")),
            "question,times\r\n"
        );
    }
}
