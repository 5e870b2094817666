//! The indexer and the index on the real RDF of `../shared/data/rdf`: the sameAs.cc
//! classes come out whole, DBpedia, Wikidata, Wikipedia and Freebase IRIs of one
//! thing meet in one class, labels find Q42 in many languages, a malformed file
//! stops the build with its location (or is skipped with `--lenient`), and an
//! interrupted build leaves the previous index intact.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use qajudge::index::Index;
use qajudge::indexer::{build, BuildOptions, IndexerError, Silent};

use crate::require_data;

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("index-tests");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

/// The index of all of `rdf/`, built once (leniently: one file there is malformed).
fn rdf_index(data: &Path) -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let out = tmp("rdf-all");
        let opts = BuildOptions {
            lenient: true,
            ..BuildOptions::default()
        };
        let meta = build(&[data.join("rdf")], &out, &opts, &mut Silent).expect("index builds");
        eprintln!("built {}: {:?}", out.display(), meta.counts);
        Index::open(&out).expect("index opens")
    })
}

fn tsv_iris(gold: &Path, id: &str) -> Vec<String> {
    let tsv = std::fs::read_to_string(gold.join(format!("{id}.tsv"))).expect("tsv");
    tsv.lines()
        .skip(1)
        .filter_map(|l| l.split('\t').next())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

const SAMEAS_CC: [&str; 5] = ["11116", "1133953", "14514123", "4635725", "9994282"];

#[test]
fn sameas_cc_classes_come_out_whole() {
    let data = require_data!();
    let gold = data.join("rdf/sameas-cc-classes/gold");
    // built from the sameAs.cc edges alone, each class has exactly the IRIs its
    // .tsv lists (as written: percent-encoding and http/https twins included)
    let out = tmp("sameas-cc");
    build(
        &[data.join("rdf/sameas-cc-classes")],
        &out,
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect("builds");
    let alone = Index::open(&out).expect("opens");
    // the same index when the IRI text is spilled to disk every 64 KiB
    let spilled_dir = tmp("sameas-cc-spilled");
    build(
        &[data.join("rdf/sameas-cc-classes")],
        &spilled_dir,
        &BuildOptions {
            buffer_bytes: 64 << 10,
            ..BuildOptions::default()
        },
        &mut Silent,
    )
    .expect("builds with spill");
    let spilled = Index::open(&spilled_dir).expect("opens");
    assert_eq!(spilled.meta().counts, alone.meta().counts);
    assert_eq!(spilled.meta().largest_classes, alone.meta().largest_classes);
    for id in SAMEAS_CC {
        for iri in tsv_iris(&gold, id) {
            assert_eq!(
                spilled.sameas(&iri, usize::MAX).expect("lookup"),
                alone.sameas(&iri, usize::MAX).expect("lookup"),
                "{iri}"
            );
        }
    }
    for id in SAMEAS_CC {
        let iris = tsv_iris(&gold, id);
        let first = alone.sameas(&iris[0], usize::MAX).expect("lookup");
        assert_eq!(first.class_size, iris.len(), "class {id}");
        let mut members = first.members.clone();
        members.sort();
        let mut expected = iris.clone();
        expected.sort();
        assert_eq!(members, expected, "class {id}");
        if id == "4635725" {
            assert_eq!(first.class_size, 963);
        }
    }
    // built from all of rdf/, the classes stay whole; the DBpedia–GND link sets add
    // real links into two of them: a GND id into 14514123 (bottle deposit), and four
    // GND ids and de.dbpedia's Leon_Lai into the giant erroneous class 4635725
    let index = rdf_index(&data);
    for id in SAMEAS_CC {
        let iris = tsv_iris(&gold, id);
        let first = index.sameas(&iris[0], usize::MAX).expect("lookup");
        for iri in &iris {
            assert_eq!(
                index.class_of(iri).expect("lookup"),
                first.class,
                "{iri} in class {id}"
            );
        }
        let extra: Vec<&String> = first.members.iter().filter(|m| !iris.contains(m)).collect();
        let expected: Vec<&str> = match id {
            "14514123" => vec!["http://d-nb.info/gnd/4017424-4"],
            "4635725" => vec![
                "http://d-nb.info/gnd/1014858011",
                "http://d-nb.info/gnd/1022190490",
                "http://d-nb.info/gnd/13216924X",
                "http://d-nb.info/gnd/141573511",
                "http://de.dbpedia.org/resource/Leon_Lai",
            ],
            _ => vec![],
        };
        assert_eq!(extra, expected, "class {id}");
    }
}

#[test]
fn one_thing_across_graphs() {
    let data = require_data!();
    let index = rdf_index(&data);
    let class = |iri: &str| index.class_of(iri).expect("lookup");
    // English and German DBpedia through GND
    let bang = class("http://dbpedia.org/resource/!!!");
    assert!(bang.is_some());
    assert_eq!(bang, class("http://de.dbpedia.org/resource/!!!"));
    // Douglas Adams: Wikidata, Wikipedia (sitelink), DBpedia (canonical form of the
    // Wikipedia article), Freebase (P646)
    let q42 = class("http://www.wikidata.org/entity/Q42");
    assert!(q42.is_some());
    for iri in [
        "https://en.wikipedia.org/wiki/Douglas_Adams",
        "http://dbpedia.org/resource/Douglas_Adams",
        "http://rdf.freebase.com/ns/m.0282x",
        "https://www.wikidata.org/wiki/Q42",
        "https://de.wikipedia.org/wiki/Douglas_Adams",
    ] {
        assert_eq!(class(iri), q42, "{iri}");
    }
    // the redirect written as owl:sameAs in small_dump.ttl
    assert!(class("http://www.wikidata.org/entity/Q6825").is_some());
    assert_eq!(
        class("http://www.wikidata.org/entity/Q6825"),
        class("http://www.wikidata.org/entity/Q26709563")
    );
    // unknown IRIs are a class of one
    let unknown = index
        .sameas("http://example.org/nothing", 10)
        .expect("lookup");
    assert_eq!((unknown.class, unknown.class_size), (None, 1));
}

#[test]
fn labels_find_q42_in_many_languages() {
    let data = require_data!();
    let index = rdf_index(&data);
    let q42 = "http://www.wikidata.org/entity/Q42";
    let en = index
        .labels("Douglas Adams", Some("en"), 0)
        .expect("labels");
    assert!(en.iter().any(|h| h.iri == q42), "{en:?}");
    let all = index.labels("douglas  ADAMS", None, 0).expect("labels");
    let mut langs: Vec<&str> = all
        .iter()
        .filter(|h| h.iri == q42)
        .map(|h| h.lang.as_str())
        .collect();
    langs.sort();
    langs.dedup();
    assert!(langs.len() >= 10, "{langs:?}");
    let fuzzy = index.labels("Duglas Adams", Some("en"), 1).expect("labels");
    assert!(fuzzy.iter().any(|h| h.iri == q42));
    let types = index.types(q42).expect("types");
    assert!(
        types.contains(&"http://www.wikidata.org/entity/Q5".to_string()),
        "{types:?}"
    );
}

#[test]
fn malformed_file_stops_with_location_or_is_skipped() {
    let data = require_data!();
    let bad = data
        .join("rdf/dbpedia-links/dbpedia.org/learning-provider.data.ac.uk/uk-university-links.nt");
    let out = tmp("uk");
    if out.exists() {
        std::fs::remove_dir_all(&out).expect("clean");
    }
    let err = build(
        std::slice::from_ref(&bad),
        &out,
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect_err("malformed");
    let msg = err.to_string();
    assert!(matches!(err, IndexerError::Syntax { line: 1, .. }), "{msg}");
    assert!(
        msg.contains("uk-university-links.nt:1:") && msg.contains("--lenient"),
        "{msg}"
    );
    assert!(!out.exists(), "a failed build writes nothing");
    let opts = BuildOptions {
        lenient: true,
        ..BuildOptions::default()
    };
    // leniently, the bare CRs are read as the grammar allows: all 174 statements
    // are well-formed (two hold truncated IRIs, which no parser can tell), so none
    // is skipped; the damage is a warning in the metadata
    let meta = build(&[bad], &out, &opts, &mut Silent).expect("lenient build");
    assert_eq!(
        (meta.counts.statements, meta.counts.skipped),
        (174, 0),
        "{:?}",
        meta.counts
    );
    assert!(
        meta.inputs[0].warnings[0].contains("bare carriage-return"),
        "{:?}",
        meta.inputs[0]
    );
    // a really malformed statement is skipped and counted
    let broken = write(
        &tmp("broken.nt"),
        "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .\n<http://a.org/2> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/has space> .\n<http://c.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://d.org/1> .\n",
    );
    let err = build(
        std::slice::from_ref(&broken),
        &tmp("broken"),
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect_err("malformed");
    assert!(err.to_string().contains("broken.nt:2:"), "{err}");
    let meta = build(&[broken], &tmp("broken"), &opts, &mut Silent).expect("lenient build");
    assert_eq!(
        (
            meta.counts.statements,
            meta.counts.skipped,
            meta.counts.classes
        ),
        (2, 1, 2),
        "{:?}",
        meta.counts
    );
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::write(path, text).expect("written");
    path.to_path_buf()
}

#[test]
fn closure_does_not_depend_on_order_and_failed_builds_keep_the_old_index() {
    let a = write(
        &tmp("a.nt"),
        "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .\n<http://c.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://d.org/1> .\n",
    );
    let b = write(
        &tmp("b.ttl"),
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n<http://b.org/1> owl:sameAs <http://c.org/1> .\n<http://x.org/9> owl:sameAs <http://y.org/9> .\n",
    );
    let ab = tmp("order-ab");
    let ba = tmp("order-ba");
    build(
        &[a.clone(), b.clone()],
        &ab,
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect("ab");
    build(
        &[b.clone(), a.clone()],
        &ba,
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect("ba");
    let (ab, ba) = (Index::open(&ab).expect("ab"), Index::open(&ba).expect("ba"));
    for iri in [
        "http://a.org/1",
        "http://d.org/1",
        "http://x.org/9",
        "http://zzz.org/0",
    ] {
        assert_eq!(
            ab.sameas(iri, 100).expect("ab"),
            ba.sameas(iri, 100).expect("ba"),
            "{iri}"
        );
    }
    assert_eq!(ab.sameas("http://a.org/1", 100).expect("a").class_size, 4);
    assert_eq!(ab.meta().counts, ba.meta().counts);

    // a build that fails leaves the previous index whole
    let out = tmp("kept");
    build(
        std::slice::from_ref(&a),
        &out,
        &BuildOptions::default(),
        &mut Silent,
    )
    .expect("first");
    let bad = write(
        &tmp("bad.nt"),
        "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/2 .\n",
    );
    // what an interrupted build left (a process no longer running: pid > pid_max)
    let name = out.file_name().and_then(|n| n.to_str()).expect("name");
    let stale = out.with_file_name(format!(".{name}.tmp-4294967290"));
    std::fs::create_dir_all(stale.join("spill")).expect("stale dir");
    std::fs::write(stale.join("spill/spill-0"), b"left over").expect("stale file");
    assert!(build(&[b, bad], &out, &BuildOptions::default(), &mut Silent).is_err());
    assert!(!stale.exists(), "a stale temporary directory is removed");
    let own = out.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    assert!(
        !own.exists(),
        "a failed build removes its temporary directory"
    );
    let kept = Index::open(&out).expect("the old index still opens");
    assert_eq!(
        kept.sameas("http://a.org/1", 10)
            .expect("lookup")
            .class_size,
        2
    );

    // another format version is refused with a way out
    let meta_path = out.join("meta.json");
    let text = std::fs::read_to_string(&meta_path).expect("meta");
    std::fs::write(
        &meta_path,
        text.replace(
            &format!(
                "\"format_version\": {}",
                qajudge::index::format::FORMAT_VERSION
            ),
            "\"format_version\": 999",
        ),
    )
    .expect("edited");
    let err = Index::open(&out).err().expect("refused").to_string();
    assert!(
        err.contains("version 999") && err.contains("rebuild"),
        "{err}"
    );
}

#[test]
fn a_named_pipe_is_read_like_a_file() {
    let dir = tmp("fifo");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("clean");
    }
    std::fs::create_dir_all(&dir).expect("dir");
    let pipe = dir.join("dump.nt");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", pipe.display());
    // another program writes the dump into the pipe while the build reads it
    let writer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || {
            std::fs::write(
                &pipe,
                "<http://a.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://b.org/1> .\n<http://b.org/1> <http://www.w3.org/2002/07/owl#sameAs> <http://c.org/1> .\n",
            )
            .expect("written into the pipe");
        })
    };
    let out = dir.join("index");
    let meta = build(&[pipe], &out, &BuildOptions::default(), &mut Silent).expect("builds");
    writer.join().expect("writer");
    assert_eq!((meta.counts.statements, meta.counts.classes), (2, 1));
    let index = Index::open(&out).expect("opens");
    assert_eq!(
        index
            .sameas("http://c.org/1", 10)
            .expect("lookup")
            .class_size,
        3
    );
}

/// A copy of a committed index fixture in a scratch directory (opening writes
/// RocksDB's log beside the files, which must not touch the checkout).
fn fixture_copy(name: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    // a place of its own per call: tests running at once copy one fixture
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let to = tmp(&format!("fixture-{name}-{call}"));
    if to.exists() {
        std::fs::remove_dir_all(&to).expect("clean");
    }
    let mut stack = vec![(from.clone(), to.clone())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst).expect("dir");
        for entry in std::fs::read_dir(&src)
            .unwrap_or_else(|e| panic!("{}: {e}: the fixture is committed", src.display()))
        {
            let path = entry.expect("entry").path();
            let target = dst.join(path.file_name().expect("name"));
            if path.is_dir() {
                stack.push((path, target));
            } else {
                std::fs::copy(&path, &target).expect("copied");
            }
        }
    }
    to
}

/// The index of the demo graph written by the current format version opens and
/// answers as it did when committed; when the format version changes, this
/// fixture must be written anew (and the one before it kept for the next test).
#[test]
fn an_index_of_the_current_format_version_keeps_opening() {
    let version = qajudge::index::format::FORMAT_VERSION;
    let index = Index::open(&fixture_copy(&format!("index-v{version}")))
        .expect("an index of the current format version opens");
    assert_eq!(index.meta().format_version, version);
    let obama = index
        .sameas("http://www.wikidata.org/entity/Q76", 10)
        .expect("lookup");
    assert!(
        obama
            .members
            .contains(&"http://dbpedia.org/resource/Barack_Obama".to_string()),
        "{obama:?}"
    );
    assert!(!index
        .labels("barack obama", None, 0)
        .expect("labels")
        .is_empty());
    assert_eq!(
        index
            .name("http://dbpedia.org/resource/Barack_Obama", "ru", 1000)
            .expect("name")
            .as_deref(),
        Some("Барак Обама"),
        "through the sameAs class"
    );
    assert_eq!(
        index
            .names("http://dbpedia.org/resource/Barack_Obama")
            .expect("names")
            .len(),
        2
    );
}

/// The format test of the mapped key table (format 6): the demo graph's
/// index of the previous format (version 5, read with positioned reads) and
/// of the current one (mapped; and the same files read) answer every IRI of
/// every class — its class, its members, its types — and IRIs the graph
/// lacks, the same.
#[test]
fn the_previous_format_and_the_mapped_one_answer_every_iri_the_same() {
    let version = qajudge::index::format::FORMAT_VERSION;
    let previous = Index::open(&fixture_copy(&format!("index-v{}", version - 1))).expect("opens");
    let current_dir = fixture_copy(&format!("index-v{version}"));
    let mapped = Index::open(&current_dir).expect("opens");
    let read = Index::open_read(&current_dir).expect("opens");
    assert_eq!(
        (previous.access(), mapped.access(), read.access()),
        ("read", "mapped", "read")
    );
    let classes = previous.meta().counts.classes;
    assert_eq!(classes, mapped.meta().counts.classes);
    let mut iris = vec![
        "http://example.org/none".to_string(),
        "https://example.org/Barack_Obama".to_string(),
    ];
    for class in 0..u32::try_from(classes).expect("few") {
        let members = previous.members(class).expect("members");
        assert_eq!(
            members,
            mapped.members(class).expect("members"),
            "class {class}"
        );
        assert_eq!(
            members,
            read.members(class).expect("members"),
            "class {class}"
        );
        iris.extend(members);
    }
    assert!(iris.len() > 20, "{iris:?}");
    for iri in &iris {
        for limit in [1, 3, 100] {
            let want = previous.sameas(iri, limit).expect("lookup");
            assert_eq!(want, mapped.sameas(iri, limit).expect("lookup"), "{iri}");
            assert_eq!(want, read.sameas(iri, limit).expect("lookup"), "{iri}");
        }
        assert_eq!(
            previous.types(iri).expect("types"),
            mapped.types(iri).expect("types"),
            "{iri}"
        );
    }
    // past the last class: an error on every path, never a panic
    assert!(mapped
        .members(u32::try_from(classes).expect("few"))
        .is_err());
}

/// A mapped file cut shorter than `meta.json` records is refused when the
/// index opens (never mapped), and one cut under an open index is seen by
/// `is_whole` (what `/health` reports) without reading it.
#[test]
fn a_mapped_file_of_another_length_is_refused_and_a_cut_one_is_seen() {
    let version = qajudge::index::format::FORMAT_VERSION;
    let dir = fixture_copy(&format!("index-v{version}"));
    let index = Index::open(&dir).expect("opens");
    assert!(index.is_whole());
    let members = dir.join("sameas.members");
    let len = std::fs::metadata(&members).expect("a file").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&members)
        .expect("opened")
        .set_len(len / 2)
        .expect("cut");
    assert!(!index.is_whole(), "the cut is seen");
    drop(index);
    // a file larger than 64 MiB has no checksum: the length alone refuses it
    let meta_path = dir.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).expect("meta")).expect("json");
    meta["checksums"]
        .as_object_mut()
        .expect("checksums")
        .remove("sameas.members");
    std::fs::write(&meta_path, meta.to_string()).expect("written");
    let err = Index::open(&dir).err().expect("refused").to_string();
    assert!(
        err.contains("sameas.members") && err.contains(&format!("records {len}")),
        "{err}"
    );
}

