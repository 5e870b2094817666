//! Private experiments, publishing, experiments as linked data and the
//! read-only SPARQL endpoint, on the real server over loopback: a private
//! experiment is a 404 without its token, visible with it, public after
//! publish; its Turtle and JSON-LD, read back with the project's RDF reader,
//! carry the JSON report's figures; `/sparql` answers over two published
//! experiments and refuses updates; `--api-token` and `--cors-origin`.

use serde_json::Value;

use crate::serve::{assert_error, get, post_form, post_json, tmp, wait, Server, RUN};
use qajudge::model::Term;
use qajudge::sparql::{ExecOptions, KnowledgeGraph};

/// (status, content type, body) of a GET with headers.
fn fetch(url: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
    let mut req = ureq::get(url);
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let r = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let (status, ct) = (r.status(), r.content_type().to_string());
    (status, ct, r.into_string().expect("body"))
}

/// (status, JSON) of a POST with headers and a body.
fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let mut req = ureq::post(url);
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let r = match req.send_string(body) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let (status, ct) = (r.status(), r.content_type().to_string());
    (status, ct, r.into_string().expect("body"))
}

fn submit(s: &Server, profile: &str) -> Value {
    let run = std::fs::read(crate::serve::root().join(RUN)).expect("run");
    let (status, created) = post_form(
        s,
        &[
            ("benchmark", None, b"demo"),
            ("run", Some("example-system.json"), &run),
            ("profile", None, profile.as_bytes()),
        ],
    );
    assert_eq!(status, 202, "{created}");
    created
}

fn id_token(created: &Value) -> (String, String) {
    (
        created["id"].as_str().expect("id").to_string(),
        created["token"].as_str().expect("token").to_string(),
    )
}

/// Loads RDF text with the project's reader (the knowledge graph loader) and
/// asks it one SELECT query; the rows as strings.
fn read_back(text: &str, ext: &str, query: &str) -> Vec<Vec<String>> {
    let path = tmp("linked-data").join(format!("experiment.{ext}"));
    std::fs::write(&path, text).expect("written");
    let kg = KnowledgeGraph::load(
        std::slice::from_ref(&path),
        ExecOptions::default(),
        &|_, _| {},
    )
    .unwrap_or_else(|e| panic!("the {ext} does not parse: {e}\n{text}"));
    let out = kg.execute(query, ExecOptions::default());
    assert!(out.status.answered(), "{:?}", out.message);
    out.answers
        .answers
        .iter()
        .map(|a| {
            a.terms
                .iter()
                .map(|t| match t {
                    Term::Iri(i) => i.clone(),
                    Term::Literal { lexical, .. } => lexical.clone(),
                    Term::Boolean(b) => b.to_string(),
                })
                .collect()
        })
        .collect()
}

