//! When two answers are the same (SCORING 2) and how many of them match: the
//! literal rules (numbers, dates, booleans, strings), canonical IRIs, the sameAs
//! closure and the label rules across kinds when an index is given (through the
//! [`Equivalence`] trait), the rules each profile switches (exact strings, the run's
//! closure only, one answer per label candidate), duplicate removal, and a maximum
//! one-to-one matching between gold and run answers.
//!
//! Every term is turned into a few *keys*; two terms are equivalent when a key of
//! one is among the *lookups* of the other. Lookups are the key itself, plus the
//! partner of an asymmetric rule: a typed number finds a plain lexical form that
//! parses as a number, but two plain lexical forms only compare as strings.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

use crate::index::canonical::{canonical_iri, gerbil_iri};
use crate::index::{Class, Equivalence};
use crate::model::{Answer, Term};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// How IRIs are compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IriRule {
    /// Canonical form (SCORING 2a) and the index's closure, for gold and run alike.
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
    /// The typed rules of SCORING 2 (numbers, dates, booleans, normalised strings).
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
    /// Equal IRIs in canonical form (SCORING 2a).
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
    fn each_lookup(&self, mut f: impl FnMut(&Key) -> bool) -> bool {
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

/// The local name of an XSD datatype, or `None` for another vocabulary.
fn xsd_local(datatype: &str) -> Option<&str> {
    datatype
        .strip_prefix(XSD)
        .or_else(|| datatype.strip_prefix("xsd:"))
        .or_else(|| datatype.strip_prefix("https://www.w3.org/2001/XMLSchema#"))
}

/// True for the numeric XSD datatypes.
pub fn is_numeric_datatype(datatype: &str) -> bool {
    matches!(
        xsd_local(datatype),
        Some(
            "integer"
                | "decimal"
                | "float"
                | "double"
                | "int"
                | "long"
                | "short"
                | "byte"
                | "nonNegativeInteger"
                | "positiveInteger"
                | "negativeInteger"
                | "nonPositiveInteger"
                | "unsignedLong"
                | "unsignedInt"
                | "unsignedShort"
                | "unsignedByte"
        )
    )
}

/// True for the XSD date and time datatypes (including gYear and friends).
pub fn is_date_datatype(datatype: &str) -> bool {
    matches!(
        xsd_local(datatype),
        Some(
            "date"
                | "dateTime"
                | "dateTimeStamp"
                | "gYear"
                | "gYearMonth"
                | "gMonthDay"
                | "gDay"
                | "gMonth"
                | "time"
        )
    )
}

/// Parses a numeric lexical form (`3`, `-3.0`, `3.0E0`, `.5`); no `inf`, `NaN`, commas.
pub fn parse_number(lexical: &str) -> Option<f64> {
    let s = lexical.trim();
    if s.is_empty()
        || !s.bytes().any(|b| b.is_ascii_digit())
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(if v == 0.0 { 0.0 } else { v })
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Parses an xsd:date or xsd:dateTime lexical form into a normalised value: the
/// date alone when the time is midnight in UTC or unzoned, else the whole instant
/// (`1961-08-04T00:00:00Z` → `1961-08-04`).
pub fn parse_date(lexical: &str) -> Option<String> {
    let s = lexical.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if s.len() < 10 || s.as_bytes()[4] != b'-' {
        return None;
    }
    let (date, rest) = s.split_at_checked(10)?;
    let mut parts = date.split('-');
    let y = digits(parts.next()?, 4)?;
    let m = digits(parts.next()?, 2)?;
    let d = digits(parts.next()?, 2)?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let date = format!("{}{y:04}-{m:02}-{d:02}", if neg { "-" } else { "" });
    let (time, zone) = match rest.strip_prefix('T') {
        Some(t) => {
            let end = t.find(['Z', '+', '-']).unwrap_or(t.len());
            (Some(&t[..end]), &t[end..])
        }
        None => (None, rest),
    };
    let utc = matches!(zone, "" | "Z" | "+00:00" | "-00:00");
    if !(utc
        || (zone.len() == 6
            && zone
                .get(1..3)
                .is_some_and(|h| h.bytes().all(|b| b.is_ascii_digit()))))
    {
        return None;
    }
    match time {
        None => Some(date),
        Some(t) => {
            let mut tp = t.split(':');
            let h = digits(tp.next()?, 2)?;
            let mi = digits(tp.next()?, 2)?;
            let sec = tp.next()?;
            let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
            let s = digits(whole, 2)?;
            let frac = frac.trim_end_matches('0');
            if h > 24 || mi > 59 || s > 60 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            if h == 0 && mi == 0 && s == 0 && frac.is_empty() && utc {
                Some(date)
            } else {
                let frac = if frac.is_empty() {
                    String::new()
                } else {
                    format!(".{frac}")
                };
                let zone = if utc { "Z" } else { zone };
                Some(format!("{date}T{h:02}:{mi:02}:{s:02}{frac}{zone}"))
            }
        }
    }
}

/// NFC, trimmed, whitespace collapsed, and lower-cased unless `strict`.
pub fn normalize_string(s: &str, strict: bool) -> String {
    let s = s.trim();
    let simple_ascii = s.is_ascii()
        && !s
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace())
        && !s.bytes().any(|b| b.is_ascii_whitespace() && b != b' ');
    if simple_ascii {
        return if strict {
            s.to_string()
        } else {
            s.to_ascii_lowercase()
        };
    }
    let nfc: Cow<'_, str> = match is_nfc_quick(s.chars()) {
        IsNormalized::Yes => Cow::Borrowed(s),
        _ => Cow::Owned(s.nfc().collect()),
    };
    let mut out = String::with_capacity(nfc.len());
    for word in nfc.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if strict {
        out
    } else {
        out.to_lowercase()
    }
}

