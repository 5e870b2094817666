//! How deep a parsed query's algebra is, found without recursion, and the
//! dismantling without recursion of one that is too deep. The parser reads a
//! chain (`1+1+…`, `{…} {…} …`, `a/b/c…`, `… UNION …`) in a loop but builds it
//! as nested nodes, so a short text can make an algebra far deeper than its
//! brackets; every recursive walk over the algebra (the walker, writing it back
//! as text, the store's evaluation, and Rust's own drop) needs it bounded, and a
//! tree past the bound must be taken apart node by node, or dropping it would
//! overflow the stack it was meant to protect.

use spargebra::algebra::{
    AggregateExpression, Expression, GraphPattern, OrderExpression, PropertyPathExpression,
};
use spargebra::Query;

/// A node of the algebra, borrowed.
pub(super) enum Node<'a> {
    Pattern(&'a GraphPattern),
    Expr(&'a Expression),
    Path(&'a PropertyPathExpression),
}

/// The patterns a query form holds at its top.
fn roots(query: &Query) -> &GraphPattern {
    match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    }
}

/// The depth of the deepest node of `query` (its top pattern is 1), counting no
/// further than `limit + 1`.
pub fn depth(query: &Query, limit: usize) -> usize {
    let mut stack: Vec<(Node<'_>, usize)> = vec![(Node::Pattern(roots(query)), 1)];
    let mut children = Vec::new();
    let mut deepest = 0;
    while let Some((node, d)) = stack.pop() {
        deepest = deepest.max(d);
        if d > limit {
            return d;
        }
        node_children(&node, &mut |n| children.push(n));
        stack.extend(children.drain(..).map(|n| (n, d + 1)));
    }
    deepest
}

/// Gives `push` every child of `node`: the patterns, expressions and paths it
/// holds (a basic graph pattern's triples and VALUES' rows are not nodes).
pub(super) fn node_children<'a>(node: &Node<'a>, push: &mut impl FnMut(Node<'a>)) {
    match node {
        Node::Pattern(p) => pattern_children(p, push),
        Node::Expr(e) => expression_children(e, push),
        Node::Path(p) => path_children(p, push),
    }
}

fn aggregate_children<'a>(a: &'a AggregateExpression, push: &mut impl FnMut(Node<'a>)) {
    if let AggregateExpression::FunctionCall { expr, .. } = a {
        push(Node::Expr(expr));
    }
}

fn pattern_children<'a>(p: &'a GraphPattern, push: &mut impl FnMut(Node<'a>)) {
    match p {
        GraphPattern::Bgp { .. } | GraphPattern::Values { .. } => {}
        GraphPattern::Path { path, .. } => push(Node::Path(path)),
        GraphPattern::Join { left, right }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            push(Node::Pattern(left));
            push(Node::Pattern(right));
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            push(Node::Pattern(left));
            push(Node::Pattern(right));
            if let Some(e) = expression {
                push(Node::Expr(e));
            }
        }
        GraphPattern::Filter { expr, inner } => {
            push(Node::Expr(expr));
            push(Node::Pattern(inner));
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            push(Node::Expr(expression));
            push(Node::Pattern(inner));
        }
        GraphPattern::OrderBy { inner, expression } => {
            push(Node::Pattern(inner));
            for o in expression {
                match o {
                    OrderExpression::Asc(e) | OrderExpression::Desc(e) => push(Node::Expr(e)),
                }
            }
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            push(Node::Pattern(inner));
            for (_, a) in aggregates {
                aggregate_children(a, push);
            }
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Service { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. } => push(Node::Pattern(inner)),
    }
}

fn expression_children<'a>(e: &'a Expression, push: &mut impl FnMut(Node<'a>)) {
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
            push(Node::Expr(a));
            push(Node::Expr(b));
        }
        Expression::In(a, list) => {
            push(Node::Expr(a));
            list.iter().for_each(|e| push(Node::Expr(e)));
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
            push(Node::Expr(a));
        }
        Expression::Exists(p) => push(Node::Pattern(p)),
        Expression::If(a, b, c) => {
            push(Node::Expr(a));
            push(Node::Expr(b));
            push(Node::Expr(c));
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            list.iter().for_each(|e| push(Node::Expr(e)));
        }
    }
}

fn path_children<'a>(p: &'a PropertyPathExpression, push: &mut impl FnMut(Node<'a>)) {
    match p {
        PropertyPathExpression::NamedNode(_) | PropertyPathExpression::NegatedPropertySet(_) => {}
        PropertyPathExpression::Reverse(a)
        | PropertyPathExpression::ZeroOrMore(a)
        | PropertyPathExpression::OneOrMore(a)
        | PropertyPathExpression::ZeroOrOne(a) => push(Node::Path(a)),
        PropertyPathExpression::Sequence(a, b) | PropertyPathExpression::Alternative(a, b) => {
            push(Node::Path(a));
            push(Node::Path(b));
        }
    }
}

