//! The read side of the knowledge-graph index: an index directory built by the
//! indexer — the owl:sameAs closure (`sameas`, a key table of its own), types
//! and names (`kv`, RocksDB) and labels (`labels`, fst) — opened read-only with
//! its format version checked, the [`Equivalence`] lookups evaluation asks of
//! it, and the name of an IRI in a language (`names`).

pub mod equivalence;
pub mod format;
pub mod hash;
pub mod kv;
pub mod labels;
mod names;
mod recent;
pub mod sameas;
mod view;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::terms::canonical::{canonical_form, canonical_iri};
pub use equivalence::{Class, Equivalence, MemoryIndex};
use format::{
    decode_list, iri_key_bytes, BuildLeftover, BuildOutput, IndexMeta, CF_TYPES, FORMAT_VERSION,
    KV_DIR, META_FILE, OLDEST_READABLE_VERSION,
};
use hash::iri_key;
use kv::Store;
pub use labels::LabelHit;
use labels::Labels;
use sameas::SameAsTable;
pub use view::SameAsView;

/// An index that cannot be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The metadata file is missing or unreadable.
    #[error("{path}: cannot read the index metadata; is this an index directory? build one with `qajudge index build --out {dir}`")]
    NoMeta {
        /// The metadata file.
        path: PathBuf,
        /// The directory given.
        dir: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The metadata file is not what this version writes.
    #[error("{path}: invalid index metadata; rebuild the index")]
    BadMeta {
        /// The metadata file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A file of the index does not match the checksum its metadata records.
    #[error("{path}: the file does not match the checksum its index's meta.json records (it was damaged or changed after the build); rebuild the index")]
    Damaged {
        /// The damaged file.
        path: PathBuf,
    },
    /// The RocksDB store cannot be opened or read.
    #[error("{path}: cannot read the index store; rebuild the index")]
    Store {
        /// The store's directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: kv::KvError,
    },
    /// The sameAs files cannot be opened or read.
    #[error("{path}: cannot read the sameAs table: {source}; rebuild the index")]
    SameAs {
        /// The index directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The label files cannot be opened or searched.
    #[error("{path}: cannot read the label index; rebuild the index")]
    Labels {
        /// The index directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: labels::LabelError,
    },
    /// A fuzzy label search past what the matcher builds (a long text with
    /// edits makes an automaton too large): the query's fault, not the index's.
    #[error("a fuzzy search for a text of {chars} characters with {edits} edit(s) is past the label matcher's size limit; search with fewer edits or a shorter text")]
    FuzzyTooLarge {
        /// The length of the text searched for, in characters.
        chars: usize,
        /// The edits asked for.
        edits: u32,
    },
    /// The index was built in a format version this qajudge does not read.
    #[error("{path}: index format version {found}, this qajudge reads versions {oldest} to {expected}; rebuild it with `qajudge index build --out {path} …`")]
    Version {
        /// The index directory.
        path: PathBuf,
        /// The version found.
        found: u32,
        /// The oldest version read.
        oldest: u32,
        /// The version written (the newest read).
        expected: u32,
    },
    /// Names were asked of an index of a format without them (version 4).
    #[error("{path}: this index (format version {found}) holds no names of IRIs; rebuild it with `qajudge index build --out {path} …` to name IRIs by their labels")]
    NoNames {
        /// The index directory.
        path: PathBuf,
        /// Its format version.
        found: u32,
    },
}

/// The equivalence class of one IRI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SameAs {
    /// The IRI asked about.
    pub iri: String,
    /// Its canonical form.
    pub canonical: String,
    /// The class id, when the IRI is in a class of two or more.
    pub class: Option<u32>,
    /// The number of IRIs in its class (1 for an IRI the index does not know).
    pub class_size: usize,
    /// The members (as written), sorted, capped by the caller's limit.
    pub members: Vec<String>,
}

/// The leftovers of builds of the index (or export) `dir` (see
/// [`BuildLeftover`]) whose process is no longer running, as paths beside
/// `dir`. Only what such a build makes is taken for one: a directory (never a
/// file, link or special file someone gave that name), and for a set-aside
/// previous output, one that [`build_output_at`] recognises or an empty one (a
/// removal cut short between its last two steps).
pub fn dead_build_leftovers(dir: &Path) -> Vec<(PathBuf, BuildLeftover)> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name().and_then(|n| n.to_str()))
    else {
        return Vec::new();
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    // without /proc no process can be seen, so none is taken for dead
    let can_see = Path::new("/proc/self").exists();
    let mut found: Vec<(PathBuf, BuildLeftover)> = entries
        .flatten()
        .filter_map(|entry| {
            let leftover = BuildLeftover::parse(entry.file_name().to_str()?, name)?;
            let pid = leftover.pid();
            let running = pid == std::process::id()
                || !can_see
                || Path::new(&format!("/proc/{pid}")).exists();
            // the entry's own type: a link is not followed
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            let path = entry.path();
            let ours = is_dir
                && match leftover {
                    BuildLeftover::Temporary(_) => true,
                    BuildLeftover::SetAside(_) => {
                        build_output_at(&path).is_some()
                            || std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none())
                    }
                };
            (!running && ours).then_some((path, leftover))
        })
        .collect();
    found.sort();
    found
}

