//! A maximum one-to-one matching between prepared gold and run answers (docs/scoring.md: Sameness,
//! counting), so that the result never depends on the order of answers.

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
    // adjacency: run answer -> (gold answer, reason); `slot[g]` is the
    // position of g's edge in the current run answer's list, valid when
    // `owner[g]` is that run answer (+1), so a repeated link costs O(1)
    let mut adj: Vec<Vec<(usize, Reason)>> = Vec::with_capacity(run.len());
    let mut owner = vec![0usize; gold.len()];
    let mut slot = vec![0usize; gold.len()];
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
                    return Err(TooManyLinks {
                        gold: gold.len(),
                        run: run.len(),
                        limit: max_links,
                    });
                }
            }
        }
        edges.sort_unstable_by_key(|(g, _)| *g);
        adj.push(edges);
    }
    let mut gold_to_run: Vec<Option<usize>> = vec![None; gold.len()];
    let mut run_to_gold: Vec<Option<usize>> = vec![None; run.len()];
    // greedy pass
    for (r, edges) in adj.iter().enumerate() {
        if let Some(&(g, _)) = edges.iter().find(|(g, _)| gold_to_run[*g].is_none()) {
            gold_to_run[g] = Some(r);
            run_to_gold[r] = Some(g);
        }
    }
    // augmenting paths (Kuhn) for the rest
    let mut visited = vec![0usize; gold.len()];
    let mut stamp = 0usize;
    for r in 0..run.len() {
        if run_to_gold[r].is_some() || adj[r].is_empty() {
            continue;
        }
        stamp += 1;
        augment(
            r,
            &adj,
            &mut gold_to_run,
            &mut run_to_gold,
            &mut visited,
            stamp,
        );
    }
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
