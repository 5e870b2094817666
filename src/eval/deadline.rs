//! When an evaluation stops ([`Deadline`]): the scoring loops of the
//! pipeline and of the official profiles look at it per question, so that no
//! work runs on after a request's answer said it stopped or after a
//! notebook's Ctrl-C. A file of its own, importing nothing, so that the
//! options and the profiles that read it do not import each other.

/// When an evaluation stops: at a time, or when its caller says so (a
/// notebook's Ctrl-C); neither by default (the command line's).
#[derive(Debug, Clone, Default)]
pub struct Deadline {
    at: Option<std::time::Instant>,
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Deadline {
    /// A deadline `after` from now.
    pub fn after(after: std::time::Duration) -> Deadline {
        Deadline {
            at: std::time::Instant::now().checked_add(after),
            stop: None,
        }
    }

    /// A deadline that passes when `stop` is set (by another thread).
    pub fn on(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Deadline {
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
        self.at.is_some_and(|at| std::time::Instant::now() >= at)
            || self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }
}
