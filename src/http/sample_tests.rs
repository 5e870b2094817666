//! The micro-benchmark options of the API through the app [`super::configure`]
//! registers, on the demo benchmark (tests/data/demo): `POST /api/v1/sample`
//! on an uploaded benchmark (and its errors: both or neither of benchmark and
//! gold, a file that does not read, a body past the limit), and an
//! evaluation on a sample's questions with failure explanations through
//! `POST /api/v1/evaluate` and the experiment form.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actix_web::test as web_test;
use actix_web::{web, App};
use serde_json::{json, Value};

use super::access::Gate;
use super::experiment_store::ExperimentStore;
use super::job::Worker;
use super::{configure, AppState, Benchmark};
use crate::eval::job::GoldCache;
use crate::live::LiveOptions;
use crate::sparql::{ExecOptions, PublishedGraph};

fn demo(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/demo")
        .join(file)
}

fn read(file: &str) -> String {
    std::fs::read_to_string(demo(file)).expect("a demo file")
}

/// A state with the demo benchmark registered as `demo`, a store in a fresh
/// directory named after `test`, and a body limit of `limit` bytes.
fn state(test: &str, limit: usize) -> web::Data<AppState> {
    let dir = std::env::temp_dir().join(format!("qajudge-http-{test}-{}", std::process::id()));
    if dir.exists() {
        // ours: left by an earlier run of this test in this process id
        std::fs::remove_dir_all(&dir).expect("an old test store removed");
    }
    let path = demo("gold.json");
    let bytes = std::fs::read(&path).expect("the demo gold");
    let dataset = crate::qald::parse(&bytes, "gold.json").expect("the demo gold reads");
    let mut benchmarks = BTreeMap::new();
    benchmarks.insert(
        "demo".to_string(),
        Arc::new(Benchmark {
            resources: Default::default(),
            path,
            dataset: Arc::new(dataset),
            sha256: crate::digest::sha256_hex(&bytes),
        }),
    );
    let store = Arc::new(ExperimentStore::open(&dir).expect("a store"));
    let worker = Worker {
        index: None,
        index_path: String::new(),
        knowledge_graph: None,
        benchmark_kgs: Arc::new(BTreeMap::new()),
        exec: ExecOptions::default(),
        golds: Arc::new(GoldCache::default()),
        experiment_time: None,
    };
    store.start_worker(worker.clone());
    web::Data::new(AppState {
        index: None,
        index_path: String::new(),
        benchmarks,
        store,
        live: LiveOptions::default(),
        knowledge_graph: None,
        max_body_bytes: limit,
        max_evaluations: 2,
        worker,
        api_token_sha256: None,
        gate: Gate::load(&[]),
        base: std::sync::OnceLock::new(),
        published: Arc::new(PublishedGraph::new().expect("a published graph")),
        sparql_timeout: std::time::Duration::from_secs(5),
        document: Value::Null,
        wordnet: crate::wordnet::Shared::default(),
        llm_cache_writes: Arc::new(std::sync::atomic::AtomicU64::new(0)),
        audits: Default::default(),
    })
}

/// Posts `body` as JSON to `path`: the status and the answer.
async fn post(state: &web::Data<AppState>, path: &str, body: &Value) -> (u16, Value) {
    let state = state.clone();
    let app = web_test::init_service(App::new().configure(|cfg| configure(cfg, state))).await;
    let req = web_test::TestRequest::post()
        .uri(path)
        .set_json(body)
        .to_request();
    let resp = web_test::call_service(&app, req).await;
    let status = resp.status().as_u16();
    let bytes = web_test::read_body(resp).await;
    let value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "{path} answered {status} {}: {e}",
            String::from_utf8_lossy(&bytes)
        )
    });
    (status, value)
}

