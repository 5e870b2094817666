//! The vocabulary of terms every other module compares: canonical IRIs
//! (docs/scoring.md, Sameness), literal values (numbers, dates, normalised strings) and the
//! prefixes public endpoints predefine. Pure functions over strings.

pub mod canonical;
pub mod literal;
pub mod prefixes;

/// True when a spreadsheet opening a CSV cell holding `s` would run it as a
/// formula: it starts with `=`, `+`, `-`, `@`, a tab or a carriage return and
/// is not a number (OWASP, CSV injection). Every CSV qajudge writes, the
/// report's and the published graph's `/sparql` answers, puts a `'` before
/// such a cell.
pub fn spreadsheet_formula(s: &str) -> bool {
    s.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !s.trim().parse::<f64>().is_ok_and(f64::is_finite)
}
