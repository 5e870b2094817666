//! The files a user names, end to end: benchmarks, runs, `--kg` and
//! `--provenance` files must be regular files of at most `--max-input-mb`; a
//! device (`/dev/zero`), a FIFO or a directory is refused by name at once,
//! never read or waited on; `serve --benchmark` wants a name and such a file;
//! `index build` reads named pipes but no device, and a statement line past
//! `--max-line-kb` is a located error or, with `--lenient`, one skipped
//! statement. Benchmarks and runs gzipped, bzipped, zstd-compressed or zipped
//! (one file) score as the plain file does, and a bomb is refused naming the
//! limit. Every command runs with a bound of ten seconds: one that blocks
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

/// A decompression bomb is refused without holding its text: a 100 MiB gzip
/// of zeros against `--max-input-mb 64` (the landed code grew its buffer to
/// 128 MiB and copied into it, 192 MiB at once); the peak resident memory of
/// `check`, read from `/proc` while it runs, stays below the limit.
#[test]
fn a_decompression_bomb_is_refused_within_the_limit() {
    use std::io::Write;
    let dir = tmp("inputs-bomb-peak");
    let bomb = dir.join("zeros.json.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..100 {
        gz.write_all(&zeros).expect("compressed");
    }
    std::fs::write(&bomb, gz.finish().expect("compressed")).expect("write");
    let mut child = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(["check", "--max-input-mb", "64", utf8(&bomb)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("qajudge runs");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while child.try_wait().expect("wait").is_none() && std::time::Instant::now() < deadline {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let out = child.wait_with_output().expect("output");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("decompresses to more than the limit of 64 MiB"),
        "{said}"
    );
    assert!(
        peak_kb < 64 * 1024,
        "check peaked at {peak_kb} kB for a 64 MiB limit"
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

/// The benchmark and run samples of `../shared/data` the tests read (a file
/// a reader refuses stays: its error must be the same, compressed or not).
const SAMPLES: &[&str] = &[
    "fixtures/gerbil/QALD_answersSets/QALD_Boolean.json",
    "freebase/tog/grailqa-dev-1000.json",
    "kgqagen/data.first15.jsonl",
    "mqald/MQALD.json",
    "mqald/MQALD_new_query.json",
    "mqald/QALD-test-MOD-multilingual.json",
    "mqald/QALD-train-MOD-multilingual.json",
    "mqald/out/MQALD-test-GAnswer.json",
    "mqald/out/MQALD-test-QAnswer.json",
    "mqald/out/MQALD-test-TeBaQA.json",
    "qald/1/musicbrainz-train.xml",
    "qald/10/qald_10.json",
    "qald/2/dbpedia-test.xml",
    "qald/2/musicbrainz-train-answers.xml",
    "qald/3/dbpedia-test-answers.xml",
    "qald/3/musicbrainz-train-answers.xml",
    "qald/4/qald-4_multilingual_test_withanswers.xml",
    "qald/5/qald-5_train.json",
    "qald/5/qald-5_train.xml",
    "qald/5/qald-5_train_raw.xml",
    "qald/6/qald-6-train-datacube.json",
    "qald/7/qald-7-train-multilingual-extended-json.json",
    "qald/7/qald-7-train-multilingual.json",
    "qald/7/qald-7-train-multilingual.xml",
    "qald/8/qald-8-train-multilingual.json",
    "qald/9/qald-9-test-multilingual.json",
    "qald/9/qald-9-train-multilingual.json",
    "qald/9plus/qald_9_plus_test_dbpedia.json",
    "qawiki/qawiki-v1-complete-2025-09-09.ttl",
    "rubq/RuBQ_1.0_test.json",
    "rubq/RuBQ_2.0_dev.json",
    "systems/nliwod/qald8/QAKIS_QALD8_Train.json",
    "systems/nliwod/qald8/QASystem_QALD8_Train.json",
    "systems/nliwod/qald9/GANSWER2_QALD9_Train.json",
    "systems/nliwod/qald9/QAKIS_QALD9_Train.json",
    "systems/nliwod/qald9/QANSWER_QALD9_Train.json",
    "systems/nliwod/qald9/TeBaQA_QALD9_Train.json",
    "text2sparql/benchmark/ck25_true_result_set.json",
    "text2sparql/systems/INFAI/ck25_answers.json",
    "text2sparql/t2s-metrics/ck25/INFAI.jsonl",
    "wikidata/dblp-quad/test-questions.json",
    "wikidata/dblp-quad/valid-questions.json",
    "wikidata/spinach/qald10-en-spinach-run.json",
    "wikidata/spinach/qald10-en-test.json",
    "wikidata/spinach/qald7-task4-spinach-run.json",
    "wikidata/spinach/qald7-task4-test.json",
    "wikidata/spinach/spinach-dev.json",
    "wikidata/spinach/spinach-test.json",
    "wikidata/spinach/wikiwebquestions-dev.json",
    "wikidata/spinach/wikiwebquestions-test.json",
];

/// `bytes` compressed by a command-line tool (`gzip -c`, …).
fn compressed_by(tool: &[&str], bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new(tool[0])
        .args(&tool[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the compressor runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("compressed");
    writer.join().expect("writer").expect("written");
    assert!(out.status.success(), "{tool:?}");
    out.stdout
}

/// A zip archive of one file `name` holding `bytes` deflated, written by hand
/// after APPNOTE 4.3 (local header, data, central directory, end record), so
/// that the test needs no zip tool.
fn zip_of(name: &str, bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut deflate = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    deflate.write_all(bytes).expect("deflated");
    let data = deflate.finish().expect("deflated");
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    let sizes = |out: &mut Vec<u8>| {
        out.extend(crc.sum().to_le_bytes());
        out.extend(u32::try_from(data.len()).expect("small").to_le_bytes());
        out.extend(u32::try_from(bytes.len()).expect("small").to_le_bytes());
    };
    let mut out = Vec::new();
    // local header: version 2.0, no flags, deflate, no time
    out.extend(b"PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00");
    sizes(&mut out);
    out.extend(u16::try_from(name.len()).expect("short").to_le_bytes());
    out.extend([0, 0]);
    out.extend(name.as_bytes());
    out.extend(&data);
    let central = out.len();
    out.extend(b"PK\x01\x02\x14\x00\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00");
    sizes(&mut out);
    out.extend(u16::try_from(name.len()).expect("short").to_le_bytes());
    // extra, comment, disk, internal and external attributes, local offset 0
    out.extend([0u8; 16]);
    out.extend(name.as_bytes());
    let central_len = out.len() - central;
    out.extend(b"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00");
    out.extend(u32::try_from(central_len).expect("small").to_le_bytes());
    out.extend(u32::try_from(central).expect("small").to_le_bytes());
    out.extend([0, 0]);
    out
}

/// Makes a file's compressed copy from its name and bytes.
type Compress = fn(&str, &[u8]) -> Vec<u8>;

#[test]
fn every_sample_compressed_or_zipped_scores_byte_identically_to_the_plain_file() {
    let data = crate::require_data!();
    let dir = tmp("inputs-every-sample");
    let forms: [(&str, &str, Compress); 5] = [
        ("plain", "", |_, b| b.to_vec()),
        ("gz", "gzip", |_, b| compressed_by(&["gzip", "-c"], b)),
        ("bz2", "bzip2", |_, b| compressed_by(&["bzip2", "-c"], b)),
        ("zst", "zstd", |_, b| {
            compressed_by(&["zstd", "-c", "-q"], b)
        }),
        ("zip", "zip", zip_of),
    ];
    for sample in SAMPLES {
        let plain_bytes = std::fs::read(data.join(sample)).expect("the sample");
        let name = Path::new(sample)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a name");
        let mut plain: Option<(Option<i32>, String, String)> = None;
        for (form, compression, make) in forms {
            // the same file name in a folder per form: the content tells
            let folder = dir.join(form);
            std::fs::create_dir_all(&folder).expect("folder");
            let path = folder.join(name);
            std::fs::write(&path, make(name, &plain_bytes)).expect("written");
            let path = utf8(&path);
            let o = bounded_for(
                &[
                    "evaluate",
                    "--gold",
                    path,
                    "--run",
                    path,
                    "--experiments",
                    "qa",
                    "--format",
                    "json",
                ],
                BUILD_BOUND,
            );
            let at = folder.display().to_string();
            let outcome = (
                o.status.code(),
                String::from_utf8_lossy(&o.stdout).replace(&at, "DIR"),
                String::from_utf8_lossy(&o.stderr).replace(&at, "DIR"),
            );
            let Some(plain) = &plain else {
                plain = Some(outcome);
                continue;
            };
            assert!(
                outcome == *plain,
                "{sample} as {form} scores otherwise than the plain file:\n{}\n{}",
                outcome.2,
                plain.2
            );
            // check names the compression
            let o = bounded(&["check", path]);
            if plain.0 == Some(0) {
                assert!(
                    said(&o).contains(&format!("\n  compression: {compression}\n")),
                    "{sample} as {form}: {}",
                    said(&o)
                );
            }
        }
        assert!(plain.is_some());
    }
}

#[test]
fn a_gigabyte_bomb_gzipped_or_zipped_and_a_zip_of_two_files_are_refused() {
    let dir = tmp("inputs-gigabyte-bomb");
    // 1 GiB of zeros, gzip -1: about a megabyte
    let gz = dir.join("bomb.json.gz");
    let made = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 1073741824 /dev/zero | gzip -1 -c > '{}'",
            gz.display()
        ))
        .status()
        .expect("sh runs");
    assert!(made.success());
    let bytes = std::fs::read(&gz).expect("the bomb");
    assert!(bytes.len() < 8 << 20, "{} bytes", bytes.len());
    // the same deflate stream as the one entry of a zip: gzip's 10-byte
    // header and 8-byte trailer (CRC-32, size mod 2^32) around it
    let (deflate, trailer) = (&bytes[10..bytes.len() - 8], &bytes[bytes.len() - 8..]);
    let mut zip = Vec::new();
    zip.extend(b"PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00");
    zip.extend(&trailer[..4]);
    zip.extend(u32::try_from(deflate.len()).expect("small").to_le_bytes());
    zip.extend(&trailer[4..]);
    zip.extend(9u16.to_le_bytes());
    zip.extend([0, 0]);
    zip.extend(b"bomb.json");
    zip.extend(deflate);
    let zipped = dir.join("bomb.zip");
    std::fs::write(&zipped, zip).expect("written");
    for (path, compression) in [(&gz, "gzip"), (&zipped, "zip")] {
        for command in [
            vec!["check", "--max-input-mb", "64", utf8(path)],
            vec![
                "evaluate",
                "--max-input-mb",
                "64",
                "--gold",
                GOLD,
                "--run",
                utf8(path),
            ],
        ] {
            assert_refused(
                &bounded(&command),
                &format!(
                    "{}: its {compression} content decompresses to more than the limit of 64 MiB of an input file; raise it with --max-input-mb",
                    utf8(path)
                ),
            );
        }
    }
    // a zip of two files (Info-ZIP's, tests/data/zip/README.md)
    let two = root().join("tests/data/zip/two.zip");
    assert_refused(
        &bounded(&["evaluate", "--gold", utf8(&two), "--run", RUN]),
        &format!(
            "{}: the zip archive holds 2 files (gold.json, run.json); qajudge reads a zip of one file",
            utf8(&two)
        ),
    );
}

#[test]
fn a_zipped_or_gzipped_kg_file_loads_and_executes_as_the_plain_one() {
    let dir = tmp("inputs-kg-zip");
    let plain = root().join("tests/data/demo/kg.ttl");
    let bytes = std::fs::read(&plain).expect("the demo graph");
    let zipped = dir.join("kg.ttl.zip");
    std::fs::write(&zipped, zip_of("kg.ttl", &bytes)).expect("written");
    let gzipped = dir.join("kg.ttl.gz");
    std::fs::write(&gzipped, compressed_by(&["gzip", "-c"], &bytes)).expect("written");
    let scores = |kg: &Path| {
        let o = bounded_for(
            &[
                "evaluate",
                "--gold",
                GOLD,
                "--run",
                "tests/data/demo/sparql-system.json",
                "--kg",
                utf8(kg),
                "--execute-run",
                "--format",
                "json",
            ],
            BUILD_BOUND,
        );
        assert!(o.status.success(), "{}", said(&o));
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let files = &report["knowledge_graph"]["files"][0];
        // the scores of every question (not the execution times)
        let qa = &report["runs"][0]["experiments"]["qa"];
        let questions: Vec<(serde_json::Value, serde_json::Value, serde_json::Value)> = qa
            ["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .map(|q| (q["id"].clone(), q["status"].clone(), q["f1"].clone()))
            .collect();
        (
            questions,
            qa["aggregate"]["macro"].clone(),
            files["statements"].clone(),
        )
    };
    let expected = scores(&plain);
    assert_eq!(
        (expected.0.len(), &expected.2),
        (13, &serde_json::json!(58))
    );
    assert_eq!(scores(&zipped), expected);
    assert_eq!(scores(&gzipped), expected);
}

#[test]
fn a_kg_file_whose_text_decompresses_past_the_limit_is_refused_naming_it() {
    let dir = tmp("inputs-kg-bomb");
    // 2.2 MB of valid N-Triples, gzipped to a few kilobytes: within the limit
    // as stored, past it as text
    let text =
        "<http://example.org/a> <http://example.org/b> <http://example.org/c> .\n".repeat(30_000);
    let gz = dir.join("kg.nt.gz");
    std::fs::write(&gz, compressed_by(&["gzip", "-c"], text.as_bytes())).expect("written");
    assert!(std::fs::metadata(&gz).expect("the file").len() < 1 << 20);
    let args = |mb: &'static str| {
        vec![
            "evaluate",
            "--max-input-mb",
            mb,
            "--gold",
            GOLD,
            "--run",
            "tests/data/demo/sparql-system.json",
            "--kg",
            utf8(&gz),
        ]
    };
    assert_refused(
        &bounded(&args("1")),
        &format!(
            "{}: cannot read: its content decompresses to more than the limit of 1 MiB of an input file; raise it with --max-input-mb",
            utf8(&gz)
        ),
    );
    // within a limit that holds its text, it loads
    let o = bounded(&args("3"));
    assert!(o.status.success(), "{}", said(&o));
}
