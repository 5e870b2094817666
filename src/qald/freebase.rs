//! The Freebase benchmarks besides WebQSP, in the shapes their official
//! releases and Think-on-Graph (ToG) write them: GrailQA (`qid, question,
//! answer[{answer_type, answer_argument, entity_name}], s_expression, level …`)
//! and its predictions (`{qid: {logical_form, answer}}`), ComplexWebQuestions
//! (official `answers[{answer, answer_id, aliases}]` or ToG's one `answer`
//! name), SimpleQuestions and other ToG datasets (`question, topic_entity,
//! answer`), WebQuestions (`url, question, answers` as names). A record without
//! an id of its own is named by its 0-based position. Keys the model has no
//! field for are kept as flags (nested values as JSON text).

use serde_json::{Map, Value};

use super::family::{copy_flags, logical_form, push_answer, strings, Records};
use super::keys::KeyScan;
use super::values::{id_of, scalar_string};
use crate::model::{AnswerSet, Dataset, Format, Query, Question, QuestionId};

/// Keys of a GrailQA record.
const GRAILQA: &[&str] = &[
    "qid",
    "question",
    "answer",
    "function",
    "num_node",
    "num_edge",
    "graph_query",
    "sparql_query",
    "domains",
    "level",
    "s_expression",
    "topic_entity",
    "hops",
];
/// GrailQA keys kept as flags.
const GRAILQA_FLAGS: &[&str] = &[
    "function",
    "num_node",
    "num_edge",
    "graph_query",
    "domains",
    "level",
    "topic_entity",
    "hops",
];
/// Keys of a GrailQA answer.
const GRAILQA_ANSWER: &[&str] = &["answer_type", "answer_argument", "entity_name"];
/// Keys of a GrailQA prediction.
const GRAILQA_PREDICTION: &[&str] = &["logical_form", "answer"];
/// Keys of a ComplexWebQuestions record (official and ToG).
const CWQ: &[&str] = &[
    "ID",
    "question",
    "answers",
    "answer",
    "composition_answer",
    "compositionality_type",
    "created",
    "machine_question",
    "sparql",
    "webqsp_ID",
    "webqsp_question",
    "topic_entity",
];
/// CWQ keys kept as flags.
const CWQ_FLAGS: &[&str] = &[
    "composition_answer",
    "compositionality_type",
    "created",
    "machine_question",
    "webqsp_ID",
    "webqsp_question",
    "topic_entity",
];
/// Keys of a CWQ prediction.
const CWQ_PREDICTION: &[&str] = &["ID", "answer"];
/// Keys of an official CWQ answer.
const CWQ_ANSWER: &[&str] = &["answer", "answer_id", "aliases"];
/// Keys of a ToG dataset record (SimpleQuestions adds `relation`).
const TOG: &[&str] = &[
    "id",
    "question",
    "sparql",
    "topic_entity",
    "answer",
    "relation",
];
/// Keys of a WebQuestions record in ToG's shape.
const WEBQUESTIONS: &[&str] = &["url", "question", "answers"];

/// The records of a file, each with its id (the `id_key` value, else its
/// 0-based position) and its key scan, read by `read`.
fn records(
    items: Vec<Value>,
    format: Format,
    id_key: &str,
    known: &[&str],
    mut read: impl FnMut(&Map<String, Value>, &mut Question, &mut KeyScan),
) -> Dataset {
    let mut scan = KeyScan::default();
    let mut dataset = Dataset::new(format);
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(o) = item else {
            dataset.diagnostics.push(format!(
                "record {i} (0-based) is not a json object; skipped"
            ));
            continue;
        };
        let mut q = Question {
            id: id_of(o.get(id_key)).unwrap_or_else(|| QuestionId(i.to_string())),
            ..Question::default()
        };
        scan.object(&o, "[]", known, &q.id.0);
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        read(&o, &mut q, &mut scan);
        dataset.questions.push(q);
    }
    if dataset.questions.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    dataset.unknown_keys = scan.finish();
    dataset
}

/// A SPARQL query from a string value, if not blank.
fn sparql(value: Option<&Value>) -> Query {
    match value.and_then(Value::as_str).map(str::trim) {
        Some(s) if !s.is_empty() => Query::Sparql(s.to_string()),
        _ => Query::None,
    }
}

