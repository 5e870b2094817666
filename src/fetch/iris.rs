//! The IRIs a fetch starts from: those a gold benchmark names (its answers,
//! the IRIs of its queries' markings, its declared entities and classes) or a
//! list file gives, in canonical form. Freebase ids are one IRI however they
//! are written (`m.0xyz`, `ns:m.0xyz`, `http://rdf.freebase.com/ns/m.0xyz`,
//! Wikidata's P646 form `/m/0xyz`).

use std::collections::BTreeSet;

use crate::annotate::parse_question_query;
use crate::model::{Dataset, Term};
use crate::terms::canonical::{canonical_iri, freebase_literal_iri};

/// The starting IRIs and where they came from.
#[derive(Debug, Clone, Default)]
pub struct Seeds {
    /// Canonical IRIs, sorted.
    pub iris: BTreeSet<String>,
    /// The files read (gold benchmarks or IRI lists).
    pub sources: Vec<String>,
    /// Questions whose query could not be read (their answers still count),
    /// each naming the file and the question.
    pub diagnostics: Vec<String>,
}

/// The canonical Freebase IRI a string names, in any of the forms above.
pub fn freebase_iri(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(iri) = freebase_literal_iri(s) {
        return Some(iri);
    }
    let mid = s
        .strip_prefix("ns:")
        .or_else(|| s.strip_prefix("fb:"))
        .or_else(|| s.strip_prefix("http://rdf.freebase.com/ns/"))
        .or_else(|| s.strip_prefix("https://rdf.freebase.com/ns/"))
        .unwrap_or(s);
    let id = mid.strip_prefix("m.").or_else(|| mid.strip_prefix("g."))?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| format!("http://rdf.freebase.com/ns/{mid}"))
}

/// The canonical IRI of a gold IRI or MID, or `None` for a string that is
/// neither an http(s) IRI nor a Freebase id.
pub fn seed_iri(s: &str) -> Option<String> {
    if let Some(iri) = freebase_iri(s) {
        return Some(iri);
    }
    let s = s.trim();
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then(|| canonical_iri(s))
}

impl Seeds {
    /// Adds the IRIs a gold benchmark names; questions whose query does not
    /// read become diagnostics (their answers are still taken).
    pub fn add_gold(&mut self, gold: &Dataset, source: &str) {
        self.sources.push(source.to_string());
        for q in &gold.questions {
            for answer in q.answers.iter().flat_map(|a| &a.answers) {
                for term in &answer.terms {
                    let found = match term {
                        Term::Iri(i) => seed_iri(i),
                        // WebQSP-style answers name MIDs as strings
                        Term::Literal { lexical, .. } => freebase_iri(lexical),
                        Term::Boolean(_) => None,
                    };
                    self.iris.extend(found);
                }
            }
            for declared in q.entities.iter().chain(&q.classes) {
                self.iris.extend(seed_iri(declared));
            }
            match parse_question_query(q) {
                Ok(Some(walked)) => {
                    for iri in walked.resources.iter().chain(&walked.classes) {
                        self.iris.extend(seed_iri(iri));
                    }
                }
                Ok(None) => {}
                Err(e) => self
                    .diagnostics
                    .push(format!("{source}: question {}: {e}", q.id.0)),
            }
        }
    }

    /// Adds the IRIs of a list: one per line, optionally in `<…>`; empty lines
    /// and `#` comments skipped. A line that is no IRI is an error naming it.
    pub fn add_list(&mut self, text: &str, source: &str) -> Result<(), super::FetchError> {
        self.sources.push(source.to_string());
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bare = line
                .strip_prefix('<')
                .and_then(|l| l.strip_suffix('>'))
                .unwrap_or(line);
            match seed_iri(bare) {
                Some(iri) => {
                    self.iris.insert(iri);
                }
                None => {
                    return Err(super::FetchError::IriList {
                        path: source.to_string(),
                        line: n + 1,
                        found: line.chars().take(80).collect(),
                    })
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_freebase_iri_however_written() {
        let want = Some("http://rdf.freebase.com/ns/m.0282x".to_string());
        for written in [
            "m.0282x",
            "ns:m.0282x",
            "/m/0282x",
            "http://rdf.freebase.com/ns/m.0282x",
        ] {
            assert_eq!(seed_iri(written), want, "{written}");
        }
        assert_eq!(seed_iri("Douglas Adams"), None);
        assert_eq!(seed_iri("m."), None);
        assert_eq!(
            seed_iri("https://en.wikipedia.org/wiki/Douglas_Adams").as_deref(),
            Some("http://dbpedia.org/resource/Douglas_Adams")
        );
    }

    #[test]
    fn a_list_line_that_is_no_iri_is_named() {
        let mut seeds = Seeds::default();
        seeds
            .add_list(
                "# iris\n<http://www.wikidata.org/entity/Q42>\n\nm.0282x\n",
                "l.txt",
            )
            .expect("a list");
        assert_eq!(seeds.iris.len(), 2);
        let err = seeds
            .add_list("Q42\nnot an iri\n", "l.txt")
            .expect_err("bad");
        assert!(err.to_string().starts_with("l.txt:1:"), "{err}");
    }

    #[test]
    fn qald_10_gold_names_answers_and_query_iris() {
        let Some(path) = crate::test_data::shared_data("qald/10/qald_10.json") else {
            return;
        };
        let bytes = std::fs::read(&path).expect("qald-10");
        let gold = crate::qald::parse(&bytes, "qald_10.json").expect("qald-10 reads");
        let mut seeds = Seeds::default();
        seeds.add_gold(&gold, "qald_10.json");
        // answers and the entities and classes of the queries (docs/benchmarks.md)
        assert_eq!(seeds.iris.len(), 910);
        // question 26: the answer (the United Kingdom) and the query's beagle
        for iri in ["Q145", "Q21102"] {
            let iri = format!("http://www.wikidata.org/entity/{iri}");
            assert!(seeds.iris.contains(&iri), "{iri}");
        }
        // properties are not fetched: wdt:P495 is no entity
        assert!(!seeds.iris.iter().any(|i| i.contains("/prop/direct/")));
    }
}