/// Asserts an error answer: its status, its code, and words of its message.
fn error(answer: &(u16, Value), status: u16, code: &str, words: &[&str]) {
    let (s, body) = answer;
    assert_eq!(*s, status, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    for w in words {
        assert!(message.contains(w), "{w:?} is not in {message:?}");
    }
}

#[actix_web::test]
async fn an_uploaded_benchmark_is_sampled_as_the_registered_one() {
    let s = state("sample-upload", 1 << 20);
    let options = json!({"features": ["words", "entities", "triple_patterns"], "size": 4, "method": "kmeans++", "seed": 1});
    let mut registered = options.clone();
    registered["benchmark"] = json!("demo");
    let (status, by_name) = post(&s, "/api/v1/sample", &registered).await;
    assert_eq!(status, 200, "{by_name}");
    let mut uploaded = options.clone();
    uploaded["gold"] = json!(read("gold.json"));
    uploaded["gold_name"] = json!("gold.json");
    let (status, by_upload) = post(&s, "/api/v1/sample", &uploaded).await;
    assert_eq!(status, 200, "{by_upload}");
    assert_eq!(by_upload["size"], 4);
    assert_eq!(by_upload["candidates"], 13);
    // the same questions, the same scores
    assert_eq!(by_upload["questions"], by_name["questions"]);
    assert_eq!(by_upload["diversity"], by_name["diversity"]);
    // each chosen question with its text, in the same order
    let gold: Value = serde_json::from_str(&read("gold.json")).expect("json");
    let text = |id: &str| {
        gold["questions"]
            .as_array()
            .and_then(|qs| qs.iter().find(|q| q["id"] == id))
            .and_then(|q| {
                q["question"]
                    .as_array()?
                    .iter()
                    .find(|l| l["language"] == "en")
            })
            .map(|l| l["string"].clone())
            .expect("an English text")
    };
    let ids = by_upload["questions"].as_array().expect("ids");
    let texts = by_upload["texts"].as_array().expect("texts");
    assert_eq!(ids.len(), texts.len());
    for (id, t) in ids.iter().zip(texts) {
        assert_eq!(*t, text(id.as_str().expect("an id")), "{id}");
    }
    // an uploaded JSON document may also come as JSON
    let mut as_json = options.clone();
    as_json["gold"] = gold.clone();
    let (status, b) = post(&s, "/api/v1/sample", &as_json).await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(b["questions"], by_name["questions"]);
}

#[actix_web::test]
async fn a_sample_takes_exactly_one_readable_benchmark_within_the_body_limit() {
    let s = state("sample-errors", 1 << 20);
    let mut both =
        json!({"benchmark": "demo", "gold": read("gold.json"), "features": ["words"], "size": 2});
    error(
        &post(&s, "/api/v1/sample", &both).await,
        400,
        "bad_parameter",
        &["both benchmark and gold"],
    );
    both.as_object_mut().map(|o| o.remove("benchmark"));
    both.as_object_mut().map(|o| o.remove("gold"));
    error(
        &post(&s, "/api/v1/sample", &both).await,
        400,
        "missing_field",
        &["benchmark", "gold"],
    );
    // a file that does not read: its name, line and column
    let broken = json!({"gold": "{\"questions\": [\n  {\"id\": 1,,}\n]}", "gold_name": "broken.json", "features": ["words"], "size": 2});
    error(
        &post(&s, "/api/v1/sample", &broken).await,
        400,
        "bad_gold",
        &["broken.json:2:"],
    );
    // a file without questions
    let empty = json!({"gold": {"questions": []}, "gold_name": "empty.json", "features": ["words"], "size": 2});
    error(
        &post(&s, "/api/v1/sample", &empty).await,
        400,
        "bad_gold",
        &["no question"],
    );
    // an unknown registered one
    let unknown = json!({"benchmark": "nothing", "features": ["words"], "size": 2});
    error(
        &post(&s, "/api/v1/sample", &unknown).await,
        404,
        "not_found",
        &["\"nothing\""],
    );
    // past the server's body limit
    let small = state("sample-limit", 4096);
    let upload = json!({"gold": read("gold.json"), "features": ["words"], "size": 2});
    error(
        &post(&small, "/api/v1/sample", &upload).await,
        413,
        "payload_too_large",
        &[],
    );
}

/// The demo run as an inline run of `POST /api/v1/evaluate`.
fn run() -> Value {
    let doc: Value = serde_json::from_str(&read("example-system.json")).expect("json");
    json!({"name": "example-system.json", "document": doc})
}

/// The ids of a report's first run's QA questions.
fn qa_ids(report: &Value) -> Vec<String> {
    report["runs"][0]["experiments"]["qa"]["questions"]
        .as_array()
        .expect("qa questions")
        .iter()
        .map(|q| q["id"].as_str().expect("an id").to_string())
        .collect()
}

#[actix_web::test]
async fn an_evaluation_scores_only_the_questions_asked_for() {
    let s = state("evaluate-questions", 1 << 20);
    let (status, all) = post(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": "demo", "runs": [run()]}),
    )
    .await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["gold"]["questions"], 13);
    let (status, some) = post(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": "demo", "runs": [run()], "questions": ["9", "2", "1", "2"]}),
    )
    .await;
    assert_eq!(status, 200, "{some}");
    // in the gold's order, each once
    assert_eq!(some["gold"]["questions"], 3);
    assert_eq!(qa_ids(&some), ["1", "2", "9"]);
    // the run's answers to the other gold questions are left out, not extra;
    // its answer to a question the gold does not have still is
    assert_eq!(some["runs"][0]["extra_ids"], json!(["99"]));
    assert_eq!(all["runs"][0]["extra_ids"], json!(["99"]));
    // the scores of the kept questions are those of the whole evaluation
    let f1 = |report: &Value, id: &str| {
        report["runs"][0]["experiments"]["qa"]["questions"]
            .as_array()
            .and_then(|qs| qs.iter().find(|q| q["id"] == id))
            .map(|q| q["f1"].clone())
            .expect("the question")
    };
    for id in ["1", "2", "9"] {
        assert_eq!(f1(&some, id), f1(&all, id), "{id}");
    }
    // an uploaded gold takes them too
    let gold: Value = serde_json::from_str(&read("gold.json")).expect("json");
    let (status, b) = post(
        &s,
        "/api/v1/evaluate",
        &json!({"gold": {"name": "gold.json", "document": gold}, "runs": [run()], "questions": ["4"]}),
    )
    .await;
    assert_eq!(status, 200, "{b}");
    assert_eq!(qa_ids(&b), ["4"]);
    // ids the gold does not have are named
    error(
        &post(
            &s,
            "/api/v1/evaluate",
            &json!({"gold": "demo", "runs": [run()], "questions": ["1", "nope", "99"]}),
        )
        .await,
        400,
        "bad_parameter",
        &["\"nope\", \"99\" are not in the gold benchmark \"demo\""],
    );
    error(
        &post(
            &s,
            "/api/v1/evaluate",
            &json!({"gold": "demo", "runs": [run()], "questions": []}),
        )
        .await,
        400,
        "bad_parameter",
        &["questions is empty"],
    );
}

