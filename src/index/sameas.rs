//! The read side of the owl:sameAs closure: the key table (`sameas-*.keys`,
//! records in key order found through a small directory held in memory), the
//! members of each class (`sameas.members`) and their offsets by class id
//! (`sameas.classes`). An index of format 6 on is memory-mapped (the
//! `qajudge-mapped` crate, which holds the one `unsafe` block and its
//! argument): an unseen IRI costs a binary search over its bucket's records
//! (about 800 bytes) and one read of its class's members, both memory reads
//! with no system call. An older index is read with positioned reads (no
//! seek shared between threads), one per bucket and one per class. Either
//! way recent answers (records, absences, short member lists) are kept in
//! process, as an evaluation or a server asks for the same IRIs again and
//! again; a mapped table keeps them only for IRIs asked twice (see `seen`:
//! measured, a hit beats a mapped probe, and filling the caches for an IRI
//! asked once costs more than it saves).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use qajudge_mapped::Mapped;

use super::equivalence::Class;
use super::format::{
    bucket_of, decode_list, KeyRecord, KEY_RECORD, MAX_BUCKET_BITS, SAMEAS_CLASSES,
    SAMEAS_DIRECTORY, SAMEAS_KEYS, SAMEAS_MEMBERS,
};
use super::recent::Recent;

/// Bytes read at once for a class of this many members before its length is
/// known (most classes are read whole by the first read).
const GUESS_BYTES_PER_MEMBER: usize = 96;
/// Bytes of a bucket read on the stack; a larger bucket is read into the heap.
const STACK_BUCKET: usize = 128 * KEY_RECORD;

/// Slots of the record cache, over all its shards (10 MB once all are used,
/// and the short lists kept beside records: see [`KEPT_LIST_BYTES`]).
const RECENT_RECORDS: usize = 1 << 18;
/// Slots of the member-list cache (lists of at most [`RECENT_LIST_BYTES`]:
/// 1.5 MB of slots and, at most, 64 MB of lists; some 15 MB for the lists of
/// a typical link set).
const RECENT_LISTS: usize = 1 << 16;
/// The longest member list kept in the cache.
const RECENT_LIST_BYTES: usize = 1 << 10;
/// The longest member list kept beside a key's record (a class's list is
/// kept once per member key asked: at most 64 MB over the record cache's
/// slots; a typical class of five IRIs takes about 200 bytes).
const KEPT_LIST_BYTES: usize = 256;
/// A class's `\n`-separated member list as the table has it.
pub enum List<'a> {
    /// In a mapped file.
    Borrowed(&'a [u8]),
    /// In the list cache.
    Shared(Arc<[u8]>),
    /// Read from the file.
    Owned(Vec<u8>),
}

impl List<'_> {
    /// The list's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            List::Borrowed(b) => b,
            List::Shared(b) => b,
            List::Owned(b) => b,
        }
    }
}

/// The opened sameAs files of an index.
pub struct SameAsTable {
    bits: u32,
    /// Per bucket the number of its first record (over both halves), then the
    /// number of records.
    starts: Vec<u32>,
    /// Records in the first half (key below 2⁶³).
    first_half: u64,
    class_count: u64,
    /// The files, mapped or read.
    files: Files,
    /// Records (or their absence) of keys asked recently, with their
    /// class's member list once a lookup asked for it: a key asked again is
    /// answered under one lock.
    recent_records: Recent<Kept>,
    /// Short member lists (the `\n`-separated bytes) by class id.
    recent_lists: Recent<Arc<[u8]>>,
    /// Whether the caches are asked (off only to measure the probes).
    cached: bool,
    /// A mapped table's doorkeeper: per slot the last key asked there. The
    /// caches are asked for a key only when it is asked again. Measured on
    /// the 20 M index (docs/benchmarks.md, Lookups): a cache hit beats a
    /// mapped probe of an IRI asked before (its bucket and members lie on
    /// pages spread over 1 GB, a TLB and cache miss each; the caches are
    /// compact) and of an absent one, but asking and filling the caches for
    /// an IRI never seen (two locks, a copy of its members, slots out of
    /// the CPU's cache) cost a third of a mapped probe's time. One relaxed
    /// atomic per lookup tells the two apart. A read table (positioned
    /// reads) has none: its probe costs far more than the caches.
    seen: Option<Box<[AtomicU64]>>,
}

