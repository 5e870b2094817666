//! Line-based files (N-Triples, N-Quads) read in parallel: one thread cuts the
//! text into blocks of whole lines, worker threads read them with the fast line
//! reader of `ntriples` (handing any line it is unsure of to oxrdfio, line by
//! line, so that errors and their locations are oxrdfio's) and fill batches, and
//! the caller's thread takes the batches back in file order.
//!
//! A statement line longer than [`LineRules::max_line_bytes`] is not read: the
//! cutting thread stops growing its block once the line passes the limit and
//! reads on to the line's end without keeping it, and a worker refuses one that
//! came whole inside a block; either way it is a located error, or under
//! `lenient` one skipped statement and a warning. A line of any length costs
//! time linear in its length: only bytes not searched before are searched for
//! line breaks, and a block that must grow doubles.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
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

/// The default of [`LineRules::max_line_bytes`]: 1 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// What stops the read of a line-based file and what is skipped instead.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineRules {
    /// Skip and count malformed statements and over-long lines instead of
    /// stopping at the first one.
    pub(super) lenient: bool,
    /// The longest statement line read, in bytes (without its line break).
    pub(super) max_line_bytes: usize,
}

/// A block of whole lines, or the place of one line too long to read.
struct Block {
    seq: u64,
    /// 0-based number of its first line in the file.
    first_line: u64,
    /// The lines are `text[..len]`; the rest is room kept for reuse.
    text: Vec<u8>,
    len: usize,
    /// The length of the line `first_line` when it passed the limit and was
    /// not kept (the block holds no text then).
    long_line: Option<u64>,
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
    /// Lines past the limit skipped (lenient), and the 1-based number of the first.
    long_lines: u64,
    first_long_line: Option<u64>,
}

impl<B> Done<B> {
    /// A malformed line at `located`: kept as the block's first error; true
    /// (go on) when `lenient`, which counts it as one skipped statement.
    fn malformed(&mut self, located: Located, lenient: bool) -> bool {
        if self.first_error.is_none() {
            self.first_error = Some(located);
        }
        if lenient {
            self.skipped += 1;
        }
        lenient
    }

    /// A line of `length` bytes, past `max` bytes, at 1-based `line`: see
    /// [`Done::malformed`].
    fn long_line(&mut self, line: u64, length: u64, max: usize, lenient: bool) -> bool {
        self.long_lines += 1;
        self.first_long_line.get_or_insert(line);
        let message = format!(
            "the line is {length} bytes long, past the limit of {} for a statement line: raise the limit with --max-line-kb if the file is right",
            limit_text(max)
        );
        self.malformed((line, 1, message), lenient)
    }
}

/// A line-length limit as said in messages: KiB when it is whole KiB.
fn limit_text(max: usize) -> String {
    if max >= 1024 && max.is_multiple_of(1024) {
        format!("{} KiB", max >> 10)
    } else {
        format!("{max} bytes")
    }
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
    rules: LineRules,
    sink: &S,
    batch: S::Batch,
) -> Done<S::Batch> {
    let LineRules {
        lenient,
        max_line_bytes,
    } = rules;
    let mut done = Done {
        seq: block.seq,
        batch,
        statements: 0,
        skipped: 0,
        slow_lines: 0,
        first_error: None,
        bare_cr: None,
        long_lines: 0,
        first_long_line: None,
    };
    if let Some(length) = block.long_line {
        done.long_line(block.first_line + 1, length, max_line_bytes, lenient);
        return done;
    }
    let mut pieces = Pieces {
        reader: LineReader::default(),
        format,
        lenient,
        sink,
    };
    let mut line_no = block.first_line;
    let text = &block.text[..block.len];
    // a block is cut at line breaks, so when it is UTF-8 as a whole each line is:
    // one check for the block instead of one per line (and none for CRs when the
    // block holds none)
    let whole = std::str::from_utf8(text).ok();
    let any_cr = line_breaks::any_cr(text);
    let mut from = 0;
    while from <= text.len() {
        let to = line_breaks::next(&text[from..]).map_or(text.len(), |p| from + p);
        let (start, mut end) = (from, to);
        from = to + 1;
        // a line past the limit that came whole inside the block
        if end - start > max_line_bytes {
            if !done.long_line(line_no + 1, (end - start) as u64, max_line_bytes, lenient) {
                return done;
            }
            line_no += 1;
            continue;
        }
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
                    if !pieces.read(part, None, line_no, &mut done) {
                        return done;
                    }
                }
                line_no += 1;
                continue;
            }
        }
        let checked = whole.map(|w| &w[start..end]);
        if !pieces.read(&text[start..end], checked, line_no, &mut done) {
            return done;
        }
        line_no += 1;
    }
    done
}

/// What reads the lines of a block into its batch: the fast line reader,
/// the reference parser (oxrdfio) for what that is unsure of, and the sink.
struct Pieces<'s, S> {
    reader: LineReader,
    format: RdfFormat,
    lenient: bool,
    sink: &'s S,
}

