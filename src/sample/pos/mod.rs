//! The part-of-speech flags of a question (docs/features.md, "Part-of-speech
//! flags"): which of the 21 Penn Treebank tags QaldGen records occur in its
//! text. The tagger is written here: a Penn Treebank tokenizer (submodule
//! `tokenizer`) and an averaged perceptron (`perceptron`) whose weights
//! are those of textblob-aptagger 0.2.0 (Matthew Honnibal's model, MIT
//! licence; THIRD-PARTY-NOTICES.md), embedded as `perceptron.txt`. It agrees
//! with QaldGenData on 8,016 of the 8,253 flags of the 393 QALD-9 train
//! questions matched by text (97.1 %) and on 97.7 % of the flags of all its
//! 5,543 questions. The model is read once per process ([`warm`] starts that
//! early, on another thread); a text is tagged up to its first
//! [`MAX_TAGGED_BYTES`] bytes, as one sentence.

mod perceptron;
mod tokenizer;

use std::sync::OnceLock;

use perceptron::Model;

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

/// The tagger's model, read once.
fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        // the file is part of the source, and a unit test reads it whole
        Model::parse(perceptron::DATA).expect("the embedded part-of-speech model reads")
    })
}

/// Starts reading the tagger's model on another thread, so that it is ready
/// when the first question is tagged (a few tens of milliseconds of work).
pub fn warm() {
    std::thread::spawn(|| {
        model();
    });
}

/// The tag of [`TAGS`] by its feature name (`pos_nn` → `NN`).
pub fn tag_of_feature(name: &str) -> Option<&'static str> {
    FEATURES.iter().position(|f| *f == name).map(|i| TAGS[i])
}

/// The tags of [`TAGS`] that occur in `text`, in that order.
pub fn flags(text: &str) -> Vec<&'static str> {
    let mut end = text.len().min(MAX_TAGGED_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let tokens = tokenizer::tokens(&text[..end]);
    if tokens.is_empty() {
        return Vec::new();
    }
    let tagged = model().tag(&tokens);
    TAGS.iter()
        .copied()
        .filter(|t| tagged.contains(t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_has_its_tags() {
        // Who/WP killed/VBD Caesar/NNP ?/.
        assert_eq!(flags("Who killed Caesar?"), ["NNP", "VBD", "WP"]);
        // Which/WDT European/JJ countries/NNS have/VBP a/DT constitutional/JJ
        // monarchy/NN ?/.
        assert_eq!(
            flags("Which European countries have a constitutional monarchy?"),
            ["JJ", "NN", "NNS", "VBP", "WDT"]
        );
        // How/WRB many/JJ states/NNS does/VBZ Austria/NNP have/VB ?/.
        assert_eq!(
            flags("How many states does Austria have?"),
            ["JJ", "NNS", "NNP", "VB", "VBZ"]
        );
        assert!(flags("").is_empty());
        assert!(flags(" \n").is_empty());
        // the possessive 's is a token of its own (POS, none of TAGS), with
        // either apostrophe
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
        let words = "Who wrote it? ".repeat(MAX_TAGGED_BYTES / 8);
        assert_eq!(flags(&words), ["PRP", "VBD", "WP"]);
        assert_eq!(tag_of_feature("pos_wdt"), Some("WDT"));
        assert_eq!(tag_of_feature("wdt"), None);
        assert_eq!(FEATURES.len(), TAGS.len());
        for (f, t) in FEATURES.iter().zip(TAGS) {
            assert_eq!(f.strip_prefix("pos_"), Some(t.to_lowercase().as_str()));
        }
    }
}
