//! `qajudge index fetch` end to end: against two real oxigraph servers on
//! loopback (installed by `scripts/install-servers.sh`) holding slices the test
//! writes in the public endpoints' shapes (Wikidata's RDF, from the real
//! `rdf/wikidata/Q42.ttl` and a few QALD-10 gold items written like it;
//! DBpedia resources with owl:sameAs to Wikidata and Freebase), then a QALD-10
//! run in DBpedia IRIs and English names scored with the fetched index; and
//! against a small HTTP server written here that answers 429, 5xx, HTML, 404
//! or nothing, and counts the requests it gets (retries, User-Agent, POST,
//! the cache, a resumed fetch).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::cli::{qajudge, stderr, stdout};
use crate::endpoint::{start, venv_program};

/// A fresh path under the test's temporary directory (removed if a previous
/// run left it).
fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fetch");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(name);
    if path.is_dir() {
        std::fs::remove_dir_all(&path).expect("old tmp dir");
    } else if path.exists() {
        std::fs::remove_file(&path).expect("old tmp file");
    }
    path
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, text).expect("tmp file");
    path
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

const WIKIDATA_SLICE: &str = r#"@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix schema: <http://schema.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .

<https://en.wikipedia.org/wiki/United_Kingdom> a schema:Article ; schema:about wd:Q145 ;
  schema:inLanguage "en" ; schema:isPartOf <https://en.wikipedia.org/> ; schema:name "United Kingdom"@en .
<https://de.wikipedia.org/wiki/Vereinigtes_K%C3%B6nigreich> a schema:Article ; schema:about wd:Q145 ;
  schema:inLanguage "de" ; schema:isPartOf <https://de.wikipedia.org/> .
wd:Q145 rdfs:label "United Kingdom"@en, "Vereinigtes Königreich"@de ; skos:altLabel "UK"@en ;
  wdt:P31 wd:Q6256 ; wdt:P646 "/m/07ssc" .

<https://en.wikipedia.org/wiki/Austria> a schema:Article ; schema:about wd:Q40 ;
  schema:inLanguage "en" ; schema:isPartOf <https://en.wikipedia.org/> .
wd:Q40 rdfs:label "Austria"@en ; wdt:P31 wd:Q6256 ; wdt:P646 "/m/0h7x" .

wd:Q34 rdfs:label "Sweden"@en ; wdt:P31 wd:Q6256 ; wdt:P646 "/m/0d0vqn" .

<https://en.wikipedia.org/wiki/United_States> a schema:Article ; schema:about wd:Q30 ;
  schema:inLanguage "en" ; schema:isPartOf <https://en.wikipedia.org/> .
wd:Q30 rdfs:label "United States of America"@en ; skos:altLabel "United States"@en, "USA"@en ;
  wdt:P31 wd:Q6256 ; wdt:P646 "/m/09c7w0" .

<https://en.wikipedia.org/wiki/Java> a schema:Article ; schema:about wd:Q3757 ;
  schema:inLanguage "en" ; schema:isPartOf <https://en.wikipedia.org/> .
wd:Q3757 rdfs:label "Java"@en ; wdt:P31 wd:Q23442 .
"#;

const DBPEDIA_SLICE: &str = r#"@prefix dbr: <http://dbpedia.org/resource/> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

dbr:United_Kingdom owl:sameAs <http://www.wikidata.org/entity/Q145>, <http://fr.dbpedia.org/resource/Royaume-Uni> ;
  rdfs:label "United Kingdom"@en ; a dbo:Country .
dbr:Austria owl:sameAs <http://www.wikidata.org/entity/Q40>, <http://rdf.freebase.com/ns/m.0h7x> ;
  rdfs:label "Austria"@en ; a dbo:Country .
dbr:Sweden owl:sameAs <http://rdf.freebase.com/ns/m.0d0vqn> ; rdfs:label "Sweden"@en ; a dbo:Country .
dbr:Douglas_Adams owl:sameAs <http://www.wikidata.org/entity/Q42>, <http://rdf.freebase.com/ns/m.0282x> ;
  rdfs:label "Douglas Adams"@en ; a dbo:Writer .
