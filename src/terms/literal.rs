//! Literal values (docs/scoring.md, Sameness: literals): XSD datatypes, numbers and dates parsed
//! by value, and the normalised form strings and labels are compared in.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// `s` in Unicode normalisation form D (canonical decomposition), as
/// Python's `unicodedata.normalize("NFD", s)` gives it.
pub fn nfd(s: &str) -> String {
    s.nfd().collect()
}

/// The local name of an XSD datatype, or `None` for another vocabulary.
pub fn xsd_local(datatype: &str) -> Option<&str> {
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

/// The ASCII letters of a text after Unicode NFKD decomposition (accents
/// and every other non-ASCII character dropped), as Python's
/// `unicodedata.normalize('NFKD', s).encode('ascii', 'ignore')` gives them
/// (ComplexWebQuestions' official script).
pub fn nfkd_ascii(s: &str) -> String {
    s.nfkd().filter(char::is_ascii).collect()
}

/// A text as a reader sees it: Unicode NFKC (compatibility forms folded:
/// fullwidth letters, ligatures) with the invisible format characters
/// dropped (soft hyphen, zero-width spaces and joiners, bidirectional
/// controls, the byte-order mark, tag characters), so that a phrase split by
/// them reads as the phrase.
pub fn visible_nfkc(s: &str) -> String {
    s.nfkc().filter(|&c| !is_format_char(c)).collect()
}

/// True for a character of Unicode's format category (Cf) that renders as
/// nothing.
fn is_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// The year of a date or gYear lexical form (`-0044` → -44).
pub fn year_of(lexical: &str) -> Option<i64> {
    let s = lexical.trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let y: i64 = s.get(..4)?.parse().ok()?;
    Some(if neg { -y } else { y })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfkd_keeps_ascii_only() {
        assert_eq!(nfkd_ascii("México ﬁ 東京"), "Mexico fi ");
    }
}
