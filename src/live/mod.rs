//! The client that asks a live QA system over HTTP (the one module that names
//! ureq). Two protocols: the convention QA systems implement for GERBIL QA (a
//! form POST with `query` = the question text and `lang`, answered with
//! QALD-JSON, whose query and eQALD annotations are kept) and the TEXT2SPARQL
//! challenge's API (`GET URL?dataset=ID&question=TEXT`, answered with
//! `{dataset, question, query}`: the query is executed later on the knowledge
//! graph). Calls run with a per-call timeout and bounded concurrency; when asked
//! (`retries`, off by default) transient failures (connection refused, HTTP
//! 5xx) are tried again with exponential backoff;
//! failed calls are counted (they score as empty answers), the runtime of
//! successful calls is measured, and a run stops when its error rate passes a
//! maximum. Answers can be kept in an on-disk cache (`cache`) so that an
//! interrupted run resumes. `target` parses and checks a system URL (with the
//! client's own URL parser, against the allow-list) and pins the client to the
//! addresses it checked; redirects are never followed. `endpoint` asks SPARQL
//! endpoints through the same HTTP client.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::eval::recorded::{Asked, SystemTape, MAX_RECORDED_BYTES};
use crate::eval::Deadline;
use crate::model::{AnswerSet, Dataset, Query, Question};

mod cache;
mod endpoint;
mod options;
mod replay;
mod run;
mod target;
pub use cache::{AnswerCache, CacheError, CacheKey, CACHE_FILE};
pub use endpoint::{
    sparql_request, sparql_request_with, ChatServer, EndpointReply, RequestSettings,
};
pub use options::{protocol_for, LiveOptions, Protocol, LOOPBACK};
pub use replay::{read_reply, NotRecorded, Replaying};
use run::{call_notes, live_run};
use target::Target;
pub use target::{endpoint_url, host_of, system_name, QLEVER_API};

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
    /// The URL cannot be parsed at all.
    #[error("system url {url:?} cannot be parsed ({reason}); give one like http://host:port/path")]
    Unparsable {
        /// The URL given.
        url: String,
        /// The parser's reason.
        reason: String,
    },
    /// The URL carries a user name or password.
    #[error("system url {url:?} has user-info (a user name or password before the host); remove the user-info and give it as {without:?}")]
    UserInfo {
        /// The URL as parsed, its password masked.
        url: String,
        /// The URL without the user-info.
        without: String,
    },
    /// The host name does not resolve (checked only under an allow-list).
    #[error(
        "system host {host:?} cannot be resolved ({reason}); check the name or give an ip address"
    )]
    Unresolvable {
        /// The host of the URL.
        host: String,
        /// The resolver's reason.
        reason: String,
    },
    /// The host is not allowed.
    #[error("system host {host:?} is not allowed{}; the server calls only hosts given with --allow-system-host ({allowed})", resolved_to(.addresses))]
    HostNotAllowed {
        /// The host of the URL (as the client reads it: a numeric IPv4 host as
        /// a dotted quad).
        host: String,
        /// The addresses it resolves to that no allowed host has (empty when
        /// that is the host itself).
        addresses: Vec<std::net::IpAddr>,
        /// The allowed hosts.
        allowed: String,
    },
    /// TEXT2SPARQL needs a dataset id and none is known.
    #[error("system {url:?} speaks text2sparql, which sends a dataset id with each question, and the gold benchmark has none; give one with --dataset ID")]
    NoDataset {
        /// The system URL.
        url: String,
    },
    /// The answer cache cannot be opened.
    #[error("{0}")]
    Cache(String),
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
    /// Answers read from the cache instead of a call.
    pub cached: usize,
    /// Calls made again after a transient failure.
    pub retried: usize,
    /// The record of every call (docs/reproduce.md), its `run` unnamed.
    pub tape: SystemTape,
}

impl LiveRun {
    /// The mean runtime of successful calls in milliseconds.
    pub fn mean_runtime_ms(&self) -> Option<f64> {
        (!self.runtimes_ms.is_empty())
            .then(|| self.runtimes_ms.iter().sum::<f64>() / self.runtimes_ms.len() as f64)
    }
}

