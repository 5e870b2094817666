//! Streaming RDF readers (the one module that names oxrdfio, oxrdf and the
//! decompressors): N-Triples, N-Quads, Turtle, TriG, RDF/XML and N3, plain or
//! `.gz`, `.bz2`, `.zst`, chosen by file extension. Every statement is handed to a
//! [`Sink`] as a small borrowed [`Stmt`], which adds what it needs to a batch; the
//! batches reach the caller in file order, with the file's size, checksum and
//! counts.
//!
//! Line-based files (N-Triples, N-Quads) are read in parallel by `blocks`; other
//! formats by oxrdfio on the caller's thread.

use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::atomic::Ordering;

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};

use super::blocks::{convert, read_lines, LineRules};
use super::decompress::{self, split_compression, Source};
use super::statement::{FileStats, Input, OnBatch, Sink};
use super::{BuildOptions, IndexerError};

/// True when the indexer can read a file of this name.
pub fn is_rdf_file(path: &Path) -> bool {
    rdf_format(path).is_some()
}

/// The media type of the RDF format a file's name says (its extension, after
/// any compression extension), for readers outside the indexer.
pub fn rdf_media_type(path: &Path) -> Option<&'static str> {
    rdf_format(path).map(RdfFormat::media_type)
}

fn rdf_format(path: &Path) -> Option<RdfFormat> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let (stem, _) = split_compression(&name);
    let ext = stem.rsplit_once('.')?.1;
    match ext {
        "nt" | "ntriples" => Some(RdfFormat::NTriples),
        "nq" | "nquads" => Some(RdfFormat::NQuads),
        "ttl" | "turtle" => Some(RdfFormat::Turtle),
        "trig" => Some(RdfFormat::TriG),
        "rdf" | "owl" | "xml" => Some(RdfFormat::RdfXml),
        "n3" => Some(RdfFormat::N3),
        "jsonld" => Some(RdfFormat::JsonLd {
            profile: oxrdfio::JsonLdProfileSet::empty(),
        }),
        _ => None,
    }
}

/// Statements per batch when oxrdfio reads the whole file.
const BATCH_STATEMENTS: u64 = 1 << 16;

/// Reads one RDF file, handing every statement to `sink` and every batch, in file
/// order, to `on_batch` with the number of (stored) bytes read so far and the
/// number of statements it holds. A malformed statement, or a line of a
/// line-based file longer than `opts.max_line_bytes`, stops the read with its
/// line and column, unless `opts.lenient`, which skips and counts it. `threads`
/// workers read line-based files. `source`, when the file is being decompressed
/// by a [`Decompressing`], is where its text comes from. Only a regular file or
/// a named pipe is read: anything else (a device, a directory) is an error
/// naming it, before anything is read.
pub fn read_file<S: Sink>(
    path: &Path,
    source: Option<Source>,
    opts: &BuildOptions,
    threads: usize,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    decompress::check_input(path).map_err(io)?;
    let format = rdf_format(path).ok_or_else(|| IndexerError::Input {
        path: path.display().to_string(),
        message: "cannot tell the RDF format from the file name; use .nt, .nq, .ttl, .trig, .rdf, .owl, .n3 or .jsonld, optionally with .gz, .bz2 or .zst".into(),
    })?;
    let (text, tally) = match source {
        Some(source) => source.into_reader(),
        None => decompress::open(path).map_err(io)?,
    };
    let input = Input {
        path,
        tally: &tally,
    };
    if matches!(format, RdfFormat::NTriples | RdfFormat::NQuads) {
        let rules = LineRules {
            lenient: opts.lenient,
            max_line_bytes: opts.max_line_bytes,
        };
        read_lines(&input, text, format, rules, threads, sink, on_batch)
    } else {
        read_whole(&input, text, format, opts.lenient, sink, on_batch)
    }
}

