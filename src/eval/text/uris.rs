//! The IRIs T2S-Metrics 1.2.0 finds in a SPARQL text for its
//! `uri_hallucination` (`representation/uri_utils.py::extract_uris`), as its
//! code finds them: `<…>` IRIs outside comments and quoted strings (a `<`
//! opens one when a balanced `>` closes it on the same line), the IRIs of
//! `PREFIX` declarations left out (with and without a final `/`, wherever they
//! occur), then every `prefix:local` name outside strings and comments
//! resolved by the query's own declarations (a name whose prefix the query
//! does not declare is kept as written, `pv:Foo`, an IRI no graph holds),
//! except names whose prefix is a keyword or a URI scheme and names already
//! part of an IRI found so far.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};

use super::tokens::py_space;

/// The prefixes that are never a `prefix:local` name's (lower-cased).
const NOT_PREFIXES: &[&str] = &[
    "prefix", "select", "where", "from", "limit", "offset", "order", "by", "group", "having",
    "values", "union", "optional", "filter", "bind", "http", "https", "ftp", "urn", "mailto",
];

struct Patterns {
    declaration: Regex,
    token: Regex,
    prefixed: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        declaration: RegexBuilder::new(r"PREFIX\s+([a-zA-Z_][\w-]*):\s*<([^>]+)>")
            .case_insensitive(true)
            .build()
            .expect("a valid pattern"),
        token: Regex::new(r#"#.*|/\*[\s\S]*?\*/|'(?:\\.|[^'])*'|"(?:\\.|[^"])*"|<"#)
            .expect("a valid pattern"),
        prefixed: Regex::new(r"\b([a-zA-Z_][\w-]*):([\w\-\.%]+)\b").expect("a valid pattern"),
    })
}

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// For each `<`, the `>` that closes it on its line, counting the `<` and
/// `>` between (the script's scan: depth 1 at the `<`, up at each `<`, down
/// at each `>`, given up at the line's end): the first position after it
/// where the running sum of the line (`<` +1, `>` −1) falls below the sum at
/// the `<`, found for every `<` at once with a stack, from the end (the
/// scan from every `<` made a line of `<` quadratic).
fn closing_brackets(bytes: &[u8]) -> Vec<Option<usize>> {
    let mut out = vec![None; bytes.len()];
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p);
        let mut sum = 0i64;
        let sums: Vec<i64> = bytes[start..end]
            .iter()
            .map(|&b| {
                sum += match b {
                    b'<' => 1,
                    b'>' => -1,
                    _ => 0,
                };
                sum
            })
            .collect();
        // positions to the right whose sums are increasing from the top
        let mut stack: Vec<usize> = Vec::new();
        for k in (0..sums.len()).rev() {
            while stack.last().is_some_and(|&t| sums[t] >= sums[k]) {
                stack.pop();
            }
            if bytes[start + k] == b'<' {
                out[start + k] = stack.last().map(|&t| start + t);
            }
            stack.push(k);
        }
        start = end + 1;
    }
    out
}

/// `extract_uris(sparql)`, in the order they were found.
pub fn extract_uris(sparql: &str) -> Vec<String> {
    if sparql.is_empty() {
        return Vec::new();
    }
    let p = patterns();
    let mut prefixes: HashMap<&str, &str> = HashMap::new();
    for c in p.declaration.captures_iter(sparql) {
        let (Some(name), Some(iri)) = (c.get(1), c.get(2)) else {
            continue;
        };
        prefixes.insert(name.as_str(), iri.as_str());
    }
    let closing = closing_brackets(sparql.as_bytes());
    let mut raw: Vec<&str> = Vec::new();
    let mut clean = String::with_capacity(sparql.len());
    let mut i = 0;
    while i < sparql.len() {
        let Some(m) = p.token.find_at(sparql, i) else {
            clean.push_str(&sparql[i..]);
            break;
        };
        clean.push_str(&sparql[i..m.start()]);
        if m.as_str() == "<" {
            if let Some(close) = closing[m.start()] {
                raw.push(&sparql[m.start() + 1..close]);
                clean.push_str(&sparql[m.start()..=close]);
                i = close + 1;
                continue;
            }
        }
        i = m.end();
    }
    let declared: HashSet<&str> = prefixes
        .values()
        .flat_map(|v| [*v, v.trim_end_matches('/')])
        .collect();
    let mut uris: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for u in raw {
        let u = py_strip(u);
        if !u.is_empty() && !declared.contains(u) && seen.insert(u.to_string()) {
            uris.push(u.to_string());
        }
    }
    for c in p.prefixed.captures_iter(&clean) {
        let (prefix, local) = (&c[1], &c[2]);
        if NOT_PREFIXES.contains(&prefix.to_lowercase().as_str()) {
            continue;
        }
        let full = format!("{prefix}:{local}");
        if uris.iter().any(|u| u.contains(&full)) {
            continue;
        }
        let uri = match prefixes.get(prefix) {
            Some(ns) => format!("{ns}{local}"),
            None => full,
        };
        if seen.insert(uri.clone()) {
            uris.push(uri);
        }
    }
    uris
}

