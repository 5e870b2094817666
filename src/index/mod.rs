//! The read side of the knowledge-graph index. For now it owns the canonical IRI
//! rules of SCORING 2a, which need no index on disk; the sameAs closure, labels and
//! types arrive with the indexer.

pub mod canonical;
