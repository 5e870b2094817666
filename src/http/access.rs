//! Who may see and change what: private experiments visible only with their
//! secret token, the optional API token of the whole server (`--api-token`) on
//! mutating routes, which also sees and publishes every experiment.
//!
//! Tokens travel in headers only (`Authorization: Bearer`, `X-Experiment-Token`,
//! `X-Api-Token`): a token in the query string ends up in request logs, browser
//! history and `Referer` headers, so a route that reads tokens refuses a request
//! carrying one there ([`ApiError::token_in_query`]) instead of reading it.
//!
//! A private experiment without its token answers 404, as an unknown id does,
//! and in the same time: the [`Gate`] decides from memory, before the store is
//! read, with the same work for an unknown id as for a known one
//! ([`visible_record`], which every route showing an experiment goes through).

use std::collections::HashMap;
use std::sync::RwLock;

use actix_web::HttpRequest;

use super::error::internal;
use super::experiment_store::Record;
use super::{ApiError, AppState};

/// The query parameters whose values are secrets: refused by the routes that
/// read tokens, and redacted from the request log.
pub const SECRET_PARAMETERS: [&str; 3] = ["token", "api_token", "access_token"];

/// The headers an experiment's or the server's token is read from, besides
/// `Authorization: Bearer`.
const TOKEN_HEADERS: [&str; 2] = ["x-experiment-token", "x-api-token"];

/// The bearer token of `Authorization`, if any.
fn bearer(req: &HttpRequest) -> Option<&str> {
    let value = req.headers().get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Percent-decodes a query-string key (`+` is a space), so that `tok%65n` is
/// recognised as `token`.
fn decode_key(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True when a query-string key names a secret ([`SECRET_PARAMETERS`], in any
/// case and percent-encoding).
pub fn is_secret_parameter(raw_key: &str) -> bool {
    let key = decode_key(raw_key).trim().to_ascii_lowercase();
    SECRET_PARAMETERS.contains(&key.as_str())
}

/// The first secret parameter of a query string, as written, if any.
fn secret_in_query(query: &str) -> Option<String> {
    query
        .split('&')
        .map(|pair| pair.split_once('=').map_or(pair, |(k, _)| k))
        .find(|k| is_secret_parameter(k))
        .map(decode_key)
}

/// The tokens a request carries, read from its headers only, and whether one
/// of them is the server's API token.
pub struct Credentials {
    /// The bearer token and the values of [`TOKEN_HEADERS`].
    tokens: Vec<String>,
    /// One of them is the server's API token.
    admin: bool,
}

impl Credentials {
    /// Reads a request's tokens; refuses a request that carries a token in
    /// its query string.
    pub fn of(state: &AppState, req: &HttpRequest) -> Result<Credentials, ApiError> {
        if let Some(name) = secret_in_query(req.query_string()) {
            return Err(ApiError::token_in_query(&name));
        }
        let mut tokens: Vec<String> = bearer(req).map(str::to_string).into_iter().collect();
        for header in TOKEN_HEADERS {
            if let Some(t) = req.headers().get(header).and_then(|v| v.to_str().ok()) {
                let t = t.trim();
                if !t.is_empty() {
                    tokens.push(t.to_string());
                }
            }
        }
        // every token is hashed and compared, matching or not, so that the
        // time does not say which one matched
        let admin = state
            .api_token_sha256
            .as_deref()
            .is_some_and(|hash| any_matches(&tokens, hash));
        Ok(Credentials { tokens, admin })
    }

    /// True when the request carries the server's API token.
    pub fn is_admin(&self) -> bool {
        self.admin
    }

    /// Refuses a mutating route when the server has an API token and the
    /// request does not carry it.
    pub fn require_api_token(&self, state: &AppState) -> Result<(), ApiError> {
        if state.api_token_sha256.is_none() || self.admin {
            Ok(())
        } else {
            Err(ApiError::unauthorized())
        }
    }

    /// True when the request may publish the experiment: it carries its token
    /// or the server's API token.
    pub fn can_publish(&self, record: &Record) -> bool {
        self.admin || self.tokens.iter().any(|t| record.token_is(t))
    }
}

/// True when one of `tokens` has the SHA-256 `hash`; hashes and compares every
/// token whatever the outcome (each comparison in constant time).
fn any_matches(tokens: &[String], hash: &str) -> bool {
    tokens.iter().fold(false, |found, t| {
        crate::digest::token_matches(t, hash) | found
    })
}

/// What the gate keeps of an experiment.
struct Entry {
    /// Visible to everyone.
    published: bool,
    /// The SHA-256 of its secret token (none for records stored before there
    /// were tokens, which are public).
    token_sha256: Option<String>,
}

/// What a token is compared with when the id is unknown or the experiment has
/// no token: as long as a SHA-256 in hex and never equal to one, so that the
/// comparison costs what a real one does and never matches.
const DECOY: &str = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

/// Who may see each stored experiment, kept in memory so that a request for
/// an experiment it may not see is refused before the store is read: reading a
/// record takes longer than finding none, which would tell a prober which ids
/// exist. An unknown id and a private one without its token cost the same (a
/// map lookup, a SHA-256 of each token and a constant-time comparison).
///
/// Filled from the store at start ([`Gate::load`]) and told of every new or
/// newly published experiment ([`Gate::admit`]): whatever changes a record's
/// token or publication must call it.
#[derive(Default)]
pub struct Gate {
    entries: RwLock<HashMap<String, Entry>>,
}

impl Gate {
    /// A gate over the given records.
    pub fn load(records: &[Record]) -> Gate {
        let gate = Gate::default();
        for r in records {
            gate.admit(r);
        }
        gate
    }

    /// Records (or updates) what the gate keeps of an experiment.
    pub fn admit(&self, record: &Record) {
        let entry = Entry {
            published: record.published,
            token_sha256: record.token_sha256.clone(),
        };
        // a poisoned lock only means a panic elsewhere while holding it; the
        // map itself is whole (inserts do not panic half-way)
        let mut entries = self
            .entries
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.insert(record.id.clone(), entry);
    }

    /// True when the experiment `id` exists and the request may see it: it is
    /// published, or the request carries its token or the server's API token.
    pub fn may_see(&self, id: &str, credentials: &Credentials) -> bool {
        let entries = self
            .entries
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = entries.get(id);
        let hash = entry
            .and_then(|e| e.token_sha256.as_deref())
            .unwrap_or(DECOY);
        let has_token = any_matches(&credentials.tokens, hash);
        entry.is_some_and(|e| e.published || has_token || credentials.admin)
    }

    /// The ids of the published experiments, newest first, at most `limit`
    /// of them, and how many there are in all.
    pub fn published_newest(&self, limit: usize) -> (Vec<String>, usize) {
        let entries = self
            .entries
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut ids: Vec<String> = entries
            .iter()
            .filter(|(_, e)| e.published)
            .map(|(id, _)| id.clone())
            .collect();
        drop(entries);
        let total = ids.len();
        // ids are YYYYMMDDNNNN: their order is the order of submission
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.truncate(limit);
        (ids, total)
    }
}

/// A new secret token: 32 bytes of the operating system's random source
/// (`/dev/urandom`), as 64 hex digits.
pub fn new_token() -> Result<String, ApiError> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| {
            ApiError::internal(format!("cannot draw a secret token from /dev/urandom: {e}"))
        })?;
    Ok(crate::digest::secret_token(&bytes))
}

/// The 404 of an experiment that does not exist or may not be seen.
pub fn no_experiment(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no experiment {id} (a private experiment needs its token: X-Experiment-Token: TOKEN or Authorization: Bearer TOKEN)"
    ))
}

