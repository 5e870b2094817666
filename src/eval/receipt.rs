//! The receipt every report carries (docs/reproduce.md), as data: per input
//! (the gold, the file joined into it as its answers, each run, each
//! knowledge-graph file, the index) its role, name as given, size and
//! SHA-256; each live system and endpoint by its URL; every option that can
//! change a figure, resolved; qajudge's version, the index format, the store
//! and the profile; and `sha256` over a canonical form of all of this.
//!
//! The hashed form leaves out what does not decide a figure and differs
//! between doors or runs: the names inputs were given under (a path on the
//! command line, a document's name over HTTP) and times. The same bytes and
//! options give the same receipt hash from the command line, the server and
//! Python. `provenance` builds receipts; `qajudge reproduce` reads them back.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
    /// runs, what the profile read (GrailQA's ontology, KQA Pro's training
    /// set, WordNet), the knowledge graph's files, the index's `meta.json`.
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
    /// `gold`, `gold_answers`, `run`, `kg`, `index`, or what a profile
    /// read: `ontology` (GrailQA's schema files), `train` (KQA Pro's
    /// training set), `wordnet` (the dictionary of `t2s-metrics`' meteor).
    pub role: String,
    /// The run's name, for a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Its name as given (not hashed).
    pub name: String,
    /// Its size in bytes (`None` where the report does not know it: a
    /// knowledge-graph file is known by its digest, a directory by the
    /// digest of its files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The SHA-256 of its bytes.
    pub sha256: String,
}

/// A live source of answers or results, and the digest of what it
/// answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Live {
    /// `system` or `endpoint`.
    pub role: String,
    /// The run's name, for a system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Its URL.
    pub url: String,
    /// When it was first asked (RFC 3339, UTC; not hashed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What it says of itself: its `Server` header, if it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The SHA-256 of its record in the report's `recorded`, which
    /// `qajudge reproduce` scores in its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_sha256: Option<String>,
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
            .map(|l| {
                let mut v = json!({"role": l.role, "run": l.run, "url": l.url});
                // present only when known, so that a receipt without them
                // hashes as it did before they were recorded
                for (k, x) in [
                    ("server", &l.server),
                    ("recorded_sha256", &l.recorded_sha256),
                ] {
                    if let (Some(x), Some(o)) = (x, v.as_object_mut()) {
                        o.insert(k.into(), json!(x));
                    }
                }
                v
            })
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
