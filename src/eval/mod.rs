//! The evaluator: joins a gold benchmark and runs by question id, derives the
//! markings of every sub-experiment, matches, scores every question, aggregates and
//! splits by question features (SCORING 1–6, 9). Synchronous and deterministic:
//! the same inputs give a byte-identical report.

pub mod profile;
pub mod report;

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::annotate::{annotate_question, Annotation, Features};
use crate::matching::{match_answers, prepare, prepare_markings, MatchOptions, Matching, Prepared};
use crate::metrics::{aggregate, bootstrap, score_question, QuestionScore};
use crate::model::{looks_like_iri, Answer, AnswerSet, Dataset, Question, Term};
pub use profile::Profile;
pub use report::{
    AggregateReport, ExperimentReport, Experiments, GoldInfo, QuestionReport, Report, RunReport,
    Status,
};

/// A sub-experiment (SCORING 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Experiment {
    /// Answer sets.
    Qa,
    /// Resources: entities and classes.
    C2kb,
    /// Properties.
    P2kb,
    /// Triples.
    Re2kb,
    /// Answer type.
    At,
    /// Answer item types.
    Ait2kb,
}

impl Experiment {
    /// All sub-experiments, in report order.
    pub const ALL: [Experiment; 6] = [
        Experiment::Qa,
        Experiment::C2kb,
        Experiment::P2kb,
        Experiment::Re2kb,
        Experiment::At,
        Experiment::Ait2kb,
    ];

    /// The name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        Experiments::NAMES[self as usize]
    }

    /// Parses a name (`qa`, `c2kb`, …).
    pub fn parse(name: &str) -> Option<Experiment> {
        Experiment::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// What to evaluate and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The scoring profile.
    pub profile: Profile,
    /// `--strict-literals`.
    pub strict_literals: bool,
    /// `--lenient-dates`.
    pub lenient_dates: bool,
    /// Bootstrap resamples for confidence intervals (0: none).
    pub bootstrap: usize,
    /// The sub-experiments to run; empty means all.
    pub experiments: Vec<Experiment>,
    /// Features to split every aggregate by (`--by`).
    pub by: Vec<String>,
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

/// The prepared sets of one question, per experiment (`None`: no usable source).
type Sets = [Option<Vec<Prepared>>; 6];

/// Prepares the marking sets of one question for the chosen experiments.
fn sets(
    q: &Question,
    annotation: Option<&Annotation>,
    wanted: &[bool; 6],
    opts: MatchOptions,
) -> Sets {
    let iris = |list: &Option<Vec<String>>| {
        list.as_ref().map(|l| {
            let answers: Vec<Answer> = l
                .iter()
                .map(|i| Answer::single(Term::Iri(i.clone())))
                .collect();
            prepare(&answers, opts)
        })
    };
    let mut out: Sets = Default::default();
    if wanted[0] {
        out[0] = q.answers.as_ref().map(|a| prepare(&a.answers, opts));
    }
    if let Some(m) = annotation.map(|a| &a.markings) {
        if wanted[1] {
            out[1] = iris(&m.resources);
        }
        if wanted[2] {
            out[2] = iris(&m.properties);
        }
        if wanted[3] {
            out[3] = m.triples.as_ref().map(|t| prepare_markings(t));
        }
        if wanted[4] {
            out[4] = m
                .answer_type
                .map(|t| prepare(&[Answer::single(Term::plain(t.value.name()))], opts));
        }
        if wanted[5] {
            out[5] = iris(&m.item_types);
        }
    }
    out
}

/// A gold question prepared once for all runs.
struct GoldEntry<'a> {
    question: &'a Question,
    sets: Sets,
    features: Features,
    notes: Vec<String>,
    has_iri: bool,
    has_literal: bool,
}

/// A run question prepared once for all experiments.
struct RunEntry<'a> {
    question: &'a Question,
    sets: Sets,
    notes: Vec<String>,
}

