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

/// The bytes of a dataset's texts, the measure [`expansion_limit`] bounds:
/// question texts, queries, flags, tags, markings and answer terms, and those
/// of the gold a run carries. The fuzz targets and the test over the shared
/// data check that a reader's dataset stays within twice the limit of its
/// input.
pub fn dataset_text_bytes(d: &crate::model::Dataset) -> usize {
    use crate::model::{Query, Term};
    let question = |q: &crate::model::Question| -> usize {
        let texts: usize = q.texts.iter().map(|(l, t)| l.len() + t.len()).sum();
        let query = match &q.query {
            Query::Sparql(s) => s.len(),
            _ => 0,
        };
        let flags: usize = q.flags.iter().map(|(k, v)| k.len() + v.len()).sum();
        let lists: usize = [&q.tags, &q.classes, &q.properties, &q.entities]
            .iter()
            .flat_map(|l| l.iter())
            .map(String::len)
            .sum();
        let answers: usize = q
            .answers
            .iter()
            .flat_map(|s| &s.answers)
            .flat_map(|a| &a.terms)
            .map(|t| match t {
                Term::Iri(i) => i.len(),
                Term::Literal { lexical, .. } => lexical.len(),
                Term::Boolean(_) => 1,
            })
            .sum();
        texts + query + flags + lists + answers
    };
    d.questions.iter().map(question).sum::<usize>()
        + d.own_gold.as_deref().map_or(0, dataset_text_bytes)
}