#[actix_web::test]
async fn an_evaluation_explains_failures_as_the_command_line_does() {
    let s = state("evaluate-failures", 1 << 20);
    let body = json!({"gold": "demo", "runs": [run()]});
    let (status, plain) = post(&s, "/api/v1/evaluate", &body).await;
    assert_eq!(status, 200, "{plain}");
    assert!(plain["runs"][0].get("failures").is_none(), "{plain}");
    let mut explained = body.clone();
    explained["explain_failures"] = json!(true);
    let (status, report) = post(&s, "/api/v1/evaluate", &explained).await;
    assert_eq!(status, 200, "{report}");
    let failures = &report["runs"][0]["failures"];
    // the demo run solves 9 of its 12 evaluable questions (docs/report.md)
    let solved = failures["solved"].as_u64().expect("solved");
    let failed = failures["failed"].as_u64().expect("failed");
    assert!(failed > 0, "{failures}");
    assert_eq!(
        solved + failed,
        plain["runs"][0]["experiments"]["qa"]["aggregate"]["evaluated"]
            .as_u64()
            .expect("evaluated")
    );
    // the rules the command line's code gives the same report
    let gold = crate::qald::parse(read("gold.json").as_bytes(), "gold.json").expect("gold");
    let same = crate::qald::parse(read("example-system.json").as_bytes(), "run").expect("run");
    let job = crate::eval::job::Request {
        gold_name: "demo".into(),
        gold: Arc::new(gold),
        benchmark: None,
        questions: None,
        explain_failures: true,
        audit: None,
        runs: vec![crate::eval::job::RunSource::File {
            name: "example-system".into(),
            source: "example-system.json".into(),
            dataset: Box::new(same),
        }],
        options: crate::eval::Options {
            explain: false,
            ..crate::eval::Options::default()
        },
        plan: crate::eval::job::Plan::default(),
    };
    let cli = crate::eval::job::run_job(
        job,
        &crate::eval::job::Env {
            index: None,
            systems: &crate::live::Asking(LiveOptions::default()),
            knowledge_graph: None,
            golds: None,
        },
        &crate::eval::job::Silent,
    )
    .expect("an evaluation");
    assert_eq!(
        *failures,
        serde_json::to_value(&cli.runs[0].failures).expect("json")
    );
    // on a sample, the rules are learnt from its questions only
    let mut sampled = explained.clone();
    sampled["questions"] = json!(["1", "2", "3", "4", "5", "6"]);
    let (status, report) = post(&s, "/api/v1/evaluate", &sampled).await;
    assert_eq!(status, 200, "{report}");
    let f = &report["runs"][0]["failures"];
    assert_eq!(
        f["solved"].as_u64().unwrap_or(0) + f["failed"].as_u64().unwrap_or(0),
        report["runs"][0]["experiments"]["qa"]["aggregate"]["evaluated"]
            .as_u64()
            .expect("evaluated")
    );
    assert!(
        report["runs"][0]["experiments"]["qa"]["aggregate"]["evaluated"]
            .as_u64()
            .is_some_and(|n| n <= 6),
        "{report}"
    );
}

