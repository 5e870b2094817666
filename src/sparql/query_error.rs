//! Why a query of the server's read-only SPARQL store got no answer
//! ([`QueryError`], each a status of the SPARQL protocol): shared by the store
//! that runs the query (`graph.rs`) and the stream that writes its results
//! (`stream.rs`), importing neither, so the arrows between the sparql module's
//! files point one way.

use super::limits::Stop;

/// Why a query got no answer, each a status of the SPARQL protocol.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum QueryError {
    /// Not a SPARQL query (400).
    #[error("the query does not parse: {0}")]
    Syntax(String),
    /// Past the size or nesting qajudge reads (400).
    #[error("{0}")]
    TooLarge(String),
    /// An update (refused: the endpoint is read-only).
    #[error("this endpoint is read-only: updates are refused; send a SELECT, ASK, CONSTRUCT or DESCRIBE query")]
    Update,
    /// Past the time limit (cancelled).
    #[error("the query was stopped after {0} ms; narrow it or add a LIMIT")]
    Timeout(u128),
    /// Past the row cap, the byte cap or the memory cap (413).
    #[error(transparent)]
    ResultTooLarge(Stop),
    /// Every query slot of the server is taken (503, with `Retry-After`).
    #[error("the server is running its {slots} queries at once; try again in {retry_after} s")]
    Busy {
        /// The slots.
        slots: usize,
        /// Seconds after which a slot is likely free (the query timeout).
        retry_after: u64,
    },
    /// The client went away while the results were written.
    #[error("the client went away before the results were written")]
    Closed,
    /// No format the client accepts fits the query's results (406).
    #[error("no result format of {0:?} fits this query; accept application/sparql-results+json, application/sparql-results+xml, text/csv or text/tab-separated-values for SELECT and ASK, text/turtle, application/n-triples, application/ld+json or application/rdf+xml for CONSTRUCT and DESCRIBE")]
    NotAcceptable(String),
    /// Evaluation failed.
    #[error("the query failed: {0}")]
    Failed(String),
    /// A `SERVICE` clause: this endpoint calls no other endpoint (400).
    #[error("SERVICE {0}: this endpoint answers from its own graph and calls no other endpoint; remove the SERVICE clause")]
    ServiceNotAllowed(String),
}

impl From<Stop> for QueryError {
    /// A stopped query's error: a timeout, or a result too large.
    fn from(stop: Stop) -> QueryError {
        match stop {
            Stop::Timeout { ms } => QueryError::Timeout(ms),
            other => QueryError::ResultTooLarge(other),
        }
    }
}
