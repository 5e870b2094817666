//! Reading a SPARQL text into spargebra's algebra within the bounds qajudge
//! reads, on a stack deep enough for it: the parser with the endpoints'
//! predefined prefixes, the strict parse (as a standard store reads), the
//! lenient one (Virtuoso's dialect rewritten when that is what it takes), the
//! bounds checks that the stores call before they parse, and the choice of the
//! caller's thread or a deep one (`crate::stack`) for each read. Syntax errors
//! are made readable here.

use std::sync::OnceLock;

use spargebra::{Query, SparqlParser};

use super::bounds::{self, Origin};
use super::depth;
use super::dialect::{rewrite, undeclared_prefixes};
use super::SparqlError;
use crate::terms::prefixes::PREDEFINED;

/// A parser with the predefined prefixes, built once (their IRIs are checked when
/// added, which costs more than parsing a short query).
fn parser() -> Result<SparqlParser, SparqlError> {
    static PARSER: OnceLock<Result<SparqlParser, SparqlError>> = OnceLock::new();
    PARSER
        .get_or_init(|| {
            let mut parser = SparqlParser::new();
            for (prefix, ns) in PREDEFINED {
                parser = parser
                    .with_prefix(*prefix, *ns)
                    .map_err(|e| SparqlError::Syntax {
                        message: format!("predefined prefix {prefix}: {e}"),
                    })?;
            }
            Ok(parser)
        })
        .clone()
}

/// Where a read runs: on the caller's thread, which has room for shallow
/// queries only (see [`bounds::SMALL_NESTING`], [`bounds::SMALL_DEPTH`]), or
/// on a thread of [`crate::stack::DEEP_STACK_BYTES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Room {
    Small,
    Deep,
}

/// Why a read stopped: the query cannot be read, or it needs a deep stack.
pub(super) enum Fail {
    Query(SparqlError),
    NeedsDeepStack,
}

impl From<SparqlError> for Fail {
    fn from(e: SparqlError) -> Fail {
        Fail::Query(e)
    }
}

fn parse(query: &str, room: Room) -> Result<Query, Fail> {
    parse_with(parser()?, query, Origin::User, room)
}

/// Parses `query` within the bounds qajudge reads: its size and bracket
/// nesting are checked before the (recursive) parser sees it, and the depth of
/// its algebra after; an algebra too deep is taken apart without recursion. In
/// a small room, a text or an algebra deeper than the room holds stops the read
/// so that it starts again on a deep stack.
pub(super) fn parse_with(
    parser: SparqlParser,
    query: &str,
    origin: Origin,
    room: Room,
) -> Result<Query, Fail> {
    let shape = bounds::check(query, origin)?;
    if room == Room::Small && !shape.is_small() {
        return Err(Fail::NeedsDeepStack);
    }
    let parsed = parser.parse_query(query).map_err(|e| SparqlError::Syntax {
        message: with_empty_prefix(query, readable(&e.to_string().replace('\n', " "))),
    })?;
    let depth = depth::depth(&parsed, bounds::MAX_DEPTH);
    if depth > bounds::MAX_DEPTH {
        depth::dismantle(parsed);
        return Err(Fail::Query(SparqlError::TooLarge {
            found: format!(
                "more than {} levels of operators and groups",
                bounds::MAX_DEPTH
            ),
        }));
    }
    if room == Room::Small && depth > bounds::SMALL_DEPTH {
        depth::dismantle(parsed);
        return Err(Fail::NeedsDeepStack);
    }
    Ok(parsed)
}

/// Checks that `query`, a user's text, is within the bounds qajudge reads
/// (size, bracket nesting, depth of its algebra) before a store parses and
/// evaluates it. Syntax errors are left to the caller's parser.
pub fn check_bounds(query: &str) -> Result<(), SparqlError> {
    check_bounds_of(query, Origin::User)
}

/// [`check_bounds`] for the text of an [`super::Executable`]: when it was
/// written back from the algebra, its brackets nest as deep as the algebra (at
/// most [`bounds::MAX_WRITTEN_NESTING`]).
pub fn check_executable_bounds(text: &str) -> Result<(), SparqlError> {
    check_bounds_of(text, Origin::WrittenBack)
}

fn check_bounds_of(query: &str, origin: Origin) -> Result<(), SparqlError> {
    on_enough_stack(query, origin, |room| {
        match parse_with(SparqlParser::new(), query, origin, room) {
            Ok(_) | Err(Fail::Query(SparqlError::Syntax { .. })) => Ok(()),
            Err(e) => Err(e),
        }
    })
}

/// Checks the bounds of `query` and parses it on the caller's thread, whatever
/// its size: what the fuzz target's depth invariant runs on a stack sized from
/// [`bounds::nesting`] (a text the scan rates too shallow overflows it).
/// Everything else reads queries through [`super::walk()`],
/// [`super::executable()`] or [`check_bounds`], which pick the stack.
pub fn parse_on_this_thread(query: &str) -> Result<(), SparqlError> {
    match parse_with(SparqlParser::new(), query, Origin::User, Room::Deep) {
        Ok(_) => Ok(()),
        Err(Fail::Query(e)) => Err(e),
        Err(Fail::NeedsDeepStack) => Err(SparqlError::Thread {
            message: "a deep stack was asked for on this thread".into(),
        }),
    }
}

