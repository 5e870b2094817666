//! The experiment store's records on disk (RocksDB): JSON records under their
//! stable ids, every write synced before it returns.
//!
//! The store only ever writes into a directory that is absent, empty, or holds
//! what it wrote itself: a data directory (`serve --data`) holding anything but
//! the record store's directory, or a record store's directory holding anything
//! but RocksDB's files, is refused with an error naming the first foreign entry,
//! so that a mistyped `--data` never mixes the store into someone's files.

use std::fs::FileType;
use std::path::{Path, PathBuf};

use rocksdb::{Options, DB};

/// The record store cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB failed.
    #[error(transparent)]
    Db(#[from] rocksdb::Error),
    /// The directory holds an entry the store did not write.
    #[error("{dir}: holds {entry:?}, which is not part of an experiment store; give --data an empty or new directory, or one a qajudge server wrote")]
    Foreign {
        /// The directory.
        dir: PathBuf,
        /// The first foreign entry's name.
        entry: String,
    },
    /// The path is there but is not a directory.
    #[error("{path}: is not a directory; give --data an empty or new directory")]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The directory cannot be listed.
    #[error("{path}: cannot list it")]
    List {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Whether `name` is one of the files RocksDB writes into its directory:
/// `CURRENT`, `IDENTITY`, `LOCK`, `LOG` and `LOG.old.*` (its info log),
/// `MANIFEST-*`, `OPTIONS-*`, and numbered `.log` (write-ahead log), `.sst`,
/// `.ldb`, `.blob` and `.dbtmp` (a file being written) files.
fn is_rocksdb_file(name: &str) -> bool {
    if matches!(name, "CURRENT" | "IDENTITY" | "LOCK" | "LOG")
        || name.starts_with("LOG.old.")
        || name.starts_with("MANIFEST-")
        || name.starts_with("OPTIONS-")
    {
        return true;
    }
    name.split_once('.').is_some_and(|(number, ext)| {
        !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
            && matches!(ext, "log" | "sst" | "ldb" | "blob" | "dbtmp")
    })
}

/// Checks that `dir` is absent, or a directory (a link to one is followed)
/// whose every entry `ours` accepts by its name and its own type (links in it
/// are not followed); the first other entry, in name order, is the error.
fn check_only(dir: &Path, ours: impl Fn(&str, FileType) -> bool) -> Result<(), StoreError> {
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Ok(meta) if !meta.is_dir() => {
            return Err(StoreError::NotADirectory {
                path: dir.to_path_buf(),
            })
        }
        _ => {}
    }
    let list = |source| StoreError::List {
        path: dir.to_path_buf(),
        source,
    };
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list)? {
        let entry = entry.map_err(list)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_type = entry.file_type().map_err(list)?;
        if !ours(&name, file_type) {
            foreign.push(name);
        }
    }
    match foreign.into_iter().min() {
        Some(entry) => Err(StoreError::Foreign {
            dir: dir.to_path_buf(),
            entry,
        }),
        None => Ok(()),
    }
}

/// Checks a data directory (`serve --data`) before anything is written into
/// it: absent, empty, or holding only the record store's directory `records`,
/// which itself holds only RocksDB's files.
pub fn check_data_dir(dir: &Path, records: &str) -> Result<(), StoreError> {
    check_only(dir, |name, t| name == records && t.is_dir())?;
    check_only(&dir.join(records), |name, t| {
        t.is_file() && is_rocksdb_file(name)
    })
}

/// A small read-write store of records under string keys. Every write is synced.
pub struct RecordStore {
    db: DB,
}

impl RecordStore {
    /// Opens (or creates) a record store at `path`, which must be absent,
    /// empty or hold only RocksDB's files.
    pub fn open(path: &Path) -> Result<RecordStore, StoreError> {
        check_only(path, |name, t| t.is_file() && is_rocksdb_file(name))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qajudge-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn rocksdb_files_are_told_from_others() {
        for name in [
            "CURRENT",
            "IDENTITY",
            "LOCK",
            "LOG",
            "LOG.old.1700000000000000",
            "MANIFEST-000005",
            "OPTIONS-000007",
            "OPTIONS-000007.dbtmp",
            "000004.log",
            "000009.sst",
            "000001.dbtmp",
        ] {
            assert!(is_rocksdb_file(name), "{name}");
        }
        for name in [
            "thesis.txt",
            "server.log",
            ".sst",
            "x1.sst",
            "CURRENT.bak",
            "current",
        ] {
            assert!(!is_rocksdb_file(name), "{name}");
        }
    }

    #[test]
    fn a_store_opens_again_in_what_it_wrote_and_not_among_other_files() {
        let dir = scratch("records");
        let data = dir.join("data");
        check_data_dir(&data, "experiments").expect("absent is fine");
        std::fs::create_dir_all(&data).expect("data");
        check_data_dir(&data, "experiments").expect("empty is fine");
        let store = RecordStore::open(&data.join("experiments")).expect("opens");
        store.put("k", b"v").expect("put");
        drop(store);
        check_data_dir(&data, "experiments").expect("what the store wrote is fine");
        let store = RecordStore::open(&data.join("experiments")).expect("opens again");
        assert_eq!(store.get("k").expect("get"), Some(b"v".to_vec()));
        drop(store);

        std::fs::write(data.join("thesis.txt"), b"t").expect("thesis");
        let e = check_data_dir(&data, "experiments").expect_err("refused");
        assert!(
            matches!(&e, StoreError::Foreign { entry, .. } if entry == "thesis.txt"),
            "{e}"
        );
        assert!(
            e.to_string().starts_with(&data.display().to_string()),
            "{e}"
        );
        std::fs::remove_file(data.join("thesis.txt")).expect("removed");

        std::fs::write(data.join("experiments/notes.md"), b"n").expect("notes");
        let Err(e) = RecordStore::open(&data.join("experiments")) else {
            panic!("a store among other files opened");
        };
        assert!(
            matches!(&e, StoreError::Foreign { entry, .. } if entry == "notes.md"),
            "{e}"
        );
        assert!(check_data_dir(&data, "experiments").is_err());
        assert_eq!(
            std::fs::read(data.join("experiments/notes.md")).expect("kept"),
            b"n"
        );

        // the store's name on a file is not the store
        let other = dir.join("other");
        std::fs::create_dir_all(&other).expect("other");
        std::fs::write(other.join("experiments"), b"x").expect("file");
        assert!(check_data_dir(&other, "experiments").is_err());
        // and a file is no data directory
        let e = check_data_dir(&other.join("experiments"), "experiments").expect_err("refused");
        assert!(matches!(e, StoreError::NotADirectory { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
