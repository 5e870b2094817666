//! Loading RDF files into the embedded store: each file's format from its
//! name, decompressed as its extension says, parsed by oxigraph with its syntax
//! errors located (file, line, column), inserted in batches into the default
//! graph, and hashed (SHA-256 of the stored bytes) for the report's provenance.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use oxigraph::io::{RdfFormat, RdfParseError, RdfParser};
use oxigraph::model::{GraphName, Quad};
use oxigraph::store::Store;

use super::KgError;

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

/// Statements inserted per store call.
const LOAD_BATCH: usize = 1 << 16;

/// Loads one file; returns its sha256, its statement count and its size.
pub(super) fn load_file(
    store: &Store,
    path: &Path,
    progress: &dyn Fn(u64),
) -> Result<(String, u64, u64), KgError> {
    let name = path.display().to_string();
    let read_err = |source| KgError::Read {
        path: name.clone(),
        source,
    };
    let lower = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let format = crate::indexer::rdf_media_type(path)
        .and_then(RdfFormat::from_media_type)
        .ok_or_else(|| KgError::Format { path: name.clone() })?;
    let file = File::open(path).map_err(read_err)?;
    let hashing = std::sync::Arc::new(std::sync::Mutex::new(Hashing {
        inner: file,
        hasher: crate::digest::Sha256Hasher::new(),
        bytes: 0,
    }));
    let shared = SharedReader(hashing.clone());
    let text =
        crate::indexer::decompressed_reader(&lower, BufReader::new(shared)).map_err(read_err)?;
    let mut statements = 0u64;
    let mut batch: Vec<Quad> = Vec::with_capacity(LOAD_BATCH);
    let flush = |batch: &mut Vec<Quad>| -> Result<(), KgError> {
        store
            .extend(batch.drain(..))
            .map_err(|e| KgError::Store(e.to_string()))
    };
    for quad in RdfParser::from_format(format)
        .rename_blank_nodes()
        .for_reader(text)
    {
        let quad = quad.map_err(|e| parse_error(&name, e))?;
        statements += 1;
        batch.push(Quad::new(
            quad.subject,
            quad.predicate,
            quad.object,
            GraphName::DefaultGraph,
        ));
        if batch.len() == LOAD_BATCH {
            flush(&mut batch)?;
            progress(hashing.lock().map_or(0, |h| h.bytes));
        }
    }
    flush(&mut batch)?;
    let h = hashing
        .lock()
        .map_err(|_| KgError::Store("the file reader panicked".into()))?;
    Ok((h.hasher.hex(), statements, h.bytes))
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
