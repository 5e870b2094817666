//! The closure's keys in key order with their class numbers, handed out as two
//! streams (one per half of the key space) from memory or from a file.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::super::decompress::read_full;

/// Bytes of one record of a [`SortedKeys::File`]: key u64, class u32 (little
/// endian).
pub(super) const KEY_RECORD: usize = 12;

/// Entries looked up together in the passes that gather from node-indexed arrays.
pub(super) const GATHER: usize = 1024;

/// The table's keys with their classes, in increasing key order: in memory, or in a
/// file of the spill directory.
pub(super) enum SortedKeys {
    /// The keys, their classes, and how many keys are below 2⁶³.
    Memory {
        keys: Vec<u64>,
        classes: Vec<u32>,
        below: usize,
    },
    /// The file of records, and how many have a key below 2⁶³.
    File(PathBuf, u64),
}

impl SortedKeys {
    /// Writes the keys and their classes to a file at `path`.
    pub(super) fn to_file(
        path: PathBuf,
        keys: &[u64],
        classes: &[u32],
        below: usize,
    ) -> std::io::Result<Self> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for (&key, &class) in keys.iter().zip(classes) {
            let mut record = [0u8; KEY_RECORD];
            record[..8].copy_from_slice(&key.to_le_bytes());
            record[8..].copy_from_slice(&class.to_le_bytes());
            w.write_all(&record)?;
        }
        w.flush()?;
        Ok(SortedKeys::File(path, below as u64))
    }

    /// The entries back, in key order, as two streams: those with keys below 2⁶³
    /// and the rest (a file is removed once opened).
    pub(super) fn streams(&self) -> std::io::Result<[KeyStream<'_>; 2]> {
        Ok(match self {
            SortedKeys::Memory {
                keys,
                classes,
                below,
            } => {
                let (low_keys, high_keys) = keys.split_at(*below);
                let (low_classes, high_classes) = classes.split_at(*below);
                [
                    KeyStream::Slices(low_keys, low_classes),
                    KeyStream::Slices(high_keys, high_classes),
                ]
            }
            SortedKeys::File(path, below) => {
                let low = File::open(path)?;
                let mut high = File::open(path)?;
                std::fs::remove_file(path)?;
                high.seek(SeekFrom::Start(*below * KEY_RECORD as u64))?;
                let low = low.take(*below * KEY_RECORD as u64);
                let buf = || vec![0u8; GATHER * KEY_RECORD];
                [
                    KeyStream::Reader(Box::new(BufReader::with_capacity(1 << 20, low)), buf()),
                    KeyStream::Reader(Box::new(BufReader::with_capacity(1 << 20, high)), buf()),
                ]
            }
        })
    }
}

/// One half of the [`SortedKeys`], read a batch at a time.
pub(super) enum KeyStream<'a> {
    /// Keys and their classes still to be read.
    Slices(&'a [u64], &'a [u32]),
    /// Records still to be read, and a buffer of one batch.
    Reader(Box<dyn Read + 'a>, Vec<u8>),
}

impl KeyStream<'_> {
    /// The next batch of up to [`GATHER`] entries, into `keys` and `classes`;
    /// `false` when the stream has ended (the batch may still hold entries).
    pub(super) fn next_batch(
        &mut self,
        keys: &mut Vec<u64>,
        classes: &mut Vec<u32>,
    ) -> std::io::Result<bool> {
        keys.clear();
        classes.clear();
        match self {
            KeyStream::Slices(k, r) => {
                let n = k.len().min(GATHER);
                keys.extend_from_slice(&k[..n]);
                classes.extend_from_slice(&r[..n]);
                *k = &k[n..];
                *r = &r[n..];
                Ok(!k.is_empty())
            }
            KeyStream::Reader(reader, buf) => {
                let filled = read_full(reader, buf)?;
                for record in buf[..filled - filled % KEY_RECORD].chunks_exact(KEY_RECORD) {
                    let (key, class) = record.split_at(8);
                    keys.push(u64::from_le_bytes(key.try_into().expect("8 bytes")));
                    classes.push(u32::from_le_bytes(class.try_into().expect("4 bytes")));
                }
                Ok(filled == buf.len())
            }
        }
    }
}
