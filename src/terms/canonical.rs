//! Canonical IRIs (docs/scoring.md, Sameness): the rules that make two spellings of one DBpedia,
//! Wikipedia, Wikidata or Freebase IRI equal without any index, including the
//! ids written without an IRI that Freebase and Wikidata benchmarks use
//! (`m.0abc`, `ns:m.0abc`, `/m/0abc`, `Q42`, `wd:Q42`). Pure string work.

use std::borrow::Cow;

/// Hosts whose `https://` and `http://` forms are the same.
fn is_kg_host(host: &str) -> bool {
    const ROOTS: [&str; 5] = [
        "dbpedia.org",
        "wikidata.org",
        "wikipedia.org",
        "freebase.com",
        "rdf.freebase.com",
    ];
    ROOTS
        .iter()
        .any(|root| host == *root || host.strip_suffix(root).is_some_and(|p| p.ends_with('.')))
}

/// The first position of an ASCII byte in `s`: a plain loop, which for IRI-sized
/// strings beats `str::find`'s general searcher (a third of the time of
/// [`canonical_iri`] went there).
fn find_byte(s: &str, b: u8) -> Option<usize> {
    s.bytes().position(|x| x == b)
}

/// Whether `s` holds an ASCII byte: a loop without an early exit, which the
/// compiler turns into vector instructions.
fn has_byte(s: &str, b: u8) -> bool {
    s.bytes().fold(false, |found, x| found | (x == b))
}

/// Where the authority at the start of `rest` (what follows `scheme://`) ends
/// (at its first `/`, or the end), and whether it holds an upper-case letter:
/// for the first 32 bytes, one pass without branches that the compiler turns
/// into vector instructions (two byte loops with exits that are hard to predict
/// were a third of [`canonical_form`]'s time).
fn authority_end(rest: &str) -> (usize, bool) {
    let bytes = rest.as_bytes();
    if let Some(head) = bytes.get(..32) {
        let (mut slashes, mut upper) = (0u32, 0u32);
        for (i, &c) in head.iter().enumerate() {
            slashes |= u32::from(c == b'/') << i;
            upper |= u32::from(c.is_ascii_uppercase()) << i;
        }
        if slashes != 0 {
            let end = slashes.trailing_zeros();
            return (end as usize, upper & ((1u32 << end) - 1) != 0);
        }
    }
    let end = find_byte(rest, b'/').unwrap_or(rest.len());
    (end, bytes[..end].iter().any(u8::is_ascii_uppercase))
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes every `%XX` except those that would change the IRI's structure
/// (`%2F`, `%3F`, `%23`, `%25`), which are kept with upper-case hex. A decoded
/// byte that forms a new escape with the text before it (`%3%37` → `%37` → `7`)
/// is decoded too, so that the result has no escape left to decode: decoding is
/// idempotent, in one pass. When the decoded bytes are not UTF-8 the input is
/// returned with its escapes upper-cased.
pub fn percent_decode(s: &str) -> Cow<'_, str> {
    if !has_byte(s, b'%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut kept = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        // the input's own escapes, upper-cased, for the fallback
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(_), Some(_)) = (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                kept.extend_from_slice(&[
                    b'%',
                    bytes[i + 1].to_ascii_uppercase(),
                    bytes[i + 2].to_ascii_uppercase(),
                ]);
                out.extend_from_slice(&bytes[i..i + 3]);
                decode_tail(&mut out);
                i += 3;
                continue;
            }
        }
        kept.push(bytes[i]);
        out.push(bytes[i]);
        decode_tail(&mut out);
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Owned(String::from_utf8(kept).unwrap_or_else(|_| s.to_string())),
    }
}

/// Decodes the escape that `out` ends with, and again while the decoded byte
/// makes a new one; a structural escape is kept with upper-case hex.
fn decode_tail(out: &mut Vec<u8>) {
    while let [.., b'%', h, l] = out[..] {
        let (Some(hv), Some(lv)) = (hex_val(h), hex_val(l)) else {
            return;
        };
        let v = hv * 16 + lv;
        let n = out.len();
        if matches!(v, b'/' | b'?' | b'#' | b'%') {
            out[n - 2] = h.to_ascii_uppercase();
            out[n - 1] = l.to_ascii_uppercase();
            return;
        }
        out.truncate(n - 3);
        out.push(v);
    }
}

