//! The experiment store's records on disk (RocksDB): JSON records under their
//! stable ids, every write synced before it returns.
//!
//! The store only ever writes into a directory that is absent, empty, or holds
//! what it wrote itself: a data directory (`serve --data`) holding anything but
//! the record store's directory, or a record store's directory holding anything
//! but RocksDB's files, is refused with an error naming the first foreign entry,
//! so that a mistyped `--data` never mixes the store into someone's files.
//!
//! A store survives a full disk. After a write fails with an I/O error (a full
//! disk, say) RocksDB refuses every later write until the database is opened
//! again, so the store closes and reopens it (at most once per
//! [`REOPEN_COOLDOWN`]) and tries the write once more; when reopening for
//! writing fails it reopens read-only, so that records can still be read. The
//! store's [`StoreHealth`] says whether the last write succeeded, and since
//! when writes fail; [`RecordStore::probe`] tries a write that leaves no
//! record, so that a degraded store finds out that it can write again.

use std::fs::FileType;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rocksdb::{ErrorKind, Options, WriteOptions, DB};

use crate::clock::now_secs;

/// The least time between two reopenings of the database, so that a full disk
/// does not make every request close and open it.
pub const REOPEN_COOLDOWN: Duration = Duration::from_secs(1);

/// The key [`RecordStore::probe`] deletes: never a record's (ids are digits),
/// and a delete leaves no record behind.
const PROBE_KEY: &[u8] = b"probe";