/// What the record cache keeps of a key.
#[derive(Clone)]
struct Kept {
    /// Its record, or `None` for a key the table does not hold.
    record: Option<KeyRecord>,
    /// Its class's member list, whole and short, once it was asked for.
    list: Option<Arc<[u8]>>,
}

/// Slots of the doorkeeper (2 MB).
const SEEN_SLOTS: usize = 1 << 18;

/// The doorkeeper's key of a class's member list (apart from IRI keys).
fn class_key(class: u32) -> u64 {
    u64::from(class) | 1 << 63
}

/// How the sameAs files are read.
enum Files {
    /// Memory-mapped (format 6 on, each file of the length `meta.json`
    /// records): every probe a memory read.
    Mapped {
        keys: [Mapped; 2],
        members: Mapped,
        classes: Mapped,
    },
    /// Positioned reads (older formats).
    Read {
        keys: [File; 2],
        members: File,
        classes: File,
    },
}

/// A key table whose files disagree with one another.
fn corrupt(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl SameAsTable {
    /// Opens the sameAs files of the index directory `dir` for positioned
    /// reads (an index of a format before 6) and reads the directory into
    /// memory (4 bytes per 32 keys).
    pub fn open(dir: &Path) -> io::Result<SameAsTable> {
        let open = |name: &str| File::open(dir.join(name)).map_err(|e| named(name, &e));
        let keys = [open(SAMEAS_KEYS[0])?, open(SAMEAS_KEYS[1])?];
        let classes = open(SAMEAS_CLASSES)?;
        let members = open(SAMEAS_MEMBERS)?;
        let records = |f: &File| f.metadata().map(|m| m.len() / KEY_RECORD as u64);
        let halves = [records(&keys[0])?, records(&keys[1])?];
        let class_bytes = classes.metadata()?.len();
        SameAsTable::with_files(
            dir,
            halves,
            class_bytes,
            Files::Read {
                keys,
                members,
                classes,
            },
        )
    }

    /// Opens the sameAs files of the index directory `dir` memory-mapped,
    /// each checked first against the length `lengths` (the index's
    /// `meta.json`) records for it: a file of another length, or one with no
    /// recorded length, is an error naming it.
    pub fn open_mapped(
        dir: &Path,
        lengths: &std::collections::BTreeMap<String, u64>,
    ) -> io::Result<SameAsTable> {
        let map = |name: &str| -> io::Result<Mapped> {
            let Some(&expected) = lengths.get(name) else {
                return Err(corrupt(format!(
                    "{name}: the index's meta.json records no length for it"
                )));
            };
            let file = File::open(dir.join(name)).map_err(|e| named(name, &e))?;
            Mapped::open(file, expected).map_err(|e| corrupt(format!("{name}: {e}")))
        };
        let keys = [map(SAMEAS_KEYS[0])?, map(SAMEAS_KEYS[1])?];
        let classes = map(SAMEAS_CLASSES)?;
        let members = map(SAMEAS_MEMBERS)?;
        let halves = [
            keys[0].len() / KEY_RECORD as u64,
            keys[1].len() / KEY_RECORD as u64,
        ];
        let class_bytes = classes.len();
        SameAsTable::with_files(
            dir,
            halves,
            class_bytes,
            Files::Mapped {
                keys,
                members,
                classes,
            },
        )
    }

    /// The table over opened files holding `halves` records in each key
    /// file and `class_bytes` of class offsets, after reading the directory
    /// and checking that it counts the same records.
    fn with_files(
        dir: &Path,
        halves: [u64; 2],
        class_bytes: u64,
        files: Files,
    ) -> io::Result<SameAsTable> {
        let mapped = matches!(files, Files::Mapped { .. });
        let directory =
            std::fs::read(dir.join(SAMEAS_DIRECTORY)).map_err(|e| named(SAMEAS_DIRECTORY, &e))?;
        let words: Vec<u32> = directory
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let Some((&bits, starts)) = words.split_first() else {
            return Err(corrupt(format!("{SAMEAS_DIRECTORY} is empty")));
        };
        if !(1..=MAX_BUCKET_BITS).contains(&bits)
            || directory.len() % 4 != 0
            || starts.len() != (1usize << bits) + 1
        {
            return Err(corrupt(format!(
                "{SAMEAS_DIRECTORY}: {} bytes do not hold the directory of {bits} bucket bits",
                directory.len()
            )));
        }
        let [first_half, second_half] = halves;
        let total = first_half + second_half;
        // the first bucket of the second half starts where the first half ends
        let half = 1usize << (bits - 1);
        // every bucket's records follow the one before: a directory that goes
        // back (a flipped byte) would read a bucket of negative length
        if let Some(i) = starts.windows(2).position(|w| w[0] > w[1]) {
            return Err(corrupt(format!(
                "{SAMEAS_DIRECTORY}: bucket {} starts at record {}, before bucket {i} at {}",
                i + 1,
                starts[i + 1],
                starts[i]
            )));
        }
        if u64::from(starts[starts.len() - 1]) != total || u64::from(starts[half]) != first_half {
            return Err(corrupt(format!(
                "{SAMEAS_DIRECTORY} counts {} records, the key files hold {total}",
                starts[starts.len() - 1]
            )));
        }
        Ok(SameAsTable {
            bits,
            starts: starts.to_vec(),
            first_half,
            class_count: (class_bytes / 8).saturating_sub(1),
            files,
            recent_records: Recent::new(RECENT_RECORDS),
            recent_lists: Recent::new(RECENT_LISTS),
            cached: true,
            seen: mapped.then(|| (0..SEEN_SLOTS).map(|_| AtomicU64::new(0)).collect()),
        })
    }

    /// The same table without its caches: every lookup a probe of the files
    /// (what the benchmarks measure the caches against).
    #[must_use]
    pub fn without_caches(mut self) -> SameAsTable {
        self.cached = false;
        self
    }

    /// True when the files are memory-mapped (format 6 on), false when they
    /// are read with positioned reads.
    pub fn is_mapped(&self) -> bool {
        matches!(self.files, Files::Mapped { .. })
    }

    /// True unless a mapped file was cut shorter under the running process
    /// (one `fstat` per file): a server's `/health` asks it.
    pub fn is_whole(&self) -> bool {
        match &self.files {
            Files::Mapped {
                keys,
                members,
                classes,
            } => keys.iter().chain([members, classes]).all(Mapped::is_whole),
            Files::Read { .. } => true,
        }
    }

    /// The record of a key, if the table holds it.
    pub fn record(&self, key: u64) -> io::Result<Option<KeyRecord>> {
        let cache = self.caching(key);
        if cache {
            if let Some(found) = self.recent_records.read(key, |k| k.record) {
                return Ok(found);
            }
        }
        let found = self.probe(key)?;
        if cache {
            self.recent_records.insert(
                key,
                Kept {
                    record: found,
                    list: None,
                },
            );
        }
        Ok(found)
    }

    /// The record of a key and its class's member list (whole, or holding
    /// at least its first `limit` members), if the table holds the key: a
    /// key asked before is answered from the record cache under one lock.
    pub fn lookup(&self, key: u64, limit: usize) -> io::Result<Option<(KeyRecord, List<'_>)>> {
        let cache = self.caching(key);
        let kept = cache
            .then(|| {
                self.recent_records
                    .read(key, |k| (k.record, k.list.clone()))
            })
            .flatten();
        let record = match kept {
            Some((None, _)) => return Ok(None),
            Some((Some(r), Some(list))) => return Ok(Some((r, List::Shared(list)))),
            Some((Some(r), None)) => r,
            None => match self.probe(key)? {
                Some(r) => r,
                None => {
                    if cache {
                        let absent = Kept {
                            record: None,
                            list: None,
                        };
                        self.recent_records.insert(key, absent);
                    }
                    return Ok(None);
                }
            },
        };
        let (list, whole) = match &self.files {
            Files::Mapped { members, .. } => (
                List::Borrowed(mapped_list(members, record.members_at)?),
                true,
            ),
            // a read table shares its classes' lists between their keys
            Files::Read { .. } => {
                let by_class = self.caching(class_key(record.class));
                match self.recent(by_class, record.class) {
                    Some(list) => (List::Shared(list), true),
                    None => {
                        let (list, whole) = self.list_at(record.members_at, record.size, limit)?;
                        if whole {
                            self.remember(by_class, record.class, &list);
                        }
                        (List::Owned(list), whole)
                    }
                }
            }
        };
        if cache {
            let short = whole && list.bytes().len() <= KEPT_LIST_BYTES;
            let kept = Kept {
                record: Some(record),
                list: short.then(|| list.bytes().into()),
            };
            self.recent_records.insert(key, kept);
        }
        Ok(Some((record, list)))
    }

    /// The record of a key found in the key files (no cache asked).
    fn probe(&self, key: u64) -> io::Result<Option<KeyRecord>> {
        Ok(match &self.files {
            Files::Mapped { keys, .. } => match self.bucket(key) {
                None => None,
                Some((half, first, len)) => {
                    let bucket =
                        keys[half]
                            .get(first * KEY_RECORD as u64, len)
                            .ok_or_else(|| {
                                corrupt(format!(
                                    "{}: the bucket of record {first} ends past the file",
                                    SAMEAS_KEYS[half]
                                ))
                            })?;
                    find(bucket, key)
                }
            },
            Files::Read { keys, .. } => self.read_record(keys, key)?,
        })
    }

    /// Whether the caches are asked for `key`: always for a read table; for
    /// a mapped one from the second time the key is asked (see `seen`).
    fn caching(&self, key: u64) -> bool {
        if !self.cached {
            return false;
        }
        let Some(seen) = &self.seen else {
            return true;
        };
        // keys are hashes (and class ids dense): their low bits spread them
        let slot = &seen[(key as usize) & (seen.len() - 1)];
        if slot.load(Ordering::Relaxed) == key {
            return true;
        }
        slot.store(key, Ordering::Relaxed);
        false
    }

    /// The half, first record (within the half) and byte length of the
    /// bucket of `key`; `None` for an empty bucket.
    fn bucket(&self, key: u64) -> Option<(usize, u64, usize)> {
        let b = bucket_of(key, self.bits);
        let (from, to) = (u64::from(self.starts[b]), u64::from(self.starts[b + 1]));
        if from == to {
            return None;
        }
        let (half, first) = if from < self.first_half {
            (0, from)
        } else {
            (1, from - self.first_half)
        };
        Some((half, first, (to - from) as usize * KEY_RECORD))
    }

    /// The record of a key, read from the key files.
    fn read_record(&self, keys: &[File; 2], key: u64) -> io::Result<Option<KeyRecord>> {
        let Some((half, first, len)) = self.bucket(key) else {
            return Ok(None);
        };
        let mut stack = [0u8; STACK_BUCKET];
        let mut heap = Vec::new();
        let buf = if len <= STACK_BUCKET {
            &mut stack[..len]
        } else {
            heap.resize(len, 0);
            &mut heap[..]
        };
        keys[half]
            .read_exact_at(buf, first * KEY_RECORD as u64)
            .map_err(|e| named(SAMEAS_KEYS[half], &e))?;
        Ok(find(buf, key))
    }

    /// The class of a key, if it is in a class of two or more.
    pub fn class(&self, key: u64) -> io::Result<Option<Class>> {
        Ok(self.record(key)?.map(|r| Class {
            id: r.class,
            size: r.size,
        }))
    }

    /// The first `limit` members of a class whose record was found.
    pub fn members_of(&self, record: &KeyRecord, limit: usize) -> io::Result<Vec<String>> {
        Ok(first_members(self.list_of(record, limit)?.bytes(), limit))
    }

    /// The `\n`-separated member list of a class whose record was found,
    /// whole or holding at least its first `limit` members: from the list
    /// cache for a class asked before (measured: a cache hit beats a mapped
    /// list, whose pages lie spread over the members file), else borrowed
    /// from a mapped table (nothing copied) or read.
    pub fn list_of(&self, record: &KeyRecord, limit: usize) -> io::Result<List<'_>> {
        let cache = self.caching(class_key(record.class));
        if let Some(list) = self.recent(cache, record.class) {
            return Ok(List::Shared(list));
        }
        if let Files::Mapped { members, .. } = &self.files {
            let list = mapped_list(members, record.members_at)?;
            self.remember(cache, record.class, list);
            return Ok(List::Borrowed(list));
        }
        let (list, whole) = self.list_at(record.members_at, record.size, limit)?;
        if whole {
            self.remember(cache, record.class, &list);
        }
        Ok(List::Owned(list))
    }

    /// The cached member list of a class, when `cache` and the cache holds it.
    fn recent(&self, cache: bool, class: u32) -> Option<Arc<[u8]>> {
        cache
            .then(|| self.recent_lists.get(u64::from(class)))
            .flatten()
    }

    /// Keeps a short member list (read whole), when `cache`.
    fn remember(&self, cache: bool, class: u32, list: &[u8]) {
        if cache && list.len() <= RECENT_LIST_BYTES {
            self.recent_lists.insert(u64::from(class), list.into());
        }
    }

    /// The first `limit` members of the class whose members start at `at` in
    /// `sameas.members` and which has `size` members.
    pub fn members_at(&self, at: u64, size: u32, limit: usize) -> io::Result<Vec<String>> {
        if let Files::Mapped { members, .. } = &self.files {
            return Ok(first_members(mapped_list(members, at)?, limit));
        }
        let (list, _) = self.list_at(at, size, limit)?;
        Ok(decode_list(&list, limit))
    }

    /// The `\n`-separated members of the class at `at` (of `size` members), whole
    /// or cut after at least `limit` whole members, read from the file; and
    /// whether it is whole.
    fn list_at(&self, at: u64, size: u32, limit: usize) -> io::Result<(Vec<u8>, bool)> {
        let Files::Read { members, .. } = &self.files else {
            return Err(corrupt("the members file is mapped, not read".into()));
        };
        let wanted = (size as usize).min(limit);
        let guess = 4 + wanted.saturating_mul(GUESS_BYTES_PER_MEMBER).min(1 << 20);
        let mut buf = vec![0u8; guess];
        let got = read_at_most(members, &mut buf, at).map_err(|e| named(SAMEAS_MEMBERS, &e))?;
        buf.truncate(got);
        let Some(head) = buf.get(..4) else {
            return Err(corrupt(format!(
                "{SAMEAS_MEMBERS}: no class starts at byte {at}"
            )));
        };
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let list_end = 4 + len;
        let mut whole = true;
        if buf.len() < list_end {
            // enough whole members for the limit, or the rest read too
            let enough =
                limit < size as usize && memchr::memchr_iter(b'\n', &buf[4..]).count() >= limit;
            if enough {
                whole = false;
            } else {
                // a damaged length is an error, not an allocation of up to 4 GiB
                let file_len = members.metadata()?.len();
                if at.saturating_add(list_end as u64) > file_len {
                    return Err(corrupt(format!(
                        "{SAMEAS_MEMBERS}: the class at byte {at} claims {len} bytes, past the file's {file_len}"
                    )));
                }
                let have = buf.len();
                buf.resize(list_end, 0);
                members
                    .read_exact_at(&mut buf[have..], at + have as u64)
                    .map_err(|e| named(SAMEAS_MEMBERS, &e))?;
            }
        } else {
            buf.truncate(list_end);
        }
        buf.drain(..4);
        Ok((buf, whole))
    }

    /// The first `limit` members of a class by its id.
    pub fn members(&self, class: u32, limit: usize) -> io::Result<Vec<String>> {
        if u64::from(class) >= self.class_count {
            return Err(corrupt(format!(
                "no class {class}: the index has {}",
                self.class_count
            )));
        }
        let cache = self.caching(class_key(class));
        if let Some(list) = self.recent(cache, class) {
            return Ok(decode_list(&list, limit));
        }
        match &self.files {
            Files::Mapped {
                members, classes, ..
            } => {
                let b = classes.get(u64::from(class) * 8, 16).ok_or_else(|| {
                    corrupt(format!("{SAMEAS_CLASSES}: class {class} is past the file"))
                })?;
                let (start, end) = offsets(b, class)?;
                let list = usize::try_from(end - start)
                    .ok()
                    .and_then(|len| members.get(start, len))
                    .ok_or_else(|| {
                        corrupt(format!(
                            "{SAMEAS_MEMBERS}: class {class} ends at byte {end}, past the file"
                        ))
                    })?;
                self.remember(cache, class, list);
                Ok(first_members(list, limit))
            }
            Files::Read {
                members, classes, ..
            } => {
                let mut b = [0u8; 16];
                classes
                    .read_exact_at(&mut b, u64::from(class) * 8)
                    .map_err(|e| named(SAMEAS_CLASSES, &e))?;
                let (start, end) = offsets(&b, class)?;
                // never allocate what a damaged offset claims past the file
                let len = members.metadata()?.len();
                if end > len {
                    return Err(corrupt(format!(
                        "{SAMEAS_MEMBERS}: class {class} ends at byte {end}, past the file's {len}"
                    )));
                }
                let mut list = vec![0u8; (end - start) as usize];
                members
                    .read_exact_at(&mut list, start)
                    .map_err(|e| named(SAMEAS_MEMBERS, &e))?;
                self.remember(cache, class, &list);
                Ok(decode_list(&list, limit))
            }
        }
    }
}

