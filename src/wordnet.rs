//! A WordNet 3.0 dictionary read as NLTK's `WordNetCorpusReader` reads it,
//! for the synonyms METEOR's third stage matches (docs/scoring.md, The
//! `t2s-metrics` profile): the lemma index (`index.noun|verb|adj|adv`), the
//! exception lists (`*.exc`) and the synsets' lemma names read from the data
//! files (`data.*`) at the offsets the index gives. [`WordNet::find`] looks
//! where NLTK and Debian keep it; [`WordNet::open`] reads one directory, every
//! file bounded in size, a malformed index line a located error. Nothing else
//! of WordNet (pointers, glosses, frames) is read.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The parts of speech in the order NLTK's `synsets` visits them (`POS_LIST`)
/// and the suffix of their files.
const POS: [(char, &str); 4] = [('n', "noun"), ('v', "verb"), ('a', "adj"), ('r', "adv")];

/// The most bytes of a data file (WordNet 3.0's largest, `data.noun`, has
/// 15 MB).
pub const MAX_DATA_BYTES: u64 = 64 << 20;
/// The most bytes of an index file (`index.noun` has 4.8 MB).
pub const MAX_INDEX_BYTES: u64 = 16 << 20;
/// The most bytes of an exception list (`noun.exc` has 38 KB).
pub const MAX_EXCEPTION_BYTES: u64 = 2 << 20;

/// NLTK's `MORPHOLOGICAL_SUBSTITUTIONS`, per part of speech in [`POS`] order:
/// the endings `_morphy` replaces, each tried once on the word.
const SUBSTITUTIONS: [&[(&str, &str)]; 4] = [
    &[
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    &[
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ],
    &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    &[],
];

/// Why a WordNet dictionary could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WordNetError {
    /// A file of the dictionary could not be read.
    #[error("cannot read the wordnet file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A file is larger than its bound ([`MAX_DATA_BYTES`],
    /// [`MAX_INDEX_BYTES`], [`MAX_EXCEPTION_BYTES`]).
    #[error("the wordnet file {path} has more than {max} bytes: it is not a WordNet 3.0 dictionary file")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The bound, in bytes.
        max: u64,
    },
    /// A file is not UTF-8, or not a regular file.
    #[error("the wordnet file {path} is not {what}")]
    NotText {
        /// The file.
        path: PathBuf,
        /// What it should be.
        what: &'static str,
    },
    /// A data file does not hold the synset an index line points to (a
    /// dictionary whose files were changed, such as given CRLF line ends).
    #[error("the wordnet file {path} has no synset at byte {offset}, where the index puts {lemma:?}: the dictionary's files do not belong together (CRLF line ends?); use an unmodified WordNet 3.0 dictionary")]
    Mismatch {
        /// The data file.
        path: PathBuf,
        /// The offset.
        offset: u64,
        /// The lemma whose index line gives it.
        lemma: String,
    },
    /// An index line NLTK would refuse.
    #[error("{path}, line {line}: {what} (a WordNet 3.0 index line is `lemma pos n_synsets n_pointers pointers… n_senses n_tagged offsets…`)")]
    BadIndexLine {
        /// The index file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        what: String,
    },
    /// An index or data file holds nothing of a dictionary.
    #[error("the wordnet file {path} is empty of {what}: it is not a WordNet 3.0 dictionary file; use an unmodified WordNet 3.0 dictionary")]
    Empty {
        /// The file.
        path: PathBuf,
        /// What it holds none of.
        what: &'static str,
    },
    /// No dictionary in any place looked at.
    #[error("no WordNet 3.0 dictionary (index.noun, data.noun, noun.exc …) in {looked}: install Debian's wordnet-base, run nltk.download(\"wordnet\") and unzip it, or give its directory with --wordnet DIR")]
    NotFound {
        /// The directories looked in, comma-separated.
        looked: String,
    },
}

/// The most lemma names one word's synonyms read: WordNet 3.0's most
/// ambiguous words (`break`, `run`, `cut`) read some 500; a hostile
/// dictionary (an index line repeating an offset thousands of times, a
/// synset of 65,535 lemmas) is cut there.
pub const MAX_SYNONYM_NAMES: usize = 20_000;

