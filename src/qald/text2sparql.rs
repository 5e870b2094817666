//! The TEXT2SPARQL challenge's formats (docs/scoring.md, Reading): the benchmark YAML
//! (`dataset {id, prefix, defaultNamespace}`, `questions [{id, question {LANG:
//! text}, query {sparql}, features, classes, properties}]`), read as one question
//! per (question, language) with id `PREFIX:ID-LANG`, and the system answers (a
//! JSON array of `{dataset, question, query, qname, uri, endpoint}`), read as one
//! run question per `qname` with the system's query and no answers (they come
//! from executing it). The YAML is read by [`super::yaml`], within its bounds.

use serde_json::Value;

use super::yaml::Yaml;

use super::values::scalar_string;
use super::QaldError;
use crate::model::{Dataset, Format, Query, Question, QuestionId};

/// True when YAML text looks like a TEXT2SPARQL benchmark (a top-level
/// `questions:` key), so that other text is not read as YAML by accident.
pub fn looks_like_benchmark(body: &[u8]) -> bool {
    body.split(|&b| b == b'\n')
        .any(|line| line.starts_with(b"questions:") || line.starts_with(b"dataset:"))
}

/// Parses the benchmark YAML.
pub fn parse_benchmark(body: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let doc = load(body, source)?;
    let shape = |message: &str| QaldError::Syntax {
        source_name: source.to_string(),
        line: 1,
        column: 1,
        message: message.to_string(),
    };
    let Yaml::Mapping(top) = doc else {
        return Err(shape(
            "not a TEXT2SPARQL benchmark: the top level must be a mapping with `dataset` and `questions`",
        ));
    };
    let Some(Yaml::Sequence(items)) = top.get("questions") else {
        return Err(shape(
            "not a TEXT2SPARQL benchmark: `questions` must be a list of questions",
        ));
    };
    let dataset = top.get("dataset");
    let text = |v: Option<&Yaml>| v.and_then(yaml_scalar);
    let prefix = text(dataset.and_then(|d| d.get("prefix")));
    let namespace = text(dataset.and_then(|d| d.get("defaultNamespace")));
    let mut out = Dataset::new(Format::Text2SparqlYaml);
    out.id = text(dataset.and_then(|d| d.get("id")));
    out.questions.reserve(items.len());
    if prefix.is_none() {
        out.diagnostics.push(
            "the dataset has no `prefix`: question ids are written ID-LANG instead of PREFIX:ID-LANG"
                .into(),
        );
    }
    let mut scan = super::keys::KeyScan::default();
    let mut budget = Budget {
        left: super::expansion::expansion_limit(body.len()),
        body,
        source,
    };
    for (i, item) in items.iter().enumerate() {
        let Yaml::Mapping(m) = item else {
            out.diagnostics
                .push(format!("question #{} is not a mapping; skipped", i + 1));
            continue;
        };
        let id = text(m.get("id")).unwrap_or_else(|| format!("#{}", i + 1));
        scan_keys(m.keys(), m.get("query"), &id, &mut scan);
        let base = shared_parts(|k| m.get(k), namespace.as_deref());
        let texts = texts_of(m.get("question"));
        if texts.is_empty() {
            let mut q = base;
            q.id = QuestionId(qname(prefix.as_deref(), &id, "en"));
            q.diagnostics.push("the question has no text".into());
            out.questions.push(q);
            continue;
        }
        // one question per language, each a copy of the query, features and
        // classes: counted against the budget of what the text expands to (a
        // 500 KB query asked in 100,000 languages would be 50 GB)
        let copy = base_bytes(&base);
        for (lang, t) in texts {
            budget.take(copy, &id)?;
            let mut q = base.clone();
            q.id = QuestionId(qname(prefix.as_deref(), &id, &lang));
            q.texts = vec![(lang, t.trim().to_string())];
            out.questions.push(q);
        }
    }
    out.unknown_keys = scan.finish();
    Ok(out)
}

