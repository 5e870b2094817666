//! Argument groups and value parsers that several subcommands share, parsed once
//! into the library's options (the server reuses them for its experiments).

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::annotate::FEATURES;
use crate::eval::{Experiment, Profile};
use crate::live::{LiveOptions, Protocol};

/// How live QA systems are called (`evaluate --system-url`, `serve`).
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// The time one call to a QA system may take, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    pub timeout_ms: u64,
    /// Calls to a QA system that run at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Stop asking a live system once more than this share of its calls
    /// failed (checked after 10 calls; the questions not asked count as
    /// failed). Default: never, except under `--profile gerbil`, which stops at
    /// 0.5 (docs/scoring.md, Live systems that fail).
    #[arg(long, value_name = "SHARE")]
    pub max_error_rate: Option<f64>,
    /// The API QA systems speak: gerbil (form POST `query`, `lang`; QALD-JSON
    /// answer) or text2sparql (GET `?dataset=ID&question=TEXT`; the returned
    /// query is executed on the knowledge graph). Default: text2sparql for a
    /// TEXT2SPARQL benchmark or `--profile text2sparql`, else gerbil.
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolArg>,
    /// The dataset id sent to text2sparql systems (default: the gold benchmark's).
    #[arg(long, value_name = "ID")]
    pub dataset: Option<String>,
    /// How often a call that failed transiently (connection refused, HTTP 5xx)
    /// is tried again, with a backoff that doubles each time (default: never; a
    /// failed call is an error of the system).
    #[arg(long, default_value_t = 0)]
    pub retries: u32,
    /// The wait before the first retry, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub retry_backoff_ms: u64,
    /// Keep each answer of a live system in DIR and reuse it instead of asking
    /// again (keyed by protocol, system URL, dataset, language and question), so
    /// that an interrupted run resumes where it stopped.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<std::path::PathBuf>,
}

/// The APIs live systems speak, on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ProtocolArg {
    /// GERBIL QA's convention.
    Gerbil,
    /// The TEXT2SPARQL challenge's API.
    Text2sparql,
}

impl From<ProtocolArg> for Protocol {
    fn from(p: ProtocolArg) -> Protocol {
        match p {
            ProtocolArg::Gerbil => Protocol::Gerbil,
            ProtocolArg::Text2sparql => Protocol::Text2sparql,
        }
    }
}

impl LiveArgs {
    /// The live-call options these arguments give (other fields at their defaults).
    pub fn options(&self) -> LiveOptions {
        LiveOptions {
            timeout: Duration::from_millis(self.timeout_ms),
            concurrency: self.concurrency,
            max_error_rate: self.max_error_rate,
            protocol: self.protocol.map(Into::into).unwrap_or_default(),
            dataset: self.dataset.clone(),
            retries: self.retries,
            backoff: Duration::from_millis(self.retry_backoff_ms),
            cache: self.cache.clone(),
            ..LiveOptions::default()
        }
    }
}

/// The URL of an endpoint as written ([`crate::live::endpoint_url`]:
/// `qlever:KG` expanded), or an error naming it.
pub(super) fn endpoint(given: &str) -> anyhow::Result<String> {
    crate::live::endpoint_url(given).ok_or_else(|| {
        anyhow::anyhow!(
            "endpoint {given:?}: qlever:KG names QLever's endpoint of a knowledge graph by letters, digits, -, _ or . (qlever:wikidata); or give the endpoint's http(s) url"
        )
    })
}

/// The knowledge graph queries are executed on (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, Args, Default)]
pub struct KgArgs {
    /// RDF files of the knowledge graph, loaded into an embedded in-memory store
    /// (N-Triples, N-Quads, Turtle, TriG, RDF/XML, N3; plain, .gz, .bz2, .zst):
    /// regular files of at most --max-input-mb each.
    #[arg(long = "kg", value_name = "FILE", num_args = 1.., conflicts_with = "endpoint")]
    pub kg: Vec<std::path::PathBuf>,
    /// A SPARQL 1.1 protocol endpoint to execute queries on instead;
    /// `qlever:KG` is QLever's public endpoint of KG, as GRASP asks it
    /// (`qlever:wikidata` is https://qlever.cs.uni-freiburg.de/api/wikidata).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// The time one query may take, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub query_timeout_ms: u64,
    /// The most rows kept of one query's result (on `serve`, also the most
    /// rows of a `/sparql` answer).
    #[arg(long, value_name = "N", default_value_t = crate::sparql::DEFAULT_MAX_ROWS)]
    pub max_rows: usize,
    /// The memory one query may use, in MB: its result, and what the embedded
    /// store holds to sort, group, deduplicate or subtract. A query past it
    /// fails with a message saying so.
    #[arg(long, value_name = "MB", default_value_t = crate::sparql::DEFAULT_MAX_BYTES >> 20)]
    pub max_query_memory_mb: usize,
}

impl KgArgs {
    /// The execution options these arguments give.
    pub fn options(&self) -> crate::sparql::ExecOptions {
        crate::sparql::ExecOptions {
            timeout: Duration::from_millis(self.query_timeout_ms),
            max_rows: self.max_rows,
            workers: 0,
            max_bytes: self.max_query_memory_mb.max(1).saturating_mul(1 << 20),
        }
    }

    /// True when a knowledge graph was given.
    pub fn given(&self) -> bool {
        !self.kg.is_empty() || self.endpoint.is_some()
    }

    /// Loads the files (with a progress bar on stderr) or names the endpoint;
    /// `None` when neither was given.
    pub fn open(&self) -> anyhow::Result<Option<crate::sparql::KnowledgeGraph>> {
        if let Some(given) = &self.endpoint {
            let url = &endpoint(given)?;
            if crate::live::host_of(url).is_none() {
                anyhow::bail!("endpoint {url:?} is not an http(s) url; give one like http://localhost:7878/query");
            }
            return Ok(Some(crate::sparql::KnowledgeGraph::endpoint(
                url,
                self.options(),
            )));
        }
        if self.kg.is_empty() {
            return Ok(None);
        }
        // regular files within --max-input-mb (as stored: a compressed file is
        // limited by its compressed size), before any of them is loaded
        for path in &self.kg {
            super::input::check_file(path, super::input::max_input_bytes())?;
        }
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "loading the knowledge graph {bar:30} {bytes}/{total_bytes}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        let kg = crate::sparql::KnowledgeGraph::load(&self.kg, self.options(), &|done, total| {
            bar.set_length(total);
            bar.set_position(done);
        })?;
        bar.finish_and_clear();
        Ok(Some(kg))
    }
}

/// The `--profile` value parser: one of [`Profile::ALL`] by its name, each
/// with its summary in `--help`, so that the profile list is written once
/// (in `eval::profiles`).
pub fn profile_parser() -> impl clap::builder::TypedValueParser<Value = Profile> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Profile::ALL.map(|p| PossibleValue::new(p.name()).help(p.summary())))
        .map(|name| Profile::parse(&name).unwrap_or_default())
}

/// Parses a sub-experiment name for clap.
pub fn parse_experiment(s: &str) -> Result<Experiment, crate::eval::UnknownName> {
    Experiment::from_name(s)
}

/// Parses a feature name of `--by` for clap.
pub fn parse_feature(s: &str) -> Result<String, crate::eval::UnknownName> {
    if FEATURES.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(crate::eval::UnknownName {
            kind: "feature",
            name: s.to_string(),
            known: FEATURES.join(", "),
        })
    }
}
