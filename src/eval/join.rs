//! Joining a run that names its questions by text only or by position
//! (Think-on-Graph's outputs, a SPINACH run against another gold;
//! [`Dataset::join_by_text`]) to its gold: each run question takes the id of
//! the gold question whose text is the same (trimmed, in any of its
//! languages) — the first such question, as ToG's own `align` does, with a
//! diagnostic when several have it; a text no gold question has keeps its
//! position as id, so it is reported as an extra question.

use std::collections::HashMap;

use crate::model::Dataset;

/// Joins `run` to `gold` as its file asks, once: by text
/// ([`Dataset::join_by_text`]), or by position with the texts checked
/// ([`Dataset::by_position`]); a run with ids of the gold's is left as it is.
pub fn join(gold: &Dataset, run: &mut Dataset) {
    if run.join_by_text {
        join_by_text(gold, run);
        run.join_by_text = false;
    }
    if run.by_position {
        check_positions(gold, run);
        run.by_position = false;
    }
}

/// Says in `run`'s diagnostics which of its questions, numbered by position
/// as the gold is, have a text that no language of the gold question with
/// the same id has (a run of another order or another version of the gold).
pub fn check_positions(gold: &Dataset, run: &mut Dataset) {
    let by_id: HashMap<&str, &crate::model::Question> = gold
        .questions
        .iter()
        .map(|q| (q.id.0.as_str(), q))
        .collect();
    let mut differ = Vec::new();
    for q in &run.questions {
        let Some(g) = by_id.get(q.id.0.as_str()) else {
            continue;
        };
        let same = q.texts.is_empty()
            || g.texts.is_empty()
            || q.texts
                .iter()
                .any(|(_, t)| g.texts.iter().any(|(_, gt)| gt.trim() == t.trim()));
        if !same {
            differ.push(q.id.0.clone());
        }
    }
    if !differ.is_empty() {
        let shown: Vec<&str> = differ.iter().take(8).map(String::as_str).collect();
        run.diagnostics.push(format!(
            "{} question(s) of the run, joined to the gold by position, have another text than the gold question at that position ({}{}): they are scored as joined; check that the run answers this gold in its order",
            differ.len(),
            shown.join(", "),
            if differ.len() > shown.len() { ", …" } else { "" }
        ));
    }
}

