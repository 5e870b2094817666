//! The RocksDB store of an index (the one module that names rocksdb): the `iri`,
//! `members` and `types` column families, written once by the indexer and opened
//! read-only for lookups.

use std::path::Path;

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, IngestExternalFileOptions, Options,
    ReadOptions, SstFileWriter, DB,
};

/// Column family: key of a canonical IRI (`hash::iri_key`, u64 big endian) → class
/// id and class size (two u32, big endian).
pub const CF_IRI: &str = "iri";
/// Column family: class id → member IRIs as written, `\n`-separated.
pub const CF_MEMBERS: &str = "members";
/// Column family: key of a canonical IRI (as in `iri`) → classes, `\n`-separated.
pub const CF_TYPES: &str = "types";

const CFS: [&str; 3] = [CF_IRI, CF_MEMBERS, CF_TYPES];

/// The block cache shared by the column families of an opened store.
const BLOCK_CACHE_BYTES: usize = 256 << 20;
/// The row cache (key → value) of an opened store.
const ROW_CACHE_BYTES: usize = 128 << 20;

/// Column-family options for writing and reading alike: a bloom filter so that a
/// lookup of an IRI the index does not hold (most lookups) rarely reads a block,
/// and an LRU block cache.
fn cf_options(cache: &Cache) -> Options {
    let mut table = BlockBasedOptions::default();
    table.set_bloom_filter(10.0, false);
    table.set_block_cache(cache);
    // point lookups: small blocks, with a hash index inside each block
    table.set_block_size(4 << 10);
    table.set_data_block_index_type(rocksdb::DataBlockIndexType::BinaryAndHash);
    table.set_data_block_hash_ratio(0.75);

    let mut opts = Options::default();
    opts.set_block_based_table_factory(&table);
    opts
}

/// A store error, as text (rocksdb's error type stays here).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

fn err(e: rocksdb::Error) -> StoreError {
    StoreError(e.into_string())
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
    ) -> Result<Self, StoreError> {
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

    fn next_file(&mut self) -> Result<(), StoreError> {
        let file = self.dir.join(format!(
            "{}-{}-{:05}.sst",
            self.cf,
            self.part,
            self.files.len()
        ));
        self.writer = SstFileWriter::create(self.options);
        self.writer.open(&file).map_err(err)?;
        self.files.push(file);
        self.in_file = 0;
        Ok(())
    }

    /// Adds a key greater than every key added before.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        if self.in_file % 4096 == 4095 && self.writer.file_size() >= TABLE_FILE_BYTES {
            self.writer.finish().map_err(err)?;
            self.next_file()?;
        }
        self.in_file += 1;
        self.writer.put(key, value).map_err(err)
    }

    /// Finishes the files (a column family without entries gets none).
    pub fn finish(mut self) -> Result<Option<SortedFile>, StoreError> {
        if self.in_file == 0 {
            // the last file was opened but never written
            self.files.pop();
        } else {
            self.writer.finish().map_err(err)?;
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

/// A column family written in increasing key order by a thread of its own:
/// entries are sent to it in chunks.
pub struct BackgroundWriter<'scope> {
    tx: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    /// Chunks the writer is done with, to be filled again: fresh memory costs
    /// more than reuse (the kernel zeroes, and a virtual machine's host may
    /// back, every new page), so a chunk is not made and freed per MiB written.
    done: std::sync::mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    handle: std::thread::ScopedJoinHandle<'scope, Result<Option<SortedFile>, StoreError>>,
}

/// Bytes of entries per chunk sent to a background writer.
const CHUNK_BYTES: usize = 1 << 20;

impl BackgroundWriter<'_> {
    /// Adds a key greater than every key added before.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.buf
            .extend_from_slice(&(key.len() as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&(value.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(key);
        self.buf.extend_from_slice(value);
        if self.buf.len() >= CHUNK_BYTES {
            let empty = self
                .done
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(CHUNK_BYTES + 4096));
            let chunk = std::mem::replace(&mut self.buf, empty);
            let sent = self.tx.as_ref().map(|tx| tx.send(chunk).is_ok());
            if sent != Some(true) {
                // the writer stopped: its error says why
                self.tx = None;
                return Err(StoreError("the table writer stopped".into()));
            }
        }
        Ok(())
    }

    /// Sends what is left and waits for the file.
    pub fn finish(mut self) -> Result<Option<SortedFile>, StoreError> {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(std::mem::take(&mut self.buf));
        }
        self.handle
            .join()
            .unwrap_or_else(|_| Err(StoreError("the table writer failed".into())))
    }
}

