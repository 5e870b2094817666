//! The write side of the index: streams RDF dumps, computes the equivalence closure
//! (owl:sameAs and friends, Wikidata sitelinks and Freebase ids) with a union-find
//! over canonical IRIs, collects labels and types, and writes an index directory
//! into a temporary place that is renamed only when complete, so an interrupted
//! build leaves any previous index intact.

mod blocks;
mod closure;
mod decompress;
mod exchange;
mod export;
mod facts;
mod ntriples;
mod progress;
mod read;
mod sameas;
mod sizes;
mod stage;
mod statement;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::index::format::{
    encode_list, size_bucket, BuildOutput, Counts, IndexMeta, InputFile, LargeClass,
    FORMAT_VERSION, KV_DIR, META_FILE,
};
pub use blocks::line_reader_disagreement;
pub use blocks::DEFAULT_MAX_LINE_BYTES;
use closure::Closure;
pub use decompress::{compression_of, decompress_within, special_kind, DecompressError};
pub use export::{build_from_components, export_links, read_manifest, Manifest};
use facts::{Classifier, Collector};
pub use progress::{Phase, Progress, Silent};
pub use read::rdf_media_type;

/// The decompressed text of a file whose lower-cased name is `name` (its
/// `.gz`, `.bz2`, `.zst` or `.zip` extension chooses the decompressor; a
/// zip must hold one file).
pub fn decompressed_reader<'a, R: std::io::Read + Send + 'a>(
    name: &str,
    raw: R,
) -> std::io::Result<Box<dyn std::io::Read + Send + 'a>> {
    decompress::decompressed(name, raw)
}
use read::read_file;
use sameas::SameAsWriter;
use sizes::ClassSizes;
pub use stage::Occupant;
use stage::Stage;
use write::{write_labels, write_names, write_types, Postings, SortedFile, StoreWriter};

/// owl:sameAs.
pub const OWL_SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";
const OWL_EQUIVALENT_CLASS: &str = "http://www.w3.org/2002/07/owl#equivalentClass";
const OWL_EQUIVALENT_PROPERTY: &str = "http://www.w3.org/2002/07/owl#equivalentProperty";
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
    /// The output path holds something a build does not replace: only an
    /// absent path, an empty directory or an output of the same kind that
    /// qajudge wrote is replaced.
    #[error("{path}: cannot write the {output} there: {occupant}; give an empty or new directory, or remove it yourself")]
    Occupied {
        /// The output path (or the temporary path beside it).
        path: String,
        /// What the build writes.
        output: BuildOutput,
        /// What is there.
        occupant: Occupant,
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
    /// The longest statement line of N-Triples and N-Quads read, in bytes: a
    /// longer one is an error, or (lenient) skipped and counted, and is never
    /// held in memory whole.
    pub max_line_bytes: usize,
    /// Bytes of IRI text held in memory during the build before it is spilled to
    /// files in the output's temporary directory.
    pub buffer_bytes: usize,
    /// Provenance of the inputs, kept as is in `meta.json`.
    pub provenance: Option<serde_json::Value>,
}

/// The default of [`BuildOptions::buffer_bytes`]: 2 GiB.
pub const DEFAULT_BUFFER_BYTES: usize = 2 << 30;

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            equivalence: Vec::new(),
            labels: DEFAULT_LABELS
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            exclude_hosts: Vec::new(),
            lenient: false,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            buffer_bytes: DEFAULT_BUFFER_BYTES,
            provenance: None,
        }
    }
}

