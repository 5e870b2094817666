//! Benchmark families beyond QALD and the profiles that reproduce their
//! official scripts (docs/scoring.md, Other benchmark families): SPINACH's
//! real runs on QALD-10 and QALD-7 scored alone (the run carries its gold) and
//! joined to the QALD-10 gold by question text, and project-written cases
//! whose figures the official script computed.

use std::process::Command;

use crate::require_data;

/// Runs `qajudge evaluate ARGS --format json` and returns the report and its text.
fn evaluate_text(args: &[&str]) -> (serde_json::Value, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .arg("evaluate")
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("qajudge runs");
    assert!(
        o.status.success(),
        "qajudge evaluate {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8(o.stdout).expect("utf-8");
    (serde_json::from_str(&text).expect("a json report"), text)
}

/// Runs `qajudge evaluate ARGS --format json` and returns the report.
fn evaluate(args: &[&str]) -> serde_json::Value {
    evaluate_text(args).0
}

/// True when two figures are equal but for the last bit (serde_json's reading
/// of a float may round differently; the report's text is checked exactly
/// where the figures matter most).
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= f64::EPSILON * b.abs()
}

/// The QA report of the first run.
fn qa(report: &serde_json::Value) -> &serde_json::Value {
    &report["runs"][0]["experiments"]["qa"]
}

/// The official F1 of question `id`.
fn f1_of(qa: &serde_json::Value, id: &str) -> f64 {
    qa["questions"]
        .as_array()
        .and_then(|qs| qs.iter().find(|q| q["id"] == id))
        .and_then(|q| q["official"]["f1"].as_f64())
        .unwrap_or_else(|| panic!("question {id} has no official f1"))
}

/// SPINACH's run on QALD-10 (387 questions) as its official evaluation scores
/// it, to the last digit. The figures below were printed by the official
/// `eval.f1` (stanford-oval/spinach @ 8bb2d9c, scipy 1.17.1, numpy 1.26.4)
/// summed as `calculate_metrics` does, with
/// `python check.py qald10-en-spinach-run.json` where check.py is
/// `tot += f1(e["predicted_answer_tuple"], e["gold_answer_tuple"])` over the
/// entries and prints `tot*100/n`, the % of f1 == 1 and the % of falsy answers:
/// `row-major F1 = 69.54413017835817 EM = 63.049095607235145 none = 5.426356589147287`.
#[test]
fn spinach_qald10_run_scores_as_its_official_evaluation() {
    let data = require_data!();
    let run = data.join("wikidata/spinach/qald10-en-spinach-run.json");
    let (report, text) = evaluate_text(&["--run", run.to_str().unwrap(), "--profile", "spinach"]);
    let qa = qa(&report);
    let official = &qa["aggregate"]["official"];
    assert_eq!(official["evaluated"], 387.0);
    for figure in [
        "\"row_major_f1\": 69.54413017835817",
        "\"row_major_em\": 63.049095607235145",
        "\"none_answers\": 5.426356589147287",
    ] {
        assert!(text.contains(figure), "{figure}");
    }
    // rows of several columns (a label twice beside the id), matched one to one;
    // the official per-question figures
    for (id, f1) in [
        ("183", 0.6153846153846154),
        ("185", 0.7692307692307693),
        ("186", 0.18181818181818182),
        ("221", 0.8),
    ] {
        assert!(
            same(f1_of(qa, id), f1),
            "question {id}: {} != {f1}",
            f1_of(qa, id)
        );
    }
    let notes = report["diagnostics"].to_string();
    assert!(notes.contains("stanford-oval/spinach"), "{notes}");
    let gold = report["gold"].to_string();
    assert!(gold.contains("its own gold"), "{gold}");
}

/// The QALD-7 run (45 questions, a gold of 7,634 rows): same script, same
/// command: `row-major F1 = 74.61716455161164 EM = 62.22222222222222 none = 2.2222222222222223`.
#[test]
fn spinach_qald7_run_scores_as_its_official_evaluation() {
    let data = require_data!();
    let run = data.join("wikidata/spinach/qald7-task4-spinach-run.json");
    let report = evaluate(&["--run", run.to_str().unwrap(), "--profile", "spinach"]);
    let official = &qa(&report)["aggregate"]["official"];
    assert_eq!(official["row_major_f1"], 74.61716455161164);
    assert_eq!(official["row_major_em"], 62.22222222222222);
    assert_eq!(official["none_answers"], 2.2222222222222223);
}

