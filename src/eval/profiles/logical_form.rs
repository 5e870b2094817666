//! GrailQA's logical forms (S-expressions) as its official evaluation compares
//! them: the Freebase schema it types symbols with ([`Ontology`], from the
//! files `fb_roles`, `fb_types`, `reverse_properties`), the nested expression
//! its `lisp_to_nested_expression` reads, the query graph its
//! `SemanticMatcher._get_graph` builds, and [`same_logical_form`]: the two
//! graphs isomorphic, nodes equal in id, type, function and `TC`, and the
//! edges between each ordered pair of nodes equal as multisets of relations.
//! The `grailqa` profile's file says where this departs from the script.

use std::collections::{BTreeMap, HashMap, HashSet};

/// The Freebase schema the script reads.
#[derive(Debug, Default)]
pub struct Ontology {
    /// Relation → (domain, range), from `fb_roles` (`domain relation range`).
    relations: HashMap<String, (String, String)>,
    /// Every type of `fb_types`, both sides of `sub meta.subclassOf super`.
    types: HashSet<String>,
    /// Type → its super-types.
    upper: HashMap<String, HashSet<String>>,
    /// Relation → its reverse, from `reverse_properties` (tab-separated).
    reverse: HashMap<String, String>,
    /// Where its files were read from, their total size and digest, for the
    /// report's receipt (set by whoever read them; `None` for a schema
    /// built in memory).
    pub source: Option<crate::model::InputDigest>,
}

impl Ontology {
    /// Reads the three files' texts; lines with too few fields are skipped
    /// (where the script would stop with an error).
    pub fn parse(fb_roles: &str, fb_types: &str, reverse_properties: &str) -> Ontology {
        let mut o = Ontology::default();
        for line in fb_roles.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if let [domain, relation, range, ..] = f[..] {
                o.relations.insert(
                    relation.to_string(),
                    (domain.to_string(), range.to_string()),
                );
            }
        }
        for line in fb_types.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if let [sub, _, sup, ..] = f[..] {
                o.upper
                    .entry(sub.to_string())
                    .or_default()
                    .insert(sup.to_string());
                o.types.insert(sub.to_string());
                o.types.insert(sup.to_string());
            }
        }
        for line in reverse_properties.lines() {
            let mut f = line.split('\t');
            if let (Some(a), Some(b)) = (f.next(), f.next()) {
                o.reverse.insert(a.to_string(), b.to_string());
            }
        }
        o
    }

    /// How many relations and types it holds.
    pub fn size(&self) -> (usize, usize) {
        (self.relations.len(), self.types.len())
    }
}

/// The longest logical form read (1 MiB, as a SPARQL query); a longer one
/// does not build.
const MAX_FORM_BYTES: usize = 1 << 20;
/// The deepest nesting read before the recursive graph building sees it
/// (real GrailQA forms nest fewer than 10 levels); a deeper form does not build.
const MAX_DEPTH: usize = 64;
/// The most search steps one comparison of two graphs may take; past them the
/// forms are not the same (real GrailQA graphs have fewer than 10 nodes).
const MAX_STEPS: usize = 1_000_000;

/// The most nodes of a query graph that is compared: a larger one is not
/// equal to anything (EM false), so that a hostile form cannot make the
/// isomorphism search run for hours.
const MAX_NODES: usize = 64;

/// A nested expression: an atom or a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A symbol as written.
    Atom(String),
    /// A parenthesised list.
    List(Vec<Expr>),
}

/// The script's `lisp_to_nested_expression`, with its quirks: tokens are split
/// on white space, a token that is only parentheses (`(`, `))`) or a `)` too
/// many is an error, and an unbalanced form gives the first element of the
/// innermost open list.
pub fn nested(text: &str) -> Option<Expr> {
    if text.len() > MAX_FORM_BYTES {
        return None;
    }
    // a path of open lists: index 0 is the root holder
    let mut stack: Vec<Vec<Expr>> = vec![Vec::new()];
    for token in text.split_whitespace() {
        let mut token = token;
        while let Some(rest) = token.strip_prefix('(') {
            if stack.len() > MAX_DEPTH {
                return None;
            }
            stack.push(Vec::new());
            token = rest;
            // `token[0]` on an empty token: an error in the script
            token.chars().next()?;
        }
        stack.last_mut()?.push(Expr::Atom(token.replace(')', "")));
        while let Some(rest) = token.strip_suffix(')') {
            // the script pops into the enclosing list; popping the root fails
            if stack.len() < 2 {
                return None;
            }
            let done = stack.pop()?;
            stack.last_mut()?.push(Expr::List(done));
            token = rest;
            // `token[-1]` on an empty token: an error in the script
            token.chars().next()?;
        }
    }
    stack.last()?.first().cloned()
}

