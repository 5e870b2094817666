//! What the fetcher asks each kind of endpoint: the endpoints by name (the
//! predefined `wikidata` and `dbpedia`, or `NAME=URL` with a kind), which IRIs
//! an endpoint is asked about forward (its own IRIs: their links, labels and
//! types) or backward (other IRIs: what of its own links to them), and the
//! `VALUES` SELECT queries of one batch, all answering `?s ?p ?o` rows that are
//! statements of the endpoint's graph in its own vocabulary.

use super::results::{iri_ref, quoted};
use super::FetchError;

/// The public Wikidata Query Service.
pub const WIKIDATA_URL: &str = "https://query.wikidata.org/sparql";
/// The public DBpedia endpoint.
pub const DBPEDIA_URL: &str = "https://dbpedia.org/sparql";

const SCHEMA_ABOUT: &str = "http://schema.org/about";
const SCHEMA_IS_PART_OF: &str = "http://schema.org/isPartOf";
const WDT: &str = "http://www.wikidata.org/prop/direct/";
const WD: &str = "http://www.wikidata.org/entity/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const SKOS_ALT_LABEL: &str = "http://www.w3.org/2004/02/skos/core#altLabel";
const OWL: &str = "http://www.w3.org/2002/07/owl#";
/// dbo:wikiPageRedirects.
pub const DBO_REDIRECTS: &str = "http://dbpedia.org/ontology/wikiPageRedirects";
/// wdt:P2888 (exact match), read as an equivalence.
pub const WDT_P2888: &str = "http://www.wikidata.org/prop/direct/P2888";
/// wdt:P1709 (equivalent class), read as an equivalence.
pub const WDT_P1709: &str = "http://www.wikidata.org/prop/direct/P1709";
const FREEBASE: &str = "http://rdf.freebase.com/ns/";

/// The vocabulary an endpoint speaks, which decides the queries it is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EndpointKind {
    /// Wikidata's RDF: sitelinks (`schema:about`), `wdt:` properties, labels
    /// and aliases.
    Wikidata,
    /// DBpedia's: `owl:sameAs`, redirects, `rdfs:label`, `rdf:type`.
    Dbpedia,
}

impl EndpointKind {
    fn parse(name: &str) -> Option<EndpointKind> {
        match name.to_ascii_lowercase().as_str() {
            "wikidata" => Some(EndpointKind::Wikidata),
            "dbpedia" => Some(EndpointKind::Dbpedia),
            _ => None,
        }
    }
}

/// An endpoint to ask.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Endpoint {
    /// The name it is reported by.
    pub name: String,
    /// Its SPARQL 1.1 protocol URL.
    pub url: String,
    /// Its vocabulary.
    pub kind: EndpointKind,
}