/// A SPINACH run has no ids: against the QALD-10 gold its questions are joined
/// by their text, and the 7 QALD-10 questions it lacks are missing.
#[test]
fn a_run_without_ids_joins_a_gold_by_question_text() {
    let data = require_data!();
    let gold = data.join("qald/10/qald_10.json");
    let run = data.join("wikidata/spinach/qald10-en-spinach-run.json");
    let report = evaluate(&[
        "--gold",
        gold.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ]);
    let agg = &qa(&report)["aggregate"];
    assert_eq!(agg["questions"], 394);
    assert_eq!(agg["missing"], 7);
    assert_eq!(
        report["runs"][0]["extra_ids"].as_array().map(Vec::len),
        Some(0)
    );
}

/// Project-written cases, each a question of one SPINACH-shaped run file. The
/// official figures, printed by the official `eval.f1` (stanford-oval/spinach
/// @ 8bb2d9c; scipy 1.17.1, numpy 1.26.4) with `python mk.py`, which writes
/// this file and prints `f1(p, g)` per case and the aggregate as
/// `calculate_metrics` computes it:
/// ```text
/// 0 exact incl. label: f1 = 1.0
/// 1 rows permuted, other names: f1 = 1.0
/// 2 half the gold columns: f1 = 0.6666666666666666
/// 3 duplicates: f1 = 0.3333333333333333
/// 4 datatype: f1 = 0.0
/// 5 ask: f1 = 1.0
/// 6 ask vs rows: f1 = 0.0
/// 7 none: f1 = 0.0
/// 8 empty: f1 = 0.0
/// 9 label only gold: f1 = 0.0
/// 10 tie: f1 = 0.5
/// 11 tall tie: f1 = 0.6666666666666666
/// 12 ask false: f1 = 1.0
/// 13 empty row: f1 = 0.6666666666666666
/// 14 typed-literal: f1 = 0.0
/// row-major F1 = 45.55555555555556  EM = 26.666666666666668  None = 26.666666666666668
/// ```
/// Case 10 has two optimal assignments (1 + 0 and 0.5 + 0.5) of different F1:
/// SciPy's algorithm picks the first, and so does the profile. Cases 13 and 14
/// need the rows as written: an empty row `{}` counts, and a `typed-literal`
/// binding is not a `literal` one.
#[test]
fn spinach_cases_score_as_the_official_script() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-spinach");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let u = |q: &str| serde_json::json!({"type": "uri", "value": format!("http://www.wikidata.org/entity/{q}")});
    let lit = |v: &str| serde_json::json!({"type": "literal", "value": v});
    let cases = serde_json::json!([
        [[{"item": u("Q1"), "itemLabel": {"type": "literal", "value": "A", "xml:lang": "en"}}],
         [{"item": u("Q1"), "itemLabel": {"type": "literal", "value": "A", "xml:lang": "en"}}]],
        [[{"x": u("Q2")}, {"x": u("Q1")}], [{"item": u("Q1"), "itemLabel": lit("A")}, {"item": u("Q2"), "itemLabel": lit("B")}]],
        [[{"item": u("Q1")}, {"item": u("Q2")}], [{"item": u("Q1"), "s": u("Q9")}, {"item": u("Q2"), "s": u("Q9")}]],
        [[{"i": u("Q1")}, {"i": u("Q1")}, {"i": u("Q3")}, {"i": u("Q4")}, {"i": u("Q5")}], [{"i": u("Q1")}]],
        [[{"c": lit("5")}], [{"c": {"type": "literal", "value": "5", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}]],
        [true, true],
        [[], true],
        [null, [{"i": u("Q1")}]],
        [[], [{"i": u("Q1")}, {"i": u("Q2")}]],
        [[{"l": lit("A")}], [{"itemLabel": lit("A")}]],
        [[{"x": u("Q1"), "y": u("Q2")}, {"x": u("Q1")}], [{"a": u("Q1"), "b": u("Q2")}, {"a": u("Q3"), "b": u("Q2")}]],
        [[{"x": u("Q1")}, {"x": u("Q1")}, {"x": u("Q2")}], [{"a": u("Q1"), "b": u("Q2")}, {"a": u("Q1")}]],
        [false, false],
        [[{"x": u("Q1")}, {}], [{"x": u("Q1")}]],
        [[{"c": {"type": "typed-literal", "value": "5", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}],
         [{"c": {"type": "literal", "value": "5", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}]]
    ]);
    let run: Vec<serde_json::Value> = cases
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            serde_json::json!({"question": format!("case {i}"), "predicted_sparql": "SELECT * WHERE {}",
                "gold_sparql": "SELECT * WHERE {}", "predicted_answer_tuple": c[0], "gold_answer_tuple": c[1]})
        })
        .collect();
    let path = dir.join("cases-run.json");
    std::fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
    let report = evaluate(&["--run", path.to_str().unwrap(), "--profile", "spinach"]);
    let qa = qa(&report);
    let expected = [
        1.0,
        1.0,
        0.6666666666666666,
        0.3333333333333333,
        0.0,
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.5,
        0.6666666666666666,
        1.0,
        0.6666666666666666,
        0.0,
    ];
    for (i, f1) in expected.iter().enumerate() {
        assert!(same(f1_of(qa, &i.to_string()), *f1), "case {i}");
    }
    let official = &qa["aggregate"]["official"];
    for (name, expected) in [
        ("row_major_f1", 45.55555555555556),
        ("row_major_em", 26.666666666666668),
        ("none_answers", 26.666666666666668),
    ] {
        assert!(same(official[name].as_f64().unwrap(), expected), "{name}");
    }
}