/// The record of `key` among a bucket's records (in key order), by binary
/// search.
fn find(bucket: &[u8], key: u64) -> Option<KeyRecord> {
    let records = bucket.len() / KEY_RECORD;
    let at = |i: usize| KeyRecord::key_of(&bucket[i * KEY_RECORD..]);
    let (mut lo, mut hi) = (0, records);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if at(mid) < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo < records && at(lo) == key {
        return KeyRecord::decode(&bucket[lo * KEY_RECORD..]);
    }
    None
}

/// Where the members of class `class` start (past their u32 length) and end
/// in `sameas.members`, from its 16 bytes of `sameas.classes`; a damaged
/// pair (an end before the start, a start past 2⁶⁴) is an error naming it.
fn offsets(b: &[u8], class: u32) -> io::Result<(u64, u64)> {
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        u64::from_le_bytes(w)
    };
    let (at, end) = (word(0), word(8));
    let Some(start) = at.checked_add(4).filter(|&s| s <= end) else {
        return Err(corrupt(format!(
            "{SAMEAS_CLASSES}: class {class} ends at byte {end} before it starts at {at}"
        )));
    };
    Ok((start, end))
}

/// The `\n`-separated member list of the class at `at` in the mapped
/// members file: its u32 length, then its bytes.
fn mapped_list(members: &Mapped, at: u64) -> io::Result<&[u8]> {
    let head = members
        .get(at, 4)
        .ok_or_else(|| corrupt(format!("{SAMEAS_MEMBERS}: no class starts at byte {at}")))?;
    let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
    members.get(at + 4, len).ok_or_else(|| {
        corrupt(format!(
            "{SAMEAS_MEMBERS}: the class at byte {at} ends past the file"
        ))
    })
}

