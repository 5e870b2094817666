//! WebQSP in the official release's shape (`{Version, FreebaseVersion,
//! Questions[{QuestionId, RawQuestion, ProcessedQuestion, Parses[{ParseId,
//! AnnotatorId, AnnotatorComment{ParseQuality, QuestionQuality, Confidence,
//! FreeFormComment}, Sparql, PotentialTopicEntityMention, TopicEntityName,
//! TopicEntityMid, InferentialChain, Constraints, Time, Order, Answers[{AnswerType,
//! AnswerArgument, EntityName}]}]}]}`) and its prediction files (`[{QuestionId,
//! Answers: [string]}]`, what the release's `eval.py` reads). Every parse is a
//! [`Parse`] (the first one is also the question's query and answers); an
//! `Entity` answer is its Freebase IRI with `EntityName` as a label, a `Value`
//! answer a literal; the written `AnswerArgument` is kept for the `webqsp`
//! profile, which compares strings as the script does.

use serde_json::{Map, Value};

use super::family::{copy_flags, flag_text, push_answer, strings};
use super::items::parse_items;
use super::keys::KeyScan;
use super::values::{id_of, scalar_string};
use crate::model::{AnswerSet, Dataset, Format, Parse, Query, Question, QuestionId};

/// Keys of the top-level object.
const TOP: &[&str] = &["Version", "FreebaseVersion", "Questions"];
/// Keys of a question.
const QUESTION: &[&str] = &["QuestionId", "RawQuestion", "ProcessedQuestion", "Parses"];
/// Keys of a parse; those not read into the query or the answers are its flags.
const PARSE: &[&str] = &[
    "ParseId",
    "AnnotatorId",
    "AnnotatorComment",
    "Sparql",
    "PotentialTopicEntityMention",
    "TopicEntityName",
    "TopicEntityMid",
    "InferentialChain",
    "Constraints",
    "Time",
    "Order",
    "Answers",
];
/// Parse keys kept as flags, as written (JSON text for lists and objects).
const PARSE_FLAGS: &[&str] = &[
    "AnnotatorId",
    "PotentialTopicEntityMention",
    "TopicEntityName",
    "TopicEntityMid",
    "InferentialChain",
    "Constraints",
    "Time",
    "Order",
];
/// Keys of `AnnotatorComment`, kept as flags of the parse under their names.
const COMMENT: &[&str] = &[
    "ParseQuality",
    "QuestionQuality",
    "Confidence",
    "FreeFormComment",
];
/// Keys of an answer.
const ANSWER: &[&str] = &["AnswerType", "AnswerArgument", "EntityName"];
/// Keys of a prediction.
const PREDICTION: &[&str] = &["QuestionId", "Answers"];

/// The flag a parse whose `Answers` is null carries (the release writes null
/// for parses without answers; `eval.py` cannot score them).
pub const NULL_ANSWERS: &str = "Answers";

/// Reads the official WebQSP file.
pub fn dataset(top: &Map<String, Value>) -> Dataset {
    let mut scan = KeyScan::default();
    scan.object(top, "", TOP, "-");
    let items = top.get("Questions").and_then(Value::as_array);
    let mut dataset = read_questions(items.map_or(&[][..], Vec::as_slice), scan);
    let meta: Vec<String> = ["Version", "FreebaseVersion"]
        .iter()
        .filter_map(|k| {
            top.get(*k)
                .and_then(scalar_string)
                .map(|v| format!("{k} {v}"))
        })
        .collect();
    dataset.metadata = (!meta.is_empty()).then(|| meta.join(", "));
    dataset
}

/// Reads WebQSP questions written as a plain array (ToG's `WebQSP.json`).
pub fn questions(items: &[Value]) -> Dataset {
    read_questions(items, KeyScan::default())
}

/// The questions of a WebQSP file, with the scan of the keys around them.
fn read_questions(items: &[Value], mut scan: KeyScan) -> Dataset {
    let mut dataset = Dataset::new(Format::Webqsp);
    for (i, item) in items.iter().enumerate() {
        let Some(o) = item.as_object() else {
            dataset
                .diagnostics
                .push(format!("question #{} is not a json object; skipped", i + 1));
            continue;
        };
        let mut q = Question::default();
        q.id = id_of(o.get("QuestionId")).unwrap_or_else(|| {
            q.diagnostics
                .push(format!("question #{} has no `QuestionId`", i + 1));
            QuestionId(format!("#{}", i + 1))
        });
        scan.object(o, "Questions[]", QUESTION, &q.id.0);
        if let Some(t) = o.get("RawQuestion").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        copy_flags(o, &["ProcessedQuestion"], &mut q.flags);
        let parses = o.get("Parses").and_then(Value::as_array);
        for p in parses.into_iter().flatten() {
            let Some(p) = p.as_object() else {
                q.diagnostics.push(format!(
                    "question {}: a parse is not a json object; skipped",
                    q.id
                ));
                continue;
            };
            q.parses
                .push(parse(p, &q.id.0, &mut scan, &mut q.diagnostics));
        }
        if let Some(first) = q.parses.first() {
            q.query = first.query.clone();
            q.answers = (!first.flags.contains_key(NULL_ANSWERS)).then(|| first.answers.clone());
        }
        dataset.questions.push(q);
    }
    if items.is_empty() {
        dataset
            .diagnostics
            .push("the file holds no question".into());
    }
    dataset.unknown_keys = scan.finish();
    dataset
}

