//! NLTK 3.10.4's Porter stemmer (`nltk.stem.porter.PorterStemmer` in its
//! default mode, NLTK_EXTENSIONS, with `stem(word, to_lowercase=True)`), the
//! stemmer METEOR's stem stage uses in T2S-Metrics (docs/scoring.md, The
//! `t2s-metrics` profile). It is Porter's 1980 algorithm with Martin Porter's
//! later changes and NLTK's own: a pool of irregular forms, words of at most
//! two characters left alone, `ies`/`ied` kept as `ie` on four-letter words,
//! `y -> i` only after a consonant, `alli`, `fulli` and `logi` in step 2, and
//! the two-letter `*o`. Words are handled as Python handles them, by Unicode
//! code point: only `a e i o u` (and `y` after a consonant) are vowels, every
//! other character, digits, punctuation and non-ASCII letters included, is a
//! consonant.

/// A condition on the stem a suffix rule leaves.
type Cond<'a> = &'a dyn Fn(&[char]) -> bool;

/// For each position of `w`, whether it is a consonant (NLTK's
/// `_consonant_flags`): not `a e i o u`, and for `y` only when the letter
/// before it is not a consonant (or it starts the word).
fn consonant_flags(w: &[char]) -> Vec<bool> {
    let mut flags: Vec<bool> = Vec::with_capacity(w.len());
    for &c in w {
        let flag = match c {
            'a' | 'e' | 'i' | 'o' | 'u' => false,
            'y' => !flags.last().copied().unwrap_or(false),
            _ => true,
        };
        flags.push(flag);
    }
    flags
}

/// Whether `w[i]` is a consonant (NLTK's `_is_consonant`, which agrees with
/// [`consonant_flags`]); `i` must be a position of `w`.
fn is_consonant(w: &[char], i: usize) -> bool {
    consonant_flags(&w[..=i])[i]
}

/// Porter's measure `m` of `w` in `[C](VC){m}[V]`: the number of vowels
/// followed by a consonant.
fn measure(w: &[char]) -> usize {
    let flags = consonant_flags(w);
    flags.windows(2).filter(|p| !p[0] && p[1]).count()
}

/// Porter's `*v*`: `w` has a vowel.
fn contains_vowel(w: &[char]) -> bool {
    consonant_flags(w).contains(&false)
}

/// Porter's `*d`: `w` ends in a doubled consonant.
fn ends_double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// Porter's `*o`: `w` ends consonant-vowel-consonant, the last not `w`, `x`
/// or `y`; NLTK adds a two-letter word vowel-consonant.
fn ends_cvc(w: &[char]) -> bool {
    let n = w.len();
    (n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], 'w' | 'x' | 'y'))
        || (n == 2 && !is_consonant(w, 0) && is_consonant(w, 1))
}

/// Whether `w` ends with the characters of `suffix`.
fn ends_with(w: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    n <= w.len() && w[w.len() - n..].iter().copied().eq(suffix.chars())
}

/// `w` without its last `n` characters (`n` at most its length).
fn cut(w: &[char], n: usize) -> &[char] {
    &w[..w.len() - n]
}

/// `stem` followed by `tail`.
fn join(stem: &[char], tail: &str) -> Vec<char> {
    stem.iter().copied().chain(tail.chars()).collect()
}

/// NLTK's `_apply_rule_list`: the first rule whose suffix `word` ends with
/// decides. If its condition holds on the rest, that rest plus the
/// replacement is the result, otherwise `word` unchanged. The suffix `*d`
/// stands for a doubled consonant (both letters go); on a word without one it
/// is compared literally, as NLTK does.
fn apply_rules(word: Vec<char>, rules: &[(&str, &str, Cond)]) -> Vec<char> {
    for &(suffix, replacement, cond) in rules {
        let stem = if suffix == "*d" && ends_double_consonant(&word) {
            cut(&word, 2)
        } else if ends_with(&word, suffix) {
            cut(&word, suffix.chars().count())
        } else {
            continue;
        };
        if cond(stem) {
            return join(stem, replacement);
        }
        return word;
    }
    word
}

fn always(_: &[char]) -> bool {
    true
}

fn positive_measure(w: &[char]) -> bool {
    measure(w) > 0
}

fn measure_gt_1(w: &[char]) -> bool {
    measure(w) > 1
}

fn step1a(word: Vec<char>) -> Vec<char> {
    if word.len() == 4 && ends_with(&word, "ies") {
        return join(cut(&word, 3), "ie");
    }
    let rules: [(&str, &str, Cond); 4] = [
        ("sses", "ss", &always),
        ("ies", "i", &always),
        ("ss", "ss", &always),
        ("s", "", &always),
    ];
    apply_rules(word, &rules)
}