/// T2S-Metrics' files of the CK25 systems (gold and generated queries, both
/// executed on the CK25 graph) score as the same systems' answers against the
/// challenge's benchmark: the same TEXT2SPARQL figures for each of the nine,
/// and the file's own gold is the union of the lines of all nine (LACODAM and
/// MIPT lack 5 questions: missing, not dropped).
#[test]
fn t2s_metrics_files_score_as_the_systems_answers() {
    let data = require_data!();
    let t2s = data.join("text2sparql");
    let kg = [t2s.join("kg/prod-inst.ttl"), t2s.join("kg/prod-vocab.ttl")];
    let systems = [
        "AIFB", "FRANZ", "IIS-L", "IIS-Q", "INFAI", "LABIC", "LACODAM", "MIPT", "WSE",
    ];
    let paths = |f: &dyn Fn(&str) -> std::path::PathBuf| -> Vec<String> {
        systems.iter().map(|s| f(s).display().to_string()).collect()
    };
    let lines = paths(&|s| t2s.join(format!("t2s-metrics/ck25/{s}.jsonl")));
    let answers = paths(&|s| t2s.join(format!("systems/{s}/ck25_answers.json")));
    let kg: Vec<String> = kg.iter().map(|p| p.display().to_string()).collect();
    let common = ["--profile", "text2sparql", "--experiments", "qa"];
    let mut args: Vec<&str> = vec!["--run"];
    args.extend(lines.iter().map(String::as_str));
    args.push("--kg");
    args.extend(kg.iter().map(String::as_str));
    args.extend(common);
    let own = evaluate(&args);
    let gold = t2s
        .join("benchmark/questions_ck25.yml")
        .display()
        .to_string();
    let mut args: Vec<&str> = vec!["--gold", &gold, "--run"];
    args.extend(answers.iter().map(String::as_str));
    args.push("--kg");
    args.extend(kg.iter().map(String::as_str));
    args.extend(common);
    let official = evaluate(&args);
    for (i, system) in systems.iter().enumerate() {
        let a = &own["runs"][i]["experiments"]["qa"]["aggregate"];
        let b = &official["runs"][i]["experiments"]["qa"]["aggregate"];
        assert_eq!(own["runs"][i]["name"], *system);
        assert_eq!(a["challenge"], b["challenge"], "{system}");
        let missing = if ["LACODAM", "MIPT"].contains(system) {
            5
        } else {
            0
        };
        assert_eq!(a["missing"], missing, "{system}");
    }
    assert_eq!(own["gold"]["questions"], 50);
}

