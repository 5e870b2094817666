//! What answering a question cost, and whether the system abstained, as run
//! files write it (docs/scoring.md, Cost and latency; Abstention and
//! truthfulness): one question object's keys in the common spellings of other
//! tools (`latency_ms`, `elapsed_ms`, OpenAI's `usage: {prompt_tokens,
//! completion_tokens}`, Anthropic's `input_tokens`/`output_tokens`,
//! `total_cost`, `n_calls` …) read into [`Usage`], and `abstained`. The
//! readers of run files (QALD-JSON, component runs, LLM prediction files) call
//! [`read`] on each question object and list [`KEYS`] as known; [`scan`]
//! counts the unknown keys inside the nested `usage` and `tokens` objects.

use serde_json::{Map, Value};

use super::keys::KeyScan;
use crate::model::{Question, Usage};

/// The question-level keys read here, every spelling.
pub const KEYS: &[&str] = &[
    "latency_ms",
    "latency",
    "elapsed_ms",
    "time_ms",
    "duration_ms",
    "latency_s",
    "elapsed_s",
    "duration_s",
    "tokens",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost",
    "total_cost",
    "cost_usd",
    "calls",
    "n_calls",
    "num_calls",
    "llm_calls",
    "abstained",
];

/// Keys of a `tokens` or `usage` object: the counts under every spelling, the
/// total (checked against the sum), OpenAI's details (breakdowns of the two
/// counts, not read) and the measures a `usage` object may hold beside them.
const NESTED: &[&str] = &[
    "prompt",
    "completion",
    "prompt_tokens",
    "completion_tokens",
    "input_tokens",
    "output_tokens",
    "input",
    "output",
    "total",
    "total_tokens",
    "prompt_tokens_details",
    "completion_tokens_details",
    "cost",
    "total_cost",
    "calls",
    "n_calls",
    "successful_requests",
];

/// Latency keys in milliseconds, in the order they are preferred.
const LATENCY_MS: &[&str] = &[
    "latency_ms",
    "latency",
    "elapsed_ms",
    "time_ms",
    "duration_ms",
];
/// Latency keys in seconds.
const LATENCY_S: &[&str] = &["latency_s", "elapsed_s", "duration_s"];
/// Prompt-token keys, flat or inside `tokens` / `usage`.
const PROMPT: &[&str] = &["prompt", "prompt_tokens", "input_tokens", "input"];
/// Prompt-token keys on the question itself, where `prompt` and `input` are
/// an LLM prediction file's prompt text, not counts.
const PROMPT_TOP: &[&str] = &["prompt_tokens", "input_tokens"];
/// Completion-token keys on the question itself (`output` may be an answer).
const COMPLETION_TOP: &[&str] = &["completion_tokens", "output_tokens"];
/// The total's key on the question itself.
const TOTAL_TOP: &[&str] = &["total_tokens"];
/// The largest figure read: past it a value is a diagnostic (its sums and
/// means stay finite).
const MAX_FIGURE: f64 = 1e15;
/// Completion-token keys.
const COMPLETION: &[&str] = &["completion", "completion_tokens", "output_tokens", "output"];
/// Total-token keys (checked, never stored).
const TOTAL: &[&str] = &["total", "total_tokens"];
/// Cost keys.
const COST: &[&str] = &["cost", "total_cost", "cost_usd"];
/// Call-count keys.
const CALLS: &[&str] = &[
    "calls",
    "n_calls",
    "num_calls",
    "llm_calls",
    "successful_requests",
];

