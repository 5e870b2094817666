//! The predicates a query can read: when every statement a SELECT or ASK query
//! can match has one of a few predicates named in it, a store may hold only
//! those statements and answer the query exactly as it would on them all, in
//! the same order (`sparql::ScratchGraph` loads QaldGenData that way). The
//! query is read as a standard store reads it (no predefined prefixes, no
//! Virtuoso dialect) within the same bounds; anything that can reach a
//! statement whatever its predicate gives no set: a variable predicate, a
//! negated property set, a `*` or `?` path (its zero-length step binds every
//! node of the graph), SERVICE, a dataset clause (FROM), DESCRIBE and
//! CONSTRUCT, and a text that does not parse.

use std::collections::BTreeSet;

use spargebra::algebra::{GraphPattern, PropertyPathExpression};
use spargebra::term::NamedNodePattern;
use spargebra::{Query, SparqlParser};

use super::bounds::Origin;
use super::depth::{node_children, Node};
use super::parse::{on_enough_stack, parse_with, Fail};

/// The IRIs of the predicates `query` can read, or `None` when it can read a
/// statement of any predicate or does not parse (see the module).
pub fn read_predicates(query: &str) -> Option<BTreeSet<String>> {
    on_enough_stack(query, Origin::WrittenBack, |room| {
        let parsed = parse_with(SparqlParser::new(), query, Origin::WrittenBack, room)?;
        Ok::<_, Fail>(predicates_of(&parsed))
    })
    .ok()
    .flatten()
}

fn predicates_of(query: &Query) -> Option<BTreeSet<String>> {
    let (Query::Select {
        dataset: None,
        pattern,
        ..
    }
    | Query::Ask {
        dataset: None,
        pattern,
        ..
    }) = query
    else {
        return None;
    };
    let mut found = BTreeSet::new();
    let mut stack = vec![Node::Pattern(pattern)];
    let mut children = Vec::new();
    while let Some(node) = stack.pop() {
        match &node {
            Node::Pattern(GraphPattern::Bgp { patterns }) => {
                for t in patterns {
                    match &t.predicate {
                        NamedNodePattern::NamedNode(n) => {
                            found.insert(n.as_str().to_string());
                        }
                        NamedNodePattern::Variable(_) => return None,
                    }
                }
            }
            Node::Pattern(GraphPattern::Service { .. })
            | Node::Path(
                PropertyPathExpression::NegatedPropertySet(_)
                | PropertyPathExpression::ZeroOrMore(_)
                | PropertyPathExpression::ZeroOrOne(_),
            ) => return None,
            Node::Path(PropertyPathExpression::NamedNode(n)) => {
                found.insert(n.as_str().to_string());
            }
            _ => {}
        }
        node_children(&node, &mut |n| children.push(n));
        stack.append(&mut children);
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::read_predicates;

    const QG: &str = "PREFIX qg: <http://qald-gen.aksw.org/vocab#> ";

    fn read(q: &str) -> Option<Vec<String>> {
        read_predicates(&format!("{QG}{q}")).map(|s| {
            s.into_iter()
                .map(|p| {
                    p.trim_start_matches("http://qald-gen.aksw.org/vocab#")
                        .to_string()
                })
                .collect()
        })
    }

    #[test]
    fn constant_predicates_of_every_part_of_the_query_are_found() {
        assert_eq!(
            read("SELECT ?q ?n WHERE { ?q qg:text ?t ; qg:length ?n OPTIONAL { ?q qg:a/^qg:b ?x } FILTER NOT EXISTS { ?q qg:c|qg:d+ ?y } MINUS { ?q qg:e ?z } }"),
            Some(["a", "b", "c", "d", "e", "length", "text"].map(String::from).to_vec())
        );
        assert_eq!(
            read("ASK { { SELECT (COUNT(*) AS ?n) WHERE { ?q qg:f ?x } } }"),
            Some(vec!["f".to_string()])
        );
        assert_eq!(read("SELECT * WHERE { VALUES ?x { 1 } }"), Some(vec![]));
    }

    #[test]
    fn queries_that_can_read_any_predicate_give_no_set() {
        for q in [
            "SELECT ?q WHERE { ?q ?p ?o }",
            "SELECT ?q WHERE { ?q qg:text ?t FILTER EXISTS { ?q ?p 1 } }",
            "SELECT ?q WHERE { ?q !qg:text ?o }",
            "SELECT ?q ?o WHERE { ?q qg:a* ?o }",
            "SELECT ?q ?o WHERE { ?q qg:a? ?o }",
            "SELECT ?q WHERE { SERVICE <http://example.org/sparql> { ?q qg:a ?o } }",
            "SELECT ?q FROM <http://example.org/g> WHERE { ?q qg:a ?o }",
            "DESCRIBE <http://example.org/q>",
            "CONSTRUCT { ?q qg:a ?o } WHERE { ?q qg:a ?o }",
            "SELECT ?q WHERE { ?q qg:a ?o ",
            "SELECT ?q WHERE { ?q undeclared:a ?o }",
        ] {
            assert_eq!(read(q), None, "{q}");
        }
    }
}