fn year_of(lexical: &str) -> Option<i64> {
    let s = lexical.trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let y: i64 = s.get(..4)?.parse().ok()?;
    Some(if neg { -y } else { y })
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

/// Computes keys without an index and removes duplicates (see [`Resolver::prepare`]).
pub fn prepare(answers: &[Answer], opts: MatchOptions) -> Vec<Prepared> {
    Resolver::new(opts, None).prepare(answers, Side::Gold, true)
}

/// Term comparison with the chosen rules and, optionally, an index; caches index
/// lookups for the lifetime of one evaluation and collects index read errors.
pub struct Resolver<'a> {
    opts: MatchOptions,
    index: Option<&'a dyn Equivalence>,
    classes: RefCell<FxHashMap<String, Option<Class>>>,
    members: RefCell<FxHashMap<u32, Rc<Vec<String>>>>,
    labels: RefCell<FxHashMap<String, Rc<Vec<String>>>>,
    errors: RefCell<Vec<String>>,
}

impl<'a> Resolver<'a> {
    /// A resolver with the given rules and index.
    pub fn new(opts: MatchOptions, index: Option<&'a dyn Equivalence>) -> Resolver<'a> {
        Resolver {
            opts,
            index,
            classes: RefCell::default(),
            members: RefCell::default(),
            labels: RefCell::default(),
            errors: RefCell::default(),
        }
    }

    /// The rules in use.
    pub fn options(&self) -> MatchOptions {
        self.opts
    }

    /// True when an index is available.
    pub fn has_index(&self) -> bool {
        self.index.is_some()
    }

    /// Index read errors met so far (each once), emptied.
    pub fn take_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.errors.borrow_mut())
    }

    fn note_error(&self, e: impl std::fmt::Display) {
        let message = e.to_string();
        let mut errors = self.errors.borrow_mut();
        if !errors.contains(&message) {
            errors.push(message);
        }
    }

    /// The sameAs class of an IRI (`None`: a class of one, or no index).
    pub fn class(&self, iri: &str) -> Option<Class> {
        self.index?;
        self.class_canonical(&canonical_iri(iri))
    }

    /// The sameAs class of an IRI in canonical form, cached.
    fn class_canonical(&self, canonical: &str) -> Option<Class> {
        let index = self.index?;
        if let Some(c) = self.classes.borrow().get(canonical) {
            return *c;
        }
        let c = index.class_of_canonical(canonical).unwrap_or_else(|e| {
            self.note_error(e);
            None
        });
        self.classes.borrow_mut().insert(canonical.to_string(), c);
        c
    }

    fn members(&self, class: Class) -> Rc<Vec<String>> {
        let Some(index) = self.index else {
            return Rc::default();
        };
        if let Some(m) = self.members.borrow().get(&class.id) {
            return Rc::clone(m);
        }
        let m = Rc::new(index.members(class.id).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        }));
        self.members.borrow_mut().insert(class.id, Rc::clone(&m));
        m
    }

    fn label_iris(&self, label: &str) -> Rc<Vec<String>> {
        let Some(index) = self.index else {
            return Rc::default();
        };
        if let Some(l) = self.labels.borrow().get(label) {
            return Rc::clone(l);
        }
        let mut iris = index.label_iris(label).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        });
        iris.truncate(MAX_LABEL_CANDIDATES);
        let iris = Rc::new(iris);
        self.labels
            .borrow_mut()
            .insert(label.to_string(), Rc::clone(&iris));
        iris
    }

    /// The types of an IRI in the index (empty without one).
    pub fn types(&self, iri: &str) -> Vec<String> {
        let Some(index) = self.index else {
            return Vec::new();
        };
        index.types(iri).unwrap_or_else(|e| {
            self.note_error(e);
            Vec::new()
        })
    }

    /// True when the index holds types.
    pub fn has_types(&self) -> bool {
        self.index.is_some_and(|i| i.has_types())
    }

    /// The keys of an IRI on one side.
    fn iri_keys(&self, iri: &str, side: Side, out: &mut Vec<Key>) {
        match self.opts.iri {
            IriRule::Exact => out.push(Key::Exact(iri.to_string())),
            IriRule::Equivalent => {
                let canonical = canonical_iri(iri);
                let class = self.class_canonical(&canonical);
                out.push(Key::Iri(canonical));
                if let Some(c) = class {
                    out.push(Key::Class(c));
                }
            }
            IriRule::RunClosure => {
                out.push(Key::Iri(gerbil_iri(iri)));
                if side == Side::Run {
                    if let Some(c) = self.class(iri) {
                        for m in self.members(c).iter() {
                            out.push(Key::Member(gerbil_iri(m), c.size));
                        }
                    }
                }
            }
        }
    }

    /// The keys of one term: direct keys, keys through labels, and the number of
    /// answers it counts as.
    fn term_keys(
        &self,
        term: &Term,
        side: Side,
        other_has_iris: bool,
        keys: &mut Vec<Key>,
        via_label: &mut Vec<Key>,
    ) -> usize {
        let lexical = match term {
            Term::Iri(iri) => {
                self.iri_keys(iri, side, keys);
                return 1;
            }
            Term::Boolean(b) => {
                keys.push(Key::Bool(*b));
                return 1;
            }
            Term::Literal { lexical, .. } => lexical,
        };
        match (self.opts.literal, self.opts.iri) {
            (_, IriRule::Exact) | (LiteralRule::Exact, _) => keys.push(Key::Exact(lexical.clone())),
            (LiteralRule::Typed, _) => term_keys(term, self.opts, keys),
        }
        if self.index.is_none() || !is_stringish(term) {
            return 1;
        }
        match self.opts.label {
            LabelRule::Off => 1,
            LabelRule::OneAnswer => {
                for iri in self.label_iris(lexical).iter() {
                    self.iri_keys(iri, Side::Gold, via_label);
                }
                1
            }
            LabelRule::EachCandidate => {
                if side != Side::Run || !other_has_iris {
                    return 1;
                }
                let candidates = self.label_iris(lexical);
                for iri in candidates.iter() {
                    self.iri_keys(iri, Side::Run, via_label);
                }
                candidates.len().max(1)
            }
        }
    }

    /// Computes keys and removes duplicates. An answer of one distinct term is a
    /// duplicate of an earlier one-term answer it is equivalent to; a row of several
    /// distinct terms is a duplicate of an earlier row with the same terms (rows that
    /// merely share a term are different answers). Keys reached through labels never
    /// make duplicates. `other_has_iris` says whether the other side holds IRIs
    /// (GERBIL's label rule applies only then). Returns the kept answers in order.
    pub fn prepare(&self, answers: &[Answer], side: Side, other_has_iris: bool) -> Vec<Prepared> {
        self.prepare_inner(answers, side, other_has_iris, true)
    }

    /// Computes keys and keeps every answer, duplicates too (GERBIL's markings).
    pub fn prepare_list(&self, answers: &[Answer], side: Side) -> Vec<Prepared> {
        self.prepare_inner(answers, side, true, false)
    }

    fn prepare_inner(
        &self,
        answers: &[Answer],
        side: Side,
        other_has_iris: bool,
        dedupe: bool,
    ) -> Vec<Prepared> {
        // keys of every answer, and for rows of several distinct terms their signature
        let mut all: Vec<(Prepared, Option<Vec<Key>>)> = Vec::with_capacity(answers.len());
        for (index, answer) in answers.iter().enumerate() {
            let mut keys = Vec::with_capacity(answer.terms.len() * 2);
            let mut via_label = Vec::new();
            let mut primary = Vec::new();
            let mut weight = 1;
            for term in &answer.terms {
                let start = keys.len();
                weight = weight.max(self.term_keys(
                    term,
                    side,
                    other_has_iris,
                    &mut keys,
                    &mut via_label,
                ));
                if answer.terms.len() > 1 {
                    if let Some(first) = keys.get(start) {
                        primary.push(first.clone());
                    }
                }
            }
            for list in [&mut keys, &mut via_label] {
                if list.len() > 1 {
                    list.sort_unstable();
                    list.dedup();
                }
            }
            primary.sort_unstable();
            primary.dedup();
            all.push((
                Prepared {
                    index,
                    keys,
                    via_label,
                    weight,
                },
                (primary.len() > 1).then_some(primary),
            ));
        }
        let mut keep = vec![false; all.len()];
        {
            let mut seen: FxHashSet<&Key> = FxHashSet::default();
            seen.reserve(all.len() * 2);
            let mut seen_rows: FxHashSet<&[Key]> = FxHashSet::default();
            for (i, (p, row)) in all.iter().enumerate() {
                if p.keys.is_empty() {
                    continue;
                }
                if !dedupe {
                    keep[i] = true;
                    continue;
                }
                keep[i] = match row {
                    Some(signature) => seen_rows.insert(signature.as_slice()),
                    None => {
                        let duplicate = p.keys.iter().any(|k| k.each_lookup(|l| seen.contains(l)));
                        if !duplicate {
                            seen.extend(p.keys.iter());
                        }
                        !duplicate
                    }
                };
            }
        }
        all.into_iter()
            .enumerate()
            .filter(|(i, _)| keep[*i])
            .map(|(_, (p, _))| p)
            .collect()
    }
}

