//! The averaged perceptron that tags a question's tokens: Matthew Honnibal's
//! greedy tagger as textblob-aptagger 0.2.0 ships it (MIT licence), its
//! trained weights (`trontagger-0.1.0.pickle`, 45 Penn Treebank tags) written
//! out as the text file `perceptron.txt` embedded here and read once per
//! process. Tagging reproduces that tagger exactly: a word of its tag
//! dictionary takes that tag; any other is scored by the summed weights of
//! 14 features (its suffix and first letter, the two previous tags, the
//! lower-cased words and suffixes around it) and takes the highest-scoring
//! tag, ties to the greater tag name, left to right.
//!
//! The file, one record a line, fields separated by a tab: a line without a
//! tab opens a section, `@tags` followed by the tag names (space-separated,
//! the indices the weights use), `@tagdict` (rows `word<TAB>tag`), then one
//! section per feature template in the order of [`TEMPLATES`] (rows
//! `value<TAB>index:weight …`, the weights in thousandths, which is how the
//! tagger rounded them; a row of `@bias` has the empty value).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The embedded model (its format in the module doc).
pub(super) const DATA: &str = include_str!("perceptron.txt");

/// The feature templates, by their section names in [`DATA`]: `-1`/`-2` are
/// the previous tokens, `+1`/`+2` the next ones; a suffix is the last three
/// characters, `pref1` the first one.
const TEMPLATES: [&str; 14] = [
    "bias",
    "suffix",
    "pref1",
    "tag-1",
    "tag-2",
    "tag-1+tag-2",
    "word",
    "tag-1+word",
    "word-1",
    "suffix-1",
    "word-2",
    "word+1",
    "suffix+1",
    "word+2",
];

/// The context words before the first token (also the previous tags of the
/// first token).
const START: [&str; 2] = ["-START-", "-START2-"];
/// The context words after the last token.
const END: [&str; 2] = ["-END-", "-END2-"];

/// A hasher for the model's short keys, faster than the default one (the
/// multiply-and-rotate of FxHash). The tables are fixed once read, so a text
/// only looks keys up and cannot make a table degrade.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map from strings of [`DATA`].
type Map<V> = HashMap<&'static str, V, BuildHasherDefault<KeyHasher>>;

/// A section of [`DATA`] being read.
#[derive(Clone, Copy)]
enum Section {
    Start,
    TagDict,
    Template(usize),
}

/// The tagger's model: tag names, tag dictionary and weights, borrowing its
/// strings from [`DATA`].
pub(super) struct Model {
    /// The tag names, by index.
    tags: Vec<&'static str>,
    /// Words that always take one tag (the index of it).
    tagdict: Map<u8>,
    /// Per template of [`TEMPLATES`], a feature value's range in `weights`.
    features: [Map<(u32, u32)>; 14],
    /// (tag index, weight in thousandths), feature after feature.
    weights: Vec<(u8, i32)>,
}

/// A model text that does not read: where (its line) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("part-of-speech model: {0}")]
pub(super) struct ModelError(String);