/// The flag in which the execution of a T2S-Metrics file's run keeps each
/// case's [`uri_hallucination`] (the graph is not at hand when profiles score),
/// for the `t2s-metrics` profile to report.
pub const HALLUCINATION_FLAG: &str = "t2s_uri_hallucination";

/// `URIHallucination().compute`: the share of the IRIs of `generated`
/// ([`extract_uris`]) that `in_graph` says no triple holds (as subject,
/// predicate or object); 0 when it names none.
pub fn uri_hallucination(generated: &str, in_graph: impl Fn(&str) -> bool) -> f64 {
    let uris = extract_uris(generated);
    if uris.is_empty() {
        return 0.0;
    }
    let absent = uris.iter().filter(|u| !in_graph(u)).count();
    absent as f64 / uris.len() as f64
}

#[cfg(test)]
mod tests {
    /// The script's scan from one `<`, as it was written.
    fn naive(bytes: &[u8], at: usize) -> Option<usize> {
        let (mut depth, mut j) = (1usize, at + 1);
        while j < bytes.len() && depth > 0 {
            match bytes[j] {
                b'\n' => break,
                b'<' => depth += 1,
                b'>' => depth -= 1,
                _ => {}
            }
            j += 1;
        }
        (depth == 0).then(|| j - 1)
    }

    #[test]
    fn closing_brackets_are_the_scans() {
        let mut texts: Vec<String> = [
            "<<a>", "<a<b>>", "<<>", "x<y\n>", "< a >", "<<<>>", "><><", "<a>\n<b>", "<",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        // every string of length 6 over `<`, `>`, `a` and a newline
        let alphabet = ['<', '>', 'a', '\n'];
        for n in 0..4usize.pow(6) {
            texts.push((0..6).map(|d| alphabet[n / 4usize.pow(d) % 4]).collect());
        }
        for t in &texts {
            let b = t.as_bytes();
            let fast = closing_brackets(b);
            for (k, &c) in b.iter().enumerate() {
                if c == b'<' {
                    assert_eq!(fast[k], naive(b, k), "{t:?} at {k}");
                }
            }
        }
    }

    use super::*;

    #[test]
    fn finds_what_its_code_finds() {
        let q = "PREFIX pv: <http://p/>\nSELECT ?x # <http://comment>\nWHERE { ?x pv:a <http://i/x> ; ex:b \"pv:c <http://s>\" . FILTER(?y < 3) <http://p/> }";
        assert_eq!(extract_uris(q), ["http://i/x", "http://p/a", "ex:b"]);
        assert!(extract_uris("").is_empty());
        // a name already inside a found IRI is not added again
        assert_eq!(
            extract_uris("SELECT * { ?s <urn:x:ex:y> ex:y }"),
            ["urn:x:ex:y"]
        );
        assert_eq!(
            uri_hallucination(q, |u| u.starts_with("http://i/")),
            2.0 / 3.0
        );
        assert_eq!(uri_hallucination("", |_| false), 0.0);
    }

    /// The IRIs T2S-Metrics 1.2.0 itself finds in every generated query of the
    /// nine CK25 team files (`tests/data/t2s-metrics/ck25-uris.json`, made by
    /// `tests/data/t2s-metrics/ck25.sh`).
    #[test]
    fn ck25_iris_are_t2s_metrics_own() {
        let Some(dir) = crate::test_data::shared_data("text2sparql/t2s-metrics/ck25") else {
            return;
        };
        let expected: serde_json::Value = serde_json::from_str(include_str!(
            "../../../tests/data/t2s-metrics/ck25-uris.json"
        ))
        .expect("the fixture parses");
        let mut checked = 0;
        for (team, per_id) in expected.as_object().expect("teams") {
            let text =
                std::fs::read_to_string(dir.join(format!("{team}.jsonl"))).expect("a team file");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let case: serde_json::Value = serde_json::from_str(line).expect("a json line");
                let id = case["id"].as_str().expect("an id");
                let mut ours = extract_uris(case["generated"].as_str().unwrap_or_default());
                ours.sort();
                let theirs: Vec<&str> = per_id[id]
                    .as_array()
                    .expect("its iris")
                    .iter()
                    .map(|v| v.as_str().expect("an iri"))
                    .collect();
                assert_eq!(ours, theirs, "{team} {id}");
                checked += 1;
            }
        }
        assert_eq!(checked, 440);
    }
}