impl<S: Sink> Pieces<'_, S> {
    /// Reads one piece of a line (all of it, or a part between bare CRs),
    /// `checked` its text when it is known to be UTF-8, at 0-based `line_no`;
    /// false stops the block.
    fn read(
        &mut self,
        piece: &[u8],
        checked: Option<&str>,
        line_no: u64,
        done: &mut Done<S::Batch>,
    ) -> bool {
        let quads = self.format == RdfFormat::NQuads;
        if let Some(text) = checked.or_else(|| std::str::from_utf8(piece).ok()) {
            if let Ok(stmt) = parse_line(text, quads, &mut self.reader) {
                if let Some(stmt) = stmt {
                    done.statements += 1;
                    self.sink.statement(stmt, &mut done.batch);
                }
                return true;
            }
        }
        // the reference parser decides, and gives the error
        done.slow_lines += 1;
        for quad in RdfParser::from_format(self.format).for_slice(piece) {
            match quad {
                Ok(q) => {
                    done.statements += 1;
                    self.sink.statement(convert(&q), &mut done.batch);
                }
                Err(e) => {
                    let (line, column) = e
                        .location()
                        .map_or((0, 0), |l| (l.start.line, l.start.column + 1));
                    let located = (line_no + 1 + line, column, e.to_string());
                    // one malformed line is one statement skipped, however
                    // many errors the parser finds in it
                    if !done.malformed(located, self.lenient) {
                        return false;
                    }
                    break;
                }
            }
        }
        true
    }
}

