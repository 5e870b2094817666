//! Tests of the closure as a whole and of its parts.

use super::arena::{head, read_head, CHUNK_BYTES, HEAD, SHORT_HEAD};
use super::table::{AHEAD_MAX_SLOTS, EMPTY};
use super::*;
use crate::index::hash::iri_key;
use crate::terms::canonical::canonical_iri;

/// The endpoint of an IRI as written (computing its canonical form and key).
fn endpoint_of(written: &str) -> (u64, bool) {
    let canonical = canonical_iri(written);
    (iri_key(&canonical), canonical == written)
}

/// Classes as sorted lists of written IRIs, in the order handed out, and the
/// keys with their class ids and sizes.
type Out = (Vec<Vec<String>>, Vec<(u64, u32, u32)>);

fn closure(links: &[(&str, &str)]) -> Out {
    closure_in(links, Closure::default())
}

/// The closure of links given in groups of `group` to [`Closure::link_all`].
fn closure_in(links: &[(&str, &str)], c: Closure) -> Out {
    closure_grouped(links, c, links.len().max(1))
}

/// The endpoint of an IRI as written, with a check hash of its own.
fn endpoint(w: &str) -> Endpoint<'_> {
    let (key, canonical) = endpoint_of(w);
    Endpoint {
        key,
        check: key as u32 ^ 1,
        written: w,
        canonical,
    }
}

fn closure_grouped(links: &[(&str, &str)], mut c: Closure, group: usize) -> Out {
    let endpoints: Vec<_> = links
        .iter()
        .map(|(a, b)| (endpoint(a), endpoint(b)))
        .collect();
    for part in endpoints.chunks(group) {
        c.link_all(part).expect("link");
    }
    let mut classes = Vec::new();
    let mut keys = Vec::new();
    let mut phases = Vec::new();
    let found = c
        .finish::<()>(
            &mut |class| {
                assert_eq!(class.id as usize, classes.len());
                classes.push(
                    class
                        .written
                        .iter()
                        .map(std::string::ToString::to_string)
                        .collect(),
                );
                Ok(())
            },
            &mut |half, k, id, size| {
                assert_eq!(half as u64, k >> 63);
                keys.push((k, id, size));
                Ok(())
            },
            &|e| panic!("{e}"),
            &mut |phase| phases.push(phase.name().to_string()),
        )
        .expect("finish");
    assert_eq!(phases, ["grouping classes", "writing the IRI table"]);
    // each half of the key space in increasing key order
    for half in 0..2 {
        let keys: Vec<u64> = keys
            .iter()
            .map(|k| k.0)
            .filter(|k| k >> 63 == half)
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    }
    assert_eq!(found.classes as usize, classes.len());
    assert_eq!(found.key_collisions, 0);
    (classes, keys)
}

#[test]
fn transitive_and_order_independent() {
    let links = [
        ("http://a.org/1", "http://b.org/1"),
        ("http://b.org/1", "http://c.org/1"),
        ("http://x.org/2", "http://y.org/2"),
        ("http://c.org/1", "http://a.org/1"),
    ];
    let forward = closure(&links);
    let mut reversed = links;
    reversed.reverse();
    let swapped: Vec<(&str, &str)> = links.iter().map(|(a, b)| (*b, *a)).collect();
    assert_eq!(forward, closure(&reversed));
    assert_eq!(forward, closure(&swapped));
    assert_eq!(forward.0.len(), 2);
    assert_eq!(forward.1.len(), 5);
    // keys in increasing order, each with its class's size
    assert!(forward.1.windows(2).all(|w| w[0].0 < w[1].0));
    for (_, id, size) in &forward.1 {
        assert_eq!(forward.0[*id as usize].len(), *size as usize);
    }
}

#[test]
fn spellings_of_one_iri_are_one_node_but_all_kept() {
    let (classes, keys) = closure(&[(
        "http://dbpedia.org/resource/Caf%C3%A9",
        "http://dbpedia.org/resource/Café",
    )]);
    assert_eq!(classes.len(), 1);
    assert_eq!(keys.len(), 1);
    assert_eq!(classes[0].len(), 2);
    // an IRI linked to itself is no class
    assert_eq!(closure(&[("http://a.org/1", "http://a.org/1")]).0.len(), 0);
}