dbr:UK dbo:wikiPageRedirects dbr:United_Kingdom .
"#;

/// A QALD-JSON run: (question id, answers as SPARQL JSON terms).
fn run_file(name: &str, answers: &[(&str, serde_json::Value)]) -> PathBuf {
    let questions: Vec<serde_json::Value> = answers
        .iter()
        .map(|(id, term)| {
            serde_json::json!({
                "id": id,
                "question": [{"language": "en", "string": "?"}],
                "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": term}]}}]
            })
        })
        .collect();
    write(
        name,
        &serde_json::json!({ "questions": questions }).to_string(),
    )
}

/// The per-question F1 of the run's QA scores, by question id.
fn f1_by_question(report: &serde_json::Value) -> Vec<(String, f64)> {
    report["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| {
            (
                q["id"].as_str().unwrap_or_default().to_string(),
                q["f1"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect()
}

fn evaluate(gold: &Path, run: &Path, ids: &Path, index: Option<&Path>) -> serde_json::Value {
    let (gold, run, ids) = (s(gold), s(run), s(ids));
    let mut args = vec![
        "evaluate",
        "--gold",
        &gold,
        "--run",
        &run,
        "--questions",
        &ids,
        "--format",
        "json",
    ];
    let index = index.map(s);
    if let Some(i) = &index {
        args.extend(["--index", i.as_str()]);
    }
    let o = qajudge(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("json report")
}

#[test]
fn a_qald10_run_in_dbpedia_iris_and_names_scores_as_the_wikidata_original() {
    let data = crate::require_data!();
    let Some(bin) = venv_program("venv-oxigraph/bin/oxigraph") else {
        return;
    };
    let wikidata_slice = write("wikidata-slice.ttl", WIKIDATA_SLICE);
    let dbpedia_slice = write("dbpedia-slice.ttl", DBPEDIA_SLICE);
    let wikidata = start(&bin, &[data.join("rdf/wikidata/Q42.ttl"), wikidata_slice]);
    let dbpedia = start(&bin, &[dbpedia_slice]);
    let gold = data.join("qald/10/qald_10.json");
    let out = tmp("qald10-index");
    let cache = tmp("qald10-cache");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&out),
        "--gold",
        &s(&gold),
        "--endpoint",
        &format!("wikidata={}", wikidata.url),
        "--endpoint",
        &format!("dbpedia={}", dbpedia.url),
        "--cache",
        &s(&cache),
        "--redirects",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = stderr(&o);
    assert!(summary.contains("fetch: wikidata round 1:"), "{summary}");
    assert!(summary.contains("0 cached"), "{summary}");

    // the questions the slice covers: the United Kingdom (26) and Austria
    // (132) through DBpedia's owl:sameAs and Wikidata's sitelinks, Sweden (133)
    // only through Freebase (Wikidata's P646 and DBpedia's owl:sameAs), the
    // United States (130) by its English alias and Java (11) by its label
    let ids = write("qald10-ids.txt", "26\n132\n133\n130\n11\n");
    let wd = |q: &str| serde_json::json!({"type": "uri", "value": format!("http://www.wikidata.org/entity/{q}")});
    let dbr = |r: &str| serde_json::json!({"type": "uri", "value": format!("http://dbpedia.org/resource/{r}")});
    let name = |n: &str| serde_json::json!({"type": "literal", "value": n, "xml:lang": "en"});
    let original = run_file(
        "qald10-wikidata-run.json",
        &[
            ("26", wd("Q145")),
            ("132", wd("Q40")),
            ("133", wd("Q34")),
            ("130", wd("Q30")),
            ("11", wd("Q3757")),
        ],
    );
    let rewritten = run_file(
        "qald10-dbpedia-run.json",
        &[
            ("26", dbr("United_Kingdom")),
            ("132", dbr("Austria")),
            ("133", dbr("Sweden")),
            ("130", name("United States")),
            ("11", name("Java")),
        ],
    );
    let want = evaluate(&gold, &original, &ids, Some(&out));
    let got = evaluate(&gold, &rewritten, &ids, Some(&out));
    let want_f1 = f1_by_question(&want);
    assert_eq!(want_f1.len(), 5, "{want_f1:?}");
    assert!(want_f1.iter().all(|(_, f)| *f == 1.0), "{want_f1:?}");
    assert_eq!(f1_by_question(&got), want_f1);
    // without the fetched index the rewritten run matches nothing
    let bare = evaluate(&gold, &rewritten, &ids, None);
    assert!(
        f1_by_question(&bare).iter().all(|(_, f)| *f == 0.0),
        "{:?}",
        f1_by_question(&bare)
    );
    // the report names the fetched index, whose provenance names the endpoints
    let provenance = &got["index"]["provenance"];
    assert_eq!(
        provenance["endpoints"][0]["url"],
        wikidata.url.as_str(),
        "{}",
        got["index"]
    );
    assert_eq!(provenance["endpoints"][1]["kind"], "dbpedia");
    assert!(provenance["counts"]["requests"].as_u64() > Some(0));

    // evaluate --fetch-index does the same into the user's cache, once
    let xdg = tmp("xdg-cache");
    let endpoints = format!("wikidata={},dbpedia={}", wikidata.url, dbpedia.url);
    let evaluate_fetching = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_qajudge"))
            .args([
                "evaluate",
                "--gold",
                &s(&gold),
                "--run",
                &s(&rewritten),
                "--questions",
                &s(&ids),
                "--format",
                "json",
                "--fetch-index",
                &endpoints,
            ])
            .env("XDG_CACHE_HOME", &xdg)
            .output()
            .expect("the qajudge binary runs")
    };
    let o = evaluate_fetching();
    assert!(o.status.success(), "{}", stderr(&o));
    let fetched: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(f1_by_question(&fetched), want_f1);
    let path = fetched["index"]["path"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        path.starts_with(&s(&xdg.join("qajudge/fetched/"))),
        "{}",
        fetched["index"]
    );
    assert_eq!(
        fetched["index"]["provenance"]["endpoints"][1]["url"],
        dbpedia.url.as_str()
    );
    let o = evaluate_fetching();
    assert!(
        stderr(&o).contains("(from an earlier fetch)"),
        "{}",
        stderr(&o)
    );
    let again: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json report");
    assert_eq!(again["index"]["path"], path.as_str());

    // Douglas Adams (Q42.ttl) is not in QALD-10: an --iris list fetches him,
    // from the cache of nothing, with his Freebase id and his article
    let list = write("q42.txt", "<http://www.wikidata.org/entity/Q42>\n");
    let q42 = tmp("q42-index");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&q42),
        "--iris",
        &s(&list),
        "--endpoint",
        &format!("wikidata={}", wikidata.url),
        "--endpoint",
        &format!("dbpedia={}", dbpedia.url),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = qajudge(&[
        "sameas",
        "--index",
        &s(&q42),
        "http://dbpedia.org/resource/Douglas_Adams",
    ]);
    let members = stdout(&o);
    for m in [
        "http://www.wikidata.org/entity/Q42",
        "http://rdf.freebase.com/ns/m.0282x",
        "https://en.wikipedia.org/wiki/Douglas_Adams",
    ] {
        assert!(members.contains(m), "{m}: {members}");
    }

    // a Freebase gold (as WebQSP-style benchmarks name their answers) and a
    // run in Wikidata ids: Wikidata's P646, asked backwards, links them
    let freebase_gold = write(
        "freebase-gold.json",
        &serde_json::json!({"questions": [
            {"id": "fb1", "question": [{"language": "en", "string": "Where was Spotify created?"}],
             "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
                {"x": {"type": "uri", "value": "http://rdf.freebase.com/ns/m.0d0vqn"}}]}}]},
            {"id": "fb2", "question": [{"language": "en", "string": "Which countries border Germany and Italy?"}],
             "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
                {"x": {"type": "uri", "value": "http://rdf.freebase.com/ns/m.0h7x"}}]}}]}
        ]})
        .to_string(),
    );
    let freebase_index = tmp("freebase-index");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&freebase_index),
        "--gold",
        &s(&freebase_gold),
        "--endpoint",
        &format!("wikidata={}", wikidata.url),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let wikidata_run = run_file(
        "freebase-wikidata-run.json",
        &[("fb1", wd("Q34")), ("fb2", wd("Q40"))],
    );
    let fb_ids = write("freebase-ids.txt", "fb1\nfb2\n");
    let scored = evaluate(
        &freebase_gold,
        &wikidata_run,
        &fb_ids,
        Some(&freebase_index),
    );
    assert_eq!(
        f1_by_question(&scored),
        [("fb1".to_string(), 1.0), ("fb2".to_string(), 1.0)]
    );

    // the same fetch again asks nothing: every answer is in the cache
    let again = tmp("qald10-index-again");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&again),
        "--gold",
        &s(&gold),
        "--endpoint",
        &format!("wikidata={}", wikidata.url),
        "--endpoint",
        &format!("dbpedia={}", dbpedia.url),
        "--cache",
        &s(&cache),
        "--redirects",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("(0 requests, "), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(out.join("fetched.nt")).expect("fetched"),
        std::fs::read(again.join("fetched.nt")).expect("fetched again"),
    );
}