/// The Wikidata and DBLP samples load whole: every question, no key unread,
/// nothing lost; DBLP-QuAD's gold entities and relations are the question's.
#[test]
fn wikidata_family_samples_load_with_nothing_lost() {
    let data = require_data!();
    for (file, format, questions) in [
        ("wikidata/dblp-quad/test-questions.json", "dblp-quad", 2000),
        ("wikidata/dblp-quad/valid-questions.json", "dblp-quad", 1000),
        ("wikidata/spinach/spinach-test.json", "spinach", 165),
        ("wikidata/spinach/qald10-en-test.json", "spinach", 394),
        (
            "wikidata/spinach/qald10-en-spinach-run.json",
            "spinach-run",
            387,
        ),
        (
            "wikidata/spinach/qald7-task4-spinach-run.json",
            "spinach-run",
            45,
        ),
        (
            "text2sparql/t2s-metrics/ck25/INFAI.jsonl",
            "t2s-metrics",
            50,
        ),
    ] {
        let d = crate::data::load(&data.join(file));
        assert_eq!(d.format.name(), format, "{file}");
        assert_eq!(d.questions.len(), questions, "{file}");
        assert!(d.unknown_keys.is_empty(), "{file}: {:?}", d.unknown_keys);
        assert!(d.lost.is_empty(), "{file}: {:?}", d.lost);
        assert!(d.diagnostics.is_empty(), "{file}: {:?}", d.diagnostics);
    }
    let dblp = crate::data::load(&data.join("wikidata/dblp-quad/test-questions.json"));
    let q = &dblp.questions[0];
    assert_eq!(q.id.0, "Q0001");
    assert_eq!(q.entities, ["https://dblp.org/pid/95/2265"]);
    assert_eq!(q.properties, ["https://dblp.org/rdf/schema#wikidata"]);
    // the WikiWebQuestions and SPINACH files differ in their keys only
    for file in [
        "wikidata/spinach/wikiwebquestions-test.json",
        "wikidata/spinach/wikiwebquestions-dev.json",
        "wikidata/spinach/spinach-dev.json",
        "wikidata/spinach/qald7-task4-test.json",
    ] {
        let d = crate::data::load(&data.join(file));
        assert_eq!(d.format.name(), "spinach", "{file}");
        assert!(!d.questions.is_empty(), "{file}");
        assert!(d.unknown_keys.is_empty(), "{file}: {:?}", d.unknown_keys);
    }
}

/// Mintaka's official evaluation (amazon-science/mintaka @ b6146ff,
/// `evaluate/evaluate.py`) on project-written cases: a test set in the
/// dataset's shape (entities with labels, an unlinked entity, numbers,
/// booleans, dates; decomposed accents) and predictions in both modes. The
/// script's output, with its three means printed unrounded (`repr`) and the
/// per-question columns, from `python evaluate.py --mode kg|text
/// --path_to_test_set test.json --path_to_predictions pred_kg.json|pred_text.json
/// --lang en` (pandas 1.5.3, regex 2026.11.19):
/// ```text
/// kg:   Exact Match 0.5454545454545454  F1 0.7696969696969697  Hits@1 0.8181818181818182
///       t1..t6 u1..u5: em 1 0 1 1 1 0 0 0 1 1 0, f1 1 .8 1 1 1 0 .666667 1 1 1 0, hits1 1 1 1 1 1 0 1 1 1 1 0
/// text: Exact Match 0.8181818181818182  F1 0.3939393939393939  Hits@1 0.8181818181818182
///       em 1 1 1 1 0 1 1 0 1 1 1, f1 .333333 0 1 0 0 1 0 0 1 1 0
/// ```
#[test]
fn mintaka_cases_score_as_the_official_script() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-mintaka");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let test = dir.join("test.json");
    std::fs::write(&test, MINTAKA_TEST).unwrap();
    for (profile, preds, figures, ems) in [
        (
            "mintaka",
            MINTAKA_PRED_KG,
            [0.5454545454545454, 0.7696969696969697, 0.8181818181818182],
            [1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        ),
        (
            "mintaka-text",
            MINTAKA_PRED_TEXT,
            [0.8181818181818182, 0.3939393939393939, 0.8181818181818182],
            [1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1],
        ),
    ] {
        let run = dir.join(format!("{profile}.json"));
        std::fs::write(&run, preds).unwrap();
        let report = evaluate(&[
            "--gold",
            test.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
            "--profile",
            profile,
        ]);
        let qa = qa(&report);
        let official = &qa["aggregate"]["official"];
        for (name, expected) in ["em", "f1", "hits@1/any"].iter().zip(figures) {
            let got = official[name].as_f64().unwrap();
            assert!(same(got, expected), "{profile} {name}: {got} != {expected}");
        }
        let got: Vec<i64> = qa["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["official"]["em"].as_f64().unwrap() as i64)
            .collect();
        assert_eq!(got, ems, "{profile}");
    }
}

/// Hits@1 in its two variants on one run: Mintaka's script counts a question
/// when any prediction of the list is right (`hits@1/any`); `hits@1/first`
/// counts only the first. A run whose right answer comes second scores 1 and
/// 0.5: two numbers, each with its name.
#[test]
fn hits_at_1_first_and_any_are_two_named_numbers() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-hits");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let entity = |id: &str, q: &str| {
        serde_json::json!({"id": id, "question": "Which?", "answer": {"answerType": "entity",
            "answer": [{"name": q, "label": {"en": q}}], "mention": q}})
    };
    let test = dir.join("test.json");
    std::fs::write(
        &test,
        serde_json::json!([entity("a", "Q1"), entity("b", "Q2")]).to_string(),
    )
    .unwrap();
    let run = dir.join("run.json");
    std::fs::write(&run, r#"{"a": ["Q99", "Q1"], "b": "Q2"}"#).unwrap();
    let report = evaluate(&[
        "--gold",
        test.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
        "--profile",
        "mintaka",
    ]);
    let official = &qa(&report)["aggregate"]["official"];
    assert_eq!(official["hits@1/any"], 1.0);
    assert_eq!(official["hits@1/first"], 0.5);
}

