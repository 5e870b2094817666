//! Answers as a file wrote them, for the profiles that reproduce official
//! scripts comparing strings (docs/scoring.md, Other benchmark families): the
//! readers turn `m.0abc` into a Freebase IRI and keep `m.0abc` in the set's
//! `raw_values`; these scripts see only the written string of an answer's
//! first form (WebQSP's `AnswerArgument`, a prediction's string), never its
//! labels.

use crate::model::{Answer, AnswerSet, Term};

/// The written string of each answer's first term, in the set's order,
/// duplicates kept: the recorded raw value, else the IRI, the lexical form
/// or `true` / `false`.
pub fn written(set: &AnswerSet) -> Vec<String> {
    // each answer's first term's raw value (the first recorded), looked up
    // by answer: linear in the answers however many are recorded
    let mut raw: std::collections::HashMap<usize, &str> = std::collections::HashMap::new();
    for (ai, ti, value) in &set.raw_values {
        if *ti == 0 {
            raw.entry(*ai).or_insert(value.as_str());
        }
    }
    set.answers
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            raw.get(&i)
                .map(|r| (*r).to_string())
                .or_else(|| a.terms.first().map(term_text))
        })
        .collect()
}

/// The text of a term as a script that reads JSON strings sees it.
pub fn term_text(term: &Term) -> String {
    match term {
        Term::Iri(iri) => iri.clone(),
        Term::Literal { lexical, .. } => lexical.clone(),
        Term::Boolean(b) => b.to_string(),
    }
}

/// A flag a reader keeps as JSON text of a string (an LLM output's
/// `results`, a prediction written as one string): that string; `None` when
/// the flag is absent or holds another JSON value.
pub fn flag_string(q: &crate::model::Question, key: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(q.flags.get(key)?) {
        Ok(serde_json::Value::String(s)) => Some(s),
        _ => None,
    }
}

/// The first answer of a question as written (the fallback of the scripts
/// that read one prediction string), `None` without answers.
pub fn first_written(q: &crate::model::Question) -> Option<String> {
    q.answers
        .as_ref()
        .and_then(|a| written(a).into_iter().next())
}

/// The names of a set's answers: each answer's labels (the literals after its
/// first form) when it has some, else its written value.
pub fn names(set: &AnswerSet) -> Vec<String> {
    let mut out = Vec::new();
    for (a, value) in set.answers.iter().zip(written(set)) {
        let labels: Vec<String> = a
            .terms
            .iter()
            .skip(1)
            .filter(|t| matches!(t, Term::Literal { .. }))
            .map(term_text)
            .collect();
        if labels.is_empty() {
            out.push(value);
        } else {
            out.extend(labels);
        }
    }
    out
}

/// [`written`] as answers of one plain literal each, for matching by exact
/// string.
pub fn written_answers(set: &AnswerSet) -> Vec<Answer> {
    written(set)
        .into_iter()
        .map(|w| Answer::single(Term::plain(w)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_value_wins_and_labels_are_dropped() {
        let set = AnswerSet {
            answers: vec![
                Answer {
                    terms: vec![
                        Term::Iri("http://rdf.freebase.com/ns/m.0b".into()),
                        Term::plain("Bee"),
                    ],
                },
                Answer::single(Term::plain("1990")),
                Answer::single(Term::Iri("http://x.org/a".into())),
            ],
            raw_values: vec![(0, 0, "ns:m.0b".into())],
            ..AnswerSet::default()
        };
        assert_eq!(written(&set), ["ns:m.0b", "1990", "http://x.org/a"]);
    }
}