/// The ` (it resolves to …)` part of a refusal, empty without addresses.
fn resolved_to(addresses: &[std::net::IpAddr]) -> String {
    if addresses.is_empty() {
        return String::new();
    }
    let list: Vec<String> = addresses.iter().map(ToString::to_string).collect();
    format!(" (it resolves to {})", list.join(", "))
}

/// Checks that a URL may be called under the options: parsed by the HTTP
/// client's parser, without user-info, and, under an allow-list, every address
/// of its host allowed (see `target`). The call itself checks again and
/// connects only to the addresses it checked.
pub fn check_url(url: &str, opts: &LiveOptions) -> Result<(), LiveError> {
    target::check(url, opts.allowed_hosts.as_deref()).map(|_| ())
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
    /// A TEXT2SPARQL answer without a query.
    #[error("the answer has no \"query\" string; the TEXT2SPARQL API answers {{dataset, question, query}}")]
    NoQuery,
    /// The body is QALD-shaped but cannot be read.
    #[error("unreadable answer: {0}")]
    Unreadable(crate::qald::QaldError),
    /// The body could not be read off the connection.
    #[error("reading the answer failed: {0}")]
    Read(std::io::Error),
    /// The system answered with an HTTP error status.
    #[error("http status {0}")]
    Status(u16),
    /// The system answered with a redirect, which is not followed.
    #[error("the system redirected (http status {status}) to {}; redirects are not followed: give the url it redirects to as the system url", location(.host))]
    Redirect {
        /// The 3xx status.
        status: u16,
        /// The host of its `Location`, when it can be read.
        host: Option<String>,
    },
    /// An endpoint redirected to a URL that is not `http` or `https` (or not
    /// a URL), or redirected more than [`endpoint::MAX_REDIRECTS`] times.
    #[error("the endpoint redirected (http status {status}) to {location:?}, which is not followed: only http and https urls are, at most 5 times; give the url it should answer at")]
    BadRedirect {
        /// The 3xx status.
        status: u16,
        /// The `Location` as sent.
        location: String,
    },
    /// The call timed out.
    #[error("timed out ({0})")]
    Timeout(String),
    /// The call failed in transport (connection refused, DNS, TLS …).
    #[error("call failed ({0})")]
    Transport(String),
    /// A failure a report recorded, replayed (its words as recorded).
    #[error("{0}")]
    Recorded(String),
}

/// Reads a GERBIL-protocol answer body: a QALD-JSON document (its first
/// question: answers, query and eQALD annotations) or a bare SPARQL-results
/// object. A question that gives a query and no answers keeps `answers: None`, so
/// that its query is executed when a knowledge graph is given.
fn read_qald_answer(body: &[u8]) -> Result<Question, CallError> {
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
    let mut q = dataset.questions.into_iter().next().unwrap_or_default();
    if q.answers.is_none() && !matches!(q.query, Query::Sparql(_)) {
        q.answers = Some(AnswerSet::default());
    }
    Ok(q)
}

/// Reads an answer body as `protocol` answers.
fn read_answer(protocol: Protocol, body: &[u8]) -> Result<Question, CallError> {
    match protocol {
        Protocol::Gerbil => read_qald_answer(body),
        Protocol::Text2sparql => read_text2sparql_answer(body),
    }
}

/// Reads a TEXT2SPARQL answer body, `{dataset, question, query}`: a question
/// whose query is to be executed.
fn read_text2sparql_answer(body: &[u8]) -> Result<Question, CallError> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(CallError::NotJson)?;
    match value.get("query").and_then(serde_json::Value::as_str) {
        Some(query) if !query.trim().is_empty() => Ok(Question {
            query: Query::Sparql(query.to_string()),
            ..Question::default()
        }),
        _ => Err(CallError::NoQuery),
    }
}

/// One question as it is sent.
struct Ask {
    /// The cache key (it holds the dataset, language and text sent).
    key: CacheKey,
}