/// One parse of a question.
fn parse(
    p: &Map<String, Value>,
    id: &str,
    scan: &mut KeyScan,
    diagnostics: &mut Vec<String>,
) -> Parse {
    scan.object(p, "Questions[].Parses[]", PARSE, id);
    let mut parse = Parse {
        id: p.get("ParseId").and_then(scalar_string).unwrap_or_default(),
        ..Parse::default()
    };
    if let Some(s) = p.get("Sparql").and_then(Value::as_str) {
        if !s.trim().is_empty() {
            parse.query = Query::Sparql(s.trim().to_string());
        }
    }
    copy_flags(p, PARSE_FLAGS, &mut parse.flags);
    match p.get("AnnotatorComment") {
        Some(Value::Object(c)) => {
            scan.object(c, "Questions[].Parses[].AnnotatorComment", COMMENT, id);
            copy_flags(c, COMMENT, &mut parse.flags);
        }
        Some(other) => {
            if let Some(text) = flag_text(other) {
                parse.flags.insert("AnnotatorComment".into(), text);
            }
        }
        None => {}
    }
    match p.get("Answers") {
        Some(Value::Array(answers)) => {
            parse.answers = answer_set(answers, id, scan, diagnostics);
        }
        None | Some(Value::Null) => {
            parse.flags.insert(NULL_ANSWERS.into(), "null".into());
        }
        Some(other) => diagnostics.push(format!(
            "question {id}: parse {} has `Answers` {other}, not a list; read as no answer",
            parse.id
        )),
    }
    parse
}

/// The answers of a parse: `Entity` → Freebase IRI with its name as a label,
/// `Value` (and any other type) → a literal.
fn answer_set(
    answers: &[Value],
    id: &str,
    scan: &mut KeyScan,
    diagnostics: &mut Vec<String>,
) -> AnswerSet {
    let mut set = AnswerSet {
        vars: vec!["AnswerArgument".into()],
        ..AnswerSet::default()
    };
    for a in answers {
        let Some(a) = a.as_object() else {
            diagnostics.push(format!(
                "question {id}: answer {a} is not an object; skipped"
            ));
            continue;
        };
        scan.object(a, "Questions[].Parses[].Answers[]", ANSWER, id);
        let Some(argument) = a.get("AnswerArgument").and_then(scalar_string) else {
            diagnostics.push(format!(
                "question {id}: an answer has no `AnswerArgument`; skipped"
            ));
            continue;
        };
        let name = a.get("EntityName").and_then(Value::as_str).unwrap_or("");
        let entity = a.get("AnswerType").and_then(Value::as_str) == Some("Entity");
        if entity {
            let labels: Vec<&str> = [name]
                .into_iter()
                .filter(|n| !n.trim().is_empty())
                .collect();
            push_answer(&mut set, &argument, &labels);
        } else {
            // a value is a literal even when it reads like an id
            set.answers
                .push(crate::model::Answer::single(crate::model::Term::plain(
                    argument,
                )));
        }
    }
    set
}

/// Keys of a record of the release's typical queries.
const TYPICAL: &[&str] = &[
    "question",
    "sparql",
    "PotentialTopicEntityMention",
    "TopicEntityName",
    "TopicEntityMid",
    "InferentialChain",
    "Constraints",
    "json",
    "is_typical",
];

/// Reads WebQSP parses without answers (`WebQSP_typical_SPARQL.json`): one
/// question per record, named by its 0-based position, its query and the
/// other keys as flags (`json`, the parsed query, as JSON text).
pub fn queries(items: Vec<Value>) -> Dataset {
    let mut scan = KeyScan::default();
    let mut dataset = Dataset::new(Format::Webqsp);
    for (i, item) in items.iter().enumerate() {
        let Some(o) = item.as_object() else {
            dataset.diagnostics.push(format!(
                "record {i} (0-based) is not a json object; skipped"
            ));
            continue;
        };
        let mut q = Question {
            id: QuestionId(i.to_string()),
            ..Question::default()
        };
        scan.object(o, "[]", TYPICAL, &q.id.0);
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        if let Some(s) = o
            .get("sparql")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
        {
            q.query = Query::Sparql(s.trim().to_string());
        }
        copy_flags(o, &TYPICAL[2..], &mut q.flags);
        dataset.questions.push(q);
    }
    dataset.unknown_keys = scan.finish();
    dataset
}