/// Reads an `--endpoint` value: `wikidata` or `dbpedia` (the public endpoints),
/// `qlever:wikidata` or `qlever:dbpedia` (QLever's, which GRASP asks),
/// `wikidata=URL` or `dbpedia=URL` (that vocabulary at another URL), or
/// `NAME=KIND:URL` (KIND `wikidata` or `dbpedia`); a URL may be `qlever:KG`.
pub fn parse_endpoint(spec: &str) -> Result<Endpoint, FetchError> {
    let bad = |why: &str| FetchError::Endpoint {
        given: spec.to_string(),
        why: why.to_string(),
    };
    let spec = spec.trim();
    let Some((name, rest)) = spec.split_once('=') else {
        // QLever's endpoints, as GRASP names them (`qlever:wikidata`,
        // `qlever:dbpedia`): the vocabulary is the graph's
        if let Some(kg) = spec.strip_prefix("qlever:") {
            let kind = EndpointKind::parse(kg).ok_or_else(|| {
                bad("QLever's endpoint of a graph other than wikidata or dbpedia needs its vocabulary: NAME=wikidata:qlever:KG or NAME=dbpedia:qlever:KG")
            })?;
            return Ok(Endpoint {
                name: format!("qlever-{}", kg.to_ascii_lowercase()),
                url: crate::live::endpoint_url(spec)
                    .ok_or_else(|| bad("not a QLever graph name"))?,
                kind,
            });
        }
        return match EndpointKind::parse(spec) {
            Some(EndpointKind::Wikidata) => Ok(Endpoint {
                name: "wikidata".into(),
                url: WIKIDATA_URL.into(),
                kind: EndpointKind::Wikidata,
            }),
            Some(EndpointKind::Dbpedia) => Ok(Endpoint {
                name: "dbpedia".into(),
                url: DBPEDIA_URL.into(),
                kind: EndpointKind::Dbpedia,
            }),
            None => Err(bad("not a predefined endpoint name (wikidata, dbpedia)")),
        };
    };
    let name = name.trim();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(bad(
            "the name before `=` must be letters, digits, `-` or `_`",
        ));
    }
    let (kind, url) = match EndpointKind::parse(name) {
        Some(kind) => (kind, rest.trim()),
        None => {
            let Some((kind, url)) = rest
                .split_once(':')
                .and_then(|(k, u)| EndpointKind::parse(k).map(|k| (k, u)))
            else {
                return Err(bad(
                    "an endpoint of another name needs its vocabulary: NAME=wikidata:URL or NAME=dbpedia:URL",
                ));
            };
            (kind, url.trim())
        }
    };
    let url = &crate::live::endpoint_url(url)
        .ok_or_else(|| bad("qlever:KG needs a graph name of letters, digits, `-`, `_` or `.`"))?;
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) || url.len() <= 8 {
        return Err(bad("the URL must be an http(s) URL of a SPARQL endpoint"));
    }
    Ok(Endpoint {
        name: name.to_string(),
        url: url.clone(),
        kind,
    })
}

/// Where a canonical IRI belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Home {
    /// `http://www.wikidata.org/entity/Q…` (or `P…`, `L…`).
    Wikidata,
    /// `http://dbpedia.org/…` or a language chapter's `http://xx.dbpedia.org/…`.
    Dbpedia,
    /// `http://rdf.freebase.com/ns/…`.
    Freebase,
    /// Anything else.
    Other,
}

/// Where the canonical IRI `iri` belongs.
pub(super) fn home(iri: &str) -> Home {
    if iri.strip_prefix(WD).is_some_and(|id| {
        let mut bytes = id.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_uppercase())
            && id.len() > 1
            && bytes.all(|b| b.is_ascii_digit())
    }) {
        return Home::Wikidata;
    }
    if iri.starts_with(FREEBASE) {
        return Home::Freebase;
    }
    let host = iri
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    if host == "dbpedia.org" || host.ends_with(".dbpedia.org") {
        return Home::Dbpedia;
    }
    Home::Other
}

/// True for the IRIs a further hop asks about: Wikidata items, English DBpedia
/// resources and Freebase ids (the hubs the endpoints link through). Other
/// linked IRIs (language chapters, GeoNames, YAGO …) are kept as links, not
/// asked about.
pub(super) fn is_hub(iri: &str) -> bool {
    iri.starts_with(WD) && home(iri) == Home::Wikidata
        || iri.starts_with("http://dbpedia.org/resource/")
        || iri.starts_with(FREEBASE)
}

/// One query of a batch, with the kind of question it asks and its IRIs.
#[derive(Debug, Clone)]
pub struct Planned {
    /// `forward` or `backward`.
    pub direction: &'static str,
    /// The query text.
    pub text: String,
    /// The IRIs it asks about.
    pub iris: Vec<String>,
}

/// What the queries ask besides the IRIs.
#[derive(Debug, Clone)]
pub struct Asking<'a> {
    /// Label languages (`en`, `de` …), also the Wikipedias whose sitelinks are asked.
    pub langs: &'a [String],
    /// Ask DBpedia's redirects (both ways).
    pub redirects: bool,
    /// IRIs per query.
    pub batch: usize,
}

