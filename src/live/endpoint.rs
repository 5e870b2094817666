//! Asking a SPARQL 1.1 protocol endpoint (an oxigraph server, Virtuoso, QLever,
//! Fuseki): GET with the query in the URL, POST as a form when the URL would be
//! too long, `Accept` for SPARQL JSON results, a timeout per request, an
//! optional `User-Agent` and a bound on the body read; the reply keeps the
//! status and `Retry-After` so that a caller can be polite about `429`.
//! Redirects are followed here, not by the HTTP client, at most
//! [`MAX_REDIRECTS`] times and only within the configured endpoint's origin
//! (the same scheme, host and port, or from `http` to `https` on the same
//! host): a `Location` that is no `http` or `https` URL (`file:///etc/passwd`)
//! is a [`CallError::BadRedirect`], one to another origin an error naming that
//! origin, and no byte of its answer is read. The body of an error status is
//! kept only as a bounded excerpt with every control character escaped, so
//! that what an endpoint says reaches a report or a terminal as text.

use std::io::Read;
use std::time::Duration;

use super::CallError;

/// Queries longer than this (URL-encoded) go by POST.
const MAX_GET_QUERY: usize = 2000;
/// The most of an answer body that is read by [`sparql_request`].
const MAX_BODY: u64 = 256 << 20;

/// The most redirects an endpoint request follows.
pub const MAX_REDIRECTS: usize = 5;

/// The most of an error status's body that is read.
const MAX_ERROR_BODY: u64 = 64 << 10;
/// The most characters of an error status's body that are kept.
const MAX_ERROR_CHARS: usize = 300;

/// What an endpoint answered.
#[derive(Debug, Clone)]
pub struct EndpointReply {
    /// The HTTP status.
    pub status: u16,
    /// The media type of the body, lower-cased, without parameters.
    pub content_type: String,
    /// The body; for a status that is not 2xx, an excerpt of it: at most
    /// 300 characters, every control character (ESC, BEL, a C1 code) and
    /// bidirectional override escaped as `\u{…}`, whitespace as one space.
    pub body: Vec<u8>,
    /// The `Retry-After` header, as sent (seconds or an HTTP date), if any.
    pub retry_after: Option<String>,
    /// True when the body was longer than the bound and was cut there.
    pub truncated: bool,
    /// What the endpoint says of itself: its `Server` header, quoted as an
    /// error body is (bounded, control characters escaped).
    pub server: Option<String>,
    /// True when the endpoint says it cut the results itself: Virtuoso's
    /// `X-SPARQL-MaxRows` (its row limit reached) or `X-SQL-State` (an
    /// anytime query's partial answer).
    pub partial: bool,
}

/// How one request is made.
#[derive(Debug, Clone)]
pub struct RequestSettings {
    /// The whole request's timeout.
    pub timeout: Duration,
    /// The `User-Agent` header (`None`: the HTTP client's own).
    pub user_agent: Option<String>,
    /// The most of a body read; a longer body is cut and marked truncated.
    pub max_body: u64,
}

/// Sends `query` to the endpoint at `url`. An HTTP error status is a reply (its
/// body says why), not an error; a transport failure or a timeout is.
pub fn sparql_request(
    url: &str,
    query: &str,
    timeout: Duration,
) -> Result<EndpointReply, CallError> {
    sparql_request_with(
        url,
        query,
        &RequestSettings {
            timeout,
            user_agent: None,
            max_body: MAX_BODY,
        },
    )
}

