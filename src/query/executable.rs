//! The text a standard SPARQL 1.1 store executes (docs/scoring.md, Executing SPARQL): the query as
//! written when it is standard, else the algebra read the way the endpoints
//! read it, written back with full IRIs and checked to read back as standard
//! SPARQL; with the IRIs it mentions and whether it orders its solutions.

use spargebra::algebra::{AggregateExpression, Expression, GraphPattern, OrderExpression};
use spargebra::{Query, SparqlParser};

use super::bounds::Origin;
use super::dialect::has_keyword;
use super::parse::{on_enough_stack, parse_lenient, parse_with, Fail, Room};
use super::walk::walk_parsed;
use super::SparqlError;

/// A query made ready for a standard SPARQL 1.1 store (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, PartialEq)]
pub struct Executable {
    /// The text to execute: the query as written when it is standard SPARQL 1.1,
    /// else the parsed query written back with full IRIs (predefined prefixes
    /// expanded, Virtuoso syntax rewritten).
    pub text: String,
    /// True when the query is standard SPARQL 1.1 as written.
    pub strict: bool,
    /// How it was read when it is not.
    pub notes: Vec<String>,
    /// The IRIs of its triple patterns, paths and VALUES, sorted, once each.
    pub iris: Vec<String>,
    /// True when it orders its solutions: ORDER BY anywhere in its algebra
    /// ([`super::Walked::ordered`]).
    pub ordered: bool,
}

/// Reads a query the way the endpoints of the field accept it and makes it
/// executable by a standard store; `Err` when it does not parse even so.
pub fn executable(query: &str) -> Result<Executable, SparqlError> {
    on_enough_stack(query, Origin::User, |room| executable_in(query, room))
}

fn executable_in(query: &str, room: Room) -> Result<Executable, Fail> {
    let strict = match parse_with(SparqlParser::new(), query, Origin::User, room) {
        Ok(_) => true,
        Err(Fail::NeedsDeepStack) => return Err(Fail::NeedsDeepStack),
        Err(Fail::Query(_)) => false,
    };
    let (mut parsed, notes) = parse_lenient(query, room)?;
    let walked = walk_parsed(&parsed, query, notes);
    let text = if strict {
        query.to_string()
    } else {
        match &mut parsed {
            Query::Select { pattern, .. }
            | Query::Construct { pattern, .. }
            | Query::Describe { pattern, .. }
            | Query::Ask { pattern, .. } => dedupe_group_keys(pattern),
        }
        let text = parsed.to_string();
        // the text written back must read as standard SPARQL, or a store would
        // report an error about text the user never wrote
        match parse_with(SparqlParser::new(), &text, Origin::WrittenBack, room) {
            Ok(_) => {}
            Err(Fail::Query(SparqlError::Syntax { message })) => {
                return Err(Fail::Query(SparqlError::Syntax {
                    message: format!(
                        "the query is not standard SPARQL 1.1 and reads back as text that is not either ({message}): {text}; write it in standard SPARQL 1.1"
                    ),
                }))
            }
            Err(e) => return Err(e),
        }
        text
    };
    let mut iris: Vec<String> = walked
        .resources
        .iter()
        .chain(&walked.properties)
        .chain(&walked.classes)
        .filter(|i| !i.starts_with("_:"))
        .cloned()
        .collect();
    iris.sort();
    iris.dedup();
    Ok(Executable {
        text,
        strict,
        notes: if strict { Vec::new() } else { walked.notes },
        iris,
        ordered: walked.ordered,
    })
}

/// True when `query`, read as [`executable`] reads it, orders its solutions
/// (ORDER BY anywhere in its algebra); false when it has no `ORDER` keyword in
/// its code, which is looked for first, or when it cannot be made executable.
pub fn orders(query: &str) -> bool {
    has_keyword(query, "order") && executable(query).is_ok_and(|e| e.ordered)
}