/// A stored experiment the request may see, or the 404 of an unknown id.
/// Whether it may be seen is decided before the store is read, so that a
/// private experiment without its token answers as fast as an unknown id.
pub fn visible_record(state: &AppState, req: &HttpRequest, id: &str) -> Result<Record, ApiError> {
    visible_with(state, &Credentials::of(state, req)?, id)
}

/// [`visible_record`] with the request's credentials read already.
pub fn visible_with(
    state: &AppState,
    credentials: &Credentials,
    id: &str,
) -> Result<Record, ApiError> {
    if id.len() != 12 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::not_found(format!(
            "no experiment {id:?}: ids are twelve digits (YYYYMMDDNNNN)"
        )));
    }
    if !state.gate.may_see(id, credentials) {
        return Err(no_experiment(id));
    }
    state
        .store
        .get(id)
        .map_err(internal)?
        .ok_or_else(|| no_experiment(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_tokens_are_fresh_64_hex_digits() {
        let a = new_token().expect("a token");
        let b = new_token().expect("a token");
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn secret_parameters_are_found_in_any_spelling() {
        assert_eq!(secret_in_query("token=abc").as_deref(), Some("token"));
        assert_eq!(
            secret_in_query("a=1&API_TOKEN=x").as_deref(),
            Some("API_TOKEN")
        );
        assert_eq!(secret_in_query("tok%65n=x").as_deref(), Some("token"));
        assert_eq!(
            secret_in_query("access_token").as_deref(),
            Some("access_token")
        );
        assert_eq!(secret_in_query("tokens=1&q=token"), None);
        assert_eq!(secret_in_query(""), None);
        assert_eq!(decode_key("a%2"), "a%2");
        assert_eq!(decode_key("%zz+b"), "%zz b");
    }

    fn record(id: &str, published: bool, token: &str) -> Record {
        Record {
            id: id.into(),
            status: super::super::ExperimentStatus::Done,
            created: String::new(),
            finished: None,
            profile: "judge".into(),
            experiments: vec![],
            lang: "en".into(),
            protocol: "gerbil".into(),
            gold: "g".into(),
            runs: vec![],
            progress: None,
            error: None,
            report: None,
            gold_sha256: None,
            token_sha256: Some(crate::digest::sha256_hex(token.as_bytes())),
            published,
        }
    }

    fn with(tokens: &[&str], admin: bool) -> Credentials {
        Credentials {
            tokens: tokens.iter().map(|t| (*t).to_string()).collect(),
            admin,
        }
    }

    #[test]
    fn the_gate_shows_private_experiments_only_with_their_token() {
        let gate = Gate::load(&[
            record("202501010001", false, "secret"),
            record("202501010002", true, "other"),
        ]);
        assert!(!gate.may_see("202501010001", &with(&[], false)));
        assert!(!gate.may_see("202501010001", &with(&["wrong"], false)));
        assert!(gate.may_see("202501010001", &with(&["wrong", "secret"], false)));
        assert!(gate.may_see("202501010001", &with(&[], true)));
        assert!(gate.may_see("202501010002", &with(&[], false)));
        // an unknown id is refused whatever the request carries
        assert!(!gate.may_see("202501010003", &with(&["secret"], true)));
        assert!(!gate.may_see("202501010003", &with(&[DECOY], false)));
        // publishing is told to the gate
        gate.admit(&record("202501010001", true, "secret"));
        assert!(gate.may_see("202501010001", &with(&[], false)));
    }
}