/// A node of the algebra, owned, on its way to being dropped.
enum Owned {
    Pattern(GraphPattern),
    Expr(Expression),
    Path(PropertyPathExpression),
}

/// Drops `query` node by node: each node's children are moved onto a list
/// before the node itself is dropped, so no drop recurses.
pub fn dismantle(query: Query) {
    let root = match query {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    let mut stack = vec![Owned::Pattern(root)];
    while let Some(node) = stack.pop() {
        match node {
            Owned::Pattern(p) => take_pattern(p, &mut stack),
            Owned::Expr(e) => take_expression(e, &mut stack),
            Owned::Path(p) => take_path(p, &mut stack),
        }
    }
}

fn take_aggregate(a: AggregateExpression, out: &mut Vec<Owned>) {
    if let AggregateExpression::FunctionCall { expr, .. } = a {
        out.push(Owned::Expr(expr));
    }
}

fn take_pattern(p: GraphPattern, out: &mut Vec<Owned>) {
    match p {
        GraphPattern::Bgp { .. } | GraphPattern::Values { .. } => {}
        GraphPattern::Path { path, .. } => out.push(Owned::Path(path)),
        GraphPattern::Join { left, right }
        | GraphPattern::Lateral { left, right }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            out.push(Owned::Pattern(*left));
            out.push(Owned::Pattern(*right));
        }
        GraphPattern::LeftJoin {
            left,
            right,
            expression,
        } => {
            out.push(Owned::Pattern(*left));
            out.push(Owned::Pattern(*right));
            out.extend(expression.map(Owned::Expr));
        }
        GraphPattern::Filter { expr, inner } => {
            out.push(Owned::Expr(expr));
            out.push(Owned::Pattern(*inner));
        }
        GraphPattern::Extend {
            inner, expression, ..
        } => {
            out.push(Owned::Expr(expression));
            out.push(Owned::Pattern(*inner));
        }
        GraphPattern::OrderBy { inner, expression } => {
            out.push(Owned::Pattern(*inner));
            for o in expression {
                match o {
                    OrderExpression::Asc(e) | OrderExpression::Desc(e) => {
                        out.push(Owned::Expr(e));
                    }
                }
            }
        }
        GraphPattern::Group {
            inner, aggregates, ..
        } => {
            out.push(Owned::Pattern(*inner));
            for (_, a) in aggregates {
                take_aggregate(a, out);
            }
        }
        GraphPattern::Graph { inner, .. }
        | GraphPattern::Service { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. } => out.push(Owned::Pattern(*inner)),
    }
}

fn take_expression(e: Expression, out: &mut Vec<Owned>) {
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
            out.push(Owned::Expr(*a));
            out.push(Owned::Expr(*b));
        }
        Expression::In(a, list) => {
            out.push(Owned::Expr(*a));
            out.extend(list.into_iter().map(Owned::Expr));
        }
        Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
            out.push(Owned::Expr(*a));
        }
        Expression::Exists(p) => out.push(Owned::Pattern(*p)),
        Expression::If(a, b, c) => {
            out.push(Owned::Expr(*a));
            out.push(Owned::Expr(*b));
            out.push(Owned::Expr(*c));
        }
        Expression::Coalesce(list) | Expression::FunctionCall(_, list) => {
            out.extend(list.into_iter().map(Owned::Expr));
        }
    }
}

