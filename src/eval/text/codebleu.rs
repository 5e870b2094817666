//! T2S-Metrics 1.2.0's `codebleu` (`metrics/codebleu/*`): the plain mean of
//! four figures of the generated query against the golden one — NLTK's
//! `sentence_bleu` with weights ¼ each and `SmoothingFunction().method1` (an
//! order with no match counts 0.1 over its n-gram count), a keyword-weighted
//! token precision (its weights are looked up by the token as written, so
//! only lower-case keywords weigh more than 1), a syntax figure (1 when the
//! generated query parses as SPARQL 1.1, undeclared prefixes allowed, as
//! rdflib's `parseQuery` checks grammar only) and a data-flow figure (the
//! share of the golden query's variables the generated one also names; 1 when
//! the golden one names none).

use std::collections::{BTreeSet, HashMap};

use super::tokenize;

/// Its `SPARQL_KEYWORDS` weights (others weigh 1).
const WEIGHTS: &[(&str, f64)] = &[
    ("select", 2.0),
    ("ask", 2.0),
    ("construct", 2.0),
    ("describe", 2.0),
    ("where", 2.0),
    ("from", 1.5),
    ("named", 1.5),
    ("filter", 1.5),
    ("optional", 1.5),
    ("union", 1.5),
    ("minus", 1.5),
    ("graph", 1.5),
    ("bind", 1.5),
    ("limit", 1.2),
    ("offset", 1.2),
    ("order", 1.2),
    ("by", 1.2),
    ("distinct", 1.5),
    ("reduced", 1.5),
    ("group", 1.5),
    ("having", 1.5),
    ("count", 1.0),
    ("sum", 1.0),
    ("avg", 1.0),
    ("min", 1.0),
    ("max", 1.0),
    ("sample", 1.0),
    ("prefix", 1.0),
    ("base", 1.0),
];

/// Tokens counted in order of first appearance (a Python `Counter`).
fn counter(tokens: &[String]) -> Vec<(&str, usize)> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out: Vec<(&str, usize)> = Vec::new();
    for t in tokens {
        match index.get(t.as_str()) {
            Some(&i) => out[i].1 += 1,
            None => {
                index.insert(t, out.len());
                out.push((t, 1));
            }
        }
    }
    out
}

/// NLTK's `sentence_bleu(ref, cand, smoothing_function=method1)`.
pub fn bleu_method1(reference: &[String], candidate: &[String]) -> f64 {
    let grams = |t: &[String], n: usize| -> HashMap<Vec<String>, usize> {
        let mut m = HashMap::new();
        if t.len() >= n {
            for w in t.windows(n) {
                *m.entry(w.to_vec()).or_insert(0) += 1;
            }
        }
        m
    };
    let mut logs = Vec::with_capacity(4);
    for n in 1..=4 {
        let (c, r) = (grams(candidate, n), grams(reference, n));
        let matched: usize = c
            .iter()
            .map(|(g, k)| (*k).min(r.get(g).copied().unwrap_or(0)))
            .sum();
        if n == 1 && matched == 0 {
            return 0.0;
        }
        let total = c.values().sum::<usize>().max(1) as f64;
        let p = if matched == 0 {
            0.1 / total
        } else {
            matched as f64 / total
        };
        logs.push(0.25 * p.ln());
    }
    let (c, r) = (candidate.len(), reference.len());
    let bp = if c > r {
        1.0
    } else {
        (1.0 - r as f64 / c as f64).exp()
    };
    bp * fsum(&logs).exp()
}

/// Python's `math.fsum` of a few values (exact sum, rounded once), by
/// Shewchuk's partials.
fn fsum(values: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &v in values {
        let mut x = v;
        let mut kept = Vec::with_capacity(partials.len() + 1);
        for &p in &partials {
            let (a, b) = if x.abs() < p.abs() { (p, x) } else { (x, p) };
            let hi = a + b;
            let lo = b - (hi - a);
            if lo != 0.0 {
                kept.push(lo);
            }
            x = hi;
        }
        kept.push(x);
        partials = kept;
    }
    // the partials are non-overlapping: adding them from the largest down,
    // with the half-way correction of CPython's msum
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        if y == x - hi {
            hi = x;
        }
    }
    hi
}

