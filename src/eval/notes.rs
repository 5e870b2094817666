//! What a question's report says beside its score: why answers of another
//! kind (a string where the gold has IRIs) or of another knowledge graph could
//! not match, and the explanation as `--explain` asks for it.

use std::collections::HashSet;

use super::prepare::{Ctx, GoldEntry};
use super::report::Explanation;
use super::Options;
use crate::matching::{LabelRule, Matching, Prepared};
use crate::model::{looks_like_iri, Answer, Term};

/// Says which run answers could not be compared across kinds without an index.
pub(super) fn cross_kind_notes(
    entry: &GoldEntry<'_>,
    answers: &[Answer],
    run_set: &[Prepared],
    matching: &Matching,
    ctx: &Ctx<'_, '_>,
    diags: &mut Vec<String>,
) {
    let matched: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let unmatched = run_set
        .iter()
        .filter(|p| !matched.contains(&p.index))
        .filter_map(|p| answers.get(p.index));
    let (mut strings, mut iri_texts, mut iris) = (0, Vec::new(), 0);
    for a in unmatched {
        match a.terms.as_slice() {
            [Term::Literal { lexical, .. }] if looks_like_iri(lexical.trim()) => {
                iri_texts.push(lexical.trim());
            }
            terms if terms.iter().all(|t| matches!(t, Term::Literal { .. })) => strings += 1,
            terms if terms.iter().all(Term::is_iri) => iris += 1,
            _ => {}
        }
    }
    if !iri_texts.is_empty() && entry.has_iri {
        diags.push(format!(
            "{} literal answer(s) hold IRI text (such as {:?}) and are not IRIs: a term keeps its kind, so they do not match gold IRIs; answer with type \"uri\"",
            iri_texts.len(),
            iri_texts[0]
        ));
    }
    // only the label rules the profile has could match them with an index
    let label = ctx.opts().label;
    if ctx.resolver.has_index() || label == LabelRule::Off {
        return;
    }
    if strings > 0 && entry.has_iri {
        diags.push(format!(
            "{strings} string answer(s) could not be compared with the gold IRIs: matching labels needs an index (--index)"
        ));
    }
    if iris > 0 && entry.has_literal && !entry.has_iri && label == LabelRule::OneAnswer {
        diags.push(format!(
            "{iris} IRI answer(s) could not be compared with the gold strings: matching labels needs an index (--index)"
        ));
    }
}

/// An explanation as the options ask for it: whole, or (`--explain errors`)
/// only the missed and wrong answers, and none where there are none.
pub(super) fn explained(x: Explanation, options: &Options) -> Option<Explanation> {
    if !options.explain_errors_only {
        return Some(x);
    }
    if x.unmatched_gold.is_empty() && x.unmatched_run.is_empty() {
        return None;
    }
    Some(Explanation {
        pairs: Vec::new(),
        ..x
    })
}

/// The knowledge graph an IRI belongs to, for the graphs benchmarks use
/// (Wikipedia articles are DBpedia resources by the canonical rules).
fn graph_of(iri: &str) -> Option<&'static str> {
    let host = iri.split("://").nth(1)?.split('/').next()?;
    let host = host.rsplit('@').next()?;
    let is = |domain: &str| host == domain || host.ends_with(&format!(".{domain}"));
    if is("wikidata.org") {
        Some("Wikidata")
    } else if is("dbpedia.org") || is("wikipedia.org") {
        Some("DBpedia")
    } else if is("freebase.com") {
        Some("Freebase")
    } else if is("dblp.org") {
        Some("DBLP")
    } else if is("yago-knowledge.org") {
        Some("YAGO")
    } else {
        None
    }
}

/// The first IRI among an answer's terms.
fn first_iri(a: &Answer) -> Option<&str> {
    a.terms.iter().find_map(|t| match t {
        Term::Iri(i) => Some(i.as_str()),
        _ => None,
    })
}

/// A note for a question whose unmatched run IRIs are all in one knowledge
/// graph and whose gold IRIs are all in another: no answer of the run can
/// match unless an index links the two graphs.
pub(super) fn cross_graph_note(
    entry: &GoldEntry<'_>,
    gold_set: &[Prepared],
    answers: &[Answer],
    run_set: &[Prepared],
    matching: &Matching,
    ctx: &Ctx<'_, '_>,
) -> Option<String> {
    let gold_answers = entry.qa.as_deref()?;
    let gold_iris: Vec<&str> = gold_set
        .iter()
        .filter_map(|p| gold_answers.get(p.index).and_then(first_iri))
        .collect();
    let gold_graph = graph_of(gold_iris.first()?)?;
    if gold_iris.iter().any(|g| graph_of(g) != Some(gold_graph)) {
        return None;
    }
    let matched: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let run_iris: Vec<&str> = run_set
        .iter()
        .filter(|p| !matched.contains(&p.index))
        .filter_map(|p| answers.get(p.index).and_then(first_iri))
        .collect();
    let run_graph = graph_of(run_iris.first()?)?;
    if run_graph == gold_graph || run_iris.iter().any(|r| graph_of(r) != Some(run_graph)) {
        return None;
    }
    let linked = if ctx.resolver.has_index() {
        "the index (--index) does not link them"
    } else {
        "no index links them (--index)"
    };
    Some(format!(
        "gold {} and run {} are in different knowledge graphs ({gold_graph}, {run_graph}) and {linked}, so they cannot match; build or fetch an index that links {gold_graph} and {run_graph} (see indexes/ and docs/index-format.md)",
        gold_iris[0], run_iris[0]
    ))
}