/// Runs `f`, which reads `query`, on the caller's thread when the text is
/// shallow, and again on a thread with a deep stack when it is not or when
/// `f` finds its algebra too deep for the caller's thread.
pub(super) fn on_enough_stack<T: Send>(
    query: &str,
    origin: Origin,
    f: impl Fn(Room) -> Result<T, Fail> + Sync,
) -> Result<T, SparqlError> {
    if bounds::check(query, origin)?.is_small() {
        match f(Room::Small) {
            Ok(t) => return Ok(t),
            Err(Fail::Query(e)) => return Err(e),
            Err(Fail::NeedsDeepStack) => {}
        }
    }
    let thread = |e: String| SparqlError::Thread { message: e };
    match crate::stack::deep(|| f(Room::Deep)) {
        Ok(Ok(t)) => Ok(t),
        Ok(Err(Fail::Query(e))) => Err(e),
        Ok(Err(Fail::NeedsDeepStack)) => Err(thread(
            "a deep stack was asked for on the deep stack (a bug in qajudge)".into(),
        )),
        Err(e) => Err(thread(e.to_string())),
    }
}

/// The message of a query that uses the empty prefix (`:name`) without
/// declaring it names the prefix, as the parser does for a named one (it
/// reads the `:` as the start of something else and says "expected a name").
fn with_empty_prefix(query: &str, message: String) -> String {
    let mask = super::dialect::code_mask(query);
    let declared = super::dialect::has_keyword(query, "prefix")
        && query
            .to_ascii_lowercase()
            .split("prefix")
            .skip(1)
            .any(|rest| rest.trim_start().starts_with(':'));
    let b = query.as_bytes();
    let used = (0..b.len()).any(|i| {
        mask[i]
            && b[i] == b':'
            && b.get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
            && (i == 0 || b[i - 1].is_ascii_whitespace() || b"({;,.^/|".contains(&b[i - 1]))
    });
    if used && !declared {
        format!("{message}; the empty prefix `:` is used (`:name`) and not declared: declare it with PREFIX : <IRI>")
    } else {
        message
    }
}

/// The parser's message with its list of expected tokens kept to the quoted
/// tokens: the character classes it also lists (`['A' ..= 'Z' | …]`, dozens of
/// Unicode ranges) become "or a name".
fn readable(message: &str) -> String {
    const EXPECTED: &str = "expected one of ";
    let Some(at) = message.find(EXPECTED) else {
        return message.to_string();
    };
    let (head, list) = message.split_at(at + EXPECTED.len());
    if !list.contains('[') {
        return message.to_string();
    }
    // the quoted tokens before the first character class
    let quoted: Vec<&str> = list
        .split(", ")
        .take_while(|item| item.starts_with('"'))
        .collect();
    if quoted.is_empty() {
        format!("{}expected a name", &head[..at])
    } else {
        format!("{head}{} or a name", quoted.join(", "))
    }
}

/// Parses with the predefined prefixes, and with Virtuoso's dialect rewritten
/// when that is what it takes; the notes say what was relied on.
pub(super) fn parse_lenient(query: &str, room: Room) -> Result<(Query, Vec<String>), Fail> {
    let mut notes = Vec::new();
    let parsed = match parse(query, room) {
        Ok(q) => q,
        Err(Fail::NeedsDeepStack) => return Err(Fail::NeedsDeepStack),
        Err(first) => match rewrite(query, PREDEFINED) {
            Some(r) => match parse(&r.query, room) {
                Ok(q) => {
                    notes.extend(
                        r.changes
                            .into_iter()
                            .map(|c| format!("virtuoso syntax: {c}")),
                    );
                    q
                }
                Err(Fail::NeedsDeepStack) => return Err(Fail::NeedsDeepStack),
                Err(Fail::Query(_)) => return Err(first),
            },
            None => return Err(first),
        },
    };
    let undeclared = undeclared_prefixes(query, PREDEFINED);
    if !undeclared.is_empty() {
        notes.push(format!(
            "undeclared prefixes read as the endpoints predefine them: {}",
            undeclared.join(", ")
        ));
    }
    Ok((parsed, notes))
}

#[cfg(test)]
mod tests {
    use super::super::walk;
    use super::*;

    #[test]
    fn an_undeclared_empty_prefix_is_named() {
        let err = walk("SELECT ?n WHERE { ?x :name ?n }")
            .unwrap_err()
            .to_string();
        assert!(err.contains("the empty prefix `:` is used"), "{err}");
        let ok = walk("PREFIX : <http://e/> SELECT ?n WHERE { ?x :name ?n }");
        assert!(ok.is_ok());
    }

    #[test]
    fn syntax_errors_list_tokens_not_character_classes() {
        let err = walk("SELECT ?s WHERE { ?s ?p ?o ").unwrap_err().to_string();
        assert!(err.starts_with("sparql syntax error: error at 1:"), "{err}");
        assert!(
            err.contains(r#""}""#) && err.ends_with("or a name"),
            "{err}"
        );
        assert!(!err.contains("u{"), "{err}");
        assert!(err.len() < 200, "{err}");
        let plain = r#"error at 1:2: expected "}""#;
        assert_eq!(readable(plain), plain);
        assert_eq!(
            readable("error at 1:2: expected one of ['a' ..= 'z'], ['_']"),
            "error at 1:2: expected a name"
        );
    }
}