/// Reads a WebQSP prediction file: one run question per `{QuestionId, Answers}`.
pub fn predictions(items: Vec<Value>) -> Dataset {
    parse_items(
        items,
        Format::WebqspPredictions,
        "QuestionId",
        PREDICTION,
        |o, q, _| {
            let mut set = AnswerSet {
                vars: vec!["Answers".into()],
                ..AnswerSet::default()
            };
            match o.get("Answers") {
                Some(Value::Array(_)) => {
                    for a in strings(o.get("Answers")) {
                        push_answer(&mut set, &a, &[]);
                    }
                }
                other => q.diagnostics.push(format!(
                    "question {}: `Answers` is {}, not a list of strings; read as no answer",
                    q.id,
                    other.map_or("absent".to_string(), Value::to_string)
                )),
            }
            q.answers = Some(set);
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query, Term};
    use crate::qald::parse;

    #[test]
    fn every_parse_is_kept_and_the_first_is_the_question_s() {
        let d = parse(
            br#"{"Version": "1.0", "FreebaseVersion": "2015-08-09", "Questions": [
              {"QuestionId": "WebQTest-1", "RawQuestion": "Who?", "ProcessedQuestion": "who",
               "Parses": [
                 {"ParseId": "WebQTest-1.P0", "AnnotatorId": 1,
                  "AnnotatorComment": {"ParseQuality": "Complete", "QuestionQuality": "Good", "Confidence": "Normal", "FreeFormComment": ""},
                  "Sparql": "SELECT ?x WHERE { ns:m.0a ns:p ?x }", "TopicEntityMid": "m.0a", "InferentialChain": ["p"],
                  "Constraints": [], "Time": null, "Order": null,
                  "Answers": [{"AnswerType": "Entity", "AnswerArgument": "m.0b", "EntityName": "Bee"},
                              {"AnswerType": "Value", "AnswerArgument": "1990"}]},
                 {"ParseId": "WebQTest-1.P1", "AnnotatorComment": {"ParseQuality": "Partial"}, "Answers": null, "Extra": 1}]}]}"#,
            "w.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::Webqsp);
        assert_eq!(
            d.metadata.as_deref(),
            Some("Version 1.0, FreebaseVersion 2015-08-09")
        );
        let q = &d.questions[0];
        assert_eq!(q.text("en"), Some("Who?"));
        assert_eq!(q.flags["ProcessedQuestion"], "who");
        assert_eq!(q.parses.len(), 2);
        assert!(matches!(&q.query, Query::Sparql(s) if s.contains("ns:m.0a")));
        let set = q.answers.as_ref().unwrap();
        assert_eq!(
            set.answers[0].terms,
            [
                Term::Iri("http://rdf.freebase.com/ns/m.0b".into()),
                Term::plain("Bee")
            ]
        );
        assert_eq!(set.answers[1].terms, [Term::plain("1990")]);
        assert_eq!(set.raw_values, [(0, 0, "m.0b".to_string())]);
        let p0 = &q.parses[0];
        assert_eq!(p0.flags["ParseQuality"], "Complete");
        assert_eq!(p0.flags["InferentialChain"], r#"["p"]"#);
        assert_eq!(p0.flags["AnnotatorId"], "1");
        assert_eq!(q.parses[1].flags["Answers"], "null");
        assert_eq!(d.unknown_keys.len(), 1);
        assert_eq!(d.unknown_keys[0].path, "Questions[].Parses[].Extra");
    }

    #[test]
    fn a_wrong_shape_is_an_error_that_says_what_to_write() {
        let e = parse(br#"{"Version": "1.0", "Questions": "x"}"#, "w.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("w.json:1:1: WebQSP's `Questions` is a string"),
            "{e}"
        );
    }

    #[test]
    fn predictions_keep_their_strings() {
        let d = parse(
            br#"[{"QuestionId": "WebQTest-1", "Answers": ["m.0b", "ns:m.0c", "1990"]},
                 {"QuestionId": "WebQTest-2", "Answers": "m.0b"}]"#,
            "p.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::WebqspPredictions);
        let set = d.questions[0].answers.as_ref().unwrap();
        assert_eq!(set.answers.len(), 3);
        assert_eq!(
            set.answers[1].terms,
            [Term::Iri("http://rdf.freebase.com/ns/m.0c".into())]
        );
        assert_eq!(set.raw_values[1], (1, 0, "ns:m.0c".to_string()));
        assert_eq!(d.questions[1].diagnostics.len(), 1);
    }

    /// The two real WebQSP files load with no key left unread.
    #[test]
    fn the_real_partial_files_load_whole() {
        let Some(dir) = crate::test_data::shared_data("freebase/webqsp") else {
            return;
        };
        for name in ["WebQSP.test.partial.json", "WebQSP.train.partial.json"] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            let d = parse(&bytes, name).unwrap();
            assert_eq!(d.format, Format::Webqsp);
            assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
            assert!(d.questions.len() > 300, "{name}");
            assert!(d.questions.iter().all(|q| q.parses.len() == 1));
        }
        let bytes = std::fs::read(dir.join("WebQSP_typical_SPARQL.json")).unwrap();
        let d = parse(&bytes, "typical").unwrap();
        assert_eq!((d.format, d.questions.len()), (Format::Webqsp, 10));
        assert!(d.unknown_keys.is_empty(), "{:?}", d.unknown_keys);
        assert!(d
            .questions
            .iter()
            .all(|q| matches!(q.query, Query::Sparql(_))));
    }
}
