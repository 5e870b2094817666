//! Digests and secrets, the one module that names sha2: SHA-256 of files and
//! documents (knowledge graph files, benchmarks, as provenance) and of the
//! secret tokens of private experiments, and the tokens' text (their random
//! bytes are drawn by the server, which does the I/O).

use sha2::{Digest, Sha256};

/// A SHA-256 computed over data given in parts.
#[derive(Clone, Default)]
pub struct Sha256Hasher(Sha256);

impl Sha256Hasher {
    /// A new hasher.
    pub fn new() -> Sha256Hasher {
        Sha256Hasher(Sha256::new())
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest so far, as lowercase hex.
    pub fn hex(&self) -> String {
        hex(&self.0.clone().finalize())
    }
}

/// The SHA-256 of `bytes`, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of named parts read as one input (a directory's files, as
/// GrailQA's ontology or a WordNet dictionary): each part's name and bytes,
/// each length-prefixed so that no two inputs give one byte string, in the
/// order given. Its reader and `reproduce` both compute it so.
pub fn named_parts_sha256<'a>(parts: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut h = Sha256::new();
    for (name, bytes) in parts {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    hex(&h.finalize())
}

/// The SHA-256 of `bytes` in base64 (RFC 4648, padded), as a
/// Content-Security-Policy hash source writes it (`'sha256-…'`).
pub fn sha256_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(44);
    for chunk in digest.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A secret token of 32 random bytes (the caller draws them from the
/// operating system's random source), as 64 hex digits.
pub fn secret_token(random: &[u8; 32]) -> String {
    hex(random)
}

/// True when `token`'s SHA-256 is `hash` (compared in time independent of
/// where they differ).
pub fn token_matches(token: &str, hash: &str) -> bool {
    let got = sha256_hex(token.as_bytes());
    got.len() == hash.len()
        && got
            .bytes()
            .zip(hash.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_digests_are_rfc_4648() {
        // printf abc | sha256sum | xxd -r -p | base64
        assert_eq!(
            sha256_base64(b"abc"),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
    }

    #[test]
    fn sha256_of_known_inputs() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut h = Sha256Hasher::new();
        h.update(b"a");
        h.update(b"bc");
        assert_eq!(h.hex(), sha256_hex(b"abc"));
    }

    #[test]
    fn tokens_are_their_bytes_in_hex_and_match_only_their_hash() {
        let a = secret_token(&[0xab; 32]);
        let b = secret_token(&[0x01; 32]);
        assert_eq!(a, "ab".repeat(32));
        assert_ne!(a, b);
        let hash = sha256_hex(a.as_bytes());
        assert!(token_matches(&a, &hash));
        assert!(!token_matches(&b, &hash));
        assert!(!token_matches("", &hash));
    }
}
