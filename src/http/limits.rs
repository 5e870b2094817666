//! How many questions one request may make the server hold (docs/http-api.md,
//! Server limits). A question in memory is a record of some 800 bytes whatever the
//! dozen bytes of text that made it, and the report holds a row per gold
//! question and run: so the questions of a request's documents are counted
//! from their bytes before any of them is read (`qald::question_bound`, an
//! upper bound that allocates nothing), and a request past the cap is a 413
//! `payload_too_large` naming it, before any tree or question is built. What
//! the server then holds and answers is in proportion to the request.

use super::error::{ApiError, ErrorCode};

/// The most questions one request makes the server hold: the gold's once and
/// once more per run (each run is scored on every gold question, a row of
/// the report), and the questions of the run documents.
pub const MAX_QUESTIONS: usize = 200_000;

/// The questions of one request, as counted before reading.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// The gold's questions (at most).
    gold: usize,
    /// The runs: documents and live systems.
    runs: usize,
    /// The questions of the run documents (at most).
    run_questions: usize,
}

impl Tally {
    /// A tally of a gold of `gold` questions (a registered benchmark's, or
    /// the bound of a document's: [`bound`]).
    pub(super) fn new(gold: usize) -> Self {
        Tally {
            gold,
            ..Tally::default()
        }
    }

    /// Counts a run document of at most `questions` questions.
    pub(super) fn document(&mut self, questions: usize) {
        self.runs += 1;
        self.run_questions = self.run_questions.saturating_add(questions);
    }

    /// Counts live systems (each answers the gold's questions).
    pub(super) fn systems(&mut self, n: usize) {
        self.runs += n;
    }

    /// The questions the request makes the server hold.
    fn held(&self) -> usize {
        self.gold
            .saturating_mul(self.runs.saturating_add(1))
            .saturating_add(self.run_questions)
    }

    /// A 413 naming the cap when the request holds more than
    /// [`MAX_QUESTIONS`].
    pub(super) fn check(&self) -> Result<(), ApiError> {
        let held = self.held();
        if held <= MAX_QUESTIONS {
            return Ok(());
        }
        Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the request holds up to {held} questions (a gold of up to {} questions, scored for each of {} run(s), and up to {} questions in the run documents), more than the {MAX_QUESTIONS} one request may hold (docs/http-api.md, Server limits); send fewer questions per request, or evaluate with `qajudge evaluate`",
                self.gold, self.runs, self.run_questions
            ),
        ))
    }
}

/// The questions a document's bytes can make at most, read under `name`.
pub(super) fn bound(bytes: &[u8], name: &str) -> usize {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    crate::qald::question_bound(body, name, MAX_QUESTIONS).questions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gold_counts_once_and_once_per_run() {
        let mut tally = Tally::new(50_000);
        tally.document(10);
        tally.document(10);
        tally.check().expect("150,020 questions");
        tally.systems(1);
        let e = tally.check().expect_err("200,020 questions");
        assert_eq!(e.code, ErrorCode::PayloadTooLarge);
        assert!(e.message.contains("200000"), "{}", e.message);
        assert!(
            e.message.contains("up to 200020 questions"),
            "{}",
            e.message
        );
    }
}
