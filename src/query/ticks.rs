//! The algebra rewrite the store's guard (`sparql::guard`, which says why)
//! runs a query through before the store evaluates it: calls of counting
//! functions ("ticks", custom functions the guard registers) placed where rows
//! pass — a `BIND` of a tick to an unbound variable under each `ORDER BY` and
//! `GROUP BY` (or aggregate), under and over each `DISTINCT`, under each
//! `REDUCED` and `OFFSET`, on both sides of each `MINUS` and on the right of
//! each `OPTIONAL`; each `FILTER`'s expression passed through a tick. The
//! rewrite says where the store holds the rows and how wide they are; what a
//! tick allows and when it stops the query is the guard's business.

use spargebra::algebra::{Expression, Function, GraphPattern};
use spargebra::term::{NamedNode, Variable};
use spargebra::{Query, SparqlParser, SparqlSyntaxError};

/// What the store holds the rows passing a tick in memory for, before the
/// query gives its first row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// `ORDER BY`: every row is sorted first.
    Sort,
    /// `GROUP BY` or an aggregate: every row is grouped first.
    Group,
    /// `DISTINCT`: every distinct row is remembered.
    Deduplicate,
    /// `MINUS`: every row of its right side is held.
    Minus,
}

/// One tick of a rewritten query: tick `k` (in [`Ticked::ticks`]) calls the
/// function [`tick_iri`]`(k)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Bound to an unbound variable over a pattern (the rows are unchanged);
    /// called with no argument, its value is not used.
    Rows {
        /// What the store holds the rows for, and their width (the pattern's
        /// distinct in-scope variables and the tick's own), when it holds them.
        held: Option<(Hold, usize)>,
    },
    /// Called on a FILTER's expression, whose value it gives back.
    Filter,
}

/// A query rewritten with ticks.
#[derive(Debug)]
pub struct Ticked {
    /// The rewritten algebra, for the store (oxigraph evaluates spargebra's
    /// algebra).
    pub query: Query,
    /// The ticks, in the order of their IRIs.
    pub ticks: Vec<Tick>,
}

/// The IRI of tick `k` (a valid IRI for every `k`).
pub fn tick_iri(k: usize) -> String {
    format!("urn:qajudge:tick:{k}")
}

/// Parses `text` as standard SPARQL 1.1 (no predefined prefixes, no bounds:
/// the caller checked them) and rewrites it with ticks (see the module).
/// Recursive: it runs on the query's thread, whose stack holds any query that
/// passed the bounds check.
pub fn with_ticks(text: &str) -> Result<Ticked, SparqlSyntaxError> {
    let query = SparqlParser::new().parse_query(text)?;
    let mut ticks = Vec::new();
    let mut go = |pattern| bound(pattern, &mut ticks);
    let query = match query {
        Query::Select {
            dataset,
            pattern,
            base_iri,
        } => Query::Select {
            dataset,
            pattern: go(pattern),
            base_iri,
        },
        Query::Construct {
            template,
            dataset,
            pattern,
            base_iri,
        } => Query::Construct {
            template,
            dataset,
            pattern: go(pattern),
            base_iri,
        },
        Query::Describe {
            dataset,
            pattern,
            base_iri,
        } => Query::Describe {
            dataset,
            pattern: go(pattern),
            base_iri,
        },
        Query::Ask {
            dataset,
            pattern,
            base_iri,
        } => Query::Ask {
            dataset,
            pattern: go(pattern),
            base_iri,
        },
    };
    Ok(Ticked { query, ticks })
}

/// The distinct in-scope variables of a pattern, in order.
fn variables(pattern: &GraphPattern) -> Vec<Variable> {
    let mut seen = Vec::new();
    let mut met = std::collections::HashSet::new();
    pattern.on_in_scope_variable(|v| {
        if met.insert(v.clone()) {
            seen.push(v.clone());
        }
    });
    seen
}

/// A new tick: its call with `args`.
fn tick(ticks: &mut Vec<Tick>, t: Tick, args: Vec<Expression>) -> Expression {
    let iri = NamedNode::new_unchecked(tick_iri(ticks.len()));
    ticks.push(t);
    Expression::FunctionCall(Function::Custom(iri), args)
}

/// `pattern` with a `BIND` of a new tick to an unbound variable; the tick
/// counts the rows the store holds for `held`, if it holds them.
fn counted(pattern: GraphPattern, held: Option<Hold>, ticks: &mut Vec<Tick>) -> GraphPattern {
    let k = ticks.len();
    let held = held.map(|h| (h, variables(&pattern).len() + 1));
    GraphPattern::Extend {
        inner: Box::new(pattern),
        variable: Variable::new_unchecked(format!("qajudge_tick_{k}")),
        expression: tick(ticks, Tick::Rows { held }, Vec::new()),
    }
}

