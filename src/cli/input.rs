//! The files a user names that are read whole: benchmarks and runs (`evaluate`,
//! `annotate`, `check`, `refresh`, `serve --benchmark`), the `--kg` files and
//! `index build --provenance`. Each must be a regular file (symbolic links
//! followed): a FIFO would block and a device like `/dev/zero` would never end,
//! so both are refused by name before anything is opened. At most
//! `--max-input-mb` of it is read ([`DEFAULT_MAX_INPUT_MB`] unless raised), through
//! a reader that stops one byte past the limit, so that a file that grows while
//! it is read cannot take more memory either. A gzip, bzip2 or zstd file, or
//! a zip archive of one file (told by its first bytes, whatever its name), is
//! read decompressed, its decompressed text within the same limit: a
//! decompression bomb is an error naming the file and the limit, and a zip of
//! several files one naming them. The inputs of `index build` are read by the
//! indexer, whose limit is the length of a line (`--max-line-kb`).

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{anyhow, Context};

/// The default of `--max-input-mb`, in MiB.
pub const DEFAULT_MAX_INPUT_MB: u64 = 2048;

/// The limit `--max-input-mb` set for this process, in bytes.
static MAX_INPUT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_MB << 20);

thread_local! {
    /// The limit of the host's call this thread runs ([`CallLimit`]): it wins
    /// over the process's, and no other thread sees it.
    static CALL_MAX_INPUT_BYTES: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Sets the limit of every file read whole from now on (`--max-input-mb`).
pub(super) fn set_max_input_mb(mb: u64) {
    MAX_INPUT_BYTES.store(mb.saturating_mul(1 << 20), Ordering::Relaxed);
    // a --kg file's decompressed text too (its stored size is checked first)
    crate::sparql::set_max_text_bytes(mb.saturating_mul(1 << 20));
}

/// The limit of one host call (a Python call's `max_input_mb`), on its
/// thread until dropped: calls of other threads keep theirs.
pub(super) struct CallLimit;

impl CallLimit {
    /// Sets `mb` as the limit of this thread's call.
    pub(super) fn set(mb: u64) -> CallLimit {
        let bytes = mb.saturating_mul(1 << 20);
        CALL_MAX_INPUT_BYTES.with(|c| c.set(Some(bytes)));
        crate::sparql::set_call_max_text_bytes(Some(bytes));
        CallLimit
    }
}

impl Drop for CallLimit {
    fn drop(&mut self) {
        CALL_MAX_INPUT_BYTES.with(|c| c.set(None));
        crate::sparql::set_call_max_text_bytes(None);
    }
}

/// The limit of a file read whole, in bytes: this thread's call's, else the
/// process's.
pub(super) fn max_input_bytes() -> u64 {
    CALL_MAX_INPUT_BYTES
        .with(std::cell::Cell::get)
        .unwrap_or_else(|| MAX_INPUT_BYTES.load(Ordering::Relaxed))
}

/// The error of a file past `limit` bytes, naming it, the limit and the flag.
fn too_large(path: &Path, size: Option<u64>, limit: u64) -> anyhow::Error {
    let size = size.map_or_else(|| "larger".to_string(), |s| format!("{s} bytes, larger"));
    // an I/O error of the file (Python's InputError), in the command's words
    anyhow::Error::new(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "{}: {size} than the limit of {} MiB of an input file; raise it with --max-input-mb if the file is right",
            path.display(),
            limit >> 20
        ),
    ))
}

/// Checks that `path` is a regular file of at most `limit` bytes, without
/// opening it; returns its size. A directory, FIFO, device or socket is an error
/// that names the path and what it is.
pub(super) fn check_file(path: &Path, limit: u64) -> anyhow::Result<u64> {
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}: check the path", path.display()))?;
    if let Some(kind) = crate::indexer::special_kind(meta.file_type()) {
        return Err(anyhow::Error::new(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{}: not a regular file ({kind}); give a file",
                path.display()
            ),
        )));
    }
    if meta.len() > limit {
        return Err(too_large(path, Some(meta.len()), limit));
    }
    Ok(meta.len())
}

