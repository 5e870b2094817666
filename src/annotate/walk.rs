//! The one place that names spargebra types: parses a query (with the endpoints'
//! predefined prefixes) and walks its whole algebra — every graph pattern,
//! OPTIONAL, UNION, MINUS, GRAPH, SERVICE, sub-queries, VALUES, and patterns
//! inside FILTER EXISTS / NOT EXISTS — into a [`Walked`] summary that the rest of
//! the annotator uses without knowing spargebra.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use spargebra::algebra::{
    AggregateExpression, AggregateFunction, Expression, Function, GraphPattern, OrderExpression,
    PropertyPathExpression,
};
use spargebra::term::{GroundTerm, NamedNodePattern, TermPattern, TriplePattern};
use spargebra::{Query, SparqlParser};

use super::bounds::{self, Origin};
use super::depth;
use super::dialect::{has_keyword, rewrite, undeclared_prefixes};
use crate::model::Term;
use crate::terms::prefixes::PREDEFINED;

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const WDT_P31: &str = "http://www.wikidata.org/prop/direct/P31";

/// One position of a triple pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// An IRI.
    Iri(String),
    /// A literal.
    Literal(Term),
    /// A variable or blank node (names do not matter for scoring).
    Var(String),
    /// A property path other than a plain IRI, a sequence or an inverse, written
    /// in SPARQL syntax.
    Path(String),
}

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
    /// The markings as the GERBIL QA code derives them (the `gerbil` profile).
    pub gerbil: GerbilWalk,
}

/// Markings derived the way GERBIL QA derives them: triple patterns of the basic
/// graph patterns reached through groups, OPTIONAL, UNION, MINUS and GRAPH, in order
/// and with duplicates; `rdf:type` counts as a property and its class as a resource;
/// FILTER expressions, sub-queries and VALUES are not walked; a property path or a
/// variable predicate stops the walk (what was collected before it is kept).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GerbilWalk {
    /// IRIs in subject or object position.
    pub resources: Vec<String>,
    /// IRIs in predicate position, `rdf:type` included.
    pub properties: Vec<String>,
    /// The triple patterns, as written.
    pub triples: Vec<(Node, Node, Node)>,
    /// Why the walk stopped early, if it did.
    pub stopped: Option<&'static str>,
}

impl GerbilWalk {
    fn node(t: &TermPattern, resources: &mut Vec<String>) -> Node {
        match t {
            TermPattern::NamedNode(n) => {
                resources.push(n.as_str().to_string());
                Node::Iri(n.as_str().to_string())
            }
            TermPattern::Literal(l) => Node::Literal(literal(l)),
            TermPattern::BlankNode(b) => Node::Var(format!("_:{}", b.as_str())),
            TermPattern::Variable(v) => Node::Var(v.as_str().to_string()),
        }
    }

    /// Walks a pattern; `top` is true until the outermost projection is passed.
    fn walk(&mut self, p: &GraphPattern, top: bool) {
        if self.stopped.is_some() {
            return;
        }
        match p {
            GraphPattern::Bgp { patterns } => {
                for t in patterns {
                    let NamedNodePattern::NamedNode(pred) = &t.predicate else {
                        self.stopped = Some("a variable predicate");
                        return;
                    };
                    let s = Self::node(&t.subject, &mut self.resources);
                    let o = Self::node(&t.object, &mut self.resources);
                    self.properties.push(pred.as_str().to_string());
                    self.triples
                        .push((s, Node::Iri(pred.as_str().to_string()), o));
                }
            }
            GraphPattern::Path { .. } => self.stopped = Some("a property path"),
            GraphPattern::Join { left, right }
            | GraphPattern::Lateral { left, right }
            | GraphPattern::LeftJoin { left, right, .. }
            | GraphPattern::Union { left, right }
            | GraphPattern::Minus { left, right } => {
                self.walk(left, false);
                self.walk(right, false);
            }
            GraphPattern::Filter { inner, .. }
            | GraphPattern::Graph { inner, .. }
            | GraphPattern::Service { inner, .. }
            | GraphPattern::Extend { inner, .. }
            | GraphPattern::OrderBy { inner, .. }
            | GraphPattern::Distinct { inner }
            | GraphPattern::Reduced { inner }
            | GraphPattern::Slice { inner, .. }
            | GraphPattern::Group { inner, .. } => self.walk(inner, top),
            GraphPattern::Project { inner, .. } => {
                if top {
                    self.walk(inner, false);
                }
            }
            GraphPattern::Values { .. } => {}
        }
    }
}

