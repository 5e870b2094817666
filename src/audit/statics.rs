//! The audit's checks without a store (docs/audit.md): what a gold question's
//! query, answers and texts show by themselves — a query that does not parse
//! as SPARQL 1.1 (and how the endpoints read it), prefixes it leaves
//! undeclared, a `DISTINCT` that cannot change the one row of an aggregate,
//! `LIMIT`/`OFFSET` without `ORDER BY` or with keys that need not be unique,
//! gold answers missing, empty or of another kind than the query asks,
//! questions every system scores 0 on under `text2sparql`, and languages of
//! one question carrying different numbers or quoted names.

use std::collections::BTreeSet;

use super::{finding, AuditOptions, Finding, Severity};
use crate::model::{Dataset, Query, Question, Term};
use crate::query::{Form, Node, Walked};

/// The findings of one question that need no store; `stores` says whether
/// its query will also be executed (which settles what the text leaves open).
pub(super) fn question(q: &Question, options: AuditOptions, stores: bool) -> Vec<Finding> {
    let id = q.id.0.as_str();
    let mut out = Vec::new();
    let form = match &q.query {
        Query::Sparql(text) => query(id, text, stores, &mut out),
        _ => None,
    };
    answers(q, form, options, stores, &mut out);
    out
}

/// The checks of a query's text; its form when it reads.
fn query(id: &str, text: &str, stores: bool, out: &mut Vec<Finding>) -> Option<Form> {
    let executable = match crate::query::executable(text) {
        Ok(e) => e,
        Err(e) => {
            out.push(finding(
                id,
                "unparsable",
                Severity::Error,
                format!(
                    "the query does not parse as SPARQL 1.1, nor as the endpoints' dialect: {e}"
                ),
                "fix the gold query: no system can be scored on what it means",
            ));
            return None;
        }
    };
    let Ok(walked) = crate::query::walk(text) else {
        return None;
    };
    for note in &executable.notes {
        let (code, action) = if note.contains("prefix") {
            (
                "undeclared_prefix",
                "declare the prefixes: a store without the endpoints' predefined ones refuses the query",
            )
        } else {
            (
                "not_sparql11",
                "write it in standard SPARQL 1.1: stores that are not Virtuoso refuse it",
            )
        };
        out.push(finding(
            id,
            code,
            Severity::Note,
            format!("read as: {note}"),
            action,
        ));
    }
    let m = &walked.modifiers;
    let windowed = m.contains("LIMIT") || m.contains("OFFSET");
    let one_row = walked.counts && !m.contains("GROUP BY");
    if let Some(counted) = distinct_count(text).filter(|_| !m.contains("GROUP BY")) {
        out.push(distinct_count_finding(id, &counted, &walked, stores));
    }
    if windowed && !walked.ordered && !one_row && walked.form != Some(Form::Ask) {
        out.push(finding(
            id,
            "limit_without_order",
            Severity::Warning,
            "LIMIT or OFFSET without ORDER BY: which rows are kept is the store's choice",
            "add an ORDER BY on keys that make the order total, or drop the LIMIT",
        ));
    }
    if windowed && walked.ordered && !stores {
        out.push(finding(
            id,
            "order_under_limit",
            Severity::Note,
            "ORDER BY under LIMIT or OFFSET: rows tied on the keys at the window's edge are kept in an order the store chooses",
            "give --kg or --endpoint to see whether the edge ties; else add a key that makes the order total",
        ));
    }
    walked.form
}

