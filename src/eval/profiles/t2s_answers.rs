//! The answer measures of T2S-Metrics 1.2.0 (the `t2s-metrics` profile;
//! docs/scoring.md, The `t2s-metrics` profile), computed from the answers of
//! both queries as qajudge executed them (`--kg`, `--endpoint`), read the way
//! its `result_utils.py` reads a SPARQL JSON result: each row a tuple of its
//! variables' values (the IRI, the literal's lexical form, the blank node's
//! label; an unbound variable a value of its own), rows with no binding
//! dropped, the tuples flattened into one list; an ASK answer the value
//! `ASK_TRUE` or `ASK_FALSE`; a query that fails no answer at all. Set measures
//! (`answerset_precision`, `answerset_recall`, `answerset_f1`,
//! `precision_qald`, `recall_qald`, `f1_qald`) compare the sets of those
//! values, ranked ones (`hit@1`, `mrr`, `p@1`, `ndcg`) the lists; SPINACH's
//! (`f1_spinach`, `exact_match_spinach`) compare result rows binding by
//! binding; `query_execution` says whether the generated query ran. Quirks
//! included, each as its code has it.

use std::collections::{HashMap, HashSet};

use super::spinach::row_major_f1;
use crate::eval::report::Figures;
use crate::model::{AnswerSet, Query, Question, Term};

/// Row pairs past which `f1_spinach` falls back to the answer-set F1, reported
/// under that measure's name (`F1Spinach(maximal_comparisons=1000000)`).
pub const SPINACH_MAX_COMPARISONS: usize = 1_000_000;

/// Row pairs past which `exact_match_spinach` is left out of a question (its
/// one-to-one pairing of rows takes their product in steps).
pub const MAX_EXACT_MATCH_PAIRS: usize = 16_000_000;

/// What executing one query gave, as T2S-Metrics sees it.
#[derive(Debug, Clone, Copy)]
pub enum Response<'a> {
    /// The query failed, or there was none (its backend returns `None`).
    Failed,
    /// An ASK answer.
    Bool(bool),
    /// Result rows.
    Rows(&'a AnswerSet),
}

/// The response of a question's query; `None` when its query was never
/// executed (no knowledge graph was given), so that no answer measure exists.
pub fn response(q: Option<&Question>) -> Option<Response<'_>> {
    let Some(q) = q else {
        return Some(Response::Failed);
    };
    if !matches!(q.query, Query::Sparql(_)) {
        return Some(Response::Failed);
    }
    let execution = q.execution.as_ref()?;
    if !execution.status.answered() {
        return Some(Response::Failed);
    }
    let set = q.answers.as_ref()?;
    if set.vars.is_empty() {
        if let [a] = set.answers.as_slice() {
            if let [Term::Boolean(b)] = a.terms.as_slice() {
                return Some(Response::Bool(*b));
            }
        }
    }
    Some(Response::Rows(set))
}

/// A value as a SPARQL JSON binding's `value` holds it.
fn value(term: &Term) -> String {
    match term {
        Term::Iri(s) => s.strip_prefix("_:").unwrap_or(s).to_string(),
        Term::Literal { lexical, .. } => lexical.clone(),
        Term::Boolean(b) => b.to_string(),
    }
}

/// `normalize_answer_set_list(normalize_query_response(response))`: the
/// values of every row with a binding, row after row, `None` for an unbound
/// variable; `None` for a failed query.
fn values(r: Response<'_>) -> Option<Vec<Option<String>>> {
    match r {
        Response::Failed => None,
        Response::Bool(b) => Some(vec![Some(
            if b { "ASK_TRUE" } else { "ASK_FALSE" }.to_string(),
        )]),
        Response::Rows(set) => {
            let mut out = Vec::new();
            for (i, a) in set.answers.iter().enumerate() {
                if a.terms.is_empty() {
                    continue;
                }
                let mut row: Vec<Option<String>> = vec![None; set.vars.len().max(1)];
                for (k, t) in a.terms.iter().enumerate() {
                    let col = set.columns.get(i).and_then(|c| c.get(k)).copied();
                    if let Some(cell) = row.get_mut(col.unwrap_or(k)) {
                        *cell = Some(value(t));
                    }
                }
                out.extend(row);
            }
            Some(out)
        }
    }
}

