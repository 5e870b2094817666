//! Streaming RDF readers (the one module that names oxrdfio, oxrdf and the
//! decompressors): N-Triples, N-Quads, Turtle, TriG, RDF/XML and N3, plain or
//! `.gz`, `.bz2`, `.zst`, chosen by file extension. Every statement is handed to a
//! [`Sink`] as a small borrowed [`Stmt`], which adds what it needs to a batch; the
//! batches reach the caller in file order, with the file's size, checksum and
//! counts.
//!
//! Compressed files can be decompressed ahead, in input order, by threads of
//! their own ([`Decompressing`]). Line-based files (N-Triples, N-Quads) are read
//! in parallel: one thread decompresses (or takes the text made ahead) and cuts
//! it into blocks of whole lines, worker threads read
//! the lines with the fast reader of `ntriples` (handing any line it is unsure of
//! to oxrdfio, line by line, so that errors and their locations are oxrdfio's) and
//! fill batches, and the caller's thread takes the batches back in order. Other
//! formats are read by oxrdfio on the caller's thread.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};

use super::ntriples::{line_breaks, parse_line, LineReader};
use super::IndexerError;
use crate::index::hash::Checksum;

/// The object of a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Obj<'a> {
    /// An IRI.
    Iri(&'a str),
    /// A literal: value, language.
    Literal(&'a str, Option<&'a str>),
    /// A blank node or anything else.
    Other,
}

/// One statement, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stmt<'a> {
    /// The subject IRI (`None` for a blank node).
    pub subject: Option<&'a str>,
    /// The predicate IRI.
    pub predicate: &'a str,
    /// The object.
    pub object: Obj<'a>,
}

/// What reading one file gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileStats {
    /// Bytes of the file as stored.
    pub bytes: u64,
    /// XXH3-64 checksum of those bytes.
    pub xxh3_64: u64,
    /// Statements read.
    pub statements: u64,
    /// Malformed statements skipped (lenient reading).
    pub skipped: u64,
    /// The first malformed statement's location and message, when any.
    pub first_error: Option<String>,
    /// Lines read by the reference parser because the fast reader was unsure.
    pub slow_lines: u64,
    /// Problems that did not stop the read (lenient reading).
    pub warnings: Vec<String>,
}

/// True when the indexer can read a file of this name.
pub fn is_rdf_file(path: &Path) -> bool {
    rdf_format(path).is_some()
}

fn split_compression(name: &str) -> (&str, Option<&'static str>) {
    for ext in ["gz", "bz2", "zst"] {
        if let Some(stem) = name.strip_suffix(&format!(".{ext}")) {
            return (
                stem,
                Some(match ext {
                    "gz" => "gz",
                    "bz2" => "bz2",
                    _ => "zst",
                }),
            );
        }
    }
    (name, None)
}

fn rdf_format(path: &Path) -> Option<RdfFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let (stem, _) = split_compression(&name);
    let ext = stem.rsplit_once('.')?.1;
    match ext {
        "nt" | "ntriples" => Some(RdfFormat::NTriples),
        "nq" | "nquads" => Some(RdfFormat::NQuads),
        "ttl" | "turtle" => Some(RdfFormat::Turtle),
        "trig" => Some(RdfFormat::TriG),
        "rdf" | "owl" | "xml" => Some(RdfFormat::RdfXml),
        "n3" => Some(RdfFormat::N3),
        _ => None,
    }
}

impl FileStats {
    /// A malformed statement: the error that stops a strict read, or (lenient)
    /// the first one kept for the metadata. The caller counts skipped statements.
    fn malformed(
        &mut self,
        path: &Path,
        lenient: bool,
        (line, column, message): Located,
    ) -> Result<(), IndexerError> {
        if !lenient {
            return Err(IndexerError::Syntax {
                path: path.display().to_string(),
                line,
                column,
                message,
            });
        }
        if self.first_error.is_none() {
            self.first_error = Some(format!("{line}:{column}: {message}"));
        }
        Ok(())
    }
}