/// An index written by the version before the oldest one read (committed as
/// that version wrote it) is refused with the way out: rebuild. (Version 4, read
/// without names, is tested in `names.rs`.)
#[test]
fn an_index_of_an_unread_format_version_asks_for_a_rebuild() {
    let version = qajudge::index::format::FORMAT_VERSION;
    let oldest = qajudge::index::format::OLDEST_READABLE_VERSION;
    let dir = fixture_copy(&format!("index-v{}", oldest - 1));
    let err = Index::open(&dir).err().expect("refused");
    assert!(
        matches!(err, qajudge::index::IndexError::Version { found, expected, .. }
            if found == oldest - 1 && expected == version),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.contains("rebuild") && message.contains("qajudge index build"),
        "{message}"
    );
}

/// A way to damage a file's bytes.
type Damage = Box<dyn Fn(&mut Vec<u8>)>;

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("readable") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
        }
    }
}

#[test]
fn a_damaged_index_is_an_error_or_the_right_answer_never_a_panic() {
    use crate::cli::{demo_index, qajudge, stderr};
    let built = PathBuf::from(demo_index());
    let iris = [
        "http://dbpedia.org/resource/Barack_Obama",
        "http://www.wikidata.org/entity/Q76",
        "http://dbpedia.org/resource/Paris",
        "http://example.org/none",
    ];
    let ask = |dir: &Path| {
        let d = dir.display().to_string();
        let mut sameas = vec!["sameas", "--index", &d];
        sameas.extend(iris);
        [
            qajudge(&sameas),
            qajudge(&["labels", "--index", &d, "Barack Obama"]),
            qajudge(&["types", "--index", &d, iris[0]]),
        ]
    };
    let right: Vec<Vec<u8>> = ask(&built).iter().map(|o| o.stdout.clone()).collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&built)
        .expect("readable")
        .chain(std::fs::read_dir(built.join("kv")).expect("readable"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "LOG" && n != "LOCK"))
        .collect();
    files.sort();
    let (mut refused, mut same) = (0, 0);
    for file in &files {
        let len = std::fs::metadata(file).expect("size").len() as usize;
        let relative = file.strip_prefix(&built).expect("inside");
        let mut damages: Vec<(String, Damage)> = Vec::new();
        for at in [0, 1, len / 3, len / 2, len.saturating_sub(1)] {
            if at < len {
                damages.push((
                    format!("byte {at} flipped"),
                    Box::new(move |b: &mut Vec<u8>| b[at] ^= 0xff),
                ));
            }
        }
        damages.push((
            "cut in half".into(),
            Box::new(move |b: &mut Vec<u8>| b.truncate(len / 2)),
        ));
        damages.push(("emptied".into(), Box::new(|b: &mut Vec<u8>| b.clear())));
        for (what, damage) in &damages {
            let dir = tmp("damaged-index");
            let _ = std::fs::remove_dir_all(&dir);
            copy_tree(&built, &dir);
            let target = dir.join(relative);
            let mut bytes = std::fs::read(&target).expect("readable");
            damage(&mut bytes);
            std::fs::write(&target, bytes).expect("written");
            for (o, expected) in ask(&dir).iter().zip(&right) {
                let case = format!("{} {what}", relative.display());
                assert_ne!(o.status.code(), Some(101), "{case}: a panic: {}", stderr(o));
                if o.status.success() {
                    assert_eq!(&o.stdout, expected, "{case}: a different answer");
                    same += 1;
                } else {
                    // a located error that says to build the index again
                    let e = stderr(o);
                    assert!(
                        e.contains("rebuild the index") || e.contains("qajudge index build --out"),
                        "{case}: {e}"
                    );
                    refused += 1;
                }
            }
        }
    }
    eprintln!(
        "{} files damaged: {refused} refusals, {same} right answers",
        files.len()
    );
    assert!(refused > 0 && files.len() >= 8, "{files:?}");
}

