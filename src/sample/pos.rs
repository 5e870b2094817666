//! The part-of-speech flags of a question (docs/features.md, "Part-of-speech
//! flags"): which of the 21 Penn Treebank tags QaldGen records occur in its
//! text, from a real English tagger, the `pos-tagger` crate (a Brill tagger:
//! Eric Brill's lexicon of about 92,000 words, bundled in the crate, and eight
//! contextual rules). The one module that names that crate. The tagger's
//! lexicon is read once per process ([`warm`] starts that early, on another
//! thread); a text is tagged up to its first [`MAX_TAGGED_BYTES`] bytes.

use std::sync::OnceLock;

use pos_tagger::{Lexer, Tagger};

/// The tags QaldGen records as flags, in QaldGenData's order (its predicate
/// names `qg:IN` … `qg:SYM`).
pub const TAGS: [&str; 21] = [
    "IN", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "PRP", "RB", "RBR", "RBS", "VB", "VBD",
    "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "SYM",
];

/// The feature names of the flags (`pos_` and the tag in lower case), in the
/// order of [`TAGS`], as `sample --features` and `--where` take them.
pub const FEATURES: [&str; 21] = [
    "pos_in", "pos_jj", "pos_jjr", "pos_jjs", "pos_nn", "pos_nns", "pos_nnp", "pos_nnps",
    "pos_prp", "pos_rb", "pos_rbr", "pos_rbs", "pos_vb", "pos_vbd", "pos_vbg", "pos_vbn",
    "pos_vbp", "pos_vbz", "pos_wdt", "pos_wp", "pos_sym",
];

/// The longest prefix of a text that is tagged (a question is a sentence; a
/// longer text is tagged up to the last character boundary before this).
pub const MAX_TAGGED_BYTES: usize = 16 * 1024;

/// The tagger, its lexicon read once.
fn tagger() -> &'static Tagger {
    static TAGGER: OnceLock<Tagger> = OnceLock::new();
    TAGGER.get_or_init(Tagger::new)
}

/// Starts reading the tagger's lexicon on another thread, so that it is
/// ready when the first question is tagged (about 0.1 s of work).
pub fn warm() {
    std::thread::spawn(|| {
        tagger();
    });
}

/// The tag of [`TAGS`] by its feature name (`pos_nn` → `NN`).
pub fn tag_of_feature(name: &str) -> Option<&'static str> {
    FEATURES.iter().position(|f| *f == name).map(|i| TAGS[i])
}

/// The tokens without the possessive marker `'s` (or `’s`), which the
/// tagger's lexer splits into an apostrophe and an `s` it then tags as a
/// pronoun: the marker's tag (`POS`) is none of [`TAGS`].
fn without_possessives(tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        if (t == "'" || t == "\u{2019}") && iter.peek().is_some_and(|n| n == "s") && !out.is_empty()
        {
            iter.next();
            continue;
        }
        out.push(t);
    }
    out
}

/// The tags of [`TAGS`] that occur in `text`, in that order.
pub fn flags(text: &str) -> Vec<&'static str> {
    let mut end = text.len().min(MAX_TAGGED_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let tokens = without_possessives(Lexer::new().lex(&text[..end]));
    let tagged = tagger().tag(&tokens);
    TAGS.iter()
        .copied()
        .filter(|t| tagged.iter().any(|(_, tag)| tag == t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_has_its_tags() {
        // tagged Who/WP killed/VBN Caesar/NNP ?/.
        assert_eq!(flags("Who killed Caesar?"), ["NNP", "VBN", "WP"]);
        assert_eq!(
            flags("Which European countries have a constitutional monarchy?"),
            ["JJ", "NN", "NNS", "VBP", "WDT"]
        );
        assert!(flags("").is_empty());
        // the possessive is no pronoun, with either apostrophe
        for text in [
            "What is Angela Merkel’s birth name?",
            "What is Angela Merkel's birth name?",
        ] {
            assert_eq!(flags(text), ["NN", "NNP", "VBZ", "WP"], "{text}");
        }
    }

    #[test]
    fn a_long_text_is_tagged_up_to_the_bound() {
        let long = "é".repeat(MAX_TAGGED_BYTES);
        let _ = flags(&long);
        assert_eq!(tag_of_feature("pos_wdt"), Some("WDT"));
        assert_eq!(tag_of_feature("wdt"), None);
        assert_eq!(FEATURES.len(), TAGS.len());
        for (f, t) in FEATURES.iter().zip(TAGS) {
            assert_eq!(f.strip_prefix("pos_"), Some(t.to_lowercase().as_str()));
        }
    }
}
