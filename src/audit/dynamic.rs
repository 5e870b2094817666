//! The audit's checks with stores (docs/audit.md): each gold query executed
//! `repeat` times on each store — results that differ between repeats or
//! between stores (with the difference), executions that fail or time out,
//! results cut at the row cap, given answers that differ from the executed
//! result (stale gold), IRIs of the query that the graph does not hold, ties
//! at a `LIMIT`/`OFFSET` edge (the query executed without its window, the
//! `ORDER BY` keys compared across each edge), and a `SELECT DISTINCT` over a
//! `COUNT` decided by the store's counts with and without `DISTINCT` inside.

use std::collections::BTreeSet;

use super::{finding, Executed, Finding, Severity, Store};
use crate::model::{AnswerSet, Question, Term};

/// The most rows a difference lists on each side.
const SHOWN: usize = 3;

/// The findings of one question's query on the stores, and the first
/// execution on the first store when every execution there ran (what a
/// frozen gold takes).
pub(super) fn question(
    q: &Question,
    text: &str,
    stores: &[&dyn Store],
    repeat: usize,
) -> (Vec<Finding>, Option<Executed>) {
    let id = q.id.0.as_str();
    let mut out = Vec::new();
    let mut firsts: Vec<(String, Executed)> = Vec::new();
    let ordered = crate::query::orders(text);
    let mut on_first = None;
    for (k, store) in stores.iter().enumerate() {
        let ran = on_store(id, text, *store, repeat, ordered, &mut out);
        if k == 0 {
            on_first = ran.as_ref().map(|(_, e)| e.clone());
        }
        firsts.extend(ran);
    }
    for pair in firsts.windows(2) {
        let ((a_name, a), (b_name, b)) = (&pair[0], &pair[1]);
        if comparable(a, ordered) != comparable(b, ordered) {
            // the same rows in another order: only a score of the order sees it
            let order_only = comparable(a, false) == comparable(b, false);
            out.push(finding(
                id,
                "store_dependent",
                if order_only { Severity::Note } else { Severity::Warning },
                format!(
                    "{a_name} and {b_name} give different results: {}",
                    difference(a, b, ordered)
                ),
                if order_only {
                    "the rows tie on the ORDER BY keys: only a measure of the order (nDCG of RESULT_ORDER_MATTERS questions) can differ; add a key that breaks the tie"
                } else {
                    "score the question apart, or name the store the figures hold for"
                },
            ));
        }
    }
    if let (Some(given), Some((name, first))) = (&q.answers, firsts.first()) {
        out.extend(stale_gold(id, given, name, first));
    }
    (out, on_first)
}

/// The findings of a query executed `repeat` times on one store (failed or
/// timed out, cut at the row cap, unstable between repeats, IRIs the graph
/// lacks, ties at a window's edge, a `DISTINCT` over a `COUNT`) added to
/// `out`; the store's name and its first result, unless an execution failed.
fn on_store(
    id: &str,
    text: &str,
    store: &dyn Store,
    repeat: usize,
    ordered: bool,
    out: &mut Vec<Finding>,
) -> Option<(String, Executed)> {
    let name = store.name();
    let runs: Vec<Executed> = (0..repeat).map(|_| store.execute(text)).collect();
    let first = runs[0].clone();
    if let Some(failed) = runs.iter().find(|r| !r.ran()) {
        let severity = Severity::Error;
        out.push(finding(
            id,
            if failed.status == "timeout" { "timeout" } else { "execution_failed" },
            severity,
            format!(
                "on {name}: {} ({})",
                failed.status,
                failed.message.as_deref().unwrap_or("no message")
            ),
            "fix the query, or give the store more time (--query-timeout-ms): the gold has no answers there",
        ));
        return None;
    }
    if runs.iter().any(|r| r.status == "truncated") {
        out.push(finding(
            id,
            "row_cap",
            Severity::Warning,
            format!("on {name}: the result was cut at {} rows", first.rows.len()),
            "raise --max-rows, or check that the question really asks for so many answers",
        ));
    }
    let key = |r: &Executed| comparable(r, ordered);
    if let Some(other) = runs[1..].iter().find(|r| key(r) != key(&first)) {
        out.push(finding(
            id,
            "unstable",
            Severity::Warning,
            format!(
                "on {name}, two of {repeat} executions differ: {}",
                difference(&first, other, ordered)
            ),
            "make the result deterministic (ORDER BY on total keys, no sampling); score the question apart",
        ));
    }
    if let Some(f) = unknown_iris(id, text, store) {
        out.push(f);
    }
    out.extend(window_ties(id, text, &name, store, &first));
    out.extend(distinct_count(id, text, &name, store));
    Some((name, first))
}

