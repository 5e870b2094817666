//! The on-disk cache of the LLM judge's verdicts (docs/scoring.md, The LLM
//! judge): one small JSON file per verdict in the cache directory, named by the
//! SHA-256 of (judge URL, model, prompt version, kind, question, gold text, run
//! text), so that a second evaluation asks nothing it asked before, and never
//! answers for another judge: the file also holds the judge's identity (URL,
//! model, prompt version, kind), checked when it is read, so that a file put
//! there by hand under another identity is a miss. It keeps the verdict and
//! the model's reply as it came (for an audit of the cache), never a text that
//! reaches a report. A file is written
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
#[error("llm judge cache {path}: {cause}; give a writable directory with --llm-cache DIR")]
pub struct CacheError {
    /// The directory.
    pub path: String,
    /// The cause, said in the message (not a source of the error's chain,
    /// which would say it again).
    pub cause: std::io::Error,
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

/// Who gave a verdict: the judge server (its URL's scheme, host, port and
/// path), the model and the prompt version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity<'a> {
    /// The judge server (`http://127.0.0.1:11434/v1/chat/completions`).
    pub judge: &'a str,
    /// The model.
    pub model: &'a str,
    /// The prompt version.
    pub prompt_version: &'a str,
}

/// The name of an ask's kind in keys and files.
fn kind_name(kind: AskKind) -> &'static str {
    match kind {
        AskKind::Answer => "answer",
        AskKind::Query => "query",
        AskKind::AnswerCheck => "answer-check",
        AskKind::QueryCheck => "query-check",
    }
}

