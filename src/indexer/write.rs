//! Writes an index directory's files: the RocksDB column families of types and
//! names as sorted table files ingested at once (no memtables, no compaction),
//! and the label FST with its postings. The encodings are
//! `index::format`'s.

use std::io::Write;
use std::path::Path;

use fst::MapBuilder;
use rocksdb::{
    Cache, ColumnFamilyDescriptor, IngestExternalFileOptions, Options, SstFileWriter, DB,
};

use crate::index::format::{
    encode_list, encode_names, encode_postings, iri_key_bytes, CF_NAMES, CF_TYPES, COLUMN_FAMILIES,
    LABELS_DAT, LABELS_FST,
};
use crate::index::hash::iri_key;
use crate::index::kv::cf_options;

/// The index's files cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// RocksDB failed.
    #[error(transparent)]
    RocksDb(#[from] rocksdb::Error),
    /// The label FST cannot be built.
    #[error(transparent)]
    Fst(#[from] fst::Error),
    /// A file cannot be written.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A column family the format needs was not created.
    #[error("no column family {0}")]
    NoColumnFamily(&'static str),
}

/// A store being built: each column family is written, in increasing key order,
/// into one sorted table file, and the files are then ingested into a new
/// database at once (no memtables, no compaction).
pub struct StoreWriter {
    path: std::path::PathBuf,
    cache: Cache,
    options: Options,
}

/// The finished table files of one column family.
pub struct SortedFile {
    cf: &'static str,
    files: Vec<std::path::PathBuf>,
}

/// Bytes per table file: a lookup first picks the file by its key range, so
/// each file's own index stays small.
const TABLE_FILE_BYTES: u64 = 64 << 20;

/// One column family being written in increasing key order, into table files of
/// about [`TABLE_FILE_BYTES`].
pub struct SortedWriter<'a> {
    options: &'a Options,
    dir: std::path::PathBuf,
    writer: SstFileWriter<'a>,
    in_file: u64,
    cf: &'static str,
    /// Which of the writers of one column family this is (they write key ranges
    /// that do not overlap).
    part: u32,
    files: Vec<std::path::PathBuf>,
}

impl<'a> SortedWriter<'a> {
    fn open(
        options: &'a Options,
        dir: &Path,
        cf: &'static str,
        part: u32,
    ) -> Result<Self, WriteError> {
        let mut w = SortedWriter {
            options,
            dir: dir.to_path_buf(),
            writer: SstFileWriter::create(options),
            in_file: 0,
            cf,
            part,
            files: Vec::new(),
        };
        w.next_file()?;
        Ok(w)
    }

    fn next_file(&mut self) -> Result<(), WriteError> {
        let file = self.dir.join(format!(
            "{}-{}-{:05}.sst",
            self.cf,
            self.part,
            self.files.len()
        ));
        self.writer = SstFileWriter::create(self.options);
        self.writer.open(&file)?;
        self.files.push(file);
        self.in_file = 0;
        Ok(())
    }

    /// Adds a key greater than every key added before.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), WriteError> {
        if self.in_file % 4096 == 4095 && self.writer.file_size() >= TABLE_FILE_BYTES {
            self.writer.finish()?;
            self.next_file()?;
        }
        self.in_file += 1;
        self.writer.put(key, value).map_err(WriteError::from)
    }

    /// Finishes the files (a column family without entries gets none).
    pub fn finish(mut self) -> Result<Option<SortedFile>, WriteError> {
        if self.in_file == 0 {
            // the last file was opened but never written
            self.files.pop();
        } else {
            self.writer.finish()?;
        }
        if self.files.is_empty() {
            return Ok(None);
        }
        Ok(Some(SortedFile {
            cf: self.cf,
            files: self.files,
        }))
    }
}

impl StoreWriter {
    /// Starts a new store at `path` (which must not exist).
    pub fn create(path: &Path) -> Result<StoreWriter, WriteError> {
        std::fs::create_dir_all(path.join("sst"))?;
        let cache = Cache::new_lru_cache(8 << 20);
        let options = cf_options(&cache);
        Ok(StoreWriter {
            path: path.to_path_buf(),
            cache,
            options,
        })
    }

