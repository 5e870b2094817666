//! The canonical text of a normal form's tree: variables coloured by the
//! patterns they occur in (Weisfeiler–Leman refinement), bags written in
//! colour order, names given by first occurrence.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use super::N;

/// Rounds of colour refinement of the variables.
const ROUNDS: usize = 4;

/// The variables of a tree, in order of first occurrence.
pub(super) fn variables(n: &N, out: &mut Vec<String>, seen: &mut BTreeSet<String>) {
    match n {
        N::Var(v) => {
            if seen.insert(v.clone()) {
                out.push(v.clone());
            }
        }
        N::Leaf(_) => {}
        N::Op(_, c) | N::Bag(_, c) => c.iter().for_each(|c| variables(c, out, seen)),
    }
}

/// Writes a tree with each variable written as `names` says (absent: `?`);
/// bags are written in the order of their operands' written forms under
/// `order` (the colours), or their own when `order` is `None`.
fn write(
    n: &N,
    names: &BTreeMap<String, String>,
    order: Option<&BTreeMap<String, String>>,
    out: &mut String,
) {
    match n {
        N::Leaf(s) => out.push_str(s),
        N::Var(v) => out.push_str(names.get(v).map_or("?", String::as_str)),
        N::Op(name, c) => {
            out.push('(');
            out.push_str(name);
            for c in c {
                out.push(' ');
                write(c, names, order, out);
            }
            out.push(')');
        }
        N::Bag(name, c) => {
            let key = order.unwrap_or(names);
            let mut parts: Vec<(String, &N)> = c
                .iter()
                .map(|c| {
                    let mut s = String::new();
                    write(c, key, Some(key), &mut s);
                    (s, c)
                })
                .collect();
            parts.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            out.push_str(name);
            for (_, c) in parts {
                out.push(' ');
                write(c, names, order, out);
            }
            out.push('}');
        }
    }
}

/// The subtrees that hold a variable directly (triples, calls, bindings …).
fn atoms<'a>(n: &'a N, out: &mut Vec<&'a N>) {
    if let N::Op(_, c) | N::Bag(_, c) = n {
        if c.iter().any(|c| matches!(c, N::Var(_))) {
            out.push(n);
        }
        c.iter().for_each(|c| atoms(c, out));
    }
}

/// An atom written one level deep, `focus` as `?self`, other variables in
/// their colours, operands that are trees by their operator only.
fn shallow(n: &N, colours: &BTreeMap<String, String>, focus: &str) -> String {
    let (name, children, bag) = match n {
        N::Op(name, c) => (*name, c, false),
        N::Bag(name, c) => (*name, c, true),
        _ => return String::new(),
    };
    let mut parts: Vec<String> = children
        .iter()
        .map(|c| match c {
            N::Leaf(s) => s.clone(),
            N::Var(v) if v == focus => "?self".to_string(),
            N::Var(v) => colours.get(v).cloned().unwrap_or_default(),
            N::Op(n, _) | N::Bag(n, _) => format!("({n})"),
        })
        .collect();
    if bag {
        parts.sort();
    }
    format!("({name} {})", parts.join(" "))
}

fn digest(parts: &[String]) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut h);
    format!("?c{:016x}", h.finish())
}

/// The variables of a tree in the order [`write`] writes them with `colours`.
fn first_order(
    n: &N,
    colours: &BTreeMap<String, String>,
    out: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) {
    match n {
        N::Var(v) => {
            if seen.insert(v.clone()) {
                out.push(v.clone());
            }
        }
        N::Leaf(_) => {}
        N::Op(_, c) => c.iter().for_each(|c| first_order(c, colours, out, seen)),
        N::Bag(_, c) => {
            let mut parts: Vec<(String, &N)> = c
                .iter()
                .map(|c| {
                    let mut s = String::new();
                    write(c, colours, Some(colours), &mut s);
                    (s, c)
                })
                .collect();
            parts.sort_by(|a, b| a.0.cmp(&b.0));
            for (_, c) in parts {
                first_order(c, colours, out, seen);
            }
        }
    }
}

/// The normal form's text: variables coloured by refinement, then named by
/// first occurrence in the tree written in colour order.
pub(super) fn canonical_text(tree: &N) -> String {
    let mut vars = Vec::new();
    variables(tree, &mut vars, &mut BTreeSet::new());
    let mut atom_list = Vec::new();
    atoms(tree, &mut atom_list);
    let mut colours: BTreeMap<String, String> =
        vars.iter().map(|v| (v.clone(), "?".to_string())).collect();
    // each variable's atoms, once
    let mut held: BTreeMap<&str, Vec<&N>> = BTreeMap::new();
    for a in &atom_list {
        if let N::Op(_, c) | N::Bag(_, c) = a {
            let mut seen = BTreeSet::new();
            for c in c {
                if let N::Var(v) = c {
                    if seen.insert(v.as_str()) {
                        held.entry(v.as_str()).or_default().push(a);
                    }
                }
            }
        }
    }
    for _ in 0..ROUNDS {
        let mut next = BTreeMap::new();
        for v in &vars {
            let mut parts: Vec<String> = held
                .get(v.as_str())
                .map(|atoms| atoms.iter().map(|a| shallow(a, &colours, v)).collect())
                .unwrap_or_default();
            parts.sort();
            parts.insert(0, colours[v].clone());
            next.insert(v.clone(), digest(&parts));
        }
        colours = next;
    }
    // names by first occurrence in colour order
    let mut order = Vec::new();
    first_order(tree, &colours, &mut order, &mut BTreeSet::new());
    let names: BTreeMap<String, String> = order
        .into_iter()
        .enumerate()
        .map(|(i, v)| (v, format!("?v{i}")))
        .collect();
    let mut out = String::new();
    write(tree, &names, Some(&colours), &mut out);
    out
}