/// A node id: a symbol, or the script's integer 0 (an ARGMAX/ARGMIN value).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Id {
    Name(String),
    Zero,
}

/// A node and the attributes the script compares.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Node {
    id: Id,
    kind: &'static str,
    function: Option<String>,
    tc: Option<(Expr, Expr)>,
}

/// A query graph: nodes numbered 1..=n (the question node is n) and directed
/// edges labelled with relations.
#[derive(Debug, Clone, Default)]
struct Graph {
    nodes: BTreeMap<usize, Node>,
    edges: Vec<(usize, usize, String)>,
}

impl Graph {
    fn size(&self) -> usize {
        self.nodes.len()
    }

    fn node(&mut self, n: usize) -> Option<&mut Node> {
        self.nodes.get_mut(&n)
    }

    /// networkx's `relabel_nodes` with a mapping (unmapped nodes kept).
    fn relabel(self, map: impl Fn(usize) -> usize) -> Graph {
        Graph {
            nodes: self.nodes.into_iter().map(|(n, a)| (map(n), a)).collect(),
            edges: self
                .edges
                .into_iter()
                .map(|(u, v, r)| (map(u), map(v), r))
                .collect(),
        }
    }

    /// networkx's `compose(g, h)`: a shared node takes `g`'s attributes
    /// updated by `h`'s (a function only `g` has survives).
    fn compose(g: Graph, h: Graph) -> Graph {
        let mut out = g;
        for (n, b) in h.nodes {
            match out.nodes.get_mut(&n) {
                Some(a) => {
                    a.id = b.id;
                    a.kind = b.kind;
                    if b.function.is_some() {
                        a.function = b.function;
                    }
                    if b.tc.is_some() {
                        a.tc = b.tc;
                    }
                }
                None => {
                    out.nodes.insert(n, b);
                }
            }
        }
        out.edges.extend(h.edges);
        out
    }
}

/// A node of a symbol's type.
fn node(id: &str, kind: &'static str) -> Node {
    Node {
        id: Id::Name(id.to_string()),
        kind,
        function: None,
        tc: None,
    }
}

/// The script's `_get_graph`; `None` where it raises (or returns None).
fn graph(e: &Expr, o: &Ontology) -> Option<Graph> {
    let items = match e {
        Expr::Atom(s) => return Some(symbol(s, o)),
        Expr::List(items) => items,
    };
    let Some(Expr::Atom(op)) = items.first() else {
        return None;
    };
    let arg = |i: usize| items.get(i);
    match op.as_str() {
        "R" => {
            let g = graph(arg(1)?, o)?;
            let size = g.size();
            Some(g.relabel(|n| size + 1 - n))
        }
        "JOIN" | "le" | "ge" | "lt" | "gt" => {
            let g1 = graph(arg(1)?, o)?;
            let mut g2 = graph(arg(2)?, o)?;
            let size = g2.size();
            let first = g1.nodes.get(&1)?.clone();
            let qn = g2.node(size)?;
            if first.kind == "class" && qn.kind == "class" {
                if let (Id::Name(sub), Id::Name(sup)) = (&first.id, &qn.id) {
                    if o.upper.get(sub).is_some_and(|u| u.contains(sup)) {
                        qn.id = first.id.clone();
                    }
                }
            }
            let g1 = g1.relabel(|n| n + size - 1);
            let mut g = Graph::compose(g1, g2);
            let function = match op.as_str() {
                "le" => Some("<="),
                "ge" => Some(">="),
                "lt" => Some("<"),
                "gt" => Some(">"),
                _ => None,
            };
            if let Some(f) = function {
                g.node(1)?.function = Some(f.to_string());
            }
            Some(g)
        }
        "AND" => join(graph(arg(1)?, o)?, graph(arg(2)?, o)?),
        "COUNT" => {
            let mut g = graph(arg(1)?, o)?;
            let size = g.size();
            g.node(size)?.function = Some("count".into());
            Some(g)
        }
        op if op.contains("ARG") => {
            let g1 = graph(arg(1)?, o)?;
            let mut g2 = graph(arg(2)?, o)?;
            let value = g2.node(1)?;
            value.id = Id::Zero;
            value.kind = "literal";
            value.function = Some(op.to_lowercase());
            join(g1, g2)
        }
        "TC" => {
            let mut g = graph(arg(1)?, o)?;
            let size = g.size();
            g.node(size)?.tc = Some((arg(2)?.clone(), arg(3)?.clone()));
            Some(g)
        }
        _ => None,
    }
}

