//! Faults: `index build` killed with SIGKILL at random points leaves the previous
//! index opening with its old content (or the new one whole, when the kill came
//! after the swap), and the next build clears what the killed ones left; the
//! server killed in the middle of an experiment and started again keeps every
//! finished experiment and marks the interrupted one as failed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use qajudge::index::Index;
use qajudge::rng::SplitMix64;
use serde_json::Value;

use crate::serve::{get_with_token, post_form, start_system, tmp, wait, Server, RUN};

const SAME_AS: &str = "http://www.w3.org/2002/07/owl#sameAs";

/// `n` sameAs statements in `n / 4` classes of five IRIs, with a label each.
fn write_dump(path: &Path, n: usize, host: &str) {
    let mut text = String::with_capacity(n * 90);
    for i in 0..n {
        let class = i / 4;
        text.push_str(&format!(
            "<http://{host}/e{class}> <{SAME_AS}> <http://{host}/e{class}-{}> .\n",
            i % 4
        ));
        if i % 4 == 0 {
            text.push_str(&format!(
                "<http://{host}/e{class}> <http://www.w3.org/2000/01/rdf-schema#label> \"thing {class}\"@en .\n"
            ));
        }
    }
    std::fs::write(path, text).expect("dump written");
}

fn build_command(out: &Path, input: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_qajudge"));
    c.args(["index", "build", "--out"])
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// The sizes of the classes of the old and the new dump's first IRI.
fn class_sizes(index: &Index) -> (u64, u64) {
    let size = |iri: &str| index.sameas(iri, 10).expect("lookup").class_size as u64;
    (size("http://old.org/e0"), size("http://new.org/e0"))
}

#[test]
fn index_build_killed_at_random_points_keeps_the_old_index() {
    let dir = tmp("killed-builds");
    let (old_nt, new_nt) = (dir.join("old.nt"), dir.join("new.nt"));
    write_dump(&old_nt, 1_000, "old.org");
    write_dump(&new_nt, 400_000, "new.org");
    let out = dir.join("idx");
    let o = build_command(&out, &old_nt).output().expect("qajudge runs");
    assert!(o.status.success(), "the old index builds");
    let mut old_meta = std::fs::read(out.join("meta.json")).expect("old meta");

    // how long a whole build of the new dump takes here, to spread the kills over
    let whole = dir.join("whole");
    let start = Instant::now();
    let o = build_command(&whole, &new_nt)
        .output()
        .expect("qajudge runs");
    assert!(o.status.success(), "the new index builds");
    let span = start.elapsed().as_millis().max(50) as usize;

    let mut rng = SplitMix64(23);
    let (mut kept, mut swapped) = (0, 0);
    for run in 0..8 {
        // the last run is killed at once, the others anywhere in a build's time
        let delay = if run == 7 { 5 } else { rng.below(span) };
        let mut child = build_command(&out, &new_nt).spawn().expect("build starts");
        std::thread::sleep(Duration::from_millis(delay as u64));
        let _ = child.kill(); // SIGKILL
        child.wait().expect("build reaped");
        let index =
            Index::open(&out).unwrap_or_else(|e| panic!("run {run}, killed after {delay} ms: {e}"));
        match class_sizes(&index) {
            (5, 1) => {
                kept += 1;
                assert_eq!(
                    std::fs::read(out.join("meta.json")).expect("meta"),
                    old_meta,
                    "run {run}: the old index is unchanged"
                );
            }
            (1, 5) => {
                // the kill came after the new index was swapped in
                swapped += 1;
                drop(index);
                std::fs::remove_dir_all(&out).expect("new index removed");
                let o = build_command(&out, &old_nt).output().expect("qajudge runs");
                assert!(o.status.success(), "the old index builds again");
                old_meta = std::fs::read(out.join("meta.json")).expect("old meta");
            }
            other => panic!("run {run}, killed after {delay} ms: classes {other:?}"),
        }
    }
    eprintln!("killed builds: {kept} left the old index, {swapped} had swapped in the new one");
    assert!(kept >= 1, "at least one build was killed before its end");

    // the next build clears what the killed ones left and swaps in the new index
    let o = build_command(&out, &new_nt).output().expect("qajudge runs");
    assert!(o.status.success());
    let left: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".idx."))
        .collect();
    assert!(
        left.is_empty(),
        "leftovers of killed builds remain: {left:?}"
    );
    assert_eq!(class_sizes(&Index::open(&out).expect("opens")), (1, 5));
}

/// A QA system that answers every question after `delay`, with no answers.
fn start_slow_qa_system(delay: Duration) -> String {
    start_system(move |_| {
        std::thread::sleep(delay);
        let body = r#"{"questions":[{"id":"1","answers":[{"head":{"vars":["x"]},"results":{"bindings":[]}}]}]}"#;
        (200, body.to_string())
    })
}

fn experiment(s: &Server, created: &Value) -> Value {
    let id = created["id"].as_str().expect("id");
    let token = created["token"].as_str().expect("token");
    let (status, r) = get_with_token(s, &format!("/api/v1/experiments/{id}"), token);
    assert_eq!(status, 200, "{r}");
    r
}

#[test]
fn a_server_killed_during_an_experiment_keeps_the_finished_ones() {
    let data: PathBuf = tmp("killed-server");
    let run = std::fs::read(crate::serve::root().join(RUN)).expect("run file");
    let s = Server::start(&data, &["--timeout-ms", "10000"]);
    let mut finished = Vec::new();
    for _ in 0..2 {
        let (status, created) = post_form(
            &s,
            &[("benchmark", None, b"demo"), ("run", Some("r.json"), &run)],
        );
        assert_eq!(status, 202, "{created}");
        let done = wait(&s, &created);
        assert_eq!(done["status"], "done", "{done}");
        finished.push((created, done));
    }
    let system = start_slow_qa_system(Duration::from_secs(3));
    let (status, slow) = post_form(
        &s,
        &[
            ("benchmark", None, b"demo"),
            ("system_url", None, system.as_bytes()),
        ],
    );
    assert_eq!(status, 202, "{slow}");
    let start = Instant::now();
    while experiment(&s, &slow)["status"] != "running" {
        assert!(start.elapsed() < Duration::from_secs(30), "never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(s); // SIGKILL, in the middle of the slow experiment

    let s = Server::start(&data, &[]);
    for (created, done) in &finished {
        let again = experiment(&s, created);
        assert_eq!(again["status"], "done");
        assert_eq!(again["report"], done["report"], "the report is kept whole");
        assert_eq!(again["finished"], done["finished"]);
    }
    let interrupted = experiment(&s, &slow);
    assert_eq!(interrupted["status"], "failed", "{interrupted}");
    let why = interrupted["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("interrupted") && why.contains("submit it again"),
        "{why}"
    );
    // and the store takes new experiments after the restart
    let (status, created) = post_form(
        &s,
        &[("benchmark", None, b"demo"), ("run", Some("r.json"), &run)],
    );
    assert_eq!(status, 202, "{created}");
    assert_eq!(wait(&s, &created)["status"], "done");
}
