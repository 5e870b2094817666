//! The shape of a language tag (BCP 47), which a host's `lang=` must have:
//! a file of its own, importing nothing, so that `evaluate`'s typed options
//! and the other commands' arguments both check it.

/// Checks that `tag` has the shape of a BCP 47 language tag: a primary
/// language subtag of 2 or 3 letters, then subtags of 1 to 8 letters or
/// digits, separated by `-` (`en`, `pt-BR`, `zh-Hant-TW`, `de-CH-1996`);
/// why not, when it has not (`english`, `en_US`, `e`).
pub fn language(tag: &str) -> Result<(), NotALanguage> {
    let mut subtags = tag.split('-');
    let primary = subtags.next().unwrap_or_default();
    let why = if !(2..=3).contains(&primary.len())
        || !primary.chars().all(|c| c.is_ascii_alphabetic())
    {
        "not a language tag: its first part must be a language code of 2 or 3 letters (en, de, pt-BR)"
    } else if subtags
        .any(|s| !(1..=8).contains(&s.len()) || !s.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        "not a language tag: the parts after the language code are 1 to 8 letters or digits, joined by \"-\" (pt-BR, zh-Hant)"
    } else {
        return Ok(());
    };
    Err(NotALanguage(why))
}

/// Why a text is not a language tag (its message says what the shape is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NotALanguage(&'static str);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_is_a_bcp47_tag() {
        for good in ["en", "de", "pt-BR", "zh-Hant-TW", "de-CH-1996", "ast"] {
            assert_eq!(language(good), Ok(()), "{good}");
        }
        for bad in ["english", "en_US", "e", "", "en-", "en-toolongsubtag", "1a"] {
            assert!(language(bad).is_err(), "{bad}");
        }
    }
}
