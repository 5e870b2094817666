//! QAWiki (qawiki.org, CC0; docs/scoring.md, Other benchmark families): the
//! Turtle dump of the QAWiki Wikibase read as a benchmark. A question is an
//! item that is an instance (`wdt:P1`) of `question` (`wd:Q1`) or of a
//! subclass (`wdt:P2`) of it (`ambiguous question`); its id is the item's
//! (`Q100`). Its texts are its labels (`rdfs:label`, one per language) and,
//! after them, its paraphrases (`skos:altLabel`) as alternative texts in
//! their languages; its query is the best-ranked Wikidata query (`wdt:P11`),
//! written for Wikidata's endpoint: the prefixes that endpoint predefines and
//! qajudge does not (`psn:`, `geof:` …) are declared for it, and the dataset
//! says how many. The dump holds no answers: they come from executing the
//! queries (`refresh --endpoint`, docs/scoring.md, Executing SPARQL). Every
//! statement of a question (`p:Pn`, with its value, rank, qualifiers and
//! references) is kept as a flag named by its property's id and English
//! label (`P38_mention`, `P11_query`, `P1_instance_of` …), JSON text of the
//! statements, so that
//! nothing is lost; a predicate this reader does not know is counted as an
//! unknown key. The wiki's other items and its properties are its vocabulary,
//! read only for the flags' names.

use std::collections::{BTreeMap, HashMap, HashSet};

use oxrdfio::{RdfFormat, RdfParser};
use serde_json::{json, Map, Value};

use super::family::undeclared_prefixes;
use super::keys::KeyScan;
use super::QaldError;
use crate::model::{Dataset, Format, Query, Question, QuestionId};

const ENTITY: &str = "https://qawiki.org/entity/";
const DIRECT: &str = "https://qawiki.org/prop/direct/";
const DIRECT_NORMALIZED: &str = "https://qawiki.org/prop/direct-normalized/";
const CLAIM: &str = "https://qawiki.org/prop/";
const STATEMENT: &str = "https://qawiki.org/prop/statement/";
const QUALIFIER: &str = "https://qawiki.org/prop/qualifier/";
const REFERENCE: &str = "https://qawiki.org/prop/reference/";
const NO_VALUE: &str = "https://qawiki.org/prop/novalue/";
/// Namespaces of full and normalised values (`psv:`, `pqv:`, `prv:` …): the
/// same values as the simple ones read, with their bounds and units.
const VALUE_NODES: &[&str] = &[
    "https://qawiki.org/prop/statement/value",
    "https://qawiki.org/prop/qualifier/value",
    "https://qawiki.org/prop/reference/value",
];
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const SKOS_PREF_LABEL: &str = "http://www.w3.org/2004/02/skos/core#prefLabel";
const SKOS_ALT_LABEL: &str = "http://www.w3.org/2004/02/skos/core#altLabel";
const SCHEMA_NAME: &str = "http://schema.org/name";
const SCHEMA_DESCRIPTION: &str = "http://schema.org/description";
const WIKIBASE: &str = "http://wikiba.se/ontology#";
const WAS_DERIVED_FROM: &str = "http://www.w3.org/ns/prov#wasDerivedFrom";

/// The class `question`, and the properties the reader interprets.
const QUESTION_CLASS: &str = "Q1";
const INSTANCE_OF: &str = "P1";
const SUBCLASS_OF: &str = "P2";
const QUERY: &str = "P11";
const DATASET: &str = "P13";
const WIKIDATA: &str = "Q12";

/// Prefixes Wikidata's endpoint predefines that qajudge does not, or not so
/// (`geo:`), as QAWiki's own converter (`main.py`) declares them.
const WIKIDATA_PREFIXES: &[(&str, &str)] = &[
    (
        "psn",
        "http://www.wikidata.org/prop/statement/value-normalized/",
    ),
    (
        "pqn",
        "http://www.wikidata.org/prop/qualifier/value-normalized/",
    ),
    (
        "prn",
        "http://www.wikidata.org/prop/reference/value-normalized/",
    ),
    ("geof", "http://www.opengis.net/def/function/geosparql/"),
    ("geo", "http://www.opengis.net/ont/geosparql#"),
    ("mwapi", "https://www.mediawiki.org/ontology#API/"),
    ("wdsubgraph", "https://query.wikidata.org/subgraph/"),
    ("cc", "http://creativecommons.org/ns#"),
];