/// Reads the usage measures and the abstention of one question object into
/// `q` (its `usage` and `abstained`); a value that is not a number ≥ 0 (or,
/// for `abstained`, a boolean) is a diagnostic of the question and is not read.
pub fn read(o: &Map<String, Value>, q: &mut Question) {
    let mut found = Found {
        diagnostics: &mut q.diagnostics,
    };
    let nested: Vec<(&str, &Map<String, Value>)> = ["tokens", "usage"]
        .into_iter()
        .filter_map(|k| o.get(k).and_then(Value::as_object).map(|m| (k, m)))
        .collect();
    for k in ["tokens", "usage"] {
        match o.get(k) {
            None | Some(Value::Null | Value::Object(_)) => {}
            Some(other) => found.diagnostics.push(format!(
                "`{k}` {other} is not an object such as {{\"prompt\": 120, \"completion\": 30}}; ignored"
            )),
        }
    }
    // the question's own keys first, then those of `tokens`, then `usage`
    let places: Vec<(String, &Map<String, Value>)> = std::iter::once((String::new(), o))
        .chain(nested.iter().map(|(k, m)| (format!("{k}."), *m)))
        .collect();
    let latency_ms = found.number(&places[..1], LATENCY_MS, "latency", 1.0);
    let latency_s = found.number(&places[..1], LATENCY_S, "latency", 1000.0);
    // token counts: the unambiguous spellings on the question, every
    // spelling inside `tokens` / `usage`
    let (top, inner) = places.split_at(1);
    let prompt = found
        .number(top, PROMPT_TOP, "prompt tokens", 1.0)
        .or_else(|| found.number(inner, PROMPT, "prompt tokens", 1.0));
    let completion = found
        .number(top, COMPLETION_TOP, "completion tokens", 1.0)
        .or_else(|| found.number(inner, COMPLETION, "completion tokens", 1.0));
    let total = found
        .number(top, TOTAL_TOP, "total tokens", 1.0)
        .or_else(|| found.number(inner, TOTAL, "total tokens", 1.0));
    let cost = found.number(&places, COST, "cost", 1.0);
    let calls = found.number(&places, CALLS, "calls", 1.0);
    let whole = |n: Option<f64>, what: &str, found: &mut Found<'_>| {
        let n = n?;
        if n.fract() != 0.0 || n > 2f64.powi(53) {
            found
                .diagnostics
                .push(format!("{what} {n} is not a whole number; ignored"));
            return None;
        }
        Some(n as u64)
    };
    q.usage = Usage {
        latency_ms: latency_ms.or(latency_s),
        prompt_tokens: whole(prompt, "prompt tokens", &mut found),
        completion_tokens: whole(completion, "completion tokens", &mut found),
        cost,
        calls: whole(calls, "calls", &mut found),
    };
    if let (Some(t), Some(p), Some(c)) = (total, q.usage.prompt_tokens, q.usage.completion_tokens) {
        if (p + c) as f64 != t {
            q.diagnostics.push(format!(
                "total tokens {t} is not prompt {p} + completion {c}; the two counts are read"
            ));
        }
    }
    match o.get("abstained") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => q.abstained = *b,
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("true") => q.abstained = true,
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("false") => {}
        Some(other) => q.diagnostics.push(format!(
            "`abstained` {other} is not a boolean; the question is not taken as abstained"
        )),
    }
}

/// Counts the unknown keys of a question's `tokens` and `usage` objects, at
/// `path.tokens` and `path.usage`.
pub fn scan(o: &Map<String, Value>, path: &str, id: &str, scan: &mut KeyScan) {
    for k in ["tokens", "usage"] {
        if let Some(Value::Object(m)) = o.get(k) {
            scan.object(m, &format!("{path}.{k}"), NESTED, id);
        }
    }
}

/// Where the diagnostics of one question go.
struct Found<'a> {
    diagnostics: &'a mut Vec<String>,
}

