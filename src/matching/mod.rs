//! When two answers are the same (docs/scoring.md, Sameness) and how many of them match: the
//! literal rules (numbers, dates, booleans, strings), canonical IRIs, the sameAs
//! closure and the label rules across kinds when an index is given (through the
//! [`Equivalence`](crate::index::Equivalence) trait), the rules each profile switches (exact strings, the run's
//! closure only, one answer per label candidate), duplicate removal, and a maximum
//! one-to-one matching between gold and run answers.
//!
//! Every term is turned into a few *keys*; two terms are equivalent when a key of
//! one is among the *lookups* of the other. Lookups are the key itself, plus the
//! partner of an asymmetric rule: a typed number finds a plain lexical form that
//! parses as a number, but two plain lexical forms only compare as strings.

mod assign;
mod key;
mod resolver;

use serde::Serialize;

pub use assign::{
    match_answers, match_answers_within, Matching, Pair, TooManyLinks, MAX_MATCH_LINKS,
};
pub use key::{prepare_markings, term_keys, term_marking, Key, Prepared};
pub use resolver::{prepare, Resolver};

/// How IRIs are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IriRule {
    /// Canonical form (docs/scoring.md, Sameness) and the index's closure, for gold and run alike.
    #[default]
    Equivalent,
    /// GERBIL's rules: its few canonical rules, and the closure of the run's IRIs
    /// only (gold IRIs are not expanded).
    RunClosure,
    /// The exact string of the value (an IRI equals a literal with the same text).
    Exact,
}

/// How literals are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LiteralRule {
    /// The typed rules of docs/scoring.md (Sameness) (numbers, dates, booleans, normalised strings).
    #[default]
    Typed,
    /// The exact, case-sensitive string of the value.
    Exact,
}

/// How a string answer is compared with IRIs (needs an index).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LabelRule {
    /// One answer that matches an IRI when one of the IRIs carrying its label is
    /// equivalent to it (and an IRI matches a string that is one of its labels).
    #[default]
    OneAnswer,
    /// GERBIL: a run string against gold IRIs becomes one answer per IRI carrying
    /// its label (at most one of them can be a true positive).
    EachCandidate,
    /// No label rule.
    Off,
}

/// Which side of a comparison a set is on (some profiles treat them differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The gold answers.
    Gold,
    /// The system's answers.
    Run,
}

/// The rules used to compare terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchOptions {
    /// Turn off case folding and the number and date rules (`--strict-literals`).
    pub strict_literals: bool,
    /// A gYear equals a date of that year (`--lenient-dates`).
    pub lenient_dates: bool,
    /// How IRIs are compared.
    pub iri: IriRule,
    /// How literals are compared.
    pub literal: LiteralRule,
    /// How strings and IRIs are compared across kinds.
    pub label: LabelRule,
}

/// The most IRIs one label may stand for before the rest are ignored.
pub const MAX_LABEL_CANDIDATES: usize = 1000;

/// Why two answers are the same, for explanations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Reason {
    /// Equal IRIs in canonical form (docs/scoring.md, Sameness).
    Iri,
    /// IRIs in one owl:sameAs class of the index.
    SameAs {
        /// The number of IRIs in the class.
        class_size: u32,
    },
    /// A string and an IRI that carries it as a label.
    Label,
    /// Normalised strings.
    String,
    /// Numbers by value.
    Number,
    /// Dates by value.
    Date,
    /// Booleans.
    Boolean,
    /// A year and a date of that year (`--lenient-dates`).
    Year,
    /// Equal markings (RE2KB triples).
    Marking,
    /// Exactly the same value string.
    Exact,
}

impl Reason {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Iri => "iri",
            Reason::SameAs { .. } => "sameas",
            Reason::Label => "label",
            Reason::String => "string",
            Reason::Number => "number",
            Reason::Date => "date",
            Reason::Boolean => "boolean",
            Reason::Year => "year",
            Reason::Marking => "marking",
            Reason::Exact => "exact",
        }
    }
}

#[cfg(test)]
mod tests;
