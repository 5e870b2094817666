//! `qajudge index fetch`: the arguments, the progress lines on stderr and the
//! closing summary of a fetch from SPARQL endpoints (docs/indexer.md,
//! "Fetching an index for a benchmark").

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use crate::fetch::{
    fetch, parse_endpoint, ClientOptions, Done, FetchOptions, FetchProgress, Seeds,
};
use crate::model::Dataset;

/// Arguments of `qajudge index fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The index directory to write: absent, empty, or an index qajudge wrote
    /// (replaced only when the fetch and build succeed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Gold benchmarks whose IRIs to fetch (answers, the IRIs of their
    /// queries, Freebase ids), repeatable.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "iris",
        conflicts_with = "iris"
    )]
    pub gold: Vec<PathBuf>,
    /// A list of IRIs to fetch instead, one per line (`#` comments).
    #[arg(long, value_name = "FILE")]
    pub iris: Option<PathBuf>,
    /// An endpoint to ask, repeatable: `wikidata` (query.wikidata.org),
    /// `dbpedia` (dbpedia.org/sparql), `wikidata=URL` / `dbpedia=URL` (that
    /// vocabulary at another URL) or `NAME=wikidata:URL` / `NAME=dbpedia:URL`.
    #[arg(long = "endpoint", value_name = "NAME=URL", required = true)]
    pub endpoints: Vec<String>,
    /// Rounds that ask about the Wikidata items, DBpedia resources and
    /// Freebase ids the previous round linked (0: the starting IRIs only).
    #[arg(long, default_value_t = 1)]
    pub hops: u32,
    /// Label languages, comma-separated; also the Wikipedias whose sitelinks
    /// are fetched.
    #[arg(
        long,
        value_name = "LANGS",
        default_value = "en",
        value_delimiter = ','
    )]
    pub lang: Vec<String>,
    /// IRIs per query.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub batch: usize,
    /// Requests at once per endpoint (public endpoints ask for 1).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub parallel: usize,
    /// Seconds one request may take (WDQS stops queries at 60).
    #[arg(long, value_name = "S", default_value_t = 60)]
    pub timeout: u64,
    /// Tries after the first when an endpoint answers 429, 5xx or times out.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub retries: u32,
    /// Keep every answer in DIR (one file per endpoint and query), so that an
    /// interrupted fetch resumes and a repeated one asks nothing.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Also fetch DBpedia's dbo:wikiPageRedirects and read them as equivalences
    /// (a redirect's name then matches its target).
    #[arg(long)]
    pub redirects: bool,
    /// The largest answer read, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 64)]
    pub max_answer_mb: u64,
    /// Your e-mail address or URL, added to the User-Agent (Wikimedia's
    /// User-Agent policy asks clients for a way to reach them).
    #[arg(long, value_name = "EMAIL_OR_URL", env = "QAJUDGE_CONTACT")]
    pub contact: Option<String>,
}

/// Progress lines on stderr, at most one a second and one at each end.
struct Lines {
    seeds: usize,
    last: Option<Instant>,
    /// When the queries being asked began (the ETA's base).
    started: Instant,
}

impl FetchProgress for Lines {
    fn begin(&mut self, _: &str, _: u32, _: usize) {
        self.started = Instant::now();
    }

    fn query(&mut self, endpoint: &str, round: u32, done: Done, resolved: usize) {
        let now = Instant::now();
        let due = self
            .last
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1));
        if !due && done.done < done.total {
            return;
        }
        self.last = Some(now);
        let secs = self.started.elapsed().as_secs_f64();
        let eta = if done.done < done.total {
            let per = secs / done.done as f64;
            format!(", eta {:.0} s", per * (done.total - done.done) as f64)
        } else {
            String::new()
        };
        eprintln!(
            "fetch: {endpoint} round {}: {}/{} queries{}, {resolved} of {} starting IRIs resolved so far{eta}",
            round + 1,
            done.done,
            done.total,
            if done.cached { " (cached)" } else { "" },
            self.seeds,
        );
    }
}

