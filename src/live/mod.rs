//! The client that asks a live QA system over HTTP (the one module that names
//! ureq). It uses the convention QA systems implement for GERBIL QA: a form POST
//! with `query` = the question text and `lang`, answered with QALD-JSON. Calls run
//! with a per-call timeout and bounded concurrency; failed calls are counted (they
//! score as empty answers), the runtime of successful calls is measured, and a run
//! stops when its error rate passes a maximum. `endpoint` asks SPARQL endpoints
//! through the same HTTP client.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::model::{AnswerSet, Calls, Dataset, Format, Question};

mod endpoint;
pub use endpoint::{sparql_request, EndpointReply};

/// How to call a live system.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The time one call may take.
    pub timeout: Duration,
    /// How many calls run at once.
    pub concurrency: usize,
    /// The share of failed calls (after `min_calls`) that stops the run.
    pub max_error_rate: f64,
    /// Calls made before the error rate is checked.
    pub min_calls: usize,
    /// The language of the question texts sent (`lang`).
    pub lang: String,
    /// Hosts the client may call; `None`: any.
    pub allowed_hosts: Option<Vec<String>>,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            timeout: Duration::from_secs(60),
            concurrency: 4,
            max_error_rate: 0.5,
            min_calls: 10,
            lang: "en".to_string(),
            allowed_hosts: None,
        }
    }
}

/// The loopback host names, the server's default `--allow-system-host`.
pub const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

/// A system that cannot be asked at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// The URL is not an http(s) URL with a host.
    #[error(
        "system url {url:?} is not an http(s) url with a host; give one like http://host:port/path"
    )]
    Url {
        /// The URL given.
        url: String,
    },
    /// The host is not allowed.
    #[error("system host {host:?} is not allowed; the server calls only hosts given with --allow-system-host ({allowed})")]
    HostNotAllowed {
        /// The host of the URL.
        host: String,
        /// The allowed hosts.
        allowed: String,
    },
}

/// The answers of a live system to a benchmark.
#[derive(Debug, Clone)]
pub struct LiveRun {
    /// The system's answers as a run (questions it failed on have no answers).
    pub dataset: Dataset,
    /// Question id → why the call failed (timeout, HTTP status, unreadable answer).
    pub errors: BTreeMap<String, String>,
    /// The runtime of each successful call, in milliseconds.
    pub runtimes_ms: Vec<f64>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
}

impl LiveRun {
    /// The mean runtime of successful calls in milliseconds.
    pub fn mean_runtime_ms(&self) -> Option<f64> {
        (!self.runtimes_ms.is_empty())
            .then(|| self.runtimes_ms.iter().sum::<f64>() / self.runtimes_ms.len() as f64)
    }
}

/// The host of an http(s) URL, lower-cased, without brackets.
pub fn host_of(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        authority.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Checks that a URL may be called under the options.
pub fn check_url(url: &str, opts: &LiveOptions) -> Result<(), LiveError> {
    let host = host_of(url).ok_or_else(|| LiveError::Url {
        url: url.to_string(),
    })?;
    if let Some(allowed) = &opts.allowed_hosts {
        if !allowed.iter().any(|a| a.eq_ignore_ascii_case(&host)) {
            return Err(LiveError::HostNotAllowed {
                host,
                allowed: allowed.join(", "),
            });
        }
    }
    Ok(())
}

/// Why one call to a system gave no answers (kept per question in the report,
/// as its message: the cause is part of it).
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The body is not JSON.
    #[error("the answer is not JSON ({0})")]
    NotJson(serde_json::Error),
    /// The body is JSON of another shape.
    #[error("the answer is neither QALD-JSON nor a SPARQL result")]
    Shape,
    /// The body is QALD-shaped but cannot be read.
    #[error("unreadable answer: {0}")]
    Unreadable(crate::qald::QaldError),
    /// The body could not be read off the connection.
    #[error("reading the answer failed: {0}")]
    Read(std::io::Error),
    /// The system answered with an HTTP error status.
    #[error("http status {0}")]
    Status(u16),
    /// The call timed out.
    #[error("timed out ({0})")]
    Timeout(String),
    /// The call failed in transport (connection refused, DNS, TLS …).
    #[error("call failed ({0})")]
    Transport(String),
}

/// Reads a system's answer body: a QALD-JSON document (its first question's
/// answers) or a bare SPARQL-results object.
fn read_answer(body: &[u8]) -> Result<AnswerSet, CallError> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(CallError::NotJson)?;
    let doc = if value.get("questions").is_some() {
        value
    } else if value.get("head").is_some() || value.get("boolean").is_some() {
        serde_json::json!({"questions": [{"id": "0", "answers": [value]}]})
    } else {
        return Err(CallError::Shape);
    };
    let bytes = serde_json::to_vec(&doc).map_err(CallError::NotJson)?;
    let dataset = crate::qald::parse(&bytes, "answer").map_err(CallError::Unreadable)?;
    Ok(dataset
        .questions
        .into_iter()
        .next()
        .and_then(|q| q.answers)
        .unwrap_or_default())
}

