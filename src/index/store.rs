//! The RocksDB store of an index (the one module that names rocksdb): the `iri`,
//! `members` and `types` column families, written once by the indexer and opened
//! read-only for lookups.

use std::path::Path;

use rocksdb::{ColumnFamilyDescriptor, Options, WriteBatch, DB};

/// Column family: canonical IRI → class id and class size (two u32, big endian).
pub const CF_IRI: &str = "iri";
/// Column family: class id → member IRIs as written, `\n`-separated.
pub const CF_MEMBERS: &str = "members";
/// Column family: canonical IRI → classes, `\n`-separated.
pub const CF_TYPES: &str = "types";

const CFS: [&str; 3] = [CF_IRI, CF_MEMBERS, CF_TYPES];

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
        let cfs = CFS
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, Options::default()));
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
        let db = DB::open_cf_for_read_only(&opts, path, CFS, false).map_err(err)?;
        Ok(Store { db })
    }

    /// The value of a key in a column family.
    pub fn get(&self, cf: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let handle = self
            .db
            .cf_handle(cf)
            .ok_or_else(|| StoreError(format!("no column family {cf}")))?;
        self.db.get_cf(handle, key).map_err(err)
    }
}
