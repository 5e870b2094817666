//! The judge's walk over a query's whole algebra (docs/scoring.md, Sub-experiments): every graph
//! pattern, OPTIONAL, UNION, MINUS, GRAPH, SERVICE, sub-queries, VALUES, and
//! patterns inside FILTER EXISTS / NOT EXISTS, summed up as a [`Walked`] of
//! plain IRIs, triples and modifiers, which the annotator turns into markings
//! and features without knowing spargebra. The same pass runs GERBIL's walk
//! (`gerbil.rs`).

use std::collections::BTreeSet;

use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
    PropertyPathExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};
use spargebra::Query;

use super::bounds::Origin;
use super::dialect::has_keyword;
use super::gerbil::GerbilWalk;
use super::node::{literal, Node};
use super::parse::{on_enough_stack, parse_lenient};
use super::SparqlError;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const WDT_P31: &str = "http://www.wikidata.org/prop/direct/P31";

/// The query form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// SELECT.
    Select,
    /// ASK.
    Ask,
    /// CONSTRUCT.
    Construct,
    /// DESCRIBE.
    Describe,
}

/// What a query mentions, position by position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walked {
    /// The query form.
    pub form: Option<Form>,
    /// Triple patterns, with `^p` turned around and `p1/p2` split through a fresh
    /// variable.
    pub triples: Vec<(Node, Node, Node)>,
    /// The number of triple and path patterns as written.
    pub triple_patterns: usize,
    /// IRIs in subject or object position (classes of `rdf:type` included) and in
    /// VALUES.
    pub resources: Vec<String>,
    /// Classes: objects of `rdf:type` / `wdt:P31`.
    pub classes: Vec<String>,
    /// IRIs in predicate position and in property paths, `rdf:type` excepted.
    pub properties: Vec<String>,
    /// (variable, class) for every `?x rdf:type C` / `?x wdt:P31 C`.
    pub typed_vars: Vec<(String, String)>,
    /// The projected variables of the outermost SELECT.
    pub projected: Vec<String>,
    /// The SPARQL modifiers present: COUNT, SUM, AVG, MIN, MAX, FILTER, ORDER BY,
    /// LIMIT, OFFSET, GROUP BY, HAVING, UNION, OPTIONAL, YEAR, NOW, MINUS, VALUES,
    /// DISTINCT, ASK.
    pub modifiers: BTreeSet<&'static str>,
    /// True when the outermost SELECT projects a COUNT.
    pub counts: bool,
    /// How the query was read: predefined prefixes it relied on, Virtuoso syntax
    /// that was rewritten.
    pub notes: Vec<String>,
    /// True when the query orders its solutions: ORDER BY anywhere in its
    /// algebra (the modifier `ORDER BY` is among [`Walked::modifiers`]).
    pub ordered: bool,
    /// What GERBIL QA's walk collects (the markings of the `gerbil` profile).
    pub gerbil: GerbilWalk,
    /// The number of basic graph patterns: the non-empty blocks of triple
    /// patterns, a run of property paths in one group counted with them
    /// (LSQ's `bgps`).
    pub bgps: usize,
    /// True when the query's code holds BIND (LSQ's `Bind`).
    pub binds: bool,
    /// True when a FILTER (not a HAVING) applies a function or an operator
    /// rather than naming a variable or a constant (LSQ's `Functions`, which
    /// looks at filters only).
    pub functions: bool,
    /// True when a slice skips solutions (OFFSET above 0: LSQ's `Offset`; the
    /// `OFFSET` modifier is also set by `OFFSET 0`).
    pub skips: bool,
}

/// Parses a query (with the endpoints' predefined prefixes, and Virtuoso's dialect
/// rewritten when the query is not standard SPARQL) and walks it.
pub fn walk(query: &str) -> Result<Walked, SparqlError> {
    on_enough_stack(query, Origin::User, |room| {
        let (parsed, notes) = parse_lenient(query, room)?;
        Ok(walk_parsed(&parsed, query, notes))
    })
}

