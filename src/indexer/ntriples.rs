//! A fast reader of one N-Triples or N-Quads line (and the one module that names
//! memchr, for finding line breaks), for the common shapes of real dumps: IRIs, blank nodes, literals with a language tag or a datatype, escapes in
//! literals, comments. Whatever it is not sure of (an escape inside an IRI, a
//! character the grammar forbids, an unusual authority, a malformed statement) it
//! leaves to the reference parser (oxrdfio, in `read`) by answering
//! [`Unsure`], so that what is accepted, and every error message and location, is
//! the reference parser's. A differential test on the real dumps of
//! `../shared/data/rdf` checks that both read the same statements.

use super::statement::{Obj, Stmt};

/// Line breaks in text (the reader's SIMD byte search, kept in this module).
pub mod line_breaks {
    /// The position of the first `\n`.
    pub fn next(text: &[u8]) -> Option<usize> {
        memchr::memchr(b'\n', text)
    }

    /// The position of the last `\n`.
    pub fn last(text: &[u8]) -> Option<usize> {
        memchr::memrchr(b'\n', text)
    }

    /// Whether there is a `\r`.
    pub fn any_cr(text: &[u8]) -> bool {
        memchr::memchr(b'\r', text).is_some()
    }

    /// The number of `\n`.
    pub fn count(text: &[u8]) -> usize {
        memchr::memchr_iter(b'\n', text).count()
    }

    /// The position of the `n`-th `\n` (from 0).
    #[cfg(test)]
    pub fn nth(text: &[u8], n: usize) -> Option<usize> {
        memchr::memchr_iter(b'\n', text).nth(n)
    }
}

/// The line needs the reference parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsure;

type R<T> = Result<T, Unsure>;

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// What a byte of an IRI reference needs: nothing, the reference parser's
/// judgement, or a closer look.
const OK: u8 = 0;
const UNSURE: u8 = 1;
const PERCENT: u8 = 2;
const NON_ASCII: u8 = 3;
const HASH: u8 = 4;

const fn byte_classes() -> [u8; 256] {
    let mut t = [OK; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = match c {
            0..=0x20
            | b'<'
            | b'>'
            | b'"'
            | b'{'
            | b'}'
            | b'|'
            | b'^'
            | b'`'
            | b'\\'
            | b'['
            | b']'
            | 0x7f => UNSURE,
            b'%' => PERCENT,
            b'#' => HASH,
            0x80..=0xff => NON_ASCII,
            _ => OK,
        };
        i += 1;
    }
    t
}

static BYTE_CLASSES: [u8; 256] = byte_classes();

/// Whether a byte of an IRI reference is not [`OK`] in [`BYTE_CLASSES`], as
/// comparisons without a table, so that a loop over an IRI's bytes is turned into
/// vector instructions: control characters and space, DEL and non-ASCII, and
/// `"#%<>[\]^`{|}`.
fn needs_a_look(c: u8) -> bool {
    (c <= 0x20)
        | (c >= 0x7f)
        | (c == b'"')
        | (c == b'#')
        | (c == b'%')
        | (c == b'<')
        | (c == b'>')
        | (c.wrapping_sub(b'[') <= b'^' - b'[')
        | (c == b'`')
        | (c.wrapping_sub(b'{') <= b'}' - b'{')
}

/// Bytes that end an authority (`/`, `?`, `#`) or need a closer look in it
/// (`@`, `:`).
const fn authority_stops() -> [bool; 256] {
    let mut t = [false; 256];
    t[b'/' as usize] = true;
    t[b'?' as usize] = true;
    t[b'#' as usize] = true;
    t[b'@' as usize] = true;
    t[b':' as usize] = true;
    t
}

static AUTHORITY_STOPS: [bool; 256] = authority_stops();

