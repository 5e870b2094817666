//! The progress a command shows on stderr while it works: a bar per live
//! system asked and one for the queries executed (`evaluate`, `refresh`).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use crate::eval::job::Progress;

/// The progress bar of query execution, on stderr (`msg`: what is executed).
pub(super) fn query_bar() -> ProgressBar {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("executing {msg} queries {bar:30} {pos}/{len}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The progress of a job on stderr: a bar per live system asked, then one for
/// the queries executed.
#[derive(Default)]
pub(super) struct Bars {
    system: Mutex<Option<ProgressBar>>,
    queries: Mutex<Option<ProgressBar>>,
}

impl Bars {
    /// Runs `f` on the bar in `slot`, if there is one.
    fn with(slot: &Mutex<Option<ProgressBar>>, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = slot.lock().ok().as_deref().and_then(Option::as_ref) {
            f(bar);
        }
    }

    /// Clears and drops the bar in `slot`.
    fn finish(slot: &Mutex<Option<ProgressBar>>) {
        if let Some(bar) = slot.lock().ok().and_then(|mut b| b.take()) {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bars {
    fn asking(&self, url: &str, questions: usize) {
        let bar = ProgressBar::new(questions as u64);
        bar.set_style(
            ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} questions")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(url.to_string());
        if let Ok(mut slot) = self.system.lock() {
            *slot = Some(bar);
        }
    }

    fn asked(&self, _done: usize, _total: usize) {
        Bars::with(&self.system, |bar| bar.inc(1));
    }

    fn asked_all(&self, _url: &str) {
        Bars::finish(&self.system);
    }

    fn executing(&self) {
        let bar = query_bar();
        bar.set_message("gold and run");
        if let Ok(mut slot) = self.queries.lock() {
            *slot = Some(bar);
        }
    }

    fn executed(&self, done: usize, total: usize) {
        Bars::with(&self.queries, |bar| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        });
    }

    fn executed_all(&self) {
        Bars::finish(&self.queries);
    }
}