/// The first `limit` members of a `\n`-separated list, decoding only them
/// (a class of a million members asked for ten reads ten).
fn first_members(list: &[u8], limit: usize) -> Vec<String> {
    let cut = memchr::memchr_iter(b'\n', list)
        .nth(limit.saturating_sub(1))
        .unwrap_or(list.len());
    if limit == 0 {
        return Vec::new();
    }
    decode_list(&list[..cut], limit)
}

/// A read error of one of the index's files, naming it (a short read means the
/// file was cut or is not this index's).
fn named(file: &str, e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{file}: {e}"))
}

/// Reads into `buf` from `at` until it is full or the file ends; the bytes read.
fn read_at_most(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_table_caches_a_key_from_its_second_lookup() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "tests/data/index-v{}",
            super::super::format::FORMAT_VERSION
        ));
        let meta: super::super::format::IndexMeta =
            serde_json::from_slice(&std::fs::read(dir.join("meta.json")).expect("meta"))
                .expect("json");
        let key = super::super::hash::iri_key("http://www.wikidata.org/entity/Q76");
        let mapped = SameAsTable::open_mapped(&dir, &meta.lengths).expect("mapped");
        assert!(mapped.is_mapped());
        let first = mapped.record(key).expect("lookup").expect("a record");
        let kept = |t: &SameAsTable| t.recent_records.read(key, |k| (k.record, k.list.is_some()));
        assert!(kept(&mapped).is_none(), "asked once: not kept");
        assert_eq!(mapped.record(key).expect("lookup"), Some(first));
        assert_eq!(
            kept(&mapped),
            Some((Some(first), false)),
            "asked again: kept"
        );
        // a lookup keeps the class's list with the record, and answers from it
        let (record, list) = mapped.lookup(key, 3).expect("lookup").expect("found");
        assert!(matches!(list, List::Borrowed(_)));
        assert_eq!(kept(&mapped), Some((Some(record), true)));
        let (_, again) = mapped.lookup(key, 3).expect("lookup").expect("found");
        assert!(matches!(again, List::Shared(_)));
        assert_eq!(again.bytes(), list.bytes());
        // a read table keeps it from the first
        let read = SameAsTable::open(&dir).expect("read");
        assert_eq!(read.record(key).expect("lookup"), Some(first));
        assert!(kept(&read).is_some());
        // and both answer the members alike
        assert_eq!(
            mapped.members_of(&first, 3).expect("members"),
            read.members_of(&first, 3).expect("members")
        );
    }
}