/// An object of the dump.
#[derive(Debug, Clone, PartialEq)]
enum Obj {
    Iri(String),
    Blank(String),
    Literal { value: String, lang: Option<String> },
}

/// The dump's triples by subject, in file order.
type Graph = HashMap<String, Vec<(String, Obj)>>;

/// True when the first line that is neither blank nor a comment declares a
/// prefix or a base (`@prefix`, `PREFIX`, `@base`, `BASE`): Turtle.
pub fn looks_like(body: &[u8]) -> bool {
    let line = body
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .find(|l| !l.is_empty() && !l.starts_with(b"#"));
    line.is_some_and(|l| {
        ["@prefix", "@base", "prefix ", "base "]
            .iter()
            .any(|k| l.len() >= k.len() && l[..k.len()].eq_ignore_ascii_case(k.as_bytes()))
    })
}

/// Reads the QAWiki dump; a Turtle syntax error is an error at its line, and
/// Turtle without QAWiki questions is refused.
pub fn parse(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let graph = read_graph(body, source)?;
    // each item's values of `wdt:P1` and `wdt:P2`, in one pass
    let mut instance_of: Vec<(&str, &str)> = Vec::new();
    let mut subclasses: HashMap<&str, Vec<&str>> = HashMap::new();
    for (subject, about) in &graph {
        let Some(item) = subject.strip_prefix(ENTITY) else {
            continue;
        };
        for (p, o) in about {
            let Obj::Iri(object) = o else { continue };
            let Some(class) = object.strip_prefix(ENTITY) else {
                continue;
            };
            match p.strip_prefix(DIRECT) {
                Some(INSTANCE_OF) => instance_of.push((item, class)),
                Some(SUBCLASS_OF) => subclasses.entry(class).or_default().push(item),
                _ => {}
            }
        }
    }
    // `question` and its subclasses, however deep
    let mut classes: HashSet<&str> = HashSet::from([QUESTION_CLASS]);
    let mut todo = vec![QUESTION_CLASS];
    while let Some(class) = todo.pop() {
        for sub in subclasses.get(class).into_iter().flatten() {
            if classes.insert(sub) {
                todo.push(sub);
            }
        }
    }
    let mut questions: Vec<&str> = instance_of
        .iter()
        .filter(|(_, class)| classes.contains(class))
        .map(|(item, _)| *item)
        .collect();
    questions.sort_by_key(|s| numeric(s));
    questions.dedup();
    if questions.is_empty() {
        return Err(QaldError::Syntax {
            source_name: source.to_string(),
            line: 1,
            column: 1,
            message: format!(
                "turtle without QAWiki questions: no item is an instance (wdt:P1) of <{ENTITY}{QUESTION_CLASS}> (question) or of a subclass of it; qajudge reads Turtle as the QAWiki dump only (a knowledge graph is given with --kg or indexed with `index build`)"
            ),
        });
    }
    let names = property_names(&graph);
    let mut dataset = Dataset::new(Format::Qawiki);
    let mut scan = KeyScan::default();
    let mut declared: BTreeMap<&str, usize> = BTreeMap::new();
    let mut nodes = Nodes::new(&graph, body.len());
    for id in &questions {
        let q = question(&mut nodes, id, &names, &mut scan, &mut declared)
            .map_err(|e| e.located(body, source, id))?;
        dataset.questions.push(q);
    }
    dataset.unknown_keys = scan.finish();
    let with_query = dataset
        .questions
        .iter()
        .filter(|q| matches!(q.query, Query::Sparql(_)))
        .count();
    let items = graph
        .keys()
        .filter(|s| s.strip_prefix(ENTITY).is_some_and(|l| l.starts_with('Q')))
        .count();
    dataset.diagnostics.push(format!(
        "{with_query} of {} questions carry a Wikidata query (wdt:P11); the dump holds no answers: execute the queries to get them (docs/scoring.md, Executing SPARQL); its {} other items ({}) are the wiki's vocabulary",
        questions.len(),
        items - questions.len(),
        "classes, knowledge graphs, units …"
    ));
    if !declared.is_empty() {
        let list: Vec<String> = declared.iter().map(|(p, n)| format!("{p}: {n}")).collect();
        dataset.diagnostics.push(format!(
            "queries use prefixes Wikidata's endpoint predefines undeclared ({}): read with their declarations",
            list.join(", ")
        ));
    }
    Ok(dataset)
}

