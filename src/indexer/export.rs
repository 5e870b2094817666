//! The closure beyond one machine: `index build --export-links DIR` reads the
//! dumps as a build does and writes, instead of an index, what a distributed
//! closure needs (the equivalence links between canonical IRIs with their
//! spellings as written, the labels and the types, as Parquet, and a manifest
//! of the inputs and options); `index build --from-components DIR` reads back
//! the connected components a cluster computed from those links
//! (`scripts/spark/closure.py`: IRI as written → component id) with the labels
//! and types, and writes the same index a build on one machine writes.
//!
//! The components are handed to the same union-find a build uses, as stars
//! (each IRI linked to the first IRI read of its component), so that class
//! ids, members and every count come out as a build on one machine makes them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::closure::Endpoint;
use super::exchange::{read_table, Column, TableError, TableWriter};
use super::facts::{Batch, Collector};
use super::stage::Stage;
use super::{
    collector, equivalence_predicates, finish_index, out_err, rdf_files, read_all, BuildOptions,
    IndexerError, Progress, Provenance,
};
use crate::index::format::{BuildOutput, Counts, IndexMeta, InputFile};
use crate::index::hash::iri_key_and_check;
use crate::index::labels::normalize_label;
use crate::terms::canonical::canonical_form;

/// The manifest of an export directory (its marker: a build replaces an export
/// directory only when this file says it is one).
pub const MANIFEST: &str = crate::index::format::EXPORT_MANIFEST;
/// The links table: `src`, `dst` (canonical IRIs), `src_written`,
/// `dst_written` (the IRIs as written, null when written canonically).
pub const LINKS: &str = "links.parquet";
/// The labels table: `iri` (canonical), `value` (as written), `lang` (lower
/// case, empty for none), `rank` (of the label's predicate, decimal: which label
/// names the IRI, `indexer::write::label_rank`).
pub const LABELS: &str = "labels.parquet";
/// The types table: `iri` (canonical subject), `class` (canonical class IRI).
pub const TYPES: &str = "types.parquet";
/// Where the distributed closure writes its components table: `iri` (as
/// written), `component` (a 64-bit integer shared by the IRIs of one class).
pub const COMPONENTS: &str = "components";
/// The version of the export format (2: the labels table has `rank`).
pub const EXPORT_VERSION: u32 = 2;

/// What `manifest.json` of an export directory says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    /// [`EXPORT_VERSION`].
    pub export_version: u32,
    /// `qajudge VERSION`.
    pub exported_by: String,
    /// The input files read.
    pub inputs: Vec<InputFile>,
    /// Statements, skipped statements, equivalence links (used and excluded).
    pub counts: Counts,
    /// Equivalence predicates read.
    pub equivalence_predicates: Vec<String>,
    /// Label predicates read.
    pub label_predicates: Vec<String>,
    /// Hosts whose links were dropped.
    pub excluded_hosts: Vec<String>,
    /// Where the inputs came from, as given.
    #[serde(default)]
    pub provenance: Option<serde_json::Value>,
    /// Rows of the links, labels and types tables.
    pub rows: ExportRows,
}

/// Rows of each table of an export.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExportRows {
    /// Links.
    pub links: u64,
    /// Label postings.
    pub labels: u64,
    /// (IRI, class) pairs, repeats included.
    pub types: u64,
}

fn table(e: TableError) -> IndexerError {
    IndexerError::Output {
        path: e.path,
        message: e.message,
    }
}

fn input(e: TableError) -> IndexerError {
    IndexerError::Input {
        path: e.path,
        message: e.message,
    }
}

/// The tables being written by an export.
struct Tables {
    links: TableWriter,
    labels: TableWriter,
    types: TableWriter,
    excluded_links: u64,
}

impl Tables {
    fn add(&mut self, batch: &Batch) -> Result<(), TableError> {
        for [a, b] in batch.links() {
            let ca = canonical_form(a.written);
            let cb = canonical_form(b.written);
            self.links.push(&[
                Some(&ca),
                Some(&cb),
                (!a.canonical).then_some(a.written),
                (!b.canonical).then_some(b.written),
            ])?;
        }
        for ([_, lang, iri, value], rank) in batch.labels().iter_ranked() {
            let rank = rank.to_string();
            self.labels
                .push(&[Some(iri), Some(value), Some(lang), Some(&rank)])?;
        }
        for (iri, class) in batch.types() {
            self.types.push(&[Some(iri), Some(class)])?;
        }
        self.excluded_links += batch.excluded_links();
        Ok(())
    }
}

