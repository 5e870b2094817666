//! A call's work on a thread of its own ([`on_worker`]), while the calling
//! thread, holding the GIL only between waits, looks at Python's signals
//! every 100 ms and tells a `progress=` callable of the counts. A Ctrl-C or
//! an exception of `progress=` sets the call's stop ([`Deadline`]), which
//! the pipeline, the live systems' asker and the query loops look at before
//! each step, and the worker is joined before the call returns: no request
//! is sent and no work runs on after it returned.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use qajudge::cli::embed::Counter;
use qajudge::eval::Deadline;

use crate::errors::{guarded, py_error};

/// How often a running call looks at Python's signals (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// What a call tells Python while it works: the `progress=` callable, given
/// `(done, total)` when the counter moved.
pub(crate) struct Told<'a, 'py> {
    /// The callable, if any.
    pub(crate) callable: Option<&'a Bound<'py, PyAny>>,
    /// The counts the work updates.
    pub(crate) counter: Arc<Counter>,
}

/// Runs `job` on a thread named `name` with the call's deadline (given to it,
/// and entered on that thread: [`Deadline::enter`]) and returns its result;
/// meanwhile this thread looks at Python's signals and tells `told` of the
/// progress. A Ctrl-C (or another signal handler's exception) or an exception
/// of the progress callable stops the job, waits for it to end, and is
/// raised; the job's result is then dropped.
pub(crate) fn on_worker<T: Send + 'static>(
    py: Python<'_>,
    name: &str,
    told: &Told<'_, '_>,
    job: impl FnOnce(Deadline) -> anyhow::Result<T> + Send + 'static,
) -> PyResult<T> {
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = Deadline::on(Arc::clone(&stop));
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            let _entered = deadline.enter();
            let result = guarded(move || job(deadline));
            let _ = tx.send(result);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the work of {name}: {e}")))?;
    // a receiver is not shared between threads; behind a lock it is
    let rx = Mutex::new(rx);
    let mut seen = (0, 0);
    let mut raised: Option<PyErr> = None;
    let stopping = |raised: &mut Option<PyErr>, e: PyErr| {
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        *raised = Some(e);
    };
    loop {
        let received = py.detach(|| {
            rx.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv_timeout(SIGNAL_CHECK)
        });
        match received {
            Ok(result) => {
                // the thread has sent its last word: it ends now
                py.detach(|| worker.join())
                    .map_err(|_| PyRuntimeError::new_err(format!("the work of {name} panicked")))?;
                if let Some(e) = raised {
                    return Err(e);
                }
                // the last counts, which the polls may not have seen (from
                // (0, total) when they saw none)
                if let (Some(callable), now) = (told.callable, told.counter.get()) {
                    if now != seen {
                        if seen == (0, 0) && now.0 > 0 {
                            callable.call1((0, now.1))?;
                        }
                        callable.call1(now)?;
                    }
                }
                return result.map_err(|e| py_error(py, &e));
            }
            Err(RecvTimeoutError::Timeout) if raised.is_some() => {
                // stopped: waiting for the work in flight (a request within
                // its timeout, a query within its own) to end
            }
            Err(RecvTimeoutError::Timeout) => {
                let now = told.counter.get();
                if let (Some(callable), true) = (told.callable, now != seen) {
                    // a bar starts at (0, total), however far the work got
                    // before the first look
                    let first = (seen == (0, 0) && now.0 > 0).then_some((0, now.1));
                    seen = now;
                    if let Err(e) = first
                        .map_or(Ok(()), |f| callable.call1(f).map(drop))
                        .and_then(|()| callable.call1(now).map(drop))
                    {
                        stopping(&mut raised, e);
                        continue;
                    }
                }
                if let Err(e) = py.check_signals() {
                    stopping(&mut raised, e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = py.detach(|| worker.join());
                return Err(raised.unwrap_or_else(|| {
                    PyRuntimeError::new_err(format!(
                        "the work of {name} ended without a result (a bug in qajudge)"
                    ))
                }));
            }
        }
    }
}