/// The triples of the dump, by subject.
fn read_graph(body: &[u8], source: &str) -> Result<Graph, QaldError> {
    let mut graph: Graph = HashMap::new();
    for quad in RdfParser::from_format(RdfFormat::Turtle).for_slice(body) {
        let q = match quad {
            Ok(q) => q,
            Err(e) => {
                let (line, column) = e.location().map_or((1, 1), |l| {
                    (
                        usize::try_from(l.start.line).map_or(usize::MAX, |n| n.saturating_add(1)),
                        usize::try_from(l.start.column).map_or(usize::MAX, |n| n.saturating_add(1)),
                    )
                });
                return Err(QaldError::Syntax {
                    source_name: source.to_string(),
                    line,
                    column,
                    message: format!(
                        "invalid turtle: {e}; a file that starts with a prefix declaration is read as Turtle, the QAWiki dump (a SPARQL query is not a benchmark)"
                    ),
                });
            }
        };
        let subject = match &q.subject {
            oxrdf::NamedOrBlankNode::NamedNode(n) => n.as_str().to_string(),
            oxrdf::NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
        };
        let object = match &q.object {
            oxrdf::Term::NamedNode(n) => Obj::Iri(n.as_str().to_string()),
            oxrdf::Term::BlankNode(b) => Obj::Blank(format!("_:{}", b.as_str())),
            oxrdf::Term::Literal(l) => Obj::Literal {
                value: l.value().to_string(),
                lang: l.language().map(str::to_string),
            },
        };
        graph
            .entry(subject)
            .or_default()
            .push((q.predicate.as_str().to_string(), object));
    }
    Ok(graph)
}

/// The number of an id (`Q100` → 100), for ordering.
fn numeric(id: &str) -> (u64, String) {
    (
        id.get(1..).and_then(|n| n.parse().ok()).unwrap_or(u64::MAX),
        id.to_string(),
    )
}

/// Each property's flag name: its id and its English label, spaces as
/// underscores (`P38_mention`; the id alone when it has no label), so that no
/// flag takes a QALD-JSON key when the benchmark is written out (`refresh`).
fn property_names(graph: &Graph) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for (subject, about) in graph {
        let Some(id) = subject.strip_prefix(ENTITY).filter(|s| s.starts_with('P')) else {
            continue;
        };
        let label = about.iter().find_map(|(p, o)| match o {
            Obj::Literal {
                value,
                lang: Some(l),
            } if p == RDFS_LABEL && l == "en" => Some(value.trim().replace(' ', "_")),
            _ => None,
        });
        let name = match label.filter(|l| !l.is_empty()) {
            Some(l) => format!("{id}_{l}"),
            None => id.to_string(),
        };
        names.insert(id.to_string(), name);
    }
    names
}

