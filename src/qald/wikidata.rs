//! Benchmarks over Wikidata and DBLP that give questions and queries but no
//! answers (docs/scoring.md, Other benchmark families): their answers come
//! from executing the gold query on a knowledge graph (`--kg`, `--endpoint`).
//! LC-QuAD 2.0 (`[{uid, question, paraphrased_question, NNQT_question,
//! sparql_wikidata, sparql_dbpedia18, template …}]`; the Wikidata query is the
//! gold query, the DBpedia one is kept) and DBLP-QuAD (`{questions: [{id,
//! query_type, question{string}, paraphrased_question{string},
//! query{sparql}, template_id, entities, relations, temporal, held_out}]}`;
//! its gold entities and relations feed C2KB and P2KB).

use serde_json::{Map, Value};

use super::items::parse_items;
use super::keys;
use super::values::scalar_string;
use crate::model::{Dataset, Format, Query};

/// True when a record is LC-QuAD 2.0's.
pub fn is_lcquad2(record: &Map<String, Value>) -> bool {
    record.contains_key("uid")
        && ["sparql_wikidata", "sparql_dbpedia18", "NNQT_question"]
            .iter()
            .any(|k| record.contains_key(*k))
}

/// True when a record is DBLP-QuAD's.
pub fn is_dblp(record: &Map<String, Value>) -> bool {
    record.contains_key("query_type") && record.contains_key("template_id")
}

/// A non-empty text: LC-QuAD 2.0 writes missing questions as `null`, `""`
/// or `"[]"`.
fn text(value: Option<&Value>) -> Option<String> {
    let t = value.and_then(Value::as_str)?.trim();
    (!t.is_empty() && t != "[]" && !t.eq_ignore_ascii_case("n/a")).then(|| t.to_string())
}

/// A SPARQL query field.
fn sparql(value: Option<&Value>) -> Query {
    match value.and_then(Value::as_str).map(str::trim) {
        Some(s) if !s.is_empty() => Query::Sparql(s.to_string()),
        _ => Query::None,
    }
}

/// Reads LC-QuAD 2.0 records. The question is `question`, else its
/// paraphrase, else the template's `NNQT_question` (a diagnostic says which).
pub fn parse_lcquad2(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::Lcquad2, "uid", keys::LCQUAD2, |o, q, _| {
        let chosen = [
            ("question", None),
            ("paraphrased_question", Some("its paraphrase")),
            (
                "NNQT_question",
                Some("its template question (NNQT_question)"),
            ),
        ]
        .into_iter()
        .find_map(|(key, note)| text(o.get(key)).map(|t| (t, note)));
        match chosen {
            Some((t, note)) => {
                if let Some(note) = note {
                    q.diagnostics
                        .push(format!("no question text: the text is {note}"));
                }
                q.texts.push(("en".into(), t));
            }
            None => q.diagnostics.push("no question text at all".into()),
        }
        q.query = sparql(o.get("sparql_wikidata"));
        for key in [
            "paraphrased_question",
            "NNQT_question",
            "sparql_dbpedia18",
            "template",
            "template_id",
            "template_index",
            "subgraph",
        ] {
            if let Some(v) = o.get(key).and_then(scalar_string) {
                q.flags.insert(key.into(), v);
            }
        }
    })
}

/// An IRI as DBLP-QuAD writes it (`<https://dblp.org/pid/95/2265>`).
fn bare(iri: &str) -> String {
    let t = iri.trim();
    t.strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(t)
        .to_string()
}

/// The IRIs of a list field; an item that is not a string is a diagnostic.
fn iris(value: Option<&Value>, key: &str, diagnostics: &mut Vec<String>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| match i.as_str() {
                Some(s) => Some(bare(s)),
                None => {
                    diagnostics.push(format!("`{key}` item {i} is not an IRI string"));
                    None
                }
            })
            .collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => {
            diagnostics.push(format!("`{key}` {other} is not a list of IRIs"));
            Vec::new()
        }
    }
}

/// Reads DBLP-QuAD's questions.
pub fn parse_dblp(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::DblpQuad, "id", keys::DBLP, |o, q, scan| {
        scan.objects(o.get("question"), "[].question", &["string"], &q.id.0);
        scan.objects(
            o.get("paraphrased_question"),
            "[].paraphrased_question",
            &["string"],
            &q.id.0,
        );
        scan.objects(o.get("query"), "[].query", &["sparql"], &q.id.0);
        if let Some(t) = text(o.get("question").and_then(|v| v.get("string"))) {
            q.texts.push(("en".into(), t));
        }
        if let Some(t) = text(o.get("paraphrased_question").and_then(|v| v.get("string"))) {
            q.flags.insert("paraphrased_question".into(), t);
        }
        q.query = sparql(o.get("query").and_then(|v| v.get("sparql")));
        q.entities = iris(o.get("entities"), "entities", &mut q.diagnostics);
        q.properties = iris(o.get("relations"), "relations", &mut q.diagnostics);
        for key in ["query_type", "template_id", "temporal", "held_out"] {
            if let Some(v) = o.get(key).and_then(scalar_string) {
                q.flags.insert(key.into(), v);
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query};
    use crate::qald::parse;

    #[test]
    fn reads_lcquad2() {
        let d = parse(
            br#"[{"NNQT_question":"What is {x} of {y}","uid":19719,"subgraph":"simple question right","template_index":65,
                "question":null,"sparql_wikidata":" select distinct ?obj where { wd:Q188920 wdt:P2813 ?obj } ",
                "sparql_dbpedia18":"select ?x","template":"<S P ?O>","answer":[],"template_id":1,
                "paraphrased_question":"What periodical?"}]"#,
            "lc2",
        )
        .unwrap();
        assert_eq!(d.format, Format::Lcquad2);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "19719");
        assert_eq!(q.texts[0].1, "What periodical?");
        assert!(q.diagnostics[0].contains("paraphrase"));
        assert!(matches!(&q.query, Query::Sparql(s) if s.starts_with("select distinct")));
        assert_eq!(q.flags["sparql_dbpedia18"], "select ?x");
        assert!(q.answers.is_none());
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    }

    #[test]
    fn reads_dblp_quad() {
        let d = parse(
            br#"{"questions":[{"id":"Q0001","query_type":"SINGLE_FACT","question":{"string":"Show the ID."},
                "paraphrased_question":{"string":"What is the ID?"},"query":{"sparql":"SELECT ?a WHERE { <https://dblp.org/pid/95/2265> <https://dblp.org/rdf/schema#wikidata> ?a }"},
                "template_id":"TC04","entities":["<https://dblp.org/pid/95/2265>"],"relations":["<https://dblp.org/rdf/schema#wikidata>"],
                "temporal":false,"held_out":false}]}"#,
            "dblp",
        )
        .unwrap();
        assert_eq!(d.format, Format::DblpQuad);
        let q = &d.questions[0];
        assert_eq!(q.entities, ["https://dblp.org/pid/95/2265"]);
        assert_eq!(q.properties, ["https://dblp.org/rdf/schema#wikidata"]);
        assert_eq!(q.flags["held_out"], "false");
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
    }
}