/// Runs `qajudge index fetch`.
pub fn run(args: FetchArgs) -> anyhow::Result<ExitCode> {
    let endpoints = args
        .endpoints
        .iter()
        .map(|e| parse_endpoint(e))
        .collect::<Result<Vec<_>, _>>()?;
    if args.batch == 0 {
        anyhow::bail!("--batch 0: give at least 1 IRI per query");
    }
    let mut seeds = Seeds::default();
    for path in &args.gold {
        let gold = super::load(path).with_context(|| format!("--gold {}", path.display()))?;
        seeds.add_gold(&gold, &path.display().to_string());
    }
    if let Some(path) = &args.iris {
        let bytes = super::input::read(path).context("--iris")?;
        let text = String::from_utf8(bytes).map_err(|e| {
            anyhow::anyhow!(
                "{}: not UTF-8 text at byte {}; give one IRI per line",
                path.display(),
                e.utf8_error().valid_up_to()
            )
        })?;
        seeds.add_list(&text, &path.display().to_string())?;
    }
    for d in &seeds.diagnostics {
        eprintln!("note: {d}; its answers are fetched, not its query's IRIs");
    }
    let user_agent = match args.contact.as_deref() {
        None => crate::fetch::user_agent(),
        Some(c) => crate::fetch::user_agent_with_contact(c).ok_or_else(|| {
            anyhow::anyhow!(
                "--contact {c:?}: not one line of printable ASCII without parentheses, at most 200 characters; give an e-mail address or a URL"
            )
        })?,
    };
    let opts = FetchOptions {
        endpoints,
        hops: args.hops,
        langs: args
            .lang
            .iter()
            .map(|l| l.trim().to_ascii_lowercase())
            .filter(|l| !l.is_empty())
            .collect(),
        batch: args.batch,
        redirects: args.redirects,
        client: ClientOptions {
            parallel: args.parallel.max(1),
            timeout: Duration::from_secs(args.timeout.max(1)),
            retries: args.retries,
            max_body: args.max_answer_mb.max(1) << 20,
            cache: args.cache.clone(),
            user_agent,
            ..ClientOptions::default()
        },
    };
    let started = Instant::now();
    let mut lines = Lines {
        seeds: seeds.iris.len(),
        last: None,
        started,
    };
    let (meta, summary) = fetch(
        &seeds,
        &opts,
        &args.out,
        &mut lines,
        &mut crate::indexer::Silent,
    )?;
    let c = &meta.counts;
    eprintln!(
        "{}: {} starting IRIs, {} resolved; {} IRIs asked in {} queries ({} requests, {} cached, {} retries); {} statements; {} equivalence links, {} classes over {} IRIs, {} labels, {} typed IRIs; {:.1} s",
        args.out.display(),
        summary.seeds,
        summary.resolved,
        summary.asked,
        summary.queries,
        summary.requests,
        summary.cached,
        summary.retries,
        summary.statements,
        c.equivalence_links,
        c.classes,
        c.iris,
        c.labels,
        c.typed_iris,
        started.elapsed().as_secs_f64()
    );
    if summary.cut > 0 {
        eprintln!(
            "warning: {} answers about a single IRI were still cut at the endpoint's row limit; some of their links, labels or types are missing",
            summary.cut
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The user's cache directory of qajudge: `$XDG_CACHE_HOME/qajudge`, else
/// `$HOME/.cache/qajudge`.
fn cache_root() -> anyhow::Result<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Ok(dir.join("qajudge"));
    }
    match var("HOME") {
        Some(home) => Ok(home.join(".cache").join("qajudge")),
        None => anyhow::bail!(
            "--fetch-index: neither XDG_CACHE_HOME nor HOME is set; set one, or fetch with `qajudge index fetch --out DIR` and give --index DIR"
        ),
    }
}

/// `evaluate --fetch-index`: the index that `index fetch` builds for `gold`
/// from `endpoints` (default options, `--lang` besides English), under the
/// user's cache in a directory named by the SHA-256 of the gold's IRIs, the
/// endpoints and the options; fetched once, then reused. The answers go to
/// the cache beside it, so a fetch cut short resumes.
pub(super) fn fetched_index(
    gold: &Dataset,
    gold_name: &str,
    endpoints: &[String],
    lang: Option<&str>,
) -> anyhow::Result<PathBuf> {
    let endpoints = endpoints
        .iter()
        .map(|e| parse_endpoint(e))
        .collect::<Result<Vec<_>, _>>()
        .context("--fetch-index")?;
    let mut seeds = Seeds::default();
    seeds.add_gold(gold, gold_name);
    let mut langs = vec!["en".to_string()];
    if let Some(l) = lang.map(|l| l.trim().to_ascii_lowercase()) {
        if !l.is_empty() && !langs.contains(&l) {
            langs.push(l);
        }
    }
    let contact = std::env::var("QAJUDGE_CONTACT").ok();
    let user_agent = match contact.as_deref() {
        None => crate::fetch::user_agent(),
        Some(c) => crate::fetch::user_agent_with_contact(c).ok_or_else(|| {
            anyhow::anyhow!(
                "QAJUDGE_CONTACT {c:?}: not one line of printable ASCII without parentheses, at most 200 characters; give an e-mail address or a URL"
            )
        })?,
    };
    let opts = FetchOptions {
        endpoints,
        hops: 1,
        langs,
        batch: 200,
        redirects: false,
        client: ClientOptions {
            user_agent,
            ..ClientOptions::default()
        },
    };
    let mut key = crate::digest::Sha256Hasher::new();
    for iri in &seeds.iris {
        key.update(iri.as_bytes());
        key.update(b"\n");
    }
    for e in &opts.endpoints {
        key.update(format!("{:?} {}\n", e.kind, e.url).as_bytes());
    }
    key.update(
        format!(
            "hops {} lang {} batch {}",
            opts.hops,
            opts.langs.join(","),
            opts.batch
        )
        .as_bytes(),
    );
    let root = cache_root()?;
    let dir = root.join("fetched").join(&key.hex()[..32]);
    if crate::index::build_output_at(&dir).is_some() && crate::index::Index::open(&dir).is_ok() {
        eprintln!("fetched index: {} (from an earlier fetch)", dir.display());
        return Ok(dir);
    }
    let opts = FetchOptions {
        client: ClientOptions {
            cache: Some(root.join("fetch-answers")),
            ..opts.client
        },
        ..opts
    };
    let mut lines = Lines {
        seeds: seeds.iris.len(),
        last: None,
        started: Instant::now(),
    };
    let (_, summary) = fetch(&seeds, &opts, &dir, &mut lines, &mut crate::indexer::Silent)
        .context("--fetch-index")?;
    eprintln!(
        "fetched index: {} ({} starting IRIs, {} resolved, {} requests, {} cached answers)",
        dir.display(),
        summary.seeds,
        summary.resolved,
        summary.requests,
        summary.cached
    );
    Ok(dir)
}