/// One question item; an error when its statements expand past the reader's
/// budget ([`Nodes`]).
fn question(
    nodes: &mut Nodes<'_>,
    id: &str,
    names: &HashMap<String, String>,
    scan: &mut KeyScan,
    declared: &mut BTreeMap<&'static str, usize>,
) -> Result<Question, Expanded> {
    let graph = nodes.graph;
    let mut q = Question {
        id: QuestionId(id.to_string()),
        ..Question::default()
    };
    let (mut labels, mut alternatives, mut same_as_label, mut descriptions) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut statements: BTreeMap<(u64, String), Vec<Value>> = BTreeMap::new();
    let mut truthy_queries = Vec::new();
    for (p, o) in &graph[&format!("{ENTITY}{id}")] {
        let text = match o {
            Obj::Literal { value, lang } => {
                Some((lang.clone().unwrap_or_default(), value.trim().to_string()))
            }
            _ => None,
        };
        match (p.as_str(), text) {
            (RDFS_LABEL, Some(t)) => labels.push(t),
            (SKOS_ALT_LABEL, Some(t)) => alternatives.push(t),
            (SKOS_PREF_LABEL | SCHEMA_NAME, Some(t)) => same_as_label.push(t),
            (SCHEMA_DESCRIPTION, Some(t)) => descriptions.push(t),
            (RDF_TYPE, _) if *o == Obj::Iri(format!("{WIKIBASE}Item")) => {}
            (p, _) if p.strip_prefix(DIRECT) == Some(QUERY) => {
                if let Some((_, t)) = text_of(o) {
                    truthy_queries.push(t);
                }
            }
            // the best-ranked values of the statements read below
            (p, _) if p.starts_with(DIRECT) || p.starts_with(DIRECT_NORMALIZED) => {}
            (p, _) if property_id(p, CLAIM).is_some() => {
                let pid = property_id(p, CLAIM).unwrap_or_default();
                let statement = nodes.statement(o, id, scan)?;
                statements.entry(numeric(pid)).or_default().push(statement);
            }
            (p, _) => scan.unknown(format!("item <{p}>"), id),
        }
    }
    // labels first, English before the others; then the paraphrases
    labels.sort_by_key(|(l, _)| l != "en");
    alternatives.sort_by_key(|(l, _)| l != "en");
    let mut seen: HashSet<(String, String)> = labels.iter().chain(&alternatives).cloned().collect();
    for t in same_as_label {
        if seen.insert(t.clone()) {
            alternatives.push(t);
        }
    }
    if labels.is_empty() {
        q.diagnostics.push(format!(
            "question {id} has no label (rdfs:label): no question text"
        ));
    }
    q.texts = labels.into_iter().chain(alternatives).collect();
    if !descriptions.is_empty() {
        let list: Vec<Value> = descriptions
            .into_iter()
            .map(|(language, text)| json!({"text": text, "language": language}))
            .collect();
        q.flags
            .insert("description".into(), Value::Array(list).to_string());
    }
    for ((_, pid), list) in statements {
        let name = names.get(&pid).cloned().unwrap_or(pid);
        q.flags.insert(name, Value::Array(list).to_string());
    }
    if truthy_queries.len() > 1 {
        q.diagnostics.push(format!(
            "question {id} has {} best-ranked queries (wdt:P11): the first is read, all are in its `P11_query` flag",
            truthy_queries.len()
        ));
    }
    if let Some(text) = truthy_queries.into_iter().next() {
        q.query = Query::Sparql(declare(text.trim(), declared));
    }
    if let Some(dataset) = query_dataset(&q, names) {
        q.diagnostics.push(format!(
            "question {id}: its query is written for {dataset}, not Wikidata (P13); read as written"
        ));
    }
    Ok(q)
}

