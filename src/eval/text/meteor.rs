//! METEOR as NLTK 3.10's `meteor_score` computes it, T2S-Metrics' `meteor`
//! (docs/scoring.md, The `t2s-metrics` profile): the query tokens lowercased,
//! aligned in three stages — exact, then Porter stems (`super::porter`), then
//! WordNet synonyms of the *stemmed* hypothesis words (`crate::wordnet`; the
//! stem stage hands its stemmed leftovers on) — each stage matching
//! hypothesis words from the last one back, each to the last reference word
//! it can take; then `F = P·R / (α·P + (1−α)·R)` with α = 0.9 and the
//! fragmentation penalty `γ·(chunks / matches)^β`, γ = 0.5, β = 3. No match,
//! or an empty side, is 0.

use std::collections::HashMap;

use super::porter::stem;
use crate::wordnet::WordNet;

/// NLTK's weight of precision against recall (`1 − α` is computed, as
/// NLTK does: 0.09999999999999998).
const ALPHA: f64 = 0.9;
/// NLTK's exponent of the fragmentation penalty.
const BETA: f64 = 3.0;
/// NLTK's weight of the fragmentation penalty.
const GAMMA: f64 = 0.5;

/// Words with their position in the sentence, as `_generate_enums` makes them.
type Enumerated = Vec<(usize, String)>;

/// One stage's matches (hypothesis position, reference position) and the
/// words neither side matched.
struct Stage {
    /// (hypothesis position, reference position) of each match.
    matches: Vec<(usize, usize)>,
    /// The hypothesis words left.
    hypothesis: Enumerated,
    /// The reference words left.
    reference: Enumerated,
}

/// The words a stage did not match, in their order.
fn leftovers(list: Enumerated, matched: &[bool]) -> Enumerated {
    list.into_iter()
        .zip(matched)
        .filter_map(|(pair, &m)| (!m).then_some(pair))
        .collect()
}

/// `_match_enums` (with `synonyms`, `_enum_wordnetsyn_match`): for each
/// hypothesis word from the last back, the reference word with the largest
/// position among those still free that equal it (or one of its synonyms).
fn match_stage(hypothesis: Enumerated, reference: Enumerated, wordnet: Option<&WordNet>) -> Stage {
    // each distinct word's synonyms once
    let mut synonyms: HashMap<&str, std::collections::BTreeSet<String>> = HashMap::new();
    let mut positions: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, (_, word)) in reference.iter().enumerate() {
        positions.entry(word.as_str()).or_default().push(j);
    }
    let mut hyp_matched = vec![false; hypothesis.len()];
    let mut ref_matched = vec![false; reference.len()];
    let mut matches = Vec::new();
    for i in (0..hypothesis.len()).rev() {
        let word = hypothesis[i].1.as_str();
        let best: Option<(usize, String)> = match wordnet {
            None => positions
                .get(word)
                .and_then(|p| p.last())
                .map(|&j| (j, word.to_string())),
            Some(wordnet) => synonyms
                .entry(word)
                .or_insert_with(|| wordnet.synonyms(word))
                .iter()
                .filter_map(|syn| {
                    let j = *positions.get(syn.as_str())?.last()?;
                    Some((j, syn.clone()))
                })
                .max_by_key(|(j, _)| *j),
        };
        if let Some((j, w)) = best {
            if let Some(p) = positions.get_mut(w.as_str()) {
                p.pop();
            }
            hyp_matched[i] = true;
            ref_matched[j] = true;
            matches.push((hypothesis[i].0, reference[j].0));
        }
    }
    Stage {
        matches,
        hypothesis: leftovers(hypothesis, &hyp_matched),
        reference: leftovers(reference, &ref_matched),
    }
}

/// `_count_chunks`: runs of matches adjacent on both sides (matches sorted
/// by hypothesis position).
fn chunks(matches: &[(usize, usize)]) -> usize {
    1 + matches
        .windows(2)
        .filter(|w| !(w[1].0 == w[0].0 + 1 && w[1].1 == w[0].1 + 1))
        .count()
}

