//! The string functions of SPARQL that the guard evaluates itself, so that a
//! string is measured before it is made: `CONCAT`, `REPLACE` and
//! `GROUP_CONCAT`, with the store's own semantics (the arguments they take,
//! the language tag they keep, the regular expressions and replacement syntax
//! of `REPLACE`), and the size of any other term. A query's strings are
//! counted against its memory cap by [`Built`]: the store keeps every string
//! a `BIND` (or a sort key, a `GROUP_CONCAT`) builds until the query ends, and
//! an expression holds the strings it makes until it has its value.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use oxigraph::model::vocab::xsd;
use oxigraph::model::{Literal, Term};
use regex::{Captures, Regex, RegexBuilder};

/// The largest compiled pattern, as the store allows it.
const REGEX_SIZE_LIMIT: usize = 1_000_000;

/// The bytes of strings a query has built, against its cap: those the store
/// keeps until the query ends (the values of `BIND`s and `DISTINCT`
/// aggregates that build strings, `GROUP_CONCAT`s), and those made so far
/// while one expression is evaluated (gone once it has its value). A kept
/// value counts as the store keeps it: once per distinct text, and not at
/// all when it is short enough to be stored inline.
#[derive(Debug)]
pub struct Built {
    kept: AtomicUsize,
    passing: AtomicUsize,
    max: usize,
    /// The hashes of the kept texts counted so far.
    seen: Mutex<HashSet<u64>>,
}

/// The longest text the store keeps inline, in a term itself, not beside it.
const INLINE_BYTES: usize = 15;

impl Built {
    /// Nothing built yet, `max` bytes allowed.
    pub fn new(max: usize) -> Built {
        Built {
            kept: AtomicUsize::new(0),
            passing: AtomicUsize::new(0),
            max,
            seen: Mutex::new(HashSet::new()),
        }
    }

    /// The cap.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Counts `n` bytes more made while an expression is evaluated; false
    /// once what is kept and what is passing pass the cap (the string must
    /// not be made).
    pub fn charge(&self, n: usize) -> bool {
        let passing = self
            .passing
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        passing.saturating_add(self.kept.load(Ordering::Relaxed)) <= self.max
    }

    /// Counts `n` bytes more that the store keeps; false past the cap.
    pub fn keep(&self, n: usize) -> bool {
        let kept = self.kept.fetch_add(n, Ordering::Relaxed).saturating_add(n);
        kept.saturating_add(self.passing.load(Ordering::Relaxed)) <= self.max
    }

