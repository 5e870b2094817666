//! The comparison keys of a term (docs/scoring.md, Sameness): what a term is turned into so that
//! equivalent terms share a key, and the answers of a set ready for matching.

use rustc_hash::FxHashSet;

use super::{MatchOptions, Reason};
use crate::index::Class;
use crate::model::Term;
use crate::terms::canonical::canonical_iri;
use crate::terms::literal::{
    is_numeric_datatype, normalize_string, parse_date, parse_number, xsd_local, year_of,
};

/// A comparison key of a term.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A canonical IRI.
    Iri(String),
    /// A normalised string (NFC, trimmed, whitespace collapsed, case-folded unless strict).
    Str(String),
    /// The value of a literal with a numeric datatype (bits of the f64).
    NumTyped(u64),
    /// The value of a literal without a numeric datatype whose lexical form is a number.
    NumLex(u64),
    /// The normalised value of a date-typed literal.
    DateTyped(String),
    /// The normalised value of an untyped literal whose lexical form is a date.
    DateLex(String),
    /// A boolean answer or boolean literal.
    Bool(bool),
    /// The year of a date (lenient dates only).
    YearOfDate(i64),
    /// The year of a gYear (lenient dates only).
    GYear(i64),
    /// An opaque marking compared exactly (a normalised triple of RE2KB).
    Marking(String),
    /// The owl:sameAs class of an IRI in the index.
    Class(Class),
    /// A member of the run IRI's class under the `gerbil` rules (finds that IRI).
    Member(String, u32),
    /// The exact string of a value.
    Exact(String),
}

/// How a key reads in explanations: an IRI in angle brackets, a string quoted,
/// a number or date as its value (never Rust's debug text).
impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Iri(i) => write!(f, "<{i}>"),
            Key::Str(s) | Key::Exact(s) => write!(f, "{s:?}"),
            Key::NumTyped(bits) | Key::NumLex(bits) => write!(f, "{}", f64::from_bits(*bits)),
            Key::DateTyped(d) | Key::DateLex(d) => f.write_str(d),
            Key::Bool(b) => write!(f, "{b}"),
            Key::YearOfDate(y) | Key::GYear(y) => write!(f, "{y}"),
            Key::Marking(m) => f.write_str(m),
            Key::Class(c) => write!(f, "owl:sameAs class {}", c.id),
            Key::Member(iri, _) => write!(f, "<{iri}>"),
        }
    }
}

impl Key {
    /// The keys this key finds in the other set: itself (unless it only finds its
    /// partner) and the partner of an asymmetric rule.
    fn lookups(&self) -> (Option<&Key>, Option<Key>) {
        match self {
            Key::NumTyped(v) => (Some(self), Some(Key::NumLex(*v))),
            Key::NumLex(v) => (None, Some(Key::NumTyped(*v))),
            Key::DateTyped(d) => (Some(self), Some(Key::DateLex(d.clone()))),
            Key::DateLex(d) => (None, Some(Key::DateTyped(d.clone()))),
            Key::YearOfDate(y) => (None, Some(Key::GYear(*y))),
            Key::GYear(y) => (Some(self), Some(Key::YearOfDate(*y))),
            Key::Member(iri, _) => (Some(self), Some(Key::Iri(iri.clone()))),
            _ => (Some(self), None),
        }
    }

    /// Calls `f` with every key this key finds in the other set.
    pub(super) fn each_lookup(&self, mut f: impl FnMut(&Key) -> bool) -> bool {
        let (own, partner) = self.lookups();
        own.is_some_and(&mut f) || partner.as_ref().is_some_and(f)
    }

    /// Why two terms linked by this key are the same, for explanations.
    pub fn reason(&self) -> Reason {
        match self {
            Key::Iri(_) => Reason::Iri,
            Key::Str(_) => Reason::String,
            Key::NumTyped(_) | Key::NumLex(_) => Reason::Number,
            Key::DateTyped(_) | Key::DateLex(_) => Reason::Date,
            Key::Bool(_) => Reason::Boolean,
            Key::YearOfDate(_) | Key::GYear(_) => Reason::Year,
            Key::Marking(_) => Reason::Marking,
            Key::Class(c) => Reason::SameAs { class_size: c.size },
            Key::Member(_, size) => Reason::SameAs { class_size: *size },
            Key::Exact(_) => Reason::Exact,
        }
    }
}

