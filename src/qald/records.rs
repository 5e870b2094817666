//! How many questions a document can make at most, counted from its bytes
//! before any reader allocates for them (docs/scoring.md, Limits): a reader's
//! memory grows with the questions it makes (each is a fixed-size record of
//! some 800 bytes, whatever the few bytes of text that made it), so the count
//! is taken lexically first, in one pass that allocates nothing, and a
//! document past the cap is a located error before any tree or question is
//! built. The count is an upper bound of what every reader of this module
//! makes of the same bytes (a test holds it to that on every real file):
//!
//! - JSON: with one top-level value, its entries (the elements of a top-level
//!   array, the keys of a top-level object) and the objects one level below
//!   them (the elements of a `questions` list); with several (JSON Lines),
//!   the top-level values;
//! - QALD-XML: the `<question` elements;
//! - a KQA Pro prediction file (`.txt`): its lines, empty ones too;
//! - Turtle (the QAWiki dump): its statements (a question is an item, the
//!   subject of at least one), counted by the `.` that ends each outside IRIs,
//!   strings and comments;
//! - any other text (YAML): its lines and commas (a question is an item of
//!   a sequence: on a line of its own, or after a comma in a flow sequence).

/// The most questions one document may make, for every door (files, the
/// server, Python); the server's own caps are lower.
pub const MAX_QUESTIONS: usize = 1_000_000;

/// The upper bound of a document's questions and, when the count passed a
/// cap, the byte offset where the first question past it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// The questions the document can make at most.
    pub questions: usize,
    /// Where the question past the cap starts, when there is one.
    pub past: Option<usize>,
}

/// Counts the questions `body` (the document's bytes, BOM stripped) can make
/// at most, read under the name `source`, noting where the count passes `cap`.
pub fn bound(body: &[u8], source: &str, cap: usize) -> Bound {
    let first = body.iter().position(|b| !b.is_ascii_whitespace());
    if super::kqapro::is_predictions(source) {
        return lines(body, cap);
    }
    match first.map(|i| body[i]) {
        None => Bound {
            questions: 0,
            past: None,
        },
        Some(b'{' | b'[') => json(body, cap),
        Some(b'<') => xml(body, cap),
        Some(_) if super::qawiki::looks_like(body) => turtle(body, cap),
        Some(_) => text(body, cap),
    }
}

/// A running count that notes where it passes its cap.
struct Counter {
    n: usize,
    cap: usize,
    past: Option<usize>,
}

impl Counter {
    fn new(cap: usize) -> Self {
        Counter {
            n: 0,
            cap,
            past: None,
        }
    }

    fn add(&mut self, at: usize) {
        self.n += 1;
        if self.n > self.cap && self.past.is_none() {
            self.past = Some(at);
        }
    }

    fn bound(&self) -> Bound {
        Bound {
            questions: self.n,
            past: self.past,
        }
    }
}

/// One question per line, empty ones too (a carriage return ends one as a
/// newline does).
fn lines(body: &[u8], cap: usize) -> Bound {
    let mut count = Counter::new(cap);
    count.add(0);
    for at in memchr::memchr2_iter(b'\n', b'\r', body) {
        count.add(at + 1);
    }
    count.bound()
}

/// One question per `<question` element.
fn xml(body: &[u8], cap: usize) -> Bound {
    let mut count = Counter::new(cap);
    for at in memchr::memmem::find_iter(body, b"<question") {
        let next = body.get(at + "<question".len()).copied();
        if next.is_none_or(|b| b.is_ascii_whitespace() || b == b'>' || b == b'/') {
            count.add(at);
        }
    }
    count.bound()
}

/// One question per line or comma.
fn text(body: &[u8], cap: usize) -> Bound {
    let mut count = Counter::new(cap);
    count.add(0);
    for (at, _) in body
        .iter()
        .enumerate()
        .filter(|(_, b)| matches!(b, b'\n' | b','))
    {
        count.add(at);
    }
    count.bound()
}

/// One question per Turtle statement: a `.` followed by whitespace (or the
/// end) outside IRIs, strings (short and long) and comments.
fn turtle(body: &[u8], cap: usize) -> Bound {
    let mut count = Counter::new(cap);
    count.add(0);
    let mut at = 0;
    while at < body.len() {
        match body[at] {
            b'#' => at = memchr::memchr(b'\n', &body[at..]).map_or(body.len(), |n| at + n),
            b'<' if body.get(at + 1) == Some(&b'<') => at += 1,
            b'<' => at = memchr::memchr(b'>', &body[at..]).map_or(body.len(), |n| at + n),
            quote @ (b'"' | b'\'') => {
                let long = body.get(at + 1) == Some(&quote) && body.get(at + 2) == Some(&quote);
                at += if long { 3 } else { 1 };
                while at < body.len() {
                    if body[at] == b'\\' {
                        at += 2;
                        continue;
                    }
                    if body[at] == quote
                        && (!long
                            || (body.get(at + 1) == Some(&quote)
                                && body.get(at + 2) == Some(&quote)))
                    {
                        at += if long { 2 } else { 0 };
                        break;
                    }
                    // a short string ends at its line
                    if !long && body[at] == b'\n' {
                        break;
                    }
                    at += 1;
                }
            }
            b'.' if body.get(at + 1).is_none_or(u8::is_ascii_whitespace) => count.add(at),
            _ => {}
        }
        at += 1;
    }
    count.bound()
}

