//! Grouping the spellings by class once the closure is known: a counting sort
//! per class for spellings held in memory, partition files by class-key range
//! for spilled ones, and the classes handed out in class-key order.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::arena::{read_head, Arena, Spill, HEAD, LONG, SHORT_HEAD};
use super::{Finished, FinishedClass};

/// A spelling with its class key and its class's number, ready to be grouped.
pub(super) struct Record {
    pub(super) class_key: u64,
    pub(super) class: u32,
    pub(super) len: u32,
    pub(super) offset: u64,
}

/// Hands out classes from records grouped by class key.
pub(super) struct Groups<'c, 'f, E> {
    pub(super) on_class: &'c mut dyn FnMut(FinishedClass<'_>) -> Result<(), E>,
    pub(super) found: &'f mut Finished,
    pub(super) class_info: &'f mut [u64],
}

impl<E> Groups<'_, '_, E> {
    /// Sorts records by class key and hands out one class per key.
    pub(super) fn emit(&mut self, records: &mut [Record], text: &Arena) -> Result<(), E> {
        records.sort_unstable_by_key(|r| r.class_key);
        let mut written: Vec<&str> = Vec::new();
        for group in records.chunk_by(|a, b| a.class_key == b.class_key) {
            written.clear();
            written.extend(group.iter().map(|r| text.get(r.offset, r.len)));
            self.hand_out(group[0].class, &mut written)?;
        }
        Ok(())
    }

    /// Hands out the classes of the spellings held in memory, in class-key order,
    /// grouped by a counting sort: `counts` (zeroes, one per class) counts the
    /// spellings of each class, then says where they go; only the classes of
    /// two or more spellings are sorted, and each spelling moves as the place
    /// of its record (4 bytes when the text allows, else 8) instead of a
    /// 24-byte record. The places go in `counts`' spare memory (that of the
    /// check hashes, one per node) when it has room.
    pub(super) fn emit_held(
        &mut self,
        text: &Arena,
        class_of: &[u32],
        mut counts: Vec<u32>,
    ) -> Result<(), E> {
        text.for_each_record(|_, node| counts[class_of[node as usize] as usize] += 1);
        // (class key, class) of the classes of two or more spellings
        let mut classes: Vec<(u64, u32)> = Vec::with_capacity(counts.len());
        for (class, &n) in counts.iter().enumerate() {
            if n >= 2 {
                classes.push((self.class_info[class], class as u32));
            } else if n == 1 {
                self.class_info[class] = u64::MAX;
            }
        }
        classes.sort_unstable();
        let mut at = 0u32;
        for &(_, class) in &classes {
            let n = counts[class as usize];
            counts[class as usize] = at;
            at += n;
        }
        if text.small_places() {
            let held = counts.len();
            counts.resize(held + at as usize, 0);
            let (counts, order) = counts.split_at_mut(held);
            let places = (Arena::small_place, Arena::from_small_place);
            self.place_and_hand_out(text, class_of, counts, order, &classes, places)
        } else {
            let mut order = vec![0u64; at as usize];
            let places = (|p| p, |p| p);
            self.place_and_hand_out(text, class_of, &mut counts, &mut order, &classes, places)
        }
    }

    /// The end of [`Groups::emit_held`]: puts the places of the spellings in
    /// `order` by class (`counts` says where each class's go), then hands out the
    /// classes; `places` turns a record's place into an entry of `order` and back.
    pub(super) fn place_and_hand_out<P: Copy>(
        &mut self,
        text: &Arena,
        class_of: &[u32],
        counts: &mut [u32],
        order: &mut [P],
        classes: &[(u64, u32)],
        places: (impl Fn(u64) -> P, impl Fn(P) -> u64),
    ) -> Result<(), E> {
        let (pack, unpack) = places;
        let class_info = &*self.class_info;
        text.for_each_record(|place, node| {
            let class = class_of[node as usize] as usize;
            if class_info[class] != u64::MAX {
                order[counts[class] as usize] = pack(place);
                counts[class] += 1;
            }
        });
        let mut written: Vec<&str> = Vec::new();
        let mut begin = 0;
        for &(_, class) in classes {
            let end = counts[class as usize] as usize;
            written.clear();
            written.extend(
                order[begin..end]
                    .iter()
                    .map(|&p| text.record_text(unpack(p))),
            );
            self.hand_out(class, &mut written)?;
            begin = end;
        }
        Ok(())
    }