/// The Mintaka test set of [`mintaka_cases_score_as_the_official_script`].
pub(crate) const MINTAKA_TEST: &str = r#"[{"id": "t1", "question": "What is the seventh tallest mountain in North America?", "answer": {"answerType": "entity", "answer": [{"name": "Q1153188", "label": {"en": "Mount Lucania", "ar": null, "de": null, "es": null, "fr": null, "hi": null, "it": null, "ja": null, "pt": null}}], "mention": "Mount Lucania"}}, {"id": "t2", "question": "Which X-Men films ...?", "answer": {"answerType": "entity", "answer": [{"name": "Q1", "label": {"en": "X-Men", "ar": null, "de": null, "es": null, "fr": null, "hi": null, "it": null, "ja": null, "pt": null}}, {"name": "Q2", "label": {"en": "X2", "ar": null, "de": null, "es": null, "fr": null, "hi": null, "it": null, "ja": null, "pt": null}}, {"name": "Q3", "label": {"en": "X-Men: The Last Stand", "ar": null, "de": null, "es": null, "fr": null, "hi": null, "it": null, "ja": null, "pt": null}}], "mention": "X-Men"}}, {"id": "t3", "question": "Is ...?", "answer": {"answerType": "boolean", "answer": [true], "mention": "Yes"}}, {"id": "t4", "question": "How many ...?", "answer": {"answerType": "number", "answer": [5], "mention": "5"}}, {"id": "t5", "question": "Who ...?", "answer": {"answerType": "entity", "answer": null, "mention": "Elvis Presto"}}, {"id": "t6", "question": "When ...?", "answer": {"answerType": "date", "answer": ["1981"], "mention": "1981"}}, {"id": "u1", "question": "Which?", "answer": {"answerType": "entity", "answer": [{"name": "Q10", "label": {"en": "Zo\u00eb Salda\u00f1a", "de": null}}], "mention": "x"}}, {"id": "u2", "question": "Which two?", "answer": {"answerType": "entity", "answer": [{"name": "Q11", "label": {"en": "A", "de": null}}, {"name": "Q12", "label": {"en": "B", "de": null}}], "mention": "x"}}, {"id": "u3", "question": "How much?", "answer": {"answerType": "numerical", "answer": [1.5], "mention": "1.5"}}, {"id": "u4", "question": "Is it?", "answer": {"answerType": "boolean", "answer": [false], "mention": "No"}}, {"id": "u5", "question": "Who?", "answer": {"answerType": "entity", "answer": [{"name": "Q13", "label": {"en": "C", "de": null}}], "mention": "C"}}]"#;
/// Its predictions in kg mode.
pub(crate) const MINTAKA_PRED_KG: &str = r#"{"t1": "Q1153188", "t2": ["Q3", "Q1"], "t3": true, "t4": 5.0, "t5": null, "t6": "1982", "u1": ["Q10", "Q10"], "u2": ["Q12", "Q11"], "u3": 1.5, "u4": 0, "u5": []}"#;
/// Its predictions in text mode.
pub(crate) const MINTAKA_PRED_TEXT: &str = r#"{"t1": "It is Mount Lucania.", "t2": "x-men x2 x-men: the last stand", "t3": "True", "t4": "5.0", "t5": "", "t6": "1981", "u1": "Zoe\u0308 Saldan\u0303a", "u2": ["B", "A"], "u3": 1.5, "u4": false, "u5": "the answer is c."}"#;

