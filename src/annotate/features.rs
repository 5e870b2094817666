//! Question features for breakdowns (docs/scoring.md, Breakdowns): answer type, query form, each
//! SPARQL modifier, number of triple patterns, the dataset's own flags, MQALD
//! modifiers (tags), question word and language. A feature may have several
//! values for one question (a query with FILTER and ORDER BY has both modifiers).

use std::collections::BTreeMap;

use super::markings::Markings;
use crate::model::Question;
use crate::query::{Form, Walked};

/// The feature names `--by` accepts.
pub const FEATURES: [&str; 10] = [
    "answertype",
    "form",
    "modifier",
    "triples",
    "aggregation",
    "onlydbo",
    "hybrid",
    "tags",
    "qword",
    "language",
];

/// The modifiers docs/scoring.md (Breakdowns) splits by.
pub const MODIFIERS: [&str; 13] = [
    "COUNT", "FILTER", "ORDER BY", "LIMIT", "OFFSET", "GROUP BY", "HAVING", "UNION", "OPTIONAL",
    "YEAR", "NOW", "MINUS", "VALUES",
];

/// Feature name → values, for one question.
pub type Features = BTreeMap<&'static str, Vec<String>>;

/// The question word of a question text.
pub fn question_word(text: &str) -> &'static str {
    let t = text.trim().to_lowercase();
    let t = t.trim_start_matches(['¿', '"', '\'', '(']);
    let first = t.split_whitespace().next().unwrap_or("");
    let starts = |p: &str| t.starts_with(p);
    if starts("how many") {
        "how many"
    } else if starts("how much") {
        "how much"
    } else if starts("how") {
        "how"
    } else {
        match first.trim_end_matches([',', '?']) {
            "what" | "what's" => "what",
            "which" => "which",
            "who" | "whom" | "who's" => "who",
            "whose" => "whose",
            "when" => "when",
            "where" => "where",
            "why" => "why",
            "is" | "are" | "was" | "were" | "does" | "do" | "did" | "has" | "have" | "had"
            | "can" | "could" | "will" | "would" | "should" => "is/are/does",
            "give" | "list" | "show" | "name" | "tell" | "count" | "return" => "give me",
            "in" | "on" | "at" | "from" | "to" | "for" | "by" | "with" | "of" => "preposition",
            _ => "other",
        }
    }
}

/// Computes the features of a gold question.
pub fn features(q: &Question, walked: Option<&Walked>, markings: &Markings) -> Features {
    let mut f = Features::new();
    if let Some(t) = markings.answer_type {
        f.insert("answertype", vec![t.value.name().to_string()]);
    }
    let form = match walked {
        None => "none",
        Some(w) => match w.form {
            Some(Form::Ask) => "ask",
            Some(Form::Select) if w.counts => "count",
            Some(Form::Select) => "select",
            Some(Form::Construct) => "construct",
            Some(Form::Describe) => "describe",
            None => "none",
        },
    };
    f.insert("form", vec![form.to_string()]);
    if let Some(w) = walked {
        let mods: Vec<String> = MODIFIERS
            .iter()
            .filter(|m| w.modifiers.contains(*m))
            .map(std::string::ToString::to_string)
            .collect();
        f.insert(
            "modifier",
            if mods.is_empty() {
                vec!["none".to_string()]
            } else {
                mods
            },
        );
        f.insert("triples", vec![w.triple_patterns.to_string()]);
    }
    for flag in ["aggregation", "onlydbo", "hybrid"] {
        if let Some(v) = q.flags.get(flag) {
            f.insert(flag, vec![v.clone()]);
        }
    }
    if !q.tags.is_empty() {
        f.insert("tags", q.tags.clone());
    }
    if let Some(text) = q.text("en") {
        f.insert("qword", vec![question_word(text).to_string()]);
    }
    let mut langs: Vec<String> = q.texts.iter().map(|(l, _)| l.clone()).collect();
    langs.sort();
    langs.dedup();
    if !langs.is_empty() {
        f.insert("language", langs);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_words() {
        assert_eq!(
            question_word("How many children did Ann Dunham have?"),
            "how many"
        );
        assert_eq!(
            question_word("Which river does the Brooklyn Bridge cross?"),
            "which"
        );
        assert_eq!(question_word("Who developed Skype?"), "who");
        assert_eq!(question_word("Is Berlin a city?"), "is/are/does");
        assert_eq!(question_word("Give me all cosmonauts."), "give me");
        assert_eq!(
            question_word("In which city was Obama born?"),
            "preposition"
        );
        assert_eq!(question_word("¿Qué?"), "other");
    }
}
