//! Results written on the query's thread and read by the HTTP server as they
//! come, with bounded memory: the writer ([`Sink`]) keeps the first
//! [`HEAD_BYTES`] back, so that a query that fails or ends before them gets a
//! whole answer or a proper error; past them it hands the bytes over in chunks
//! through a queue of [`QUEUE_CHUNKS`], waiting while the queue is full (a slow
//! client slows the query, up to its deadline). The reader ([`ResultStream`])
//! is polled by the server; dropping it (the client went away) stops the query
//! at its next write. The byte cap and the deadline are checked on every write.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use super::limits::Budget;
use super::query_error::QueryError;

/// The bytes held back before the answer starts (a result this small is sent
/// whole, or replaced by an error).
pub const HEAD_BYTES: usize = 1 << 20;
/// The size of one chunk handed to the server.
pub const CHUNK_BYTES: usize = 64 << 10;
/// The chunks queued at most (the memory a slow client costs).
pub const QUEUE_CHUNKS: usize = 4;

/// What a query answered first.
#[derive(Debug)]
pub enum Reply {
    /// The whole result, in the given media type.
    Complete {
        /// The media type.
        media: &'static str,
        /// The bytes.
        body: Vec<u8>,
    },
    /// The first bytes; the rest follows from `rest`.
    Streaming {
        /// The media type.
        media: &'static str,
        /// The first bytes.
        head: Vec<u8>,
        /// The rest.
        rest: ResultStream,
    },
}

#[derive(Debug, Default)]
struct State {
    chunks: VecDeque<Vec<u8>>,
    /// Set when the writer is done: how it ended.
    end: Option<Result<(), QueryError>>,
    /// The reader's waker while it waits.
    waker: Option<Waker>,
    /// Set when the reader went away.
    closed: bool,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    space: Condvar,
}

/// The reading end of a streamed result.
#[derive(Debug)]
pub struct ResultStream {
    shared: Arc<Shared>,
}

