//! Stored experiments: records under stable ids `YYYYMMDDNNNN` in a RocksDB store
//! under `--data`, a worker thread that evaluates them one at a time, and the
//! restart rule (an experiment that was queued or running when the server stopped
//! is marked failed, never lost or half-written).
//!
//! A store that cannot write (a full disk) strands no experiment: one whose
//! final record cannot be written is marked failed in memory (what `get` and
//! `list` show) and written when the store writes again; after a reopen, a
//! queued or running record no job stands for is marked failed. The worker
//! retries a degraded store between jobs and every [`RECOVER_EVERY`] when
//! idle; `/health` does too.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::clock::{civil, now_secs, rfc3339};

use super::job::{evaluate_job, Submitted, Worker};
use super::store::{RecordStore, StoreError, StoreHealth};

/// One stored experiment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Record {
    /// The stable id, `YYYYMMDDNNNN`.
    pub id: String,
    /// Where it is in its life.
    pub status: ExperimentStatus,
    /// When it was submitted (UTC, RFC 3339).
    pub created: String,
    /// When it finished, if it did.
    pub finished: Option<String>,
    /// The profile.
    pub profile: String,
    /// The sub-experiments asked for (empty: all).
    pub experiments: Vec<String>,
    /// The language of the questions sent to live systems.
    pub lang: String,
    /// The API live systems were asked in (`gerbil`, `text2sparql`).
    #[serde(default = "default_protocol")]
    pub protocol: String,
    /// The gold benchmark: a registered name or an uploaded file name.
    pub gold: String,
    /// The runs' names as the report gives them: the `name` fields, else the
    /// files' stems and the systems' hosts.
    pub runs: Vec<String>,
    /// Questions asked so far of live systems, and in all.
    pub progress: Option<(usize, usize)>,
    /// Why it failed.
    pub error: Option<String>,
    /// The report (docs/report.md) when done.
    #[schema(value_type = Option<crate::eval::Report>)]
    pub report: Option<serde_json::Value>,
    /// The SHA-256 of the gold benchmark's file, as provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_sha256: Option<String>,
    /// The SHA-256 of the secret token returned at submission (never shown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub token_sha256: Option<String>,
    /// Listed, in `/sparql` and visible without the token. Records stored
    /// before experiments could be private were all public.
    #[serde(default = "public_by_default")]
    pub published: bool,
}

/// Records stored before there were private experiments were public.
fn public_by_default() -> bool {
    true
}

impl Record {
    /// True when `token` is this experiment's secret token.
    pub fn token_is(&self, token: &str) -> bool {
        self.token_sha256
            .as_deref()
            .is_some_and(|hash| crate::digest::token_matches(token, hash))
    }

    /// The record as shown through the API: without the token's hash.
    pub fn shown(mut self) -> Record {
        self.token_sha256 = None;
        self
    }
}

/// The protocol of records stored before there was a choice.
fn default_protocol() -> String {
    crate::live::Protocol::Gerbil.name().to_string()
}

/// Where an experiment is in its life.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExperimentStatus {
    /// Stored, waiting for the worker.
    #[default]
    Queued,
    /// Being evaluated.
    Running,
    /// Finished with a report.
    Done,
    /// Finished without a report (`error` says why).
    Failed,
}

