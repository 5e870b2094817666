//! The label index (the one module that names fst): normalised label → postings of
//! (language, IRI, label as written). Exact lookups, and fuzzy ones with a
//! Levenshtein automaton over the FST.

use std::io::Write;
use std::path::Path;

use fst::automaton::Levenshtein;
use fst::{IntoStreamer, Map, MapBuilder, Streamer};

use super::format::{LABELS_DAT, LABELS_FST};
use crate::matching::normalize_string;

/// A label error, as text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LabelError(pub String);

/// One label of an IRI.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
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

/// Postings to index, held compactly: the four fields of each posting
/// (normalised label, language, IRI, label as written) side by side in one arena.
#[derive(Debug, Default, Clone)]
pub struct Postings {
    text: String,
    /// Start of each posting in `text`, and the ends of its four fields relative
    /// to that start.
    entries: Vec<(u64, [u32; 4])>,
}

impl Postings {
    /// Adds a posting.
    pub fn push(&mut self, label: &str, lang: &str, iri: &str, written: &str) {
        let start = self.text.len();
        let mut ends = [0u32; 4];
        for (i, field) in [label, lang, iri, written].into_iter().enumerate() {
            self.text.push_str(field);
            ends[i] = (self.text.len() - start) as u32;
        }
        self.entries.push((start as u64, ends));
    }

    /// Moves every posting of `other` here, leaving it empty.
    pub fn append(&mut self, other: &mut Postings) {
        let base = self.text.len() as u64;
        self.text.push_str(&other.text);
        self.entries
            .extend(other.entries.iter().map(|(s, e)| (s + base, *e)));
        other.clear();
    }

    /// Removes every posting, keeping the buffers.
    pub fn clear(&mut self) {
        self.text.clear();
        self.entries.clear();
    }

    /// The number of postings.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no posting.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn fields(&self, entry: &(u64, [u32; 4])) -> [&str; 4] {
        let start = entry.0 as usize;
        let e = entry.1.map(|x| start + x as usize);
        [
            &self.text[start..e[0]],
            &self.text[e[0]..e[1]],
            &self.text[e[1]..e[2]],
            &self.text[e[2]..e[3]],
        ]
    }
}

/// Writes `labels.fst` and `labels.dat` into `dir` from postings (any order);
/// returns (postings, distinct labels).
pub fn write(dir: &Path, mut postings: Postings) -> Result<(u64, u64), LabelError> {
    let mut entries = std::mem::take(&mut postings.entries);
    entries.sort_unstable_by(|a, b| postings.fields(a).cmp(&postings.fields(b)));
    entries.dedup_by(|a, b| postings.fields(a) == postings.fields(b));
    let rows: Vec<[&str; 4]> = entries.iter().map(|e| postings.fields(e)).collect();
    drop(entries);
    let e = |x: std::io::Error| LabelError(x.to_string());
    let fst_file = std::fs::File::create(dir.join(LABELS_FST)).map_err(e)?;
    let mut builder = MapBuilder::new(std::io::BufWriter::new(fst_file))
        .map_err(|x| LabelError(x.to_string()))?;
    let mut dat = std::io::BufWriter::new(std::fs::File::create(dir.join(LABELS_DAT)).map_err(e)?);
    let mut offset: u64 = 0;
    let mut distinct = 0;
    let mut i = 0;
    let mut buf = Vec::new();
    while i < rows.len() {
        let key = rows[i][0];
        let end = rows[i..]
            .iter()
            .position(|p| p[0] != key)
            .map_or(rows.len(), |p| i + p);
        builder
            .insert(key.as_bytes(), offset)
            .map_err(|x| LabelError(x.to_string()))?;
        distinct += 1;
        buf.clear();
        buf.extend_from_slice(&((end - i) as u32).to_le_bytes());
        for [_, lang, iri, label] in &rows[i..end] {
            for field in [lang, iri, label] {
                buf.extend_from_slice(&(field.len() as u32).to_le_bytes());
                buf.extend_from_slice(field.as_bytes());
            }
        }
        dat.write_all(&buf).map_err(e)?;
        offset += buf.len() as u64;
        i = end;
    }
    builder.finish().map_err(|x| LabelError(x.to_string()))?;
    dat.flush().map_err(e)?;
    Ok((rows.len() as u64, distinct))
}

