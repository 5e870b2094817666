//! LC-QuAD 1.0: a top-level array of `{_id, corrected_question,
//! intermediary_question, sparql_query, sparql_template_id}`; questions and SPARQL,
//! no answers.

use serde_json::Value;

use super::items::parse_items;
use super::keys;
use super::values::scalar_string;
use crate::model::{Dataset, Format, Query};

/// Parses LC-QuAD 1.0 items.
pub fn parse(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::Lcquad, "_id", keys::LCQUAD, |o, q, _| {
        let text = o
            .get("corrected_question")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty() && s.trim() != "n/a")
            .or_else(|| o.get("intermediary_question").and_then(Value::as_str));
        if let Some(t) = text {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        if let Some(s) = o.get("sparql_query").and_then(Value::as_str) {
            if !s.trim().is_empty() {
                q.query = Query::Sparql(s.trim().to_string());
            }
        }
        if let Some(t) = o.get("sparql_template_id").and_then(scalar_string) {
            q.flags.insert("template".into(), t);
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query};
    use crate::qald::parse;

    #[test]
    fn reads_lcquad() {
        let d = parse(
            br#"[{"_id":"1701","corrected_question":"Which architect?","intermediary_question":"What is","sparql_query":" SELECT DISTINCT ?uri WHERE { ?uri ?p ?o } ","sparql_template_id":16}]"#,
            "lc",
        )
        .unwrap();
        assert_eq!(d.format, Format::Lcquad);
        assert_eq!(d.questions[0].id.0, "1701");
        assert!(matches!(d.questions[0].query, Query::Sparql(_)));
        assert!(d.questions[0].answers.is_none());
        assert_eq!(d.questions[0].flags["template"], "16");
    }
}
