//! The checks the fuzz targets run on whatever bytes AFL++ hands them: beside
//! "no panic", the invariants each parser promises. Each target is a thin
//! `afl::fuzz!` around one of these; the regression tests of the main package
//! keep every input a run found.

use std::collections::BTreeMap;

use qajudge::model::{Dataset, Format, Question, Term};

/// A benchmark or run in any format (`qald::parse` detects it): the fast and the
/// tolerant QALD-JSON paths agree, and what was read, written as QALD-JSON and
/// read again, keeps its ids, queries and answers.
pub fn check_benchmark(bytes: &[u8]) {
    let fast = qajudge::qald::parse(bytes, "fuzz");
    let tolerant = qajudge::qald::parse_tolerant(bytes, "fuzz");
    match (&fast, &tolerant) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                a.questions, b.questions,
                "the fast and tolerant paths differ"
            );
            assert_eq!(
                (a.format, &a.id, &a.diagnostics, &a.unknown_keys, &a.lost),
                (b.format, &b.id, &b.diagnostics, &b.unknown_keys, &b.lost),
                "the fast and tolerant paths differ"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("one path fails: fast {a:?}, tolerant {b:?}"),
    }
    if let Ok(dataset) = fast {
        // the memory multiple: what the reader made stays within the bound of
        // what shared parts (aliases, shared nodes, copies) may expand to
        let made = qajudge::qald::dataset_text_bytes(&dataset);
        assert!(
            made <= 2 * qajudge::qald::expansion_limit(bytes.len()),
            "{made} bytes of texts from {} bytes of input",
            bytes.len()
        );
        check_round_trip(&dataset);
    }
}

