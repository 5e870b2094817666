//! The experiment store's records on disk (RocksDB): JSON records under their
//! stable ids, every write synced before it returns.

use std::path::Path;

use rocksdb::{Options, DB};

/// The record store cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct StoreError(#[from] rocksdb::Error);

/// A small read-write store of records under string keys. Every write is synced.
pub struct RecordStore {
    db: DB,
}

impl RecordStore {
    /// Opens (or creates) a record store at `path`.
    pub fn open(path: &Path) -> Result<RecordStore, StoreError> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        let db = DB::open(&opts, path).map_err(StoreError::from)?;
        Ok(RecordStore { db })
    }

    /// Writes a record (durably: synced before returning).
    pub fn put(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let mut write = rocksdb::WriteOptions::default();
        write.set_sync(true);
        self.db
            .put_opt(key.as_bytes(), value, &write)
            .map_err(StoreError::from)
    }

    /// Reads a record.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.db.get(key.as_bytes()).map_err(StoreError::from)
    }

    /// Every record, in key order.
    pub fn all(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.db
            .iterator(rocksdb::IteratorMode::Start)
            .map(|item| {
                item.map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
                    .map_err(StoreError::from)
            })
            .collect()
    }
}