/// Asks the system at `url` every question of `gold`. `progress` is called with
/// (calls done, calls to make) after each call.
pub fn ask_all(
    url: &str,
    gold: &Dataset,
    opts: &LiveOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<LiveRun, LiveError> {
    check_url(url, opts)?;
    let agent = ureq::AgentBuilder::new()
        .timeout(opts.timeout)
        .redirects(0)
        .build();
    let total = gold.questions.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // (index, outcome)
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(total));
    let stopped: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..opts.concurrency.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(q) = gold.questions.get(i) else {
                    return;
                };
                let text = q.text(&opts.lang).unwrap_or_default();
                let started = Instant::now();
                let outcome = match agent
                    .post(url)
                    .send_form(&[("query", text), ("lang", opts.lang.as_str())])
                {
                    Ok(response) => {
                        let mut body = Vec::new();
                        match response.into_reader().take(64 << 20).read_to_end(&mut body) {
                            Ok(_) => read_answer(&body)
                                .map(|a| (a, started.elapsed().as_secs_f64() * 1000.0)),
                            Err(e) => Err(CallError::Read(e)),
                        }
                    }
                    Err(ureq::Error::Status(code, _)) => Err(CallError::Status(code)),
                    Err(e) => Err(describe(&e)),
                };
                if outcome.is_err() {
                    failed.fetch_add(1, Ordering::SeqCst);
                }
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                if let Ok(mut r) = results.lock() {
                    r.push((i, outcome));
                }
                progress(n, total);
                let f = failed.load(Ordering::SeqCst);
                if n >= opts.min_calls && f as f64 / n as f64 > opts.max_error_rate {
                    if !stop.swap(true, Ordering::SeqCst) {
                        if let Ok(mut s) = stopped.lock() {
                            *s = Some(format!(
                                "stopped after {n} calls: {f} failed, more than the maximum error rate {}",
                                opts.max_error_rate
                            ));
                        }
                    }
                    return;
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    let stopped = stopped.into_inner().unwrap_or_default();
    let mut dataset = Dataset {
        id: None,
        format: Format::QaldJson,
        questions: Vec::with_capacity(total),
        diagnostics: Vec::new(),
        calls: None,
    };
    let mut errors = BTreeMap::new();
    let mut runtimes_ms = Vec::new();
    let mut asked = vec![false; total];
    for (i, outcome) in results {
        asked[i] = true;
        let q = &gold.questions[i];
        let mut run_q = Question {
            id: q.id.clone(),
            texts: q.texts.clone(),
            ..Question::default()
        };
        match outcome {
            Ok((answers, ms)) => {
                runtimes_ms.push(ms);
                run_q.answers = Some(answers);
            }
            Err(e) => {
                errors.insert(q.id.0.clone(), e.to_string());
            }
        }
        dataset.questions.push(run_q);
    }
    if let Some(why) = &stopped {
        for (i, q) in gold.questions.iter().enumerate() {
            if !asked[i] {
                errors.insert(q.id.0.clone(), format!("not asked: {why}"));
                dataset.questions.push(Question {
                    id: q.id.clone(),
                    ..Question::default()
                });
            }
        }
    }
    let mut run = LiveRun {
        dataset,
        errors,
        runtimes_ms,
        stopped,
    };
    run.dataset.calls = Some(Calls {
        errors: run.errors.clone(),
        runtime_ms_mean: run.mean_runtime_ms(),
        stopped: run.stopped.clone(),
    });
    Ok(run)
}

/// What one call gave: the answers and the runtime in milliseconds, or why it failed.
type Outcome = Result<(AnswerSet, f64), CallError>;

/// A transport error (a timeout says so).
fn describe(e: &ureq::Error) -> CallError {
    let text = e.to_string();
    if text.contains("timed out") || text.contains("Timeout") || text.contains("timeout") {
        CallError::Timeout(text)
    } else {
        CallError::Transport(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_allowed_hosts() {
        assert_eq!(
            host_of("http://127.0.0.1:8080/qa").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(
            host_of("https://User@QA.example.org/x").as_deref(),
            Some("qa.example.org")
        );
        assert_eq!(host_of("http://[::1]:9/").as_deref(), Some("::1"));
        assert_eq!(host_of("ftp://x"), None);
        let loopback = LiveOptions {
            allowed_hosts: Some(
                LOOPBACK
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect(),
            ),
            ..LiveOptions::default()
        };
        assert!(check_url("http://localhost:1/qa", &loopback).is_ok());
        let err = check_url("http://10.0.0.1/qa", &loopback).unwrap_err();
        assert!(err.to_string().contains("10.0.0.1"), "{err}");
        assert!(check_url("http://10.0.0.1/qa", &LiveOptions::default()).is_ok());
        assert!(matches!(
            check_url("localhost:8080", &loopback),
            Err(LiveError::Url { .. })
        ));
    }

    #[test]
    fn answers_as_qald_json_or_sparql_results() {
        let qald = br#"{"questions":[{"id":"1","answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"uri","value":"http://e.org/a"}}]}}]}]}"#;
        assert_eq!(read_answer(qald).unwrap().answers.len(), 1);
        let bare = br#"{"head":{},"boolean":true}"#;
        assert_eq!(read_answer(bare).unwrap().answers.len(), 1);
        assert!(read_answer(b"<html>").is_err());
        assert!(read_answer(br#"{"x":1}"#).is_err());
    }
}