/// [`sparql_request`] with a `User-Agent` and a body bound of the caller's.
pub fn sparql_request_with(
    url: &str,
    query: &str,
    settings: &RequestSettings,
) -> Result<EndpointReply, CallError> {
    let mut builder = ureq::AgentBuilder::new()
        .timeout(settings.timeout)
        .redirects(0);
    if let Some(agent) = &settings.user_agent {
        builder = builder.user_agent(agent);
    }
    let agent = builder.build();
    let accept = "application/sparql-results+json, application/json;q=0.9, */*;q=0.1";
    let encoded_len: usize = query
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { 1 } else { 3 })
        .sum();
    let send = |url: &str, post: bool| {
        let sent = if post {
            agent
                .post(url)
                .set("Accept", accept)
                .send_form(&[("query", query)])
        } else {
            agent
                .get(url)
                .query("query", query)
                .set("Accept", accept)
                .call()
        };
        match sent {
            Ok(r) | Err(ureq::Error::Status(_, r)) => Ok(r),
            Err(e) => Err(super::describe(&e)),
        }
    };
    // redirects are followed here, not by the client: only to http and https
    // urls (a `Location: file:///…` made the client panic), at most
    // MAX_REDIRECTS times; the query goes with each request as it went first
    let mut url = url.to_string();
    let post = encoded_len > MAX_GET_QUERY;
    let mut response = send(&url, post)?;
    let mut followed = 0;
    while (300..400).contains(&response.status()) {
        let status = response.status();
        let Some(location) = response.header("location").map(str::to_string) else {
            break;
        };
        let next = super::target::http_location(&url, &location)
            .filter(|_| followed < MAX_REDIRECTS)
            .ok_or_else(|| CallError::BadRedirect {
                status,
                location: location.clone(),
            })?;
        if let Some(origin) = cross_origin(&url, &next) {
            return Err(CallError::Transport(format!(
                "the endpoint redirected (http status {status}) to another origin, {origin:?}, which is not followed: only redirects within the endpoint's scheme, host and port (or from http to https on the same host) are; give the url it should answer at"
            )));
        }
        followed += 1;
        // the query of a GET is the client's to add again; other parameters
        // of the location (a default graph) are kept
        url = if post {
            next
        } else {
            super::target::without_param(&next, "query")
        };
        response = send(&url, post)?;
    }
    let status = response.status();
    let content_type = response.content_type().to_ascii_lowercase();
    let retry_after = response.header("retry-after").map(str::to_string);
    let server = response.header("server").map(|s| excerpt(s.as_bytes()));
    let partial =
        response.header("x-sparql-maxrows").is_some() || response.header("x-sql-state").is_some();
    let success = (200..300).contains(&status);
    let max_body = if success {
        settings.max_body
    } else {
        settings.max_body.min(MAX_ERROR_BODY)
    };
    let mut body = Vec::new();
    response
        .into_reader()
        .take(max_body.saturating_add(1))
        .read_to_end(&mut body)
        .map_err(CallError::Read)?;
    let truncated = body.len() as u64 > max_body;
    if truncated {
        body.truncate(max_body as usize);
    }
    if !success {
        body = excerpt(&body).into_bytes();
    }
    Ok(EndpointReply {
        status,
        content_type,
        body,
        retry_after,
        server,
        truncated,
        partial,
    })
}

/// The origin (`scheme://host:port`) of `next` when it is not `from`'s: the
/// same scheme, host and port are one origin, and so is `https` on the same
/// host (at its default port or `from`'s) for an `http` URL; `None` when
/// `next` is within it.
fn cross_origin(from: &str, next: &str) -> Option<String> {
    let (Ok(a), Ok(b)) = (url::Url::parse(from), url::Url::parse(next)) else {
        return Some(next.chars().take(MAX_ERROR_CHARS).collect());
    };
    let same_host = a.host_str().is_some() && a.host_str() == b.host_str();
    let same = same_host
        && match (a.scheme(), b.scheme()) {
            (x, y) if x == y => a.port_or_known_default() == b.port_or_known_default(),
            ("http", "https") => b.port().is_none() || b.port() == a.port(),
            _ => false,
        };
    (!same).then(|| b.origin().ascii_serialization())
}

