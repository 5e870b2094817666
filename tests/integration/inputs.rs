//! The files a user names, end to end: benchmarks, runs, `--kg` and
//! `--provenance` files must be regular files of at most `--max-input-mb`; a
//! device (`/dev/zero`), a FIFO or a directory is refused by name at once,
//! never read or waited on; `serve --benchmark` wants a name and such a file;
//! `index build` reads named pipes but no device, and a statement line past
//! `--max-line-kb` is a located error or, with `--lenient`, one skipped
//! statement. Every command runs with a bound of ten seconds: one that blocks
//! or reads on is killed and fails the test.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::serve::{root, tmp, GOLD, RUN};

/// The time a command that refuses its input may take.
const BOUND: Duration = Duration::from_secs(10);

/// The time an index build that reads its input may take (a debug build, on a
/// machine busy with the other tests).
const BUILD_BOUND: Duration = Duration::from_secs(120);

/// [`bounded_for`] within [`BOUND`].
fn bounded(args: &[&str]) -> Output {
    bounded_for(args, BOUND)
}

/// Runs `qajudge ARGS` in the repository with no standard input; a command
/// still running after `bound` is killed (by its process id) and fails the
/// test with what it wrote on stderr.
fn bounded_for(args: &[&str], bound: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qajudge runs");
    let pid = child.id();
    // each pipe is read on a thread of its own, so that neither fills up
    let mut out = child.stdout.take().expect("stdout");
    let stdout = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out.read_to_end(&mut bytes);
        bytes
    });
    let mut err = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = err.read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    let Ok(stderr) = rx.recv_timeout(bound) else {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        let _ = child.wait();
        panic!("qajudge {args:?} was still running after {bound:?}: it blocked or read on");
    };
    let stdout = stdout.join().expect("stdout read");
    let status = child.wait().expect("exit status");
    Output {
        status,
        stdout,
        stderr,
    }
}

/// stdout and stderr of a command, together.
fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Asserts that a command failed with exit code 1 and said `what`.
fn assert_refused(o: &Output, what: &str) {
    let said = said(o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains(what), "wanted {what:?} in: {said}");
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A FIFO at `dir/name` that nobody writes into.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let made = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
    path
}

const ZERO: &str = "/dev/zero: not a regular file (a character device); give a file";

#[test]
fn a_device_is_refused_at_once_wherever_a_file_is_read_whole() {
    assert_refused(&bounded(&["annotate", "--gold", "/dev/zero"]), ZERO);
    assert_refused(&bounded(&["check", "/dev/zero"]), ZERO);
    for args in [
        &["--gold", GOLD, "--run", "/dev/zero"][..],
        &["--gold", "/dev/zero", "--run", RUN],
        &["--gold", GOLD, "--run", RUN, "--kg", "/dev/zero"],
    ] {
        let mut all = vec!["evaluate"];
        all.extend_from_slice(args);
        assert_refused(&bounded(&all), ZERO);
    }
    let dir = tmp("inputs-device");
    let out = dir.join("index");
    assert_refused(
        &bounded(&[
            "index",
            "build",
            "--out",
            utf8(&out),
            "--provenance",
            "/dev/zero",
            "tests/data/demo/kg.ttl",
        ]),
        &format!("--provenance: {ZERO}"),
    );
    // a directory is no file either
    assert_refused(
        &bounded(&["check", "tests/data/demo"]),
        "tests/data/demo: not a regular file (a directory); give a file",
    );
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tmp("inputs-fifo");
    let pipe = fifo(&dir, "gold.json");
    let said = format!("{}: not a regular file (a FIFO); give a file", utf8(&pipe));
    assert_refused(&bounded(&["check", utf8(&pipe)]), &said);
    assert_refused(&bounded(&["annotate", "--gold", utf8(&pipe)]), &said);
    assert_refused(
        &bounded(&["evaluate", "--gold", GOLD, "--run", utf8(&pipe)]),
        &said,
    );
}

