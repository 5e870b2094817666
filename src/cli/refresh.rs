//! `qajudge refresh`: execute every gold query of a benchmark on a knowledge
//! graph and write a QALD-JSON benchmark whose answers are the results (GERBIL
//! QA's "update answers" for a new knowledge-graph version); says which
//! questions changed, which failed and why.
//!
//! The output is written to a temporary file beside it (`.NAME.tmp-PID`) and
//! renamed into place when complete, so a failed write (a full disk) leaves the
//! previous file as it was. The output path must be absent or a regular file;
//! a directory, a symbolic link, a FIFO or a device is refused before any query
//! is executed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;

use super::args::KgArgs;
use super::outln;
use super::progress::query_bar;
use crate::sparql::{execute_dataset, Mode};

/// Arguments of `qajudge refresh`.
#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// The benchmark whose queries are executed (any format qajudge reads).
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The knowledge graph.
    #[command(flatten)]
    pub kg: KgArgs,
    /// Where to write the refreshed benchmark (QALD-JSON): a new file, or one
    /// an earlier refresh wrote (its dataset's `written_by`), which it
    /// replaces; any other file, a directory, a link or a special file is
    /// refused.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// Runs `qajudge refresh`.
pub fn run(args: RefreshArgs) -> anyhow::Result<ExitCode> {
    if !args.kg.given() {
        bail!("refresh executes the gold queries: give the knowledge graph with --kg FILE... or --endpoint URL");
    }
    check_out(&args.out)?;
    let mut gold = super::load(&args.gold)?;
    let Some(kg) = args.kg.open()? else {
        bail!("no knowledge graph");
    };
    let bar = query_bar();
    bar.set_message("gold");
    let summary = execute_dataset(
        &kg,
        &mut gold,
        Mode::All,
        false,
        args.kg.options(),
        &|done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    if summary.stopped > 0 {
        // an interrupted refresh leaves the file as it was: never a benchmark
        // of half its answers
        bail!(
            "refresh was stopped with {} queries not executed: {} is left as it was",
            summary.stopped,
            args.out.display()
        );
    }
    let mut doc = crate::qald::to_qald_json(&gold, &summary.columns);
    mark_ours(&mut doc, "qajudge refresh");
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    write_replacing(&args.out, text.as_bytes())?;
    let without = gold.questions.len() - summary.executed;
    outln!(
        "executed {} of {} questions' queries on {}{}",
        summary.executed,
        gold.questions.len(),
        kg.info.endpoint.as_deref().unwrap_or(&kg.info.store),
        if without > 0 {
            format!(" ({without} without a SPARQL query kept as they were)")
        } else {
            String::new()
        }
    )?;
    for (status, n) in &summary.by_status {
        outln!("  {status}: {n}")?;
    }
    if !summary.changed.is_empty() {
        outln!(
            "answers changed for {} question(s): {}",
            summary.changed.len(),
            summary.changed.join(", ")
        )?;
    }
    for (id, why) in &summary.failed {
        outln!("failed {id}: {why}")?;
    }
    outln!("wrote {}", args.out.display())?;
    Ok(ExitCode::SUCCESS)
}

/// Checks that `out` may be written: absent, or a regular file (which the
/// rename of a complete temporary file replaces). A directory, a symbolic link
/// (not followed, whatever it points to), a FIFO, a device or a socket is an
/// error naming the path.
pub(super) fn check_out(out: &Path) -> anyhow::Result<()> {
    let file_type = match std::fs::symlink_metadata(out) {
        Ok(meta) => meta.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(e).with_context(|| format!("{}: cannot look at --out", out.display()))
        }
    };
    let what = if file_type.is_file() {
        let read_only = std::fs::metadata(out).is_ok_and(|m| m.permissions().readonly());
        if read_only {
            "a read-only file, which qajudge never replaces"
        } else if is_ours(out)? {
            return Ok(());
        } else {
            "a file qajudge did not write (not a JSON document whose dataset has a `written_by` of qajudge's), which it never replaces"
        }
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link, which qajudge does not write through"
    } else {
        "a special file (a FIFO, device or socket)"
    };
    bail!(
        "{}: cannot write the benchmark there: it is {what}; give a new file name, or a file qajudge wrote before",
        out.display()
    )
}