/// True for a literal that may be a label: no numeric, date or boolean datatype.
fn is_stringish(term: &Term) -> bool {
    match term {
        Term::Literal {
            lexical, datatype, ..
        } => {
            !lexical.trim().is_empty()
                && datatype.as_deref().is_none_or(|dt| {
                    !is_numeric_datatype(dt)
                        && !is_date_datatype(dt)
                        && xsd_local(dt) != Some("boolean")
                })
        }
        _ => false,
    }
}

/// One matched pair of a maximum matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// Index of the gold answer in the gold set.
    pub gold: usize,
    /// Index of the run answer in the run set.
    pub run: usize,
    /// Why they are the same.
    pub reason: Reason,
}

/// The outcome of matching two prepared answer sets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Matching {
    /// Matched pairs (true positives), sorted by gold index.
    pub pairs: Vec<Pair>,
    /// Distinct gold answers.
    pub gold: usize,
    /// Distinct run answers (each weighted by how many answers it counts as).
    pub run: usize,
}

impl Matching {
    /// True positives.
    pub fn tp(&self) -> usize {
        self.pairs.len()
    }
    /// False positives: unmatched run answers.
    pub fn fp(&self) -> usize {
        self.run - self.pairs.len()
    }
    /// False negatives: unmatched gold answers.
    pub fn fn_(&self) -> usize {
        self.gold - self.pairs.len()
    }
}