/// The benchmark's YAML document; a syntax error says where, and that the
/// file is to be fixed (as a TEXT2SPARQL benchmark, unless it says so).
fn load(body: &[u8], source: &str) -> Result<Yaml, QaldError> {
    super::yaml::load(body).map_err(|e| QaldError::Syntax {
        source_name: source.to_string(),
        line: e.line,
        column: e.column,
        message: if !e.message.ends_with("fix the file") {
            format!(
                "{}; fix the file (a TEXT2SPARQL benchmark is YAML with `dataset` and `questions`)",
                e.message
            )
        } else {
            e.message
        },
    })
}

/// Notes the keys of a question (`keys`) and of its `query` mapping that the
/// format does not have, for the dataset's unknown keys.
fn scan_keys<'a>(
    keys: impl Iterator<Item = &'a Yaml>,
    query: Option<&Yaml>,
    id: &str,
    scan: &mut super::keys::KeyScan,
) {
    for k in keys {
        let k = yaml_scalar(k).unwrap_or_default();
        if !matches!(
            k.as_str(),
            "id" | "question" | "query" | "features" | "classes" | "properties"
        ) {
            scan.unknown(format!("questions[].{k}"), id);
        }
    }
    if let Some(Yaml::Mapping(q)) = query {
        for k in q.keys().filter_map(yaml_scalar).filter(|k| k != "sparql") {
            scan.unknown(format!("questions[].query.{k}"), id);
        }
    }
}

/// What every language's copy of a question shares, read by `field` (the
/// question's value of a key): its query, its features (as tags), and its
/// classes and properties, `:name` expanded with the dataset's default
/// `namespace`.
fn shared_parts<'a>(field: impl Fn(&str) -> Option<&'a Yaml>, namespace: Option<&str>) -> Question {
    let mut base = Question::default();
    match field("query") {
        Some(Yaml::Mapping(q)) => match q.get("sparql").and_then(yaml_scalar) {
            Some(s) if !s.trim().is_empty() => base.query = Query::Sparql(s.trim().to_string()),
            _ => base.diagnostics.push("the query has no `sparql`".into()),
        },
        Some(Yaml::String(s)) => base.query = Query::Sparql(s.trim().to_string()),
        _ => base.diagnostics.push("the question has no `query`".into()),
    }
    base.tags = list(field("features"));
    let expand = |names: Vec<String>| -> Vec<String> {
        names
            .into_iter()
            .map(|n| match (n.strip_prefix(':'), namespace) {
                (Some(local), Some(ns)) => format!("{ns}{local}"),
                _ => n,
            })
            .collect()
    };
    base.classes = expand(list(field("classes")));
    base.properties = expand(list(field("properties")));
    base
}

/// A question's texts as (language, text): its `question` mapping of
/// languages, or one English text.
fn texts_of(question: Option<&Yaml>) -> Vec<(String, String)> {
    match question {
        Some(Yaml::Mapping(langs)) => langs
            .iter()
            .filter_map(|(l, t)| Some((yaml_scalar(l)?, yaml_scalar(t)?)))
            .collect(),
        Some(Yaml::String(t)) => vec![("en".into(), t.clone())],
        _ => Vec::new(),
    }
}

/// What the per-language copies of the questions may still take of the
/// bytes the file may expand to ([`super::expansion::expansion_limit`]).
struct Budget<'b> {
    left: usize,
    body: &'b [u8],
    source: &'b str,
}

impl Budget<'_> {
    /// Takes one copy of question `id`'s shared parts (`copy` bytes); past the
    /// budget, an error at the question's place in the file.
    fn take(&mut self, copy: usize, id: &str) -> Result<(), QaldError> {
        let body = self.body;
        self.left = self.left.checked_sub(copy).ok_or_else(|| {
            let limit = super::expansion::expansion_limit(body.len());
            QaldError::at_offset(
                self.source,
                body,
                memchr::memmem::find(body, format!("id: {id}").as_bytes()).unwrap_or(0),
                format!(
                    "question {id}: its copies per language ({copy} bytes each: the query, features, classes and properties) expand to more than {limit} bytes, {} times the file's {} bytes and {} more (docs/scoring.md, Limits); give fewer languages or a shorter query",
                    super::expansion::EXPANSION_FACTOR,
                    body.len(),
                    super::expansion::EXPANSION_SLACK
                ),
            )
        })?;
        Ok(())
    }
}