/// `weighted_precision(ref_tokens, pred_tokens)`.
pub fn weighted_precision(reference: &[String], candidate: &[String]) -> f64 {
    let reference: HashMap<&str, usize> = counter(reference).into_iter().collect();
    let (mut score, mut total) = (0.0, 0.0);
    for (t, n) in counter(candidate) {
        let w = WEIGHTS
            .iter()
            .find(|(k, _)| *k == t)
            .map_or(1.0, |(_, w)| *w);
        let matched = n.min(reference.get(t).copied().unwrap_or(0));
        score += w * matched as f64;
        total += w * n as f64;
    }
    if total > 0.0 {
        score / total
    } else {
        0.0
    }
}

/// Its variables: `\?[a-zA-Z_]\w*`.
fn variables(q: &str) -> BTreeSet<String> {
    let c: Vec<char> = q.chars().collect();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] == '?'
            && c.get(i + 1)
                .is_some_and(|x| x.is_ascii_alphabetic() || *x == '_')
        {
            let mut end = i + 2;
            while end < c.len() && (c[end].is_alphanumeric() || c[end] == '_') {
                end += 1;
            }
            out.insert(c[i..end].iter().collect());
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// `dataflow_match(gold, pred)`.
pub fn dataflow(golden: &str, generated: &str) -> f64 {
    let g = variables(golden);
    if g.is_empty() {
        return 1.0;
    }
    let p = variables(generated);
    g.intersection(&p).count() as f64 / g.len() as f64
}

/// The checks the SPARQL parser qajudge uses makes beyond the grammar, which
/// rdflib's `parseQuery` (a grammar alone) does not make: a query failing
/// only these parses for CodeBLEU, when the parser's message names them (it
/// names the furthest failure instead when the check fails inside a
/// grouping: such a query, a projection of a variable the grouping does not
/// keep, gets 0 where T2S-Metrics gives 1).
const BEYOND_GRAMMAR: &[&str] = &[
    "The SELECT contains a variable that is unbound",
    "The SELECT overrides an existing variable using an expression",
    "The SELECT contains an expression with a variable that is unbound",
    "Duplicated variable name in SELECT",
    "SELECT * is not authorized with GROUP BY",
    "BIND is overriding an existing variable",
    "Repeated variables are not allowed in VALUES clauses",
    "The VALUES clause rows should have exactly the same number of values",
    "Already used blank node id",
    "Prefix not found",
];

/// Keywords rdflib's grammar (pyparsing's `Keyword`) does not read right
/// after a letter, digit, `_` or `$`: `OFFSET 5LIMIT 5` fails there.
const GLUE_KEYWORDS: &[&str] = &[
    "LIMIT", "OFFSET", "ORDER", "GROUP", "HAVING", "WHERE", "VALUES", "FILTER", "OPTIONAL",
    "UNION", "MINUS", "BIND",
];

/// True when a number is followed at once by one of [`GLUE_KEYWORDS`]
/// outside IRIs and strings.
fn glued_keyword(query: &str) -> bool {
    let c: Vec<char> = query.chars().collect();
    // the first `>` or whitespace at or after each position, found in one pass
    // from the end (a search from every `<` made a text of `<` quadratic)
    let mut stop = vec![c.len(); c.len() + 1];
    for i in (0..c.len()).rev() {
        stop[i] = if c[i] == '>' || c[i].is_whitespace() {
            i
        } else {
            stop[i + 1]
        };
    }
    let longest = GLUE_KEYWORDS.iter().map(|k| k.len()).max().unwrap_or(0);
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < c.len() {
        match (quote, c[i]) {
            (Some(q), x) if x == q => quote = None,
            (Some(_), '\\') => i += 1,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c[i]),
            (None, '<') if stop[i] < c.len() && c[stop[i]] == '>' => i = stop[i],
            (None, x) if x.is_ascii_digit() => {
                // a word longer than every keyword is none of them
                let word: String = c[i + 1..]
                    .iter()
                    .take_while(|x| x.is_ascii_alphabetic())
                    .take(longest + 1)
                    .collect();
                let preceded = i > 0
                    && (c[i - 1].is_alphanumeric() || matches!(c[i - 1], '_' | '?' | '$' | ':'));
                if !preceded && GLUE_KEYWORDS.contains(&word.to_ascii_uppercase().as_str()) {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// True when `query` follows the SPARQL 1.1 grammar, as rdflib's
/// `parseQuery` checks it: prefixes it uses without declaring them are
/// declared first (the grammar resolves none), and a failure of a check made
/// beyond the grammar ([`BEYOND_GRAMMAR`]) still parses.
pub fn parses(query: &str) -> bool {
    let mut declared = String::new();
    let c: Vec<char> = query.chars().collect();
    let mut seen = BTreeSet::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch != ':' {
            continue;
        }
        let mut s = i;
        while s > 0 && (c[s - 1].is_alphanumeric() || matches!(c[s - 1], '_' | '-' | '.')) {
            s -= 1;
        }
        let name: String = c[s..i].iter().collect();
        let name = name.trim_start_matches(['.', '-']).to_string();
        if name.starts_with(|x: char| x.is_ascii_digit()) || name.ends_with('.') {
            continue;
        }
        if seen.insert(name.clone()) {
            declared.push_str(&format!("PREFIX {name}: <urn:t2s:{}>\n", seen.len()));
        }
    }
    if glued_keyword(query) {
        return false;
    }
    // a declaration the query makes itself comes after ours and wins; the
    // base makes relative IRIs (`<15>`) read, as the grammar reads them
    let text = format!("BASE <urn:t2s:base/>\n{declared}{query}");
    if crate::query::check_bounds(&text).is_err() {
        return false;
    }
    // parsed on a thread with a deep stack, as its nesting may need
    let outcome = std::thread::Builder::new()
        .stack_size(crate::stack::DEEP_STACK_BYTES)
        .spawn(move || crate::query::parse_on_this_thread(&text).map_err(|e| e.to_string()))
        .ok()
        .and_then(|h| h.join().ok());
    match outcome {
        Some(Ok(())) => true,
        Some(Err(message)) => BEYOND_GRAMMAR.iter().any(|m| message.contains(m)),
        None => false,
    }
}

/// `CodeBLEU().compute`: the mean of the four figures.
pub fn codebleu(golden: &str, generated: &str) -> f64 {
    let (g, p) = (tokenize(golden), tokenize(generated));
    let figures = [
        bleu_method1(&g, &p),
        weighted_precision(&g, &p),
        f64::from(u8::from(parses(generated))),
        dataflow(golden, generated),
    ];
    (((figures[0] + figures[1]) + figures[2]) + figures[3]) / 4.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_four_figures() {
        let w = |s: &str| tokenize(s);
        assert_eq!(dataflow("SELECT ?a ?b", "?a"), 0.5);
        assert_eq!(dataflow("ASK {}", ""), 1.0);
        assert_eq!(
            weighted_precision(&w("select ?x"), &w("select ?y")),
            2.0 / 3.0
        );
        assert_eq!(weighted_precision(&w("SELECT ?x"), &w("SELECT ?y")), 0.5);
        assert!(parses("SELECT ?x WHERE { ?x pv:p ?y }"));
        assert!(!parses("SELECT ?x WHERE { ?x pv:p ?y"));
        assert!(parses("SELECT ?x { ?x :p <15> }"));
        assert!(!parses("SELECT ?x { ?x :p ?y } OFFSET 5LIMIT 5"));
        assert_eq!(bleu_method1(&w("a b"), &w("c d")), 0.0);
        assert_eq!(fsum(&[1e100, 1.0, -1e100]), 1.0);
    }
}