/// One part of speech: lemma → synset offsets, the exception list, and the
/// data file the offsets point into.
#[derive(Debug, Default)]
struct Part {
    lemmas: HashMap<String, Vec<u64>>,
    exceptions: HashMap<String, Vec<String>>,
    data: String,
}

/// A WordNet 3.0 dictionary in memory (about 50 MB).
#[derive(Debug)]
pub struct WordNet {
    parts: [Part; 4],
    dir: PathBuf,
    version: String,
    /// The dictionary's files' total size and digest ([`WordNet::digest_dir`]).
    digest: (u64, String),
}

impl WordNet {
    /// Reads the dictionary in `dir` (the directory holding `index.noun`):
    /// NLTK's `corpora/wordnet`, Debian's `/usr/share/wordnet` or a WordNet
    /// 3.0 `dict/`.
    pub fn open(dir: &Path) -> Result<WordNet, WordNetError> {
        let mut parts: [Part; 4] = Default::default();
        let mut version = String::new();
        // as NLTK files a lemma by the part of speech its line names
        for (_, suffix) in POS {
            let index_path = dir.join(format!("index.{suffix}"));
            let index = read(&index_path, MAX_INDEX_BYTES)?;
            let lines = parse_index(&index, &index_path)?;
            if lines.is_empty() {
                return Err(WordNetError::Empty {
                    path: index_path,
                    what: "index lines",
                });
            }
            for (pos, lemma, offsets) in lines {
                if let Some(p) = POS.iter().position(|(c, _)| *c == pos) {
                    parts[p].lemmas.insert(lemma, offsets);
                }
            }
        }
        for (part, (_, suffix)) in parts.iter_mut().zip(POS) {
            part.exceptions = parse_exceptions(&read(
                &dir.join(format!("{suffix}.exc")),
                MAX_EXCEPTION_BYTES,
            )?);
            let data_path = dir.join(format!("data.{suffix}"));
            part.data = read(&data_path, MAX_DATA_BYTES)?;
            if part.data.trim().is_empty() {
                return Err(WordNetError::Empty {
                    path: data_path,
                    what: "synsets",
                });
            }
            if version.is_empty() {
                version = header_version(&part.data);
            }
            // one offset of the index must find its synset
            if let Some((lemma, &offset)) = part
                .lemmas
                .iter()
                .filter_map(|(l, o)| o.first().map(|o| (l, o)))
                .min()
            {
                if synset_lemmas(&part.data, offset).is_empty() {
                    return Err(WordNetError::Mismatch {
                        path: data_path,
                        offset,
                        lemma: lemma.clone(),
                    });
                }
            }
        }
        Ok(WordNet {
            parts,
            dir: dir.to_path_buf(),
            version,
            digest: WordNet::digest_dir(dir)?,
        })
    }

    /// The total size and the digest of the dictionary files in `dir`
    /// (`index.*`, `*.exc`, `data.*` of the four parts of speech, in that
    /// order; [`crate::digest::named_parts_sha256`]): what a report's
    /// receipt records of it, and what `reproduce` checks.
    pub fn digest_dir(dir: &Path) -> Result<(u64, String), WordNetError> {
        let mut files = Vec::with_capacity(12);
        for (_, suffix) in POS {
            files.push((format!("index.{suffix}"), MAX_INDEX_BYTES));
        }
        for (_, suffix) in POS {
            files.push((format!("{suffix}.exc"), MAX_EXCEPTION_BYTES));
            files.push((format!("data.{suffix}"), MAX_DATA_BYTES));
        }
        let mut texts = Vec::with_capacity(files.len());
        for (name, max) in &files {
            texts.push(read(&dir.join(name), *max)?);
        }
        let bytes = texts.iter().map(|t| t.len() as u64).sum();
        let parts = files
            .iter()
            .zip(&texts)
            .map(|((n, _), t)| (n.as_str(), t.as_bytes()));
        Ok((bytes, crate::digest::named_parts_sha256(parts)))
    }

    /// Where the dictionary was read from, its files' total size and their
    /// digest ([`WordNet::digest_dir`]).
    pub fn source(&self) -> (&Path, u64, &str) {
        (&self.dir, self.digest.0, &self.digest.1)
    }

