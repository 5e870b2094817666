//! A `.zip` archive of one file, read as a stream (no seeking, so a pipe or a
//! hashing reader works): the local header of its one entry, the entry's data
//! decompressed (stored, deflate, bzip2 or zstd) and checked against its CRC-32
//! and size, then the rest of the archive read through, which must hold no
//! other file: an archive of several files is refused naming them, as are an
//! empty archive, an encrypted entry and an unknown method. The bound on the
//! decompressed size is the caller's (a `take` over this reader), so a bomb is
//! never decompressed past it; the entries after the first are never
//! decompressed, only skipped by their stored size to count and name them.
//! ZIP64 sizes are read; a data descriptor (sizes after the data) is read for
//! deflate, whose stream ends by itself. Entry names reach messages with their
//! control characters escaped and cut to [`NAME_SHOWN`] characters.

use std::io::{BufRead, Read};

/// Why a zip archive was not read.
#[derive(Debug, thiserror::Error)]
pub enum ZipError {
    /// The archive holds more than one file.
    #[error("the zip archive holds {} files ({}); qajudge reads a zip of one file: unzip it and give the file you mean", .names.len(), listed(.names))]
    SeveralFiles {
        /// One per file, in archive order: the names of the first
        /// [`NAMES_SHOWN`] (the message shows no more), then empty strings,
        /// which only count.
        names: Vec<String>,
    },
    /// The archive holds no file.
    #[error("the zip archive holds no file; give a zip of one file")]
    Empty,
    /// The entry is encrypted.
    #[error("{name} in the zip archive is encrypted; decrypt it first")]
    Encrypted {
        /// The entry's name.
        name: String,
    },
    /// A compression method other than stored, deflate, bzip2 and zstd.
    #[error("{name} in the zip archive uses compression method {method}; qajudge reads stored, deflate, bzip2 and zstd entries: recompress it with deflate")]
    Method {
        /// The entry's name.
        name: String,
        /// The method's number in the zip format.
        method: u16,
    },
    /// A stored (or bzip2, zstd) entry whose size comes after its data.
    #[error("{name} in the zip archive gives its size only after its data, which qajudge cannot read as a stream for this method; recompress it with deflate or as a seekable archive")]
    Streamed {
        /// The entry's name.
        name: String,
    },
    /// The decompressed data differs from what the archive says of it.
    #[error("{name} in the zip archive is damaged: {what}")]
    Damaged {
        /// The entry's name.
        name: String,
        /// What differs.
        what: String,
    },
    /// The bytes are not a zip archive's.
    #[error("not a zip archive: {0}")]
    Format(String),
}

impl From<ZipError> for std::io::Error {
    fn from(e: ZipError) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, e)
    }
}

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const DESCRIPTOR: u32 = 0x0807_4b50;

/// The longest entry name read (the format allows 65535 bytes).
const MAX_NAME: usize = 65535;

/// The most characters of an entry name that a message shows.
pub const NAME_SHOWN: usize = 200;

/// The most entry names that the several-files message shows.
pub const NAMES_SHOWN: usize = 10;

/// The most entries counted after the first (the most a zip without ZIP64
/// holds); the reader stops there and says that many.
const MAX_COUNTED: usize = 65535;

/// An entry name as a message shows it: its control characters escaped (so
/// a name cannot rewrite a terminal or forge a line) and cut to
/// [`NAME_SHOWN`] characters, the last a `…` when cut. Showing a shown name
/// again gives it unchanged.
fn shown(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    if out.chars().count() > NAME_SHOWN {
        out = out.chars().take(NAME_SHOWN - 1).collect();
        out.push('…');
    }
    out
}

/// The names of the several-files message: the first [`NAMES_SHOWN`] shown,
/// then how many more.
fn listed(names: &[String]) -> String {
    let mut parts: Vec<String> = names.iter().take(NAMES_SHOWN).map(|n| shown(n)).collect();
    if names.len() > NAMES_SHOWN {
        parts.push(format!("and {} more", names.len() - NAMES_SHOWN));
    }
    parts.join(", ")
}