/// Reads the whole of a regular file of at most `limit` bytes (see
/// [`check_file`]); more than `limit` bytes, even when the file grew after it was
/// looked at, is an error naming the limit and `--max-input-mb`.
pub(super) fn read_limited(path: &Path, limit: u64) -> anyhow::Result<Vec<u8>> {
    let size = check_file(path, limit)?;
    let cannot = || format!("cannot read {}: check the path", path.display());
    let file = std::fs::File::open(path).with_context(cannot)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, None, limit));
    }
    Ok(bytes)
}

/// Reads the whole of a file a user named, within `--max-input-mb`,
/// decompressed when it is compressed (the limit bounds the decompressed text
/// too).
pub(super) fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(read_compressed(path)?.0)
}

/// [`read`], and the compression the file was read through (`gzip`, `bzip2`,
/// `zstd`, `zip`), if any.
pub(super) fn read_compressed(path: &Path) -> anyhow::Result<(Vec<u8>, Option<&'static str>)> {
    let limit = max_input_bytes();
    decompressed(path, read_limited(path, limit)?, limit)
}

/// [`read`], with the size and SHA-256 of the file as stored (compressed, if
/// it is), which is what a report's receipt records of an input and what
/// `reproduce` checks.
pub(super) fn read_digested(path: &Path) -> anyhow::Result<(Vec<u8>, u64, String)> {
    let limit = max_input_bytes();
    let stored = read_limited(path, limit)?;
    let (size, sha256) = (stored.len() as u64, crate::digest::sha256_hex(&stored));
    Ok((decompressed(path, stored, limit)?.0, size, sha256))
}

/// The bytes of `path` as read, decompressed within `limit` when they are
/// compressed, and the compression.
fn decompressed(
    path: &Path,
    bytes: Vec<u8>,
    limit: u64,
) -> anyhow::Result<(Vec<u8>, Option<&'static str>)> {
    crate::indexer::decompress_within(bytes, limit).map_err(|e| match e {
        crate::indexer::DecompressError::TooLarge { compression, .. } => anyhow!(
            "{}: its {compression} content decompresses to more than the limit of {} MiB of an input file; raise it with --max-input-mb if the file is right",
            path.display(),
            limit >> 20
        ),
        crate::indexer::DecompressError::Archive(e) => anyhow!("{}: {e}", path.display()),
        damaged => anyhow!("{}: {damaged}; check the file", path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_within_the_limit_is_read_whole_and_a_larger_one_refused() {
        let dir = std::env::temp_dir().join(format!("qajudge-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("run.json");
        std::fs::write(&path, vec![b' '; 3 << 20]).expect("write");
        assert_eq!(
            read_limited(&path, 3 << 20).expect("at the limit").len(),
            3 << 20
        );
        let e = format!("{:#}", read_limited(&path, 2 << 20).expect_err("past it"));
        assert!(
            e.starts_with(&format!(
                "{}: 3145728 bytes, larger than the limit of 2 MiB",
                path.display()
            )),
            "{e}"
        );
        assert!(e.contains("--max-input-mb"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
        // a file that says it is empty but is not (it could grow while read) is
        // still read no further than the limit
        let status = Path::new("/proc/self/status");
        assert_eq!(std::fs::metadata(status).map(|m| m.len()).ok(), Some(0));
        let e = format!("{:#}", read_limited(status, 100).expect_err("past it"));
        assert!(
            e.starts_with("/proc/self/status: larger than the limit"),
            "{e}"
        );
    }

    #[test]
    fn devices_and_directories_are_refused_by_name_without_reading() {
        for (path, what) in [
            ("/dev/zero", "(a character device)"),
            ("/", "(a directory)"),
        ] {
            let e = format!(
                "{:#}",
                read_limited(Path::new(path), 1 << 30).expect_err("refused")
            );
            assert_eq!(e, format!("{path}: not a regular file {what}; give a file"));
        }
        let e = format!(
            "{:#}",
            read_limited(Path::new("/no/such/file"), 1).expect_err("absent")
        );
        assert!(
            e.starts_with("cannot read /no/such/file: check the path"),
            "{e}"
        );
    }
}
