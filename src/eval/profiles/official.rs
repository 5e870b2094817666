//! Official figures (docs/scoring.md, Other benchmark families): the interface a
//! profile named after a benchmark's official evaluation script implements to
//! reproduce that script's own measures, per question and for the run, under
//! the script's own names. The figures are computed from the gold and run
//! questions as read (every field the readers keep), independently of the
//! judge's matching, and reported beside the usual P/R/F1 under `official`.

use std::collections::HashMap;

use crate::eval::report::Figures;
use crate::model::{Dataset, Question};
use crate::qald::TrainAnswers;
use crate::wordnet::WordNet;

use super::Ontology;

/// What a script's measures may need beyond the two questions, given by the
/// edge that read it (`Options`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Resources<'a> {
    /// The WordNet dictionary METEOR's synonym stage reads (`--wordnet`);
    /// without one, `meteor` is left out.
    pub wordnet: Option<&'a WordNet>,
    /// GrailQA's Freebase schema (`--ontology`), which the `grailqa` profile
    /// types logical forms' symbols with; without it, no official figure.
    pub ontology: Option<&'a Ontology>,
    /// KQA Pro's training answers (`--train`), for the `kqapro` profile's
    /// `zero-shot` category; without them, that category is left out.
    pub train: Option<&'a TrainAnswers>,
    /// When the evaluation stops: no question is scored after it.
    pub deadline: Option<&'a crate::eval::Deadline>,
}

/// The most byte comparisons one question's substring rules may take (RoG's
/// and ToG's: every gold answer looked for in every prediction text, and
/// back): past it the question's figures are 0 and say `too_large`, and the
/// run's aggregate counts them. Real files stay far below (a thousand gold
/// answers against a 10 KB prediction is 10⁷); a file of a million short
/// gold answers against a megabyte of prediction would take hours.
pub const MAX_TEXT_STEPS: usize = 2_000_000_000;

/// The figure naming a question past [`MAX_TEXT_STEPS`].
pub const TOO_LARGE: &str = "too_large";

/// Adds to a run's `aggregate` how many scored questions were past
/// [`MAX_TEXT_STEPS`] (their figures hold [`TOO_LARGE`]), only when some
/// were, so that the figures of every other run are the script's alone.
pub fn count_too_large(scored: &[(&Question, &Figures)], aggregate: &mut Figures) {
    count_flagged(scored, TOO_LARGE, aggregate);
}

/// Adds to a run's `aggregate` how many scored questions carry the figure
/// `flag` (a question the script fails on, one past the work cap), under that
/// name, only when some do.
pub fn count_flagged(scored: &[(&Question, &Figures)], flag: &str, aggregate: &mut Figures) {
    let n = flagged(scored, flag);
    if n > 0 {
        aggregate.insert(flag.to_string(), n as f64);
    }
}

/// How many scored questions carry the figure `flag`.
pub fn flagged(scored: &[(&Question, &Figures)], flag: &str) -> usize {
    scored.iter().filter(|(_, f)| f.contains_key(flag)).count()
}

/// [`percent_mean`] of figures of the scored questions, each as (the name
/// the script prints it under, the key of the questions' figure).
pub fn percent_means(scored: &[(&Question, &Figures)], names: &[(&str, &str)]) -> Figures {
    names
        .iter()
        .map(|(name, key)| (name.to_string(), percent_mean(scored, key)))
        .collect()
}

/// The mean ×100 of the figure `key` over the scored questions, as the
/// scripts that print percentages compute it: 100 × the sum over the
/// questions in order / their number (0 without questions).
fn percent_mean(scored: &[(&Question, &Figures)], key: &str) -> f64 {
    let n = scored.len() as f64;
    if n > 0.0 {
        100.0 * scored.iter().map(|(_, f)| f[key]).sum::<f64>() / n
    } else {
        0.0
    }
}