/// What the small server does with the n-th request (from 0).
#[derive(Clone)]
enum Reply {
    /// A whole HTTP response.
    Send(String),
    /// Nothing for this long, then the connection is closed.
    Hang(Duration),
    /// This response after this long.
    Later(Duration, Box<Reply>),
}

fn http(status: &str, headers: &str, content_type: &str, body: &str) -> Reply {
    Reply::Send(format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
}

fn results() -> Reply {
    let body = r#"{"head":{"vars":["s","p","o"]},"results":{"bindings":[{"s":{"type":"uri","value":"http://www.wikidata.org/entity/Q1"},"p":{"type":"uri","value":"http://www.w3.org/2000/01/rdf-schema#label"},"o":{"type":"literal","value":"universe","xml:lang":"en"}}]}}"#;
    http("200 OK", "", "application/sparql-results+json", body)
}

/// A loopback HTTP server on its own thread: the heads of the requests it
/// got, and its query URL.
struct Small {
    heads: Arc<Mutex<Vec<String>>>,
    url: String,
}

/// `respond` gets the request's number (from 0) and its text (head and body).
fn small(respond: impl Fn(usize, &str) -> Reply + Send + 'static) -> Small {
    let listener = TcpListener::bind("127.0.0.1:0").expect("loopback port");
    let url = format!(
        "http://127.0.0.1:{}/sparql",
        listener.local_addr().expect("address").port()
    );
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&heads);
    let count = AtomicUsize::new(0);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("stream"));
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            let request = format!("{head}{}", String::from_utf8_lossy(&body));
            seen.lock().expect("heads").push(head);
            let mut reply = respond(count.fetch_add(1, Ordering::SeqCst), &request);
            if let Reply::Later(d, then) = reply {
                std::thread::sleep(d);
                reply = *then;
            }
            match reply {
                Reply::Send(text) => {
                    let _ = stream.write_all(text.as_bytes());
                }
                Reply::Hang(d) => std::thread::sleep(d),
                Reply::Later(..) => {}
            }
        }
    });
    Small { heads, url }
}

