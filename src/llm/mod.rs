//! The optional LLM judge (docs/scoring.md, The LLM judge): what the string,
//! literal and label rules cannot decide — a free-text run answer against a
//! gold answer, and on request a query pair whose algebra equivalence is
//! `unknown` — asked of an OpenAI-compatible chat-completions server, one call
//! per decision, temperature 0, a fixed seed and a versioned prompt. This
//! module owns the asking: the cache first, then the calls with bounded
//! concurrency, retries with backoff on 429 and 5xx, and every failure turned
//! into an `unsure` verdict with a diagnostic, never an abort. It names no HTTP
//! client: the caller hands it a [`Transport`] (the live client's
//! `live::ChatServer`), which alone holds the server's URL and key. `prompt`
//! owns the prompt and the reading of replies, `cache` the verdicts on disk,
//! `kappa` the agreement with exact match, `answers` which answer pairs are
//! asked and how `same` verdicts add matches, `queries` the query pairs,
//! `report` the report's part.

pub mod answers;
pub mod cache;
pub mod counts;
pub mod kappa;
pub mod prompt;
pub mod queries;
pub mod report;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use answers::{judge_answers, Judged, QuestionPairs};
pub use cache::{cache_key, default_cache_dir, CacheError, Identity, VerdictCache};
pub use counts::VerdictCounts;
pub use kappa::{kappa, Agreement};
pub use prompt::PROMPT_VERSION;
pub use queries::{judge_queries, QueryPair};
pub use report::{ExactFigures, JudgeReport, QueryJudgement};

/// The judge's verdict on one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The two name the same thing: the pair counts as matched.
    Same,
    /// They differ.
    Different,
    /// The judge cannot tell, or gave no readable verdict: counts as different.
    Unsure,
}

/// What a pair is, and which of the two prompts asks about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskKind {
    /// A free-text run answer against a gold answer.
    Answer,
    /// A run query against the gold query.
    Query,
    /// An answer pair judged `same`, asked again with the second,
    /// independent prompt ([`prompt::user_message`]: the texts in the other
    /// order, under neutral names, the question turned round and answered
    /// in other words).
    AnswerCheck,
    /// A query pair judged `same`, asked again so.
    QueryCheck,
}

impl AskKind {
    /// The kind that checks a `same` of this kind (none for a check).
    fn check(self) -> Option<AskKind> {
        match self {
            AskKind::Answer => Some(AskKind::AnswerCheck),
            AskKind::Query => Some(AskKind::QueryCheck),
            AskKind::AnswerCheck | AskKind::QueryCheck => None,
        }
    }

    /// True for the kinds of query pairs.
    fn is_query(self) -> bool {
        matches!(self, AskKind::Query | AskKind::QueryCheck)
    }
}

/// One decision asked of the judge: texts as they are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    /// Answers or queries.
    pub kind: AskKind,
    /// The question text (empty when the gold has none).
    pub question: String,
    /// The gold answer or query.
    pub gold: String,
    /// The run answer or query.
    pub run: String,
}

impl Ask {
    /// The ask with its texts cut to the bounds of [`prompt`].
    fn bounded(&self) -> Ask {
        let max = if self.kind.is_query() {
            prompt::MAX_QUERY_CHARS
        } else {
            prompt::MAX_ANSWER_CHARS
        };
        Ask {
            kind: self.kind,
            question: prompt::cut(&self.question, prompt::MAX_ANSWER_CHARS),
            gold: prompt::cut(&self.gold, max),
            run: prompt::cut(&self.run, max),
        }
    }
}

/// Why an ask was not sent (docs/scoring.md, The LLM judge).
#[derive(Debug, Clone, Copy, thiserror::Error)]
enum Refusal {
    /// The evaluation's calls were all made.
    #[error(
        "the judge was not asked: this evaluation's {0} judge calls (--llm-max-calls) were made"
    )]
    Calls(usize),
    /// The evaluation's time for calls, in seconds, was spent.
    #[error("the judge was not asked: this evaluation's {0} s for judge calls (--llm-deadline) were spent")]
    Deadline(u64),
}