/// The mark of a benchmark file qajudge wrote: its dataset's `written_by`,
/// which the readers keep as a known key and [`is_ours`] looks for.
pub(super) fn mark_ours(doc: &mut serde_json::Value, writer: &str) {
    if let Some(top) = doc.as_object_mut() {
        let dataset = top
            .entry("dataset")
            .or_insert_with(|| serde_json::json!({}));
        if let Some(d) = dataset.as_object_mut() {
            d.insert(
                "written_by".into(),
                serde_json::Value::String(writer.into()),
            );
        }
    }
}

/// True when the regular file `path` is a benchmark qajudge wrote: it reads
/// whole as a JSON document whose `dataset.written_by` (the mark of
/// [`mark_ours`]) names a qajudge command. A file that only quotes the mark
/// (a Markdown note, a YAML comment, a string elsewhere in a JSON document)
/// is not ours. The document is streamed: only the mark is kept.
pub(super) fn is_ours(path: &Path) -> anyhow::Result<bool> {
    /// The top of a document: its dataset, the rest skipped unread.
    #[derive(serde::Deserialize)]
    struct Top {
        dataset: Option<Mark>,
    }
    /// The dataset object's mark.
    #[derive(serde::Deserialize)]
    struct Mark {
        written_by: Option<serde_json::Value>,
    }
    let file = std::fs::File::open(path).with_context(|| {
        format!(
            "{}: cannot read it to see whether qajudge wrote it",
            path.display()
        )
    })?;
    let top: Top = match serde_json::from_reader(std::io::BufReader::new(file)) {
        Ok(top) => top,
        // not one JSON document of that shape: not a file qajudge wrote
        Err(_) => return Ok(false),
    };
    Ok(matches!(
        top.dataset.and_then(|d| d.written_by),
        Some(serde_json::Value::String(by)) if by.starts_with("qajudge ")
    ))
}

