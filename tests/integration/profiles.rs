//! Cross-graph matching with an index and the three profiles of docs/scoring.md (Profiles), on
//! real runs (MQALD, NLIWOD) and on the built-in example with an index built from
//! the small RDF file the project writes (`tests/data/demo/kg.ttl`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use qajudge::eval::{
    evaluate_with, Experiment, IndexRef, Options, Profile, QuestionReport, Report, Run,
};
use qajudge::index::Index;
use qajudge::indexer::{build, BuildOptions, Silent};
use qajudge::model::Dataset;

use crate::data::{eval_run, load};
use crate::require_data;

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/demo")
        .join(name)
}

/// The demo index, built once per test binary.
fn demo_index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profiles-demo-index");
        build(
            &[demo("kg.ttl")],
            &out,
            &BuildOptions::default(),
            &mut Silent,
        )
        .expect("the demo index builds");
        Index::open(&out).expect("the demo index opens")
    })
}

fn run(
    gold: &Dataset,
    run: &Dataset,
    profile: Profile,
    experiments: &[Experiment],
    index: Option<&Index>,
) -> Report {
    eval_run(
        gold,
        run,
        "run",
        Options {
            profile,
            experiments: experiments.to_vec(),
            explain: true,
            ..Options::default()
        },
        index.map(|i| IndexRef {
            equivalence: i,
            path: "demo-index",
            format_version: i.meta().format_version,
            built: None,
            names: None,
        }),
    )
}

fn qa(report: &Report) -> &qajudge::eval::ExperimentReport {
    report.runs[0].experiments.qa.as_ref().expect("qa scored")
}

/// (TP, FP, FN) of a question.
type Counts = (usize, usize, usize);

fn counts(q: &QuestionReport) -> Counts {
    (q.score.tp, q.score.fp, q.score.fn_)
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-12, "{what}: {a} != {b}");
}

#[test]
fn cross_graph_run_scores_one_under_judge_and_less_under_gerbil() {
    let gold = load(&demo("gold.json"));
    let cross = load(&demo("cross-graph.json"));
    let index = demo_index();

    // judge: Wikidata (entity and wiki forms), Wikipedia and Freebase IRIs, labels,
    // a dateTime for a date, are all the gold's answers
    let judge = run(
        &gold,
        &cross,
        Profile::Judge,
        &[Experiment::Qa],
        Some(index),
    );
    let a = &qa(&judge).aggregate;
    for (what, v) in [
        ("micro F1", a.micro.expect("micro").f1),
        ("macro F1", a.macro_.f1),
        ("Macro F1 QALD", a.macro_qald.f1),
    ] {
        close(v, 1.0, what);
    }
    let q = &qa(&judge).questions;
    let rules: Vec<&str> = q
        .iter()
        .flat_map(|q| &q.explanation.as_ref().expect("explained").pairs)
        .map(|p| p.rule)
        .collect();
    for rule in ["sameas", "label", "date", "canonical_iri", "boolean"] {
        assert!(rules.contains(&rule), "{rule} in {rules:?}");
    }

    // gerbil, for the reasons GERBIL has
    let gerbil = run(
        &gold,
        &cross,
        Profile::Gerbil,
        &[Experiment::Qa],
        Some(index),
    );
    assert_eq!(gerbil.profile, "gerbil");
    let g = &qa(&gerbil).questions;
    // q1 mixes an IRI and a string: the set is typed as strings, so wd:Q76 is the
    // string "http://www.wikidata.org/entity/Q76" (no label finds it), while the
    // string "Maya Soetoro-Ng" still finds its IRI through the label
    assert_eq!(counts(&g[0]), (1, 1, 1));
    // q2: literals are exact strings, "1961-08-04T00:00:00Z" is not "1961-08-04"
    assert_eq!(counts(&g[1]), (0, 1, 1));
    // q7: "Honolulu" labels dbr:Honolulu and wd:Q18094; each candidate is its own
    // answer: one true positive, one false positive
    assert_eq!(counts(&g[6]), (1, 1, 0));
    // the run's Wikidata, Wikipedia and Freebase IRIs match through the run's class
    for i in [4, 5, 8, 9] {
        assert_eq!((g[i].score.fp, g[i].score.fn_), (0, 0), "q{}", g[i].id);
    }
    assert!(qa(&gerbil).aggregate.macro_qald.f1 < 1.0);
    for (j, g) in q.iter().zip(g) {
        if ![0, 1, 6].contains(&j.id.parse::<usize>().map_or(0, |n| n - 1)) {
            assert_eq!(counts(j), counts(g), "q{} same under both", j.id);
        }
    }

    // without the index the judge cannot see that these are the same things
    let plain = run(&gold, &cross, Profile::Judge, &[Experiment::Qa], None);
    assert!(qa(&plain).aggregate.macro_.f1 < 0.6);
    assert!(plain.diagnostics.iter().any(|d| d.contains("no index")));
}