/// The record store cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB failed.
    #[error(transparent)]
    Db(#[from] rocksdb::Error),
    /// The disk under the store is full: a write failed, and again after the
    /// store was reopened (or reopening was not due yet).
    #[error("{path}: the disk is full, so the experiment store cannot write; free space on it (the server reopens the store by itself)")]
    Full {
        /// The store's directory.
        path: PathBuf,
        /// The last write's error.
        #[source]
        source: rocksdb::Error,
    },
    /// A write failed for another reason, and again after the store was
    /// reopened (or reopening was not due yet).
    #[error("{path}: the experiment store cannot write; check the disk under it (the server reopens the store by itself)")]
    Unwritable {
        /// The store's directory.
        path: PathBuf,
        /// The last write's error.
        #[source]
        source: rocksdb::Error,
    },
    /// Reopening the store failed, even read-only: it can be neither read nor
    /// written until a later reopening succeeds.
    #[error("{path}: the experiment store is closed since reopening it failed; check the disk under it (the server reopens the store by itself)")]
    Closed {
        /// The store's directory.
        path: PathBuf,
    },
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

/// Whether the message of a RocksDB error says the disk is full: the
/// operating system's "no space left on device" (ENOSPC), or the `NoSpace` of
/// RocksDB's own status. A `rocksdb::Error` tells its cause by its message
/// only.
pub fn is_no_space(message: &str) -> bool {
    message.contains("No space left on device") || message.contains("NoSpace")
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

/// Whether the store could write the last time it tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreHealth {
    /// The last write succeeded (or none was tried yet).
    Ok,
    /// The last write failed, and again after reopening the store.
    Degraded {
        /// The last write's error, with its causes.
        error: String,
        /// Whether the disk is full (see [`is_no_space`]).
        disk_full: bool,
        /// When writes began to fail, in seconds since the Unix epoch.
        since: u64,
    },
}

/// The open database, if any, and what it may do.
struct Handle {
    /// The database; `None` when reopening it failed even read-only.
    db: Option<DB>,
    /// Opened for writing (not read-only after a failed reopening).
    writable: bool,
    /// Counts openings, so that of the writers that failed on one handle only
    /// the first reopens it.
    generation: u64,
}

/// What a store remembers of its failures.
struct Failures {
    /// Whether the last write succeeded.
    health: StoreHealth,
    /// The last failed write's error (returned again while reopening is not due).
    last: Option<rocksdb::Error>,
    /// When the database was last reopened (for [`REOPEN_COOLDOWN`]).
    reopened: Option<Instant>,
}

/// A small read-write store of records under string keys. Every write is
/// synced; a write that fails with an I/O error reopens the database and is
/// tried once more (see the module's documentation).
pub struct RecordStore {
    /// The store's directory.
    path: PathBuf,
    /// The database, replaced when it is reopened.
    handle: RwLock<Handle>,
    /// The store's health and the time of the last reopening.
    failures: Mutex<Failures>,
    /// The least time between two reopenings ([`REOPEN_COOLDOWN`]; the tests
    /// shorten it).
    cooldown: Duration,
}

/// The options the store's database is opened with: created when missing, and
/// few old info logs kept (every reopening starts a new one).
fn db_options() -> Options {
    let mut opts = Options::default();
    opts.create_if_missing(true);
    opts.set_keep_log_file_num(10);
    opts
}

/// Write options that sync the write-ahead log before the write returns.
fn synced() -> WriteOptions {
    let mut write = WriteOptions::default();
    write.set_sync(true);
    write
}

impl RecordStore {
    /// Opens (or creates) a record store at `path`, which must be absent,
    /// empty or hold only RocksDB's files.
    pub fn open(path: &Path) -> Result<RecordStore, StoreError> {
        check_only(path, |name, t| t.is_file() && is_rocksdb_file(name))?;
        let db = DB::open(&db_options(), path).map_err(StoreError::from)?;
        Ok(RecordStore {
            path: path.to_path_buf(),
            handle: RwLock::new(Handle {
                db: Some(db),
                writable: true,
                generation: 0,
            }),
            failures: Mutex::new(Failures {
                health: StoreHealth::Ok,
                last: None,
                reopened: None,
            }),
            cooldown: REOPEN_COOLDOWN,
        })
    }

    /// The failures, also after a thread panicked holding them (they stay
    /// consistent: every change is one assignment).
    fn failures(&self) -> MutexGuard<'_, Failures> {
        self.failures.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes a record (durably: synced before returning).
    pub fn put(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.write(|db| db.put_opt(key.as_bytes(), value, &synced()))
    }

    /// Tries a synced write that leaves no record (a delete of a key no record
    /// has): reopens a degraded store when that is due, and sets the store's
    /// health to what the write found.
    pub fn probe(&self) -> Result<(), StoreError> {
        self.write(|db| db.delete_opt(PROBE_KEY, &synced()))
    }

    /// Whether the last write succeeded, and if not, why and since when.
    pub fn health(&self) -> StoreHealth {
        self.failures().health.clone()
    }

    /// How many times the database was reopened: a record a failed write may
    /// have left (a write reported failed whose bytes still reached the disk)
    /// can appear after each reopening.
    pub fn generation(&self) -> u64 {
        self.read_handle().generation
    }

    /// The handle for reading, also after a thread panicked holding it.
    fn read_handle(&self) -> std::sync::RwLockReadGuard<'_, Handle> {
        self.handle.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `op` on the writable database: `Err(None)` when there is none
    /// (the store is read-only or closed after a failed reopening). Also gives
    /// the handle's generation.
    fn try_write(
        &self,
        op: &impl Fn(&DB) -> Result<(), rocksdb::Error>,
    ) -> (Result<(), Option<rocksdb::Error>>, u64) {
        let handle = self.read_handle();
        let result = match &handle.db {
            Some(db) if handle.writable => op(db).map_err(Some),
            _ => Err(None),
        };
        (result, handle.generation)
    }

    /// Runs a write; on an I/O error (or without a writable database) reopens
    /// the database, when no other writer did since and reopening is due, and
    /// runs it once more. Sets the store's health.
    fn write(&self, op: impl Fn(&DB) -> Result<(), rocksdb::Error>) -> Result<(), StoreError> {
        let (first, generation) = self.try_write(&op);
        let error = match first {
            Ok(()) => {
                self.wrote();
                return Ok(());
            }
            Err(Some(e)) if e.kind() != ErrorKind::IOError => return Err(self.failed(Some(e))),
            Err(e) => e,
        };
        let retried = if self.reopen(generation) {
            self.try_write(&op).0
        } else {
            Err(None)
        };
        match retried {
            Ok(()) => {
                self.wrote();
                Ok(())
            }
            Err(again) => Err(self.failed(again.or(error))),
        }
    }

    /// Notes a write that succeeded: the store is healthy.
    fn wrote(&self) {
        let mut failures = self.failures();
        if let StoreHealth::Degraded { .. } = failures.health {
            eprintln!(
                "qajudge: the experiment store {} writes again",
                self.path.display()
            );
        }
        failures.health = StoreHealth::Ok;
        failures.last = None;
    }

    /// Notes a write that failed with `error` (`None`: there was no writable
    /// database to try, so the last error stands) and gives the error to
    /// return: the store is degraded.
    fn failed(&self, error: Option<rocksdb::Error>) -> StoreError {
        let mut failures = self.failures();
        let source = error.or_else(|| failures.last.clone());
        let path = self.path.clone();
        let e = match source.clone() {
            Some(source) if is_no_space(source.as_ref()) => StoreError::Full { path, source },
            Some(source) => StoreError::Unwritable { path, source },
            None => StoreError::Closed { path },
        };
        let since = match failures.health {
            StoreHealth::Degraded { since, .. } => since,
            StoreHealth::Ok => {
                eprintln!("qajudge: {}", crate::error_chain(&e));
                now_secs()
            }
        };
        failures.health = StoreHealth::Degraded {
            error: crate::error_chain(&e),
            disk_full: matches!(e, StoreError::Full { .. }),
            since,
        };
        failures.last = source;
        e
    }

    /// Closes the database and opens it again for writing, unless another
    /// writer reopened it since `generation` or the last reopening was less
    /// than the cooldown ago; when it cannot be opened for writing, opens it
    /// read-only. True when the database is writable afterwards.
    fn reopen(&self, generation: u64) -> bool {
        let mut handle = self.handle.write().unwrap_or_else(PoisonError::into_inner);
        if handle.generation != generation {
            return handle.writable && handle.db.is_some();
        }
        {
            let mut failures = self.failures();
            if failures
                .reopened
                .is_some_and(|at| at.elapsed() < self.cooldown)
            {
                return false;
            }
            failures.reopened = Some(Instant::now());
        }
        // the old database holds the lock on the directory: close it first
        handle.db = None;
        handle.generation += 1;
        match DB::open(&db_options(), &self.path) {
            Ok(db) => {
                handle.db = Some(db);
                handle.writable = true;
                true
            }
            Err(e) => {
                eprintln!(
                    "qajudge: cannot reopen the experiment store {} for writing: {e}; reading it only",
                    self.path.display()
                );
                handle.db = DB::open_for_read_only(&db_options(), &self.path, false).ok();
                handle.writable = false;
                false
            }
        }
    }

    /// Closes the database as a failed reopening leaves it, and drops the
    /// cooldown, so that tests elsewhere in the crate can break a store.
    #[cfg(test)]
    pub(super) fn close_for_test(&mut self) {
        self.cooldown = Duration::ZERO;
        self.handle
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .db = None;
    }

    /// Reads a record.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match &self.read_handle().db {
            Some(db) => db.get(key.as_bytes()).map_err(StoreError::from),
            None => Err(StoreError::Closed {
                path: self.path.clone(),
            }),
        }
    }

    /// Every record, in key order.
    pub fn all(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let handle = self.read_handle();
        let Some(db) = &handle.db else {
            return Err(StoreError::Closed {
                path: self.path.clone(),
            });
        };
        db.iterator(rocksdb::IteratorMode::Start)
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
    fn no_space_is_told_from_other_io_errors() {
        assert!(is_no_space(
            "IO error: No space left on device: While appending to file: /d/000004.log: No space left on device"
        ));
        assert!(!is_no_space("IO error: /d/LOCK: Permission denied"));
    }

    /// Makes the store's database read-only, as a failed reopening leaves it.
    fn make_read_only(store: &RecordStore) {
        let mut handle = store.handle.write().expect("handle");
        handle.db = None;
        handle.db =
            Some(DB::open_for_read_only(&db_options(), &store.path, false).expect("read-only"));
        handle.writable = false;
    }

    #[test]
    fn a_store_that_cannot_write_reopens_and_writes() {
        let dir = scratch("reopen");
        let mut store = RecordStore::open(&dir.join("records")).expect("opens");
        store.cooldown = Duration::ZERO;
        store.put("a", b"1").expect("put");
        make_read_only(&store);
        assert_eq!(
            store.get("a").expect("read-only reads"),
            Some(b"1".to_vec())
        );
        store.put("b", b"2").expect("reopened for writing");
        assert_eq!(store.generation(), 1);
        assert_eq!(store.health(), StoreHealth::Ok);
        assert_eq!(store.get("a").expect("get"), Some(b"1".to_vec()));
        assert_eq!(store.get("b").expect("get"), Some(b"2".to_vec()));
        store.probe().expect("probe");
        let keys: Vec<String> = store
            .all()
            .expect("all")
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["a", "b"], "the probe leaves no record");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_store_that_cannot_reopen_is_degraded_until_it_can() {
        let dir = scratch("degraded");
        let path = dir.join("records");
        let moved = dir.join("moved");
        let store = RecordStore::open(&path).expect("opens");
        store.put("a", b"1").expect("put");
        // the database is gone from its path: reopening fails, even read-only
        store.handle.write().expect("handle").db = None;
        std::fs::rename(&path, &moved).expect("moved");
        std::fs::write(&path, b"not a directory").expect("file");
        let e = store.put("b", b"2").expect_err("nothing to write to");
        assert!(matches!(e, StoreError::Closed { .. }), "{e}");
        assert!(e.to_string().contains("reopens the store by itself"), "{e}");
        let StoreHealth::Degraded {
            error,
            disk_full,
            since,
        } = store.health()
        else {
            panic!("healthy after a failed write");
        };
        assert!(
            error.contains("closed") && !disk_full && since > 0,
            "{error}"
        );
        assert!(matches!(store.get("a"), Err(StoreError::Closed { .. })));
        // within the cooldown nothing is reopened, however often it is asked
        let generation = store.generation();
        std::fs::remove_file(&path).expect("file removed");
        std::fs::rename(&moved, &path).expect("moved back");
        assert!(store.probe().is_err());
        assert_eq!(store.generation(), generation);
        std::thread::sleep(REOPEN_COOLDOWN + Duration::from_millis(50));
        store.probe().expect("reopened");
        assert_eq!(store.health(), StoreHealth::Ok);
        assert_eq!(store.get("a").expect("get"), Some(b"1".to_vec()));
        store.put("b", b"2").expect("put");
        let _ = std::fs::remove_dir_all(&dir);
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