/// KQA Pro's official evaluation (shijx12/KQAPro_Baselines @ 14d87cd,
/// `evaluate.py`) on project-written cases: seven gold programs and answers
/// and one prediction per line, with units, decimals, dates against years,
/// leading zeros, case and the one-sided truncation of -1.5. Output of
/// `python evaluate.py gt pred_all.txt` (Python 3.11), and with the first six
/// lines only (`pred_short.txt`):
/// ```text
/// overall: 71.43% (5/7)      | overall: 66.67% (4/6)
/// multihop: 75.00% (3/4)     | multihop: 66.67% (2/3)
/// qualifier: 100.00% (1/1)   | qualifier: 100.00% (1/1)
/// comparison: 0.00% (0/1)    | comparison: 0.00% (0/1)
/// logical: 100.00% (1/1)     | logical: 100.00% (1/1)
/// count: 100.00% (1/1)       | count: 100.00% (1/1)
/// verify: 0.00% (0/1)        | verify: 0.00% (0/1)
/// ```
/// (`zero-shot` needs the training answers, `--train FILE`: not computed
/// here; [`kqapro_zero_shot_counts_answers_the_training_set_lacks`] has it.)
#[test]
fn kqapro_cases_score_as_the_official_script() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-kqapro");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let gold = dir.join("test_answer.json");
    std::fs::write(&gold, KQAPRO_GOLD).unwrap();
    let lines: Vec<&str> = KQAPRO_PREDICTIONS.lines().collect();
    for (name, n, expected) in [
        (
            "pred_all.txt",
            7,
            [(5, 7), (3, 4), (1, 1), (0, 1), (1, 1), (1, 1), (0, 1)],
        ),
        (
            "pred_short.txt",
            6,
            [(4, 6), (2, 3), (1, 1), (0, 1), (1, 1), (1, 1), (0, 1)],
        ),
    ] {
        let run = dir.join(name);
        std::fs::write(&run, lines[..n].join("\n") + "\n").unwrap();
        let report = evaluate(&[
            "--gold",
            gold.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
            "--profile",
            "kqapro",
        ]);
        let official = &qa(&report)["aggregate"]["official"];
        let labels = [
            "overall",
            "multihop",
            "qualifier",
            "comparison",
            "logical",
            "count",
            "verify",
        ];
        for (label, (correct, total)) in labels.iter().zip(expected) {
            assert_eq!(
                official[format!("{label}_correct")],
                f64::from(correct),
                "{name} {label}"
            );
            assert_eq!(
                official[format!("{label}_total")],
                f64::from(total),
                "{name} {label}"
            );
            let percent = official[*label].as_f64().unwrap();
            let expected = f64::from(correct) / f64::from(total) * 100.0;
            assert!(same(percent, expected), "{name} {label}");
        }
    }
    // a .txt prediction file against another gold: its line numbers would join
    // the wrong questions, so it is refused
    let other = dir.join("other.json");
    std::fs::write(
        &other,
        r#"{"questions": [{"id": 0, "question": [{"language": "en", "string": "q"}], "answers": [{"head": {}, "boolean": true}]}]}"#,
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(["evaluate", "--run"])
        .arg(dir.join("pred_all.txt"))
        .arg("--gold")
        .arg(&other)
        .output()
        .expect("qajudge runs");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("KQA Pro predictions"), "{stderr}");
}

/// The gold of [`kqapro_cases_score_as_the_official_script`].
pub(crate) const KQAPRO_GOLD: &str = r#"[{"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "Relate", "dependencies": [], "inputs": []}, {"function": "QueryAttr", "dependencies": [], "inputs": []}], "answer": "100 meters"}, {"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "FilterConcept", "dependencies": [], "inputs": []}, {"function": "QFilterYear", "dependencies": [], "inputs": []}, {"function": "QueryAttrQualifier", "dependencies": [], "inputs": []}], "answer": "2001-05-03"}, {"program": [{"function": "FindAll", "dependencies": [], "inputs": []}, {"function": "FilterNum", "dependencies": [], "inputs": []}, {"function": "SelectAmong", "dependencies": [], "inputs": []}], "answer": "1990-01-01"}, {"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "Find", "dependencies": [], "inputs": []}, {"function": "And", "dependencies": [], "inputs": []}, {"function": "Count", "dependencies": [], "inputs": []}], "answer": "5"}, {"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "VerifyNum", "dependencies": [], "inputs": []}], "answer": "yes"}, {"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "QueryAttr", "dependencies": [], "inputs": []}], "answer": "-1.5"}, {"program": [{"function": "Find", "dependencies": [], "inputs": []}, {"function": "Relate", "dependencies": [], "inputs": []}, {"function": "What", "dependencies": [], "inputs": []}], "answer": "Paris"}]"#;
/// Its predictions, one per line.
pub(crate) const KQAPRO_PREDICTIONS: &str = "100.0 meters\n2001\n1990-01-02\n05\nYes\n-1\nParis\n";