/// Keeps the first of grouping keys written more than once (`GROUP BY ?a ?a`), in
/// every pattern, those inside EXISTS included: the grouping is the same, and
/// spargebra writes such a grouping under a HAVING back as a sub-query that
/// projects the variable twice, which no parser reads.
fn dedupe_group_keys(p: &mut GraphPattern) {
    match p {
        GraphPattern::Group {
            inner,
            variables,
            aggregates,
        } => {
            let mut kept = Vec::with_capacity(variables.len());
            let mut met = std::collections::HashSet::new();
            for v in variables.drain(..) {
                if met.insert(v.clone()) {
                    kept.push(v);
                }
            }
            *variables = kept;
            for (_, a) in aggregates {
                if let AggregateExpression::FunctionCall { expr, .. } = a {
                    dedupe_in_expression(expr);
                }
            }
            dedupe_group_keys(inner);
        }
        GraphPattern::Join { left, right }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            dedupe_group_keys(left);
            dedupe_group_keys(right);
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            dedupe_group_keys(left);
            dedupe_group_keys(right);
            if let Some(e) = expression {
                dedupe_in_expression(e);
            }
        }
        GraphPattern::Filter { inner, expr } => {
            dedupe_in_expression(expr);
            dedupe_group_keys(inner);
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            dedupe_in_expression(expression);
            dedupe_group_keys(inner);
        }
        GraphPattern::OrderBy { inner, expression } => {
            for o in expression {
                match o {
                    OrderExpression::Asc(e) | OrderExpression::Desc(e) => dedupe_in_expression(e),
                }
            }
            dedupe_group_keys(inner);
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Service { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Project { inner, .. } => dedupe_group_keys(inner),
        GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Values { .. } => {}
    }
}

/// [`dedupe_group_keys`] in the patterns of EXISTS / NOT EXISTS of an expression.
fn dedupe_in_expression(e: &mut Expression) {
    match e {
        Expression::NamedNode(_)
        | Expression::Literal(_)
        | Expression::Variable(_)
        | Expression::Bound(_) => {}
        Expression::Or(a, b)
        | Expression::And(a, b)
        | Expression::Equal(a, b)
        | Expression::SameTerm(a, b)
        | Expression::Greater(a, b)
        | Expression::GreaterOrEqual(a, b)
        | Expression::Less(a, b)
        | Expression::LessOrEqual(a, b)
        | Expression::Add(a, b)
        | Expression::Subtract(a, b)
        | Expression::Multiply(a, b)
        | Expression::Divide(a, b) => {
            dedupe_in_expression(a);
            dedupe_in_expression(b);
        }
        Expression::In(a, list) => {
            dedupe_in_expression(a);
            list.iter_mut().for_each(dedupe_in_expression);
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
            dedupe_in_expression(a);
        }
        Expression::Exists(p) => dedupe_group_keys(p),
        Expression::If(a, b, c) => {
            dedupe_in_expression(a);
            dedupe_in_expression(b);
            dedupe_in_expression(c);
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            list.iter_mut().for_each(dedupe_in_expression);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fuzz find (sparql target): an implicit grouping before a grouping key
    /// written once more, under a HAVING, was written back as a sub-query that
    /// projects the key twice, which does not parse.
    #[test]
    fn executable_text_with_a_repeated_grouping_key_parses() {
        for query in [
            "SELECT DISTINCT ?uri WHERE { ?x a <http://dbpedia.org/ontology/Volcano> ; <http://dbpedia.org/ontology/locatedInArea> ?uri . ?uri a <http://dbpedia.org/ontology/Country> }  ?uri HAVING ( COUNT(?x) > 10 )",
            "SELECT ?uri WHERE { ?x dbo:p ?uri } GROUP BY ?uri ?uri HAVING (COUNT(?x) > 10)",
            "SELECT ?uri WHERE { ?uri dbo:p ?o FILTER EXISTS { SELECT ?uri WHERE { ?uri ?p ?x } GROUP BY ?uri ?uri HAVING (COUNT(?x) > 1) } }",
        ] {
            let made = executable(query).unwrap();
            assert!(!made.strict, "{query}");
            let again = executable(&made.text).unwrap_or_else(|e| panic!("{e}: {}", made.text));
            assert!(again.strict, "{}", made.text);
            assert_eq!(again.iris, made.iris);
            assert_eq!(made.text.matches("?uri ?uri").count(), 0, "{}", made.text);
        }
    }
}