/// The queries that ask `endpoint` about the canonical IRIs `iris` (sorted),
/// in batches.
pub fn plan(endpoint: &Endpoint, iris: &[String], asking: &Asking<'_>) -> Vec<Planned> {
    let batch = asking.batch.max(1);
    let (forward, backward): (Vec<&String>, Vec<&String>) = iris.iter().partition(|i| {
        matches!(
            (endpoint.kind, home(i)),
            (EndpointKind::Wikidata, Home::Wikidata) | (EndpointKind::Dbpedia, Home::Dbpedia)
        )
    });
    let mut out = Vec::new();
    for (direction, list) in [("forward", forward), ("backward", backward)] {
        for chunk in list.chunks(batch) {
            out.extend(query(endpoint, direction, chunk, asking));
        }
    }
    out
}

/// The query of one batch, or `None` when the endpoint cannot be asked about
/// any of its IRIs.
fn query(
    endpoint: &Endpoint,
    direction: &'static str,
    chunk: &[&String],
    asking: &Asking<'_>,
) -> Option<Planned> {
    let text = match (endpoint.kind, direction) {
        (EndpointKind::Wikidata, "forward") => Some(wikidata_forward(chunk, asking)),
        (EndpointKind::Dbpedia, "forward") => Some(dbpedia_forward(chunk, asking)),
        (EndpointKind::Wikidata, _) => wikidata_backward(chunk),
        (EndpointKind::Dbpedia, _) => Some(dbpedia_backward(chunk)),
    }?;
    Some(Planned {
        direction,
        text,
        iris: chunk.iter().map(|i| (*i).clone()).collect(),
    })
}

/// A query whose answer the endpoint cut (at its row limit) asked again in
/// two halves; empty when it asks about one IRI only.
pub fn halves(endpoint: &Endpoint, planned: &Planned, asking: &Asking<'_>) -> Vec<Planned> {
    if planned.iris.len() < 2 {
        return Vec::new();
    }
    let refs: Vec<&String> = planned.iris.iter().collect();
    let (a, b) = refs.split_at(refs.len() / 2);
    [a, b]
        .into_iter()
        .filter_map(|half| query(endpoint, planned.direction, half, asking))
        .collect()
}

fn values(iris: &[&String]) -> String {
    iris.iter()
        .map(|i| iri_ref(i))
        .collect::<Vec<_>>()
        .join(" ")
}

