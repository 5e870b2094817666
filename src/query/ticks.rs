//! The algebra rewrite the store's guard (`sparql::guard`, which says why)
//! runs a query through before the store evaluates it: calls of counting
//! functions ("ticks", custom functions the guard registers) placed where rows
//! pass — a `BIND` of a tick to an unbound variable under each `ORDER BY` and
//! `GROUP BY` (or aggregate), under and over each `DISTINCT`, under each
//! `REDUCED` and `OFFSET`, on both sides of each `MINUS` and on the right of
//! each `OPTIONAL`; each `FILTER`'s expression passed through a tick. The
//! rewrite says where the store holds the rows and how wide they are; what a
//! tick allows and when it stops the query is the guard's business.
//!
//! Strings an expression builds are ticks too, so that the guard can count
//! them before they are made: `CONCAT` and `REPLACE` become calls of ticks
//! the guard evaluates itself (their size measured first), `GROUP_CONCAT` an
//! aggregate of the guard's, and the value of every other function that
//! builds a string (`STR`, `UCASE`, `SUBSTR`, `ENCODE_FOR_URI`, the hashes …)
//! passes through a tick that measures it. A whole expression that builds
//! strings (a `BIND`'s, a `FILTER`'s, a sort key, an aggregate's argument)
//! ends in a tick that settles them once it has its value, or once it fails
//! (`COALESCE(settled(e), failed())`, whose value is `e`'s or its error): the
//! strings made on the way are gone, and the store keeps a `BIND`'s value and
//! a sort key until the query ends. The rewrite also measures the
//! query (its triple patterns, its algebra nodes) and refuses one past
//! [`super::bounds::MAX_TRIPLE_PATTERNS`] or
//! [`super::bounds::MAX_ALGEBRA_NODES`]:
//! the store's optimizer, which checks no deadline, spends time that grows
//! faster than linearly in them.

use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
};
use spargebra::term::{NamedNode, Variable};
use spargebra::{Query, SparqlParser, SparqlSyntaxError};

use super::bounds::{MAX_ALGEBRA_NODES, MAX_TRIPLE_PATTERNS};
use shapes::{both, distinct, filtered, grouped, minus, optional, ordered, sliced};

mod shapes;

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
/// function [`tick_iri`]`(k)` (an aggregate, for [`Tick::GroupConcat`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    /// Bound to an unbound variable over a pattern (the rows are unchanged);
    /// called with no argument, its value is not used.
    Rows {
        /// What the store holds the rows for, and their width (the pattern's
        /// distinct in-scope variables and the tick's own), when it holds them.
        held: Option<(Hold, usize)>,
    },
    /// Called on a FILTER's expression, whose value it gives back;
    /// `settles`: the expression builds strings, which are gone once the
    /// filter has its value.
    Filter {
        /// True when the expression builds strings.
        settles: bool,
    },
    /// Called on the value of a function that builds a string, which it
    /// measures and gives back.
    Built,
    /// Called on the value of a whole expression that builds strings, once it
    /// is made: the strings made on the way are gone, and the value is kept
    /// (`keep`: a `BIND`'s value or a `DISTINCT` aggregate's, which the store
    /// holds until the query ends) or not. Given back.
    Settled {
        /// True when the store keeps the value.
        keep: bool,
    },
    /// Called, with no argument, when a whole expression that builds strings
    /// failed (after a [`Tick::Settled`] in a `COALESCE`): the strings made
    /// on the way are gone. Its value is an error, as the expression's was.
    Failed,
    /// `CONCAT` of its arguments, as SPARQL defines it.
    Concat,
    /// `REPLACE(text, pattern, replacement [, flags])`, as the store
    /// evaluates it (its regular expressions and replacement syntax).
    Replace,
    /// `GROUP_CONCAT` with this separator: an aggregate (`DISTINCT` is the
    /// store's).
    GroupConcat {
        /// The separator (a space when the query gives none).
        separator: String,
    },
}

