//! Cost and latency in the report (docs/scoring.md, Cost and latency): each
//! question's measures as the run gave them (or as measured for a live
//! system), and per run the mean, median, 95th percentile (nearest rank) and
//! total of each measure over the questions that have it. A measure no
//! question has is absent, never 0.

use serde::Serialize;

use crate::model::Usage;

/// One question's measures (QA questions only).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, utoipa::ToSchema)]
pub struct QuestionUsage {
    /// Wall time of the answer in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Tokens of the language model's prompts and completions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// What the answer cost, in the run's own unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Calls made for the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
}

/// One question's prompt and completion tokens, each absent when not given.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Tokens {
    /// Prompt (input) tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<u64>,
    /// Completion (output) tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<u64>,
}

/// A run's prompt and completion tokens, each absent when no question gives it.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, utoipa::ToSchema)]
pub struct TokenSummaries {
    /// Prompt (input) tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<Summary>,
    /// Completion (output) tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion: Option<Summary>,
}

/// One measure over a run's questions that have it.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Summary {
    /// Questions that have the measure.
    pub questions: usize,
    /// Their sum.
    pub total: f64,
    /// Their mean.
    pub mean: f64,
    /// Their median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Their 95th percentile by nearest rank: the ⌈0.95·n⌉-th smallest.
    pub p95: f64,
}

/// A run's measures (the QA aggregate's `usage`).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, utoipa::ToSchema)]
pub struct RunUsage {
    /// Latency in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<Summary>,
    /// Prompt and completion tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<TokenSummaries>,
    /// Cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Summary>,
    /// Calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<Summary>,
}

/// The report of one question's usage, `None` when it gives no measure.
pub fn question_usage(u: &Usage) -> Option<QuestionUsage> {
    if u.is_empty() {
        return None;
    }
    let tokens = (u.prompt_tokens.is_some() || u.completion_tokens.is_some()).then_some(Tokens {
        prompt: u.prompt_tokens,
        completion: u.completion_tokens,
    });
    Some(QuestionUsage {
        latency_ms: u.latency_ms,
        tokens,
        cost: u.cost,
        calls: u.calls,
    })
}

/// A run's usage over its questions' measures, `None` when no question has any.
pub fn run_usage(usages: &[Usage]) -> Option<RunUsage> {
    let of = |f: &dyn Fn(&Usage) -> Option<f64>| {
        summary(&usages.iter().filter_map(f).collect::<Vec<f64>>())
    };
    let prompt = of(&|u| u.prompt_tokens.map(|t| t as f64));
    let completion = of(&|u| u.completion_tokens.map(|t| t as f64));
    let run = RunUsage {
        latency_ms: of(&|u| u.latency_ms),
        tokens: (prompt.is_some() || completion.is_some())
            .then_some(TokenSummaries { prompt, completion }),
        cost: of(&|u| u.cost),
        calls: of(&|u| u.calls.map(|c| c as f64)),
    };
    (run.latency_ms.is_some() || run.tokens.is_some() || run.cost.is_some() || run.calls.is_some())
        .then_some(run)
}

/// The summary of `values` (in any order), `None` for none.
pub fn summary(values: &[f64]) -> Option<Summary> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let total = sorted.iter().fold(0.0, |s, v| s + v);
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    // nearest rank: the ⌈0.95·n⌉-th smallest, counted from 1 (integer
    // arithmetic, so that 0.95·20 is exactly 19)
    let rank = (95 * n).div_ceil(100).max(1);
    Some(Summary {
        questions: n,
        total,
        mean: total / n as f64,
        median,
        p95: sorted[rank - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_by_hand() {
        // even count: median of the middle two; p95 of 4 is the 4th (⌈3.8⌉)
        let s = summary(&[40.0, 10.0, 30.0, 20.0]).expect("values");
        assert_eq!((s.questions, s.total, s.mean), (4, 100.0, 25.0));
        assert_eq!((s.median, s.p95), (25.0, 40.0));
        // 20 values 1..=20: p95 is the 19th, the median 10.5
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        let s = summary(&v).expect("values");
        assert_eq!((s.median, s.p95, s.total), (10.5, 19.0, 210.0));
        // one value is every figure
        let s = summary(&[7.0]).expect("values");
        assert_eq!((s.median, s.p95, s.mean, s.total), (7.0, 7.0, 7.0, 7.0));
        assert!(summary(&[]).is_none());
    }

    #[test]
    fn absent_measures_stay_absent() {
        assert!(run_usage(&[Usage::default(), Usage::default()]).is_none());
        assert!(question_usage(&Usage::default()).is_none());
        let u = [
            Usage {
                cost: Some(1.0),
                ..Usage::default()
            },
            Usage::default(),
        ];
        let r = run_usage(&u).expect("cost");
        assert!(r.latency_ms.is_none() && r.tokens.is_none() && r.calls.is_none());
        assert_eq!(r.cost.map(|c| (c.questions, c.total)), Some((1, 1.0)));
        let json = serde_json::to_value(r).expect("serialises");
        assert_eq!(
            json.as_object().map(serde_json::Map::len),
            Some(1),
            "{json}"
        );
    }
}
