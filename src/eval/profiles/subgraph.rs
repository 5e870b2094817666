//! Subgraph retrieval (docs/scoring.md, Subgraph retrieval): the triples a
//! run says it retrieved for a question ([`Question::subgraph`] of the run:
//! `retrieved_triples` or `subgraph`) scored against the question's gold
//! subgraph (the gold's [`Question::subgraph`]: KGQAGen's `proof`), as sets
//! of triples after canonicalising their terms: triple precision, recall and
//! F1, and whether every gold triple was retrieved. The `kgqagen` and
//! `gtsqa` profiles report these figures beside the script's; they are
//! qajudge's own, named `subgraph_…` so that they are never taken for the
//! script's.

use std::collections::HashSet;

use crate::eval::report::Figures;
use crate::model::{looks_like_iri, Question};
use crate::qald::labelled_id;
use crate::terms::canonical::{canonical_iri, kg_id_iri};

/// Per-question and run figure names.
pub const PRECISION: &str = "subgraph_precision";
/// Triple recall.
pub const RECALL: &str = "subgraph_recall";
/// Triple F1.
pub const F1: &str = "subgraph_f1";
/// 1 when every gold triple was retrieved.
pub const COMPLETE: &str = "subgraph_complete";
/// The run figure: gold questions with a subgraph that were scored.
pub const QUESTIONS: &str = "subgraph_questions";

/// Namespaces and prefixes under which a Wikidata id names its entity or
/// property (an item, a direct claim, a statement, a qualifier …).
const WIKIDATA_FORMS: &[&str] = &[
    "http://www.wikidata.org/entity/",
    "http://www.wikidata.org/prop/direct/",
    "http://www.wikidata.org/prop/direct-normalized/",
    "http://www.wikidata.org/prop/statement/",
    "http://www.wikidata.org/prop/qualifier/",
    "http://www.wikidata.org/prop/",
    "http://www.wikidata.org/wiki/Property:",
    "http://www.wikidata.org/wiki/",
    "wd:",
    "wdt:",
    "p:",
    "ps:",
    "pq:",
];

/// The comparison key of one term of a triple: a Wikidata id however written
/// (`Label (Q42)`, `Q42`, `wd:Q42`, `wdt:P31`, `<http://www.wikidata.org/prop/direct/P31>`,
/// `http` or `https`) is `wd:` and the id; a Freebase id its canonical IRI; an
/// IRI its canonical form (docs/scoring.md, Sameness); anything else, a
/// literal, its text trimmed.
pub fn term_key(term: &str) -> String {
    let t = term.trim();
    if let Some((_, id)) = labelled_id(t) {
        return format!("wd:{id}");
    }
    let t = t
        .strip_prefix('<')
        .and_then(|x| x.strip_suffix('>'))
        .unwrap_or(t);
    let canonical = if looks_like_iri(t) {
        canonical_iri(t)
    } else {
        t.to_string()
    };
    let id = WIKIDATA_FORMS
        .iter()
        .find_map(|f| canonical.strip_prefix(f))
        .unwrap_or(&canonical);
    if is_wikidata_id(id) {
        return format!("wd:{id}");
    }
    if !looks_like_iri(&canonical) {
        if let Some(iri) = kg_id_iri(&canonical) {
            return iri;
        }
    }
    canonical
}