    /// Hands out one class, given its spellings (in any order, maybe repeated).
    pub(super) fn hand_out(&mut self, class: u32, written: &mut Vec<&str>) -> Result<(), E> {
        written.sort_unstable();
        written.dedup();
        if written.len() >= 2 {
            let id = self.found.classes as u32;
            (self.on_class)(FinishedClass { id, written })?;
            self.found.classes += 1;
            self.found.iris += written.len() as u64;
            self.class_info[class as usize] = (u64::from(id) << 32) | written.len() as u64;
        } else {
            self.class_info[class as usize] = u64::MAX;
        }
        Ok(())
    }
}

/// Spreads the spill files into partition files by class-key range (records
/// `class key u64, class u32, len u32, bytes`), in class-key order, each about half
/// the budget.
pub(super) fn partition(
    spill: &Spill,
    class_key: &[u64],
    class_of: &[u32],
) -> std::io::Result<Vec<PathBuf>> {
    let dir = spill.dir.as_deref().unwrap_or(Path::new("."));
    let parts = (spill.bytes_on_disk * 3 / (spill.budget.max(1) as u64)).clamp(1, 4096) as usize;
    let paths: Vec<PathBuf> = (0..parts).map(|p| dir.join(format!("part-{p}"))).collect();
    let mut writers = paths
        .iter()
        .map(|p| File::create(p).map(|f| BufWriter::with_capacity(256 << 10, f)))
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut buf = Vec::new();
    for file in &spill.files {
        let mut r = BufReader::with_capacity(1 << 20, File::open(file)?);
        let mut h = [0u8; HEAD];
        loop {
            match r.read_exact(&mut h[..SHORT_HEAD]) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(e),
            }
            if h[SHORT_HEAD - 1] == LONG {
                r.read_exact(&mut h[SHORT_HEAD..])?;
            }
            let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "damaged spill file");
            let (node, len, _) = read_head(&h).ok_or_else(bad)?;
            buf.resize(len as usize, 0);
            r.read_exact(&mut buf)?;
            let class = class_of[node as usize];
            let key = class_key[class as usize];
            let part = ((u128::from(key) * parts as u128) >> 64) as usize;
            let w = &mut writers[part];
            w.write_all(&key.to_le_bytes())?;
            w.write_all(&class.to_le_bytes())?;
            w.write_all(&len.to_le_bytes())?;
            w.write_all(&buf)?;
        }
        std::fs::remove_file(file)?;
    }
    for mut w in writers {
        w.flush()?;
    }
    Ok(paths)
}

/// Reads one partition file back: its records and their text. The text is
/// gathered as bytes and checked to be UTF-8 once, as a whole (a check per
/// spelling, a call for a few dozen bytes each, was a tenth of the grouping).
pub(super) fn read_partition(path: &Path) -> std::io::Result<(Vec<Record>, Arena)> {
    let bytes = std::fs::read(path)?;
    let mut records = Vec::new();
    let mut text = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "damaged spill file");
    while i + 16 <= bytes.len() {
        let word = |at: usize| [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        let class_key = u64::from_le_bytes(bytes[i..i + 8].try_into().map_err(|_| bad())?);
        let class = u32::from_le_bytes(word(i + 8));
        let len = u32::from_le_bytes(word(i + 12));
        let start = i + 16;
        let end = start + len as usize;
        records.push(Record {
            class_key,
            class,
            len,
            offset: text.len() as u64,
        });
        text.extend_from_slice(bytes.get(start..end).ok_or_else(bad)?);
        i = end;
    }
    // spellings are whole strings: the text is UTF-8, and each of them starts
    // and ends on a character boundary (checked, as a damaged file may not)
    let text = String::from_utf8(text).map_err(|_| bad())?;
    let whole = |r: &Record| {
        text.is_char_boundary(r.offset as usize)
            && text.is_char_boundary(r.offset as usize + r.len as usize)
    };
    if !records.iter().all(whole) {
        return Err(bad());
    }
    Ok((records, Arena::from_text(text)))
}