/// The conjunction of two graphs, as the script's `AND` and `ARGMAX` /
/// `ARGMIN` build it: their question nodes become one (of `g1`'s id when
/// both are classes), `g2`'s other nodes numbered before `g1`'s.
fn join(g1: Graph, mut g2: Graph) -> Option<Graph> {
    let (size1, size2) = (g1.size(), g2.size());
    let q1 = g1.nodes.get(&size1)?.clone();
    let q2 = g2.node(size2)?;
    if q1.kind == "class" && q2.kind == "class" {
        q2.id = q1.id;
    }
    let g1 = g1.relabel(|n| n + size2 - 1);
    let g2 = g2.relabel(|n| if n == size2 { size1 + size2 - 1 } else { n });
    Some(Graph::compose(g1, g2))
}

/// The graph of one symbol, typed as `get_symbol_type` types it.
fn symbol(s: &str, o: &Ontology) -> Graph {
    let mut g = Graph::default();
    if s.contains("^^") {
        g.nodes.insert(1, node(s, "literal"));
    } else if o.types.contains(s) {
        g.nodes.insert(1, node(s, "class"));
    } else if let Some((domain, range)) = o.relations.get(s) {
        g.nodes.insert(1, node(range, "class"));
        g.nodes.insert(2, node(domain, "class"));
        g.edges.push((2, 1, s.to_string()));
        if let Some(r) = o.reverse.get(s) {
            g.edges.push((1, 2, r.clone()));
        }
    } else {
        g.nodes.insert(1, node(s, "entity"));
    }
    g
}

/// The script's `same_logical_form`: false when either holds `@@UNKNOWN@@` or
/// fails to build, else whether the graphs are isomorphic.
pub fn same_logical_form(a: &str, b: &str, o: &Ontology) -> bool {
    if a.contains("@@UNKNOWN@@") || b.contains("@@UNKNOWN@@") {
        return false;
    }
    let build = |t: &str| nested(t).and_then(|e| graph(&e, o));
    match (build(a), build(b)) {
        (Some(g1), Some(g2)) => isomorphic(&g1, &g2),
        _ => false,
    }
}

/// The relations of the edges from `u` to `v`, sorted.
fn bundle(g: &Graph, u: usize, v: usize) -> Vec<&str> {
    let mut r: Vec<&str> = g
        .edges
        .iter()
        .filter(|(a, b, _)| *a == u && *b == v)
        .map(|(_, _, r)| r.as_str())
        .collect();
    r.sort_unstable();
    r
}

/// Whether a bijection of the nodes keeps node attributes and every ordered
/// pair's edge bundle (small graphs: a backtracking search).
fn isomorphic(g1: &Graph, g2: &Graph) -> bool {
    if g1.size() != g2.size() || g1.edges.len() != g2.edges.len() {
        return false;
    }
    // real logical forms have under ten nodes; past MAX_NODES the search's
    // steps (each scanning every node and edge) are not bounded by MAX_STEPS
    // alone, so such forms are not compared
    if g1.size() > MAX_NODES || g1.edges.len() > MAX_NODES * 4 {
        return false;
    }
    let n1: Vec<usize> = g1.nodes.keys().copied().collect();
    let n2: Vec<usize> = g2.nodes.keys().copied().collect();
    let mut map: Vec<usize> = Vec::with_capacity(n1.len());
    let mut used = vec![false; n2.len()];
    let mut steps = 0;
    extend(g1, g2, (&n1, &n2), &mut map, &mut used, &mut steps)
}