/// A local file header: what the reader needs of it.
struct Local {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    zip64: bool,
}

impl Local {
    /// The sizes come after the data (general purpose flag bit 3).
    fn descriptor(&self) -> bool {
        self.flags & 8 != 0
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(v)
}

/// Reads exactly `n` bytes; an early end is a format error naming `what`.
fn exact<R: Read>(r: &mut R, n: usize, what: &str) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    r.read_exact(&mut buf).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            ZipError::Format(format!("it ends inside {what}")).into()
        } else {
            e
        }
    })?;
    Ok(buf)
}

/// The next record's signature, `None` at the end of the input.
fn signature<R: Read>(r: &mut R) -> std::io::Result<Option<u32>> {
    let mut b = [0u8; 4];
    let mut filled = 0;
    while filled < 4 {
        match r.read(&mut b[filled..]) {
            Ok(0) if filled == 0 => return Ok(None),
            Ok(0) => return Err(ZipError::Format("it ends inside a record".into()).into()),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(u32::from_le_bytes(b)))
}

/// Reads a local header after its signature.
fn local_header<R: Read>(r: &mut R) -> std::io::Result<Local> {
    let h = exact(r, 26, "a file header")?;
    let (name_len, extra_len) = (usize::from(u16_at(&h, 22)), usize::from(u16_at(&h, 24)));
    let name = exact(r, name_len.min(MAX_NAME), "a file name")?;
    let extra = exact(r, extra_len, "a file header's extra field")?;
    let mut local = Local {
        name: shown(&String::from_utf8_lossy(&name)),
        flags: u16_at(&h, 2),
        method: u16_at(&h, 4),
        crc: u32_at(&h, 10),
        compressed: u64::from(u32_at(&h, 14)),
        size: u64::from(u32_at(&h, 18)),
        zip64: false,
    };
    // the ZIP64 extra field (id 1): the sizes that are 0xFFFFFFFF in the header
    let mut at = 0;
    while at + 4 <= extra.len() {
        let (id, len) = (u16_at(&extra, at), usize::from(u16_at(&extra, at + 2)));
        let body = &extra[(at + 4).min(extra.len())..(at + 4 + len).min(extra.len())];
        if id == 1 {
            local.zip64 = true;
            let mut field = 0;
            if local.size == 0xFFFF_FFFF && body.len() >= field + 8 {
                local.size = u64_at(body, field);
                field += 8;
            }
            if local.compressed == 0xFFFF_FFFF && body.len() >= field + 8 {
                local.compressed = u64_at(body, field);
            }
        }
        at += 4 + len;
    }
    Ok(local)
}

/// The data of one entry, decompressed as its method says.
enum Data<R: BufRead> {
    Stored(std::io::Take<R>),
    Deflate(flate2::bufread::DeflateDecoder<std::io::Take<R>>),
    Bzip2(bzip2::bufread::BzDecoder<std::io::Take<R>>),
    Zstd(zstd::stream::read::Decoder<'static, std::io::Take<R>>),
}

impl<R: BufRead> Data<R> {
    fn new(local: &Local, raw: R) -> std::io::Result<Data<R>> {
        if local.flags & 1 != 0 {
            return Err(ZipError::Encrypted {
                name: local.name.clone(),
            }
            .into());
        }
        if local.descriptor() && local.method != 8 {
            return Err(ZipError::Streamed {
                name: local.name.clone(),
            }
            .into());
        }
        // with a descriptor, deflate's stream ends by itself
        let limit = if local.descriptor() {
            u64::MAX
        } else {
            local.compressed
        };
        let raw = raw.take(limit);
        Ok(match local.method {
            0 => Data::Stored(raw),
            8 => Data::Deflate(flate2::bufread::DeflateDecoder::new(raw)),
            12 => Data::Bzip2(bzip2::bufread::BzDecoder::new(raw)),
            93 => Data::Zstd(zstd::stream::read::Decoder::with_buffer(raw)?.single_frame()),
            method => {
                return Err(ZipError::Method {
                    name: local.name.clone(),
                    method,
                }
                .into())
            }
        })
    }

    fn into_inner(self) -> std::io::Take<R> {
        match self {
            Data::Stored(r) => r,
            Data::Deflate(d) => d.into_inner(),
            Data::Bzip2(d) => d.into_inner(),
            Data::Zstd(d) => d.finish(),
        }
    }
}

impl<R: BufRead> Read for Data<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Data::Stored(r) => r.read(buf),
            Data::Deflate(d) => d.read(buf),
            Data::Bzip2(d) => d.read(buf),
            Data::Zstd(d) => d.read(buf),
        }
    }
}