/// An experiment that cannot be stored, read or queued.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// The data directory cannot be made.
    #[error("cannot create {path}")]
    DataDir {
        /// The directory.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The record store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored record is not a record.
    #[error("stored experiment {id} is unreadable")]
    Unreadable {
        /// Its id.
        id: String,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A record cannot be encoded.
    #[error("the experiment record cannot be encoded")]
    Encode(#[source] serde_json::Error),
    /// The worker thread is gone.
    #[error("the experiment worker has stopped")]
    WorkerStopped,
    /// The worker thread was never started.
    #[error("the experiment worker is not running")]
    WorkerNotRunning,
    /// A thread panicked while holding the id lock.
    #[error("the experiment id lock is poisoned")]
    Poisoned,
}

impl ExperimentError {
    /// Whether the store failed because the disk under it is full.
    pub fn disk_full(&self) -> bool {
        matches!(self, ExperimentError::Store(StoreError::Full { .. }))
    }

    /// Whether the store cannot write now (a full disk, another I/O error, or
    /// a store closed after a failed reopening): a condition that passes, not
    /// a fault of the request.
    pub fn store_unavailable(&self) -> bool {
        matches!(
            self,
            ExperimentError::Store(
                StoreError::Full { .. } | StoreError::Unwritable { .. } | StoreError::Closed { .. }
            )
        )
    }
}

/// The store of experiments and the queue of the worker.
pub struct ExperimentStore {
    records: RecordStore,
    /// Serializes the changes of records: new ids, read-modify-writes, the
    /// records written again after a failure.
    writes: Mutex<()>,
    queue: Mutex<Option<Sender<Submitted>>>,
    listener: Mutex<Option<Listener>>,
    /// Final records whose write failed, by id: shown by `get` and `list` in
    /// place of the stored ones, and written when the store writes again.
    pending: Mutex<BTreeMap<String, Record>>,
    /// The experiments submitted and not finished by the worker: any other
    /// record that is queued or running was left by a failed write.
    active: Mutex<HashSet<String>>,
    /// The record store's generation when its records were last checked for
    /// ones a failed write left (see [`RecordStore::generation`]).
    swept: AtomicU64,
    /// True while the worker thread runs (`/health` is degraded otherwise).
    worker_up: Arc<AtomicBool>,
}

/// The message of a panic caught at the job boundary.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// Sets the worker down when its thread ends, also by a panic.
struct WorkerUp(Arc<AtomicBool>);

impl Drop for WorkerUp {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// How often an idle worker retries a degraded store and the records waiting
/// for it.
pub const RECOVER_EVERY: Duration = Duration::from_secs(5);

/// What the store tells of itself in `/health` (with [`ExperimentStore::worker_up`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreState {
    /// Whether its last write succeeded.
    pub health: StoreHealth,
    /// Final records waiting for the store to write again.
    pub pending: usize,
}

/// What is called with each record written after a change.
type Listener = Box<dyn Fn(&Record) + Send + Sync>;

/// The record store's directory under the data directory.
const RECORDS_DIR: &str = "experiments";

impl ExperimentStore {
    /// Checks that `dir` may be the data directory: absent, empty, or holding
    /// only a store this server wrote (see [`super::store::check_data_dir`]).
    pub fn check_dir(dir: &std::path::Path) -> Result<(), ExperimentError> {
        Ok(super::store::check_data_dir(dir, RECORDS_DIR)?)
    }

    /// Opens the store under `dir` (checked with [`ExperimentStore::check_dir`]
    /// first, and made when missing), marks experiments a stop interrupted as
    /// failed, and starts the worker.
    pub fn open(dir: &std::path::Path) -> Result<ExperimentStore, ExperimentError> {
        Self::check_dir(dir)?;
        std::fs::create_dir_all(dir).map_err(|source| ExperimentError::DataDir {
            path: dir.display().to_string(),
            source,
        })?;
        let records = RecordStore::open(&dir.join(RECORDS_DIR))?;
        let swept = AtomicU64::new(records.generation());
        let store = ExperimentStore {
            records,
            writes: Mutex::new(()),
            queue: Mutex::new(None),
            listener: Mutex::new(None),
            pending: Mutex::new(BTreeMap::new()),
            active: Mutex::new(HashSet::new()),
            swept,
            worker_up: Arc::new(AtomicBool::new(false)),
        };
        for mut r in store.list()? {
            if matches!(
                r.status,
                ExperimentStatus::Queued | ExperimentStatus::Running
            ) {
                r.status = ExperimentStatus::Failed;
                r.error = Some(
                    "interrupted: the server stopped while this experiment was queued or running; submit it again"
                        .into(),
                );
                r.finished = Some(rfc3339(now_secs()));
                store.put(&r)?;
            }
        }
        Ok(store)
    }

    /// Starts the worker thread that evaluates queued experiments one at a
    /// time, and between them (and every [`RECOVER_EVERY`] when idle) retries
    /// what a failed write left (see [`ExperimentStore::recover`]).
    pub fn start_worker(self: &Arc<Self>, worker: Worker) {
        let (tx, rx) = channel::<Submitted>();
        if let Ok(mut q) = self.queue.lock() {
            *q = Some(tx);
        }
        let store = Arc::clone(self);
        let up = Arc::clone(&self.worker_up);
        up.store(true, Ordering::SeqCst);
        // evaluation parses and walks queries: a stack of known size, deep
        // enough for any query within the bounds read. A panic of one job is
        // caught at its boundary (`execute`); one between jobs is caught here
        // and the loop goes on, so that the worker outlives any one request
        let spawned = std::thread::Builder::new()
            .name("experiments".into())
            .stack_size(crate::stack::DEEP_STACK_BYTES)
            .spawn(move || {
                let _up = WorkerUp(up);
                loop {
                    let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        match rx.recv_timeout(RECOVER_EVERY) {
                            Ok(job) => {
                                store.recover();
                                store.execute(job, &worker);
                                true
                            }
                            Err(RecvTimeoutError::Timeout) => {
                                store.recover();
                                true
                            }
                            Err(RecvTimeoutError::Disconnected) => false,
                        }
                    }));
                    match step {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(payload) => eprintln!(
                            "qajudge: the experiment worker caught a panic between jobs ({}); it goes on",
                            panic_message(payload.as_ref())
                        ),
                    }
                }
            });
        if let Err(e) = spawned {
            self.worker_up.store(false, Ordering::SeqCst);
            eprintln!("qajudge: cannot start the experiment worker: {e}; experiments stay queued");
        }
    }

    /// True while the worker that evaluates experiments runs.
    pub fn worker_up(&self) -> bool {
        self.worker_up.load(Ordering::SeqCst)
    }

    /// The final records waiting for the store (also after a thread panicked
    /// holding them: every change is one insert or removal).
    fn pending(&self) -> MutexGuard<'_, BTreeMap<String, Record>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The ids of the experiments submitted and not finished (also after a
    /// thread panicked holding them).
    fn active(&self) -> MutexGuard<'_, HashSet<String>> {
        self.active.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes a record (it replaces one of the same id waiting for the store).
    pub fn put(&self, r: &Record) -> Result<(), ExperimentError> {
        let bytes = serde_json::to_vec(r).map_err(ExperimentError::Encode)?;
        self.records.put(&r.id, &bytes)?;
        self.pending().remove(&r.id);
        Ok(())
    }

    /// Reads a record (one waiting for the store as it will be written).
    pub fn get(&self, id: &str) -> Result<Option<Record>, ExperimentError> {
        if let Some(r) = self.pending().get(id) {
            return Ok(Some(r.clone()));
        }
        match self.records.get(id)? {
            Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|source| {
                ExperimentError::Unreadable {
                    id: id.to_string(),
                    source,
                }
            }),
            None => Ok(None),
        }
    }

    /// Every record, oldest first (those waiting for the store as they will be
    /// written).
    pub fn list(&self) -> Result<Vec<Record>, ExperimentError> {
        let mut list = self
            .records
            .all()?
            .into_iter()
            .map(|(id, bytes)| {
                serde_json::from_slice(&bytes)
                    .map_err(|source| ExperimentError::Unreadable { id, source })
            })
            .collect::<Result<Vec<Record>, _>>()?;
        let pending = self.pending();
        for r in &mut list {
            if let Some(waiting) = pending.get(&r.id) {
                r.clone_from(waiting);
            }
        }
        Ok(list)
    }

    /// Whether the store's last write succeeded, and how many final records
    /// wait for it.
    pub fn state(&self) -> StoreState {
        StoreState {
            health: self.records.health(),
            pending: self.pending().len(),
        }
    }

    /// Retries what a failed write left: probes a degraded store (which
    /// reopens it when that is due), and once it writes, writes the final
    /// records waiting for it and, after a reopening, marks failed every
    /// queued or running record that no submitted job stands for.
    pub fn recover(&self) {
        if matches!(self.records.health(), StoreHealth::Degraded { .. })
            && self.records.probe().is_err()
        {
            return;
        }
        let Ok(_guard) = self.writes.lock() else {
            return;
        };
        let waiting: Vec<Record> = self.pending().values().cloned().collect();
        for r in waiting {
            if self.put(&r).is_err() {
                return;
            }
            self.notify(&r);
        }
        let generation = self.records.generation();
        if self.swept.load(Ordering::SeqCst) != generation && self.sweep().is_ok() {
            self.swept.store(generation, Ordering::SeqCst);
        }
    }

    /// Marks failed every queued or running record that no submitted job
    /// stands for: one a write reported failed left behind, whose bytes still
    /// reached the disk. The caller holds `writes`.
    fn sweep(&self) -> Result<(), ExperimentError> {
        let active = self.active().clone();
        for mut r in self.list()? {
            if matches!(
                r.status,
                ExperimentStatus::Queued | ExperimentStatus::Running
            ) && !active.contains(&r.id)
            {
                r.status = ExperimentStatus::Failed;
                r.error = Some(
                    "interrupted: the experiment store failed to write while this experiment was submitted; submit it again"
                        .into(),
                );
                r.finished = Some(rfc3339(now_secs()));
                self.put(&r)?;
                self.notify(&r);
            }
        }
        Ok(())
    }

    /// A new id for today: `YYYYMMDD` and a four-digit counter.
    fn next_id(&self) -> Result<String, ExperimentError> {
        let (y, m, d) = civil((now_secs() / 86_400) as i64);
        let day = format!("{y:04}{m:02}{d:02}");
        let last = self
            .records
            .all()?
            .into_iter()
            .filter_map(|(id, _)| id.strip_prefix(&day).and_then(|n| n.parse::<u32>().ok()))
            .max()
            .unwrap_or(0);
        Ok(format!("{day}{:04}", last + 1))
    }

    /// Stores a new experiment as queued and hands it to the worker (the job's
    /// id is the record's new id); returns its record.
    pub fn submit(
        &self,
        mut record: Record,
        mut job: Submitted,
    ) -> Result<Record, ExperimentError> {
        {
            let _guard = self.writes.lock().map_err(|_| ExperimentError::Poisoned)?;
            record.id = self.next_id()?;
            record.status = ExperimentStatus::Queued;
            record.created = rfc3339(now_secs());
            // active before it is stored, so that no sweep takes it for one a
            // failed write left
            self.active().insert(record.id.clone());
            if let Err(e) = self.put(&record) {
                self.active().remove(&record.id);
                return Err(e);
            }
        }
        job.id.clone_from(&record.id);
        let queue = self.queue.lock().map_err(|_| ExperimentError::Poisoned)?;
        let sent = match queue.as_ref() {
            Some(tx) => tx.send(job).map_err(|_| ExperimentError::WorkerStopped),
            None => Err(ExperimentError::WorkerNotRunning),
        };
        if let Err(e) = sent {
            self.active().remove(&record.id);
            return Err(e);
        }
        Ok(record)
    }

    /// Changes a record with `f` and writes it (serialized with the other
    /// changes, so that none is lost), then calls the listener; nothing when
    /// there is no such record. A failed write leaves the record as it was.
    fn update(&self, id: &str, f: impl FnOnce(&mut Record)) -> Result<(), ExperimentError> {
        let r = {
            let _guard = self.writes.lock().map_err(|_| ExperimentError::Poisoned)?;
            let Some(mut r) = self.get(id)? else {
                return Ok(());
            };
            f(&mut r);
            self.put(&r)?;
            r
        };
        // outside the lock: the listener may turn a whole report into RDF
        self.notify(&r);
        Ok(())
    }

    /// Marks failed an experiment whose final record could not be written
    /// (`why`): written now if the store writes again, else kept in memory,
    /// shown by `get` and `list`, until it does. `known` is its record as the
    /// worker found it, for a store that cannot even be read.
    fn fail_unstored(&self, id: &str, known: Option<Record>, why: &ExperimentError) {
        let Ok(_guard) = self.writes.lock() else {
            return;
        };
        let Some(mut r) = self.get(id).ok().flatten().or(known) else {
            return;
        };
        r.status = ExperimentStatus::Failed;
        r.report = None;
        r.error = Some(if why.disk_full() {
            "its result could not be stored: the disk under the server's data directory is full; submit it again once GET /api/v1/health answers ok".into()
        } else {
            "its result could not be stored: the experiment store cannot write (GET /api/v1/health says why); submit it again once it answers ok".into()
        });
        r.finished = Some(rfc3339(now_secs()));
        match self.put(&r) {
            Ok(()) => self.notify(&r),
            Err(e) => {
                eprintln!(
                    "qajudge: experiment {id} failed and that cannot be stored yet: {}",
                    crate::error_chain(&e)
                );
                self.pending().insert(id.to_string(), r);
            }
        }
    }

    /// Makes an experiment public; returns its record, or `None` when there is
    /// no such experiment.
    pub fn publish(&self, id: &str) -> Result<Option<Record>, ExperimentError> {
        let _guard = self.writes.lock().map_err(|_| ExperimentError::Poisoned)?;
        let Some(mut r) = self.get(id)? else {
            return Ok(None);
        };
        if !r.published {
            r.published = true;
            self.put(&r)?;
            self.notify(&r);
        }
        Ok(Some(r))
    }

    /// Calls the listener (if any) with a record that was just written.
    fn notify(&self, r: &Record) {
        if let Ok(listener) = self.listener.lock() {
            if let Some(f) = listener.as_ref() {
                f(r);
            }
        }
    }

    /// Sets the function called with every record written after a change of
    /// status or publication (the SPARQL endpoint's loader).
    pub fn on_change(&self, f: impl Fn(&Record) + Send + Sync + 'static) {
        if let Ok(mut listener) = self.listener.lock() {
            *listener = Some(Box::new(f));
        }
    }

    /// Evaluates one experiment and stores its report (or why it failed). An
    /// experiment whose final record cannot be written is marked failed all
    /// the same (see [`ExperimentStore::fail_unstored`]).
    fn execute(&self, job: Submitted, worker: &Worker) {
        let id = job.id.clone();
        let known = self.get(&id).ok().flatten();
        // a failed write of the status or the progress leaves the record as it
        // was; the final write says how the experiment ended
        let _ = self.update(&id, |r| r.status = ExperimentStatus::Running);
        let progress = |n: usize, total: usize| {
            if n.is_multiple_of(10) || n == total {
                let _ = self.update(&id, |r| r.progress = Some((n, total)));
            }
        };
        // a panic of the evaluation (a bug, or a hostile input the readers
        // missed) fails this experiment with its message, not the worker
        let evaluated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            evaluate_job(job.request, job.live, worker, &progress)
        }));
        let value = match evaluated {
            Ok(Ok(report)) => serde_json::to_value(&report)
                .map_err(|e| format!("the report could not be written: {e}")),
            Ok(Err(e)) => Err(e.to_string()),
            Err(payload) => Err(format!(
                "the evaluation failed inside qajudge ({}); this is a bug: report it with the experiment's files",
                panic_message(payload.as_ref())
            )),
        };
        let finished = self.update(&id, |r| {
            match value {
                Ok(v) => {
                    r.status = ExperimentStatus::Done;
                    r.report = Some(v);
                }
                Err(e) => {
                    r.status = ExperimentStatus::Failed;
                    r.error = Some(e);
                }
            }
            r.finished = Some(rfc3339(now_secs()));
        });
        if let Err(e) = finished {
            self.fail_unstored(&id, known, &e);
        }
        self.active().remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of the given id and status.
    fn record(id: &str, status: ExperimentStatus) -> Record {
        Record {
            id: id.into(),
            status,
            created: rfc3339(0),
            finished: None,
            profile: "judge".into(),
            experiments: Vec::new(),
            lang: "en".into(),
            protocol: default_protocol(),
            gold: "demo".into(),
            runs: vec!["r".into()],
            progress: None,
            error: None,
            report: None,
            gold_sha256: None,
            token_sha256: None,
            published: false,
        }
    }

    #[test]
    fn a_final_record_the_store_cannot_write_is_failed_and_written_later() {
        let dir = std::env::temp_dir().join(format!(
            "qajudge-experiments-unstored-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut store = ExperimentStore::open(&dir).expect("opens");
        let running = record("202601010001", ExperimentStatus::Running);
        let orphan = record("202601010002", ExperimentStatus::Queued);
        store.put(&running).expect("put");
        store.put(&orphan).expect("put");
        store.active().insert(running.id.clone());

        // the store cannot be reopened: its directory is a file now
        let path = dir.join(RECORDS_DIR);
        let moved = dir.join("moved");
        store.records.close_for_test();
        std::fs::rename(&path, &moved).expect("moved");
        std::fs::write(&path, b"x").expect("file");
        let e = store.put(&running).expect_err("closed");
        assert!(e.store_unavailable() && !e.disk_full(), "{e}");
        store.fail_unstored(&running.id, Some(running.clone()), &e);
        let failed = store.get(&running.id).expect("get").expect("shown");
        assert_eq!(failed.status, ExperimentStatus::Failed);
        assert!(
            failed
                .error
                .as_deref()
                .is_some_and(|e| e.contains("could not be stored")),
            "{failed:?}"
        );
        assert_eq!(store.state().pending, 1);
        assert!(matches!(store.state().health, StoreHealth::Degraded { .. }));
        store.recover();
        assert_eq!(store.state().pending, 1, "still waiting");

        // repaired: the failed record is written, and the queued one that no
        // job stands for is marked failed
        std::fs::remove_file(&path).expect("file removed");
        std::fs::rename(&moved, &path).expect("moved back");
        store.recover();
        assert_eq!(
            store.state(),
            StoreState {
                health: StoreHealth::Ok,
                pending: 0
            }
        );
        let stored = store
            .records
            .get(&running.id)
            .expect("get")
            .expect("stored");
        let stored: Record = serde_json::from_slice(&stored).expect("record");
        assert_eq!(stored, failed);
        let orphan = store.get(&orphan.id).expect("get").expect("kept");
        assert_eq!(orphan.status, ExperimentStatus::Failed);
        assert!(
            orphan
                .error
                .as_deref()
                .is_some_and(|e| e.contains("submit it again")),
            "{orphan:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
