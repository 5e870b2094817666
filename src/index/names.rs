//! The names of IRIs, read side: the labels an index stores per canonical IRI
//! (one per language, column family `names`, format version 5), and the choice
//! of one name in a wanted language, looking through the IRI's owl:sameAs class
//! when the IRI itself has none in that language (docs/index-format.md, "Names").

use super::format::{decode_names, iri_key_bytes, CF_NAMES};
use super::hash::iri_key;
use super::labels::lang_matches;
use super::{Index, IndexError};
use crate::terms::canonical::canonical_iri;

/// The levels of languages tried in turn for a name wanted in `lang`.
const LEVELS: usize = 4;

/// Whether a label tagged `have` is at `level` for a name wanted in `lang`:
/// 0 that language (a tag or one of its subtags: `en` takes `en-gb`), 1
/// English, 2 no language, 3 any language.
fn at_level(level: usize, have: &str, lang: &str) -> bool {
    match level {
        0 => lang_matches(have, lang),
        1 => lang_matches(have, "en"),
        2 => have.is_empty(),
        _ => true,
    }
}

/// The name in `lang` among the names of several IRIs (each list as
/// [`Index::names`] gives it, the IRI asked about first): the first label of
/// the first level of [`at_level`] that any list has, lists taken in their order
/// within a level and labels in the order of their language tags (so `en`
/// comes before `en-gb`).
pub fn choose<'a>(lists: &'a [Vec<(String, String)>], lang: &str) -> Option<&'a str> {
    (0..LEVELS).find_map(|level| {
        lists
            .iter()
            .flatten()
            .find(|(have, _)| at_level(level, have, lang))
            .map(|(_, label)| label.as_str())
    })
}

impl Index {
    /// Whether the index stores names (format version 5 and later).
    pub fn has_names(&self) -> bool {
        self.meta.format_version >= 5
    }

    /// The names of an IRI (canonicalised) as the index stores them: one label
    /// per language tag (lower case, empty for none), in increasing order of the
    /// tag; empty when the IRI has no label. An index without names (format
    /// version 4) is an error that says to rebuild it.
    pub fn names(&self, iri: &str) -> Result<Vec<(String, String)>, IndexError> {
        self.names_of_key(iri_key(&canonical_iri(iri)))
    }

    fn names_of_key(&self, key: u64) -> Result<Vec<(String, String)>, IndexError> {
        if !self.has_names() {
            return Err(IndexError::NoNames {
                path: self.dir.clone(),
                found: self.meta.format_version,
            });
        }
        self.store
            .with(CF_NAMES, &iri_key_bytes(key), |value| {
                value.map_or_else(Vec::new, decode_names)
            })
            .map_err(|e| self.read_err(e))
    }

    /// The name of an IRI in `lang`: its label in `lang`, else in English, else
    /// without language, else in any language (the first tag in order). Where
    /// the IRI itself has no label in `lang`, the members of its owl:sameAs
    /// class (sorted, as the judge treats them as one resource) are looked at
    /// too, level by level after the IRI itself: a Wikidata IRI is named by its
    /// DBpedia twin's English label when it has none of its own. A class of
    /// more than `max_class` IRIs is not looked through (the bound of the
    /// judge's `--max-class-size`: such a class is suspect, and naming would
    /// read every member). `None` when no label is found.
    pub fn name(
        &self,
        iri: &str,
        lang: &str,
        max_class: usize,
    ) -> Result<Option<String>, IndexError> {
        let canonical = canonical_iri(iri);
        let key = iri_key(&canonical);
        let own = self.names_of_key(key)?;
        if own.iter().any(|(have, _)| lang_matches(have, lang)) {
            return Ok(choose(std::slice::from_ref(&own), lang).map(str::to_string));
        }
        let mut lists = vec![own];
        let record = self.sameas.record(key).map_err(|e| self.sameas_err(e))?;
        if let Some(record) = record.filter(|r| r.size as usize <= max_class) {
            let members = self
                .sameas
                .members_of(&record, max_class)
                .map_err(|e| self.sameas_err(e))?;
            let mut seen = vec![key];
            for member in members {
                let k = iri_key(&canonical_iri(&member));
                if !seen.contains(&k) {
                    seen.push(k);
                    lists.push(self.names_of_key(k)?);
                }
            }
        }
        Ok(choose(&lists, lang).map(str::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(l, n)| ((*l).to_string(), (*n).to_string()))
            .collect()
    }

    #[test]
    fn a_name_falls_back_from_the_language_to_english_to_none_to_any() {
        let own = list(&[
            ("", "Obama"),
            ("de", "Barack Obama (de)"),
            ("en-gb", "B. Obama"),
        ]);
        let twin = list(&[("en", "Barack Obama"), ("fr", "Barack Obama (fr)")]);
        let both = [own, twin.clone()];
        assert_eq!(choose(&both, "de"), Some("Barack Obama (de)"));
        // the IRI's own English (a subtag of en) before its twin's
        assert_eq!(choose(&both, "en"), Some("B. Obama"));
        // French only on the twin: the twin's French before anyone's English
        assert_eq!(choose(&both, "fr"), Some("Barack Obama (fr)"));
        // no Spanish: English, the IRI's own first
        assert_eq!(choose(&both, "es"), Some("B. Obama"));
        assert_eq!(choose(&[twin], "es"), Some("Barack Obama"));
        // no English anywhere: untagged, else the first tag
        assert_eq!(choose(&[list(&[("", "X"), ("de", "Y")])], "es"), Some("X"));
        assert_eq!(
            choose(&[list(&[("de", "Y"), ("fr", "Z")])], "es"),
            Some("Y")
        );
        // an exact tag comes before its subtags (tags are sorted)
        assert_eq!(
            choose(&[list(&[("en", "Colour"), ("en-us", "Color")])], "en"),
            Some("Colour")
        );
        assert_eq!(choose(&[Vec::new(), Vec::new()], "en"), None);
        assert_eq!(choose(&[], "en"), None);
    }
}
