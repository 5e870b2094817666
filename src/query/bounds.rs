//! The bounds a SPARQL text must keep before a recursive parser sees it, read
//! from the text alone: its size, and how deeply its brackets nest. The SPARQL
//! parser recurses once per bracket level, and once per link of a chain
//! (`1+1+…`, `… UNION …`: read in a loop, then checked recursively), so a text
//! within these bounds parses on a known stack, the caller's when it is small
//! and a deep one otherwise; how deep the parsed algebra is, chains included,
//! is checked after parsing (`depth.rs`). The scan is conservative: where it
//! cannot tell a string, a comment or an IRI from code (`?x<(1)>2` is both), it
//! never counts less nesting than a parser can find.

use super::SparqlError;

/// The longest query text read: 1 MiB (a query of the field is a few hundred
/// bytes; a VALUES block of thousands of IRIs fits).
pub const MAX_QUERY_BYTES: usize = 1 << 20;

/// The deepest bracket nesting read (`(`, `{`, `[`, `<<`): queries of the
/// field nest fewer than 10 levels.
pub const MAX_NESTING: usize = 64;

/// The most distinct variable names a query text may write (`?x`, `$x`). The
/// SPARQL parser checks a `SELECT`'s variables against each other in time
/// that grows as the square of their number (16,000 variables took seconds);
/// queries of the field have a few dozen.
pub const MAX_VARIABLES: usize = 1024;

/// The deepest algebra read (levels of operators and groups): far beyond a
/// query of the field (a FILTER of a few hundred `||` alternatives is some
/// hundreds deep), and within what the walks need on a deep stack
/// ([`crate::stack::DEEP_STACK_BYTES`]).
pub const MAX_DEPTH: usize = 2000;

/// The most triple patterns a query executed on an embedded store may have
/// (property paths count one each), in all its groups together: the store's
/// optimizer joins the groups and orders their patterns without checking the
/// deadline, in time that grows as the fourth power of their number when
/// they share a variable (a debug build: 64 patterns 0.7 s, 96 3.6 s, 128
/// 12.5 s). Queries of the field have a few dozen at most; docs/benchmarks.md
/// (hostile sizes) gives the planning time at the bound.
pub const MAX_TRIPLE_PATTERNS: usize = 64;

/// The most algebra nodes (operators, expressions, triple patterns) of a
/// query executed on an embedded store.
pub const MAX_ALGEBRA_NODES: usize = 8192;

/// The deepest bracket nesting of a text qajudge wrote back from an algebra
/// within [`MAX_DEPTH`] (each node writes at most two levels).
pub const MAX_WRITTEN_NESTING: usize = 2 * MAX_DEPTH + MAX_NESTING;

/// Texts nested at most this many levels and at most [`SMALL_BYTES`] long
/// are parsed on the caller's thread (any thread with 1 MiB of stack; the
/// tests check it), and walked there when their algebra is at most
/// [`SMALL_DEPTH`] deep; others are read on a thread of
/// [`crate::stack::DEEP_STACK_BYTES`].
pub const SMALL_NESTING: usize = 16;

/// See [`SMALL_NESTING`]. The parser reads a chain (`1+1+…`) in a loop but
/// then checks its variables recursively, once per link: the length bounds
/// that. 99.9 % of the 24,903 queries of the benchmarks in the tests' data
/// are shorter (the longest is 1,722 bytes).
pub const SMALL_BYTES: usize = 1024;

/// See [`SMALL_NESTING`]: queries of the field are some 10 levels deep.
pub const SMALL_DEPTH: usize = 48;

/// Whose text is read: the bound on its brackets differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A user's query: at most [`MAX_NESTING`].
    User,
    /// Text qajudge wrote back from an algebra it had checked: its brackets
    /// nest as deep as the algebra, at most [`MAX_WRITTEN_NESTING`].
    WrittenBack,
}

