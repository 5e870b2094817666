//! The evaluator: joins a gold benchmark and runs by question id, matches answers,
//! scores every question and aggregates (SCORING 1–4, 9). Synchronous and
//! deterministic: the same inputs give a byte-identical report.

pub mod profile;
pub mod report;

use std::collections::{HashMap, HashSet};

use crate::matching::{match_answers, prepare, MatchOptions, Prepared};
use crate::metrics::{aggregate, bootstrap, score_question, QuestionScore};
use crate::model::{looks_like_iri, Dataset, Question, Term};
pub use profile::Profile;
pub use report::{
    AggregateReport, ExperimentReport, Experiments, GoldInfo, QuestionReport, Report, RunReport,
    Status,
};

/// What to evaluate and how.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// The scoring profile.
    pub profile: Profile,
    /// `--strict-literals`.
    pub strict_literals: bool,
    /// `--lenient-dates`.
    pub lenient_dates: bool,
    /// Bootstrap resamples for confidence intervals (0: none).
    pub bootstrap: usize,
}

/// The fixed seed of the bootstrap, so that reports are reproducible.
pub const BOOTSTRAP_SEED: u64 = 20_261_122;

/// One run to evaluate.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    /// Its name in the report.
    pub name: &'a str,
    /// Its path or URL.
    pub source: &'a str,
    /// Its questions.
    pub dataset: &'a Dataset,
}

/// A gold question prepared once for all runs.
struct GoldEntry<'a> {
    question: &'a Question,
    prepared: Option<Vec<Prepared>>,
    has_iri: bool,
    has_literal: bool,
}

