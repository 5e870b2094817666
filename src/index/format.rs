//! The on-disk layout of an index directory: its metadata (`meta.json`) with the
//! format version that is checked on open, and the encoding and decoding of every
//! key, value and list the indexer writes and the index reads, so that both sides
//! share one definition.
//!
//! ```text
//! DIR/meta.json    IndexMeta: version, inputs with sizes and checksums, counts,
//!                  class-size histogram, largest classes, predicates used,
//!                  and (from version 6) every file's length, checked before
//!                  the sameAs files are memory-mapped
//! DIR/sameas.dir   the key table's directory: u32 bucket bits, then per bucket
//!                  of the key's top bits the number of the bucket's first
//!                  record (u32), and the number of records (little endian)
//! DIR/sameas-0.keys, DIR/sameas-1.keys
//!                  the key table, one file per half of the key space: records
//!                  (key of a canonical IRI: the low 64 bits of its XXH3-128,
//!                  class id, class size, offset of the class in
//!                  sameas.members) in increasing key order, 24 bytes each
//! DIR/sameas.members
//!                  per class, in class-id order: a u32 byte length, then the
//!                  member IRIs as written, sorted, `\n`-separated
//! DIR/sameas.classes
//!                  per class id its offset in sameas.members (u64), then the
//!                  file's end
//! DIR/kv/          RocksDB: column families `types` (key of a canonical IRI,
//!                  u64 big endian → classes) and, from version 5, `names`
//!                  (the same key → one label per language)
//! DIR/labels.fst   FST: normalised label → offset in labels.dat
//! DIR/labels.dat   postings: per label, a u32 count, then per posting
//!                  (language, IRI, label as written), each a u32 length and
//!                  its UTF-8 bytes (little endian)
//! ```

use serde::{Deserialize, Serialize};

/// The version of the on-disk format the indexer writes.
pub const FORMAT_VERSION: u32 = 6;
/// The oldest version the index still reads: version 5 is version 6 without
/// the files' lengths (its sameAs files are read with positioned reads, not
/// mapped), version 4 is version 5 without [`CF_NAMES`] (its IRIs have no
/// names); an older index must be rebuilt.
pub const OLDEST_READABLE_VERSION: u32 = 4;

/// The metadata file's name.
pub const META_FILE: &str = "meta.json";
/// The RocksDB directory's name.
pub const KV_DIR: &str = "kv";
/// The label FST's file name.
pub const LABELS_FST: &str = "labels.fst";
/// The label postings' file name.
pub const LABELS_DAT: &str = "labels.dat";

/// Column family: key of a canonical IRI (as in the key table) → classes,
/// `\n`-separated.
pub const CF_TYPES: &str = "types";
/// Column family (from version 5): key of a canonical IRI → its names, one
/// label per language (see [`encode_names`]).
pub const CF_NAMES: &str = "names";
/// Every column family of the store.
pub const COLUMN_FAMILIES: [&str; 2] = [CF_TYPES, CF_NAMES];

/// The column families of a store of format `version` (a readable one).
pub fn column_families(version: u32) -> &'static [&'static str] {
    if version >= 5 {
        &COLUMN_FAMILIES
    } else {
        &COLUMN_FAMILIES[..1]
    }
}

/// The key table's directory file.
pub const SAMEAS_DIRECTORY: &str = "sameas.dir";
/// The key table's files, one per half of the key space (the key's top bit).
pub const SAMEAS_KEYS: [&str; 2] = ["sameas-0.keys", "sameas-1.keys"];
/// The classes' members.
pub const SAMEAS_MEMBERS: &str = "sameas.members";
/// The offset of each class in [`SAMEAS_MEMBERS`].
pub const SAMEAS_CLASSES: &str = "sameas.classes";
/// Bytes of one record of the key table.
pub const KEY_RECORD: usize = 24;
/// Records per bucket of the key table's directory, on average: a lookup reads
/// one bucket (about 800 bytes) with one positioned read.
pub const RECORDS_PER_BUCKET: u64 = 32;
/// The most bucket bits (a directory of 2²⁸ buckets, 1 GiB, for 8 G keys).
pub const MAX_BUCKET_BITS: u32 = 28;

/// One record of the key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRecord {
    /// The key of a canonical IRI.
    pub key: u64,
    /// Its class id.
    pub class: u32,
    /// The number of IRIs in the class.
    pub size: u32,
    /// Where the class's members start in [`SAMEAS_MEMBERS`].
    pub members_at: u64,
}

impl KeyRecord {
    /// The record's bytes (little endian).
    pub fn encode(&self) -> [u8; KEY_RECORD] {
        let mut b = [0u8; KEY_RECORD];
        b[..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..12].copy_from_slice(&self.class.to_le_bytes());
        b[12..16].copy_from_slice(&self.size.to_le_bytes());
        b[16..].copy_from_slice(&self.members_at.to_le_bytes());
        b
    }