#[test]
fn key_collisions_are_counted() {
    let mut c = Closure::default();
    let e = |written, check| Endpoint {
        key: 42,
        check,
        written,
        canonical: true,
    };
    let other = Endpoint {
        key: 7,
        check: 7,
        written: "http://b.org/",
        canonical: true,
    };
    c.link_all(&[(e("http://a.org/", 1), other)]).expect("link");
    c.link_all(&[(e("http://c.org/", 2), other)]).expect("link");
    let found = c
        .finish::<()>(
            &mut |_| Ok(()),
            &mut |_, _, _, _| Ok(()),
            &|e| panic!("{e}"),
            &mut |_| {},
        )
        .expect("finish");
    assert_eq!(found.key_collisions, 1);
}

/// Each key with its node (its place in `keys`), in key order: what
/// [`Table::into_sorted`] gives once `keys` were inserted in turn.
fn keys_with_nodes_in_order(keys: &[u64]) -> Vec<(u64, u32)> {
    let mut expected: Vec<(u64, u32)> = keys
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    expected.sort_unstable();
    expected
}

#[test]
fn the_table_grows_and_stays_sorted() {
    let mut t = Table::with_bits(2);
    let mut rng = crate::rng::SplitMix64(7);
    let mut keys: Vec<u64> = (0..5000).map(|_| rng.next_u64() | 1).collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(t.get_or_insert(*k, i as u32), (i as u32, true));
    }
    assert_eq!(t.get_or_insert(keys[17], 99), (17, false));
    // keys near the top wrap around to the first slots
    for top in [u64::MAX, u64::MAX - 1, u64::MAX - 2] {
        let n = t.len as u32;
        t.get_or_insert(top, n);
        keys.push(top);
    }
    // each key keeps its node when the table is sorted in place
    let expected = keys_with_nodes_in_order(&keys);
    let (sorted, nodes) = t.into_sorted();
    let seen: Vec<(u64, u32)> = sorted.into_iter().zip(nodes).collect();
    assert_eq!(seen, expected);
}

#[test]
fn places_of_32_bits_round_trip_and_large_chunks_keep_64() {
    for at in [
        0u64,
        5,
        (1 << 32) | 7,
        (3 << 32) | ((1 << 25) - 1),
        (127 << 32) | 1,
    ] {
        assert_eq!(Arena::from_small_place(Arena::small_place(at)), at);
    }
    let mut arena = Arena::default();
    arena.push_record(1, "http://a.org/x");
    assert!(arena.small_places());
    // a spelling longer than a chunk gets a chunk of its own, too large for
    // places of 32 bits; the classes come out the same
    let long = format!("http://a.org/{}", "x".repeat(CHUNK_BYTES));
    arena.push_record(2, &long);
    arena.push_record(3, "http://b.org/y");
    assert!(!arena.small_places());
    let links = [
        (long.as_str(), "http://b.org/y"),
        ("http://b.org/y", "http://c.org/z"),
        ("http://d.org/1", "http://e.org/2"),
    ];
    let (classes, _) = closure(&links);
    let mut sizes: Vec<usize> = classes.iter().map(Vec::len).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [2, 3]);
    assert!(classes.iter().any(|c| c.contains(&long)));
}

#[test]
fn classes_are_numbered_in_the_order_of_their_roots() {
    // roots 1, 3 and 4; nodes point at roots before and after them
    let mut parent = vec![3, 1, 1, 3, 4, 3, 1];
    assert_eq!(number_classes(&mut parent), 3);
    assert_eq!(parent, vec![1, 0, 0, 1, 2, 1, 0]);
    let mut none: Vec<u32> = Vec::new();
    assert_eq!(number_classes(&mut none), 0);
}

