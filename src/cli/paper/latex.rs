//! Text as ASCII LaTeX for the paper tables: the special characters
//! escaped, and every character outside ASCII as LaTeX's own command for it
//! (accents over their base, `ß`, `ø` and the like by name, Greek letters and
//! arrows in math, dashes and quotes as ligatures), or as its code point in
//! typewriter type when LaTeX has none without a package (CJK, Cyrillic), so
//! that a table compiles with pdflatex under any input encoding.

use std::fmt::Write;

/// Text as ASCII LaTeX: its special characters escaped, every other
/// character as the command that writes it (see the module).
pub(super) fn latex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        latex_char(c, &mut out);
    }
    out
}

/// One character as ASCII LaTeX, appended to `out`.
fn latex_char(c: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\textbackslash{}"),
        '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
            out.push('\\');
            out.push(c);
        }
        '~' => out.push_str("\\textasciitilde{}"),
        '|' => out.push_str("\\textbar{}"),
        '<' => out.push_str("\\textless{}"),
        '>' => out.push_str("\\textgreater{}"),
        '^' => out.push_str("\\textasciicircum{}"),
        c if c.is_ascii() => out.push(c),
        c => {
            if let Some(named) = latex_named(c) {
                out.push_str(named);
            } else if let Some(greek) = latex_greek(c) {
                let _ = write!(out, "$\\{greek}$");
            } else if !latex_accented(c, out) {
                let _ = write!(out, "\\texttt{{U+{:04X}}}", u32::from(c));
            }
        }
    }
}

/// The text-mode command of a letter or sign that has one in LaTeX without a
/// package (OT1 fonts).
fn latex_named(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "{\\ss}",
        'æ' => "{\\ae}",
        'Æ' => "{\\AE}",
        'œ' => "{\\oe}",
        'Œ' => "{\\OE}",
        'ø' => "{\\o}",
        'Ø' => "{\\O}",
        'å' => "{\\aa}",
        'Å' => "{\\AA}",
        'ł' => "{\\l}",
        'Ł' => "{\\L}",
        'ı' => "{\\i}",
        '¡' => "{\\textexclamdown}",
        '¿' => "{\\textquestiondown}",
        '£' => "{\\pounds}",
        '§' => "{\\S}",
        '¶' => "{\\P}",
        '©' => "{\\copyright}",
        '†' => "{\\dag}",
        '‡' => "{\\ddag}",
        '…' => "{\\dots}",
        '–' => "--",
        '—' => "---",
        '‘' => "`",
        '’' => "'",
        '“' => "``",
        '”' => "''",
        '\u{a0}' => "~",
        '°' => "$^\\circ$",
        '±' => "$\\pm$",
        '×' => "$\\times$",
        '÷' => "$\\div$",
        '·' => "$\\cdot$",
        '≤' => "$\\leq$",
        '≥' => "$\\geq$",
        '≠' => "$\\neq$",
        '→' => "$\\rightarrow$",
        '←' => "$\\leftarrow$",
        '↑' => "$\\uparrow$",
        '↓' => "$\\downarrow$",
        '∞' => "$\\infty$",
        '€' => "EUR",
        _ => return None,
    })
}

/// The math command of a Greek letter (`Ω`: `Omega`; the capitals that look
/// Latin as `mathrm`'s Latin letter).
fn latex_greek(c: char) -> Option<&'static str> {
    // U+03B1 to U+03C9, and U+0391 to U+03A9 (U+03A2 is unassigned)
    const LOWER: [&str; 25] = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "mathrm{o}",
        "pi",
        "rho",
        "varsigma",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
    ];
    const UPPER: [&str; 25] = [
        "mathrm{A}",
        "mathrm{B}",
        "Gamma",
        "Delta",
        "mathrm{E}",
        "mathrm{Z}",
        "mathrm{H}",
        "Theta",
        "mathrm{I}",
        "mathrm{K}",
        "Lambda",
        "mathrm{M}",
        "mathrm{N}",
        "Xi",
        "mathrm{O}",
        "Pi",
        "mathrm{P}",
        "",
        "Sigma",
        "mathrm{T}",
        "Upsilon",
        "Phi",
        "mathrm{X}",
        "Psi",
        "Omega",
    ];
    let (table, first) = match c {
        'α'..='ω' => (&LOWER, 'α'),
        'Α'..='Ω' => (&UPPER, 'Α'),
        _ => return None,
    };
    let name = table[(u32::from(c) - u32::from(first)) as usize];
    (!name.is_empty()).then_some(name)
}

/// A Latin letter with accents LaTeX puts over (or under) any letter without a
/// package, written as those accents around its base (`ä`: `\"{a}`, `ǘ`:
/// `\'{\"{u}}`); false when `c` is not such a letter.
fn latex_accented(c: char, out: &mut String) -> bool {
    let decomposed = crate::terms::literal::nfd(&c.to_string());
    let mut chars = decomposed.chars();
    let Some(base) = chars.next().filter(char::is_ascii_alphabetic) else {
        return false;
    };
    let accents: Option<Vec<&str>> = chars
        .map(|mark| {
            Some(match mark {
                '\u{300}' => "`",
                '\u{301}' => "'",
                '\u{302}' => "^",
                '\u{303}' => "~",
                '\u{304}' => "=",
                '\u{306}' => "u",
                '\u{307}' => ".",
                '\u{308}' => "\"",
                '\u{30a}' => "r",
                '\u{30b}' => "H",
                '\u{30c}' => "v",
                '\u{323}' => "d",
                '\u{327}' => "c",
                '\u{331}' => "b",
                _ => return None,
            })
        })
        .collect();
    let Some(accents) = accents.filter(|a| !a.is_empty()) else {
        return false;
    };
    // an accent over i or j sits on the dotless letter
    let above = accents.iter().any(|a| !matches!(*a, "d" | "c" | "b"));
    let base = match base {
        'i' if above => "{\\i}".to_string(),
        'j' if above => "{\\j}".to_string(),
        b => b.to_string(),
    };
    let mut written = base;
    for accent in accents {
        written = format!("\\{accent}{{{written}}}");
    }
    out.push_str(&written);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_specials_are_escaped() {
        assert_eq!(
            latex_escape("a_b & 50% $x #1 {y} ~ ^ \\"),
            "a\\_b \\& 50\\% \\$x \\#1 \\{y\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
        );
    }

    #[test]
    fn names_outside_ascii_are_latex_commands() {
        assert_eq!(latex_escape("Müller"), "M\\\"{u}ller");
        assert_eq!(latex_escape("Ωmega"), "$\\Omega$mega");
        assert_eq!(
            latex_escape("αβξοπω"),
            "$\\alpha$$\\beta$$\\xi$$\\mathrm{o}$$\\pi$$\\omega$"
        );
        assert_eq!(
            latex_escape("ΑΓΠΣ"),
            "$\\mathrm{A}$$\\Gamma$$\\Pi$$\\Sigma$"
        );
        assert_eq!(latex_escape("ïç ǘ"), "\\\"{{\\i}}\\c{c} \\'{\\\"{u}}");
        assert_eq!(latex_escape("Straße–Ø"), "Stra{\\ss}e--{\\O}");
        assert_eq!(latex_escape("日本"), "\\texttt{U+65E5}\\texttt{U+672C}");
        assert_eq!(latex_escape("↑ ↓ ≤"), "$\\uparrow$ $\\downarrow$ $\\leq$");
        assert!(latex_escape("Ωä日本ñ—…").is_ascii());
    }
}
