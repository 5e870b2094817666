//! Asking endpoints politely: a descriptive `User-Agent`, at most `parallel`
//! requests at once, `429` and `503` waited out as `Retry-After` says (within
//! a bound), other failures retried with exponential backoff a bounded number
//! of times, a timeout per request, long queries sent by POST and a bound on
//! the body read (both in `live::endpoint`, the one module naming the HTTP
//! client). With a cache directory every answer is kept in a file named by the
//! SHA-256 of (endpoint URL, query), written under a temporary name and
//! renamed, so that an interrupted fetch resumes and a repeated one asks
//! nothing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use super::queries::Endpoint;
use super::results::{parse_rows, Row};
use super::FetchError;
use crate::digest::sha256_hex;
use crate::live::{sparql_request_with, CallError, EndpointReply, RequestSettings};

/// How requests are made.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Requests at once, per endpoint.
    pub parallel: usize,
    /// The timeout of one request.
    pub timeout: Duration,
    /// Tries after the first one.
    pub retries: u32,
    /// The first backoff; each retry doubles it.
    pub backoff: Duration,
    /// The longest wait before a retry (a larger `Retry-After` is cut to it).
    pub max_wait: Duration,
    /// The most of one answer read, in bytes.
    pub max_body: u64,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Where answers are kept, if anywhere.
    pub cache: Option<PathBuf>,
}

/// The default `User-Agent`: qajudge, its version and what it does. The
/// project names no public address of its own, so none is invented here:
/// Wikidata's User-Agent policy asks for a way to reach the operator, which
/// the user gives with `--contact` ([`user_agent_with_contact`]).
pub fn user_agent() -> String {
    format!(
        "qajudge/{} (KGQA evaluation; index fetch)",
        env!("CARGO_PKG_VERSION")
    )
}

/// The `User-Agent` with the user's own contact (an e-mail address or URL,
/// which Wikimedia's policy asks of each client) after the default's parts,
/// or `None` when the contact cannot go into a header (not one line of
/// printable ASCII without parentheses, or longer than 200 characters).
pub fn user_agent_with_contact(contact: &str) -> Option<String> {
    let contact = contact.trim();
    let fits = !contact.is_empty()
        && contact.len() <= 200
        && contact
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'(' && b != b')');
    fits.then(|| {
        format!(
            "qajudge/{} (KGQA evaluation; index fetch; {contact})",
            env!("CARGO_PKG_VERSION")
        )
    })
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            parallel: 1,
            timeout: Duration::from_secs(60),
            retries: 4,
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(120),
            max_body: 64 << 20,
            user_agent: user_agent(),
            cache: None,
        }
    }
}

/// What the client did, in all.
#[derive(Debug, Default)]
pub struct Counters {
    /// Requests sent over the network (retries included).
    pub requests: AtomicU64,
    /// Answers taken from the cache.
    pub cached: AtomicU64,
    /// Retries (after 429, 5xx, timeouts, failed connections).
    pub retries: AtomicU64,
}

/// The client of one fetch.
#[derive(Debug)]
pub struct Client {
    opts: ClientOptions,
    /// What it did.
    pub counters: Counters,
    temp_names: AtomicU64,
}

/// The rows of one answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The rows.
    pub rows: Vec<Row>,
    /// True when the endpoint said it cut the answer (its row limit, or a
    /// partial answer at its time limit); such an answer is not cached.
    pub cut: bool,
}

/// One finished query, as [`Client::ask_all`] reports it.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    /// Queries finished so far of this call.
    pub done: usize,
    /// Queries of this call.
    pub total: usize,
    /// Whether this one came from the cache.
    pub cached: bool,
}

/// What one request of a query came to.
enum Step {
    /// The query's outcome: its rows, or why it failed.
    Done(Result<Answer, FetchError>),
    /// A wait before it is asked again.
    Retry(Duration),
}

impl Client {
    /// A client; the cache directory is made if it is missing.
    pub fn new(opts: ClientOptions) -> Result<Client, FetchError> {
        if let Some(dir) = &opts.cache {
            std::fs::create_dir_all(dir).map_err(|e| FetchError::Cache {
                path: dir.display().to_string(),
                message: e.to_string(),
            })?;
        }
        if let Some(dir) = &opts.cache {
            remove_dead_temporaries(dir);
        }
        Ok(Client {
            opts,
            counters: Counters::default(),
            temp_names: AtomicU64::new(0),
        })
    }