impl Found<'_> {
    /// The first of `keys` present in the first of `places` that has one,
    /// times `scale`, when it is a number ≥ 0 (or a string that reads as one);
    /// another spelling with a different value is a diagnostic.
    fn number(
        &mut self,
        places: &[(String, &Map<String, Value>)],
        keys: &[&str],
        what: &str,
        scale: f64,
    ) -> Option<f64> {
        let mut chosen: Option<(String, f64)> = None;
        for (prefix, map) in places {
            for k in keys {
                let Some(v) = map.get(*k) else { continue };
                let n = match v {
                    Value::Null => continue,
                    Value::Number(n) => n.as_f64(),
                    Value::String(s) => s.trim().parse::<f64>().ok(),
                    _ => None,
                };
                let Some(n) = n
                    .filter(|n| *n >= 0.0)
                    .map(|n| n * scale)
                    .filter(|n| n.is_finite() && *n <= MAX_FIGURE)
                else {
                    self.diagnostics.push(format!(
                        "{what} `{prefix}{k}` {v} is not a number from 0 to 10^15; ignored"
                    ));
                    continue;
                };
                match &chosen {
                    None => chosen = Some((format!("{prefix}{k}"), n)),
                    Some((first, m)) if *m != n => self.diagnostics.push(format!(
                        "{what} is given twice, `{first}` {m} and `{prefix}{k}` {n}; `{first}` is read"
                    )),
                    Some(_) => {}
                }
            }
        }
        chosen.map(|(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value) -> Question {
        let mut q = Question::default();
        read(v.as_object().expect("object"), &mut q);
        q
    }

    #[test]
    fn a_prediction_file_s_prompt_and_output_are_not_token_counts() {
        // an LLM prediction file's `input` is its prompt, `output` may be an answer
        let q = of(json!({"input": "Who wrote Dune?", "output": 42, "prompt": 7}));
        assert_eq!(q.usage, Usage::default());
        assert!(q.diagnostics.is_empty(), "{:?}", q.diagnostics);
        let q = of(json!({"usage": {"input": 3, "output": 4}, "latency_s": 1e306}));
        assert_eq!(
            (q.usage.prompt_tokens, q.usage.completion_tokens),
            (Some(3), Some(4))
        );
        // past 10^15 once in milliseconds: a diagnostic, never an infinite figure
        assert_eq!(q.usage.latency_ms, None);
        assert!(
            q.diagnostics[0].contains("latency_s"),
            "{:?}",
            q.diagnostics
        );
    }

    #[test]
    fn every_spelling_reads_into_one_usage() {
        let q = of(
            json!({"latency_ms": 120, "tokens": {"prompt": 10, "completion": 5}, "cost": 0.002, "calls": 2}),
        );
        assert_eq!(
            q.usage,
            Usage {
                latency_ms: Some(120.0),
                prompt_tokens: Some(10),
                completion_tokens: Some(5),
                cost: Some(0.002),
                calls: Some(2),
            }
        );
        // OpenAI's usage object, seconds, LangChain's names
        let q = of(
            json!({"elapsed_s": 1.5, "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}, "total_cost": "0.5", "n_calls": 1}),
        );
        assert_eq!(q.usage.latency_ms, Some(1500.0));
        assert_eq!(
            (q.usage.prompt_tokens, q.usage.completion_tokens),
            (Some(7), Some(3))
        );
        assert_eq!((q.usage.cost, q.usage.calls), (Some(0.5), Some(1)));
        assert!(q.diagnostics.is_empty(), "{:?}", q.diagnostics);
        // Anthropic's names, flat
        let q = of(json!({"input_tokens": 4, "output_tokens": 2, "time_ms": 9}));
        assert_eq!(
            (q.usage.prompt_tokens, q.usage.completion_tokens),
            (Some(4), Some(2))
        );
        assert_eq!(q.usage.latency_ms, Some(9.0));
    }

    #[test]
    fn absent_stays_absent_and_bad_values_are_told() {
        let q = of(json!({"id": 1}));
        assert!(q.usage.is_empty() && !q.abstained);
        let q = of(
            json!({"latency_ms": -3, "cost": "cheap", "calls": 1.5, "tokens": 12,
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 5}}),
        );
        assert_eq!(q.usage.latency_ms, None);
        assert_eq!(q.usage.cost, None);
        assert_eq!(q.usage.calls, None);
        assert_eq!(q.diagnostics.len(), 5, "{:?}", q.diagnostics);
        // two spellings that disagree: the first is read, and told
        let q = of(json!({"latency_ms": 5, "elapsed_ms": 6}));
        assert_eq!(q.usage.latency_ms, Some(5.0));
        assert!(q.diagnostics[0].contains("given twice"));
    }

    #[test]
    fn abstention_is_a_boolean() {
        assert!(of(json!({"abstained": true})).abstained);
        assert!(of(json!({"abstained": "TRUE"})).abstained);
        assert!(!of(json!({"abstained": false})).abstained);
        let q = of(json!({"abstained": 1}));
        assert!(!q.abstained && q.diagnostics.len() == 1);
    }
}