const REQUIRED: fn(&'static str) -> Column = |name| Column {
    name,
    nullable: false,
};

/// Reads the inputs and writes the export directory `dir` (into a temporary
/// directory beside it, renamed into place when complete).
pub fn export_links(
    inputs: &[PathBuf],
    dir: &Path,
    opts: &BuildOptions,
    progress: &mut dyn Progress,
) -> Result<Manifest, IndexerError> {
    let files = rdf_files(inputs)?;
    let equivalence = equivalence_predicates(opts);
    let stage = Stage::begin(dir, BuildOutput::Export)?;
    let tmp = stage.dir().to_path_buf();
    let nullable = |name| Column {
        name,
        nullable: true,
    };
    let mut tables = Tables {
        links: TableWriter::create(
            &tmp.join(LINKS),
            "links",
            &[
                REQUIRED("src"),
                REQUIRED("dst"),
                nullable("src_written"),
                nullable("dst_written"),
            ],
        )
        .map_err(table)?,
        labels: TableWriter::create(
            &tmp.join(LABELS),
            "labels",
            &[
                REQUIRED("iri"),
                REQUIRED("value"),
                REQUIRED("lang"),
                REQUIRED("rank"),
            ],
        )
        .map_err(table)?,
        types: TableWriter::create(
            &tmp.join(TYPES),
            "types",
            &[REQUIRED("iri"), REQUIRED("class")],
        )
        .map_err(table)?,
        excluded_links: 0,
    };
    let (inputs_meta, mut counts) =
        read_all(&files, opts, &equivalence, progress, &mut |batch, _, _| {
            tables.add(batch).map_err(table)
        })?;
    counts.excluded_links = tables.excluded_links;
    let rows = ExportRows {
        links: tables.links.finish().map_err(table)?,
        labels: tables.labels.finish().map_err(table)?,
        types: tables.types.finish().map_err(table)?,
    };
    counts.equivalence_links = rows.links;
    let manifest = Manifest {
        export_version: EXPORT_VERSION,
        exported_by: format!("qajudge {}", env!("CARGO_PKG_VERSION")),
        inputs: inputs_meta,
        counts,
        equivalence_predicates: equivalence,
        label_predicates: opts.labels.clone(),
        excluded_hosts: opts.exclude_hosts.clone(),
        provenance: opts.provenance.clone(),
        rows,
    };
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| out_err(&tmp, e))?;
    std::fs::write(tmp.join(MANIFEST), json).map_err(|e| out_err(&tmp, e))?;
    stage.commit()?;
    Ok(manifest)
}

/// Reads the manifest of an export directory.
pub fn read_manifest(dir: &Path) -> Result<Manifest, IndexerError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| IndexerError::Input {
        path: path.display().to_string(),
        message: format!("{e}; give a directory written by `qajudge index build --export-links`"),
    })?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| IndexerError::Input {
        path: format!("{}:{}:{}", path.display(), e.line(), e.column()),
        message: format!("not an export manifest: {e}"),
    })?;
    if manifest.export_version != EXPORT_VERSION {
        return Err(IndexerError::Input {
            path: path.display().to_string(),
            message: format!(
                "export version {} where this qajudge reads {EXPORT_VERSION}; export the links again with this version",
                manifest.export_version
            ),
        });
    }
    Ok(manifest)
}

/// Builds the index at `out` from the export directory `dir`, whose
/// `components/` the distributed closure wrote.
pub fn build_from_components(
    dir: &Path,
    out: &Path,
    opts: &BuildOptions,
    progress: &mut dyn Progress,
) -> Result<IndexMeta, IndexerError> {
    let manifest = read_manifest(dir)?;
    let components = dir.join(COMPONENTS);
    if !components.exists() {
        return Err(IndexerError::Input {
            path: components.display().to_string(),
            message: "no components table; run scripts/spark/closure.py on this directory first"
                .into(),
        });
    }
    let stage = Stage::begin(out, BuildOutput::Index)?;
    let tmp = stage.dir().to_path_buf();
    let mut c = collector(opts, &tmp);
    read_components(&components, &tmp, &mut c, progress)?;
    read_labels_and_types(dir, &mut c)?;
    let given = Provenance {
        inputs: manifest.inputs,
        equivalence: manifest.equivalence_predicates,
        labels: manifest.label_predicates,
        exclude_hosts: manifest.excluded_hosts,
        provenance: manifest.provenance,
    };
    finish_index(stage, c, manifest.counts, given, progress)
}

