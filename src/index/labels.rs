//! The label index, read side: normalised label → postings of (language, IRI,
//! label as written), opened from `labels.fst` and `labels.dat`. Exact lookups,
//! and fuzzy ones with a Levenshtein automaton over the FST.

use std::path::Path;

use fst::automaton::Levenshtein;
use fst::{IntoStreamer, Map, Streamer};

use super::format::{decode_postings, LABELS_DAT, LABELS_FST};
use crate::terms::literal::normalize_string;

/// The label files cannot be read or searched.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    /// A label file cannot be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `labels.fst` is not an FST, or its checksum does not match its bytes.
    #[error("labels.fst is not a label index or is damaged ({0}); rebuild the index")]
    Fst(#[from] fst::Error),
    /// A fuzzy search that the automaton cannot express (too many edits, too long).
    #[error("fuzzy search for {text:?}")]
    Fuzzy {
        /// The text searched for.
        text: String,
        /// Why.
        #[source]
        source: fst::automaton::LevenshteinError,
    },
}

/// One label of an IRI.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, utoipa::ToSchema)]
pub struct LabelHit {
    /// The IRI carrying the label.
    pub iri: String,
    /// The label as written.
    pub label: String,
    /// Its language tag (empty when none).
    pub lang: String,
}

/// The normalised form labels are indexed under: NFC, lower case, whitespace
/// collapsed.
pub fn normalize_label(label: &str) -> String {
    normalize_string(label, false)
}

/// The label index, in memory.
pub struct Labels {
    map: Map<Vec<u8>>,
    dat: Vec<u8>,
}

impl Labels {
    /// Opens the label files of an index directory.
    pub fn open(dir: &Path) -> Result<Labels, LabelError> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|source| LabelError::Read {
                path: dir.join(name),
                source,
            })
        };
        let map = Map::new(read(LABELS_FST)?)?;
        // its own checksum, before any lookup walks it: a damaged FST is an
        // error here, never a panic in a lookup (an index without checksums
        // in meta.json, built before them or with the file rewritten, has
        // nothing else to tell it by)
        map.as_fst().verify()?;
        Ok(Labels {
            map,
            dat: read(LABELS_DAT)?,
        })
    }

    fn postings(&self, offset: u64, lang: Option<&str>, out: &mut Vec<LabelHit>) {
        decode_postings(&self.dat, offset, |l, iri, label| {
            if lang.is_none_or(|want| lang_matches(l, want)) {
                out.push(LabelHit {
                    iri: iri.to_string(),
                    label: label.to_string(),
                    lang: l.to_string(),
                });
            }
        });
    }

    /// The IRIs carrying `text` as a label (normalised), optionally in one language.
    pub fn lookup(&self, text: &str, lang: Option<&str>) -> Vec<LabelHit> {
        let mut out = Vec::new();
        if let Some(offset) = self.map.get(normalize_label(text).as_bytes()) {
            self.postings(offset, lang, &mut out);
        }
        out
    }

    /// The IRIs carrying a label within `distance` edits of `text`.
    pub fn fuzzy(
        &self,
        text: &str,
        distance: u32,
        lang: Option<&str>,
    ) -> Result<Vec<LabelHit>, LabelError> {
        let automaton = Levenshtein::new(&normalize_label(text), distance).map_err(|source| {
            LabelError::Fuzzy {
                text: text.to_string(),
                source,
            }
        })?;
        let mut stream = self.map.search(automaton).into_stream();
        let mut out = Vec::new();
        while let Some((_, offset)) = stream.next() {
            self.postings(offset, lang, &mut out);
        }
        Ok(out)
    }
}

/// `en` matches `en` and `en-gb`; an empty wanted language matches untagged labels.
pub(super) fn lang_matches(have: &str, want: &str) -> bool {
    have.eq_ignore_ascii_case(want)
        || (have.len() > want.len()
            && have[..want.len()].eq_ignore_ascii_case(want)
            && have.as_bytes()[want.len()] == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_fst_is_an_error_at_open_never_a_panic_in_a_lookup() {
        let dir = std::env::temp_dir().join(format!("qajudge-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut builder = fst::MapBuilder::memory();
        for (i, key) in ["ada lovelace", "alan turing", "grace hopper"]
            .iter()
            .enumerate()
        {
            builder.insert(key, i as u64).expect("insert");
        }
        let bytes = builder.into_inner().expect("fst");
        std::fs::write(dir.join(LABELS_DAT), b"").expect("dat");
        std::fs::write(dir.join(LABELS_FST), &bytes).expect("fst");
        assert!(Labels::open(&dir).is_ok());
        // one byte of a transition changed: the checksum no longer matches
        let mut damaged = bytes.clone();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x5a;
        std::fs::write(dir.join(LABELS_FST), &damaged).expect("fst");
        let e = Labels::open(&dir).err().expect("refused").to_string();
        assert!(e.contains("damaged") && e.contains("rebuild"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
