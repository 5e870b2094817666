//! `qajudge serve`: the HTTP service (JSON API, stored experiments, web page).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use super::args::{KgArgs, LiveArgs};

use crate::http::{run, ExperimentStore, ServeConfig};
use crate::live::LiveOptions;

/// Arguments of `qajudge serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// An index built with `qajudge index build` (lookups and cross-graph matching).
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Where experiments are stored (created when missing): a new or empty
    /// directory, or one a qajudge server wrote; a directory holding other
    /// files is refused.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// A benchmark offered by name, as NAME=FILE (repeatable): a non-empty name
    /// and a regular file of at most --max-input-mb.
    #[arg(long = "benchmark", value_name = "NAME=FILE")]
    pub benchmarks: Vec<String>,
    /// The knowledge graph of one registered benchmark, as NAME=FILE
    /// (repeatable; the files given for one name are its graph): experiments on
    /// that benchmark execute their queries there, and others on `--kg` or
    /// `--endpoint`, if given.
    #[arg(long = "benchmark-kg", value_name = "NAME=FILE")]
    pub benchmark_kgs: Vec<String>,
    /// GrailQA's schema for one registered benchmark, as NAME=DIR (the
    /// folder of fb_roles, fb_types and reverse_properties): evaluations on
    /// that benchmark may use the `grailqa` profile.
    #[arg(long = "benchmark-ontology", value_name = "NAME=DIR")]
    pub benchmark_ontologies: Vec<String>,
    /// KQA Pro's training set for one registered benchmark, as NAME=FILE:
    /// the `kqapro` profile's `zero-shot` category on that benchmark.
    #[arg(long = "benchmark-train", value_name = "NAME=FILE")]
    pub benchmark_trains: Vec<String>,
    /// A host live QA systems may be on (repeatable). Without it the server
    /// calls no live system: a client could otherwise make it call any port
    /// of the machine it runs on. Give `--allow-system-host 127.0.0.1` for
    /// systems on the same machine.
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
    /// Evaluations of `POST /api/v1/evaluate` that run at once (default:
    /// four per core); past them a request gets 503 `busy` with
    /// `Retry-After`.
    #[arg(long, value_name = "N")]
    pub max_evaluations: Option<usize>,
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
    /// The time one stored experiment may take once the worker starts it, in
    /// seconds (0: no limit): past it the experiment stops and fails, saying
    /// so, and the next one starts.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub experiment_timeout_s: u64,
    /// The SPARQL queries that run at once, on `/sparql` and on the knowledge
    /// graph together (default: the number of cores). A `/sparql` query beyond
    /// them gets 503 `busy` with `Retry-After`; a query of an evaluation waits
    /// for a slot within its timeout.
    #[arg(long, value_name = "N")]
    pub max_concurrent_queries: Option<usize>,
    /// The time a client has to send a request's head (request line and
    /// headers), in milliseconds, from its first byte: a 408 after it.
    #[arg(long, default_value_t = 5_000)]
    pub head_timeout_ms: u64,
    /// The time a client has to send a request's body, in milliseconds, from
    /// its head: a 408 and a closed connection after it, so that slow uploads
    /// cannot hold connections open. Raise it for large uploads over slow links.
    #[arg(long, default_value_t = 30_000)]
    pub body_timeout_ms: u64,
    /// The WordNet 3.0 dictionary directory of the t2s-metrics profile's
    /// `meteor` (read at start); without it, NLTK's and Debian's places are
    /// looked in on first use, and `meteor` is left out when none has it
    /// (docs/scoring.md, The `t2s-metrics` profile).
    #[arg(long, value_name = "DIR")]
    pub wordnet: Option<PathBuf>,
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

/// Splits a `--benchmark NAME=FILE` into its name and file, both trimmed; a
/// missing `=`, an empty name or an empty file is an error saying the form.
fn parse_benchmark(given: &str) -> anyhow::Result<(String, PathBuf)> {
    let Some((name, file)) = given.split_once('=') else {
        bail!("--benchmark {given:?} is not NAME=FILE; give it as, for example, qald9=qald-9-test.json");
    };
    let (name, file) = (name.trim(), file.trim());
    if name.is_empty() {
        bail!("--benchmark {given:?} has an empty name; give it as NAME=FILE, for example, qald9=qald-9-test.json");
    }
    if file.is_empty() {
        bail!("--benchmark {given:?} names no file; give it as NAME=FILE, for example, qald9=qald-9-test.json");
    }
    Ok((name.to_string(), PathBuf::from(file)))
}

/// The resources of registered benchmarks (`--benchmark-ontology`,
/// `--benchmark-train`), read as `evaluate --ontology` and `--train` read
/// them; each names a registered benchmark.
fn resources(
    args: &ServeArgs,
    benchmarks: &[(String, PathBuf)],
) -> anyhow::Result<std::collections::BTreeMap<String, crate::http::BenchmarkResources>> {
    let mut out: std::collections::BTreeMap<String, crate::http::BenchmarkResources> =
        Default::default();
    let named = |flag: &str, given: &str| -> anyhow::Result<(String, PathBuf)> {
        let (name, path) = parse_benchmark(given).map_err(|e| {
            anyhow::anyhow!(
                "{}",
                e.to_string().replace("--benchmark ", &format!("{flag} "))
            )
        })?;
        if !benchmarks.iter().any(|(b, _)| *b == name) {
            bail!("{flag} {given:?} names no registered benchmark {name:?}; register it with --benchmark {name}=FILE");
        }
        Ok((name, path))
    };
    for given in &args.benchmark_ontologies {
        let (name, dir) = named("--benchmark-ontology", given)?;
        let ontology = super::evaluate::load_ontology(&dir)
            .with_context(|| format!("--benchmark-ontology {name}"))?;
        out.entry(name).or_default().ontology = Some(std::sync::Arc::new(ontology));
    }
    for given in &args.benchmark_trains {
        let (name, file) = named("--benchmark-train", given)?;
        let train = super::evaluate::load_train(&file)
            .with_context(|| format!("--benchmark-train {name}"))?;
        out.entry(name).or_default().train = Some(std::sync::Arc::new(train));
    }
    Ok(out)
}

