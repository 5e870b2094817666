//! The write side of the index: streams RDF dumps, computes the equivalence closure
//! (owl:sameAs and friends, Wikidata sitelinks and Freebase ids) with a union-find
//! over canonical IRIs, collects labels and types, and writes an index directory
//! into a temporary place that is renamed only when complete, so an interrupted
//! build leaves any previous index intact.

pub mod read;
mod unionfind;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::index::canonical::{canonical_iri, freebase_literal_iri};
use crate::index::format::{
    size_bucket, Counts, IndexMeta, InputFile, LargeClass, FORMAT_VERSION, KV_DIR, META_FILE,
};
use crate::index::labels::{self, normalize_label, Posting};
use crate::index::store::{StoreWriter, CF_IRI, CF_MEMBERS, CF_TYPES};
use read::{read_file, Obj, Stmt};
use unionfind::UnionFind;

/// owl:sameAs.
pub const OWL_SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";
const OWL_EQUIVALENT_CLASS: &str = "http://www.w3.org/2002/07/owl#equivalentClass";
const OWL_EQUIVALENT_PROPERTY: &str = "http://www.w3.org/2002/07/owl#equivalentProperty";
const SCHEMA_ABOUT: &str = "http://schema.org/about";
const WDT_P646: &str = "http://www.wikidata.org/prop/direct/P646";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const WDT_P31: &str = "http://www.wikidata.org/prop/direct/P31";

/// The label predicates read by default.
pub const DEFAULT_LABELS: [&str; 5] = [
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://www.w3.org/2004/02/skos/core#altLabel",
    "http://xmlns.com/foaf/0.1/name",
    "http://schema.org/name",
];

/// A build that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum IndexerError {
    /// An input that cannot be read.
    #[error("{path}: {message}")]
    Input {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A malformed statement (without `--lenient`).
    #[error("{path}:{line}:{column}: {message}; fix the file, or pass --lenient to skip malformed statements")]
    Syntax {
        /// The file.
        path: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// The parser's message.
        message: String,
    },
    /// The output cannot be written.
    #[error("{path}: cannot write the index: {message}")]
    Output {
        /// The output directory or file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Equivalence predicates besides owl:sameAs, owl:equivalentClass and
    /// owl:equivalentProperty (skos:exactMatch, dbo:wikiPageRedirects …).
    pub equivalence: Vec<String>,
    /// Label predicates (default: [`DEFAULT_LABELS`]).
    pub labels: Vec<String>,
    /// Equivalence links touching these hosts are dropped.
    pub exclude_hosts: Vec<String>,
    /// Skip and count malformed statements instead of stopping.
    pub lenient: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            equivalence: Vec::new(),
            labels: DEFAULT_LABELS.iter().map(|s| s.to_string()).collect(),
            exclude_hosts: Vec::new(),
            lenient: false,
        }
    }
}

/// Progress of a build, reported to the caller (the CLI draws a bar).
pub trait Progress {
    /// A file is about to be read.
    fn file(&mut self, path: &Path, bytes: u64);
    /// More bytes and statements were read.
    fn advance(&mut self, bytes: u64, statements: u64);
    /// A phase after reading started (closure, labels, writing).
    fn phase(&mut self, name: &str);
}

/// Progress that reports nothing.
pub struct Silent;

impl Progress for Silent {
    fn file(&mut self, _: &Path, _: u64) {}
    fn advance(&mut self, _: u64, _: u64) {}
    fn phase(&mut self, _: &str) {}
}

