//! Loading RDF files into the embedded store: each file's format from its
//! name, decompressed as its extension says, parsed by oxigraph with its syntax
//! errors located (file, line, column) on a thread of its own while the
//! caller's inserts the batches it hands over into the default graph, and
//! hashed (SHA-256 of the stored bytes) for the report's provenance. A
//! file's decompressed text is bounded ([`set_max_text_bytes`]: the command
//! line's `--max-input-mb`), so a decompression bomb is a located error.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::mpsc::{sync_channel, SyncSender};

use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxigraph::model::{GraphName, Quad};
use oxigraph::store::Store;

use super::KgError;

/// The most bytes of one file's (decompressed) text a load reads.
static MAX_TEXT_BYTES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(u64::MAX);

thread_local! {
    /// The limit of the call this thread runs, when a host set one for it
    /// ([`set_call_max_text_bytes`]); it wins over the process's.
    static CALL_MAX_TEXT_BYTES: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Bounds the decompressed text of every RDF file loaded from now on, in
/// bytes (the command line sets it from `--max-input-mb`).
pub fn set_max_text_bytes(bytes: u64) {
    MAX_TEXT_BYTES.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Bounds the files loaded by this thread's calls (`None`: the process's
/// bound again): a host's call (Python) sets its own, which no other
/// thread's call sees.
pub fn set_call_max_text_bytes(bytes: Option<u64>) {
    CALL_MAX_TEXT_BYTES.with(|c| c.set(bytes));
}

/// The bound of a file loaded now by this thread.
fn max_text_bytes() -> u64 {
    CALL_MAX_TEXT_BYTES
        .with(std::cell::Cell::get)
        .unwrap_or_else(|| MAX_TEXT_BYTES.load(std::sync::atomic::Ordering::Relaxed))
}

/// A reader that fails once more than `left` bytes have come through: the
/// decompressed text of a file past the limit (docs/cli.md, `--max-input-mb`).
struct Bounded<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "its content decompresses to more than the limit of {} MiB of an input file; raise it with --max-input-mb if the file is right",
                    self.limit >> 20
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// A reader that hashes and counts the stored bytes it passes on.
struct Hashing<R> {
    inner: R,
    hasher: crate::digest::Sha256Hasher,
    bytes: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Statements per batch handed from the parsing thread to the caller's.
const LOAD_BATCH: usize = 1 << 13;
/// Batches that may wait to be inserted (bounds the memory of a load).
const BATCHES_WAITING: usize = 8;

/// What the parsing thread hands over: a batch of statements and the stored
/// bytes read so far, or the error that ends the file.
type Parsed = Result<(Vec<Quad>, u64), KgError>;

/// Loads one file into `store`; returns its sha256, its statement count and
/// its size.
pub(super) fn load_file(
    store: &Store,
    path: &Path,
    progress: &dyn Fn(u64),
) -> Result<(String, u64, u64), KgError> {
    read_file(path, progress, &mut |batch| {
        store
            .extend(batch)
            .map_err(|e| KgError::Store(e.to_string()))
    })
}

/// Reads one file's statements (in the default graph, blank nodes renamed)
/// and hands them to `sink` in batches, in the file's order; returns its
/// sha256, its statement count and its size. The file is read, decompressed
/// and parsed on a thread of its own while `sink` runs on the caller's, so
/// that parsing and inserting take a core each.
pub(super) fn read_file(
    path: &Path,
    progress: &dyn Fn(u64),
    sink: &mut dyn FnMut(Vec<Quad>) -> Result<(), KgError>,
) -> Result<(String, u64, u64), KgError> {
    let name = path.display().to_string();
    let lower = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let format = crate::indexer::rdf_media_type(path)
        .and_then(RdfFormat::from_media_type)
        .ok_or_else(|| KgError::Format { path: name.clone() })?;
    let file = File::open(path).map_err(|source| KgError::Read {
        path: name.clone(),
        source,
    })?;
    // read on the caller's thread, whose call set it
    let limit = max_text_bytes();
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Parsed>(BATCHES_WAITING);
        let parsing = std::thread::Builder::new()
            .name("qajudge-rdf-parse".into())
            .spawn_scoped(scope, || parse_into(file, format, &lower, &name, limit, tx))
            .map_err(|e| KgError::Store(format!("cannot start the parsing thread: {e}")))?;
        let mut statements = 0u64;
        let mut received = || -> Result<(), KgError> {
            for parsed in &rx {
                let (batch, bytes) = parsed?;
                statements += batch.len() as u64;
                sink(batch)?;
                progress(bytes);
            }
            Ok(())
        };
        let result = received();
        // a failed sink stops the parser at its next batch
        drop(rx);
        let hashed = parsing
            .join()
            .map_err(|_| KgError::Store("the file reader panicked".into()))?;
        result?;
        let (sha256, bytes) = hashed?;
        Ok((sha256, statements, bytes))
    })
}

/// The parsing thread: reads, hashes, decompresses and parses `file`, sending
/// batches until the file ends, an error (sent too) or a closed channel;
/// returns the sha256 and size of the stored bytes.
fn parse_into(
    file: File,
    format: RdfFormat,
    lower: &str,
    name: &str,
    limit: u64,
    tx: SyncSender<Parsed>,
) -> Result<(String, u64), KgError> {
    let hashing = std::sync::Arc::new(std::sync::Mutex::new(Hashing {
        inner: file,
        hasher: crate::digest::Sha256Hasher::new(),
        bytes: 0,
    }));
    let read_bytes = || hashing.lock().map_or(0, |h| h.bytes);
    let text = match crate::indexer::decompressed_reader(
        lower,
        BufReader::new(SharedReader(hashing.clone())),
    ) {
        Ok(text) => BufReader::new(Bounded {
            inner: text,
            left: limit,
            limit,
        }),
        Err(source) => {
            let _ = tx.send(Err(KgError::Read {
                path: name.to_string(),
                source,
            }));
            return Ok((String::new(), 0));
        }
    };
    let mut batch: Vec<Quad> = Vec::with_capacity(LOAD_BATCH);
    for quad in RdfParser::from_format(format)
        .rename_blank_nodes()
        .for_reader(text)
    {
        let quad = match quad {
            Ok(quad) => quad,
            Err(e) => {
                let _ = tx.send(Err(parse_error(name, e)));
                return Ok((String::new(), 0));
            }
        };
        batch.push(Quad::new(
            quad.subject,
            quad.predicate,
            quad.object,
            GraphName::DefaultGraph,
        ));
        if batch.len() == LOAD_BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(LOAD_BATCH));
            if tx.send(Ok((full, read_bytes()))).is_err() {
                return Ok((String::new(), 0));
            }
        }
    }
    let bytes = read_bytes();
    if !batch.is_empty() {
        let _ = tx.send(Ok((batch, bytes)));
    }
    let h = hashing
        .lock()
        .map_err(|_| KgError::Store("the file reader panicked".into()))?;
    Ok((h.hasher.hex(), h.bytes))
}

/// The hashing reader, shared so that its tally can be read during the load.
struct SharedReader<R>(std::sync::Arc<std::sync::Mutex<Hashing<R>>>);

impl<R: Read> Read for SharedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned reader"))?
            .read(buf)
    }
}

fn parse_error(path: &str, e: RdfParseError) -> KgError {
    match e {
        RdfParseError::Io(source) => KgError::Read {
            path: path.to_string(),
            source,
        },
        RdfParseError::Syntax(s) => {
            let (line, column) = s
                .location()
                .map_or((1, 1), |l| (l.start.line + 1, l.start.column + 1));
            KgError::Syntax {
                path: path.to_string(),
                line,
                column,
                message: s.to_string(),
            }
        }
    }
}