    /// The key of the record starting at `b` (at least 8 bytes).
    pub fn key_of(b: &[u8]) -> u64 {
        let mut k = [0u8; 8];
        k.copy_from_slice(&b[..8]);
        u64::from_le_bytes(k)
    }

    /// Reads a record written by [`KeyRecord::encode`]; `None` when `b` is short.
    pub fn decode(b: &[u8]) -> Option<KeyRecord> {
        let b = b.get(..KEY_RECORD)?;
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut at = [0u8; 8];
        at.copy_from_slice(&b[16..24]);
        Some(KeyRecord {
            key: Self::key_of(b),
            class: u32_at(8),
            size: u32_at(12),
            members_at: u64::from_le_bytes(at),
        })
    }
}

/// The bucket bits of a key table of at most `keys` keys: about
/// [`RECORDS_PER_BUCKET`] records a bucket, at least 1 bit (the halves).
pub fn bucket_bits(keys: u64) -> u32 {
    let buckets = (keys / RECORDS_PER_BUCKET).max(2);
    (64 - (buckets - 1).leading_zeros()).clamp(1, MAX_BUCKET_BITS)
}

/// The bucket of a key under `bits` bucket bits: its top bits.
pub fn bucket_of(key: u64, bits: u32) -> usize {
    (key >> (64 - bits)) as usize
}

/// The file that marks an export directory (`index build --export-links`).
pub const EXPORT_MANIFEST: &str = "manifest.json";

/// What a build writes at its output path; a directory is recognised as one
/// qajudge wrote, which a new build may replace, by the marker file of its kind
/// holding a JSON object with the kind's version field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildOutput {
    /// An index directory: [`META_FILE`] with `format_version`.
    Index,
    /// An export of links for a distributed closure: [`EXPORT_MANIFEST`] with
    /// `export_version`.
    Export,
}

impl BuildOutput {
    /// Both kinds.
    pub const ALL: [BuildOutput; 2] = [BuildOutput::Index, BuildOutput::Export];

    /// The file that marks a directory as this kind of output.
    pub fn marker(self) -> &'static str {
        match self {
            BuildOutput::Index => META_FILE,
            BuildOutput::Export => EXPORT_MANIFEST,
        }
    }

    /// The field of the marker's JSON object that holds the version.
    pub fn version_field(self) -> &'static str {
        match self {
            BuildOutput::Index => "format_version",
            BuildOutput::Export => "export_version",
        }
    }

    /// Whether `text`, a marker file's content, is one qajudge writes: a JSON
    /// object whose version field is a number (of any version, so that an
    /// output of an older format can be rebuilt in place).
    pub fn is_marker(self, text: &[u8]) -> bool {
        serde_json::from_slice::<serde_json::Value>(text)
            .ok()
            .is_some_and(|v| {
                v.get(self.version_field())
                    .is_some_and(serde_json::Value::is_u64)
            })
    }
}

impl std::fmt::Display for BuildOutput {
    /// `index` or `export`, as error messages name it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BuildOutput::Index => "index",
            BuildOutput::Export => "export",
        })
    }
}

/// What a build leaves beside the index `NAME` while it runs: its temporary
/// directory (`.NAME.tmp-PID`) and, between its two renames, the previous index
/// moved aside (`.NAME.old-PID`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BuildLeftover {
    /// `.NAME.tmp-PID`: the index being written.
    Temporary(u32),
    /// `.NAME.old-PID`: the previous index, moved aside.
    SetAside(u32),
}

impl BuildLeftover {
    /// The name of build `pid`'s leftover of this kind for the index `name`.
    pub fn file_name(self, name: &str) -> String {
        match self {
            BuildLeftover::Temporary(pid) => format!(".{name}.tmp-{pid}"),
            BuildLeftover::SetAside(pid) => format!(".{name}.old-{pid}"),
        }
    }

    /// Which leftover of the index `name` `file_name` is, if it is one.
    pub fn parse(file_name: &str, name: &str) -> Option<BuildLeftover> {
        let rest = file_name.strip_prefix('.')?.strip_prefix(name)?;
        if let Some(pid) = rest.strip_prefix(".tmp-") {
            return pid.parse().ok().map(BuildLeftover::Temporary);
        }
        rest.strip_prefix(".old-")?
            .parse()
            .ok()
            .map(BuildLeftover::SetAside)
    }

    /// The process that left it.
    pub fn pid(self) -> u32 {
        match self {
            BuildLeftover::Temporary(pid) | BuildLeftover::SetAside(pid) => pid,
        }
    }
}

