//! The web page in a real browser: Debian's headless Chromium driven through
//! ChromeDriver (the W3C WebDriver protocol over HTTP). The test picks the demo
//! benchmark, uploads a run, waits for the result, checks the tables, filters and
//! sorts the per-question table, and writes a screenshot to
//! `qajudge-web-page.png` in the build directory (`target/` or `$CARGO_TARGET_DIR`). `scripts/test.sh` installs chromium and
//! chromium-driver; without them the test fails under CI and skips elsewhere.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{root, tmp, Server, RUN};

/// The WebDriver element key.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    child: Child,
    base: String,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(method: &str, url: &str, body: Option<Value>) -> Value {
    let request = ureq::request(method, url);
    let result = match body {
        Some(b) => request
            .set("Content-Type", "application/json")
            .send_string(&b.to_string()),
        None => request.call(),
    };
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("webdriver {method} {url}: {e}"),
    };
    let text = response.into_string().expect("webdriver body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("webdriver answer {text}: {e}"))
}

impl Driver {
    fn start() -> Option<Driver> {
        let (chromium, driver) = (Path::new("/usr/bin/chromium"), "chromedriver");
        let found = chromium.exists()
            && Command::new(driver)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
        if !found {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("chromium and chromedriver are missing: scripts/test.sh installs them (apt-get install chromium chromium-driver)");
            }
            eprintln!(
                "skipping: chromium/chromedriver are not installed (scripts/test.sh installs them)"
            );
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        let start = Instant::now();
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let session = call(
            "POST",
            &format!("{base}/session"),
            Some(json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium.display().to_string(),
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1600"]
                }
            }}})),
        );
        let id = session["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"))
            .to_string();
        Some(Driver {
            child,
            base,
            session: id,
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{path}", self.base, self.session)
    }

    fn go(&self, url: &str) {
        call("POST", &self.url("/url"), Some(json!({ "url": url })));
    }

    fn find_all(&self, css: &str) -> Vec<String> {
        let r = call(
            "POST",
            &self.url("/elements"),
            Some(json!({"using": "css selector", "value": css})),
        );
        r["value"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits until `css` matches an element, and returns the first.
    fn wait_for(&self, css: &str) -> String {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find_all(css).into_iter().next() {
                return e;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{css} never appeared"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn text(&self, element: &str) -> String {
        call("GET", &self.url(&format!("/element/{element}/text")), None)["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn click(&self, element: &str) {
        call(
            "POST",
            &self.url(&format!("/element/{element}/click")),
            Some(json!({})),
        );
    }

    fn type_in(&self, element: &str, text: &str) {
        call(
            "POST",
            &self.url(&format!("/element/{element}/value")),
            Some(json!({ "text": text })),
        );
    }

    /// Empties an input.
    fn clear(&self, element: &str) {
        call(
            "POST",
            &self.url(&format!("/element/{element}/clear")),
            Some(json!({})),
        );
    }

    /// Runs `script` (a function body) in the page; its return value.
    fn script(&self, script: &str) -> Value {
        let r = call(
            "POST",
            &self.url("/execute/sync"),
            Some(json!({"script": script, "args": []})),
        );
        r["value"].clone()
    }

    /// An attribute of an element (`null` when it has none).
    fn attribute(&self, element: &str, name: &str) -> Value {
        call(
            "GET",
            &self.url(&format!("/element/{element}/attribute/{name}")),
            None,
        )["value"]
            .clone()
    }

    /// The computed value of a CSS property of an element (ChromeDriver gives
    /// colours as `rgba(r, g, b, a)`).
    fn css(&self, element: &str, property: &str) -> String {
        call(
            "GET",
            &self.url(&format!("/element/{element}/css/{property}")),
            None,
        )["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until `check` holds, for at most `secs` seconds.
    fn until(&self, secs: u64, what: &str, check: impl Fn() -> bool) {
        let start = Instant::now();
        while !check() {
            assert!(start.elapsed() < Duration::from_secs(secs), "{what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self) -> Vec<u8> {
        let r = call("GET", &self.url("/screenshot"), None);
        base64(r["value"].as_str().expect("screenshot"))
    }
}

fn base64(s: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for v in s.bytes().filter_map(value) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

#[test]
fn the_web_page_runs_an_experiment_in_chromium() {
    let Some(d) = Driver::start() else { return };
    let s = Server::start(&tmp("browser"), &[]);
    d.go(&s.url("/"));
    let option = d.wait_for("#benchmark option[value='demo']");
    d.click(&option);
    let runs = d.wait_for("#runs");
    // two runs: the example system and the run that answers in other graphs' forms
    let files = format!(
        "{}\n{}",
        root().join(RUN).display(),
        root().join("tests/data/demo/cross-graph.json").display()
    );
    d.type_in(&runs, &files);
    d.click(&d.wait_for("#submit"));

    // the page follows the experiment until it is done
    let status = d.wait_for("#experiment-status");
    let start = Instant::now();
    while d.text(&status) != "done" {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "status {}",
            d.text(&status)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // one aggregate table per sub-experiment with data, runs side by side
    let qa = d.wait_for("table.aggregate[data-experiment='qa']");
    let text = d.text(&qa);
    assert!(text.contains("example-system"), "{text}");
    // the figures of the CLI with the index: micro P 9/12, Macro F1 QALD
    assert!(text.contains("0.7500"), "{text}");
    assert!(!d
        .find_all("svg.f1-chart[data-experiment='qa'] rect.bar")
        .is_empty());
    // the per-question table: 13 questions, filter by status, sort by F1
    let rows = "table.questions[data-experiment='qa'][data-run='example-system'] tbody tr";
    assert_eq!(d.find_all(rows).len(), 13);
    let empty = d.wait_for(
        "section[data-experiment='qa'] div:has(> table[data-run='example-system']) .status-filter option[value='empty']",
    );
    d.click(&empty);
    assert_eq!(d.find_all(rows).len(), 2);
    let all = d.wait_for(
        "section[data-experiment='qa'] div:has(> table[data-run='example-system']) .status-filter option[value='all']",
    );
    d.click(&all);
    d.click(
        &d.wait_for("table.questions[data-experiment='qa'][data-run='example-system'] th.sortable"),
    );
    let first = d.find_all(rows).into_iter().next().expect("a row");
    assert!(d.text(&first).contains("1.0000"), "{}", d.text(&first));
    // both runs side by side, and their paired significance test
    assert!(text.contains("cross-graph"), "{text}");
    let comparisons = d.text(&d.wait_for("#comparisons"));
    assert!(
        comparisons.contains("example-system")
            && comparisons.contains("cross-graph")
            && comparisons.contains("p adjusted"),
        "{comparisons}"
    );
    // the explanation of a match is on the page
    let page = d.text(&d.wait_for("#results"));
    assert!(page.contains("QA"), "{page}");
    let png = d.screenshot();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    // in the build directory (`target/`, or $CARGO_TARGET_DIR)
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = tmp.parent().unwrap_or(tmp).join("qajudge-web-page.png");
    std::fs::write(&out, png)
        .unwrap_or_else(|e| panic!("screenshot not written to {}: {e}", out.display()));
    // private until published: the page says so and publishes it
    let visibility = d.wait_for("#experiment-visibility");
    assert!(
        d.text(&visibility).starts_with("private"),
        "{}",
        d.text(&visibility)
    );
    d.click(&d.wait_for("#publish"));
    let start = Instant::now();
    while !d.text(&visibility).starts_with("public") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{}",
            d.text(&visibility)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // each experiment has its own page, without the token once public
    let id = d.text(&d.wait_for("#experiment-id"));
    d.go(&s.url(&format!("/experiments/{id}")));
    let status = d.wait_for("#experiment-status");
    let start = Instant::now();
    while d.text(&status) != "done" {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_web_page_asks_a_text2sparql_system_and_shows_query_statuses() {
    let dir = crate::require_data!();
    let Some(d) = Driver::start() else { return };
    let (url, _system) =
        crate::live_text2sparql::start_system(crate::live_text2sparql::infai_queries(&dir));
    let s = crate::live_text2sparql::ck25_server(&dir, "browser-t2s");
    d.go(&s.url("/"));
    d.click(&d.wait_for("#benchmark option[value='ck25']"));
    // the server has a knowledge graph: the execution choices are offered
    let kg = d.text(&d.wait_for("#kg-name"));
    assert!(kg.contains("26903 triples"), "{kg}");
    d.type_in(&d.wait_for("#systems"), &url);
    d.click(&d.wait_for("#protocol option[value='text2sparql']"));
    d.click(&d.wait_for("#profile option[value='text2sparql']"));
    d.click(&d.wait_for("#submit"));
    let status = d.wait_for("#experiment-status");
    let start = Instant::now();
    while d.text(&status) != "done" {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "status {} {}",
            d.text(&status),
            d.text(&d.wait_for("#experiment-error"))
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let meta = d.text(&d.wait_for("#report-meta"));
    assert!(meta.contains("26903 triples"), "{meta}");
    // the receipt, a download of the report that holds it, and the command
    let receipt = d.text(&d.wait_for("#report-receipt"));
    assert!(
        receipt.starts_with("receipt ") && receipt.contains("qajudge reproduce report.json"),
        "{receipt}"
    );
    let link = d.wait_for("#report-receipt a[download='report.json']");
    assert!(
        d.attribute(&link, "href")
            .as_str()
            .is_some_and(|h| h.starts_with("blob:")),
        "a download made in the page"
    );
    // the challenge's figures and the query checks beside the usual measures
    let aggregate = d.text(&d.wait_for("table.aggregate[data-experiment='qa']"));
    for row in ["set_F_ndcg", "queries executed 49", "queries failed 1"] {
        assert!(aggregate.contains(row), "{row}: {aggregate}");
    }
    // per question: the query's execution status beside the scores (all
    // 50 questions on one page)
    d.click(&d.wait_for("section[data-experiment='qa'] .page-size option[value='100']"));
    let table = "table.questions[data-experiment='qa']";
    let head = d.text(&d.wait_for(&format!("{table} thead")));
    assert!(head.contains("query"), "{head}");
    let row = |id: &str| d.text(&d.wait_for(&format!("{table} tr[data-id='{id}']")));
    assert!(
        row("ck25:47-en").contains("syntax_error"),
        "{}",
        row("ck25:47-en")
    );
    assert!(row("ck25:48-en").contains("error"), "{}", row("ck25:48-en"));
    assert!(row("ck25:1-en").contains("ok"), "{}", row("ck25:1-en"));
    assert_eq!(
        d.find_all(&format!("{table} td.exec-syntax_error")).len(),
        1
    );
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = tmp
        .parent()
        .unwrap_or(tmp)
        .join("qajudge-web-page-text2sparql.png");
    std::fs::write(&out, d.screenshot())
        .unwrap_or_else(|e| panic!("screenshot not written to {}: {e}", out.display()));
}

/// Where a screenshot is written: the build directory (`target/`, or
/// `$CARGO_TARGET_DIR`).
fn screenshot_to(d: &Driver, name: &str) {
    let png = d.screenshot();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let out = tmp.parent().unwrap_or(tmp).join(name);
    std::fs::write(&out, png)
        .unwrap_or_else(|e| panic!("screenshot not written to {}: {e}", out.display()));
}

/// The page's height and the window's, in CSS pixels.
fn heights(d: &Driver) -> (f64, f64) {
    let v = d.script("return [document.body.scrollHeight, window.innerHeight];");
    let (height, screen) = (
        v[0].as_f64().expect("scrollHeight"),
        v[1].as_f64().expect("innerHeight"),
    );
    eprintln!("the page is {height} px tall, the window {screen} px");
    (height, screen)
}

#[test]
fn three_named_runs_with_intervals_a_matrix_and_a_leaderboard() {
    let Some(d) = Driver::start() else { return };
    // the knowledge graph scores the run of queries without answers
    let s = Server::start(
        &tmp("browser-three-runs"),
        &[
            "--kg",
            "tests/data/demo/kg.ttl",
            "tests/data/demo/facts.ttl",
        ],
    );
    d.go(&s.url("/"));
    d.wait_for("#benchmark option[value='demo']");
    // the registered benchmark is chosen already
    assert_eq!(
        d.script("return document.querySelector('#benchmark').value;"),
        "demo"
    );
    let files: Vec<String> = [
        RUN,
        "tests/data/demo/cross-graph.json",
        "tests/data/demo/sparql-system.json",
    ]
    .iter()
    .map(|f| root().join(f).display().to_string())
    .collect();
    d.type_in(&d.wait_for("#runs"), &files.join("\n"));
    // a name field per run file, the file's stem as its placeholder
    d.until(10, "three name fields", || {
        d.find_all(".run-name").len() == 3
    });
    let names = d.find_all(".run-name");
    assert_eq!(d.attribute(&names[1], "placeholder"), "cross-graph");
    d.type_in(&names[0], "system A");
    d.type_in(&names[2], "sparql");
    d.click(&d.wait_for("#confidence"));
    d.click(&d.wait_for("#by-choice summary"));
    d.click(&d.wait_for(".by[value='answertype']"));
    d.click(&d.wait_for("#submit"));
    let status = d.wait_for("#experiment-status");
    d.until(120, "the experiment ends done", || {
        d.text(&status) == "done"
    });
    d.wait_for("table.matrix[data-experiment='qa']");

    // before anything is opened, the page is at most three screens tall
    let (height, screen) = heights(&d);
    assert!(
        height <= 3.0 * screen,
        "the page is {height} px, the window {screen} px"
    );
    d.script("document.querySelector('#results').scrollIntoView();");
    screenshot_to(&d, "qajudge-web-page-results.png");

    // the chooser: every sub-experiment with data, the three runs by their names
    let runs: Vec<String> = d
        .find_all("#run-choice option")
        .iter()
        .map(|o| d.text(o))
        .collect();
    assert_eq!(runs, ["system A", "cross-graph", "sparql"]);
    assert!(!d
        .find_all("#experiment-choice option[value='qa']")
        .is_empty());
    // one sub-experiment at a time: the others are not shown
    let shown = d.script(
        "return [...document.querySelectorAll('section.experiment')].filter(s => !s.hidden).map(s => s.dataset.experiment);",
    );
    assert_eq!(shown, json!(["qa"]));

    // macro F1 and Macro F1 QALD per run, with their bootstrap intervals
    let chart = "svg.f1-chart[data-experiment='qa']";
    assert_eq!(d.find_all(&format!("{chart} rect.bar")).len(), 6);
    assert_eq!(d.find_all(&format!("{chart} g.ci")).len(), 6);
    assert_eq!(d.find_all(&format!("{chart} g.ci line")).len(), 18);
    let aggregate = d.text(&d.wait_for("table.aggregate[data-experiment='qa']"));
    assert!(aggregate.contains("macro F1 95 % CI"), "{aggregate}");
    // an F1 histogram per run, ten bins each, and the answertype breakdown
    let histograms = d.find_all("svg.histogram[data-experiment='qa']");
    assert_eq!(histograms.len(), 3);
    assert_eq!(
        d.find_all("svg.histogram[data-experiment='qa'][data-run='sparql'] rect.bin")
            .len(),
        10
    );
    assert!(!d
        .find_all(
            ".breakdown[data-experiment='qa'] svg.feature[data-feature='answertype'] rect.bar"
        )
        .is_empty());

    // the matrix: a row per question, a cell per run coloured by F1 (viridis)
    let matrix = "table.matrix[data-experiment='qa']";
    assert_eq!(d.find_all(&format!("{matrix} tbody tr")).len(), 13);
    assert_eq!(d.find_all(&format!("{matrix} td.cell")).len(), 39);
    let right = d.wait_for(&format!(
        "{matrix} td.cell[data-run='system A'][data-id='2']"
    ));
    assert_eq!(d.attribute(&right, "data-f1"), "1");
    assert_eq!(d.css(&right, "background-color"), "rgba(253, 231, 37, 1)");
    let title = d.attribute(&right, "title");
    assert!(
        title
            .as_str()
            .is_some_and(|t| t.contains("When was Barack Obama born?") && t.contains("F1 1.0000")),
        "{title}"
    );
    assert_eq!(d.text(&right), "1.00");
    // a question one run gets wrong: F1 0 is the scale's other end
    let found = d.script(&format!(
        "const c = document.querySelector(\"{matrix} td.cell[data-f1='0']\"); return [c.dataset.run, c.dataset.id];"
    ));
    let (run, qid) = (
        found[0].as_str().expect("a run"),
        found[1].as_str().expect("an id"),
    );
    let wrong = d.wait_for(&format!(
        "{matrix} td.cell[data-run='{run}'][data-id='{qid}']"
    ));
    assert_eq!(d.css(&wrong, "background-color"), "rgba(68, 1, 84, 1)");
    assert_eq!(d.css(&wrong, "color"), "rgba(255, 255, 255, 1)");
    // a click shows the question's answers and notes in that run
    d.click(&wrong);
    let detail = d.text(&d.wait_for(".matrix-block .cell-detail"));
    assert!(detail.contains(&format!("{qid} · {run}")), "{detail}");
    assert!(detail.contains("F1 0.0000"), "{detail}");

    // the per-question table of the chosen run, a page at a time
    let rows = "table.questions[data-experiment='qa'][data-run='system A'] tbody tr";
    assert_eq!(d.find_all(rows).len(), 13);
    d.click(&d.wait_for("section[data-experiment='qa'] .page-size option[value='10']"));
    assert_eq!(d.find_all(rows).len(), 10);
    let block = "section[data-experiment='qa'] div:has(> table[data-run='system A'])";
    let info = d.wait_for(&format!("{block} .page-info"));
    assert_eq!(d.text(&info), "1–10 of 13");
    d.click(&d.wait_for(&format!("{block} button.next")));
    assert_eq!(d.find_all(rows).len(), 3);
    assert_eq!(d.text(&info), "11–13 of 13");
    d.click(&d.wait_for(&format!("{block} button.prev")));
    assert_eq!(d.find_all(rows).len(), 10);
    // another run through the chooser
    d.click(&d.wait_for("#run-choice option[value='2']"));
    let sparql = "table.questions[data-experiment='qa'][data-run='sparql']";
    d.wait_for(sparql);
    assert_eq!(
        d.script(&format!(
            "return document.querySelector(\"{block}\").hidden;"
        )),
        true
    );
    assert!(d
        .text(&d.wait_for(&format!("{sparql} thead")))
        .contains("query"));

    // published, it is on the benchmark's leaderboard, a row per run
    d.click(&d.wait_for("#publish"));
    let id = d.text(&d.wait_for("#experiment-id"));
    let board = "#leaderboard tbody tr";
    d.until(20, "three leaderboard rows", || {
        d.find_all(board).len() == 3
    });
    let column = |n: usize| -> Vec<String> {
        d.find_all(&format!("{board} td:nth-child({n})"))
            .iter()
            .map(|c| d.text(c))
            .collect()
    };
    let mut listed = column(2);
    listed.sort();
    assert_eq!(listed, ["cross-graph", "sparql", "system A"]);
    let descending = |values: Vec<String>| {
        let v: Vec<f64> = values.iter().map(|x| x.parse().expect("a score")).collect();
        v.windows(2).all(|w| w[0] >= w[1])
    };
    // by default by the profile's headline (Macro F1 QALD under judge)
    assert!(descending(column(5)), "by the headline: {:?}", column(5));
    // sorted by another column with a click on its header
    let qald = d.wait_for("#leaderboard th[data-sort='macro_f1_qald']");
    d.click(&qald);
    d.until(20, "sorted by Macro F1 QALD", || {
        d.attribute(&qald, "aria-sort") == "descending"
    });
    assert!(descending(column(8)), "by Macro F1 QALD: {:?}", column(8));
    let links = d.find_all(&format!("{board} a[href='/experiments/{id}']"));
    assert_eq!(links.len(), 3);
    d.script("document.querySelector('#leaderboard-section').scrollIntoView();");
    screenshot_to(&d, "qajudge-web-page-leaderboard.png");

    // each row links to the experiment's own page, which also fits three screens
    d.click(&links[0]);
    let status = d.wait_for("#experiment-status");
    d.until(20, "the experiment's page", || d.text(&status) == "done");
    d.wait_for("table.matrix[data-experiment='qa']");
    let (height, screen) = heights(&d);
    assert!(
        height <= 3.0 * screen,
        "the page is {height} px, the window {screen} px"
    );
    screenshot_to(&d, "qajudge-web-page-experiment.png");
}

#[test]
fn a_three_run_qald8_experiment_fits_three_screens_before_anything_is_opened() {
    let Some(d) = Driver::start() else { return };
    let Some(data) = crate::data::shared() else {
        return;
    };
    let gold = data.join("qald/8/qald-8-train-multilingual.json");
    let s = Server::start(
        &tmp("browser-qald8"),
        &["--benchmark", &format!("qald8={}", gold.display())],
    );
    let runs: Vec<(String, Vec<u8>)> = ["GANSWER2", "QAKIS", "TeBaQA"]
        .iter()
        .map(|n| {
            let name = format!("{n}_QALD8_Train.json");
            let bytes = std::fs::read(data.join("systems/nliwod/qald8").join(&name))
                .expect("a NLIWOD QALD-8 run");
            (name, bytes)
        })
        .collect();
    let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("benchmark", None, b"qald8")];
    for (name, bytes) in &runs {
        parts.push(("run", Some(name.as_str()), bytes.as_slice()));
    }
    parts.push(("confidence", None, b"true"));
    let (status, created) = crate::serve::post_form(&s, &parts);
    assert_eq!(status, 202, "{created}");
    let done = crate::serve::wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let id = created["id"].as_str().expect("id");
    let token = created["token"].as_str().expect("token");
    d.go(&s.url(&format!("/experiments/{id}#token={token}")));
    d.wait_for("table.matrix[data-experiment='qa']");
    // every QALD-8 train question is a row of the matrix, three runs each
    let rows = d.script(
        "return document.querySelectorAll(\"table.matrix[data-experiment='qa'] tbody tr\").length;",
    );
    assert_eq!(rows.as_u64(), done["report"]["gold"]["questions"].as_u64());
    let (height, screen) = heights(&d);
    screenshot_to(&d, "qajudge-web-page-qald8.png");
    assert!(
        height <= 3.0 * screen,
        "the page is {height} px tall, more than three windows of {screen} px"
    );
}

#[test]
fn the_web_page_draws_a_micro_benchmark_and_evaluates_a_run_on_it() {
    let Some(d) = Driver::start() else { return };
    let s = Server::start(&tmp("browser-micro"), &[]);
    d.go(&s.url("/"));
    d.wait_for("#micro-benchmark option[value='demo']");
    d.click(&d.wait_for("#micro summary"));
    // every numeric feature a sample takes, a few ticked
    assert_eq!(
        d.find_all(".micro-feature").len(),
        qajudge::sample::NUMERIC.len()
    );
    assert_eq!(d.find_all(".micro-feature:checked").len(), 4);
    // in three groups: QaldGen's question features, LSQ's query features,
    // the part-of-speech flags (closed), each counting its ticked boxes
    for (group, boxes, ticked) in [("qaldgen", 9, 3), ("lsq", 17, 1), ("pos", 21, 0)] {
        let css = format!("#micro-features details.micro-group[data-group='{group}']");
        assert_eq!(
            d.find_all(&format!("{css} .micro-feature")).len(),
            boxes,
            "{group}"
        );
        let count = d.text(&d.wait_for(&format!("{css} .micro-group-count")));
        assert_eq!(count, format!("({ticked} of {boxes} ticked)"), "{group}");
    }
    d.click(&d.wait_for(".micro-feature[value='union']"));
    let lsq = d.wait_for("details.micro-group[data-group='lsq'] .micro-group-count");
    assert_eq!(d.text(&lsq), "(2 of 17 ticked)");
    d.click(&d.wait_for("#micro-method option[value='feasible-exemplars']"));
    let size = d.wait_for("#micro-size");
    d.clear(&size);
    d.type_in(&size, "5");
    // a where that does not parse: the server's message, its column named
    let condition = d.wait_for("#micro-where");
    d.type_in(&condition, "words >");
    d.click(&d.wait_for("#micro-draw"));
    let error = d.wait_for("#micro-error");
    d.until(20, "the where error is shown", || {
        d.text(&error).contains("column")
    });
    d.clear(&condition);
    d.type_in(&condition, "words >= 1");
    d.click(&d.wait_for("#micro-draw"));
    let rows = "#sample-questions tbody tr";
    d.until(30, "five sampled questions", || d.find_all(rows).len() == 5);
    assert_eq!(d.text(&error), "");
    let facts = d.text(&d.wait_for("#sample-facts"));
    for words in [
        "feasible-exemplars",
        "diversity",
        "representativeness",
        "words, entities, relations, triple_patterns, union",
    ] {
        assert!(facts.contains(words), "{words}: {facts}");
    }
    // the page's sample is the API's
    let body = json!({"benchmark": "demo", "features": ["words", "entities", "relations", "triple_patterns", "union"],
        "method": "feasible-exemplars", "size": 5, "seed": 0, "where": "words >= 1"});
    let (status, api) = crate::serve::post_json(&s, "/api/v1/sample", &body.to_string());
    assert_eq!(status, 200, "{api}");
    let ids: Vec<String> = api["questions"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_str().expect("an id").to_string())
        .collect();
    let shown: Vec<String> = d
        .find_all(rows)
        .iter()
        .map(|r| {
            d.attribute(r, "data-id")
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(shown, ids);
    // each with its question text
    let first = d.text(&d.find_all(rows)[0]);
    assert!(
        first.contains(api["texts"][0].as_str().expect("a text")),
        "{first}"
    );
    screenshot_to(&d, "qajudge-web-page-micro.png");

    // into a new experiment: the benchmark chosen, only the sample's questions
    d.click(&d.wait_for("#micro-use"));
    assert_eq!(
        d.script("return document.querySelector('#questions').value;"),
        ids.join("\n")
    );
    assert_eq!(
        d.script("return document.querySelector('#benchmark').value;"),
        "demo"
    );
    assert_eq!(d.text(&d.wait_for("#questions-count")), "(5 ids)");
    d.type_in(
        &d.wait_for("#runs"),
        &root().join(RUN).display().to_string(),
    );
    d.click(&d.wait_for("#explain-failures"));
    d.click(&d.wait_for("#submit"));
    let status = d.wait_for("#experiment-status");
    d.until(60, "the experiment ends done", || d.text(&status) == "done");
    let meta = d.text(&d.wait_for("#report-meta"));
    assert!(meta.contains("5 questions"), "{meta}");
    let matrix = "table.matrix[data-experiment='qa'] tbody tr";
    d.wait_for(matrix);
    let mut in_matrix: Vec<String> = d
        .find_all(matrix)
        .iter()
        .map(|r| {
            d.attribute(r, "data-id")
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let mut sampled = ids.clone();
    in_matrix.sort();
    sampled.sort();
    assert_eq!(in_matrix, sampled);
    // the run's failure explanation
    let block = d.wait_for("#failures .failures[data-run='example-system']");
    let text = d.text(&block);
    assert!(text.contains("failed") && text.contains("solved"), "{text}");
    d.script("document.querySelector('#failures').scrollIntoView();");
    screenshot_to(&d, "qajudge-web-page-failures.png");
}

#[test]
fn the_web_page_shows_the_rules_of_a_failure_explanation() {
    let Some(d) = Driver::start() else { return };
    let s = Server::start(&tmp("browser-failures"), &[]);
    let run = std::fs::read(root().join(RUN)).expect("the demo run");
    let (status, created) = crate::serve::post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("run", Some("example-system.json"), run.as_slice()),
            ("explain_failures", None, b"true"),
        ],
    );
    assert_eq!(status, 202, "{created}");
    let done = crate::serve::wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let failures = &done["report"]["runs"][0]["failures"];
    let rules = failures["rules"].as_array().expect("rules");
    // the demo run fails questions a feature condition singles out
    assert!(!rules.is_empty(), "{failures}");
    let id = created["id"].as_str().expect("id");
    let token = created["token"].as_str().expect("token");
    d.go(&s.url(&format!("/experiments/{id}#token={token}")));
    let block = d.wait_for("#failures .failures[data-run='example-system']");
    let heading = d.text(&block);
    assert!(
        heading.contains(&format!(
            "{} failed, {} solved",
            failures["failed"], failures["solved"]
        )),
        "{heading}"
    );
    // one row per rule: its condition, support, failed, the rates in per cent
    let rows = d.find_all("table.rules[data-run='example-system'] tbody tr");
    assert_eq!(rows.len(), rules.len(), "{failures}");
    for (row, rule) in rows.iter().zip(rules) {
        let text = d.text(row);
        let percent = |x: &Value| format!("{:.0} %", 100.0 * x.as_f64().expect("a rate"));
        for want in [
            rule["condition"].as_str().expect("a condition").to_string(),
            format!("{} {}", rule["support"], rule["failed"]),
            percent(&rule["failure_rate_inside"]),
            percent(&rule["failure_rate_outside"]),
            format!(
                "{} question(s)",
                rule["questions"].as_array().map_or(0, Vec::len)
            ),
        ] {
            assert!(text.contains(&want), "{want}: {text}");
        }
    }
}

#[test]
fn the_web_page_audits_a_registered_benchmark_and_shows_its_texts_as_text() {
    let Some(d) = Driver::start() else { return };
    // the demo gold with a question id that would be markup if it were read
    // as HTML: the page shows it as text, and nothing runs
    let dir = tmp("browser-audit");
    let hostile = "<img src=x onerror=\"document.title='pwned'\">13";
    let mut gold: Value = serde_json::from_slice(
        &std::fs::read(root().join(crate::serve::GOLD)).expect("the demo gold"),
    )
    .expect("JSON");
    for q in gold["questions"].as_array_mut().expect("questions") {
        if q["id"] == "13" {
            q["id"] = json!(hostile);
        }
    }
    let file = dir.join("hostile.json");
    std::fs::write(&file, gold.to_string()).expect("the gold written");
    let s = Server::start_bare(
        &dir.join("store"),
        &["--benchmark", &format!("hostile={}", file.display())],
    );
    d.go(&s.url("/"));
    d.click(&d.wait_for("#audit summary"));
    d.click(&d.wait_for("#audit-benchmark option[value='hostile']"));
    d.click(&d.wait_for("#audit-run"));
    d.wait_for("#audit-counts");
    let facts = d.script(
        "return [...document.querySelectorAll('#audit-counts tr')].map(r => [...r.cells].map(c => c.textContent));",
    );
    let fact = |name: &str| -> String {
        facts
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r[0] == name)
            .and_then(|r| r[1].as_str())
            .unwrap_or_else(|| panic!("{name}: {facts}"))
            .to_string()
    };
    assert_eq!(fact("benchmark"), "hostile");
    assert_eq!(fact("questions"), "13 (13 with a query)");
    assert!(
        fact("executed on").contains("no knowledge graph"),
        "{facts}"
    );
    assert_eq!(
        [fact("errors"), fact("warnings"), fact("notes")],
        ["0", "1", "0"]
    );
    let rows = d.find_all("#audit-findings tbody tr");
    assert_eq!(rows.len(), 1);
    let row = d.text(&rows[0]);
    assert!(
        row.contains(hostile) && row.contains("empty_gold") && row.contains("warning"),
        "{row}"
    );
    assert_eq!(
        d.script("return document.querySelectorAll('#audit-summary img').length;"),
        0
    );
    assert_eq!(d.script("return document.title;"), "qajudge");
    // the same findings as the API's
    let (status, api) = crate::serve::get(&s, "/api/v1/benchmarks/hostile/audit");
    assert_eq!(status, 200, "{api}");
    assert_eq!(api["findings"][0]["question"], hostile);
    screenshot_to(&d, "qajudge-web-page-audit.png");
    // a severity filter without a match empties the table
    d.click(&d.wait_for("#audit-summary .severity-filter option[value='error']"));
    assert!(d.find_all("#audit-findings tbody tr").is_empty());
}