/// The finding of a `SELECT DISTINCT` over `COUNT(?counted)`: a warning when
/// the counted variable can repeat (the pattern binds others, or branches),
/// so that the count counts duplicates; a note when it cannot.
fn distinct_count_finding(id: &str, counted: &str, walked: &Walked, stores: bool) -> Finding {
    let m = &walked.modifiers;
    let others: BTreeSet<&str> = walked
        .triples
        .iter()
        .flat_map(|(s, p, o)| [s, p, o])
        .filter_map(|n| match n {
            Node::Var(v) if v.as_str() != counted => Some(v.as_str()),
            Node::Path(_) => Some("(a path)"),
            _ => None,
        })
        .collect();
    let branching = m.contains("OPTIONAL") || m.contains("UNION");
    let repeats = counted == "*" || !others.is_empty() || branching;
    let evidence = format!(
        "SELECT DISTINCT over COUNT(?{counted}): DISTINCT applies to the one row the aggregate gives, not inside the COUNT"
    );
    if repeats {
        finding(
            id,
            "distinct_count",
            Severity::Warning,
            format!(
                "{evidence}; ?{counted} can repeat (the pattern binds {} besides it), so the count counts duplicates",
                if branching { "OPTIONAL or UNION branches".to_string() } else { others.into_iter().map(|v| if v.starts_with('(') { v.to_string() } else { format!("?{v}") }).collect::<Vec<_>>().join(", ") }
            ),
            if stores {
                "the stores' counts with and without DISTINCT inside the COUNT decide (below)"
            } else {
                "write COUNT(DISTINCT ?x) if the question counts distinct things; give --kg or --endpoint to see whether the figure changes"
            },
        )
    } else {
        finding(
            id,
            "distinct_count",
            Severity::Note,
            format!("{evidence}; ?{counted} is the pattern's only variable, so it cannot repeat"),
            "nothing changes the figure; COUNT(DISTINCT ?x) says what is meant",
        )
    }
}