/// What turns statements into facts: called from worker threads, each with its
/// own batch.
pub trait Sink: Sync {
    /// What one block of statements gives.
    type Batch: Send + Default;
    /// Adds what a statement says to a batch.
    fn statement(&self, s: Stmt<'_>, batch: &mut Self::Batch);
    /// Empties a batch the caller is done with, keeping its buffers for reuse.
    fn clear(batch: &mut Self::Batch);
}

/// The caller's side: takes each batch in file order, with the number of (stored)
/// bytes read so far and the number of statements in the batch.
pub type OnBatch<'a, B> = dyn FnMut(&mut B, u64, u64) -> Result<(), IndexerError> + 'a;

/// What has been read of a file: its bytes (published for progress reports) and
/// their checksum, shared with the thread that reads it.
#[derive(Default)]
struct Tally {
    bytes: AtomicU64,
    checksum: Mutex<Checksum>,
}

impl Tally {
    /// The bytes read and their checksum.
    fn value(&self) -> (u64, u64) {
        let checksum = self.checksum.lock().map_or(0, |c| c.value());
        (self.bytes.load(Ordering::Relaxed), checksum)
    }
}

/// Counts and checksums the bytes read through it.
struct Counting<R> {
    inner: R,
    tally: Arc<Tally>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Ok(mut c) = self.tally.checksum.lock() {
            c.update(&buf[..n]);
        }
        self.tally.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Bytes of one piece of decompressed text sent from a decompressing thread.
const PIECE_BYTES: usize = 1 << 20;
/// Pieces of one file's text that may wait to be read (64 MiB).
const PIECES_WAITING: usize = 64;

/// A piece of a file's decompressed text; an empty piece ends the file.
type Piece = std::io::Result<Vec<u8>>;

/// The compressed inputs of a build, decompressed in input order by threads of
/// their own, each file's text waiting (up to [`PIECES_WAITING`] pieces) until
/// it is read: decompressing is the bound of compressed dumps (bzip2 most of
/// all) and runs on one core per file, so with two threads the next file is
/// decompressed while the one before it still is. Dropped, the threads stop.
pub struct Decompressing {
    files: Vec<(std::path::PathBuf, Source)>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

/// The decompressed text of one file as it is made, and the tally of its
/// compressed bytes.
pub struct Source {
    pieces: Receiver<Piece>,
    tally: Arc<Tally>,
}

impl Decompressing {
    /// Starts decompressing the compressed ones of `files` on `threads` threads.
    pub fn start(files: &[std::path::PathBuf], threads: usize) -> Decompressing {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut jobs = std::collections::VecDeque::new();
        let mut sources = Vec::new();
        for path in files {
            if split_compression(&file_name(path)).1.is_none() {
                continue;
            }
            let (tx, rx) = sync_channel::<Piece>(PIECES_WAITING);
            let tally = Arc::new(Tally::default());
            jobs.push_back((path.clone(), tx, tally.clone()));
            sources.push((path.clone(), Source { pieces: rx, tally }));
        }
        let jobs = Arc::new(Mutex::new(jobs));
        for _ in 0..threads.min(sources.len()) {
            let (jobs, flag) = (jobs.clone(), stop.clone());
            let spawned = std::thread::Builder::new()
                .name("qajudge-decompress".into())
                .spawn(move || loop {
                    let Some((path, tx, tally)) = jobs.lock().ok().and_then(|mut q| q.pop_front())
                    else {
                        return;
                    };
                    if let Err(e) = decompress_into(&path, &tx, tally, &flag) {
                        let _ = tx.send(Err(e));
                    }
                });
            // without the thread, a file's text might never come: each file is
            // then read where it is read
            if spawned.is_err() {
                return Decompressing {
                    files: Vec::new(),
                    stop,
                };
            }
        }
        Decompressing {
            files: sources,
            stop,
        }
    }