/// `Q42`, `P31`, `L5`.
fn is_wikidata_id(id: &str) -> bool {
    id.len() > 1
        && matches!(id.as_bytes()[0], b'Q' | b'P' | b'L')
        && id[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A set of triples by their terms' keys.
fn keys(triples: &[[String; 3]]) -> HashSet<[String; 3]> {
    triples
        .iter()
        .map(|[s, p, o]| [term_key(s), term_key(p), term_key(o)])
        .collect()
}

/// Adds the subgraph figures of one question to `figures`: when the gold
/// has a subgraph and the run question (the first one) gives retrieved
/// triples. A question whose run gives none has no subgraph figures and
/// counts 0 in the run's means ([`aggregate`]).
pub fn add_question(gold: &Question, run: &[&Question], figures: &mut Figures) {
    let Some(retrieved) = run.first().map(|r| &r.subgraph) else {
        return;
    };
    if gold.subgraph.is_empty() || retrieved.is_empty() {
        return;
    }
    let (g, r) = (keys(&gold.subgraph), keys(retrieved));
    let found = g.intersection(&r).count() as f64;
    let precision = found / r.len() as f64;
    let recall = found / g.len() as f64;
    let f1 = if found > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    figures.insert(PRECISION.to_string(), precision);
    figures.insert(RECALL.to_string(), recall);
    figures.insert(F1.to_string(), f1);
    figures.insert(COMPLETE.to_string(), f64::from(u8::from(g.is_subset(&r))));
}

/// Adds the run's subgraph figures to `aggregate` when some scored question
/// has them: the means of each figure over the scored gold questions that
/// have a subgraph (one without the run's triples counting 0), and their
/// number.
pub fn aggregate(scored: &[(&Question, &Figures)], aggregate: &mut Figures) {
    if !scored.iter().any(|(_, f)| f.contains_key(RECALL)) {
        return;
    }
    let with_gold: Vec<&Figures> = scored
        .iter()
        .filter(|(g, _)| !g.subgraph.is_empty())
        .map(|(_, f)| *f)
        .collect();
    let n = with_gold.len() as f64;
    for name in [PRECISION, RECALL, F1, COMPLETE] {
        let sum: f64 = with_gold.iter().filter_map(|f| f.get(name)).sum();
        aggregate.insert(name.to_string(), sum / n);
    }
    aggregate.insert(QUESTIONS.to_string(), n);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triple(s: &str, p: &str, o: &str) -> [String; 3] {
        [s.to_string(), p.to_string(), o.to_string()]
    }

    #[test]
    fn one_term_in_any_writing_is_one_key() {
        let forms = [
            "Tekkan Yosano (Q1206405)",
            "Q1206405",
            "wd:Q1206405",
            "<http://www.wikidata.org/entity/Q1206405>",
            "https://www.wikidata.org/wiki/Q1206405",
        ];
        for f in forms {
            assert_eq!(term_key(f), "wd:Q1206405", "{f}");
        }
        for f in [
            "place of birth (P19)",
            "wdt:P19",
            "http://www.wikidata.org/prop/direct/P19",
            "P19",
        ] {
            assert_eq!(term_key(f), "wd:P19", "{f}");
        }
        assert_eq!(term_key("/m/030tfl"), "http://rdf.freebase.com/ns/m.030tfl");
        assert_eq!(term_key(" 40923 "), "40923");
        assert_eq!(
            term_key("12 Angry Men (1957 film)"),
            "12 Angry Men (1957 film)"
        );
    }

    #[test]
    fn precision_recall_and_completeness() {
        let gold = Question {
            subgraph: vec![
                triple(
                    "Tekkan Yosano (Q1206405)",
                    "place of birth (P19)",
                    "Okazaki (Q17239478)",
                ),
                triple(
                    "Tekkan Yosano (Q1206405)",
                    "occupation (P106)",
                    "poet (Q49757)",
                ),
            ],
            ..Question::default()
        };
        let run = Question {
            subgraph: vec![
                triple("wd:Q1206405", "wdt:P19", "wd:Q17239478"),
                triple("wd:Q1206405", "wdt:P19", "wd:Q17239478"),
                triple("wd:Q1206405", "wdt:P27", "wd:Q17"),
                triple("wd:Q1206405", "wdt:P106", "wd:Q36180"),
            ],
            ..Question::default()
        };
        let mut f = Figures::new();
        add_question(&gold, &[&run], &mut f);
        // three distinct retrieved, one of two gold
        assert!((f[PRECISION] - 1.0 / 3.0).abs() < 1e-12, "{f:?}");
        assert_eq!((f[RECALL], f[COMPLETE]), (0.5, 0.0));
        assert!((f[F1] - 0.4).abs() < 1e-12);
        let none = Question::default();
        let mut g = Figures::new();
        add_question(&gold, &[&none], &mut g);
        assert!(g.is_empty());
        let mut agg = Figures::new();
        aggregate(&[(&gold, &f), (&gold, &g)], &mut agg);
        assert_eq!((agg[RECALL], agg[QUESTIONS]), (0.25, 2.0));
        let mut nothing = Figures::new();
        aggregate(&[(&gold, &g)], &mut nothing);
        assert!(nothing.is_empty());
    }
}
