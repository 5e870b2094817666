//! Where a build writes: a temporary directory beside the output
//! (`.NAME.tmp-PID`), renamed into place only when the index is complete, so
//! that an interrupted or failed build leaves the previous index intact; and the
//! removal of what interrupted builds left.

use std::path::{Path, PathBuf};

use super::{out_err, IndexerError};
use crate::index::format::BuildLeftover;

/// A build's temporary directory; dropped before [`Stage::commit`], it is removed.
pub(super) struct Stage {
    out: PathBuf,
    parent: PathBuf,
    name: String,
    tmp: PathBuf,
}

impl Stage {
    /// Makes the temporary directory beside `out`, first removing what
    /// interrupted builds of `out` left.
    pub(super) fn begin(out: &Path) -> Result<Stage, IndexerError> {
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| out_err(parent, e))?;
        let name = out
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "index".into());
        remove_stale_builds(out);
        let tmp = parent.join(BuildLeftover::Temporary(std::process::id()).file_name(&name));
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(|e| out_err(&tmp, e))?;
        }
        std::fs::create_dir_all(&tmp).map_err(|e| out_err(&tmp, e))?;
        Ok(Stage {
            out: out.to_path_buf(),
            parent: parent.to_path_buf(),
            name,
            tmp,
        })
    }

    /// The temporary directory.
    pub(super) fn dir(&self) -> &Path {
        &self.tmp
    }

    /// Swaps the finished index into place: the previous index stays whole until
    /// the rename, and comes back if the rename fails.
    pub(super) fn commit(self) -> Result<(), IndexerError> {
        let (out, tmp) = (&self.out, &self.tmp);
        let old = self
            .parent
            .join(BuildLeftover::SetAside(std::process::id()).file_name(&self.name));
        if out.exists() {
            std::fs::rename(out, &old).map_err(|e| out_err(out, e))?;
        }
        if let Err(e) = std::fs::rename(tmp, out) {
            if old.exists() {
                let _ = std::fs::rename(&old, out);
            }
            return Err(out_err(out, e));
        }
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(|e| out_err(&old, e))?;
        }
        Ok(())
    }
}

impl Drop for Stage {
    /// A build that fails removes its temporary directory; one that is killed
    /// leaves it to the next build of the same output.
    fn drop(&mut self) {
        if self.tmp.exists() {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Puts back the previous index when a build was killed between its two
/// renames, then removes what interrupted builds of `out` left beside it
/// (temporary directories with their spill files, set-aside old indexes).
fn remove_stale_builds(out: &Path) {
    crate::index::restore_set_aside(out);
    for (path, _) in crate::index::dead_build_leftovers(out) {
        let _ = std::fs::remove_dir_all(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A process id no process has (above Linux's pid_max).
    const DEAD: u32 = 4_294_967_290;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qajudge-stage-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn a_build_killed_between_its_renames_gets_the_old_index_back() {
        let dir = scratch("between");
        let out = dir.join("idx");
        let aside = dir.join(BuildLeftover::SetAside(DEAD).file_name("idx"));
        std::fs::create_dir_all(&aside).expect("set-aside dir");
        std::fs::write(aside.join("meta.json"), b"old").expect("old meta");
        let tmp = dir.join(BuildLeftover::Temporary(DEAD).file_name("idx"));
        std::fs::create_dir_all(&tmp).expect("tmp dir");

        let stage = Stage::begin(&out).expect("begin");
        assert_eq!(
            std::fs::read(out.join("meta.json")).expect("restored"),
            b"old"
        );
        assert!(!aside.exists() && !tmp.exists(), "leftovers are gone");
        drop(stage);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_set_aside_index_is_removed_when_the_new_one_is_in_place() {
        let dir = scratch("after");
        let out = dir.join("idx");
        std::fs::create_dir_all(&out).expect("new index");
        std::fs::write(out.join("meta.json"), b"new").expect("new meta");
        let aside = dir.join(BuildLeftover::SetAside(DEAD).file_name("idx"));
        std::fs::create_dir_all(&aside).expect("set-aside dir");

        let stage = Stage::begin(&out).expect("begin");
        assert_eq!(std::fs::read(out.join("meta.json")).expect("kept"), b"new");
        assert!(!aside.exists(), "the old index is removed");
        std::fs::write(stage.dir().join("meta.json"), b"newer").expect("stage meta");
        stage.commit().expect("commit");
        assert_eq!(
            std::fs::read(out.join("meta.json")).expect("swapped"),
            b"newer"
        );
        assert_eq!(
            std::fs::read_dir(&dir).expect("dir").count(),
            1,
            "nothing beside it"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