/// Checks an IRI reference's text (between `<` and `>`) the way the reference
/// parser would accept it: the characters IRIREF allows, an absolute IRI with a
/// scheme, valid percent-encodings, brackets only around an IPv6 host, a numeric
/// port. Anything else is [`Unsure`].
fn check_iri(iri: &[u8]) -> R<()> {
    // most IRIs hold no byte that needs a closer look: sixteen bytes at a time
    // without an early exit or a table (which the compiler turns into vector
    // instructions), the rest through the table
    let mut chunks = iri.chunks_exact(16);
    let mut any = false;
    for chunk in &mut chunks {
        any |= chunk.iter().fold(false, |any, &c| any | needs_a_look(c));
    }
    let rest = chunks.remainder().iter();
    any |= rest.fold(0, |a, &c| a | BYTE_CLASSES[c as usize]) != OK;
    if !any {
        return check_scheme_and_authority(iri);
    }
    let mut i = 0;
    let mut non_ascii = false;
    let mut hashes = 0;
    while i < iri.len() {
        match BYTE_CLASSES[iri[i] as usize] {
            OK => {}
            PERCENT => {
                if i + 2 >= iri.len()
                    || !iri[i + 1].is_ascii_hexdigit()
                    || !iri[i + 2].is_ascii_hexdigit()
                {
                    return Err(Unsure);
                }
                i += 2;
            }
            NON_ASCII => non_ascii = true,
            HASH => hashes += 1,
            _ => return Err(Unsure),
        }
        i += 1;
    }
    if hashes > 1 {
        return Err(Unsure);
    }
    if non_ascii {
        check_non_ascii(iri)?;
    }
    check_scheme_and_authority(iri)
}

/// An absolute IRI's scheme, then its authority.
fn check_scheme_and_authority(iri: &[u8]) -> R<()> {
    // the schemes of almost every IRI of a dump first
    if let Some([b':', rest @ ..] | [b's', b':', rest @ ..]) = iri.strip_prefix(b"http") {
        return check_authority(rest);
    }
    let colon = iri.iter().take(40).position(|&c| c == b':').ok_or(Unsure)?;
    if colon == 0
        || !iri[0].is_ascii_alphabetic()
        || !iri[1..colon]
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return Err(Unsure);
    }
    check_authority(&iri[colon + 1..])
}

/// Non-ASCII IRIs: characters of the ucschar ranges of RFC 3987 are accepted;
/// anything else (private use, specials, non-characters) is [`Unsure`].
fn check_non_ascii(iri: &[u8]) -> R<()> {
    let s = std::str::from_utf8(iri).map_err(|_| Unsure)?;
    let mut rest = s;
    while let Some(p) = rest.find(|c: char| !c.is_ascii()) {
        let c = rest[p..].chars().next().ok_or(Unsure)?;
        let ok = matches!(c as u32,
            0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF
            | 0x10000..=0x1FFFD | 0x20000..=0x2FFFD | 0x30000..=0x3FFFD
            | 0x40000..=0x4FFFD | 0x50000..=0x5FFFD | 0x60000..=0x6FFFD
            | 0x70000..=0x7FFFD | 0x80000..=0x8FFFD | 0x90000..=0x9FFFD
            | 0xA0000..=0xAFFFD | 0xB0000..=0xBFFFD | 0xC0000..=0xCFFFD
            | 0xD0000..=0xDFFFD | 0xE1000..=0xEFFFD);
        if !ok {
            return Err(Unsure);
        }
        rest = &rest[p + c.len_utf8()..];
    }
    Ok(())
}

