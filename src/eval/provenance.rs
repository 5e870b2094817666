//! Building a report's receipt (docs/reproduce.md) from the request it
//! answers and the report's own record of the store and the index: the
//! inputs' digests the readers took, the live sources, and every option
//! that can change a figure, resolved (the experiments the profile scores
//! when none were named, the defaults written out). No I/O.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::receipt::{Input, Live, Receipt, RECEIPT_VERSION};
use super::request::{Plan, Request, RunSource};
use super::{Experiment, GoldMarkings, Report, Rules};
use crate::model::InputDigest;

/// What a receipt takes from the request before it is evaluated (its inputs
/// and options); [`Draft::finish`] adds what the report knows (the store,
/// the knowledge graph's files, the index).
pub struct Draft {
    inputs: Vec<Input>,
    live: Vec<Live>,
    options: BTreeMap<String, Value>,
}

impl Draft {
    /// The request's part of the receipt.
    pub fn of(request: &Request) -> Draft {
        let mut inputs = Vec::new();
        for i in &request.gold.inputs {
            let role = if i.role == "file" {
                "gold"
            } else {
                i.role.as_str()
            };
            inputs.push(input(role, None, i));
        }
        let mut live = Vec::new();
        for r in &request.runs {
            match r {
                RunSource::File { name, dataset, .. } => {
                    for i in &dataset.inputs {
                        inputs.push(input("run", Some(name), i));
                    }
                }
                RunSource::System { name, url, .. } => live.push(Live {
                    role: "system".into(),
                    run: Some(name.clone()),
                    url: url.clone(),
                    at: None,
                    server: None,
                    recorded_sha256: None,
                }),
            }
        }
        // what the profiles read beside the gold and the runs: GrailQA's
        // ontology and a WordNet dictionary (directories, known by the
        // digest of their files), KQA Pro's training set
        let o = &request.options;
        let read = [
            o.ontology.as_ref().and_then(|x| x.source.clone()),
            o.train.as_ref().and_then(|x| x.source.clone()),
        ];
        for d in read.into_iter().flatten() {
            let directory = d.role == "ontology";
            inputs.push(Input {
                bytes: (!directory).then_some(d.bytes),
                ..input(&d.role, None, &d)
            });
        }
        if let Some(w) = &o.wordnet {
            let (dir, _, sha256) = w.source();
            inputs.push(Input {
                role: "wordnet".into(),
                run: None,
                name: dir.display().to_string(),
                bytes: None,
                sha256: sha256.to_string(),
            });
        }
        Draft {
            inputs,
            live,
            options: options(request),
        }
    }

    /// The receipt of `report`, computed from this draft.
    pub fn finish(mut self, report: &Report) -> Receipt {
        let mut software = BTreeMap::new();
        software.insert("qajudge".into(), json!(report.version));
        software.insert("profile".into(), json!(report.profile));
        software.insert(
            "index_format".into(),
            json!(report.index.as_ref().map(|i| i.format_version)),
        );
        let kg = report.knowledge_graph.as_ref();
        software.insert("store".into(), json!(kg.map(|k| k.store.clone())));
        if let Some(kg) = kg {
            for f in &kg.files {
                self.inputs.push(Input {
                    role: "kg".into(),
                    run: None,
                    name: f.path.clone(),
                    bytes: None,
                    sha256: f.sha256.clone(),
                });
            }
            if let Some(url) = &kg.endpoint {
                self.live.push(Live {
                    role: "endpoint".into(),
                    run: None,
                    url: url.clone(),
                    at: None,
                    server: None,
                    recorded_sha256: None,
                });
            }
            self.options
                .insert("query_timeout_ms".into(), json!(kg.timeout_ms));
            self.options.insert("max_rows".into(), json!(kg.max_rows));
        }
        if let Some(index) = &report.index {
            self.inputs.push(Input {
                role: "index".into(),
                run: None,
                name: index.path.clone(),
                bytes: None,
                sha256: index.meta_sha256.clone().unwrap_or_default(),
            });
        }
        if let Some(recorded) = &report.recorded {
            for live in &mut self.live {
                let (at, server, digest) = match live.role.as_str() {
                    "system" => match recorded
                        .systems
                        .iter()
                        .find(|t| Some(&t.run) == live.run.as_ref())
                    {
                        Some(t) => (t.at.clone(), t.server.clone(), t.digest()),
                        None => continue,
                    },
                    _ => match &recorded.endpoint {
                        Some(t) => (t.at.clone(), t.server.clone(), t.digest()),
                        None => continue,
                    },
                };
                live.at = Some(at);
                live.server = server;
                live.recorded_sha256 = Some(digest);
            }
        }
        let mut receipt = Receipt {
            version: RECEIPT_VERSION,
            sha256: String::new(),
            software,
            inputs: self.inputs,
            live: self.live,
            options: self.options,
        };
        receipt.sha256 = receipt.hash();
        receipt
    }
}

fn input(role: &str, run: Option<&String>, i: &InputDigest) -> Input {
    Input {
        role: role.to_string(),
        run: run.cloned(),
        name: i.name.clone(),
        bytes: Some(i.bytes),
        sha256: i.sha256.clone(),
    }
}

/// Every option of the request that can change a figure, resolved: the
/// experiments the profile scores when none were named, the defaults
/// written out.
fn options(request: &Request) -> BTreeMap<String, Value> {
    let o = &request.options;
    let experiments: Vec<&str> = if o.experiments.is_empty() {
        Experiment::ALL
            .iter()
            .filter(|e| o.profile.experiments(**e))
            .map(|e| e.name())
            .collect()
    } else {
        o.experiments.iter().map(|e| e.name()).collect()
    };
    let Plan {
        refresh_gold,
        execute_run,
    } = request.plan;
    let judge = o.llm.as_deref().map(|j| {
        json!({
            "server": j.server(),
            "model": j.model(),
            "prompt_version": crate::llm::PROMPT_VERSION,
            "queries": j.judges_queries(),
        })
    });
    let mut out = BTreeMap::new();
    let mut put = |k: &str, v: Value| {
        out.insert(k.to_string(), v);
    };
    put("profile", json!(o.profile.name()));
    put("experiments", json!(experiments));
    put("strict_literals", json!(o.strict_literals));
    put("lenient_dates", json!(o.lenient_dates));
    put("bootstrap_resamples", json!(o.bootstrap));
    put("seed", json!(super::BOOTSTRAP_SEED));
    put("by", json!(o.by));
    put(
        "explain",
        json!(match (o.explain, o.explain_errors_only) {
            (false, _) => Value::Null,
            (true, false) => json!("all"),
            (true, true) => json!("errors"),
        }),
    );
    put("max_class_size", json!(o.max_class_size));
    put(
        "gold_markings",
        json!(match o.gold_markings {
            GoldMarkings::Auto => "auto",
            GoldMarkings::Query => "query",
        }),
    );
    put("lang", json!(o.lang));
    put("baseline", json!(o.baseline));
    put("abstain_marker", json!(o.abstain_marker));
    put("llm_judge", json!(judge));
    put("wordnet", json!(o.wordnet.is_some()));
    put("ontology", json!(o.ontology.is_some()));
    put("train", json!(o.train.is_some()));
    put("refresh_gold", json!(refresh_gold));
    put("execute_run", json!(execute_run));
    put("explain_failures", json!(request.explain_failures));
    put("questions", json!(request.questions));
    put("query_timeout_ms", Value::Null);
    put("max_rows", Value::Null);
    out
}