/// Maximum one-to-one matching between prepared gold and run answers, so the
/// result never depends on the order of answers.
pub fn match_answers(gold: &[Prepared], run: &[Prepared]) -> Matching {
    let run_count = run.iter().map(|p| p.weight).sum();
    if gold.is_empty() || run.is_empty() {
        return Matching {
            pairs: Vec::new(),
            gold: gold.len(),
            run: run_count,
        };
    }
    // key -> first gold link; further links of the same key are chained
    let mut first: FxHashMap<&Key, usize> = FxHashMap::default();
    first.reserve(gold.len() * 2);
    // (gold answer, reached through a label, next link or usize::MAX)
    let mut chain: Vec<(usize, bool, usize)> = Vec::new();
    for (g, prepared) in gold.iter().enumerate() {
        for (list, label) in [(&prepared.keys, false), (&prepared.via_label, true)] {
            for k in list {
                let link = chain.len();
                let next = first.insert(k, link).unwrap_or(usize::MAX);
                chain.push((g, label, next));
            }
        }
    }
    // adjacency: run answer -> (gold answer, reason)
    let mut adj: Vec<Vec<(usize, Reason)>> = Vec::with_capacity(run.len());
    for prepared in run {
        let mut edges: Vec<(usize, Reason)> = Vec::new();
        for (list, run_label) in [(&prepared.keys, false), (&prepared.via_label, true)] {
            for k in list {
                k.each_lookup(|look| {
                    let mut link = first.get(look).copied().unwrap_or(usize::MAX);
                    while link != usize::MAX {
                        let (g, gold_label, next) = chain[link];
                        link = next;
                        if run_label && gold_label {
                            continue;
                        }
                        let reason = if run_label || gold_label {
                            Reason::Label
                        } else {
                            k.reason()
                        };
                        match edges.iter_mut().find(|(e, _)| *e == g) {
                            Some(edge) if edge.1 == Reason::Label && reason != Reason::Label => {
                                edge.1 = reason
                            }
                            Some(_) => {}
                            None => edges.push((g, reason)),
                        }
                    }
                    false
                });
            }
        }
        edges.sort_unstable_by_key(|(g, _)| *g);
        adj.push(edges);
    }
    let mut gold_to_run: Vec<Option<usize>> = vec![None; gold.len()];
    let mut run_to_gold: Vec<Option<usize>> = vec![None; run.len()];
    // greedy pass
    for (r, edges) in adj.iter().enumerate() {
        if let Some(&(g, _)) = edges.iter().find(|(g, _)| gold_to_run[*g].is_none()) {
            gold_to_run[g] = Some(r);
            run_to_gold[r] = Some(g);
        }
    }
    // augmenting paths (Kuhn) for the rest
    let mut visited = vec![0usize; gold.len()];
    let mut stamp = 0usize;
    for r in 0..run.len() {
        if run_to_gold[r].is_some() || adj[r].is_empty() {
            continue;
        }
        stamp += 1;
        augment(
            r,
            &adj,
            &mut gold_to_run,
            &mut run_to_gold,
            &mut visited,
            stamp,
        );
    }
    let mut pairs: Vec<Pair> = gold_to_run
        .iter()
        .enumerate()
        .filter_map(|(g, r)| {
            r.map(|r| Pair {
                gold: gold[g].index,
                run: run[r].index,
                reason: adj[r]
                    .iter()
                    .find(|(e, _)| *e == g)
                    .map_or(Reason::Iri, |(_, why)| *why),
            })
        })
        .collect();
    pairs.sort_by_key(|p| p.gold);
    Matching {
        pairs,
        gold: gold.len(),
        run: run_count,
    }
}

