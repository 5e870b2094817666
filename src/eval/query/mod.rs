//! The query experiment (`--experiments query`; docs/scoring.md, Query
//! measures): per question, whether the run's SPARQL query reads, how it was
//! executed (when queries were executed), its IRIs unknown to the knowledge
//! graph or to the index, its BLEU and SP-F1 against the gold query's text,
//! and whether the two queries' normal forms are equivalent, different or
//! cannot be told apart; and those figures over the run. It reads queries
//! only, under every profile.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use super::text::{bleu, normalize_variables, token_prf, tokenize};
use crate::index::Equivalence;
use crate::model::{Dataset, Query, Question};
use crate::query::normal::{compare, normal_form, NormalForm, Verdict};
use crate::query::SparqlError;

/// Where unknown IRIs were looked up.
const KNOWLEDGE_GRAPH: &str = "knowledge_graph";
const INDEX: &str = "index";

/// The query experiment of one run.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct QueryExperimentReport {
    /// The figures over the run.
    pub aggregate: QueryAggregate,
    /// One entry per gold question, in gold order.
    pub questions: Vec<QueryQuestion>,
}

/// The query figures of one question.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct QueryQuestion {
    /// The question id.
    pub id: String,
    /// The gold question's text (as the other experiments give it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// `compared` (both queries present), `no_run_query` (the run has the
    /// question without a SPARQL query), `missing` (the run does not have the
    /// question) or `no_gold_query`.
    pub status: &'static str,
    /// True when the run's query reads (the endpoints' predefined prefixes and
    /// Virtuoso's dialect allowed); absent without a run query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parses: Option<bool>,
    /// True when it is standard SPARQL 1.1 as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard: Option<bool>,
    /// The status of the run query's execution (`ok`, `syntax_error`,
    /// `execution_error`, `timeout`, `truncated`), when queries were executed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<&'static str>,
    /// IRIs of the run query looked up (see `unknown_iris_source`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iris: Option<usize>,
    /// Those found nowhere: invented IRIs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_iris: Vec<String>,
    /// Where IRIs were looked up: `knowledge_graph` (every IRI of the
    /// executed query) or `index` (entities: IRIs in subject or object
    /// position that are not classes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_iris_source: Option<&'static str>,
    /// BLEU-4 of the run query's tokens against the gold query's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bleu: Option<f64>,
    /// Token F1 of the two queries with their variables renamed by first
    /// occurrence (SP-F1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sp_f1: Option<f64>,
    /// `equivalent`, `different` or `unknown` (docs/scoring.md, Query measures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalence: Option<&'static str>,
    /// Why a query did not read.
    pub diagnostics: Vec<String>,
}

/// The query figures of one run.
#[derive(Debug, Clone, Serialize, PartialEq, Default, utoipa::ToSchema)]
pub struct QueryAggregate {
    /// Gold questions.
    pub questions: usize,
    /// Questions where both queries are present.
    pub compared: usize,
    /// Gold questions the run has (with a query or not).
    pub answered: usize,
    /// Gold questions for which the run gives a SPARQL query.
    pub run_queries: usize,
    /// Of them, those that read.
    pub parses: usize,
    /// `parses / answered`: a question the run has with no query or a blank
    /// one counts as a query that does not read; `null` for a run that gives
    /// no query at all (a run of answers).
    pub parse_rate: Option<f64>,
    /// Of them, those that are standard SPARQL 1.1 as written.
    pub standard: usize,
    /// Run queries executed.
    pub executed: usize,
    /// Executions per status.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub execution_by_status: BTreeMap<&'static str, usize>,
    /// Executions per status over `executed`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub execution_rates: BTreeMap<&'static str, f64>,
    /// IRIs looked up.
    pub iris: usize,
    /// Of them, those found nowhere.
    pub unknown_iris: usize,
    /// `unknown_iris / iris` (the hallucination rate), `null` when nothing could tell.
    pub unknown_iri_rate: Option<f64>,
    /// Where IRIs were looked up (`knowledge_graph`, `index`), `null` when nowhere.
    pub unknown_iris_source: Option<&'static str>,
    /// Mean BLEU over the compared questions (both queries present).
    pub bleu: Option<f64>,
    /// Mean SP-F1 over the compared questions.
    pub sp_f1: Option<f64>,
    /// Mean BLEU over the questions the run has, one without a query
    /// counting 0 (T2S-Metrics' mean over its cases), `null` when it has none.
    pub bleu_answered: Option<f64>,
    /// Mean SP-F1 over the questions the run has, one without a query
    /// counting 0.
    pub sp_f1_answered: Option<f64>,
    /// Compared questions per verdict (`equivalent`, `different`, `unknown`).
    pub equivalence: BTreeMap<&'static str, usize>,
    /// `equivalent / compared`.
    pub equivalent_rate: Option<f64>,
}