/// The label index, in memory.
pub struct Labels {
    map: Map<Vec<u8>>,
    dat: Vec<u8>,
}

fn read_u32(dat: &[u8], at: &mut usize) -> Option<u32> {
    let bytes = dat.get(*at..*at + 4)?;
    *at += 4;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn read_str<'a>(dat: &'a [u8], at: &mut usize) -> Option<&'a str> {
    let len = read_u32(dat, at)? as usize;
    let s = std::str::from_utf8(dat.get(*at..*at + len)?).ok()?;
    *at += len;
    Some(s)
}

impl Labels {
    /// Opens the label files of an index directory.
    pub fn open(dir: &Path) -> Result<Labels, LabelError> {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| LabelError(format!("{}: {e}", dir.join(name).display())))
        };
        let map = Map::new(read(LABELS_FST)?).map_err(|e| LabelError(e.to_string()))?;
        Ok(Labels {
            map,
            dat: read(LABELS_DAT)?,
        })
    }

    fn postings(&self, offset: u64, lang: Option<&str>, out: &mut Vec<LabelHit>) {
        let mut at = offset as usize;
        let Some(n) = read_u32(&self.dat, &mut at) else {
            return;
        };
        for _ in 0..n {
            let (Some(l), Some(iri), Some(label)) = (
                read_str(&self.dat, &mut at),
                read_str(&self.dat, &mut at),
                read_str(&self.dat, &mut at),
            ) else {
                return;
            };
            if lang.is_none_or(|want| lang_matches(l, want)) {
                out.push(LabelHit {
                    iri: iri.to_string(),
                    label: label.to_string(),
                    lang: l.to_string(),
                });
            }
        }
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
        let automaton = Levenshtein::new(&normalize_label(text), distance)
            .map_err(|e| LabelError(format!("fuzzy search for {text:?}: {e}")))?;
        let mut stream = self.map.search(automaton).into_stream();
        let mut out = Vec::new();
        while let Some((_, offset)) = stream.next() {
            self.postings(offset, lang, &mut out);
        }
        Ok(out)
    }
}

/// `en` matches `en` and `en-gb`; an empty wanted language matches untagged labels.
fn lang_matches(have: &str, want: &str) -> bool {
    have.eq_ignore_ascii_case(want)
        || (have.len() > want.len()
            && have[..want.len()].eq_ignore_ascii_case(want)
            && have.as_bytes()[want.len()] == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_fuzzy_and_languages() {
        let dir = std::env::temp_dir().join(format!("qajudge-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let mut postings = Postings::default();
        let mut batch = Postings::default();
        for (label, lang, iri) in [
            ("Douglas Adams", "en", "http://www.wikidata.org/entity/Q42"),
            ("Douglas  ADAMS", "de", "http://www.wikidata.org/entity/Q42"),
            (
                "Douglas Adams",
                "en-gb",
                "http://dbpedia.org/resource/Douglas_Adams",
            ),
            ("Café", "fr", "http://x.org/cafe"),
            // a duplicate counts once
            ("Café", "fr", "http://x.org/cafe"),
        ] {
            batch.push(&normalize_label(label), lang, iri, label);
        }
        postings.push("zzz", "", "http://x.org/z", "zzz");
        postings.append(&mut batch);
        assert!(batch.is_empty());
        assert_eq!(postings.len(), 6);
        let (n, distinct) = write(&dir, postings).expect("written");
        assert_eq!((n, distinct), (5, 3));
        let labels = Labels::open(&dir).expect("opened");
        assert_eq!(labels.lookup("douglas adams", None).len(), 3);
        assert_eq!(labels.lookup("Douglas Adams", Some("en")).len(), 2);
        assert_eq!(labels.lookup("Douglas Adams", Some("de")).len(), 1);
        assert_eq!(labels.lookup("cafe\u{301}", None).len(), 1, "NFC");
        assert!(labels.lookup("Douglas Adam", None).is_empty());
        assert_eq!(
            labels.fuzzy("Duglas Adams", 1, None).expect("fuzzy").len(),
            3
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