    /// An expression has its value (or failed): what it made on the way is
    /// gone, and `kept`, the value the store keeps, counts when its text is
    /// new and not inline; false past the cap.
    pub fn settle(&self, kept: Option<&Term>) -> bool {
        self.passing.store(0, Ordering::Relaxed);
        let Some(value) = kept else {
            return true;
        };
        let text = match value {
            Term::Literal(l) => l.value(),
            Term::NamedNode(n) => n.as_str(),
            _ => return true,
        };
        if text.len() <= INLINE_BYTES {
            return true;
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(text, &mut hasher);
        let new = self.seen.lock().map_or(true, |mut seen| {
            seen.insert(std::hash::Hasher::finish(&hasher))
        });
        !new || self.keep(text.len())
    }
}

/// The bytes of a term's text (a literal's value, an IRI).
pub fn term_len(term: &Term) -> usize {
    match term {
        Term::Literal(l) => l.value().len(),
        Term::NamedNode(n) => n.as_str().len(),
        Term::BlankNode(b) => b.as_str().len(),
        #[allow(unreachable_patterns)]
        _ => 0,
    }
}

/// A string literal's value and language, as the store takes the argument of
/// a string function: a simple (or `xsd:string`) or language-tagged literal;
/// `None` for any other term (the function's error).
fn string_and_language(term: &Term) -> Option<(&str, Option<&str>)> {
    match term {
        Term::Literal(l) => match l.language() {
            Some(lang) => Some((l.value(), Some(lang))),
            None if l.datatype() == xsd::STRING => Some((l.value(), None)),
            None => None,
        },
        _ => None,
    }
}

/// A simple string (no language tag), as `REPLACE` takes its pattern,
/// replacement and flags.
fn simple_string(term: &Term) -> Option<&str> {
    match string_and_language(term)? {
        (value, None) => Some(value),
        _ => None,
    }
}

/// A plain literal of `value`, language-tagged when `language` is given.
fn plain(value: String, language: Option<&str>) -> Term {
    match language {
        Some(lang) => Literal::new_language_tagged_literal_unchecked(value, lang).into(),
        None => Literal::new_simple_literal(value).into(),
    }
}

/// What a string function gives: its value, the function's error (`None`:
/// an argument it does not take), or a stop because the string would pass
/// the cap.
pub type Made = Result<Option<Term>, TooLarge>;

/// A string that would pass the query's memory cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// `CONCAT(args…)`: the strings joined, with their language tag when they all
/// have the same one.
pub fn concat(args: &[Term], built: &Built) -> Made {
    let mut parts = Vec::with_capacity(args.len());
    let mut language: Option<Option<&str>> = None;
    let mut total = 0usize;
    for arg in args {
        let Some((value, lang)) = string_and_language(arg) else {
            return Ok(None);
        };
        match language {
            Some(l) if l != lang => language = Some(None),
            Some(_) => {}
            None => language = Some(lang),
        }
        total = total.saturating_add(value.len());
        parts.push(value);
    }
    if !built.charge(total) {
        return Err(TooLarge);
    }
    let mut out = String::with_capacity(total);
    for p in parts {
        out.push_str(p);
    }
    Ok(Some(plain(out, language.flatten())))
}

/// A pattern compiled as the store compiles `REGEX` and `REPLACE` patterns
/// (flags `s`, `m`, `i`, `x`, `q`; any other flag is an error).
pub fn compile(pattern: &str, flags: Option<&str>) -> Option<Regex> {
    let flags = flags.unwrap_or_default();
    let escaped;
    let pattern = if flags.contains('q') {
        escaped = regex::escape(pattern);
        escaped.as_str()
    } else {
        pattern
    };
    let mut builder = RegexBuilder::new(pattern);
    builder.size_limit(REGEX_SIZE_LIMIT);
    for flag in flags.chars() {
        match flag {
            's' => {
                builder.dot_matches_new_line(true);
            }
            'm' => {
                builder.multi_line(true);
            }
            'i' => {
                builder.case_insensitive(true);
            }
            'x' => {
                builder.ignore_whitespace(true);
            }
            'q' => {}
            _ => return None,
        }
    }
    builder.build().ok()
}

/// A pattern and flags as given, and what they compiled to (`None`: an error).
type Compiled = (String, Option<String>, Option<Regex>);

/// The patterns of one `REPLACE` call site, the last one compiled kept (a
/// pattern is usually the same for every row).
#[derive(Debug, Default)]
pub struct Patterns {
    last: Mutex<Option<Compiled>>,
}

impl Patterns {
    /// The compiled pattern of (`pattern`, `flags`); `None` when it does not
    /// compile.
    fn get(&self, pattern: &str, flags: Option<&str>) -> Option<Regex> {
        let mut last = self.last.lock().ok()?;
        if let Some((p, f, re)) = last.as_ref() {
            if p == pattern && f.as_deref() == flags {
                return re.clone();
            }
        }
        let re = compile(pattern, flags);
        *last = Some((pattern.to_string(), flags.map(str::to_string), re.clone()));
        re
    }
}

/// `REPLACE(text, pattern, replacement [, flags])`: every match of the
/// pattern in the text replaced (the replacement's `$1`, `${name}` and `$$`
/// as the store reads them), the text's language tag kept.
pub fn replace(args: &[Term], patterns: &Patterns, built: &Built) -> Made {
    let (Some(text), Some(pattern), Some(replacement)) = (args.first(), args.get(1), args.get(2))
    else {
        return Ok(None);
    };
    let Some(pattern) = simple_string(pattern) else {
        return Ok(None);
    };
    let flags = match args.get(3) {
        Some(f) => match simple_string(f) {
            Some(f) => Some(f),
            None => return Ok(None),
        },
        None => None,
    };
    let Some(re) = patterns.get(pattern, flags) else {
        return Ok(None);
    };
    let (Some((text, language)), Some(replacement)) =
        (string_and_language(text), simple_string(replacement))
    else {
        return Ok(None);
    };
    let Some(size) = replaced_len(&re, text, replacement, built.max()) else {
        return Err(TooLarge);
    };
    if !built.charge(size) {
        return Err(TooLarge);
    }
    Ok(Some(plain(
        re.replace_all(text, replacement).into_owned(),
        language,
    )))
}

/// The length of `text` with every match of `re` replaced by `replacement`
/// expanded, or `None` once past `limit`.
fn replaced_len(re: &Regex, text: &str, replacement: &str, limit: usize) -> Option<usize> {
    let mut total = text.len();
    let plain = !replacement.contains('$');
    for caps in re.captures_iter(text) {
        let whole = caps.get(0).map_or(0, |m| m.len());
        let expanded = if plain {
            replacement.len()
        } else {
            expanded_len(&caps, replacement)
        };
        total = total.saturating_sub(whole).saturating_add(expanded);
        if total > limit {
            return None;
        }
    }
    Some(total)
}

/// The length of `template` expanded with `caps`, by the rules of the regex
/// crate's `Captures::expand`: `$$` is `$`; `$name` takes the longest name of
/// letters, digits and `_`, `${name}` any name; a number names a group by
/// index; a group that does not exist or did not match is empty; a `$` that
/// starts no reference is itself.
fn expanded_len(caps: &Captures<'_>, template: &str) -> usize {
    let bytes = template.as_bytes();
    let (mut i, mut n) = (0, 0usize);
    let group = |name: &str| -> usize {
        match name.parse::<usize>() {
            Ok(k) => caps.get(k).map_or(0, |m| m.len()),
            Err(_) => caps.name(name).map_or(0, |m| m.len()),
        }
    };
    while i < bytes.len() {
        if bytes[i] != b'$' {
            n += 1;
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'$') => {
                n += 1;
                i += 2;
            }
            Some(b'{') => match template[i + 2..].find('}') {
                Some(end) if end > 0 => {
                    n += group(&template[i + 2..i + 2 + end]);
                    i += end + 3;
                }
                _ => {
                    n += 1;
                    i += 1;
                }
            },
            _ => {
                let len = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                if len == 0 {
                    n += 1;
                    i += 1;
                } else {
                    n += group(&template[i + 1..i + 1 + len]);
                    i += len + 1;
                }
            }
        }
    }
    n
}