/// Where the reader is.
enum State<R: BufRead> {
    /// Nothing read yet.
    Start(R),
    /// Inside the one entry's data.
    Entry {
        local: Local,
        data: Data<R>,
        crc: flate2::Crc,
    },
    /// The entry was read and checked.
    Done,
}

/// The decompressed text of a zip archive of one file (see the module).
pub struct OneFile<R: BufRead> {
    state: State<R>,
}

impl<R: BufRead> OneFile<R> {
    /// Reads the archive whose bytes `raw` gives, from its first byte.
    pub fn new(raw: R) -> OneFile<R> {
        OneFile {
            state: State::Start(raw),
        }
    }
}

impl<R: BufRead> Read for OneFile<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return Ok(0),
                State::Start(mut raw) => match signature(&mut raw)? {
                    Some(LOCAL) => {
                        let local = local_header(&mut raw)?;
                        let data = Data::new(&local, raw)?;
                        self.state = State::Entry {
                            local,
                            data,
                            crc: flate2::Crc::new(),
                        };
                    }
                    Some(END | CENTRAL | END64) | None => return Err(ZipError::Empty.into()),
                    Some(_) => {
                        return Err(ZipError::Format("no file header at its start".into()).into())
                    }
                },
                State::Entry {
                    local,
                    mut data,
                    mut crc,
                } => {
                    let n = data.read(buf).map_err(|e| damaged(&local, e))?;
                    if n > 0 || buf.is_empty() {
                        crc.update(&buf[..n]);
                        self.state = State::Entry { local, data, crc };
                        return Ok(n);
                    }
                    finish(&local, data.into_inner().into_inner(), &crc)?;
                }
            }
        }
    }
}

/// The error of an entry whose data cannot be decompressed.
fn damaged(local: &Local, e: std::io::Error) -> std::io::Error {
    if matches!(e.get_ref(), Some(inner) if inner.is::<ZipError>()) {
        return e;
    }
    ZipError::Damaged {
        name: local.name.clone(),
        what: e.to_string(),
    }
    .into()
}

/// After the entry's data: its descriptor, its checks, and the rest of the
/// archive, which must name no other file.
fn finish<R: BufRead>(local: &Local, mut raw: R, crc: &flate2::Crc) -> std::io::Result<()> {
    let (mut want_crc, mut want_size) = (local.crc, local.size);
    let mut next = signature(&mut raw)?;
    if local.descriptor() {
        // the descriptor: an optional signature, the CRC, then both sizes
        let mut head = Vec::new();
        match next {
            Some(DESCRIPTOR) => {}
            Some(v) => head.extend_from_slice(&v.to_le_bytes()),
            None => return Err(ZipError::Format("it ends before a data descriptor".into()).into()),
        }
        let sizes = if local.zip64 { 16 } else { 8 };
        head.extend(exact(
            &mut raw,
            4 + sizes - head.len(),
            "a data descriptor",
        )?);
        want_crc = u32_at(&head, 0);
        want_size = if local.zip64 {
            u64_at(&head, 12)
        } else {
            u64::from(u32_at(&head, 8))
        };
        next = signature(&mut raw)?;
    }
    if u64::from(crc.amount()) != want_size & 0xFFFF_FFFF || crc.sum() != want_crc {
        return Err(ZipError::Damaged {
            name: local.name.clone(),
            what: format!(
                "{} bytes with CRC-32 {:08x} where the archive says {want_size} bytes with {want_crc:08x}",
                crc.amount(),
                crc.sum()
            ),
        }
        .into());
    }
    let mut names = vec![local.name.clone()];
    while next == Some(LOCAL) && names.len() <= MAX_COUNTED {
        // another file: skip its stored bytes, never decompressed, to count
        // and name every one
        let other = local_header(&mut raw)?;
        names.push(if names.len() < NAMES_SHOWN {
            other.name.clone()
        } else {
            String::new()
        });
        if other.descriptor() {
            // its size comes after its data: where it ends is unknown
            // without decompressing it, so counting stops here
            break;
        }
        let skipped = std::io::copy(&mut (&mut raw).take(other.compressed), &mut std::io::sink())?;
        if skipped < other.compressed {
            break;
        }
        next = signature(&mut raw).map_err(|_| several(&names))?;
    }
    if names.len() > 1 {
        return Err(several(&names));
    }
    // the central directory and its end: read through (so that a caller
    // counting or hashing the stored bytes sees them all), nothing to check
    std::io::copy(&mut raw, &mut std::io::sink())?;
    Ok(())
}

