//! `evaluate --explain-failures` as text: the rule lists
//! `crate::eval::failures` put into the report (`runs[].failures`), printed
//! after the table.

use crate::eval::Report;

/// The explanations as text: per run, its rules (at most 10 question ids each).
pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    for run in &report.runs {
        let Some(f) = &run.failures else { continue };
        out.push_str(&format!(
            "\nwhy {} fails (QA F1 below {}: {} failed, {} solved):\n",
            run.name, f.solved_f1, f.failed, f.solved
        ));
        if f.rules.is_empty() {
            out.push_str("  no feature condition separates the failed questions\n");
        }
        for (i, r) in f.rules.iter().enumerate() {
            let shown: Vec<&str> = r.questions.iter().take(10).map(String::as_str).collect();
            let more = r.questions.len().saturating_sub(10);
            out.push_str(&format!(
                "  {}. {}: {} questions, {:.0}% failed (outside {:.0}%); covers {}{}\n",
                i + 1,
                r.condition,
                r.support,
                100.0 * r.failure_rate_inside,
                100.0 * r.failure_rate_outside,
                shown.join(" "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}
