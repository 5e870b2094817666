//! The `t2s-metrics` profile: reproduces the measures of T2S-Metrics 1.2.0
//! (PyPI `t2s-metrics`, Wimmics/t2s-metrics) that need no network and no
//! language model, per question and for the run under its own names
//! (docs/scoring.md, The `t2s-metrics` profile): the query-text measures of
//! each case's generated query against its golden one, read as the file wrote
//! them (`crate::eval::text::t2s`: `token_*`, `bleu`, `sp-*`, `rouge_*`,
//! `jaccard`, `cosine_sim`, `euclidean`, `levenshtein`, `query_exact_match`,
//! `naive-can-*`, `codebleu`; `meteor` with a WordNet dictionary,
//! `crate::eval::text::meteor`), and, when both queries were executed (`--kg`,
//! `--endpoint`), its answer measures on their answers
//! (`super::t2s_answers`); the run's figures are their means over the cases
//! that have them (its `MeanAggregator`, Python's `sum`). The usual P/R/F1
//! are the judge's.

use super::qa_only::QaOnly;
use super::t2s_answers::{answer_measures, py_sum};
use super::{Official, Resources};
use crate::eval::report::Figures;
use crate::eval::text::meteor::meteor;
use crate::eval::text::t2s::{measures, RAW_QUERY};
use crate::eval::text::tokenize;
use crate::model::{Query, Question};

/// The version the profile follows.
const SCRIPT: &str =
    "T2S-Metrics 1.2.0 (PyPI t2s-metrics; Wimmics/t2s-metrics), its measures without network or language model";

/// The rules of the `t2s-metrics` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct T2sMetrics;

/// QA only ([`QaOnly`]) with the judge's term rules; T2S-Metrics reports no
/// micro measures.
pub static RULES: QaOnly = QaOnly {
    judge_terms: true,
    reports_micro: false,
    official: &T2sMetrics,
};

/// A case's query as T2S-Metrics reads it: as the file wrote it (kept by the
/// reader, untrimmed), else the query.
fn text(q: &Question) -> &str {
    if let Some(raw) = q.flags.get(RAW_QUERY) {
        return raw;
    }
    match &q.query {
        Query::Sparql(s) | Query::Pseudo(s) => s,
        Query::None => "",
    }
}

impl Official for T2sMetrics {
    fn script(&self) -> &'static str {
        SCRIPT
    }

    /// Every case is scored; a question the run lacks is scored against an
    /// empty generated query.
    fn question(
        &self,
        gold: &Question,
        run: &[&Question],
        with: &Resources<'_>,
    ) -> Option<Figures> {
        let generated = run.first().map_or("", |r| text(r));
        let mut figures: Figures = measures(text(gold), generated)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        if let Some(wordnet) = with.wordnet {
            let score = meteor(&tokenize(text(gold)), &tokenize(generated), wordnet);
            figures.insert("meteor".to_string(), score);
        }
        figures.extend(answer_measures(
            gold,
            run.first().copied(),
            gold.order_flagged(),
        ));
        // measured on the graph when the run was executed (absent without one)
        if let Some(share) = run
            .first()
            .and_then(|r| r.flags.get(crate::eval::text::uris::HALLUCINATION_FLAG))
            .and_then(|v| v.parse::<f64>().ok())
        {
            figures.insert("uri_hallucination".to_string(), share);
        }
        Some(figures)
    }

    /// The mean of each measure over the questions that have it.
    fn aggregate(
        &self,
        scored: &[(&Question, &Figures)],
        _gold_questions: usize,
        _with: &Resources<'_>,
    ) -> Figures {
        let mut scores: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
        for (_, f) in scored {
            for (k, v) in *f {
                scores.entry(k.as_str()).or_default().push(*v);
            }
        }
        scores
            .into_iter()
            .map(|(k, v)| (k.to_string(), py_sum(v.iter().copied()) / v.len() as f64))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::QuestionId;

    fn q(query: &str) -> Question {
        Question {
            id: QuestionId("1".into()),
            query: Query::Sparql(query.into()),
            ..Question::default()
        }
    }

    #[test]
    fn cases_and_means_under_its_names() {
        let gold = q("SELECT ?x WHERE { ?x a <http://C> }");
        let same = q("SELECT ?y WHERE { ?y a <http://C> }");
        let f = T2sMetrics
            .question(&gold, &[&same], &Resources::default())
            .expect("scored");
        assert_eq!(f["sp-f1"], 1.0);
        assert!(f["bleu"] < 1.0);
        let missing = T2sMetrics
            .question(&gold, &[], &Resources::default())
            .expect("scored");
        assert_eq!(missing["bleu"], 0.0);
        let mean =
            T2sMetrics.aggregate(&[(&gold, &f), (&gold, &missing)], 2, &Resources::default());
        assert_eq!(mean["sp-f1"], 0.5);
        assert_eq!(mean.len(), f.len());
    }
}
