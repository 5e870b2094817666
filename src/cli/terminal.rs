//! Text from outside (an endpoint's error body, a run's answers, a file's
//! question texts) made safe for a terminal before the command line prints
//! it: every control character but the line feed and the tab — ESC (and so
//! every ANSI and OSC sequence: colours, cursor moves, OSC 52 clipboard
//! writes), BEL, the carriage return, DEL and the C1 controls — and the
//! Unicode bidirectional overrides are written as visible `\u{…}` escapes.
//! qajudge itself writes no escape sequence to stdout; its progress bars go
//! to stderr through `indicatif`.

use std::borrow::Cow;

/// True for a character a terminal could act on rather than show.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character a terminal could act on written as a
/// visible escape (`\u{1b}`); borrowed when there is none.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_bells_and_osc_sequences_and_keeps_lines() {
        let hostile =
            "endpoint answered http 500: \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J boom\r\nnext\tline";
        let safe = printable(hostile);
        assert!(
            !safe.contains('\u{1b}') && !safe.contains('\u{7}') && !safe.contains('\r'),
            "{safe}"
        );
        assert!(safe.contains("\\u{1b}]52;c;ZXZpbA==\\u{7}"), "{safe}");
        assert!(safe.contains("\nnext\tline"));
        assert!(matches!(printable("plain, ünïcode"), Cow::Borrowed(_)));
        assert_eq!(printable("a\u{202e}b"), "a\\u{202e}b");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
    }
}