/// The counted variable (`*` for `COUNT(*)`) of a query whose outermost
/// projection is `SELECT DISTINCT` over a `COUNT` without `DISTINCT` inside.
pub(super) fn distinct_count(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = word_at(&lower, "select", 0)?;
    let mut i = skip_space(&lower, at + "select".len());
    i = skip_space(&lower, expect(&lower, i, "distinct")?);
    if lower[i..].starts_with('(') {
        i = skip_space(&lower, i + 1);
    }
    i = skip_space(&lower, expect(&lower, i, "count")?);
    i = skip_space(&lower, expect(&lower, i, "(")?);
    if lower[i..].starts_with("distinct") {
        return None;
    }
    if lower[i..].starts_with('*') {
        return Some("*".into());
    }
    let start = i + usize::from(lower[i..].starts_with(['?', '$']));
    if start == i {
        return None;
    }
    let name: String = text[start..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The byte offset of `word` in `text` from `from`, standing alone.
fn word_at(text: &str, word: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = from;
    while let Some(k) = text.get(at..)?.find(word) {
        let p = at + k;
        let before = p == 0 || !b[p - 1].is_ascii_alphanumeric();
        let after = b
            .get(p + word.len())
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        if before && after {
            return Some(p);
        }
        at = p + word.len();
    }
    None
}

fn skip_space(text: &str, i: usize) -> usize {
    i + text[i..].len() - text[i..].trim_start().len()
}

fn expect(text: &str, i: usize, what: &str) -> Option<usize> {
    text[i..].starts_with(what).then_some(i + what.len())
}

/// The checks of a question's gold answers.
fn answers(
    q: &Question,
    form: Option<Form>,
    options: AuditOptions,
    stores: bool,
    out: &mut Vec<Finding>,
) {
    let id = q.id.0.as_str();
    let Some(set) = &q.answers else {
        if matches!(q.query, Query::Sparql(_)) && !stores {
            out.push(finding(
                id,
                "no_answers",
                Severity::Note,
                "the gold gives a query and no answers: its answers are the query's results on a knowledge graph",
                "give --kg or --endpoint to execute it (and see whether the results are stable)",
            ));
        } else if !matches!(q.query, Query::Sparql(_)) {
            out.push(finding(
                id,
                "no_answers",
                Severity::Error,
                "the gold gives neither answers nor a query",
                "give the question its answers: it cannot be scored",
            ));
        }
        return;
    };
    let booleans = set
        .answers
        .iter()
        .flat_map(|a| &a.terms)
        .filter(|t| matches!(t, Term::Boolean(_)))
        .count();
    let terms = set.answers.iter().map(|a| a.terms.len()).sum::<usize>();
    match form {
        Some(Form::Ask) if terms > booleans => out.push(finding(
            id,
            "answer_kind",
            Severity::Error,
            format!(
                "the query is an ASK, and the gold answers hold {} terms that are not a boolean",
                terms - booleans
            ),
            "give the ASK's boolean as the answer",
        )),
        Some(Form::Select) if booleans > 0 => out.push(finding(
            id,
            "answer_kind",
            Severity::Error,
            "the query is a SELECT, and the gold answer is a boolean",
            "give the SELECT's rows as the answers, or make the query an ASK",
        )),
        _ => {}
    }
    let ask_false = booleans > 0
        && set
            .answers
            .iter()
            .flat_map(|a| &a.terms)
            .all(|t| *t == Term::Boolean(false));
    if set.answers.is_empty() {
        out.push(finding(
            id,
            "empty_gold",
            Severity::Warning,
            "the gold answer is empty",
            "check that the question has no answer on this knowledge graph; under the `judge` profile only an empty answer scores 1, under `text2sparql` every system scores 0",
        ));
    }
    if options.text2sparql && (set.answers.is_empty() || ask_false) {
        out.push(finding(
            id,
            "zero_for_every_system",
            Severity::Warning,
            if ask_false {
                "a false ASK: the challenge's set measures find nothing relevant, so every system scores 0"
            } else {
                "an empty gold: the challenge's set measures find nothing relevant, so every system scores 0"
            },
            "report the question apart, or leave it out of the ranking: it tells no system from another",
        ));
    }
}

/// A decimal digit of any script a benchmark writes (ASCII, Arabic-Indic,
/// Persian, Devanagari, full-width) as its value.
fn digit(c: char) -> Option<char> {
    let zero = ['0', '\u{660}', '\u{6f0}', '\u{966}', '\u{ff10}']
        .into_iter()
        .find(|&z| (z..=char::from_u32(z as u32 + 9).unwrap_or(z)).contains(&c))?;
    char::from_digit(c as u32 - zero as u32, 10)
}

/// The numbers (written in digits, of any script) and quoted names of a
/// question text.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut number = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        match digit(c) {
            Some(d) => number.push(d),
            None if !number.is_empty() => {
                out.insert(std::mem::take(&mut number));
            }
            None => {}
        }
    }
    let chars: Vec<char> = text.chars().collect();
    let boundary = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_none_or(|c| !c.is_alphanumeric())
    };
    for (open, close) in [('"', '"'), ('\'', '\''), ('“', '”'), ('«', '»')] {
        let mut i = 0;
        while i < chars.len() {
            // a quote opens after a non-letter and closes before one (an
            // apostrophe inside a word, `d'un`, is no quote)
            if chars[i] == open && boundary(i.checked_sub(1)) {
                if let Some(k) =
                    (i + 1..chars.len()).find(|&k| chars[k] == close && boundary(Some(k + 1)))
                {
                    let quoted: String = chars[i + 1..k].iter().collect();
                    let quoted = quoted.trim();
                    if !quoted.is_empty() && quoted.chars().count() <= 100 {
                        out.insert(format!("\"{quoted}\""));
                    }
                    i = k + 1;
                    continue;
                }
            }
            i += 1;
        }
    }
    out
}

/// The id of a TEXT2SPARQL question without its language (`db25:1-en` →
/// `db25:1`), else the id.
fn base_id(id: &str) -> &str {
    match id.rsplit_once('-') {
        Some((base, lang)) if lang.len() == 2 && lang.chars().all(|c| c.is_ascii_lowercase()) => {
            base
        }
        _ => id,
    }
}

/// The questions of a gold grouped by their id without its language suffix
/// (`ck25:1-en`, `ck25:1-es` → `ck25:1`), found in one pass, so that the
/// languages check is linear in the gold, not quadratic.
pub(super) struct Languages {
    /// Per question, the questions of its group in gold order, when it is
    /// the first of its group; `None` for the others (their group is
    /// checked at its first question).
    groups: Vec<Option<Vec<usize>>>,
}