/// Why a query is not rewritten.
#[derive(Debug, thiserror::Error)]
pub enum TickError {
    /// Not SPARQL 1.1.
    #[error(transparent)]
    Syntax(#[from] SparqlSyntaxError),
    /// Past a bound of the query's size (see the module).
    #[error("the query has {found} {what}; at most {max} are run: split it into smaller queries (docs/http-api.md, Limits and security)")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// How many the query has.
        found: usize,
        /// The bound.
        max: usize,
    },
}

/// What the rewrite counted of a query.
#[derive(Debug, Default, Clone, Copy)]
struct Measure {
    patterns: usize,
    nodes: usize,
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

/// The start of every tick's IRI.
const TICK_PREFIX: &str = "urn:qajudge:tick:";

/// The IRI of tick `k` (a valid IRI for every `k`).
pub fn tick_iri(k: usize) -> String {
    format!("{TICK_PREFIX}{k}")
}

/// Parses `text` as standard SPARQL 1.1 (no predefined prefixes, no bounds:
/// the caller checked them) and rewrites it with ticks (see the module).
/// Recursive: it runs on the query's thread, whose stack holds any query that
/// passed the bounds check.
pub fn with_ticks(text: &str) -> Result<Ticked, TickError> {
    let query = SparqlParser::new().parse_query(text)?;
    let mut ticks = Vec::new();
    let mut measure = Measure::default();
    let mut go = |pattern| {
        bound(
            pattern,
            &mut Rewrite {
                ticks: &mut ticks,
                measure: &mut measure,
                strings: 0,
            },
        )
    };
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
    for (what, found, max) in [
        ("triple patterns", measure.patterns, MAX_TRIPLE_PATTERNS),
        ("algebra nodes", measure.nodes, MAX_ALGEBRA_NODES),
    ] {
        if found > max {
            return Err(TickError::TooLarge { what, found, max });
        }
    }
    Ok(Ticked { query, ticks })
}

/// The state of a rewrite: the ticks placed so far and what was counted.
struct Rewrite<'a> {
    ticks: &'a mut Vec<Tick>,
    measure: &'a mut Measure,
    /// The string ticks placed so far (counted as they are placed: the
    /// rewrite stays linear in the query).
    strings: usize,
}

impl Rewrite<'_> {
    /// The string ticks placed so far.
    fn strings(&self) -> usize {
        self.strings
    }

    /// A new string tick (`Built`, `Concat`, `Replace`): its call.
    fn string_tick(&mut self, t: Tick, args: Vec<Expression>) -> Expression {
        self.strings += 1;
        tick(self.ticks, t, args)
    }

    /// A whole expression rewritten (see [`sized`]); when it builds strings,
    /// its value passes through a [`Tick::Settled`] (`keep`: the store keeps
    /// it), and its failure through a [`Tick::Failed`] (`COALESCE` gives the
    /// expression's error back: the failure tick has no value either).
    fn whole(&mut self, e: Expression, keep: bool) -> Expression {
        let before = self.strings();
        let e = sized(e, self);
        if self.strings() == before {
            return e;
        }
        self.settled(e, Tick::Settled { keep })
    }

    /// `COALESCE(tick(e), failed())`.
    fn settled(&mut self, e: Expression, t: Tick) -> Expression {
        let settled = tick(self.ticks, t, vec![e]);
        let failed = tick(self.ticks, Tick::Failed, Vec::new());
        Expression::Coalesce(vec![settled, failed])
    }
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

/// True for the functions that build a string from their arguments (their
/// value passes through a [`Tick::Built`]); `CONCAT` and `REPLACE` are
/// ticks of their own.
fn builds_a_string(f: &Function) -> bool {
    use Function as F;
    matches!(
        f,
        F::Str
            | F::Iri
            | F::SubStr
            | F::UCase
            | F::LCase
            | F::EncodeForUri
            | F::StrBefore
            | F::StrAfter
            | F::StrLang
            | F::StrDt
            | F::StrUuid
            | F::Md5
            | F::Sha1
            | F::Sha256
            | F::Sha384
            | F::Sha512
    )
}

