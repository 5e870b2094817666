//! A maximum one-to-one matching between prepared gold and run answers (docs/scoring.md: Sameness,
//! counting), so that the result never depends on the order of answers: the
//! links of shared keys (at most [`MAX_MATCH_LINKS`]), a greedy pass, then
//! Hopcroft–Karp's shortest augmenting paths, found in phases of which there
//! are at most about 2·√V, each a breadth-first and a depth-first pass over the
//! links: at most E·√V steps in all, where a path searched from each answer
//! in turn (Kuhn's) could take V·E.

use rustc_hash::FxHashMap;

use super::key::{Key, Prepared};
use super::Reason;

/// One matched pair of a maximum matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// Index of the gold answer in the gold set.
    pub gold: usize,
    /// Index of the run answer in the run set.
    pub run: usize,
    /// Why they are the same.
    pub reason: Reason,
}

/// The outcome of matching two prepared answer sets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Matching {
    /// Matched pairs (true positives), sorted by gold index.
    pub pairs: Vec<Pair>,
    /// Distinct gold answers.
    pub gold: usize,
    /// Distinct run answers (each weighted by how many answers it counts as).
    pub run: usize,
}

impl Matching {
    /// True positives.
    pub fn tp(&self) -> usize {
        self.pairs.len()
    }
    /// False positives: unmatched run answers.
    pub fn fp(&self) -> usize {
        self.run - self.pairs.len()
    }
    /// False negatives: unmatched gold answers.
    pub fn fn_(&self) -> usize {
        self.gold - self.pairs.len()
    }
}

/// The most gold–run links one matching follows (docs/scoring.md, Sameness,
/// counting): answers of several terms that share a term link every such gold
/// answer to every such run answer, so two tables of 20,000 rows sharing one
/// value would link 400 million pairs.
pub const MAX_MATCH_LINKS: usize = 4_000_000;

/// Two answer sets whose answers share terms in more pairs than
/// [`MAX_MATCH_LINKS`]: no maximum matching is computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the gold's {gold} and the run's {run} answers share terms in more than {limit} pairs, too many to match one to one; answers of several terms that repeat one value (a table with a constant column) link every such pair")]
pub struct TooManyLinks {
    /// Distinct gold answers.
    pub gold: usize,
    /// Distinct run answers.
    pub run: usize,
    /// The limit ([`MAX_MATCH_LINKS`]).
    pub limit: usize,
}

/// Maximum one-to-one matching between prepared gold and run answers, so the
/// result never depends on the order of answers; an error past
/// [`MAX_MATCH_LINKS`] links.
pub fn match_answers(gold: &[Prepared], run: &[Prepared]) -> Result<Matching, TooManyLinks> {
    match_answers_within(gold, run, MAX_MATCH_LINKS)
}

/// [`match_answers`] with a limit of `max_links`.
pub fn match_answers_within(
    gold: &[Prepared],
    run: &[Prepared],
    max_links: usize,
) -> Result<Matching, TooManyLinks> {
    let run_count = run.iter().map(|p| p.weight).sum();
    if gold.is_empty() || run.is_empty() {
        return Ok(Matching {
            pairs: Vec::new(),
            gold: gold.len(),
            run: run_count,
        });
    }
    let links = GoldLinks::of(gold);
    let Some(adj) = links.adjacency(run, gold.len(), max_links) else {
        return Err(TooManyLinks {
            gold: gold.len(),
            run: run.len(),
            limit: max_links,
        });
    };
    let mut gold_to_run: Vec<Option<usize>> = vec![None; gold.len()];
    let mut run_to_gold: Vec<Option<usize>> = vec![None; run.len()];
    // greedy pass
    for (r, edges) in adj.iter().enumerate() {
        if let Some(&(g, _)) = edges.iter().find(|(g, _)| gold_to_run[*g].is_none()) {
            gold_to_run[g] = Some(r);
            run_to_gold[r] = Some(g);
        }
    }
    // shortest augmenting paths (Hopcroft–Karp) for the rest
    hopcroft_karp(&adj, &mut gold_to_run, &mut run_to_gold);
    let mut pairs: Vec<Pair> = gold_to_run
        .iter()
        .enumerate()
        .filter_map(|(g, r)| {
            r.map(|r| Pair {
                gold: gold[g].index,
                run: run[r].index,
                reason: adj[r]
                    .iter()
                    .find(|(e, _)| *e == g)
                    .map_or(Reason::Iri, |(_, why)| *why),
            })
        })
        .collect();
    pairs.sort_by_key(|p| p.gold);
    Ok(Matching {
        pairs,
        gold: gold.len(),
        run: run_count,
    })
}