/// Reads the components table (IRI as written → component id) and links the
/// IRIs of each component as a star in `c`'s closure; `tmp` is the stage,
/// named by a failure to spill.
fn read_components(
    components: &Path,
    tmp: &Path,
    c: &mut Collector,
    progress: &mut dyn Progress,
) -> Result<(), IndexerError> {
    let mut stars = Stars::new();
    progress.file(components, 0);
    let mut read = 0u64;
    read_table(components, &["iri", "component"], &mut |row| {
        let (Some(iri), Some(component)) = (row[0].text(), row[1].int()) else {
            return Err(TableError {
                path: components.display().to_string(),
                message: "a row whose iri is not UTF-8 text or whose component is not an integer"
                    .into(),
            });
        };
        stars
            .push(component, iri.to_string(), c)
            .map_err(|e| TableError {
                path: tmp.display().to_string(),
                message: e.to_string(),
            })?;
        read += 1;
        if read.is_multiple_of(1 << 16) {
            progress.advance(0, 1 << 16);
        }
        Ok(())
    })
    .map_err(input)?;
    stars.flush(c).map_err(|e| out_err(tmp, e))
}

/// Reads the labels and types tables of the export directory `dir` into `c`.
fn read_labels_and_types(dir: &Path, c: &mut Collector) -> Result<(), IndexerError> {
    read_table(
        &dir.join(LABELS),
        &["iri", "value", "lang", "rank"],
        &mut |row| {
            let (Some(iri), Some(value), Some(lang), Some(rank)) = (
                row[0].text(),
                row[1].text(),
                row[2].text(),
                row[3].text().and_then(|r| r.parse::<u16>().ok()),
            ) else {
                return Err(not_text(dir, LABELS));
            };
            c.labels.push(
                &normalize_label(value),
                &lang.to_ascii_lowercase(),
                iri,
                value,
                rank,
            );
            Ok(())
        },
    )
    .map_err(input)?;
    read_table(&dir.join(TYPES), &["iri", "class"], &mut |row| {
        let (Some(iri), Some(class)) = (row[0].text(), row[1].text()) else {
            return Err(not_text(dir, TYPES));
        };
        c.add_type(iri_key_and_check(iri).0, class.to_string());
        Ok(())
    })
    .map_err(input)?;
    Ok(())
}

/// The components' IRIs gathered a group at a time and handed to the closure
/// as stars: each IRI linked to the first IRI read of its component.
struct Stars {
    /// The first IRI read of each component: (key, check, written
    /// canonically, as written).
    first: rustc_hash::FxHashMap<i64, (u64, u32, bool, String)>,
    /// The (component, IRI as written) read since the last group was linked.
    pending: Vec<(i64, String)>,
}

impl Stars {
    /// No IRI read yet; a group of [`super::facts::LINK_GROUP`].
    fn new() -> Stars {
        Stars {
            first: Default::default(),
            pending: Vec::with_capacity(super::facts::LINK_GROUP),
        }
    }

    /// Adds an IRI of `component`, linking the group once it is full.
    fn push(&mut self, component: i64, iri: String, c: &mut Collector) -> std::io::Result<()> {
        self.pending.push((component, iri));
        if self.pending.len() == self.pending.capacity() {
            self.flush(c)?;
        }
        Ok(())
    }

    /// Links the pending IRIs in `c`'s closure, each to the first IRI of its
    /// component (itself when it is the first).
    fn flush(&mut self, c: &mut Collector) -> std::io::Result<()> {
        let (first, pending) = (&mut self.first, &self.pending);
        let mut group = Vec::with_capacity(pending.len());
        let ends: Vec<(u64, u32, bool)> = pending
            .iter()
            .map(|(_, written)| {
                let canonical = canonical_form(written);
                let (key, check) = iri_key_and_check(&canonical);
                (key, check, super::facts::as_written(canonical, written))
            })
            .collect();
        for ((component, written), &(key, check, canonical)) in pending.iter().zip(&ends) {
            first
                .entry(*component)
                .or_insert_with(|| (key, check, canonical, written.clone()));
        }
        for ((component, written), &(key, check, canonical)) in pending.iter().zip(&ends) {
            let f = &first[component];
            group.push((
                Endpoint {
                    key: f.0,
                    check: f.1,
                    written: &f.3,
                    canonical: f.2,
                },
                Endpoint {
                    key,
                    check,
                    written,
                    canonical,
                },
            ));
        }
        c.closure.link_all(&group)?;
        self.pending.clear();
        Ok(())
    }
}

fn not_text(dir: &Path, table: &str) -> TableError {
    TableError {
        path: dir.join(table).display().to_string(),
        message: "a cell that is not UTF-8 text (or a rank that is not a number)".into(),
    }
}
