//! RuBQ 1.0 / 2.0: a top-level array of `{uid, question_text, question_eng, query,
//! answers: [{type, value, label, xml:lang}], question_uris, question_props, tags}`.
//! A resource answer keeps its label as an alternative form.

use serde_json::Value;

use super::items::parse_items;
use super::keys;
use super::values::{binding_term, scalar_string};
use crate::model::{Answer, AnswerSet, Dataset, Format, Query, Term};

/// Parses RuBQ items.
pub fn parse(items: Vec<Value>) -> Dataset {
    parse_items(items, Format::Rubq, "uid", keys::RUBQ, |o, q, scan| {
        scan.objects(o.get("answers"), "[].answers[]", keys::RUBQ_ANSWER, &q.id.0);
        if let Some(t) = o.get("question_text").and_then(Value::as_str) {
            q.texts.push(("ru".into(), t.trim().to_string()));
        }
        if let Some(t) = o.get("question_eng").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        if let Some(s) = o.get("query").and_then(Value::as_str) {
            if !s.trim().is_empty() {
                q.query = Query::Sparql(s.trim().to_string());
            }
        }
        let list = |key: &str| -> Vec<String> {
            o.get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(scalar_string).collect())
                .unwrap_or_default()
        };
        q.entities = list("question_uris");
        q.properties = list("question_props");
        q.tags = list("tags");
        if let Some(v) = o.get("RuBQ_version").and_then(scalar_string) {
            q.flags.insert("rubq_version".into(), v);
        }
        let mut set = AnswerSet::default();
        for a in o
            .get("answers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match binding_term(a) {
                Ok(term) => {
                    let mut answer = Answer::single(term.clone());
                    if let (Term::Iri(_), Some(label)) =
                        (&term, a.get("label").and_then(Value::as_str))
                    {
                        let lang = a
                            .get("xml:lang")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        answer.terms.push(Term::Literal {
                            lexical: label.to_string(),
                            datatype: None,
                            lang,
                        });
                    }
                    set.answers.push(answer);
                }
                Err(e) => q.diagnostics.push(format!("question {}: {e}", q.id)),
            }
        }
        q.answers = o.get("answers").map(|_| set);
    })
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Term};
    use crate::qald::parse;

    #[test]
    fn reads_rubq() {
        let d = parse(
            r#"[{"uid":4,"question_text":"Какой?","query":null,"question_uris":["http://www.wikidata.org/entity/Q14452"],"question_props":["wdt:P17"],
            "answers":[{"type":"uri","label":"Чили","value":"http://www.wikidata.org/entity/Q298"},{"xml:lang":"ru","type":"literal","value":"Волк"}],"tags":["1-hop"],"question_eng":"Which?"}]"#.as_bytes(),
            "r",
        )
        .unwrap();
        assert_eq!(d.format, Format::Rubq);
        let q = &d.questions[0];
        assert_eq!(q.id.0, "4");
        assert_eq!(q.text("en"), Some("Which?"));
        assert_eq!(q.properties, vec!["wdt:P17"]);
        let a = &q.answers.as_ref().unwrap().answers;
        assert_eq!(
            a[0].terms[0],
            Term::Iri("http://www.wikidata.org/entity/Q298".into())
        );
        assert_eq!(a[0].terms.len(), 2);
        assert_eq!(a[1].terms.len(), 1);
    }
}
