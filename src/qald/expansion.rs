//! The budget of what a reader's shared parts expand to (docs/scoring.md,
//! Limits): YAML aliases, Turtle nodes that many items point at. A reader
//! either shares such a part or counts each copy against
//! [`expansion_limit`] of its input's bytes, and refuses past it with a
//! located error, so that its memory stays a small multiple of the input.

/// How many times its own bytes an input may expand to through shared parts.
pub const EXPANSION_FACTOR: usize = 4;

/// What any input may expand to beyond [`EXPANSION_FACTOR`] times its bytes,
/// so that a small file may reuse a part a few times.
pub const EXPANSION_SLACK: usize = 64 << 10;

/// The most an input of `bytes` bytes may expand to. A text without shared
/// parts never comes near it: each of its nodes and scalar bytes takes at
/// least a byte of the text.
pub fn expansion_limit(bytes: usize) -> usize {
    bytes
        .saturating_mul(EXPANSION_FACTOR)
        .saturating_add(EXPANSION_SLACK)
}