/// The SPARQL text of a question's query.
fn sparql(q: &Question) -> Option<&str> {
    match &q.query {
        Query::Sparql(s) if !s.trim().is_empty() => Some(s),
        _ => None,
    }
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn rate(n: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| n as f64 / of as f64)
}

/// Entities of a query the index knows nothing of (no sameAs class, no type).
fn unknown_to_index(form: &NormalForm, index: &dyn Equivalence) -> Vec<String> {
    form.entities
        .iter()
        .filter(|iri| {
            let class = index.class(iri).ok().flatten();
            let types = index.types(iri).unwrap_or_default();
            class.is_none() && types.is_empty()
        })
        .cloned()
        .collect()
}

/// Scores the queries of `run` against those of `gold`; `index` tells
/// unknown entities when the queries were not executed (only an index with
/// types can).
pub fn evaluate_queries(
    gold: &Dataset,
    run: &Dataset,
    lang: Option<&str>,
    index: Option<&dyn Equivalence>,
    deadline: crate::eval::Deadline,
) -> QueryExperimentReport {
    let mut by_id: HashMap<&str, &Question> = HashMap::with_capacity(run.questions.len());
    for q in &run.questions {
        by_id.entry(q.id.0.as_str()).or_insert(q);
    }
    let index = index.filter(|i| i.has_types());
    let mut seen = HashSet::new();
    let mut questions = Vec::new();
    let mut tally = Tally::default();
    for g in gold
        .questions
        .iter()
        .filter(|q| seen.insert(q.id.0.as_str()))
    {
        if deadline.passed() {
            break;
        }
        let r = by_id.get(g.id.0.as_str()).copied();
        questions.push(tally.question(g, r, lang, index));
    }
    tally.report(questions)
}

/// The run's query figures as its questions are scored, for the aggregate.
#[derive(Default)]
struct Tally {
    /// The counts so far.
    a: QueryAggregate,
    /// The BLEU of each compared question.
    bleus: Vec<f64>,
    /// The SP-F1 of each compared question.
    sp_f1s: Vec<f64>,
    /// Where the questions' IRIs were looked up.
    sources: BTreeSet<&'static str>,
}

