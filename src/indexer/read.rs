//! Streaming RDF readers (the one module that names oxrdfio, oxrdf and the
//! decompressors):
//! N-Triples, N-Quads, Turtle, TriG, RDF/XML and N3, plain or `.gz`, `.bz2`,
//! `.zst`, chosen by file extension; every statement is handed to a callback as a
//! small borrowed [`Stmt`], with its file's size, checksum and counts.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};

use super::IndexerError;

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
    /// FNV-1a 64-bit checksum of those bytes.
    pub fnv1a64: u64,
    /// Statements read.
    pub statements: u64,
    /// Malformed statements skipped (lenient reading).
    pub skipped: u64,
    /// The first malformed statement's location and message, when any.
    pub first_error: Option<String>,
    /// Problems that did not stop the read (lenient reading).
    pub warnings: Vec<String>,
}

/// Watches the decompressed text of a line-based format (N-Triples, N-Quads) for
/// line breaks that are a bare carriage return: the grammar allows them, but no
/// dump writer does; a file that has them went through a damaging conversion (the
/// real `uk-university-links.nt` also has truncated IRIs). Without `lenient` the
/// first one stops the read with its location.
struct BareCr<R> {
    inner: R,
    lenient: bool,
    line: u64,
    column: u64,
    pending_cr: bool,
    found: Option<(u64, u64)>,
}

impl<R: Read> Read for BareCr<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.found.is_some() {
            return Ok(n);
        }
        for &b in &buf[..n] {
            if self.pending_cr {
                self.pending_cr = false;
                if b != b'\n' {
                    self.found = Some((self.line, self.column));
                    if self.lenient {
                        return Ok(n);
                    }
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "bare carriage return",
                    ));
                }
            }
            match b {
                b'\r' => self.pending_cr = true,
                b'\n' => {
                    self.line += 1;
                    self.column = 0;
                }
                _ => self.column += 1,
            }
        }
        Ok(n)
    }
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

/// Counts and hashes the bytes read through it, and reports progress.
struct Counting<R, F> {
    inner: R,
    bytes: u64,
    hash: u64,
    progress: F,
}

impl<R: Read, F: FnMut(u64)> Read for Counting<R, F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            self.hash ^= u64::from(b);
            self.hash = self.hash.wrapping_mul(0x0000_0100_0000_01B3);
        }
        self.bytes += n as u64;
        (self.progress)(n as u64);
        Ok(n)
    }
}

/// Reads one RDF file, calling `on_stmt` for every statement and `on_bytes` with
/// the number of (stored) bytes read so far. A malformed statement stops the read
/// with its line and column, unless `lenient`, which skips and counts it.
pub fn read_file(
    path: &Path,
    lenient: bool,
    on_stmt: &mut dyn FnMut(Stmt<'_>),
    on_bytes: &mut dyn FnMut(u64),
) -> Result<FileStats, IndexerError> {
    let format = rdf_format(path).ok_or_else(|| IndexerError::Input {
        path: path.display().to_string(),
        message: "cannot tell the RDF format from the file name; use .nt, .nq, .ttl, .trig, .rdf, .owl or .n3, optionally with .gz, .bz2 or .zst".into(),
    })?;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let file = File::open(path).map_err(io)?;
    let mut counting = Counting {
        inner: file,
        bytes: 0,
        hash: 0xCBF2_9CE4_8422_2325,
        progress: |n| on_bytes(n),
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut stats = FileStats::default();
    {
        let reader: Box<dyn Read + '_> = match split_compression(&name).1 {
            Some("gz") => Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(
                &mut counting,
            ))),
            Some("bz2") => Box::new(bzip2::read::MultiBzDecoder::new(BufReader::new(
                &mut counting,
            ))),
            Some(_) => Box::new(zstd::Decoder::new(&mut counting).map_err(io)?),
            None => Box::new(&mut counting),
        };
        let line_based = matches!(format, RdfFormat::NTriples | RdfFormat::NQuads);
        let mut checked = BareCr {
            inner: reader,
            lenient: lenient || !line_based,
            line: 0,
            column: 0,
            pending_cr: false,
            found: None,
        };
        let parser = RdfParser::from_format(format)
            .for_reader(BufReader::with_capacity(1 << 16, &mut checked));
        for quad in parser {
            match quad {
                Ok(q) => {
                    stats.statements += 1;
                    let subject = match &q.subject {
                        oxrdf::NamedOrBlankNode::NamedNode(n) => Some(n.as_str()),
                        _ => None,
                    };
                    let object = match &q.object {
                        oxrdf::Term::NamedNode(n) => Obj::Iri(n.as_str()),
                        oxrdf::Term::Literal(l) => Obj::Literal(l.value(), l.language()),
                        _ => Obj::Other,
                    };
                    on_stmt(Stmt {
                        subject,
                        predicate: q.predicate.as_str(),
                        object,
                    });
                }
                Err(RdfParseError::Syntax(e)) => {
                    let (line, column) = e
                        .location()
                        .map_or((0, 0), |l| (l.start.line + 1, l.start.column + 1));
                    let message = e.to_string();
                    if !lenient {
                        return Err(IndexerError::Syntax {
                            path: path.display().to_string(),
                            line,
                            column,
                            message,
                        });
                    }
                    stats.skipped += 1;
                    if stats.first_error.is_none() {
                        stats.first_error = Some(format!("{line}:{column}: {message}"));
                    }
                    if stats.skipped > 10_000_000 {
                        break;
                    }
                }
                Err(RdfParseError::Io(e)) => {
                    if let (Some((line, column)), std::io::ErrorKind::InvalidData) =
                        (checked.found, e.kind())
                    {
                        return Err(IndexerError::Syntax {
                            path: path.display().to_string(),
                            line: line + 1,
                            column: column + 1,
                            message: "a line break is a bare carriage return (CR without LF): the file went through a damaging conversion; convert its line breaks (tr '\\r' '\\n')".into(),
                        });
                    }
                    return Err(io(e));
                }
            }
        }
        if line_based {
            if let Some((line, column)) = checked.found {
                stats.warnings.push(format!(
                    "bare carriage-return line breaks (first at {}:{}): read as line breaks, but the file looks damaged",
                    line + 1,
                    column + 1
                ));
            }
        }
    }
    stats.bytes = counting.bytes;
    stats.fnv1a64 = counting.hash;
    Ok(stats)
}
