//! The vocabulary every module shares: terms, answers, answer sets, question ids,
//! questions and datasets. Pure data: no parsing, no I/O, no scoring rules.

use std::collections::BTreeMap;
use std::fmt;

/// One RDF-ish term as a QA system or a benchmark writes it. A term keeps its kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// An IRI, exactly as written (trimmed).
    Iri(String),
    /// A literal with its lexical form, optional datatype IRI and optional language tag.
    Literal {
        /// The lexical form.
        lexical: String,
        /// The datatype IRI, when one was given.
        datatype: Option<String>,
        /// The language tag, when one was given.
        lang: Option<String>,
    },
    /// The answer of an ASK query.
    Boolean(bool),
}

impl Term {
    /// A plain literal with neither datatype nor language.
    pub fn plain(lexical: impl Into<String>) -> Term {
        Term::Literal {
            lexical: lexical.into(),
            datatype: None,
            lang: None,
        }
    }

    /// A literal with a datatype.
    pub fn typed(lexical: impl Into<String>, datatype: impl Into<String>) -> Term {
        Term::Literal {
            lexical: lexical.into(),
            datatype: Some(datatype.into()),
            lang: None,
        }
    }

    /// True for IRIs.
    pub fn is_iri(&self) -> bool {
        matches!(self, Term::Iri(_))
    }
}

/// True when `s` looks like an absolute http(s) IRI.
pub fn looks_like_iri(s: &str) -> bool {
    (s.starts_with("http://") || s.starts_with("https://")) && !s.contains(char::is_whitespace)
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Iri(iri) => write!(f, "<{iri}>"),
            Term::Literal {
                lexical,
                datatype,
                lang,
            } => {
                write!(f, "{lexical:?}")?;
                if let Some(lang) = lang {
                    write!(f, "@{lang}")?;
                }
                if let Some(dt) = datatype {
                    write!(f, "^^<{dt}>")?;
                }
                Ok(())
            }
            Term::Boolean(b) => write!(f, "{b}"),
        }
    }
}

/// One answer: the terms of one binding row. Several terms are alternative forms of
/// the same answer (a resource and its label); a run answer matches it when it
/// matches any of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// The alternative forms, in the order the file gave them.
    pub terms: Vec<Term>,
}

impl Answer {
    /// An answer with one term.
    pub fn single(term: Term) -> Answer {
        Answer { terms: vec![term] }
    }
}

/// The answers of one question, over all its answer objects.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnswerSet {
    /// The answers, in file order (duplicates are kept here and removed when scoring).
    pub answers: Vec<Answer>,
    /// The variables of the answer objects, in order of first appearance.
    pub vars: Vec<String>,
    /// The extent of the first answer object when the file has a list of them
    /// (the `mqald` profile scores only the first one).
    pub first_object: Option<FirstObject>,
    /// Values the reader reinterpreted (a datatype written inside the value, as in
    /// `"5000000.0^^http://dbpedia.org/datatype/usDollar"`), as (answer, term, value
    /// as written); profiles that compare value strings use them.
    pub raw_values: Vec<(usize, usize, String)>,
    /// For each answer, the index in `vars` of each of its terms (a result
    /// row's columns), when the reader knows them; empty otherwise. Row-wise
    /// scoring of tables reads them (docs/scoring.md, Other benchmark families).
    pub columns: Vec<Vec<usize>>,
    /// The result rows exactly as the file wrote them, each cell as (variable,
    /// the binding's keys and values, sorted), empty rows included, for
    /// profiles that compare rows as written (a SPINACH run's); `None` when
    /// the reader does not keep them.
    pub table: Option<Vec<Vec<(String, String)>>>,
}

/// How much of an answer set came from its first answer object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FirstObject {
    /// Answers read from the first object (they come first in `answers`).
    pub answers: usize,
    /// Variables known after the first object.
    pub vars: usize,
}