    /// Asks every query of `queries` (at most `parallel` at once), calling
    /// `done` on this thread as each finishes; the rows in the order of the
    /// queries. The first failure (in query order) stops the rest.
    pub fn ask_all(
        &self,
        endpoint: &Endpoint,
        queries: &[String],
        done: &mut dyn FnMut(Done),
    ) -> Result<Vec<Answer>, FetchError> {
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let mut slots: Vec<Option<Result<Answer, FetchError>>> =
            (0..queries.len()).map(|_| None).collect();
        let workers = self.opts.parallel.clamp(1, queries.len().max(1));
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..workers {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(query) = queries.get(i) else { break };
                    let answer = self.ask(endpoint, query);
                    if answer.0.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if tx.send((i, answer)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            for (finished, (i, (rows, cached))) in rx.into_iter().enumerate() {
                done(Done {
                    done: finished + 1,
                    total: queries.len(),
                    cached,
                });
                slots[i] = Some(rows);
            }
        });
        let mut out = Vec::with_capacity(slots.len());
        for slot in slots {
            match slot {
                Some(Ok(rows)) => out.push(rows),
                Some(Err(e)) => return Err(e),
                // not asked because an earlier one failed: that one is in a slot
                None => {}
            }
        }
        Ok(out)
    }

    /// The rows of one query, from the cache or the endpoint, and whether they
    /// came from the cache.
    fn ask(&self, endpoint: &Endpoint, query: &str) -> (Result<Answer, FetchError>, bool) {
        let key = sha256_hex(format!("{}\n{}", endpoint.url, query).as_bytes());
        let cached = self
            .opts
            .cache
            .as_ref()
            .map(|d| d.join(format!("{key}.json")));
        if let Some(path) = &cached {
            if let Some(rows) = self.read_cached(path) {
                self.counters.cached.fetch_add(1, Ordering::Relaxed);
                return (Ok(Answer { rows, cut: false }), true);
            }
        }
        let fail = |message: String| FetchError::Request {
            endpoint: endpoint.name.clone(),
            url: endpoint.url.clone(),
            query: excerpt(query),
            message,
        };
        let settings = RequestSettings {
            timeout: self.opts.timeout,
            user_agent: Some(self.opts.user_agent.clone()),
            max_body: self.opts.max_body,
        };
        let mut attempt = 0u32;
        loop {
            self.counters.requests.fetch_add(1, Ordering::Relaxed);
            let reply = sparql_request_with(&endpoint.url, query, &settings);
            let wait = match self.step(reply, attempt, cached.as_deref(), &fail) {
                Step::Done(outcome) => return (outcome, false),
                Step::Retry(wait) => wait,
            };
            attempt += 1;
            self.counters.retries.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(wait);
        }
    }

    /// What the reply to request `attempt` (from 0) of a query comes to: its
    /// rows (cached at `cached` when whole), a wait before it is asked again
    /// (too many requests, busy, a 5xx status or a failed call, while retries
    /// are left), or the error `fail` makes of why it failed.
    fn step(
        &self,
        reply: Result<EndpointReply, CallError>,
        attempt: u32,
        cached: Option<&Path>,
        fail: &dyn Fn(String) -> FetchError,
    ) -> Step {
        let wait = match reply {
            Ok(reply) if reply.status == 200 => return Step::Done(self.rows(&reply, cached, fail)),
            Ok(reply) if reply.status == 429 || reply.status == 503 => {
                let said = reply.retry_after.as_deref().and_then(retry_after_secs);
                let wait = said.map_or_else(|| self.backoff(attempt), Duration::from_secs);
                if attempt >= self.opts.retries {
                    return Step::Done(Err(fail(format!("http status {} (too many requests or busy) after {} tries; try again later or lower --parallel", reply.status, attempt + 1))));
                }
                wait.min(self.opts.max_wait)
            }
            Ok(reply) if reply.status >= 500 => {
                if attempt >= self.opts.retries {
                    return Step::Done(Err(fail(format!(
                        "http status {} after {} tries: {}; the endpoint is failing, try again later (with --cache what was answered is kept)",
                        reply.status,
                        attempt + 1,
                        body_excerpt(&reply.body)
                    ))));
                }
                self.backoff(attempt)
            }
            Ok(reply) => {
                return Step::Done(Err(fail(format!(
                    "http status {}: {}; check the URL and that the endpoint accepts the query",
                    reply.status,
                    body_excerpt(&reply.body)
                ))))
            }
            Err(e) => {
                if attempt >= self.opts.retries {
                    let hint = if matches!(e, CallError::Timeout(_)) {
                        format!(
                            "no answer within {} s; lower --batch or raise --timeout",
                            self.opts.timeout.as_secs()
                        )
                    } else {
                        "check the URL and the network".to_string()
                    };
                    return Step::Done(Err(fail(format!(
                        "{e} after {} tries; {hint}",
                        attempt + 1
                    ))));
                }
                self.backoff(attempt)
            }
        };
        Step::Retry(wait)
    }