#[test]
fn the_table_grows_straight_to_the_size_expected() {
    let mut t = Table::with_bits(2);
    // nothing expected: one doubling
    assert_eq!(t.slots_to_grow_to(), 8);
    // the smallest size that holds the expected keys 7/8 full
    t.expected = 1000;
    assert_eq!(t.slots_to_grow_to(), 2048);
    t.expected = 1792;
    assert_eq!(t.slots_to_grow_to(), 2048);
    t.expected = 1793;
    assert_eq!(t.slots_to_grow_to(), 4096);
    // never past AHEAD_MAX_SLOTS, but always at least double
    t.expected = usize::MAX;
    assert_eq!(t.slots_to_grow_to(), AHEAD_MAX_SLOTS);
    let big = Table::from_parts(vec![EMPTY; AHEAD_MAX_SLOTS], vec![0; AHEAD_MAX_SLOTS]);
    let big = Table {
        expected: usize::MAX,
        ..big
    };
    assert_eq!(big.slots_to_grow_to(), 2 * AHEAD_MAX_SLOTS);
}

#[test]
fn the_expected_keys_come_from_the_share_of_input_read() {
    let mut c = Closure::default();
    let links: Vec<(String, String)> = (0..100)
        .map(|i| (format!("http://a.org/{i}"), format!("http://b.org/{i}")))
        .collect();
    let pairs: Vec<_> = links
        .iter()
        .map(|(a, b)| (endpoint(a), endpoint(b)))
        .collect();
    c.link_all(&pairs).expect("in memory");
    // less than a 64th read: no estimate
    c.read_so_far(10, 1000);
    assert_eq!(c.table.expected, 0);
    // 200 keys in a tenth of the input
    c.read_so_far(100, 1000);
    assert_eq!(c.table.expected, 2000);
    c.read_so_far(1000, 1000);
    assert_eq!(c.table.expected, 200);
}

#[test]
fn a_table_growing_towards_an_estimate_keeps_every_key() {
    // the size expected (2²² slots) is made ahead while the table doubles,
    // then taken at a later growth
    let mut t = Table::with_bits(2);
    t.expected = 3_000_000;
    let mut rng = crate::rng::SplitMix64(11);
    let keys: Vec<u64> = (0..1_900_000).map(|_| rng.next_u64() | 1).collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(t.get_or_insert(*k, i as u32), (i as u32, true));
    }
    assert_eq!(t.keys.len(), 1 << 22);
    for (i, k) in keys.iter().enumerate().step_by(997) {
        assert_eq!(t.get_or_insert(*k, 0), (i as u32, false));
    }
    let expected = keys_with_nodes_in_order(&keys);
    let (sorted, nodes) = t.into_sorted();
    assert!(sorted
        .iter()
        .zip(nodes)
        .eq(expected.iter().map(|(k, n)| (k, *n))));
}

/// One of several spellings of entity `e` (so canonical forms merge them).
fn spelling(e: usize, variant: usize) -> String {
    match variant % 5 {
        0 => format!("http://dbpedia.org/resource/E{e}"),
        1 => format!("https://dbpedia.org/page/E{e}"),
        2 => format!("http://www.wikidata.org/entity/Q{e}"),
        3 => format!("https://www.wikidata.org/wiki/Q{e}"),
        // long enough for the long record head (127 bytes or more), and not ASCII
        4 if e.is_multiple_of(3) => format!("http://other.org/{}/é%2C{e}", "long".repeat(30)),
        _ => format!("http://other.org/x%2C{e}"),
    }
}