/// `e` with its string-building calls made ticks (see the module), and the
/// patterns of its `EXISTS` rewritten as any pattern.
fn sized(e: Expression, r: &mut Rewrite<'_>) -> Expression {
    use Expression as E;
    r.measure.nodes += 1;
    let two = |a: Box<E>, b: Box<E>, r: &mut Rewrite<'_>| {
        (Box::new(sized(*a, r)), Box::new(sized(*b, r)))
    };
    match e {
        leaf @ (E::NamedNode(_) | E::Literal(_) | E::Variable(_) | E::Bound(_)) => leaf,
        E::Or(a, b) => {
            let (a, b) = two(a, b, r);
            E::Or(a, b)
        }
        E::And(a, b) => {
            let (a, b) = two(a, b, r);
            E::And(a, b)
        }
        E::Equal(a, b) => {
            let (a, b) = two(a, b, r);
            E::Equal(a, b)
        }
        E::SameTerm(a, b) => {
            let (a, b) = two(a, b, r);
            E::SameTerm(a, b)
        }
        E::Greater(a, b) => {
            let (a, b) = two(a, b, r);
            E::Greater(a, b)
        }
        E::GreaterOrEqual(a, b) => {
            let (a, b) = two(a, b, r);
            E::GreaterOrEqual(a, b)
        }
        E::Less(a, b) => {
            let (a, b) = two(a, b, r);
            E::Less(a, b)
        }
        E::LessOrEqual(a, b) => {
            let (a, b) = two(a, b, r);
            E::LessOrEqual(a, b)
        }
        E::Add(a, b) => {
            let (a, b) = two(a, b, r);
            E::Add(a, b)
        }
        E::Subtract(a, b) => {
            let (a, b) = two(a, b, r);
            E::Subtract(a, b)
        }
        E::Multiply(a, b) => {
            let (a, b) = two(a, b, r);
            E::Multiply(a, b)
        }
        E::Divide(a, b) => {
            let (a, b) = two(a, b, r);
            E::Divide(a, b)
        }
        E::In(a, list) => E::In(
            Box::new(sized(*a, r)),
            list.into_iter().map(|x| sized(x, r)).collect(),
        ),
        E::UnaryPlus(a) => E::UnaryPlus(Box::new(sized(*a, r))),
        E::UnaryMinus(a) => E::UnaryMinus(Box::new(sized(*a, r))),
        E::Not(a) => E::Not(Box::new(sized(*a, r))),
        E::Exists(p) => E::Exists(Box::new(bound(*p, r))),
        E::If(a, b, c) => E::If(
            Box::new(sized(*a, r)),
            Box::new(sized(*b, r)),
            Box::new(sized(*c, r)),
        ),
        E::Coalesce(list) => E::Coalesce(list.into_iter().map(|x| sized(x, r)).collect()),
        E::FunctionCall(f, args) => {
            let args: Vec<E> = args.into_iter().map(|x| sized(x, r)).collect();
            sized_call(f, args, r)
        }
    }
}

/// A call whose arguments are rewritten already, made a tick where it builds
/// a string: `CONCAT` and `REPLACE` the guard's own (each `CONCAT` argument
/// measured as it is made), any other string function's value measured.
fn sized_call(f: Function, args: Vec<Expression>, r: &mut Rewrite<'_>) -> Expression {
    use Expression as E;
    match f {
        Function::Concat => {
            // the store makes every argument before the call: each is
            // measured as it is made (a value read from a variable
            // is a copy), so that many large arguments stop early
            let args = args
                .into_iter()
                .map(|a| match &a {
                    E::Literal(_) => a,
                    // a tick's own value is measured already
                    E::FunctionCall(Function::Custom(iri), _)
                        if iri.as_str().starts_with(TICK_PREFIX) =>
                    {
                        a
                    }
                    _ => r.string_tick(Tick::Built, vec![a]),
                })
                .collect();
            r.string_tick(Tick::Concat, args)
        }
        Function::Replace if (3..=4).contains(&args.len()) => r.string_tick(Tick::Replace, args),
        f if builds_a_string(&f) => {
            let call = E::FunctionCall(f, args);
            r.string_tick(Tick::Built, vec![call])
        }
        f => E::FunctionCall(f, args),
    }
}