/// The files a list of inputs names: files (and named pipes) as given,
/// directories walked recursively for files with an RDF extension, sorted.
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
        } else if input.exists() {
            // a file, or a named pipe another program writes a dump into
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

fn out_err(path: &Path, e: impl std::fmt::Display) -> IndexerError {
    IndexerError::Output {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Types, names and labels as written by [`write_types_and_labels`]: the
/// table files of types and names, the numbers of typed and named IRIs,
/// (postings, distinct labels).
struct TypesAndLabels {
    files: Vec<SortedFile>,
    typed_iris: u64,
    named_iris: u64,
    labels: (u64, u64),
}

/// Writes the type and name indexes into the store and the label index into
/// `dir`.
fn write_types_and_labels(
    store: &StoreWriter,
    dir: &Path,
    types: Vec<(u64, u32)>,
    type_names: &[String],
    postings: Postings,
) -> Result<TypesAndLabels, IndexerError> {
    let (types_file, typed_iris) =
        write_types(store, types, type_names).map_err(|e| out_err(dir, e))?;
    let (names_file, named_iris) = write_names(store, &postings).map_err(|e| out_err(dir, e))?;
    let labels = write_labels(dir, postings).map_err(|e| out_err(dir, e))?;
    Ok(TypesAndLabels {
        files: types_file.into_iter().chain(names_file).collect(),
        typed_iris,
        named_iris,
        labels,
    })
}

/// What a build writes into `meta.json` besides what it computes: the inputs
/// and the options they were read with.
pub(crate) struct Provenance {
    inputs: Vec<InputFile>,
    equivalence: Vec<String>,
    labels: Vec<String>,
    exclude_hosts: Vec<String>,
    provenance: Option<serde_json::Value>,
}

/// The files of `inputs`, or an error when there is none.
fn rdf_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, IndexerError> {
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
    Ok(files)
}

/// The equivalence predicates a build reads with `opts`.
fn equivalence_predicates(opts: &BuildOptions) -> Vec<String> {
    let mut equivalence: Vec<String> = [OWL_SAME_AS, OWL_EQUIVALENT_CLASS, OWL_EQUIVALENT_PROPERTY]
        .map(String::from)
        .to_vec();
    equivalence.extend(opts.equivalence.iter().cloned());
    equivalence
}

/// Reads every file, handing each batch of facts to `on_batch` with the bytes
/// read so far of all files and their total; returns what was read, per file and
/// in all (statements and skipped; equivalence links are the caller's to count).
fn read_all(
    files: &[PathBuf],
    opts: &BuildOptions,
    equivalence: &[String],
    progress: &mut dyn Progress,
    on_batch: &mut dyn FnMut(&mut facts::Batch, u64, u64) -> Result<(), IndexerError>,
) -> Result<(Vec<InputFile>, Counts), IndexerError> {
    let classifier = Classifier {
        equivalence: equivalence.iter().map(String::as_str).collect(),
        labels: &opts.labels,
        exclude_hosts: opts
            .exclude_hosts
            .iter()
            .map(|h| h.to_ascii_lowercase())
            .collect(),
    };
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let mut inputs_meta = Vec::with_capacity(files.len());
    let mut counts = Counts::default();
    // compressed files are decompressed in order by two threads, the next one
    // while the one before it still is
    let mut decompressing = decompress::Decompressing::start(files, 2);
    let sizes: Vec<u64> = files
        .iter()
        .map(|path| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
        .collect();
    let total: u64 = sizes.iter().sum();
    let mut done_before = 0u64;
    for (path, &size) in files.iter().zip(&sizes) {
        progress.file(path, size);
        let mut reported = 0u64;
        let stats = read_file(
            path,
            decompressing.take(path),
            opts,
            threads,
            &classifier,
            &mut |batch, bytes, statements| {
                on_batch(batch, done_before + bytes.min(size), total)?;
                progress.advance(bytes.saturating_sub(reported), statements);
                reported = reported.max(bytes);
                Ok(())
            },
        )?;
        progress.advance(stats.bytes.saturating_sub(reported), 0);
        done_before += size;
        counts.statements += stats.statements;
        counts.skipped += stats.skipped;
        inputs_meta.push(InputFile {
            path: path.display().to_string(),
            bytes: stats.bytes,
            xxh3_64: format!("{:016x}", stats.xxh3_64),
            statements: stats.statements,
            skipped: stats.skipped,
            reference_parser_lines: stats.slow_lines,
            warnings: stats.warnings.clone(),
        });
    }
    Ok((inputs_meta, counts))
}

/// A collector with an empty closure that spills into `tmp`.
fn collector(opts: &BuildOptions, tmp: &Path) -> Collector {
    Collector {
        closure: Closure::new(opts.buffer_bytes, Some(tmp.join("spill"))),
        labels: Postings::default(),
        types: Vec::new(),
        type_ids: Default::default(),
        type_names: Vec::new(),
        links: 0,
        excluded_links: 0,
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
    let files = rdf_files(inputs)?;
    let equivalence = equivalence_predicates(opts);
    let stage = Stage::begin(out, BuildOutput::Index)?;
    let tmp = stage.dir().to_path_buf();
    let mut c = collector(opts, &tmp);
    let (inputs_meta, mut counts) = read_all(
        &files,
        opts,
        &equivalence,
        progress,
        &mut |batch, done, total| {
            c.add(batch).map_err(|e| out_err(&tmp, e))?;
            c.closure.read_so_far(done, total);
            Ok(())
        },
    )?;
    counts.equivalence_links = c.links;
    counts.excluded_links = c.excluded_links;
    let given = Provenance {
        inputs: inputs_meta,
        equivalence,
        labels: opts.labels.clone(),
        exclude_hosts: opts.exclude_hosts.clone(),
        provenance: opts.provenance.clone(),
    };
    finish_index(stage, c, counts, given, progress)
}

/// An index being built from statements the caller writes (as N-Triples) into
/// a file of the build's temporary directory, rather than from dumps: the
/// output path is checked when it begins (as [`build`] checks it), and
/// [`Generated::finish`] reads the file with the same reader and builder as
/// [`build`] and renames the index into place. Dropped unfinished, the
/// temporary directory is removed.
pub struct Generated {
    stage: Stage,
    file: PathBuf,
    name: String,
}

impl Generated {
    /// Checks that an index may be written at `out` (absent, an empty
    /// directory or an index qajudge wrote) and makes the temporary directory;
    /// the statements go into its file `name` (an `.nt` name), which is kept in
    /// the index under that name.
    pub fn begin(out: &Path, name: &str) -> Result<Generated, IndexerError> {
        let stage = Stage::begin(out, BuildOutput::Index)?;
        let file = stage.dir().join(name);
        Ok(Generated {
            stage,
            file,
            name: name.to_string(),
        })
    }

    /// The file the statements go into.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Builds the index from the file (which the caller has written and
    /// closed) and puts it into place.
    pub fn finish(
        self,
        opts: &BuildOptions,
        progress: &mut dyn Progress,
    ) -> Result<IndexMeta, IndexerError> {
        let equivalence = equivalence_predicates(opts);
        let tmp = self.stage.dir().to_path_buf();
        let mut c = collector(opts, &tmp);
        let (mut inputs_meta, mut counts) = read_all(
            std::slice::from_ref(&self.file),
            opts,
            &equivalence,
            progress,
            &mut |batch, done, total| {
                c.add(batch).map_err(|e| out_err(&tmp, e))?;
                c.closure.read_so_far(done, total);
                Ok(())
            },
        )?;
        // the file moves with the index: its name, not the temporary path
        for input in &mut inputs_meta {
            input.path.clone_from(&self.name);
        }
        counts.equivalence_links = c.links;
        counts.excluded_links = c.excluded_links;
        let given = Provenance {
            inputs: inputs_meta,
            equivalence,
            labels: opts.labels.clone(),
            exclude_hosts: opts.exclude_hosts.clone(),
            provenance: opts.provenance.clone(),
        };
        finish_index(self.stage, c, counts, given, progress)
    }
}

/// Writes the index of what `c` collected into the stage, with its metadata, and
/// renames it into place.
fn finish_index(
    stage: Stage,
    mut c: Collector,
    mut counts: Counts,
    given: Provenance,
    progress: &mut dyn Progress,
) -> Result<IndexMeta, IndexerError> {
    let tmp = stage.dir().to_path_buf();
    progress.phase(Phase::Closure);
    let store = StoreWriter::create(&tmp.join(KV_DIR)).map_err(|e| out_err(&tmp, e))?;
    let mut sizes = ClassSizes::default();
    // the sameAs files are written as the closure hands out its classes and
    // keys; the types and labels, which do not depend on it, by another thread
    // once the closure itself is done
    let side_input = SideInput {
        types: std::mem::take(&mut c.types),
        type_names: std::mem::take(&mut c.type_names),
        postings: std::mem::take(&mut c.labels),
    };
    let mut sameas = SameAsWriter::create(&tmp).map_err(|e| out_err(&tmp, e))?;
    let closure = std::mem::take(&mut c.closure);
    let (found, side) = write_closure(
        closure,
        side_input,
        &store,
        &tmp,
        &mut sameas,
        &mut sizes,
        progress,
    )?;
    sameas.finish().map_err(|e| out_err(&tmp, e))?;
    let TypesAndLabels {
        files,
        typed_iris,
        named_iris,
        labels: (postings, distinct),
    } = side;
    counts.typed_iris = typed_iris;
    counts.named_iris = named_iris;
    counts.labels = postings;
    counts.distinct_labels = distinct;
    counts.iris = found.iris;
    counts.classes = found.classes;
    counts.key_collisions = found.key_collisions;

    store.finish(files).map_err(|e| out_err(&tmp, e))?;
    std::fs::remove_dir_all(tmp.join("spill")).ok();

    let meta = IndexMeta {
        format_version: FORMAT_VERSION,
        built_by: format!("qajudge {}", env!("CARGO_PKG_VERSION")),
        built_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        inputs: given.inputs,
        equivalence_predicates: given.equivalence,
        label_predicates: given.labels,
        excluded_hosts: given.exclude_hosts,
        counts,
        class_size_histogram: sizes.buckets(),
        largest_classes: sizes.largest(),
        provenance: given.provenance,
        checksums: checksums(&tmp).map_err(|e| out_err(&tmp, e))?,
        lengths: lengths(&tmp).map_err(|e| out_err(&tmp, e))?,
    };
    let json = serde_json::to_string_pretty(&meta).map_err(|e| out_err(&tmp, e))?;
    std::fs::write(tmp.join(META_FILE), json).map_err(|e| out_err(&tmp, e))?;

    progress.phase(Phase::Renaming);
    stage.commit()?;
    Ok(meta)
}

/// What is written beside the closure, not depending on it: the types and
/// labels collected.
struct SideInput {
    /// (key of the subject, id of the class in `type_names`)
    types: Vec<(u64, u32)>,
    type_names: Vec<String>,
    postings: Postings,
}

/// Finishes the closure, handing its classes (counted into `sizes`) and keys
/// into the sameAs files, while another thread writes the types and labels
/// into the store and `tmp` once the closure itself is done (this one, if
/// the closure never got that far); what the closure found, and the types
/// and labels written.
fn write_closure(
    closure: Closure,
    side_input: SideInput,
    store: &StoreWriter,
    tmp: &Path,
    sameas: &mut SameAsWriter,
    sizes: &mut ClassSizes,
    progress: &mut dyn Progress,
) -> Result<(closure::Finished, TypesAndLabels), IndexerError> {
    std::thread::scope(|scope| {
        let mut side_input = Some(side_input);
        let mut side = None;
        let mut joined = String::new();
        let sameas = std::cell::RefCell::new(sameas);
        let mut on_class = |class: closure::FinishedClass<'_>| {
            joined.clear();
            encode_list(class.written.iter().copied(), &mut joined);
            sizes.add(&class);
            sameas
                .borrow_mut()
                .class(class.id, &joined, class.written.len())
                .map_err(|e| out_err(tmp, e))
        };
        let mut on_key = |half: usize, key: u64, id: u32, size: u32| {
            sameas
                .borrow_mut()
                .key(half, key, id, size)
                .map_err(|e| out_err(tmp, e))
        };
        let found = closure.finish(
            &mut on_class,
            &mut on_key,
            &|e| out_err(tmp, e),
            &mut |phase| {
                progress.phase(phase);
                // types and labels do not depend on the closure: they are written
                // beside it once the closure itself is done
                if phase == Phase::Grouping {
                    if let Some(input) = side_input.take() {
                        side = Some(scope.spawn(move || {
                            let SideInput {
                                types,
                                type_names,
                                postings,
                            } = input;
                            write_types_and_labels(store, tmp, types, &type_names, postings)
                        }));
                    }
                }
            },
        );
        let found = found?;
        progress.phase(Phase::WritingTypesAndLabels);
        let side = match (side, side_input) {
            (Some(thread), _) => thread.join().unwrap_or_else(|_| {
                Err(out_err(tmp, "the thread writing types and labels failed"))
            })?,
            (None, Some(input)) => {
                write_types_and_labels(store, tmp, input.types, &input.type_names, input.postings)?
            }
            (None, None) => return Err(out_err(tmp, "types and labels were not written")),
        };
        Ok::<_, IndexerError>((found, side))
    })
}

/// The length of each file of an index directory (not its store's
/// directory), by name: what a reader checks before it maps the file.
fn lengths(dir: &Path) -> std::io::Result<std::collections::BTreeMap<String, u64>> {
    let mut out = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if meta.is_file() && name != META_FILE {
            out.insert(name, meta.len());
        }
    }
    Ok(out)
}

/// File name → SHA-256 (hex), as `meta.json` records them.
type Checksums = std::collections::BTreeMap<String, String>;

/// The SHA-256 of each file of an index directory (not its store's
/// directory) of at most [`crate::index::format::CHECKSUMMED_BYTES`], by name.
fn checksums(dir: &Path) -> std::io::Result<Checksums> {
    let mut out = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let meta = entry.metadata()?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if meta.is_file()
            && name != META_FILE
            && meta.len() <= crate::index::format::CHECKSUMMED_BYTES
        {
            let bytes = std::fs::read(entry.path())?;
            out.insert(name, crate::digest::sha256_hex(&bytes));
        }
    }
    Ok(out)
}