impl Tally {
    /// The query figures of gold question `g` and the run's question `r`
    /// (`None`: the run lacks it), counted.
    fn question(
        &mut self,
        g: &Question,
        r: Option<&Question>,
        lang: Option<&str>,
        index: Option<&dyn Equivalence>,
    ) -> QueryQuestion {
        let mut out = QueryQuestion {
            id: g.id.0.clone(),
            question: g.text(lang.unwrap_or("en")).map(str::to_string),
            status: "compared",
            parses: None,
            standard: None,
            execution: None,
            iris: None,
            unknown_iris: Vec::new(),
            unknown_iris_source: None,
            bleu: None,
            sp_f1: None,
            equivalence: None,
            diagnostics: Vec::new(),
        };
        let a = &mut self.a;
        let gold_text = sparql(g);
        let run_text = r.and_then(sparql);
        a.answered += usize::from(r.is_some());
        let run_form = run_text.map(normal_form);
        if let Some(form) = &run_form {
            a.run_queries += 1;
            out.parses = Some(form.is_ok());
            match form {
                Ok(f) => {
                    a.parses += 1;
                    a.standard += usize::from(f.standard);
                    out.standard = Some(f.standard);
                }
                Err(e) => out.diagnostics.push(format!("run query: {e}")),
            }
        }
        self.iris(r, run_form.as_ref(), index, &mut out);
        out.status = match (gold_text, r, run_text) {
            (None, _, _) => "no_gold_query",
            (Some(_), None, _) => "missing",
            (Some(_), Some(_), None) => "no_run_query",
            (Some(_), Some(_), Some(_)) => "compared",
        };
        if let (Some(gt), Some(rt)) = (gold_text, run_text) {
            self.compare(gt, rt, run_form.as_ref(), &mut out);
        }
        out
    }

    /// Counts how the run's query was executed and its IRIs the knowledge
    /// graph lacks or, when it was not executed, its entities the index
    /// (with types) knows nothing of.
    fn iris(
        &mut self,
        r: Option<&Question>,
        run_form: Option<&Result<NormalForm, SparqlError>>,
        index: Option<&dyn Equivalence>,
        out: &mut QueryQuestion,
    ) {
        let a = &mut self.a;
        if let Some(x) = r.and_then(|r| r.execution.as_ref()) {
            let status = x.status.name();
            a.executed += 1;
            *a.execution_by_status.entry(status).or_insert(0) += 1;
            out.execution = Some(status);
            out.iris = Some(x.iris);
            out.unknown_iris.clone_from(&x.unknown_iris);
            out.unknown_iris_source = Some(KNOWLEDGE_GRAPH);
        } else if let (Some(Ok(f)), Some(index)) = (run_form, index) {
            out.iris = Some(f.entities.len());
            out.unknown_iris = unknown_to_index(f, index);
            out.unknown_iris_source = Some(INDEX);
        }
        if let Some(n) = out.iris {
            a.iris += n;
            a.unknown_iris += out.unknown_iris.len();
            self.sources.extend(out.unknown_iris_source);
        }
    }

    /// Compares the gold query's text `gt` with the run's `rt`: their BLEU,
    /// SP-F1 and the verdict on their normal forms, counted.
    fn compare(
        &mut self,
        gt: &str,
        rt: &str,
        run_form: Option<&Result<NormalForm, SparqlError>>,
        out: &mut QueryQuestion,
    ) {
        self.a.compared += 1;
        let b = bleu(&tokenize(gt), &tokenize(rt));
        let sp = token_prf(
            &tokenize(&normalize_variables(gt)),
            &tokenize(&normalize_variables(rt)),
        )
        .f1;
        self.bleus.push(b);
        self.sp_f1s.push(sp);
        out.bleu = Some(b);
        out.sp_f1 = Some(sp);
        let verdict = match (normal_form(gt), run_form) {
            (Ok(gf), Some(Ok(rf))) => compare(&gf, rf),
            (Err(e), _) => {
                out.diagnostics.push(format!("gold query: {e}"));
                Verdict::Unknown
            }
            _ => Verdict::Unknown,
        };
        *self.a.equivalence.entry(verdict.name()).or_insert(0) += 1;
        out.equivalence = Some(verdict.name());
    }

