//! The on-disk cache of live systems' answers: one JSON line per successful
//! call, keyed by (protocol, system URL, dataset, language, question text), so
//! that a run that was interrupted asks again only the questions it has no answer
//! for. Lines are appended and flushed one by one; a line cut short by a kill is
//! skipped when the cache is read again.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The file of the cache inside its directory.
pub const CACHE_FILE: &str = "live-answers.jsonl";

/// What identifies one call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CacheKey {
    /// `gerbil` or `text2sparql`.
    pub protocol: String,
    /// The system URL as given.
    pub system: String,
    /// The dataset id sent (or the gold benchmark's id).
    pub dataset: String,
    /// The language of the question text.
    pub lang: String,
    /// The question text sent.
    pub question: String,
}

/// One cached answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Line {
    #[serde(flatten)]
    key: CacheKey,
    /// The body the system answered.
    body: String,
    /// The runtime of the call in milliseconds.
    ms: f64,
}

/// The cache, read once and appended to.
#[derive(Debug)]
pub struct AnswerCache {
    path: PathBuf,
    entries: HashMap<CacheKey, (String, f64)>,
    file: Mutex<File>,
    /// Lines that could not be read (cut short by a kill).
    pub skipped: usize,
}

/// A cache that cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error(
    "answer cache {path}: {source}; give a writable directory with --cache DIR or leave it out"
)]
pub struct CacheError {
    /// The cache file.
    pub path: String,
    /// The cause.
    pub source: std::io::Error,
}

impl AnswerCache {
    /// Opens (creating) the cache in `dir`.
    pub fn open(dir: &Path) -> Result<AnswerCache, CacheError> {
        let path = dir.join(CACHE_FILE);
        let err = |source| CacheError {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(err)?;
        // never written through a symbolic link (it could point at any file
        // the user can write), nor into anything but a regular file
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.file_type().is_file() => {
                let what = if m.file_type().is_symlink() {
                    "a symbolic link"
                } else {
                    "not a regular file"
                };
                return Err(err(std::io::Error::other(format!(
                    "it is {what}, which the cache never writes through"
                ))));
            }
            _ => {}
        }
        let mut entries = HashMap::new();
        let mut skipped = 0;
        if path.exists() {
            let reader = BufReader::new(File::open(&path).map_err(err)?);
            for line in reader.split(b'\n') {
                let line = line.map_err(err)?;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<Line>(&line) {
                    Ok(l) => {
                        entries.insert(l.key, (l.body, l.ms));
                    }
                    Err(_) => skipped += 1,
                }
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(err)?;
        // a line cut short by a kill must not glue onto the next one
        if std::fs::metadata(&path).map_err(err)?.len() > 0 {
            file.write_all(b"\n").map_err(err)?;
        }
        Ok(AnswerCache {
            path,
            entries,
            file: Mutex::new(file),
            skipped,
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many answers the cache holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the cache holds no answer.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The cached body and runtime of a call.
    pub fn get(&self, key: &CacheKey) -> Option<(&str, f64)> {
        self.entries.get(key).map(|(b, ms)| (b.as_str(), *ms))
    }

    /// Appends an answer and flushes it to disk.
    pub fn put(&self, key: CacheKey, body: &str, ms: f64) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(&Line {
            key,
            body: body.to_string(),
            ms,
        })
        .map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("cache lock poisoned"))?;
        file.write_all(&line)?;
        file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("qajudge-cache-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn key(q: &str) -> CacheKey {
        CacheKey {
            protocol: "text2sparql".into(),
            system: "http://127.0.0.1:1/t".into(),
            dataset: "https://e.org/ds/".into(),
            lang: "en".into(),
            question: q.into(),
        }
    }

    #[test]
    fn answers_survive_reopening_and_a_cut_line() {
        let dir = scratch("reopen");
        let cache = AnswerCache::open(&dir).unwrap();
        assert!(cache.is_empty());
        cache
            .put(key("Who?"), r#"{"query":"ASK {}"}"#, 12.5)
            .unwrap();
        drop(cache);
        // a kill in the middle of a line
        let path = dir.join(CACHE_FILE);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"protocol":"text2sparql","sys"#).unwrap();
        drop(f);
        let cache = AnswerCache::open(&dir).unwrap();
        assert_eq!(cache.skipped, 1);
        assert_eq!(
            cache.get(&key("Who?")),
            Some((r#"{"query":"ASK {}"}"#, 12.5))
        );
        assert_eq!(cache.get(&key("What?")), None);
        cache.put(key("What?"), "{}", 1.0).unwrap();
        drop(cache);
        let cache = AnswerCache::open(&dir).unwrap();
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.skipped, 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_file_that_is_a_link_is_refused() {
        let dir = scratch("symlink");
        let target = dir.join("elsewhere.txt");
        std::fs::write(&target, "someone's file\n").unwrap();
        std::os::unix::fs::symlink(&target, dir.join(CACHE_FILE)).unwrap();
        let e = AnswerCache::open(&dir).unwrap_err().to_string();
        assert!(e.contains("a symbolic link"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "someone's file\n"
        );
    }

    #[test]
    fn an_unwritable_directory_names_the_path() {
        let dir = scratch("unwritable");
        let file = dir.join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let err = AnswerCache::open(&file).unwrap_err();
        assert!(err.to_string().contains("plain-file"), "{err}");
    }
}
