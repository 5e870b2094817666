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
    };
    run(config, |addr| {
        eprintln!("qajudge: listening on http://{addr}");
    })?;
    Ok(ExitCode::SUCCESS)
}