/// A warning when the given answers are not the query's result (`first`, on
/// the store `name`): the gold is stale. An ASK result, or no answers given,
/// is not compared.
fn stale_gold(id: &str, given: &AnswerSet, name: &str, first: &Executed) -> Option<Finding> {
    let gold: BTreeSet<String> = given
        .answers
        .iter()
        .flat_map(|a| &a.terms)
        .map(term_text)
        .collect();
    let executed: BTreeSet<String> = first.rows.iter().flatten().flatten().cloned().collect();
    let ask = first.vars.is_empty() && first.rows.len() <= 1;
    if ask || gold.is_empty() || gold == executed {
        return None;
    }
    let shared = gold.intersection(&executed).count();
    Some(finding(
        id,
        "stale_gold",
        Severity::Warning,
        format!(
            "the given answers are not the query's result on {name}: {} given, {} executed, {shared} shared",
            gold.len(),
            executed.len()
        ),
        "refresh the gold from the store the benchmark names (qajudge refresh), or fix the query",
    ))
}

/// A result as compared: its rows in order when the query orders them, else
/// sorted.
fn comparable(r: &Executed, ordered: bool) -> Vec<String> {
    let mut rows = r.row_texts();
    if !ordered {
        rows.sort();
    }
    rows
}

/// What two results differ in: the count of rows, and the first rows only
/// one side has.
fn difference(a: &Executed, b: &Executed, ordered: bool) -> String {
    let (ra, rb) = (comparable(a, ordered), comparable(b, ordered));
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        let ys: BTreeSet<&String> = y.iter().collect();
        x.iter()
            .filter(|r| !ys.contains(r))
            .take(SHOWN)
            .cloned()
            .collect()
    };
    let (oa, ob) = (only(&ra, &rb), only(&rb, &ra));
    if oa.is_empty() && ob.is_empty() {
        return format!("the same {} rows in another order", ra.len());
    }
    format!(
        "{} rows against {}; only in the first: {oa:?}; only in the second: {ob:?}",
        ra.len(),
        rb.len()
    )
}

/// The text a gold term is compared by with a store's cell.
fn term_text(t: &Term) -> String {
    match t {
        Term::Iri(i) => i.clone(),
        Term::Literal { lexical, .. } => lexical.clone(),
        Term::Boolean(b) => b.to_string(),
    }
}