    /// The rows of a 200 reply, written to the cache at `cached` unless the
    /// endpoint cut them; a body past the bound, or one that does not read
    /// as results, is the error `fail` makes.
    fn rows(
        &self,
        reply: &EndpointReply,
        cached: Option<&Path>,
        fail: &dyn Fn(String) -> FetchError,
    ) -> Result<Answer, FetchError> {
        if reply.truncated {
            return Err(fail(format!(
                "the answer is longer than {} MiB; lower --batch",
                self.opts.max_body >> 20
            )));
        }
        match parse_rows(&reply.body, &reply.content_type) {
            Ok(rows) => {
                if reply.partial {
                    return Ok(Answer { rows, cut: true });
                }
                if let Some(path) = cached {
                    self.write_cached(path, &reply.body)?;
                }
                Ok(Answer { rows, cut: false })
            }
            Err(e) => Err(fail(format!(
                "{e}; check that the URL is the endpoint's SPARQL URL"
            ))),
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        self.opts
            .backoff
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.opts.max_wait)
    }

    /// The rows of a cached answer; `None` when there is none or it does not
    /// read (it is asked again and rewritten).
    fn read_cached(&self, path: &Path) -> Option<Vec<Row>> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() || meta.len() > self.opts.max_body {
            return None;
        }
        let body = std::fs::read(path).ok()?;
        parse_rows(&body, "application/sparql-results+json").ok()
    }

    fn write_cached(&self, path: &Path, body: &[u8]) -> Result<(), FetchError> {
        let n = self.temp_names.fetch_add(1, Ordering::Relaxed);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()));
        let err = |e: std::io::Error| FetchError::Cache {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        std::fs::write(&tmp, body).map_err(err)?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(e)
        })
    }
}

/// The process id of a cache file's temporary name
/// (`.HEX.json.tmp-PID-N`), or `None` for any other name.
fn temporary_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (key, tail) = rest.split_once(".json.tmp-")?;
    if key.len() != 64 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let (pid, n) = tail.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Removes the temporary answer files that fetches killed before their rename
/// left (regular files of [`temporary_pid`]'s name whose process is gone; none
/// when processes cannot be seen).
fn remove_dead_temporaries(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(temporary_pid) else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Seconds of a `Retry-After` header in its seconds form (an HTTP date is
/// left to the backoff).
fn retry_after_secs(value: &str) -> Option<u64> {
    value.trim().parse().ok()
}

/// The start of a query, on one line, for an error message.
fn excerpt(query: &str) -> String {
    let one_line: String = query.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(160) {
        Some((at, _)) => format!("{} …", &one_line[..at]),
        None => one_line,
    }
}

fn body_excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        "empty body".into()
    } else {
        format!("{one_line:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_the_bound() {
        let client = Client::new(ClientOptions {
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(5),
            ..ClientOptions::default()
        })
        .expect("no cache");
        let waits: Vec<u64> = (0..5).map(|a| client.backoff(a).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 5, 5]);
        assert_eq!(retry_after_secs(" 7 "), Some(7));
        assert_eq!(retry_after_secs("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn only_the_temporaries_of_dead_fetches_are_removed() {
        let dir = std::env::temp_dir().join(format!("qajudge-cache-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let key = "a".repeat(64);
        // pid 0 is never a process /proc shows; this process is alive
        let dead = dir.join(format!(".{key}.json.tmp-0-3"));
        let ours = dir.join(format!(".{key}.json.tmp-{}-0", std::process::id()));
        let other = dir.join(".notes.json.tmp-0-1");
        for p in [&dead, &ours, &other] {
            std::fs::write(p, "{}").expect("file");
        }
        Client::new(ClientOptions {
            cache: Some(dir.clone()),
            ..ClientOptions::default()
        })
        .expect("cache");
        assert!(!dead.exists());
        assert!(ours.exists() && other.exists());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn the_user_agent_names_qajudge_and_its_version() {
        let agent = user_agent();
        assert_eq!(
            user_agent_with_contact(" me@example.org ").as_deref(),
            Some(format!("{}; me@example.org)", agent.trim_end_matches(')')).as_str())
        );
        assert_eq!(user_agent_with_contact("a\r\nX-Evil: 1"), None);
        assert_eq!(user_agent_with_contact("(me)"), None);
        assert!(
            agent.starts_with(&format!(
                "qajudge/{} (KGQA evaluation; index fetch",
                env!("CARGO_PKG_VERSION")
            )),
            "{agent}"
        );
    }
}
