//! A SPARQL text as tokens, the way T2S-Metrics 1.2.0 reads it (its
//! `TOKEN_PATTERN_V2`, matched left to right with the first alternative that
//! fits, characters no alternative fits skipped), its renaming of variables
//! to `?v0`, `?v1` … (`normalize_variables`: a plain text substitution, inside
//! IRIs and strings too) and Python's `" ".join(s.split())`.

/// A character Python's `str.split()` splits on.
pub(crate) fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A character of Python's `\w` (letters, digits, `_`).
fn py_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Python's `" ".join(s.split())`.
pub fn py_normalize_whitespace(s: &str) -> String {
    s.split(py_space)
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The end of a run of `f` characters from `i`.
fn run(c: &[char], mut i: usize, f: impl Fn(char) -> bool) -> usize {
    while i < c.len() && f(c[i]) {
        i += 1;
    }
    i
}

/// The end of the token starting at `i`, if one starts there.
fn token_at(c: &[char], i: usize, last_gt: Option<usize>) -> Option<usize> {
    let at = |k: usize| c.get(k).copied();
    // variables
    if at(i) == Some('?') && at(i + 1).is_some_and(ident_start) {
        return Some(run(c, i + 2, ident));
    }
    // IRIs (a `<` with no `>` after it is not one: the scan stops at once,
    // so that a text of many such `<` is read in linear time)
    if at(i) == Some('<') && last_gt.is_some_and(|g| g > i) {
        if let Some(k) = c[i + 1..].iter().position(|&x| x == '>') {
            return Some(i + 1 + k + 1);
        }
    }
    // strings with escapes
    if at(i) == Some('"') {
        let mut k = i + 1;
        loop {
            match at(k) {
                None => break,
                Some('"') => return Some(k + 1),
                Some('\\') => match at(k + 1) {
                    Some(n) if n != '\n' => k += 2,
                    _ => break,
                },
                Some(_) => k += 1,
            }
        }
    }
    // numbers
    let sign = usize::from(matches!(at(i), Some('+' | '-')));
    if at(i + sign).is_some_and(|x| x.is_ascii_digit()) {
        let mut k = run(c, i + sign, |x| x.is_ascii_digit());
        if at(k) == Some('.') && at(k + 1).is_some_and(|x| x.is_ascii_digit()) {
            k = run(c, k + 1, |x| x.is_ascii_digit());
        }
        if matches!(at(k), Some('e' | 'E')) {
            let s = usize::from(matches!(at(k + 1), Some('+' | '-')));
            if at(k + 1 + s).is_some_and(|x| x.is_ascii_digit()) {
                k = run(c, k + 1 + s, |x| x.is_ascii_digit());
            }
        }
        return Some(k);
    }
    // prefixed names, then identifiers
    if at(i).is_some_and(ident_start) {
        let end = run(c, i + 1, ident);
        if at(end) == Some(':') && at(end + 1).is_some_and(ident) {
            return Some(run(c, end + 1, ident));
        }
        // operators and punctuation cannot start with a letter
        return Some(end);
    }
    // operators
    if let (Some(a), Some(b)) = (at(i), at(i + 1)) {
        if matches!((a, b), ('!' | '<' | '>', '=') | ('&', '&') | ('|', '|')) {
            return Some(i + 2);
        }
    }
    if at(i).is_some_and(|x| "=<>+-*/{}[]();.,".contains(x)) {
        return Some(i + 1);
    }
    None
}

/// The tokens of a SPARQL text (T2S-Metrics' `tokenize`).
pub fn tokenize(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let last_gt = c.iter().rposition(|&x| x == '>');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        match token_at(&c, i, last_gt) {
            Some(end) => {
                out.push(c[i..end].iter().collect());
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// Variables (`?` then a letter or `_`, then word characters) renamed
/// `?v0`, `?v1` … by first occurrence, anywhere in the text.
pub fn normalize_variables(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    // each name's number, found by hashing (a linear search made 60,000
    // variables take seconds)
    let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        if c[i] == '?'
            && c.get(i + 1)
                .is_some_and(|&x| x.is_ascii_alphabetic() || x == '_')
        {
            let end = run(&c, i + 2, py_word);
            let var: String = c[i..end].iter().collect();
            let next = names.len();
            let n = *names.entry(var).or_insert(next);
            out.push_str(&format!("?v{n}"));
            i = end;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_follow_the_first_alternative_that_fits() {
        assert_eq!(
            tokenize("SELECT ?x WHERE { ?x pv:memberOf <http://a/b> ; :name \"Ms. \\\"B\\\"\" . FILTER(?n >= -1.5e3 && ?x != 2) }"),
            vec![
                "SELECT", "?x", "WHERE", "{", "?x", "pv:memberOf", "<http://a/b>", ";",
                "name", "\"Ms. \\\"B\\\"\"", ".", "FILTER", "(", "?n", ">=", "-1.5e3", "&&",
                "?x", "!=", "2", ")", "}"
            ]
        );
        // an unclosed IRI is an operator; a lone `?` and `:` are skipped
        assert_eq!(tokenize("?a < ?b ? :"), vec!["?a", "<", "?b"]);
        // an unclosed string is skipped to its content
        assert_eq!(tokenize("\"ab"), vec!["ab"]);
        // many `<` without `>`: operators, read in linear time
        let many = "<".repeat(200_000);
        let started = std::time::Instant::now();
        assert_eq!(tokenize(&many).len(), 200_000);
        assert!(started.elapsed().as_secs() < 5);
    }

    #[test]
    fn variables_are_renamed_everywhere() {
        assert_eq!(
            normalize_variables("SELECT ?b ?a { ?a <http://x?b=1> ?b }"),
            "SELECT ?v0 ?v1 { ?v1 <http://x?v0=1> ?v0 }"
        );
        assert_eq!(py_normalize_whitespace(" a \n\t b\u{1f}c "), "a b c");
    }
}