/// An official evaluation script, as a profile reproduces it.
pub trait Official: Sync {
    /// The script and the version it follows (repository, path and commit),
    /// named in the report's note.
    fn script(&self) -> &'static str;

    /// The figures of one gold question: `run` holds every run question with
    /// its id, in file order (empty when the run lacks it). `None` when the
    /// script leaves the question out of its figures.
    fn question(&self, gold: &Question, run: &[&Question], with: &Resources<'_>)
        -> Option<Figures>;

    /// The run's figures from those of the questions the script kept (each
    /// with its gold question), given the number of gold questions.
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        gold_questions: usize,
        with: &Resources<'_>,
    ) -> Figures;

    /// What the report says of a run beside its figures, from the figures of
    /// its questions (gold id, figures, in gold order) and its aggregate
    /// (GRASP's: over how many questions its `f1` is). Default: nothing.
    fn notes(&self, _questions: &[(&str, &Figures)], _aggregate: &Figures) -> Vec<String> {
        Vec::new()
    }
}

/// The official figures of a run against a gold: per gold question id (the
/// questions the script keeps) and for the run.
pub fn official_figures(
    official: &dyn Official,
    gold: &[&Question],
    run: &Dataset,
    with: &Resources<'_>,
) -> (HashMap<String, Figures>, Figures) {
    let mut by_id: HashMap<&str, Vec<&Question>> = HashMap::new();
    for q in &run.questions {
        by_id.entry(q.id.0.as_str()).or_default().push(q);
    }
    let mut per_question = HashMap::new();
    let mut scored = Vec::new();
    for g in gold {
        if with.deadline.is_some_and(crate::eval::Deadline::passed) {
            break;
        }
        let answers = by_id.get(g.id.0.as_str()).map_or(&[][..], Vec::as_slice);
        if let Some(figures) = official.question(g, answers, with) {
            per_question.insert(g.id.0.clone(), figures);
            scored.push(*g);
        }
    }
    let kept: Vec<(&Question, &Figures)> = scored
        .iter()
        .map(|g| (*g, &per_question[g.id.0.as_str()]))
        .collect();
    let aggregate = official.aggregate(&kept, gold.len(), with);
    (per_question, aggregate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, QuestionId};

    /// A script that counts a question as solved when the run has it, and
    /// leaves out gold questions whose id starts with `x`.
    struct Presence;

    impl Official for Presence {
        fn script(&self) -> &'static str {
            "presence"
        }
        fn question(
            &self,
            gold: &Question,
            run: &[&Question],
            _with: &Resources<'_>,
        ) -> Option<Figures> {
            (!gold.id.0.starts_with('x'))
                .then(|| Figures::from([("hit".to_string(), f64::from(u8::from(!run.is_empty())))]))
        }
        fn aggregate(
            &self,
            scored: &[(&Question, &Figures)],
            gold_questions: usize,
            _with: &Resources<'_>,
        ) -> Figures {
            let hits: f64 = scored.iter().map(|(_, f)| f["hit"]).sum();
            Figures::from([
                ("hits".to_string(), hits),
                ("gold".to_string(), gold_questions as f64),
            ])
        }
    }

    fn q(id: &str) -> Question {
        Question {
            id: QuestionId(id.into()),
            ..Question::default()
        }
    }

    #[test]
    fn joins_by_id_and_keeps_what_the_script_keeps() {
        let gold = [q("1"), q("2"), q("x3")];
        let gold: Vec<&Question> = gold.iter().collect();
        let mut run = Dataset::new(Format::QaldJson);
        run.questions = vec![q("2"), q("2"), q("x3"), q("9")];
        let (per, agg) = official_figures(&Presence, &gold, &run, &Resources::default());
        assert_eq!(per.len(), 2);
        assert_eq!(per["1"]["hit"], 0.0);
        assert_eq!(per["2"]["hit"], 1.0);
        assert_eq!(agg["hits"], 1.0);
        assert_eq!(agg["gold"], 3.0);
    }
}