fn step1b(word: Vec<char>) -> Vec<char> {
    if ends_with(&word, "ied") {
        let tail = if word.len() == 4 { "ie" } else { "i" };
        return join(cut(&word, 3), tail);
    }
    if ends_with(&word, "eed") {
        let stem = cut(&word, 3);
        return if measure(stem) > 0 {
            join(stem, "ee")
        } else {
            word
        };
    }
    // `ed` or `ing`, only when what it leaves has a vowel.
    let stem = ["ed", "ing"]
        .into_iter()
        .filter(|s| ends_with(&word, s))
        .map(|s| cut(&word, s.chars().count()))
        .find(|stem| contains_vowel(stem));
    let Some(stem) = stem else {
        return word;
    };
    // A stem with a vowel is not empty; the `*d` replacement is its last
    // letter, and its condition looks at that letter whichever way `*d`
    // matched.
    let last = stem.last().copied().unwrap_or_default();
    let single = last.to_string();
    let not_lsz = |_: &[char]| !matches!(last, 'l' | 's' | 'z');
    let short_cvc = |s: &[char]| measure(s) == 1 && ends_cvc(s);
    let rules: [(&str, &str, Cond); 5] = [
        ("at", "ate", &always),
        ("bl", "ble", &always),
        ("iz", "ize", &always),
        ("*d", single.as_str(), &not_lsz),
        ("", "e", &short_cvc),
    ];
    apply_rules(stem.to_vec(), &rules)
}

fn step1c(word: Vec<char>) -> Vec<char> {
    let after_consonant = |s: &[char]| s.len() > 1 && is_consonant(s, s.len() - 1);
    apply_rules(word, &[("y", "i", &after_consonant)])
}

fn step2(word: Vec<char>) -> Vec<char> {
    // NLTK applies `alli -> al` first and runs step 2 again on the result,
    // which ends in `al` and so cannot take this branch twice.
    if ends_with(&word, "alli") && positive_measure(cut(&word, 4)) {
        return step2(join(cut(&word, 4), "al"));
    }
    // `logi -> log` keeps the `l` with the stem: the measure is of `word[:-3]`.
    let logi_stem_positive = positive_measure(cut(&word, 3.min(word.len())));
    let logi = |_: &[char]| logi_stem_positive;
    let p: Cond = &positive_measure;
    let rules: [(&str, &str, Cond); 22] = [
        ("ational", "ate", p),
        ("tional", "tion", p),
        ("enci", "ence", p),
        ("anci", "ance", p),
        ("izer", "ize", p),
        ("bli", "ble", p),
        ("alli", "al", p),
        ("entli", "ent", p),
        ("eli", "e", p),
        ("ousli", "ous", p),
        ("ization", "ize", p),
        ("ation", "ate", p),
        ("ator", "ate", p),
        ("alism", "al", p),
        ("iveness", "ive", p),
        ("fulness", "ful", p),
        ("ousness", "ous", p),
        ("aliti", "al", p),
        ("iviti", "ive", p),
        ("biliti", "ble", p),
        ("fulli", "ful", p),
        ("logi", "log", &logi),
    ];
    apply_rules(word, &rules)
}

fn step3(word: Vec<char>) -> Vec<char> {
    let p: Cond = &positive_measure;
    let rules: [(&str, &str, Cond); 7] = [
        ("icate", "ic", p),
        ("ative", "", p),
        ("alize", "al", p),
        ("iciti", "ic", p),
        ("ical", "ic", p),
        ("ful", "", p),
        ("ness", "", p),
    ];
    apply_rules(word, &rules)
}

fn step4(word: Vec<char>) -> Vec<char> {
    let m: Cond = &measure_gt_1;
    // m > 1 needs a vowel and a consonant, so the stem is not empty.
    let s_or_t = |s: &[char]| measure(s) > 1 && matches!(s.last(), Some('s' | 't'));
    let rules: [(&str, &str, Cond); 19] = [
        ("al", "", m),
        ("ance", "", m),
        ("ence", "", m),
        ("er", "", m),
        ("ic", "", m),
        ("able", "", m),
        ("ible", "", m),
        ("ant", "", m),
        ("ement", "", m),
        ("ment", "", m),
        ("ent", "", m),
        ("ion", "", &s_or_t),
        ("ou", "", m),
        ("ism", "", m),
        ("ate", "", m),
        ("iti", "", m),
        ("ous", "", m),
        ("ive", "", m),
        ("ize", "", m),
    ];
    apply_rules(word, &rules)
}

