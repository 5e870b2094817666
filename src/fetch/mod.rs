//! `qajudge index fetch`: the index a benchmark needs, built from SPARQL
//! endpoints instead of whole dumps. The IRIs a gold benchmark names
//! (`iris`) are asked, in batches of `VALUES` queries (`queries`), what links
//! them on each endpoint (Wikidata's sitelinks, Freebase ids, exact matches;
//! DBpedia's owl:sameAs and, opt-in, redirects) and their labels and types;
//! the IRIs they link to are asked in turn for `hops` rounds. The answers
//! (`results`), asked politely and cached (`client`), are written as N-Triples
//! into the build's temporary directory and read by the same builder as
//! `qajudge index build`, with the endpoints, queries, date and counts in
//! `meta.json`'s provenance.

mod client;
mod iris;
mod queries;
mod results;

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub use client::{user_agent, user_agent_with_contact, Client, ClientOptions, Done};
pub use iris::{freebase_iri, seed_iri, Seeds};
pub use queries::{parse_endpoint, Endpoint, EndpointKind, DBPEDIA_URL, WIKIDATA_URL};

use crate::index::format::IndexMeta;
use crate::indexer::{BuildOptions, Generated, IndexerError, Progress};
use queries::{halves, is_hub, plan, Asking, DBO_REDIRECTS, WDT_P1709, WDT_P2888};
use results::{ntriples, RdfTerm, Row};

/// The file of fetched statements inside the index.
pub const FETCHED_FILE: &str = "fetched.nt";

/// A fetch that cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// An `--endpoint` value that names no endpoint.
    #[error("--endpoint {given:?}: {why}; give wikidata, dbpedia, wikidata=URL, dbpedia=URL or NAME=wikidata:URL / NAME=dbpedia:URL")]
    Endpoint {
        /// The value given.
        given: String,
        /// What is wrong with it.
        why: String,
    },
    /// The inputs name no IRI.
    #[error("{sources}: no IRI to fetch (no IRI answers, query IRIs or Freebase ids); give a gold benchmark with IRIs or an --iris list")]
    NoIris {
        /// The files read.
        sources: String,
    },
    /// A line of an `--iris` list that is not an IRI.
    #[error(
        "{path}:{line}: {found:?} is not an http(s) IRI or a Freebase id; give one IRI per line"
    )]
    IriList {
        /// The list file.
        path: String,
        /// 1-based line.
        line: usize,
        /// The line (its start).
        found: String,
    },
    /// An endpoint did not answer a query with results.
    #[error("endpoint {endpoint} ({url}): {message}; the query: {query}")]
    Request {
        /// The endpoint's name.
        endpoint: String,
        /// Its URL.
        url: String,
        /// The start of the query.
        query: String,
        /// What went wrong, and what to do.
        message: String,
    },
    /// The cache cannot be written.
    #[error("cache {path}: {message}; give a writable --cache directory")]
    Cache {
        /// The cache file or directory.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The index cannot be built or written.
    #[error(transparent)]
    Index(#[from] IndexerError),
}

/// What to fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The endpoints, asked in this order.
    pub endpoints: Vec<Endpoint>,
    /// Rounds after the first that ask about the IRIs the previous one linked.
    pub hops: u32,
    /// Label languages (and the Wikipedias whose sitelinks are fetched).
    pub langs: Vec<String>,
    /// IRIs per query.
    pub batch: usize,
    /// Fetch DBpedia's redirects and read them as equivalences.
    pub redirects: bool,
    /// How requests are made.
    pub client: ClientOptions,
}

/// What a fetch reports as it goes.
pub trait FetchProgress {
    /// `queries` queries to one endpoint are about to be asked.
    fn begin(&mut self, endpoint: &str, round: u32, queries: usize);
    /// A query of a round finished.
    fn query(&mut self, endpoint: &str, round: u32, done: Done, resolved: usize);
}

/// Reports nothing.
pub struct Quiet;

impl FetchProgress for Quiet {
    fn begin(&mut self, _: &str, _: u32, _: usize) {}
    fn query(&mut self, _: &str, _: u32, _: Done, _: usize) {}
}