    /// A writer for one column family (`CF_TYPES`, `CF_NAMES`).
    pub fn sorted(&self, cf: &'static str) -> Result<SortedWriter<'_>, WriteError> {
        SortedWriter::open(&self.options, &self.path.join("sst"), cf, 0)
    }

    /// Creates the database and ingests the files written.
    pub fn finish(self, files: Vec<SortedFile>) -> Result<(), WriteError> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        let cfs = COLUMN_FAMILIES
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&self.cache)));
        let db = DB::open_cf_descriptors(&opts, &self.path, cfs)?;
        // the files of each column family at once (writers of one family wrote
        // key ranges that do not overlap)
        let mut by_cf: std::collections::BTreeMap<&str, Vec<std::path::PathBuf>> =
            Default::default();
        for SortedFile { cf, files } in files {
            by_cf.entry(cf).or_default().extend(files);
        }
        for (cf, files) in by_cf {
            let handle = db.cf_handle(cf).ok_or(WriteError::NoColumnFamily(cf))?;
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            db.ingest_external_file_cf_opts(handle, &ingest, files)?;
        }
        db.flush()?;
        drop(db);
        Ok(std::fs::remove_dir_all(self.path.join("sst"))?)
    }
}

/// Postings to index, held compactly: the four fields of each posting
/// (normalised label, language, IRI, label as written) side by side in one arena,
/// and the rank of the predicate that gave it (see [`label_rank`]).
#[derive(Debug, Default, Clone)]
pub struct Postings {
    text: String,
    /// Start of each posting in `text`, and the ends of its four fields relative
    /// to that start.
    entries: Vec<(u64, [u32; 4])>,
    /// The rank of each posting's predicate, beside `entries`.
    ranks: Vec<u16>,
}

/// Label predicates whose labels are alternatives to a preferred one: they
/// name an IRI only when no other label predicate does in that language.
const ALTERNATIVE_LABELS: [&str; 2] = [
    "http://www.w3.org/2004/02/skos/core#altLabel",
    "http://www.w3.org/2004/02/skos/core#hiddenLabel",
];

/// The rank of a label predicate among the build's label predicates (lower is
/// preferred as a name): its place in the list, after every other predicate
/// for an alternative one (skos:altLabel, skos:hiddenLabel).
pub fn label_rank(predicates: &[String], predicate: &str) -> u16 {
    let place = predicates
        .iter()
        .position(|p| p == predicate)
        .unwrap_or(predicates.len());
    let rank = if ALTERNATIVE_LABELS.contains(&predicate) {
        predicates.len() + place
    } else {
        place
    };
    u16::try_from(rank).unwrap_or(u16::MAX)
}

impl Postings {
    /// Adds a posting given by a predicate of rank `rank`.
    pub fn push(&mut self, label: &str, lang: &str, iri: &str, written: &str, rank: u16) {
        let start = self.text.len();
        let mut ends = [0u32; 4];
        for (i, field) in [label, lang, iri, written].into_iter().enumerate() {
            self.text.push_str(field);
            ends[i] = (self.text.len() - start) as u32;
        }
        self.entries.push((start as u64, ends));
        self.ranks.push(rank);
    }

    /// Moves every posting of `other` here, leaving it empty.
    pub fn append(&mut self, other: &mut Postings) {
        let base = self.text.len() as u64;
        self.text.push_str(&other.text);
        self.entries
            .extend(other.entries.iter().map(|(s, e)| (s + base, *e)));
        self.ranks.extend_from_slice(&other.ranks);
        other.clear();
    }

    /// Every posting's fields (normalised label, language, IRI, label as
    /// written) and rank.
    pub fn iter_ranked(&self) -> impl Iterator<Item = ([&str; 4], u16)> {
        self.iter().zip(self.ranks.iter().copied())
    }

    /// Every posting's fields: normalised label, language, IRI, label as written.
    pub fn iter(&self) -> impl Iterator<Item = [&str; 4]> {
        self.entries.iter().map(|e| self.fields(e))
    }

    /// Removes every posting, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.entries.clear();
        self.ranks.clear();
    }

    /// The number of postings.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no posting.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn fields(&self, entry: &(u64, [u32; 4])) -> [&str; 4] {
        let start = entry.0 as usize;
        let e = entry.1.map(|x| start + x as usize);
        [
            &self.text[start..e[0]],
            &self.text[e[0]..e[1]],
            &self.text[e[1]..e[2]],
            &self.text[e[2]..e[3]],
        ]
    }
}