/// Evaluates every run against the gold benchmark.
pub fn evaluate(gold: &Dataset, gold_path: &str, runs: &[Run<'_>], options: Options) -> Report {
    let match_options = options
        .profile
        .match_options(options.strict_literals, options.lenient_dates);
    let mut diagnostics: Vec<String> = gold
        .diagnostics
        .iter()
        .map(|d| format!("gold: {d}"))
        .collect();
    let mut seen = HashSet::new();
    let entries: Vec<GoldEntry<'_>> = gold
        .questions
        .iter()
        .filter(|q| seen.insert(q.id.0.as_str()))
        .map(|q| {
            let answers = q.answers.as_ref();
            let terms = || {
                answers
                    .into_iter()
                    .flat_map(|a| &a.answers)
                    .flat_map(|a| &a.terms)
            };
            GoldEntry {
                question: q,
                prepared: answers.map(|a| prepare(&a.answers, match_options)),
                has_iri: terms().any(Term::is_iri),
                has_literal: terms().any(|t| matches!(t, Term::Literal { .. })),
            }
        })
        .collect();
    let mut reports = Vec::with_capacity(runs.len());
    for run in runs {
        diagnostics.extend(
            run.dataset
                .diagnostics
                .iter()
                .map(|d| format!("run '{}': {d}", run.name)),
        );
        let (report, extra) = evaluate_run(&entries, run, match_options, options.bootstrap);
        if !extra.is_empty() {
            diagnostics.push(format!(
                "run '{}': {} question(s) not in the gold benchmark were ignored: {}",
                run.name,
                extra.len(),
                extra.join(", ")
            ));
        }
        reports.push(report);
    }
    Report {
        version: env!("CARGO_PKG_VERSION"),
        profile: options.profile.name(),
        gold: GoldInfo {
            path: gold_path.to_string(),
            format: gold.format.name(),
            questions: entries.len(),
        },
        index: None,
        runs: reports,
        diagnostics,
    }
}

fn evaluate_run(
    entries: &[GoldEntry<'_>],
    run: &Run<'_>,
    match_options: MatchOptions,
    resamples: usize,
) -> (RunReport, Vec<String>) {
    let mut by_id: HashMap<&str, &Question> = HashMap::with_capacity(run.dataset.questions.len());
    for q in &run.dataset.questions {
        by_id.entry(q.id.0.as_str()).or_insert(q);
    }
    let gold_ids: HashSet<&str> = entries.iter().map(|e| e.question.id.0.as_str()).collect();
    let mut extra: Vec<String> = by_id
        .keys()
        .filter(|id| !gold_ids.contains(*id))
        .map(|id| id.to_string())
        .collect();
    extra.sort_by(|a, b| natural_key(a).cmp(&natural_key(b)));

    let mut questions = Vec::with_capacity(entries.len());
    let mut scores: Vec<QuestionScore> = Vec::with_capacity(entries.len());
    let mut agg = AggregateReport {
        questions: entries.len(),
        extra: extra.len(),
        ..AggregateReport::default()
    };
    for entry in entries {
        let gq = entry.question;
        let mut diags: Vec<String> = gq
            .diagnostics
            .iter()
            .map(|d| format!("gold: {d}"))
            .collect();
        let run_q = by_id.get(gq.id.0.as_str()).copied();
        if let Some(rq) = run_q {
            diags.extend(rq.diagnostics.iter().map(|d| format!("run: {d}")));
        }
        let Some(gold_prepared) = &entry.prepared else {
            agg.not_evaluable += 1;
            diags.push("not evaluable: the gold question has no answers".into());
            questions.push(question_report(gq, Status::NotEvaluable, None, diags));
            continue;
        };
        let run_answers = run_q.and_then(|q| q.answers.as_ref());
        let run_prepared = run_answers
            .map(|a| prepare(&a.answers, match_options))
            .unwrap_or_default();
        let status = match run_q {
            None => Status::Missing,
            Some(_) if run_prepared.is_empty() => Status::Empty,
            Some(_) => Status::Answered,
        };
        match status {
            Status::Missing => agg.missing += 1,
            Status::Empty => agg.empty += 1,
            Status::Error => agg.errors += 1,
            _ => agg.answered += 1,
        }
        let matching = match_answers(gold_prepared, &run_prepared);
        let score = score_question(matching.gold, matching.run, matching.tp());
        if let Some(answers) = run_answers {
            let matched: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
            let unmatched = run_prepared
                .iter()
                .filter(|p| !matched.contains(&p.index))
                .map(|p| &answers.answers[p.index]);
            let (mut strings, mut iri_texts, mut iris) = (0, Vec::new(), 0);
            for a in unmatched {
                match a.terms.as_slice() {
                    [Term::Literal { lexical, .. }] if looks_like_iri(lexical.trim()) => {
                        iri_texts.push(lexical.trim())
                    }
                    terms if terms.iter().all(|t| matches!(t, Term::Literal { .. })) => {
                        strings += 1
                    }
                    terms if terms.iter().all(Term::is_iri) => iris += 1,
                    _ => {}
                }
            }
            if !iri_texts.is_empty() && entry.has_iri {
                diags.push(format!(
                    "{} literal answer(s) hold IRI text (such as {:?}) and are not IRIs: a term keeps its kind, so they do not match gold IRIs; answer with type \"uri\"",
                    iri_texts.len(),
                    iri_texts[0]
                ));
            }
            if strings > 0 && entry.has_iri {
                diags.push(format!(
                    "{strings} string answer(s) could not be compared with the gold IRIs: matching labels needs an index (--index)"
                ));
            }
            if iris > 0 && entry.has_literal && !entry.has_iri {
                diags.push(format!(
                    "{iris} IRI answer(s) could not be compared with the gold strings: matching labels needs an index (--index)"
                ));
            }
        }
        scores.push(score);
        questions.push(question_report(gq, status, Some(score), diags));
    }
    agg.evaluated = scores.len();
    let measures = aggregate(&scores);
    agg.micro = measures.micro;
    agg.macro_ = measures.macro_;
    agg.macro_qald = measures.macro_qald;
    if resamples > 0 {
        agg.confidence = Some(bootstrap(&scores, resamples, BOOTSTRAP_SEED));
    }
    let qa = (agg.evaluated > 0).then_some(ExperimentReport {
        aggregate: agg,
        questions,
    });
    (
        RunReport {
            name: run.name.to_string(),
            source: run.source.to_string(),
            format: run.dataset.format.name(),
            experiments: Experiments {
                qa,
                ..Experiments::default()
            },
            extra_ids: extra.clone(),
        },
        extra,
    )
}

fn question_report(
    q: &Question,
    status: Status,
    score: Option<QuestionScore>,
    diagnostics: Vec<String>,
) -> QuestionReport {
    let s = score.unwrap_or_default();
    QuestionReport {
        id: q.id.0.clone(),
        status,
        tp: s.tp,
        fp: s.fp,
        fn_: s.fn_,
        precision: s.precision,
        recall: s.recall,
        f1: s.f1,
        precision_qald: s.precision_qald,
        recall_qald: s.recall_qald,
        diagnostics,
    }
}

/// Sorts ids numerically when they are numbers, else as strings.
fn natural_key(id: &str) -> (u8, u64, &str) {
    match id.parse::<u64>() {
        Ok(n) => (0, n, id),
        Err(_) => (1, 0, id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qald::parse;

    fn dataset(json: &str) -> Dataset {
        parse(json.as_bytes(), "t").unwrap()
    }
    fn uris(values: &[&str]) -> String {
        let rows: Vec<String> = values
            .iter()
            .map(|v| format!(r#"{{"x":{{"type":"uri","value":"{v}"}}}}"#))
            .collect();
        format!(
            r#"[{{"head":{{"vars":["x"]}},"results":{{"bindings":[{}]}}}}]"#,
            rows.join(",")
        )
    }

    #[test]
    fn missing_extra_empty_and_ids() {
        let gold = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}},{{"id":"2","answers":{}}},{{"id":"3","answers":{}}},{{"id":"4"}}]}}"#,
            uris(&["http://a.org/1"]),
            uris(&["http://a.org/2", "http://a.org/3"]),
            uris(&[])
        ));
        let run = dataset(&format!(
            r#"{{"questions":[{{"id":"1","answers":{}}},{{"id":2,"answers":[]}},{{"id":"07","answers":[]}}]}}"#,
            uris(&["https://a.org/1"])
        ));
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r.json",
                dataset: &run,
            }],
            Options::default(),
        );
        let qa = report.runs[0].experiments.qa.as_ref().unwrap();
        let a = &qa.aggregate;
        assert_eq!((a.questions, a.evaluated, a.not_evaluable), (4, 3, 1));
        assert_eq!((a.answered, a.empty, a.missing, a.extra), (1, 1, 1, 1));
        assert_eq!(report.runs[0].extra_ids, vec!["07"]);
        let st: Vec<Status> = qa.questions.iter().map(|q| q.status).collect();
        assert_eq!(
            st,
            vec![
                Status::Answered,
                Status::Empty,
                Status::Missing,
                Status::NotEvaluable
            ]
        );
        // q1: https vs http on a non-KG host differ -> 0; q2: empty -> 0 (QALD P = 1);
        // q3: gold empty and run missing -> 1.
        assert_eq!(qa.questions[0].f1, 0.0);
        assert_eq!(qa.questions[1].precision_qald, 1.0);
        assert_eq!(qa.questions[2].f1, 1.0);
        assert!((a.macro_.f1 - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn string_answers_against_iri_gold_are_explained() {
        let gold = dataset(&format!(
            r#"{{"questions":[{{"id":1,"answers":{}}}]}}"#,
            uris(&["http://dbpedia.org/resource/Barack_Obama"])
        ));
        let run = dataset(
            r#"{"questions":[{"id":1,"answers":[{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"Barack Obama"}}]}}]}]}"#,
        );
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r",
                dataset: &run,
            }],
            Options::default(),
        );
        let q = &report.runs[0].experiments.qa.as_ref().unwrap().questions[0];
        assert_eq!((q.tp, q.fp, q.fn_), (0, 1, 1));
        assert!(
            q.diagnostics.iter().any(|d| d.contains("needs an index")),
            "{:?}",
            q.diagnostics
        );
    }

    #[test]
    fn gold_without_answers_gives_null_qa() {
        let gold =
            dataset(r#"[{"_id":"1","corrected_question":"q","sparql_query":"SELECT ?x {}"}]"#);
        let report = evaluate(
            &gold,
            "g",
            &[Run {
                name: "r",
                source: "r",
                dataset: &gold,
            }],
            Options::default(),
        );
        assert!(report.runs[0].experiments.qa.is_none());
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["runs"][0]["experiments"]["qa"].is_null());
        assert!(json["runs"][0]["experiments"]["c2kb"].is_null());
    }
}