impl AnswerSet {
    /// True when there is no answer at all.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

/// A question id. `"7"` and `7` are the same id; `"07"` is another.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct QuestionId(pub String);

impl fmt::Display for QuestionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The gold query of a question.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Query {
    /// No query, or an explicit null / empty object.
    #[default]
    None,
    /// A SPARQL query.
    Sparql(String),
    /// A pseudo-query (hybrid questions): not SPARQL, never parsed.
    Pseudo(String),
}

/// One question of a benchmark or a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Question {
    /// The question id.
    pub id: QuestionId,
    /// The question text per language, as (language, text), in file order.
    pub texts: Vec<(String, String)>,
    /// The gold query, if any.
    pub query: Query,
    /// The answers; `None` when the file gives no answers at all for this question
    /// (a benchmark without answers), which is different from an empty answer set.
    pub answers: Option<AnswerSet>,
    /// The declared answer type, as written (`resource`, `uri`, `number` …).
    pub answertype: Option<String>,
    /// The dataset's own flags (`aggregation`, `onlydbo`, `hybrid` …) as strings.
    pub flags: BTreeMap<String, String>,
    /// MQALD modifiers or similar tags.
    pub tags: Vec<String>,
    /// Gold entity IRIs declared by the file (RuBQ `question_uris`, eQALD annotations).
    pub entities: Vec<String>,
    /// Gold property IRIs or prefixed names declared by the file (RuBQ `question_props`).
    pub properties: Vec<String>,
    /// Gold class IRIs or prefixed names declared by the file (eQALD `CLASS`
    /// annotations, a component run's `classes`).
    pub classes: Vec<String>,
    /// Triples declared by a component run (`triples`), as (subject, predicate,
    /// object) written as IRIs, prefixed names, `?variables` or literals.
    pub triples: Vec<[String; 3]>,
    /// Declared answer item types (eQALD `answeritemtype`).
    pub item_types: Vec<String>,
    /// Keywords per language, as (language, keywords), in file order.
    pub keywords: Vec<(String, String)>,
    /// The eQALD `schemaless` query, kept as written.
    pub schemaless: Option<String>,
    /// The confidence the system gave its answer (eQALD `confidence`).
    pub confidence: Option<f64>,
    /// Problems found while reading this question; they never abort the load.
    pub diagnostics: Vec<String>,
    /// How its query was executed on a knowledge graph, when it was (docs/scoring.md, Executing SPARQL).
    pub execution: Option<Execution>,
    /// Further gold readings of the question, each with its own query and
    /// answers (WebQSP's `Parses`); `query` and `answers` above are the first
    /// one's. Official profiles read them (docs/scoring.md, Other benchmark families).
    pub parses: Vec<Parse>,
    /// A logical form other than SPARQL, as written (GrailQA's S-expression,
    /// KQA Pro's program as JSON text), for profiles that compare them.
    pub logical_form: Option<String>,
    /// Triples as (subject, predicate, object), each written as the file
    /// writes it (`Label (Q42)`, an IRI, a literal): in a gold question the
    /// subgraph its answer rests on (KGQAGen's `proof`), in a run question
    /// the triples the system retrieved (`retrieved_triples`, `subgraph`);
    /// docs/scoring.md, Subgraph retrieval.
    pub subgraph: Vec<[String; 3]>,
    /// What answering it cost, as the run gives it or as measured for a live
    /// system (docs/scoring.md, Cost and latency); every measure `None` when
    /// nothing says.
    pub usage: Usage,
    /// True when the run declares that it abstained (`"abstained": true`;
    /// docs/scoring.md, Abstention and truthfulness).
    pub abstained: bool,
    /// Why the gold marks this question unstable (`"unstable"`: its result
    /// differed between executions or stores; `qajudge audit --write-gold`):
    /// such a question is scored and reported apart, never with the others
    /// (docs/audit.md).
    pub unstable: Option<String>,
}

/// What answering one question cost (docs/scoring.md, Cost and latency): each
/// measure as a run file or a live call gives it, `None` when nothing says
/// (absent is never 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    /// Wall time of the answer in milliseconds.
    pub latency_ms: Option<f64>,
    /// Tokens of the prompts sent to a language model.
    pub prompt_tokens: Option<u64>,
    /// Tokens the language model generated.
    pub completion_tokens: Option<u64>,
    /// What the answer cost, in the run's own unit (usually US dollars).
    pub cost: Option<f64>,
    /// Calls made to a language model or a service for the answer.
    pub calls: Option<u64>,
}

