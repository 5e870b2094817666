//! Read-only memory maps of the files of a qajudge index (the owl:sameAs key
//! table, its class offsets and its members), so that a lookup reads them as
//! memory: no system call per probe, and the pages shared with the OS page
//! cache. The main crate forbids `unsafe`; mapping a file needs it, so this
//! crate holds the one block, with its argument beside it.
//!
//! # The contract that makes a map safe to read
//!
//! A map is memory the kernel fills from the file: if the file's bytes
//! change while it is mapped, a `&[u8]` over them changes under Rust's feet
//! (undefined behaviour), and if the file is cut shorter, reading past its
//! new end raises SIGBUS. qajudge never does either to an index:
//!
//! - an index's files are written once, in a temporary directory, and the
//!   directory is renamed into place when whole (`indexer::stage`); nothing
//!   of qajudge opens them for writing after that;
//! - a rebuild writes a new directory and renames it over the old one: a
//!   running process keeps the old files' inodes, whole, until it closes them;
//! - [`Mapped::open`] checks the file's length against the one the index's
//!   `meta.json` recorded at the build, so a file cut or grown *before* it is
//!   opened is refused, never mapped;
//! - [`Mapped::is_whole`] looks again (one `fstat`): the server's `/health`
//!   and `index info` ask it, and refuse an index whose file was cut.
//!
//! A file changed in place by hand (an editor, `truncate`) under a running
//! process is outside this contract: it may crash that process with SIGBUS.
//! So is a file cut in the instant between [`Mapped::open`]'s length check
//! and its map. docs/indexer.md says so. [`Mapped::open`] is a safe function
//! because its only caller maps the files of an index directory under this
//! contract; a caller that maps other files takes the contract on too.

use std::fs::File;
use std::io;

/// A whole file mapped read-only, or nothing for an empty file (the kernel
/// maps no zero-length range).
#[derive(Debug)]
pub struct Mapped {
    map: Option<memmap2::Mmap>,
    file: File,
    len: u64,
}

/// What a file must be to be mapped.
#[derive(Debug)]
pub enum MapError {
    /// The file's length is not the recorded one: it was cut, grown or
    /// replaced since the build.
    Length {
        /// The length recorded at the build.
        expected: u64,
        /// The length found.
        found: u64,
    },
    /// The file is larger than this platform's address space.
    TooLarge(u64),
    /// The system refused (metadata or the map itself).
    Io(io::Error),
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Length { expected, found } => write!(
                f,
                "the file holds {found} bytes where its index's meta.json records {expected} (it was cut, grown or replaced after the build)"
            ),
            MapError::TooLarge(len) => {
                write!(f, "{len} bytes do not fit this platform's address space")
            }
            MapError::Io(e) => write!(f, "cannot map the file: {e}"),
        }
    }
}

impl std::error::Error for MapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MapError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl Mapped {
    /// Maps `file` read-only after checking that it holds `expected` bytes
    /// (the length recorded when the index was built). Lookups probe at
    /// random: the kernel is told not to read ahead.
    pub fn open(file: File, expected: u64) -> Result<Mapped, MapError> {
        let found = file.metadata().map_err(MapError::Io)?.len();
        if found != expected {
            return Err(MapError::Length { expected, found });
        }
        let len = usize::try_from(found).map_err(|_| MapError::TooLarge(found))?;
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only (PROT_READ) and only ever read as
            // bytes. Its length was checked just above against the length
            // the build recorded, so every byte of `0..len` is backed by the
            // file as written. The file belongs to an index directory that
            // qajudge wrote once and renamed into place; qajudge never opens
            // it for writing again, and a rebuild replaces the directory
            // (new inodes) rather than these bytes. Changing or cutting the
            // file in place by hand while it is mapped is outside the
            // contract written in this crate's documentation and in
            // docs/indexer.md (it may raise SIGBUS); [`Mapped::is_whole`]
            // lets a caller look for it.
            let map =
                unsafe { memmap2::MmapOptions::new().len(len).map(&file) }.map_err(MapError::Io)?;
            #[cfg(unix)]
            {
                // a hint only: a failure leaves the kernel's default
                let _ = map.advise(memmap2::Advice::Random);
            }
            Some(map)
        };
        Ok(Mapped {
            map,
            file,
            len: found,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// The bytes from `at` for `len` bytes, or `None` past the end.
    pub fn get(&self, at: u64, len: usize) -> Option<&[u8]> {
        let from = usize::try_from(at).ok()?;
        self.bytes().get(from..from.checked_add(len)?)
    }

    /// The mapped length.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True while the file still holds at least the mapped bytes (one
    /// `fstat` of the open file): false when it was cut under the map.
    pub fn is_whole(&self) -> bool {
        self.file.metadata().is_ok_and(|m| m.len() >= self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str, bytes: &[u8]) -> (std::path::PathBuf, File) {
        let path =
            std::env::temp_dir().join(format!("qajudge-mapped-{}-{name}", std::process::id()));
        let mut f = File::create(&path).expect("created");
        f.write_all(bytes).expect("written");
        (path.clone(), File::open(&path).expect("opened"))
    }

    #[test]
    fn a_file_of_its_recorded_length_maps_and_reads_back() {
        let (path, file) = temp("whole", b"0123456789");
        let m = Mapped::open(file, 10).expect("mapped");
        assert_eq!(m.bytes(), b"0123456789");
        assert_eq!(m.get(3, 4), Some(&b"3456"[..]));
        assert_eq!(m.get(8, 4), None, "past the end");
        assert_eq!(m.get(u64::MAX, 1), None);
        assert!(m.is_whole());
        // cut under the map: seen, not read
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opened")
            .set_len(4)
            .expect("cut");
        assert!(!m.is_whole());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_file_of_another_length_is_refused_and_an_empty_one_is_empty() {
        let (path, file) = temp("short", b"0123");
        let e = Mapped::open(file, 10).expect_err("refused");
        assert!(
            matches!(
                e,
                MapError::Length {
                    expected: 10,
                    found: 4
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("meta.json records 10"), "{e}");
        let _ = std::fs::remove_file(&path);
        let (path, file) = temp("empty", b"");
        let m = Mapped::open(file, 0).expect("an empty file");
        assert!(m.is_empty() && m.bytes().is_empty());
        let _ = std::fs::remove_file(&path);
    }
}
