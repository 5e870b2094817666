//! The spellings of the closure's IRIs: records (node, text) in chunks of text
//! that never move, held in memory up to a budget and then spilled to files.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use super::table::{touched, Ahead};

/// Bytes of one chunk of an [`Arena`].
pub(super) const CHUNK_BYTES: usize = 32 << 20;

/// Bytes of the longest head of a spelling record: the node as five 7-bit
/// digits (least significant first), then the text's length, one byte when it
/// is below [`LONG`] (almost every IRI), else [`LONG`] and five 7-bit digits; so
/// that a chunk of records stays valid UTF-8 and its text is read back without
/// checks.
pub(super) const HEAD: usize = 11;

/// Bytes of the head of a record whose text is shorter than [`LONG`].
pub(super) const SHORT_HEAD: usize = 6;

/// The length byte that says five digits of length follow.
pub(super) const LONG: u8 = 0x7f;

/// The head of a spelling record, and its length.
pub(super) fn head(node: u32, len: u32) -> ([u8; HEAD], usize) {
    let digits = |v: u32, out: &mut [u8]| {
        for (i, d) in out.iter_mut().enumerate() {
            *d = ((v >> (7 * i)) & 0x7f) as u8;
        }
    };
    let mut h = [0u8; HEAD];
    digits(node, &mut h[..5]);
    if len < u32::from(LONG) {
        h[5] = len as u8;
        return (h, SHORT_HEAD);
    }
    h[5] = LONG;
    digits(len, &mut h[SHORT_HEAD..]);
    (h, HEAD)
}

/// The node, the text's length and the head's length of the record head at the
/// start of `h` (`None` when `h` ends first).
pub(super) fn read_head(h: &[u8]) -> Option<(u32, u32, usize)> {
    let digits = |d: &[u8]| (0..5).fold(0u32, |v, i| v | (u32::from(d[i] & 0x7f) << (7 * i)));
    let node = digits(h.get(..5)?);
    match *h.get(5)? {
        LONG => Some((node, digits(h.get(SHORT_HEAD..HEAD)?), HEAD)),
        len => Some((node, u32::from(len), SHORT_HEAD)),
    }
}

/// Text in chunks that never move: appending never copies what is held (a
/// growing `String` or `Vec` copies all of it, into pages the kernel must first
/// zero, at every doubling, which cost a third of the reading thread's time), and
/// chunks emptied by [`Arena::clear`] are filled again without new page faults.
/// Spellings are kept in it as records (a head, then the text), one after the
/// other, so that they need no table of their own.
#[derive(Default)]
pub(super) struct Arena {
    pub(super) chunks: Vec<String>,
    /// Chunks in use: the last of them is being filled.
    pub(super) used: usize,
    /// Bytes held.
    pub(super) len: usize,
    /// The next chunk, made ahead once the arena has grown past one chunk.
    pub(super) next: Option<Ahead<String>>,
}

impl Arena {
    /// An arena of one chunk holding `text`.
    pub(super) fn from_text(text: String) -> Arena {
        let len = text.len();
        Arena {
            chunks: vec![text],
            used: 1,
            len,
            next: None,
        }
    }

    /// The chunk to append `bytes` bytes to, and its number.
    pub(super) fn room(&mut self, bytes: usize) -> (usize, &mut String) {
        let fits = |c: &String| c.capacity() - c.len() >= bytes;
        if self.used == 0 || !fits(&self.chunks[self.used - 1]) {
            if self.used < self.chunks.len() && fits(&self.chunks[self.used]) {
                self.used += 1;
            } else {
                let chunk = match self.next.take().and_then(Ahead::take) {
                    Some(c) if c.capacity() >= bytes => c,
                    _ => String::with_capacity(CHUNK_BYTES.max(bytes)),
                };
                self.chunks.insert(self.used, chunk);
                self.used += 1;
                if self.chunks.len() >= 2 {
                    self.next = Some(Ahead::start(|cancel| {
                        let mut chunk = String::from_utf8(touched(CHUNK_BYTES, 0, cancel)?).ok()?;
                        chunk.clear();
                        Some(chunk)
                    }));
                }
            }
        }
        self.len += bytes;
        (self.used - 1, &mut self.chunks[self.used - 1])
    }