/// Writes the names: per IRI of the postings (by the key of its canonical form,
/// in key order), per language, the label of the lowest rank (the smallest as
/// written among those), languages in increasing order. Returns the table file
/// and the number of IRIs named.
pub fn write_names(
    store: &StoreWriter,
    postings: &Postings,
) -> Result<(Option<SortedFile>, u64), WriteError> {
    // (key, language, rank, label as written) of each posting, as indexes
    let mut order: Vec<(u64, usize)> = postings
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (iri_key(postings.fields(e)[2]), i))
        .collect();
    let sort_key = |i: usize| {
        let [_, lang, _, written] = postings.fields(&postings.entries[i]);
        (lang, postings.ranks[i], written)
    };
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| sort_key(a.1).cmp(&sort_key(b.1)))
    });
    let mut names_cf = store.sorted(CF_NAMES)?;
    let mut named = 0;
    let mut value = Vec::new();
    for group in order.chunk_by(|a, b| a.0 == b.0) {
        value.clear();
        let mut chosen: Vec<(&str, &str)> = Vec::new();
        for &(_, i) in group {
            let (lang, _, written) = sort_key(i);
            // the first of each language is its lowest rank
            if chosen.last().is_none_or(|(l, _)| *l != lang) {
                chosen.push((lang, written));
            }
        }
        encode_names(chosen, &mut value);
        names_cf.put(&iri_key_bytes(group[0].0), &value)?;
        named += 1;
    }
    Ok((names_cf.finish()?, named))
}

/// Writes `labels.fst` and `labels.dat` into `dir` from postings (any order);
/// returns (postings, distinct labels).
pub fn write_labels(dir: &Path, mut postings: Postings) -> Result<(u64, u64), WriteError> {
    let mut entries = std::mem::take(&mut postings.entries);
    entries.sort_unstable_by(|a, b| postings.fields(a).cmp(&postings.fields(b)));
    entries.dedup_by(|a, b| postings.fields(a) == postings.fields(b));
    let rows: Vec<[&str; 4]> = entries.iter().map(|e| postings.fields(e)).collect();
    drop(entries);
    let fst_file = std::fs::File::create(dir.join(LABELS_FST))?;
    let mut builder = MapBuilder::new(std::io::BufWriter::new(fst_file))?;
    let mut dat = std::io::BufWriter::new(std::fs::File::create(dir.join(LABELS_DAT))?);
    let mut offset: u64 = 0;
    let mut distinct = 0;
    let mut i = 0;
    let mut buf = Vec::new();
    while i < rows.len() {
        let key = rows[i][0];
        let end = rows[i..]
            .iter()
            .position(|p| p[0] != key)
            .map_or(rows.len(), |p| i + p);
        builder.insert(key.as_bytes(), offset)?;
        distinct += 1;
        buf.clear();
        encode_postings(
            rows[i..end]
                .iter()
                .map(|[_, lang, iri, label]| [*lang, *iri, *label]),
            &mut buf,
        );
        dat.write_all(&buf)?;
        offset += buf.len() as u64;
        i = end;
    }
    builder.finish()?;
    dat.flush()?;
    Ok((rows.len() as u64, distinct))
}

