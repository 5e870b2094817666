//! Real benchmarks and real system runs from `../shared/data`: every file loads
//! (or fails where it is broken on purpose), every gold file scores 1.0 against
//! itself, and real runs give the per-question results verified by hand below.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use qajudge::eval::{QuestionReport, Report, Status};

use qajudge::eval::Experiment;

use crate::data::{eval_one, eval_with, files_below, load};
use crate::require_data;

const BROKEN: [(&str, &str); 2] = [
    // a truncated <answers> element: `</question>` arrives before `</answers>`
    (
        "qald/5/qald-5_train_raw.xml",
        "qald-5_train_raw.xml:8003:1: malformed xml",
    ),
    // a raw control character inside a JSON string
    (
        "fixtures/gerbil/QALD_answersSets/QALD_Boolean.json",
        "QALD_Boolean.json:19:118: invalid json: control character",
    ),
];

/// The benchmark and run files (JSON, XML) below the given folders of the shared
/// data, as (path relative to the data folder, full path).
fn data_files(dir: &Path, subs: &[&str]) -> Vec<(String, PathBuf)> {
    subs.iter()
        .flat_map(|sub| files_below(&dir.join(sub)))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("json" | "xml")))
        .map(|path| {
            let rel = path
                .strip_prefix(dir)
                .expect("below data")
                .to_string_lossy()
                .replace('\\', "/");
            (rel, path)
        })
        .collect()
}

#[test]
fn every_benchmark_and_run_file_loads() {
    let dir = require_data!();
    let mut loaded = 0;
    {
        for (rel, path) in data_files(
            &dir,
            &["qald", "mqald", "systems", "lcquad", "rubq", "fixtures"],
        ) {
            let bytes = std::fs::read(&path).expect("readable");
            let result = qajudge::qald::parse(&bytes, &path.display().to_string());
            match BROKEN.iter().find(|(b, _)| *b == rel) {
                Some((_, expected)) => {
                    let err = result.expect_err(&rel).to_string();
                    assert!(err.contains(expected), "{rel}: {err}");
                    assert!(
                        err.contains("fix the file"),
                        "{rel}: the error must say what to do: {err}"
                    );
                }
                None => {
                    let d = result.unwrap_or_else(|e| panic!("{rel}: {e}"));
                    assert!(!d.questions.is_empty(), "{rel}: no question read");
                    // what a reader makes of a file stays within the bound of
                    // what shared parts may expand to (docs/scoring.md, Limits)
                    let made = qajudge::qald::dataset_text_bytes(&d);
                    assert!(
                        made <= 2 * qajudge::qald::expansion_limit(bytes.len()),
                        "{rel}: {made} bytes of texts from {} bytes",
                        bytes.len()
                    );
                    let problems: Vec<&String> = d
                        .diagnostics
                        .iter()
                        .chain(d.questions.iter().flat_map(|q| &q.diagnostics))
                        // gAnswer's own error messages (status 500) are kept as
                        // diagnostics of their questions, not problems of the file
                        .filter(|d| !d.contains("the system's message: "))
                        .collect();
                    assert!(problems.is_empty(), "{rel}: {problems:?}");
                    loaded += 1;
                }
            }
        }
    }
    assert_eq!(loaded, 73, "number of real files read");
}

fn assert_perfect(report: &Report, what: &str) {
    let qa = report.runs[0]
        .experiments
        .qa
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no QA"));
    assert_eq!(
        (
            qa.aggregate.missing,
            qa.aggregate.extra,
            qa.aggregate.not_evaluable
        ),
        (0, 0, 0),
        "{what}"
    );
    for (name, e) in report.runs[0].experiments.named() {
        let Some(e) = e else { continue };
        let a = &e.aggregate;
        let micro = a
            .micro
            .unwrap_or_else(|| panic!("{what}: {name} has no micro measures"));
        for (measure, v) in [
            ("micro P", micro.precision),
            ("micro R", micro.recall),
            ("micro F1", micro.f1),
            ("macro P", a.macro_.precision),
            ("macro R", a.macro_.recall),
            ("macro F1", a.macro_.f1),
            ("QALD P", a.macro_qald.precision),
            ("QALD R", a.macro_qald.recall),
            ("Macro F1 QALD", a.macro_qald.f1),
        ] {
            assert_eq!(v, 1.0, "{what}: {name} {measure}");
        }
    }
}

