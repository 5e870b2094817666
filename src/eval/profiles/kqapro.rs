//! The `kqapro` profile: reproduces KQA Pro's official evaluation
//! (shijx12/KQAPro_Baselines @ 14d87cd, `evaluate.py`, read in its code;
//! docs/scoring.md, The `kqapro` profile): accuracy over single-string answers
//! compared by its `whether_equal` (numbers near an integer read as that
//! integer, a date equal to its year), overall and per category of the gold
//! program's functions. P/R/F1 beside it compare the answer strings exactly.

use super::python::float_repr;
use super::qa_only::QaOnly;
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::model::{Question, Term};
use crate::qald::TrainAnswers;

/// The flag the KQA Pro reader keeps the program's function names in.
const FUNCTIONS: &str = "functions";

/// The rules of the `kqapro` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kqapro;

/// The rules of the profile: QA only ([`QaOnly`]). Exact strings: the official figure compares them with `whether_equal` apart; micro measures are ours, beside it.
pub static RULES: QaOnly = QaOnly {
    judge_terms: false,
    reports_micro: true,
    official: &Kqapro,
};

/// The script this profile follows.
const SCRIPT: &str =
    "KQA Pro's evaluation (shijx12/KQAPro_Baselines @ 14d87cd22eb7, evaluate.py, whether_equal)";

/// The script's categories, in its print order, each with the function names
/// that put a question in it (`overall` holds every question).
const CATEGORIES: &[(&str, &[&str])] = &[
    ("multihop", &["Relate"]),
    (
        "qualifier",
        &[
            "QFilterStr",
            "QFilterNum",
            "QFilterYear",
            "QFilterDate",
            "QueryAttrUnderCondition",
            "QueryAttrQualifier",
            "QueryRelationQualifier",
        ],
    ),
    ("comparison", &["SelectBetween", "SelectAmong"]),
    ("logical", &["And", "Or"]),
    ("count", &["Count"]),
    (
        "verify",
        &["VerifyStr", "VerifyNum", "VerifyYear", "VerifyDate"],
    ),
];

/// True when the gold question's answer is in no training record, as the
/// script's `answer not in train_answer_set` (a gold without an answer is
/// Python's `None`, in the set only when a training answer is `null`).
fn zero_shot(train: &TrainAnswers, gold: &Question) -> bool {
    match answer_text(gold) {
        Some(a) => !train.strings.contains(a),
        None => !train.null,
    }
}

/// The first answer's string, as the script reads a line or `answer`.
fn answer_text(q: &Question) -> Option<&str> {
    match q.answers.as_ref()?.answers.first()?.terms.first()? {
        Term::Literal { lexical, .. } | Term::Iri(lexical) => Some(lexical),
        Term::Boolean(true) => Some("true"),
        Term::Boolean(false) => Some("false"),
    }
}

/// Python's `int(text)`: optional sign, ASCII digits with single underscores
/// between them, surrounding whitespace allowed.
fn py_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    let clean = underscores(digits)?;
    if clean.is_empty() || !clean.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    clean.parse::<i64>().ok().map(|v| sign * v)
}

/// The text with its underscores removed when each stands between two digits
/// (Python's rule for numbers), else `None`.
fn underscores(text: &str) -> Option<String> {
    let b = text.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'_'
            && !(i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit())
        {
            return None;
        }
    }
    Some(text.replace('_', ""))
}

/// Python's `float(token)`.
fn py_float(token: &str) -> Option<f64> {
    underscores(token)?.parse::<f64>().ok()
}

/// `truncate_float`: a first token that reads as a number near an integer
/// (`v - int(v) < 1e-5`, one-sided: -1.5 becomes -1) becomes that integer,
/// and the text is rebuilt with single spaces.
fn truncate_float(x: &str) -> String {
    let mut tokens = super::python::split(x).into_iter();
    let Some(first) = tokens.next() else {
        return x.to_string();
    };
    let Some(v) = py_float(first) else {
        return x.to_string();
    };
    if !v.is_finite() {
        return x.to_string();
    }
    let whole = v.trunc();
    let number = if v - whole < 1e-5 {
        if whole == 0.0 {
            "0".to_string()
        } else if whole.abs() < 9.2e18 {
            (whole as i64).to_string()
        } else {
            format!("{whole:.0}")
        }
    } else {
        float_repr(v)
    };
    let rest: Vec<&str> = tokens.collect();
    if rest.is_empty() {
        number
    } else {
        format!("{number} {}", rest.join(" "))
    }
}

/// A date or a year, as `equal_as_date` reads them.
enum When {
    Date(i64, i64, i64),
    Year(i64),
}

/// `datetime.date(y, m, d)` validity.
fn valid_date(y: i64, m: i64, d: i64) -> bool {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=9999).contains(&y) && (1..=days).contains(&d)
}