/// Which output of a build the directory `dir` is, if it is one: a directory
/// (not a link to one) whose marker file (`meta.json`, `manifest.json`) is a
/// regular file that [`BuildOutput::is_marker`] accepts. `None` for anything
/// else, which no build replaces or removes.
pub fn build_output_at(dir: &Path) -> Option<BuildOutput> {
    if !std::fs::symlink_metadata(dir).ok()?.is_dir() {
        return None;
    }
    BuildOutput::ALL.into_iter().find(|kind| {
        let marker = dir.join(kind.marker());
        // a FIFO named like the marker is never opened (it would block)
        std::fs::symlink_metadata(&marker).is_ok_and(|m| m.is_file())
            && std::fs::read(&marker).is_ok_and(|text| kind.is_marker(&text))
    })
}

/// Puts back the previous index (or export) that a build killed between its
/// two renames had moved aside (`.NAME.old-PID`), when nothing is at `dir`
/// (not even a link); returns whether it did. Only a set-aside directory that
/// [`build_output_at`] recognises is put back. Opening an index and starting a
/// build both call it, so a kill at any point leaves the previous index usable.
pub fn restore_set_aside(dir: &Path) -> bool {
    if std::fs::symlink_metadata(dir).is_ok() {
        return false;
    }
    dead_build_leftovers(dir)
        .into_iter()
        .filter(|(path, leftover)| {
            matches!(leftover, BuildLeftover::SetAside(_)) && build_output_at(path).is_some()
        })
        .any(|(path, _)| std::fs::rename(path, dir).is_ok())
}

/// How an index's sameAs files are opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Mapped when the format records the files' lengths, else read.
    Mapped,
    /// Read with positioned reads.
    Read,
}

/// An opened index.
pub struct Index {
    dir: PathBuf,
    meta: IndexMeta,
    /// SHA-256 of `meta.json` as read: it names the build (its inputs with
    /// their checksums, its counts), so reports can say which index they used.
    meta_sha256: String,
    store: Store,
    sameas: SameAsTable,
    labels: Labels,
}