#[test]
fn every_gold_file_scores_one_against_itself() {
    let dir = require_data!();
    let mut counts = BTreeMap::new();
    for (rel, path) in data_files(&dir, &["qald", "mqald", "rubq", "fixtures"]) {
        if BROKEN.iter().any(|(b, _)| *b == rel) {
            continue;
        }
        let gold = load(&path);
        if gold.questions.iter().all(|q| q.answers.is_none()) {
            // qald/2/dbpedia-test.xml: questions only
            assert_eq!(rel, "qald/2/dbpedia-test.xml");
            continue;
        }
        let report = eval_one(&gold, &gold, "self");
        assert_perfect(&report, &rel);
        counts.insert(rel, report.gold.questions);
    }
    for (file, n) in &counts {
        eprintln!("{n:>5} questions  {file}");
    }
    for (file, n) in [
        ("qald/9/qald-9-train-multilingual.json", 408),
        ("qald/9/qald-9-test-multilingual.json", 150),
        ("qald/10/qald_10.json", 394),
        ("mqald/MQALD.json", 141),
        ("qald/9plus/qald_9_plus_test_dbpedia.json", 150),
        ("rubq/RuBQ_2.0_dev.json", 580),
        ("rubq/RuBQ_1.0_test.json", 1200),
    ] {
        assert_eq!(counts.get(file), Some(&n), "{file}");
    }
}

#[test]
fn one_benchmark_in_two_formats_agrees() {
    let dir = require_data!();
    let q5_json = load(&dir.join("qald/5/qald-5_train.json"));
    let q5_xml = load(&dir.join("qald/5/qald-5_train.xml"));
    // QA only: the JSON's queries lost their line breaks (see annotate.rs)
    assert_perfect(
        &eval_with(&q5_xml, &q5_json, "json", &[Experiment::Qa]),
        "QALD-5 train JSON against XML",
    );

    let q7_json = load(&dir.join("qald/7/qald-7-train-multilingual.json"));
    for other in [
        "qald/7/qald-7-train-multilingual.xml",
        "qald/7/qald-7-train-multilingual-extended-json.json",
    ] {
        let run = load(&dir.join(other));
        let report = eval_with(&q7_json, &run, other, &[Experiment::Qa]);
        let qa = report.runs[0].experiments.qa.as_ref().expect("qa");
        let imperfect: Vec<&str> = qa
            .questions
            .iter()
            .filter(|q| q.score.f1 < 1.0)
            .map(|q| q.id.as_str())
            .collect();
        if other.ends_with(".xml") {
            // q67: the JSON gold binds its IRIs with the non-standard type "list", which
            // docs/scoring.md (Reading) reads as plain literals; the XML gives the same text untyped,
            // read as IRIs. A term keeps its kind, so they differ.
            assert_eq!(imperfect, vec!["67"], "{other}");
        } else {
            assert!(imperfect.is_empty(), "{other}: {imperfect:?}");
        }
    }
}

fn question<'a>(report: &'a Report, id: &str) -> &'a QuestionReport {
    report.runs[0]
        .experiments
        .qa
        .as_ref()
        .expect("qa")
        .questions
        .iter()
        .find(|q| q.id == id)
        .unwrap_or_else(|| panic!("question {id}"))
}

fn counts(q: &QuestionReport) -> (usize, usize, usize) {
    (q.score.tp, q.score.fp, q.score.fn_)
}

