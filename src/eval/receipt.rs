//! The receipt every report carries (docs/reproduce.md): per input (the gold,
//! the file joined into it as its answers, each run, each knowledge-graph
//! file, the index) its role, name as given, size and SHA-256; each live
//! system and endpoint by its URL; every option that can change a figure,
//! resolved (defaults written out); qajudge's version, the index format, the
//! store and the profile; and `sha256` over a canonical form of all of this.
//!
//! The hashed form leaves out what does not decide a figure and differs
//! between doors or runs: the names inputs were given under (a path on the
//! command line, a document's name over HTTP) and times. The same bytes and
//! options give the same receipt hash from the command line, the server and
//! Python. This module builds receipts from a request and its report, and
//! recomputes the hash of one read back (`qajudge reproduce`); it does no
//! I/O.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::request::{Plan, Request, RunSource};
use super::{Experiment, GoldMarkings, Report, Rules};
use crate::model::InputDigest;

/// The version of the receipt's form: a reader of another refuses it.
pub const RECEIPT_VERSION: u32 = 1;

/// What a report's figures were computed from (docs/reproduce.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Receipt {
    /// The version of this form.
    pub version: u32,
    /// SHA-256 (lowercase hex) of the canonical form of everything below
    /// but the inputs' names ([`Receipt::canonical`]).
    pub sha256: String,
    /// qajudge, the index format, the store and the profile.
    #[schema(value_type = Object)]
    pub software: BTreeMap<String, Value>,
    /// The input files, in the request's order: the gold, its answers, the
    /// runs, the knowledge graph's files, the index's `meta.json`.
    pub inputs: Vec<Input>,
    /// The live systems asked and the endpoint queried, by URL: they cannot
    /// be asked again as they were.
    pub live: Vec<Live>,
    /// Every option that can change a figure, resolved.
    #[schema(value_type = Object)]
    pub options: BTreeMap<String, Value>,
}

/// One input file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Input {
    /// `gold`, `gold_answers`, `run`, `kg` or `index`.
    pub role: String,
    /// The run's name, for a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Its name as given (not hashed).
    pub name: String,
    /// Its size in bytes (`None` where the report does not know it: a
    /// knowledge-graph file is known by its digest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The SHA-256 of its bytes.
    pub sha256: String,
}

/// A live source of answers or results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Live {
    /// `system` or `endpoint`.
    pub role: String,
    /// The run's name, for a system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Its URL.
    pub url: String,
}

impl Receipt {
    /// The canonical form the hash is over: compact JSON with sorted keys
    /// of the version, software, options, the live sources and the inputs
    /// without their names.
    pub fn canonical(&self) -> Vec<u8> {
        let inputs: Vec<Value> = self
            .inputs
            .iter()
            .map(|i| json!({"role": i.role, "run": i.run, "bytes": i.bytes, "sha256": i.sha256}))
            .collect();
        let live: Vec<Value> = self
            .live
            .iter()
            .map(|l| json!({"role": l.role, "run": l.run, "url": l.url}))
            .collect();
        // serde_json's maps are sorted by key: the text is canonical
        let value = json!({
            "version": self.version,
            "software": self.software,
            "options": self.options,
            "live": live,
            "inputs": inputs,
        });
        serde_json::to_vec(&value).unwrap_or_default()
    }

    /// The hash of [`Receipt::canonical`].
    pub fn hash(&self) -> String {
        crate::digest::sha256_hex(&self.canonical())
    }
}

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
                }),
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt() -> Receipt {
        Receipt {
            version: RECEIPT_VERSION,
            sha256: String::new(),
            software: BTreeMap::from([("qajudge".to_string(), json!("0.2.0"))]),
            inputs: vec![Input {
                role: "gold".into(),
                run: None,
                name: "a/gold.json".into(),
                bytes: Some(3),
                sha256: "ab".into(),
            }],
            live: Vec::new(),
            options: BTreeMap::from([("profile".to_string(), json!("judge"))]),
        }
    }

    #[test]
    fn the_hash_ignores_names_and_sees_bytes_and_options() {
        let a = receipt();
        let mut renamed = receipt();
        renamed.inputs[0].name = "elsewhere/gold.json".into();
        assert_eq!(a.hash(), renamed.hash());
        let mut changed = receipt();
        changed.inputs[0].sha256 = "cd".into();
        assert_ne!(a.hash(), changed.hash());
        let mut option = receipt();
        option.options.insert("lang".into(), json!("de"));
        assert_ne!(a.hash(), option.hash());
        // the canonical text is the same whatever order the options were put in
        let mut other = receipt();
        other.options = BTreeMap::from([
            ("lang".to_string(), json!("de")),
            ("profile".to_string(), json!("judge")),
        ]);
        assert_eq!(option.canonical(), other.canonical());
    }
}