/// A damaged class offset whose pair overflows (start past 2⁶⁴ − 4, end at
/// the top) or points past the members file is an error naming the file, on
/// the mapped path and on the read path, never a panic or a huge allocation.
#[test]
fn a_class_offset_past_the_file_is_an_error_on_both_paths() {
    let version = qajudge::index::format::FORMAT_VERSION;
    let dir = fixture_copy(&format!("index-v{version}"));
    let classes = dir.join("sameas.classes");
    let mut bytes = std::fs::read(&classes).expect("classes");
    // class 1: starts at u64::MAX - 2, ends at u64::MAX
    bytes[8..16].copy_from_slice(&(u64::MAX - 2).to_le_bytes());
    bytes[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    std::fs::write(&classes, &bytes).expect("written");
    // its checksum no longer holds: drop it, as a file past 64 MiB has none
    let meta_path = dir.join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&meta_path).expect("meta")).expect("json");
    meta["checksums"]
        .as_object_mut()
        .expect("checksums")
        .remove("sameas.classes");
    std::fs::write(&meta_path, meta.to_string()).expect("written");
    for index in [
        Index::open(&dir).expect("opens"),
        Index::open_read(&dir).expect("opens"),
    ] {
        let err = index.members(1).expect_err("damaged").to_string();
        assert!(
            err.contains("sameas.classes") && err.contains("class 1"),
            "{}: {err}",
            index.access()
        );
    }
}