/// The bytes a copy of a question's shared parts takes.
fn base_bytes(q: &Question) -> usize {
    let query = match &q.query {
        Query::Sparql(s) => s.len(),
        _ => 0,
    };
    let lists: usize = [&q.tags, &q.classes, &q.properties]
        .iter()
        .flat_map(|l| l.iter())
        .map(|s| s.len() + 1)
        .sum();
    query + lists + 64
}

/// The challenge's question id: `PREFIX:ID-LANG`.
fn qname(prefix: Option<&str>, id: &str, lang: &str) -> String {
    match prefix {
        Some(p) => format!("{p}:{id}-{lang}"),
        None => format!("{id}-{lang}"),
    }
}

fn yaml_scalar(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn list(v: Option<&Yaml>) -> Vec<String> {
    match v {
        Some(Yaml::Sequence(items)) => items.iter().filter_map(yaml_scalar).collect(),
        Some(other) => yaml_scalar(other).into_iter().collect(),
        None => Vec::new(),
    }
}

/// True when a JSON array holds TEXT2SPARQL system answers (`qname` and `query`).
pub fn is_answers(first: &serde_json::Map<String, Value>) -> bool {
    first.contains_key("qname") && first.contains_key("query")
}

/// Parses the system answers: one run question per `qname`, its query to execute.
pub fn parse_answers(items: Vec<Value>) -> Dataset {
    let mut out = Dataset::new(Format::Text2SparqlAnswers);
    out.questions.reserve(items.len());
    let mut scan = super::keys::KeyScan::default();
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(o) = item else {
            out.diagnostics
                .push(format!("answer #{} is not a json object; skipped", i + 1));
            continue;
        };
        let mut q = Question::default();
        let named = o
            .get("qname")
            .and_then(scalar_string)
            .unwrap_or_else(|| format!("#{}", i + 1));
        // what answering cost, in the spellings every run reads
        scan.object_of(
            &o,
            "[]",
            &[super::keys::TEXT2SPARQL_ANSWER, super::usage::KEYS],
            &named,
        );
        super::usage::scan(&o, "[]", &named, &mut scan);
        super::usage::read(&o, &mut q);
        match o.get("qname").and_then(scalar_string) {
            Some(id) => q.id = QuestionId(id),
            None => {
                out.diagnostics
                    .push(format!("answer #{} has no `qname`; skipped", i + 1));
                continue;
            }
        }
        if out.id.is_none() {
            out.id = o.get("dataset").and_then(scalar_string);
        }
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            let lang = q.language().unwrap_or("en").to_string();
            q.texts.push((lang, t.to_string()));
        }
        match o.get("query") {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                q.query = Query::Sparql(s.trim().to_string());
            }
            _ => q.diagnostics.push("the system returned no query".into()),
        }
        out.questions.push(q);
    }
    out.unknown_keys = scan.finish();
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn yaml_nesting_counts_indentation_dashes_and_brackets_but_not_quoted_closers() {
        use crate::qald::yaml::yaml_nesting;
        assert_eq!(yaml_nesting(b"questions:\n  - id: 1\n    f: [a, b]\n"), 5);
        assert_eq!(yaml_nesting(b"- - - x\n"), 3);
        // closing brackets in a quote never undo the brackets around it
        let text = format!(
            "{} \"{}\" {}",
            "[".repeat(200),
            "]".repeat(200),
            "[".repeat(200)
        );
        assert!(yaml_nesting(text.as_bytes()) >= 400);
        let text = format!(
            "{}\"\n{}\n\"{}",
            "[".repeat(200),
            "]".repeat(200),
            "[".repeat(200)
        );
        assert!(yaml_nesting(text.as_bytes()) >= 400);
    }

    #[test]
    fn deeply_nested_yaml_is_refused_before_the_parser() {
        let body = format!(
            "questions: {}{}\n",
            "[".repeat(110_000),
            "]".repeat(110_000)
        );
        let e = super::parse_benchmark(body.as_bytes(), "bomb.yaml").expect_err("refused");
        assert!(e.to_string().contains("more than the 256 read"), "{e}");
    }

    use crate::model::{Format, Query};
    use crate::qald::parse;

    const YAML: &str = "# comment\n---\ndataset:\n  id: https://e.org/ds/\n  prefix: ck\n  defaultNamespace: http://e.org/v/\nquestions:\n  - id: 1\n    question:\n      en: Who?\n      es: ¿Quién?\n    features: [SELECT, RESULT_ORDER_MATTERS]\n    classes: [':Person']\n    properties: [':knows', 'http://x.org/p']\n    query:\n      sparql: |\n        SELECT ?x WHERE { ?x a <http://e.org/v/Person> }\n    extra: 1\n";

    #[test]
    fn reads_the_benchmark_one_question_per_language() {
        let d = parse(YAML.as_bytes(), "q.yml").unwrap();
        assert_eq!(d.format, Format::Text2SparqlYaml);
        let ids: Vec<&str> = d.questions.iter().map(|q| q.id.0.as_str()).collect();
        assert_eq!(ids, ["ck:1-en", "ck:1-es"]);
        let q = &d.questions[1];
        assert_eq!(q.texts, vec![("es".to_string(), "¿Quién?".to_string())]);
        assert!(q.order_flagged());
        assert_eq!(q.classes, ["http://e.org/v/Person"]);
        assert_eq!(q.properties, ["http://e.org/v/knows", "http://x.org/p"]);
        assert!(matches!(&q.query, Query::Sparql(s) if s.starts_with("SELECT")));
        assert!(q.answers.is_none());
        assert_eq!(q.language(), Some("es"));
        assert_eq!(
            d.unknown_keys[0].path, "questions[].extra",
            "{:?}",
            d.unknown_keys
        );
    }

    #[test]
    fn yaml_errors_name_line_and_shape() {
        let err = parse(b"questions:\n  - id: [1\n", "bad.yml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bad.yml:"), "{err}");
        let err = parse(b"questions: 5\n", "shape.yml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`questions` must be a list"), "{err}");
    }

    #[test]
    fn reads_system_answers() {
        let d = parse(
            br#"[{"dataset":"https://e.org/ds/","question":"Who?","query":"SELECT ?x WHERE {?x ?p ?o}","qname":"ck:1-en","uri":"u","endpoint":"e"},{"qname":"ck:2-en","query":""}]"#,
            "a.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::Text2SparqlAnswers);
        assert_eq!(d.questions.len(), 2);
        assert!(matches!(d.questions[0].query, Query::Sparql(_)));
        assert!(d.questions[1].diagnostics[0].contains("no query"));
    }

    #[test]
    fn a_long_query_in_many_languages_is_refused() {
        let query = "SELECT * WHERE { ?s ?p ?o } ".repeat(2000);
        let langs: String = (0..2000).map(|i| format!("      l{i}: q\n")).collect();
        let body = format!(
            "dataset:\n  id: x\n  prefix: x\nquestions:\n  - id: 1\n    question:\n{langs}    query:\n      sparql: \"{query}\"\n"
        );
        let e = parse(body.as_bytes(), "many.yaml")
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains("copies per language") && e.contains("many.yaml:5:"),
            "{e}"
        );
        // a few languages of the same query are read
        let few: String = (0..3).map(|i| format!("      l{i}: q\n")).collect();
        let body = body.replace(&langs, &few);
        assert_eq!(
            parse(body.as_bytes(), "few.yaml")
                .expect("read")
                .questions
                .len(),
            3
        );
    }

    #[test]
    fn answers_carry_what_they_cost() {
        let d = parse(
            br#"[{"qname":"ck:1-en","query":"ASK {}","latency_ms":1200,"usage":{"prompt_tokens":10,"completion_tokens":3},"cost":0.002}]"#,
            "a.json",
        )
        .unwrap();
        let u = &d.questions[0].usage;
        assert_eq!(u.latency_ms, Some(1200.0));
        assert_eq!((u.prompt_tokens, u.completion_tokens), (Some(10), Some(3)));
        assert_eq!(u.cost, Some(0.002));
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    }
}