fn several(names: &[String]) -> std::io::Error {
    ZipError::SeveralFiles {
        names: names.to_vec(),
    }
    .into()
}

/// The names of the files of a zip archive held whole, from its central
/// directory; `None` when its end record is not found (then the stream reader
/// tells what is wrong).
pub fn names(bytes: &[u8]) -> Option<Vec<String>> {
    // the end record is the last 22 bytes and a comment of at most 65535
    let from = bytes.len().saturating_sub(22 + 65535);
    let end = (from..bytes.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(bytes, i) == END)?;
    let entries = usize::from(u16_at(bytes, end + 10));
    let mut at = usize::try_from(u32_at(bytes, end + 16)).ok()?;
    let mut names = Vec::new();
    for _ in 0..entries {
        if at + 46 > bytes.len() || u32_at(bytes, at) != CENTRAL {
            return None;
        }
        let name_len = usize::from(u16_at(bytes, at + 28));
        let skip =
            name_len + usize::from(u16_at(bytes, at + 30)) + usize::from(u16_at(bytes, at + 32));
        let name = bytes.get(at + 46..at + 46 + name_len)?;
        names.push(shown(&String::from_utf8_lossy(name)));
        at += 46 + skip;
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Archives made by Info-ZIP's `zip` 3.0 (the commands are beside each).
    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/zip")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn read(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        OneFile::new(bytes).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn a_zip_of_one_file_reads_as_the_file_stored_deflated_or_streamed() {
        let text = fixture("gold.json");
        // zip -X -q gold.json.zip gold.json
        assert_eq!(read(&fixture("gold.json.zip")).expect("deflated"), text);
        // zip -X -q -0 stored.zip gold.json
        assert_eq!(read(&fixture("stored.zip")).expect("stored"), text);
        // zip -X -q - - < gold.json | cat > streamed.zip (a data descriptor, ZIP64)
        assert_eq!(read(&fixture("streamed.zip")).expect("streamed"), text);
        assert_eq!(
            names(&fixture("gold.json.zip")),
            Some(vec!["gold.json".to_string()])
        );
    }

    #[test]
    fn a_zip_of_several_files_or_none_is_refused_naming_them() {
        // zip -X -q two.zip gold.json run.json
        let e = read(&fixture("two.zip")).expect_err("two files");
        assert_eq!(
            e.to_string(),
            "the zip archive holds 2 files (gold.json, run.json); qajudge reads a zip of one file: unzip it and give the file you mean"
        );
        assert_eq!(
            names(&fixture("two.zip")),
            Some(vec!["gold.json".to_string(), "run.json".to_string()])
        );
        // the end record alone
        let empty = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        assert!(read(empty)
            .expect_err("empty")
            .to_string()
            .contains("holds no file"));
    }

    #[test]
    fn a_damaged_entry_is_an_error_naming_it() {
        let mut bytes = fixture("stored.zip");
        // a byte of the stored data changed: the CRC-32 differs
        let at = 30 + "gold.json".len() + 5;
        bytes[at] ^= 1;
        let e = read(&bytes).expect_err("damaged").to_string();
        assert!(
            e.starts_with("gold.json in the zip archive is damaged"),
            "{e}"
        );
        let e = read(&bytes[..bytes.len() / 2])
            .expect_err("cut")
            .to_string();
        assert!(
            e.contains("gold.json in the zip archive is damaged") || e.contains("ends inside"),
            "{e}"
        );
    }

    /// A local header and its data: `method`, `flags` and `size` as given,
    /// the compressed size the data's length.
    fn entry(name: &[u8], method: u16, flags: u16, data: &[u8], size: u32) -> Vec<u8> {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let mut b = LOCAL.to_le_bytes().to_vec();
        for v in [20u16, flags, method, 0, 0] {
            b.extend(v.to_le_bytes());
        }
        for v in [crc.sum(), data.len() as u32, size] {
            b.extend(v.to_le_bytes());
        }
        b.extend((name.len() as u16).to_le_bytes());
        b.extend(0u16.to_le_bytes());
        b.extend(name);
        b.extend(data);
        b
    }

    #[test]
    fn a_further_entry_is_skipped_by_its_size_never_decompressed() {
        let mut zip = entry(b"a.json", 0, 0, b"{}", 2);
        // a deflate stream of 1 MiB of zeros, then bytes that would read as a
        // third file's header were the stream decompressed (where it ends),
        // then garbage that would not inflate: all inside its stored size
        let mut deflated = Vec::new();
        let mut encoder =
            flate2::write::DeflateEncoder::new(&mut deflated, flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).expect("deflate");
        encoder.finish().expect("deflate");
        let mut data = deflated;
        data.extend(entry(b"c.json", 0, 0, b"", 0));
        data.extend([0xffu8; 4096]);
        zip.extend(entry(b"b.json", 8, 0, &data, 1 << 20));
        zip.extend(END.to_le_bytes());
        zip.extend([0u8; 18]);
        let e = read(&zip).expect_err("two files").to_string();
        assert!(
            e.starts_with("the zip archive holds 2 files (a.json, b.json);"),
            "{e}"
        );
        // with its size after its data, counting stops at it, undecompressed
        let mut zip = entry(b"a.json", 0, 0, b"{}", 2);
        zip.extend(entry(b"b.json", 8, 8, &[0xffu8; 4096], 0));
        let e = read(&zip).expect_err("two files").to_string();
        assert!(
            e.starts_with("the zip archive holds 2 files (a.json, b.json);"),
            "{e}"
        );
    }

    #[test]
    fn names_in_messages_are_escaped_cut_and_at_most_ten() {
        let long = vec![b'x'; 300];
        let mut zip = entry(b"a\x1b[2J\n.json", 0, 0, b"{}", 2);
        zip.extend(entry(&long, 0, 0, b"", 0));
        for i in 0..12 {
            zip.extend(entry(format!("{i}.json").as_bytes(), 0, 0, b"", 0));
        }
        let e = read(&zip).expect_err("several files").to_string();
        let cut = format!("{}…", "x".repeat(NAME_SHOWN - 1));
        assert!(
            e.starts_with(&format!(
                "the zip archive holds 14 files (a\\u{{1b}}[2J\\n.json, {cut}, 0.json, 1.json, 2.json, 3.json, 4.json, 5.json, 6.json, 7.json, and 4 more);"
            )),
            "{e}"
        );
        assert!(!e.chars().any(char::is_control), "{e}");
        // a damaged entry's name is escaped too
        let mut zip = entry(b"a\x07.json", 0, 0, b"{}", 2);
        zip[30 + 7] ^= 1;
        let e = read(&zip).expect_err("damaged").to_string();
        assert!(
            e.starts_with("a\\u{7}.json in the zip archive is damaged"),
            "{e}"
        );
    }
}
