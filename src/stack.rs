//! Recursive work on a thread whose stack size is known: a query near the
//! bounds qajudge reads (see `query::bounds` and `query::depth`) is
//! parsed, walked and executed on a thread of [`DEEP_STACK_BYTES`], whatever
//! thread asked (a server's worker has 2 MiB, the main thread 8 MiB). The stack
//! is reserved, not committed: a thread touches only the pages it uses.

/// The stack of a thread that parses, walks or evaluates a query near the
/// bounds: room for the deepest algebra read in a debug build, with a margin.
pub const DEEP_STACK_BYTES: usize = 256 << 20;

/// Why recursive work could not run.
#[derive(Debug, thiserror::Error)]
pub enum StackError {
    /// The thread could not be started (out of memory or threads).
    #[error("cannot start a thread of {bytes} bytes of stack for the query: {source}; try again when the machine is less loaded")]
    Spawn {
        /// The stack size asked for.
        bytes: usize,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The work panicked (a bug: the panic's message is in the log).
    #[error("the work on the query's thread failed (a bug in qajudge; please report the query)")]
    Panicked,
}

/// Runs `f` on a new thread with [`DEEP_STACK_BYTES`] of stack and waits for it.
pub fn deep<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, StackError> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("qajudge-deep".into())
            .stack_size(DEEP_STACK_BYTES)
            .spawn_scoped(scope, f)
            .map_err(|source| StackError::Spawn {
                bytes: DEEP_STACK_BYTES,
                source,
            })?;
        handle.join().map_err(|_| StackError::Panicked)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recurse(n: usize) -> usize {
        let pad = std::hint::black_box([0u8; 512]);
        if n == 0 {
            return usize::from(pad[0]);
        }
        recurse(n - 1) + usize::from(pad[1])
    }

    #[test]
    fn recursion_beyond_a_small_stack_runs_on_the_deep_one() {
        // 100 000 frames of more than 512 bytes: far past 8 MiB
        assert_eq!(deep(|| recurse(100_000)).expect("runs"), 0);
    }
}
