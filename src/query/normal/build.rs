//! The algebra of a query as the tree of its normal form: prefixed names
//! already expanded by the parser, joins flattened, basic graph patterns,
//! UNION branches and commutative operands as unordered bags, the constants
//! and entities the query names collected on the way.

use std::collections::BTreeSet;

use spargebra::algebra::{
    AggregateExpression, Expression, GraphPattern, OrderExpression, PropertyPathExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern, Variable};
use spargebra::Query;

use super::{N, TYPE_PREDICATES};

/// Builds the tree, counting its nodes.
#[derive(Default)]
pub(super) struct Builder {
    /// Nodes built.
    pub(super) nodes: usize,
    /// IRIs and literals named.
    pub(super) constants: BTreeSet<String>,
    /// IRIs in subject or object position that are not classes.
    pub(super) entities: BTreeSet<String>,
}

impl Builder {
    fn leaf(&mut self, s: String) -> N {
        self.nodes += 1;
        self.constants.insert(s.clone());
        N::Leaf(s)
    }

    fn keyword(&mut self, s: &str) -> N {
        self.nodes += 1;
        N::Leaf(s.to_string())
    }

    fn op(&mut self, name: &'static str, children: Vec<N>) -> N {
        self.nodes += 1;
        N::Op(name, children)
    }

    /// The query form and the tree of a query.
    pub(super) fn query(&mut self, q: &Query) -> (&'static str, N) {
        match q {
            Query::Select { pattern, .. } => {
                let (vars, inner) = self.select(pattern);
                let head = self.op("columns", vars);
                ("select", self.op("select", vec![head, inner]))
            }
            Query::Ask { pattern, .. } => {
                // the answer is a boolean: duplicates, order and the
                // projection of in-scope variables cannot change it
                let mut p = pattern;
                while let GraphPattern::Distinct { inner }
                | GraphPattern::Reduced { inner }
                | GraphPattern::OrderBy { inner, .. }
                | GraphPattern::Project { inner, .. } = p
                {
                    p = inner;
                }
                let inner = self.pattern(p);
                ("ask", self.op("ask", vec![inner]))
            }
            Query::Construct {
                template, pattern, ..
            } => {
                let t: Vec<N> = template.iter().map(|t| self.triple(t)).collect();
                let bag = N::Bag("template", t);
                let inner = self.pattern(pattern);
                ("construct", self.op("construct", vec![bag, inner]))
            }
            Query::Describe { pattern, .. } => {
                let inner = self.pattern(pattern);
                ("describe", self.op("describe", vec![inner]))
            }
        }
    }

    /// The projected columns and the pattern of a SELECT query.
    fn select(&mut self, pattern: &GraphPattern) -> (Vec<N>, N) {
        let vars = projection(pattern)
            .map(|v| v.iter().map(|v| N::Var(v.as_str().to_string())).collect())
            .unwrap_or_default();
        (vars, self.pattern(pattern))
    }

    fn pattern(&mut self, p: &GraphPattern) -> N {
        match p {
            GraphPattern::Bgp { .. } | GraphPattern::Path { .. } | GraphPattern::Join { .. } => {
                self.joined(p)
            }
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => self.optional(left, right, expression.as_ref()),
            GraphPattern::Filter { expr, inner } => {
                let e = self.expression(expr);
                let i = self.pattern(inner);
                self.op("filter", vec![e, i])
            }
            GraphPattern::Union { left, right } => {
                let mut parts = Vec::new();
                self.union_parts(left, &mut parts);
                self.union_parts(right, &mut parts);
                N::Bag("union", parts)
            }
            GraphPattern::Graph { name, inner } => {
                let n = self.named(name);
                let i = self.pattern(inner);
                self.op("graph", vec![n, i])
            }
            GraphPattern::Service {
                name,
                inner,
                silent,
            } => {
                let n = self.named(name);
                let s = self.keyword(if *silent { "silent" } else { "loud" });
                let i = self.pattern(inner);
                self.op("service", vec![n, s, i])
            }
            GraphPattern::Extend {
                inner,
                variable,
                expression,
            } => {
                let i = self.pattern(inner);
                let v = N::Var(variable.as_str().to_string());
                let e = self.expression(expression);
                self.op("extend", vec![i, v, e])
            }
            GraphPattern::Minus { left, right } => {
                let l = self.pattern(left);
                let r = self.pattern(right);
                self.op("minus", vec![l, r])
            }
            GraphPattern::Values {
                variables,
                bindings,
            } => self.values(variables, bindings),
            GraphPattern::OrderBy { inner, expression } => self.order(inner, expression),
            GraphPattern::Project { inner, variables } => self.project(inner, variables),
            GraphPattern::Distinct { inner } => {
                let i = self.pattern(inner);
                self.op("distinct", vec![i])
            }
            GraphPattern::Reduced { inner } => {
                let i = self.pattern(inner);
                self.op("reduced", vec![i])
            }
            GraphPattern::Slice {
                inner,
                start,
                length,
            } => self.slice(inner, *start, *length),
            GraphPattern::Group {
                inner,
                variables,
                aggregates,
            } => self.group(inner, variables, aggregates),
            #[allow(unreachable_patterns)]
            other => self.leaf(other.to_string()),
        }
    }