/// After the scheme: an authority may hold one `@`, and its port must be digits.
fn check_authority(rest: &[u8]) -> R<()> {
    let Some(auth) = rest.strip_prefix(b"//") else {
        return Ok(());
    };
    // most authorities hold neither `@` nor `:`: they end at the first stop
    let stop = auth.iter().position(|&c| AUTHORITY_STOPS[c as usize]);
    if stop.is_none_or(|i| matches!(auth[i], b'/' | b'?' | b'#')) {
        return Ok(());
    }
    let mut ats = 0;
    let mut port = false;
    for &c in auth {
        match c {
            b'/' | b'?' | b'#' => break,
            b'@' => {
                ats += 1;
                port = false;
            }
            // a second `:` (a port of colons, an IPv6 host, a userinfo with a
            // colon): the reference parser decides
            b':' if port => return Err(Unsure),
            b':' => port = true,
            b'0'..=b'9' => {}
            _ if port => return Err(Unsure),
            _ => {}
        }
    }
    if ats > 1 {
        return Err(Unsure);
    }
    Ok(())
}

/// Reads `<...>` at `i`; returns the IRI and the index after `>`. An IRI equal to
/// `last` (the last one checked in this position) is not checked again.
fn iri<'a>(line: &'a str, i: usize, last: Option<&mut Vec<u8>>) -> R<(&'a str, usize)> {
    let b = line.as_bytes();
    if b.get(i) != Some(&b'<') {
        return Err(Unsure);
    }
    let end = memchr::memchr(b'>', &b[i + 1..]).ok_or(Unsure)? + i + 1;
    let text = &b[i + 1..end];
    match last {
        // (an empty `last` is no IRI checked before: `<>` is checked, and fails)
        Some(last) if !text.is_empty() && last.as_slice() == text => {}
        Some(last) => {
            check_iri(text)?;
            last.clear();
            last.extend_from_slice(text);
        }
        None => check_iri(text)?,
    }
    Ok((&line[i + 1..end], end + 1))
}

/// Reads `_:label` at `i` (ASCII labels only); returns the index after it.
fn blank(b: &[u8], i: usize) -> R<usize> {
    if !b[i..].starts_with(b"_:") {
        return Err(Unsure);
    }
    let mut j = i + 2;
    let start = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || matches!(b[j], b'_' | b'-' | b'.')) {
        j += 1;
    }
    // a label may not end with '.'
    while j > start && b[j - 1] == b'.' {
        j -= 1;
    }
    if j == start || !(b[start].is_ascii_alphanumeric() || b[start] == b'_') {
        return Err(Unsure);
    }
    Ok(j)
}

fn hex_char(h: &[u8]) -> R<char> {
    let s = std::str::from_utf8(h).map_err(|_| Unsure)?;
    let v = u32::from_str_radix(s, 16).map_err(|_| Unsure)?;
    char::from_u32(v).ok_or(Unsure)
}

/// Reads a `"..."` literal at `i`, decoding escapes into `scratch` when there are
/// any; returns whether it was decoded, the raw value's range and the index after
/// the closing quote.
fn literal(b: &[u8], i: usize, scratch: &mut String) -> R<(bool, usize, usize, usize)> {
    let start = i + 1;
    let mut j = start;
    let mut escaped = false;
    while j < b.len() {
        match b[j] {
            b'"' => break,
            b'\\' => {
                escaped = true;
                j += 2;
            }
            b'\r' | b'\n' => return Err(Unsure),
            _ => j += 1,
        }
    }
    if j >= b.len() {
        return Err(Unsure);
    }
    let end = j;
    if escaped {
        scratch.clear();
        let raw = &b[start..end];
        let mut k = 0;
        while k < raw.len() {
            let p = raw[k..].iter().position(|&c| c == b'\\').map(|p| p + k);
            let stop = p.unwrap_or(raw.len());
            scratch.push_str(std::str::from_utf8(&raw[k..stop]).map_err(|_| Unsure)?);
            let Some(p) = p else { break };
            let e = *raw.get(p + 1).ok_or(Unsure)?;
            k = p + 2;
            match e {
                b't' => scratch.push('\t'),
                b'b' => scratch.push('\u{8}'),
                b'n' => scratch.push('\n'),
                b'r' => scratch.push('\r'),
                b'f' => scratch.push('\u{c}'),
                b'"' => scratch.push('"'),
                b'\'' => scratch.push('\''),
                b'\\' => scratch.push('\\'),
                b'u' => {
                    scratch.push(hex_char(raw.get(k..k + 4).ok_or(Unsure)?)?);
                    k += 4;
                }
                b'U' => {
                    scratch.push(hex_char(raw.get(k..k + 8).ok_or(Unsure)?)?);
                    k += 8;
                }
                _ => return Err(Unsure),
            }
        }
    }
    Ok((escaped, start, end, end + 1))
}