#[test]
fn real_system_runs_evaluate() {
    let dir = require_data!();
    for (gold_file, runs_dir, n) in [
        (
            "qald/8/qald-8-train-multilingual.json",
            "systems/nliwod/qald8",
            219,
        ),
        (
            "qald/9/qald-9-train-multilingual.json",
            "systems/nliwod/qald9",
            408,
        ),
        ("mqald/MQALD.json", "mqald/out", 141),
    ] {
        let gold = load(&dir.join(gold_file));
        for path in files_below(&dir.join(runs_dir)) {
            let run = load(&path);
            let report = eval_one(&gold, &run, "run");
            let qa = report.runs[0].experiments.qa.as_ref().expect("qa");
            let a = &qa.aggregate;
            assert_eq!(
                (a.questions, a.evaluated, a.missing, a.extra),
                (n, n, 0, 0),
                "{}",
                path.display()
            );
            assert_eq!(a.answered + a.empty, n);
            assert!(
                a.macro_qald.f1 > 0.0 && a.macro_qald.f1 < 1.0,
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn hand_verified_per_question_results() {
    let dir = require_data!();
    let q8 = load(&dir.join("qald/8/qald-8-train-multilingual.json"));
    let q9 = load(&dir.join("qald/9/qald-9-train-multilingual.json"));
    let mqald = load(&dir.join("mqald/MQALD.json"));
    let run = |p: &str| load(&dir.join(p));

    // QAKIS percent-encodes titles: `Aida_%28musical%29` is gold `Aida_(musical)`.
    // Gold has 5 musicals, QAKIS returns 4, all right once decoded (exact strings: 1).
    let r = eval_one(
        &q8,
        &run("systems/nliwod/qald8/QAKIS_QALD8_Train.json"),
        "qakis",
    );
    assert_eq!(counts(question(&r, "1")), (4, 0, 1));
    // `Czes%C5%82aw_Mi%C5%82osz` is gold `Czesław_Miłosz`: 7 of QAKIS's 10 Nobel
    // laureates are among the 21 gold ones (exact strings find only 4).
    let r = eval_one(
        &q9,
        &run("systems/nliwod/qald9/QAKIS_QALD9_Train.json"),
        "qakis",
    );
    assert_eq!(counts(question(&r, "33")), (7, 3, 14));

    // GANSWER2 answers QALD-9 q1 (boardgames by GMT) exactly: 8 of 8.
    let r = eval_one(
        &q9,
        &run("systems/nliwod/qald9/GANSWER2_QALD9_Train.json"),
        "ganswer",
    );
    let q = question(&r, "1");
    assert_eq!((counts(q), q.score.f1), ((8, 0, 0), 1.0));
    // q5 (mayor of New York City): empty answer; QALD rule P = 1, R = 0.
    let q = question(&r, "5");
    assert_eq!(
        (
            q.status,
            counts(q),
            q.score.precision,
            q.score.precision_qald,
            q.score.recall_qald
        ),
        (Status::Empty, (0, 0, 1), 0.0, 1.0, 0.0)
    );

    // QASystem writes IRIs as literals ("type": "literal"); a term keeps its kind, so
    // `"http://dbpedia.org/resource/Valparaíso"` does not match the gold IRI, and the
    // report says why.
    let r = eval_one(
        &q8,
        &run("systems/nliwod/qald8/QASystem_QALD8_Train.json"),
        "qasystem",
    );
    let q = question(&r, "8");
    assert_eq!(counts(q), (0, 1, 1));
    assert!(
        q.diagnostics.iter().any(|d| d.contains("hold IRI text")),
        "{:?}",
        q.diagnostics
    );

    // MQALD q106: the gold writes `http://dbpedia.org/page/The_Big_Kahuna_(film)`;
    // gAnswer lists 99 films with `/resource/The_Big_Kahuna_(film)` among them.
    let r = eval_one(&mqald, &run("mqald/out/MQALD-test-GAnswer.json"), "ganswer");
    assert_eq!(counts(question(&r, "106")), (1, 98, 0));
    // q118: gAnswer binds `?Who ?publisher ?author` per row; each row is one answer
    // whose terms are alternatives. Its 4 distinct rows can cover both gold answers
    // (Cervantes, Francisco de Robles) once each: 2 TP, 2 FP.
    assert_eq!(counts(question(&r, "118")), (2, 2, 0));

    // TeBaQA writes `"5000000.0^^http://dbpedia.org/datatype/usDollar"` in a number
    // binding: split, it is the gold's "5000000.0" (one of two gold budgets).
    let r = eval_one(&mqald, &run("mqald/out/MQALD-test-TeBaQA.json"), "tebaqa");
    assert_eq!(counts(question(&r, "100")), (1, 0, 1));
    // QAnswer answers the count "4" as "4"^^xsd:integer; MQALD q8's gold is a plain "4".
    let r = eval_one(&mqald, &run("mqald/out/MQALD-test-QAnswer.json"), "qanswer");
    assert_eq!(counts(question(&r, "8")), (1, 0, 0));
}