/// The gold answers by key: every key of a gold answer (its own, and those
/// reached through a label) leads to a chain of links, one per gold answer
/// holding it.
struct GoldLinks<'g> {
    /// Key -> first gold link; further links of the same key are chained.
    first: FxHashMap<&'g Key, usize>,
    /// (gold answer, reached through a label, next link or usize::MAX)
    chain: Vec<(usize, bool, usize)>,
}

impl<'g> GoldLinks<'g> {
    /// The links of the gold answers' keys.
    fn of(gold: &'g [Prepared]) -> GoldLinks<'g> {
        // key -> first gold link; further links of the same key are chained
        let mut first: FxHashMap<&Key, usize> = FxHashMap::default();
        first.reserve(gold.len() * 2);
        // (gold answer, reached through a label, next link or usize::MAX)
        let mut chain: Vec<(usize, bool, usize)> = Vec::new();
        for (g, prepared) in gold.iter().enumerate() {
            for (list, label) in [(&prepared.keys, false), (&prepared.via_label, true)] {
                for k in list {
                    let link = chain.len();
                    let next = first.insert(k, link).unwrap_or(usize::MAX);
                    chain.push((g, label, next));
                }
            }
        }
        GoldLinks { first, chain }
    }

    /// The edges of each run answer to the `gold_len` gold answers sharing a
    /// key with it, sorted by gold answer, each with the best reason (a
    /// label only when nothing better links the two; never label to label);
    /// `None` past `max_links` links followed.
    fn adjacency(
        &self,
        run: &[Prepared],
        gold_len: usize,
        max_links: usize,
    ) -> Option<Vec<Vec<(usize, Reason)>>> {
        let (first, chain) = (&self.first, &self.chain);
        // adjacency: run answer -> (gold answer, reason); `slot[g]` is the
        // position of g's edge in the current run answer's list, valid when
        // `owner[g]` is that run answer (+1), so a repeated link costs O(1)
        let mut adj: Vec<Vec<(usize, Reason)>> = Vec::with_capacity(run.len());
        let mut owner = vec![0usize; gold_len];
        let mut slot = vec![0usize; gold_len];
        let mut links = 0usize;
        for (r, prepared) in run.iter().enumerate() {
            let mut edges: Vec<(usize, Reason)> = Vec::new();
            for (list, run_label) in [(&prepared.keys, false), (&prepared.via_label, true)] {
                for k in list {
                    k.each_lookup(|look| {
                        let mut link = first.get(look).copied().unwrap_or(usize::MAX);
                        while link != usize::MAX && links <= max_links {
                            let (g, gold_label, next) = chain[link];
                            link = next;
                            // every link followed counts, a skipped one too
                            links += 1;
                            if run_label && gold_label {
                                continue;
                            }
                            let reason = if run_label || gold_label {
                                Reason::Label
                            } else {
                                k.reason()
                            };
                            if owner[g] == r + 1 {
                                let edge = &mut edges[slot[g]];
                                if edge.1 == Reason::Label && reason != Reason::Label {
                                    edge.1 = reason;
                                }
                            } else {
                                owner[g] = r + 1;
                                slot[g] = edges.len();
                                edges.push((g, reason));
                            }
                        }
                        links > max_links
                    });
                    if links > max_links {
                        return None;
                    }
                }
            }
            edges.sort_unstable_by_key(|(g, _)| *g);
            adj.push(edges);
        }
        Some(adj)
    }
}

/// Infinite distance: a run answer not (or no longer) in the layered graph.
const FAR: usize = usize::MAX;

/// Extends the matching of `gold_to_run` / `run_to_gold` (one-to-one, along
/// `adj`'s edges: run answer -> gold answers, sorted) to a maximum one, by
/// phases of vertex-disjoint shortest augmenting paths: a breadth-first pass
/// layers the run answers by their alternating distance from the free ones,
/// then a depth-first pass (iterative: paths can be long) follows the layers
/// from each free run answer in order, each edge tried once per phase.
fn hopcroft_karp(
    adj: &[Vec<(usize, Reason)>],
    gold_to_run: &mut [Option<usize>],
    run_to_gold: &mut [Option<usize>],
) {
    let mut dist = vec![FAR; adj.len()];
    let mut next = vec![0usize; adj.len()];
    let mut queue: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    loop {
        // layers: free run answers at 0, a matched one a step past the run
        // answer whose edge reaches its gold
        queue.clear();
        for (r, d) in dist.iter_mut().enumerate() {
            *d = if run_to_gold[r].is_none() && !adj[r].is_empty() {
                queue.push_back(r);
                0
            } else {
                FAR
            };
        }
        let mut free_at = FAR;
        while let Some(r) = queue.pop_front() {
            if dist[r] >= free_at {
                continue;
            }
            for &(g, _) in &adj[r] {
                match gold_to_run[g] {
                    None => free_at = free_at.min(dist[r] + 1),
                    Some(w) if dist[w] == FAR => {
                        dist[w] = dist[r] + 1;
                        queue.push_back(w);
                    }
                    Some(_) => {}
                }
            }
        }
        if free_at == FAR {
            return;
        }
        next.fill(0);
        for r in 0..adj.len() {
            if run_to_gold[r].is_none() && dist[r] == 0 {
                augment_layered(
                    r,
                    adj,
                    &mut dist,
                    &mut next,
                    free_at,
                    gold_to_run,
                    run_to_gold,
                );
            }
        }
    }
}

/// One shortest augmenting path from the free run answer `root` along the
/// layers of `dist` (ending at a free gold answer at distance `free_at`),
/// flipped into the matching; a run answer found to lead nowhere leaves the
/// layers. True when a path was found.
fn augment_layered(
    root: usize,
    adj: &[Vec<(usize, Reason)>],
    dist: &mut [usize],
    next: &mut [usize],
    free_at: usize,
    gold_to_run: &mut [Option<usize>],
    run_to_gold: &mut [Option<usize>],
) -> bool {
    // stack[i] reached path[i]'s gold, which leads to stack[i + 1]
    let mut stack = vec![root];
    let mut path: Vec<usize> = Vec::new();
    while let Some(&cur) = stack.last() {
        let Some(&(g, _)) = adj[cur].get(next[cur]) else {
            dist[cur] = FAR;
            stack.pop();
            path.pop();
            continue;
        };
        next[cur] += 1;
        match gold_to_run[g] {
            None if dist[cur] + 1 == free_at => {
                path.push(g);
                for (&r, &g) in stack.iter().zip(&path) {
                    gold_to_run[g] = Some(r);
                    run_to_gold[r] = Some(g);
                }
                return true;
            }
            Some(w) if dist[w] != FAR && dist[w] == dist[cur] + 1 => {
                path.push(g);
                stack.push(w);
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Kuhn's augmenting paths, one search per run answer: the algorithm this
    /// module used before Hopcroft–Karp, kept as the reference of the sizes.
    fn kuhn(
        adj: &[Vec<(usize, Reason)>],
        gold_to_run: &mut [Option<usize>],
        run_to_gold: &mut [Option<usize>],
    ) {
        let mut visited = vec![0usize; gold_to_run.len()];
        for r in 0..adj.len() {
            if run_to_gold[r].is_none() && !adj[r].is_empty() {
                augment(r, adj, gold_to_run, run_to_gold, &mut visited, r + 1);
            }
        }
    }

    fn augment(
        r: usize,
        adj: &[Vec<(usize, Reason)>],
        gold_to_run: &mut [Option<usize>],
        run_to_gold: &mut [Option<usize>],
        visited: &mut [usize],
        stamp: usize,
    ) -> bool {
        // iterative DFS to stay safe on long alternating paths
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        let mut path: Vec<(usize, usize)> = Vec::new(); // (run, gold) edges taken
        while let Some(&mut (cur, ref mut next)) = stack.last_mut() {
            if *next >= adj[cur].len() {
                stack.pop();
                path.pop();
                continue;
            }
            let g = adj[cur][*next].0;
            *next += 1;
            if visited[g] == stamp {
                continue;
            }
            visited[g] = stamp;
            path.push((cur, g));
            match gold_to_run[g] {
                None => {
                    for &(rr, gg) in &path {
                        gold_to_run[gg] = Some(rr);
                        run_to_gold[rr] = Some(gg);
                    }
                    return true;
                }
                Some(owner) => stack.push((owner, 0)),
            }
        }
        false
    }

    /// A random bipartite graph: `runs` run answers, `golds` gold answers,
    /// each edge present with probability `per_mille`/1000, edges sorted.
    fn graph(
        rng: &mut SplitMix64,
        runs: usize,
        golds: usize,
        per_mille: usize,
    ) -> Vec<Vec<(usize, Reason)>> {
        (0..runs)
            .map(|_| {
                (0..golds)
                    .filter(|_| rng.below(1000) < per_mille)
                    .map(|g| (g, Reason::Iri))
                    .collect()
            })
            .collect()
    }

    /// The size of a matching after checking that it is one: both directions
    /// agree and each pair is an edge.
    fn size(
        adj: &[Vec<(usize, Reason)>],
        gold_to_run: &[Option<usize>],
        run_to_gold: &[Option<usize>],
    ) -> usize {
        for (r, g) in run_to_gold.iter().enumerate() {
            if let Some(g) = g {
                assert_eq!(gold_to_run[*g], Some(r));
                assert!(adj[r].iter().any(|(e, _)| e == g), "({r}, {g}) is no edge");
            }
        }
        let n = run_to_gold.iter().flatten().count();
        assert_eq!(n, gold_to_run.iter().flatten().count());
        n
    }

    #[test]
    fn hopcroft_karp_matches_as_many_as_kuhn_on_random_graphs() {
        let mut rng = SplitMix64(0x5eed_0a55_1905);
        for round in 0..400 {
            let (runs, golds) = (1 + rng.below(40), 1 + rng.below(40));
            let per_mille = [20, 80, 200, 500][round % 4];
            let adj = graph(&mut rng, runs, golds, per_mille);
            // from nothing, and after the greedy pass match_answers makes
            let mut greedy = (vec![None; golds], vec![None; runs]);
            if round % 2 == 0 {
                for (r, edges) in adj.iter().enumerate() {
                    if let Some(&(g, _)) = edges.iter().find(|(g, _)| greedy.0[*g].is_none()) {
                        greedy.0[g] = Some(r);
                        greedy.1[r] = Some(g);
                    }
                }
            }
            let (mut hk, mut old) = (greedy.clone(), greedy);
            hopcroft_karp(&adj, &mut hk.0, &mut hk.1);
            kuhn(&adj, &mut old.0, &mut old.1);
            assert_eq!(
                size(&adj, &hk.0, &hk.1),
                size(&adj, &old.0, &old.1),
                "round {round}: {runs} x {golds} at {per_mille}‰"
            );
        }
    }

    #[test]
    fn a_long_alternating_path_is_augmented_without_recursion() {
        // run r links gold r and gold r + 1, run n links gold 0; with run r
        // holding gold r, the one augmenting path goes from run n through
        // every run to gold n: 200,001 steps deep
        let n = 200_000;
        let mut adj: Vec<Vec<(usize, Reason)>> = (0..n)
            .map(|r| vec![(r, Reason::Iri), (r + 1, Reason::Iri)])
            .collect();
        adj.push(vec![(0, Reason::Iri)]);
        let (mut gold_to_run, mut run_to_gold) = (vec![None; n + 1], vec![None; n + 1]);
        for r in 0..n {
            gold_to_run[r] = Some(r);
            run_to_gold[r] = Some(r);
        }
        hopcroft_karp(&adj, &mut gold_to_run, &mut run_to_gold);
        assert_eq!(size(&adj, &gold_to_run, &run_to_gold), n + 1);
    }
}