/// Where a verdict came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The cache, or an identical ask of the same batch.
    Cached,
    /// A call to the server.
    Called,
    /// No call: the evaluation's calls or time for the judge were spent.
    Refused,
}

/// The judge's answer to one ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// Cached or called.
    pub source: Source,
    /// True when no verdict was had (timeout, transport failure, HTTP error,
    /// an unreadable reply): the verdict is `unsure` and is not cached.
    pub failed: bool,
    /// True when the server replied with a text that is no verdict
    /// ([`prompt::parse_word`]): counted apart from failed calls.
    pub unreadable: bool,
    /// Why the verdict is `unsure` when the reply did not say so.
    pub diagnostic: Option<String>,
    /// The second prompt's answer, when the first said `same`
    /// ([`Judge::decide_all`]): the verdict stays `same` only when it agrees.
    pub check: Option<Check>,
}

/// What the second, independent prompt gave for a pair the first called
/// `same` (docs/scoring.md, The LLM judge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// Its verdict (`same` confirms the first).
    pub verdict: Verdict,
    /// Cached, called or refused.
    pub source: Source,
    /// No verdict was had (as [`Decision::failed`]).
    pub failed: bool,
    /// The reply was no verdict in the second prompt's words.
    pub unreadable: bool,
}

impl Decision {
    /// A verdict read from the cache or a reply, with no diagnostic.
    fn read(verdict: Verdict, source: Source) -> Decision {
        Decision {
            verdict,
            source,
            failed: false,
            unreadable: false,
            diagnostic: None,
            check: None,
        }
    }

    /// An `unsure` with no verdict had, and why.
    fn unsure(source: Source, why: String) -> Decision {
        Decision {
            verdict: Verdict::Unsure,
            source,
            failed: true,
            unreadable: false,
            diagnostic: Some(why),
            check: None,
        }
    }

    /// True when the first prompt said `same` and the second, asked and
    /// answered, did not confirm it (`distinct`, `unclear`, or a reply in
    /// no word of its own, as an obeyed `same`): the verdict is `unsure`. A
    /// second ask refused (calls or time spent) or without a reply also
    /// leaves the verdict `unsure`, but is no flip: it is counted as refused
    /// or failed.
    pub fn flipped(&self) -> bool {
        self.check.is_some_and(|c| {
            let answered = c.source != Source::Refused && (!c.failed || c.unreadable);
            answered && c.verdict != Verdict::Same
        })
    }

    /// This decision (a `same` of the first prompt) with the second
    /// prompt's decision: kept `same` when that is `same`, else `unsure`
    /// with a diagnostic saying what the second prompt gave.
    fn checked_by(self, second: &Decision) -> Decision {
        let check = Check {
            verdict: second.verdict,
            source: second.source,
            failed: second.failed,
            unreadable: second.unreadable,
        };
        if second.verdict == Verdict::Same {
            return Decision {
                check: Some(check),
                ..self
            };
        }
        let gave = match (&second.diagnostic, second.verdict) {
            (Some(why), _) => format!("no verdict ({why})"),
            (None, v) => format!("{v:?}").to_lowercase(),
        };
        Decision {
            verdict: Verdict::Unsure,
            diagnostic: Some(format!(
                "the judge said same, then {gave} when asked again with the second prompt (the texts in the other order, the question turned round): counted unsure (docs/scoring.md, The LLM judge)"
            )),
            check: Some(check),
            ..self
        }
    }
}

/// What the server answered to one POST.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Vec<u8>,
    /// `Retry-After` as sent, if any.
    pub retry_after: Option<String>,
}

/// A POST that got no reply. Its text never holds the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The request timed out.
    #[error(
        "the call to the judge timed out ({0}); give a longer --llm-timeout or check the server"
    )]
    Timeout(String),
    /// The connection failed.
    #[error("the call to the judge failed ({0}); check that the server at --llm-judge runs")]
    Failed(String),
}

/// How a chat-completions request reaches the server: a JSON body POSTed to
/// `{base}/chat/completions`, with the key (if any) as a bearer token.
pub trait Transport: Send + Sync {
    /// What names the server for the verdict cache: its URL's scheme, host,
    /// port and path (never a key, user or query).
    fn identity(&self) -> String;