impl StoreWriter {
    /// A writer for one column family that writes on a thread of `scope`. Writers
    /// of one column family are told apart by `part` and must write key ranges
    /// that do not overlap.
    pub fn sorted_in<'scope, 'env>(
        &'env self,
        scope: &'scope std::thread::Scope<'scope, 'env>,
        cf: &'static str,
        part: u32,
    ) -> BackgroundWriter<'scope> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
        // unbounded, but it never holds more chunks than were ever in flight
        let (done_tx, done) = std::sync::mpsc::channel::<Vec<u8>>();
        let handle = scope.spawn(move || {
            let mut w = SortedWriter::open(&self.options, &self.path.join("sst"), cf, part)?;
            for mut chunk in rx {
                let mut i = 0;
                while i + 8 <= chunk.len() {
                    let kl =
                        u32::from_le_bytes([chunk[i], chunk[i + 1], chunk[i + 2], chunk[i + 3]])
                            as usize;
                    let vl = u32::from_le_bytes([
                        chunk[i + 4],
                        chunk[i + 5],
                        chunk[i + 6],
                        chunk[i + 7],
                    ]) as usize;
                    let k = i + 8;
                    let v = k + kl;
                    w.put(&chunk[k..v], &chunk[v..v + vl])?;
                    i = v + vl;
                }
                chunk.clear();
                let _ = done_tx.send(chunk);
            }
            w.finish()
        });
        BackgroundWriter {
            tx: Some(tx),
            done,
            buf: Vec::with_capacity(CHUNK_BYTES + 4096),
            handle,
        }
    }

    /// Starts a new store at `path` (which must not exist).
    pub fn create(path: &Path) -> Result<StoreWriter, StoreError> {
        std::fs::create_dir_all(path.join("sst")).map_err(|e| StoreError(e.to_string()))?;
        let cache = Cache::new_lru_cache(8 << 20);
        let options = cf_options(&cache);
        Ok(StoreWriter {
            path: path.to_path_buf(),
            cache,
            options,
        })
    }

    /// A writer for one column family (one of `CF_IRI`, `CF_MEMBERS`, `CF_TYPES`).
    pub fn sorted(&self, cf: &'static str) -> Result<SortedWriter<'_>, StoreError> {
        SortedWriter::open(&self.options, &self.path.join("sst"), cf, 0)
    }

    /// Creates the database and ingests the files written.
    pub fn finish(self, files: Vec<SortedFile>) -> Result<(), StoreError> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        let cfs = CFS
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&self.cache)));
        let db = DB::open_cf_descriptors(&opts, &self.path, cfs).map_err(err)?;
        // the files of each column family at once (writers of one family wrote
        // key ranges that do not overlap)
        let mut by_cf: std::collections::BTreeMap<&str, Vec<std::path::PathBuf>> =
            Default::default();
        for SortedFile { cf, files } in files {
            by_cf.entry(cf).or_default().extend(files);
        }
        for (cf, files) in by_cf {
            let handle = db
                .cf_handle(cf)
                .ok_or_else(|| StoreError(format!("no column family {cf}")))?;
            let mut ingest = IngestExternalFileOptions::default();
            ingest.set_move_files(true);
            db.ingest_external_file_cf_opts(handle, &ingest, files)
                .map_err(err)?;
        }
        db.flush().map_err(err)?;
        drop(db);
        std::fs::remove_dir_all(self.path.join("sst")).map_err(|e| StoreError(e.to_string()))
    }
}

/// A store opened for lookups.
pub struct Store {
    db: DB,
    read: ReadOptions,
}

impl Store {
    /// Opens a store read-only.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut opts = Options::default();
        // lookups ask for the same IRIs again and again (one answer in many runs,
        // questions and sub-experiments): a row cache answers them without the
        // table's index and block, 2-3x faster than a block-cache hit
        opts.set_row_cache(&Cache::new_lru_cache(ROW_CACHE_BYTES));
        // blocks the caches have not seen are read from memory-mapped files
        // instead of with a system call each (1.4x faster once the files are in
        // the OS page cache)
        opts.set_allow_mmap_reads(true);
        let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
        let cfs = CFS
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&cache)));
        let db = DB::open_cf_descriptors_read_only(&opts, path, cfs, false).map_err(err)?;
        let mut read = ReadOptions::default();
        read.set_verify_checksums(false);
        Ok(Store { db, read })
    }

    /// The value of a key in a column family.
    pub fn get(&self, cf: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.with(cf, key, |v| v.map(<[u8]>::to_vec))
    }

    /// Calls `f` with the value of a key (no copy of the value).
    pub fn with<T>(
        &self,
        cf: &str,
        key: &[u8],
        f: impl FnOnce(Option<&[u8]>) -> T,
    ) -> Result<T, StoreError> {
        let handle = self
            .db
            .cf_handle(cf)
            .ok_or_else(|| StoreError(format!("no column family {cf}")))?;
        let value = self
            .db
            .get_pinned_cf_opt(handle, key, &self.read)
            .map_err(err)?;
        Ok(f(value.as_deref()))
    }
}

/// A small read-write store of records under string keys (stored experiments),
/// kept here so that rocksdb stays named in one module. Every write is synced.
pub struct RecordStore {
    db: DB,
}

impl RecordStore {
    /// Opens (or creates) a record store at `path`.
    pub fn open(path: &Path) -> Result<RecordStore, StoreError> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        let db = DB::open(&opts, path).map_err(err)?;
        Ok(RecordStore { db })
    }

    /// Writes a record (durably: synced before returning).
    pub fn put(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let mut write = rocksdb::WriteOptions::default();
        write.set_sync(true);
        self.db.put_opt(key.as_bytes(), value, &write).map_err(err)
    }

    /// Reads a record.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.db.get(key.as_bytes()).map_err(err)
    }

    /// Every record, in key order.
    pub fn all(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.db
            .iterator(rocksdb::IteratorMode::Start)
            .map(|item| {
                item.map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
                    .map_err(err)
            })
            .collect()
    }
}