/// Adds the ticks to every part of `pattern` (see the module).
fn bound(pattern: GraphPattern, ticks: &mut Vec<Tick>) -> GraphPattern {
    use GraphPattern as P;
    match pattern {
        P::OrderBy { inner, expression } => {
            let inner = bound(*inner, ticks);
            P::OrderBy {
                inner: Box::new(counted(inner, Some(Hold::Sort), ticks)),
                expression,
            }
        }
        P::Group {
            inner,
            variables,
            aggregates,
        } => {
            let inner = bound(*inner, ticks);
            P::Group {
                inner: Box::new(counted(inner, Some(Hold::Group), ticks)),
                variables,
                aggregates,
            }
        }
        P::Distinct { inner } => {
            let inner = bound(*inner, ticks);
            let projected = match &inner {
                P::Project { variables, .. } => variables.clone(),
                other => self::variables(other),
            };
            // the duplicates it drops still pass a tick
            let inner = Box::new(counted(inner, None, ticks));
            // projected again, so that the ticks' variables are not columns
            P::Project {
                inner: Box::new(counted(
                    P::Distinct { inner },
                    Some(Hold::Deduplicate),
                    ticks,
                )),
                variables: projected,
            }
        }
        P::Reduced { inner } => {
            let inner = bound(*inner, ticks);
            P::Reduced {
                inner: Box::new(counted(inner, None, ticks)),
            }
        }
        P::Slice {
            inner,
            start,
            length,
        } => {
            let inner = bound(*inner, ticks);
            // the rows an OFFSET skips still pass a tick
            let inner = if start > 0 {
                counted(inner, None, ticks)
            } else {
                inner
            };
            P::Slice {
                inner: Box::new(inner),
                start,
                length,
            }
        }
        P::Minus { left, right } => {
            // the rows it removes from the left still pass a tick
            let left = bound(*left, ticks);
            let left = Box::new(counted(left, None, ticks));
            let right = bound(*right, ticks);
            P::Minus {
                left,
                right: Box::new(counted(right, Some(Hold::Minus), ticks)),
            }
        }
        P::LeftJoin {
            left,
            right,
            expression,
        } => {
            let left = Box::new(bound(*left, ticks));
            let right = bound(*right, ticks);
            P::LeftJoin {
                left,
                right: Box::new(counted(right, None, ticks)),
                expression,
            }
        }
        P::Filter { expr, inner } => {
            let inner = Box::new(bound(*inner, ticks));
            P::Filter {
                expr: tick(ticks, Tick::Filter, vec![expr]),
                inner,
            }
        }
        P::Join { left, right } => {
            let left = Box::new(bound(*left, ticks));
            P::Join {
                left,
                right: Box::new(bound(*right, ticks)),
            }
        }
        P::Lateral { left, right } => {
            let left = Box::new(bound(*left, ticks));
            P::Lateral {
                left,
                right: Box::new(bound(*right, ticks)),
            }
        }
        P::Union { left, right } => {
            let left = Box::new(bound(*left, ticks));
            P::Union {
                left,
                right: Box::new(bound(*right, ticks)),
            }
        }
        P::Graph { name, inner } => P::Graph {
            name,
            inner: Box::new(bound(*inner, ticks)),
        },
        P::Extend {
            inner,
            variable,
            expression,
        } => P::Extend {
            inner: Box::new(bound(*inner, ticks)),
            variable,
            expression,
        },
        P::Project { inner, variables } => P::Project {
            inner: Box::new(bound(*inner, ticks)),
            variables,
        },
        // a remote endpoint's business; the leaves hold nothing
        other @ (P::Service { .. } | P::Bgp { .. } | P::Path { .. } | P::Values { .. }) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_placed_where_rows_pass_with_the_width_of_held_rows() {
        let ticked = with_ticks(
            "SELECT DISTINCT ?s WHERE { ?s ?p ?o FILTER(?o != 1) MINUS { ?s ?q 2 } } ORDER BY ?s OFFSET 1",
        )
        .expect("parses");
        let held: Vec<Option<(Hold, usize)>> = ticked
            .ticks
            .iter()
            .filter_map(|t| match t {
                Tick::Rows { held } => Some(*held),
                Tick::Filter => None,
            })
            .collect();
        assert_eq!(
            ticked.ticks.iter().filter(|t| **t == Tick::Filter).count(),
            1
        );
        for hold in [Hold::Sort, Hold::Deduplicate, Hold::Minus] {
            assert!(
                held.iter().any(|h| h.is_some_and(|(x, _)| x == hold)),
                "{hold:?}: {held:?}"
            );
        }
        // the right side of MINUS binds ?s and ?q, and the tick's own variable
        assert!(held.contains(&Some((Hold::Minus, 3))), "{held:?}");
        let text = ticked.query.to_string();
        for k in 0..ticked.ticks.len() {
            assert!(text.contains(&tick_iri(k)), "{k}: {text}");
        }
        assert!(with_ticks("SELECT * WHERE { ?s ?p }").is_err());
    }
}