    /// A join of basic graph patterns, paths and other patterns, flattened:
    /// its triple patterns and paths one bag (a set), the other parts with it
    /// in a bag of the join's parts, or the one part there is.
    fn joined(&mut self, p: &GraphPattern) -> N {
        let mut parts = Vec::new();
        self.join_parts(p, &mut parts);
        let (mut bgp, mut rest): (Vec<N>, Vec<N>) = parts
            .into_iter()
            .partition(|n| matches!(n, N::Op("triple" | "path", _)));
        // a basic graph pattern is a set: a pattern written twice is one
        let mut seen = BTreeSet::new();
        bgp.retain(|t| seen.insert(t.clone()));
        if rest.is_empty() {
            return N::Bag("bgp", bgp);
        }
        if !bgp.is_empty() {
            rest.push(N::Bag("bgp", bgp));
        }
        if rest.len() == 1 {
            return rest.pop().unwrap_or(N::Bag("bgp", Vec::new()));
        }
        N::Bag("join", rest)
    }

    /// An `OPTIONAL`: its two sides and its filter expression (`true` when it
    /// has none).
    fn optional(
        &mut self,
        left: &GraphPattern,
        right: &GraphPattern,
        expression: Option<&Expression>,
    ) -> N {
        let l = self.pattern(left);
        let r = self.pattern(right);
        let e = match expression {
            Some(e) => self.expression(e),
            None => self.keyword("true"),
        };
        self.op("optional", vec![l, r, e])
    }

    /// A projection: its pattern and its variables in order.
    fn project(&mut self, inner: &GraphPattern, variables: &[Variable]) -> N {
        let i = self.pattern(inner);
        let vars = variables
            .iter()
            .map(|v| N::Var(v.as_str().to_string()))
            .collect();
        let v = self.op("vars", vars);
        self.op("project", vec![i, v])
    }

    /// A `LIMIT`/`OFFSET`: its pattern, its start and its length (`all` when
    /// it has no limit).
    fn slice(&mut self, inner: &GraphPattern, start: usize, length: Option<usize>) -> N {
        let i = self.pattern(inner);
        let s = self.keyword(&start.to_string());
        let l = self.keyword(&length.map_or_else(|| "all".to_string(), |l| l.to_string()));
        self.op("slice", vec![i, s, l])
    }

    /// A `VALUES` block: its variables in order, its rows a bag (each row's
    /// cells in order, `undef` for an unbound one).
    fn values(&mut self, variables: &[Variable], bindings: &[Vec<Option<GroundTerm>>]) -> N {
        let head = variables
            .iter()
            .map(|v| N::Var(v.as_str().to_string()))
            .collect();
        let head = self.op("vars", head);
        let rows = bindings
            .iter()
            .map(|row| {
                let cells = row
                    .iter()
                    .map(|c| match c {
                        None => self.keyword("undef"),
                        Some(GroundTerm::NamedNode(n)) => self.iri(n.as_str(), true),
                        Some(t) => self.leaf(t.to_string()),
                    })
                    .collect();
                self.op("row", cells)
            })
            .collect();
        self.op("values", vec![head, N::Bag("rows", rows)])
    }

