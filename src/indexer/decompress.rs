//! Decompression of inputs (the one module that names flate2, bzip2 and zstd,
//! with its child `zip`, the reader of a zip archive of one file): plain,
//! `.gz`, `.bz2`, `.zst` and `.zip` files, read where they are read or
//! decompressed ahead, in input order, by threads of their own, with the count
//! and checksum of the stored bytes; and the benchmarks and runs a command
//! reads whole, told compressed by their first bytes and decompressed within
//! a bound on their decompressed size ([`decompress_within`]). Only regular files and named pipes are
//! opened: a device (`/dev/zero` would never end), a socket or a directory is
//! refused by name before it is read.

mod zip;

pub use zip::ZipError;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};

use crate::index::hash::Checksum;

/// A file name without its compression extension, and that extension.
pub(super) fn split_compression(name: &str) -> (&str, Option<&'static str>) {
    for ext in ["gz", "bz2", "zst", "zip"] {
        if let Some(stem) = name.strip_suffix(&format!(".{ext}")) {
            return (
                stem,
                Some(match ext {
                    "gz" => "gz",
                    "bz2" => "bz2",
                    "zst" => "zst",
                    _ => "zip",
                }),
            );
        }
    }
    (name, None)
}

/// What has been read of a file: its bytes (published for progress reports) and
/// their checksum, shared with the thread that reads it.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) bytes: AtomicU64,
    checksum: Mutex<Checksum>,
}

impl Tally {
    /// The bytes read and their checksum.
    pub(super) fn value(&self) -> (u64, u64) {
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

impl Source {
    /// The text as one reader, and the tally of the bytes read.
    pub(super) fn into_reader(self) -> (Box<dyn Read + Send>, Arc<Tally>) {
        let pieces = Pieces {
            rx: self.pieces,
            piece: Vec::new(),
            at: 0,
            ended: false,
        };
        (Box::new(pieces), self.tally)
    }
}

/// What a file is, in words for a message, when it is not a regular file: a
/// directory, a named pipe (FIFO), a character or block device, a socket;
/// `None` for a regular file.
pub fn special_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    Some(if file_type.is_file() {
        return None;
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "a special file"
    })
}

/// Checks that an input of a build (symbolic links followed) is a regular file
/// or a named pipe another program writes a dump into; anything else is an
/// error of kind `InvalidInput` saying what it is.
pub(super) fn check_input(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let file_type = std::fs::metadata(path)?.file_type();
    match special_kind(file_type) {
        Some(kind) if !file_type.is_fifo() => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "not a regular file ({kind}); give a file, a directory of files or a named pipe"
            ),
        )),
        _ => Ok(()),
    }
}

/// A file's decompressed text read where it is read, and the tally of its bytes.
pub(super) fn open(path: &Path) -> std::io::Result<(Box<dyn Read + Send>, Arc<Tally>)> {
    let tally = Arc::new(Tally::default());
    let counting = Counting {
        inner: File::open(path)?,
        tally: tally.clone(),
    };
    Ok((decompressed(&file_name(path), counting)?, tally))
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
    check_input(path)?;
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
pub(super) fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The decompressed text of a file.
pub(super) fn decompressed<'a, R: Read + Send + 'a>(
    name: &str,
    raw: R,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match split_compression(name).1 {
        Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(raw))),
        Some("bz2") => Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(raw))),
        Some("zip") => Box::new(zip::OneFile::new(BufReader::new(raw))),
        Some(_) => Box::new(zstd::Decoder::new(raw)?),
        None => Box::new(raw),
    })
}

/// The compression of a file from its first bytes (`gzip`, `bzip2`,
/// `zstd`, `zip`: a file header or, for an empty archive, the end record);
/// `None` for anything else.
pub fn compression_of(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x1f\x8b") {
        Some("gzip")
    } else if head.starts_with(b"BZh") && head.get(3).is_some_and(u8::is_ascii_digit) {
        Some("bzip2")
    } else if head.starts_with(b"\x28\xb5\x2f\xfd") {
        Some("zstd")
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some("zip")
    } else {
        None
    }
}