/// What one question's call gave.
struct Answered {
    /// The answer as a question (answers, or a query to execute, and annotations).
    question: Question,
    /// The runtime of the call in milliseconds.
    ms: f64,
    /// True when it came from the cache.
    cached: bool,
    /// The body as sent (recorded in the report).
    body: String,
    /// The system's `Server` header, if it sent one.
    server: Option<String>,
    /// True when the body is not kept: the record's bound was reached
    /// (docs/reproduce.md; `body` is then empty).
    omitted: bool,
}

/// The outcome of one question: its answer, or why it failed; and the calls made.
type Outcome = (Result<Answered, CallError>, u32);

/// Where a redirect pointed, for its message: `host "…"`, or that its
/// `Location` could not be read.
fn location(host: &Option<String>) -> String {
    match host {
        Some(h) => format!("host {h:?}"),
        None => "no readable location".to_string(),
    }
}

/// Sends one question once; the body of a 2xx answer with the `Server`
/// header, or why not (a 3xx answer is a `Redirect` error: the agent follows
/// none).
fn call_once(
    agent: &ureq::Agent,
    target: &Target,
    protocol: Protocol,
    key: &CacheKey,
) -> Result<(Vec<u8>, Option<String>), CallError> {
    let url = target.as_str();
    let sent = match protocol {
        Protocol::Gerbil => agent
            .post(url)
            .set("Accept", "application/json")
            .send_form(&[("query", &key.question), ("lang", &key.lang)]),
        Protocol::Text2sparql => agent
            .get(url)
            .query("dataset", &key.dataset)
            .query("question", &key.question)
            .set("Accept", "application/json")
            .call(),
    };
    match sent {
        Ok(response) if (300..400).contains(&response.status()) => Err(CallError::Redirect {
            status: response.status(),
            host: response
                .header("location")
                .and_then(|l| target.location_host(l)),
        }),
        Ok(response) => {
            let server = response.header("server").map(|s| {
                s.chars()
                    .take(200)
                    .collect::<String>()
                    .escape_debug()
                    .to_string()
            });
            let mut body = Vec::new();
            response
                .into_reader()
                .take(64 << 20)
                .read_to_end(&mut body)
                .map_err(CallError::Read)?;
            Ok((body, server))
        }
        Err(ureq::Error::Status(code, _)) => Err(CallError::Status(code)),
        Err(e) => Err(describe(&e)),
    }
}

/// Asks one question: from the cache, else by calling the system with retries
/// and backoff on transient failures; a readable answer is added to the cache.
/// A backoff ends when `deadline` passes, and no retry is sent then.
fn ask_one(
    agent: &ureq::Agent,
    target: &Target,
    opts: &LiveOptions,
    cache: Option<&AnswerCache>,
    ask: &Ask,
    deadline: &Deadline,
) -> Outcome {
    let read = |body: &[u8]| read_answer(opts.protocol, body);
    if let Some((body, ms)) = cache.and_then(|c| c.get(&ask.key)) {
        if let Ok(question) = read(body.as_bytes()) {
            return (
                Ok(Answered {
                    question,
                    ms,
                    cached: true,
                    body: body.to_string(),
                    server: None,
                    omitted: false,
                }),
                0,
            );
        }
    }
    let mut attempts = 0;
    loop {
        attempts += 1;
        let started = Instant::now();
        let result = call_once(agent, target, opts.protocol, &ask.key);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        match result {
            Err(e) if e.is_transient() && attempts <= opts.retries => {
                if deadline.sleep(opts.backoff * 2u32.saturating_pow(attempts - 1)) {
                    return (Err(e), attempts);
                }
            }
            Err(e) => return (Err(e), attempts),
            Ok((body, server)) => {
                let outcome = read(&body).map(|question| {
                    // a readable answer is JSON, so UTF-8: nothing is lost
                    let body = String::from_utf8_lossy(&body).into_owned();
                    if let Some(cache) = cache {
                        // a cache that cannot be written only costs a new call later
                        let _ = cache.put(ask.key.clone(), &body, ms);
                    }
                    Answered {
                        question,
                        ms,
                        cached: false,
                        body,
                        server,
                        omitted: false,
                    }
                });
                return (outcome, attempts);
            }
        }
    }
}