    /// An `ORDER BY`: its pattern and its sort keys in order, each ascending
    /// or descending.
    fn order(&mut self, inner: &GraphPattern, expression: &[OrderExpression]) -> N {
        let i = self.pattern(inner);
        let keys = expression
            .iter()
            .map(|o| match o {
                OrderExpression::Asc(e) => {
                    let e = self.expression(e);
                    self.op("asc", vec![e])
                }
                OrderExpression::Desc(e) => {
                    let e = self.expression(e);
                    self.op("desc", vec![e])
                }
            })
            .collect();
        let k = self.op("keys", keys);
        self.op("order", vec![i, k])
    }

    /// A `GROUP BY`: its pattern, its keys and its aggregates (each bound to
    /// its variable) as bags.
    fn group(
        &mut self,
        inner: &GraphPattern,
        variables: &[Variable],
        aggregates: &[(Variable, AggregateExpression)],
    ) -> N {
        let i = self.pattern(inner);
        let keys = variables
            .iter()
            .map(|v| N::Var(v.as_str().to_string()))
            .collect();
        let aggs = aggregates
            .iter()
            .map(|(v, a)| {
                let a = self.aggregate(a);
                self.op("bind", vec![N::Var(v.as_str().to_string()), a])
            })
            .collect();
        self.op(
            "group",
            vec![i, N::Bag("keys", keys), N::Bag("aggregates", aggs)],
        )
    }

    fn join_parts(&mut self, p: &GraphPattern, out: &mut Vec<N>) {
        match p {
            GraphPattern::Join { left, right } => {
                self.join_parts(left, out);
                self.join_parts(right, out);
            }
            GraphPattern::Bgp { patterns } => {
                for t in patterns {
                    let t = self.triple(t);
                    out.push(t);
                }
            }
            GraphPattern::Path {
                subject,
                path,
                object,
            } => {
                let s = self.term(subject, true);
                let pp = self.path(path);
                let o = self.term(object, true);
                out.push(self.op("path", vec![s, pp, o]));
            }
            other => {
                let n = self.pattern(other);
                match n {
                    // an empty group joins as nothing
                    N::Bag("bgp", ts) if ts.is_empty() => {}
                    N::Bag("bgp", ts) => out.extend(ts),
                    N::Bag("join", parts) => out.extend(parts),
                    n => out.push(n),
                }
            }
        }
    }

    fn union_parts(&mut self, p: &GraphPattern, out: &mut Vec<N>) {
        if let GraphPattern::Union { left, right } = p {
            self.union_parts(left, out);
            self.union_parts(right, out);
        } else {
            let n = self.pattern(p);
            out.push(n);
        }
    }

    fn triple(&mut self, t: &TriplePattern) -> N {
        let class = match &t.predicate {
            NamedNodePattern::NamedNode(n) => TYPE_PREDICATES.contains(&n.as_str()),
            NamedNodePattern::Variable(_) => false,
        };
        let s = self.term(&t.subject, true);
        let p = self.named(&t.predicate);
        let o = self.term(&t.object, !class);
        self.op("triple", vec![s, p, o])
    }

    fn term(&mut self, t: &TermPattern, entity: bool) -> N {
        match t {
            TermPattern::NamedNode(n) => self.iri(n.as_str(), entity),
            TermPattern::BlankNode(b) => N::Var(format!("_:{}", b.as_str())),
            TermPattern::Variable(v) => N::Var(v.as_str().to_string()),
            #[allow(unreachable_patterns)]
            other => self.leaf(other.to_string()),
        }
    }

    fn iri(&mut self, iri: &str, entity: bool) -> N {
        if entity {
            self.entities.insert(iri.to_string());
        }
        self.leaf(format!("<{iri}>"))
    }

    fn named(&mut self, n: &NamedNodePattern) -> N {
        match n {
            NamedNodePattern::NamedNode(n) => self.iri(n.as_str(), false),
            NamedNodePattern::Variable(v) => N::Var(v.as_str().to_string()),
        }
    }