/// Walks a parsed query; `query` is its text (for what the algebra forgets).
pub(super) fn walk_parsed(parsed: &Query, query: &str, notes: Vec<String>) -> Walked {
    let mut w = Walker::default();
    w.out.notes = notes;
    let (form, pattern) = match parsed {
        Query::Select { pattern, .. } => (Form::Select, pattern),
        Query::Ask { pattern, .. } => (Form::Ask, pattern),
        Query::Construct {
            pattern, template, ..
        } => {
            for t in template {
                w.triple(t);
            }
            (Form::Construct, pattern)
        }
        Query::Describe { pattern, .. } => (Form::Describe, pattern),
    };
    if form == Form::Ask {
        w.out.modifiers.insert("ASK");
    }
    // `OFFSET 0` leaves no trace in the algebra, but it is written in the query
    if has_keyword(query, "offset") {
        w.out.modifiers.insert("OFFSET");
    }
    w.out.binds = has_keyword(query, "bind");
    if form == Form::Select {
        w.out.projected = projected(pattern);
        w.out.counts = counts(pattern, &w.out.projected);
    }
    w.pattern(pattern);
    w.out.ordered = w.out.modifiers.contains("ORDER BY");
    w.out.form = Some(form);
    w.out.gerbil.walk(pattern, true);
    w.out
}

/// The variables of the outermost projection.
fn projected(pattern: &GraphPattern) -> Vec<String> {
    match pattern {
        GraphPattern::Project { variables, .. } => {
            variables.iter().map(|v| v.as_str().to_string()).collect()
        }
        GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::OrderBy { inner, .. } => projected(inner),
        _ => Vec::new(),
    }
}

/// True when a projected variable is bound to a COUNT of the outermost group.
fn counts(pattern: &GraphPattern, projected: &[String]) -> bool {
    match pattern {
        GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Filter { inner, .. } => counts(inner, projected),
        GraphPattern::Extend {
            inner,
            variable,
            expression,
        } => {
            let bound_to_count = projected.iter().any(|p| p == variable.as_str())
                && matches!(expression, Expression::Variable(_));
            bound_to_count || counts(inner, projected)
        }
        GraphPattern::Group { aggregates, .. } => aggregates.iter().any(|(_, a)| {
            matches!(
                a,
                AggregateExpression::CountSolutions { .. }
                    | AggregateExpression::FunctionCall {
                        name: AggregateFunction::Count,
                        ..
                    }
            )
        }),
        _ => false,
    }
}

#[derive(Default)]
struct Walker {
    out: Walked,
    fresh: usize,
    /// Inside a join of blocks of triples: whether its BGP is counted yet.
    block: Option<bool>,
}

impl Walker {
    fn fresh_var(&mut self) -> Node {
        self.fresh += 1;
        Node::Var(format!("_path{}", self.fresh))
    }

    fn term(&mut self, t: &TermPattern) -> Node {
        match t {
            TermPattern::NamedNode(n) => {
                self.out.resources.push(n.as_str().to_string());
                Node::Iri(n.as_str().to_string())
            }
            TermPattern::Literal(l) => Node::Literal(literal(l)),
            TermPattern::BlankNode(b) => Node::Var(format!("_:{}", b.as_str())),
            TermPattern::Variable(v) => Node::Var(v.as_str().to_string()),
        }
    }

    fn triple(&mut self, t: &TriplePattern) {
        self.out.triple_patterns += 1;
        let s = self.term(&t.subject);
        let o = self.term(&t.object);
        let p = match &t.predicate {
            NamedNodePattern::NamedNode(n) => {
                let iri = n.as_str();
                if iri == RDF_TYPE || iri == WDT_P31 {
                    if let Node::Iri(class) = &o {
                        self.out.classes.push(class.clone());
                        if let Node::Var(v) = &s {
                            self.out.typed_vars.push((v.clone(), class.clone()));
                        }
                    }
                }
                if iri != RDF_TYPE {
                    self.out.properties.push(iri.to_string());
                }
                Node::Iri(iri.to_string())
            }
            NamedNodePattern::Variable(v) => Node::Var(v.as_str().to_string()),
        };
        self.out.triples.push((s, p, o));
    }