/// `single_meteor_score(reference, hypothesis)` on tokens (each lowercased
/// as Python's `str.lower` does).
pub fn meteor(reference: &[String], hypothesis: &[String], wordnet: &WordNet) -> f64 {
    let enumerate = |tokens: &[String]| -> Enumerated {
        tokens
            .iter()
            .map(|t| t.to_lowercase())
            .enumerate()
            .collect()
    };
    let (hypothesis, reference) = (enumerate(hypothesis), enumerate(reference));
    let (translation, reference_length) = (hypothesis.len(), reference.len());
    let exact = match_stage(hypothesis, reference, None);
    let stemmed =
        |list: Enumerated| -> Enumerated { list.into_iter().map(|(i, w)| (i, stem(&w))).collect() };
    let stems = match_stage(stemmed(exact.hypothesis), stemmed(exact.reference), None);
    let synonyms = match_stage(stems.hypothesis, stems.reference, Some(wordnet));
    let mut matches = exact.matches;
    matches.extend(stems.matches);
    matches.extend(synonyms.matches);
    matches.sort_by_key(|m| m.0);
    let count = matches.len();
    if count == 0 || translation == 0 || reference_length == 0 {
        return 0.0;
    }
    let precision = count as f64 / translation as f64;
    let recall = count as f64 / reference_length as f64;
    let fmean = (precision * recall) / (ALPHA * precision + (1.0 - ALPHA) * recall);
    let fragmentation = chunks(&matches) as f64 / count as f64;
    let penalty = GAMMA * fragmentation.powf(BETA);
    (1.0 - penalty) * fmean
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::text::tokenize;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    fn debian() -> Option<WordNet> {
        let dir = std::path::Path::new("/usr/share/wordnet");
        dir.join("index.noun")
            .is_file()
            .then(|| WordNet::open(dir).expect("debian's wordnet reads"))
    }

    #[test]
    fn chunks_count_adjacent_runs() {
        assert_eq!(chunks(&[(0, 0), (1, 1), (2, 5), (3, 6)]), 2);
        assert_eq!(chunks(&[(0, 3)]), 1);
    }

    /// NLTK's own doctests of `single_meteor_score` (0.6944 and 0.0).
    #[test]
    fn nltk_doctests() {
        let Some(wn) = debian() else { return };
        let hypothesis = words("It is a guide to action which ensures that the military always obeys the commands of the party");
        let reference = words("It is a guide to action that ensures that the military will forever heed Party commands");
        let score = meteor(&reference, &hypothesis, &wn);
        assert_eq!((score * 1e4).round() / 1e4, 0.6944);
        assert_eq!(
            meteor(
                &words("this is a cat"),
                &words("non matching hypothesis"),
                &wn
            ),
            0.0
        );
        assert_eq!(meteor(&[], &words("a"), &wn), 0.0);
    }

    /// T2S-Metrics 1.2.0's `meteor` on the nine CK25 team files
    /// (`tests/data/t2s-metrics/ck25-meteor.json`, made by `ck25-meteor.sh`
    /// with Debian's WordNet 3.0): every case to 1e-9, and the team means.
    #[test]
    fn ck25_figures_are_t2s_metrics_own() {
        let Some(dir) = crate::test_data::shared_data("text2sparql/t2s-metrics/ck25") else {
            return;
        };
        let Some(wn) = debian() else {
            assert!(
                std::env::var("CI").is_err(),
                "Debian's wordnet-base is missing under CI=true: scripts/install-deps.sh --wordnet installs it"
            );
            return;
        };
        let expected: serde_json::Value = serde_json::from_str(include_str!(
            "../../../tests/data/t2s-metrics/ck25-meteor.json"
        ))
        .expect("the fixture parses");
        let mut checked = 0;
        for (team, per_id) in expected["per_query"].as_object().expect("teams") {
            let text =
                std::fs::read_to_string(dir.join(format!("{team}.jsonl"))).expect("a team file");
            let mut scores = Vec::new();
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let case: serde_json::Value = serde_json::from_str(line).expect("a json line");
                let id = case["id"].as_str().expect("an id");
                let golden = tokenize(case["golden"].as_str().unwrap_or_default());
                let generated = tokenize(case["generated"].as_str().unwrap_or_default());
                let got = meteor(&golden, &generated, &wn);
                let want = per_id[id].as_f64().expect("a score");
                assert!(
                    (got - want).abs() < 1e-9,
                    "{team} {id}: {got} against {want}"
                );
                scores.push(got);
                checked += 1;
            }
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            let want = expected["means"][team].as_f64().expect("a mean");
            assert!((mean - want).abs() < 1e-9, "{team}: {mean} against {want}");
        }
        assert_eq!(checked, 440);
    }
}
