//! How live QA systems are called: the protocol they speak (and the one a
//! benchmark or profile implies), the options of the calls (timeout,
//! concurrency, error threshold, language, allowed hosts, retries, cache), and
//! the hosts that count as the local machine.

use std::path::PathBuf;
use std::time::Duration;

use crate::model::{Dataset, Format};

/// The API a live system speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// GERBIL QA's: form POST `query`, `lang`; QALD-JSON (or SPARQL JSON) answer.
    #[default]
    Gerbil,
    /// The TEXT2SPARQL challenge's: `GET ?dataset=ID&question=TEXT`; answer
    /// `{dataset, question, query}`, whose query is executed.
    Text2sparql,
}

impl Protocol {
    /// The protocol's name (`gerbil`, `text2sparql`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Gerbil => "gerbil",
            Protocol::Text2sparql => "text2sparql",
        }
    }

    /// The protocol of a name.
    pub fn from_name(name: &str) -> Option<Protocol> {
        match name {
            "gerbil" => Some(Protocol::Gerbil),
            "text2sparql" => Some(Protocol::Text2sparql),
            _ => None,
        }
    }
}

/// The protocol to ask live systems in when none is given: the TEXT2SPARQL
/// challenge's for a TEXT2SPARQL benchmark or under its profile, else GERBIL
/// QA's.
pub fn protocol_for(gold: &Dataset, profile: crate::eval::Profile) -> Protocol {
    if gold.format == Format::Text2SparqlYaml || profile == crate::eval::Profile::Text2sparql {
        Protocol::Text2sparql
    } else {
        Protocol::Gerbil
    }
}

/// How to call a live system.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The time one call may take.
    pub timeout: Duration,
    /// How many calls run at once.
    pub concurrency: usize,
    /// The share of failed calls (after `min_calls`) that stops the run;
    /// `None`: never stop (see [`LiveOptions::for_profile`]).
    pub max_error_rate: Option<f64>,
    /// Calls made before the error rate is checked.
    pub min_calls: usize,
    /// The language of the question texts sent (`lang`).
    pub lang: String,
    /// Hosts the client may call (host names or IP literals: a URL is allowed
    /// when every address its host resolves to is an address of one of them);
    /// `None`: any.
    pub allowed_hosts: Option<Vec<String>>,
    /// The API the system speaks.
    pub protocol: Protocol,
    /// The dataset id sent with TEXT2SPARQL questions (default: the gold
    /// benchmark's id).
    pub dataset: Option<String>,
    /// How often a call that failed transiently is tried again (0 by default:
    /// a system's failures count against it unless retries are asked for).
    pub retries: u32,
    /// The wait before the first retry; it doubles for each further one.
    pub backoff: Duration,
    /// The directory of the on-disk answer cache; `None`: no cache.
    pub cache: Option<PathBuf>,
}

impl LiveOptions {
    /// These options under a scoring profile: without an explicit maximum
    /// error rate, the profile's threshold (GERBIL QA's under `gerbil`, none
    /// otherwise: docs/scoring.md, Live systems that fail).
    pub fn for_profile(self, profile: crate::eval::Profile) -> LiveOptions {
        use crate::eval::Rules;
        LiveOptions {
            max_error_rate: self.max_error_rate.or(profile.live_error_threshold()),
            ..self
        }
    }
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            timeout: Duration::from_secs(60),
            concurrency: 4,
            max_error_rate: None,
            min_calls: 10,
            lang: "en".to_string(),
            allowed_hosts: None,
            protocol: Protocol::Gerbil,
            dataset: None,
            retries: 0,
            backoff: Duration::from_millis(500),
            cache: None,
        }
    }
}

/// The loopback host names, the server's default `--allow-system-host`.
pub const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "::1"];