#[test]
fn a_file_past_max_input_mb_is_refused_naming_the_limit_and_the_flag() {
    let dir = tmp("inputs-limit");
    // the demo benchmark, padded with white space to 2 MiB
    let mut text = std::fs::read(root().join(GOLD)).expect("gold");
    text.resize(2 << 20, b' ');
    let big = dir.join("gold.json");
    std::fs::write(&big, &text).expect("write");
    let limit = format!(
        "{}: 2097152 bytes, larger than the limit of 1 MiB of an input file; raise it with --max-input-mb",
        utf8(&big)
    );
    assert_refused(
        &bounded(&["check", "--max-input-mb", "1", utf8(&big)]),
        &limit,
    );
    assert_refused(
        &bounded(&[
            "evaluate",
            "--gold",
            GOLD,
            "--run",
            utf8(&big),
            "--max-input-mb",
            "1",
        ]),
        &limit,
    );
    assert_refused(
        &bounded(&["annotate", "--max-input-mb", "1", "--gold", utf8(&big)]),
        &limit,
    );
    // within the limit (the default, or one raised) the same file is read
    for args in [
        vec!["check", utf8(&big)],
        vec!["check", "--max-input-mb", "2", utf8(&big)],
    ] {
        let o = bounded(&args);
        assert!(o.status.success(), "{}", said(&o));
        assert!(said(&o).contains("questions: 13"), "{}", said(&o));
    }
}