impl Usage {
    /// True when no measure is given.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

/// One gold reading of a question among several (WebQSP's `Parses`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parse {
    /// The reading's own id (`ParseId`).
    pub id: String,
    /// Its query.
    pub query: Query,
    /// Its answers.
    pub answers: AnswerSet,
    /// Its own fields (annotator comments, quality labels) as strings.
    pub flags: BTreeMap<String, String>,
}

/// The feature of a TEXT2SPARQL question whose answer order is scored.
pub const RESULT_ORDER_MATTERS: &str = "RESULT_ORDER_MATTERS";

impl Question {
    /// True when the question is flagged `RESULT_ORDER_MATTERS` (docs/scoring.md, Executing SPARQL).
    pub fn order_flagged(&self) -> bool {
        self.tags.iter().any(|t| t == RESULT_ORDER_MATTERS)
    }
}

/// The outcome of executing a query (docs/scoring.md, Executing SPARQL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum ExecStatus {
    /// Executed; every row was kept.
    #[default]
    Ok,
    /// The query does not parse (on the endpoint: rejected, and not SPARQL 1.1 either).
    SyntaxError,
    /// The store failed while executing it (or the endpoint answered with an error).
    ExecutionError,
    /// Stopped after the timeout.
    Timeout,
    /// More rows than the row cap: the rest were dropped.
    Truncated,
}

impl ExecStatus {
    /// Every status, in report order.
    pub const ALL: [ExecStatus; 5] = [
        ExecStatus::Ok,
        ExecStatus::SyntaxError,
        ExecStatus::ExecutionError,
        ExecStatus::Timeout,
        ExecStatus::Truncated,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            ExecStatus::Ok => "ok",
            ExecStatus::SyntaxError => "syntax_error",
            ExecStatus::ExecutionError => "execution_error",
            ExecStatus::Timeout => "timeout",
            ExecStatus::Truncated => "truncated",
        }
    }

    /// True when the answers are usable (all of them, or the capped part).
    pub fn answered(self) -> bool {
        matches!(self, ExecStatus::Ok | ExecStatus::Truncated)
    }
}

/// How one question's query was executed, and the checks made on it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Execution {
    /// The outcome.
    pub status: ExecStatus,
    /// The error (or the cap) in words, when not `ok`.
    pub message: Option<String>,
    /// Result rows kept.
    pub rows: usize,
    /// Wall time of the execution in milliseconds.
    pub ms: f64,
    /// True when the query is standard SPARQL 1.1 as written (no undeclared
    /// prefix, no store-specific syntax).
    pub parses: bool,
    /// IRIs of the query (triple patterns, paths, VALUES) that were checked.
    pub iris: usize,
    /// Those of them that occur nowhere in the knowledge graph (invented IRIs).
    pub unknown_iris: Vec<String>,
    /// How the query was read or run (predefined prefixes, rewritten syntax,
    /// given answers that differ from the results).
    pub notes: Vec<String>,
}

impl Question {
    /// The language of a TEXT2SPARQL-style id (`ck25:1-en` → `en`), else the
    /// first text's language.
    pub fn language(&self) -> Option<&str> {
        self.id
            .0
            .rsplit_once('-')
            .map(|(_, l)| l)
            .filter(|l| (2..=3).contains(&l.len()) && l.chars().all(|c| c.is_ascii_lowercase()))
            .or_else(|| self.texts.first().map(|(l, _)| l.as_str()))
    }

    /// The text in `lang`, else the English one, else the first one.
    pub fn text(&self, lang: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(l, _)| l == lang)
            .or_else(|| self.texts.iter().find(|(l, _)| l == "en"))
            .or_else(|| self.texts.first())
            .map(|(_, t)| t.as_str())
    }
}

