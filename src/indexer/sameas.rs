//! Writes the owl:sameAs closure's files (`index::format`'s key table, members
//! and class offsets) as the closure hands out its classes and then its keys:
//! plain sequential writes, the directory counted on the way and written last.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::index::format::{
    bucket_bits, bucket_of, KeyRecord, SAMEAS_CLASSES, SAMEAS_DIRECTORY, SAMEAS_KEYS,
    SAMEAS_MEMBERS,
};

/// Bytes buffered per file before a write.
const BUFFER: usize = 1 << 20;

/// The sameAs files being written into an index directory.
pub struct SameAsWriter {
    members: BufWriter<File>,
    members_len: u64,
    /// Per class id, where its members start.
    class_at: Vec<u64>,
    /// Spellings handed out: more than the keys that will follow.
    spellings: u64,
    keys: [BufWriter<File>; 2],
    /// Bucket bits, fixed by the first key.
    bits: u32,
    /// Records per bucket.
    counts: Vec<u32>,
    last_key: [Option<u64>; 2],
    dir: std::path::PathBuf,
}

fn create(dir: &Path, name: &str) -> io::Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(
        BUFFER,
        File::create(dir.join(name))?,
    ))
}

impl SameAsWriter {
    /// Starts the files in `dir`.
    pub fn create(dir: &Path) -> io::Result<SameAsWriter> {
        Ok(SameAsWriter {
            members: create(dir, SAMEAS_MEMBERS)?,
            members_len: 0,
            class_at: Vec::new(),
            spellings: 0,
            keys: [create(dir, SAMEAS_KEYS[0])?, create(dir, SAMEAS_KEYS[1])?],
            bits: 0,
            counts: Vec::new(),
            last_key: [None; 2],
            dir: dir.to_path_buf(),
        })
    }

    /// Adds the next class: its id must be the number of classes added before,
    /// `joined` its members `\n`-separated and `size` their number.
    pub fn class(&mut self, id: u32, joined: &str, size: usize) -> io::Result<()> {
        if id as usize != self.class_at.len() {
            return Err(io::Error::other(format!(
                "class {id} handed out after {} classes",
                self.class_at.len()
            )));
        }
        let len = u32::try_from(joined.len()).map_err(|_| {
            io::Error::other(format!(
                "class {id}'s members take {} bytes, more than 4 GiB",
                joined.len()
            ))
        })?;
        self.class_at.push(self.members_len);
        self.members.write_all(&len.to_le_bytes())?;
        self.members.write_all(joined.as_bytes())?;
        self.members_len += 4 + u64::from(len);
        self.spellings += size as u64;
        Ok(())
    }

    /// Adds a key of the given half of the key space (0 below 2⁶³), greater than
    /// the keys of that half added before, in the class `id` of `size` members;
    /// every class comes before the first key.
    pub fn key(&mut self, half: usize, key: u64, id: u32, size: u32) -> io::Result<()> {
        if self.counts.is_empty() {
            self.bits = bucket_bits(self.spellings);
            self.counts = vec![0; 1 << self.bits];
        }
        let members_at = *self
            .class_at
            .get(id as usize)
            .ok_or_else(|| io::Error::other(format!("key of class {id}, never handed out")))?;
        if (key >> 63) as usize != half || self.last_key[half].is_some_and(|last| last >= key) {
            return Err(io::Error::other(format!(
                "key {key:#x} out of order in half {half}"
            )));
        }
        self.last_key[half] = Some(key);
        let record = KeyRecord {
            key,
            class: id,
            size,
            members_at,
        };
        self.keys[half].write_all(&record.encode())?;
        self.counts[bucket_of(key, self.bits)] += 1;
        Ok(())
    }