/// The files a list of inputs names: files as given, directories walked
/// recursively for files with an RDF extension, sorted.
pub fn input_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, IndexerError> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut stack = vec![input.clone()];
            let mut found = Vec::new();
            while let Some(dir) = stack.pop() {
                let entries = std::fs::read_dir(&dir).map_err(|e| IndexerError::Input {
                    path: dir.display().to_string(),
                    message: e.to_string(),
                })?;
                for entry in entries {
                    let path = entry
                        .map_err(|e| IndexerError::Input {
                            path: dir.display().to_string(),
                            message: e.to_string(),
                        })?
                        .path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if read::is_rdf_file(&path) {
                        found.push(path);
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else if input.is_file() {
            out.push(input.clone());
        } else {
            return Err(IndexerError::Input {
                path: input.display().to_string(),
                message: "no such file or directory".into(),
            });
        }
    }
    Ok(out)
}

fn host(iri: &str) -> &str {
    let rest = iri.split_once("://").map_or(iri, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

fn excluded(iri: &str, hosts: &[String]) -> bool {
    let h = host(iri).to_ascii_lowercase();
    hosts.iter().any(|x| {
        let x = x.to_ascii_lowercase();
        h == x || h.ends_with(&format!(".{x}"))
    })
}

/// The state collected while reading.
struct Collector<'o> {
    opts: &'o BuildOptions,
    equivalence: Vec<&'o str>,
    uf: UnionFind,
    labels: Vec<Posting>,
    types: Vec<(String, String)>,
    links: u64,
    excluded_links: u64,
}

impl<'o> Collector<'o> {
    fn link(&mut self, a: &str, b: &str) {
        if excluded(a, &self.opts.exclude_hosts) || excluded(b, &self.opts.exclude_hosts) {
            self.excluded_links += 1;
            return;
        }
        self.links += 1;
        self.uf.union(a, b);
    }

    fn statement(&mut self, s: Stmt<'_>) {
        let Some(subject) = s.subject else { return };
        let p = s.predicate;
        match s.object {
            Obj::Iri(o) => {
                if self.equivalence.contains(&p) {
                    self.link(subject, o);
                } else if p == SCHEMA_ABOUT && host(subject).ends_with("wikipedia.org") {
                    // Wikidata sitelink: <https://xx.wikipedia.org/wiki/T> schema:about wd:Q
                    self.link(subject, o);
                } else if p == RDF_TYPE || p == WDT_P31 {
                    self.types.push((canonical_iri(subject), canonical_iri(o)));
                }
            }
            Obj::Literal(value, lang) => {
                if p == WDT_P646 {
                    if let Some(freebase) = freebase_literal_iri(value) {
                        self.link(subject, &freebase);
                    }
                } else if self.opts.labels.iter().any(|l| l == p) {
                    self.labels.push((
                        normalize_label(value),
                        lang.unwrap_or("").to_ascii_lowercase(),
                        canonical_iri(subject),
                        value.to_string(),
                    ));
                }
            }
            Obj::Other => {}
        }
    }
}

fn out_err(path: &Path, e: impl std::fmt::Display) -> IndexerError {
    IndexerError::Output {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Builds an index at `out` from the inputs. The index is written into a
/// temporary directory beside `out` and renamed into place when complete.
pub fn build(
    inputs: &[PathBuf],
    out: &Path,
    opts: &BuildOptions,
    progress: &mut dyn Progress,
) -> Result<IndexMeta, IndexerError> {
    let files = input_files(inputs)?;
    if files.is_empty() {
        return Err(IndexerError::Input {
            path: inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            message: "no RDF file to read (.nt, .nq, .ttl, .trig, .rdf, .owl, .n3, optionally .gz, .bz2, .zst)".into(),
        });
    }
    let mut equivalence: Vec<&str> =
        vec![OWL_SAME_AS, OWL_EQUIVALENT_CLASS, OWL_EQUIVALENT_PROPERTY];
    equivalence.extend(opts.equivalence.iter().map(String::as_str));
    let mut c = Collector {
        opts,
        equivalence,
        uf: UnionFind::default(),
        labels: Vec::new(),
        types: Vec::new(),
        links: 0,
        excluded_links: 0,
    };
    let mut inputs_meta = Vec::with_capacity(files.len());
    let mut counts = Counts::default();
    for path in &files {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        progress.file(path, size);
        let pending = std::cell::Cell::new(0u64);
        let stats = {
            let mut on_bytes = |n: u64| progress.advance(n, pending.take());
            let mut on_stmt = |s: Stmt<'_>| {
                pending.set(pending.get() + 1);
                c.statement(s);
            };
            read_file(path, opts.lenient, &mut on_stmt, &mut on_bytes)?
        };
        progress.advance(0, pending.take());
        counts.statements += stats.statements;
        counts.skipped += stats.skipped;
        inputs_meta.push(InputFile {
            path: path.display().to_string(),
            bytes: stats.bytes,
            fnv1a64: format!("{:016x}", stats.fnv1a64),
            statements: stats.statements,
            skipped: stats.skipped,
            warnings: stats.warnings.clone(),
        });
    }
    counts.equivalence_links = c.links;
    counts.excluded_links = c.excluded_links;

    progress.phase("closure");
    let classes = c.uf.classes();
    counts.iris = classes.iter().map(|m| m.len() as u64).sum();
    counts.classes = classes.len() as u64;

    // write into a temporary directory beside `out`
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| out_err(parent, e))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "index".into());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| out_err(&tmp, e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| out_err(&tmp, e))?;

    progress.phase("writing the closure");
    let mut store = StoreWriter::create(&tmp.join(KV_DIR)).map_err(|e| out_err(&tmp, e))?;
    let mut histogram: BTreeMap<u64, u64> = BTreeMap::new();
    let mut largest: Vec<(u64, u32)> = Vec::new();
    for (id, members) in classes.iter().enumerate() {
        let id = id as u32;
        let mut value = [0u8; 8];
        value[..4].copy_from_slice(&id.to_be_bytes());
        value[4..].copy_from_slice(&(members.len() as u32).to_be_bytes());
        for canonical in members.canonical.iter() {
            store
                .put(CF_IRI, canonical.as_bytes(), &value)
                .map_err(|e| out_err(&tmp, e))?;
        }
        store
            .put(
                CF_MEMBERS,
                &id.to_be_bytes(),
                members.written.join("\n").as_bytes(),
            )
            .map_err(|e| out_err(&tmp, e))?;
        let size = members.len() as u64;
        *histogram.entry(size).or_default() += 1;
        largest.push((size, id));
    }
    largest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    largest.truncate(10);

    progress.phase("writing types");
    let mut types = std::mem::take(&mut c.types);
    types.sort_unstable();
    types.dedup();
    let mut i = 0;
    while i < types.len() {
        let end = types[i..]
            .iter()
            .position(|t| t.0 != types[i].0)
            .map_or(types.len(), |p| i + p);
        let joined: Vec<&str> = types[i..end].iter().map(|t| t.1.as_str()).collect();
        store
            .put(
                CF_TYPES,
                types[i].0.as_bytes(),
                joined.join("\n").as_bytes(),
            )
            .map_err(|e| out_err(&tmp, e))?;
        counts.typed_iris += 1;
        i = end;
    }
    store.finish().map_err(|e| out_err(&tmp, e))?;

    progress.phase("writing labels");
    let (postings, distinct) =
        labels::write(&tmp, std::mem::take(&mut c.labels)).map_err(|e| out_err(&tmp, e))?;
    counts.labels = postings;
    counts.distinct_labels = distinct;

    let mut buckets: Vec<(String, u64)> = Vec::new();
    for (size, n) in histogram {
        let b = size_bucket(size);
        match buckets.last_mut() {
            Some((last, total)) if *last == b => *total += n,
            _ => buckets.push((b, n)),
        }
    }
    let meta = IndexMeta {
        format_version: FORMAT_VERSION,
        built_by: format!("qajudge {}", env!("CARGO_PKG_VERSION")),
        built_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        inputs: inputs_meta,
        equivalence_predicates: c.equivalence.iter().map(|s| s.to_string()).collect(),
        label_predicates: opts.labels.clone(),
        excluded_hosts: opts.exclude_hosts.clone(),
        counts,
        class_size_histogram: buckets,
        largest_classes: largest
            .iter()
            .map(|(size, id)| LargeClass {
                id: *id,
                size: *size,
                sample: classes[*id as usize]
                    .written
                    .iter()
                    .take(5)
                    .cloned()
                    .collect(),
            })
            .collect(),
    };
    let json = serde_json::to_string_pretty(&meta).map_err(|e| out_err(&tmp, e))?;
    std::fs::write(tmp.join(META_FILE), json).map_err(|e| out_err(&tmp, e))?;

    // swap into place: the previous index stays whole until this point
    progress.phase("renaming into place");
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    if out.exists() {
        std::fs::rename(out, &old).map_err(|e| out_err(out, e))?;
    }
    if let Err(e) = std::fs::rename(&tmp, out) {
        if old.exists() {
            let _ = std::fs::rename(&old, out);
        }
        return Err(out_err(out, e));
    }
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| out_err(&old, e))?;
    }
    Ok(meta)
}