/// The format a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// QALD-JSON (QALD-5 … QALD-10, QALD-9-plus, MQALD, NLIWOD and GERBIL runs).
    QaldJson,
    /// The QALD-7 `*-extended-json.json` shape (`question.language[].SPARQL`).
    QaldExtendedJson,
    /// eQALD-JSON: QALD-JSON with annotations, answer item types, confidence.
    Eqald,
    /// QALD-XML (QALD-1 … QALD-7 shapes).
    QaldXml,
    /// LC-QuAD 1.0 JSON.
    Lcquad,
    /// RuBQ 1.0 / 2.0 JSON.
    Rubq,
    /// The TEXT2SPARQL challenge's benchmark YAML.
    Text2SparqlYaml,
    /// The TEXT2SPARQL challenge's system answers (a JSON array of queries).
    Text2SparqlAnswers,
    /// The TEXT2SPARQL challenge's materialised result sets (pytrec_eval
    /// dicts: id → answer → relevance), gold or a system's.
    Text2SparqlResultSet,
    /// A component run in JSON Lines (entities, classes, properties, triples).
    ComponentJsonl,
    /// WikiWebQuestions, SPINACH or their QALD copies (`id, question, sparql`).
    Spinach,
    /// A SPINACH run (`predicted_sparql`, `predicted_answer_tuple`, `gold_answer_tuple`).
    SpinachRun,
    /// LC-QuAD 2.0 (`uid`, `question`, `sparql_wikidata` …).
    Lcquad2,
    /// DBLP-QuAD (`questions[{id, query_type, question, query, entities, relations …}]`).
    DblpQuad,
    /// T2S-Metrics' JSON Lines (`{id, golden, generated, order_matters}`).
    T2sMetrics,
    /// The Mintaka dataset.
    Mintaka,
    /// Predictions keyed by question id (`{id: answer}`, Mintaka's).
    MintakaPredictions,
    /// The KQA Pro dataset.
    Kqapro,
    /// KQA Pro predictions, one answer per line.
    KqaproPredictions,
    /// WebQSP, the official release (`Questions[].Parses[]`).
    Webqsp,
    /// WebQSP predictions (`[{QuestionId, Answers}]`).
    WebqspPredictions,
    /// ComplexWebQuestions (official `answers[]`, or ToG's one `answer`).
    Cwq,
    /// ComplexWebQuestions predictions (`[{ID, answer}]`).
    CwqPredictions,
    /// GrailQA (official, or ToG's copy).
    Grailqa,
    /// GrailQA predictions (`{qid: {logical_form, answer}}`).
    GrailqaPredictions,
    /// SimpleQuestions in ToG's shape.
    SimpleQuestions,
    /// A dataset in ToG's shape (`question, topic_entity, answer`).
    TogQuestions,
    /// WebQuestions in ToG's shape (`url, question, answers`).
    WebQuestions,
    /// LLM predictions in JSON Lines (`{id, question, prediction, ground_truth}`:
    /// Reasoning on Graphs, Think-on-Graph).
    LlmPredictions,
    /// Spider4SPARQL questions (`[{kg_name, question, query}]`).
    Spider4sparql,
    /// Spider4SPARQL predictions (`[{db_id, natural_language_question, prompt,
    /// predicted_sparql}]`), aligned with the dev set by position.
    Spider4sparqlPredictions,
    /// The QAWiki Wikibase dump in Turtle (questions, paraphrases, Wikidata
    /// queries in `wdt:P11`; no answers).
    Qawiki,
    /// KGQAGen-10k in JSON Lines (`id, seed, question, answer, sparql, proof`).
    Kgqagen,
    /// WDQL in JSON Lines (`id, question, sparql, paraphrases, info`).
    Wdql,
    /// GRASP's outputs in JSON Lines (`id, sparql, elapsed`, `messages`, `error`).
    GraspOutputs,
}

impl Format {
    /// The stable name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::QaldJson => "qald-json",
            Format::QaldExtendedJson => "qald-extended-json",
            Format::Eqald => "eqald",
            Format::QaldXml => "qald-xml",
            Format::Lcquad => "lcquad",
            Format::Rubq => "rubq",
            Format::Text2SparqlYaml => "text2sparql-yaml",
            Format::Text2SparqlAnswers => "text2sparql-answers",
            Format::Text2SparqlResultSet => "text2sparql-result-set",
            Format::ComponentJsonl => "component-jsonl",
            Format::Spinach => "spinach",
            Format::SpinachRun => "spinach-run",
            Format::Lcquad2 => "lcquad2",
            Format::DblpQuad => "dblp-quad",
            Format::T2sMetrics => "t2s-metrics",
            Format::Mintaka => "mintaka",
            Format::MintakaPredictions => "mintaka-predictions",
            Format::Kqapro => "kqapro",
            Format::KqaproPredictions => "kqapro-predictions",
            Format::Webqsp => "webqsp",
            Format::WebqspPredictions => "webqsp-predictions",
            Format::Cwq => "cwq",
            Format::CwqPredictions => "cwq-predictions",
            Format::Grailqa => "grailqa",
            Format::GrailqaPredictions => "grailqa-predictions",
            Format::SimpleQuestions => "simplequestions",
            Format::TogQuestions => "tog-questions",
            Format::WebQuestions => "webquestions",
            Format::LlmPredictions => "llm-predictions",
            Format::Spider4sparql => "spider4sparql",
            Format::Spider4sparqlPredictions => "spider4sparql-predictions",
            Format::Qawiki => "qawiki",
            Format::Kgqagen => "kgqagen",
            Format::Wdql => "wdql",
            Format::GraspOutputs => "grasp-outputs",
        }
    }
}