/// The graph files of each benchmark named by `--benchmark-kg`, by name.
type GraphFiles = std::collections::BTreeMap<String, Vec<PathBuf>>;

/// The benchmarks `--benchmark` registers (name, file) and the graph files
/// `--benchmark-kg` gives each by name, every file checked (a regular file
/// within --max-input-mb) before anything is loaded; a graph of a benchmark
/// not registered is an error.
fn registered(args: &ServeArgs) -> anyhow::Result<(Vec<(String, PathBuf)>, GraphFiles)> {
    let mut benchmarks = Vec::new();
    for b in &args.benchmarks {
        let (name, file) = parse_benchmark(b)?;
        // a regular file within --max-input-mb, before anything is loaded
        super::input::check_file(&file, super::input::max_input_bytes())
            .with_context(|| format!("--benchmark {name}"))?;
        benchmarks.push((name, file));
    }
    let mut graph_files = GraphFiles::default();
    for g in &args.benchmark_kgs {
        let (name, file) = parse_benchmark(g).map_err(|e| {
            anyhow::anyhow!(
                "{}",
                e.to_string().replace("--benchmark ", "--benchmark-kg ")
            )
        })?;
        if !benchmarks.iter().any(|(b, _)| *b == name) {
            bail!("--benchmark-kg {g:?} names no registered benchmark {name:?}; register it with --benchmark {name}=FILE");
        }
        super::input::check_file(&file, super::input::max_input_bytes())
            .with_context(|| format!("--benchmark-kg {name}"))?;
        graph_files.entry(name).or_default().push(file);
    }
    Ok((benchmarks, graph_files))
}

/// Checks how the server is reached: each `--cors-origin`, an `--api-token`
/// long enough, a `--public-url` that is an http(s) URL.
fn check_access(args: &ServeArgs) -> anyhow::Result<()> {
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
    Ok(())
}

/// Runs `qajudge serve`.
pub fn run_serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // request logs on stderr; RUST_LOG picks the level (default: every request)
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .try_init();
    let (benchmarks, graph_files) = registered(&args)?;
    let benchmark_resources = resources(&args, &benchmarks)?;
    check_access(&args)?;
    // before the knowledge graph and the index are loaded, which can take long
    ExperimentStore::check_dir(&args.data)?;
    // no live system unless the operator names its hosts
    let allowed = args.allow_system_hosts.clone();
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    if args.max_concurrent_queries == Some(0) {
        bail!("--max-concurrent-queries 0 would refuse every query; give at least 1 (default: the number of cores, {cores})");
    }
    let query_gate = crate::sparql::QueryGate::new(args.max_concurrent_queries.unwrap_or(cores));
    let config = ServeConfig {
        index: args.index.clone(),
        data: args.data.clone(),
        bind: args.bind.clone(),
        benchmarks,
        benchmark_resources,
        live: LiveOptions {
            allowed_hosts: Some(allowed),
            ..args.live.options()
        },
        knowledge_graph: args
            .kg
            .open()?
            .map(|kg| std::sync::Arc::new(kg.with_gate(query_gate.clone()))),
        benchmark_kgs: graph_files
            .into_iter()
            .map(|(name, files)| {
                let kg = crate::sparql::KnowledgeGraph::load(&files, args.kg.options(), &|_, _| {})
                    .with_context(|| format!("--benchmark-kg {name}"))?;
                Ok((name, std::sync::Arc::new(kg.with_gate(query_gate.clone()))))
            })
            .collect::<anyhow::Result<_>>()?,
        exec: args.kg.options(),
        experiment_time: (args.experiment_timeout_s > 0)
            .then(|| std::time::Duration::from_secs(args.experiment_timeout_s)),
        max_body_bytes: args.max_body_bytes,
        max_evaluations: args.max_evaluations.unwrap_or(4 * cores),
        workers: args.workers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        }),
        api_token: args.api_token.clone().map(|t| t.trim().to_string()),
        cors_origins: args.cors_origins.clone(),
        public_url: args.public_url.clone(),
        sparql_timeout: std::time::Duration::from_millis(args.sparql_timeout_ms.max(1)),
        query_gate,
        // 0 would mean no deadline to actix-web: at least one millisecond
        head_timeout: std::time::Duration::from_millis(args.head_timeout_ms.max(1)),
        body_timeout: std::time::Duration::from_millis(args.body_timeout_ms.max(1)),
        wordnet: args
            .wordnet
            .as_deref()
            .map(|dir| crate::wordnet::WordNet::open(dir).map(std::sync::Arc::new))
            .transpose()?,
    };
    run(config, |addr| {
        eprintln!("qajudge: listening on http://{addr}");
    })?;
    Ok(ExitCode::SUCCESS)
}