/// A query that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparqlError {
    /// The text does not parse.
    #[error("sparql syntax error: {message}")]
    Syntax {
        /// The parser's message, with its line and column in the query.
        message: String,
    },
    /// The text or its algebra is past a bound qajudge reads (size, bracket
    /// nesting, depth of operators and groups); nothing recursive has seen it.
    #[error("the query is too large to read: {found}; write it with fewer nested brackets, and long chains of || or UNION as VALUES or IN (see Limits in docs/scoring.md)")]
    TooLarge {
        /// What was found and the bound, e.g. `102 levels of brackets, at most 64`.
        found: String,
    },
    /// The thread that reads a large query could not run.
    #[error("{message}")]
    Thread {
        /// Why.
        message: String,
    },
}

impl SparqlError {
    /// True when the query was refused for its size or depth, not its syntax.
    pub fn is_too_large(&self) -> bool {
        matches!(self, SparqlError::TooLarge { .. })
    }
}

/// A parser with the predefined prefixes, built once (their IRIs are checked when
/// added, which costs more than parsing a short query).
fn parser() -> Result<SparqlParser, SparqlError> {
    static PARSER: OnceLock<Result<SparqlParser, SparqlError>> = OnceLock::new();
    PARSER
        .get_or_init(|| {
            let mut parser = SparqlParser::new();
            for (prefix, ns) in PREDEFINED {
                parser = parser
                    .with_prefix(*prefix, *ns)
                    .map_err(|e| SparqlError::Syntax {
                        message: format!("predefined prefix {prefix}: {e}"),
                    })?;
            }
            Ok(parser)
        })
        .clone()
}

/// Where a read runs: on the caller's thread, which has room for shallow
/// queries only (see [`bounds::SMALL_NESTING`], [`bounds::SMALL_DEPTH`]), or
/// on a thread of [`crate::stack::DEEP_STACK_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Room {
    Small,
    Deep,
}

/// Why a read stopped: the query cannot be read, or it needs a deep stack.
enum Fail {
    Query(SparqlError),
    NeedsDeepStack,
}

impl From<SparqlError> for Fail {
    fn from(e: SparqlError) -> Fail {
        Fail::Query(e)
    }
}

fn parse(query: &str, room: Room) -> Result<Query, Fail> {
    parse_with(parser()?, query, Origin::User, room)
}

/// Parses `query` within the bounds qajudge reads: its size and bracket
/// nesting are checked before the (recursive) parser sees it, and the depth of
/// its algebra after; an algebra too deep is taken apart without recursion. In
/// a small room, a text or an algebra deeper than the room holds stops the read
/// so that it starts again on a deep stack.
fn parse_with(
    parser: SparqlParser,
    query: &str,
    origin: Origin,
    room: Room,
) -> Result<Query, Fail> {
    let shape = bounds::check(query, origin)?;
    if room == Room::Small && !shape.is_small() {
        return Err(Fail::NeedsDeepStack);
    }
    let parsed = parser.parse_query(query).map_err(|e| SparqlError::Syntax {
        message: readable(&e.to_string().replace('\n', " ")),
    })?;
    let depth = depth::depth(&parsed, bounds::MAX_DEPTH);
    if depth > bounds::MAX_DEPTH {
        depth::dismantle(parsed);
        return Err(Fail::Query(SparqlError::TooLarge {
            found: format!(
                "more than {} levels of operators and groups",
                bounds::MAX_DEPTH
            ),
        }));
    }
    if room == Room::Small && depth > bounds::SMALL_DEPTH {
        depth::dismantle(parsed);
        return Err(Fail::NeedsDeepStack);
    }
    Ok(parsed)
}

/// Checks that `query`, a user's text, is within the bounds qajudge reads
/// (size, bracket nesting, depth of its algebra) before a store parses and
/// evaluates it. Syntax errors are left to the caller's parser.
pub fn check_bounds(query: &str) -> Result<(), SparqlError> {
    check_bounds_of(query, Origin::User)
}

/// [`check_bounds`] for the text of an [`Executable`]: when it was written
/// back from the algebra, its brackets nest as deep as the algebra (at most
/// [`bounds::MAX_WRITTEN_NESTING`]).
pub fn check_executable_bounds(text: &str) -> Result<(), SparqlError> {
    check_bounds_of(text, Origin::WrittenBack)
}

