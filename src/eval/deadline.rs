//! When an evaluation stops ([`Deadline`]): the scoring loops of the
//! pipeline and of the official profiles look at it per question, the live
//! systems' asker before every request and the query execution loops before
//! every query, so that no work runs on after a request's answer said it
//! stopped or after a notebook's Ctrl-C. A file of its own, importing
//! nothing, so that the options and the profiles that read it do not import
//! each other.
//!
//! A host (the Python binding) that runs a command on a thread of its own
//! also sets the call's deadline for that thread ([`Deadline::enter`]), as it
//! sets the call's input limit: code that takes no deadline of its own reads
//! it there ([`Deadline::of_this_thread`]), and the command line, which sets
//! none, never stops.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When an evaluation stops: at a time, or when its caller says so (a
/// notebook's Ctrl-C); neither by default (the command line's).
#[derive(Debug, Clone, Default)]
pub struct Deadline {
    at: Option<Instant>,
    stop: Option<Arc<AtomicBool>>,
}

thread_local! {
    /// The deadline of the host's call running on this thread.
    static THIS_THREAD: RefCell<Option<Deadline>> = const { RefCell::new(None) };
}

impl Deadline {
    /// A deadline `after` from now.
    pub fn after(after: Duration) -> Deadline {
        Deadline {
            at: Instant::now().checked_add(after),
            stop: None,
        }
    }

    /// A deadline that passes when `stop` is set (by another thread).
    pub fn on(stop: Arc<AtomicBool>) -> Deadline {
        Deadline {
            at: None,
            stop: Some(stop),
        }
    }

    /// True when a time or a stop was set.
    pub fn is_set(&self) -> bool {
        self.at.is_some() || self.stop.is_some()
    }

    /// True when it has passed, or the stop was asked for.
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
            || self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Sleeps `pause` (a retry's backoff), or until the deadline passes,
    /// looking at it every 50 ms; true when it passed.
    pub fn sleep(&self, pause: Duration) -> bool {
        let until = Instant::now() + pause;
        loop {
            if self.passed() {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            std::thread::sleep((until - now).min(Duration::from_millis(50)));
        }
    }

    /// Makes this the deadline of the calls on this thread until the returned
    /// guard drops (then the one before it is back): a host's call on a
    /// thread of its own.
    pub fn enter(&self) -> Entered {
        let before = THIS_THREAD.with(|d| d.borrow_mut().replace(self.clone()));
        Entered { before }
    }

    /// The deadline [`Deadline::enter`] set on this thread, else none (the
    /// command line's).
    pub fn of_this_thread() -> Deadline {
        THIS_THREAD.with(|d| d.borrow().clone()).unwrap_or_default()
    }
}

/// The guard of [`Deadline::enter`].
#[derive(Debug)]
pub struct Entered {
    before: Option<Deadline>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        THIS_THREAD.with(|d| *d.borrow_mut() = before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_passes_the_deadline_and_ends_a_sleep() {
        let stop = Arc::new(AtomicBool::new(false));
        let d = Deadline::on(Arc::clone(&stop));
        assert!(d.is_set() && !d.passed());
        assert!(!d.sleep(Duration::from_millis(1)));
        stop.store(true, Ordering::SeqCst);
        assert!(d.passed());
        // a sleep of an hour ends at once: the deadline passed
        assert!(d.sleep(Duration::from_secs(3600)));
        assert!(!Deadline::default().passed());
    }

    #[test]
    fn a_thread_has_the_deadline_it_entered_until_the_guard_drops() {
        assert!(!Deadline::of_this_thread().is_set());
        let stop = Arc::new(AtomicBool::new(true));
        {
            let _entered = Deadline::on(stop).enter();
            assert!(Deadline::of_this_thread().passed());
            // another thread has its own
            let other = std::thread::spawn(|| Deadline::of_this_thread().is_set())
                .join()
                .expect("joined");
            assert!(!other);
        }
        assert!(!Deadline::of_this_thread().is_set());
    }
}