/// `Pn` when `iri` is `namespace` + `Pn`.
fn property_id<'a>(iri: &'a str, namespace: &str) -> Option<&'a str> {
    iri.strip_prefix(namespace)
        .filter(|l| l.len() > 1 && l.starts_with('P') && l[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// The text and language of a literal.
fn text_of(o: &Obj) -> Option<(String, String)> {
    match o {
        Obj::Literal { value, lang } => Some((lang.clone().unwrap_or_default(), value.clone())),
        _ => None,
    }
}

/// A value as the flags write it: an item or property of the wiki by its id,
/// another IRI as written, a text with a language as `{text, language}`, any
/// other literal by its lexical form, an unknown value (a blank node) as
/// `null`.
fn value_json(o: &Obj) -> Value {
    match o {
        Obj::Iri(i) => Value::String(i.strip_prefix(ENTITY).unwrap_or(i).to_string()),
        Obj::Blank(_) => Value::Null,
        Obj::Literal {
            value,
            lang: Some(l),
        } => json!({"text": value, "language": l}),
        Obj::Literal { value, lang: None } => Value::String(value.clone()),
    }
}

/// A statement or reference node read once, as JSON, with the bytes its
/// JSON text takes.
#[derive(Clone)]
struct Rendered {
    value: Value,
    bytes: usize,
}

impl Rendered {
    fn new(value: Value) -> Rendered {
        let bytes = value.to_string().len();
        Rendered { value, bytes }
    }
}

/// A question whose statements expand past the budget of [`Nodes`].
#[derive(Debug)]
struct Expanded {
    /// The node whose copy passed it.
    node: String,
    /// The budget, in bytes.
    limit: usize,
}

impl Expanded {
    /// The located error: at the first place the dump names the node.
    fn located(self, body: &[u8], source: &str, question: &str) -> QaldError {
        let local = self
            .node
            .rsplit(['/', '#', ':'])
            .next()
            .filter(|l| !l.is_empty())
            .unwrap_or(&self.node);
        let offset = memchr::memmem::find(body, local.as_bytes()).unwrap_or(0);
        QaldError::at_offset(
            source,
            body,
            offset,
            format!(
                "question {question}: its statements expand to more than {} bytes of flags, {} times the dump's {} bytes and {} more, because the node <{}> is shared by many statements or items (each copy counts; docs/scoring.md, Limits); a QAWiki dump names each statement once: fix the file",
                self.limit,
                super::expansion::EXPANSION_FACTOR,
                body.len(),
                super::expansion::EXPANSION_SLACK,
                self.node
            ),
        )
    }
}

/// The statement and reference nodes of the dump, each read once, and the
/// bytes of JSON the questions' flags may still take: a small multiple of
/// the dump's own ([`super::expansion::expansion_limit`]), each copy of a
/// node into a statement or a question counted, so that one node shared by
/// thousands of items (a reference is shared in Wikibase; a statement is
/// not) cannot expand into gigabytes of flags.
struct Nodes<'g> {
    graph: &'g Graph,
    statements: HashMap<String, Rendered>,
    references: HashMap<String, Rendered>,
    left: usize,
    limit: usize,
}

impl<'g> Nodes<'g> {
    fn new(graph: &'g Graph, input: usize) -> Nodes<'g> {
        let limit = super::expansion::expansion_limit(input);
        Nodes {
            graph,
            statements: HashMap::new(),
            references: HashMap::new(),
            left: limit,
            limit,
        }
    }

    /// Takes `bytes` of the budget for a copy of `node`.
    fn take(&mut self, bytes: usize, node: &str) -> Result<(), Expanded> {
        self.left = self.left.checked_sub(bytes).ok_or_else(|| Expanded {
            node: node.to_string(),
            limit: self.limit,
        })?;
        Ok(())
    }

    /// One statement node as JSON (see [`render_statement`]), read once and
    /// counted at each copy.
    fn statement(&mut self, node: &Obj, item: &str, scan: &mut KeyScan) -> Result<Value, Expanded> {
        let key = node_key(node);
        if !self.statements.contains_key(key) {
            let rendered = self.render_statement(key, item, scan)?;
            self.statements.insert(key.to_string(), rendered);
        }
        let bytes = self.statements[key].bytes;
        self.take(bytes, key)?;
        Ok(self.statements[key].value.clone())
    }

    /// One statement node as JSON: `value`, `rank` unless normal,
    /// `qualifiers` and `references` (each `{Pn: [values]}`) when it has
    /// some.
    fn render_statement(
        &mut self,
        key: &str,
        item: &str,
        scan: &mut KeyScan,
    ) -> Result<Rendered, Expanded> {
        let graph = self.graph;
        let mut out = Map::new();
        let mut qualifiers: BTreeMap<(u64, String), Vec<Value>> = BTreeMap::new();
        let mut references = Vec::new();
        for (p, o) in graph.get(key).into_iter().flatten() {
            if property_id(p, STATEMENT).is_some() {
                out.insert("value".into(), value_json(o));
            } else if let Some(pid) = property_id(p, QUALIFIER) {
                qualifiers
                    .entry(numeric(pid))
                    .or_default()
                    .push(value_json(o));
            } else if p == &format!("{WIKIBASE}rank") {
                let rank = match o {
                    Obj::Iri(r) => r.strip_prefix(WIKIBASE).unwrap_or(r),
                    _ => "",
                };
                if rank != "NormalRank" {
                    let rank = rank.strip_suffix("Rank").unwrap_or(rank).to_lowercase();
                    out.insert("rank".into(), Value::String(rank));
                }
            } else if p == RDF_TYPE {
                if let Obj::Iri(t) = o {
                    if t.starts_with(NO_VALUE) {
                        out.insert("value".into(), Value::String("no value".into()));
                    }
                }
            } else if p == WAS_DERIVED_FROM {
                references.push(self.reference(o)?);
            } else if !VALUE_NODES.iter().any(|v| p.starts_with(v)) {
                scan.unknown(format!("statement <{p}>"), item);
            }
        }
        if !qualifiers.is_empty() {
            let map: Map<String, Value> = qualifiers
                .into_iter()
                .map(|((_, pid), v)| (pid, Value::Array(v)))
                .collect();
            out.insert("qualifiers".into(), Value::Object(map));
        }
        if !references.is_empty() {
            out.insert("references".into(), Value::Array(references));
        }
        Ok(Rendered::new(Value::Object(out)))
    }

    /// A reference node's simple values, `{Pn: [values]}`, read once and
    /// counted at each copy.
    fn reference(&mut self, node: &Obj) -> Result<Value, Expanded> {
        let key = node_key(node);
        if !self.references.contains_key(key) {
            let mut map: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for (p, o) in self.graph.get(key).into_iter().flatten() {
                if let Some(pid) = property_id(p, REFERENCE) {
                    map.entry(pid.to_string()).or_default().push(value_json(o));
                }
            }
            self.references
                .insert(key.to_string(), Rendered::new(json!(map)));
        }
        let bytes = self.references[key].bytes;
        self.take(bytes, key)?;
        Ok(self.references[key].value.clone())
    }
}

/// The subject a node object names (empty for a literal, which has none).
fn node_key(node: &Obj) -> &str {
    match node {
        Obj::Iri(i) | Obj::Blank(i) => i.as_str(),
        Obj::Literal { .. } => "",
    }
}

/// The query with the Wikidata prefixes it uses undeclared declared first,
/// each counted in `declared`.
fn declare(text: &str, declared: &mut BTreeMap<&'static str, usize>) -> String {
    let names: Vec<&'static str> = WIKIDATA_PREFIXES.iter().map(|(p, _)| *p).collect();
    let missing = undeclared_prefixes(text, &names);
    if missing.is_empty() {
        return text.to_string();
    }
    let mut out = String::new();
    for p in missing {
        *declared.entry(p).or_default() += 1;
        let ns = WIKIDATA_PREFIXES
            .iter()
            .find(|(n, _)| *n == p)
            .map_or("", |(_, ns)| ns);
        out.push_str(&format!("PREFIX {p}: <{ns}>\n"));
    }
    out.push_str(text);
    out
}

/// The knowledge graph (P13) of the best-ranked query statement when it is
/// not Wikidata, from the `query` flag.
fn query_dataset(q: &Question, names: &HashMap<String, String>) -> Option<String> {
    let flag = names.get(QUERY).map_or(QUERY, String::as_str);
    let statements: Vec<Value> = serde_json::from_str(q.flags.get(flag)?).ok()?;
    let best = statements
        .iter()
        .find(|s| s.get("rank").and_then(Value::as_str) == Some("preferred"))
        .or_else(|| statements.iter().find(|s| s.get("rank").is_none()))?;
    let dataset = best.get("qualifiers")?.get(DATASET)?.get(0)?.as_str()?;
    (dataset != WIKIDATA).then(|| dataset.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUMP: &str = r#"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
@prefix wd: <https://qawiki.org/entity/> .
@prefix wdt: <https://qawiki.org/prop/direct/> .
@prefix p: <https://qawiki.org/prop/> .
@prefix ps: <https://qawiki.org/prop/statement/> .
@prefix pq: <https://qawiki.org/prop/qualifier/> .
@prefix s: <https://qawiki.org/entity/statement/> .

wd:P11 a wikibase:Property ; rdfs:label "query"@en .
wd:P38 a wikibase:Property ; rdfs:label "mention"@en .
wd:Q1 a wikibase:Item ; rdfs:label "question"@en .
wd:Q2 a wikibase:Item ; rdfs:label "ambiguous question"@en ; wdt:P2 wd:Q1 .
wd:Q100 a wikibase:Item ;
	rdfs:label "¿Está muerto Ian Curtis?"@es, "Is Ian Curtis dead?"@en ;
	skos:altLabel "Did Ian Curtis die?"@en ;
	wdt:P1 wd:Q1 ;
	wdt:P11 "SELECT ?d WHERE { wd:Q207867 p:P2046 ?s . ?s psn:P2046 ?d }" ;
	p:P11 s:a, s:b ;
	p:P38 s:c ;
	wdt:P99 "x" ;
	<http://example.org/unknown> "y" .
s:a a wikibase:Statement, wikibase:BestRank ; wikibase:rank wikibase:PreferredRank ;
	ps:P11 "SELECT ?d WHERE { wd:Q207867 p:P2046 ?s . ?s psn:P2046 ?d }" ; pq:P13 wd:Q12 .
s:b a wikibase:Statement ; wikibase:rank wikibase:DeprecatedRank ; ps:P11 "ASK {}" ; pq:P57 wd:Q5 .
s:c a wikibase:Statement ; wikibase:rank wikibase:NormalRank ; ps:P38 "Ian Curtis"@en ; pq:P17 "Q207867" .
wd:Q16 a wikibase:Item ; rdfs:label "What is the largest country in Africa?"@en ; wdt:P1 wd:Q2 .
"#;

    #[test]
    fn questions_paraphrases_queries_and_statements() {
        let d = parse(DUMP.as_bytes(), "dump.ttl").expect("read");
        assert_eq!(d.format, Format::Qawiki);
        let ids: Vec<&str> = d.questions.iter().map(|q| q.id.0.as_str()).collect();
        assert_eq!(ids, ["Q16", "Q100"]);
        let q = &d.questions[1];
        assert_eq!(
            q.texts,
            [
                ("en".to_string(), "Is Ian Curtis dead?".to_string()),
                ("es".to_string(), "¿Está muerto Ian Curtis?".to_string()),
                ("en".to_string(), "Did Ian Curtis die?".to_string())
            ]
        );
        let Query::Sparql(query) = &q.query else {
            panic!("{:?}", q.query)
        };
        assert!(query.starts_with(
            "PREFIX psn: <http://www.wikidata.org/prop/statement/value-normalized/>\nSELECT"
        ));
        let statements: Value = serde_json::from_str(&q.flags["P11_query"]).expect("json");
        assert_eq!(statements[0]["rank"], "preferred");
        assert_eq!(statements[1]["rank"], "deprecated");
        assert_eq!(statements[1]["qualifiers"]["P57"][0], "Q5");
        let mention: Value = serde_json::from_str(&q.flags["P38_mention"]).expect("json");
        assert_eq!(
            mention[0]["value"],
            json!({"text": "Ian Curtis", "language": "en"})
        );
        assert_eq!(mention[0]["qualifiers"]["P17"][0], "Q207867");
        assert_eq!(d.questions[0].query, Query::None);
        let unknown: Vec<&str> = d.unknown_keys.iter().map(|k| k.path.as_str()).collect();
        assert_eq!(unknown, ["item <http://example.org/unknown>"]);
        assert!(
            d.diagnostics[0].starts_with("1 of 2 questions carry"),
            "{:?}",
            d.diagnostics
        );
        assert!(d.diagnostics[1].contains("psn: 1"), "{:?}", d.diagnostics);
    }

    #[test]
    fn other_turtle_and_bad_turtle_are_refused_with_their_place() {
        let e = parse(b"@prefix ex: <http://e/> .\nex:a ex:b ex:c .\n", "kg.ttl")
            .expect_err("no questions")
            .to_string();
        assert!(
            e.starts_with("kg.ttl:1:1: turtle without QAWiki questions"),
            "{e}"
        );
        let e = parse(b"@prefix ex: <http://e/> .\nex:a ex:b \n", "bad.ttl")
            .expect_err("bad turtle")
            .to_string();
        assert!(e.starts_with("bad.ttl:"), "{e}");
        assert!(e.contains("invalid turtle"), "{e}");
        assert!(looks_like(b"# a comment\n\n@prefix a: <http://a/> ."));
        assert!(looks_like(b"PREFIX a: <http://a/>"));
        assert!(!looks_like(b"questions:\n  - id: 1"));
    }
}
