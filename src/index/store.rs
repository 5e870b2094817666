//! The RocksDB store of an index (the one module that names rocksdb): the `iri`,
//! `members` and `types` column families, written once by the indexer and opened
//! read-only for lookups.

use std::path::Path;

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, Options, ReadOptions, WriteBatch, DB,
};

/// Column family: canonical IRI → class id and class size (two u32, big endian).
pub const CF_IRI: &str = "iri";
/// Column family: class id → member IRIs as written, `\n`-separated.
pub const CF_MEMBERS: &str = "members";
/// Column family: canonical IRI → classes, `\n`-separated.
pub const CF_TYPES: &str = "types";

const CFS: [&str; 3] = [CF_IRI, CF_MEMBERS, CF_TYPES];

/// The block cache shared by the column families of an opened store.
const BLOCK_CACHE_BYTES: usize = 256 << 20;

/// Column-family options for writing and reading alike: a bloom filter so that a
/// lookup of an IRI the index does not hold (most lookups) rarely reads a block,
/// and an LRU block cache.
fn cf_options(cache: &Cache) -> Options {
    let mut table = BlockBasedOptions::default();
    table.set_bloom_filter(10.0, false);
    table.set_block_cache(cache);
    table.set_block_size(16 << 10);
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

/// A writable store being built.
pub struct StoreWriter {
    db: DB,
    batch: WriteBatch,
}

impl StoreWriter {
    /// Creates a new store at `path` (which must not exist).
    pub fn create(path: &Path) -> Result<StoreWriter, StoreError> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        opts.set_write_buffer_size(64 << 20);
        let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
        let cfs = CFS
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&cache)));
        let db = DB::open_cf_descriptors(&opts, path, cfs).map_err(err)?;
        Ok(StoreWriter {
            db,
            batch: WriteBatch::default(),
        })
    }

    /// Adds a key and value to a column family (written in batches).
    pub fn put(&mut self, cf: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let handle = self
            .db
            .cf_handle(cf)
            .ok_or_else(|| StoreError(format!("no column family {cf}")))?;
        self.batch.put_cf(handle, key, value);
        if self.batch.len() >= 100_000 {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        let batch = std::mem::take(&mut self.batch);
        self.db.write(batch).map_err(err)
    }

    /// Writes what is pending and compacts, so that the store opens fast.
    pub fn finish(mut self) -> Result<(), StoreError> {
        self.flush()?;
        for cf in CFS {
            if let Some(h) = self.db.cf_handle(cf) {
                self.db.compact_range_cf(h, None::<&[u8]>, None::<&[u8]>);
            }
        }
        self.db.flush().map_err(err)
    }
}

/// A store opened for lookups.
pub struct Store {
    db: DB,
}

impl Store {
    /// Opens a store read-only.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let opts = Options::default();
        let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
        let cfs = CFS
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&cache)));
        let db = DB::open_cf_descriptors_read_only(&opts, path, cfs, false).map_err(err)?;
        Ok(Store { db })
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
        let mut read = ReadOptions::default();
        read.set_verify_checksums(false);
        let value = self.db.get_pinned_cf_opt(handle, key, &read).map_err(err)?;
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
