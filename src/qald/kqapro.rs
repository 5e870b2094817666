//! KQA Pro (shijx12/KQAPro_Baselines; docs/scoring.md, The `kqapro` profile):
//! the dataset, a list of `{question, sparql, program: [{function,
//! dependencies, inputs}], choices, answer}` without ids (a question is
//! numbered by its position from 0, as the official script joins it), and
//! prediction files, one answer per line (`.txt`), line N answering question N.
//! The gold answer is one string; the program's function names are kept as the
//! `functions` flag (the categories of the official script come from them) and
//! the program itself as the logical form.

use serde_json::Value;

use crate::model::{Answer, AnswerSet, Dataset, Format, Query, Question, QuestionId, Term};

/// The flag holding a question's program function names, space-separated.
pub const FUNCTIONS: &str = "functions";

/// Keys of a KQA Pro record.
const KEYS: &[&str] = &["question", "sparql", "program", "choices", "answer"];

/// True when a record is KQA Pro's.
pub fn is_dataset(record: &serde_json::Map<String, Value>) -> bool {
    let program = record
        .get("program")
        .and_then(Value::as_array)
        .is_some_and(|p| p.iter().any(|f| f.get("function").is_some()));
    !record.contains_key("id")
        && (program || (record.contains_key("question") && record.contains_key("choices")))
}

/// True when a file is a KQA Pro prediction file: text named `*.txt`.
pub fn is_predictions(source: &str) -> bool {
    source.to_ascii_lowercase().ends_with(".txt")
}

/// Reads the dataset from its tree (the reader streams it, `super::stream`;
/// the tests compare both).
#[cfg(test)]
pub fn parse_dataset(items: Vec<Value>) -> Dataset {
    let mut reader = DatasetReader::with_capacity(items.len());
    for item in items {
        reader.push(item);
    }
    reader.finish()
}

/// Reads the dataset one record at a time, in file order, so that a file
/// streamed from its bytes (`super::stream`) never holds more than one
/// record's JSON tree.
pub struct DatasetReader {
    dataset: Dataset,
    scan: super::keys::KeyScan,
    /// The position of the next record.
    next: usize,
}

impl DatasetReader {
    /// A reader expecting about `n` records.
    pub fn with_capacity(n: usize) -> Self {
        let mut dataset = Dataset::new(Format::Kqapro);
        dataset.questions.reserve(n);
        DatasetReader {
            dataset,
            scan: super::keys::KeyScan::default(),
            next: 0,
        }
    }

    /// Reads the next record (its position is its id).
    pub fn push(&mut self, item: Value) {
        let i = self.next;
        self.next += 1;
        let (d, scan) = (&mut self.dataset, &mut self.scan);
        let mut q = Question {
            id: QuestionId(i.to_string()),
            ..Question::default()
        };
        let Value::Object(o) = item else {
            d.diagnostics
                .push(format!("question {i} is not a json object; skipped"));
            return;
        };
        scan.object(&o, "[]", KEYS, &q.id.0);
        if let Some(t) = o.get("question").and_then(Value::as_str) {
            q.texts.push(("en".into(), t.trim().to_string()));
        }
        if let Some(s) = o.get("sparql").and_then(Value::as_str) {
            if !s.trim().is_empty() {
                // KQA Pro's SPARQL runs on its own Virtuoso graph, not a public KG
                q.query = Query::Sparql(s.trim().to_string());
            }
        }
        if let Some(p) = o.get("program").filter(|p| !p.is_null()) {
            let functions: Vec<&str> = p
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.get("function").and_then(Value::as_str))
                .collect();
            q.flags.insert(FUNCTIONS.into(), functions.join(" "));
            q.logical_form = Some(p.to_string());
        }
        if let Some(c) = o.get("choices").filter(|c| !c.is_null()) {
            q.flags.insert("choices".into(), c.to_string());
        }
        match o.get("answer") {
            Some(Value::String(a)) => {
                q.answers = Some(AnswerSet {
                    answers: vec![Answer::single(Term::plain(a.clone()))],
                    ..AnswerSet::default()
                });
            }
            None | Some(Value::Null) => {}
            Some(other) => q
                .diagnostics
                .push(format!("answer {other} is not a string; no gold answer")),
        }
        d.questions.push(q);
    }

    /// The dataset read, with the unknown keys met.
    pub fn finish(mut self) -> Dataset {
        self.dataset.unknown_keys = self.scan.finish();
        self.dataset
    }
}