/// JSON (or JSON Lines): see the module's comment. Strings are skipped with
/// their escapes; the text need not be valid (a reader says where it is not).
fn json(body: &[u8], cap: usize) -> Bound {
    // values at the top level, and entries of one top-level value
    let (mut top, mut inner) = (Counter::new(cap), Counter::new(cap));
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, &b) in body.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                match depth {
                    // a top-level value, and the first entry of it (an
                    // empty one counts as one: a bound may be high)
                    0 => {
                        top.add(at);
                        inner.add(at);
                    }
                    // an object one level below the entries
                    2 if b == b'{' => inner.add(at),
                    _ => {}
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => inner.add(at),
            _ => {}
        }
    }
    if top.n > 1 {
        top.bound()
    } else {
        inner.bound()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(body: &str, source: &str) -> usize {
        bound(body.as_bytes(), source, usize::MAX).questions
    }

    #[test]
    fn a_bound_counts_questions_not_their_fields() {
        let qald = r#"{"dataset": {"id": "x"}, "questions": [{"id": "1", "query": {"sparql": "ASK {}"}, "answers": [{"boolean": true}]}, {"id": "2"}]}"#;
        let n = count(qald, "g.json");
        assert!((2..=6).contains(&n), "{n}");
        let records = r#"[{"_id": "1", "sparql_query": "a, b"}, {"_id": "2"}, {"_id": "3"}]"#;
        let n = count(records, "l.json");
        assert!((3..=6).contains(&n), "{n}");
        let lines = "{\"id\": \"1\", \"a\": [1, 2], \"b\": 3}\n{\"id\": \"2\", \"a\": 1}\n";
        assert_eq!(count(lines, "r.jsonl"), 2);
        let result_set =
            r#"{"db:1-en": {"a": 1, "b": 1}, "db:2-en": {}, "order_required": ["db:1-en"]}"#;
        let n = count(result_set, "rs.json");
        assert!((3..=6).contains(&n), "{n}");
        let xml = "<dataset><question id=\"1\"><string/></question><question id='2'/><questions/></dataset>";
        assert_eq!(count(xml, "g.xml"), 2);
        assert!(count("a\nb\n\nc", "p.txt") >= 4);
        assert!(count("questions:\n  - id: 1\n  - id: 2\n", "b.yaml") >= 2);
        let turtle = "@prefix wd: <https://qawiki.org/entity/> .\n# a comment .\nwd:Q1 wd:P1 wd:Q1 ; wd:P2 \"a . b\" .\nwd:Q2 wd:P1 <http://x.org/a. b> .\nwd:Q3 wd:P3 \"\"\"x .\n y\"\"\" , 1.5 .";
        assert_eq!(count(turtle, "q.ttl"), 5);
    }

    #[test]
    fn the_bound_tells_where_it_passes_its_cap() {
        let body = r#"{"questions": [{"id": "1"}, {"id": "2"}, {"id": "3"}]}"#;
        let b = bound(body.as_bytes(), "g.json", 2);
        assert!(b.questions > 2);
        let at = b.past.expect("past the cap");
        assert!(body[at..].starts_with("{\"id\": \"2\"}"), "{}", &body[at..]);
        let escaped = r#"{"questions": [{"id": "a\"},{\"b"}]}"#;
        assert!(count(escaped, "g.json") <= 3);
    }
}

#[cfg(test)]
mod real_data {
    use super::*;

    /// Every file of these kinds below `dir`.
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ["json", "jsonl", "xml", "yaml", "yml", "ttl", "txt"].contains(&e))
            {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_bound_is_at_least_what_every_real_file_reads_as() {
        let Some(dir) = crate::test_data::shared_data("") else {
            return;
        };
        let mut all = Vec::new();
        files(&dir, &mut all);
        let mut read = 0;
        for path in all {
            let bytes = std::fs::read(&path).expect("readable");
            let name = path.display().to_string();
            let Ok(dataset) = crate::qald::parse(&bytes, &name) else {
                continue;
            };
            let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
            let counted = bound(body, &name, usize::MAX).questions;
            let own = dataset.own_gold.as_ref().map_or(0, |g| g.questions.len());
            let made = dataset.questions.len().max(own);
            assert!(counted >= made, "{name}: counted {counted}, read {made}");
            // a bound far above the questions would refuse real files early
            assert!(
                counted <= made.max(10) * 40,
                "{name}: counted {counted}, read {made}"
            );
            read += 1;
        }
        assert!(read > 50, "{read} real files read");
    }
}
