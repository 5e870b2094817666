//! `qajudge serve`: the HTTP service (JSON API, stored experiments, web page).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use clap::Args;

use super::args::{KgArgs, LiveArgs};

use crate::http::{run, ServeConfig};
use crate::live::{LiveOptions, LOOPBACK};

/// Arguments of `qajudge serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// An index built with `qajudge index build` (lookups and cross-graph matching).
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Where experiments are stored (created when missing).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// A benchmark offered by name, as NAME=FILE (repeatable).
    #[arg(long = "benchmark", value_name = "NAME=FILE")]
    pub benchmarks: Vec<String>,
    /// A host live QA systems may be on (repeatable; default: loopback only).
    #[arg(long = "allow-system-host", value_name = "HOST")]
    pub allow_system_hosts: Vec<String>,
    /// How live QA systems are called.
    #[command(flatten)]
    pub live: LiveArgs,
    /// The knowledge graph experiments execute queries on (loaded once, at start).
    #[command(flatten)]
    pub kg: KgArgs,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_body_bytes: usize,
    /// Server worker threads (default: the number of cores).
    #[arg(long)]
    pub workers: Option<usize>,
    /// A token the mutating routes ask for (submitting and publishing
    /// experiments), sent as `Authorization: Bearer` or `X-Api-Token`; it also
    /// sees and publishes every experiment. Read from QAJUDGE_API_TOKEN when
    /// not given, so that it stays out of the process list.
    #[arg(long, env = "QAJUDGE_API_TOKEN", hide_env_values = true)]
    pub api_token: Option<String>,
    /// An origin a web app may call the API from, as `https://host[:port]`
    /// (repeatable; default: none, CORS off).
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// The address the service is reached at, the base of experiment IRIs in
    /// the linked data (default: `http://` and the bound address).
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// The time one query of the `/sparql` endpoint may take, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub sparql_timeout_ms: u64,
}

/// Checks an origin of `--cors-origin`: a scheme, a host and maybe a port,
/// nothing after.
fn check_origin(origin: &str) -> anyhow::Result<()> {
    let rest = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', ' ', '*']) => Ok(()),
        _ => bail!("--cors-origin {origin:?} is not an origin; give it as https://host or http://host:port, with no path"),
    }
}

/// Runs `qajudge serve`.
pub fn run_serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // request logs on stderr; RUST_LOG picks the level (default: every request)
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .try_init();
    let mut benchmarks = Vec::new();
    for b in &args.benchmarks {
        let Some((name, file)) = b.split_once('=') else {
            bail!("--benchmark {b:?} is not NAME=FILE; give it as, for example, qald9=qald-9-test.json");
        };
        benchmarks.push((name.trim().to_string(), PathBuf::from(file.trim())));
    }
    for origin in &args.cors_origins {
        check_origin(origin)?;
    }
    if args
        .api_token
        .as_deref()
        .is_some_and(|t| t.trim().len() < 16)
    {
        bail!("--api-token is shorter than 16 characters; give a long random token (for example: openssl rand -hex 32)");
    }
    if let Some(url) = &args.public_url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!(
                "--public-url {url:?} is not an http(s) URL; give it as https://host[:port][/path]"
            );
        }
    }
    let allowed = if args.allow_system_hosts.is_empty() {
        LOOPBACK
            .iter()
            .map(std::string::ToString::to_string)
            .collect()
    } else {
        args.allow_system_hosts.clone()
    };
    let config = ServeConfig {
        index: args.index.clone(),
        data: args.data.clone(),
        bind: args.bind.clone(),
        benchmarks,
        live: LiveOptions {
            allowed_hosts: Some(allowed),
            ..args.live.options()
        },
        knowledge_graph: args.kg.open()?.map(std::sync::Arc::new),
        exec: args.kg.options(),
        max_body_bytes: args.max_body_bytes,
        workers: args.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        }),
        api_token: args.api_token.clone().map(|t| t.trim().to_string()),
        cors_origins: args.cors_origins.clone(),
        public_url: args.public_url.clone(),
        sparql_timeout: std::time::Duration::from_millis(args.sparql_timeout_ms.max(1)),
    };
    run(config, |addr| {
        eprintln!("qajudge: listening on http://{addr}");
    })?;
    Ok(ExitCode::SUCCESS)
}