fn take_path(p: PropertyPathExpression, out: &mut Vec<Owned>) {
    match p {
        PropertyPathExpression::NamedNode(_) | PropertyPathExpression::NegatedPropertySet(_) => {}
        PropertyPathExpression::Reverse(a)
        | PropertyPathExpression::ZeroOrMore(a)
        | PropertyPathExpression::OneOrMore(a)
        | PropertyPathExpression::ZeroOrOne(a) => out.push(Owned::Path(*a)),
        PropertyPathExpression::Sequence(a, b) | PropertyPathExpression::Alternative(a, b) => {
            out.push(Owned::Path(*a));
            out.push(Owned::Path(*b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_bounds, executable, walk, SparqlError};

    /// Runs `f` on a thread of 1 MiB of stack, less than any thread qajudge
    /// parses on: what passes here passes on a server's worker.
    fn on_a_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn_scoped(s, f)
                .expect("thread")
                .join()
                .expect("no panic")
        })
    }

    fn too_large(query: &str) -> String {
        let query = query.to_string();
        on_a_small_stack(move || {
            let w = walk(&query).expect_err("refused");
            let e = executable(&query).expect_err("refused");
            let b = check_bounds(&query).expect_err("refused");
            assert_eq!((&w, &e), (&b, &b));
            assert!(w.is_too_large(), "{w}");
            w.to_string()
        })
    }

    fn chain(head: &str, item: &str, sep: &str, n: usize, tail: &str) -> String {
        let mut q = String::from(head);
        q.push_str(&vec![item; n].join(sep));
        q.push_str(tail);
        q
    }

    #[test]
    fn bracket_bombs_are_refused_before_the_parser() {
        let parens = format!(
            "SELECT * WHERE {{ ?s ?p ?o FILTER({}1{}) }}",
            "(".repeat(1000),
            ")".repeat(1000)
        );
        assert!(too_large(&parens).contains("levels of brackets"));
        let mut optionals = String::from("SELECT * WHERE { ?s ?p ?o ");
        for _ in 0..5000 {
            optionals.push_str("OPTIONAL { ?s ?p ?o ");
        }
        optionals.push_str(&"}".repeat(5001));
        assert!(too_large(&optionals).contains("levels of brackets"));
        let deep_100k = format!(
            "ASK {{ {}?s ?p ?o{} }}",
            "{".repeat(100_000),
            "}".repeat(100_000)
        );
        assert!(too_large(&deep_100k).contains("levels of brackets"));
    }

    #[test]
    fn chains_deeper_than_the_bound_are_refused_and_dropped_without_recursion() {
        let cases = [
            chain("ASK { FILTER(", "1", "+", 100_000, ") }"),
            // the densest chain in the longest text read
            chain("ASK { FILTER(", "1", "+", 524_000, ") }"),
            chain("ASK { FILTER(", "?x = 1", " || ", 20_000, ") }"),
            chain("SELECT * WHERE { ", "{ ?s ?p ?o }", " UNION ", 50_000, " }"),
            chain(
                "SELECT * WHERE { ",
                "{ ?s ?p ?o FILTER(?o) }",
                " ",
                40_000,
                " }",
            ),
            chain("SELECT * WHERE { ?s ", "<http://x/p>", "|", 50_000, " ?o }"),
            chain(
                "SELECT * WHERE { ?s ?p ?o ",
                "OPTIONAL { ?s ?p ?o }",
                " ",
                40_000,
                " }",
            ),
        ];
        for q in &cases {
            let message = too_large(q);
            assert!(message.contains("more than 2000 levels"), "{message}");
        }
    }

    #[test]
    fn long_chains_within_the_bound_are_read_on_the_deep_stack() {
        let q = chain(
            "SELECT ?x WHERE { ?x ?p ?o FILTER(",
            "?o = 1",
            " || ",
            1990,
            ") }",
        );
        let walked = on_a_small_stack(move || walk(&q)).expect("read");
        assert!(walked.modifiers.contains("FILTER"));
        // a chain with a predefined prefix is written back as text, which recurses too
        let q = chain(
            "SELECT ?x WHERE { ?x dbo:p ?o FILTER(",
            "?o = 1",
            " || ",
            1990,
            ") }",
        );
        let made = on_a_small_stack(move || executable(&q)).expect("made");
        assert!(!made.strict && made.text.contains("http://dbpedia.org/ontology/p"));
    }

    #[test]
    fn the_deepest_small_query_is_read_on_a_small_stack() {
        use super::super::bounds::{SMALL_DEPTH, SMALL_NESTING};
        // as deep as what the caller's thread reads: 16 levels of brackets,
        // and an algebra as deep as the small room holds (a chain makes up
        // the rest), written back as text and read again
        let parens = SMALL_NESTING - 2;
        let head = format!(
            "SELECT ?x WHERE {{ ?x dbo:p ?o FILTER({}",
            "(".repeat(parens)
        );
        let tail = format!("{} }}", ")".repeat(parens + 1));
        let longest = (super::super::bounds::SMALL_BYTES - head.len() - tail.len()) / 2;
        for terms in [SMALL_DEPTH - parens - 8, SMALL_DEPTH, longest] {
            let q = format!("{head}{}1{tail}", "1+".repeat(terms));
            let (walked, made) = on_a_small_stack(move || (walk(&q), executable(&q)));
            walked.expect("walked");
            assert!(!made.expect("made").strict);
        }
    }

    #[test]
    fn a_syntax_error_is_not_a_bound() {
        let e = walk("SELECT * WHERE { ?s ?p }").expect_err("syntax");
        assert!(matches!(e, SparqlError::Syntax { .. }) && !e.is_too_large());
        assert!(check_bounds("SELECT * WHERE { ?s ?p }").is_ok());
    }
}