/// Python 3.12's `sum` of floats (Neumaier's compensated summation).
pub fn py_sum(values: impl IntoIterator<Item = f64>) -> f64 {
    let (mut sum, mut c) = (0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        if sum.abs() >= x.abs() {
            c += (sum - t) + x;
        } else {
            c += (x - t) + sum;
        }
        sum = t;
    }
    if c != 0.0 && c.is_finite() {
        sum += c;
    }
    sum
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// The set measures (`AnswerSetPrecision`, `AnswerSetRecall`, `AnswerSetF1`,
/// `PrecisionQALD`, `RecallQALD`, `F1QALD`) from the two value lists.
fn set_measures(
    gold: Option<&[Option<String>]>,
    pred: Option<&[Option<String>]>,
    out: &mut Figures,
) {
    let mut put = |k: &str, v: f64| {
        out.insert(k.to_string(), v);
    };
    let (Some(gold), Some(pred)) = (gold, pred) else {
        for k in [
            "answerset_precision",
            "answerset_recall",
            "answerset_f1",
            "precision_qald",
            "recall_qald",
            "f1_qald",
        ] {
            put(k, 0.0);
        }
        return;
    };
    let g: HashSet<&Option<String>> = gold.iter().collect();
    let p: HashSet<&Option<String>> = pred.iter().collect();
    let tp = g.intersection(&p).count();
    let (fp, fn_) = (p.len() - tp, g.len() - tp);
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    let f1 = match (g.is_empty(), p.is_empty()) {
        (true, true) => 1.0,
        (false, false) => f1,
        _ => 0.0,
    };
    let both_empty = g.is_empty() && p.is_empty();
    put(
        "answerset_precision",
        if both_empty {
            1.0
        } else if p.is_empty() {
            0.0
        } else {
            precision
        },
    );
    put("precision_qald", if p.is_empty() { 1.0 } else { precision });
    let recall = if both_empty { 1.0 } else { recall };
    put("answerset_recall", recall);
    put("recall_qald", recall);
    put("answerset_f1", f1);
    put("f1_qald", f1);
}

/// `dcg`: the sum of `rel / log2(i + 2)`.
fn dcg(relevances: impl Iterator<Item = u8>) -> f64 {
    py_sum(
        relevances
            .enumerate()
            .map(|(i, r)| f64::from(r) / ((i + 2) as f64).log2()),
    )
}

/// The ranked measures (`HitAtK(1)`, `MRR`, `PrecisionAtK(1)`, and `NDCG`
/// when the question's order matters) from the two value lists: 0 unless
/// both lists have values.
fn ranked_measures(
    gold: Option<&[Option<String>]>,
    pred: Option<&[Option<String>]>,
    ordered: bool,
    out: &mut Figures,
) {
    let (gold, pred) = (gold.unwrap_or_default(), pred.unwrap_or_default());
    let mut put = |k: &str, v: f64| {
        out.insert(k.to_string(), v);
    };
    if gold.is_empty() || pred.is_empty() {
        for k in ["hit@1", "mrr", "p@1"] {
            put(k, 0.0);
        }
        if ordered {
            put("ndcg", 0.0);
        }
        return;
    }
    let g: HashSet<&Option<String>> = gold.iter().collect();
    let hit = f64::from(u8::from(g.contains(&pred[0])));
    put("hit@1", hit);
    put("p@1", hit);
    put(
        "mrr",
        pred.iter()
            .position(|a| g.contains(a))
            .map_or(0.0, |i| 1.0 / (i + 1) as f64),
    );
    if ordered {
        let actual = dcg(pred.iter().map(|a| u8::from(g.contains(a))));
        let ideal = dcg((0..gold.len().max(pred.len())).map(|i| u8::from(i < gold.len())));
        put("ndcg", if ideal == 0.0 { 0.0 } else { actual / ideal });
    }
}

/// A cell as SPINACH's measures compare a binding (`type`, `value`,
/// `datatype`, `xml:lang`).
fn cell(term: &Term) -> (u8, &str, Option<&str>, Option<&str>) {
    match term {
        Term::Iri(s) => match s.strip_prefix("_:") {
            Some(b) => (1, b, None, None),
            None => (0, s.as_str(), None, None),
        },
        Term::Literal {
            lexical,
            datatype,
            lang,
        } => (2, lexical.as_str(), datatype.as_deref(), lang.as_deref()),
        Term::Boolean(b) => (
            2,
            if *b { "true" } else { "false" },
            Some("http://www.w3.org/2001/XMLSchema#boolean"),
            None,
        ),
    }
}

type Cell<'a> = (u8, &'a str, Option<&'a str>, Option<&'a str>);