/// A loaded benchmark or run.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The dataset id the file declares, if any.
    pub id: Option<String>,
    /// The format the file was read as.
    pub format: Format,
    /// The questions in file order.
    pub questions: Vec<Question>,
    /// File-level problems that did not stop the load (duplicate ids …).
    pub diagnostics: Vec<String>,
    /// For the answers of a live system: its failed calls and runtime.
    pub calls: Option<Calls>,
    /// The dataset's own metadata (eQALD `dataset.metadata`: free text such as the
    /// knowledge base version), kept for the report.
    pub metadata: Option<String>,
    /// Keys the reader does not know, with their count and one question that has
    /// them, sorted by path (docs/scoring.md (Reading): nothing is read silently wrong).
    pub unknown_keys: Vec<UnknownKey>,
    /// Answer objects that hold data but yielded no answer, as "question ID: what";
    /// `check` fails on them.
    pub lost: Vec<String>,
    /// The gold a run file carries beside its answers (a SPINACH run's
    /// `gold_answer_tuple`, an LLM prediction file's `ground_truth`, the
    /// `golden` queries of T2S-Metrics' lines), with the run's question ids; a
    /// run that has one can be scored without a gold file (docs/scoring.md,
    /// Other benchmark families).
    pub own_gold: Option<Box<Dataset>>,
    /// True when the file names its questions by text only or by position
    /// (Think-on-Graph's outputs, a SPINACH run): against another gold its
    /// questions take the ids of the gold questions with the same text.
    pub join_by_text: bool,
    /// True when the file numbers its questions by position and its gold is
    /// in the same order (a Spider4SPARQL run): joined by id, each question's
    /// text is checked against the gold question's with that id.
    pub by_position: bool,
    /// The bytes it was read from, as a receipt records them (docs/reproduce.md):
    /// the file itself, and files joined into it (`--gold-answers`).
    pub inputs: Vec<InputDigest>,
}

/// One input of an evaluation as its receipt records it (docs/reproduce.md):
/// what it was to the evaluation, its name as given, its size and the
/// SHA-256 of its bytes as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputDigest {
    /// `gold`, `gold_answers`, `run`, `kg`, `index`: set by whoever joins
    /// it into an evaluation (a reader says `file`).
    pub role: String,
    /// Its name as given (a path, or a document's name).
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The SHA-256 of its bytes, lowercase hex.
    pub sha256: String,
}

impl Dataset {
    /// An empty dataset of one format.
    pub fn new(format: Format) -> Dataset {
        Dataset {
            id: None,
            format,
            questions: Vec::new(),
            diagnostics: Vec::new(),
            calls: None,
            metadata: None,
            unknown_keys: Vec::new(),
            lost: Vec::new(),
            own_gold: None,
            join_by_text: false,
            by_position: false,
            inputs: Vec::new(),
        }
    }
}

/// A key the reader does not know, counted over one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnknownKey {
    /// Where it occurs (`questions[].answers[].foo`).
    pub path: String,
    /// How often.
    pub count: usize,
    /// The id of the first question that has it.
    pub example: String,
}

/// What calling a live QA system gave beside its answers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Calls {
    /// Question id → why its call failed (scored as an empty answer).
    pub errors: BTreeMap<String, String>,
    /// The mean runtime of successful calls in milliseconds.
    pub runtime_ms_mean: Option<f64>,
    /// Why the run stopped early, if it did.
    pub stopped: Option<String>,
}