/// The state of one `GROUP_CONCAT` of one group: the store's accumulator,
/// with every piece counted before it is added.
#[derive(Debug)]
pub struct GroupConcat {
    concat: Option<String>,
    language: Option<Option<String>>,
    separator: String,
}

impl GroupConcat {
    /// An empty group.
    pub fn new(separator: String) -> GroupConcat {
        GroupConcat {
            concat: Some(String::new()),
            language: None,
            separator,
        }
    }

    /// Adds one value (not a string: the aggregate's error); `Err` when the
    /// result would pass the cap.
    pub fn add(&mut self, element: &Term, built: &Built) -> Result<(), TooLarge> {
        let Some(concat) = self.concat.as_mut() else {
            return Ok(());
        };
        let Some((value, lang)) = string_and_language(element) else {
            self.concat = None;
            return Ok(());
        };
        let first = self.language.is_none();
        let more = value.len() + if first { 0 } else { self.separator.len() };
        if !built.keep(more) {
            return Err(TooLarge);
        }
        match &self.language {
            Some(l) => {
                if l.as_deref() != lang {
                    self.language = Some(None);
                }
                concat.push_str(&self.separator);
            }
            None => self.language = Some(lang.map(str::to_string)),
        }
        concat.push_str(value);
        Ok(())
    }