/// A multipart body of text fields and files: its content type and bytes.
fn multipart(parts: &[(&str, Option<&str>, &str)]) -> (String, Vec<u8>) {
    let boundary = "qajudge-test-boundary";
    let mut body = Vec::new();
    for (name, file, value) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(value.as_bytes());
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Sends a request to the app: the status and the JSON answer.
async fn send(state: &web::Data<AppState>, req: web_test::TestRequest) -> (u16, Value) {
    let state = state.clone();
    let app = web_test::init_service(App::new().configure(|cfg| configure(cfg, state))).await;
    let resp = web_test::call_service(&app, req.to_request()).await;
    let status = resp.status().as_u16();
    let bytes = web_test::read_body(resp).await;
    (
        status,
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{status} {}: {e}", String::from_utf8_lossy(&bytes))),
    )
}

#[actix_web::test]
async fn a_stored_experiment_takes_a_sample_and_explains_failures() {
    let s = state("experiment-sample", 1 << 20);
    let form = |questions: &str| {
        let (content_type, body) = multipart(&[
            ("benchmark", None, "demo"),
            (
                "run",
                Some("example-system.json"),
                &read("example-system.json"),
            ),
            ("questions", None, questions),
            ("explain_failures", None, "true"),
        ]);
        web_test::TestRequest::post()
            .uri("/api/v1/experiments")
            .insert_header(("Content-Type", content_type))
            .set_payload(body)
    };
    error(
        &send(&s, form("1\nnope\n")).await,
        400,
        "bad_parameter",
        &["question \"nope\" is not in the gold benchmark \"demo\""],
    );
    // ids one per line, blank lines and comments skipped
    let (status, created) = send(&s, form("# a sample\n3\n\n1\n")).await;
    assert_eq!(status, 202, "{created}");
    let id = created["id"].as_str().expect("an id");
    let token = created["token"].as_str().expect("a token");
    let mut record = Value::Null;
    for _ in 0..600 {
        let req = web_test::TestRequest::get()
            .uri(&format!("/api/v1/experiments/{id}"))
            .insert_header(("X-Experiment-Token", token));
        record = send(&s, req).await.1;
        if record["status"] == "done" || record["status"] == "failed" {
            break;
        }
        actix_web::rt::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(record["status"], "done", "{record}");
    let report = &record["report"];
    assert_eq!(qa_ids(report), ["1", "3"]);
    assert!(report["runs"][0]["failures"].is_object(), "{report}");
}