    fn path(&mut self, s: Node, path: &PropertyPathExpression, o: Node) {
        match path {
            PropertyPathExpression::NamedNode(n) => {
                let iri = n.as_str();
                if iri != RDF_TYPE {
                    self.out.properties.push(iri.to_string());
                }
                if iri == RDF_TYPE || iri == WDT_P31 {
                    if let Node::Iri(class) = &o {
                        self.out.classes.push(class.clone());
                        if let Node::Var(v) = &s {
                            self.out.typed_vars.push((v.clone(), class.clone()));
                        }
                    }
                }
                self.out.triples.push((s, Node::Iri(iri.to_string()), o));
            }
            PropertyPathExpression::Reverse(inner) => self.path(o, inner, s),
            PropertyPathExpression::Sequence(a, b) => {
                let mid = self.fresh_var();
                self.path(s, a, mid.clone());
                self.path(mid, b, o);
            }
            other => {
                path_iris(other, &mut self.out.properties);
                self.out.triples.push((s, Node::Path(other.to_string()), o));
            }
        }
    }

    fn expression(&mut self, e: &Expression) {
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
                self.expression(a);
                self.expression(b);
            }
            Expression::In(a, list) => {
                self.expression(a);
                for x in list {
                    self.expression(x);
                }
            }
            Expression::UnaryPlus(a) | Expression::UnaryMinus(a) | Expression::Not(a) => {
                self.expression(a);
            }
            Expression::Exists(p) => self.pattern(p),
            Expression::If(a, b, c) => {
                self.expression(a);
                self.expression(b);
                self.expression(c);
            }
            Expression::Coalesce(list) => {
                for x in list {
                    self.expression(x);
                }
            }
            Expression::FunctionCall(f, args) => {
                match f {
                    Function::Year => {
                        self.out.modifiers.insert("YEAR");
                    }
                    Function::Now => {
                        self.out.modifiers.insert("NOW");
                    }
                    _ => {}
                }
                for x in args {
                    self.expression(x);
                }
            }
        }
    }

    fn aggregate(&mut self, a: &AggregateExpression) {
        match a {
            AggregateExpression::CountSolutions { .. } => {
                self.out.modifiers.insert("COUNT");
            }
            AggregateExpression::FunctionCall { name, expr, .. } => {
                let m = match name {
                    AggregateFunction::Count => Some("COUNT"),
                    AggregateFunction::Sum => Some("SUM"),
                    AggregateFunction::Avg => Some("AVG"),
                    AggregateFunction::Min => Some("MIN"),
                    AggregateFunction::Max => Some("MAX"),
                    _ => None,
                };
                if let Some(m) = m {
                    self.out.modifiers.insert(m);
                }
                self.expression(expr);
            }
        }
    }

    /// Counts one block of triples, once per run of joined blocks.
    fn count_bgp(&mut self) {
        match &mut self.block {
            Some(true) => {}
            Some(seen) => {
                *seen = true;
                self.out.bgps += 1;
            }
            None => self.out.bgps += 1,
        }
    }

    fn pattern(&mut self, p: &GraphPattern) {
        if matches!(
            p,
            GraphPattern::Join { .. } | GraphPattern::Bgp { .. } | GraphPattern::Path { .. }
        ) {
            self.pattern_kind(p);
        } else {
            // below any other pattern, a block of triples starts a BGP of its own
            let outer = self.block.take();
            self.pattern_kind(p);
            self.block = outer;
        }
    }

    fn pattern_kind(&mut self, p: &GraphPattern) {
        match p {
            GraphPattern::Bgp { patterns } => {
                if !patterns.is_empty() {
                    self.count_bgp();
                }
                for t in patterns {
                    self.triple(t);
                }
            }
            GraphPattern::Path {
                subject,
                path,
                object,
            } => {
                self.count_bgp();
                self.out.triple_patterns += 1;
                let s = self.term(subject);
                let o = self.term(object);
                self.path(s, path, o);
            }
            GraphPattern::Join { left, right } => self.joined(left, right),
            GraphPattern::Lateral { left, right } => {
                self.pattern(left);
                self.pattern(right);
            }
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => self.optional(left, right, expression.as_ref()),
            GraphPattern::Filter { expr, inner } => self.filtered(expr, inner),
            GraphPattern::Union { left, right } => {
                self.out.modifiers.insert("UNION");
                self.pattern(left);
                self.pattern(right);
            }
            GraphPattern::Graph { name, inner } | GraphPattern::Service { name, inner, .. } => {
                if let NamedNodePattern::NamedNode(n) = name {
                    self.out.resources.push(n.as_str().to_string());
                }
                self.pattern(inner);
            }
            GraphPattern::Extend {
                inner, expression, ..
            } => {
                self.expression(expression);
                self.pattern(inner);
            }
            GraphPattern::Minus { left, right } => {
                self.out.modifiers.insert("MINUS");
                self.pattern(left);
                self.pattern(right);
            }
            GraphPattern::Values { bindings, .. } => self.values(bindings),
            GraphPattern::OrderBy { inner, expression } => self.ordered(inner, expression),
            GraphPattern::Project { inner, .. } => self.pattern(inner),
            GraphPattern::Distinct { inner } => {
                self.out.modifiers.insert("DISTINCT");
                self.pattern(inner);
            }
            GraphPattern::Reduced { inner } => self.pattern(inner),
            GraphPattern::Slice {
                inner,
                start,
                length,
            } => self.sliced(inner, *start, *length),
            GraphPattern::Group {
                inner,
                variables,
                aggregates,
            } => self.grouped(inner, variables, aggregates),
        }
    }

    /// A join: triples and paths joined together are one BGP, counted once
    /// (unless the join is itself inside such a run).
    fn joined(&mut self, left: &GraphPattern, right: &GraphPattern) {
        // triples and paths joined together are one BGP
        if self.block.is_none() {
            self.block = Some(false);
            self.pattern(left);
            self.pattern(right);
            self.block = None;
        } else {
            self.pattern(left);
            self.pattern(right);
        }
    }

    /// An `OPTIONAL`, and its filter expression (a `FILTER`, using functions
    /// unless it is a variable or a constant) if it has one.
    fn optional(
        &mut self,
        left: &GraphPattern,
        right: &GraphPattern,
        expression: Option<&Expression>,
    ) {
        self.out.modifiers.insert("OPTIONAL");
        self.pattern(left);
        self.pattern(right);
        if let Some(e) = expression {
            self.out.modifiers.insert("FILTER");
            self.out.functions |= !is_leaf(e);
            self.expression(e);
        }
    }

    /// A `FILTER`, or a `HAVING` when it is over a grouping; a `FILTER` whose
    /// expression is not a variable or a constant uses functions.
    fn filtered(&mut self, expr: &Expression, inner: &GraphPattern) {
        let having = is_grouped(inner);
        self.out
            .modifiers
            .insert(if having { "HAVING" } else { "FILTER" });
        self.out.functions |= !having && !is_leaf(expr);
        self.pattern(inner);
        self.expression(expr);
    }

    /// A `VALUES` block and the IRIs of its rows, as resources.
    fn values(&mut self, bindings: &[Vec<Option<GroundTerm>>]) {
        self.out.modifiers.insert("VALUES");
        for row in bindings {
            for t in row.iter().flatten() {
                if let GroundTerm::NamedNode(n) = t {
                    self.out.resources.push(n.as_str().to_string());
                }
            }
        }
    }

    /// An `ORDER BY` and its sort keys.
    fn ordered(&mut self, inner: &GraphPattern, expression: &[OrderExpression]) {
        self.out.modifiers.insert("ORDER BY");
        for e in expression {
            match e {
                OrderExpression::Asc(x) | OrderExpression::Desc(x) => self.expression(x),
            }
        }
        self.pattern(inner);
    }

    /// A `LIMIT` (when it has a length) and an `OFFSET` (when it skips rows).
    fn sliced(&mut self, inner: &GraphPattern, start: usize, length: Option<usize>) {
        if length.is_some() {
            self.out.modifiers.insert("LIMIT");
        }
        if start > 0 {
            self.out.modifiers.insert("OFFSET");
            self.out.skips = true;
        }
        self.pattern(inner);
    }

    /// A `GROUP BY` (when it has keys; a query's aggregates alone group too)
    /// and its aggregates.
    fn grouped(
        &mut self,
        inner: &GraphPattern,
        variables: &[Variable],
        aggregates: &[(Variable, AggregateExpression)],
    ) {
        if !variables.is_empty() {
            self.out.modifiers.insert("GROUP BY");
        }
        for (_, a) in aggregates {
            self.aggregate(a);
        }
        self.pattern(inner);
    }
}