/// Step 5a tries both of its rules on a final `e` (m > 1, then m = 1 and not
/// `*o`), unlike [`apply_rules`].
fn step5a(word: Vec<char>) -> Vec<char> {
    if ends_with(&word, "e") {
        let stem = cut(&word, 1);
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            return stem.to_vec();
        }
    }
    word
}

fn step5b(word: Vec<char>) -> Vec<char> {
    // The measure is of `word[:-1]`, the stem with one `l` back.
    let long = measure(cut(&word, 1.min(word.len()))) > 1;
    let cond = |_: &[char]| long;
    apply_rules(word, &[("ll", "l", &cond)])
}

/// NLTK's irregular forms: the stem of a word (already lowercased) that the
/// rules would get wrong.
fn irregular(word: &str) -> Option<&'static str> {
    Some(match word {
        "sky" | "skies" => "sky",
        "dying" => "die",
        "lying" => "lie",
        "tying" => "tie",
        "news" => "news",
        "innings" | "inning" => "inning",
        "outings" | "outing" => "outing",
        "cannings" | "canning" => "canning",
        "howe" => "howe",
        "proceed" => "proceed",
        "exceed" => "exceed",
        "succeed" => "succeed",
        _ => return None,
    })
}

/// The stem NLTK's `PorterStemmer().stem(word)` gives: `word` lowercased
/// (as Python's `str.lower()`), then an irregular form's stem, or the
/// lowercased word itself when `word` has at most two code points (counted
/// before lowercasing, so `"İs"` stays `"i̇s"` although that is three), or
/// else the result of steps 1a to 5b. Any string is accepted, the empty one
/// included.
pub fn stem(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some(fixed) = irregular(&lower) {
        return fixed.to_owned();
    }
    if word.chars().count() <= 2 {
        return lower;
    }
    let mut w: Vec<char> = lower.chars().collect();
    for step in [step1a, step1b, step1c, step2, step3, step4, step5a, step5b] {
        w = step(w);
    }
    w.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::stem;

    /// Every word of tests/data/t2s-metrics/porter.tsv (made by porter.sh
    /// with NLTK 3.10.4) stems as NLTK stems it.
    #[test]
    fn matches_nltk_fixture() {
        let fixture = include_str!("../../../tests/data/t2s-metrics/porter.tsv");
        let mut count = 0;
        let mut mismatches = Vec::new();
        for line in fixture.lines() {
            let (word, expected) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("fixture line without a tab: {line:?}"));
            count += 1;
            let got = stem(word);
            if got != expected {
                mismatches.push(format!("{word:?}: nltk {expected:?}, ours {got:?}"));
            }
        }
        assert!(count > 10_000, "fixture has only {count} words");
        assert!(
            mismatches.is_empty(),
            "{} of {count} words differ, first ones:\n{}",
            mismatches.len(),
            mismatches[..mismatches.len().min(20)].join("\n")
        );
    }

    #[test]
    fn notable_cases() {
        // The pool of irregular forms, looked up after lowercasing.
        assert_eq!(stem("SKIES"), "sky");
        assert_eq!(stem("dying"), "die");
        // Two code points or fewer are only lowercased, counted before
        // lowercasing: "İs" lowercases to three code points.
        assert_eq!(stem("As"), "as");
        assert_eq!(stem("İs"), "i\u{307}s");
        assert_eq!(stem(""), "");
        // Four-letter `ies`/`ied` keep `ie`; longer ones become `i`.
        assert_eq!(stem("ties"), "tie");
        assert_eq!(stem("died"), "die");
        assert_eq!(stem("spied"), "spi");
        // `*d` drops one of a doubled consonant unless it is l, s or z.
        assert_eq!(stem("hopping"), "hop");
        assert_eq!(stem("falling"), "fall");
        // NLTK's `*d` is also matched literally: "a*ded" -> "a*d" -> "a" + "d".
        assert_eq!(stem("a*ded"), "ad");
        // `y -> i` only after a consonant that is not the whole stem.
        assert_eq!(stem("happy"), "happi");
        assert_eq!(stem("enjoy"), "enjoy");
        assert_eq!(stem("spy"), "spi");
        // `alli -> al`, then step 2 again: "generalli" -> "general" -> "gener".
        assert_eq!(stem("generalli"), "gener");
        // `logi` measures `word[:-3]`, keeping the `l`.
        assert_eq!(stem("geologi"), "geolog");
        // Step 5b measures the stem with one `l` back.
        assert_eq!(stem("controll"), "control");
        assert_eq!(stem("roll"), "roll");
        // Non-ASCII letters are consonants: "écol" ends cvc with m = 1, so
        // step 5a keeps the `e`. Digits are consonants too.
        assert_eq!(stem("ÉCOLES"), "école");
        assert_eq!(stem("123"), "123");
    }
}
