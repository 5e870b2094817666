//! The measures beside F1 (docs/scoring.md: Cost and latency, Abstention and
//! truthfulness, Graded order): a run file giving its usage in several
//! spellings scores the hand-computed mean, median (an even count), p95 and
//! total; absent measures stay absent; abstention by flag and by
//! `--abstain-marker`; truthfulness on every branch; graded nDCG and
//! Kendall's τ-b by hand; the CK25 questions whose gold is ordered, and no
//! other, get the graded order measures, and the executed gold's rows given
//! back reversed score τ-b −1 and the reversed order's nDCG; a live system on
//! loopback gets its latency measured.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use qajudge::eval::{Options, Profile, Report};
use qajudge::model::Dataset;
use qajudge::sparql::{ExecOptions, KnowledgeGraph};
use serde_json::{json, Value};

use crate::cli::{qajudge, stdout};
use crate::data::{eval_run, load, report_question};
use crate::serve::{start_system, tmp};

const P: &str = "http://e.org/";

fn uri(local: &str) -> Value {
    json!({"type": "uri", "value": format!("{P}{local}")})
}

fn answers(bindings: Vec<Value>) -> Value {
    json!([{"head": {"vars": ["x"]}, "results": {"bindings": bindings.into_iter().map(|b| json!({"x": b})).collect::<Vec<_>>()}}])
}

/// Seven gold questions; q5's query orders its answers X, Y, Z.
fn gold() -> Value {
    let q = |id: &str, a: &[&str]| {
        json!({"id": id, "question": [{"language": "en", "string": format!("question {id}")}],
            "answers": answers(a.iter().map(|l| uri(l)).collect())})
    };
    let mut ordered = q("5", &["X", "Y", "Z"]);
    ordered["query"] =
        json!({"sparql": format!("SELECT ?x WHERE {{ ?x <{P}rank> ?r }} ORDER BY ?r")});
    json!({"questions": [q("1", &["A"]), q("2", &["B"]), q("3", &["C", "D"]), q("4", &["E"]),
        ordered, q("6", &["F"]), q("7", &["G"])]})
}

/// The run: usage in several spellings (q1 ours, q2 OpenAI's `usage`, q3
/// seconds and Anthropic's names, q4 `time_ms`), q4 declares abstention, q6
/// answers "I don't know", q7 is missing.
fn run() -> Value {
    json!({"questions": [
        {"id": "1", "answers": answers(vec![uri("A")]), "latency_ms": 100,
            "tokens": {"prompt": 10, "completion": 5}, "cost": 0.25, "calls": 1},
        {"id": "2", "answers": answers(vec![uri("WRONG")]), "elapsed_ms": 300,
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
            "total_cost": 0.5, "n_calls": 2},
        {"id": "3", "answers": answers(vec![uri("C"), uri("C2")]), "latency_s": 0.15,
            "input_tokens": 30, "output_tokens": 15},
        {"id": "4", "answers": answers(vec![]), "abstained": true, "time_ms": 400, "cost": 0},
        {"id": "5", "answers": answers(vec![uri("Y"), uri("X"), uri("W"), uri("Z")])},
        {"id": "6", "answers": answers(vec![json!({"type": "literal", "value": "I don't know"})])},
    ]})
}

fn parse(v: &Value) -> Dataset {
    qajudge::qald::parse(v.to_string().as_bytes(), "test").expect("readable")
}