fn when(x: &str) -> Option<When> {
    let parts: Vec<&str> = x.split('-').collect();
    if let [y, m, d] = parts.as_slice() {
        let (y, m, d) = (py_int(y)?, py_int(m)?, py_int(d)?);
        return valid_date(y, m, d).then_some(When::Date(y, m, d));
    }
    py_int(x).map(When::Year)
}

/// `equal_as_date`: two dates are equal as dates; a date and a year (or two
/// numbers) by their year.
fn equal_as_date(x: &str, y: &str) -> bool {
    match (when(x), when(y)) {
        (Some(When::Date(a, b, c)), Some(When::Date(d, e, f))) => (a, b, c) == (d, e, f),
        (Some(a), Some(b)) => {
            let year = |w: When| match w {
                When::Date(y, _, _) | When::Year(y) => y,
            };
            year(a) == year(b)
        }
        _ => false,
    }
}

/// `whether_equal(answer, pred)`.
pub fn whether_equal(answer: &str, pred: &str) -> bool {
    let (answer, pred) = (truncate_float(answer), truncate_float(pred));
    equal_as_date(&answer, &pred) || answer == pred
}

impl Official for Kqapro {
    fn script(&self) -> &'static str {
        SCRIPT
    }

    /// `correct` (1 or 0) of a question the run answers (the script scores
    /// the lines it is given: a question past the last line is left out).
    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        _with: &Resources<'_>,
    ) -> Option<Figures> {
        let run = run.first()?;
        let correct = match (answer_text(gold), answer_text(run)) {
            (Some(a), Some(p)) => whether_equal(a, p),
            _ => false,
        };
        Some(Figures::from([(
            "correct".to_string(),
            f64::from(u8::from(correct)),
        )]))
    }

    /// Per category (`overall` and those of the gold programs present): the
    /// accuracy in percent as the script prints it, and its `_correct` and
    /// `_total` counts; `zero-shot` too when the training answers were given
    /// (`--train`, [`Resources::train`]).
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        with: &Resources<'_>,
    ) -> Figures {
        // each question's categories once (bit i: CATEGORIES[i]), then the counts
        let rows: Vec<(u32, bool)> = scored
            .iter()
            .map(|(q, f)| (categories(q), f["correct"] == 1.0))
            .collect();
        let mut out = Figures::new();
        let mut add = |name: &str, member: &dyn Fn(usize, u32) -> bool| {
            let (mut correct, mut total) = (0usize, 0usize);
            for (i, &(mask, right)) in rows.iter().enumerate() {
                if member(i, mask) {
                    total += 1;
                    correct += usize::from(right);
                }
            }
            if total > 0 {
                out.insert(name.to_string(), correct as f64 / total as f64 * 100.0);
                out.insert(format!("{name}_correct"), correct as f64);
                out.insert(format!("{name}_total"), total as f64);
            }
        };
        add("overall", &|_, _| true);
        for (bit, (name, _)) in CATEGORIES.iter().enumerate() {
            add(name, &|_, mask| mask & (1 << bit) != 0);
        }
        if let Some(train) = with.train {
            add("zero-shot", &|i, _| zero_shot(train, scored[i].0));
        }
        out
    }
}

/// The categories of a gold question's program as a bit set over
/// [`CATEGORIES`]: a category holds the question when one of its functions is
/// in the program (`multihop` also when a function's name starts with
/// `Filter`, as the script's `f.startswith('Filter')` does).
fn categories(q: &Question) -> u32 {
    let Some(functions) = q.flags.get(FUNCTIONS) else {
        return 0;
    };
    let mut mask = 0;
    for f in functions.split(' ') {
        for (bit, (name, members)) in CATEGORIES.iter().enumerate() {
            if members.contains(&f) || (*name == "multihop" && f.starts_with("Filter")) {
                mask |= 1 << bit;
            }
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The official `whether_equal` on the probes of its notes
    /// (`probe_whether_equal.py`, run with Python 3.11).
    #[test]
    fn equal_as_the_script() {
        for (a, p, equal) in [
            ("100 meters", "100.0 meters", true),
            ("100.5 meters", "100.50 meters", true),
            ("100 meters", "100 metres", false),
            ("100 meters", "100", false),
            ("2001-05-03", "2001", true),
            ("2001", "2001-12-31", true),
            ("1990-01-01", "1990-01-02", false),
            ("5", "05", true),
            ("5", "5.0", true),
            ("5", "+5", true),
            ("-1.5", "-1", true),
            ("2.9999999", "3", false),
            ("1e3", "1000", true),
            ("yes", "Yes", false),
            ("Paris", "paris", false),
            ("1 January 2001", "2001", false),
            ("1990-1-1", "1990-01-01", true),
            ("12", "12 ", true),
        ] {
            assert_eq!(whether_equal(a, p), equal, "{a:?} {p:?}");
        }
    }
}