    /// The report of the questions scored: their rates and means over the run.
    fn report(self, mut questions: Vec<QueryQuestion>) -> QueryExperimentReport {
        let mut a = self.a;
        a.questions = questions.len();
        // a run that gives queries: a question it has without one did not give one
        // that reads (FRANZ's blank queries on CK25); a run of answers has no rate
        if a.run_queries > 0 {
            for q in questions.iter_mut().filter(|q| q.status == "no_run_query") {
                q.parses = Some(false);
            }
            a.parse_rate = rate(a.parses, a.answered);
        }
        a.execution_rates = a
            .execution_by_status
            .iter()
            .map(|(k, n)| (*k, *n as f64 / a.executed as f64))
            .collect();
        a.unknown_iri_rate = rate(a.unknown_iris, a.iris);
        // the knowledge graph when some query was executed, else the index
        a.unknown_iris_source = self.sources.into_iter().next_back();
        a.bleu = mean(&self.bleus);
        a.sp_f1 = mean(&self.sp_f1s);
        let over_answered = |v: &[f64]| {
            (a.answered > 0 && !v.is_empty()).then(|| v.iter().sum::<f64>() / a.answered as f64)
        };
        a.bleu_answered = over_answered(&self.bleus);
        a.sp_f1_answered = over_answered(&self.sp_f1s);
        a.equivalent_rate = rate(
            a.equivalence.get("equivalent").copied().unwrap_or(0),
            a.compared,
        );
        QueryExperimentReport {
            aggregate: a,
            questions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::MemoryIndex;
    use crate::model::QuestionId;

    fn q(id: &str, query: Option<&str>) -> Question {
        Question {
            id: QuestionId(id.to_string()),
            query: query.map_or(Query::None, |s| Query::Sparql(s.to_string())),
            ..Question::default()
        }
    }

    fn dataset(questions: Vec<Question>) -> Dataset {
        let mut d = Dataset::new(crate::model::Format::QaldJson);
        d.questions = questions;
        d
    }

    #[test]
    fn every_status_and_verdict_counted() {
        let gold = dataset(vec![
            q("1", Some("SELECT ?x { <http://e/A> <http://p> ?x }")),
            q("2", Some("SELECT ?x { ?x a <http://C> }")),
            q("3", Some("ASK { <http://e/A> <http://p> <http://e/B> }")),
            q("4", Some("SELECT ?x { ?x <http://p> ?y }")),
            q("5", None),
        ]);
        let run = dataset(vec![
            q(
                "1",
                Some("SELECT ?y WHERE { <http://e/A> <http://p> ?y . }"),
            ),
            q("2", Some("SELECT ?x { ?x a <http://D> }")),
            q(
                "3",
                Some("ASK { <http://e/A> <http://p> <http://e/Made_up> "),
            ),
            q("4", None),
        ]);
        let mut index = MemoryIndex::new();
        index
            .typed("http://e/A", "http://C")
            .typed("http://e/B", "http://C");
        let r = evaluate_queries(&gold, &run, None, Some(&index), Default::default());
        let status: Vec<&str> = r.questions.iter().map(|q| q.status).collect();
        assert_eq!(
            status,
            [
                "compared",
                "compared",
                "compared",
                "no_run_query",
                "no_gold_query"
            ]
        );
        let verdicts: Vec<Option<&str>> = r.questions.iter().map(|q| q.equivalence).collect();
        assert_eq!(
            verdicts,
            [
                Some("equivalent"),
                Some("different"),
                Some("unknown"),
                None,
                None
            ]
        );
        let a = &r.aggregate;
        assert_eq!(
            (a.questions, a.compared, a.run_queries, a.parses),
            (5, 3, 3, 2)
        );
        // the question the run has without a query counts as one that does
        // not read: 2 of the 4 it has
        assert_eq!(a.answered, 4);
        assert_eq!(a.parse_rate, Some(2.0 / 4.0));
        assert_eq!(r.questions[3].parses, Some(false));
        let sum: f64 = r.questions.iter().filter_map(|q| q.bleu).sum();
        assert_eq!(a.bleu_answered, Some(sum / 4.0));
        assert_eq!(a.equivalent_rate, Some(1.0 / 3.0));
        assert_eq!(r.questions[2].parses, Some(false));
        // the index knows A; the query that does not read names no entity
        assert_eq!((a.iris, a.unknown_iris), (1, 0));
        assert_eq!(a.unknown_iris_source, Some(INDEX));
        assert_eq!(
            r.questions[0].bleu,
            Some(bleu(
                &tokenize("SELECT ?x { <http://e/A> <http://p> ?x }"),
                &tokenize("SELECT ?y WHERE { <http://e/A> <http://p> ?y . }")
            ))
        );
        assert!(r.questions[0].sp_f1.unwrap() > r.questions[0].bleu.unwrap());
    }

    /// The TEXT2SPARQL'25 gold queries (CK25, DB25) against themselves
    /// rewritten: written back from the algebra (prefixes expanded), patterns
    /// in reverse order, variables renamed; and with an IRI changed.
    #[test]
    fn challenge_gold_queries_rewritten_are_equivalent() {
        for file in ["questions_ck25.yml", "questions_db25.yaml"] {
            let Some(path) =
                crate::test_data::shared_data(&format!("text2sparql/benchmark/{file}"))
            else {
                return;
            };
            let bytes = std::fs::read(&path).expect("the benchmark reads");
            let gold = crate::qald::read(&bytes[..], file).expect("the benchmark parses");
            let mut rewritten = gold.clone();
            let mut changed = gold.clone();
            for (i, q) in gold.questions.iter().enumerate() {
                let text = sparql(q).expect("a gold query");
                let r = crate::query::normal::rewritten(text).expect("it rewrites");
                rewritten.questions[i].query = Query::Sparql(r.clone());
                // one IRI another: a different query
                let other = r.replacen("<http", "<urn:changed:http", 1);
                changed.questions[i].query = Query::Sparql(other);
            }
            let report = evaluate_queries(&gold, &rewritten, None, None, Default::default());
            let a = &report.aggregate;
            assert_eq!(a.compared, gold.questions.len(), "{file}");
            let odd: Vec<(&str, Option<&str>)> = report
                .questions
                .iter()
                .filter(|q| q.equivalence != Some("equivalent"))
                .map(|q| (q.id.as_str(), q.equivalence))
                .collect();
            // spargebra 0.4 writes `?minW + (0.9 * (?maxW - ?minW))` back
            // without its brackets: the rewritten CK25 q44 is another query,
            // and the normal form cannot call it equivalent
            let expected: &[(&str, Option<&str>)] = if file.contains("ck25") {
                &[("ck25:44-en", Some("unknown"))]
            } else {
                &[]
            };
            assert_eq!(odd, expected, "{file}");
            assert!(a.sp_f1.is_some_and(|f| f > 0.5), "{file}: {a:?}");
            let report = evaluate_queries(&gold, &changed, None, None, Default::default());
            assert_eq!(
                report.aggregate.equivalence.get("different"),
                Some(&gold.questions.len()),
                "{file}: {:?}",
                report.aggregate.equivalence
            );
        }
    }

    #[test]
    fn entities_unknown_to_the_index_are_counted() {
        let gold = dataset(vec![q(
            "1",
            Some("ASK { <http://e/A> <http://p> <http://e/B> }"),
        )]);
        let run = dataset(vec![q(
            "1",
            Some("ASK { <http://e/A> <http://p> <http://e/Made_up> }"),
        )]);
        let mut index = MemoryIndex::new();
        index.typed("http://e/A", "http://C");
        let r = evaluate_queries(&gold, &run, None, Some(&index), Default::default());
        assert_eq!(r.questions[0].unknown_iris, vec!["http://e/Made_up"]);
        assert_eq!(r.aggregate.unknown_iri_rate, Some(0.5));
        // without types the index cannot tell
        let r = evaluate_queries(
            &gold,
            &run,
            None,
            Some(&MemoryIndex::new()),
            Default::default(),
        );
        assert_eq!(r.aggregate.unknown_iri_rate, None);
        assert_eq!(r.aggregate.unknown_iris_source, None);
    }
}