/// KQA Pro's `zero-shot` category with `--train FILE`: the gold and predictions
/// of [`kqapro_cases_score_as_the_official_script`] and a project-written
/// training set (`train.json` below: `"Paris "` with its space is not
/// `Paris`, `100.0 meters` is not `100 meters`, a `null` answer). Output of
/// `python evaluate.py gt pred_all.txt` and `… pred_short.txt` (shijx12/
/// KQAPro_Baselines @ 14d87cd, Python 3.11), `gt` holding `test_answer.json`
/// and `train.json`; the other lines are as in that test:
/// ```text
/// zero-shot: 80.00% (4/5)    | zero-shot: 75.00% (3/4)
/// ```
#[test]
fn kqapro_zero_shot_counts_answers_the_training_set_lacks() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-kqapro-train");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let gold = dir.join("test_answer.json");
    std::fs::write(&gold, KQAPRO_GOLD).unwrap();
    let train = dir.join("train.json");
    std::fs::write(
        &train,
        r#"[{"question": "q", "answer": "Paris "}, {"answer": "5"}, {"answer": "100.0 meters"}, {"question": "r", "program": [], "answer": "yes"}, {"answer": null}]"#,
    )
    .unwrap();
    let lines: Vec<&str> = KQAPRO_PREDICTIONS.lines().collect();
    for (name, n, (correct, total)) in [("pred_all.txt", 7, (4, 5)), ("pred_short.txt", 6, (3, 4))]
    {
        let run = dir.join(name);
        std::fs::write(&run, lines[..n].join("\n") + "\n").unwrap();
        let args = [
            "--gold",
            gold.to_str().unwrap(),
            "--run",
            run.to_str().unwrap(),
            "--profile",
            "kqapro",
        ];
        let (report, text) =
            evaluate_text(&[&args[..], &["--train", train.to_str().unwrap()]].concat());
        let official = &qa(&report)["aggregate"]["official"];
        assert_eq!(official["zero-shot_correct"], f64::from(correct), "{name}");
        assert_eq!(official["zero-shot_total"], f64::from(total), "{name}");
        let percent = official["zero-shot"].as_f64().unwrap();
        assert!(
            same(percent, f64::from(correct) / f64::from(total) * 100.0),
            "{name}"
        );
        assert!(
            text.contains(if n == 7 {
                "\"zero-shot\": 80.0,"
            } else {
                "\"zero-shot\": 75.0,"
            }),
            "{name}"
        );
        // without the training set the category is left out, the others unchanged
        let (without, _) = evaluate_text(&args);
        let mut expected = official.clone();
        for key in ["zero-shot", "zero-shot_correct", "zero-shot_total"] {
            expected.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(qa(&without)["aggregate"]["official"], expected, "{name}");
    }
    // another profile does not read it; a record without an answer is named
    for (profile, file, needle) in [
        ("judge", r#"[{"answer": "5"}]"#, "--profile kqapro"),
        (
            "kqapro",
            r#"[{"answer": "5"}, {"question": "q"}]"#,
            "record 1",
        ),
    ] {
        std::fs::write(&train, file).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
            .args(["evaluate", "--profile", profile, "--gold"])
            .arg(&gold)
            .arg("--run")
            .arg(dir.join("pred_all.txt"))
            .arg("--train")
            .arg(&train)
            .output()
            .expect("qajudge runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{profile}");
        assert!(stderr.contains(needle), "{stderr}");
    }
}

/// Under `judge`, a question whose gold or run answers have more than one
/// column is also scored row-wise (SPINACH's pairing of rows), beside the
/// per-term score: on SPINACH's QALD-10 run, as many questions as the file
/// has tables, each with its `row_f1`; and the ranking measures in the run's
/// order.
#[test]
fn judge_scores_tables_row_wise_and_ranks_answers() {
    let data = require_data!();
    let run = data.join("wikidata/spinach/qald10-en-spinach-run.json");
    let raw: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&run).expect("the run")).expect("json");
    // columns of a tuple: the distinct keys of its rows
    let wide = |t: &serde_json::Value| {
        let mut keys = std::collections::BTreeSet::new();
        for row in t.as_array().into_iter().flatten() {
            keys.extend(row.as_object().into_iter().flat_map(|o| o.keys().cloned()));
        }
        keys.len() > 1
    };
    let expected = raw
        .iter()
        .filter(|e| wide(&e["gold_answer_tuple"]) || wide(&e["predicted_answer_tuple"]))
        .count();
    let report = evaluate(&["--run", run.to_str().unwrap()]);
    let qa = qa(&report);
    let tables = &qa["aggregate"]["tables"];
    assert_eq!(tables["questions"].as_f64(), Some(expected as f64));
    let with_rows = qa["questions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["row_f1"].is_number())
        .count();
    assert_eq!(with_rows, expected);
    let ranking = &qa["aggregate"]["ranking"];
    let any = ranking["hits@1/any"].as_f64().unwrap();
    let first = ranking["hits@1/first"].as_f64().unwrap();
    assert!(first <= any && any > 0.5, "{ranking}");
    assert!(ranking["mrr"].as_f64().unwrap() <= any);
    // the table prints both Hits@1 with their names, and the tables' F1
    let o = Command::new(env!("CARGO_BIN_EXE_qajudge"))
        .args(["evaluate", "--run"])
        .arg(&run)
        .output()
        .expect("qajudge runs");
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains(&format!(
            "ranking MRR {:.4}, Hits@1/first {first:.4}, Hits@1/any {any:.4}",
            ranking["mrr"].as_f64().unwrap()
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!("{expected} question(s) with table answers")),
        "{table}"
    );
}