    /// Appends the spelling record of `node`: its head, then `text`.
    pub(super) fn push_record(&mut self, node: u32, text: &str) {
        let (h, head_len) = head(node, text.len() as u32);
        let (_, chunk) = self.room(head_len + text.len());
        // a head is ASCII (7-bit digits): one copy instead of a push per byte
        if let Ok(h) = std::str::from_utf8(&h[..head_len]) {
            chunk.push_str(h);
        }
        chunk.push_str(text);
    }

    /// The text of `len` bytes at `at`: chunk (high half), offset (low half).
    pub(super) fn get(&self, at: u64, len: u32) -> &str {
        let start = at as u32 as usize;
        &self.chunks[(at >> 32) as usize][start..start + len as usize]
    }

    /// Whether every record's place fits in 32 bits ([`Arena::small_place`]).
    pub(super) fn small_places(&self) -> bool {
        self.used <= 1 << SMALL_CHUNK_BITS
            && self.chunks[..self.used]
                .iter()
                .all(|c| c.len() <= 1 << SMALL_OFFSET_BITS)
    }

    /// A record's place (as [`Arena::for_each_record`] gives it) in 32 bits,
    /// when [`Arena::small_places`]: the chunk in the high bits, the offset in
    /// the low ones.
    pub(super) fn small_place(at: u64) -> u32 {
        ((at >> 32) as u32) << SMALL_OFFSET_BITS | (at as u32)
    }

    /// The place of 64 bits of a place of 32 ([`Arena::small_place`]).
    pub(super) fn from_small_place(small: u32) -> u64 {
        (u64::from(small >> SMALL_OFFSET_BITS) << 32)
            | u64::from(small & ((1 << SMALL_OFFSET_BITS) - 1))
    }

    /// The text of the record at `at` (as [`Arena::for_each_record`] gives it).
    pub(super) fn record_text(&self, at: u64) -> &str {
        let chunk = &self.chunks[(at >> 32) as usize];
        let start = at as u32 as usize;
        let (_, len, head_len) = read_head(&chunk.as_bytes()[start..]).unwrap_or_default();
        let text = start + head_len;
        &chunk[text..text + len as usize]
    }

    /// Calls `f` with every record held, in the order appended: where it is
    /// and its node (a loop per chunk: an iterator flattened over the chunks
    /// was a tenth of the grouping).
    pub(super) fn for_each_record(&self, mut f: impl FnMut(u64, u32)) {
        for (c, chunk) in self.chunks[..self.used].iter().enumerate() {
            let bytes = chunk.as_bytes();
            let mut at = 0;
            while let Some((node, len, head_len)) = bytes.get(at..).and_then(read_head) {
                f(((c as u64) << 32) | at as u64, node);
                at += head_len + len as usize;
            }
        }
    }

    /// The bytes held, chunk by chunk.
    pub(super) fn held_bytes(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.chunks[..self.used]
            .iter()
            .map(std::string::String::as_bytes)
    }

    /// Forgets the text, keeping the chunks to be filled again.
    pub(super) fn clear(&mut self) {
        for c in &mut self.chunks[..self.used] {
            c.clear();
        }
        self.used = 0;
        self.len = 0;
    }
}

/// Bits of the offset in a record's place of 32 bits (chunks are no larger).
pub(super) const SMALL_OFFSET_BITS: u32 = 25;

/// Bits of the chunk in a record's place of 32 bits.
pub(super) const SMALL_CHUNK_BITS: u32 = 32 - SMALL_OFFSET_BITS;

// chunks of the usual size have places of 32 bits
const _: () = assert!(CHUNK_BYTES <= 1 << SMALL_OFFSET_BITS);

/// Spellings waiting for the classes to be known: records in memory up to a
/// budget, then in spill files of the same records.
pub(super) struct Spill {
    pub(super) budget: usize,
    pub(super) dir: Option<PathBuf>,
    pub(super) files: Vec<PathBuf>,
    pub(super) bytes_on_disk: u64,
    pub(super) arena: Arena,
}

impl Spill {
    pub(super) fn push(&mut self, node: u32, written: &str) -> std::io::Result<()> {
        self.arena.push_record(node, written);
        if self.dir.is_some() && self.arena.len > self.budget {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes what is in memory to a new spill file.
    pub(super) fn flush(&mut self) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        if self.arena.len == 0 {
            return Ok(());
        }
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("spill-{}", self.files.len()));
        let mut w = File::create(&path)?;
        for bytes in self.arena.held_bytes() {
            w.write_all(bytes)?;
        }
        self.bytes_on_disk += self.arena.len as u64;
        self.files.push(path);
        self.arena.clear();
        Ok(())
    }
}
