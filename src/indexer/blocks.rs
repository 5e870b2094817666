//! Line-based files (N-Triples, N-Quads) read in parallel: one thread cuts the
//! text into blocks of whole lines, worker threads read them with the fast line
//! reader of `ntriples` (handing any line it is unsure of to oxrdfio, line by
//! line, so that errors and their locations are oxrdfio's) and fill batches, and
//! the caller's thread takes the batches back in file order.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;

use oxrdfio::{RdfFormat, RdfParser};

use super::decompress::read_full;
use super::ntriples::{line_breaks, parse_line, LineReader};
use super::statement::{FileStats, Input, Located, Obj, OnBatch, Sink, Stmt};
use super::IndexerError;

/// Bytes of decompressed text per block handed to a worker.
const BLOCK_BYTES: usize = 1 << 20;
/// A block of whole lines.
struct Block {
    seq: u64,
    /// 0-based number of its first line in the file.
    first_line: u64,
    /// The lines are `text[..len]`; the rest is room kept for reuse.
    text: Vec<u8>,
    len: usize,
}

/// Buffers handed back for reuse, never dropped while a file is read: fresh
/// memory costs far more than reuse (the kernel zeroes it, and a virtual
/// machine's host may first have to back it).
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

/// A statement of oxrdf's as the sink takes it.
pub(super) fn convert(q: &oxrdf::Quad) -> Stmt<'_> {
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

/// Reads one N-Triples line (N-Quads with `quads`; without its line break) with
/// the fast line reader and with the reference parser (oxrdfio) and says how they
/// differ, or `None` when they agree: whatever the fast reader accepts, the
/// reference parser reads as the same statement (language tags compared in lower
/// case, as oxrdfio gives them), and what it leaves to the reference parser is
/// read by that alone. The invariant the line reader's fuzz target checks.
pub fn line_reader_disagreement(line: &str, quads: bool) -> Option<String> {
    let format = if quads {
        RdfFormat::NQuads
    } else {
        RdfFormat::NTriples
    };
    let mut reader = LineReader::default();
    let Ok(fast) = parse_line(line, quads, &mut reader) else {
        return None;
    };
    let mut reference = Vec::new();
    for quad in RdfParser::from_format(format).for_slice(line.as_bytes()) {
        match quad {
            Ok(q) => reference.push(format!("{:?}", lowercase_lang(convert(&q)))),
            Err(e) => {
                return Some(format!(
                    "the fast reader read {fast:?}, the reference parser fails: {e}"
                ))
            }
        }
    }
    let fast: Vec<String> = fast
        .into_iter()
        .map(|s| format!("{:?}", lowercase_lang(s)))
        .collect();
    (fast != reference)
        .then(|| format!("the fast reader read {fast:?}, the reference parser {reference:?}"))
}

/// A statement with its language tag in lower case (for comparing the readers).
fn lowercase_lang(s: Stmt<'_>) -> (Option<&str>, &str, String) {
    let object = match s.object {
        Obj::Literal(v, Some(l)) => format!("{v:?}@{}", l.to_ascii_lowercase()),
        o => format!("{o:?}"),
    };
    (s.subject, s.predicate, object)
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
pub(super) fn read_lines<S: Sink>(
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
            for done in &done_rx {
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
    use super::line_reader_disagreement;

    #[test]
    fn the_readers_agree_on_lines_either_reads() {
        for line in [
            "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .",
            "<http://a.org/2> <http://p.org/p> \"caf\\u00e9\"@DE-ch .",
            "_:b <http://p.org/p> \"x\"^^<http://www.w3.org/2001/XMLSchema#int> .",
            "# a comment",
            "",
            "<http://a.org/3> <http://p.org/p> \"open .",
            "<http://a.org/4> <http://p.org/p> <http://b.org/has space> .",
        ] {
            assert_eq!(line_reader_disagreement(line, false), None, "{line}");
        }
        let quad = "<http://a.org/5> <http://p.org/p> <http://b.org/5> <http://g.org/g> .";
        assert_eq!(line_reader_disagreement(quad, true), None);
        // found by the `ntriples` fuzz target (the fast reader accepted them)
        for line in [
            "<> <http://www.w3.org/2002/07/owl#sameAs> <http://d-nb.info/gnd/16203353-9> .",
            "<http://dbpedia.org/resource/X> <> <http://www.w3.org/2002/07/owl#sameAs> <http://d-nb.info/gnd/1> .",
            "<http://dbpedia.org/resource/Y> <http://www.w3.org/2002/07/owl#sameAs> <http://d-:::::::::::::::::::::> .",
            "<http://dbpedia.org/resource/Z> <http://www.w3.org/2002/07/owl#sameAs> <http://d-nb.info::::::::/gnd/4781009-9> .",
        ] {
            for quads in [false, true] {
                assert_eq!(line_reader_disagreement(line, quads), None, "{line}");
            }
        }
    }
}