fn lang_filter(langs: &[String]) -> String {
    langs
        .iter()
        .map(|l| quoted(&l.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sitelinks in the `--lang` Wikipedias, Freebase ids, exact matches,
/// equivalent classes and classes, labels and aliases in `--lang`.
fn wikidata_forward(iris: &[&String], asking: &Asking<'_>) -> String {
    let sites = asking
        .langs
        .iter()
        .map(|l| format!("<https://{}.wikipedia.org/>", l.to_ascii_lowercase()))
        .collect::<Vec<_>>()
        .join(", ");
    // one branch per predicate, each listing the IRIs, rather than the IRIs
    // once outside the union or `?s ?p ?o` filtered: every branch is then an
    // index lookup of (IRI, predicate) on any store, and an item's thousands
    // of other statements (labels in every language) are never read
    let items = values(iris);
    let langs = lang_filter(asking.langs);
    let mut branches: Vec<String> = [
        format!("{WDT}P646"),
        WDT_P2888.into(),
        WDT_P1709.into(),
        format!("{WDT}P31"),
    ]
    .iter()
    .map(|p| branch("s", &items, p, ""))
    .collect();
    let in_langs = format!("FILTER(LANG(?o) IN ({langs})) ");
    for p in [RDFS_LABEL, SKOS_ALT_LABEL] {
        branches.push(branch("s", &items, p, &in_langs));
    }
    branches.push(format!(
        "{{ VALUES ?o {{ {items} }} ?s <{SCHEMA_ABOUT}> ?o ; <{SCHEMA_IS_PART_OF}> ?site . FILTER(?site IN ({sites})) BIND(<{SCHEMA_ABOUT}> AS ?p) }}"
    ));
    union(&branches)
}

/// The Wikidata items whose sitelinks are the DBpedia resources' articles,
/// whose Freebase ids are the MIDs, whose exact matches or equivalent classes
/// are the other IRIs. `None` when none of the IRIs can be asked.
fn wikidata_backward(iris: &[&String]) -> Option<String> {
    let mut articles = Vec::new();
    let mut mids = Vec::new();
    let mut others = Vec::new();
    for iri in iris {
        match home(iri) {
            Home::Dbpedia => {
                if let Some(a) = wikipedia_article(iri) {
                    articles.push(iri_ref(&a));
                } else {
                    others.push(iri_ref(iri));
                }
            }
            Home::Freebase => {
                let mid = &iri[FREEBASE.len()..];
                mids.push(quoted(&format!("/{}", mid.replacen('.', "/", 1))));
            }
            Home::Other => others.push(iri_ref(iri)),
            Home::Wikidata => {}
        }
    }
    let mut branches = Vec::new();
    if !articles.is_empty() {
        branches.push(format!(
            "{{ VALUES ?s {{ {} }} ?s <{SCHEMA_ABOUT}> ?o . BIND(<{SCHEMA_ABOUT}> AS ?p) }}",
            articles.join(" ")
        ));
    }
    if !mids.is_empty() {
        branches.push(branch("o", &mids.join(" "), &format!("{WDT}P646"), ""));
    }
    if !others.is_empty() {
        let others = others.join(" ");
        branches.push(branch("o", &others, WDT_P2888, ""));
        branches.push(branch("o", &others, WDT_P1709, ""));
    }
    (!branches.is_empty()).then(|| union(&branches))
}

/// owl:sameAs and the OWL equivalences, types, (opt-in) redirects both ways,
/// labels in `--lang`.
fn dbpedia_forward(iris: &[&String], asking: &Asking<'_>) -> String {
    // one branch per predicate, as for Wikidata: a DBpedia resource has
    // thousands of other statements (wikiPageWikiLink) that are never read
    let items = values(iris);
    let langs = lang_filter(asking.langs);
    let mut out_predicates = vec![
        format!("{OWL}sameAs"),
        format!("{OWL}equivalentClass"),
        format!("{OWL}equivalentProperty"),
        RDF_TYPE.to_string(),
    ];
    if asking.redirects {
        out_predicates.push(DBO_REDIRECTS.to_string());
    }
    let mut branches: Vec<String> = out_predicates
        .iter()
        .map(|p| branch("s", &items, p, ""))
        .collect();
    branches.push(branch(
        "s",
        &items,
        RDFS_LABEL,
        &format!("FILTER(LANG(?o) IN ({langs})) "),
    ));
    if asking.redirects {
        branches.push(branch("o", &items, DBO_REDIRECTS, ""));
    }
    union(&branches)
}

/// The DBpedia resources that are owl:sameAs the IRIs (DBpedia links to
/// Wikidata and Freebase this way), and the classes equivalent to them.
fn dbpedia_backward(iris: &[&String]) -> String {
    let items = values(iris);
    union(&[
        branch("o", &items, &format!("{OWL}sameAs"), ""),
        branch("o", &items, &format!("{OWL}equivalentClass"), ""),
    ])
}

/// One branch of a union: `VALUES ?known { items }`, the statements of
/// predicate `p` with `?known` at its end, `?p` bound to `p`.
fn branch(known: &str, items: &str, p: &str, filter: &str) -> String {
    format!("{{ VALUES ?{known} {{ {items} }} ?s <{p}> ?o . {filter}BIND(<{p}> AS ?p) }}")
}

/// The SELECT of `?s ?p ?o` over the union of `branches`.
fn union(branches: &[String]) -> String {
    format!(
        "SELECT ?s ?p ?o WHERE {{\n  {}\n}}",
        branches.join("\n  UNION ")
    )
}

/// The Wikipedia article of a canonical DBpedia resource, as Wikidata writes
/// its sitelinks (`https://xx.wikipedia.org/wiki/Title`, MediaWiki's URL
/// encoding), or `None` for an IRI that is not a resource.
pub(super) fn wikipedia_article(iri: &str) -> Option<String> {
    let rest = iri.strip_prefix("http://")?;
    let (host, path) = rest.split_once('/')?;
    let title = path.strip_prefix("resource/")?;
    let lang = if host == "dbpedia.org" {
        "en"
    } else {
        host.strip_suffix(".dbpedia.org")?
    };
    if title.is_empty() {
        return None;
    }
    let mut out = format!("https://{lang}.wikipedia.org/wiki/");
    for b in title.replace(' ', "_").bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~;:@$!*(),/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_names() {
        assert_eq!(parse_endpoint("wikidata").expect("name").url, WIKIDATA_URL);
        let e = parse_endpoint("dbpedia=http://127.0.0.1:7878/query").expect("custom");
        assert_eq!(
            (e.name.as_str(), e.kind),
            ("dbpedia", EndpointKind::Dbpedia)
        );
        let e = parse_endpoint("mirror=wikidata:http://h/sparql").expect("kind");
        assert_eq!(
            (e.url.as_str(), e.kind),
            ("http://h/sparql", EndpointKind::Wikidata)
        );
        // QLever's endpoints, as GRASP asks them
        let e = parse_endpoint("qlever:wikidata").expect("qlever");
        assert_eq!(
            (e.name.as_str(), e.url.as_str(), e.kind),
            (
                "qlever-wikidata",
                "https://qlever.cs.uni-freiburg.de/api/wikidata",
                EndpointKind::Wikidata
            )
        );
        let e = parse_endpoint("dblp=dbpedia:qlever:dbpedia").expect("qlever url");
        assert_eq!(e.url, "https://qlever.cs.uni-freiburg.de/api/dbpedia");
        for bad in [
            "wikidat",
            "mirror=http://h/sparql",
            "wikidata=ftp://x/y",
            "a b=wikidata:http://h/",
            "qlever:freebase",
            "wikidata=qlever:",
        ] {
            let err = parse_endpoint(bad).expect_err(bad).to_string();
            assert!(err.contains(bad), "{err}");
        }
    }

    #[test]
    fn articles_as_wikidata_writes_them() {
        assert_eq!(
            wikipedia_article("http://dbpedia.org/resource/Douglas_Adams").as_deref(),
            Some("https://en.wikipedia.org/wiki/Douglas_Adams")
        );
        assert_eq!(
            wikipedia_article("http://de.dbpedia.org/resource/Köln (Stadt)").as_deref(),
            Some("https://de.wikipedia.org/wiki/K%C3%B6ln_(Stadt)")
        );
        assert_eq!(
            wikipedia_article("http://dbpedia.org/ontology/Person"),
            None
        );
    }

    #[test]
    fn each_iri_is_asked_where_it_can_be_answered() {
        let iris: Vec<String> = [
            "http://dbpedia.org/resource/Douglas_Adams",
            "http://rdf.freebase.com/ns/m.0282x",
            "http://www.wikidata.org/entity/Q42",
        ]
        .map(String::from)
        .to_vec();
        let langs = ["en".to_string()];
        let asking = Asking {
            langs: &langs,
            redirects: false,
            batch: 200,
        };
        let wd = parse_endpoint("wikidata").expect("name");
        let planned = plan(&wd, &iris, &asking);
        assert_eq!(planned.len(), 2);
        assert!(planned[0]
            .text
            .contains("<http://www.wikidata.org/entity/Q42>"));
        assert!(planned[1]
            .text
            .contains("<https://en.wikipedia.org/wiki/Douglas_Adams>"));
        assert!(planned[1].text.contains("\"/m/0282x\""));
        let db = parse_endpoint("dbpedia").expect("name");
        let planned = plan(&db, &iris, &Asking { batch: 1, ..asking });
        assert_eq!(planned.len(), 3, "one IRI per query");
        assert!(!planned[0].text.contains("wikiPageRedirects"));
    }
}
