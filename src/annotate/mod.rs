//! The annotator: turns a SPARQL query or a file's explicit annotations into the
//! markings that the sub-experiments score (SCORING 5) and the question features
//! that breakdowns split by (SCORING 6).

pub mod dialect;
pub mod prefixes;
pub mod walk;
