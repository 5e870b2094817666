//! The on-disk cache of the LLM judge's verdicts (docs/scoring.md, The LLM
//! judge): one small JSON file per verdict in the cache directory, named by the
//! SHA-256 of (model, prompt version, kind, question, gold text, run text), so
//! that a second evaluation asks nothing it asked before. A file is written
//! under a temporary name and renamed into place, so a kill never leaves half
//! a verdict; symbolic links are never followed, neither as the directory nor
//! as a verdict file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::{Ask, AskKind, Verdict};

/// A cache directory that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("llm judge cache {path}: {source}; give a writable directory with --llm-cache DIR")]
pub struct CacheError {
    /// The directory.
    pub path: String,
    /// The cause.
    pub source: std::io::Error,
}

/// The default cache directory: `$XDG_CACHE_HOME/qajudge/llm-judge`, else
/// `$HOME/.cache/qajudge/llm-judge`; `None` when neither variable is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_CACHE_HOME")
        .map(|d| d.join("qajudge"))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("qajudge")))
        .map(|d| d.join("llm-judge"))
}

/// What identifies one verdict: the model, the prompt version and the ask's
/// inputs as sent.
pub fn cache_key(model: &str, prompt_version: &str, ask: &Ask) -> String {
    let mut h = crate::digest::Sha256Hasher::new();
    let kind = match ask.kind {
        AskKind::Answer => "answer",
        AskKind::Query => "query",
    };
    // each part length-prefixed, so no two inputs give one byte string
    for part in [
        model,
        prompt_version,
        kind,
        &ask.question,
        &ask.gold,
        &ask.run,
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.hex()
}

/// One verdict file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    model: String,
    prompt_version: String,
    verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    diagnostic: Option<String>,
}

/// The verdicts kept in one directory.
#[derive(Debug)]
pub struct VerdictCache {
    dir: PathBuf,
    /// Temporary names of this process, one per write.
    counter: AtomicU64,
}

impl VerdictCache {
    /// Opens (creating) the cache directory; a symbolic link or a
    /// non-directory is refused.
    pub fn open(dir: &Path) -> Result<VerdictCache, CacheError> {
        let err = |source| CacheError {
            path: dir.display().to_string(),
            source,
        };
        if let Ok(m) = std::fs::symlink_metadata(dir) {
            if m.file_type().is_symlink() || !m.is_dir() {
                return Err(err(std::io::Error::other(
                    "it is a symbolic link or not a directory, which the cache never writes through",
                )));
            }
        }
        std::fs::create_dir_all(dir).map_err(err)?;
        Ok(VerdictCache {
            dir: dir.to_path_buf(),
            counter: AtomicU64::new(0),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn file(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The verdict kept under `key` and its diagnostic, if any: a missing,
    /// unreadable or linked file is a miss.
    pub fn get(&self, key: &str) -> Option<(Verdict, Option<String>)> {
        let path = self.file(key);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.file_type().is_file() || meta.len() > 64 << 10 {
            return None;
        }
        // read at most the size checked, even if the file was swapped since
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::open(&path).ok()?, (64 << 10) + 1),
            &mut bytes,
        )
        .ok()?;
        if bytes.len() > 64 << 10 {
            return None;
        }
        let entry: Entry = serde_json::from_slice(&bytes).ok()?;
        Some((entry.verdict, entry.diagnostic))
    }

    /// Keeps a verdict under `key`: written to a temporary name, then renamed.
    pub fn put(
        &self,
        key: &str,
        model: &str,
        prompt_version: &str,
        verdict: Verdict,
        diagnostic: Option<&str>,
    ) -> std::io::Result<()> {
        let entry = Entry {
            model: model.to_string(),
            prompt_version: prompt_version.to_string(),
            verdict,
            diagnostic: diagnostic.map(str::to_string),
        };
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!(".{key}.tmp-{}-{n}", std::process::id()));
        let written = (|| {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)?;
            f.write_all(&serde_json::to_vec(&entry).map_err(std::io::Error::other)?)?;
            f.sync_all()?;
            std::fs::rename(&tmp, self.file(key))
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(run: &str) -> Ask {
        Ask {
            kind: AskKind::Answer,
            question: "q".into(),
            gold: "g".into(),
            run: run.into(),
        }
    }

    #[test]
    fn the_key_changes_with_each_input() {
        let base = cache_key("m", "v1", &ask("r"));
        assert_eq!(base, cache_key("m", "v1", &ask("r")));
        assert_eq!(base.len(), 64);
        assert_ne!(base, cache_key("m2", "v1", &ask("r")));
        assert_ne!(base, cache_key("m", "v2", &ask("r")));
        assert_ne!(base, cache_key("m", "v1", &ask("r2")));
        let mut query = ask("r");
        query.kind = AskKind::Query;
        assert_ne!(base, cache_key("m", "v1", &query));
        // parts are not glued: ("ab", "c") is not ("a", "bc")
        let glued = |g: &str, r: &str| {
            cache_key(
                "m",
                "v",
                &Ask {
                    kind: AskKind::Answer,
                    question: String::new(),
                    gold: g.into(),
                    run: r.into(),
                },
            )
        };
        assert_ne!(glued("ab", "c"), glued("a", "bc"));
    }

    /// A fresh directory of this test process.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("qajudge-llm-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_verdict_is_kept_and_read_back() {
        let dir = scratch("kept");
        let cache = VerdictCache::open(&dir.join("c")).unwrap();
        let key = cache_key("m", "v", &ask("r"));
        assert_eq!(cache.get(&key), None);
        cache.put(&key, "m", "v", Verdict::Same, None).unwrap();
        assert_eq!(cache.get(&key), Some((Verdict::Same, None)));
        // no temporary file is left behind
        let names: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_refused() {
        let dir = scratch("links");
        let real = dir.join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(VerdictCache::open(&link).is_err());
        // a verdict file that is a link is a miss
        let cache = VerdictCache::open(&real).unwrap();
        let key = cache_key("m", "v", &ask("r"));
        let target = dir.join("elsewhere.json");
        std::fs::write(
            &target,
            r#"{"model":"m","prompt_version":"v","verdict":"same"}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink(&target, real.join(format!("{key}.json"))).unwrap();
        assert_eq!(cache.get(&key), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