impl Model {
    /// Reads a model in the format of [`DATA`]; an error names the line.
    pub(super) fn parse(text: &'static str) -> Result<Model, ModelError> {
        let mut model = Model {
            tags: Vec::new(),
            tagdict: Map::default(),
            features: std::array::from_fn(|_| Map::default()),
            weights: Vec::new(),
        };
        let mut section = Section::Start;
        for (n, line) in text.lines().enumerate() {
            let at = || format!("line {}", n + 1);
            let Some((value, rest)) = line.split_once('\t') else {
                let mut words = line.split(' ');
                let name = words.next().unwrap_or_default();
                section = match name {
                    "@tags" => {
                        model.tags = words.collect();
                        if model.tags.is_empty() || model.tags.len() > usize::from(u8::MAX) {
                            return Err(ModelError(format!("{}: {} tags", at(), model.tags.len())));
                        }
                        Section::Start
                    }
                    "@tagdict" => Section::TagDict,
                    _ => TEMPLATES
                        .iter()
                        .position(|t| name.strip_prefix('@') == Some(*t))
                        .map(Section::Template)
                        .ok_or_else(|| ModelError(format!("{}: unknown section {name:?}", at())))?,
                };
                continue;
            };
            match section {
                Section::Start => {
                    return Err(ModelError(format!("{}: a row before any section", at())))
                }
                Section::TagDict => {
                    let tag = model
                        .tag_index(rest)
                        .ok_or_else(|| ModelError(format!("{}: tag {rest:?}", at())))?;
                    model.tagdict.insert(value, tag);
                }
                Section::Template(t) => {
                    let start = model.weights.len();
                    for entry in rest.split(' ') {
                        let weight = entry
                            .split_once(':')
                            .and_then(|(i, w)| {
                                Some((i.parse::<u8>().ok()?, w.parse::<i32>().ok()?))
                            })
                            .filter(|(i, _)| usize::from(*i) < model.tags.len())
                            .ok_or_else(|| ModelError(format!("{}: weight {entry:?}", at())))?;
                        model.weights.push(weight);
                    }
                    let range = u32::try_from(start)
                        .and_then(|s| Ok((s, u32::try_from(model.weights.len())?)))
                        .map_err(|_| ModelError(format!("{}: too many weights", at())))?;
                    model.features[t].insert(value, range);
                }
            }
        }
        if model.tags.is_empty() {
            return Err(ModelError("no @tags line".to_string()));
        }
        Ok(model)
    }

    /// The index of a tag name.
    fn tag_index(&self, name: &str) -> Option<u8> {
        let i = self.tags.iter().position(|t| *t == name)?;
        u8::try_from(i).ok()
    }

    /// How many (tag names, dictionary words, feature values, weights).
    #[cfg(test)]
    pub(super) fn size(&self) -> (usize, usize, usize, usize) {
        let features = self.features.iter().map(HashMap::len).sum();
        (
            self.tags.len(),
            self.tagdict.len(),
            features,
            self.weights.len(),
        )
    }

    /// The tags of `words`, one each, in order.
    pub(super) fn tag(&self, words: &[String]) -> Vec<&'static str> {
        let context: Vec<Cow<'_, str>> = START
            .iter()
            .map(|s| Cow::Borrowed(*s))
            .chain(words.iter().map(|w| normalized(w)))
            .chain(END.iter().map(|s| Cow::Borrowed(*s)))
            .collect();
        let (mut prev, mut prev2) = (START[0], START[1]);
        let mut scores = vec![0i64; self.tags.len()];
        let mut key = String::new();
        let mut out = Vec::with_capacity(words.len());
        for (i, word) in words.iter().enumerate() {
            let tag = match self.tagdict.get(word.as_str()) {
                Some(&t) => self.tags[usize::from(t)],
                None => {
                    // context[i + 2] is the word itself
                    let around = |k: usize| context[i + k].as_ref();
                    scores.iter_mut().for_each(|s| *s = 0);
                    let mut add = |template: usize, value: &str| {
                        if let Some(&(a, b)) = self.features[template].get(value) {
                            for &(t, w) in &self.weights[a as usize..b as usize] {
                                scores[usize::from(t)] += i64::from(w);
                            }
                        }
                    };
                    add(0, "");
                    add(1, last_chars(word, 3));
                    add(2, first_char(word));
                    add(3, prev);
                    add(4, prev2);
                    key.clear();
                    key.push_str(prev);
                    key.push(' ');
                    key.push_str(prev2);
                    add(5, &key);
                    add(6, around(2));
                    key.clear();
                    key.push_str(prev);
                    key.push(' ');
                    key.push_str(around(2));
                    add(7, &key);
                    add(8, around(1));
                    add(9, last_chars(around(1), 3));
                    add(10, around(0));
                    add(11, around(3));
                    add(12, last_chars(around(3), 3));
                    add(13, around(4));
                    self.best(&scores)
                }
            };
            out.push(tag);
            prev2 = prev;
            prev = tag;
        }
        out
    }

    /// The tag of the highest score, a tie to the greater tag name.
    fn best(&self, scores: &[i64]) -> &'static str {
        let mut best = (i64::MIN, "");
        for (&score, &tag) in scores.iter().zip(&self.tags) {
            if (score, tag) > best {
                best = (score, tag);
            }
        }
        best.1
    }
}

