//! Hand-written pairs of each verdict, and [`rewritten`]: a query written
//! back from its algebra, reordered and renamed, for tests of the normal form.

use spargebra::algebra::GraphPattern;
use spargebra::Query;

use super::*;
use crate::query::bounds::Origin;
use crate::query::parse::{on_enough_stack, parse_lenient};

/// `query` written back from its algebra (prefixes expanded), the patterns of
/// every basic graph pattern in reverse order and every variable renamed
/// `?renamed_…`: the same query, for tests of [`normal_form`].
pub(crate) fn rewritten(query: &str) -> Result<String, SparqlError> {
    fn reverse(p: &mut GraphPattern) {
        match p {
            GraphPattern::Bgp { patterns } => patterns.reverse(),
            GraphPattern::Join { left, right }
            | GraphPattern::LeftJoin { left, right, .. }
            | GraphPattern::Union { left, right }
            | GraphPattern::Minus { left, right } => {
                reverse(left);
                reverse(right);
            }
            GraphPattern::Filter { inner, .. }
            | GraphPattern::Graph { inner, .. }
            | GraphPattern::Extend { inner, .. }
            | GraphPattern::OrderBy { inner, .. }
            | GraphPattern::Project { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. }
            | GraphPattern::Group { inner, .. }
            | GraphPattern::Service { inner, .. } => reverse(inner),
            _ => {}
        }
    }
    let written = on_enough_stack(query, Origin::User, |room| {
        let (mut parsed, _) = parse_lenient(query, room)?;
        match &mut parsed {
            Query::Select { pattern, .. }
            | Query::Ask { pattern, .. }
            | Query::Construct { pattern, .. }
            | Query::Describe { pattern, .. } => reverse(pattern),
        }
        Ok(parsed.to_string())
    })?;
    // variables renamed outside IRIs and strings
    let mut out = String::new();
    let mut quote = None;
    let chars: Vec<char> = written.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        // `<` opens an IRI, not an operator (written with a space after it)
        let iri = c == '<'
            && chars
                .get(i + 1)
                .is_some_and(|n| !n.is_whitespace() && *n != '=');
        match (quote, c) {
            (None, '<') if iri => quote = Some('>'),
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '?') => {
                out.push_str("?renamed_");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    Ok(out)
}

#[test]
fn a_query_rewritten_is_equivalent_to_itself() {
    let q = "PREFIX pv: <http://ld.company.org/prod-vocab/> SELECT DISTINCT ?result WHERE { \
             <http://ld.company.org/prod-instances/empl-Karen.Brant%40company.org> pv:memberOf ?result . \
             ?result a pv:Department . FILTER(?result != <http://x?y>) }";
    let r = rewritten(q).unwrap();
    assert!(r.contains("?renamed_result") && !r.contains("pv:"), "{r}");
    assert!(r.find("Department") < r.find("memberOf"), "{r}");
    assert_eq!(verdict(q, &r), Verdict::Equivalent);
}

fn verdict(a: &str, b: &str) -> Verdict {
    compare(&normal_form(a).unwrap(), &normal_form(b).unwrap())
}

#[test]
fn renaming_order_prefixes_and_redundant_distinct_are_equivalent() {
    let a =
        "PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX dbr: <http://dbpedia.org/resource/> \
             SELECT ?x WHERE { dbr:Berlin dbo:country ?x . ?x a dbo:Country }";
    let b = "SELECT ?country { ?country a <http://dbpedia.org/ontology/Country> . \
             <http://dbpedia.org/resource/Berlin> <http://dbpedia.org/ontology/country> ?country . }";
    assert_eq!(verdict(a, b), Verdict::Equivalent);
    let ask = "ASK { ?s <http://p> ?o . ?o <http://q> \"x\" }";
    let ask2 = "ASK WHERE { ?b <http://q> \"x\" . ?a <http://p> ?b }";
    assert_eq!(verdict(ask, ask2), Verdict::Equivalent);
    // one row per group: DISTINCT cannot change the answer
    let count = "SELECT (COUNT(?x) AS ?n) WHERE { ?x a <http://C> }";
    let distinct = "SELECT DISTINCT (COUNT(?y) AS ?c) WHERE { ?y a <http://C> }";
    assert_eq!(verdict(count, distinct), Verdict::Equivalent);
    let grouped = "SELECT ?g (COUNT(?x) AS ?n) WHERE { ?x <http://p> ?g } GROUP BY ?g";
    let grouped2 = "SELECT DISTINCT ?k (COUNT(?y) AS ?m) WHERE { ?y <http://p> ?k } GROUP BY ?k";
    assert_eq!(verdict(grouped, grouped2), Verdict::Equivalent);
    // a triple pattern written twice is one
    let twice = "SELECT ?x { ?x <http://p> ?y . ?x <http://p> ?y }";
    assert_eq!(
        verdict(twice, "SELECT ?z { ?z <http://p> ?w }"),
        Verdict::Equivalent
    );
    // filters' operands of && commute
    let f1 = "SELECT ?x { ?x <http://p> ?v FILTER(?v > 3 && ?v < 9) }";
    let f2 = "SELECT ?y { ?y <http://p> ?w FILTER(?w < 9 && ?w > 3) }";
    assert_eq!(verdict(f1, f2), Verdict::Equivalent);
}

#[test]
fn symmetric_patterns_are_named_by_their_neighbours() {
    let a = "SELECT ?x ?z { ?x <http://p> ?y . ?z <http://p> ?w . ?x <http://q> \"a\" }";
    let b = "SELECT ?m ?n { ?n <http://p> ?o . ?m <http://q> \"a\" . ?m <http://p> ?k }";
    assert_eq!(verdict(a, b), Verdict::Equivalent);
    // the columns swapped: not the same table
    let c = "SELECT ?n ?m { ?n <http://p> ?o . ?m <http://q> \"a\" . ?m <http://p> ?k }";
    assert_ne!(verdict(a, c), Verdict::Equivalent);
}

#[test]
fn different_constants_forms_and_columns_are_different() {
    let a = "SELECT ?x { ?x a <http://C> }";
    assert_eq!(
        verdict(a, "SELECT ?x { ?x a <http://D> }"),
        Verdict::Different
    );
    assert_eq!(verdict(a, "ASK { ?x a <http://C> }"), Verdict::Different);
    assert_eq!(
        verdict(a, "SELECT ?x ?y { ?x a <http://C> ; <http://p> ?y }"),
        Verdict::Different
    );
    // a DISTINCT that can remove duplicates is kept
    assert_eq!(
        verdict(
            "SELECT ?o { ?s <http://p> ?o }",
            "SELECT DISTINCT ?o { ?s <http://p> ?o }"
        ),
        Verdict::Unknown
    );
    // one that cannot is dropped: every variable of the patterns is kept
    assert_eq!(
        verdict(
            "SELECT ?o { <http://s> <http://p> ?o FILTER(?o != 1) }",
            "SELECT DISTINCT ?x { <http://s> <http://p> ?x FILTER(?x != 1) }"
        ),
        Verdict::Equivalent
    );
    // a path hides the node it passes through: duplicates are possible
    assert_eq!(
        verdict(
            "SELECT ?o { <http://s> <http://p>/<http://q> ?o }",
            "SELECT DISTINCT ?o { <http://s> <http://p>/<http://q> ?o }"
        ),
        Verdict::Unknown
    );
}

#[test]
fn structure_alone_is_unknown() {
    let a = "SELECT ?x { ?x <http://p> ?y OPTIONAL { ?y <http://q> ?z } }";
    let b = "SELECT ?x { ?x <http://p> ?y . ?y <http://q> ?z }";
    assert_eq!(verdict(a, b), Verdict::Unknown);
    let c = "SELECT ?x { ?x <http://p> ?y } LIMIT 5";
    let d = "SELECT ?x { ?x <http://p> ?y }";
    assert_eq!(verdict(c, d), Verdict::Unknown);
}

#[test]
fn entities_leave_out_classes_and_properties() {
    let f = normal_form(
        "SELECT ?x { <http://e/Berlin> <http://p/country> ?x . ?x a <http://c/Country> }",
    )
    .unwrap();
    assert_eq!(
        f.entities.into_iter().collect::<Vec<_>>(),
        vec!["http://e/Berlin"]
    );
    assert_eq!(f.form, "select");
    assert_eq!(f.columns, 1);
    assert!(f.standard);
    assert!(!normal_form("SELECT ?x { ?x dbo:p ?y }").unwrap().standard);
}

#[test]
fn hostile_texts_are_refused_before_parsing() {
    let deep = format!("SELECT * {{ {} }}", "{".repeat(100) + &"}".repeat(100));
    assert!(normal_form(&deep).unwrap_err().is_too_large());
    assert!(matches!(
        normal_form("SELECT ?x WHERE { ?x"),
        Err(SparqlError::Syntax { .. })
    ));
}
