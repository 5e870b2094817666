//! A query's normal form, for deciding whether two queries are the same query
//! (docs/scoring.md, Query measures). The algebra is rewritten into a tree of
//! its own where what cannot change the answer is forgotten: prefixes are
//! expanded by the parser, joins are flattened and the triple patterns of a
//! basic graph pattern (a set: a pattern written twice is one; and the operands of `&&`, `||`, `=`, `sameTerm`) form
//! an unordered bag, a DISTINCT is dropped where the solutions are distinct
//! anyway (under ASK, or over a projection that keeps every GROUP BY key), and
//! variables (and blank nodes of patterns) are renamed canonically: their
//! colours are refined from the patterns they occur in (as Weisfeiler–Leman
//! refinement does), bags are sorted by those colours, and names are given by
//! first occurrence. Two queries with the same normal form give the same
//! answers on every graph.
//!
//! The text goes through the bounds of [`super::check_bounds`] (size, bracket
//! nesting, algebra depth) before the recursive parser, and the tree is built
//! and written on a stack deep enough for it; a tree of more than
//! [`MAX_NODES`] nodes is not normalised.

use std::collections::BTreeSet;

use super::bounds::Origin;
use super::parse::{on_enough_stack, parse_lenient, Fail};
use super::SparqlError;
use build::Builder;
use canonical::canonical_text;
use simplify::resolve_aliases;

mod build;
mod canonical;
mod simplify;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) use tests::rewritten;

/// The most nodes of a normal form's tree; a larger query is not normalised
/// (its comparison is `unknown`).
pub const MAX_NODES: usize = 20_000;

/// `rdf:type` and `wdt:P31`, whose objects are classes, not entities.
pub(super) const TYPE_PREDICATES: [&str; 2] = [
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
    "http://www.wikidata.org/prop/direct/P31",
];

/// A query's normal form and what the comparison of two forms reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalForm {
    /// The normal form written as text (variables named `?v0`, `?v1` … by
    /// first occurrence).
    pub text: String,
    /// The query form: `select`, `ask`, `construct` or `describe`.
    pub form: &'static str,
    /// The number of projected variables (`SELECT *`: the in-scope ones; 0
    /// for other forms).
    pub columns: usize,
    /// The IRIs and literals the query mentions, deduplicated and sorted.
    pub constants: BTreeSet<String>,
    /// IRIs in subject or object position of its patterns (not classes, the
    /// objects of `rdf:type` / `wdt:P31`), deduplicated and sorted: the
    /// entities an index can tell.
    pub entities: BTreeSet<String>,
    /// True when the text is standard SPARQL 1.1 as written (no predefined
    /// prefix or store dialect relied on).
    pub standard: bool,
}

/// Whether two queries are the same query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Their normal forms are equal: same answers on every graph.
    Equivalent,
    /// Their normal forms differ in the query form, the number of columns or
    /// the IRIs and literals they mention.
    Different,
    /// The normal form cannot decide (a query does not read, is past a bound,
    /// or the forms differ in structure only).
    Unknown,
}

impl Verdict {
    /// The verdict's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Different => "different",
            Verdict::Unknown => "unknown",
        }
    }
}

/// Compares two normal forms (docs/scoring.md, Query measures).
pub fn compare(a: &NormalForm, b: &NormalForm) -> Verdict {
    if a.text == b.text {
        Verdict::Equivalent
    } else if a.form != b.form || a.columns != b.columns || a.constants != b.constants {
        Verdict::Different
    } else {
        Verdict::Unknown
    }
}

/// Reads a query (with the endpoints' predefined prefixes and Virtuoso's
/// dialect, as [`super::walk()`] does) and gives its normal form.
pub fn normal_form(query: &str) -> Result<NormalForm, SparqlError> {
    on_enough_stack(query, Origin::User, |room| {
        let (parsed, notes) = parse_lenient(query, room)?;
        let mut b = Builder::default();
        let (form, tree) = b.query(&parsed);
        if b.nodes > MAX_NODES {
            return Err(Fail::Query(SparqlError::TooLarge {
                found: format!("more than {MAX_NODES} nodes in its normal form"),
            }));
        }
        let columns = match &tree {
            N::Op(_, c) if form == "select" => columns(c.first()),
            _ => 0,
        };
        let tree = resolve_aliases(tree);
        Ok(NormalForm {
            text: canonical_text(&tree),
            form,
            columns,
            constants: b.constants,
            entities: b.entities,
            standard: notes.is_empty(),
        })
    })
}

fn columns(head: Option<&N>) -> usize {
    match head {
        Some(N::Op("columns", vars)) => vars.len(),
        _ => 0,
    }
}

/// The tree of a normal form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum N {
    /// An IRI, a literal or a keyword, as written by the parser.
    Leaf(String),
    /// A variable (or a blank node of a pattern).
    Var(String),
    /// An operator whose operands are ordered.
    Op(&'static str, Vec<N>),
    /// An operator whose operands are not.
    Bag(&'static str, Vec<N>),
}