/// Reads a prediction file: line N (from 0) is the answer to question N, as
/// Python's `readlines()` (universal newlines: `\n`, `\r\n` or `\r`) and
/// `strip()` give it (a blank line is the empty answer; the newline that ends
/// the file starts no line).
pub fn parse_predictions(text: &str) -> Dataset {
    let mut d = Dataset::new(Format::KqaproPredictions);
    // copied only when there is a carriage return to turn into a newline
    let text: std::borrow::Cow<'_, str> = if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        text.into()
    };
    let body = text.strip_suffix('\n').unwrap_or(&text);
    if text.is_empty() {
        return d;
    }
    d.questions
        .reserve(body.bytes().filter(|&b| b == b'\n').count() + 1);
    for (i, line) in body.split('\n').enumerate() {
        d.questions.push(Question {
            id: QuestionId(i.to_string()),
            answers: Some(AnswerSet {
                answers: vec![Answer::single(Term::plain(line.trim()))],
                ..AnswerSet::default()
            }),
            ..Question::default()
        });
    }
    d
}

/// The answers of KQA Pro's training set (`train.json`), as the official
/// script collects them for its `zero-shot` category (`set(x['answer'] for x
/// in train_set)`): a gold answer is zero-shot when no training record has it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrainAnswers {
    /// The training records' string answers.
    pub strings: std::collections::HashSet<String>,
    /// True when a training record's answer is `null` (Python's `None` in the
    /// set, which a gold question without an answer then matches).
    pub null: bool,
    /// Where the training set was read from, its size and digest, for the
    /// report's receipt (set by whoever read it).
    pub source: Option<crate::model::InputDigest>,
}

/// One training record: only its answer is read; every other key is skipped
/// without building it.
#[derive(serde::Deserialize)]
struct TrainRecord {
    /// `None` without the key, `Some(Value::Null)` for `null`.
    #[serde(default, deserialize_with = "present")]
    answer: Option<Value>,
}

/// A value that is there (`null` included), told apart from a missing key.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    <Value as serde::Deserialize>::deserialize(d).map(Some)
}

/// Reads KQA Pro's training set (a JSON array of records with `answer`) for
/// the `zero-shot` category; `source` names it in messages. A record without
/// `answer` (the script stops on it) is an error naming its position; an
/// answer that is not a string or `null` is never a gold answer's and is
/// skipped.
pub fn parse_train(bytes: &[u8], source: &str) -> Result<TrainAnswers, super::QaldError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let records: Vec<TrainRecord> =
        serde_json::from_slice(body).map_err(|e| super::QaldError::Syntax {
            source_name: source.to_string(),
            line: e.line(),
            column: e.column(),
            message: format!(
                "not KQA Pro's training set: {}; give its train.json (a json array of records with `answer`)",
                super::strip_position(&e.to_string())
            ),
        })?;
    let mut out = TrainAnswers::default();
    for (i, r) in records.into_iter().enumerate() {
        match r.answer {
            Some(Value::String(s)) => {
                out.strings.insert(s);
            }
            Some(Value::Null) => out.null = true,
            None => {
                return Err(super::QaldError::Syntax {
                    source_name: source.to_string(),
                    line: 1,
                    column: 1,
                    message: format!(
                        "record {i} of the training set has no `answer`; give KQA Pro's train.json, whose every record has one"
                    ),
                })
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;
    use crate::qald::parse;

    #[test]
    fn reads_the_dataset_and_predictions() {
        let d = parse(
            br#"[{"question":"How tall is it?","sparql":"SELECT ?v WHERE { }","choices":["1","2"],
                 "program":[{"function":"Find","dependencies":[],"inputs":["x"]},{"function":"QueryAttr","dependencies":[0],"inputs":["height"]}],
                 "answer":"100 meters"}]"#,
            "kqa.json",
        )
        .unwrap();
        assert_eq!(d.format, Format::Kqapro);
        assert_eq!(d.questions[0].id.0, "0");
        assert_eq!(d.questions[0].flags[FUNCTIONS], "Find QueryAttr");
        assert!(d.unknown_keys.is_empty());
        let p = parse(b"100.0 meters\r\n\r yes \n", "predict.txt").unwrap();
        assert_eq!(p.format, Format::KqaproPredictions);
        assert_eq!(p.questions.len(), 3);
        // a first answer that looks like JSON or XML is still an answer
        let odd = parse(b"[]\n<unk>\n", "predict.txt").unwrap();
        assert_eq!(odd.questions.len(), 2);
        assert_eq!(
            p.questions[2].answers.as_ref().unwrap().answers[0].terms[0],
            Term::plain("yes")
        );
    }
}