impl ResultStream {
    /// The next chunk; `Ready(None)` once the result is complete; an error when
    /// the query stopped midway (the answer is then cut short).
    pub fn poll_chunk(&self, cx: &mut Context<'_>) -> Poll<Option<Result<Vec<u8>, QueryError>>> {
        let Ok(mut state) = self.shared.state.lock() else {
            return Poll::Ready(Some(Err(QueryError::Failed(
                "the query's writer panicked".into(),
            ))));
        };
        if let Some(chunk) = state.chunks.pop_front() {
            self.shared.space.notify_one();
            return Poll::Ready(Some(Ok(chunk)));
        }
        match state.end.take() {
            Some(Ok(())) => {
                state.end = Some(Ok(()));
                Poll::Ready(None)
            }
            Some(Err(e)) => {
                state.end = Some(Ok(()));
                Poll::Ready(Some(Err(e)))
            }
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl ResultStream {
    /// Appends every chunk to `out`, waiting for them (on a thread that may
    /// block; the writer ends by its deadline).
    pub fn read_to_end(self, out: &mut Vec<u8>) -> Result<(), QueryError> {
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        loop {
            match self.poll_chunk(&mut cx) {
                Poll::Ready(Some(Ok(chunk))) => out.extend(chunk),
                Poll::Ready(Some(Err(e))) => return Err(e),
                Poll::Ready(None) => return Ok(()),
                Poll::Pending => std::thread::park(),
            }
        }
    }
}

/// Wakes a thread parked in [`ResultStream::read_to_end`].
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

impl Drop for ResultStream {
    fn drop(&mut self) {
        if let Ok(mut state) = self.shared.state.lock() {
            state.closed = true;
            state.chunks.clear();
        }
        self.shared.space.notify_all();
    }
}

/// The writing end: an [`std::io::Write`] for the result serializers, on the
/// query's thread.
pub struct Sink {
    media: &'static str,
    buf: Vec<u8>,
    /// Where the first answer goes, until it is sent.
    first: Option<mpsc::Sender<Result<Reply, QueryError>>>,
    /// The queue, once the answer is streaming.
    shared: Option<Arc<Shared>>,
    budget: Budget,
    /// Why a write failed (the serializers only pass an I/O error on).
    stopped: Option<QueryError>,
}

impl Sink {
    /// A sink that sends its first answer to `first`.
    pub fn new(first: mpsc::Sender<Result<Reply, QueryError>>, budget: Budget) -> Sink {
        Sink {
            media: "application/octet-stream",
            buf: Vec::new(),
            first: Some(first),
            shared: None,
            budget,
            stopped: None,
        }
    }

    /// Sets the media type of what is written next.
    pub fn set_media(&mut self, media: &'static str) {
        self.media = media;
    }

    /// The query's budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The error of a failed write, or `other` when no write failed.
    pub fn error(&mut self, other: impl FnOnce() -> QueryError) -> QueryError {
        self.stopped.take().unwrap_or_else(other)
    }

    /// Ends the answer: sends it whole (or the error) when it has not started,
    /// else its last bytes and how it ended.
    pub fn finish(mut self, result: Result<(), QueryError>) {
        if let Some(first) = self.first.take() {
            let answer = result.map(|()| Reply::Complete {
                media: self.media,
                body: std::mem::take(&mut self.buf),
            });
            let _ = first.send(answer);
            return;
        }
        let Some(shared) = self.shared.take() else {
            return;
        };
        let Ok(mut state) = shared.state.lock() else {
            return;
        };
        if result.is_ok() && !self.buf.is_empty() {
            state.chunks.push_back(std::mem::take(&mut self.buf));
        }
        state.end = Some(result);
        if let Some(w) = state.waker.take() {
            w.wake();
        }
    }

    /// Starts streaming: sends the head, keeps the queue.
    fn start(&mut self) -> std::io::Result<()> {
        let Some(first) = self.first.take() else {
            return Ok(());
        };
        let shared = Arc::new(Shared::default());
        let answer = Reply::Streaming {
            media: self.media,
            head: std::mem::take(&mut self.buf),
            rest: ResultStream {
                shared: Arc::clone(&shared),
            },
        };
        if first.send(Ok(answer)).is_err() {
            return Err(self.stop(QueryError::Closed));
        }
        self.shared = Some(shared);
        Ok(())
    }

    /// Hands a full chunk over, waiting while the queue is full.
    fn push(&mut self) -> std::io::Result<()> {
        let Some(shared) = self.shared.clone() else {
            return Ok(());
        };
        let chunk = std::mem::take(&mut self.buf);
        let Ok(mut state) = shared.state.lock() else {
            return Err(self.stop(QueryError::Closed));
        };
        loop {
            if state.closed {
                drop(state);
                return Err(self.stop(QueryError::Closed));
            }
            if state.chunks.len() < QUEUE_CHUNKS {
                break;
            }
            let left = self.budget.left();
            if left.is_zero() {
                drop(state);
                let stop = self.budget.timeout();
                return Err(self.stop(stop.into()));
            }
            state = match shared.space.wait_timeout(state, left) {
                Ok((s, _)) => s,
                Err(_) => return Err(self.stop(QueryError::Closed)),
            };
        }
        state.chunks.push_back(chunk);
        if let Some(w) = state.waker.take() {
            w.wake();
        }
        Ok(())
    }

    fn stop(&mut self, e: QueryError) -> std::io::Error {
        let io = std::io::Error::other(e.to_string());
        self.stopped = Some(e);
        io
    }
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if let Err(stop) = self.budget.spend(data.len()) {
            return Err(self.stop(stop.into()));
        }
        self.buf.extend_from_slice(data);
        if self.first.is_some() {
            if self.buf.len() >= HEAD_BYTES {
                self.start()?;
            }
        } else if self.buf.len() >= CHUNK_BYTES {
            self.push()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::limits::Stop;
    use super::*;
    use std::time::{Duration, Instant};

    struct Flag;
    impl Wake for Flag {
        fn wake(self: Arc<Self>) {}
    }

    /// Every chunk of a stream, polled in a loop (bounded).
    fn drain(rest: &ResultStream) -> (Vec<u8>, Option<QueryError>) {
        let waker = Waker::from(Arc::new(Flag));
        let mut cx = Context::from_waker(&waker);
        let mut out = Vec::new();
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            match rest.poll_chunk(&mut cx) {
                Poll::Ready(Some(Ok(c))) => out.extend(c),
                Poll::Ready(Some(Err(e))) => return (out, Some(e)),
                Poll::Ready(None) => return (out, None),
                Poll::Pending => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        panic!("the stream did not end");
    }

    fn budget(max_bytes: usize) -> Budget {
        Budget::new(Instant::now(), Duration::from_secs(10), max_bytes)
    }

    #[test]
    fn a_small_result_is_sent_whole_and_an_early_error_replaces_it() {
        let (tx, rx) = mpsc::channel();
        let mut sink = Sink::new(tx, budget(1 << 30));
        sink.set_media("text/csv");
        sink.write_all(b"a,b\r\n").expect("written");
        sink.finish(Ok(()));
        match rx.recv().expect("answer") {
            Ok(Reply::Complete { media, body }) => {
                assert_eq!(media, "text/csv");
                assert_eq!(body, b"a,b\r\n");
            }
            other => panic!("{other:?}"),
        }
        let (tx, rx) = mpsc::channel();
        let mut sink = Sink::new(tx, budget(10));
        let err = sink.write_all(&[b'x'; 11]).expect_err("past the cap");
        assert!(err.to_string().contains("pass 10 bytes"), "{err}");
        let e = sink.error(|| QueryError::Failed("other".into()));
        sink.finish(Err(e));
        assert_eq!(
            rx.recv().expect("answer").expect_err("an error"),
            QueryError::ResultTooLarge(Stop::Bytes { max: 10 })
        );
    }

    #[test]
    fn a_large_result_streams_in_order_and_a_late_stop_cuts_it() {
        let (tx, rx) = mpsc::channel();
        let total = HEAD_BYTES + 5 * CHUNK_BYTES + 17;
        let writer = std::thread::spawn(move || {
            let mut sink = Sink::new(tx, budget(HEAD_BYTES + 3 * CHUNK_BYTES));
            let data: Vec<u8> = (0..total).map(|i| (i % 251) as u8).collect();
            let result = data
                .chunks(1000)
                .try_for_each(|c| sink.write_all(c))
                .map_err(|_| sink.error(|| QueryError::Failed("write".into())));
            sink.finish(result);
        });
        let Ok(Reply::Streaming { head, rest, .. }) = rx.recv().expect("answer") else {
            panic!("not streaming");
        };
        assert!(head.len() >= HEAD_BYTES);
        let (body, end) = drain(&rest);
        writer.join().expect("writer");
        let all: Vec<u8> = head.into_iter().chain(body).collect();
        assert!(all.len() <= HEAD_BYTES + 3 * CHUNK_BYTES, "{}", all.len());
        assert!(all.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
        assert_eq!(
            end,
            Some(QueryError::ResultTooLarge(Stop::Bytes {
                max: HEAD_BYTES + 3 * CHUNK_BYTES
            }))
        );
    }

    #[test]
    fn a_reader_that_goes_away_stops_the_writer() {
        let (tx, rx) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let mut sink = Sink::new(tx, budget(usize::MAX));
            let chunk = vec![0u8; CHUNK_BYTES];
            // far more than the queue holds: the writer waits, then stops
            let result = (0..10_000).try_for_each(|_| sink.write_all(&chunk));
            let e = sink.error(|| QueryError::Failed("write".into()));
            (result.is_err(), e)
        });
        let Ok(Reply::Streaming { rest, .. }) = rx.recv().expect("answer") else {
            panic!("not streaming");
        };
        std::thread::sleep(Duration::from_millis(50));
        drop(rest);
        let (failed, e) = writer.join().expect("writer");
        assert!(failed);
        assert_eq!(e, QueryError::Closed);
    }
}