/// Writes the type index: each typed IRI's key → its classes, sorted, one per
/// line. Returns the table file and the number of typed IRIs.
pub fn write_types(
    store: &StoreWriter,
    types: Vec<(u64, u32)>,
    type_names: &[String],
) -> Result<(Option<SortedFile>, u64), WriteError> {
    // class ids renumbered in the order of their IRIs, so each list is sorted
    let mut by_name: Vec<u32> = (0..type_names.len() as u32).collect();
    by_name.sort_unstable_by(|a, b| type_names[*a as usize].cmp(&type_names[*b as usize]));
    let mut rank = vec![0u32; by_name.len()];
    for (r, id) in by_name.iter().enumerate() {
        rank[*id as usize] = r as u32;
    }
    let mut types: Vec<(u64, u32)> = types
        .into_iter()
        .map(|(key, id)| (key, rank[id as usize]))
        .collect();
    types.sort_unstable();
    types.dedup();
    let mut types_cf = store.sorted(CF_TYPES)?;
    let mut typed = 0;
    let mut joined = String::new();
    for group in types.chunk_by(|a, b| a.0 == b.0) {
        joined.clear();
        encode_list(
            group
                .iter()
                .map(|t| type_names[by_name[t.1 as usize] as usize].as_str()),
            &mut joined,
        );
        types_cf.put(&iri_key_bytes(group[0].0), joined.as_bytes())?;
        typed += 1;
    }
    Ok((types_cf.finish()?, typed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::labels::{normalize_label, Labels};

    #[test]
    fn exact_fuzzy_and_languages() {
        let dir = std::env::temp_dir().join(format!("qajudge-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let mut postings = Postings::default();
        let mut batch = Postings::default();
        for (label, lang, iri) in [
            ("Douglas Adams", "en", "http://www.wikidata.org/entity/Q42"),
            ("Douglas  ADAMS", "de", "http://www.wikidata.org/entity/Q42"),
            (
                "Douglas Adams",
                "en-gb",
                "http://dbpedia.org/resource/Douglas_Adams",
            ),
            ("Café", "fr", "http://x.org/cafe"),
            // a duplicate counts once
            ("Café", "fr", "http://x.org/cafe"),
        ] {
            batch.push(&normalize_label(label), lang, iri, label, 0);
        }
        postings.push("zzz", "", "http://x.org/z", "zzz", 0);
        postings.append(&mut batch);
        assert!(batch.is_empty());
        assert_eq!(postings.len(), 6);
        let (n, distinct) = write_labels(&dir, postings).expect("written");
        assert_eq!((n, distinct), (5, 3));
        let labels = Labels::open(&dir).expect("opened");
        assert_eq!(labels.lookup("douglas adams", None).len(), 3);
        assert_eq!(labels.lookup("Douglas Adams", Some("en")).len(), 2);
        assert_eq!(labels.lookup("Douglas Adams", Some("de")).len(), 1);
        assert_eq!(labels.lookup("cafe\u{301}", None).len(), 1, "NFC");
        assert!(labels.lookup("Douglas Adam", None).is_empty());
        assert_eq!(
            labels.fuzzy("Duglas Adams", 1, None).expect("fuzzy").len(),
            3
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn names_keep_per_language_the_label_of_the_preferred_predicate() {
        let predicates: Vec<String> = crate::indexer::DEFAULT_LABELS
            .iter()
            .map(|p| (*p).to_string())
            .collect();
        let rank = |p: &str| label_rank(&predicates, p);
        let skos = "http://www.w3.org/2004/02/skos/core#";
        assert_eq!(rank("http://www.w3.org/2000/01/rdf-schema#label"), 0);
        assert_eq!(rank("http://schema.org/name"), 4);
        assert_eq!(rank(&format!("{skos}altLabel")), 5 + 2, "after every other");
        assert_eq!(rank(&format!("{skos}hiddenLabel")), 5 + 5);

        let dir = std::env::temp_dir().join(format!("qajudge-names-{}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).expect("clean");
        }
        let store = StoreWriter::create(&dir).expect("store");
        let mut postings = Postings::default();
        let q76 = "http://www.wikidata.org/entity/Q76";
        for (label, lang, iri, rank) in [
            ("Obama", "en", q76, rank(&format!("{skos}altLabel"))),
            ("Barack Obama", "en", q76, 0),
            ("B. Obama", "en", q76, 0),
            ("Barack Obama", "de", q76, 4),
            ("Ann", "", "http://x.org/ann", 0),
        ] {
            postings.push(&normalize_label(label), lang, iri, label, rank);
        }
        let (file, named) = write_names(&store, &postings).expect("written");
        assert_eq!(named, 2);
        store.finish(file.into_iter().collect()).expect("ingested");
        let read = crate::index::kv::Store::open(&dir, crate::index::format::FORMAT_VERSION)
            .expect("opens");
        let names = |iri: &str| {
            read.with(CF_NAMES, &iri_key_bytes(iri_key(iri)), |v| {
                v.map(crate::index::format::decode_names)
            })
            .expect("read")
        };
        let pairs = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(l, n)| ((*l).to_string(), (*n).to_string()))
                .collect::<Vec<_>>()
        };
        // per language one label: the lowest rank, then the smallest as written
        assert_eq!(
            names(q76),
            Some(pairs(&[("de", "Barack Obama"), ("en", "B. Obama")]))
        );
        assert_eq!(names("http://x.org/ann"), Some(pairs(&[("", "Ann")])));
        assert_eq!(names("http://x.org/nobody"), None);
        drop(read);
        std::fs::remove_dir_all(&dir).ok();
    }
}