/// The stored key of a canonical IRI's hash in `types` and `names`.
pub fn iri_key_bytes(key: u64) -> [u8; 8] {
    key.to_be_bytes()
}

/// Appends a list value (members, `types`): the items `\n`-separated.
pub fn encode_list<'a>(items: impl IntoIterator<Item = &'a str>, out: &mut String) {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(item);
    }
}

/// The first `limit` items of a list value written by [`encode_list`] (invalid
/// UTF-8 is replaced, never an error).
pub fn decode_list(value: &[u8], limit: usize) -> Vec<String> {
    let text = match std::str::from_utf8(value) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(value),
    };
    text.split('\n').take(limit).map(str::to_string).collect()
}

/// Appends the postings of one label to `labels.dat`'s bytes: their count, then
/// each (language, IRI, label as written).
pub fn encode_postings<'a>(
    postings: impl ExactSizeIterator<Item = [&'a str; 3]>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(&(postings.len() as u32).to_le_bytes());
    for fields in postings {
        for field in fields {
            out.extend_from_slice(&(field.len() as u32).to_le_bytes());
            out.extend_from_slice(field.as_bytes());
        }
    }
}

/// Calls `f` with each (language, IRI, label as written) of the postings written
/// by [`encode_postings`] at `offset` of `labels.dat`; stops at the first
/// truncated or invalid field.
pub fn decode_postings(dat: &[u8], offset: u64, mut f: impl FnMut(&str, &str, &str)) {
    let mut at = offset as usize;
    let Some(n) = read_u32(dat, &mut at) else {
        return;
    };
    for _ in 0..n {
        let (Some(lang), Some(iri), Some(label)) = (
            read_str(dat, &mut at),
            read_str(dat, &mut at),
            read_str(dat, &mut at),
        ) else {
            return;
        };
        f(lang, iri, label);
    }
}

fn read_u32(dat: &[u8], at: &mut usize) -> Option<u32> {
    let bytes = dat.get(*at..at.checked_add(4)?)?;
    *at += 4;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn read_str<'a>(dat: &'a [u8], at: &mut usize) -> Option<&'a str> {
    let len = read_u32(dat, at)? as usize;
    let s = std::str::from_utf8(dat.get(*at..at.checked_add(len)?)?).ok()?;
    *at += len;
    Some(s)
}

/// Appends the value of an IRI in `names`: per language, in increasing order of
/// the language tag (lower case, empty for none), the tag and the label as
/// written, each a u32 length and its UTF-8 bytes (little endian).
pub fn encode_names<'a>(names: impl IntoIterator<Item = (&'a str, &'a str)>, out: &mut Vec<u8>) {
    for (lang, label) in names {
        for field in [lang, label] {
            out.extend_from_slice(&(field.len() as u32).to_le_bytes());
            out.extend_from_slice(field.as_bytes());
        }
    }
}

/// The (language, label) pairs of a value written by [`encode_names`], in their
/// order; stops at the first truncated or invalid field.
pub fn decode_names(value: &[u8]) -> Vec<(String, String)> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < value.len() {
        let (Some(lang), Some(label)) = (read_str(value, &mut at), read_str(value, &mut at)) else {
            break;
        };
        out.push((lang.to_string(), label.to_string()));
    }
    out
}

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
    /// IRIs with at least one label, which `names` names (0 in an index of
    /// version 4, which has no names).
    #[serde(default)]
    pub named_iris: u64,
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
    /// Where the inputs came from, as the builder was told (`index build
    /// --provenance FILE`): the recipes of `indexes/` record the dumps' names,
    /// versions, URLs and checksums here. Absent when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<serde_json::Value>,
    /// The SHA-256 (hex) of each file of the index directory of at most
    /// [`CHECKSUMMED_BYTES`], by name: checked when the index is opened, so
    /// that a damaged file is an error naming it, not a different answer.
    /// Absent in indexes built before it was written (nothing is checked).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub checksums: std::collections::BTreeMap<String, String>,
    /// The length in bytes of each file of the index directory (not its
    /// store's), by name: a file is memory-mapped only when it still has the
    /// length it was written with (format version 6 on; an index without
    /// lengths is read with positioned reads).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub lengths: std::collections::BTreeMap<String, u64>,
}

/// The first format version whose sameAs files are memory-mapped (its
/// `meta.json` records their lengths).
pub const FIRST_MAPPED_VERSION: u32 = 6;

