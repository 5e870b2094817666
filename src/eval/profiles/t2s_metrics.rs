//! The `t2s-metrics` profile: reproduces the query-text measures of
//! T2S-Metrics 1.2.0 (PyPI `t2s-metrics`, Wimmics/t2s-metrics), per question
//! and for the run under its own names (docs/scoring.md, The `t2s-metrics`
//! profile): `token_precision`, `token_recall`, `token_f1`, `bleu`,
//! `sp-bleu`, `sp-f1`, `rouge_4` (with `rouge_1` … `rouge_3`, which it
//! computes with the same class), `jaccard`, `cosine_sim`, `euclidean`,
//! `levenshtein` and `query_exact_match` of each case's generated query
//! against its golden one (`crate::eval::text::t2s`), and their means over
//! the cases (its `MeanAggregator`). The usual P/R/F1 are the judge's, on
//! answers from executing both queries (`--kg`, `--endpoint`).

use super::qa_only::QaOnly;
use super::Official;
use crate::eval::report::Figures;
use crate::eval::text::t2s::measures;
use crate::model::{Query, Question};

/// The version the profile follows.
const SCRIPT: &str =
    "T2S-Metrics 1.2.0 (PyPI t2s-metrics; Wimmics/t2s-metrics), its query-text measures";

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

fn text(q: &Question) -> &str {
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
    fn question(&self, gold: &Question, run: &[&Question]) -> Option<Figures> {
        let generated = run.first().map_or("", |r| text(r));
        Some(
            measures(text(gold), generated)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// The mean of each measure over the questions that have it.
    fn aggregate(&self, scored: &[(&Question, &Figures)], _gold_questions: usize) -> Figures {
        let mut sums: std::collections::BTreeMap<&str, (f64, usize)> = Default::default();
        for (_, f) in scored {
            for (k, v) in *f {
                let s = sums.entry(k.as_str()).or_default();
                s.0 += v;
                s.1 += 1;
            }
        }
        sums.into_iter()
            .map(|(k, (sum, n))| (k.to_string(), sum / n as f64))
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
        let f = T2sMetrics.question(&gold, &[&same]).expect("scored");
        assert_eq!(f["sp-f1"], 1.0);
        assert!(f["bleu"] < 1.0);
        let missing = T2sMetrics.question(&gold, &[]).expect("scored");
        assert_eq!(missing["bleu"], 0.0);
        let mean = T2sMetrics.aggregate(&[(&gold, &f), (&gold, &missing)], 2);
        assert_eq!(mean["sp-f1"], 0.5);
        assert_eq!(mean.len(), f.len());
    }
}