/// Evaluates every run against the gold benchmark.
pub fn evaluate(gold: &Dataset, gold_path: &str, runs: &[Run<'_>], options: Options) -> Report {
    let match_options = options
        .profile
        .match_options(options.strict_literals, options.lenient_dates);
    let mut wanted = [options.experiments.is_empty(); 6];
    for e in &options.experiments {
        wanted[*e as usize] = true;
    }
    let annotate = wanted[1..].iter().any(|w| *w) || !options.by.is_empty();
    let mut diagnostics: Vec<String> = gold
        .diagnostics
        .iter()
        .map(|d| format!("gold: {d}"))
        .collect();
    for f in &options.by {
        if !crate::annotate::FEATURES.contains(&f.as_str()) {
            diagnostics.push(format!(
                "unknown feature {f:?} for --by (known: {})",
                crate::annotate::FEATURES.join(", ")
            ));
        }
    }
    let mut seen = HashSet::new();
    let entries: Vec<GoldEntry<'_>> = gold
        .questions
        .iter()
        .filter(|q| seen.insert(q.id.0.as_str()))
        .map(|q| {
            let annotation = annotate.then(|| annotate_question(q, match_options));
            let terms = || {
                q.answers
                    .iter()
                    .flat_map(|a| &a.answers)
                    .flat_map(|a| &a.terms)
            };
            GoldEntry {
                question: q,
                sets: sets(q, annotation.as_ref(), &wanted, match_options),
                features: annotation
                    .as_ref()
                    .map(|a| a.features.clone())
                    .unwrap_or_default(),
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
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
        let report = evaluate_run(&entries, run, match_options, &options, &wanted, annotate);
        if !report.extra_ids.is_empty() {
            diagnostics.push(format!(
                "run '{}': {} question(s) not in the gold benchmark were ignored: {}",
                run.name,
                report.extra_ids.len(),
                report.extra_ids.join(", ")
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
    options: &Options,
    wanted: &[bool; 6],
    annotate: bool,
) -> RunReport {
    let mut by_id: HashMap<&str, RunEntry<'_>> =
        HashMap::with_capacity(run.dataset.questions.len());
    let gold_ids: HashSet<&str> = entries.iter().map(|e| e.question.id.0.as_str()).collect();
    for q in &run.dataset.questions {
        if by_id.contains_key(q.id.0.as_str()) || !gold_ids.contains(q.id.0.as_str()) {
            continue;
        }
        let annotation = (annotate && wanted[1..].iter().any(|w| *w))
            .then(|| annotate_question(q, match_options));
        by_id.insert(
            q.id.0.as_str(),
            RunEntry {
                question: q,
                sets: sets(q, annotation.as_ref(), wanted, match_options),
                notes: annotation.map(|a| a.diagnostics).unwrap_or_default(),
            },
        );
    }
    let mut extra: Vec<String> = run
        .dataset
        .questions
        .iter()
        .map(|q| q.id.0.as_str())
        .filter(|id| !gold_ids.contains(id))
        .collect::<HashSet<&str>>()
        .into_iter()
        .map(str::to_string)
        .collect();
    extra.sort_by(|a, b| natural_key(a).cmp(&natural_key(b)));
    let mut experiments = Experiments::default();
    for e in Experiment::ALL {
        if !wanted[e as usize] {
            continue;
        }
        let report = score_experiment(e, entries, &by_id, extra.len(), options);
        match e {
            Experiment::Qa => experiments.qa = report,
            Experiment::C2kb => experiments.c2kb = report,
            Experiment::P2kb => experiments.p2kb = report,
            Experiment::Re2kb => experiments.re2kb = report,
            Experiment::At => experiments.at = report,
            Experiment::Ait2kb => experiments.ait2kb = report,
        }
    }
    RunReport {
        name: run.name.to_string(),
        source: run.source.to_string(),
        format: run.dataset.format.name(),
        experiments,
        extra_ids: extra,
    }
}

/// Scores one sub-experiment of one run; `None` when no gold question has data.
fn score_experiment(
    e: Experiment,
    entries: &[GoldEntry<'_>],
    runs: &HashMap<&str, RunEntry<'_>>,
    extra: usize,
    options: &Options,
) -> Option<ExperimentReport> {
    let k = e as usize;
    let mut questions = Vec::with_capacity(entries.len());
    let mut scored: Vec<(usize, Status, QuestionScore)> = Vec::with_capacity(entries.len());
    let mut not_evaluable = 0;
    for (i, entry) in entries.iter().enumerate() {
        let gq = entry.question;
        let run = runs.get(gq.id.0.as_str());
        let mut diags: Vec<String> = gq
            .diagnostics
            .iter()
            .map(|d| format!("gold: {d}"))
            .collect();
        if let Some(r) = run {
            diags.extend(r.question.diagnostics.iter().map(|d| format!("run: {d}")));
        }
        if e != Experiment::Qa {
            diags.extend(entry.notes.iter().map(|d| format!("gold: {d}")));
            if let Some(r) = run {
                diags.extend(r.notes.iter().map(|d| format!("run: {d}")));
            }
        }
        let Some(gold_set) = &entry.sets[k] else {
            not_evaluable += 1;
            diags.push(match e {
                Experiment::Qa => "not evaluable: the gold question has no answers".to_string(),
                _ => format!(
                    "not evaluable for {}: the gold question has no usable query or annotation",
                    e.name()
                ),
            });
            questions.push(question_report(gq, Status::NotEvaluable, None, diags));
            continue;
        };
        let empty = Vec::new();
        let run_set = run.and_then(|r| r.sets[k].as_ref()).unwrap_or(&empty);
        let status = match run {
            None => Status::Missing,
            Some(_) if run_set.is_empty() => Status::Empty,
            Some(_) => Status::Answered,
        };
        let matching = match_answers(gold_set, run_set);
        let score = score_question(matching.gold, matching.run, matching.tp());
        if e == Experiment::Qa {
            if let Some(answers) = run.and_then(|r| r.question.answers.as_ref()) {
                cross_kind_notes(entry, answers, run_set, &matching, &mut diags);
            }
        }
        scored.push((i, status, score));
        questions.push(question_report(gq, status, Some(score), diags));
    }
    if scored.is_empty() {
        return None;
    }
    let mut agg = aggregate_report(&scored, entries.len(), not_evaluable, extra);
    if options.bootstrap > 0 {
        let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
        agg.confidence = Some(bootstrap(&scores, options.bootstrap, BOOTSTRAP_SEED));
    }
    let breakdown = (!options.by.is_empty()).then(|| {
        let mut out: BTreeMap<String, BTreeMap<String, AggregateReport>> = BTreeMap::new();
        for feature in &options.by {
            let mut groups: BTreeMap<String, Vec<(usize, Status, QuestionScore)>> = BTreeMap::new();
            for item in &scored {
                let values = entries[item.0].features.get(feature.as_str());
                for v in values.into_iter().flatten() {
                    groups.entry(v.clone()).or_default().push(*item);
                }
            }
            out.insert(
                feature.clone(),
                groups
                    .into_iter()
                    .map(|(v, items)| {
                        let n = items.len();
                        (v, aggregate_report(&items, n, 0, 0))
                    })
                    .collect(),
            );
        }
        out
    });
    Some(ExperimentReport {
        aggregate: agg,
        questions,
        breakdown,
    })
}

/// The aggregate of scored questions (index, status, score).
fn aggregate_report(
    scored: &[(usize, Status, QuestionScore)],
    questions: usize,
    not_evaluable: usize,
    extra: usize,
) -> AggregateReport {
    let mut agg = AggregateReport {
        questions,
        evaluated: scored.len(),
        not_evaluable,
        extra,
        ..AggregateReport::default()
    };
    for (_, status, _) in scored {
        match status {
            Status::Missing => agg.missing += 1,
            Status::Empty => agg.empty += 1,
            Status::Error => agg.errors += 1,
            _ => agg.answered += 1,
        }
    }
    let scores: Vec<QuestionScore> = scored.iter().map(|(_, _, s)| *s).collect();
    let measures = aggregate(&scores);
    agg.micro = measures.micro;
    agg.macro_ = measures.macro_;
    agg.macro_qald = measures.macro_qald;
    agg
}

/// Says which run answers could not be compared across kinds without an index.
fn cross_kind_notes(
    entry: &GoldEntry<'_>,
    answers: &AnswerSet,
    run_set: &[Prepared],
    matching: &Matching,
    diags: &mut Vec<String>,
) {
    let matched: HashSet<usize> = matching.pairs.iter().map(|p| p.run).collect();
    let unmatched = run_set
        .iter()
        .filter(|p| !matched.contains(&p.index))
        .map(|p| &answers.answers[p.index]);
    let (mut strings, mut iri_texts, mut iris) = (0, Vec::new(), 0);
    for a in unmatched {
        match a.terms.as_slice() {
            [Term::Literal { lexical, .. }] if looks_like_iri(lexical.trim()) => {
                iri_texts.push(lexical.trim())
            }
            terms if terms.iter().all(|t| matches!(t, Term::Literal { .. })) => strings += 1,
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
        // the query still gives C2KB markings; AT has no answers and no declared type
        assert_eq!(
            json["runs"][0]["experiments"]["c2kb"]["aggregate"]["macro"]["f1"],
            1.0
        );
        assert!(json["runs"][0]["experiments"]["at"].is_null());
    }
}