    /// The first dictionary found, in this order: `explicit` when given
    /// (only it), else `corpora/wordnet` under each of `NLTK_DATA`'s
    /// directories and NLTK's usual places (`~/nltk_data`,
    /// `/usr/share/nltk_data`, `/usr/local/share/nltk_data`,
    /// `/usr/lib/nltk_data`, `/usr/local/lib/nltk_data`), then `$WNHOME/dict`
    /// and Debian's `/usr/share/wordnet`.
    pub fn find(explicit: Option<&Path>) -> Result<WordNet, WordNetError> {
        let candidates: Vec<PathBuf> = match explicit {
            Some(dir) => vec![dir.to_path_buf()],
            None => default_places(),
        };
        for dir in &candidates {
            if dir.join("index.noun").is_file() {
                return WordNet::open(dir);
            }
        }
        Err(WordNetError::NotFound {
            looked: candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The directory it was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The version its data files' licence header names (`3.0` for the
    /// dictionary NLTK's `wordnet` package holds), or empty.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// METEOR's synonyms of `word`: the name of every lemma without `_` of
    /// every synset `wordnet.synsets(word)` gives (every part of speech, each
    /// form `_morphy` finds in the index), and the word itself.
    pub fn synonyms(&self, word: &str) -> BTreeSet<String> {
        let lemma = word.to_lowercase();
        let mut out = BTreeSet::new();
        // lemma names read, against MAX_SYNONYM_NAMES
        let mut read = 0usize;
        'parts: for (p, part) in self.parts.iter().enumerate() {
            for form in self.morphy(&lemma, p) {
                for &offset in part.lemmas.get(form.as_str()).into_iter().flatten() {
                    for name in synset_lemmas(&part.data, offset) {
                        read += 1;
                        if read > MAX_SYNONYM_NAMES {
                            break 'parts;
                        }
                        if !name.contains('_') {
                            out.insert(name.to_string());
                        }
                    }
                }
            }
        }
        out.insert(word.to_string());
        out
    }

    /// NLTK's `_morphy(form, pos)`: the word's exception forms when the list
    /// has it, else the word with each ending of [`SUBSTITUTIONS`] replaced
    /// once; of these and the word itself, those the index has for this part
    /// of speech, once each.
    fn morphy(&self, form: &str, p: usize) -> Vec<String> {
        let part = &self.parts[p];
        let forms: Vec<String> = match part.exceptions.get(form) {
            Some(exceptions) => exceptions.clone(),
            None => SUBSTITUTIONS[p]
                .iter()
                .filter_map(|(old, new)| form.strip_suffix(old).map(|stem| format!("{stem}{new}")))
                .collect(),
        };
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        std::iter::once(form.to_string())
            .chain(forms)
            .filter(|f| part.lemmas.contains_key(f) && seen.insert(f.clone()))
            .collect()
    }
}

/// A dictionary a long-running service reads once: the one given at start
/// (`serve --wordnet`), else the first [`WordNet::find`] finds on first use
/// (none: `meteor` is left out of every evaluation).
#[derive(Debug, Default)]
pub struct Shared {
    loaded: OnceLock<Option<Arc<WordNet>>>,
}

impl Shared {
    /// A slot holding `given` when there is one, else looked up on first use.
    pub fn new(given: Option<Arc<WordNet>>) -> Shared {
        let loaded = OnceLock::new();
        if let Some(w) = given {
            let _ = loaded.set(Some(w));
        }
        Shared { loaded }
    }

    /// The dictionary, read on the first call when none was given; one
    /// found but unreadable is said once on stderr (and `meteor` is left
    /// out).
    pub fn get(&self) -> Option<Arc<WordNet>> {
        self.loaded
            .get_or_init(|| match WordNet::find(None) {
                Ok(w) => Some(Arc::new(w)),
                Err(WordNetError::NotFound { .. }) => None,
                Err(e) => {
                    eprintln!("qajudge: meteor is left out: {e}");
                    None
                }
            })
            .clone()
    }
}

/// Where [`WordNet::find`] looks without `--wordnet`.
fn default_places() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::var_os("NLTK_DATA")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(PathBuf::from(home).join("nltk_data"));
    }
    for root in [
        "/usr/share/nltk_data",
        "/usr/local/share/nltk_data",
        "/usr/lib/nltk_data",
        "/usr/local/lib/nltk_data",
    ] {
        roots.push(PathBuf::from(root));
    }
    let mut places: Vec<PathBuf> = roots
        .into_iter()
        .map(|r| r.join("corpora").join("wordnet"))
        .collect();
    if let Some(home) = std::env::var_os("WNHOME") {
        places.push(PathBuf::from(home).join("dict"));
    }
    places.push(PathBuf::from("/usr/share/wordnet"));
    places
}