    fn path(&mut self, p: &PropertyPathExpression) -> N {
        match p {
            PropertyPathExpression::NamedNode(n) => self.iri(n.as_str(), false),
            PropertyPathExpression::Reverse(a) => {
                let a = self.path(a);
                self.op("^", vec![a])
            }
            PropertyPathExpression::Sequence(a, b) => {
                let (a, b) = (self.path(a), self.path(b));
                self.op("/", vec![a, b])
            }
            PropertyPathExpression::Alternative(a, b) => {
                let (a, b) = (self.path(a), self.path(b));
                N::Bag("|", vec![a, b])
            }
            PropertyPathExpression::ZeroOrMore(a) => {
                let a = self.path(a);
                self.op("*", vec![a])
            }
            PropertyPathExpression::OneOrMore(a) => {
                let a = self.path(a);
                self.op("+", vec![a])
            }
            PropertyPathExpression::ZeroOrOne(a) => {
                let a = self.path(a);
                self.op("?", vec![a])
            }
            PropertyPathExpression::NegatedPropertySet(list) => {
                let l = list.iter().map(|n| self.iri(n.as_str(), false)).collect();
                N::Bag("!", l)
            }
        }
    }

    fn expression(&mut self, e: &Expression) -> N {
        use Expression as E;
        let two = |this: &mut Builder, name: &'static str, a: &E, b: &E, bag: bool| {
            let (a, b) = (this.expression(a), this.expression(b));
            this.nodes += 1;
            if bag {
                N::Bag(name, vec![a, b])
            } else {
                N::Op(name, vec![a, b])
            }
        };
        match e {
            E::NamedNode(n) => self.iri(n.as_str(), false),
            E::Literal(l) => self.leaf(l.to_string()),
            E::Variable(v) => N::Var(v.as_str().to_string()),
            E::Or(a, b) => two(self, "||", a, b, true),
            E::And(a, b) => two(self, "&&", a, b, true),
            E::Equal(a, b) => two(self, "=", a, b, true),
            E::SameTerm(a, b) => two(self, "sameterm", a, b, true),
            E::Greater(a, b) => two(self, ">", a, b, false),
            E::GreaterOrEqual(a, b) => two(self, ">=", a, b, false),
            E::Less(a, b) => two(self, "<", a, b, false),
            E::LessOrEqual(a, b) => two(self, "<=", a, b, false),
            E::Add(a, b) => two(self, "+", a, b, false),
            E::Subtract(a, b) => two(self, "-", a, b, false),
            E::Multiply(a, b) => two(self, "*", a, b, false),
            E::Divide(a, b) => two(self, "/", a, b, false),
            E::In(a, list) => {
                let a = self.expression(a);
                let l = list.iter().map(|x| self.expression(x)).collect();
                self.op("in", vec![a, N::Bag("list", l)])
            }
            E::UnaryPlus(a) => {
                let a = self.expression(a);
                self.op("u+", vec![a])
            }
            E::UnaryMinus(a) => {
                let a = self.expression(a);
                self.op("u-", vec![a])
            }
            E::Not(a) => {
                let a = self.expression(a);
                self.op("!", vec![a])
            }
            E::Exists(p) => {
                let p = self.pattern(p);
                self.op("exists", vec![p])
            }
            E::Bound(v) => self.op("bound", vec![N::Var(v.as_str().to_string())]),
            E::If(a, b, c) => {
                let (a, b, c) = (self.expression(a), self.expression(b), self.expression(c));
                self.op("if", vec![a, b, c])
            }
            E::Coalesce(list) => {
                let l = list.iter().map(|x| self.expression(x)).collect();
                self.op("coalesce", l)
            }
            E::FunctionCall(f, args) => {
                let name = self.keyword(&f.to_string());
                let mut children = vec![name];
                children.extend(args.iter().map(|x| self.expression(x)));
                self.op("call", children)
            }
        }
    }

    fn aggregate(&mut self, a: &AggregateExpression) -> N {
        match a {
            AggregateExpression::CountSolutions { distinct } => {
                let d = self.keyword(if *distinct { "distinct" } else { "all" });
                self.op("count*", vec![d])
            }
            AggregateExpression::FunctionCall {
                name,
                expr,
                distinct,
            } => {
                let n = self.keyword(&format!("{name:?}"));
                let d = self.keyword(if *distinct { "distinct" } else { "all" });
                let e = self.expression(expr);
                self.op("aggregate", vec![n, d, e])
            }
        }
    }
}

/// The outermost projection of a SELECT pattern.
fn projection(p: &GraphPattern) -> Option<&[spargebra::term::Variable]> {
    match p {
        GraphPattern::Project { variables, .. } => Some(variables),
        GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::OrderBy { inner, .. } => projection(inner),
        _ => None,
    }
}