/// True for an expression that names a variable or a constant.
fn is_leaf(e: &Expression) -> bool {
    matches!(
        e,
        Expression::NamedNode(_) | Expression::Literal(_) | Expression::Variable(_)
    )
}

/// True when a pattern is a grouping, possibly under the extensions that bind its
/// aggregates: a FILTER over it is a HAVING.
fn is_grouped(p: &GraphPattern) -> bool {
    match p {
        GraphPattern::Group { .. } => true,
        GraphPattern::Extend { inner, .. } => is_grouped(inner),
        _ => false,
    }
}

fn path_iris(p: &PropertyPathExpression, out: &mut Vec<String>) {
    match p {
        PropertyPathExpression::NamedNode(n) => {
            if n.as_str() != RDF_TYPE {
                out.push(n.as_str().to_string());
            }
        }
        PropertyPathExpression::Reverse(a)
        | PropertyPathExpression::ZeroOrMore(a)
        | PropertyPathExpression::OneOrMore(a)
        | PropertyPathExpression::ZeroOrOne(a) => path_iris(a, out),
        PropertyPathExpression::Sequence(a, b) | PropertyPathExpression::Alternative(a, b) => {
            path_iris(a, out);
            path_iris(b, out);
        }
        PropertyPathExpression::NegatedPropertySet(list) => {
            for n in list {
                if n.as_str() != RDF_TYPE {
                    out.push(n.as_str().to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::orders;
    use super::*;

    #[test]
    fn order_by_anywhere_orders_the_query() {
        for (query, ordered) in [
            (
                "SELECT ?x WHERE { ?x ?p ?o } ORDER BY DESC(?o) LIMIT 1",
                true,
            ),
            (
                "SELECT ?x WHERE { { SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?o LIMIT 3 } }",
                true,
            ),
            ("SELECT ?x WHERE { ?x dbo:order ?o }", false),
            ("SELECT ?x WHERE { ?x ?p \"ORDER BY ?x\" }", false),
            ("ASK { ?x ?p ?o }", false),
        ] {
            let walked = walk(query).expect("walked");
            assert_eq!(walked.ordered, ordered, "{query}");
            assert_eq!(walked.modifiers.contains("ORDER BY"), ordered, "{query}");
            assert_eq!(orders(query), ordered, "{query}");
        }
        // a query that does not read orders nothing
        assert!(!orders("SELECT ?x WHERE { ?x ?p } ORDER BY ?x"));
    }

    #[test]
    fn bgps_binds_and_functions_as_lsq_counts_them() {
        for (query, bgps, binds, functions) in [
            ("SELECT ?x WHERE { ?x ?p ?o . ?o ?q ?r }", 1, false, false),
            (
                "SELECT ?x WHERE { ?x <http://a>/<http://b> ?o . ?o ?q ?r }",
                1,
                false,
                false,
            ),
            (
                "SELECT ?x WHERE { { ?x ?p ?o } UNION { ?x ?q ?o } }",
                2,
                false,
                false,
            ),
            (
                "SELECT ?x WHERE { ?x ?p ?o OPTIONAL { ?o ?q ?r } }",
                2,
                false,
                false,
            ),
            (
                "SELECT ?x WHERE { ?x ?p ?o FILTER(?o > 3) }",
                1,
                false,
                true,
            ),
            (
                "SELECT ?x WHERE { ?x ?p ?o BIND(?o AS ?y) }",
                1,
                true,
                false,
            ),
            (
                "SELECT (COUNT(?x) AS ?c) WHERE { ?x ?p ?o }",
                1,
                false,
                false,
            ),
            ("SELECT ?x WHERE { ?x ?p \"bind\" }", 1, false, false),
            ("ASK { }", 0, false, false),
            (
                "SELECT ?x WHERE { ?x ?p ?o } ORDER BY DESC(xsd:date(?o))",
                1,
                false,
                false,
            ),
            (
                "SELECT ?x WHERE { ?x ?p ?o } GROUP BY ?x HAVING(COUNT(?o) > 2)",
                1,
                false,
                false,
            ),
        ] {
            let walked = walk(query).expect("walked");
            assert_eq!(walked.bgps, bgps, "{query}");
            assert_eq!(walked.binds, binds, "{query}");
            assert_eq!(walked.functions, functions, "{query}");
        }
        let skips = |q: &str| walk(q).expect("walked").skips;
        assert!(skips("SELECT ?x WHERE { ?x ?p ?o } OFFSET 2"));
        assert!(!skips("SELECT ?x WHERE { ?x ?p ?o } OFFSET 0 LIMIT 1"));
    }
}