    /// Sends one request body once.
    fn post(&self, body: &[u8]) -> Result<Reply, TransportError>;
}

/// How the judge asks.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    /// The model name sent (`--llm-model`).
    pub model: String,
    /// Also judge query pairs whose equivalence is `unknown` (`--llm-queries`).
    pub queries: bool,
    /// The verdict cache directory (`None`: no cache).
    pub cache: Option<PathBuf>,
    /// Calls at once.
    pub concurrency: usize,
    /// Calls made again after a 429, a 5xx or a failed connection.
    pub retries: u32,
    /// Ask again what the cache holds, and keep the new verdicts in its
    /// place (`--llm-refresh`).
    pub refresh: bool,
    /// The first wait before a retry, doubled at each one.
    pub backoff: Duration,
    /// The most calls one evaluation makes (`--llm-max-calls`): an ask past
    /// them is `unsure`, a failure with a diagnostic, never cached.
    pub max_calls: usize,
    /// The time one evaluation's calls may take from its first
    /// (`--llm-deadline`): an ask after it is `unsure`, a failure with a
    /// diagnostic, and no retry starts after it.
    pub deadline: Duration,
    /// The verdicts the cache may still take, shared by every judge of a
    /// long-running process (the server's, so that its clients cannot fill
    /// the disk); past it verdicts are not kept (a later evaluation asks
    /// again). `None`: no bound (the command line's own cache).
    pub cache_writes: Option<Arc<AtomicU64>>,
}

/// The default number of calls at once.
pub const DEFAULT_CONCURRENCY: usize = 4;
/// The default number of retries.
pub const DEFAULT_RETRIES: u32 = 3;
/// The longest wait a `Retry-After` may ask for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The default number of calls one evaluation makes.
pub const DEFAULT_MAX_CALLS: usize = 10_000;
/// The default time one evaluation's calls may take.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(3600);

impl JudgeSettings {
    /// The defaults for a model: 4 calls at once, 3 retries from 1 s, no
    /// cache, at most 10,000 calls in one hour.
    pub fn new(model: impl Into<String>) -> JudgeSettings {
        JudgeSettings {
            model: model.into(),
            queries: false,
            cache: None,
            concurrency: DEFAULT_CONCURRENCY,
            retries: DEFAULT_RETRIES,
            refresh: false,
            backoff: Duration::from_secs(1),
            max_calls: DEFAULT_MAX_CALLS,
            deadline: DEFAULT_DEADLINE,
            cache_writes: None,
        }
    }
}

/// The judge: settings, the cache and the way to the server.
pub struct Judge {
    settings: JudgeSettings,
    /// The server, as the cache names it ([`Transport::identity`]).
    server: String,
    cache: Option<VerdictCache>,
    transport: Box<dyn Transport>,
    /// Calls granted (retries not counted), against `max_calls`.
    calls: AtomicUsize,
    /// When the first call began, against `deadline`.
    started: OnceLock<Instant>,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // the transport holds the key: never printed
        f.debug_struct("Judge")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Judge {
    /// A judge asking through `transport`; opens the cache directory.
    pub fn new(
        settings: JudgeSettings,
        transport: Box<dyn Transport>,
    ) -> Result<Judge, CacheError> {
        let cache = settings
            .cache
            .as_deref()
            .map(VerdictCache::open)
            .transpose()?;
        Ok(Judge {
            server: transport.identity(),
            settings,
            cache,
            transport,
            calls: AtomicUsize::new(0),
            started: OnceLock::new(),
        })
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.settings.model
    }

    /// Who this judge's verdicts are kept under in the cache.
    fn identity(&self) -> Identity<'_> {
        Identity {
            judge: &self.server,
            model: &self.settings.model,
            prompt_version: PROMPT_VERSION,
        }
    }

    /// The server the verdicts come from, as the cache names it (its URL
    /// without credentials).
    pub fn server(&self) -> &str {
        &self.server
    }

