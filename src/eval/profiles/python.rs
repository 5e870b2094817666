//! Python's semantics where official scoring scripts rely on them: values as
//! a script holds them after `json.load` (`None`, `bool`, `int`, `float`,
//! `str`), their equality (`1 == 1.0 == True`), their `str()` (a float's
//! shortest repr, `True`, a list's repr), `str.split()` and `str.lower()`.
//! Its multiset intersection ([`common`]) pairs values one by one as
//! `Counter` does, within the work cap of every official profile
//! ([`MAX_TEXT_STEPS`]: past it, [`TooLarge`]).

use super::official::MAX_TEXT_STEPS;
use crate::model::Term;

/// Work past [`MAX_TEXT_STEPS`]: the question is scored 0 and counted as
/// `too_large` (docs/scoring.md, Limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// Checks a rule's steps, counted before it runs, against [`MAX_TEXT_STEPS`].
pub fn within_steps(steps: usize) -> Result<(), TooLarge> {
    if steps > MAX_TEXT_STEPS {
        Err(TooLarge)
    } else {
        Ok(())
    }
}

/// A JSON value as a Python script holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    /// `True` / `False` (equal to 1 / 0).
    Bool(bool),
    /// An `int` (those beyond i64 are read as floats).
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(String),
}

impl Py {
    /// The value of a term as a reader kept it: a boolean, an `xsd:integer`
    /// or `xsd:double` literal (a JSON number), a string; an IRI is the
    /// string of its local name after `namespace` when it has it, else the IRI.
    pub fn of(term: &Term, namespace: &str) -> Py {
        match term {
            Term::Boolean(b) => Py::Bool(*b),
            Term::Iri(iri) => Py::Str(iri.strip_prefix(namespace).unwrap_or(iri).to_string()),
            Term::Literal {
                lexical, datatype, ..
            } => match datatype.as_deref() {
                Some(d) if d.ends_with("#integer") => match lexical.parse::<i64>() {
                    Ok(i) => Py::Int(i),
                    Err(_) => lexical
                        .parse()
                        .map_or_else(|_| Py::Str(lexical.clone()), Py::Float),
                },
                Some(d) if d.ends_with("#double") => lexical
                    .parse()
                    .map_or_else(|_| Py::Str(lexical.clone()), Py::Float),
                _ => Py::Str(lexical.clone()),
            },
        }
    }

    /// The number of a numeric value (`bool` is an `int` in Python).
    fn number(&self) -> Option<f64> {
        match self {
            Py::Bool(b) => Some(f64::from(u8::from(*b))),
            Py::Int(i) => Some(*i as f64),
            Py::Float(f) => Some(*f),
            Py::Str(_) => None,
        }
    }

    /// `str(value)`.
    pub fn str(&self) -> String {
        match self {
            Py::Bool(true) => "True".into(),
            Py::Bool(false) => "False".into(),
            Py::Int(i) => i.to_string(),
            Py::Float(f) => float_repr(*f),
            Py::Str(s) => s.clone(),
        }
    }

    /// `repr(value)`, as inside a list's `str()`.
    pub fn repr(&self) -> String {
        match self {
            Py::Str(s) => str_repr(s),
            other => other.str(),
        }
    }
}

/// `a == b` in Python: numbers (and booleans) by value, strings exactly, a
/// string never equal to a number.
pub fn eq(a: &Py, b: &Py) -> bool {
    match (a, b) {
        (Py::Str(x), Py::Str(y)) => x == y,
        (Py::Int(x), Py::Int(y)) => x == y,
        (Py::Str(_), _) | (_, Py::Str(_)) => false,
        _ => a.number() == b.number(),
    }
}

/// `a == b` for two lists.
pub fn list_eq(a: &[Py], b: &[Py]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
}

/// `sum((Counter(a) & Counter(b)).values())`: the size of the multiset
/// intersection under Python equality; [`TooLarge`] when `|a|·|b|` (its
/// comparisons at most) is past [`MAX_TEXT_STEPS`].
pub fn common(a: &[Py], b: &[Py]) -> Result<usize, TooLarge> {
    within_steps(a.len().saturating_mul(b.len()))?;
    let mut used = vec![false; b.len()];
    let mut n = 0;
    for x in a {
        if let Some(k) = (0..b.len()).find(|&k| !used[k] && eq(x, &b[k])) {
            used[k] = true;
            n += 1;
        }
    }
    Ok(n)
}

/// `str(list)`: `['a', 1, True]`.
pub fn list_str(items: &[Py]) -> String {
    let inner: Vec<String> = items.iter().map(Py::repr).collect();
    format!("[{}]", inner.join(", "))
}

/// `repr(float)`: the shortest digits that read back, in fixed notation for
/// exponents from -4 to 15 (with `.0` when whole) and in scientific notation
/// (`1e+16`, `1.5e-05`) outside.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // Rust's {:e} gives the shortest round-trip digits: "-1.2345e-7"
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let e = if exp < 0 {
            format!("-{:02}", -exp)
        } else {
            format!("+{exp:02}")
        };
        format!("{sign}{m}e{e}")
    }
}

/// `repr(str)`: single quotes unless the text has a single quote and no
/// double one; backslashes, the quote, and `\n`, `\r`, `\t` escaped, other
/// control characters as `\xhh`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's whitespace (`str.isspace`): Unicode White_Space and the four
/// information separators U+001C–U+001F.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.split()`: runs of Python whitespace.
pub fn split(s: &str) -> Vec<&str> {
    s.split(is_space).filter(|t| !t.is_empty()).collect()
}

/// `str.strip()`: Python's whitespace at both ends.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        // python3 -c "print([repr(x) for x in [5.0, 0.1, 1e16, 1.5e-05, 123456.789, -0.0001, 2.5e-07, 1e22]])"
        // ['5.0', '0.1', '1e+16', '1.5e-05', '123456.789', '-0.0001', '2.5e-07', '1e+22']
        let got: Vec<String> = [5.0, 0.1, 1e16, 1.5e-05, 123456.789, -0.0001, 2.5e-07, 1e22]
            .into_iter()
            .map(float_repr)
            .collect();
        assert_eq!(
            got,
            [
                "5.0",
                "0.1",
                "1e+16",
                "1.5e-05",
                "123456.789",
                "-0.0001",
                "2.5e-07",
                "1e+22"
            ]
        );
        assert_eq!(float_repr(1234567890123456.0), "1234567890123456.0");
    }

    #[test]
    fn values_compare_and_print_as_python() {
        assert!(eq(&Py::Bool(true), &Py::Int(1)));
        assert!(eq(&Py::Int(5), &Py::Float(5.0)));
        assert!(!eq(&Py::Str("5".into()), &Py::Int(5)));
        // python3 -c "print(str(['Q1', 1, True, \"it's\"]))" -> ['Q1', 1, True, "it's"]
        let l = [
            Py::Str("Q1".into()),
            Py::Int(1),
            Py::Bool(true),
            Py::Str("it's".into()),
        ];
        assert_eq!(list_str(&l), "['Q1', 1, True, \"it's\"]");
        assert_eq!(common(&[Py::Int(1), Py::Int(1)], &[Py::Bool(true)]), Ok(1));
        assert_eq!(split(" a\u{1c}b  c\n"), ["a", "b", "c"]);
    }
}