    /// The joined strings (the aggregate's error when a value was not a string).
    pub fn finish(&mut self) -> Option<Term> {
        let language = self.language.take().flatten();
        self.concat.take().map(|c| plain(c, language.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Term {
        Literal::new_simple_literal(v).into()
    }

    fn l(v: &str, lang: &str) -> Term {
        Literal::new_language_tagged_literal_unchecked(v, lang).into()
    }

    #[test]
    fn concat_keeps_a_shared_language_and_refuses_past_the_cap() {
        let built = Built::new(10);
        assert_eq!(
            concat(&[l("a", "en"), l("b", "en")], &built),
            Ok(Some(l("ab", "en")))
        );
        assert_eq!(concat(&[l("a", "en"), s("b")], &built), Ok(Some(s("ab"))));
        assert_eq!(concat(&[], &built), Ok(Some(s(""))));
        let number: Term = Literal::from(1).into();
        assert_eq!(concat(&[s("a"), number], &built), Ok(None));
        assert_eq!(concat(&[s("abcdef"), s("ghijk")], &built), Err(TooLarge));
    }

    #[test]
    fn replace_expands_as_the_regex_crate_and_measures_first() {
        let built = Built::new(1 << 20);
        let p = Patterns::default();
        for (args, want) in [
            (vec![s("abcabc"), s("b"), s("[$0]")], "a[b]ca[b]c"),
            (vec![s("abc"), s("(?P<x>b)"), s("${x}$$$1$9")], "ab$bc"),
            (vec![s("abc"), s("B"), s("-"), s("i")], "a-c"),
            (vec![s("a.c"), s("."), s("!"), s("q")], "a!c"),
            (vec![s("abc"), s(""), s("-")], "-a-b-c-"),
            (vec![s("ab"), s("a"), s("$ x")], "$ xb"),
        ] {
            let got = replace(&args, &p, &built).expect("within the cap");
            assert_eq!(got, Some(s(want)), "{args:?}");
            let Some(Term::Literal(lit)) = got else {
                panic!("a literal")
            };
            let re = compile(
                simple_string(&args[1]).expect("pattern"),
                args.get(3).and_then(simple_string),
            )
            .expect("compiles");
            let text = simple_string(&args[0]).expect("text");
            let repl = simple_string(&args[2]).expect("replacement");
            assert_eq!(
                replaced_len(&re, text, repl, usize::MAX),
                Some(lit.value().len())
            );
        }
        // a language tag stays; a bad flag or a tagged pattern is the function's error
        assert_eq!(
            replace(&[l("ab", "fr"), s("a"), s("x")], &p, &built),
            Ok(Some(l("xb", "fr")))
        );
        assert_eq!(
            replace(&[s("ab"), s("a"), s("x"), s("z")], &p, &built),
            Ok(None)
        );
        assert_eq!(
            replace(&[s("ab"), l("a", "en"), s("x")], &p, &built),
            Ok(None)
        );
        // 1,000 matches × 2,000 bytes each: refused before it is built
        let small = Built::new(1 << 20);
        let text = "a".repeat(1000);
        let big = "$0".repeat(2000);
        assert!(matches!(
            replace(&[s(&text), s("a"), s(&big)], &p, &small),
            Err(TooLarge)
        ));
    }

    #[test]
    fn group_concat_joins_and_counts_every_piece() {
        let built = Built::new(8);
        let mut g = GroupConcat::new(", ".into());
        g.add(&l("a", "en"), &built).expect("room");
        g.add(&l("b", "en"), &built).expect("room");
        assert_eq!(g.finish(), Some(l("a, b", "en")));
        let mut g = GroupConcat::new(" ".into());
        g.add(&s("abc"), &built).expect("room");
        assert_eq!(g.add(&s("defg"), &built), Err(TooLarge));
        let mut g = GroupConcat::new(" ".into());
        g.add(&Literal::from(1).into(), &Built::new(8))
            .expect("no string");
        assert_eq!(g.finish(), None);
    }
}