fn report(gold: &Dataset, run: &Dataset, marker: Option<&str>) -> Value {
    let options = Options {
        abstain_marker: marker.map(str::to_string),
        ..Options::default()
    };
    serde_json::to_value(eval_run(gold, run, "run", options, None)).expect("serialises")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn summary(v: &Value) -> [f64; 5] {
    ["questions", "total", "mean", "median", "p95"].map(|k| v[k].as_f64().expect(k))
}

#[test]
fn usage_abstention_truthfulness_and_graded_order_by_hand() {
    let (gold, run) = (parse(&gold()), parse(&run()));
    assert!(run.unknown_keys.is_empty(), "{:?}", run.unknown_keys);
    let r = report(&gold, &run, Some("I don't know"));
    let qa = &r["runs"][0]["experiments"]["qa"];
    let a = &qa["aggregate"];
    let u = &a["usage"];
    // latency 100, 300, 150, 400 ms: an even count, median (150 + 300) / 2,
    // p95 the ⌈0.95·4⌉ = 4th smallest
    assert_eq!(summary(&u["latency_ms"]), [4.0, 950.0, 237.5, 225.0, 400.0]);
    // prompt 10, 20, 30; completion 5, 10, 15 (p95: the 3rd of 3)
    assert_eq!(
        summary(&u["tokens"]["prompt"]),
        [3.0, 60.0, 20.0, 20.0, 30.0]
    );
    assert_eq!(
        summary(&u["tokens"]["completion"]),
        [3.0, 30.0, 10.0, 10.0, 15.0]
    );
    // cost 0.25, 0.5 and a given 0 (present, so counted); calls 1, 2
    assert_eq!(summary(&u["cost"]), [3.0, 0.75, 0.25, 0.25, 0.5]);
    assert_eq!(summary(&u["calls"]), [2.0, 3.0, 1.5, 1.5, 2.0]);
    // per question: as given, absent where nothing was given
    let q = |id: &str| report_question(qa, id);
    assert_eq!(
        q("2")["usage"],
        json!({"latency_ms": 300.0, "tokens": {"prompt": 20, "completion": 10}, "cost": 0.5, "calls": 2})
    );
    assert_eq!(
        q("3")["usage"],
        json!({"latency_ms": 150.0, "tokens": {"prompt": 30, "completion": 15}})
    );
    for id in ["5", "6", "7"] {
        assert!(q(id).get("usage").is_none(), "{id}: {}", q(id));
    }
    // abstention: q4 by its flag, q6 by the marker; counted apart
    assert_eq!(q("4")["status"], "abstained");
    assert_eq!(q("6")["status"], "abstained");
    assert_eq!(
        ["answered", "empty", "missing", "abstained"].map(|k| a[k].as_u64().expect(k)),
        [4, 0, 1, 2]
    );
    // truthfulness: 1 (F1 1), −1 (F1 0 with answers), 0.5 (F1 ½), 0
    // (abstained), 6/7 (q5: P ¾, R 1), 0 (abstained), 0 (missing)
    let truths: Vec<f64> = ["1", "2", "3", "4", "5", "6", "7"]
        .iter()
        .map(|id| q(id)["truthfulness"].as_f64().expect("truthfulness"))
        .collect();
    let want = [1.0, -1.0, 0.5, 0.0, 6.0 / 7.0, 0.0, 0.0];
    for (got, want) in truths.iter().zip(want) {
        assert!(close(*got, want), "{truths:?}");
    }
    let mean = want.iter().sum::<f64>() / 7.0;
    assert!(close(a["truthfulness"].as_f64().expect("mean"), mean));
    // graded order of q5: gold X, Y, Z (relevance 3, 2, 1); the run says
    // Y, X, W, Z: DCG = 2/log2 2 + 3/log2 3 + 0/log2 4 + 1/log2 5,
    // IDCG = 3/log2 2 + 2/log2 3 + 1/log2 4
    let l = f64::log2;
    let ndcg = (2.0 + 3.0 / l(3.0) + 1.0 / l(5.0)) / (3.0 + 2.0 / l(3.0) + 0.5);
    assert!(close(q("5")["ndcg_graded"].as_f64().expect("ndcg"), ndcg));
    // τ-b over X, Y, Z: (gold rank, run position) (0,1), (1,0), (2,3): X–Y
    // discordant, X–Z and Y–Z concordant: (2 − 1) / 3
    assert!(close(
        q("5")["kendall_tau"].as_f64().expect("tau"),
        1.0 / 3.0
    ));
    assert!(close(a["ndcg_graded"].as_f64().expect("mean"), ndcg));
    assert!(close(a["kendall_tau"].as_f64().expect("mean"), 1.0 / 3.0));
    for id in ["1", "2", "3", "4", "6", "7"] {
        assert!(q(id).get("ndcg_graded").is_none() && q(id).get("kendall_tau").is_none());
    }
    // without the marker, "I don't know" is a wrong answer: −1, and only the
    // flag abstains
    let r = report(&gold, &run, None);
    let qa = &r["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["abstained"], 1);
    let q6 = &qa["questions"][5];
    assert_eq!(
        (q6["status"].as_str(), q6["truthfulness"].as_f64()),
        (Some("answered"), Some(-1.0))
    );
}

#[test]
fn absent_measures_are_absent_not_zero() {
    let gold = parse(&gold());
    // the same answers, no usage and no abstention at all
    let mut bare = run();
    for q in bare["questions"].as_array_mut().expect("questions") {
        let o = q.as_object_mut().expect("object");
        o.retain(|k, _| k == "id" || k == "answers");
    }
    let r = report(&gold, &parse(&bare), None);
    let qa = &r["runs"][0]["experiments"]["qa"];
    for key in ["usage", "abstained"] {
        assert!(
            qa["aggregate"].get(key).is_none(),
            "{key}: {}",
            qa["aggregate"]
        );
    }
    assert!(qa["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .all(|q| q.get("usage").is_none()));
    // truthfulness is defined for every evaluated question
    assert!(qa["aggregate"]["truthfulness"].is_f64());
    // only some measures given: only those appear
    let one = json!({"questions": [{"id": "1", "answers": answers(vec![uri("A")]), "usage": {"completion_tokens": 7}}]});
    let r = report(&gold, &parse(&one), None);
    let u = &r["runs"][0]["experiments"]["qa"]["aggregate"]["usage"];
    assert_eq!(
        u,
        &json!({"tokens": {"completion": {"questions": 1, "total": 7.0, "mean": 7.0, "median": 7.0, "p95": 7.0}}})
    );
}

#[test]
fn llm_prediction_lines_and_component_lines_read_usage() {
    // Reasoning on Graphs' lines with OpenAI's usage and LangChain's cost
    let lines = "{\"id\": \"a\", \"question\": \"q?\", \"prediction\": \"Paris\", \"ground_truth\": [\"Paris\"], \"usage\": {\"prompt_tokens\": 12, \"completion_tokens\": 3}, \"total_cost\": 0.5, \"latency\": 80}\n\
                 {\"id\": \"b\", \"question\": \"r?\", \"prediction\": \"I don't know\", \"ground_truth\": [\"Rome\"], \"abstained\": true}\n";
    let d = qajudge::qald::parse(lines.as_bytes(), "preds.jsonl").expect("readable");
    assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    let u = d.questions[0].usage;
    assert_eq!(
        (u.prompt_tokens, u.completion_tokens, u.cost, u.latency_ms),
        (Some(12), Some(3), Some(0.5), Some(80.0))
    );
    assert!(d.questions[1].abstained && d.questions[1].usage.is_empty());
    // a component run line
    let lines =
        "{\"id\": \"1\", \"entities\": [\"http://e.org/A\"], \"elapsed_ms\": 12, \"n_calls\": 3}\n";
    let d = qajudge::qald::parse(lines.as_bytes(), "links.jsonl").expect("readable");
    assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    assert_eq!(
        (d.questions[0].usage.latency_ms, d.questions[0].usage.calls),
        (Some(12.0), Some(3))
    );
}

#[test]
fn the_command_line_takes_the_marker_and_shows_the_columns() {
    let dir = tmp("llm-era-cli");
    let gold_path = dir.join("gold.json");
    let run_path = dir.join("run.json");
    std::fs::write(&gold_path, gold().to_string()).expect("write");
    std::fs::write(&run_path, run().to_string()).expect("write");
    let (g, r) = (gold_path.to_string_lossy(), run_path.to_string_lossy());
    // `evaluate` of the run with the marker, then `extra`
    let evaluate = |extra: &[&str]| {
        let marked = ["evaluate", "--gold", &g, "--run", &r];
        let marked = [&marked[..], &["--abstain-marker", "I don't know"], extra];
        qajudge(&marked.concat())
    };
    let o = evaluate(&["--experiments", "qa", "--per-question"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", crate::cli::stderr(&o));
    for column in [
        "abstained",
        "truth",
        "nDCG graded",
        "tau-b",
        "latency ms",
        "cost",
    ] {
        assert!(out.contains(column), "{column}: {out}");
    }
    assert!(
        out.contains("run: usage latency ms mean 237.5000 median 225.0000 p95 400.0000 total 950.0000 (4 question(s))"),
        "{out}"
    );
    let o = evaluate(&["--format", "json"]);
    let report: Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        report["runs"][0]["experiments"]["qa"]["aggregate"]["abstained"],
        2
    );
}

/// A GERBIL-protocol system on loopback that answers after `delay`, and
/// claims a latency of 1 ms that is not read over the measured one.
fn slow_system(delay: Duration) -> String {
    start_system(move |_| {
        std::thread::sleep(delay);
        let body = json!({"questions": [{"id": "1", "latency_ms": 1, "answers": answers(vec![uri("A")]),
            "tokens": {"prompt": 9, "completion": 4}}]});
        (200, body.to_string())
    })
}

#[test]
fn a_live_system_gets_its_latency_measured() {
    let url = slow_system(Duration::from_millis(60));
    let gold = parse(&gold());
    let opts = qajudge::live::LiveOptions {
        concurrency: 2,
        ..qajudge::live::LiveOptions::default()
    };
    let live = qajudge::live::ask_all(&url, &gold, &opts, &|_, _| {}).expect("asked");
    assert!(live.errors.is_empty(), "{:?}", live.errors);
    for q in &live.dataset.questions {
        let ms = q.usage.latency_ms.expect("measured");
        assert!((60.0..10_000.0).contains(&ms), "{}: {ms}", q.id);
        // what the system says of its tokens is kept
        assert_eq!(q.usage.prompt_tokens, Some(9));
    }
    let r = report(&gold, &live.dataset, None);
    let u = &r["runs"][0]["experiments"]["qa"]["aggregate"]["usage"];
    let [n, total, mean, median, p95] = summary(&u["latency_ms"]);
    assert_eq!(n, 7.0);
    assert!(
        mean >= 60.0 && median >= 60.0 && p95 >= median && close(total / n, mean),
        "{u}"
    );
    assert_eq!(u["tokens"]["prompt"]["total"], 63.0);
}

/// The CK25 graph, and the CK25 questions with their answers those of their
/// gold queries executed on it.
fn ck25_executed(dir: &Path) -> (KnowledgeGraph, Dataset) {
    let (yaml, files) = crate::text2sparql::ck25(dir);
    let kg = KnowledgeGraph::load(&files, ExecOptions::default(), &|_, _| {})
        .expect("the CK25 graph loads");
    let mut gold = load(&yaml);
    crate::text2sparql::executed(&mut gold, &kg, false);
    (kg, gold)
}

/// The CK25 questions whose gold is ordered: flagged `RESULT_ORDER_MATTERS`,
/// or ordered by their query's algebra.
fn ordered_ids(gold: &Dataset) -> BTreeSet<String> {
    gold.questions
        .iter()
        .filter(|q| {
            q.order_flagged()
                || matches!(&q.query, qajudge::model::Query::Sparql(s) if qajudge::query::orders(s))
        })
        .filter(|q| q.answers.as_ref().is_some_and(|a| !a.is_empty()))
        .map(|q| q.id.0.clone())
        .collect()
}

#[test]
fn ck25_ordered_questions_and_no_other_get_graded_order() {
    let dir = crate::require_data!();
    let (kg, gold) = ck25_executed(&dir);
    let mut run = load(&dir.join("text2sparql/systems/INFAI/ck25_answers.json"));
    crate::text2sparql::executed(&mut run, &kg, true);
    let ordered = ordered_ids(&gold);
    let flagged = gold.questions.iter().filter(|q| q.order_flagged()).count();
    assert!(flagged == 2 && ordered.len() > flagged, "{ordered:?}");
    for profile in [Profile::Judge, Profile::Text2sparql] {
        let options = Options {
            profile,
            ..Options::default()
        };
        let r: Report = eval_run(&gold, &run, "INFAI", options, None);
        let qa = r.runs[0].experiments.qa.as_ref().expect("qa");
        let graded: BTreeSet<String> = qa
            .questions
            .iter()
            .filter(|q| q.ndcg_graded.is_some())
            .map(|q| q.id.clone())
            .collect();
        assert_eq!(graded, ordered, "{}", profile.name());
        // τ only where nDCG is, each within its range; the run mean is the
        // mean of the questions'
        let taus: Vec<f64> = qa.questions.iter().filter_map(|q| q.kendall_tau).collect();
        assert!(!taus.is_empty());
        for q in &qa.questions {
            assert!(
                q.kendall_tau.is_none() || q.ndcg_graded.is_some(),
                "{}",
                q.id
            );
            assert!(q
                .ndcg_graded
                .is_none_or(|n| (0.0..=1.0 + 1e-12).contains(&n)));
            assert!(q
                .kendall_tau
                .is_none_or(|t| (-1.0 - 1e-12..=1.0 + 1e-12).contains(&t)));
        }
        let mean = taus.iter().sum::<f64>() / taus.len() as f64;
        assert!((qa.aggregate.kendall_tau.expect("mean") - mean).abs() < 1e-12);
        // the challenge's binary nDCG stays on the two flagged questions
        if profile == Profile::Text2sparql {
            assert_eq!(qa.questions.iter().filter(|q| q.ndcg.is_some()).count(), 2);
        }
    }
}

#[test]
fn ck25_gold_answers_reversed_score_the_reversed_order() {
    let dir = crate::require_data!();
    let (_, mut gold) = ck25_executed(&dir);
    // the gold's rows once each, in its order; the run gives them reversed
    for q in &mut gold.questions {
        if let Some(set) = q.answers.as_mut() {
            let mut seen = Vec::new();
            set.answers.retain(|a| {
                let new = !seen.contains(a);
                seen.push(a.clone());
                new
            });
            set.columns.clear();
            set.raw_values.clear();
        }
    }
    let mut run = gold.clone();
    for q in &mut run.questions {
        if let Some(set) = q.answers.as_mut() {
            set.answers.reverse();
        }
    }
    let r = eval_run(&gold, &run, "reversed", Options::default(), None);
    let qa = r.runs[0].experiments.qa.as_ref().expect("qa");
    let ordered = ordered_ids(&gold);
    let mut several = 0;
    // rows that share no value: a row of several values is one answer with
    // alternative forms (docs/scoring.md, Answers), which may match another
    // row holding one of them
    let one_column = |id: &str| {
        gold.questions
            .iter()
            .find(|g| g.id.0 == id)
            .and_then(|g| g.answers.as_ref())
            .filter(|a| {
                let terms: Vec<_> = a.answers.iter().flat_map(|x| &x.terms).collect();
                let distinct: BTreeSet<_> = terms.iter().collect();
                distinct.len() == terms.len()
            })
            .map(|a| a.answers.len())
    };
    for q in qa.questions.iter().filter(|q| ordered.contains(&q.id)) {
        let Some(n) = one_column(&q.id) else {
            continue;
        };
        // position j (from 0) holds gold rank n − 1 − j: relevance j + 1
        let d = |j: usize| ((j + 2) as f64).log2();
        let dcg: f64 = (0..n).map(|j| (j + 1) as f64 / d(j)).sum();
        let ideal: f64 = (0..n).map(|k| (n - k) as f64 / d(k)).sum();
        let got = q.ndcg_graded.expect("ordered");
        assert!(
            (got - dcg / ideal).abs() < 1e-12,
            "{}: {got} {}",
            q.id,
            dcg / ideal
        );
        if n >= 2 {
            several += 1;
            assert_eq!(q.kendall_tau, Some(-1.0), "{}", q.id);
        } else {
            assert_eq!(q.kendall_tau, None, "{}", q.id);
        }
    }
    assert!(several >= 2, "{several}");
}