/// The dataset id sent with each question: `--dataset`, else the gold
/// benchmark's id.
fn dataset_id(gold: &Dataset, opts: &LiveOptions) -> Option<String> {
    opts.dataset.clone().or_else(|| gold.id.clone())
}

/// What is sent for each gold question.
fn asks(url: &str, gold: &Dataset, opts: &LiveOptions) -> Result<Vec<Ask>, LiveError> {
    let dataset = dataset_id(gold, opts);
    if opts.protocol == Protocol::Text2sparql && dataset.is_none() {
        return Err(LiveError::NoDataset {
            url: url.to_string(),
        });
    }
    Ok(gold
        .questions
        .iter()
        .map(|q| {
            // TEXT2SPARQL: one request per (question, language), in the question's
            // own language; GERBIL: the language asked for
            let lang = match opts.protocol {
                Protocol::Text2sparql => q.language().unwrap_or(&opts.lang).to_string(),
                Protocol::Gerbil => opts.lang.clone(),
            };
            Ask {
                key: CacheKey {
                    protocol: opts.protocol.name().to_string(),
                    system: url.to_string(),
                    dataset: dataset.clone().unwrap_or_default(),
                    question: q.text(&lang).unwrap_or_default().to_string(),
                    lang,
                },
            }
        })
        .collect())
}

/// Live systems asked with these options, as the evaluation pipeline
/// ([`crate::eval::job`]) asks them.
pub struct Asking(pub LiveOptions);

impl crate::eval::job::Systems for Asking {
    fn ask(
        &self,
        url: &str,
        gold: &Dataset,
        deadline: &Deadline,
        asked: &(dyn Fn() + Sync),
    ) -> Result<(Dataset, SystemTape), crate::eval::job::SystemError> {
        let run = ask_all_until(url, gold, &self.0, deadline, &|_, _| asked())?;
        Ok((run.dataset, run.tape))
    }
}

