//! One position of a walked triple pattern ([`Node`]) and an algebra literal as
//! a crate [`Term`]: the vocabulary both walks over a query's algebra share,
//! the judge's (`walk.rs`) and GERBIL's (`gerbil.rs`). It imports neither, so
//! the arrows between the query module's files point one way.

use crate::model::Term;

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

/// A literal of the algebra as a [`Term`] (`xsd:string` as no datatype).
pub(super) fn literal(l: &spargebra::term::Literal) -> Term {
    let datatype = l.datatype().as_str();
    Term::Literal {
        lexical: l.value().to_string(),
        datatype: (l.language().is_none() && datatype != "http://www.w3.org/2001/XMLSchema#string")
            .then(|| datatype.to_string()),
        lang: l.language().map(str::to_string),
    }
}
