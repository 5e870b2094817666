//! The tokenizer of the part-of-speech tagger: it splits a question into the
//! tokens the perceptron was trained on, in the Penn Treebank's conventions
//! (much as NLTK's `word_tokenize` does): words at whitespace; punctuation off the
//! ends of words (a double quote becomes ``` `` ``` or `''`); a sentence's
//! final period, but not an abbreviation's (`U.S.`, `Mr.`) inside the text;
//! the clitics `'s`, `n't`, `'re`, `'ve`, `'ll`, `'m`, `'d` off their words
//! (`Merkel's` → `Merkel` `'s`, `can't` → `ca` `n't`); `$` and `#` before a
//! number, `%` after it; commas inside a word unless between digits (`1,000`).
//! Typographic apostrophes and quotes are read as ASCII ones first.

/// Punctuation split off the start of a word.
const OPENING: [char; 6] = ['(', '[', '{', '"', '\'', '`'];

/// Punctuation split off the end of a word.
const CLOSING: [char; 11] = [')', ']', '}', '"', '\'', ',', ';', ':', '?', '!', '.'];

/// The clitics split off the end of a word, in lower case.
const CLITICS: [&str; 7] = ["n't", "'s", "'m", "'d", "'ll", "'re", "'ve"];

/// Abbreviations whose period stays on the word inside a text (lower case,
/// without the period); a single letter (an initial) and a word with a
/// period inside (`U.S`, `e.g`) keep theirs too.
const ABBREVIATIONS: [&str; 37] = [
    "apr", "aug", "capt", "co", "col", "corp", "dec", "dr", "feb", "ft", "gen", "gov", "inc",
    "jan", "jr", "jul", "jun", "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nov", "oct",
    "prof", "rep", "rev", "sen", "sep", "sept", "sgt", "sr", "st", "vs",
];

/// The ASCII form of a typographic apostrophe or quote, else the character.
fn ascii_quote(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' => '"',
        other => other,
    }
}

/// The token of a punctuation mark: a double quote is ``` `` ``` opening and
/// `''` closing, as in the treebank.
fn mark(c: char, opening: bool) -> String {
    match (c, opening) {
        ('"', true) => "``".to_string(),
        ('"', false) => "''".to_string(),
        _ => c.to_string(),
    }
}

/// Whether `s` is a clitic on its own (`'s`, `'ll`, …).
fn is_clitic(s: &str) -> bool {
    CLITICS.iter().any(|c| s.eq_ignore_ascii_case(c))
}

/// Whether the period after `body` belongs to it (an abbreviation) rather
/// than ending the sentence. At the end of the text only a word with a
/// period inside keeps it (`U.S.`), and a sentence period follows it.
fn keeps_period(body: &str, last: bool) -> bool {
    if body.is_empty() {
        return false;
    }
    if body.contains('.') {
        return true;
    }
    if last {
        return false;
    }
    let mut chars = body.chars();
    let initial = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic());
    initial || ABBREVIATIONS.iter().any(|a| body.eq_ignore_ascii_case(a))
}

/// The tokens of `text`, in order (see the module doc).
pub(super) fn tokens(text: &str) -> Vec<String> {
    let text: String = text.chars().map(ascii_quote).collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::with_capacity(words.len() + 2);
    for (i, word) in words.iter().enumerate() {
        split_word(word, i + 1 == words.len(), &mut out);
    }
    out
}

/// Splits one whitespace-separated word: its opening and closing
/// punctuation, then its core ([`split_core`]).
fn split_word(word: &str, last: bool, out: &mut Vec<String>) {
    let mut core = word;
    while let Some(c) = core.chars().next() {
        if !OPENING.contains(&c) || is_clitic(core) {
            break;
        }
        out.push(mark(c, true));
        core = &core[c.len_utf8()..];
    }
    let mut closing: Vec<String> = Vec::new();
    while let Some(c) = core.chars().next_back() {
        if !CLOSING.contains(&c) {
            break;
        }
        let body = &core[..core.len() - c.len_utf8()];
        if c == '.' {
            if let Some(before) = body.strip_suffix("..") {
                closing.push("...".to_string());
                core = before;
                continue;
            }
            if keeps_period(body, last) {
                // "… of which U.S." ends with a sentence period too
                if last && closing.is_empty() {
                    closing.push(".".to_string());
                }
                break;
            }
        }
        closing.push(mark(c, false));
        core = body;
    }
    if !core.is_empty() {
        split_core(core, out);
    }
    out.extend(closing.into_iter().rev());
}