/// Ranks are taken in the run's order, a repeated answer counting once at its
/// first place: [A, A, B] for the gold {B} has its first right answer second.
#[test]
fn ranks_count_a_repeated_answer_once() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-ranks");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let uri = |x: &str| serde_json::json!({"x": {"type": "uri", "value": format!("http://example.org/{x}")}});
    let question = |answers: Vec<serde_json::Value>| {
        serde_json::json!({"questions": [{"id": "1", "question": [{"language": "en", "string": "Which?"}],
            "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": answers}}]}]})
    };
    let gold = dir.join("gold.json");
    std::fs::write(&gold, question(vec![uri("B")]).to_string()).unwrap();
    let run = dir.join("run.json");
    std::fs::write(
        &run,
        question(vec![uri("A"), uri("A"), uri("B")]).to_string(),
    )
    .unwrap();
    let report = evaluate(&[
        "--gold",
        gold.to_str().unwrap(),
        "--run",
        run.to_str().unwrap(),
    ]);
    let ranking = &qa(&report)["aggregate"]["ranking"];
    assert_eq!(ranking["hits@1/first"], 0.0);
    assert_eq!(ranking["hits@1/any"], 1.0);
    assert_eq!(ranking["mrr"], 0.5);
}

/// Where the official script stops (SPINACH on an empty answer against an
/// empty gold: 0/0; Mintaka on a question without a prediction), the profile's
/// 0 is counted apart, so it is never read as a score someone earned.
#[test]
fn where_a_script_stops_the_zero_is_counted_apart() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("families-stops");
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let run = dir.join("spinach-run.json");
    std::fs::write(
        &run,
        r#"[{"question": "q", "predicted_sparql": "SELECT * WHERE {}", "predicted_answer_tuple": [], "gold_answer_tuple": []}]"#,
    )
    .unwrap();
    let report = evaluate(&["--run", run.to_str().unwrap(), "--profile", "spinach"]);
    let official = &qa(&report)["aggregate"]["official"];
    assert_eq!(official["script_fails"], 1.0);
    assert_eq!(official["row_major_f1"], 0.0);
    let gold = dir.join("mintaka-test.json");
    std::fs::write(
        &gold,
        r#"[{"id": "a", "question": "q", "answer": {"answerType": "entity", "answer": [{"name": "Q1", "label": {"en": "One"}}], "mention": "One"}},
            {"id": "b", "question": "r", "answer": {"answerType": "entity", "answer": [{"name": "Q2", "label": {"en": "Two"}}], "mention": "Two"}}]"#,
    )
    .unwrap();
    let preds = dir.join("mintaka-preds.json");
    std::fs::write(&preds, r#"{"a": "Q1"}"#).unwrap();
    let report = evaluate(&[
        "--gold",
        gold.to_str().unwrap(),
        "--run",
        preds.to_str().unwrap(),
        "--profile",
        "mintaka",
    ]);
    let official = &qa(&report)["aggregate"]["official"];
    assert_eq!(official["missing"], 1.0);
    assert_eq!(official["em"], 0.5);
}