/// Reads a language tag at `i` (after `@`); returns the index after it.
fn lang_tag(b: &[u8], i: usize) -> R<usize> {
    let mut j = i;
    while j < b.len() && b[j].is_ascii_alphabetic() {
        j += 1;
    }
    if j == i {
        return Err(Unsure);
    }
    while j < b.len() && b[j] == b'-' {
        let k = j + 1;
        j = k;
        while j < b.len() && b[j].is_ascii_alphanumeric() {
            j += 1;
        }
        if j == k {
            return Err(Unsure);
        }
    }
    Ok(j)
}

/// What a reader keeps between lines: the decoded text of the last literal with
/// escapes, and the last subject and predicate checked (dumps repeat them).
#[derive(Default)]
pub struct LineReader {
    scratch: String,
    subject: Vec<u8>,
    predicate: Vec<u8>,
}

/// Reads one line (without its line break). `Ok(None)` for an empty or comment
/// line; [`Unsure`] when the reference parser must decide (it will also give the
/// error of a malformed line). `quads` allows a graph name before the `.`.
pub fn parse_line<'a>(line: &'a str, quads: bool, r: &'a mut LineReader) -> R<Option<Stmt<'a>>> {
    let scratch = &mut r.scratch;
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if i == b.len() || b[i] == b'#' {
        return Ok(None);
    }
    let subject = if b[i] == b'<' {
        let (s, next) = iri(line, i, Some(&mut r.subject))?;
        i = next;
        Some(s)
    } else {
        i = blank(b, i)?;
        None
    };
    i = skip_ws(b, i);
    let (predicate, next) = iri(line, i, Some(&mut r.predicate))?;
    i = skip_ws(b, next);
    let object;
    let mut decoded = None;
    match b.get(i) {
        Some(b'<') => {
            let (o, next) = iri(line, i, None)?;
            object = Obj::Iri(o);
            i = next;
        }
        Some(b'_') => {
            i = blank(b, i)?;
            object = Obj::Other;
        }
        Some(b'"') => {
            let (escaped, start, end, next) = literal(b, i, scratch)?;
            i = next;
            let mut lang = None;
            match b.get(i) {
                Some(b'@') => {
                    let end_tag = lang_tag(b, i + 1)?;
                    lang = Some(&line[i + 1..end_tag]);
                    i = end_tag;
                }
                Some(b'^') => {
                    if b.get(i + 1) != Some(&b'^') {
                        return Err(Unsure);
                    }
                    let (_, next) = iri(line, i + 2, None)?;
                    i = next;
                }
                _ => {}
            }
            if escaped {
                decoded = Some(lang);
                object = Obj::Other;
            } else {
                object = Obj::Literal(&line[start..end], lang);
            }
        }
        _ => return Err(Unsure),
    }
    i = skip_ws(b, i);
    if quads && b.get(i) != Some(&b'.') {
        i = match b.get(i) {
            Some(b'<') => iri(line, i, None)?.1,
            Some(b'_') => blank(b, i)?,
            _ => return Err(Unsure),
        };
        i = skip_ws(b, i);
    }
    if b.get(i) != Some(&b'.') {
        return Err(Unsure);
    }
    i = skip_ws(b, i + 1);
    if i < b.len() && b[i] != b'#' {
        return Err(Unsure);
    }
    let object = match decoded {
        Some(lang) => Obj::Literal(scratch.as_str(), lang),
        None => object,
    };
    Ok(Some(Stmt {
        subject,
        predicate,
        object,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_free_byte_test_agrees_with_the_byte_classes() {
        for c in 0..=255u8 {
            assert_eq!(
                needs_a_look(c),
                BYTE_CLASSES[c as usize] != OK,
                "byte {c:#04x}"
            );
        }
    }

    #[test]
    fn authorities_are_checked_with_and_without_the_http_shortcut() {
        for (iri, ok) in [
            ("http://dbpedia.org/resource/X", true),
            ("https://a.org", true),
            ("http://user@a.org:8080/x", true),
            ("http://a.org:80x/", false),
            ("http://a@b@c.org/", false),
            ("HTTP://a.org:x/", false),
            ("ftp://a.org:21/", true),
            ("ftp://a.org:2x/", false),
            ("http:x", true),
            ("urn:isbn:123", true),
        ] {
            assert_eq!(
                check_scheme_and_authority(iri.as_bytes()).is_ok(),
                ok,
                "{iri}"
            );
        }
    }

    fn p(line: &str) -> R<Option<(Option<String>, String, String)>> {
        let mut r = LineReader::default();
        parse_line(line, true, &mut r).map(|s| {
            s.map(|s| {
                (
                    s.subject.map(str::to_string),
                    s.predicate.to_string(),
                    format!("{:?}", s.object),
                )
            })
        })
    }

    #[test]
    fn common_shapes() {
        let (s, pr, o) = p("<http://a/x> <http://p> <http://b/y> .")
            .unwrap()
            .unwrap();
        assert_eq!(s.as_deref(), Some("http://a/x"));
        assert_eq!(pr, "http://p");
        assert_eq!(o, r#"Iri("http://b/y")"#);
        let (_, _, o) = p(r#"<http://a> <http://p> "Douglas Adams"@en-GB ."#)
            .unwrap()
            .unwrap();
        assert_eq!(o, r#"Literal("Douglas Adams", Some("en-GB"))"#);
        let (_, _, o) = p(r#"<http://a> <http://p> "x\"y\u00e9"^^<http://t> <http://g> ."#)
            .unwrap()
            .unwrap();
        assert_eq!(o, r#"Literal("x\"yé", None)"#);
        let (s, _, o) = p("_:b1 <http://p> _:b2 . # comment").unwrap().unwrap();
        assert_eq!((s, o.as_str()), (None, "Other"));
        assert_eq!(p("   # only a comment"), Ok(None));
        assert_eq!(p(""), Ok(None));
        let (s, _, _) = p("<http://de.dbpedia.org/resource/Köln> <http://p> <http://q> .")
            .unwrap()
            .unwrap();
        assert_eq!(s.as_deref(), Some("http://de.dbpedia.org/resource/Köln"));
    }

    #[test]
    fn unsure_lines_go_to_the_reference_parser() {
        for line in [
            "<http://a> <http://p> <http://b>",
            "<http://a> <http://p> <http://b",
            "<http://a b> <http://p> <http://b> .",
            "<relative> <http://p> <http://b> .",
            "<http://a/%zz> <http://p> <http://b> .",
            "<http://a:port/> <http://p> <http://b> .",
            r"<http://a/\u0041> <http://p> <http://b> .",
            "<http://a> <http://p> \"open .",
            "<http://a> <http://p> \"x\"@ .",
            "<http://a> <http://p> <http://b> . extra",
            "<http://[::1/> <http://p> <http://b> .",
            // found by the `ntriples` fuzz target: an empty IRI matched the empty
            // "last IRI checked" of a new reader, and a port of colons passed
            "<> <http://p> <http://b> .",
            "<http://a> <> <http://b> .",
            "<http://a> <http://p> <> .",
            "<http://d-:::::::::> <http://p> <http://b> .",
            "<http://a> <http://p> <http://d-nb.info::::/gnd/1> .",
        ] {
            assert_eq!(p(line), Err(Unsure), "{line}");
        }
    }
}