/// The components by a naive search over canonical forms, as sorted sets of
/// written IRIs (classes of two or more written forms only).
fn naive(links: &[(String, String)]) -> Vec<Vec<String>> {
    let mut adjacent: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut written: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for (a, b) in links {
        let (ca, cb) = (canonical_iri(a), canonical_iri(b));
        adjacent.entry(ca.clone()).or_default().push(cb.clone());
        adjacent.entry(cb.clone()).or_default().push(ca.clone());
        written.entry(ca).or_default().insert(a.clone());
        written.entry(cb).or_default().insert(b.clone());
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for start in adjacent.keys() {
        if !seen.insert(start.clone()) {
            continue;
        }
        let mut stack = vec![start.clone()];
        let mut members = std::collections::BTreeSet::new();
        while let Some(x) = stack.pop() {
            members.extend(written[&x].iter().cloned());
            for y in &adjacent[&x] {
                if seen.insert(y.clone()) {
                    stack.push(y.clone());
                }
            }
        }
        if members.len() > 1 {
            out.push(members.into_iter().collect());
        }
    }
    out.sort();
    out
}

#[test]
fn record_heads_round_trip_and_stay_ascii() {
    for (node, len, short) in [
        (0, 0, true),
        (1, 126, true),
        (2, 127, false),
        (128, 1 << 20, false),
        (u32::MAX, (1 << 31) - 1, false),
    ] {
        let (h, head_len) = head(node, len);
        assert!(h.is_ascii());
        assert_eq!(head_len, if short { SHORT_HEAD } else { HEAD });
        assert_eq!(read_head(&h[..head_len]), Some((node, len, head_len)));
        assert_eq!(read_head(&h[..head_len - 1]), None);
    }
    let mut arena = Arena::default();
    arena.push_record(7, "http://a.org/x");
    arena.push_record(u32::MAX, "http://b.org/ÿ");
    let mut got: Vec<(u32, &str)> = Vec::new();
    arena.for_each_record(|at, node| got.push((node, arena.record_text(at))));
    assert_eq!(got, [(7, "http://a.org/x"), (u32::MAX, "http://b.org/ÿ")]);
}

#[test]
fn randomized_closures_match_a_naive_search_in_any_order() {
    let mut rng = crate::rng::SplitMix64(20_261_122);
    for case in 0..200 {
        let entities = 2 + rng.below(30);
        let n = rng.below(60);
        let links: Vec<(String, String)> = (0..n)
            .map(|_| {
                (
                    spelling(rng.below(entities), rng.below(5)),
                    spelling(rng.below(entities), rng.below(5)),
                )
            })
            .collect();
        let run = |l: &[(String, String)]| -> Out {
            let refs: Vec<(&str, &str)> = l.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            closure(&refs)
        };
        let got = run(&links);
        let mut as_sets = got.0.clone();
        as_sets.sort();
        assert_eq!(as_sets, naive(&links), "case {case}");
        // every IRI in exactly one class
        let mut all: Vec<&String> = got.0.iter().flatten().collect();
        let total = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), total, "case {case}");
        // every canonical IRI of a class has its key, with that class
        for (id, class) in got.0.iter().enumerate() {
            for w in class {
                let key = iri_key(&canonical_iri(w));
                assert!(
                    got.1.iter().any(|k| k.0 == key && k.1 as usize == id),
                    "case {case}: {w}"
                );
            }
        }
        // the same classes, in the same order, for a shuffled and swapped input
        let mut shuffled = links.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        let shuffled: Vec<(String, String)> = shuffled
            .into_iter()
            .map(|(a, b)| if rng.below(2) == 0 { (b, a) } else { (a, b) })
            .collect();
        assert_eq!(run(&shuffled), got, "case {case}");
        // the same when the links come one at a time or in groups of any size
        let refs: Vec<(&str, &str)> = links
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let group = 1 + rng.below(links.len().max(1));
        assert_eq!(
            closure_grouped(&refs, Closure::default(), group),
            got,
            "case {case}"
        );
        // the same when the spellings are spilled to disk every few bytes
        if case % 20 == 0 {
            let dir =
                std::env::temp_dir().join(format!("qajudge-spill-{}-{case}", std::process::id()));
            let refs: Vec<(&str, &str)> = links
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let spilled = closure_in(&refs, Closure::new(200, Some(dir.clone())));
            assert_eq!(spilled, got, "case {case}");
            let left: Vec<_> = std::fs::read_dir(&dir)
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            assert!(left.is_empty(), "spill files left: {left:?}");
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