/// The largest file of an index whose checksum is kept in its metadata (and
/// read whole, to check it, when the index is opened).
pub const CHECKSUMMED_BYTES: u64 = 64 << 20;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_leftovers_are_named_and_recognised() {
        for leftover in [BuildLeftover::Temporary(42), BuildLeftover::SetAside(7)] {
            let name = leftover.file_name("idx.v2");
            assert_eq!(BuildLeftover::parse(&name, "idx.v2"), Some(leftover));
            assert_eq!(BuildLeftover::parse(&name, "idx"), None);
        }
        assert_eq!(BuildLeftover::parse(".idx.old-x", "idx"), None);
        assert_eq!(BuildLeftover::parse("idx.old-1", "idx"), None);
    }

    #[test]
    fn build_outputs_are_recognised_by_their_marker_and_version_field() {
        let index = BuildOutput::Index;
        assert!(index.is_marker(br#"{"format_version": 4, "counts": {}}"#));
        assert!(index.is_marker(br#"{"format_version": 1}"#), "any version");
        assert!(!index.is_marker(br#"{"export_version": 1}"#));
        assert!(!index.is_marker(br#"{"format_version": "4"}"#));
        assert!(!index.is_marker(b"old"));
        assert!(!index.is_marker(b"[4]"));
        assert!(!index.is_marker(b""));
        assert!(BuildOutput::Export.is_marker(br#"{"export_version": 1}"#));
        assert!(!BuildOutput::Export.is_marker(br#"{"format_version": 4}"#));
        assert_eq!(BuildOutput::Index.marker(), META_FILE);
        assert_eq!(BuildOutput::Export.marker(), "manifest.json");
        assert_eq!(BuildOutput::Export.to_string(), "export");
    }

    #[test]
    fn key_records_round_trip_and_buckets_follow_the_top_bits() {
        let r = KeyRecord {
            key: u64::MAX - 1,
            class: 7,
            size: u32::MAX,
            members_at: 1 << 40,
        };
        let b = r.encode();
        assert_eq!(KeyRecord::decode(&b), Some(r));
        assert_eq!(KeyRecord::key_of(&b), r.key);
        assert_eq!(KeyRecord::decode(&b[..23]), None);
        assert_eq!(iri_key_bytes(1), [0, 0, 0, 0, 0, 0, 0, 1]);
        // about 32 records a bucket, and never fewer than the two halves
        assert_eq!(bucket_bits(0), 1);
        assert_eq!(bucket_bits(64), 1);
        assert_eq!(bucket_bits(95), 1);
        assert_eq!(bucket_bits(96), 2);
        assert_eq!(bucket_bits(18_000_000), 20);
        assert_eq!(bucket_bits(u64::MAX), MAX_BUCKET_BITS);
        assert_eq!(bucket_of(1 << 63, 1), 1);
        assert_eq!(bucket_of((1 << 63) - 1, 1), 0);
        assert_eq!(bucket_of(u64::MAX, 20), (1 << 20) - 1);
    }

    #[test]
    fn lists_round_trip_and_stop_at_the_limit() {
        let mut value = String::new();
        encode_list(["http://a", "http://b/é", "http://c"], &mut value);
        assert_eq!(
            decode_list(value.as_bytes(), usize::MAX),
            ["http://a", "http://b/é", "http://c"]
        );
        assert_eq!(decode_list(value.as_bytes(), 1), ["http://a"]);
    }

    #[test]
    fn names_round_trip_and_truncation_stops_quietly() {
        let mut value = Vec::new();
        encode_names(
            [("", "Ann\nDunham"), ("de", "Änn"), ("en", "Ann")],
            &mut value,
        );
        let pairs = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(l, n)| ((*l).to_string(), (*n).to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            decode_names(&value),
            pairs(&[("", "Ann\nDunham"), ("de", "Änn"), ("en", "Ann")])
        );
        assert_eq!(
            decode_names(&value[..value.len() - 1]),
            pairs(&[("", "Ann\nDunham"), ("de", "Änn")])
        );
        assert!(decode_names(&[]).is_empty());
        assert_eq!(column_families(4), [CF_TYPES]);
        assert_eq!(column_families(FORMAT_VERSION), [CF_TYPES, CF_NAMES]);
    }

    #[test]
    fn postings_round_trip_and_truncation_stops_quietly() {
        let mut dat = vec![9u8; 3];
        encode_postings(
            [["en", "http://a", "Ann"], ["", "http://b", "Ánn Dunham"]].into_iter(),
            &mut dat,
        );
        let mut read = Vec::new();
        decode_postings(&dat, 3, |l, i, w| {
            read.push([l.to_string(), i.to_string(), w.to_string()]);
        });
        assert_eq!(
            read,
            [["en", "http://a", "Ann"], ["", "http://b", "Ánn Dunham"]]
                .map(|r| r.map(str::to_string))
        );
        read.clear();
        decode_postings(&dat[..dat.len() - 2], 3, |l, i, w| {
            read.push([l.to_string(), i.to_string(), w.to_string()]);
        });
        assert_eq!(read.len(), 1);
    }
}