/// GrailQA's dataset, official or as ToG copies it: `s_expression` is the
/// logical form, `sparql_query` the query, an `Entity` answer its Freebase IRI
/// with `entity_name` as a label, a `Value` answer a literal; an `answer`
/// written `"null"` is an empty answer (as the official script reads it).
pub fn grailqa(items: Vec<Value>) -> Dataset {
    records(items, Format::Grailqa, "qid", GRAILQA, |o, q, scan| {
        q.query = sparql(o.get("sparql_query"));
        q.logical_form = logical_form(
            o.get("s_expression"),
            "s_expression",
            &q.id.0,
            &mut q.diagnostics,
        );
        copy_flags(o, GRAILQA_FLAGS, &mut q.flags);
        let mut set = AnswerSet::default();
        match o.get("answer") {
            Some(Value::Array(answers)) => {
                for a in answers {
                    let Some(a) = a.as_object() else {
                        q.diagnostics.push(format!(
                            "question {}: answer {a} is not an object; skipped",
                            q.id
                        ));
                        continue;
                    };
                    scan.object(a, "[].answer[]", GRAILQA_ANSWER, &q.id.0);
                    let Some(arg) = a.get("answer_argument").and_then(scalar_string) else {
                        q.diagnostics.push(format!(
                            "question {}: an answer has no `answer_argument`; skipped",
                            q.id
                        ));
                        continue;
                    };
                    if a.get("answer_type").and_then(Value::as_str) == Some("Entity") {
                        let name = a.get("entity_name").and_then(Value::as_str);
                        let labels: Vec<&str> = name.into_iter().collect();
                        push_answer(&mut set, &arg, &labels);
                    } else {
                        set.answers
                            .push(crate::model::Answer::single(crate::model::Term::plain(arg)));
                    }
                }
                q.answers = Some(set);
            }
            Some(Value::String(s)) if s == "null" => q.answers = Some(set),
            None => {}
            Some(other) => q.diagnostics.push(format!(
                "question {}: `answer` {other} is neither a list nor \"null\"; read as no answer",
                q.id
            )),
        }
    })
}

/// GrailQA predictions `{qid: {logical_form, answer: [string]}}`: each a run
/// question with its logical form and answers (an `answer` written `"null"` is
/// kept as the flag `answer` = `null`, and no answer).
pub fn grailqa_predictions(top: &Map<String, Value>) -> Dataset {
    let mut scan = KeyScan::default();
    let mut dataset = Dataset::new(Format::GrailqaPredictions);
    for (qid, p) in top {
        let mut q = Question {
            id: QuestionId(qid.trim().to_string()),
            ..Question::default()
        };
        // read_object hands over only objects whose values are all objects
        let Some(p) = p.as_object() else {
            continue;
        };
        scan.object(p, "{qid}", GRAILQA_PREDICTION, qid);
        q.logical_form = logical_form(
            p.get("logical_form"),
            "logical_form",
            qid,
            &mut q.diagnostics,
        );
        let mut set = AnswerSet::default();
        match p.get("answer") {
            Some(Value::String(s)) if s == "null" => {
                q.flags.insert("answer".into(), "null".into());
            }
            Some(Value::Array(_)) => {
                for a in strings(p.get("answer")) {
                    push_answer(&mut set, &a, &[]);
                }
            }
            None | Some(Value::Null) => {}
            Some(other) => q.diagnostics.push(format!(
                "question {qid}: `answer` {other} is not a list of strings; read as no answer"
            )),
        }
        q.answers = Some(set);
        dataset.questions.push(q);
    }
    dataset.unknown_keys = scan.finish();
    dataset
}

/// ComplexWebQuestions: official `answers[{answer, answer_id, aliases}]` (the
/// id as the answer, its name and aliases as labels) or ToG's one `answer`
/// name (a literal).
pub fn cwq(items: Vec<Value>) -> Dataset {
    records(items, Format::Cwq, "ID", CWQ, |o, q, scan| {
        q.query = sparql(o.get("sparql"));
        copy_flags(o, CWQ_FLAGS, &mut q.flags);
        let mut set = AnswerSet::default();
        if let Some(Value::Array(answers)) = o.get("answers") {
            // as written, for the official script's reading (nulls, order)
            q.flags.insert("answers".into(), o["answers"].to_string());
            for a in answers.iter().filter_map(Value::as_object) {
                scan.object(a, "[].answers[]", CWQ_ANSWER, &q.id.0);
                let name = a.get("answer").and_then(scalar_string);
                let aliases = strings(a.get("aliases"));
                let mut labels: Vec<&str> = name.iter().map(String::as_str).collect();
                labels.extend(aliases.iter().map(String::as_str));
                match a.get("answer_id").and_then(scalar_string) {
                    Some(id) => push_answer(&mut set, &id, &labels),
                    None if !labels.is_empty() => push_answer(&mut set, labels[0], &labels[1..]),
                    None => q.diagnostics.push(format!(
                        "question {}: an answer has neither `answer_id` nor `answer`; skipped",
                        q.id
                    )),
                }
            }
            q.answers = Some(set);
        } else if o.contains_key("answer") {
            for a in strings(o.get("answer")) {
                push_answer(&mut set, &a, &[]);
            }
            q.answers = Some(set);
        }
    })
}

/// CWQ predictions `[{ID, answer}]` (one answer string per question, as the
/// official script reads them); `answer` is also kept as written (the flag
/// `answer`, JSON text), since the script compares it untrimmed.
pub fn cwq_predictions(items: Vec<Value>) -> Dataset {
    records(
        items,
        Format::CwqPredictions,
        "ID",
        CWQ_PREDICTION,
        |o, q, _| {
            let mut set = AnswerSet::default();
            if let Some(answer) = o.get("answer").filter(|v| !v.is_null()) {
                q.flags.insert("answer".into(), answer.to_string());
                for a in strings(Some(answer)) {
                    push_answer(&mut set, &a, &[]);
                }
            }
            q.answers = Some(set);
        },
    )
}