/// Asks the system at `url` every question of `gold`. `progress` is called with
/// (calls done, calls to make) after each question.
pub fn ask_all(
    url: &str,
    gold: &Dataset,
    opts: &LiveOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<LiveRun, LiveError> {
    ask_all_until(url, gold, opts, &Deadline::default(), progress)
}

/// [`ask_all`], sending no request once `deadline` has passed (a host's
/// Ctrl-C, a request's time limit): the calls in flight then end within their
/// timeout, and the questions not asked are in the run's `stopped`.
pub fn ask_all_until(
    url: &str,
    gold: &Dataset,
    opts: &LiveOptions,
    deadline: &Deadline,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<LiveRun, LiveError> {
    let target = target::check(url, opts.allowed_hosts.as_deref())?;
    let asks = asks(url, gold, opts)?;
    let cache = opts
        .cache
        .as_deref()
        .map(AnswerCache::open)
        .transpose()
        .map_err(|e| LiveError::Cache(e.to_string()))?;
    let agent = target.agent(opts.timeout);
    let at = crate::clock::now_rfc3339();
    let (results, stopped) = call_all(
        &agent,
        &target,
        opts,
        cache.as_ref(),
        &asks,
        deadline,
        progress,
    );
    let mut run = live_run(gold, results, stopped, |cached, retried| {
        call_notes(cache.as_ref(), cached, retried)
    });
    run.tape.url = url.to_string();
    run.tape.at = at;
    run.tape.asked = asked(gold, opts);
    Ok(run)
}

/// How the calls were made, as the record keeps it.
fn asked(gold: &Dataset, opts: &LiveOptions) -> Asked {
    Asked {
        protocol: opts.protocol.name().to_string(),
        lang: opts.lang.clone(),
        dataset: dataset_id(gold, opts).filter(|_| opts.protocol == Protocol::Text2sparql),
        timeout_ms: opts.timeout.as_millis() as u64,
        retries: opts.retries,
        max_error_rate: opts.max_error_rate,
        min_calls: opts.min_calls,
    }
}

/// Makes the calls of `asks` on `opts.concurrency` threads, each taking the
/// next ask, until all are made, the error rate passes the maximum (after
/// `min_calls`) or `deadline` passes (each thread looks before each ask); the
/// outcomes by the asks' places, in order, and why the calls stopped early if
/// they did. `progress` is called as [`ask_all`]'s.
fn call_all(
    agent: &ureq::Agent,
    target: &Target,
    opts: &LiveOptions,
    cache: Option<&AnswerCache>,
    asks: &[Ask],
    deadline: &Deadline,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> (Vec<(usize, Outcome)>, Option<String>) {
    let total = asks.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    // the bodies kept for the record, counted as they arrive: past the
    // bound a body is dropped at once, not held until every call is made
    let kept = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(total));
    let stopped: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..opts.concurrency.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                if deadline.passed() {
                    if !stop.swap(true, Ordering::SeqCst) {
                        if let Ok(mut s) = stopped.lock() {
                            *s = Some("the evaluation was stopped".to_string());
                        }
                    }
                    return;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(ask) = asks.get(i) else {
                    return;
                };
                let mut outcome = ask_one(agent, target, opts, cache, ask, deadline);
                if let Ok(answered) = &mut outcome.0 {
                    let len = answered.body.len();
                    if kept.fetch_add(len, Ordering::SeqCst) + len > MAX_RECORDED_BYTES {
                        answered.body = String::new();
                        answered.omitted = true;
                    }
                }
                if outcome.0.is_err() {
                    failed.fetch_add(1, Ordering::SeqCst);
                }
                let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                if let Ok(mut r) = results.lock() {
                    r.push((i, outcome));
                }
                progress(n, total);
                let f = failed.load(Ordering::SeqCst);
                let over = |rate: f64| f as f64 / n as f64 > rate;
                if n >= opts.min_calls && opts.max_error_rate.is_some_and(over) {
                    if !stop.swap(true, Ordering::SeqCst) {
                        if let Ok(mut s) = stopped.lock() {
                            *s = Some(format!(
                                "stopped after {n} calls: {f} failed, more than the maximum error rate {}",
                                opts.max_error_rate.unwrap_or_default()
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
    (results, stopped.into_inner().unwrap_or_default())
}

/// A transport error (a timeout says so).
fn describe(e: &ureq::Error) -> CallError {
    let text = e.to_string();
    if text.contains("timed out") || text.contains("Timeout") || text.contains("timeout") {
        CallError::Timeout(text)
    } else {
        CallError::Transport(text)
    }
}

impl CallError {
    /// True for failures that may pass when the call is made again: the
    /// connection failed, or the system answered with a 5xx status.
    pub fn is_transient(&self) -> bool {
        match self {
            CallError::Transport(_) => true,
            CallError::Status(code) => *code >= 500,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;

    #[test]
    fn only_gerbil_stops_a_failing_system_unless_the_user_says() {
        use crate::eval::Profile;
        let stop = |o: LiveOptions, p: Profile| o.for_profile(p).max_error_rate;
        assert_eq!(stop(LiveOptions::default(), Profile::Gerbil), Some(0.5));
        assert_eq!(stop(LiveOptions::default(), Profile::Judge), None);
        assert_eq!(stop(LiveOptions::default(), Profile::Text2sparql), None);
        let given = LiveOptions {
            max_error_rate: Some(0.9),
            ..LiveOptions::default()
        };
        assert_eq!(stop(given.clone(), Profile::Gerbil), Some(0.9));
        assert_eq!(stop(given, Profile::Judge), Some(0.9));
    }

    /// A loopback QA system answering every request with an empty result,
    /// counting the requests it received; its URL.
    fn counting_system(served: std::sync::Arc<AtomicUsize>) -> String {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}/qa", listener.local_addr().expect("its address"));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let mut reader = BufReader::new(stream);
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                served.fetch_add(1, Ordering::SeqCst);
                let answer = r#"{"head":{"vars":["x"]},"results":{"bindings":[]}}"#;
                let _ = write!(
                    reader.get_mut(),
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        url
    }

    #[test]
    fn no_request_is_sent_once_the_deadline_passed() {
        let served = std::sync::Arc::new(AtomicUsize::new(0));
        let url = counting_system(std::sync::Arc::clone(&served));
        let questions: Vec<String> = (1..=10)
            .map(|i| format!(r#"{{"id":"{i}","question":[{{"language":"en","string":"q{i}"}}]}}"#))
            .collect();
        let gold = crate::qald::parse(
            format!(r#"{{"questions":[{}]}}"#, questions.join(",")).as_bytes(),
            "gold",
        )
        .expect("a gold");
        let opts = LiveOptions {
            concurrency: 1,
            ..LiveOptions::default()
        };
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let deadline = Deadline::on(std::sync::Arc::clone(&stop));
        // stopped once three questions were answered
        let run = ask_all_until(&url, &gold, &opts, &deadline, &|done, _| {
            if done == 3 {
                stop.store(true, Ordering::SeqCst);
            }
        })
        .expect("asked");
        assert_eq!(served.load(Ordering::SeqCst), 3);
        assert_eq!(run.stopped.as_deref(), Some("the evaluation was stopped"));
        assert_eq!(run.errors.len(), 7, "{:?}", run.errors);
        // a deadline that never passes asks them all
        let run = ask_all(&url, &gold, &opts, &|_, _| {}).expect("asked");
        assert_eq!(served.load(Ordering::SeqCst), 13);
        assert!(
            run.stopped.is_none() && run.errors.is_empty(),
            "{:?}",
            run.errors
        );
    }

    #[test]
    fn a_text2sparql_benchmark_or_profile_asks_in_its_protocol() {
        use crate::eval::Profile;
        let qald = Dataset::new(Format::QaldJson);
        let yaml = Dataset::new(Format::Text2SparqlYaml);
        assert_eq!(protocol_for(&qald, Profile::Judge), Protocol::Gerbil);
        assert_eq!(protocol_for(&yaml, Profile::Judge), Protocol::Text2sparql);
        assert_eq!(
            protocol_for(&qald, Profile::Text2sparql),
            Protocol::Text2sparql
        );
    }

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
        let answers = |b: &[u8]| read_qald_answer(b).unwrap().answers.unwrap();
        assert_eq!(answers(qald).answers.len(), 1);
        let bare = br#"{"head":{},"boolean":true}"#;
        assert_eq!(answers(bare).answers.len(), 1);
        assert!(read_qald_answer(b"<html>").is_err());
        assert!(read_qald_answer(br#"{"x":1}"#).is_err());
    }

    #[test]
    fn a_gerbil_answer_keeps_its_query_and_annotations() {
        let body = br#"{"questions":[{"id":"7","query":{"sparql":"SELECT ?x WHERE { ?x a <http://e.org/C> }"},"answers":[]}]}"#;
        let q = read_qald_answer(body).unwrap();
        assert!(matches!(q.query, Query::Sparql(ref s) if s.contains("http://e.org/C")));
        assert_eq!(q.answers.map(|a| a.answers.len()), Some(0));
        // a query without answers is left to be executed
        let body = br#"{"questions":[{"id":"7","query":{"sparql":"ASK {}"}}]}"#;
        assert_eq!(read_qald_answer(body).unwrap().answers, None);
    }

    #[test]
    fn text2sparql_answers_carry_a_query() {
        let q = read_text2sparql_answer(
            br#"{"dataset":"https://e.org/ds/","question":"Who?","query":"SELECT * {?s ?p ?o}"}"#,
        )
        .unwrap();
        assert_eq!(q.query, Query::Sparql("SELECT * {?s ?p ?o}".into()));
        assert_eq!(q.answers, None);
        for bad in [&br#"{"query":""}"#[..], br#"{"dataset":"x"}"#, b"[1]"] {
            let err = read_text2sparql_answer(bad).unwrap_err();
            assert!(err.to_string().contains("query"), "{err}");
        }
        assert!(matches!(
            read_text2sparql_answer(b"<html>"),
            Err(CallError::NotJson(_))
        ));
    }

    #[test]
    fn transient_failures_are_connection_and_5xx() {
        assert!(CallError::Transport("refused".into()).is_transient());
        assert!(CallError::Status(503).is_transient());
        assert!(!CallError::Status(404).is_transient());
        assert!(!CallError::Timeout("t".into()).is_transient());
        assert!(!CallError::Shape.is_transient());
    }
}