    /// The text of `path` if it is being decompressed (once).
    pub fn take(&mut self, path: &Path) -> Option<Source> {
        let i = self.files.iter().position(|(p, _)| p == path)?;
        Some(self.files.remove(i).1)
    }
}

impl Drop for Decompressing {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Decompresses one file into pieces sent on `tx`, ending with an empty piece.
fn decompress_into(
    path: &Path,
    tx: &std::sync::mpsc::SyncSender<Piece>,
    tally: Arc<Tally>,
    stop: &std::sync::atomic::AtomicBool,
) -> std::io::Result<()> {
    let counting = Counting {
        inner: File::open(path)?,
        tally,
    };
    let mut text = decompressed(&file_name(path), counting)?;
    loop {
        let mut piece = vec![0u8; PIECE_BYTES];
        let n = read_full(&mut text, &mut piece)?;
        piece.truncate(n);
        // the reader is gone (the build stopped): nothing more to do
        if tx.send(Ok(piece)).is_err() || stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if n == 0 {
            return Ok(());
        }
    }
}

/// Reads the pieces of a [`Source`] as one text.
struct Pieces {
    rx: Receiver<Piece>,
    piece: Vec<u8>,
    at: usize,
    /// The empty piece that ends the text came.
    ended: bool,
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.ended {
            return Ok(0);
        }
        if self.at == self.piece.len() {
            match self.rx.recv() {
                Ok(Ok(piece)) if piece.is_empty() => {
                    self.ended = true;
                    return Ok(0);
                }
                Ok(Ok(piece)) => {
                    self.piece = piece;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(std::io::Error::other("the decompressing thread stopped")),
            }
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A file's name in lower case (which tells its format and compression).
fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The decompressed text of a file.
fn decompressed<'a, R: Read + Send + 'a>(
    name: &str,
    raw: R,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match split_compression(name).1 {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(raw))),
        Some("bz2") => Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(raw))),
        Some(_) => Box::new(zstd::Decoder::new(raw)?),
        None => Box::new(raw),
    })
}

/// Bytes of decompressed text per block handed to a worker.
const BLOCK_BYTES: usize = 1 << 20;
/// Statements per batch when oxrdfio reads the whole file.
const BATCH_STATEMENTS: u64 = 1 << 16;

/// A block of whole lines.
struct Block {
    seq: u64,
    /// 0-based number of its first line in the file.
    first_line: u64,
    /// The lines are `text[..len]`; the rest is room kept for reuse.
    text: Vec<u8>,
    len: usize,
}

/// Buffers handed back for reuse. Fresh memory costs far more than reuse here:
/// the kernel zeroes every new page and a virtual machine's host may first have
/// to back it (up to 4 s per GB on this kind of machine), so a buffer handed
/// back is never dropped while a file is read, and a new one is made only when
/// every buffer is in use (bounded channels dropped what did not fit, and a
/// worker that found none made a new one).
struct Pool<T>(Mutex<Vec<T>>);

impl<T: Default> Pool<T> {
    fn new() -> Self {
        Pool(Mutex::new(Vec::new()))
    }

