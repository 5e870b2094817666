//! The on-disk layout of an index directory and its metadata (`meta.json`), with
//! the format version that is checked on open.
//!
//! ```text
//! DIR/meta.json    IndexMeta: version, inputs with sizes and checksums, counts,
//!                  class-size histogram, largest classes, predicates used
//! DIR/kv/          RocksDB: column families `iri` (XXH3-64 key of a canonical
//!                  IRI, u64 big endian → class id and class size, two u32 big
//!                  endian),
//!                  `members` (class id → member IRIs as written), `types`
//!                  (key of a canonical IRI → classes)
//! DIR/labels.fst   FST: normalised label → offset in labels.dat
//! DIR/labels.dat   postings: per label, (language, IRI, label as written)
//! ```

use serde::{Deserialize, Serialize};

/// The version of the on-disk format; an index of another version must be rebuilt.
pub const FORMAT_VERSION: u32 = 3;

/// The metadata file's name.
pub const META_FILE: &str = "meta.json";
/// The RocksDB directory's name.
pub const KV_DIR: &str = "kv";
/// The label FST's file name.
pub const LABELS_FST: &str = "labels.fst";
/// The label postings' file name.
pub const LABELS_DAT: &str = "labels.dat";

/// One input file of a build.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct InputFile {
    /// Its path as given.
    pub path: String,
    /// Its size in bytes (as stored, compressed or not).
    pub bytes: u64,
    /// XXH3-64 checksum of its bytes, in hex.
    pub xxh3_64: String,
    /// Statements read from it.
    pub statements: u64,
    /// Statements skipped as malformed (`--lenient`).
    pub skipped: u64,
    /// Lines the fast N-Triples reader left to the reference parser (oxrdfio).
    #[serde(default)]
    pub reference_parser_lines: u64,
    /// Problems that did not stop the build (`--lenient`).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// Counts of a build.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counts {
    /// Statements read.
    pub statements: u64,
    /// Statements skipped as malformed.
    pub skipped: u64,
    /// Equivalence links used (after `--exclude-host`).
    pub equivalence_links: u64,
    /// Equivalence links dropped by `--exclude-host`.
    pub excluded_links: u64,
    /// Distinct IRIs (as written) in the closure.
    pub iris: u64,
    /// Equivalence classes of two or more IRIs.
    pub classes: u64,
    /// Label postings (label, language, IRI).
    pub labels: u64,
    /// Distinct normalised labels.
    pub distinct_labels: u64,
    /// IRIs with at least one type.
    pub typed_iris: u64,
    /// Keys (64-bit hashes) shared by two different canonical IRIs, which were
    /// therefore merged; 0 unless the build is astronomically unlucky.
    #[serde(default)]
    pub key_collisions: u64,
}

/// A class among the largest.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LargeClass {
    /// The class id.
    pub id: u32,
    /// Its number of member IRIs.
    pub size: u64,
    /// Its first members, sorted.
    pub sample: Vec<String>,
}

/// Everything `meta.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct IndexMeta {
    /// The on-disk format version.
    pub format_version: u32,
    /// The qajudge version that built it.
    pub built_by: String,
    /// Seconds since the Unix epoch when the build finished.
    pub built_at: u64,
    /// The input files.
    pub inputs: Vec<InputFile>,
    /// Predicates read as equivalence.
    pub equivalence_predicates: Vec<String>,
    /// Predicates read as labels.
    pub label_predicates: Vec<String>,
    /// Hosts whose links were dropped.
    pub excluded_hosts: Vec<String>,
    /// Counts.
    pub counts: Counts,
    /// Class size → number of classes, bucketed (`2`, `3`, `4-10`, `11-100`, …).
    pub class_size_histogram: Vec<(String, u64)>,
    /// The largest classes, largest first.
    pub largest_classes: Vec<LargeClass>,
}

/// The histogram bucket of a class size.
pub fn size_bucket(size: u64) -> String {
    match size {
        0..=3 => size.to_string(),
        4..=10 => "4-10".into(),
        11..=100 => "11-100".into(),
        101..=1000 => "101-1000".into(),
        1001..=10_000 => "1001-10000".into(),
        _ => ">10000".into(),
    }
}
