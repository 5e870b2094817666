//! The QA measures of docs/scoring.md's "LLM era" that sit beside F1, put
//! into the report one question at a time and summed up per run: cost and
//! latency ([`super::usage`]), abstention and truthfulness
//! ([`super::truth`]), and the graded order measures ([`super::order`]).

use super::order::graded;
use super::prepare::{GoldEntry, RunEntry};
use super::report::{AggregateReport, QuestionReport, Status};
use super::truth::truthfulness;
use super::usage::{question_usage, run_usage};
use crate::matching::{Matching, Prepared};
use crate::model::Usage;

/// What one run's QA questions gave, gathered in gold order.
pub(super) struct Era {
    usages: Vec<Usage>,
    truths: Vec<f64>,
    ndcgs: Vec<f64>,
    taus: Vec<f64>,
    abstained: usize,
    /// True when abstention is counted even at 0 (a marker was given).
    count_abstained: bool,
}

impl Era {
    /// Gathers a run's figures; `marker` is true when `--abstain-marker` was given.
    pub(super) fn new(marker: bool) -> Era {
        Era {
            usages: Vec::new(),
            truths: Vec::new(),
            ndcgs: Vec::new(),
            taus: Vec::new(),
            abstained: 0,
            count_abstained: marker,
        }
    }

    /// Adds one evaluated QA question's figures to its report (whose status
    /// and score are set) and to the run's.
    pub(super) fn question(
        &mut self,
        report: &mut QuestionReport,
        entry: &GoldEntry<'_>,
        run: Option<&RunEntry<'_>>,
        sets: (&[Prepared], &[Prepared]),
        matching: &Matching,
    ) {
        if let Some(r) = run {
            report.usage = question_usage(&r.question.usage);
            self.usages.push(r.question.usage);
        }
        let abstained = report.status == Status::Abstained;
        self.abstained += usize::from(abstained);
        let answered = report.status == Status::Answered;
        let truth = truthfulness(report.score.f1, abstained, answered);
        report.truthfulness = Some(truth);
        self.truths.push(truth);
        if entry.graded_order {
            let g = graded(sets.0, sets.1, matching, answered);
            report.ndcg_graded = g.ndcg;
            report.kendall_tau = g.tau;
            self.ndcgs.extend(g.ndcg);
            self.taus.extend(g.tau);
        }
    }

    /// Puts the run's figures into its QA aggregate.
    pub(super) fn finish(self, agg: &mut AggregateReport) {
        let mean = |v: &[f64]| (!v.is_empty()).then(|| super::aggregates::mean(v));
        agg.usage = run_usage(&self.usages);
        agg.abstained = (self.count_abstained || self.abstained > 0).then_some(self.abstained);
        agg.truthfulness = mean(&self.truths);
        agg.ndcg_graded = mean(&self.ndcgs);
        agg.kendall_tau = mean(&self.taus);
    }
}