/// Why compressed bytes were not decompressed.
#[derive(Debug, thiserror::Error)]
pub enum DecompressError {
    /// More than the bound: a decompression bomb, or a file larger than allowed.
    #[error("its {compression} content decompresses to more than {limit} bytes")]
    TooLarge {
        /// The compression.
        compression: &'static str,
        /// The bound, in bytes.
        limit: u64,
    },
    /// A zip archive that is not of one readable file (several files, none,
    /// encrypted, an unknown method, damaged).
    #[error("{0}")]
    Archive(#[from] ZipError),
    /// The compressed stream is damaged.
    #[error("its {compression} content cannot be decompressed: {source}")]
    Damaged {
        /// The compression.
        compression: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// `bytes` decompressed when [`compression_of`] tells a compression (with
/// its name), as they are otherwise; at most `limit` bytes of output are
/// made: one more is [`DecompressError::TooLarge`], never read further.
pub fn decompress_within(
    bytes: Vec<u8>,
    limit: u64,
) -> Result<(Vec<u8>, Option<&'static str>), DecompressError> {
    let Some(compression) = compression_of(&bytes) else {
        return Ok((bytes, None));
    };
    let name = match compression {
        "gzip" => "x.gz",
        "bzip2" => "x.bz2",
        "zip" => "x.zip",
        _ => "x.zst",
    };
    // a zip held whole names its files before any is decompressed
    if compression == "zip" {
        if let Some(names) = zip::names(&bytes).filter(|n| n.len() > 1) {
            return Err(ZipError::SeveralFiles { names }.into());
        }
    }
    let damaged = |source| archive_or_damaged(compression, source);
    // the size first, into no buffer, so that a bomb is refused holding
    // nothing of its text; then the text into a buffer of exactly that size
    // (a growing buffer doubles: 2 GiB held 6 GiB at its last growth)
    let size = {
        let reader = decompressed(name, std::io::Cursor::new(&bytes[..])).map_err(damaged)?;
        std::io::copy(
            &mut reader.take(limit.saturating_add(1)),
            &mut std::io::sink(),
        )
        .map_err(damaged)?
    };
    if size > limit {
        return Err(DecompressError::TooLarge { compression, limit });
    }
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    decompressed(name, std::io::Cursor::new(bytes))
        .map_err(damaged)?
        .take(size)
        .read_to_end(&mut out)
        .map_err(damaged)?;
    Ok((out, Some(compression)))
}

/// The error of a decompressor: a zip archive's own ([`ZipError`]) as it is,
/// anything else as damaged content of that compression.
fn archive_or_damaged(compression: &'static str, source: std::io::Error) -> DecompressError {
    if !matches!(source.get_ref(), Some(inner) if inner.is::<ZipError>()) {
        return DecompressError::Damaged {
            compression,
            source,
        };
    }
    let kind = source.kind();
    match source.into_inner() {
        Some(inner) => match inner.downcast::<ZipError>() {
            Ok(zip) => DecompressError::Archive(*zip),
            Err(other) => DecompressError::Damaged {
                compression,
                source: std::io::Error::new(kind, other),
            },
        },
        None => DecompressError::Damaged {
            compression,
            source: kind.into(),
        },
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
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

#[cfg(test)]
mod within_tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn compressed_text_is_read_within_its_bound() {
        let text = b"{\"questions\": []}".repeat(1000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).expect("compressed");
        let gz = gz.finish().expect("compressed");
        let zst = zstd::encode_all(&text[..], 3).expect("compressed");
        for (bytes, name) in [(gz, "gzip"), (zst, "zstd")] {
            let (out, found) = decompress_within(bytes.clone(), 1 << 20).expect("within");
            assert_eq!((out.as_slice(), found), (&text[..], Some(name)));
            let e = decompress_within(bytes, 1000).expect_err("past the bound");
            assert!(
                matches!(e, DecompressError::TooLarge { limit: 1000, .. }),
                "{e}"
            );
        }
        // a zip of one file (Info-ZIP's, tests/data/zip/README.md), of two
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/zip");
        let read = |name: &str| std::fs::read(fixtures.join(name)).expect("fixture");
        let (out, found) = decompress_within(read("gold.json.zip"), 1 << 20).expect("zip");
        assert_eq!((out, found), (read("gold.json"), Some("zip")));
        let e = decompress_within(read("gold.json.zip"), 100).expect_err("past the bound");
        assert_eq!(
            e.to_string(),
            "its zip content decompresses to more than 100 bytes"
        );
        let e = decompress_within(read("two.zip"), 1 << 20).expect_err("two files");
        assert!(
            matches!(&e, DecompressError::Archive(ZipError::SeveralFiles { names }) if names == &["gold.json", "run.json"]),
            "{e}"
        );
        let plain = decompress_within(b"{}".to_vec(), 1).expect("plain");
        assert_eq!(plain, (b"{}".to_vec(), None));
        let e = decompress_within(b"\x1f\x8b\x08garbage".to_vec(), 100).expect_err("damaged");
        assert!(
            e.to_string()
                .contains("gzip content cannot be decompressed"),
            "{e}"
        );
    }
}
