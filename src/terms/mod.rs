//! The vocabulary of terms every other module compares: canonical IRIs
//! (docs/scoring.md, Sameness), literal values (numbers, dates, normalised strings) and the
//! prefixes public endpoints predefine. Pure functions over strings.

pub mod canonical;
pub mod literal;
pub mod prefixes;