/// Splits a word without its outer punctuation: a leading `$` or `#`, a
/// trailing `%`, commas not between digits, and a clitic at the end of each
/// piece.
fn split_core(core: &str, out: &mut Vec<String>) {
    let mut core = core;
    if let Some(c @ ('$' | '#')) = core.chars().next() {
        if core.len() > 1 {
            out.push(c.to_string());
            core = &core[1..];
        }
    }
    let percent = core.len() > 1 && core.ends_with('%');
    if percent {
        core = &core[..core.len() - 1];
    }
    let bytes = core.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let between_digits = i > 0
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
            && bytes[i - 1].is_ascii_digit();
        if b == b',' && !between_digits {
            split_clitic(&core[start..i], out);
            out.push(",".to_string());
            start = i + 1;
        }
    }
    split_clitic(&core[start..], out);
    if percent {
        out.push("%".to_string());
    }
}

/// Pushes `piece` (if not empty), its clitic split off the end
/// (`cannot` → `can` `not`).
fn split_clitic(piece: &str, out: &mut Vec<String>) {
    if piece.is_empty() {
        return;
    }
    let split = CLITICS
        .iter()
        .find_map(|c| {
            let at = piece.len().checked_sub(c.len())?;
            let ends = at > 0 && piece.is_char_boundary(at) && piece[at..].eq_ignore_ascii_case(c);
            ends.then_some(at)
        })
        .or_else(|| piece.eq_ignore_ascii_case("cannot").then_some(3));
    match split {
        Some(at) => {
            out.push(piece[..at].to_string());
            out.push(piece[at..].to_string());
        }
        None => out.push(piece.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Vec<String> {
        tokens(text)
    }

    #[test]
    fn punctuation_and_clitics_are_tokens() {
        assert_eq!(t("Who killed Caesar?"), ["Who", "killed", "Caesar", "?"]);
        assert_eq!(
            t("What is Angela Merkel’s birth name?"),
            ["What", "is", "Angela", "Merkel", "'s", "birth", "name", "?"]
        );
        assert_eq!(
            t("List \"The Sopranos\" episodes (all), players' cars can't go"),
            [
                "List", "``", "The", "Sopranos", "''", "episodes", "(", "all", ")", ",", "players",
                "'", "cars", "ca", "n't", "go"
            ]
        );
        assert_eq!(t("I cannot, we'll"), ["I", "can", "not", ",", "we", "'ll"]);
        assert_eq!(t("'s"), ["'s"]);
        assert!(t("").is_empty() && t(" \t ").is_empty());
    }

    #[test]
    fn periods_of_abbreviations_stay() {
        assert_eq!(
            t("Which U.S. state has Mr. Smith as J. Doe's governor."),
            [
                "Which", "U.S.", "state", "has", "Mr.", "Smith", "as", "J.", "Doe", "'s",
                "governor", "."
            ]
        );
        assert_eq!(
            t("the governor of which U.S."),
            ["the", "governor", "of", "which", "U.S.", "."]
        );
        assert_eq!(t("born in the U.S.?"), ["born", "in", "the", "U.S.", "?"]);
        assert_eq!(
            t("Give me all films. Sort them"),
            ["Give", "me", "all", "films", ".", "Sort", "them"]
        );
        assert_eq!(t("wait... no"), ["wait", "...", "no"]);
    }

    #[test]
    fn numbers_keep_their_commas() {
        assert_eq!(
            t("5% of $100, 1,000 or #1 in Rosemont,Illinois"),
            [
                "5", "%", "of", "$", "100", ",", "1,000", "or", "#", "1", "in", "Rosemont", ",",
                "Illinois"
            ]
        );
        // non-ASCII letters are kept whole
        assert_eq!(
            t("Gödel’s café, naïve."),
            ["Gödel", "'s", "café", ",", "naïve", "."]
        );
    }
}