/// Written as QALD-JSON and read again, a dataset keeps every question's id,
/// query and answers.
fn check_round_trip(dataset: &Dataset) {
    let written = qajudge::qald::to_qald_json(dataset, &BTreeMap::new()).to_string();
    let again = qajudge::qald::parse(written.as_bytes(), "written")
        .unwrap_or_else(|e| panic!("the written dataset does not read: {e}\n{written}"));
    assert_eq!(again.format, Format::QaldJson);
    assert_eq!(again.questions.len(), dataset.questions.len(), "{written}");
    for (a, b) in dataset.questions.iter().zip(&again.questions) {
        assert_eq!(a.id, b.id, "{written}");
        assert_eq!(a.query, b.query, "{written}");
        // a boolean inside a row of several terms is written as an xsd:boolean
        // literal, which docs/scoring.md (Sameness) counts as the same answer
        let terms = |q: &Question| {
            q.answers.as_ref().map(|s| {
                s.answers
                    .iter()
                    .map(|a| match a.terms.as_slice() {
                        [_] => a.terms.clone(),
                        _ => a.terms.iter().map(boolean_as_literal).collect(),
                    })
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(terms(a), terms(b), "question {}: {written}", a.id);
    }
}

/// Every line of the input (split at LF and CR, as the indexer splits them),
/// as N-Triples and as N-Quads: what the fast line reader accepts, the reference
/// parser reads as the same statement.
pub fn check_ntriples(bytes: &[u8]) {
    for line in bytes.split(|&b| b == b'\n' || b == b'\r') {
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        for quads in [false, true] {
            if let Some(diff) = qajudge::indexer::line_reader_disagreement(line, quads) {
                panic!("{line:?} (quads: {quads}): {diff}");
            }
        }
    }
}

fn boolean_as_literal(t: &Term) -> Term {
    match t {
        Term::Boolean(b) => Term::typed(b.to_string(), "http://www.w3.org/2001/XMLSchema#boolean"),
        other => other.clone(),
    }
}

/// The stack a parse may use per level of bracket nesting the scan reports,
/// and the stack it may use besides: a real level takes a few KiB.
const STACK_PER_LEVEL: usize = 16 << 10;
const STACK_BASE: usize = 512 << 10;

/// The depth invariant: a query within the bounds parses on a stack sized from
/// the nesting the scan (`query::bounds::nesting`) reports for it, so a text
/// the scan rates shallower than the parser finds it overflows this stack and
/// aborts the run (a find); one past the bounds is refused by every reader.
fn check_nesting_bound(query: &str) {
    use qajudge::query::bounds;
    let nesting = bounds::nesting(query);
    let refused = qajudge::query::check_bounds(query).is_err_and(|e| e.is_too_large());
    if nesting > bounds::MAX_NESTING || query.len() > bounds::MAX_QUERY_BYTES {
        assert!(refused, "past the bounds but read: {query:?}");
        return;
    }
    let stack = STACK_BASE + nesting * STACK_PER_LEVEL;
    let text = query.to_string();
    let parsed = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || qajudge::query::parse_on_this_thread(&text))
        .expect("thread")
        .join()
        .expect("no panic");
    assert_eq!(
        parsed.as_ref().is_err_and(|e| e.is_too_large()),
        refused,
        "the bounds check and the parse disagree on {query:?}: {parsed:?}"
    );
}

/// A query: walking, annotating and making it executable never panic, and a
/// query made executable (Virtuoso syntax rewritten, predefined prefixes
/// expanded) is standard SPARQL 1.1 with the same IRIs.
pub fn check_sparql(bytes: &[u8]) {
    let Ok(query) = std::str::from_utf8(bytes) else {
        return;
    };
    check_nesting_bound(query);
    let question = Question {
        query: qajudge::model::Query::Sparql(query.to_string()),
        ..Question::default()
    };
    let _ = qajudge::annotate::annotate_question(&question, Default::default());
    let _ = qajudge::annotate::annotate_question_as(
        &question,
        Default::default(),
        qajudge::annotate::MarkingStyle::Gerbil,
    );
    let _ = qajudge::query::dialect::rewrite(query, &[]);
    if let Ok(made) = qajudge::query::executable(query) {
        if !made.strict {
            let again = qajudge::query::executable(&made.text).unwrap_or_else(|e| {
                panic!("the executable text does not parse: {e}\n{}", made.text)
            });
            assert!(
                again.strict,
                "the executable text is not SPARQL 1.1:\n{}",
                made.text
            );
            assert_eq!(again.iris, made.iris, "{}", made.text);
        }
    }
}

/// An IRI (any text): its canonical form is canonical (idempotent), and the
/// other forms never panic.
pub fn check_canonical(bytes: &[u8]) {
    let Ok(iri) = std::str::from_utf8(bytes) else {
        return;
    };
    let once = qajudge::terms::canonical::canonical_iri(iri);
    let twice = qajudge::terms::canonical::canonical_iri(&once);
    assert_eq!(once, twice, "canonical form of {iri:?} is not idempotent");
    assert_eq!(
        qajudge::terms::canonical::canonical_form(iri),
        once.as_str(),
        "{iri:?}"
    );
    let _ = qajudge::terms::canonical::gerbil_iri(iri);
    let _ = qajudge::terms::canonical::freebase_literal_iri(iri);
}

/// The sameAs files of an index of the current format, damaged in place: the
/// first byte picks the file (the two key files, the class offsets, the
/// members, the bucket directory), the next two the offset, the rest is
/// written over the file from there (its length kept, so that the mapped
/// table opens as a file past 64 MiB, which has no checksum, would). Opened
/// mapped and read, every lookup of every key and class the undamaged index
/// holds (and some it does not) is an answer or an error, never a panic or
/// a SIGBUS. The file is restored afterwards.
pub fn check_index(bytes: &[u8]) {
    use qajudge::index::format::{
        IndexMeta, KeyRecord, FORMAT_VERSION, KEY_RECORD, SAMEAS_CLASSES, SAMEAS_DIRECTORY,
        SAMEAS_KEYS, SAMEAS_MEMBERS,
    };
    use qajudge::index::sameas::SameAsTable;
    let [which, lo, hi, over @ ..] = bytes else {
        return;
    };
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../tests/data/index-v{FORMAT_VERSION}"));
    let dir = std::env::temp_dir().join(format!("qajudge-fuzz-index-{}", std::process::id()));
    let files = [
        SAMEAS_KEYS[0],
        SAMEAS_KEYS[1],
        SAMEAS_CLASSES,
        SAMEAS_MEMBERS,
        SAMEAS_DIRECTORY,
    ];
    if !dir.is_dir() {
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        for f in files.iter().chain(&["meta.json"]) {
            std::fs::copy(fixture.join(f), dir.join(f)).expect("the test index");
        }
    }
    let meta: IndexMeta =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).expect("meta")).expect("meta");
    // what the undamaged index holds: every key, and class ids past the last
    let mut keys: Vec<u64> = Vec::new();
    for f in SAMEAS_KEYS {
        let b = std::fs::read(fixture.join(f)).expect("keys");
        keys.extend(b.chunks_exact(KEY_RECORD).map(KeyRecord::key_of));
    }
    keys.extend([0, 1, u64::MAX, 0x8000_0000_0000_0000]);
    let classes = std::fs::metadata(fixture.join(SAMEAS_CLASSES)).map_or(0, |m| m.len() / 8) as u32;
    let name = files[usize::from(*which) % files.len()];
    let original = std::fs::read(fixture.join(name)).expect("the file");
    let mut damaged = original.clone();
    if !damaged.is_empty() {
        let at = usize::from(u16::from_le_bytes([*lo, *hi])) % damaged.len();
        for (d, b) in damaged[at..].iter_mut().zip(over) {
            *d = *b;
        }
    }
    std::fs::write(dir.join(name), &damaged).expect("written");
    let tables = [
        SameAsTable::open_mapped(&dir, &meta.lengths),
        SameAsTable::open(&dir),
    ];
    for table in tables.iter().flatten() {
        for &key in &keys {
            let _ = table.record(key);
            let _ = table.class(key);
            if let Ok(Some((record, list))) = table.lookup(key, 3) {
                let _ = list.bytes().len();
                let _ = table.members_of(&record, 2);
            }
        }
        for class in 0..classes + 2 {
            let _ = table.members(class, 5);
        }
    }
    std::fs::write(dir.join(name), &original).expect("restored");
}