    /// True when query pairs are judged too.
    pub fn judges_queries(&self) -> bool {
        self.settings.queries
    }

    /// One decision per ask, in order. Each ask is decided by the first
    /// prompt ([`Judge::decide_round`]); every `same` is then asked again
    /// with the second, independent prompt, and stays `same` only when that
    /// agrees: a verdict that flips is `unsure` (docs/scoring.md, The LLM
    /// judge). Only a `same` can add a match, so only a `same` costs a
    /// second call; a `different` or `unsure` is never asked again.
    pub fn decide_all(&self, asks: &[Ask]) -> Vec<Decision> {
        let mut first = self.decide_round(asks);
        let (at, checks): (Vec<usize>, Vec<Ask>) = first
            .iter()
            .zip(asks)
            .enumerate()
            .filter(|(_, (d, _))| d.verdict == Verdict::Same)
            .filter_map(|(i, (_, a))| {
                let kind = a.kind.check()?;
                Some((i, Ask { kind, ..a.clone() }))
            })
            .unzip();
        let second = self.decide_round(&checks);
        for (i, s) in at.into_iter().zip(&second) {
            let d = std::mem::replace(
                &mut first[i],
                Decision::read(Verdict::Unsure, Source::Refused),
            );
            first[i] = d.checked_by(s);
        }
        first
    }