/// The text of an error body as it may be quoted: at most
/// [`MAX_ERROR_CHARS`] characters (an ellipsis when cut), whitespace runs as
/// one space, control characters and bidirectional controls escaped.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut out = String::new();
    let mut chars = 0;
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        let piece = if c.is_control() || bidi {
            c.escape_unicode().to_string()
        } else {
            c.to_string()
        };
        let wide = piece.chars().count() + usize::from(space);
        if chars + wide > MAX_ERROR_CHARS {
            out.push('…');
            break;
        }
        if std::mem::take(&mut space) {
            out.push(' ');
        }
        out.push_str(&piece);
        chars += wide;
    }
    out
}

/// The most of a chat-completions reply that is read.
const MAX_CHAT_BODY: u64 = 1 << 20;

/// The OpenAI-compatible chat-completions server the LLM judge asks
/// (docs/scoring.md, The LLM judge): `{base}/chat/completions`, checked as a
/// system URL is (user-info refused; under an allow-list, every address
/// allowed and the agent pinned to them), POSTed JSON, the key (if any) sent
/// only in an `Authorization: Bearer` header and never printed.
pub struct ChatServer {
    target: super::Target,
    agent: ureq::Agent,
    key: Option<String>,
}

impl std::fmt::Debug for ChatServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatServer")
            .field("url", &self.target.as_str())
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

impl ChatServer {
    /// The server whose base URL is `base` (`http://127.0.0.1:11434/v1`),
    /// each call bounded by `timeout`; `allowed` is the server's allow-list.
    pub fn new(
        base: &str,
        key: Option<String>,
        timeout: Duration,
        allowed: Option<&[String]>,
    ) -> Result<ChatServer, super::LiveError> {
        let url = chat_url(base);
        let target = super::target::check(&url, allowed)?;
        let agent = target.agent(timeout);
        Ok(ChatServer { target, agent, key })
    }
}

/// `{base}/chat/completions`, the path appended to the base's path and its
/// query (`?api-version=…`, a tenant) kept after it; a fragment is dropped.
fn chat_url(base: &str) -> String {
    let base = base.split('#').next().unwrap_or(base);
    let (path, query) = match base.split_once('?') {
        Some((path, query)) => (path, format!("?{query}")),
        None => (base, String::new()),
    };
    format!("{}/chat/completions{query}", path.trim_end_matches('/'))
}

impl crate::llm::Transport for ChatServer {
    fn identity(&self) -> String {
        self.target.identity()
    }

    fn post(&self, body: &[u8]) -> Result<crate::llm::Reply, crate::llm::TransportError> {
        use crate::llm::TransportError;
        let mut request = self
            .agent
            .post(self.target.as_str())
            .set("Content-Type", "application/json")
            .set("Accept", "application/json");
        if let Some(key) = &self.key {
            request = request.set("Authorization", &format!("Bearer {key}"));
        }
        let response = match request.send_bytes(body) {
            Ok(r) | Err(ureq::Error::Status(_, r)) => r,
            Err(e) => {
                return Err(match super::describe(&e) {
                    CallError::Timeout(t) => TransportError::Timeout(t),
                    other => TransportError::Failed(other.to_string()),
                })
            }
        };
        let status = response.status();
        let retry_after = response.header("retry-after").map(str::to_string);
        let mut out = Vec::new();
        // a body that stops coming is a timeout, as a head that does not come
        // is, and is not retried either
        response
            .into_reader()
            .take(MAX_CHAT_BODY)
            .read_to_end(&mut out)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                    TransportError::Timeout(format!("reading the reply: {e}"))
                }
                _ => TransportError::Failed(e.to_string()),
            })?;
        Ok(crate::llm::Reply {
            status,
            body: out,
            retry_after,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_chat_path_goes_before_the_query() {
        assert_eq!(
            super::chat_url("http://h/v1?api-version=2024-06-01"),
            "http://h/v1/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(
            super::chat_url("http://h/v1/"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            super::chat_url("http://h/v1#x"),
            "http://h/v1/chat/completions"
        );
    }
}