/// The keys of one term under the given options.
pub fn term_keys(term: &Term, opts: MatchOptions, out: &mut Vec<Key>) {
    match term {
        Term::Iri(iri) => out.push(Key::Iri(canonical_iri(iri))),
        Term::Boolean(b) => out.push(Key::Bool(*b)),
        Term::Literal {
            lexical, datatype, ..
        } => {
            let dt = datatype.as_deref().unwrap_or("");
            out.push(Key::Str(normalize_string(lexical, opts.strict_literals)));
            let trimmed = lexical.trim();
            if xsd_local(dt) == Some("boolean")
                || trimmed.eq_ignore_ascii_case("true")
                || trimmed.eq_ignore_ascii_case("false")
            {
                match trimmed.to_ascii_lowercase().as_str() {
                    "true" | "1" => out.push(Key::Bool(true)),
                    "false" | "0" => out.push(Key::Bool(false)),
                    _ => {}
                }
            }
            if opts.strict_literals {
                return;
            }
            if let Some(v) = parse_number(lexical) {
                let bits = v.to_bits();
                out.push(if is_numeric_datatype(dt) {
                    Key::NumTyped(bits)
                } else {
                    Key::NumLex(bits)
                });
            }
            let local = xsd_local(dt);
            if let Some(d) = parse_date(lexical) {
                if matches!(local, Some("date" | "dateTime" | "dateTimeStamp")) {
                    out.push(Key::DateTyped(d));
                } else {
                    out.push(Key::DateLex(d));
                }
                if opts.lenient_dates {
                    if let Some(y) = year_of(lexical) {
                        out.push(Key::YearOfDate(y));
                    }
                }
            } else if opts.lenient_dates && local == Some("gYear") {
                if let Some(y) = year_of(lexical) {
                    out.push(Key::GYear(y));
                }
            }
        }
    }
}

/// One key that stands for a term inside a composite marking (a triple): the
/// canonical IRI, or the literal's value under the literal rules (a number, a date,
/// a boolean, else its normalised string).
pub fn term_marking(term: &Term, opts: MatchOptions) -> String {
    let mut keys = Vec::new();
    term_keys(term, opts, &mut keys);
    let pick = keys
        .iter()
        .find(|k| matches!(k, Key::NumTyped(_) | Key::NumLex(_)))
        .or_else(|| {
            keys.iter()
                .find(|k| matches!(k, Key::DateTyped(_) | Key::DateLex(_)))
        })
        .or_else(|| keys.iter().find(|k| matches!(k, Key::Bool(_))))
        .or_else(|| keys.first());
    match pick {
        Some(Key::Iri(i)) => format!("<{i}>"),
        Some(Key::NumTyped(v) | Key::NumLex(v)) => format!("{}", f64::from_bits(*v)),
        Some(Key::DateTyped(d) | Key::DateLex(d)) => format!("date:{d}"),
        Some(Key::Bool(b)) => format!("{b}"),
        Some(Key::Str(s)) => format!("{s:?}"),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

/// Prepares opaque markings (compared exactly, duplicates once unless `keep_duplicates`).
pub fn prepare_markings(markings: &[String], keep_duplicates: bool) -> Vec<Prepared> {
    let mut seen = FxHashSet::default();
    markings
        .iter()
        .enumerate()
        .filter(|(_, m)| keep_duplicates || seen.insert(m.as_str()))
        .map(|(index, m)| Prepared::new(index, vec![Key::Marking(m.clone())]))
        .collect()
}

/// One answer ready for matching: where it was in the set and its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Index of the answer in its original set.
    pub index: usize,
    /// The keys of all its terms.
    pub keys: Vec<Key>,
    /// Keys reached through a label (the IRIs carrying a string answer's text): they
    /// find IRIs of the other side, never another label's keys.
    pub via_label: Vec<Key>,
    /// How many answers it counts as (more than one only under GERBIL's
    /// one-answer-per-label-candidate rule).
    pub weight: usize,
}

impl Prepared {
    /// An answer with direct keys only, counting once.
    pub fn new(index: usize, keys: Vec<Key>) -> Prepared {
        Prepared {
            index,
            keys,
            via_label: Vec::new(),
            weight: 1,
        }
    }
}
