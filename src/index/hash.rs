//! The hashes of the index (the one module that names xxhash-rust): the 64-bit
//! key of a canonical IRI in the sameAs key table and the `types` column family, and the streaming checksum
//! of input files recorded in the build metadata.

use xxhash_rust::xxh3::{xxh3_128, Xxh3};

/// The key of a canonical IRI: the low 64 bits of XXH3-128 of its UTF-8 bytes (0 is read as 1, which
/// the indexer's table keeps for empty slots). Two different IRIs of one index get
/// the same key with probability about n²/2⁶⁵; the indexer detects and reports it
/// when it happens.
pub fn iri_key(canonical: &str) -> u64 {
    (xxh3_128(canonical.as_bytes()) as u64).max(1)
}

/// The key of a canonical IRI (as [`iri_key`]) and an independent 32-bit check
/// hash, from one XXH3-128: the indexer keeps the check beside each key to detect
/// two IRIs sharing a key.
pub fn iri_key_and_check(canonical: &str) -> (u64, u32) {
    let h = xxh3_128(canonical.as_bytes());
    ((h as u64).max(1), (h >> 96) as u32)
}

/// A streaming XXH3-64 checksum of a file's bytes.
#[derive(Default, Clone)]
pub struct Checksum(Xxh3);

impl Checksum {
    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The checksum of the bytes added so far.
    pub fn value(&self) -> u64 {
        self.0.digest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_in_pieces_equals_one_shot() {
        let mut c = Checksum::default();
        c.update(b"<http://a> <http://b> ");
        c.update(b"<http://c> .\n");
        let mut whole = Checksum::default();
        whole.update(b"<http://a> <http://b> <http://c> .\n");
        assert_eq!(c.value(), whole.value());
        assert_eq!(iri_key_and_check("http://a").0, iri_key("http://a"));
        assert_ne!(iri_key("http://a"), iri_key("http://b"));
    }
}