/// A dataset in ToG's shape (`question, topic_entity, answer`, and
/// SimpleQuestions' `relation` or a `sparql`): the answer names are literals.
pub fn tog(items: Vec<Value>, family: Records) -> Dataset {
    let format = if family == Records::SimpleQuestions {
        Format::SimpleQuestions
    } else {
        Format::TogQuestions
    };
    records(items, format, "id", TOG, |o, q, _| {
        q.query = sparql(o.get("sparql"));
        copy_flags(o, &["topic_entity", "relation"], &mut q.flags);
        let mut set = AnswerSet::default();
        for a in strings(o.get("answer")) {
            push_answer(&mut set, &a, &[]);
        }
        q.answers = Some(set);
    })
}

/// WebQuestions as ToG reads it: `answers` are names (literals), `url` the
/// Freebase page of the topic (a flag).
pub fn webquestions(items: Vec<Value>) -> Dataset {
    records(
        items,
        Format::WebQuestions,
        "id",
        WEBQUESTIONS,
        |o, q, _| {
            copy_flags(o, &["url"], &mut q.flags);
            let mut set = AnswerSet::default();
            for a in strings(o.get("answers")) {
                push_answer(&mut set, &a, &[]);
            }
            q.answers = Some(set);
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Term};
    use crate::qald::parse;

    #[test]
    fn official_cwq_answers_keep_ids_names_and_aliases() {
        let d = parse(
            br#"[{"ID": "WebQTest-1_x", "question": "Who?", "compositionality_type": "conjunction",
                  "answers": [{"answer": "Barack Obama", "answer_id": "m.02mjmr", "aliases": ["Obama"]}]}]"#,
            "cwq.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::Cwq);
        let a = &d.questions[0].answers.as_ref().unwrap().answers[0];
        assert_eq!(
            a.terms,
            [
                Term::Iri("http://rdf.freebase.com/ns/m.02mjmr".into()),
                Term::plain("Barack Obama"),
                Term::plain("Obama")
            ]
        );
        assert!(d.unknown_keys.is_empty());
    }

    #[test]
    fn grailqa_predictions_are_keyed_by_qid() {
        let d = parse(
            br#"{"2101": {"logical_form": "(JOIN a m.0b)", "answer": ["m.0c"]},
                 "2102": {"logical_form": "@@UNKNOWN@@", "answer": "null", "score": 1}}"#,
            "p.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::GrailqaPredictions);
        assert_eq!(
            d.questions[0].logical_form.as_deref(),
            Some("(JOIN a m.0b)")
        );
        assert_eq!(d.questions[1].flags["answer"], "null");
        assert_eq!(d.unknown_keys[0].path, "{qid}.score");
    }

    /// Every Freebase sample in the shared data loads in its family's format
    /// with no key left unread.
    #[test]
    fn the_real_samples_load_whole() {
        let Some(dir) = crate::test_data::shared_data("freebase") else {
            return;
        };
        for (file, format, questions) in [
            ("tog/cwq-test.json", Format::Cwq, 3531),
            ("tog/grailqa-dev-1000.json", Format::Grailqa, 1000),
            ("grailqa/debug_grail.json", Format::Grailqa, 5),
            (
                "tog/simplequestions-test-1000.json",
                Format::SimpleQuestions,
                1000,
            ),
            ("tog/webquestions-test.json", Format::WebQuestions, 2032),
        ] {
            let bytes = std::fs::read(dir.join(file)).unwrap();
            let d = parse(&bytes, file).unwrap();
            assert_eq!((d.format, d.questions.len()), (format, questions), "{file}");
            assert!(d.unknown_keys.is_empty(), "{file}: {:?}", d.unknown_keys);
            assert!(d.lost.is_empty(), "{file}");
            let answered = d
                .questions
                .iter()
                .filter(|q| q.answers.as_ref().is_some_and(|a| !a.is_empty()))
                .count();
            assert!(answered * 10 >= questions * 9, "{file}: {answered}");
        }
        let d = parse(
            &std::fs::read(dir.join("tog/grailqa-dev-1000.json")).unwrap(),
            "g",
        )
        .unwrap();
        let q = &d.questions[0];
        assert_eq!(q.id.0, "2101960008000");
        assert_eq!(q.flags["level"], "i.i.d.");
        assert_eq!(
            q.logical_form.as_deref(),
            Some("(AND theater.play (JOIN theater.play.productions m.0yrlqjm))")
        );
        let answer = &q.answers.as_ref().unwrap().answers[0];
        assert_eq!(
            answer.terms,
            [
                Term::Iri("http://rdf.freebase.com/ns/m.0yrltsn".into()),
                Term::plain("The Illusion")
            ]
        );
    }
}
