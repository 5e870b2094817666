//! Where a build writes: a temporary directory beside the output
//! (`.NAME.tmp-PID`), renamed into place only when the output is complete, so
//! that an interrupted or failed build leaves the previous one intact; and the
//! removal of what interrupted builds left.
//!
//! A build replaces only what it may: nothing (an absent path), an empty
//! directory, or an output of the same kind qajudge wrote (a directory whose
//! `meta.json`, or `manifest.json` for an export, says so). Anything else at the
//! output path — a file, a symbolic link, a FIFO or device, a directory of other
//! files — is an [`IndexerError::Occupied`] error, found before any work is done
//! and checked again just before the rename. Links are never followed.

use std::path::{Path, PathBuf};

use super::{out_err, IndexerError};
use crate::index::format::{BuildLeftover, BuildOutput};

/// What is at an output path that a build does not replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// A regular file.
    File,
    /// A symbolic link (whatever it points to: links are not followed).
    Link,
    /// A FIFO, device, socket or other special file.
    Special,
    /// A directory holding files, without the marker of the output asked for.
    Foreign(BuildOutput),
    /// A directory holding the other kind of qajudge output (an export where
    /// an index is asked for, or the reverse).
    Other(BuildOutput),
    /// A path that names no entry of its own (`.`, `..`, `/`).
    Unnamed,
}

impl std::fmt::Display for Occupant {
    /// Why the path is not replaced, as the error message says it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Occupant::File => f.write_str("it is a file, not a directory"),
            Occupant::Link => {
                f.write_str("it is a symbolic link, which qajudge does not write through")
            }
            Occupant::Special => f.write_str("it is a special file (a FIFO, device or socket)"),
            Occupant::Foreign(kind) => write!(
                f,
                "the directory holds files that are not a qajudge {kind} (no {} with {})",
                kind.marker(),
                kind.version_field()
            ),
            Occupant::Other(kind) => write!(f, "the directory holds a qajudge {kind}"),
            Occupant::Unnamed => f.write_str("the path names no directory of its own"),
        }
    }
}

/// What is at an output path that a build may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replaceable {
    /// Nothing.
    Absent,
    /// An empty directory.
    Empty,
    /// An output of the kind being built, written by qajudge.
    Ours,
}

fn occupied(path: &Path, output: BuildOutput, occupant: Occupant) -> IndexerError {
    IndexerError::Occupied {
        path: path.display().to_string(),
        output,
        occupant,
    }
}

/// What is at `out`, if a build of `kind` may replace it; otherwise the error
/// that says what is there. Does not follow a link at `out`.
fn inspect(out: &Path, kind: BuildOutput) -> Result<Replaceable, IndexerError> {
    let meta = match std::fs::symlink_metadata(out) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Replaceable::Absent),
        Err(e) => return Err(out_err(out, e)),
    };
    let file_type = meta.file_type();
    let occupant = if file_type.is_symlink() {
        Occupant::Link
    } else if file_type.is_file() {
        Occupant::File
    } else if !file_type.is_dir() {
        Occupant::Special
    } else if std::fs::read_dir(out)
        .map_err(|e| out_err(out, e))?
        .next()
        .is_none()
    {
        return Ok(Replaceable::Empty);
    } else {
        match crate::index::build_output_at(out) {
            Some(found) if found == kind => return Ok(Replaceable::Ours),
            Some(found) => Occupant::Other(found),
            None => Occupant::Foreign(kind),
        }
    };
    Err(occupied(out, kind, occupant))
}

/// A build's temporary directory; dropped before [`Stage::commit`], it is removed.
#[derive(Debug)]
pub(super) struct Stage {
    out: PathBuf,
    kind: BuildOutput,
    parent: PathBuf,
    name: String,
    tmp: PathBuf,
}

