//! The LLM judge on query pairs whose algebra equivalence is `unknown`
//! (`--llm-queries`; docs/scoring.md, The LLM judge): one ask per pair, and
//! the equivalence rate once the `same` verdicts count as equivalent. The
//! query experiment's own figures are left as its normal forms give them.

use super::{Ask, AskKind, Judge, QueryJudgement, Verdict, VerdictCounts};

/// One `unknown` pair.
#[derive(Debug, Clone)]
pub struct QueryPair<'a> {
    /// The question id.
    pub id: &'a str,
    /// The question text.
    pub question: &'a str,
    /// The gold query.
    pub gold: &'a str,
    /// The run query.
    pub run: &'a str,
}

/// Asks the judge about every pair; `compared` and `equivalent` are the query
/// experiment's counts, for the rate. Gives the judgement and, per question
/// id, the diagnostic of a verdict that has one.
pub fn judge_queries(
    judge: &Judge,
    pairs: &[QueryPair<'_>],
    compared: usize,
    equivalent: usize,
) -> (QueryJudgement, Vec<(String, String)>) {
    let asks: Vec<Ask> = pairs
        .iter()
        .map(|p| Ask {
            kind: AskKind::Query,
            question: p.question.to_string(),
            gold: p.gold.to_string(),
            run: p.run.to_string(),
        })
        .collect();
    let decisions = judge.decide_all(&asks);
    let mut verdicts = VerdictCounts::default();
    let mut same_ids = Vec::new();
    let mut notes = Vec::new();
    for (p, d) in pairs.iter().zip(&decisions) {
        verdicts.add(d);
        if d.verdict == Verdict::Same {
            same_ids.push(p.id.to_string());
        }
        if let Some(why) = &d.diagnostic {
            notes.push((p.id.to_string(), format!("llm judge: {why}")));
        }
    }
    let equivalent_rate =
        (compared > 0).then(|| (equivalent + same_ids.len()) as f64 / compared as f64);
    (
        QueryJudgement {
            verdicts,
            same_ids,
            equivalent_rate,
        },
        notes,
    )
}