/// `http://` + host + path, in one allocation; `None` when `decoded` reads so
/// already (the common case, which then costs no allocation).
fn http(decoded: &str, host: &str, parts: &[&str]) -> Option<String> {
    let mut rest = decoded
        .strip_prefix("http://")
        .and_then(|r| r.strip_prefix(host));
    for p in parts {
        rest = rest.and_then(|r| r.strip_prefix(p));
    }
    if rest.is_some_and(str::is_empty) {
        return None;
    }
    let len = 7 + host.len() + parts.iter().map(|p| p.len()).sum::<usize>();
    let mut out = String::with_capacity(len);
    out.push_str("http://");
    out.push_str(host);
    for p in parts {
        out.push_str(p);
    }
    Some(out)
}

/// A title with spaces read as underscores.
fn title(t: &str) -> Cow<'_, str> {
    if has_byte(t, b' ') {
        Cow::Owned(t.replace(' ', "_"))
    } else {
        Cow::Borrowed(t)
    }
}

/// The canonical form of an IRI under docs/scoring.md (Sameness). Equal canonical forms mean the
/// same resource; anything that is not an http(s) IRI is only percent-normalised.
pub fn canonical_iri(iri: &str) -> String {
    canonical_form(iri).into_owned()
}

/// [`canonical_iri`] without a copy when the IRI is already canonical (as most
/// IRIs of dumps are): the IRI itself (trimmed) is borrowed then.
pub fn canonical_form(iri: &str) -> Cow<'_, str> {
    let once = canonical_step(iri);
    let Cow::Owned(mut current) = once else {
        return once;
    };
    // a step can make what the next step changes again (a decoded byte that
    // completes an escape with the text before it, a decoded host, a decoded
    // space at an end): the canonical form is the step's fixed point, so that
    // it is idempotent (found by the `canonical` fuzz target)
    for _ in 0..MAX_STEPS {
        match canonical_step(&current) {
            Cow::Borrowed(same) if same.len() == current.len() => break,
            next => current = next.into_owned(),
        }
    }
    Cow::Owned(current)
}

/// Steps after the first towards the fixed point; real IRIs need at most one.
const MAX_STEPS: usize = 16;

/// One step of [`canonical_form`]: trimmed, percent-decoded, rewritten.
fn canonical_step(iri: &str) -> Cow<'_, str> {
    let decoded = percent_decode(trim(iri));
    match rewrite(&decoded) {
        None => decoded,
        Some(canonical) => Cow::Owned(canonical),
    }
}

/// The canonical form of a percent-decoded IRI, or `None` when it is that IRI.
fn rewrite(decoded: &str) -> Option<String> {
    let split = find_byte(decoded, b':')
        .filter(|&c| decoded[c + 1..].starts_with("//"))
        .map(|c| (&decoded[..c], &decoded[c + 3..]));
    let (scheme, rest) = match split {
        Some((s, r)) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => (s, r),
        Some(_) => return None,
        None => return kg_id_iri(decoded),
    };
    let (end, lowered) = authority_end(rest);
    let (authority, path) = rest.split_at(end);
    let lower;
    let host = if lowered {
        lower = authority.to_ascii_lowercase();
        lower.as_str()
    } else {
        authority
    };
    if !is_kg_host(host) {
        let lower_scheme = scheme == "http" || scheme == "https";
        if lower_scheme && !lowered {
            return None;
        }
        let scheme = if lower_scheme {
            Cow::Borrowed(scheme)
        } else {
            Cow::Owned(scheme.to_ascii_lowercase())
        };
        let mut out = String::with_capacity(scheme.len() + 3 + host.len() + path.len());
        out.push_str(&scheme);
        out.push_str("://");
        out.push_str(host);
        out.push_str(path);
        return Some(out);
    }
    // From here on the scheme is http.
    if host == "dbpedia.org" || host.ends_with(".dbpedia.org") {
        let host = if host == "en.dbpedia.org" || host == "www.dbpedia.org" {
            "dbpedia.org"
        } else {
            host
        };
        if let Some(t) = path
            .strip_prefix("/page/")
            .or_else(|| path.strip_prefix("/resource/"))
        {
            return http(decoded, host, &["/resource/", &title(t)]);
        }
        return http(decoded, host, &[path]);
    }
    if let Some(lang) = host.strip_suffix(".wikipedia.org") {
        let lang = lang.strip_suffix(".m").unwrap_or(lang);
        if let Some(t) = path.strip_prefix("/wiki/") {
            let t = title(t);
            return if lang == "en" || lang == "www" {
                http(decoded, "dbpedia.org", &["/resource/", &t])
            } else {
                http(decoded, lang, &[".dbpedia.org/resource/", &t])
            };
        }
        return http(decoded, host, &[path]);
    }
    if host == "wikidata.org" || host == "www.wikidata.org" || host == "m.wikidata.org" {
        let id = path
            .strip_prefix("/wiki/")
            .map(|t| {
                t.strip_prefix("Property:")
                    .or_else(|| t.strip_prefix("Lexeme:"))
                    .or_else(|| t.strip_prefix("Item:"))
                    .unwrap_or(t)
            })
            .or_else(|| path.strip_prefix("/entity/"));
        if let Some(id) = id {
            if is_wikidata_id(id) {
                return http(decoded, "www.wikidata.org", &["/entity/", id]);
            }
        }
        return http(decoded, host, &[path]);
    }
    if host == "rdf.freebase.com" || host == "www.freebase.com" || host == "freebase.com" {
        let mid = path
            .strip_prefix("/ns/")
            .or_else(|| path.strip_prefix("/"))
            .and_then(freebase_mid);
        if let Some(mid) = mid {
            return http(decoded, "rdf.freebase.com", &["/ns/", &mid]);
        }
        return http(decoded, host, &[path]);
    }
    http(decoded, host, &[path])
}