/// A file that is not line-based, read by oxrdfio on this thread.
fn read_whole<S: Sink>(
    input: &Input<'_>,
    reader: Box<dyn Read + Send + '_>,
    format: RdfFormat,
    lenient: bool,
    sink: &S,
    on_batch: &mut OnBatch<'_, S::Batch>,
) -> Result<FileStats, IndexerError> {
    let path = input.path;
    let progress = &input.tally.bytes;
    let io = |e: std::io::Error| IndexerError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let mut stats = FileStats::default();
    {
        let parser =
            RdfParser::from_format(format).for_reader(BufReader::with_capacity(1 << 16, reader));
        let mut batch = S::Batch::default();
        let mut in_batch = 0u64;
        for quad in parser {
            match quad {
                Ok(q) => {
                    stats.statements += 1;
                    in_batch += 1;
                    sink.statement(convert(&q), &mut batch);
                    if in_batch == BATCH_STATEMENTS {
                        let bytes = progress.load(Ordering::Relaxed);
                        on_batch(&mut batch, bytes, in_batch)?;
                        S::clear(&mut batch);
                        in_batch = 0;
                    }
                }
                Err(RdfParseError::Syntax(e)) => {
                    let (line, column) = e
                        .location()
                        .map_or((0, 0), |l| (l.start.line + 1, l.start.column + 1));
                    stats.malformed(path, lenient, (line, column, e.to_string()))?;
                    stats.skipped += 1;
                }
                Err(RdfParseError::Io(e)) => return Err(io(e)),
            }
        }
        on_batch(&mut batch, progress.load(Ordering::Relaxed), in_batch)?;
    }
    (stats.bytes, stats.xxh3_64) = input.tally.value();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::super::decompress::{decompressed, Decompressing};
    use super::super::ntriples::line_breaks;
    use super::super::statement::{Obj, Stmt};
    use super::*;
    use std::fs::File;

    /// Collects statements as owned text.
    struct Collect;

    type Owned = (Option<String>, String, String);

    impl Sink for Collect {
        type Batch = Vec<Owned>;
        fn clear(batch: &mut Vec<Owned>) {
            batch.clear();
        }
        fn statement(&self, s: Stmt<'_>, batch: &mut Vec<Owned>) {
            // oxrdfio lower-cases language tags; the fast reader gives them as written
            let object = match s.object {
                Obj::Literal(v, Some(l)) => format!("{v:?}@{}", l.to_ascii_lowercase()),
                o => format!("{o:?}"),
            };
            batch.push((
                s.subject.map(str::to_string),
                s.predicate.to_string(),
                object,
            ));
        }
    }

    /// Build options reading leniently or not, with lines of at most `max_line`
    /// bytes.
    fn rules(lenient: bool, max_line: usize) -> BuildOptions {
        BuildOptions {
            lenient,
            max_line_bytes: max_line,
            ..BuildOptions::default()
        }
    }

    /// The lenient default options.
    fn lenient() -> BuildOptions {
        rules(true, super::super::DEFAULT_MAX_LINE_BYTES)
    }

    /// The fast, parallel reader's statements and stats.
    fn fast(path: &Path, threads: usize) -> (Vec<Owned>, FileStats) {
        fast_from(path, None, threads)
    }

    /// [`fast`], from the text of a [`Decompressing`] when `source` is given.
    fn fast_from(path: &Path, source: Option<Source>, threads: usize) -> (Vec<Owned>, FileStats) {
        let mut all = Vec::new();
        let stats = read_file(
            path,
            source,
            &lenient(),
            threads,
            &Collect,
            &mut |b, _, _| {
                all.append(b);
                Ok(())
            },
        )
        .expect("readable");
        (all, stats)
    }

    /// oxrdfio alone, over the whole file (lenient).
    fn reference(path: &Path) -> Vec<Owned> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let format = rdf_format(path).expect("rdf file");
        let file = File::open(path).expect("open");
        let text = decompressed(&name.to_ascii_lowercase(), file).expect("decompress");
        let mut out = Vec::new();
        for q in RdfParser::from_format(format).for_reader(text).flatten() {
            Collect.statement(convert(&q), &mut out);
        }
        out
    }

    #[test]
    fn fast_reader_agrees_with_oxrdfio_on_tricky_lines() {
        let dir = std::env::temp_dir().join(format!("qajudge-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let lines = [
            "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .",
            "# a comment",
            "",
            "   <http://a.org/2>\t<http://p.org/p>   \"tab\\there \\\"q\\\" \\u00e9\\U0001F600\"@de-CH .  # trailing",
            "_:b0 <http://p.org/p> \"x\"^^<http://www.w3.org/2001/XMLSchema#string> .",
            "<http://a.org/3> <http://p.org/p> _:b1 .",
            "<http://a.org/%C3%A9> <http://p.org/p> <http://user@host.org:8080/p?q=1#f> .",
            "<http://de.dbpedia.org/resource/Köln> <http://p.org/p> <urn:isbn:123> .",
            "<http://a.org/\\u0041> <http://p.org/p> <http://b.org/\\U00000042> .",
            "<http://[::1]/x> <http://p.org/p> <http://a.org/4> .",
            "<http://a.org/5> <http://p.org/p> \"\" .",
            "<http://a.org/7> <http://p.org/p> <http://b.org/has space> .",
            "<http://a.org/8> <http://p.org/p> <http://b.org/8> <http://g.org/g> .",
            "<http://a.org/9> <http://p.org/p> \"x\"@en .",
        ];
        let text = lines.join("\n") + "\r\n<http://a.org/10> <http://p.org/p> <http://b.org/10> .";
        let nt = dir.join("tricky.nt");
        std::fs::write(&nt, &text).expect("write");
        let (got, stats) = fast(&nt, 2);
        // a malformed line is skipped whole; oxrdfio alone recovers the triple
        // before the graph name of line 13
        let mut want = reference(&nt);
        want.retain(|s| s.0.as_deref() != Some("http://a.org/8"));
        assert_eq!(got, want);
        assert_eq!(got.len(), 11, "{got:?}");
        // the graph-name line is not N-Triples; the broken line neither
        assert_eq!(stats.skipped, 2, "{stats:?}");
        let first = stats.first_error.as_deref().unwrap_or("");
        assert!(first.starts_with("12:"), "{first}");
        // N-Quads: the graph name is read
        let nq = dir.join("tricky.nq");
        std::fs::write(&nq, &text).expect("write");
        let (got, _) = fast(&nq, 3);
        assert_eq!(got, reference(&nq));
        assert_eq!(got.len(), 12);
        // an unterminated literal costs its line only (oxrdfio alone would read on
        // looking for the closing quote); without --lenient it stops the read there
        let open = dir.join("open.nt");
        std::fs::write(
            &open,
            "<http://a.org/1> <http://p.org/p> \"x .\n<http://a.org/2> <http://p.org/p> \"y\" .\n",
        )
        .expect("write");
        let (got, stats) = fast(&open, 2);
        assert_eq!((got.len(), stats.skipped), (1, 1));
        let err = read_file(
            &open,
            None,
            &rules(false, 1 << 20),
            2,
            &Collect,
            &mut |_, _, _| Ok(()),
        )
        .expect_err("strict");
        assert!(matches!(err, IndexerError::Syntax { line: 1, .. }), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Compressed files decompressed ahead, one or several, by one or two
    /// threads, read as the files themselves; a broken one names its path.
    #[test]
    fn files_decompressed_ahead_read_as_the_files_themselves() {
        use std::io::Write;
        let dir =
            std::env::temp_dir().join(format!("qajudge-decompressing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("links.nt.gz");
        let mut gz = flate2::write::GzEncoder::new(
            File::create(&path).expect("create"),
            flate2::Compression::fast(),
        );
        for i in 0..5000 {
            writeln!(
                gz,
                "<http://a.org/{i}> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/{}> .",
                i / 3
            )
            .expect("write");
        }
        gz.finish().expect("finish");
        let (want, want_stats) = fast(&path, 2);
        assert_eq!(want.len(), 5000);
        // several files (a plain one among them), decompressed by one or two
        // threads while they are read one after the other, in order
        let plain = dir.join("plain.nt");
        std::fs::write(
            &plain,
            "<http://a.org/x> <http://p.org/p> <http://b.org/x> .\n",
        )
        .expect("write");
        let copy = dir.join("copy.nt.gz");
        std::fs::copy(&path, &copy).expect("copy");
        let files = [path.clone(), plain.clone(), copy.clone()];
        for threads in [1, 2] {
            let mut decompressing = Decompressing::start(&files, threads);
            assert!(
                decompressing.take(&plain).is_none(),
                "a plain file is read as it is"
            );
            for file in [&path, &copy] {
                let source = decompressing.take(file).expect("compressed");
                let (got, stats) = fast_from(file, Some(source), 2);
                assert_eq!(got, want);
                assert_eq!(
                    (stats.bytes, stats.xxh3_64, stats.statements),
                    (want_stats.bytes, want_stats.xxh3_64, want_stats.statements)
                );
            }
        }
        // a file that cannot be decompressed gives its error where it is read
        let broken = dir.join("broken.nt.gz");
        std::fs::write(&broken, b"not gzip at all").expect("write");
        let mut decompressing = Decompressing::start(std::slice::from_ref(&broken), 2);
        let source = decompressing.take(&broken).expect("compressed");
        let err = read_file(
            &broken,
            Some(source),
            &lenient(),
            2,
            &Collect,
            &mut |_, _, _| Ok(()),
        )
        .expect_err("not gzip");
        assert!(err.to_string().contains("broken.nt.gz"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Reads `path` with lines of at most `max_line` bytes: the subjects read, or
    /// the error.
    fn subjects(
        path: &Path,
        lenient: bool,
        max_line: usize,
    ) -> Result<(Vec<String>, FileStats), IndexerError> {
        let mut all = Vec::new();
        let stats = read_file(
            path,
            None,
            &rules(lenient, max_line),
            2,
            &Collect,
            &mut |b, _, _| {
                all.append(b);
                Ok(())
            },
        )?;
        Ok((all.into_iter().filter_map(|s| s.0).collect(), stats))
    }

    /// A statement line of `length` bytes whose subject is `http://a.org/{i}`.
    fn line_of(i: usize, length: usize) -> String {
        let head = format!("<http://a.org/{i}> <http://p.org/p> \"");
        let fill = length.saturating_sub(head.len() + 3);
        format!("{head}{}\" .\n", "x".repeat(fill))
    }

    #[test]
    fn a_line_past_the_limit_is_a_located_error_or_one_skipped_statement() {
        let dir = std::env::temp_dir().join(format!("qajudge-long-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        // lines past the limit: one inside a block (200 bytes, limit 100), one
        // longer than a block that ends, one at the end without a line break;
        // the malformed line after them is found at its own line number
        // (three of the line reader's blocks)
        let long = 3 << 20;
        for (name, text, at) in [
            (
                "inside.nt",
                line_of(1, 60) + &line_of(2, 200) + &line_of(3, 60),
                2,
            ),
            (
                "blocks.nt",
                line_of(1, 60) + &line_of(2, long) + &line_of(3, 60),
                2,
            ),
            (
                "end.nt",
                line_of(1, 60) + &line_of(3, 60) + line_of(2, long).trim_end(),
                3,
            ),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, &text).expect("write");
            let err = subjects(&path, false, 100).expect_err("strict");
            let message = err.to_string();
            assert!(
                matches!(err, IndexerError::Syntax { line, column: 1, .. } if line == at),
                "{name}: {message}"
            );
            assert!(
                message.starts_with(&format!("{}:{at}:1: the line is ", path.display())),
                "{message}"
            );
            assert!(
                message.contains("past the limit of 100 bytes")
                    && message.contains("--max-line-kb"),
                "{message}"
            );
            let (read, stats) = subjects(&path, true, 100).expect("lenient");
            assert_eq!(read, ["http://a.org/1", "http://a.org/3"], "{name}");
            assert_eq!(stats.skipped, 1, "{name}");
            assert!(
                stats
                    .first_error
                    .as_deref()
                    .is_some_and(|e| e.starts_with(&format!("{at}:1:"))),
                "{stats:?}"
            );
            assert!(
                stats
                    .warnings
                    .iter()
                    .any(|w| w.starts_with("1 line(s) longer than the limit of 100 bytes skipped")),
                "{stats:?}"
            );
            // under a limit above the line, it is read as any other
            let (read, stats) = subjects(&path, false, 4 * long).expect("read whole");
            assert_eq!((read.len(), stats.skipped), (3, 0), "{name}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn devices_and_directories_are_refused_and_named() {
        for (path, what) in [("/dev/null", "a character device"), ("/", "a directory")] {
            let err = read_file(
                Path::new(path),
                None,
                &lenient(),
                2,
                &Collect,
                &mut |_, _, _| Ok(()),
            )
            .expect_err("refused");
            let message = err.to_string();
            assert!(
                message.starts_with(&format!("{path}: not a regular file ({what})")),
                "{message}"
            );
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_costs_that_line_only() {
        // the block is checked as a whole first: when it is not UTF-8, its other
        // lines are still read, each checked on its own
        let dir = std::env::temp_dir().join(format!("qajudge-latin1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let path = dir.join("latin1.nt");
        let mut bytes = b"<http://a.org/1> <http://p.org/p> <http://b.org/1> .\n".to_vec();
        bytes.extend_from_slice(b"<http://a.org/2> <http://p.org/p> \"caf\xe9\" .\n");
        bytes.extend_from_slice(b"<http://a.org/3> <http://p.org/p> <http://b.org/3> .\n");
        std::fs::write(&path, &bytes).expect("write");
        let (got, stats) = fast(&path, 2);
        let subjects: Vec<_> = got.iter().map(|s| s.0.as_deref()).collect();
        assert_eq!(subjects, [Some("http://a.org/1"), Some("http://a.org/3")]);
        assert_eq!(stats.skipped, 1, "{stats:?}");
        let first = stats.first_error.as_deref().unwrap_or("");
        assert!(first.starts_with("2:"), "{first}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Every line-based file of `../shared/data/rdf` (its first 30,000 lines,
    /// decompressed, to keep the debug-built test short) reads the same with the
    /// fast parallel reader as with oxrdfio alone.
    #[test]
    fn fast_reader_agrees_with_oxrdfio_on_real_dumps() {
        let Some(dir) = crate::test_data::shared_data("rdf") else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("qajudge-dumps-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).expect("tmp");
        let mut stack = vec![dir];
        let (mut files, mut statements, mut slow) = (0, 0, 0);
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("readable dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if !matches!(
                    rdf_format(&path),
                    Some(RdfFormat::NTriples | RdfFormat::NQuads)
                ) {
                    continue;
                }
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                let mut text = Vec::new();
                decompressed(&name.to_ascii_lowercase(), File::open(&path).expect("open"))
                    .expect("decompress")
                    .read_to_end(&mut text)
                    .expect("read");
                let cut = line_breaks::nth(&text, 30_000).map_or(text.len(), |p| p + 1);
                let ext = if rdf_format(&path) == Some(RdfFormat::NQuads) {
                    "nq"
                } else {
                    "nt"
                };
                let prefix = tmp.join(format!("{files}.{ext}"));
                std::fs::write(&prefix, &text[..cut]).expect("write");
                let (got, stats) = fast(&prefix, 2);
                let want = reference(&prefix);
                assert_eq!(got.len(), want.len(), "{}", path.display());
                if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                    panic!(
                        "{}: statement {i}: {:?} vs {:?}",
                        path.display(),
                        got[i],
                        want[i]
                    );
                }
                files += 1;
                statements += stats.statements;
                slow += stats.slow_lines;
            }
        }
        std::fs::remove_dir_all(&tmp).ok();
        assert!(files >= 20, "{files} files");
        // the fast reader reads nearly everything itself
        assert!(
            slow * 100 < statements,
            "{slow} of {statements} lines went to oxrdfio"
        );
    }
}