/// A row's cells counted.
fn counted(terms: &[Term]) -> HashMap<Cell<'_>, usize> {
    let mut out = HashMap::new();
    for t in terms {
        *out.entry(cell(t)).or_insert(0) += 1;
    }
    out
}

/// `_exact_match_with_additional_columns`: as many rows on both sides, and
/// each gold row paired one to one with a run row holding every one of its
/// cells (as many times); `None` past [`MAX_EXACT_MATCH_PAIRS`].
fn exact_match_rows(pred: &AnswerSet, gold: &AnswerSet) -> Option<bool> {
    let (p, g) = (&pred.answers, &gold.answers);
    if p.len() != g.len() {
        return Some(false);
    }
    if g.is_empty() {
        return Some(true);
    }
    if p.len().saturating_mul(g.len()) > MAX_EXACT_MATCH_PAIRS {
        return None;
    }
    let pc: Vec<_> = p.iter().map(|a| counted(&a.terms)).collect();
    let gc: Vec<_> = g.iter().map(|a| counted(&a.terms)).collect();
    let covers = |i: usize, j: usize| {
        gc[j]
            .iter()
            .all(|(k, n)| pc[i].get(k).copied().unwrap_or(0) >= *n)
    };
    let adjacency: Vec<Vec<usize>> = (0..p.len())
        .map(|i| (0..g.len()).filter(|&j| covers(i, j)).collect())
        .collect();
    // Kuhn's augmenting paths: a perfect matching exists iff every run row
    // gets a gold row (the sides have the same size)
    let mut owner: Vec<Option<usize>> = vec![None; g.len()];
    for start in 0..p.len() {
        let mut seen = vec![false; g.len()];
        // iterative depth-first search: (row, next edge index)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut path: Vec<usize> = Vec::new();
        let mut found = false;
        while let Some(&mut (row, ref mut e)) = stack.last_mut() {
            if let Some(&j) = adjacency[row].get(*e) {
                *e += 1;
                if seen[j] {
                    continue;
                }
                seen[j] = true;
                path.push(j);
                match owner[j] {
                    None => {
                        found = true;
                        break;
                    }
                    Some(next) => stack.push((next, 0)),
                }
            } else {
                stack.pop();
                path.pop();
            }
        }
        if !found {
            return Some(false);
        }
        for (k, &(row, _)) in stack.iter().enumerate() {
            owner[path[k]] = Some(row);
        }
    }
    Some(true)
}

