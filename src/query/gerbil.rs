//! GERBIL QA's walk over a query's algebra, for the `gerbil` profile's
//! markings: what it reaches, in which order, and where it stops, as GERBIL's
//! code does (see [`GerbilWalk`]). It runs in the same pass as the judge's walk
//! (`walk.rs`), over the same parsed query.

use spargebra::algebra::GraphPattern;
use spargebra::term::{NamedNodePattern, TermPattern};

use super::node::{literal, Node};

/// What GERBIL QA's walk collects, from which the annotator makes the `gerbil`
/// profile's markings: triple patterns of the basic graph patterns reached
/// through groups, OPTIONAL, UNION, MINUS and GRAPH, in order and with
/// duplicates; `rdf:type` counts as a property and its class as a resource;
/// FILTER expressions, sub-queries and VALUES are not walked; a property path or
/// a variable predicate stops the walk (what was collected before it is kept).
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
    pub(super) fn walk(&mut self, p: &GraphPattern, top: bool) {
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
