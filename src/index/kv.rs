//! The read side of the index's RocksDB store: the column families of
//! `format.rs` opened read-only, with the table options the writer uses too
//! (bloom filters, small blocks with a hash index), and point lookups that hand
//! the value to a closure without copying it.

use std::path::Path;

use rocksdb::{BlockBasedOptions, Cache, ColumnFamilyDescriptor, Options, ReadOptions, DB};

use super::format::column_families;

/// A store that cannot be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum KvError {
    /// RocksDB failed.
    #[error(transparent)]
    RocksDb(#[from] rocksdb::Error),
    /// A column family the format needs is not in the store.
    #[error("no column family {0}")]
    NoColumnFamily(String),
}

/// The block cache shared by the column families of an opened store.
const BLOCK_CACHE_BYTES: usize = 256 << 20;
/// The row cache (key → value) of an opened store.
const ROW_CACHE_BYTES: usize = 128 << 20;

/// Column-family options for writing and reading alike: a bloom filter so that a
/// lookup of an IRI the index does not hold (most lookups) rarely reads a block,
/// and an LRU block cache.
pub fn cf_options(cache: &Cache) -> Options {
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

/// A store opened for lookups.
pub struct Store {
    db: DB,
    read: ReadOptions,
}

impl Store {
    /// Opens the store of an index of format `version` read-only, with the
    /// column families that version has.
    pub fn open(path: &Path, version: u32) -> Result<Store, KvError> {
        let mut opts = Options::default();
        // lookups ask for the same IRIs again and again (one answer in many runs,
        // questions and sub-experiments): a row cache skips the table's index
        // and block
        opts.set_row_cache(&Cache::new_lru_cache(ROW_CACHE_BYTES));
        // blocks the caches have not seen: memory-mapped, no system call each
        opts.set_allow_mmap_reads(true);
        let cache = Cache::new_lru_cache(BLOCK_CACHE_BYTES);
        let cfs = column_families(version)
            .iter()
            .map(|name| ColumnFamilyDescriptor::new(*name, cf_options(&cache)));
        let db = DB::open_cf_descriptors_read_only(&opts, path, cfs, false)?;
        // every block read from the files is checked against its checksum (a
        // damaged file is an error, never a different answer); a cached block
        // was checked when it was read
        let mut read = ReadOptions::default();
        read.set_verify_checksums(true);
        Ok(Store { db, read })
    }

    /// The value of a key in a column family.
    pub fn get(&self, cf: &str, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        self.with(cf, key, |v| v.map(<[u8]>::to_vec))
    }

    /// Calls `f` with the value of a key (no copy of the value).
    pub fn with<T>(
        &self,
        cf: &str,
        key: &[u8],
        f: impl FnOnce(Option<&[u8]>) -> T,
    ) -> Result<T, KvError> {
        let handle = self
            .db
            .cf_handle(cf)
            .ok_or_else(|| KvError::NoColumnFamily(cf.to_string()))?;
        let value = self.db.get_pinned_cf_opt(handle, key, &self.read)?;
        Ok(f(value.as_deref()))
    }
}
