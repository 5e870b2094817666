//! Inputs that expand (docs/scoring.md, Limits: memory is a small multiple of
//! the input's bytes, counting what aliases and shared nodes expand to), on the
//! real binary: a 1 MB TEXT2SPARQL YAML whose `questions` are 1,200 aliases of
//! one 800 KB question (about 1 GB expanded), and a 1 MB QAWiki dump whose
//! 5,000 questions all point at one statement with 8,000 qualifiers (4.6 GB of
//! flags before the budget). Each is a located error from `check`, and from
//! `POST /api/v1/evaluate` (two at once) and `POST /api/v1/sample` a 400
//! within seconds, with the server's peak memory (`VmHWM`) far from the
//! expansion and `/health` answering after.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::cli::qajudge;
use crate::serve::{assert_error, get, peak_kb, post_json, tmp, Server};

/// A TEXT2SPARQL benchmark of `copies` aliases of one question whose text is
/// `text_bytes` long.
fn yaml_laughs(text_bytes: usize, copies: usize) -> String {
    let mut y = String::from("dataset: {id: \"https://e.org/ds/\", prefix: x}\n");
    y.push_str(&format!(
        "one: &q {{id: 1, question: {{en: \"{}\"}}, query: {{sparql: \"ASK {{}}\"}}}}\n",
        "a".repeat(text_bytes)
    ));
    y.push_str("questions: [");
    y.push_str(&vec!["*q"; copies].join(", "));
    y.push_str("]\n");
    y
}

/// A QAWiki dump of `items` questions whose `p:P11` statements are all one
/// node with `qualifiers` qualifiers.
fn qawiki_shared_statement(items: usize, qualifiers: usize) -> String {
    let mut t = String::from(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
         @prefix wd: <https://qawiki.org/entity/> .\n\
         @prefix wdt: <https://qawiki.org/prop/direct/> .\n\
         @prefix p: <https://qawiki.org/prop/> .\n\
         @prefix ps: <https://qawiki.org/prop/statement/> .\n\
         @prefix pq: <https://qawiki.org/prop/qualifier/> .\n\
         @prefix s: <https://qawiki.org/entity/statement/> .\n\
         wd:Q1 rdfs:label \"question\"@en .\n",
    );
    for i in 0..items {
        t.push_str(&format!(
            "wd:Q{} wdt:P1 wd:Q1 ; rdfs:label \"q{i}\"@en ; p:P11 s:big .\n",
            i + 100
        ));
    }
    t.push_str("s:big ps:P11 \"ASK {}\" ;\n pq:P13 ");
    let values: Vec<String> = (0..qualifiers).map(|i| format!("\"v{i}\"")).collect();
    t.push_str(&values.join(", "));
    t.push_str(" .\n");
    t
}

/// `qajudge check FILE` refuses `text` (written as `name`) with an error at a
/// line past the first that says what expands, within seconds.
fn check_refuses(name: &str, text: &str) {
    let dir = tmp(&format!("amplify-{name}"));
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    let started = Instant::now();
    let out = qajudge(&["check", path.to_str().expect("utf-8")]);
    let elapsed = started.elapsed();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("expand to more than"), "{all}");
    assert!(all.contains(&format!("{} bytes", text.len())), "{all}");
    // a bound far above the refusal's time (well under a second in release),
    // only to catch the expansion coming back (12 s and 6.7 GB before)
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
}

#[test]
fn a_billion_laughs_yaml_is_a_located_error() {
    let yaml = yaml_laughs(800_000, 1_200);
    assert!(yaml.len() < 1 << 20);
    check_refuses("laughs.yaml", &yaml);
    // a few aliases in a small file are read
    let dir = tmp("amplify-few");
    let path = dir.join("few.yaml");
    std::fs::write(&path, yaml_laughs(20, 3)).expect("write");
    let out = qajudge(&["check", path.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("questions: 3\n"), "{text}");
}

#[test]
fn a_qawiki_node_shared_by_every_question_is_a_located_error() {
    let ttl = qawiki_shared_statement(5_000, 8_000);
    assert!(ttl.len() < 1 << 20);
    check_refuses("shared.ttl", &ttl);
}

#[test]
fn the_server_refuses_both_and_its_memory_stays_near_the_input() {
    let s = Server::start_bare(&tmp("amplify-serve"), &[]);
    let yaml = yaml_laughs(800_000, 1_200);
    let ttl = qawiki_shared_statement(5_000, 8_000);
    let before = peak_kb(&s);
    let refused = |name: &str, text: &str| {
        let body = json!({"gold": {"name": name, "text": text}, "runs": [{"text": "{}"}]});
        let (status, e) = post_json(&s, "/api/v1/evaluate", &body.to_string());
        assert_error(status, &e, 400, "bad_gold");
        assert!(e.to_string().contains("expand to more than"), "{e}");
    };
    // two at once (which aborted the server before), then one more
    std::thread::scope(|scope| {
        scope.spawn(|| refused("laughs.yaml", &yaml));
        scope.spawn(|| refused("shared.ttl", &ttl));
    });
    refused("laughs2.yaml", &yaml);
    // the sample route reads its upload with the same readers
    let (status, e) = post_json(
        &s,
        "/api/v1/sample",
        &json!({"gold": yaml, "size": 1}).to_string(),
    );
    assert!(status == 400 || status == 413, "{status} {e}");
    let (status, _) = get(&s, "/api/v1/health");
    assert_eq!(status, 200);
    // three requests of about 1 MB: their text, its JSON and the budget of
    // four times it each, far from the gigabytes the expansion takes
    let grown = peak_kb(&s).saturating_sub(before);
    assert!(grown < 600 * 1024, "the server grew {grown} kB");
}