    /// Writes the class offsets and the directory and flushes every file to
    /// disk.
    pub fn finish(mut self) -> io::Result<()> {
        if self.counts.is_empty() {
            self.bits = bucket_bits(0);
            self.counts = vec![0; 1 << self.bits];
        }
        let mut classes = create(&self.dir, SAMEAS_CLASSES)?;
        for at in self.class_at.iter().chain([&self.members_len]) {
            classes.write_all(&at.to_le_bytes())?;
        }
        let mut directory = create(&self.dir, SAMEAS_DIRECTORY)?;
        directory.write_all(&self.bits.to_le_bytes())?;
        let mut start = 0u32;
        for count in self.counts.iter().chain([&0]) {
            directory.write_all(&start.to_le_bytes())?;
            start = start
                .checked_add(*count)
                .ok_or_else(|| io::Error::other("more than 4 G keys in one index".to_string()))?;
        }
        let [low, high] = self.keys;
        for file in [self.members, low, high, classes, directory] {
            file.into_inner()
                .map_err(io::IntoInnerError::into_error)?
                .sync_all()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::sameas::SameAsTable;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "qajudge-sameas-writer-{name}-{}",
            std::process::id()
        ));
        if d.exists() {
            std::fs::remove_dir_all(&d).expect("clean");
        }
        std::fs::create_dir_all(&d).expect("dir");
        d
    }

    #[test]
    fn what_is_written_is_read_back_by_key_and_by_class() {
        let d = dir("round-trip");
        let mut w = SameAsWriter::create(&d).expect("create");
        // enough keys for several buckets, in both halves; three classes
        let big: Vec<String> = (0..300).map(|i| format!("http://x.org/{i:03}")).collect();
        w.class(0, "http://a\nhttp://b", 2).expect("class 0");
        w.class(1, &big.join("\n"), big.len()).expect("class 1");
        w.class(2, "http://c\nhttp://d\nhttp://e", 3)
            .expect("class 2");
        let keys: Vec<u64> = (1..=400u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        for (i, &k) in sorted.iter().enumerate() {
            let id = (i % 3) as u32;
            let size = [2, 300, 3][i % 3];
            w.key((k >> 63) as usize, k, id, size).expect("key");
        }
        w.finish().expect("finish");
        let t = SameAsTable::open(&d).expect("open");
        for (i, &k) in sorted.iter().enumerate() {
            let r = t.record(k).expect("read").expect("found");
            assert_eq!((r.key, r.class), (k, (i % 3) as u32));
            assert!(t.record(k ^ 1).expect("read").is_none() || sorted.contains(&(k ^ 1)));
            let members = t.members_at(r.members_at, r.size, 5).expect("members");
            match r.class {
                0 => assert_eq!(members, ["http://a", "http://b"]),
                1 => assert_eq!(members, big[..5]),
                _ => assert_eq!(members, ["http://c", "http://d", "http://e"]),
            }
        }
        // a large class read whole, through its id or its record
        assert_eq!(t.members(1, usize::MAX).expect("by id"), big);
        let r1 = t.record(sorted[1]).expect("read").expect("found");
        assert_eq!(
            t.members_at(r1.members_at, r1.size, usize::MAX)
                .expect("whole"),
            big
        );
        assert_eq!(t.members(2, 2).expect("by id"), ["http://c", "http://d"]);
        // what the caches keep answers as the files do: a list cut at a limit
        // is not kept as the whole list, and the whole list serves any limit
        assert_eq!(
            t.members(2, usize::MAX).expect("by id"),
            ["http://c", "http://d", "http://e"]
        );
        assert_eq!(t.members(2, 1).expect("cached"), ["http://c"]);
        let r0 = t.record(sorted[0]).expect("read").expect("found");
        assert_eq!(t.members_of(&r0, 1).expect("cut"), ["http://a"]);
        assert_eq!(
            t.members_of(&r0, 9).expect("whole"),
            ["http://a", "http://b"]
        );
        assert_eq!(
            t.members_of(&r0, 9).expect("cached"),
            ["http://a", "http://b"]
        );
        assert_eq!(t.record(sorted[0]).expect("cached"), Some(r0));
        assert_eq!(t.record(0x1234).expect("cached absence"), None);
        assert!(t.members(3, 1).is_err(), "no class 3");
        assert!(t.record(0x1234).expect("read").is_none());
        // a members file cut short: the read fails naming the file
        let members = d.join(SAMEAS_MEMBERS);
        let bytes = std::fs::read(&members).expect("read");
        std::fs::write(&members, &bytes[..40]).expect("cut");
        let t = SameAsTable::open(&d).expect("open");
        let err = t.members(1, usize::MAX).expect_err("cut").to_string();
        assert!(err.contains(SAMEAS_MEMBERS), "{err}");
        std::fs::remove_file(&members).expect("removed");
        let err = SameAsTable::open(&d).err().expect("missing").to_string();
        assert!(err.contains(SAMEAS_MEMBERS), "{err}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn an_empty_closure_and_bad_orders_are_refused_or_read() {
        let d = dir("empty");
        SameAsWriter::create(&d)
            .expect("create")
            .finish()
            .expect("finish");
        let t = SameAsTable::open(&d).expect("open");
        assert!(t.record(42).expect("read").is_none());
        let mut w = SameAsWriter::create(&d).expect("create");
        assert!(w.class(1, "http://a\nhttp://b", 2).is_err(), "ids in order");
        w.class(0, "http://a\nhttp://b", 2).expect("class");
        assert!(w.key(0, 5, 1, 2).is_err(), "unknown class");
        w.key(0, 5, 0, 2).expect("key");
        assert!(w.key(0, 5, 0, 2).is_err(), "keys increase");
        assert!(w.key(0, 1 << 63, 0, 2).is_err(), "the half is the top bit");
        // a directory cut short is refused, naming the file
        w.finish().expect("finish");
        let path = d.join(SAMEAS_DIRECTORY);
        let bytes = std::fs::read(&path).expect("read");
        std::fs::write(&path, &bytes[..bytes.len() - 4]).expect("cut");
        let err = SameAsTable::open(&d).err().expect("refused").to_string();
        assert!(err.contains(SAMEAS_DIRECTORY), "{err}");
        std::fs::remove_dir_all(&d).ok();
    }
}