#[test]
fn compressed_benchmarks_and_runs_are_read_and_a_bomb_is_refused() {
    let dir = tmp("inputs-compressed");
    let plain = bounded(&["evaluate", "--gold", GOLD, "--run", RUN, "--format", "json"]);
    assert!(plain.status.success(), "{}", said(&plain));
    let compress = |name: &str, tool: &[&str], from: &Path| -> PathBuf {
        let out = dir.join(name);
        let o = Command::new(tool[0])
            .args(&tool[1..])
            .stdin(std::fs::File::open(from).expect("input"))
            .output()
            .expect("the compressor runs");
        assert!(o.status.success());
        std::fs::write(&out, o.stdout).expect("written");
        out
    };
    // the names say nothing: the content tells
    let gold = compress("gold-gz.json", &["gzip", "-c"], &root().join(GOLD));
    let run = compress("run.zst", &["zstd", "-c", "-q"], &root().join(RUN));
    let run_bz = compress("run.json.bz2", &["bzip2", "-c"], &root().join(RUN));
    for run in [&run, &run_bz] {
        let o = bounded(&[
            "evaluate",
            "--gold",
            utf8(&gold),
            "--run",
            utf8(run),
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", said(&o));
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_slice(&o.stdout).expect("json"),
            serde_json::from_slice(&plain.stdout).expect("json"),
        );
        assert_eq!(a["runs"][0]["experiments"], b["runs"][0]["experiments"]);
    }
    // 8 MiB of spaces in 8 KiB of gzip: past a limit of 1 MiB once decompressed
    let mut text = std::fs::read(root().join(GOLD)).expect("gold");
    text.resize(8 << 20, b' ');
    let padded = dir.join("padded.json");
    std::fs::write(&padded, &text).expect("write");
    let bomb = compress("bomb.json.gz", &["gzip", "-c", "-9"], &padded);
    assert!(std::fs::metadata(&bomb).expect("bomb").len() < 64 << 10);
    assert_refused(
        &bounded(&["check", "--max-input-mb", "1", utf8(&bomb)]),
        &format!(
            "{}: its gzip content decompresses to more than the limit of 1 MiB of an input file; raise it with --max-input-mb",
            utf8(&bomb)
        ),
    );
}

/// An N-Triples file `dir/name`: a sameAs link, a statement of `long` bytes, a
/// sameAs link.
fn long_line_dump(dir: &Path, name: &str, long: usize) -> PathBuf {
    let same_as = "<http://www.w3.org/2002/07/owl#sameAs>";
    let mut text = format!("<http://a.org/1> {same_as} <http://b.org/1> .\n");
    let head = "<http://a.org/2> <http://p.org/comment> \"";
    text.push_str(head);
    text.push_str(&"x".repeat(long - head.len() - 3));
    text.push_str("\" .\n");
    text.push_str(&format!("<http://b.org/1> {same_as} <http://c.org/1> .\n"));
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// The `inputs[0]` of an index's `meta.json`.
fn first_input(index: &Path) -> serde_json::Value {
    let meta = std::fs::read(index.join("meta.json")).expect("meta.json");
    let meta: serde_json::Value = serde_json::from_slice(&meta).expect("json");
    meta["inputs"][0].clone()
}

#[test]
fn a_statement_line_past_max_line_kb_is_located_or_skipped_and_counted() {
    let dir = tmp("inputs-long-line");
    // longer than the line reader's block (1 MiB), past the default limit
    let dump = long_line_dump(&dir, "long.nt", 3 << 20);
    let out = dir.join("index");
    let build = |dump: &Path, extra: &[&str]| {
        let mut args = vec!["index", "build", "--out", utf8(&out)];
        args.extend_from_slice(extra);
        args.push(utf8(dump));
        bounded_for(&args, BUILD_BOUND)
    };
    let o = build(&dump, &[]);
    assert_refused(
        &o,
        &format!("{}:2:1: the line is 3145728 bytes long, past the limit of 1024 KiB for a statement line: raise the limit with --max-line-kb", utf8(&dump)),
    );
    assert!(said(&o).contains("--lenient"), "{}", said(&o));
    assert!(!out.exists(), "a failed build leaves no index");
    // a lower limit, on a shorter line that comes whole inside a block
    let short = long_line_dump(&dir, "short.nt", 300 << 10);
    let o = build(&short, &["--max-line-kb", "256"]);
    assert_refused(
        &o,
        "short.nt:2:1: the line is 307200 bytes long, past the limit of 256 KiB",
    );
    // --lenient: the rest is indexed, the line counted as skipped
    let o = build(&dump, &["--lenient"]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(
        said(&o).contains("2 statements from 1 files"),
        "{}",
        said(&o)
    );
    assert!(said(&o).contains("1 skipped"), "{}", said(&o));
    let input = first_input(&out);
    assert_eq!(input["skipped"], 1, "{input}");
    assert!(
        input["warnings"]
            .as_array()
            .is_some_and(
                |w| w.iter().any(|w| w.as_str().is_some_and(|w| w.starts_with(
                    "1 line(s) longer than the limit of 1024 KiB skipped (the first at line 2)"
                )))
            ),
        "{input}"
    );
    let o = bounded_for(
        &["sameas", "--index", utf8(&out), "http://a.org/1"],
        BUILD_BOUND,
    );
    assert!(o.status.success(), "{}", said(&o));
    assert!(said(&o).contains("http://c.org/1"), "{}", said(&o));
    // a limit above the line reads it as any other
    let o = build(&dump, &["--max-line-kb", "4096"]);
    assert!(o.status.success(), "{}", said(&o));
    assert!(
        said(&o).contains("3 statements from 1 files"),
        "{}",
        said(&o)
    );
}

#[test]
fn index_build_refuses_a_device_even_under_an_rdf_name() {
    let dir = tmp("inputs-index-device");
    let zero = dir.join("zero.nt");
    std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
    let out = dir.join("index");
    for input in ["/dev/zero", utf8(&zero)] {
        assert_refused(
            &bounded(&["index", "build", "--out", utf8(&out), input]),
            &format!("{input}: not a regular file (a character device); give a file, a directory of files or a named pipe"),
        );
    }
    assert!(!out.exists());
}

#[test]
fn serve_refuses_a_benchmark_without_a_name_or_that_is_no_file() {
    let dir = tmp("inputs-serve");
    let data = dir.join("data");
    let serve = |benchmark: &str| {
        bounded(&[
            "serve",
            "--bind",
            "127.0.0.1:0",
            "--data",
            utf8(&data),
            "--benchmark",
            benchmark,
        ])
    };
    let empty = format!("={GOLD}");
    assert_refused(
        &serve(&empty),
        &format!("--benchmark \"{empty}\" has an empty name; give it as NAME=FILE"),
    );
    assert_refused(
        &serve(" =x.json"),
        "--benchmark \" =x.json\" has an empty name",
    );
    assert_refused(&serve("x="), "--benchmark \"x=\" names no file");
    assert_refused(&serve("x=/dev/zero"), &format!("--benchmark x: {ZERO}"));
    let pipe = fifo(&dir, "gold.json");
    assert_refused(
        &serve(&format!("x={}", utf8(&pipe))),
        "gold.json: not a regular file (a FIFO)",
    );
}