fn check_bounds_of(query: &str, origin: Origin) -> Result<(), SparqlError> {
    on_enough_stack(query, origin, |room| {
        match parse_with(SparqlParser::new(), query, origin, room) {
            Ok(_) | Err(Fail::Query(SparqlError::Syntax { .. })) => Ok(()),
            Err(e) => Err(e),
        }
    })
}

/// Checks the bounds of `query` and parses it on the caller's thread, whatever
/// its size: what the fuzz target's depth invariant runs on a stack sized from
/// [`bounds::nesting`] (a text the scan rates too shallow overflows it).
/// Everything else reads queries through [`walk`], [`executable`] or
/// [`check_bounds`], which pick the stack.
pub fn parse_on_this_thread(query: &str) -> Result<(), SparqlError> {
    match parse_with(SparqlParser::new(), query, Origin::User, Room::Deep) {
        Ok(_) => Ok(()),
        Err(Fail::Query(e)) => Err(e),
        Err(Fail::NeedsDeepStack) => Err(SparqlError::Thread {
            message: "a deep stack was asked for on this thread".into(),
        }),
    }
}

/// Runs `f`, which reads `query`, on the caller's thread when the text is
/// shallow, and again on a thread with a deep stack when it is not or when
/// `f` finds its algebra too deep for the caller's thread.
fn on_enough_stack<T: Send>(
    query: &str,
    origin: Origin,
    f: impl Fn(Room) -> Result<T, Fail> + Sync,
) -> Result<T, SparqlError> {
    if bounds::check(query, origin)?.is_small() {
        match f(Room::Small) {
            Ok(t) => return Ok(t),
            Err(Fail::Query(e)) => return Err(e),
            Err(Fail::NeedsDeepStack) => {}
        }
    }
    let thread = |e: String| SparqlError::Thread { message: e };
    match crate::stack::deep(|| f(Room::Deep)) {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(Fail::Query(e))) => Err(e),
        Ok(Err(Fail::NeedsDeepStack)) => Err(thread(
            "a deep stack was asked for on the deep stack (a bug in qajudge)".into(),
        )),
        Err(e) => Err(thread(e.to_string())),
    }
}

/// The parser's message with its list of expected tokens kept to the quoted
/// tokens: the character classes it also lists (`['A' ..= 'Z' | …]`, dozens of
/// Unicode ranges) become "or a name".
fn readable(message: &str) -> String {
    const EXPECTED: &str = "expected one of ";
    let Some(at) = message.find(EXPECTED) else {
        return message.to_string();
    };
    let (head, list) = message.split_at(at + EXPECTED.len());
    if !list.contains('[') {
        return message.to_string();
    }
    // the quoted tokens before the first character class
    let quoted: Vec<&str> = list
        .split(", ")
        .take_while(|item| item.starts_with('"'))
        .collect();
    if quoted.is_empty() {
        format!("{}expected a name", &head[..at])
    } else {
        format!("{head}{} or a name", quoted.join(", "))
    }
}

/// Parses a query (with the endpoints' predefined prefixes, and Virtuoso's dialect
/// rewritten when the query is not standard SPARQL) and walks it.
pub fn walk(query: &str) -> Result<Walked, SparqlError> {
    on_enough_stack(query, Origin::User, |room| {
        let (parsed, notes) = parse_lenient(query, room)?;
        Ok(walk_parsed(&parsed, query, notes))
    })
}

/// A query made ready for a standard SPARQL 1.1 store (SCORING 10).
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
    /// True when its outermost solution modifier has ORDER BY.
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
        ordered: walked.modifiers.contains("ORDER BY"),
    })
}