impl Index {
    /// Opens an index directory, checking its format version: its sameAs
    /// files memory-mapped from format 6 on (each checked against the
    /// length `meta.json` records), read with positioned reads before.
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        Index::open_as(dir, Access::Mapped)
    }

    /// Opens an index directory with its sameAs files read with positioned
    /// reads whatever its format (the baseline the benchmarks measure the
    /// mapped lookups against).
    pub fn open_read(dir: &Path) -> Result<Index, IndexError> {
        Index::open_as(dir, Access::Read)
    }

    fn open_as(dir: &Path, access: Access) -> Result<Index, IndexError> {
        if !dir.exists() {
            restore_set_aside(dir);
        }
        let meta_path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&meta_path).map_err(|source| IndexError::NoMeta {
            path: meta_path.clone(),
            dir: dir.display().to_string(),
            source,
        })?;
        let bad_meta = |source| IndexError::BadMeta {
            path: meta_path.clone(),
            source,
        };
        let version: serde_json::Value = serde_json::from_str(&text).map_err(bad_meta)?;
        let found = version["format_version"].as_u64().unwrap_or(0);
        let found = u32::try_from(found).unwrap_or(u32::MAX);
        if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&found) {
            return Err(IndexError::Version {
                path: dir.to_path_buf(),
                found,
                oldest: OLDEST_READABLE_VERSION,
                expected: FORMAT_VERSION,
            });
        }
        let meta: IndexMeta = serde_json::from_str(&text).map_err(bad_meta)?;
        for (name, expected) in &meta.checksums {
            let path = dir.join(name);
            let damaged = || IndexError::Damaged { path: path.clone() };
            // a checksum names a file in the directory, of a size read whole
            if name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(damaged());
            }
            let size = std::fs::metadata(&path).map_err(|_| damaged())?.len();
            if size > format::CHECKSUMMED_BYTES {
                return Err(damaged());
            }
            let bytes = std::fs::read(&path).map_err(|_| damaged())?;
            if crate::digest::sha256_hex(&bytes) != *expected {
                return Err(damaged());
            }
        }
        let store = Store::open(&dir.join(KV_DIR), found).map_err(|source| IndexError::Store {
            path: dir.join(KV_DIR),
            source,
        })?;
        // a format that maps: its files' lengths must be recorded (an empty
        // list is a meta.json edited by hand, refused by the map as a
        // missing length is), unless reads were asked for
        let mapped = access == Access::Mapped && found >= format::FIRST_MAPPED_VERSION;
        let sameas = if mapped {
            SameAsTable::open_mapped(dir, &meta.lengths)
        } else {
            SameAsTable::open(dir)
        }
        .map_err(|source| IndexError::SameAs {
            path: dir.to_path_buf(),
            source,
        })?;
        let labels = Labels::open(dir).map_err(|source| IndexError::Labels {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Index {
            dir: dir.to_path_buf(),
            meta,
            meta_sha256: crate::digest::sha256_hex(text.as_bytes()),
            store,
            sameas,
            labels,
        })
    }

    /// The same index without the in-process caches of its sameAs lookups:
    /// every lookup a probe of the files (what the benchmarks measure the
    /// caches against).
    #[must_use]
    pub fn without_caches(mut self) -> Index {
        self.sameas = self.sameas.without_caches();
        self
    }

    /// How the sameAs files are read: `"mapped"` (memory-mapped, format 6
    /// on) or `"read"` (positioned reads), as `index info` and `/health`
    /// report it.
    pub fn access(&self) -> &'static str {
        if self.sameas.is_mapped() {
            "mapped"
        } else {
            "read"
        }
    }

    /// False when a mapped file of the index was cut shorter since it was
    /// opened (one `fstat` per file; a file changed in place is outside the
    /// index's contract, docs/indexer.md): a server's `/health` reports it.
    pub fn is_whole(&self) -> bool {
        self.sameas.is_whole()
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// SHA-256 of the index's `meta.json`, which records its inputs' checksums
    /// and its counts: one value per build.
    pub fn meta_sha256(&self) -> &str {
        &self.meta_sha256
    }

    /// The build metadata.
    pub fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    fn read_err(&self, source: kv::KvError) -> IndexError {
        IndexError::Store {
            path: self.dir.join(KV_DIR),
            source,
        }
    }

    /// The class id of an IRI (canonicalised), if it is in a class of two or more.
    pub fn class_of(&self, iri: &str) -> Result<Option<u32>, IndexError> {
        Ok(self.class_and_size(iri)?.map(|c| c.id))
    }

    /// The class of an IRI (canonicalised) with its size, if it is in a class of
    /// two or more.
    pub fn class_and_size(&self, iri: &str) -> Result<Option<Class>, IndexError> {
        self.class_of_canonical_form(&canonical_iri(iri))
    }

    fn sameas_err(&self, source: std::io::Error) -> IndexError {
        IndexError::SameAs {
            path: self.dir.clone(),
            source,
        }
    }

    /// The class of an IRI given in canonical form.
    fn class_of_canonical_form(&self, canonical: &str) -> Result<Option<Class>, IndexError> {
        self.sameas
            .class(iri_key(canonical))
            .map_err(|e| self.sameas_err(e))
    }

    /// A `\n`-separated list stored under a key (empty when the key is absent).
    fn list(&self, cf: &str, key: &[u8]) -> Result<Vec<String>, IndexError> {
        self.store
            .with(cf, key, |value| {
                value.map_or_else(Vec::new, |v| decode_list(v, usize::MAX))
            })
            .map_err(|e| self.read_err(e))
    }

    /// The members (as written) of a class.
    pub fn members(&self, class: u32) -> Result<Vec<String>, IndexError> {
        self.sameas
            .members(class, usize::MAX)
            .map_err(|e| self.sameas_err(e))
    }

    /// The equivalence class of an IRI, members capped at `limit`.
    pub fn sameas(&self, iri: &str, limit: usize) -> Result<SameAs, IndexError> {
        Ok(self.sameas_view(iri, limit)?.to_owned())
    }

    /// [`Index::sameas`] borrowed from the index: nothing is copied until it
    /// is written out (the server's JSON) or made owned.
    pub fn sameas_view<'a>(
        &'a self,
        iri: &'a str,
        limit: usize,
    ) -> Result<SameAsView<'a>, IndexError> {
        let canonical = canonical_form(iri);
        // canonicalised once: the key is computed from the same form; the record
        // says where the members are, so they take one more read
        let found = self
            .sameas
            .lookup(iri_key(&canonical), limit)
            .map_err(|e| self.sameas_err(e))?;
        let (record, list) = found.unzip();
        Ok(SameAsView {
            iri,
            canonical,
            class: record.map(|r| r.class),
            class_size: record.map_or(1, |r| r.size as usize),
            list,
            limit,
        })
    }

    /// The IRIs carrying a label, exactly (normalised) or within `fuzzy` edits.
    pub fn labels(
        &self,
        text: &str,
        lang: Option<&str>,
        fuzzy: u32,
    ) -> Result<Vec<LabelHit>, IndexError> {
        let mut hits = if fuzzy == 0 {
            self.labels.lookup(text, lang)
        } else {
            self.labels
                .fuzzy(text, fuzzy, lang)
                .map_err(|source| match source {
                    labels::LabelError::Fuzzy { .. } => IndexError::FuzzyTooLarge {
                        chars: text.chars().count(),
                        edits: fuzzy,
                    },
                    source => IndexError::Labels {
                        path: self.dir.clone(),
                        source,
                    },
                })?
        };
        hits.sort();
        hits.dedup();
        Ok(hits)
    }

    /// The classes (rdf:type, wdt:P31) of an IRI.
    pub fn types(&self, iri: &str) -> Result<Vec<String>, IndexError> {
        self.list(CF_TYPES, &iri_key_bytes(iri_key(&canonical_iri(iri))))
    }
}

impl Equivalence for Index {
    fn class(&self, iri: &str) -> Result<Option<Class>, IndexError> {
        self.class_and_size(iri)
    }

    fn class_of_canonical(&self, canonical: &str) -> Result<Option<Class>, IndexError> {
        self.class_of_canonical_form(canonical)
    }

    fn members(&self, class: u32) -> Result<Vec<String>, IndexError> {
        Index::members(self, class)
    }

    fn label_iris(&self, label: &str) -> Result<Vec<String>, IndexError> {
        let mut iris: Vec<String> = self
            .labels
            .lookup(label, None)
            .into_iter()
            .map(|h| h.iri)
            .collect();
        iris.sort_unstable();
        iris.dedup();
        Ok(iris)
    }

    fn types(&self, iri: &str) -> Result<Vec<String>, IndexError> {
        Index::types(self, iri)
    }

    fn has_types(&self) -> bool {
        self.meta.counts.typed_iris > 0
    }
}