#[test]
fn index_types_and_equivalent_classes_feed_ait2kb() {
    let gold = load(&demo("gold.json"));
    let cross = load(&demo("cross-graph.json"));
    let index = demo_index();
    let with = run(
        &gold,
        &cross,
        Profile::Judge,
        &[Experiment::Ait2kb],
        Some(index),
    );
    let ait = with.runs[0].experiments.ait2kb.as_ref().expect("ait2kb");
    // q6: gold dbr:Michelle_Obama is a dbo:Person, the run's wd:Q13133 a wd:Q5;
    // dbo:Person owl:equivalentClass wd:Q5 in the index
    let q6 = &ait.questions[5];
    assert_eq!(counts(q6), (1, 0, 0), "{:?}", q6.explanation);
    // without an index (and no query classes) AIT2KB is not evaluable
    let without = run(&gold, &cross, Profile::Judge, &[Experiment::Ait2kb], None);
    let ait = without.runs[0].experiments.ait2kb.as_ref();
    assert!(ait.is_none_or(|a| a.aggregate.not_evaluable > 0));
}

#[test]
fn mqald_profile_reproduces_the_mqald_tool() {
    let dir = require_data!();
    let gold = load(&dir.join("mqald/MQALD.json"));
    // (system, mean P, mean R, mean F, F-QALD) as the MQALD tool's Eval computes
    // them: first answer object, value strings, the QALD rule for empty answers.
    // Checked against an independent re-implementation of its QaldEval.
    for (system, p, r, f, fq) in [
        (
            "GAnswer",
            0.4972658029561606,
            0.03723684523984692,
            0.031217565874288842,
            0.06928538075626722,
        ),
        (
            "QAnswer",
            0.549508795487001,
            0.08335503149332936,
            0.05596516668697975,
            0.14475253917492134,
        ),
        (
            // q100's "5000000.0^^http://dbpedia.org/datatype/usDollar" is compared
            // as written, so it does not equal the gold's "5000000.0"
            "TeBaQA",
            0.5313238770685579,
            0.038849487785658,
            0.04587670013201928,
            0.0724048569953145,
        ),
    ] {
        let sys = load(&dir.join(format!("mqald/out/MQALD-test-{system}.json")));
        let report = run(&gold, &sys, Profile::Mqald, &[], None);
        assert_eq!(report.profile, "mqald");
        let e = &report.runs[0].experiments;
        assert!(
            e.c2kb.is_none() && e.ait2kb.is_none(),
            "mqald scores QA only"
        );
        let a = &qa(&report).aggregate;
        assert_eq!(a.evaluated, 141, "{system}");
        assert!(a.micro.is_none(), "mqald reports no micro measures");
        close(a.macro_.precision, p, system);
        close(a.macro_.recall, r, system);
        close(a.macro_.f1, f, system);
        close(a.macro_qald.f1, fq, system);
    }
}

#[test]
fn mqald_rules_on_a_missing_question_and_variables() {
    let dir = require_data!();
    let gold = load(&dir.join("mqald/MQALD.json"));
    let mut sys = load(&dir.join("mqald/out/MQALD-test-QAnswer.json"));
    let removed = sys.questions.remove(0);
    let report = run(&gold, &sys, Profile::Mqald, &[], None);
    let q = qa(&report)
        .questions
        .iter()
        .find(|q| q.id == removed.id.0)
        .expect("question kept");
    // a missing run question: P = 1, R = 0, F = 0
    assert_eq!(
        (q.score.precision, q.score.recall, q.score.f1),
        (1.0, 0.0, 0.0)
    );
    // the same question under judge is an empty answer: P = 0
    let judge = run(&gold, &sys, Profile::Judge, &[Experiment::Qa], None);
    let j = qa(&judge)
        .questions
        .iter()
        .find(|q| q.id == removed.id.0)
        .expect("question kept");
    assert_eq!((j.score.precision, j.score.recall), (0.0, 0.0));
}