/// The IRIs of the query that no triple of the store holds.
fn unknown_iris(id: &str, text: &str, store: &dyn Store) -> Option<Finding> {
    let iris = crate::query::executable(text).ok()?.iris;
    let unknown: Vec<&String> = iris.iter().filter(|i| !store.holds(i)).collect();
    if unknown.is_empty() {
        return None;
    }
    Some(finding(
        id,
        "unknown_iris",
        Severity::Warning,
        format!(
            "{} of the query's {} IRIs occur in no triple of {}: {}",
            unknown.len(),
            iris.len(),
            store.name(),
            unknown
                .iter()
                .take(SHOWN)
                .map(|i| format!("<{i}>"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "check the IRIs against the knowledge graph the benchmark names (a typo, another version)",
    ))
}

/// `LIMIT n` and `OFFSET m` of the outermost query (its last words), and its
/// text without them.
fn window(text: &str) -> Option<(Option<usize>, usize, String)> {
    let trimmed = text.trim_end().trim_end_matches(';').trim_end();
    let lower = trimmed.to_ascii_lowercase();
    let mut cut = trimmed.len();
    let (mut limit, mut offset) = (None, None);
    // at most the two clauses, in either order, at the end of the text
    for _ in 0..2 {
        let head = &lower[..cut];
        let words: Vec<&str> = head.split_whitespace().collect();
        let [.., keyword, number] = words.as_slice() else {
            break;
        };
        let Ok(n) = number.parse::<usize>() else {
            break;
        };
        let at = head.rfind(keyword)?;
        match *keyword {
            "limit" if limit.is_none() => limit = Some(n),
            "offset" if offset.is_none() => offset = Some(n),
            _ => break,
        }
        cut = at;
    }
    if limit.is_none() && offset.is_none() {
        return None;
    }
    Some((
        limit,
        offset.unwrap_or(0),
        trimmed[..cut].trim_end().to_string(),
    ))
}

/// The variables of the outermost `ORDER BY` (a variable, or `ASC(?v)`,
/// `DESC(?v)`), if its keys are only such.
fn order_keys(text: &str) -> Option<Vec<String>> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind("order by")?;
    let mut keys = Vec::new();
    for word in text[at + "order by".len()..].split_whitespace() {
        let w = word.trim_start_matches(['(']).trim_end_matches([')']);
        let lw = w.to_ascii_lowercase();
        if lw == "limit" || lw == "offset" {
            break;
        }
        let inner = ["asc(", "desc("]
            .iter()
            .find_map(|p| lw.strip_prefix(p).map(|_| &w[p.len()..]))
            .unwrap_or(w);
        let var = inner.trim_start_matches(['?', '$']).trim_end_matches(')');
        if inner.starts_with(['?', '$']) && !var.is_empty() {
            keys.push(var.to_string());
        } else if !matches!(lw.as_str(), "asc" | "desc") {
            return None;
        }
    }
    (!keys.is_empty()).then_some(keys)
}

/// Ties at the edges of an ordered query's `LIMIT`/`OFFSET` window: the query
/// executed without its window, the keys of the rows on each side of each
/// edge compared.
fn window_ties(
    id: &str,
    text: &str,
    name: &str,
    store: &dyn Store,
    windowed: &Executed,
) -> Option<Finding> {
    if !crate::query::orders(text) {
        return None;
    }
    let (limit, offset, widened) = window(text)?;
    let keys = order_keys(&widened)?;
    let all = store.execute(&widened);
    if !all.ran() {
        return None;
    }
    let columns: Vec<usize> = keys.iter().map(|k| all.column(k)).collect::<Option<_>>()?;
    let key_of = |row: usize| -> Option<Vec<Option<String>>> {
        let r = all.rows.get(row)?;
        Some(
            columns
                .iter()
                .map(|&c| r.get(c).cloned().flatten())
                .collect(),
        )
    };
    let mut edges = Vec::new();
    if offset > 0 {
        edges.push(offset);
    }
    if let Some(n) = limit {
        edges.push(offset + n);
    }
    let tied: Vec<String> = edges
        .into_iter()
        .filter(|&e| e > 0 && e < all.rows.len())
        .filter_map(|e| {
            let (before, after) = (key_of(e - 1)?, key_of(e)?);
            (before == after).then(|| {
                format!(
                    "rows {e} and {} tie on {} = {:?}",
                    e + 1,
                    keys.iter()
                        .map(|k| format!("?{k}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    before
                        .iter()
                        .map(|v| v.as_deref().unwrap_or("UNDEF"))
                        .collect::<Vec<_>>()
                )
            })
        })
        .collect();
    if tied.is_empty() {
        return None;
    }
    Some(finding(
        id,
        "ties_at_edge",
        Severity::Warning,
        format!(
            "on {name}, ordered without its window ({} rows; the window kept {}): {}",
            all.rows.len(),
            windowed.rows.len(),
            tied.join("; ")
        ),
        "which tied rows the window keeps is the store's choice: add an ORDER BY key that breaks the tie (a name or the IRI), or accept every tied row",
    ))
}

/// A `SELECT DISTINCT` over a `COUNT`: the store's count as written and with
/// `DISTINCT` inside the `COUNT`.
fn distinct_count(id: &str, text: &str, name: &str, store: &dyn Store) -> Option<Finding> {
    let counted = super::statics::distinct_count(text)?;
    if counted == "*" {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let count = lower.find("count")?;
    let open = count + lower[count..].find('(')?;
    let inside = format!("{}DISTINCT {}", &text[..=open], &text[open + 1..]);
    let value = |r: &Executed| -> Option<String> { r.rows.first()?.first()?.clone() };
    let (as_written, distinct) = (store.execute(text), store.execute(&inside));
    let (a, b) = (value(&as_written)?, value(&distinct)?);
    Some(if a == b {
        finding(
            id,
            "distinct_count",
            Severity::Note,
            format!("SELECT DISTINCT over COUNT(?{counted}): executed on {name}, the count is {a} with and without DISTINCT inside the COUNT"),
            "nothing changes the figure on this graph; COUNT(DISTINCT ?x) says what is meant",
        )
    } else {
        finding(
            id,
            "distinct_count",
            Severity::Error,
            format!("SELECT DISTINCT over COUNT(?{counted}): executed on {name}, the count is {a} as written and {b} with DISTINCT inside the COUNT (the DISTINCT outside applies to the one row, not to ?{counted})"),
            "write COUNT(DISTINCT ?x) if the question counts distinct things, and refresh the gold",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_and_the_keys_of_a_query() {
        let q = "SELECT ?n ?p WHERE { ?x <p> ?p } ORDER BY DESC(?p) ?n LIMIT 5 OFFSET 10";
        let (limit, offset, rest) = window(q).expect("a window");
        assert_eq!((limit, offset), (Some(5), 10));
        assert!(rest.ends_with("?n"), "{rest}");
        assert_eq!(
            order_keys(&rest),
            Some(vec!["p".to_string(), "n".to_string()])
        );
        assert_eq!(
            window("SELECT * WHERE { ?s ?p ?o } OFFSET 3 LIMIT 2").map(|w| (w.0, w.1)),
            Some((Some(2), 3))
        );
        assert!(window("SELECT * WHERE { ?s ?p ?o }").is_none());
        assert_eq!(order_keys("SELECT * WHERE {} ORDER BY STRLEN(?x)"), None);
    }
}
