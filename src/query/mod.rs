//! SPARQL text → algebra, the one module that names spargebra. It reads a
//! query the way the endpoints of the field accept it (their predefined
//! prefixes, Virtuoso's dialect rewritten: `dialect`), within the bounds
//! qajudge reads (size and bracket nesting before parsing: `bounds`; the
//! algebra's depth after: `depth`), on a stack deep enough for it (`parse`),
//! and gives what the rest of the crate needs without spargebra's types: the
//! walk of the whole algebra (`walk`, with GERBIL's walk in `gerbil`), the text
//! a standard SPARQL 1.1 store executes (`executable`), the algebra rewritten
//! with the store guard's counting functions (`ticks`), and the predicates a
//! query can read (`predicates`), and a query's normal form for deciding
//! whether two queries are the same query (`normal`).
//!
//! Entry points: [`walk()`], [`executable()`], [`orders`], [`check_bounds`],
//! [`check_executable_bounds`], [`parse_on_this_thread`], [`read_predicates`]
//! and [`ticks::with_ticks`]; every read that fails is a [`SparqlError`].

pub mod bounds;
mod depth;
pub mod dialect;
mod executable;
mod gerbil;
mod node;
pub mod normal;
mod parse;
mod predicates;
pub mod ticks;
mod walk;

pub use executable::{executable, orders, Executable};
pub use gerbil::GerbilWalk;
pub use node::Node;
pub use parse::{check_bounds, check_executable_bounds, parse_on_this_thread};
pub use predicates::read_predicates;
pub use walk::{walk, Form, Walked};

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
    #[error("the query is too large to read: {found}; write it with fewer nested brackets and variables, and long chains of || or UNION as VALUES or IN (see Limits in docs/scoring.md)")]
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