fn augment(
    r: usize,
    adj: &[Vec<(usize, Reason)>],
    gold_to_run: &mut [Option<usize>],
    run_to_gold: &mut [Option<usize>],
    visited: &mut [usize],
    stamp: usize,
) -> bool {
    // iterative DFS to stay safe on long alternating paths
    let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
    let mut path: Vec<(usize, usize)> = Vec::new(); // (run, gold) edges taken
    while let Some(&mut (cur, ref mut next)) = stack.last_mut() {
        if *next >= adj[cur].len() {
            stack.pop();
            path.pop();
            continue;
        }
        let g = adj[cur][*next].0;
        *next += 1;
        if visited[g] == stamp {
            continue;
        }
        visited[g] = stamp;
        path.push((cur, g));
        match gold_to_run[g] {
            None => {
                for &(rr, gg) in &path {
                    gold_to_run[gg] = Some(rr);
                    run_to_gold[rr] = Some(gg);
                }
                return true;
            }
            Some(owner) => stack.push((owner, 0)),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Answer;

    fn opts() -> MatchOptions {
        MatchOptions::default()
    }
    fn eq(a: &Term, b: &Term, o: MatchOptions) -> bool {
        let ga = prepare(&[Answer::single(a.clone())], o);
        let rb = prepare(&[Answer::single(b.clone())], o);
        let m1 = match_answers(&ga, &rb).tp() == 1;
        let m2 = match_answers(&rb, &ga).tp() == 1;
        assert_eq!(m1, m2, "equivalence must be symmetric: {a} vs {b}");
        m1
    }
    fn iri(s: &str) -> Term {
        Term::Iri(s.into())
    }
    fn xsd(t: &str) -> String {
        format!("{XSD}{t}")
    }

    #[test]
    fn numbers_compare_by_value() {
        let three = Term::typed("3", xsd("integer"));
        assert!(eq(&three, &Term::plain("3"), opts()));
        assert!(eq(&three, &Term::plain("3.0"), opts()));
        assert!(eq(&three, &Term::typed("3.0E0", xsd("double")), opts()));
        assert!(eq(
            &Term::typed("3.0", xsd("decimal")),
            &Term::typed("3", xsd("int")),
            opts()
        ));
        assert!(!eq(&three, &Term::plain("4"), opts()));
        // two plain lexical forms compare as strings only
        assert!(!eq(&Term::plain("3"), &Term::plain("3.0"), opts()));
        // a number-shaped literal of another vocabulary against a typed number
        assert!(eq(
            &Term::typed("5000000.0", "http://dbpedia.org/datatype/usDollar"),
            &Term::typed("5.0E6", xsd("double")),
            opts()
        ));
        assert!(parse_number("inf").is_none());
        assert!(parse_number("NaN").is_none());
        assert!(parse_number("1,000").is_none());
    }

    #[test]
    fn dates_compare_by_value() {
        let d = Term::typed("1961-08-04", xsd("date"));
        assert!(eq(&d, &Term::plain("1961-08-04T00:00:00Z"), opts()));
        assert!(eq(
            &d,
            &Term::typed("1961-08-04T00:00:00Z", xsd("dateTime")),
            opts()
        ));
        assert!(eq(
            &d,
            &Term::typed("1961-08-04T00:00:00", xsd("dateTime")),
            opts()
        ));
        assert!(!eq(&d, &Term::typed("1961-08-05", xsd("date")), opts()));
        assert!(!eq(
            &d,
            &Term::typed("1961-08-04T10:00:00Z", xsd("dateTime")),
            opts()
        ));
        let year = Term::typed("1961", xsd("gYear"));
        assert!(!eq(&d, &year, opts()));
        let lenient = MatchOptions {
            lenient_dates: true,
            ..opts()
        };
        assert!(eq(&d, &year, lenient));
        assert!(!eq(&Term::typed("1962-01-01", xsd("date")), &year, lenient));
        assert_eq!(parse_date("1961-13-04"), None);
        // never panics on non-ASCII text
        for s in [
            "滿洲航空株式會社",
            "1961-08-0é",
            "1961-08-04T10:00:00+0é:00",
            "é",
            "2020-01-01T空",
        ] {
            let _ = parse_date(s);
            let _ = parse_number(s);
            let _ = year_of(s);
        }
        assert_eq!(
            parse_date("1961-08-04T10:30:00.500+02:00").as_deref(),
            Some("1961-08-04T10:30:00.5+02:00")
        );
    }

    #[test]
    fn booleans_any_case() {
        assert!(eq(&Term::Boolean(true), &Term::plain("TRUE"), opts()));
        assert!(eq(
            &Term::Boolean(false),
            &Term::typed("false", xsd("boolean")),
            opts()
        ));
        assert!(!eq(&Term::Boolean(true), &Term::Boolean(false), opts()));
        assert!(!eq(&Term::Boolean(true), &Term::plain("false"), opts()));
    }

    #[test]
    fn strings_nfc_trim_case_lang() {
        let a = Term::Literal {
            lexical: "  Caf\u{65}\u{301}  au   lait ".into(),
            datatype: None,
            lang: Some("en".into()),
        };
        assert!(eq(&a, &Term::plain("CAFÉ AU LAIT"), opts()));
        let strict = MatchOptions {
            strict_literals: true,
            ..opts()
        };
        assert!(!eq(&a, &Term::plain("CAFÉ AU LAIT"), strict));
        assert!(eq(&a, &Term::plain("Café au lait"), strict));
        assert!(!eq(
            &Term::typed("3", xsd("integer")),
            &Term::plain("3.0"),
            strict
        ));
    }

    #[test]
    fn iris_canonical_and_kinds_kept() {
        assert!(eq(
            &iri("https://en.wikipedia.org/wiki/Barack_Obama"),
            &iri("http://dbpedia.org/resource/Barack_Obama"),
            opts()
        ));
        assert!(!eq(
            &iri("http://dbpedia.org/resource/Barack_Obama"),
            &Term::plain("http://dbpedia.org/resource/Barack_Obama"),
            opts()
        ));
        assert!(!eq(
            &iri("http://dbpedia.org/resource/Barack_Obama"),
            &Term::plain("Barack Obama"),
            opts()
        ));
    }

    #[test]
    fn duplicates_count_once() {
        let set = vec![
            Answer::single(Term::typed("3", xsd("integer"))),
            Answer::single(Term::typed("3.0", xsd("decimal"))),
            Answer::single(iri("http://dbpedia.org/page/X")),
            Answer::single(iri("http://dbpedia.org/resource/X")),
            Answer::single(iri("http://dbpedia.org/resource/X")),
        ];
        let p = prepare(&set, opts());
        assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 2]);
        // rows that share a term are different answers; equal rows are one
        let row = |a: &str, b: &str| Answer {
            terms: vec![iri(a), iri(b)],
        };
        let rows = vec![
            row("http://e.org/film", "http://e.org/a"),
            row("http://e.org/film", "http://e.org/b"),
            row("http://e.org/b", "http://e.org/film"),
            row("http://e.org/c", "http://e.org/c"),
            Answer::single(iri("http://e.org/c")),
        ];
        let p = prepare(&rows, opts());
        assert_eq!(p.iter().map(|p| p.index).collect::<Vec<_>>(), vec![0, 1, 3]);
    }

    #[test]
    fn alternatives_in_a_row() {
        let gold = vec![Answer {
            terms: vec![
                iri("http://dbpedia.org/resource/East_River"),
                Term::plain("East River"),
            ],
        }];
        let run = vec![Answer::single(Term::plain("east river"))];
        let m = match_answers(&prepare(&gold, opts()), &prepare(&run, opts()));
        assert_eq!((m.tp(), m.fp(), m.fn_()), (1, 0, 0));
        assert_eq!(m.pairs[0].reason, Reason::String);
    }

    #[test]
    fn maximum_matching_not_greedy() {
        // run 0 can match gold 0 (via x) or gold 1 (via b); run 1 only gold 0.
        let gold = vec![
            Answer {
                terms: vec![iri("http://e.org/a"), iri("http://e.org/x")],
            },
            Answer::single(iri("http://e.org/b")),
        ];
        let run = vec![
            Answer {
                terms: vec![iri("http://e.org/x"), iri("http://e.org/b")],
            },
            Answer::single(iri("http://e.org/a")),
        ];
        let g = prepare(&gold, opts());
        let r = prepare(&run, opts());
        assert_eq!(match_answers(&g, &r).tp(), 2);
        // and the result does not depend on order
        let mut run_rev = run.clone();
        run_rev.reverse();
        assert_eq!(match_answers(&g, &prepare(&run_rev, opts())).tp(), 2);
    }

    fn kg() -> crate::index::MemoryIndex {
        let mut m = crate::index::MemoryIndex::new();
        m.same_as(
            "http://dbpedia.org/resource/Barack_Obama",
            "http://www.wikidata.org/entity/Q76",
        )
        .same_as(
            "http://www.wikidata.org/entity/Q76",
            "http://rdf.freebase.com/ns/m.02mjmr",
        )
        .same_as(
            "http://dbpedia.org/resource/Honolulu",
            "http://www.wikidata.org/entity/Q18094",
        )
        .label("http://dbpedia.org/resource/Barack_Obama", "Barack Obama")
        .label("http://dbpedia.org/resource/Honolulu", "Honolulu")
        .label("http://www.wikidata.org/entity/Q18094", "Honolulu")
        .label("http://e.org/Honolulu_County", "Honolulu")
        .label("http://dbpedia.org/resource/Barack_Obama", "Obama")
        .label("http://dbpedia.org/resource/Michelle_Obama", "Obama");
        m
    }

    fn counts(
        gold: &[Answer],
        run: &[Answer],
        opts: MatchOptions,
        index: &dyn Equivalence,
    ) -> (usize, usize, usize, Vec<Reason>) {
        let r = Resolver::new(opts, Some(index));
        let g = r.prepare(gold, Side::Gold, true);
        let gold_iris = gold.iter().flat_map(|a| &a.terms).any(Term::is_iri);
        let m = match_answers(&g, &r.prepare(run, Side::Run, gold_iris));
        (
            m.tp(),
            m.fp(),
            m.fn_(),
            m.pairs.iter().map(|p| p.reason).collect(),
        )
    }

    fn c3(
        gold: &[Answer],
        run: &[Answer],
        opts: MatchOptions,
        index: &dyn Equivalence,
    ) -> [usize; 3] {
        let (tp, fp, fn_, _) = counts(gold, run, opts, index);
        [tp, fp, fn_]
    }

    fn one(t: Term) -> Vec<Answer> {
        vec![Answer::single(t)]
    }

    #[test]
    fn sameas_classes_with_an_index() {
        let kg = kg();
        let gold = one(iri("http://dbpedia.org/resource/Barack_Obama"));
        let (tp, fp, fn_, why) = counts(
            &gold,
            &one(iri("http://rdf.freebase.com/ns/m.02mjmr")),
            opts(),
            &kg,
        );
        assert_eq!((tp, fp, fn_), (1, 0, 0));
        assert_eq!(why, vec![Reason::SameAs { class_size: 3 }]);
        // without the index they differ
        assert!(!eq(
            &iri("http://dbpedia.org/resource/Barack_Obama"),
            &iri("http://rdf.freebase.com/ns/m.02mjmr"),
            opts()
        ));
        // one thing written twice in a run is one answer
        let run = vec![
            Answer::single(iri("http://www.wikidata.org/entity/Q76")),
            Answer::single(iri("https://www.wikidata.org/wiki/Q76")),
            Answer::single(iri("http://dbpedia.org/resource/Barack_Obama")),
        ];
        assert_eq!(c3(&gold, &run, opts(), &kg), [1, 0, 0]);
    }

    #[test]
    fn label_rule_counts_one_answer() {
        let kg = kg();
        // a string against IRI gold: one answer, matched through a label
        let gold = one(iri("http://www.wikidata.org/entity/Q18094"));
        let (tp, fp, fn_, why) = counts(&gold, &one(Term::plain("honolulu")), opts(), &kg);
        assert_eq!((tp, fp, fn_, why), (1, 0, 0, vec![Reason::Label]));
        // an IRI against string gold
        let (tp, fp, fn_, _) = counts(
            &one(Term::plain("Barack Obama")),
            &one(iri("http://www.wikidata.org/entity/Q76")),
            opts(),
            &kg,
        );
        assert_eq!((tp, fp, fn_), (1, 0, 0));
        // an ambiguous label is still one answer: it matches one gold IRI at most
        let gold = vec![
            Answer::single(iri("http://dbpedia.org/resource/Barack_Obama")),
            Answer::single(iri("http://dbpedia.org/resource/Michelle_Obama")),
        ];
        let (tp, fp, fn_, _) = counts(&gold, &one(Term::plain("Obama")), opts(), &kg);
        assert_eq!((tp, fp, fn_), (1, 0, 1));
        // a label that finds nothing is a false positive
        let (tp, fp, _, _) = counts(&gold, &one(Term::plain("Hillary")), opts(), &kg);
        assert_eq!((tp, fp), (0, 1));
        // two strings never match through an IRI they both label
        let (tp, _, _, _) = counts(
            &one(Term::plain("Barack Obama")),
            &one(Term::plain("Obama")),
            opts(),
            &kg,
        );
        assert_eq!(tp, 0);
    }

    #[test]
    fn gerbil_counts_every_label_candidate() {
        let kg = kg();
        let gerbil = MatchOptions {
            strict_literals: true,
            iri: IriRule::RunClosure,
            literal: LiteralRule::Exact,
            label: LabelRule::EachCandidate,
            ..opts()
        };
        // "Honolulu" labels three IRIs: one TP at most, the other two are FPs
        let gold = one(iri("http://dbpedia.org/resource/Honolulu"));
        let (tp, fp, fn_, _) = counts(&gold, &one(Term::plain("Honolulu")), gerbil, &kg);
        assert_eq!((tp, fp, fn_), (1, 2, 0));
        // the same under judge: one answer, one TP
        assert_eq!(
            c3(&gold, &one(Term::plain("Honolulu")), opts(), &kg),
            [1, 0, 0]
        );
        // nothing found: the string itself, one FP
        let (tp, fp, _, _) = counts(&gold, &one(Term::plain("Hono")), gerbil, &kg);
        assert_eq!((tp, fp), (0, 1));
        // the run's IRI is expanded through its class
        assert_eq!(
            c3(
                &gold,
                &one(iri("http://www.wikidata.org/entity/Q18094")),
                gerbil,
                &kg
            ),
            [1, 0, 0]
        );
        // the gold's is not: an https gold IRI is not a member as written
        let https_gold = one(iri("https://dbpedia.org/resource/Honolulu"));
        let run = one(iri("http://www.wikidata.org/entity/Q18094"));
        assert_eq!(c3(&https_gold, &run, gerbil, &kg), [0, 1, 1]);
        assert_eq!(c3(&https_gold, &run, opts(), &kg), [1, 0, 0]);
        // literals are exact strings
        let three = one(Term::typed("3", xsd("integer")));
        assert_eq!(c3(&three, &one(Term::plain("3.0")), gerbil, &kg), [0, 1, 1]);
        assert_eq!(c3(&three, &one(Term::plain("3")), gerbil, &kg), [1, 0, 0]);
    }
}
