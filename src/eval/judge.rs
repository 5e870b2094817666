//! The evaluator's side of the LLM judge (docs/scoring.md, The LLM judge):
//! what it is given of a run's QA questions (each question's gold and run
//! answers as the matching counted them, and the pairs the exact rules
//! matched), and, with `--llm-queries`, the query pairs whose algebra
//! equivalence is `unknown`; its query verdicts go into the run's `llm_judge`
//! report. The judge itself, its
//! prompts and its cache are [`crate::llm`]'s.

use std::collections::HashMap;

use super::prepare::{Ctx, GoldEntry, RunEntry};
use super::{Experiment, Options, Rules, RunReport};
use crate::matching::match_answers;
use crate::model::Dataset;

/// The LLM judge's verdicts on the run's free-text QA answers, asked once for
/// the whole run (docs/scoring.md, The LLM judge); `None` without a judge,
/// without QA, or under a profile that scores value sets rather than a
/// matching.
pub(super) fn judge_run(
    entries: &[GoldEntry<'_>],
    by_id: &HashMap<&str, RunEntry<'_>>,
    ctx: &Ctx<'_, '_>,
    options: &Options,
) -> Option<crate::llm::Judged> {
    let judge = options.llm.as_deref()?;
    if !ctx.wanted[Experiment::Qa] || ctx.profile.scores_value_sets() {
        return None;
    }
    let lang = options.lang.as_deref().unwrap_or("en");
    let mut questions = Vec::new();
    for entry in entries {
        let Some(run) = by_id.get(entry.question.id.0.as_str()) else {
            continue;
        };
        let (Some(gold_set), Some(run_set), Some(gold), Some(answers)) = (
            entry.sets[Experiment::Qa].as_ref(),
            run.sets[Experiment::Qa].as_ref(),
            entry.qa.as_deref(),
            run.qa.as_deref(),
        ) else {
            continue;
        };
        let Ok(matching) = match_answers(gold_set, run_set) else {
            continue;
        };
        // each answer as the matching counted it, by its position in the set
        let gold: Option<Vec<_>> = gold_set.iter().map(|p| gold.get(p.index)).collect();
        let run: Option<Vec<_>> = run_set.iter().map(|p| answers.get(p.index)).collect();
        let (Some(gold), Some(run)) = (gold, run) else {
            continue;
        };
        questions.push(crate::llm::QuestionPairs {
            id: &entry.question.id.0,
            question: entry.question.text(lang).unwrap_or(""),
            gold,
            run,
            // the matching names answers by their position in the file: each
            // pair by its answers' positions in the sets, as `gold`/`run` are
            exact: {
                let at =
                    |set: &[crate::matching::Prepared]| -> std::collections::HashMap<usize, usize> {
                        set.iter().enumerate().map(|(k, a)| (a.index, k)).collect()
                    };
                let (g_at, r_at) = (at(gold_set), at(run_set));
                matching
                    .pairs
                    .iter()
                    .filter_map(|p| Some((*g_at.get(&p.gold)?, *r_at.get(&p.run)?)))
                    .collect()
            },
        });
    }
    Some(crate::llm::judge_answers(judge, &questions))
}

/// With `--llm-queries`, asks the LLM judge about the run's query pairs whose
/// equivalence is `unknown` and adds its verdicts to the run's `llm_judge`
/// (docs/scoring.md, The LLM judge); the query experiment keeps its own.
pub(super) fn judge_unknown_queries(
    report: &mut RunReport,
    gold: &Dataset,
    run: &Dataset,
    options: &Options,
) {
    let (Some(judge), Some(q)) = (
        options.llm.as_deref().filter(|j| j.judges_queries()),
        report.experiments.query.as_mut(),
    ) else {
        return;
    };
    // the first question of an id, as the query experiment reads them
    fn queries(d: &Dataset) -> std::collections::HashMap<&str, &str> {
        let mut by_id = std::collections::HashMap::new();
        for x in &d.questions {
            if let crate::model::Query::Sparql(s) = &x.query {
                by_id.entry(x.id.0.as_str()).or_insert(s.as_str());
            }
        }
        by_id
    }
    let (gold_queries, run_queries) = (queries(gold), queries(run));
    let unknown: Vec<(String, String, String, String)> = q
        .questions
        .iter()
        .filter(|x| x.equivalence == Some("unknown"))
        .filter_map(|x| {
            let question = x.question.clone().unwrap_or_default();
            let g = gold_queries.get(x.id.as_str())?;
            let r = run_queries.get(x.id.as_str())?;
            Some((x.id.clone(), question, g.to_string(), r.to_string()))
        })
        .collect();
    let pairs: Vec<crate::llm::QueryPair<'_>> = unknown
        .iter()
        .map(|(id, question, g, r)| crate::llm::QueryPair {
            id,
            question,
            gold: g,
            run: r,
        })
        .collect();
    let equivalent = q
        .aggregate
        .equivalence
        .get("equivalent")
        .copied()
        .unwrap_or(0);
    let (judgement, notes) =
        crate::llm::judge_queries(judge, &pairs, q.aggregate.compared, equivalent);
    for (id, note) in notes {
        if let Some(x) = q.questions.iter_mut().find(|x| x.id == id) {
            x.diagnostics.push(note);
        }
    }
    report
        .llm_judge
        .get_or_insert_with(|| crate::llm::JudgeReport::of(&Default::default(), Some(judge), None))
        .queries = Some(judgement);
}
