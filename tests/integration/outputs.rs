//! Output paths end to end: `index build --out` (and `--export-links`),
//! `refresh --out` and `serve --data` write only where nothing is, into an
//! empty directory, or over what qajudge wrote there itself; a directory of
//! someone's files, a regular file, a FIFO or a symbolic link is refused with
//! a message naming it, and left exactly as it was.

use std::fs::File;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::serve::{root, tmp};

const KG: &str = "tests/data/demo/kg.ttl";

/// Runs `qajudge ARGS` in the repository, failing the test when it has not
/// finished within a minute (a command that blocks on a FIFO, or a server that
/// started, is killed). Its output goes through files, which never fill up.
fn qajudge(dir: &Path, args: &[&str]) -> Output {
    let (out_file, err_file) = (dir.join("command.stdout"), dir.join("command.stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(File::create(&out_file).expect("stdout file"))
        .stderr(File::create(&err_file).expect("stderr file"))
        .spawn()
        .expect("qajudge runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "qajudge {args:?} did not finish within a minute: {}",
                std::fs::read_to_string(&err_file).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        status,
        stdout: std::fs::read(&out_file).expect("stdout"),
        stderr: std::fs::read(&err_file).expect("stderr"),
    };
    std::fs::remove_file(out_file).expect("stdout removed");
    std::fs::remove_file(err_file).expect("stderr removed");
    output
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn build(dir: &Path, out: &Path) -> Output {
    qajudge(dir, &["index", "build", "--out", path(out), KG])
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Asserts that a command was refused with exit code 1 and a message naming
/// `named`.
fn assert_refused(o: &Output, named: &Path) {
    assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
    assert!(
        stderr(o).contains(&named.display().to_string()),
        "the message names {}: {}",
        named.display(),
        stderr(o)
    );
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn index_build_refuses_a_directory_of_other_files() {
    let dir = tmp("outputs-foreign");
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).expect("docs");
    std::fs::write(docs.join("thesis.txt"), b"x").expect("thesis");
    let o = build(&dir, &docs);
    assert_refused(&o, &docs);
    assert!(
        stderr(&o).contains("not a qajudge index"),
        "it says why: {}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(docs.join("thesis.txt")).expect("kept"), b"x");
    assert_eq!(names(&docs), ["thesis.txt"]);
    assert_eq!(names(&dir), ["docs"], "nothing is left beside it");

    // an export of links is refused there too
    let o = qajudge(&dir, &["index", "build", "--export-links", path(&docs), KG]);
    assert_refused(&o, &docs);
    assert!(
        stderr(&o).contains("not a qajudge export"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&docs), ["thesis.txt"]);
}

#[test]
fn index_build_refuses_a_regular_file() {
    let dir = tmp("outputs-file");
    let file = dir.join("notes.txt");
    std::fs::write(&file, b"my notes").expect("file");
    let o = build(&dir, &file);
    assert_refused(&o, &file);
    assert!(stderr(&o).contains("is a file"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&file).expect("kept"), b"my notes");
    assert_eq!(names(&dir), ["notes.txt"]);
}

#[test]
fn index_build_refuses_a_fifo_without_blocking() {
    let dir = tmp("outputs-fifo");
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let o = build(&dir, &fifo);
    assert_refused(&o, &fifo);
    assert!(stderr(&o).contains("special file"), "{}", stderr(&o));
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("still there")
            .file_type()
            .is_fifo(),
        "still a FIFO"
    );
    assert_eq!(names(&dir), ["pipe"]);
}

#[test]
fn index_build_refuses_a_symbolic_link_to_a_directory() {
    let dir = tmp("outputs-link");
    let target = dir.join("target");
    std::fs::create_dir_all(&target).expect("target");
    std::fs::write(target.join("keep.txt"), b"k").expect("keep");
    let link = dir.join("link");
    std::os::unix::fs::symlink(&target, &link).expect("link");
    let o = build(&dir, &link);
    assert_refused(&o, &link);
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(std::fs::read_link(&link).expect("still a link"), target);
    assert_eq!(names(&target), ["keep.txt"]);
    assert_eq!(std::fs::read(target.join("keep.txt")).expect("kept"), b"k");
    assert_eq!(names(&dir), ["link", "target"]);
}

#[test]
fn index_build_fills_an_empty_directory_and_replaces_its_own_index() {
    let dir = tmp("outputs-own");
    let out = dir.join("idx");
    std::fs::create_dir_all(&out).expect("empty dir");
    let o = build(&dir, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = std::fs::read(out.join("meta.json")).expect("built");
    let meta: serde_json::Value = serde_json::from_slice(&first).expect("meta");
    assert!(meta["format_version"].is_u64(), "{meta}");

    // the index it wrote is rebuilt in place
    std::thread::sleep(Duration::from_millis(1100)); // built_at is in seconds
    let o = build(&dir, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let second = std::fs::read(out.join("meta.json")).expect("rebuilt");
    assert_ne!(first, second, "a new index is in place");
    assert_eq!(names(&dir), ["idx"], "nothing is left beside it");
    qajudge::index::Index::open(&out).expect("the rebuilt index opens");
}

#[test]
fn refresh_refuses_a_directory_and_a_file_it_did_not_write() {
    let dir = tmp("outputs-refresh");
    let sub = dir.join("results");
    std::fs::create_dir_all(&sub).expect("dir");
    std::fs::write(sub.join("thesis.txt"), b"x").expect("thesis");
    let refresh = |out: &Path| {
        qajudge(
            &dir,
            &[
                "refresh",
                "--gold",
                "tests/data/demo/gold.json",
                "--kg",
                KG,
                "--out",
                path(out),
            ],
        )
    };
    let o = refresh(&sub);
    assert_refused(&o, &sub);
    assert!(
        stderr(&o).contains("cannot write the benchmark there: it is a directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&sub), ["thesis.txt"]);

    // a FIFO is refused at once (writing into it would wait for a reader)
    let fifo = dir.join("pipe.json");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let o = refresh(&fifo);
    assert_refused(&o, &fifo);
    assert!(stderr(&o).contains("special file"), "{}", stderr(&o));
    std::fs::remove_file(&fifo).expect("fifo removed");

    // a link is not written through
    let target = dir.join("target.json");
    std::fs::write(&target, b"target").expect("target");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("link");
    let o = refresh(&link);
    assert_refused(&o, &link);
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&target).expect("kept"), b"target");
    std::fs::remove_file(&link).expect("link removed");
    std::fs::remove_file(&target).expect("target removed");

    // a file qajudge did not write is never replaced, whatever its name
    let file = dir.join("refreshed.json");
    std::fs::write(&file, b"previous").expect("file");
    let o = refresh(&file);
    assert_refused(&o, &file);
    assert!(stderr(&o).contains("did not write"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&file).expect("kept"), b"previous");
    // one an earlier refresh wrote is replaced whole
    std::fs::remove_file(&file).expect("removed");
    let o = refresh(&file);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = refresh(&file);
    assert!(o.status.success(), "{}", stderr(&o));
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).expect("written")).expect("QALD-JSON");
    assert!(written["questions"].is_array(), "{written}");
    assert_eq!(written["dataset"]["written_by"], "qajudge refresh");
    assert_eq!(names(&dir), ["refreshed.json", "results"]);
}

#[test]
fn serve_refuses_a_data_directory_holding_other_files() {
    let dir = tmp("outputs-serve");
    let data = dir.join("data");
    std::fs::create_dir_all(&data).expect("data");
    std::fs::write(data.join("thesis.txt"), b"x").expect("thesis");
    let o = qajudge(
        &dir,
        &["serve", "--bind", "127.0.0.1:0", "--data", path(&data)],
    );
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("thesis.txt"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&data.display().to_string()),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&data), ["thesis.txt"], "nothing was written into it");
}