/// Cuts decompressed text into blocks of whole lines and sends them on; a line
/// longer than `max_line` bytes that does not end within a block is sent as its
/// place only (a [`Block`] with `long_line`), its text read and dropped.
fn cut_blocks(
    mut reader: Box<dyn Read + '_>,
    blocks: std::sync::mpsc::SyncSender<Block>,
    free: &Pool<Vec<u8>>,
    max_line: usize,
) -> std::io::Result<()> {
    // the start of the line the last block did not end; never a line break
    let mut carry: Vec<u8> = Vec::new();
    let mut seq = 0u64;
    let mut line = 0u64;
    'blocks: loop {
        // reuse a block the workers are done with: fresh pages cost more than
        // copying; a reused block keeps its length, so that its room is not
        // zeroed again
        let mut text = free.take();
        let start = carry.len();
        let mut room = start.max(BLOCK_BYTES / 2) + BLOCK_BYTES;
        if text.len() < room {
            text.resize(room, 0);
        }
        text[..start].copy_from_slice(&carry);
        carry.clear();
        let mut filled = start + read_full(&mut reader, &mut text[start..room])?;
        // only what was read is searched: the carry holds no line break
        let mut cut = line_breaks::last(&text[start..filled]).map(|p| start + p);
        let mut eof = filled < room;
        // a block without any line break is one line: it grows (doubling, so
        // that a long line costs linear time) until the line ends, or is past
        // the limit and read to its end without being kept
        while cut.is_none() && !eof {
            if filled > max_line {
                let (length, rest, ended) = skip_line(&mut reader, &mut text, filled as u64)?;
                carry.extend_from_slice(&text[..rest]);
                let block = Block {
                    seq,
                    first_line: line,
                    text,
                    len: 0,
                    long_line: Some(length),
                };
                if blocks.send(block).is_err() || ended {
                    return Ok(());
                }
                seq += 1;
                line += 1;
                continue 'blocks;
            }
            let searched = filled;
            room *= 2;
            if text.len() < room {
                text.resize(room, 0);
            }
            filled += read_full(&mut reader, &mut text[filled..room])?;
            cut = line_breaks::last(&text[searched..filled]).map(|p| searched + p);
            eof = filled < room;
        }
        let mut len = filled;
        if let (false, Some(cut)) = (eof, cut) {
            carry.extend_from_slice(&text[cut + 1..len]);
            // the block's last line break is not part of it
            len = cut;
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
            long_line: None,
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

/// Reads on to the end of a line whose first `seen` bytes were read (and are
/// dropped), through `buf` (at least [`BLOCK_BYTES`] long), keeping nothing of
/// it. Returns the line's length without its line break, how many bytes after
/// the line break are now at the start of `buf`, and whether the text ended.
fn skip_line(
    reader: &mut dyn Read,
    buf: &mut [u8],
    seen: u64,
) -> std::io::Result<(u64, usize, bool)> {
    let mut length = seen;
    let chunk = buf.len().min(BLOCK_BYTES);
    loop {
        let n = read_full(reader, &mut buf[..chunk])?;
        if let Some(p) = line_breaks::next(&buf[..n]) {
            length += p as u64;
            buf.copy_within(p + 1..n, 0);
            return Ok((length, n - p - 1, false));
        }
        length += n as u64;
        if n < chunk {
            return Ok((length, 0, true));
        }
    }
}

/// A line-based file, read in parallel.
pub(super) fn read_lines<S: Sink>(
    input: &Input<'_>,
    text: Box<dyn Read + Send + '_>,
    format: RdfFormat,
    rules: LineRules,
    threads: usize,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let path = input.path;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut totals = Totals::default();
    let (block_tx, block_rx) = sync_channel::<Block>(threads * 2);
    let free_blocks = Pool::<Vec<u8>>::new();
    let free_batches = Pool::<S::Batch>::new();
    let block_rx: Mutex<Option<Receiver<Block>>> = Mutex::new(Some(block_rx));
    let outcome: Result<(), IndexerError> = std::thread::scope(|scope| {
        let (done_tx, done_rx) = sync_channel::<Done<S::Batch>>(threads * 2);
        let reader = scope.spawn(|| -> std::io::Result<()> {
            cut_blocks(text, block_tx, &free_blocks, rules.max_line_bytes)
        });
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
                let done = read_block(&block, format, rules, sink, free_batches.take());
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
                    let statements = done.statements;
                    let mut batch = totals.add(done, path, rules.lenient)?;
                    on_batch(
                        &mut batch,
                        input.tally.bytes.load(Ordering::Relaxed),
                        statements,
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
    let mut stats = totals.warned(rules.max_line_bytes);
    (stats.bytes, stats.xxh3_64) = input.tally.value();
    Ok(stats)
}

/// What a file's blocks add up to, taken in file order.
#[derive(Default)]
struct Totals {
    stats: FileStats,
    /// The first bare carriage return: (line, column).
    bare_cr: Option<(u64, u64)>,
    /// Lines past the limit skipped, and the 1-based number of the first.
    long_lines: u64,
    first_long_line: Option<u64>,
}

impl Totals {
    /// Counts the next block read, in file order: an error of it stops the
    /// file unless `lenient`; its batch, to hand on.
    fn add<B>(&mut self, done: Done<B>, path: &Path, lenient: bool) -> Result<B, IndexerError> {
        let stats = &mut self.stats;
        stats.statements += done.statements;
        stats.skipped += done.skipped;
        stats.slow_lines += done.slow_lines;
        if self.bare_cr.is_none() {
            self.bare_cr = done.bare_cr;
        }
        self.long_lines += done.long_lines;
        self.first_long_line = self.first_long_line.or(done.first_long_line);
        if let Some(located) = done.first_error {
            stats.malformed(path, lenient, located)?;
        }
        Ok(done.batch)
    }

    /// The file's statistics with warnings of its bare carriage returns and
    /// of the lines past `max_line_bytes` it skipped.
    fn warned(self, max_line_bytes: usize) -> FileStats {
        let mut stats = self.stats;
        if let Some((line, column)) = self.bare_cr {
            stats.warnings.push(format!(
                "bare carriage-return line breaks (first at {line}:{column}): read as line breaks, but the file looks damaged"
            ));
        }
        if let Some(line) = self.first_long_line {
            stats.warnings.push(format!(
                "{} line(s) longer than the limit of {} skipped (the first at line {line}); raise the limit with --max-line-kb to read them",
                self.long_lines,
                limit_text(max_line_bytes)
            ));
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks `cut_blocks` makes of `text`: first line, length of a line
    /// past `max_line`, and text.
    fn cut(text: &[u8], max_line: usize) -> Vec<(u64, Option<u64>, Vec<u8>)> {
        let (tx, rx) = sync_channel(1 << 10);
        cut_blocks(Box::new(text), tx, &Pool::new(), max_line).expect("cut");
        rx.into_iter()
            .map(|b| (b.first_line, b.long_line, b.text[..b.len].to_vec()))
            .collect()
    }

    #[test]
    fn a_line_past_the_limit_is_sent_as_its_place_and_the_lines_after_it_keep_their_numbers() {
        let long = vec![b'x'; 3 * BLOCK_BYTES + 7];
        let mut text = b"a\n".to_vec();
        text.extend_from_slice(&long);
        text.extend_from_slice(b"\nb\nc");
        let blocks = cut(&text, BLOCK_BYTES);
        assert_eq!(
            blocks,
            [
                (0, None, b"a".to_vec()),
                (1, Some(long.len() as u64), Vec::new()),
                (2, None, b"b\nc".to_vec()),
            ]
        );
        // at the end, without a line break
        text.truncate(2 + long.len());
        assert_eq!(
            cut(&text, BLOCK_BYTES)[1],
            (1, Some(long.len() as u64), Vec::new())
        );
        // under a higher limit the line is kept whole, in one block (with the
        // line after it, where the text ends)
        text.extend_from_slice(b"\nb");
        let blocks = cut(&text, 4 * BLOCK_BYTES);
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1], (1, None, text[2..].to_vec()));
        // every byte of the text is in a block, or the place of a long line
        let plain: Vec<u8> = (0..300_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let blocks = cut(&plain, BLOCK_BYTES);
        let joined = blocks
            .iter()
            .map(|b| b.2.as_slice())
            .collect::<Vec<_>>()
            .join(&b'\n');
        assert_eq!(joined, plain);
        assert!(blocks
            .windows(2)
            .all(|w| w[1].0 == w[0].0 + line_breaks::count(&w[0].2) as u64 + 1));
    }

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