/// What a fetch did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FetchSummary {
    /// The starting IRIs.
    pub seeds: usize,
    /// Starting IRIs some answer mentions.
    pub resolved: usize,
    /// IRIs asked about, over all rounds.
    pub asked: usize,
    /// Queries planned, over all endpoints and rounds.
    pub queries: u64,
    /// Requests sent over the network (retries included).
    pub requests: u64,
    /// Answers taken from the cache.
    pub cached: u64,
    /// Retries.
    pub retries: u64,
    /// Distinct statements written.
    pub statements: u64,
    /// Answers of one IRI that the endpoint still cut at its row limit (the
    /// others were asked again in halves).
    pub cut: u64,
    /// Seconds the fetch took (before the build).
    pub seconds: f64,
}

fn write_err(path: &Path, e: std::io::Error) -> FetchError {
    FetchError::Index(IndexerError::Output {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// The equivalence predicates a fetched index reads besides the OWL ones.
pub fn fetched_equivalences(redirects: bool) -> Vec<String> {
    let mut out = vec![WDT_P2888.to_string(), WDT_P1709.to_string()];
    if redirects {
        out.push(DBO_REDIRECTS.to_string());
    }
    out
}

/// The IRIs a row links (its ends, when it is a link): the next round's candidates.
fn linked(row: &Row) -> Vec<String> {
    let link = matches!(
        row.p.as_str(),
        "http://www.w3.org/2002/07/owl#sameAs"
            | "http://www.w3.org/2002/07/owl#equivalentClass"
            | "http://schema.org/about"
            | "http://www.wikidata.org/prop/direct/P646"
            | WDT_P2888
            | WDT_P1709
            | DBO_REDIRECTS
    );
    if !link {
        return Vec::new();
    }
    let mut out: Vec<String> = seed_iri(&row.s).into_iter().collect();
    match &row.o {
        RdfTerm::Iri(o) => out.extend(seed_iri(o)),
        RdfTerm::Literal { value, .. } => out.extend(freebase_iri(value)),
    }
    out
}

/// What the rounds gathered so far.
#[derive(Default)]
struct Gathered {
    /// Canonical IRIs some answer mentions.
    mentioned: BTreeSet<String>,
    /// Distinct N-Triples lines.
    lines: BTreeSet<String>,
    /// The hubs linked this round.
    next: BTreeSet<String>,
    /// Queries asked (halves included).
    queries: u64,
    /// Answers of one IRI still cut.
    cut: u64,
}

/// What every round of a fetch shares.
struct Fetching<'a> {
    client: &'a Client,
    asking: Asking<'a>,
    seeds: &'a Seeds,
}

/// Asks one endpoint about the round's IRIs (a query whose answer the
/// endpoint cut asked again in halves), adding what it answers to `got`;
/// returns the round's record for the provenance.
fn ask_endpoint(
    f: &Fetching<'_>,
    endpoint: &Endpoint,
    (round, frontier): (u32, &[String]),
    progress: &mut dyn FetchProgress,
    got: &mut Gathered,
) -> Result<serde_json::Value, FetchError> {
    let (client, asking, seeds) = (f.client, &f.asking, f.seeds);
    let mut pending = plan(endpoint, frontier, asking);
    let (mut queries, mut rows_of_endpoint, mut split) = (0u64, 0u64, 0u64);
    while !pending.is_empty() {
        let texts: Vec<String> = pending.iter().map(|p| p.text.clone()).collect();
        queries += texts.len() as u64;
        let resolved = seeds.iris.intersection(&got.mentioned).count();
        progress.begin(&endpoint.name, round, texts.len());
        let answers = client.ask_all(endpoint, &texts, &mut |done| {
            progress.query(&endpoint.name, round, done, resolved);
        })?;
        let mut again = Vec::new();
        for (planned, answer) in pending.iter().zip(answers) {
            if answer.cut {
                let halves = halves(endpoint, planned, asking);
                if !halves.is_empty() {
                    split += 1;
                    again.extend(halves);
                    continue;
                }
                got.cut += 1;
            }
            rows_of_endpoint += answer.rows.len() as u64;
            for row in answer.rows {
                got.mentioned.extend(seed_iri(&row.s));
                if let RdfTerm::Iri(o) = &row.o {
                    got.mentioned.extend(seed_iri(o));
                }
                got.next
                    .extend(linked(&row).into_iter().filter(|i| is_hub(i)));
                got.lines.insert(ntriples(&row));
            }
        }
        pending = again;
    }
    got.queries += queries;
    Ok(serde_json::json!({
        "round": round,
        "endpoint": endpoint.name,
        "iris": frontier.len(),
        "queries": queries,
        "split": split,
        "rows": rows_of_endpoint,
    }))
}

/// Fetches what links the seeds from the endpoints and builds the index at
/// `out` (absent, empty, or an index qajudge wrote; checked before anything
/// is asked).
pub fn fetch(
    seeds: &Seeds,
    opts: &FetchOptions,
    out: &Path,
    progress: &mut dyn FetchProgress,
    build_progress: &mut dyn Progress,
) -> Result<(IndexMeta, FetchSummary), FetchError> {
    if seeds.iris.is_empty() {
        return Err(FetchError::NoIris {
            sources: seeds.sources.join(" "),
        });
    }
    let generated = Generated::begin(out, FETCHED_FILE)?;
    let client = Client::new(opts.client.clone())?;
    let started = Instant::now();
    let file = generated.file().to_path_buf();
    let mut writer =
        std::io::BufWriter::new(std::fs::File::create(&file).map_err(|e| write_err(&file, e))?);
    let fetching = Fetching {
        client: &client,
        asking: Asking {
            langs: &opts.langs,
            redirects: opts.redirects,
            batch: opts.batch,
        },
        seeds,
    };
    let mut asked: BTreeSet<String> = BTreeSet::new();
    let mut frontier: Vec<String> = seeds.iris.iter().cloned().collect();
    let mut got = Gathered::default();
    let mut per_endpoint = Vec::new();
    for round in 0..=opts.hops {
        if frontier.is_empty() {
            break;
        }
        got.next.clear();
        for endpoint in &opts.endpoints {
            let asked_round =
                ask_endpoint(&fetching, endpoint, (round, &frontier), progress, &mut got)?;
            per_endpoint.push(asked_round);
        }
        asked.extend(frontier.drain(..));
        frontier = std::mem::take(&mut got.next)
            .into_iter()
            .filter(|i| !asked.contains(i))
            .collect();
    }
    let Gathered {
        mentioned,
        lines,
        queries: queries_total,
        cut,
        ..
    } = got;
    for line in &lines {
        writer
            .write_all(line.as_bytes())
            .map_err(|e| write_err(&file, e))?;
    }
    writer.flush().map_err(|e| write_err(&file, e))?;
    drop(writer);
    let c = &client.counters;
    let summary = FetchSummary {
        seeds: seeds.iris.len(),
        resolved: seeds.iris.intersection(&mentioned).count(),
        asked: asked.len(),
        queries: queries_total,
        requests: c.requests.load(std::sync::atomic::Ordering::Relaxed),
        cached: c.cached.load(std::sync::atomic::Ordering::Relaxed),
        retries: c.retries.load(std::sync::atomic::Ordering::Relaxed),
        statements: lines.len() as u64,
        cut,
        seconds: started.elapsed().as_secs_f64(),
    };
    let build = BuildOptions {
        equivalence: fetched_equivalences(opts.redirects),
        provenance: Some(provenance(seeds, opts, &summary, per_endpoint)),
        ..BuildOptions::default()
    };
    let meta = generated.finish(&build, build_progress)?;
    Ok((meta, summary))
}

/// The `provenance` of a fetched index: what was asked where, when, and what came back.
fn provenance(
    seeds: &Seeds,
    opts: &FetchOptions,
    summary: &FetchSummary,
    rounds: Vec<serde_json::Value>,
) -> serde_json::Value {
    let langs = vec!["en".to_string()];
    let sample = [
        "http://www.wikidata.org/entity/Q42".to_string(),
        "http://dbpedia.org/resource/Douglas_Adams".to_string(),
        "http://rdf.freebase.com/ns/m.0282x".to_string(),
    ];
    let asking = Asking {
        langs: if opts.langs.is_empty() {
            &langs
        } else {
            &opts.langs
        },
        redirects: opts.redirects,
        batch: 1,
    };
    let endpoints: Vec<serde_json::Value> = opts
        .endpoints
        .iter()
        .map(|e| {
            let templates: Vec<serde_json::Value> = plan(e, &sample, &asking)
                .into_iter()
                .map(|p| serde_json::json!({"direction": p.direction, "example": p.text}))
                .collect();
            serde_json::json!({"name": e.name, "url": e.url, "kind": e.kind, "queries": templates})
        })
        .collect();
    serde_json::json!({
        "fetched_by": format!("qajudge {} index fetch", env!("CARGO_PKG_VERSION")),
        "date": crate::clock::now_rfc3339(),
        "sources": seeds.sources,
        "endpoints": endpoints,
        "hops": opts.hops,
        "lang": opts.langs,
        "batch": opts.batch,
        "redirects": opts.redirects,
        "user_agent": opts.client.user_agent,
        "rounds": rounds,
        "counts": summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_links_of_a_row() {
        let row = Row {
            s: "http://www.wikidata.org/entity/Q42".into(),
            p: "http://www.wikidata.org/prop/direct/P646".into(),
            o: RdfTerm::Literal {
                value: "/m/0282x".into(),
                lang: None,
                datatype: None,
            },
        };
        assert_eq!(
            linked(&row),
            [
                "http://www.wikidata.org/entity/Q42",
                "http://rdf.freebase.com/ns/m.0282x"
            ]
        );
        let label = Row {
            p: "http://www.w3.org/2000/01/rdf-schema#label".into(),
            ..row
        };
        assert!(linked(&label).is_empty());
    }

    #[test]
    fn awkward_answers_are_statements_the_builder_reads() {
        let iri = |s: &str| RdfTerm::Iri(s.to_string());
        let literal = |v: &str, lang: Option<&str>, datatype: Option<&str>| RdfTerm::Literal {
            value: v.to_string(),
            lang: lang.map(String::from),
            datatype: datatype.map(String::from),
        };
        let rows = [
            Row {
                s: "http://dbpedia.org/resource/A \"B\" <C> {D}|^`\\".into(),
                p: "http://www.w3.org/2002/07/owl#sameAs".into(),
                o: iri("http://www.wikidata.org/entity/Q1"),
            },
            Row {
                s: "http://www.wikidata.org/entity/Q1".into(),
                p: "http://www.w3.org/2000/01/rdf-schema#label".into(),
                o: literal(
                    "line\nbreak \"quoted\" back\\slash \u{0} tab\t Köln",
                    Some("de-ch"),
                    None,
                ),
            },
            Row {
                s: "urn:x:1".into(),
                p: "http://www.w3.org/1999/02/22-rdf-syntax-ns#type".into(),
                o: iri("http://x/C"),
            },
            Row {
                s: "http://www.wikidata.org/entity/Q1".into(),
                p: "http://www.wikidata.org/prop/direct/P646".into(),
                o: literal(
                    "/m/0x",
                    None,
                    Some("http://www.w3.org/2001/XMLSchema#string"),
                ),
            },
        ];
        let out =
            std::env::temp_dir().join(format!("qajudge-fetch-awkward-{}", std::process::id()));
        let generated = Generated::begin(&out, FETCHED_FILE).expect("stage");
        let text: String = rows.iter().map(ntriples).collect();
        std::fs::write(generated.file(), text).expect("statements");
        let meta = generated
            .finish(&BuildOptions::default(), &mut crate::indexer::Silent)
            .expect("every line reads");
        assert_eq!((meta.counts.statements, meta.counts.skipped), (4, 0));
        assert_eq!(meta.counts.equivalence_links, 2, "sameAs and P646");
        std::fs::remove_dir_all(&out).expect("cleanup");
    }

    #[test]
    fn no_iris_is_an_error_naming_the_sources() {
        let seeds = Seeds {
            sources: vec!["empty.json".into()],
            ..Seeds::default()
        };
        let opts = FetchOptions {
            endpoints: Vec::new(),
            hops: 1,
            langs: vec!["en".into()],
            batch: 200,
            redirects: false,
            client: ClientOptions::default(),
        };
        let dir = std::env::temp_dir().join(format!("qajudge-fetch-none-{}", std::process::id()));
        let err = fetch(&seeds, &opts, &dir, &mut Quiet, &mut crate::indexer::Silent)
            .expect_err("no iris");
        assert!(err.to_string().starts_with("empty.json: no IRI"), "{err}");
        assert!(!dir.exists());
    }
}