impl Stage {
    /// Checks that a build of `kind` may replace what is at `out` (see the
    /// module), then makes the temporary directory beside it, first removing
    /// what interrupted builds of `out` left.
    pub(super) fn begin(out: &Path, kind: BuildOutput) -> Result<Stage, IndexerError> {
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| occupied(out, kind, Occupant::Unnamed))?;
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // a build killed between its two renames left the previous output
        // aside: it is put back before what is at `out` is looked at
        crate::index::restore_set_aside(out);
        inspect(out, kind)?;
        std::fs::create_dir_all(parent).map_err(|e| out_err(parent, e))?;
        remove_stale_builds(out);
        let tmp = parent.join(BuildLeftover::Temporary(std::process::id()).file_name(&name));
        match std::fs::symlink_metadata(&tmp) {
            // this process made none yet: a build of an earlier process with
            // the same id left it
            Ok(meta) if meta.is_dir() => {
                std::fs::remove_dir_all(&tmp).map_err(|e| out_err(&tmp, e))?;
            }
            // a file, link or special file someone gave the temporary name
            Ok(_) => return Err(occupied(&tmp, kind, occupant_of(&tmp))),
            Err(_) => {}
        }
        // `create_dir`, not `create_dir_all`: it fails if anything took the name
        std::fs::create_dir(&tmp).map_err(|e| out_err(&tmp, e))?;
        Ok(Stage {
            out: out.to_path_buf(),
            kind,
            parent: parent.to_path_buf(),
            name,
            tmp,
        })
    }

    /// The temporary directory.
    pub(super) fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Puts the finished output into place, after checking again that what is
    /// at the output path may be replaced (it may have changed during the
    /// build). An empty directory is replaced by the rename itself, which fails
    /// if anything was put into it meanwhile; a previous output stays whole until
    /// the rename, comes back if the rename fails, and is removed after it.
    pub(super) fn commit(self) -> Result<(), IndexerError> {
        let (out, tmp) = (&self.out, &self.tmp);
        match inspect(out, self.kind)? {
            Replaceable::Absent | Replaceable::Empty => {
                std::fs::rename(tmp, out).map_err(|e| out_err(out, e))
            }
            Replaceable::Ours => {
                let old = self
                    .parent
                    .join(BuildLeftover::SetAside(std::process::id()).file_name(&self.name));
                std::fs::rename(out, &old).map_err(|e| out_err(out, e))?;
                if let Err(e) = std::fs::rename(tmp, out) {
                    let _ = std::fs::rename(&old, out);
                    return Err(out_err(out, e));
                }
                remove_output(&old).map_err(|e| out_err(&old, e))
            }
        }
    }
}