const FIGURES: &str = "PREFIX qj: <https://w3id.org/qajudge/vocab#>
PREFIX qb: <http://purl.org/linked-data/cube#>
SELECT ?exp ?p ?f WHERE {
  ?o a qb:Observation ; qj:experiment ?e ; qj:microPrecision ?p ; qj:macroF1QALD ?f .
  BIND(STRAFTER(STR(?e), \"#\") AS ?exp)
} ORDER BY ?exp";

#[test]
fn private_experiments_published_as_linked_data_and_sparql() {
    let data = tmp("published");
    let s = Server::start(&data, &["--sparql-timeout-ms", "5000"]);
    let created = submit(&s, "judge");
    let (id, token) = id_token(&created);
    assert_eq!(token.len(), 64);
    assert_eq!(created["published"], false);
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    assert!(
        done.get("token_sha256").is_none(),
        "the token's hash is never shown"
    );

    // private: a 404 without its token, as an unknown id, and not listed
    let (status, e) = get(&s, &format!("/api/v1/experiments/{id}"));
    assert_error(status, &e, 404, "not_found");
    let (_, unknown) = get(&s, "/api/v1/experiments/209901019999");
    assert_eq!(status, 404);
    assert_eq!(
        e["error"]["message"].as_str().map(|m| m.replace(&id, "ID")),
        unknown["error"]["message"]
            .as_str()
            .map(|m| m.replace("209901019999", "ID")),
        "a private id answers as an unknown one"
    );
    let (_, _, e) = fetch(
        &s.url(&format!("/api/v1/experiments/{id}")),
        &[("X-Experiment-Token", &"0".repeat(64))],
    );
    let e: Value = serde_json::from_str(&e).expect("json");
    assert_eq!(e["error"]["code"], "not_found");
    let (_, list) = get(&s, "/api/v1/experiments");
    assert_eq!(list.as_array().map(Vec::len), Some(0));
    let (status, _, _) = fetch(
        &s.url(&format!("/experiments/{id}")),
        &[("Accept", "text/turtle")],
    );
    assert_eq!(status, 404, "no RDF of a private experiment");
    // visible with its token, as a bearer token too
    let (status, _, body) = fetch(
        &s.url(&format!("/api/v1/experiments/{id}")),
        &[("Authorization", &format!("Bearer {token}"))],
    );
    assert_eq!(status, 200, "{body}");
    // not in /sparql before it is published
    let count = "SELECT (COUNT(DISTINCT ?d) AS ?n) WHERE { ?d a <http://purl.org/linked-data/cube#DataSet> }";
    let sparql = |q: &str, accept: &str| {
        fetch(
            &format!("{}/sparql?query={}", s.base, percent(q)),
            &[("Accept", accept)],
        )
    };
    let (status, ct, body) = sparql(count, "application/sparql-results+json");
    assert_eq!(status, 200, "{body}");
    assert!(ct.starts_with("application/sparql-results+json"), "{ct}");
    assert!(body.contains("\"value\":\"0\""), "{body}");

    // publishing needs the token; then it is public, listed and in /sparql
    let (status, p) = post_json(&s, &format!("/api/v1/experiments/{id}/publish"), "");
    assert_error(status, &p, 404, "not_found");
    let (status, _, p) = post(
        &s.url(&format!("/api/v1/experiments/{id}/publish")),
        &[("X-Experiment-Token", &token)],
        "",
    );
    assert_eq!(status, 200, "{p}");
    let p: Value = serde_json::from_str(&p).expect("json");
    assert_eq!(p["published"], true);
    let (status, shown) = get(&s, &format!("/api/v1/experiments/{id}"));
    assert_eq!(status, 200);
    assert_eq!(shown["report"], done["report"]);
    let (_, list) = get(&s, "/api/v1/experiments");
    assert_eq!(list[0]["id"], id.as_str());

    // content negotiation: the page to a browser, RDF to an RDF client
    let (status, ct, page) = fetch(
        &s.url(&format!("/experiments/{id}")),
        &[("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")],
    );
    assert_eq!(status, 200);
    assert!(ct.starts_with("text/html") && page.contains("<title>qajudge</title>"));
    let report = &done["report"];
    let want: Vec<Vec<String>> = {
        let mut rows: Vec<Vec<String>> = report["runs"][0]["experiments"]
            .as_object()
            .expect("experiments")
            .iter()
            .filter(|(_, x)| !x["aggregate"]["micro"].is_null())
            .map(|(name, x)| {
                let a = &x["aggregate"];
                vec![
                    name.clone(),
                    a["micro"]["precision"].as_f64().expect("p").to_string(),
                    a["macro_qald"]["f1"].as_f64().expect("f").to_string(),
                ]
            })
            .collect();
        rows.sort();
        rows
    };
    // the demo run gives answers and answer types, no queries or annotations:
    // QA, AT and (through the index's types) AIT2KB are scored, the rest null
    assert_eq!(
        want.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["ait2kb", "at", "qa"],
        "{want:?}"
    );
    let numeric = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
        rows.into_iter()
            .map(|r| {
                vec![
                    r[0].clone(),
                    r[1].parse::<f64>().expect("number").to_string(),
                    r[2].parse::<f64>().expect("number").to_string(),
                ]
            })
            .collect()
    };
    for (accept, ext) in [
        ("text/turtle", "ttl"),
        ("application/ld+json", "jsonld"),
        ("application/n-triples", "nt"),
    ] {
        let (status, ct, text) =
            fetch(&s.url(&format!("/experiments/{id}")), &[("Accept", accept)]);
        assert_eq!(status, 200, "{text}");
        assert!(ct.starts_with(accept), "{ct}");
        assert_eq!(numeric(read_back(&text, ext, FIGURES)), want, "{accept}");
        // provenance: the profile and the benchmark's checksum
        let prov = read_back(
            &text,
            ext,
            "PREFIX qj: <https://w3id.org/qajudge/vocab#> SELECT ?profile ?sha WHERE { ?d qj:profile ?profile ; qj:benchmark ?b . ?b qj:sha256 ?sha }",
        );
        assert_eq!(prov.len(), 1);
        assert_eq!(prov[0][0], "judge");
        assert_eq!(prov[0][1].len(), 64);
    }

    // a second published experiment (another profile), then SPARQL over both
    let second = submit(&s, "gerbil");
    let (id2, token2) = id_token(&second);
    let done2 = wait(&s, &second);
    let (status, _, _) = post(
        &s.url(&format!("/api/v1/experiments/{id2}/publish")),
        &[("X-Experiment-Token", &token2)],
        "",
    );
    assert_eq!(status, 200);
    let both = "PREFIX qj: <https://w3id.org/qajudge/vocab#>
        SELECT ?id ?profile ?f WHERE {
          ?d <http://purl.org/dc/terms/identifier> ?id ; qj:profile ?profile .
          ?o <http://purl.org/linked-data/cube#dataSet> ?d ; qj:experiment qj:qa ; qj:macroF1QALD ?f .
        } ORDER BY ?id";
    let (status, ct, body) = sparql(both, "text/csv");
    assert_eq!(status, 200, "{body}");
    assert!(ct.starts_with("text/csv"), "{ct}");
    let f = |d: &Value| {
        d["report"]["runs"][0]["experiments"]["qa"]["aggregate"]["macro_qald"]["f1"]
            .as_f64()
            .expect("f1")
    };
    let rows: Vec<Vec<String>> = body
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{body}");
    assert_eq!(rows[0][..2], [id.clone(), "judge".to_string()]);
    assert_eq!(rows[1][..2], [id2.clone(), "gerbil".to_string()]);
    assert_eq!(rows[0][2].parse::<f64>().ok(), Some(f(&done)));
    assert_eq!(rows[1][2].parse::<f64>().ok(), Some(f(&done2)));
    // POST forms and query bodies too
    let (status, _, body) = post(
        &s.url("/sparql"),
        &[
            ("Content-Type", "application/sparql-query"),
            ("Accept", "application/sparql-results+json"),
        ],
        count,
    );
    assert_eq!(status, 200);
    assert!(body.contains("\"value\":\"2\""), "{body}");
    let (status, _, body) = post(
        &s.url("/sparql"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("query={}", percent(count)),
    );
    assert_eq!(status, 200);
    assert!(body.contains("\"value\":\"2\""), "{body}");

    // updates are refused, in every form, and change nothing
    let insert = "INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }";
    let (status, _, body) = sparql(insert, "");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("read_only"), "{body}");
    let (status, _, _) = post(
        &s.url("/sparql"),
        &[("Content-Type", "application/sparql-update")],
        insert,
    );
    assert_eq!(status, 403);
    let (status, _, _) = post(
        &s.url("/sparql"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        &format!("update={}", percent(insert)),
    );
    assert_eq!(status, 403);
    let (status, _, body) = sparql("SELEKT", "");
    assert_eq!(status, 400, "{body}");
    let (status, _, body) = sparql(count, "image/png");
    assert_eq!(status, 406, "{body}");
    let (status, _, body) = fetch(&s.url("/sparql"), &[]);
    assert_eq!(status, 400, "{body}");

    // a restart loads the published experiments into /sparql again
    drop(s);
    let s = Server::start(&data, &[]);
    let (_, _, body) = fetch(&format!("{}/sparql?query={}", s.base, percent(count)), &[]);
    assert!(body.contains("\"value\":\"2\""), "{body}");
}

#[test]
fn the_api_token_guards_mutating_routes_and_cors_is_opt_in() {
    let data = tmp("api-token");
    let admin = "a-long-api-token-for-the-test-0123456789";
    let s = Server::start(
        &data,
        &[
            "--api-token",
            admin,
            "--cors-origin",
            "https://app.example.org",
        ],
    );
    // without the API token: 401, nothing stored
    let run = std::fs::read(crate::serve::root().join(RUN)).expect("run");
    let (status, e) = post_form(
        &s,
        &[("benchmark", None, b"demo"), ("run", Some("r.json"), &run)],
    );
    assert_error(status, &e, 401, "unauthorized");
    // with it: stored; the admin sees and publishes it without its own token
    let multipart = |token: &str| {
        let boundary = "b0undary";
        let body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"benchmark\"\r\n\r\ndemo\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"run\"; filename=\"r.json\"\r\n\r\n{}\r\n--{boundary}--\r\n",
            String::from_utf8_lossy(&run)
        );
        post(
            &s.url("/api/v1/experiments"),
            &[
                (
                    "Content-Type",
                    &format!("multipart/form-data; boundary={boundary}"),
                ),
                ("X-Api-Token", token),
            ],
            &body,
        )
    };
    let (status, _, body) = multipart("wrong-token");
    assert_eq!(status, 401, "{body}");
    let (status, _, body) = multipart(admin);
    assert_eq!(status, 202, "{body}");
    let created: Value = serde_json::from_str(&body).expect("json");
    let id = created["id"].as_str().expect("id");
    wait(&s, &created);
    let bearer = format!("Bearer {admin}");
    let (status, _, _) = fetch(
        &s.url(&format!("/api/v1/experiments/{id}")),
        &[("Authorization", &bearer)],
    );
    assert_eq!(status, 200);
    let (status, _, body) = post(
        &s.url(&format!("/api/v1/experiments/{id}/publish")),
        &[("Authorization", &bearer)],
        "",
    );
    assert_eq!(status, 200, "{body}");
    // read-only routes stay open
    let (status, _) = get(&s, "/api/v1/health");
    assert_eq!(status, 200);

    // CORS: the allowed origin gets its header, another origin none
    let (status, _, _) = fetch(
        &s.url("/api/v1/health"),
        &[("Origin", "https://app.example.org")],
    );
    assert_eq!(status, 200);
    let r = ureq::get(&s.url("/api/v1/health"))
        .set("Origin", "https://app.example.org")
        .call()
        .expect("health");
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.org")
    );
    let preflight = ureq::request("OPTIONS", &s.url("/api/v1/evaluate"))
        .set("Origin", "https://app.example.org")
        .set("Access-Control-Request-Method", "POST")
        .set("Access-Control-Request-Headers", "content-type")
        .call()
        .expect("preflight");
    assert_eq!(preflight.status(), 200);
    let other = ureq::get(&s.url("/api/v1/health"))
        .set("Origin", "https://evil.example.com")
        .call();
    match other {
        Ok(r) => assert_eq!(r.header("access-control-allow-origin"), None),
        Err(ureq::Error::Status(code, _)) => assert!(code >= 400),
        Err(e) => panic!("{e}"),
    }
    drop(s);

    // off by default: no CORS header at all
    let s = Server::start(&tmp("no-cors"), &[]);
    let r = ureq::get(&s.url("/api/v1/health"))
        .set("Origin", "https://app.example.org")
        .call()
        .expect("health");
    assert_eq!(r.header("access-control-allow-origin"), None);
}

/// Percent-encodes a query parameter.
fn percent(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