/// A word as the features see it: `!HYPHEN` with a hyphen inside, `!YEAR`
/// for four digits, `!DIGITS` starting with a digit, else in lower case.
fn normalized(word: &str) -> Cow<'static, str> {
    if word.contains('-') && !word.starts_with('-') {
        Cow::Borrowed("!HYPHEN")
    } else if word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) {
        Cow::Borrowed("!YEAR")
    } else if word.starts_with(|c: char| c.is_ascii_digit()) {
        Cow::Borrowed("!DIGITS")
    } else {
        Cow::Owned(word.to_lowercase())
    }
}

/// The last `n` characters of `s` (all of it when shorter).
fn last_chars(s: &str, n: usize) -> &str {
    s.char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(s, |(i, _)| &s[i..])
}

/// The first character of `s` (empty when `s` is).
fn first_char(s: &str) -> &str {
    s.chars().next().map_or("", |c| &s[..c.len_utf8()])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn the_embedded_model_is_read_whole() {
        let model = Model::parse(DATA).expect("the embedded model");
        assert_eq!(model.size(), (45, 2604, 94202, 374698));
        assert_eq!(model.tags.first(), Some(&"#"));
        assert_eq!(model.tags.last(), Some(&"``"));
    }

    #[test]
    fn words_are_tagged_in_context() {
        let model = Model::parse(DATA).expect("the embedded model");
        let tag = |text: &str| model.tag(&words(text)).join(" ");
        assert_eq!(tag("Who killed Caesar ?"), "WP VBD NNP .");
        assert_eq!(
            tag("How many states does Austria have ?"),
            "WRB JJ NNS VBZ NNP VB ."
        );
        assert_eq!(tag("Give me all Argentine films ."), "VB PRP DT NNP NNS .");
        assert_eq!(
            tag("Was Natalie Portman born in 1981 ?"),
            "NNP NNP NNP VBN IN CD ."
        );
        assert!(model.tag(&[]).is_empty());
    }

    #[test]
    fn a_malformed_model_is_an_error() {
        let bad = |text: &'static str| {
            Model::parse(text)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(bad("").contains("no @tags"), "{}", bad(""));
        assert!(bad("x\ty").contains("line 1"));
        assert!(bad("@tags NN\n@what").contains("unknown section"));
        assert!(bad("@tags NN\n@word\nx\t1:5").contains("weight"));
        assert!(bad("@tags NN\n@tagdict\tx\tVB").contains("line 2"));
        let model =
            Model::parse("@tags NN VB\n@tagdict\ngo\tVB\n@bias\n\t0:-5 1:-5").expect("a model");
        // a tie goes to the greater name
        assert_eq!(model.tag(&words("go home")), ["VB", "VB"]);
    }

    #[test]
    fn normalized_words_and_affixes() {
        assert_eq!(normalized("grand-children"), "!HYPHEN");
        assert_eq!(normalized("-LRB-"), "-lrb-");
        assert_eq!(normalized("1945"), "!YEAR");
        assert_eq!(normalized("51"), "!DIGITS");
        assert_eq!(normalized("Über"), "über");
        assert_eq!(last_chars("Gödel", 3), "del");
        assert_eq!(last_chars("éà", 3), "éà");
        assert_eq!(first_char("Éa"), "É");
        assert_eq!(first_char(""), "");
    }
}