/// Parses with the predefined prefixes, and with Virtuoso's dialect rewritten
/// when that is what it takes; the notes say what was relied on.
fn parse_lenient(query: &str, room: Room) -> Result<(Query, Vec<String>), Fail> {
    let mut notes = Vec::new();
    let parsed = match parse(query, room) {
        Ok(q) => q,
        Err(Fail::NeedsDeepStack) => return Err(Fail::NeedsDeepStack),
        Err(first) => match rewrite(query, PREDEFINED) {
            Some(r) => match parse(&r.query, room) {
                Ok(q) => {
                    notes.extend(
                        r.changes
                            .into_iter()
                            .map(|c| format!("virtuoso syntax: {c}")),
                    );
                    q
                }
                Err(Fail::NeedsDeepStack) => return Err(Fail::NeedsDeepStack),
                Err(Fail::Query(_)) => return Err(first),
            },
            None => return Err(first),
        },
    };
    let undeclared = undeclared_prefixes(query, PREDEFINED);
    if !undeclared.is_empty() {
        notes.push(format!(
            "undeclared prefixes read as the endpoints predefine them: {}",
            undeclared.join(", ")
        ));
    }
    Ok((parsed, notes))
}

/// Walks a parsed query; `query` is its text (for what the algebra forgets).
fn walk_parsed(parsed: &Query, query: &str, notes: Vec<String>) -> Walked {
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
    if form == Form::Select {
        w.out.projected = projected(pattern);
        w.out.counts = counts(pattern, &w.out.projected);
    }
    w.pattern(pattern);
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

    fn pattern(&mut self, p: &GraphPattern) {
        match p {
            GraphPattern::Bgp { patterns } => {
                for t in patterns {
                    self.triple(t);
                }
            }
            GraphPattern::Path {
                subject,
                path,
                object,
            } => {
                self.out.triple_patterns += 1;
                let s = self.term(subject);
                let o = self.term(object);
                self.path(s, path, o);
            }
            GraphPattern::Join { left, right } | GraphPattern::Lateral { left, right } => {
                self.pattern(left);
                self.pattern(right);
            }
            GraphPattern::LeftJoin {
                left,
                right,
                expression,
            } => {
                self.out.modifiers.insert("OPTIONAL");
                self.pattern(left);
                self.pattern(right);
                if let Some(e) = expression {
                    self.out.modifiers.insert("FILTER");
                    self.expression(e);
                }
            }
            GraphPattern::Filter { expr, inner } => {
                self.out.modifiers.insert(if is_grouped(inner) {
                    "HAVING"
                } else {
                    "FILTER"
                });
                self.pattern(inner);
                self.expression(expr);
            }
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
            GraphPattern::Values { bindings, .. } => {
                self.out.modifiers.insert("VALUES");
                for row in bindings {
                    for t in row.iter().flatten() {
                        if let GroundTerm::NamedNode(n) = t {
                            self.out.resources.push(n.as_str().to_string());
                        }
                    }
                }
            }
            GraphPattern::OrderBy { inner, expression } => {
                self.out.modifiers.insert("ORDER BY");
                for e in expression {
                    match e {
                        OrderExpression::Asc(x) | OrderExpression::Desc(x) => self.expression(x),
                    }
                }
                self.pattern(inner);
            }
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
            } => {
                if length.is_some() {
                    self.out.modifiers.insert("LIMIT");
                }
                if *start > 0 {
                    self.out.modifiers.insert("OFFSET");
                }
                self.pattern(inner);
            }
            GraphPattern::Group {
                inner,
                variables,
                aggregates,
            } => {
                if !variables.is_empty() {
                    self.out.modifiers.insert("GROUP BY");
                }
                for (_, a) in aggregates {
                    self.aggregate(a);
                }
                self.pattern(inner);
            }
        }
    }
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
            for v in variables.drain(..) {
                if !kept.contains(&v) {
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

fn literal(l: &spargebra::term::Literal) -> Term {
    let datatype = l.datatype().as_str();
    Term::Literal {
        lexical: l.value().to_string(),
        datatype: (l.language().is_none() && datatype != "http://www.w3.org/2001/XMLSchema#string")
            .then(|| datatype.to_string()),
        lang: l.language().map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_list_tokens_not_character_classes() {
        let err = walk("SELECT ?s WHERE { ?s ?p ?o ").unwrap_err().to_string();
        assert!(err.starts_with("sparql syntax error: error at 1:"), "{err}");
        assert!(
            err.contains(r#""}""#) && err.ends_with("or a name"),
            "{err}"
        );
        assert!(!err.contains("u{"), "{err}");
        assert!(err.len() < 200, "{err}");
        let plain = r#"error at 1:2: expected "}""#;
        assert_eq!(readable(plain), plain);
        assert_eq!(
            readable("error at 1:2: expected one of ['a' ..= 'z'], ['_']"),
            "error at 1:2: expected a name"
        );
    }

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