/// An aggregate with its expression rewritten; `GROUP_CONCAT` the guard's.
fn sized_aggregate(a: AggregateExpression, r: &mut Rewrite<'_>) -> AggregateExpression {
    match a {
        AggregateExpression::FunctionCall {
            name,
            expr,
            distinct,
        } => {
            // a DISTINCT aggregate remembers every value it saw
            let expr = r.whole(expr, distinct);
            let name = match name {
                AggregateFunction::GroupConcat { separator } => {
                    let iri = NamedNode::new_unchecked(tick_iri(r.ticks.len()));
                    r.ticks.push(Tick::GroupConcat {
                        separator: separator.unwrap_or_else(|| " ".into()),
                    });
                    AggregateFunction::Custom(iri)
                }
                other => other,
            };
            AggregateExpression::FunctionCall {
                name,
                expr,
                distinct,
            }
        }
        count @ AggregateExpression::CountSolutions { .. } => count,
    }
}

/// `pattern` with a `BIND` of a new tick to an unbound variable; the tick
/// counts the rows the store holds for `held`, if it holds them.
fn counted(pattern: GraphPattern, held: Option<Hold>, r: &mut Rewrite<'_>) -> GraphPattern {
    let ticks = &mut *r.ticks;
    let k = ticks.len();
    let held = held.map(|h| (h, variables(&pattern).len() + 1));
    GraphPattern::Extend {
        inner: Box::new(pattern),
        variable: Variable::new_unchecked(format!("qajudge_tick_{k}")),
        expression: tick(ticks, Tick::Rows { held }, Vec::new()),
    }
}

/// Adds the ticks to every part of `pattern` (see the module).
fn bound(pattern: GraphPattern, ticks: &mut Rewrite<'_>) -> GraphPattern {
    use GraphPattern as P;
    ticks.measure.nodes += 1;
    match pattern {
        P::OrderBy { inner, expression } => ordered(*inner, expression, ticks),
        P::Group {
            inner,
            variables,
            aggregates,
        } => grouped(*inner, variables, aggregates, ticks),
        P::Distinct { inner } => distinct(*inner, ticks),
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
        } => sliced(*inner, start, length, ticks),
        P::Minus { left, right } => minus(*left, *right, ticks),
        P::LeftJoin {
            left,
            right,
            expression,
        } => optional(*left, *right, expression, ticks),
        P::Filter { expr, inner } => filtered(expr, *inner, ticks),
        P::Join { left, right } => {
            let (left, right) = both(*left, *right, ticks);
            P::Join { left, right }
        }
        P::Lateral { left, right } => {
            let (left, right) = both(*left, *right, ticks);
            P::Lateral { left, right }
        }
        P::Union { left, right } => {
            let (left, right) = both(*left, *right, ticks);
            P::Union { left, right }
        }
        P::Graph { name, inner } => P::Graph {
            name,
            inner: Box::new(bound(*inner, ticks)),
        },
        P::Extend {
            inner,
            variable,
            expression,
        } => {
            let inner = Box::new(bound(*inner, ticks));
            P::Extend {
                inner,
                variable,
                expression: ticks.whole(expression, true),
            }
        }
        P::Project { inner, variables } => P::Project {
            inner: Box::new(bound(*inner, ticks)),
            variables,
        },
        P::Bgp { patterns } => {
            let m = &mut *ticks.measure;
            m.patterns += patterns.len();
            m.nodes += patterns.len();
            P::Bgp { patterns }
        }
        path @ P::Path { .. } => {
            ticks.measure.patterns += 1;
            path
        }
        // a remote endpoint's business; values hold nothing
        other @ (P::Service { .. } | P::Values { .. }) => other,
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
                _ => None,
            })
            .collect();
        assert_eq!(
            ticked
                .ticks
                .iter()
                .filter(|t| matches!(t, Tick::Filter { .. }))
                .count(),
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