#[test]
fn gerbil_profile_on_nliwod_runs() {
    let dir = require_data!();
    let gold9 = load(&dir.join("qald/9/qald-9-train-multilingual.json"));
    let qanswer = load(&dir.join("systems/nliwod/qald9/QANSWER_QALD9_Train.json"));
    let judge = run(&gold9, &qanswer, Profile::Judge, &[Experiment::Qa], None);
    let gerbil = run(&gold9, &qanswer, Profile::Gerbil, &[], None);
    // every question scores the same except two whose answer sets mix IRIs with
    // literals: GERBIL types such a set as strings, so its IRIs match nothing
    let differ: Vec<(&str, Counts, Counts)> = qa(&judge)
        .questions
        .iter()
        .zip(&qa(&gerbil).questions)
        .filter(|(j, g)| counts(j) != counts(g))
        .map(|(j, g)| (j.id.as_str(), counts(j), counts(g)))
        .collect();
    assert_eq!(
        differ,
        vec![
            // three actors' IRIs with their birth dates
            ("152", (3, 7, 0), (0, 10, 3)),
            // two awards' IRIs with a membership written as a string
            ("221", (2, 1, 1), (0, 3, 3)),
        ]
    );
    // sub-experiments are scored the GERBIL way: no AIT2KB
    let e = &gerbil.runs[0].experiments;
    assert!(e.c2kb.is_some() && e.p2kb.is_some() && e.ait2kb.is_none());

    // QASystem writes IRIs as literals: GERBIL reads a set whose values all look
    // like IRIs as IRIs, the judge keeps each term's kind
    let gold8 = load(&dir.join("qald/8/qald-8-train-multilingual.json"));
    let qasystem = load(&dir.join("systems/nliwod/qald8/QASystem_QALD8_Train.json"));
    let judge = run(&gold8, &qasystem, Profile::Judge, &[Experiment::Qa], None);
    let gerbil = run(&gold8, &qasystem, Profile::Gerbil, &[Experiment::Qa], None);
    let find = |r: &Report, id: &str| {
        counts(
            qa(r)
                .questions
                .iter()
                .find(|q| q.id == id)
                .expect("question"),
        )
    };
    assert_eq!(find(&judge, "61"), (0, 2, 2));
    assert_eq!(find(&gerbil, "61"), (2, 0, 0));
    // and compares literals as exact strings: a boolean answer is not the gold's
    // literal "false"
    assert_eq!(find(&judge, "47"), (1, 0, 0));
    assert_eq!(find(&gerbil, "47"), (0, 1, 1));
}

#[test]
fn paired_significance_between_real_runs() {
    let dir = require_data!();
    let gold = load(&dir.join("qald/9/qald-9-train-multilingual.json"));
    let ganswer = load(&dir.join("systems/nliwod/qald9/GANSWER2_QALD9_Train.json"));
    let tebaqa = load(&dir.join("systems/nliwod/qald9/TeBaQA_QALD9_Train.json"));
    let report = evaluate_with(
        &gold,
        "gold",
        &[
            Run {
                name: "gAnswer",
                source: "g",
                dataset: &ganswer,
            },
            Run {
                name: "TeBaQA",
                source: "t",
                dataset: &tebaqa,
            },
            Run {
                name: "gAnswer again",
                source: "g",
                dataset: &ganswer,
            },
        ],
        Options {
            experiments: vec![Experiment::Qa],
            ..Options::default()
        },
        None,
    );
    // three runs: three pairs on QA
    assert_eq!(report.comparisons.len(), 3);
    let c = &report.comparisons[0];
    assert_eq!(
        (c.run_a.as_str(), c.run_b.as_str(), c.experiment),
        ("gAnswer", "TeBaQA", "qa")
    );
    assert_eq!(c.significance.questions, 408);
    // macro F1 0.445 against 0.169 over 408 questions: clearly significant
    assert!(c.significance.f1_difference > 0.2, "{c:?}");
    assert!(
        c.significance.p_f1 < 0.001 && c.significance.p_macro_f1_qald < 0.001,
        "{c:?}"
    );
    // a run against itself: no difference, p = 1
    let same = report
        .comparisons
        .iter()
        .find(|c| c.run_a == "gAnswer" && c.run_b == "gAnswer again")
        .expect("self comparison");
    assert_eq!(
        (same.significance.f1_difference, same.significance.p_f1),
        (0.0, 1.0)
    );
}

/// gAnswer binds several variables per row; GERBIL's rules flatten the rows into
/// more answers than rows, and the notes about unmatched answers must read the
/// flattened answers (they indexed the rows and panicked before).
#[test]
fn gerbil_profile_on_rows_of_several_variables() {
    let dir = require_data!();
    let gold = load(&dir.join("mqald/MQALD.json"));
    let ganswer = load(&dir.join("mqald/out/MQALD-test-GAnswer.json"));
    let report = run(&gold, &ganswer, Profile::Gerbil, &[Experiment::Qa], None);
    let qa = qa(&report);
    assert_eq!(qa.aggregate.questions, 141);
    assert_eq!(qa.questions.len(), 141);
    // some row held more than one variable: flattened, it counts more answers
    let rows: usize = ganswer
        .questions
        .iter()
        .filter_map(|q| q.answers.as_ref())
        .map(|a| a.answers.len())
        .sum();
    let counted: usize = qa.questions.iter().map(|q| q.score.tp + q.score.fp).sum();
    assert!(counted > rows, "{counted} answers counted for {rows} rows");
}