/// Every answer measure of one question, under T2S-Metrics' names; empty when
/// neither query was executed. `ordered` is its `order_matters`.
pub fn answer_measures(gold: &Question, run: Option<&Question>, ordered: bool) -> Figures {
    let mut out = Figures::new();
    let (Some(g), Some(p)) = (response(Some(gold)), response(run)) else {
        return out;
    };
    let (gv, pv) = (values(g), values(p));
    set_measures(gv.as_deref(), pv.as_deref(), &mut out);
    ranked_measures(gv.as_deref(), pv.as_deref(), ordered, &mut out);
    out.insert(
        "query_execution".into(),
        f64::from(u8::from(!matches!(p, Response::Failed))),
    );
    let empty = AnswerSet::default();
    let rows = |r: Response<'_>| match r {
        Response::Rows(s) => s.answers.len(),
        _ => 0,
    };
    // SPINACH's measures read the JSON bindings: a failed query is no rows
    match (g, p) {
        (Response::Bool(a), Response::Bool(b)) => {
            let same = f64::from(u8::from(a == b));
            out.insert("f1_spinach".into(), same);
            out.insert("exact_match_spinach".into(), same);
        }
        (Response::Bool(_), _) | (_, Response::Bool(_)) => {
            out.insert("f1_spinach".into(), 0.0);
            out.insert("exact_match_spinach".into(), 0.0);
        }
        _ => {
            let (gs, ps) = match (g, p) {
                (Response::Rows(a), Response::Rows(b)) => (a, b),
                (Response::Rows(a), _) => (a, &empty),
                (_, Response::Rows(b)) => (&empty, b),
                _ => (&empty, &empty),
            };
            if rows(g).saturating_mul(rows(p)) > SPINACH_MAX_COMPARISONS {
                // `AnswerSetF1().compute`: its result keeps its own name, so
                // the question has `answerset_f1` (already there) and no
                // `f1_spinach`
            } else if gs.answers.is_empty() && ps.answers.is_empty() {
                out.insert("f1_spinach".into(), 1.0);
            } else if let Some(f1) = row_major_f1(Some(ps), Some(gs)) {
                out.insert("f1_spinach".into(), f1);
            }
            if let Some(em) = exact_match_rows(ps, gs) {
                out.insert("exact_match_spinach".into(), f64::from(u8::from(em)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, ExecStatus, Execution};

    fn q(query: &str, status: ExecStatus, rows: Vec<Vec<Term>>, vars: &[&str]) -> Question {
        let columns = rows.iter().map(|r| (0..r.len()).collect()).collect();
        Question {
            query: Query::Sparql(query.into()),
            answers: Some(AnswerSet {
                answers: rows.into_iter().map(|terms| Answer { terms }).collect(),
                vars: vars.iter().map(ToString::to_string).collect(),
                columns,
                ..AnswerSet::default()
            }),
            execution: Some(Execution {
                status,
                ..Execution::default()
            }),
            ..Question::default()
        }
    }

    fn iri(s: &str) -> Term {
        Term::Iri(s.into())
    }

    #[test]
    fn quirks_of_its_answer_measures() {
        let gold = q(
            "SELECT",
            ExecStatus::Ok,
            vec![vec![iri("a")], vec![iri("b")]],
            &["x"],
        );
        let none = q("SELECT", ExecStatus::Ok, vec![], &["x"]);
        let failed = q("SELECT", ExecStatus::SyntaxError, vec![], &[]);
        let half = q(
            "SELECT",
            ExecStatus::Ok,
            vec![vec![iri("c")], vec![iri("a")]],
            &["x"],
        );
        // an empty answer: QALD precision 1, the others 0
        let f = answer_measures(&gold, Some(&none), true);
        assert_eq!((f["precision_qald"], f["answerset_precision"]), (1.0, 0.0));
        assert_eq!(
            (f["f1_spinach"], f["ndcg"], f["query_execution"]),
            (0.0, 0.0, 1.0)
        );
        // a failed query against an empty gold: SPINACH's measures are 1
        let f = answer_measures(&none, Some(&failed), false);
        assert_eq!((f["f1_spinach"], f["exact_match_spinach"]), (1.0, 1.0));
        assert_eq!((f["answerset_f1"], f["query_execution"]), (0.0, 0.0));
        assert!(!f.contains_key("ndcg"));
        // ranks
        let f = answer_measures(&gold, Some(&half), true);
        assert_eq!((f["hit@1"], f["mrr"], f["answerset_f1"]), (0.0, 0.5, 0.5));
        let ideal = 1.0 + 1.0 / 3f64.log2();
        assert_eq!(f["ndcg"], (1.0 / 3f64.log2()) / ideal);
        assert_eq!(f["exact_match_spinach"], 0.0);
        let swapped = q(
            "SELECT",
            ExecStatus::Ok,
            vec![vec![iri("b")], vec![iri("a")]],
            &["x"],
        );
        assert_eq!(
            answer_measures(&gold, Some(&swapped), false)["exact_match_spinach"],
            1.0
        );
        // ASK
        let yes = q("ASK", ExecStatus::Ok, vec![vec![Term::Boolean(true)]], &[]);
        let no = q("ASK", ExecStatus::Ok, vec![vec![Term::Boolean(false)]], &[]);
        let f = answer_measures(&yes, Some(&no), false);
        assert_eq!(
            (f["answerset_f1"], f["f1_spinach"], f["precision_qald"]),
            (0.0, 0.0, 0.0)
        );
        // never executed: no answer measure
        let mut unexecuted = gold.clone();
        unexecuted.execution = None;
        assert!(answer_measures(&unexecuted, Some(&half), false).is_empty());
        assert_eq!(py_sum([0.1; 10]), 1.0);
    }
}