/// Gives `run`'s questions the ids of the gold questions with the same text,
/// and says in its diagnostics how many found none.
pub fn join_by_text(gold: &Dataset, run: &mut Dataset) {
    // the first gold question with the text, as ToG's `align` takes it; a
    // text several gold questions share is named in a diagnostic
    let mut by_text: HashMap<&str, (&str, bool)> = HashMap::new();
    for q in &gold.questions {
        for (_, text) in &q.texts {
            by_text
                .entry(text.trim())
                .and_modify(|(id, shared)| *shared |= *id != q.id.0.as_str())
                .or_insert((q.id.0.as_str(), false));
        }
    }
    let mut unmatched = Vec::new();
    let mut ambiguous = Vec::new();
    for q in &mut run.questions {
        let found = q
            .texts
            .iter()
            .find_map(|(_, t)| by_text.get(t.trim()).copied());
        match found {
            Some((id, shared)) => {
                if shared {
                    ambiguous.push(id.to_string());
                }
                q.id.0 = id.to_string();
            }
            None => {
                // never a gold id by chance: golds numbered from 0 have "2"
                unmatched.push(q.id.0.clone());
                q.id.0 = format!("#{}", q.id.0);
            }
        }
    }
    if !ambiguous.is_empty() {
        let shown: Vec<&str> = ambiguous.iter().take(5).map(String::as_str).collect();
        run.diagnostics.push(format!(
            "{} question(s) of the run name a text several gold questions have ({}{}): each is joined to the first of them; give the run with question ids to join them exactly",
            ambiguous.len(),
            shown.join(", "),
            if ambiguous.len() > shown.len() { ", …" } else { "" }
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let mut told = std::collections::HashSet::new();
    let mut repeated: Vec<String> = Vec::new();
    for q in &run.questions {
        if !seen.insert(q.id.0.as_str()) && told.insert(q.id.0.as_str()) {
            repeated.push(q.id.0.clone());
        }
    }
    for id in repeated {
        run.diagnostics.push(format!(
            "question {id} is answered more than once (by its text); the usual measures use the first answer, the official figures of a script that counts each output count them all"
        ));
    }
    if !unmatched.is_empty() {
        let shown: Vec<&str> = unmatched.iter().take(5).map(String::as_str).collect();
        run.diagnostics.push(format!(
            "{} question(s) of the run name a text no gold question has (positions {}{}): they are extra; check that the gold is the benchmark the run answered",
            unmatched.len(),
            shown.join(", "),
            if unmatched.len() > shown.len() { ", …" } else { "" }
        ));
    }
}

/// Gives the gold questions the answers another file holds for their ids
/// (`--gold-answers`: the challenge's result set beside its YAML, whose
/// texts, languages and flags stay the YAML's); the result set's own
/// `RESULT_ORDER_MATTERS` flags are added. Says in the gold's diagnostics
/// how many questions took answers, and names answer sets of no gold
/// question and gold questions left without answers.
///
/// A file that holds no answer set at all (a benchmark YAML given by
/// mistake) is an error naming what it was read as. Where the file gives one
/// id twice, the last answer set counts (as Python's `json.load` and the
/// challenge read it), with a warning; every diagnostic of the file is kept
/// in the gold's, naming the file.
pub fn gold_answers(
    gold: &mut Dataset,
    answers: Dataset,
    source: &str,
) -> Result<(), GoldAnswersError> {
    if !answers.questions.iter().any(|q| q.answers.is_some()) {
        return Err(GoldAnswersError::NoAnswers {
            file: source.to_string(),
            format: answers.format.name().to_string(),
            questions: answers.questions.len(),
        });
    }
    let total = answers.questions.len();
    gold.inputs
        .extend(answers.inputs.iter().map(|i| crate::model::InputDigest {
            role: "gold_answers".into(),
            ..i.clone()
        }));
    gold.diagnostics
        .extend(answers.diagnostics.iter().map(|d| format!("{source}: {d}")));
    let mut by_id: HashMap<String, crate::model::Question> = HashMap::new();
    let mut repeated: Vec<String> = Vec::new();
    for q in answers.questions {
        for d in &q.diagnostics {
            gold.diagnostics
                .push(format!("{source}: question {}: {d}", q.id.0));
        }
        if let Some(earlier) = by_id.insert(q.id.0.clone(), q) {
            repeated.push(earlier.id.0);
        }
    }
    if !repeated.is_empty() {
        repeated.sort();
        repeated.dedup();
        gold.diagnostics.push(format!(
            "warning: {source} gives {} id(s) more than once ({} …): the last answer set of each counts, as Python's json.load reads it",
            repeated.len(),
            repeated.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    let (mut given, mut without) = (0usize, Vec::new());
    for q in &mut gold.questions {
        match by_id.remove(&q.id.0) {
            Some(a) => {
                q.answers = a.answers;
                for tag in a.tags {
                    if !q.tags.contains(&tag) {
                        q.tags.push(tag);
                    }
                }
                given += 1;
            }
            None => without.push(q.id.0.clone()),
        }
    }
    gold.diagnostics.push(format!(
        "{given} of {} questions take their answers from {source} ({total} answer sets)",
        gold.questions.len()
    ));
    let few = |ids: &mut dyn Iterator<Item = String>| -> String {
        ids.take(3).collect::<Vec<_>>().join(", ")
    };
    if !by_id.is_empty() {
        let mut extra: Vec<String> = by_id.into_keys().collect();
        extra.sort();
        gold.diagnostics.push(format!(
            "{} answer set(s) of {source} name no question of the benchmark ({} …): ignored; check that both are of one benchmark",
            extra.len(),
            few(&mut extra.into_iter())
        ));
    }
    if !without.is_empty() {
        gold.diagnostics.push(format!(
            "{} question(s) have no answers in {source} ({} …): executed when a knowledge graph is given, else not evaluable",
            without.len(),
            few(&mut without.into_iter())
        ));
    }
    Ok(())
}

/// Why `--gold-answers` (`gold_answers=`) cannot give the gold its answers.
#[derive(Debug, thiserror::Error)]
pub enum GoldAnswersError {
    /// The file holds no answer set: not a result set.
    #[error("{file}: read as {format} ({questions} questions), it holds no answer set: --gold-answers (in Python gold_answers=) takes the gold's answers, such as the challenge's result set; give the benchmark itself as --gold (gold=)")]
    NoAnswers {
        /// The file as given.
        file: String,
        /// The format it was read as.
        format: String,
        /// Its questions.
        questions: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Question, QuestionId};

    #[test]
    fn a_run_by_position_names_the_texts_that_differ() {
        let mut gold = Dataset::new(Format::Spider4sparql);
        gold.questions = vec![q("0", "How many?"), q("1", "Which one?")];
        let mut run = Dataset::new(Format::Spider4sparqlPredictions);
        run.questions = vec![q("0", " How many? "), q("1", "Which sone?")];
        run.by_position = true;
        join(&gold, &mut run);
        assert!(!run.by_position);
        assert_eq!(run.questions[1].id.0, "1");
        assert_eq!(run.diagnostics.len(), 1, "{:?}", run.diagnostics);
        assert!(
            run.diagnostics[0].starts_with("1 question(s)") && run.diagnostics[0].contains("(1)")
        );
    }

    fn q(id: &str, text: &str) -> Question {
        Question {
            id: QuestionId(id.into()),
            texts: vec![("en".into(), text.into())],
            ..Question::default()
        }
    }

    #[test]
    fn run_questions_take_the_gold_id_of_their_text() {
        let mut gold = Dataset::new(Format::Cwq);
        gold.questions = vec![
            q("WebQTest-1", "Who?"),
            q("WebQTest-2", "When?"),
            q("dup", "Who?"),
        ];
        let mut run = Dataset::new(Format::LlmPredictions);
        run.questions = vec![q("0", " When?"), q("1", "Who?"), q("2", "Where?")];
        join_by_text(&gold, &mut run);
        let ids: Vec<&str> = run.questions.iter().map(|q| q.id.0.as_str()).collect();
        assert_eq!(ids, ["WebQTest-2", "WebQTest-1", "#2"]);
        // "Who?" is the text of two gold questions: the first is taken, and said
        assert_eq!(run.diagnostics.len(), 2);
        assert!(
            run.diagnostics[0].contains("several gold questions have (WebQTest-1)"),
            "{:?}",
            run.diagnostics
        );
        assert!(
            run.diagnostics[1].contains("positions 2"),
            "{:?}",
            run.diagnostics
        );
    }
}