impl Languages {
    /// The groups of `gold`.
    pub(super) fn of(gold: &Dataset) -> Languages {
        let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut groups: Vec<Option<Vec<usize>>> = vec![None; gold.questions.len()];
        for (i, q) in gold.questions.iter().enumerate() {
            let at = *first.entry(base_id(&q.id.0)).or_insert(i);
            groups[at].get_or_insert_with(Vec::new).push(i);
        }
        Languages { groups }
    }

    /// The languages of question `i` (its texts, and the texts of the
    /// questions of the same id in other languages, found once, at the first
    /// of them) that carry different numbers or quoted names.
    pub(super) fn question(&self, gold: &Dataset, i: usize) -> Vec<Finding> {
        match self.groups.get(i) {
            Some(Some(members)) => languages(gold, i, members),
            _ => Vec::new(),
        }
    }
}

/// The finding of the group `members` (question indices, `i` the first).
fn languages(gold: &Dataset, i: usize, members: &[usize]) -> Vec<Finding> {
    let q = &gold.questions[i];
    let texts: Vec<(&str, &str)> = members
        .iter()
        .map(|&m| &gold.questions[m])
        .flat_map(|p| p.texts.iter().map(|(l, t)| (l.as_str(), t.as_str())))
        .collect();
    let Some(&(first_lang, first)) = texts.first() else {
        return Vec::new();
    };
    let reference = anchors(first);
    // numbers must agree; quoted names where both languages quote
    let split = |a: &BTreeSet<String>| -> (BTreeSet<String>, BTreeSet<String>) {
        a.iter().cloned().partition(|x| !x.starts_with('"'))
    };
    let (numbers, quoted) = split(&reference);
    let differing: Vec<String> = texts[1..]
        .iter()
        .filter(|(_, t)| {
            let (n, q) = split(&anchors(t));
            // a number written in words in one language is not compared
            (!n.is_empty() && !numbers.is_empty() && n != numbers)
                || (!q.is_empty() && !quoted.is_empty() && q != quoted)
        })
        .map(|(l, t)| format!("{l}: {:?} ({t:?})", anchors(t)))
        .collect();
    if differing.is_empty() {
        return Vec::new();
    }
    vec![finding(
        &q.id.0,
        "languages_differ",
        Severity::Warning,
        format!(
            "the numbers or quoted names of the question's languages differ: {first_lang}: {reference:?} ({first:?}); {}",
            differing.join("; ")
        ),
        "make every language ask the same question: a system asked in one language is scored against the gold of all",
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counted_variable_of_a_distinct_count() {
        assert_eq!(
            distinct_count("SELECT DISTINCT COUNT(?author) WHERE { ?x ?p ?author }").as_deref(),
            Some("author")
        );
        assert_eq!(
            distinct_count("PREFIX a: <x>\nselect distinct (count(?resultR) as ?result) where {}")
                .as_deref(),
            Some("resultR")
        );
        assert_eq!(
            distinct_count("SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {}"),
            None
        );
        assert_eq!(
            distinct_count("SELECT DISTINCT (COUNT(DISTINCT ?x) AS ?n) WHERE {}"),
            None
        );
        assert_eq!(distinct_count("SELECT DISTINCT ?x WHERE {}"), None);
        assert_eq!(
            distinct_count("SELECT DISTINCT COUNT(*) WHERE {}").as_deref(),
            Some("*")
        );
    }

    #[test]
    fn numbers_and_quotes_of_texts() {
        let a = anchors("Which 3 films did 'Nolan' make after 2010?");
        assert!(
            a.contains("3") && a.contains("2010") && a.contains("\"Nolan\""),
            "{a:?}"
        );
        assert_eq!(base_id("db25:1-en"), "db25:1");
        assert_eq!(base_id("ck25:1-es"), "ck25:1");
        assert_eq!(base_id("q-12"), "q-12");
    }
}