/// Extends a partial mapping by the next node of `g1` (depth: the number of
/// nodes, bounded by the form's size); false past [`MAX_STEPS`].
fn extend(
    g1: &Graph,
    g2: &Graph,
    (n1, n2): (&[usize], &[usize]),
    map: &mut Vec<usize>,
    used: &mut [bool],
    steps: &mut usize,
) -> bool {
    *steps += 1;
    if *steps > MAX_STEPS {
        return false;
    }
    let i = map.len();
    if i == n1.len() {
        return true;
    }
    let u = n1[i];
    for (j, &v) in n2.iter().enumerate() {
        if used[j] || g1.nodes[&u] != g2.nodes[&v] {
            continue;
        }
        // edges between u and every node mapped so far, both ways, and loops
        let consistent = bundle(g1, u, u) == bundle(g2, v, v)
            && map.iter().enumerate().all(|(k, &w)| {
                let x = n1[k];
                bundle(g1, u, x) == bundle(g2, v, w) && bundle(g1, x, u) == bundle(g2, w, v)
            });
        if !consistent {
            continue;
        }
        used[j] = true;
        map.push(v);
        if extend(g1, g2, (n1, n2), map, used, steps) {
            return true;
        }
        map.pop();
        used[j] = false;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn music() -> Ontology {
        Ontology::parse(
            "music.album music.album.artist music.artist\nmusic.artist music.artist.album music.album\nmusic.album music.album.release_date type.datetime\n",
            "music.album meta.subclassOf common.topic\nmusic.artist meta.subclassOf common.topic\n",
            "music.album.artist\tmusic.artist.album\nmusic.artist.album\tmusic.album.artist\n",
        )
    }

    #[test]
    fn nested_expressions_as_the_script_reads_them() {
        let e = nested("(AND a (JOIN b c))").unwrap();
        assert_eq!(
            e,
            Expr::List(vec![
                Expr::Atom("AND".into()),
                Expr::Atom("a".into()),
                Expr::List(vec![
                    Expr::Atom("JOIN".into()),
                    Expr::Atom("b".into()),
                    Expr::Atom("c".into())
                ])
            ])
        );
        // unbalanced: the first element of the open list
        assert_eq!(nested("(AND a (JOIN b c)"), Some(Expr::Atom("AND".into())));
        assert_eq!(nested("(AND a b)))"), None);
        assert_eq!(nested("( AND a b)"), None);
        assert_eq!(nested("(AND a b )"), None);
        assert_eq!(nested(""), None);
        // hostile nesting stops before the recursive graph building
        let deep = format!("{}m.0a{}", "(R ".repeat(100_000), ")".repeat(100_000));
        assert_eq!(nested(&deep), None);
        assert!(!same_logical_form(&deep, &deep, &Ontology::default()));
    }

    /// The research notes' probes of `same_logical_form` (probe_matcher.py).
    #[test]
    fn probes_agree_with_the_script() {
        let o = music();
        let base = "(AND music.album (JOIN music.album.artist m.0abc))";
        let year = "2001^^http://www.w3.org/2001/XMLSchema#gYear";
        for (other, same) in [
            (base.to_string(), true),
            (
                "(AND music.album (JOIN (R music.artist.album) m.0abc))".into(),
                true,
            ),
            ("(JOIN music.album.artist m.0abc)".into(), true),
            (format!("(COUNT {base})"), false),
            (
                "(AND music.album (JOIN music.album.artist m.0abc)".into(),
                false,
            ),
            (
                "(AND music.album (JOIN music.album.artist m.0abc))))".into(),
                false,
            ),
            (
                "(AND music.album (JOIN music.album.artistt m.0abc))".into(),
                false,
            ),
            ("(JOIN music.album.artist m.0ABC)".into(), false),
        ] {
            assert_eq!(same_logical_form(base, &other, &o), same, "{other}");
        }
        assert!(!same_logical_form(
            "(ARGMAX music.album music.album.release_date)",
            "(ARGMIN music.album music.album.release_date)",
            &o
        ));
        // reordered conjunctions are the same form
        assert!(same_logical_form(
            &format!(
                "(AND (JOIN music.album.artist m.0abc) (JOIN music.album.release_date {year}))"
            ),
            &format!(
                "(AND (JOIN music.album.release_date {year}) (JOIN music.album.artist m.0abc))"
            ),
            &o
        ));
        assert!(!same_logical_form(
            &format!("(lt music.album.release_date {year})"),
            &format!("(le music.album.release_date {year})"),
            &o
        ));
    }
}