impl Small {
    fn requests(&self) -> usize {
        self.heads.lock().expect("heads").len()
    }
}

fn fetch_from(url: &str, list: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let endpoint = format!("test=wikidata:{url}");
    let (list, out) = (s(list), s(out));
    let mut args = vec![
        "index",
        "fetch",
        "--out",
        &out,
        "--iris",
        &list,
        "--endpoint",
        &endpoint,
        "--hops",
        "0",
    ];
    args.extend(extra);
    qajudge(&args)
}

#[test]
fn rate_limits_and_server_errors_are_retried_politely() {
    let server = small(|n, _| match n {
        0 => http(
            "429 Too Many Requests",
            "Retry-After: 1\r\n",
            "text/plain",
            "slow down",
        ),
        1 => http("500 Internal Server Error", "", "text/plain", "oops"),
        _ => results(),
    });
    // a Freebase id: one short backward query (P646), sent by GET
    let list = write("polite.txt", "m.0282x\n");
    let out = tmp("polite-index");
    let o = fetch_from(&server.url, &list, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(3 requests, 0 cached, 2 retries)"),
        "{}",
        stderr(&o)
    );
    let heads = server.heads.lock().expect("heads").clone();
    assert_eq!(heads.len(), 3);
    let agent = format!(
        "user-agent: qajudge/{} (KGQA evaluation; index fetch",
        env!("CARGO_PKG_VERSION")
    );
    for head in &heads {
        assert!(head.starts_with("GET /sparql?query="), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains(&agent.to_ascii_lowercase()),
            "{head}"
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("accept: application/sparql-results+json"),
            "{head}"
        );
    }
    let meta = std::fs::read_to_string(out.join("meta.json")).expect("meta");
    assert!(meta.contains("\"retries\": 2"), "{meta}");

    // a long query (many IRIs in one batch) goes by POST, form-encoded
    let many: String = (1..=80)
        .map(|i| format!("http://www.wikidata.org/entity/Q{i}\n"))
        .collect();
    let list = write("polite-many.txt", &many);
    let out = tmp("polite-post-index");
    let o = fetch_from(&server.url, &list, &out, &["--contact", "me@example.org"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let heads = server.heads.lock().expect("heads").clone();
    assert_eq!(heads.len(), 4, "one query of 80 IRIs");
    assert!(heads[3].starts_with("POST /sparql "), "{}", heads[3]);
    assert!(
        heads[3].contains("; index fetch; me@example.org)\r\n"),
        "{}",
        heads[3]
    );
    assert!(
        heads[3]
            .to_ascii_lowercase()
            .contains("content-type: application/x-www-form-urlencoded"),
        "{}",
        heads[3]
    );

    // retries are bounded: an endpoint that keeps answering 503 is an error
    let busy = small(|_, _| {
        http(
            "503 Service Unavailable",
            "Retry-After: 0\r\n",
            "text/plain",
            "busy",
        )
    });
    let o = fetch_from(&busy.url, &list, &tmp("busy-index"), &["--retries", "2"]);
    assert!(!o.status.success());
    assert_eq!(busy.requests(), 3);
    assert!(stderr(&o).contains("http status 503"), "{}", stderr(&o));
}

#[test]
fn a_second_fetch_asks_nothing_and_an_interrupted_one_resumes() {
    // the server "dies" after two answers (500 to everything) until revived
    let alive = Arc::new(AtomicUsize::new(0));
    let state = Arc::clone(&alive);
    let server = small(move |n, _| {
        if n >= 2 && state.load(Ordering::SeqCst) == 0 {
            http("500 Internal Server Error", "", "text/plain", "down")
        } else {
            results()
        }
    });
    let iris: String = (1..=4)
        .map(|i| format!("http://www.wikidata.org/entity/Q{i}\n"))
        .collect();
    let list = write("resume.txt", &iris);
    let cache = tmp("resume-cache");
    let cached = ["--cache", &s(&cache), "--batch", "1", "--retries", "0"];
    let out = tmp("resume-index");
    let o = fetch_from(&server.url, &list, &out, &cached);
    assert!(!o.status.success(), "the third query fails");
    assert!(stderr(&o).contains("endpoint test ("), "{}", stderr(&o));
    assert!(!out.exists(), "no index from a failed fetch");
    assert_eq!(server.requests(), 3);
    alive.store(1, Ordering::SeqCst);
    let o = fetch_from(&server.url, &list, &out, &cached);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(2 requests, 2 cached, 0 retries)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(server.requests(), 5, "only what the cache lacked");
    let again = tmp("resume-index-again");
    let o = fetch_from(&server.url, &list, &again, &cached);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(server.requests(), 5, "a repeated fetch asks nothing");
}

#[test]
fn redirects_are_followed_to_http_only() {
    let list = write("redirect.txt", "http://www.wikidata.org/entity/Q1\n");
    // a redirect to a file: url made the HTTP client panic (exit 101)
    let to_file = small(|_, _| {
        http(
            "302 Found",
            "Location: file:///etc/passwd\r\n",
            "text/plain",
            "",
        )
    });
    let o = fetch_from(
        &to_file.url,
        &list,
        &tmp("file-redirect-index"),
        &["--retries", "0"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("redirected (http status 302) to \"file:///etc/passwd\", which is not followed"),
        "{e}"
    );
    // a relative redirect to http is followed, the query sent again
    let moved = small(|n, request| match n {
        0 => http(
            "301 Moved Permanently",
            "Location: /other\r\n",
            "text/plain",
            "",
        ),
        // the query goes again, in the URL or (a long one) as a form
        _ if request.starts_with("GET /other?query=")
            || (request.starts_with("POST /other ") && request.contains("query=")) =>
        {
            results()
        }
        _ => http("400 Bad Request", "", "text/plain", "where is the query?"),
    });
    let o = fetch_from(&moved.url, &list, &tmp("moved-index"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(moved.requests(), 2);
    // a loop of redirects ends after five
    let looping = small(|_, _| http("302 Found", "Location: /sparql\r\n", "text/plain", ""));
    let o = fetch_from(&looping.url, &list, &tmp("loop-index"), &["--retries", "0"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(looping.requests(), 6);
}

#[test]
fn bad_endpoints_and_inputs_are_clear_errors() {
    let list = write("bad.txt", "http://www.wikidata.org/entity/Q1\n");
    let html = small(|_, _| {
        http(
            "200 OK",
            "",
            "text/html",
            "<!DOCTYPE html><html>hello</html>",
        )
    });
    let o = fetch_from(&html.url, &list, &tmp("html-index"), &[]);
    let e = stderr(&o);
    assert!(!o.status.success());
    assert!(e.contains(&format!("endpoint test ({})", html.url)), "{e}");
    assert!(e.contains("not SPARQL JSON results (text/html"), "{e}");
    assert!(e.contains("the query: SELECT ?s ?p ?o"), "{e}");

    let missing = small(|_, _| http("404 Not Found", "", "text/plain", "no such page"));
    let o = fetch_from(&missing.url, &list, &tmp("404-index"), &[]);
    assert!(
        stderr(&o).contains("http status 404: \"no such page\""),
        "{}",
        stderr(&o)
    );
    assert_eq!(missing.requests(), 1, "a 404 is not retried");

    let silent = small(|_, _| Reply::Hang(Duration::from_secs(3)));
    let o = fetch_from(
        &silent.url,
        &list,
        &tmp("silent-index"),
        &["--timeout", "1", "--retries", "0"],
    );
    assert!(
        stderr(&o).contains("no answer within 1 s; lower --batch or raise --timeout"),
        "{}",
        stderr(&o)
    );

    let gold = write(
        "no-iris.json",
        r#"{"questions":[{"id":"7","question":[{"language":"en","string":"how many?"}],"answers":[{"head":{"vars":["c"]},"results":{"bindings":[{"c":{"type":"literal","value":"42"}}]}}]}]}"#,
    );
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&tmp("none-index")),
        "--gold",
        &s(&gold),
        "--endpoint",
        "wikidata",
    ]);
    assert!(
        stderr(&o).contains("no-iris.json: no IRI to fetch"),
        "{}",
        stderr(&o)
    );

    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&tmp("typo-index")),
        "--iris",
        &s(&list),
        "--endpoint",
        "wikidat",
    ]);
    assert!(
        stderr(&o).contains("--endpoint \"wikidat\": not a predefined endpoint name"),
        "{}",
        stderr(&o)
    );

    let bad_list = write("bad-list.txt", "http://www.wikidata.org/entity/Q1\nQ2\n");
    let o = fetch_from(&html.url, &bad_list, &tmp("list-index"), &[]);
    assert!(
        stderr(&o).contains("bad-list.txt:2: \"Q2\" is not an http(s) IRI"),
        "{}",
        stderr(&o)
    );

    // --out holding someone else's file is refused before anything is asked
    let occupied = write("occupied", "mine");
    let before = html.requests();
    let o = fetch_from(&html.url, &list, &occupied, &[]);
    assert!(
        stderr(&o).contains("it is a file, not a directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(html.requests(), before);
    assert_eq!(std::fs::read_to_string(&occupied).expect("kept"), "mine");
}

#[test]
fn an_answer_cut_at_the_row_limit_is_asked_again_in_halves() {
    // Virtuoso's way: X-SPARQL-MaxRows when the answer stopped at its limit;
    // here every answer about more than one IRI is "cut"
    let server = small(|_, request| {
        let distinct: std::collections::BTreeSet<&str> = request
            .split("entity%2FQ")
            .skip(1)
            .map(|rest| {
                &rest[..rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len())]
            })
            .collect();
        if distinct.len() > 1 {
            match results() {
                Reply::Send(text) => Reply::Send(text.replacen(
                    "Content-Type:",
                    "X-SPARQL-MaxRows: 1\r\nContent-Type:",
                    1,
                )),
                other => other,
            }
        } else {
            results()
        }
    });
    let iris: String = (1..=4)
        .map(|i| format!("http://www.wikidata.org/entity/Q{i}\n"))
        .collect();
    let list = write("cut.txt", &iris);
    let out = tmp("cut-index");
    let cache = tmp("cut-cache");
    let o = fetch_from(&server.url, &list, &out, &["--cache", &s(&cache)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 4 IRIs, then 2 + 2, then 1 + 1 + 1 + 1
    assert_eq!(server.requests(), 7);
    assert!(
        stderr(&o).contains("in 7 queries (7 requests"),
        "{}",
        stderr(&o)
    );
    // only the whole answers are kept: a second fetch asks the cut one only
    let o = fetch_from(
        &server.url,
        &list,
        &tmp("cut-index-again"),
        &["--cache", &s(&cache)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(3 requests, 4 cached"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn virtuoso_as_dbpedia_answers_the_same_and_its_row_limit_splits_batches() {
    let data = crate::require_data!();
    let Some(bin) = venv_program("venv-oxigraph/bin/oxigraph") else {
        return;
    };
    // DBpedia's own store: the slice, and a resource with more owl:sameAs
    // links than Virtuoso's packaged ResultSetMaxRows (10,000)
    let mut slice = DBPEDIA_SLICE.to_string();
    for i in 0..12_000 {
        slice.push_str(&format!(
            "dbr:Big owl:sameAs <http://example.org/big/{i}> .\n"
        ));
    }
    let dbpedia_slice = write("virtuoso-dbpedia-slice.ttl", &slice);
    let Some(dbpedia) = crate::virtuoso::start_in("virtuoso-fetch-db", &[dbpedia_slice]) else {
        return;
    };
    let wikidata = start(
        &bin,
        &[write("virtuoso-wikidata-slice.ttl", WIKIDATA_SLICE)],
    );
    let gold = data.join("qald/10/qald_10.json");
    let out = tmp("virtuoso-qald10-index");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&out),
        "--gold",
        &s(&gold),
        "--endpoint",
        &format!("wikidata={}", wikidata.url),
        "--endpoint",
        &format!("dbpedia={}", dbpedia.url),
        "--redirects",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids = write("virtuoso-ids.txt", "26\n132\n133\n");
    let dbr = |r: &str| serde_json::json!({"type": "uri", "value": format!("http://dbpedia.org/resource/{r}")});
    let run = run_file(
        "virtuoso-dbpedia-run.json",
        &[
            ("26", dbr("United_Kingdom")),
            ("132", dbr("Austria")),
            ("133", dbr("Sweden")),
        ],
    );
    let report = evaluate(&gold, &run, &ids, Some(&out));
    let f1 = f1_by_question(&report);
    assert_eq!(f1.len(), 3);
    assert!(f1.iter().all(|(_, f)| *f == 1.0), "{f1:?}");
    // the redirect dbr:UK, fetched from Virtuoso, is the United Kingdom
    let o = qajudge(&[
        "sameas",
        "--index",
        &s(&out),
        "http://dbpedia.org/resource/UK",
    ]);
    assert!(
        stdout(&o).contains("http://www.wikidata.org/entity/Q145"),
        "{}",
        stdout(&o)
    );

    // dbr:Big with dbr:Austria: the answer is cut (X-SPARQL-MaxRows), asked
    // again in halves; dbr:Big alone is still cut, and the warning says so
    let list = write(
        "virtuoso-big.txt",
        "http://dbpedia.org/resource/Big\nhttp://dbpedia.org/resource/Austria\n",
    );
    let big = tmp("virtuoso-big-index");
    let o = qajudge(&[
        "index",
        "fetch",
        "--out",
        &s(&big),
        "--iris",
        &s(&list),
        "--endpoint",
        &format!("dbpedia={}", dbpedia.url),
        "--hops",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("in 3 queries (3 requests"), "{e}");
    assert!(
        e.contains("warning: 1 answers about a single IRI were still cut"),
        "{e}"
    );
    let o = qajudge(&[
        "sameas",
        "--index",
        &s(&big),
        "http://dbpedia.org/resource/Austria",
    ]);
    assert!(
        stdout(&o).contains("http://www.wikidata.org/entity/Q40"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_fetch_killed_halfway_resumes_with_what_its_cache_lacks() {
    let server = small(|_, _| Reply::Later(Duration::from_millis(200), Box::new(results())));
    let iris: String = (1..=6)
        .map(|i| format!("http://www.wikidata.org/entity/Q{i}\n"))
        .collect();
    let list = write("killed.txt", &iris);
    let cache = tmp("killed-cache");
    let out = tmp("killed-index");
    let endpoint = format!("test=wikidata:{}", server.url);
    let args = [
        "index",
        "fetch",
        "--out",
        &s(&out),
        "--iris",
        &s(&list),
        "--endpoint",
        &endpoint,
        "--hops",
        "0",
        "--batch",
        "1",
        "--cache",
        &s(&cache),
    ];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the qajudge binary runs");
    let answers = |dir: &Path| -> usize {
        std::fs::read_dir(dir).map_or(0, |entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    !name.starts_with('.') && name.ends_with(".json")
                })
                .count()
        })
    };
    // killed (SIGKILL) once two answers are in the cache
    while answers(&cache) < 2 {
        assert!(
            child.try_wait().expect("status").is_none(),
            "the fetch ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill");
    child.wait().expect("reaped");
    let kept = answers(&cache);
    assert!((2..6).contains(&kept), "{kept}");
    assert!(!out.exists(), "no index from a killed fetch");
    // the killed process's last request may still be on its way to the
    // server: count from when the server has gone quiet (no new request
    // for longer than a reply takes), never from the moment of the kill
    let mut before = server.requests();
    let mut quiet = 0;
    for _ in 0..400 {
        std::thread::sleep(Duration::from_millis(25));
        let now = server.requests();
        quiet = if now == before { quiet + 1 } else { 0 };
        before = now;
        if quiet >= 20 {
            break;
        }
    }
    let o = qajudge(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        server.requests() - before,
        6 - kept,
        "only what the cache lacked"
    );
    assert_eq!(answers(&cache), 6);
    let leftovers: Vec<_> = std::fs::read_dir(&cache)
        .expect("cache")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(
        stderr(&o).contains(&format!("({} requests, {kept} cached", 6 - kept)),
        "{}",
        stderr(&o)
    );
}