/// Writes `bytes` to `out` through a temporary file beside it, synced, then
/// renamed into place (after checking `out` again with [`check_out`]); the
/// temporary file is removed when anything fails, and a file already at its
/// name is never touched.
pub(super) fn write_replacing(out: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let Some(name) = out.file_name() else {
        bail!("{}: --out names no file; give a file name", out.display());
    };
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = parent.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .with_context(|| {
            format!(
                "cannot create the temporary file {} beside --out: check that its directory exists and is writable",
                tmp.display()
            )
        })?;
    // the replaced file's permissions carry over (a 0600 file stays 0600)
    if let Ok(old) = std::fs::metadata(out) {
        let _ = file.set_permissions(old.permissions());
    }
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| {
            format!(
                "cannot write {} (is the disk full?); {} is left as it was",
                tmp.display(),
                out.display()
            )
        })
        .and_then(|()| check_out(out))
        .and_then(|()| {
            std::fs::rename(&tmp, out).with_context(|| {
                format!(
                    "cannot rename {} to {}; it is left as it was",
                    tmp.display(),
                    out.display()
                )
            })
        });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("qajudge-refresh-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

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
    fn a_file_is_written_or_replaced_whole_and_nothing_is_left_beside_it() {
        let dir = scratch("replace");
        let out = dir.join("out.json");
        check_out(&out).expect("absent is fine");
        let first = b"{\"dataset\": {\"written_by\": \"qajudge refresh\"}, \"questions\": []}";
        write_replacing(&out, first).expect("written");
        assert_eq!(std::fs::read(&out).expect("out"), first);
        check_out(&out).expect("a file qajudge wrote is fine");
        write_replacing(&out, b"second").expect("replaced");
        assert_eq!(std::fs::read(&out).expect("out"), b"second");
        // a file qajudge did not write is refused, and kept
        let e = format!("{:#}", check_out(&out).expect_err("not ours"));
        assert!(e.contains("did not write"), "{e}");
        assert_eq!(names(&dir), ["out.json"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_only_quotes_the_mark_is_not_ours_and_is_kept() {
        let dir = scratch("quotes");
        let notes = dir.join("notes.md");
        let md =
            b"# notes\n\nqajudge marks its files with `\"written_by\": \"qajudge refresh\"`.\n";
        std::fs::write(&notes, md).expect("notes");
        let e = format!("{:#}", check_out(&notes).expect_err("a Markdown note"));
        assert!(e.contains("did not write"), "{e}");
        let yaml = dir.join("gold.yaml");
        let text = b"# \"written_by\": \"qajudge audit --write-gold\"\nquestions: []\n";
        std::fs::write(&yaml, text).expect("yaml");
        assert!(check_out(&yaml).is_err(), "a YAML gold quoting the mark");
        // the mark elsewhere than the dataset's written_by
        let other = dir.join("other.json");
        std::fs::write(
            &other,
            br#"{"questions": [{"written_by": "qajudge refresh"}]}"#,
        )
        .expect("other");
        assert!(check_out(&other).is_err(), "the mark inside a question");
        assert_eq!(std::fs::read(&notes).expect("notes"), md);
        assert_eq!(std::fs::read(&yaml).expect("yaml"), text);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_read_only_one_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = scratch("mode");
        let out = dir.join("out.json");
        let ours = br#"{"dataset": {"written_by": "qajudge refresh"}, "questions": []}"#;
        std::fs::write(&out, ours).expect("out");
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).expect("0600");
        write_replacing(&out, ours).expect("replaced");
        let mode = std::fs::metadata(&out).expect("out").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the mode carries over: {mode:o}");
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).expect("0444");
        let e = format!("{:#}", check_out(&out).expect_err("read-only"));
        assert!(e.contains("read-only"), "{e}");
        assert!(write_replacing(&out, b"{}").is_err(), "never replaced");
        assert_eq!(std::fs::read(&out).expect("out"), ours);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn directories_links_and_special_files_are_refused_and_left_as_they_were() {
        let dir = scratch("refuse");
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).expect("sub");
        std::fs::write(sub.join("thesis.txt"), b"t").expect("thesis");
        let target = dir.join("target.json");
        std::fs::write(&target, b"target").expect("target");
        let link = dir.join("link.json");
        std::os::unix::fs::symlink(&target, &link).expect("link");
        let socket = dir.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        for (path, what) in [
            (&sub, "a directory"),
            (&link, "a symbolic link"),
            (&socket, "a special file"),
        ] {
            let e = format!("{:#}", check_out(path).expect_err("refused"));
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(e.contains(what), "{e}");
            let e = format!("{:#}", write_replacing(path, b"new").expect_err("refused"));
            assert!(e.contains(what), "{e}");
        }
        assert_eq!(std::fs::read(sub.join("thesis.txt")).expect("kept"), b"t");
        assert_eq!(std::fs::read(&target).expect("kept"), b"target");
        assert!(std::fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(
            names(&dir),
            ["link.json", "socket", "sub", "target.json"],
            "no temporary file is left"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_at_the_temporary_name_is_not_touched() {
        let dir = scratch("taken");
        let out = dir.join("out.json");
        std::fs::write(&out, b"previous").expect("out");
        let tmp = dir.join(format!(".out.json.tmp-{}", std::process::id()));
        std::fs::write(&tmp, b"someone's").expect("tmp");
        assert!(write_replacing(&out, b"new").is_err());
        assert_eq!(std::fs::read(&tmp).expect("kept"), b"someone's");
        assert_eq!(std::fs::read(&out).expect("kept"), b"previous");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