/// The IRI form GERBIL compares (the `gerbil` profile, docs/scoring.md (Profiles)): only
/// `en.dbpedia.org` = `dbpedia.org`, the last path segment percent-decoded, and the
/// bridge `xx.wikipedia.org/wiki/T` = `xx.dbpedia.org/resource/T`
/// (`en.wikipedia.org` = `dbpedia.org`); schemes and everything else as written.
pub fn gerbil_iri(iri: &str) -> String {
    let iri = iri.trim();
    let Some((scheme, rest)) = iri.split_once("://") else {
        return iri.to_string();
    };
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (dir, last) = match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => (path, ""),
    };
    let last = percent_decode(last);
    if let Some(lang) = host.strip_suffix(".wikipedia.org") {
        if dir == "/wiki/" {
            return if lang == "en" {
                format!("http://dbpedia.org/resource/{last}")
            } else {
                format!("http://{lang}.dbpedia.org/resource/{last}")
            };
        }
    }
    let host = if host == "en.dbpedia.org" {
        "dbpedia.org"
    } else {
        host
    };
    format!("{scheme}://{host}{dir}{last}")
}

fn is_wikidata_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('Q' | 'P' | 'L'))
        && id.len() > 1
        && chars.all(|c| c.is_ascii_digit())
}

/// `m.0abc`, `m/0abc`, `/m/0abc`, `g.11b…` → `m.0abc` (the dotted Freebase id;
/// borrowed when `s` is written so, as in Freebase's own IRIs).
fn freebase_mid(s: &str) -> Option<Cow<'_, str>> {
    let s = s.strip_prefix('/').unwrap_or(s);
    let (kind, id) = s.split_at_checked(1)?;
    if !(kind == "m" || kind == "g") {
        return None;
    }
    let (dotted, id) = match id.strip_prefix('.') {
        Some(id) => (true, id),
        None => (false, id.strip_prefix('/')?),
    };
    if id.is_empty() || !id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return None;
    }
    Some(if dotted {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("{kind}.{id}"))
    })
}

/// The canonical IRI of a Freebase or Wikidata id written without an IRI, as
/// the benchmarks of docs/scoring.md (Other benchmark families) write them:
/// `m.0abc`, `g.11b…`, `ns:m.0abc`, `/m/0abc` (Wikidata's P646 form) →
/// `http://rdf.freebase.com/ns/m.0abc`; `Q42`, `wd:Q42` (and P, L ids) →
/// `http://www.wikidata.org/entity/Q42`. `None` for anything else.
pub fn kg_id_iri(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(id) = s
        .strip_prefix("wd:")
        .or(Some(s))
        .filter(|id| is_wikidata_id(id))
    {
        return Some(format!("http://www.wikidata.org/entity/{id}"));
    }
    let mid = s.strip_prefix("ns:").unwrap_or(s);
    // `m/0abc` without its leading slash is a relative path, not an id
    if !(mid.starts_with('/') || mid.as_bytes().get(1) == Some(&b'.')) {
        return None;
    }
    freebase_mid(mid).map(|mid| format!("http://rdf.freebase.com/ns/{mid}"))
}

