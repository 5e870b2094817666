//! What only renames, dropped from a normal form's tree: aggregates'
//! aliases (`(COUNT(?x) AS ?n)`, a sub-query's projection) resolved, a
//! projection of every variable of a group, a projection of a projection,
//! and a DISTINCT whose solutions are distinct anyway.

use std::collections::{BTreeMap, BTreeSet};

use super::canonical::variables;
use super::N;

/// True when the solutions of `n` are distinct whatever the graph: a
/// group (one row per key), or triple patterns without blank nodes, under
/// projections that keep every key (every variable), binds and filters.
fn distinct_anyway(n: &N) -> bool {
    let mut kept: Option<Vec<&N>> = None;
    let mut n = n;
    loop {
        match n {
            N::Op("project", c) => {
                if let [inner, N::Op("vars", vars)] = &c[..] {
                    let vars: Vec<&N> = vars.iter().collect();
                    kept = Some(match kept {
                        Some(k) => k.into_iter().filter(|v| vars.contains(v)).collect(),
                        None => vars,
                    });
                    n = inner;
                } else {
                    return false;
                }
            }
            N::Op("extend" | "filter" | "order", c) if !c.is_empty() => {
                n = &c[if matches!(n, N::Op("filter", _)) {
                    1
                } else {
                    0
                }];
            }
            N::Op("group", c) => {
                let Some(N::Bag("keys", keys)) = c.get(1) else {
                    return false;
                };
                return kept.is_none_or(|k| keys.iter().all(|key| k.contains(&key)));
            }
            // the solutions of triple patterns are distinct mappings: a
            // projection that keeps every variable keeps them distinct
            N::Bag("bgp", triples) => {
                let mut vars = Vec::new();
                let mut seen = BTreeSet::new();
                for t in triples {
                    if !matches!(t, N::Op("triple", _)) {
                        return false;
                    }
                    variables(t, &mut vars, &mut seen);
                }
                return vars.iter().all(|v| {
                    !v.starts_with("_:")
                        && kept
                            .as_ref()
                            .is_none_or(|k| k.iter().any(|x| matches!(x, N::Var(y) if y == v)))
                });
            }
            _ => return false,
        }
    }
}

/// The variables an aggregate of a group binds.
fn aggregate_bound(n: &N, out: &mut BTreeSet<String>) {
    match n {
        N::Op("bind", c) => {
            if let Some(N::Var(v)) = c.first() {
                out.insert(v.clone());
            }
            c.iter().for_each(|c| aggregate_bound(c, out));
        }
        N::Op(_, c) | N::Bag(_, c) => c.iter().for_each(|c| aggregate_bound(c, out)),
        _ => {}
    }
}

/// Aliases of aggregates: `BIND(?agg AS ?v)` (how `(COUNT(?x) AS ?v)` and a
/// subquery's projection are written), as `agg → v`.
fn aliases(n: &N, bound: &BTreeSet<String>, out: &mut BTreeMap<String, String>) {
    if let N::Op(name, c) | N::Bag(name, c) = n {
        if let (&"extend", [_, N::Var(v), N::Var(w)]) = (name, &c[..]) {
            if bound.contains(w) && v != w {
                out.entry(w.clone()).or_insert_with(|| v.clone());
            }
        }
        c.iter().for_each(|c| aliases(c, bound, out));
    }
}

fn rename(n: N, map: &BTreeMap<String, String>) -> N {
    match n {
        N::Var(v) => N::Var(map.get(&v).cloned().unwrap_or(v)),
        N::Op(name, c) => N::Op(name, c.into_iter().map(|c| rename(c, map)).collect()),
        N::Bag(name, c) => N::Bag(name, c.into_iter().map(|c| rename(c, map)).collect()),
        leaf => leaf,
    }
}

/// The variables of a group's result: its keys and aggregates.
fn group_output(c: &[N]) -> Option<BTreeSet<&N>> {
    let (Some(N::Bag("keys", keys)), Some(N::Bag("aggregates", aggs))) = (c.get(1), c.get(2))
    else {
        return None;
    };
    let mut out: BTreeSet<&N> = keys.iter().collect();
    for a in aggs {
        if let N::Op("bind", b) = a {
            out.extend(b.first());
        }
    }
    Some(out)
}

/// Drops what only renames: aliases that became `BIND(?v AS ?v)`,
/// projections of every variable of a group, a projection of a projection,
/// and a DISTINCT whose solutions are distinct anyway.
fn simplify(n: N) -> N {
    let n = match n {
        N::Op(name, c) => N::Op(name, c.into_iter().map(simplify).collect()),
        N::Bag(name, c) => N::Bag(name, c.into_iter().map(simplify).collect()),
        leaf => leaf,
    };
    match n {
        N::Op("extend", mut c) if matches!(&c[..], [_, N::Var(v), N::Var(w)] if v == w) => {
            c.swap_remove(0)
        }
        N::Op("project", mut c) if c.len() == 2 => {
            let vars: BTreeSet<&N> = match &c[1] {
                N::Op("vars", v) => v.iter().collect(),
                _ => BTreeSet::new(),
            };
            let identity = match &c[0] {
                N::Op("group", g) => group_output(g).is_some_and(|out| out == vars),
                _ => false,
            };
            let narrower = match &c[0] {
                N::Op("project", inner) => match inner.get(1) {
                    Some(N::Op("vars", iv)) => vars.iter().all(|v| iv.contains(v)),
                    _ => false,
                },
                _ => false,
            };
            if identity {
                c.swap_remove(0)
            } else if narrower {
                let N::Op(_, mut inner) = c.swap_remove(0) else {
                    return N::Op("project", c);
                };
                inner.swap_remove(0);
                let vars = c.pop().unwrap_or(N::Op("vars", Vec::new()));
                inner.push(vars);
                N::Op("project", inner)
            } else {
                N::Op("project", c)
            }
        }
        N::Op("distinct", mut c) if c.len() == 1 && distinct_anyway(&c[0]) => c.swap_remove(0),
        other => other,
    }
}

/// The tree with aggregates' aliases resolved (until nothing changes, at
/// most a few rounds) and what only renames dropped.
pub(super) fn resolve_aliases(mut tree: N) -> N {
    for _ in 0..8 {
        let mut bound = BTreeSet::new();
        aggregate_bound(&tree, &mut bound);
        let mut map = BTreeMap::new();
        aliases(&tree, &bound, &mut map);
        if map.is_empty() {
            break;
        }
        tree = simplify(rename(tree, &map));
    }
    simplify(tree)
}