/// A dictionary file as text, at most `max` bytes; a file that is not a
/// regular one (a FIFO, a device) is refused before it is opened.
fn read(path: &Path, max: u64) -> Result<String, WordNetError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|source| WordNetError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(WordNetError::NotText {
            path: path.to_path_buf(),
            what: "a regular file",
        });
    }
    let file = std::fs::File::open(path).map_err(|source| WordNetError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| WordNetError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > max {
        return Err(WordNetError::TooLarge {
            path: path.to_path_buf(),
            max,
        });
    }
    String::from_utf8(bytes).map_err(|_| WordNetError::NotText {
        path: path.to_path_buf(),
        what: "UTF-8 text",
    })
}

/// An index file as `_load_lemma_pos_offset_map` reads it: lines that start
/// with a space are the licence; every other line is `lemma pos n_synsets
/// n_pointers pointers… n_senses n_tagged offsets…` with `n_synsets > 0`
/// and `n_senses == n_synsets`: (part of speech, lemma, offsets) per line,
/// in order (a later line of a lemma and part of speech replaces an earlier
/// one, as in NLTK's map). Tokens quoted in errors are cut at 40 characters.
fn parse_index(text: &str, path: &Path) -> Result<Vec<(char, String, Vec<u64>)>, WordNetError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with(' ') {
            continue;
        }
        let bad = |what: String| WordNetError::BadIndexLine {
            path: path.to_path_buf(),
            line: i + 1,
            what,
        };
        let mut tokens = line.split_whitespace();
        let mut next = |what: &str| {
            tokens
                .next()
                .ok_or_else(|| bad(format!("the line ends before its {what}")))
        };
        let number = |t: &str, what: &str| {
            t.parse::<u64>().map_err(|_| {
                let shown: String = t.chars().take(40).collect();
                bad(format!("its {what} {shown:?} is not a number"))
            })
        };
        let lemma = next("lemma")?;
        let pos = next("part of speech")?;
        let synsets = number(next("synset count")?, "synset count")?;
        if synsets == 0 {
            return Err(bad("its synset count is 0".to_string()));
        }
        let pointers = number(next("pointer count")?, "pointer count")?;
        for _ in 0..pointers {
            next("pointer symbols")?;
        }
        let senses = number(next("sense count")?, "sense count")?;
        if senses != synsets {
            return Err(bad(format!(
                "its sense count {senses} is not its synset count {synsets}"
            )));
        }
        next("tagged sense count")?;
        let mut offsets: Vec<u64> = Vec::new();
        let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
        for _ in 0..synsets {
            let offset = number(next("synset offsets")?, "synset offset")?;
            // an offset repeated on the line names the same synset, whose
            // names NLTK's set of synonyms holds once
            if seen.insert(offset) {
                offsets.push(offset);
            }
        }
        let mut chars = pos.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            out.push((c, lemma.to_string(), offsets));
        }
    }
    Ok(out)
}

/// An exception list (`inflected base…` per line), as
/// `_load_exception_map` reads it.
fn parse_exceptions(text: &str) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let mut terms = line.split_whitespace().map(str::to_string);
        if let Some(first) = terms.next() {
            out.insert(first, terms.collect());
        }
    }
    out
}

/// The version named by the licence header of a data file (`WordNet 3.0`).
fn header_version(data: &str) -> String {
    data.lines()
        .take_while(|l| l.starts_with(' '))
        .find_map(|l| {
            let at = l.find("WordNet ")?;
            let rest = &l[at + "WordNet ".len()..];
            let v: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            (!v.is_empty()).then_some(v)
        })
        .unwrap_or_default()
}