    /// A buffer handed back, or a new one.
    fn take(&self) -> T {
        self.0
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    /// Hands a buffer back.
    fn give(&self, t: T) {
        if let Ok(mut v) = self.0.lock() {
            v.push(t);
        }
    }
}

/// A malformed statement: 1-based line and column, message.
type Located = (u64, u64, String);

/// What a worker made of a block.
struct Done<B> {
    seq: u64,
    batch: B,
    statements: u64,
    skipped: u64,
    slow_lines: u64,
    first_error: Option<Located>,
    bare_cr: Option<(u64, u64)>,
}

const BARE_CR: &str = "a line break is a bare carriage return (CR without LF): the file went through a damaging conversion; convert its line breaks (tr '\\r' '\\n')";

fn convert(q: &oxrdf::Quad) -> Stmt<'_> {
    let subject = match &q.subject {
        oxrdf::NamedOrBlankNode::NamedNode(n) => Some(n.as_str()),
        _ => None,
    };
    let object = match &q.object {
        oxrdf::Term::NamedNode(n) => Obj::Iri(n.as_str()),
        oxrdf::Term::Literal(l) => Obj::Literal(l.value(), l.language()),
        _ => Obj::Other,
    };
    Stmt {
        subject,
        predicate: q.predicate.as_str(),
        object,
    }
}

/// Reads one block of lines into a batch.
fn read_block<S: Sink>(
    block: &Block,
    format: RdfFormat,
    lenient: bool,
    sink: &S,
    batch: S::Batch,
) -> Done<S::Batch> {
    let quads = format == RdfFormat::NQuads;
    let mut done = Done {
        seq: block.seq,
        batch,
        statements: 0,
        skipped: 0,
        slow_lines: 0,
        first_error: None,
        bare_cr: None,
    };
    let mut reader = LineReader::default();
    let mut line_no = block.first_line;
    let text = &block.text[..block.len];
    // a block is cut at line breaks, so when it is UTF-8 as a whole each line is:
    // one check for the block instead of one per line (and none for CRs when the
    // block holds none)
    let whole = std::str::from_utf8(text).ok();
    let any_cr = line_breaks::any_cr(text);
    // one piece of a line (all of it, or a part between bare CRs), with its text
    // when it is known to be UTF-8; false stops the block
    let mut piece =
        |piece: &[u8], checked: Option<&str>, line_no: u64, done: &mut Done<S::Batch>| {
            if let Some(text) = checked.or_else(|| std::str::from_utf8(piece).ok()) {
                if let Ok(stmt) = parse_line(text, quads, &mut reader) {
                    if let Some(stmt) = stmt {
                        done.statements += 1;
                        sink.statement(stmt, &mut done.batch);
                    }
                    return true;
                }
            }
            // the reference parser decides, and gives the error
            done.slow_lines += 1;
            for quad in RdfParser::from_format(format).for_slice(piece) {
                match quad {
                    Ok(q) => {
                        done.statements += 1;
                        sink.statement(convert(&q), &mut done.batch);
                    }
                    Err(e) => {
                        let (line, column) = e
                            .location()
                            .map_or((0, 0), |l| (l.start.line, l.start.column + 1));
                        let located = (line_no + 1 + line, column, e.to_string());
                        if done.first_error.is_none() {
                            done.first_error = Some(located);
                        }
                        if !lenient {
                            return false;
                        }
                        // one malformed line is one statement skipped, however
                        // many errors the parser finds in it
                        done.skipped += 1;
                        break;
                    }
                }
            }
            true
        };
    let mut from = 0;
    while from <= text.len() {
        let to = line_breaks::next(&text[from..]).map_or(text.len(), |p| from + p);
        let (start, mut end) = (from, to);
        from = to + 1;
        if any_cr {
            while end > start && text[end - 1] == b'\r' {
                end -= 1;
            }
            let line = &text[start..end];
            if let Some(col) = line.iter().position(|&b| b == b'\r') {
                if done.bare_cr.is_none() {
                    done.bare_cr = Some((line_no + 1, col as u64 + 1));
                }
                if !lenient {
                    done.first_error = Some((line_no + 1, col as u64 + 1, BARE_CR.into()));
                    return done;
                }
                for part in line.split(|&b| b == b'\r') {
                    if !piece(part, None, line_no, &mut done) {
                        return done;
                    }
                }
                line_no += 1;
                continue;
            }
        }
        let checked = whole.map(|w| &w[start..end]);
        if !piece(&text[start..end], checked, line_no, &mut done) {
            return done;
        }
        line_no += 1;
    }
    done
}

/// Reads one RDF file, handing every statement to `sink` and every batch, in file
/// order, to `on_batch` with the number of (stored) bytes read so far and the
/// number of statements it holds. A malformed statement stops the read with its
/// line and column, unless `lenient`, which skips and counts it. `threads` workers
/// read line-based files. `source`, when the file is being decompressed by a
/// [`Decompressing`], is where its text comes from.
pub fn read_file<S: Sink>(
    path: &Path,
    source: Option<Source>,
    lenient: bool,
    threads: usize,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let format = rdf_format(path).ok_or_else(|| IndexerError::Input {
        path: path.display().to_string(),
        message: "cannot tell the RDF format from the file name; use .nt, .nq, .ttl, .trig, .rdf, .owl or .n3, optionally with .gz, .bz2 or .zst".into(),
    })?;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let name = file_name(path);
    let (text, tally): (Box<dyn Read + Send + '_>, Arc<Tally>) = match source {
        Some(source) => {
            let pieces = Pieces {
                rx: source.pieces,
                piece: Vec::new(),
                at: 0,
                ended: false,
            };
            (Box::new(pieces), source.tally)
        }
        None => {
            let tally = Arc::new(Tally::default());
            let counting = Counting {
                inner: File::open(path).map_err(io)?,
                tally: tally.clone(),
            };
            (decompressed(&name, counting).map_err(io)?, tally)
        }
    };
    let input = Input {
        path,
        tally: &tally,
    };
    if matches!(format, RdfFormat::NTriples | RdfFormat::NQuads) {
        read_lines(&input, text, format, lenient, threads, sink, on_batch)
    } else {
        read_whole(&input, text, format, lenient, sink, on_batch)
    }
}

/// A file that is not line-based, read by oxrdfio on this thread.
fn read_whole<S: Sink>(
    input: &Input<'_>,
    reader: Box<dyn Read + Send + '_>,
    format: RdfFormat,
    lenient: bool,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let path = input.path;
    let progress = &input.tally.bytes;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut stats = FileStats::default();
    {
        let parser =
            RdfParser::from_format(format).for_reader(BufReader::with_capacity(1 << 16, reader));
        let mut batch = S::Batch::default();
        let mut in_batch = 0u64;
        for quad in parser {
            match quad {
                Ok(q) => {
                    stats.statements += 1;
                    in_batch += 1;
                    sink.statement(convert(&q), &mut batch);
                    if in_batch == BATCH_STATEMENTS {
                        let bytes = progress.load(Ordering::Relaxed);
                        on_batch(&mut batch, bytes, in_batch)?;
                        S::clear(&mut batch);
                        in_batch = 0;
                    }
                }
                Err(RdfParseError::Syntax(e)) => {
                    let (line, column) = e
                        .location()
                        .map_or((0, 0), |l| (l.start.line + 1, l.start.column + 1));
                    stats.malformed(path, lenient, (line, column, e.to_string()))?;
                    stats.skipped += 1;
                }
                Err(RdfParseError::Io(e)) => return Err(io(e)),
            }
        }
        on_batch(&mut batch, progress.load(Ordering::Relaxed), in_batch)?;
    }
    (stats.bytes, stats.xxh3_64) = input.tally.value();
    Ok(stats)
}

/// The file being read.
struct Input<'a> {
    path: &'a Path,
    tally: &'a Tally,
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(super) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Cuts decompressed text into blocks of whole lines and sends them on.
fn cut_blocks(
    mut reader: Box<dyn Read + '_>,
    blocks: std::sync::mpsc::SyncSender<Block>,
    free: &Pool<Vec<u8>>,
) -> std::io::Result<()> {
    let mut carry: Vec<u8> = Vec::new();
    let mut seq = 0u64;
    let mut line = 0u64;
    loop {
        // reuse a block the workers are done with: fresh pages cost more than
        // copying; a reused block keeps its length, so that its room is not
        // zeroed again
        let mut text = free.take();
        let start = carry.len();
        let room = start.max(BLOCK_BYTES / 2) + BLOCK_BYTES;
        if text.len() < room {
            text.resize(room, 0);
        }
        text[..start].copy_from_slice(&carry);
        carry.clear();
        let filled = start + read_full(&mut reader, &mut text[start..room])?;
        let eof = filled < room;
        let mut len = filled;
        if !eof {
            if let Some(cut) = line_breaks::last(&text[..len]) {
                carry.extend_from_slice(&text[cut + 1..len]);
                len = cut + 1;
                if len > 0 && text[len - 1] == b'\n' {
                    len -= 1;
                }
            }
            // a block without any line break grows until it has one
            else {
                text.truncate(len);
                carry = text;
                continue;
            }
        }
        if len == 0 && eof {
            return Ok(());
        }
        let lines = line_breaks::count(&text[..len]) as u64 + 1;
        let block = Block {
            seq,
            first_line: line,
            text,
            len,
        };
        if blocks.send(block).is_err() {
            return Ok(());
        }
        seq += 1;
        line += lines;
        if eof {
            return Ok(());
        }
    }
}

/// A line-based file, read in parallel.
fn read_lines<S: Sink>(
    input: &Input<'_>,
    text: Box<dyn Read + Send + '_>,
    format: RdfFormat,
    lenient: bool,
    threads: usize,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let path = input.path;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut stats = FileStats::default();
    let mut bare_cr: Option<(u64, u64)> = None;
    let (block_tx, block_rx) = sync_channel::<Block>(threads * 2);
    let free_blocks = Pool::<Vec<u8>>::new();
    let free_batches = Pool::<S::Batch>::new();
    let block_rx: Mutex<Option<Receiver<Block>>> = Mutex::new(Some(block_rx));
    let outcome: Result<(), IndexerError> = std::thread::scope(|scope| {
        let (done_tx, done_rx) = sync_channel::<Done<S::Batch>>(threads * 2);
        let reader =
            scope.spawn(|| -> std::io::Result<()> { cut_blocks(text, block_tx, &free_blocks) });
        let block_rx = &block_rx;
        for _ in 0..threads.max(1) {
            let done_tx = done_tx.clone();
            let (free_blocks, free_batches) = (&free_blocks, &free_batches);
            scope.spawn(move || loop {
                let block = match block_rx.lock() {
                    Ok(rx) => match rx.as_ref() {
                        Some(rx) => rx.recv(),
                        None => return,
                    },
                    Err(_) => return,
                };
                let Ok(block) = block else { return };
                let done = read_block(&block, format, lenient, sink, free_batches.take());
                free_blocks.give(block.text);
                if done_tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        let mut pending: BTreeMap<u64, Done<S::Batch>> = BTreeMap::new();
        let mut next = 0u64;
        let result = (|| {
            for done in done_rx.iter() {
                pending.insert(done.seq, done);
                while let Some(done) = pending.remove(&next) {
                    next += 1;
                    stats.statements += done.statements;
                    stats.skipped += done.skipped;
                    stats.slow_lines += done.slow_lines;
                    if bare_cr.is_none() {
                        bare_cr = done.bare_cr;
                    }
                    if let Some(located) = done.first_error {
                        stats.malformed(path, lenient, located)?;
                    }
                    let mut batch = done.batch;
                    on_batch(
                        &mut batch,
                        input.tally.bytes.load(Ordering::Relaxed),
                        done.statements,
                    )?;
                    S::clear(&mut batch);
                    free_batches.give(batch);
                }
            }
            Ok(())
        })();
        // stop the workers and the reader before the scope joins them
        drop(done_rx);
        if let Ok(mut rx) = block_rx.lock() {
            rx.take();
        }
        match reader.join() {
            Ok(Ok(())) => result,
            Ok(Err(e)) => result.and(Err(io(e))),
            Err(_) => result.and(Err(io(std::io::Error::other("the reading thread failed")))),
        }
    });
    outcome?;
    if let Some((line, column)) = bare_cr {
        stats.warnings.push(format!(
            "bare carriage-return line breaks (first at {line}:{column}): read as line breaks, but the file looks damaged"
        ));
    }
    (stats.bytes, stats.xxh3_64) = input.tally.value();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects statements as owned text.
    struct Collect;

    type Owned = (Option<String>, String, String);

    impl Sink for Collect {
        type Batch = Vec<Owned>;
        fn clear(batch: &mut Vec<Owned>) {
            batch.clear();
        }
        fn statement(&self, s: Stmt<'_>, batch: &mut Vec<Owned>) {
            // oxrdfio lower-cases language tags; the fast reader gives them as written
            let object = match s.object {
                Obj::Literal(v, Some(l)) => format!("{v:?}@{}", l.to_ascii_lowercase()),
                o => format!("{o:?}"),
            };
            batch.push((
                s.subject.map(str::to_string),
                s.predicate.to_string(),
                object,
            ));
        }
    }

    /// The fast, parallel reader's statements and stats.
    fn fast(path: &Path, threads: usize) -> (Vec<Owned>, FileStats) {
        fast_from(path, None, threads)
    }

    /// [`fast`], from the text of a [`Decompressing`] when `source` is given.
    fn fast_from(path: &Path, source: Option<Source>, threads: usize) -> (Vec<Owned>, FileStats) {
        let mut all = Vec::new();
        let stats = read_file(path, source, true, threads, &Collect, &mut |b, _, _| {
            all.append(b);
            Ok(())
        })
        .expect("readable");
        (all, stats)
    }

    /// oxrdfio alone, over the whole file (lenient).
    fn reference(path: &Path) -> Vec<Owned> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let format = rdf_format(path).expect("rdf file");
        let file = File::open(path).expect("open");
        let text = decompressed(&name.to_ascii_lowercase(), file).expect("decompress");
        let mut out = Vec::new();
        for q in RdfParser::from_format(format).for_reader(text).flatten() {
            Collect.statement(convert(&q), &mut out);
        }
        out
    }

    #[test]
    fn fast_reader_agrees_with_oxrdfio_on_tricky_lines() {
        let dir = std::env::temp_dir().join(format!("qajudge-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let lines = [
            "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .",
            "# a comment",
            "",
            "   <http://a.org/2>\t<http://p.org/p>   \"tab\\there \\\"q\\\" \\u00e9\\U0001F600\"@de-CH .  # trailing",
            "_:b0 <http://p.org/p> \"x\"^^<http://www.w3.org/2001/XMLSchema#string> .",
            "<http://a.org/3> <http://p.org/p> _:b1 .",
            "<http://a.org/%C3%A9> <http://p.org/p> <http://user@host.org:8080/p?q=1#f> .",
            "<http://de.dbpedia.org/resource/Köln> <http://p.org/p> <urn:isbn:123> .",
            "<http://a.org/\\u0041> <http://p.org/p> <http://b.org/\\U00000042> .",
            "<http://[::1]/x> <http://p.org/p> <http://a.org/4> .",
            "<http://a.org/5> <http://p.org/p> \"\" .",
            "<http://a.org/7> <http://p.org/p> <http://b.org/has space> .",
            "<http://a.org/8> <http://p.org/p> <http://b.org/8> <http://g.org/g> .",
            "<http://a.org/9> <http://p.org/p> \"x\"@en .",
        ];
        let text = lines.join("\n") + "\r\n<http://a.org/10> <http://p.org/p> <http://b.org/10> .";
        let nt = dir.join("tricky.nt");
        std::fs::write(&nt, &text).expect("write");
        let (got, stats) = fast(&nt, 2);
        // a malformed line is skipped whole; oxrdfio alone recovers the triple
        // before the graph name of line 13
        let mut want = reference(&nt);
        want.retain(|s| s.0.as_deref() != Some("http://a.org/8"));
        assert_eq!(got, want);
        assert_eq!(got.len(), 11, "{got:?}");
        // the graph-name line is not N-Triples; the broken line neither
        assert_eq!(stats.skipped, 2, "{stats:?}");
        let first = stats.first_error.as_deref().unwrap_or("");
        assert!(first.starts_with("12:"), "{first}");
        // N-Quads: the graph name is read
        let nq = dir.join("tricky.nq");
        std::fs::write(&nq, &text).expect("write");
        let (got, _) = fast(&nq, 3);
        assert_eq!(got, reference(&nq));
        assert_eq!(got.len(), 12);
        // an unterminated literal costs its line only (oxrdfio alone would read on
        // looking for the closing quote); without --lenient it stops the read there
        let open = dir.join("open.nt");
        std::fs::write(
            &open,
            "<http://a.org/1> <http://p.org/p> \"x .\n<http://a.org/2> <http://p.org/p> \"y\" .\n",
        )
        .expect("write");
        let (got, stats) = fast(&open, 2);
        assert_eq!((got.len(), stats.skipped), (1, 1));
        let err =
            read_file(&open, None, false, 2, &Collect, &mut |_, _, _| Ok(())).expect_err("strict");
        assert!(matches!(err, IndexerError::Syntax { line: 1, .. }), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Compressed files decompressed ahead, one or several, by one or two
    /// threads, read as the files themselves; a broken one names its path.
    #[test]
    fn files_decompressed_ahead_read_as_the_files_themselves() {
        use std::io::Write;
        let dir =
            std::env::temp_dir().join(format!("qajudge-decompressing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("links.nt.gz");
        let mut gz = flate2::write::GzEncoder::new(
            File::create(&path).expect("create"),
            flate2::Compression::fast(),
        );
        for i in 0..5000 {
            writeln!(
                gz,
                "<http://a.org/{i}> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/{}> .",
                i / 3
            )
            .expect("write");
        }
        gz.finish().expect("finish");
        let (want, want_stats) = fast(&path, 2);
        assert_eq!(want.len(), 5000);
        // several files (a plain one among them), decompressed by one or two
        // threads while they are read one after the other, in order
        let plain = dir.join("plain.nt");
        std::fs::write(
            &plain,
            "<http://a.org/x> <http://p.org/p> <http://b.org/x> .\n",
        )
        .expect("write");
        let copy = dir.join("copy.nt.gz");
        std::fs::copy(&path, &copy).expect("copy");
        let files = [path.clone(), plain.clone(), copy.clone()];
        for threads in [1, 2] {
            let mut decompressing = Decompressing::start(&files, threads);
            assert!(
                decompressing.take(&plain).is_none(),
                "a plain file is read as it is"
            );
            for file in [&path, &copy] {
                let source = decompressing.take(file).expect("compressed");
                let (got, stats) = fast_from(file, Some(source), 2);
                assert_eq!(got, want);
                assert_eq!(
                    (stats.bytes, stats.xxh3_64, stats.statements),
                    (want_stats.bytes, want_stats.xxh3_64, want_stats.statements)
                );
            }
        }
        // a file that cannot be decompressed gives its error where it is read
        let broken = dir.join("broken.nt.gz");
        std::fs::write(&broken, b"not gzip at all").expect("write");
        let mut decompressing = Decompressing::start(std::slice::from_ref(&broken), 2);
        let source = decompressing.take(&broken).expect("compressed");
        let err = read_file(&broken, Some(source), true, 2, &Collect, &mut |_, _, _| {
            Ok(())
        })
        .expect_err("not gzip");
        assert!(err.to_string().contains("broken.nt.gz"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_line_that_is_not_utf8_costs_that_line_only() {
        // the block is checked as a whole first: when it is not UTF-8, its other
        // lines are still read, each checked on its own
        let dir = std::env::temp_dir().join(format!("qajudge-latin1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("latin1.nt");
        let mut bytes = b"<http://a.org/1> <http://p.org/p> <http://b.org/1> .\n".to_vec();
        bytes.extend_from_slice(b"<http://a.org/2> <http://p.org/p> \"caf\xe9\" .\n");
        bytes.extend_from_slice(b"<http://a.org/3> <http://p.org/p> <http://b.org/3> .\n");
        std::fs::write(&path, &bytes).expect("write");
        let (got, stats) = fast(&path, 2);
        let subjects: Vec<_> = got.iter().map(|s| s.0.as_deref()).collect();
        assert_eq!(subjects, [Some("http://a.org/1"), Some("http://a.org/3")]);
        assert_eq!(stats.skipped, 1, "{stats:?}");
        let first = stats.first_error.as_deref().unwrap_or("");
        assert!(first.starts_with("2:"), "{first}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Every line-based file of `../shared/data/rdf` (its first 30,000 lines,
    /// decompressed, to keep the debug-built test short) reads the same with the
    /// fast parallel reader as with oxrdfio alone.
    #[test]
    fn fast_reader_agrees_with_oxrdfio_on_real_dumps() {
        let Some(dir) = crate::test_data::shared_data("rdf") else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("qajudge-dumps-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).expect("tmp");
        let mut stack = vec![dir];
        let (mut files, mut statements, mut slow) = (0, 0, 0);
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("readable dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if !matches!(
                    rdf_format(&path),
                    Some(RdfFormat::NTriples | RdfFormat::NQuads)
                ) {
                    continue;
                }
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let mut text = Vec::new();
                decompressed(&name.to_ascii_lowercase(), File::open(&path).expect("open"))
                    .expect("decompress")
                    .read_to_end(&mut text)
                    .expect("read");
                let cut = line_breaks::nth(&text, 30_000).map_or(text.len(), |p| p + 1);
                let ext = if rdf_format(&path) == Some(RdfFormat::NQuads) {
                    "nq"
                } else {
                    "nt"
                };
                let prefix = tmp.join(format!("{files}.{ext}"));
                std::fs::write(&prefix, &text[..cut]).expect("write");
                let (got, stats) = fast(&prefix, 2);
                let want = reference(&prefix);
                assert_eq!(got.len(), want.len(), "{}", path.display());
                if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                    panic!(
                        "{}: statement {i}: {:?} vs {:?}",
                        path.display(),
                        got[i],
                        want[i]
                    );
                }
                files += 1;
                statements += stats.statements;
                slow += stats.slow_lines;
            }
        }
        std::fs::remove_dir_all(&tmp).ok();
        assert!(files >= 20, "{files} files");
        // the fast reader reads nearly everything itself
        assert!(
            slow * 100 < statements,
            "{slow} of {statements} lines went to oxrdfio"
        );
    }
}