/// What identifies one verdict: the judge, the model, the prompt version and
/// the ask's inputs as sent.
pub fn cache_key(identity: Identity<'_>, ask: &Ask) -> String {
    let mut h = crate::digest::Sha256Hasher::new();
    // each part length-prefixed, so no two inputs give one byte string
    for part in [
        identity.judge,
        identity.model,
        identity.prompt_version,
        kind_name(ask.kind),
        &ask.question,
        &ask.gold,
        &ask.run,
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.hex()
}

/// The first ancestor of `dir` (from the root down) that is a symbolic link,
/// and the real path `dir` would be under, if one is.
fn linked_ancestor(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let absolute = std::path::absolute(dir).ok()?;
    let mut walked = PathBuf::new();
    for part in absolute.parent()?.components() {
        walked.push(part);
        let Ok(meta) = std::fs::symlink_metadata(&walked) else {
            // the rest does not exist yet: the cache creates it
            return None;
        };
        if meta.file_type().is_symlink() {
            let real = std::fs::canonicalize(&walked).ok()?;
            let rest = absolute.strip_prefix(&walked).ok()?;
            return Some((walked, real.join(rest)));
        }
    }
    None
}

/// The most characters of a reply a verdict file keeps.
const MAX_REPLY_CHARS: usize = 1_000;

/// One verdict file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    judge: String,
    model: String,
    prompt_version: String,
    kind: String,
    verdict: Verdict,
    /// The model's reply as it came (cut), for an audit; never reported.
    #[serde(default)]
    reply: String,
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
    /// non-directory is refused, and so is a directory under a symbolic
    /// link (the error names the link and the real path to give instead).
    pub fn open(dir: &Path) -> Result<VerdictCache, CacheError> {
        let err = |cause| CacheError {
            path: dir.display().to_string(),
            cause,
        };
        if let Ok(m) = std::fs::symlink_metadata(dir) {
            if m.file_type().is_symlink() || !m.is_dir() {
                return Err(err(std::io::Error::other(
                    "it is a symbolic link or not a directory, which the cache never writes through",
                )));
            }
        }
        if let Some((link, real)) = linked_ancestor(dir) {
            return Err(err(std::io::Error::other(format!(
                "{} above it is a symbolic link, which the cache never writes through; give the real directory, {}",
                link.display(),
                real.display()
            ))));
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

    /// The verdict kept under `key` by the judge `identity` for an ask of
    /// `kind`: a missing, unreadable or linked file, or one that names
    /// another judge, model, prompt version or kind, is a miss.
    pub fn get(&self, key: &str, identity: Identity<'_>, kind: AskKind) -> Option<Verdict> {
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
        let same = entry.judge == identity.judge
            && entry.model == identity.model
            && entry.prompt_version == identity.prompt_version
            && entry.kind == kind_name(kind);
        same.then_some(entry.verdict)
    }

    /// Keeps a verdict of `identity` on an ask of `kind` under `key`, with
    /// the reply it was read from: written to a temporary name, then renamed
    /// over any verdict kept there before.
    pub fn put(
        &self,
        key: &str,
        identity: Identity<'_>,
        kind: AskKind,
        verdict: Verdict,
        reply: &str,
    ) -> std::io::Result<()> {
        let entry = Entry {
            judge: identity.judge.to_string(),
            model: identity.model.to_string(),
            prompt_version: identity.prompt_version.to_string(),
            kind: kind_name(kind).to_string(),
            verdict,
            reply: super::prompt::cut(reply, MAX_REPLY_CHARS),
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

    const ID: Identity<'static> = Identity {
        judge: "http://127.0.0.1:9/v1/chat/completions",
        model: "m",
        prompt_version: "v1",
    };

    #[test]
    fn the_key_changes_with_each_input() {
        let base = cache_key(ID, &ask("r"));
        assert_eq!(base, cache_key(ID, &ask("r")));
        assert_eq!(base.len(), 64);
        let judge = Identity {
            judge: "http://127.0.0.1:10/v1/chat/completions",
            ..ID
        };
        assert_ne!(base, cache_key(judge, &ask("r")));
        assert_ne!(base, cache_key(Identity { model: "m2", ..ID }, &ask("r")));
        assert_ne!(
            base,
            cache_key(
                Identity {
                    prompt_version: "v2",
                    ..ID
                },
                &ask("r")
            )
        );
        assert_ne!(base, cache_key(ID, &ask("r2")));
        let mut query = ask("r");
        query.kind = AskKind::Query;
        assert_ne!(base, cache_key(ID, &query));
        // parts are not glued: ("ab", "c") is not ("a", "bc")
        let glued = |g: &str, r: &str| {
            cache_key(
                ID,
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
    fn a_verdict_is_kept_and_read_back_by_its_judge_only() {
        let dir = scratch("kept");
        let cache = VerdictCache::open(&dir.join("c")).unwrap();
        let key = cache_key(ID, &ask("r"));
        assert_eq!(cache.get(&key, ID, AskKind::Answer), None);
        cache
            .put(&key, ID, AskKind::Answer, Verdict::Same, "Yes.")
            .unwrap();
        assert_eq!(cache.get(&key, ID, AskKind::Answer), Some(Verdict::Same));
        // the file keeps the reply; another identity under the same key misses
        let text = std::fs::read_to_string(cache.path().join(format!("{key}.json"))).unwrap();
        assert!(text.contains("\"reply\":\"Yes.\""), "{text}");
        assert_eq!(
            cache.get(&key, Identity { model: "x", ..ID }, AskKind::Answer),
            None
        );
        assert_eq!(cache.get(&key, ID, AskKind::Query), None);
        // a file planted under the key by another judge is a miss
        std::fs::write(
            cache.path().join(format!("{key}.json")),
            r#"{"judge":"http://evil/","model":"m","prompt_version":"v1","kind":"answer","verdict":"same"}"#,
        )
        .unwrap();
        assert_eq!(cache.get(&key, ID, AskKind::Answer), None);
        // an entry of the earlier shape (no judge) is a miss too
        std::fs::write(
            cache.path().join(format!("{key}.json")),
            r#"{"model":"m","prompt_version":"v1","verdict":"same","diagnostic":"planted"}"#,
        )
        .unwrap();
        assert_eq!(cache.get(&key, ID, AskKind::Answer), None);
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
        // refused, its reason said once in the whole chain
        let e = anyhow::Error::from(VerdictCache::open(&link).expect_err("a link"));
        let text = format!("{e:#}");
        assert_eq!(text.matches("symbolic link").count(), 1, "{text}");
        // a verdict file that is a link is a miss
        let cache = VerdictCache::open(&real).unwrap();
        let key = cache_key(ID, &ask("r"));
        let target = dir.join("elsewhere.json");
        std::fs::write(
            &target,
            r#"{"judge":"http://127.0.0.1:9/v1/chat/completions","model":"m","prompt_version":"v1","kind":"answer","verdict":"same"}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink(&target, real.join(format!("{key}.json"))).unwrap();
        assert_eq!(cache.get(&key, ID, AskKind::Answer), None);
        // a cache under a linked directory is refused, naming the real path
        let e = VerdictCache::open(&link.join("cache")).expect_err("under a link");
        let text = e.to_string();
        assert!(text.contains("above it is a symbolic link"), "{text}");
        assert!(
            text.contains(&real.join("cache").display().to_string()),
            "{text}"
        );
        assert!(!link.join("cache").exists() && !real.join("cache").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