/// The lemma names of the synset at byte `offset` of a data file, as
/// `_synset_from_pos_and_line` reads them (a trailing syntactic marker such
/// as `(a)` removed); none when the line there does not start with the
/// offset (where NLTK warns and has no synset).
fn synset_lemmas(data: &str, offset: u64) -> Vec<&str> {
    let Some(line) = usize::try_from(offset)
        .ok()
        .and_then(|at| data.get(at..))
        .map(|rest| rest.split('\n').next().unwrap_or_default())
    else {
        return Vec::new();
    };
    if line.get(..8) != Some(format!("{offset:08}").as_str()) {
        return Vec::new();
    }
    let columns = line.split('|').next().unwrap_or_default();
    let mut tokens = columns.split_whitespace().skip(3);
    let Some(count) = tokens
        .next()
        .and_then(|t| usize::from_str_radix(t, 16).ok())
    else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for _ in 0..count {
        let Some(name) = tokens.next() else { break };
        names.push(strip_marker(name));
        tokens.next(); // lex_id
    }
    names
}

/// A lemma name without its trailing syntactic marker: NLTK's
/// `(.*?)(\([^()]*\))?$` removes one last parenthesised group holding no
/// parenthesis.
fn strip_marker(name: &str) -> &str {
    if let Some(body) = name.strip_suffix(')') {
        if let Some(open) = body.rfind('(') {
            if !body[open + 1..].contains(')') {
                return &name[..open];
            }
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_go_as_nltk_strips_them() {
        assert_eq!(strip_marker("galore(ip)"), "galore");
        assert_eq!(strip_marker("big"), "big");
        assert_eq!(strip_marker("a(b)(c)"), "a(b)");
        assert_eq!(strip_marker("a(b"), "a(b");
        assert_eq!(strip_marker("a)b)"), "a)b)");
    }

    #[test]
    fn a_bad_index_line_is_located() {
        let err = parse_index("  licence\ndog n 0 0 0 0\n", Path::new("index.noun"))
            .expect_err("refused");
        assert_eq!(
            err.to_string().split(" (").next(),
            Some("index.noun, line 2: its synset count is 0")
        );
        let err = parse_index("dog n 2 0 2 0 123\n", Path::new("index.noun")).expect_err("short");
        assert!(err
            .to_string()
            .contains("line 1: the line ends before its synset offsets"));
    }

    #[test]
    fn synsets_read_at_their_offset() {
        let data = "  1 licence WordNet 3.0 Copyright.\n00000035 03 n 02 dog 0 Canis_familiaris(a) 0 000 | a dog\n";
        assert_eq!(data.find("00000035"), Some(35));
        assert_eq!(synset_lemmas(data, 35), vec!["dog", "Canis_familiaris"]);
        assert!(synset_lemmas(data, 36).is_empty());
        assert!(synset_lemmas(data, 1 << 40).is_empty());
        assert_eq!(header_version(data), "3.0");
    }

    /// A dictionary of one noun, `dog`, whose data line says `count` lemmas
    /// (in hex), its offsets those of LF line ends, written with `newline`
    /// line ends, in a new directory.
    fn tiny(name: &str, count: &str, newline: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("qajudge-wordnet-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let header = format!("  1 WordNet 3.0 Copyright{newline}");
        // the offset of an LF file: CRLF line ends written after it move it
        let offset = "  1 WordNet 3.0 Copyright\n".len();
        let data = format!("{header}{offset:08} 05 n {count} dog 0 hound 0 000 | a dog{newline}");
        let index = format!("dog n 1 0 1 0 {offset:08}{newline}");
        // every other part of speech holds one synset of one lemma
        for (c, suffix) in POS {
            std::fs::write(dir.join(format!("{suffix}.exc")), "").expect("exc");
            std::fs::write(
                dir.join(format!("index.{suffix}")),
                format!("x{suffix} {c} 1 0 1 0 {offset:08}{newline}"),
            )
            .expect("index");
            std::fs::write(
                dir.join(format!("data.{suffix}")),
                format!("{header}{offset:08} 05 {c} 01 x{suffix} 0 000 | x{newline}"),
            )
            .expect("data");
        }
        std::fs::write(dir.join("index.noun"), index).expect("index.noun");
        std::fs::write(dir.join("data.noun"), data).expect("data.noun");
        dir
    }

    #[test]
    fn hostile_dictionaries_are_refused_or_bounded() {
        let good = tiny("good", "02", "\n");
        let wn = WordNet::open(&good).expect("it reads");
        assert!(wn.synonyms("dogs").contains("hound"));
        // an absurd lemma count reads the lemmas there are, and allocates no more
        let absurd = tiny("absurd", "ffffffffffffffff", "\n");
        let wn = WordNet::open(&absurd).expect("it reads");
        assert!(wn.synonyms("dog").contains("hound"));
        // CRLF line ends move every offset: refused, not silently empty
        let crlf = tiny("crlf", "02", "\r\n");
        let err = WordNet::open(&crlf).expect_err("offsets do not match");
        assert!(err.to_string().contains("do not belong together"), "{err}");
        // a data file that is not a regular file is not opened
        let dir = tiny("dir", "02", "\n");
        std::fs::remove_file(dir.join("data.verb")).expect("remove");
        std::fs::create_dir(dir.join("data.verb")).expect("a directory in its place");
        let err = WordNet::open(&dir).expect_err("not a file");
        assert!(err.to_string().contains("not a regular file"), "{err}");
        // an empty index file is refused, not read as a dictionary without verbs
        let empty = tiny("empty", "02", "\n");
        std::fs::write(empty.join("index.verb"), "").expect("emptied");
        let err = WordNet::open(&empty).expect_err("empty");
        assert!(err.to_string().contains("is empty of index lines"), "{err}");
        // an offset repeated thousands of times on a line is read once
        let repeated = tiny("repeated", "02", "\n");
        let offset = "  1 WordNet 3.0 Copyright\n".len();
        let copies = vec![format!("{offset:08}"); 3000].join(" ");
        std::fs::write(
            repeated.join("index.noun"),
            format!("dog n 3000 0 3000 0 {copies}\n"),
        )
        .expect("index");
        let wn = WordNet::open(&repeated).expect("it reads");
        assert_eq!(wn.parts[0].lemmas["dog"].len(), 1);
        assert!(wn.synonyms("dog").contains("hound"));
        for d in [good, absurd, crlf, dir, empty, repeated] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// Debian's WordNet 3.0 (wordnet-base), where the test command installs
    /// it: NLTK's `synsets` through `_morphy` (exceptions replace the rules).
    #[test]
    fn debian_wordnet_gives_nltk_synonyms() {
        let dir = Path::new("/usr/share/wordnet");
        if !dir.join("index.noun").is_file() {
            assert!(
                std::env::var("CI").is_err(),
                "Debian's wordnet-base is missing under CI=true: scripts/install-deps.sh --wordnet installs it"
            );
            return;
        }
        let wn = WordNet::open(dir).expect("it reads");
        assert_eq!(wn.version(), "3.0");
        let dog = wn.synonyms("dog");
        for s in [
            "dog",
            "domestic_dog",
            "frump",
            "cad",
            "hound",
            "chase",
            "trail",
        ] {
            assert_eq!(dog.contains(s), !s.contains('_'), "{s}");
        }
        // `geese` is in noun.exc: only `goose`'s synsets
        assert!(wn.synonyms("geese").contains("goose"));
        // `ran` through verb.exc, `running` by the rules
        assert!(wn.synonyms("ran").contains("run"));
        assert!(wn.synonyms("running").contains("run"));
        assert_eq!(wn.synonyms("qqqzz"), BTreeSet::from(["qqqzz".to_string()]));
        // NLTK's own sets (tests/data/t2s-metrics/wordnet-synonyms.sh): every
        // CK25 query token, lowercased and stemmed, and hand-picked forms
        let fixture = include_str!("../tests/data/t2s-metrics/wordnet-synonyms.tsv");
        let mut checked = 0;
        for line in fixture.lines() {
            let (word, synonyms) = line.split_once('\t').expect("word<TAB>synonyms");
            let want: BTreeSet<String> = synonyms.split(' ').map(str::to_string).collect();
            assert_eq!(wn.synonyms(word), want, "{word:?}");
            checked += 1;
        }
        assert!(checked > 1000, "{checked} words");
    }
}