/// `s` without white space at either end: itself, without a search, when it
/// starts and ends with visible ASCII (as IRIs of dumps do).
fn trim(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&a), Some(&z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// The canonical IRI named by a Wikidata Freebase-id literal (P646), `"/m/0abc"`.
pub fn freebase_literal_iri(lexical: &str) -> Option<String> {
    let lexical = lexical.trim();
    if !lexical.starts_with('/') {
        return None;
    }
    freebase_mid(lexical).map(|mid| format!("http://rdf.freebase.com/ns/{mid}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_form_is_idempotent_on_what_the_fuzzer_found() {
        // a decoded byte completing an escape (`%2` + `%66`), a decoded space at
        // an end, a host that decodes into upper case (the `canonical` fuzz
        // target's crashes)
        for iri in [
            "%2002%07g/%%0",
            "httPs://dbpedi\u{7f}%2%66666/eunis.eea.europa.eu",
            "https://dbpediaNorg/resourca\0\u{7}/ow%0D",
            "http://a.org/x%2%66%2%66",
            "http://%44Bpedia.org/resource/X",
            " %20http://dbpedia.org/page/A",
            // chains longer than the steps the fixed point allows: each decoded
            // `7` completes `%37` with the `%3` before it (second fuzz run)
            "http://d%s%3%C%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%37\r",
            "httpp://www.w\u{11}\u{15}@%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%3%37/owl#samAs",
            "http://%3%3%3%3%%%%%%%33333333333333333333333%37/o}l%%%%%%%%%%%%%%%%%3%333333333333333333333333%37/o}l#sam\0\0",
        ] {
            let once = canonical_iri(iri);
            assert_eq!(canonical_iri(&once), once, "{iri:?}");
            assert_eq!(canonical_form(iri), once.as_str(), "{iri:?}");
        }
        let chain = format!("http://a.org/{}7", "%3".repeat(10_000));
        assert_eq!(percent_decode(&chain), "http://a.org/7");
        assert_eq!(percent_decode("%2%66%3%37%%337"), "%2F77");
        // real IRIs are unchanged by the fixed point
        assert_eq!(
            canonical_iri("https://en.wikipedia.org/wiki/Barack%20Obama"),
            "http://dbpedia.org/resource/Barack_Obama"
        );
    }

    #[test]
    fn the_trim_shortcut_agrees_with_str_trim() {
        for s in [
            "",
            " ",
            "x",
            " http://a.org/x ",
            "http://a.org/x",
            "http://a.org/x\n",
            "\u{a0}http://a.org/é",
            "http://a.org/é",
            "http://a.org/x\u{2003}",
            "\thttp://a.org/x",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
    }

    #[test]
    fn freebase_ids_are_borrowed_when_dotted() {
        assert!(matches!(
            freebase_mid("m.0abc"),
            Some(Cow::Borrowed("m.0abc"))
        ));
        assert!(matches!(
            freebase_mid("/m.0abc"),
            Some(Cow::Borrowed("m.0abc"))
        ));
        assert_eq!(freebase_mid("/m/0abc").as_deref(), Some("m.0abc"));
        assert_eq!(freebase_mid("g/11b_x").as_deref(), Some("g.11b_x"));
        assert_eq!(freebase_mid("m.0ab-c"), None);
        assert_eq!(freebase_mid("m.é"), None);
        assert_eq!(freebase_mid("x.0abc"), None);
        assert_eq!(freebase_mid("m."), None);
    }

    #[test]
    fn authority_ends_agree_with_a_plain_search() {
        let long = "a".repeat(40);
        for rest in [
            "",
            "dbpedia.org",
            "dbpedia.org/resource/X",
            "DBpedia.org/resource/X",
            "dbpedia.org/Resource/X",
            "www.wikidata.org/entity/Q42",
            "WWW.WIKIDATA.ORG/entity/Q42",
            "/x",
            "a234567890123456789012345678901/",
            "a2345678901234567890123456789012/",
            "A2345678901234567890123456789012/",
            &format!("{long}/X"),
            &format!("{long}B/X"),
            &format!("{long}/B"),
            "é.org/X",
        ] {
            let end = rest.find('/').unwrap_or(rest.len());
            let upper = rest[..end].bytes().any(|b| b.is_ascii_uppercase());
            assert_eq!(authority_end(rest), (end, upper), "{rest}");
        }
    }

    fn same(a: &str, b: &str) {
        assert_eq!(canonical_iri(a), canonical_iri(b), "{a} vs {b}");
    }
    fn differ(a: &str, b: &str) {
        assert_ne!(canonical_iri(a), canonical_iri(b), "{a} vs {b}");
    }

    #[test]
    fn canonical_iris_are_borrowed_and_others_rewritten() {
        for iri in [
            "http://dbpedia.org/resource/Douglas_Adams",
            "http://de.dbpedia.org/resource/Köln",
            "http://www.wikidata.org/entity/Q42",
            "http://rdf.freebase.com/ns/m.0282x",
            "https://example.org/A",
            "urn:isbn:0451450523",
        ] {
            assert!(
                matches!(canonical_form(iri), Cow::Borrowed(c) if c == iri),
                "{iri}"
            );
        }
        for (iri, canonical) in [
            (
                "https://dbpedia.org/resource/Douglas_Adams",
                "http://dbpedia.org/resource/Douglas_Adams",
            ),
            (
                "http://en.wikipedia.org/wiki/Douglas Adams",
                "http://dbpedia.org/resource/Douglas_Adams",
            ),
            (
                "http://wikidata.org/entity/Q42",
                "http://www.wikidata.org/entity/Q42",
            ),
            ("HTTP://Example.org/A", "http://example.org/A"),
            ("https://Example.org/A", "https://example.org/A"),
            (
                " http://dbpedia.org/resource/X ",
                "http://dbpedia.org/resource/X",
            ),
            (
                "http://dbpedia.org/resource/K%C3%B6ln",
                "http://dbpedia.org/resource/Köln",
            ),
        ] {
            let got = canonical_form(iri);
            assert_eq!(got, canonical, "{iri}");
            assert_eq!(got, canonical_iri(iri), "{iri}");
        }
    }

    #[test]
    fn gerbil_rules_are_fewer() {
        let g = gerbil_iri;
        assert_eq!(
            g("http://en.dbpedia.org/resource/Caf%C3%A9"),
            "http://dbpedia.org/resource/Café"
        );
        assert_eq!(
            g("https://de.wikipedia.org/wiki/Berlin"),
            "http://de.dbpedia.org/resource/Berlin"
        );
        assert_eq!(
            g("http://en.wikipedia.org/wiki/Berlin"),
            "http://dbpedia.org/resource/Berlin"
        );
        // no /page/ rule, no http/https rule, no Wikidata or Freebase rules
        assert_ne!(
            g("http://dbpedia.org/page/Berlin"),
            g("http://dbpedia.org/resource/Berlin")
        );
        assert_ne!(
            g("https://dbpedia.org/resource/Berlin"),
            g("http://dbpedia.org/resource/Berlin")
        );
        assert_ne!(
            g("https://www.wikidata.org/wiki/Q64"),
            g("http://www.wikidata.org/entity/Q64")
        );
    }

    #[test]
    fn http_and_https_on_kg_hosts_only() {
        same(
            "https://dbpedia.org/resource/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
        same(
            "https://de.dbpedia.org/resource/Berlin",
            "http://de.dbpedia.org/resource/Berlin",
        );
        same(
            "https://www.wikidata.org/entity/Q64",
            "http://www.wikidata.org/entity/Q64",
        );
        differ("https://example.org/a", "http://example.org/a");
    }

    #[test]
    fn dbpedia_page_resource_and_en_host() {
        same(
            "http://dbpedia.org/page/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
        same(
            "http://en.dbpedia.org/resource/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
        differ(
            "http://de.dbpedia.org/resource/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
        differ(
            "http://dbpedia.org/ontology/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
    }

    #[test]
    fn wikipedia_is_dbpedia() {
        same(
            "https://en.wikipedia.org/wiki/Douglas_Adams",
            "http://dbpedia.org/resource/Douglas_Adams",
        );
        same(
            "http://en.wikipedia.org/wiki/Douglas Adams",
            "http://dbpedia.org/resource/Douglas_Adams",
        );
        same(
            "https://de.wikipedia.org/wiki/Berlin",
            "http://de.dbpedia.org/resource/Berlin",
        );
        differ(
            "https://de.wikipedia.org/wiki/Berlin",
            "http://dbpedia.org/resource/Berlin",
        );
    }

    #[test]
    fn percent_encoding_twins() {
        same(
            "http://dbpedia.org/resource/Hal_Roach%2C_Jr.",
            "http://dbpedia.org/resource/Hal_Roach,_Jr.",
        );
        same(
            "http://dbpedia.org/resource/Tom%27s_(band)",
            "http://dbpedia.org/resource/Tom's_%28band%29",
        );
        same(
            "http://dbpedia.org/resource/Caf%C3%A9",
            "http://dbpedia.org/resource/Café",
        );
        same(
            "http://dbpedia.org/resource/New%20York",
            "http://dbpedia.org/resource/New_York",
        );
        same("http://example.org/a%2fb", "http://example.org/a%2Fb");
        differ("http://example.org/a%2Fb", "http://example.org/a/b");
        differ("http://example.org/a%3Fb", "http://example.org/a?b");
        differ("http://example.org/a%23b", "http://example.org/a#b");
        // invalid UTF-8 stays encoded
        assert_eq!(
            canonical_iri("http://example.org/%ff"),
            "http://example.org/%FF"
        );
        // a trailing lone percent is kept
        assert_eq!(
            canonical_iri("http://example.org/50%"),
            "http://example.org/50%"
        );
    }

    #[test]
    fn wikidata_wiki_and_entity() {
        same(
            "https://www.wikidata.org/wiki/Q42",
            "http://www.wikidata.org/entity/Q42",
        );
        same(
            "http://wikidata.org/entity/Q42",
            "http://www.wikidata.org/entity/Q42",
        );
        same(
            "https://www.wikidata.org/wiki/Property:P31",
            "http://www.wikidata.org/entity/P31",
        );
        same(
            "https://www.wikidata.org/wiki/Lexeme:L7",
            "http://www.wikidata.org/entity/L7",
        );
        differ(
            "http://www.wikidata.org/prop/direct/P31",
            "http://www.wikidata.org/entity/P31",
        );
        differ(
            "http://www.wikidata.org/entity/Q42",
            "http://www.wikidata.org/entity/Q43",
        );
    }

    #[test]
    fn freebase_spellings() {
        same(
            "http://rdf.freebase.com/ns/m.0282x",
            "http://rdf.freebase.com/ns/m/0282x",
        );
        same(
            "https://www.freebase.com/m/0282x",
            "http://rdf.freebase.com/ns/m.0282x",
        );
        assert_eq!(
            freebase_literal_iri("/m/0282x").as_deref(),
            Some("http://rdf.freebase.com/ns/m.0282x")
        );
        assert_eq!(freebase_literal_iri("m0282x"), None);
    }

    #[test]
    fn ids_written_without_an_iri() {
        for written in [
            "m.0282x",
            "ns:m.0282x",
            "/m/0282x",
            " http://rdf.freebase.com/ns/m.0282x",
            "https://rdf.freebase.com/ns/m/0282x",
        ] {
            same(written, "http://rdf.freebase.com/ns/m.0282x");
        }
        same("g.11b6w4ryhj", "http://rdf.freebase.com/ns/g.11b6w4ryhj");
        same("ns:g.11b6w4ryhj", "http://rdf.freebase.com/ns/g.11b6w4ryhj");
        for written in ["Q42", "wd:Q42", "https://www.wikidata.org/wiki/Q42"] {
            same(written, "http://www.wikidata.org/entity/Q42");
        }
        same("wd:P31", "http://www.wikidata.org/entity/P31");
        // not ids: kept as written (and not equal to the id they resemble)
        for other in [
            "m/0282x",
            "x.0282x",
            "ns:Q42",
            "Q42a",
            "q42",
            "m.",
            "wd:m.0282x",
            "mm.0282x",
        ] {
            assert_eq!(kg_id_iri(other), None, "{other}");
            assert_eq!(canonical_iri(other), other, "{other}");
        }
        differ("m.0282x", "m.0282X");
        // the rewritten form is canonical already (idempotent)
        for written in ["m.0282x", "wd:Q42", "/g/11b6w4ryhj"] {
            let once = canonical_iri(written);
            assert_eq!(canonical_iri(&once), once);
        }
    }
}