    /// One decision per ask, in order, each by the prompt of its kind: from
    /// the cache where it has one (an ask repeated in `asks` is called once),
    /// else by a call; at most `concurrency` calls at once.
    fn decide_round(&self, asks: &[Ask]) -> Vec<Decision> {
        let sent: Vec<Ask> = asks.iter().map(Ask::bounded).collect();
        let identity = self.identity();
        let keys: Vec<String> = sent.iter().map(|a| cache_key(identity, a)).collect();
        let mut out: Vec<Option<Decision>> = vec![None; sent.len()];
        let mut first: HashMap<&str, usize> = HashMap::new();
        let mut to_call = Vec::new();
        let mut repeats = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            if let Some(&j) = first.get(key.as_str()) {
                repeats.push((i, j));
                continue;
            }
            first.insert(key, i);
            let cached = self
                .cache
                .as_ref()
                .filter(|_| !self.settings.refresh)
                .and_then(|c| c.get(key, identity, sent[i].kind));
            if let Some(verdict) = cached {
                out[i] = Some(Decision::read(verdict, Source::Cached));
            } else {
                to_call.push(i);
            }
        }
        for (i, d) in self.call_all(&sent, &keys, &to_call) {
            out[i] = Some(d);
        }
        for (i, j) in repeats {
            // a repeat of a refused ask was not answered either
            out[i] = out[j].clone().map(|d| Decision {
                source: if d.source == Source::Refused {
                    Source::Refused
                } else {
                    Source::Cached
                },
                ..d
            });
        }
        out.into_iter()
            .map(|d| {
                d.unwrap_or_else(|| {
                    Decision::unsure(
                        Source::Refused,
                        "the judge was not asked (a worker stopped)".into(),
                    )
                })
            })
            .collect()
    }

    /// The decisions of the asks `sent[i]` for each `i` of `to_call`, by
    /// calls on at most `concurrency` threads, those past the calls left
    /// refused; each verdict read from a reply is kept in the cache under its
    /// key (`keys[i]`) while the cache's write budget lasts. In no order.
    fn call_all(&self, sent: &[Ask], keys: &[String], to_call: &[usize]) -> Vec<(usize, Decision)> {
        let identity = self.identity();
        let called: Mutex<Vec<(usize, Decision)>> = Mutex::new(Vec::new());
        let next = AtomicUsize::new(0);
        let workers = self.settings.concurrency.clamp(1, 64).min(to_call.len());
        // the first asks in order get the calls left, so that which are
        // asked does not depend on the threads
        let granted = self.grant(to_call.len());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = to_call.get(n) else { break };
                    let (decision, reply) = match self.budget(n < granted) {
                        Ok(()) => self.call(&sent[i]),
                        Err(why) => (Decision::unsure(Source::Refused, why.to_string()), None),
                    };
                    // only a verdict read from a reply is kept, with that reply
                    if let Some(reply) = reply.filter(|_| !decision.failed) {
                        if let Some(cache) = self.cache.as_ref().filter(|_| self.may_keep()) {
                            // a verdict that cannot be kept only costs a call later
                            let _ = cache.put(
                                &keys[i],
                                identity,
                                sent[i].kind,
                                decision.verdict,
                                &reply,
                            );
                        }
                    }
                    called
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((i, decision));
                });
            }
        });
        called
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Takes one verdict from the cache's write budget, if it has one: false
    /// once it is spent.
    fn may_keep(&self) -> bool {
        self.settings.cache_writes.as_ref().is_none_or(|left| {
            left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
        })
    }

    /// Takes up to `wanted` calls from the evaluation's `max_calls`: how
    /// many it got.
    fn grant(&self, wanted: usize) -> usize {
        let max = self.settings.max_calls;
        let before = self
            .calls
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                Some(used.saturating_add(wanted).min(max.max(used)))
            })
            .unwrap_or(max);
        max.saturating_sub(before).min(wanted)
    }

    /// Says why an ask is not called: it got no call of the evaluation's
    /// `max_calls` (`granted` false), or its `deadline` has passed.
    fn budget(&self, granted: bool) -> Result<(), Refusal> {
        if !granted {
            return Err(Refusal::Calls(self.settings.max_calls));
        }
        self.deadline_left()
    }

    /// Says when the evaluation's `deadline` for calls has passed.
    fn deadline_left(&self) -> Result<(), Refusal> {
        let started = *self.started.get_or_init(Instant::now);
        let deadline = self.settings.deadline;
        if started.elapsed() >= deadline {
            return Err(Refusal::Deadline(deadline.as_secs()));
        }
        Ok(())
    }

    /// One ask by calls, with the reply's text when one was read: retried
    /// after a 429, a 5xx or a failed connection, waiting `backoff`·2^k (or
    /// the server's `Retry-After`, at most 30 s); a timeout is not retried (a
    /// server that hung once is likely to again).
    fn call(&self, ask: &Ask) -> (Decision, Option<String>) {
        let body = prompt::request_body(&self.settings.model, ask);
        let failed = |why: String| (Decision::unsure(Source::Called, why), None);
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let retry = attempt <= self.settings.retries;
            let wait = |retry_after: Option<&str>| {
                retry_after
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .map(Duration::from_secs)
                    .unwrap_or(self.settings.backoff * 2u32.saturating_pow(attempt - 1))
                    .min(MAX_RETRY_AFTER)
            };
            match self.transport.post(&body) {
                Ok(reply) if (200..300).contains(&reply.status) => {
                    // a body that is no chat-completions answer (a wrong
                    // URL's page) is a failed call; a text that is no verdict
                    // is unreadable: neither is cached
                    let content = match prompt::reply_content(&reply.body) {
                        Ok(c) => c,
                        Err(e) => return failed(e.to_string()),
                    };
                    return match prompt::parse_verdict(ask.kind, &content) {
                        Ok(verdict) => (Decision::read(verdict, Source::Called), Some(content)),
                        Err(e) => (
                            Decision {
                                unreadable: true,
                                ..Decision::unsure(Source::Called, e.to_string())
                            },
                            Some(content),
                        ),
                    };
                }
                Ok(reply) if retry && (reply.status == 429 || reply.status >= 500) => {
                    std::thread::sleep(wait(reply.retry_after.as_deref()));
                    if let Err(why) = self.deadline_left() {
                        return failed(why.to_string());
                    }
                }
                Ok(reply) => {
                    return failed(format!(
                        "the judge server answered HTTP {} after {attempt} attempt(s); check --llm-judge, --llm-model and the key named by --llm-key-env",
                        reply.status
                    ))
                }
                Err(TransportError::Failed(_)) if retry => {
                    std::thread::sleep(wait(None));
                    if let Err(why) = self.deadline_left() {
                        return failed(why.to_string());
                    }
                }
                Err(e) => return failed(e.to_string()),
            }
        }
    }
}

#[cfg(test)]
mod tests;
