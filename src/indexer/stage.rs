//! Where a build writes: a temporary directory beside the output
//! (`.NAME.tmp-PID`), renamed into place only when the index is complete, so
//! that an interrupted or failed build leaves the previous index intact; and the
//! removal of what interrupted builds left.

use std::path::{Path, PathBuf};

use super::{out_err, IndexerError};

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
        remove_stale_builds(parent, &name);
        let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
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
            .join(format!(".{}.old-{}", self.name, std::process::id()));
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

/// Removes what interrupted builds of `name` left beside it (`.NAME.tmp-PID` and
/// `.NAME.old-PID` of processes no longer running), with their spill files.
fn remove_stale_builds(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let pid = [".tmp-", ".old-"].iter().find_map(|kind| {
            file_name
                .strip_prefix(&format!(".{name}{kind}"))
                .and_then(|p| p.parse::<u32>().ok())
        });
        let Some(pid) = pid else { continue };
        let running = pid == std::process::id()
            || Path::new(&format!("/proc/{pid}")).exists()
            || !Path::new("/proc/self").exists();
        if !running {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