/// What the scan found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// The text's length in bytes.
    pub bytes: usize,
    /// An upper bound of its bracket nesting.
    pub nesting: usize,
}

impl Shape {
    /// True when the text may be parsed on the caller's thread: the parser
    /// recurses once per bracket level and once per link of a chain.
    pub fn is_small(self) -> bool {
        self.nesting <= SMALL_NESTING && self.bytes <= SMALL_BYTES
    }
}

/// Where the scan is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Span {
    /// Code.
    Code,
    /// A string; the byte that ends it, and whether it is long (`"""`).
    Str(u8, bool),
    /// A comment, to the end of the line.
    Comment,
    /// What may be an IRI (`<…>`), or a `<` operator and code.
    Iri,
}

/// An upper bound of the bracket nesting of `query`. Inside a string, a
/// comment or an IRI, an opening bracket counts and a closing one never takes
/// the count below where the span began: the span may be code after all (a
/// `<` operator, a string the parser ends elsewhere), and then its closing
/// brackets may close brackets the parser never saw open.
pub fn nesting(query: &str) -> usize {
    let b = query.as_bytes();
    let (mut depth, mut max, mut floor) = (0usize, 0usize, 0usize);
    let mut span = Span::Code;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match span {
            Span::Code => match c {
                b'\\' => i += 1,
                b'#' => {
                    span = Span::Comment;
                    floor = depth;
                }
                b'"' | b'\'' => {
                    let long = next == Some(c) && b.get(i + 2) == Some(&c);
                    span = Span::Str(c, long);
                    floor = depth;
                    if long {
                        i += 2;
                    }
                }
                b'<' if next == Some(b'<') => {
                    depth += 1;
                    i += 1;
                }
                b'<' => {
                    span = Span::Iri;
                    floor = depth;
                }
                b'>' if next == Some(b'>') => {
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            },
            _ => {
                let ends = match span {
                    Span::Str(q, false) => c == q || c == b'\n' || c == b'\r',
                    Span::Str(q, true) => c == q && next == Some(q) && b.get(i + 2) == Some(&q),
                    Span::Comment => c == b'\n' || c == b'\r',
                    // the characters an IRI cannot hold end it as the parser's
                    // IRIREF does; what follows is code again
                    _ => {
                        matches!(c, b'>' | b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`')
                            || c <= b' '
                    }
                };
                if ends {
                    if span == Span::Str(c, true) {
                        i += 2;
                    }
                    let was_iri = span == Span::Iri;
                    span = Span::Code;
                    // a character that ends an IRI other than `>` is code
                    if was_iri && c != b'>' {
                        continue;
                    }
                } else {
                    match c {
                        b'\\' if matches!(span, Span::Str(..)) => i += 1,
                        b'(' | b'{' | b'[' => depth += 1,
                        b')' | b'}' | b']' if depth > floor => depth -= 1,
                        _ => {}
                    }
                }
            }
        }
        max = max.max(depth);
        i += 1;
    }
    max
}

/// An upper bound of the distinct variable names of `query`: every `?` or
/// `$` followed by a name, wherever it is (a `?id` inside an IRI or a string
/// counts too, so the bound never falls below what a parser finds).
pub fn variables(query: &str) -> usize {
    let b = query.as_bytes();
    let mut names: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], b'?' | b'$') {
            let len = b[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c >= 0x80)
                .count();
            if len > 0 {
                names.insert(&b[i + 1..i + 1 + len]);
            }
            i += len;
        }
        i += 1;
    }
    names.len()
}

/// Checks the size, nesting and variables of `query` before it is parsed.
pub fn check(query: &str, origin: Origin) -> Result<Shape, SparqlError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(SparqlError::TooLarge {
            found: format!("{} bytes, at most {MAX_QUERY_BYTES}", query.len()),
        });
    }
    let names = variables(query);
    if names > MAX_VARIABLES {
        return Err(SparqlError::TooLarge {
            found: format!("{names} variable names, at most {MAX_VARIABLES}"),
        });
    }
    let nesting = nesting(query);
    let limit = match origin {
        Origin::User => MAX_NESTING,
        Origin::WrittenBack => MAX_WRITTEN_NESTING,
    };
    if nesting > limit {
        return Err(SparqlError::TooLarge {
            found: format!("{nesting} levels of brackets, at most {limit}"),
        });
    }
    Ok(Shape {
        bytes: query.len(),
        nesting,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_in_code_nest() {
        assert_eq!(nesting("SELECT * WHERE { ?s ?p ?o }"), 1);
        assert_eq!(nesting("ASK { FILTER((1)) }"), 3);
        assert_eq!(nesting("ASK { << ?a ?b ?c >> ?p ?o }"), 2);
        assert_eq!(
            nesting(&format!(
                "ASK {{ FILTER({}1{}) }}",
                "(".repeat(999),
                ")".repeat(999)
            )),
            1001
        );
    }

    #[test]
    fn balanced_brackets_in_strings_comments_and_iris_add_only_while_open() {
        assert_eq!(nesting("ASK { ?s ?p \"a (b) {c}\" }"), 2);
        assert_eq!(nesting("ASK { ?s ?p '''(\n)''' } # () \n"), 2);
        assert_eq!(
            nesting("ASK { <http://dbpedia.org/resource/Paris_(band)> ?p ?o }"),
            2
        );
        assert_eq!(
            nesting("ASK { ?s ?p \"a\\\"(\" }"),
            2,
            "an escaped quote does not end it"
        );
    }

    #[test]
    fn closing_brackets_in_a_span_never_hide_nesting() {
        // a string's closing brackets do not undo the group around it
        let q = format!("ASK {{{{ \"))))\" {} }}}}", "(".repeat(70));
        assert!(nesting(&q) >= 72, "{}", nesting(&q));
        // `<` may be an operator: what follows is code to the parser
        let q = format!(
            "ASK {{ FILTER(?x<1{}{}>2) }}",
            ")".repeat(5),
            "(".repeat(70)
        );
        assert!(nesting(&q) >= 72);
        // a comment the scan may misplace still counts its opening brackets
        let q = format!("ASK {{ FILTER(?x<1#>\"\"\"\n{}1", "(".repeat(70));
        assert!(nesting(&q) >= 70);
    }

    #[test]
    fn variables_are_counted_once_each_wherever_they_are() {
        assert_eq!(variables("SELECT ?s $s ?o WHERE { ?s ?p ?o }"), 3);
        assert_eq!(
            variables("SELECT * WHERE { ?s <p>? ?o FILTER(?o != \"?x\") }"),
            3
        );
        let many: String = (0..2000).map(|i| format!("?s{i} <p> ?o{i} . ")).collect();
        let e = check(&format!("SELECT * WHERE {{ {many} }}"), Origin::User).expect_err("too many");
        assert!(
            e.to_string().contains("4000 variable names, at most 1024"),
            "{e}"
        );
    }

    #[test]
    fn too_long_and_too_deep_texts_are_refused_with_the_figures() {
        let deep = format!("ASK {{ FILTER({}1{}) }}", "(".repeat(100), ")".repeat(100));
        let e = check(&deep, Origin::User).expect_err("too deep");
        assert!(e.to_string().contains("102 levels of brackets"), "{e}");
        assert!(e.to_string().contains("at most 64"), "{e}");
        let long = format!("ASK {{ {} }}", "?s ?p ?o . ".repeat(100_000));
        assert!(check(&deep, Origin::WrittenBack).is_ok());
        let e = check(&long, Origin::User).expect_err("too long");
        assert!(e.to_string().contains("bytes"), "{e}");
        assert!(check("SELECT * WHERE { ?s ?p ?o }", Origin::User).is_ok_and(Shape::is_small));
    }
}