impl Drop for Stage {
    /// A build that fails removes its temporary directory; one that is killed
    /// leaves it to the next build of the same output.
    fn drop(&mut self) {
        if std::fs::symlink_metadata(&self.tmp).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// What kind of non-directory `path` is (for the error about it).
fn occupant_of(path: &Path) -> Occupant {
    match std::fs::symlink_metadata(path).map(|m| m.file_type()) {
        Ok(t) if t.is_symlink() => Occupant::Link,
        Ok(t) if t.is_file() => Occupant::File,
        _ => Occupant::Special,
    }
}

/// Removes an output a build set aside: everything but its marker files
/// first, then the markers, then the directory, so that a removal cut short
/// leaves a directory [`crate::index::dead_build_leftovers`] still recognises
/// and the next build removes. Links inside are removed, never followed.
fn remove_output(dir: &Path) -> std::io::Result<()> {
    let mut markers = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let file_type = entry.file_type()?;
        let is_marker = BuildOutput::ALL
            .iter()
            .any(|kind| entry.file_name() == kind.marker());
        if is_marker && file_type.is_file() {
            markers.push(path);
        } else if file_type.is_dir() {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
    }
    for marker in markers {
        std::fs::remove_file(marker)?;
    }
    std::fs::remove_dir(dir)
}

/// Removes what interrupted builds of `out` left beside it: temporary
/// directories with their spill files, and set-aside previous outputs (see
/// [`crate::index::dead_build_leftovers`] for what is taken for one).
fn remove_stale_builds(out: &Path) {
    for (path, leftover) in crate::index::dead_build_leftovers(out) {
        let _ = match leftover {
            BuildLeftover::Temporary(_) => std::fs::remove_dir_all(path),
            BuildLeftover::SetAside(_) => remove_output(&path),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process id no process has (above Linux's pid_max).
    const DEAD: u32 = 4_294_967_290;

    const META: &[u8] = br#"{"format_version": 4}"#;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qajudge-stage-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    /// An index directory as far as a stage can tell: `meta.json` with `meta`.
    fn index_at(dir: &Path, meta: &[u8]) {
        std::fs::create_dir_all(dir).expect("index dir");
        std::fs::write(dir.join("meta.json"), meta).expect("meta");
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

    fn occupant(result: Result<Stage, IndexerError>) -> Occupant {
        match result {
            Err(IndexerError::Occupied { occupant, .. }) => occupant,
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("the stage began"),
        }
    }

    #[test]
    fn a_build_killed_between_its_renames_gets_the_old_index_back() {
        let dir = scratch("between");
        let out = dir.join("idx");
        let aside = dir.join(BuildLeftover::SetAside(DEAD).file_name("idx"));
        index_at(&aside, br#"{"format_version": 3, "old": true}"#);
        let tmp = dir.join(BuildLeftover::Temporary(DEAD).file_name("idx"));
        std::fs::create_dir_all(&tmp).expect("tmp dir");

        let stage = Stage::begin(&out, BuildOutput::Index).expect("begin");
        assert_eq!(
            std::fs::read(out.join("meta.json")).expect("restored"),
            br#"{"format_version": 3, "old": true}"#
        );
        assert!(!aside.exists() && !tmp.exists(), "leftovers are gone");
        drop(stage);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_set_aside_index_is_removed_when_the_new_one_is_in_place() {
        let dir = scratch("after");
        let out = dir.join("idx");
        index_at(&out, br#"{"format_version": 4, "new": true}"#);
        let aside = dir.join(BuildLeftover::SetAside(DEAD).file_name("idx"));
        index_at(&aside, META);
        std::fs::create_dir_all(aside.join("kv")).expect("kv");
        std::fs::write(aside.join("kv/CURRENT"), b"x").expect("kv file");
        // a set-aside index whose removal was cut short before its last step
        let emptied = dir.join(BuildLeftover::SetAside(DEAD - 1).file_name("idx"));
        std::fs::create_dir_all(&emptied).expect("emptied");

        let stage = Stage::begin(&out, BuildOutput::Index).expect("begin");
        assert_eq!(
            std::fs::read(out.join("meta.json")).expect("kept"),
            br#"{"format_version": 4, "new": true}"#
        );
        assert!(!aside.exists(), "the old index is removed");
        assert!(!emptied.exists(), "the emptied one too");
        std::fs::write(
            stage.dir().join("meta.json"),
            b"{\"format_version\": 4, \"newer\": 1}",
        )
        .expect("stage meta");
        stage.commit().expect("commit");
        assert_eq!(
            std::fs::read(out.join("meta.json")).expect("swapped"),
            b"{\"format_version\": 4, \"newer\": 1}"
        );
        assert_eq!(names(&dir), ["idx"], "nothing beside it");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_of_other_files_is_refused_and_left_as_it_was() {
        let dir = scratch("foreign");
        let out = dir.join("docs");
        std::fs::create_dir_all(&out).expect("docs");
        std::fs::write(out.join("thesis.txt"), b"x").expect("thesis");
        let e = Stage::begin(&out, BuildOutput::Index).expect_err("refused");
        let message = e.to_string();
        assert!(message.starts_with(&out.display().to_string()), "{message}");
        assert!(
            message.contains("not a qajudge index (no meta.json"),
            "{message}"
        );
        assert!(
            message.contains("give an empty or new directory"),
            "{message}"
        );
        // a meta.json that is not an index's does not make it one
        std::fs::write(out.join("meta.json"), b"{\"title\": \"thesis\"}").expect("meta");
        assert_eq!(
            occupant(Stage::begin(&out, BuildOutput::Index)),
            Occupant::Foreign(BuildOutput::Index)
        );
        assert_eq!(std::fs::read(out.join("thesis.txt")).expect("kept"), b"x");
        assert_eq!(names(&dir), ["docs"], "no temporary directory is left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn files_links_and_special_files_are_refused_and_left_as_they_were() {
        let dir = scratch("kinds");
        let file = dir.join("file");
        std::fs::write(&file, b"content").expect("file");
        assert_eq!(
            occupant(Stage::begin(&file, BuildOutput::Index)),
            Occupant::File
        );
        assert_eq!(std::fs::read(&file).expect("kept"), b"content");

        let target = dir.join("target");
        index_at(&target, META);
        let link = dir.join("link");
        std::os::unix::fs::symlink(&target, &link).expect("link");
        assert_eq!(
            occupant(Stage::begin(&link, BuildOutput::Index)),
            Occupant::Link,
            "a link is refused even to an index"
        );
        assert!(std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink());
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).expect("dangling link");
        assert_eq!(
            occupant(Stage::begin(&dangling, BuildOutput::Index)),
            Occupant::Link
        );

        // a Unix socket is a special file any user can make
        let socket = dir.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("socket");
        assert_eq!(
            occupant(Stage::begin(&socket, BuildOutput::Index)),
            Occupant::Special
        );

        for unnamed in [Path::new("."), Path::new(".."), Path::new("/")] {
            assert_eq!(
                occupant(Stage::begin(unnamed, BuildOutput::Index)),
                Occupant::Unnamed
            );
        }
        assert_eq!(
            names(&dir),
            ["dangling", "file", "link", "socket", "target"],
            "nothing was added or removed"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_index_and_an_export_do_not_replace_each_other() {
        let dir = scratch("kinds-of-output");
        let index = dir.join("idx");
        index_at(&index, META);
        let export = dir.join("links");
        std::fs::create_dir_all(&export).expect("export");
        std::fs::write(export.join("manifest.json"), b"{\"export_version\": 1}").expect("manifest");
        assert_eq!(
            occupant(Stage::begin(&export, BuildOutput::Index)),
            Occupant::Other(BuildOutput::Export)
        );
        assert_eq!(
            occupant(Stage::begin(&index, BuildOutput::Export)),
            Occupant::Other(BuildOutput::Index)
        );
        let stage = Stage::begin(&export, BuildOutput::Export).expect("an export over an export");
        std::fs::write(
            stage.dir().join("manifest.json"),
            b"{\"export_version\": 1}",
        )
        .expect("new manifest");
        stage.commit().expect("commit");
        assert_eq!(names(&dir), ["idx", "links"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_empty_directory_is_replaced_and_an_absent_path_made() {
        let dir = scratch("empty");
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).expect("empty");
        let stage = Stage::begin(&empty, BuildOutput::Index).expect("begin");
        std::fs::write(stage.dir().join("meta.json"), META).expect("meta");
        stage.commit().expect("commit");
        assert_eq!(std::fs::read(empty.join("meta.json")).expect("built"), META);

        let absent = dir.join("new/idx");
        let stage = Stage::begin(&absent, BuildOutput::Index).expect("begin");
        std::fs::write(stage.dir().join("meta.json"), META).expect("meta");
        stage.commit().expect("commit");
        assert_eq!(
            std::fs::read(absent.join("meta.json")).expect("built"),
            META
        );
        assert_eq!(names(&dir), ["empty", "new"]);
        assert_eq!(names(&dir.join("new")), ["idx"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_output_is_checked_again_before_the_rename() {
        let dir = scratch("changed");
        let out = dir.join("out");
        let stage = Stage::begin(&out, BuildOutput::Index).expect("begin");
        std::fs::write(stage.dir().join("meta.json"), META).expect("meta");
        // during the build, someone puts their files at the output path
        std::fs::create_dir_all(&out).expect("out");
        std::fs::write(out.join("notes.txt"), b"mine").expect("notes");
        let e = stage.commit().expect_err("refused");
        assert!(
            matches!(
                e,
                IndexerError::Occupied {
                    occupant: Occupant::Foreign(BuildOutput::Index),
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(std::fs::read(out.join("notes.txt")).expect("kept"), b"mine");
        assert_eq!(names(&dir), ["out"], "the temporary directory is removed");

        // or a file
        std::fs::remove_dir_all(&out).expect("clear");
        let stage = Stage::begin(&out, BuildOutput::Index).expect("begin");
        std::fs::write(&out, b"a file").expect("file");
        assert!(stage.commit().is_err());
        assert_eq!(std::fs::read(&out).expect("kept"), b"a file");
        assert_eq!(names(&dir), ["out"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn leftover_names_on_files_links_and_foreign_directories_are_not_removed() {
        let dir = scratch("not-leftovers");
        let out = dir.join("idx");
        let tmp_file = dir.join(BuildLeftover::Temporary(DEAD).file_name("idx"));
        std::fs::write(&tmp_file, b"a file").expect("file");
        let target = dir.join("target");
        std::fs::create_dir_all(&target).expect("target");
        std::fs::write(target.join("keep"), b"k").expect("keep");
        let old_link = dir.join(BuildLeftover::SetAside(DEAD).file_name("idx"));
        std::os::unix::fs::symlink(&target, &old_link).expect("link");
        let old_foreign = dir.join(BuildLeftover::SetAside(DEAD - 1).file_name("idx"));
        std::fs::create_dir_all(&old_foreign).expect("foreign");
        std::fs::write(old_foreign.join("thesis.txt"), b"t").expect("thesis");

        let stage = Stage::begin(&out, BuildOutput::Index).expect("begin");
        drop(stage);
        assert!(!out.exists(), "nothing was put back");
        assert_eq!(std::fs::read(&tmp_file).expect("kept"), b"a file");
        assert!(std::fs::symlink_metadata(&old_link).is_ok_and(|m| m.file_type().is_symlink()));
        assert_eq!(std::fs::read(target.join("keep")).expect("kept"), b"k");
        assert_eq!(
            std::fs::read(old_foreign.join("thesis.txt")).expect("kept"),
            b"t"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
