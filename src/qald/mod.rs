//! Reading benchmarks and runs in every format of docs/scoring.md (Reading): QALD-JSON and its
//! variants, the QALD-7 extended JSON, eQALD, QALD-XML, LC-QuAD 1.0, RuBQ and the families of
//! docs/scoring.md (Other benchmark families), QAWiki's Turtle dump among them. The
//! format is detected from the content. Parsers take bytes and a name for messages;
//! they open no files. A bad question becomes a diagnostic; only an unreadable file
//! is an error.

mod expansion;
mod family;
mod fast;
mod freebase;
mod grasp;
mod items;
mod json;
mod jsonl;
mod keys;
mod kgqa;
mod kgqagen;
mod kqapro;
mod lcquad;
mod llm;
mod mintaka;
mod qawiki;
mod records;
mod result_set;
mod rubq;
mod spider4sparql;
mod spinach;
mod stream;
mod t2s;
mod text2sparql;
mod usage;
pub mod values;
mod wdql;
mod webqsp;
mod wikidata;
mod write;
mod xml;
mod yaml;

pub use expansion::{dataset_text_bytes, expansion_limit};
pub use family::labelled_id;
pub use grasp::{ELAPSED as GRASP_ELAPSED, INVALID as GRASP_INVALID, LINE as GRASP_LINE};
pub use kgqagen::ANSWER as KGQAGEN_ANSWER;
pub use kqapro::{parse_train as parse_kqapro_train, TrainAnswers};
pub use llm::braced;
pub use records::{bound as question_bound, Bound as QuestionBound, MAX_QUESTIONS};
pub use t2s::RAW_QUERY as T2S_RAW_QUERY;
pub use write::to_qald_json;

use std::collections::HashSet;
use std::io::Read;

use crate::model::{Dataset, Format};

/// A file that cannot be read as a benchmark or run at all.
#[derive(Debug, thiserror::Error)]
pub enum QaldError {
    /// The content is not well-formed, or not of any known shape.
    #[error("{source_name}:{line}:{column}: {message}")]
    Syntax {
        /// The file (or URL) the content came from.
        source_name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong and what to do.
        message: String,
    },
    /// The content could not be read from its reader.
    #[error("{source_name}: cannot read: {message}")]
    Read {
        /// The file (or URL) the content came from.
        source_name: String,
        /// The underlying error.
        message: String,
    },
}

impl QaldError {
    pub(crate) fn at_offset(source: &str, bytes: &[u8], offset: usize, message: String) -> Self {
        let offset = offset.min(bytes.len());
        let before = &bytes[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        QaldError::Syntax {
            source_name: source.to_string(),
            line,
            column,
            message,
        }
    }
}

/// Reads a whole benchmark or run from a reader; `source` names it in messages.
pub fn read(mut reader: impl Read, source: &str) -> Result<Dataset, QaldError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| QaldError::Read {
            source_name: source.to_string(),
            message: e.to_string(),
        })?;
    parse(&bytes, source)
}

/// Parses a benchmark or run, detecting its format from the content.
pub fn parse(bytes: &[u8], source: &str) -> Result<Dataset, QaldError> {
    parse_inner(bytes, source, true).map(|d| digested(d, bytes, source))
}

/// The dataset with the digest of the bytes it was read from (its receipt's
/// input; docs/reproduce.md).
fn digested(mut d: Dataset, bytes: &[u8], source: &str) -> Dataset {
    d.inputs = vec![crate::model::InputDigest {
        role: "file".into(),
        name: source.to_string(),
        bytes: bytes.len() as u64,
        sha256: crate::digest::sha256_hex(bytes),
    }];
    d
}

/// Parses a benchmark or run like [`parse`] but never by the fast QALD-JSON path:
/// every JSON file through `serde_json`'s tree. What the fast path gives must
/// equal this (a test on the real files and the QALD-JSON fuzz target check it).
pub fn parse_tolerant(bytes: &[u8], source: &str) -> Result<Dataset, QaldError> {
    parse_inner(bytes, source, false).map(|d| digested(d, bytes, source))
}

/// What a file that is not UTF-8 text is, from its first bytes, and what to
/// do: compressed files and UTF-16 text are common mistakes that would
/// otherwise read as a syntax error at line 1, column 1.
fn not_text(bytes: &[u8]) -> Option<&'static str> {
    let utf16 = |a: usize, b: usize| {
        bytes.len() >= 4 && bytes[a] == 0 && bytes[b] != 0 && bytes[a + 2] == 0 && bytes[b + 2] != 0
    };
    if bytes.starts_with(b"\x1f\x8b") {
        Some("gzip-compressed: decompress it first (gunzip FILE)")
    } else if bytes.starts_with(b"BZh") && bytes.get(3).is_some_and(u8::is_ascii_digit) {
        Some("bzip2-compressed: decompress it first (bunzip2 FILE)")
    } else if bytes.starts_with(b"\x28\xb5\x2f\xfd") {
        Some("zstd-compressed: decompress it first (unzstd FILE)")
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some("a zip archive: extract the benchmark or run from it first")
    } else if bytes.starts_with(b"\xff\xfe")
        || bytes.starts_with(b"\xfe\xff")
        || utf16(0, 1)
        || utf16(1, 0)
    {
        Some("UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE)")
    } else {
        None
    }
}

fn parse_inner(bytes: &[u8], source: &str, allow_fast: bool) -> Result<Dataset, QaldError> {
    if let Some(what) = not_text(bytes) {
        return Err(QaldError::Syntax {
            source_name: source.to_string(),
            line: 1,
            column: 1,
            message: format!("not UTF-8 text: the file is {what}"),
        });
    }
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // the questions are counted before any reader allocates for them
    let counted = records::bound(body, source, MAX_QUESTIONS);
    if let Some(at) = counted.past {
        return Err(QaldError::at_offset(
            source,
            body,
            at,
            format!("the file holds more than {MAX_QUESTIONS} questions (counted from its text before it is read), more than one document may hold (docs/scoring.md, Limits); split it into smaller files"),
        ));
    }
    // a `.txt` file is KQA Pro predictions whatever its first line holds
    if kqapro::is_predictions(source) {
        return match std::str::from_utf8(body) {
            Ok(text) => Ok(kqapro::parse_predictions(text)),
            Err(e) => Err(QaldError::at_offset(
                source,
                body,
                e.valid_up_to(),
                "not UTF-8 text: a prediction file (.txt) holds one answer per line in UTF-8"
                    .into(),
            )),
        };
    }
    let first = body.iter().position(|b| !b.is_ascii_whitespace());
    let mut dataset = match first.map(|i| body[i]) {
        Some(b'<') => xml::parse(body, source)?,
        // first: its probe reads the first line's keys only (a line's
        // `messages` can be large)
        Some(b'{') if grasp::looks_like(body) => grasp::parse(body, source)?,
        Some(b'{') if t2s::looks_like(body) => t2s::parse(body),
        Some(b'{') if jsonl::looks_like(body) => jsonl::parse(body, source)?,
        Some(b'{') if llm::looks_like(body) => llm::parse(body, source)?,
        Some(b'{') if kgqagen::looks_like(body) => kgqagen::parse(body, source)?,
        Some(b'{') if wdql::looks_like(body) => wdql::parse(body, source)?,
        Some(b'{')
            if let Some(file) = fast::parse(body).filter(|f| {
                allow_fast
                    && !f
                        .questions
                        .first()
                        .is_some_and(|q| wikidata::is_dblp(&q.fields))
            }) =>
        {
            json::parse_fast(file)
        }
        Some(b'{' | b'[') => {
            let read = stream::read(body).map_err(|e| {
                QaldError::Syntax {
                    source_name: source.to_string(),
                    line: e.line(),
                    column: e.column(),
                    message: if jsonl::one_object_per_line(body) {
                        "the file holds one json object per line (JSON Lines), and its first line is none of the JSON Lines formats read: a component run (an `id` with `entities`, `classes`, `properties` or `triples`), LLM predictions (`prediction`), T2S-Metrics cases (`golden`, `generated`), KGQAGen (`question`, `answer`, `proof`), WDQL (`question`, `sparql`, `paraphrases`) or GRASP's outputs (`sparql`, `elapsed`); docs/cli.md lists the formats".to_string()
                    } else {
                        format!(
                            "invalid json: {}; fix the file (a QALD-JSON, LC-QuAD or RuBQ file must be valid JSON)",
                            strip_position(&e.to_string())
                        )
                    },
                }
            })?;
            match read {
                stream::Read::Kqapro(dataset) => *dataset,
                stream::Read::Tree(value) => parse_json_value(value, body, source)?,
            }
        }
        Some(_) if qawiki::looks_like(body) => qawiki::parse(body, source)?,
        Some(_) if text2sparql::looks_like_benchmark(body) => {
            text2sparql::parse_benchmark(body, source)?
        }
        Some(_) => {
            return Err(QaldError::at_offset(
                source,
                body,
                first.unwrap_or(0),
                "not a benchmark or run: expected QALD-JSON, QALD-XML, LC-QuAD, RuBQ (a '{', '[' or '<' first), a TEXT2SPARQL benchmark (YAML with `questions:`) or the QAWiki dump (Turtle)".into(),
            ))
        }
        None => {
            return Err(QaldError::Syntax {
                source_name: source.to_string(),
                line: 1,
                column: 1,
                message: "empty file: expected a benchmark or run".into(),
            })
        }
    };
    flag_duplicate_ids(&mut dataset);
    Ok(dataset)
}

pub(crate) fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

fn shape_error(source: &str, message: &str) -> QaldError {
    QaldError::Syntax {
        source_name: source.to_string(),
        line: 1,
        column: 1,
        message: message.to_string(),
    }
}

/// Detects the JSON format from the content and parses it.
fn parse_json_value(
    value: serde_json::Value,
    body: &[u8],
    source: &str,
) -> Result<Dataset, QaldError> {
    match value {
        serde_json::Value::Array(items) => {
            let first = items.iter().find_map(|i| i.as_object());
            if let Some(f) = first.and_then(kgqa::of_record) {
                return Ok(kgqa::read_records(f, items));
            }
            // before SPINACH's (`id`, `question`, `sparql`), which a KGQAGen
            // record also has: its `answer` and `proof` tell it apart
            if first.is_some_and(kgqagen::is_record) {
                return Ok(kgqagen::parse_items(items));
            }
            // KQA Pro's datasets never get here: `stream` reads them record by record
            if first.is_some_and(mintaka::is_dataset) {
                return Ok(mintaka::parse_dataset(items));
            }
            if first.is_some_and(wikidata::is_lcquad2) {
                return Ok(wikidata::parse_lcquad2(items));
            }
            if first.is_some_and(spinach::is_run) {
                return Ok(spinach::parse_run(items));
            }
            if first.is_some_and(spinach::is_dataset) {
                return Ok(spinach::parse_dataset(items));
            }
            if first.is_some_and(spider4sparql::is_dataset) {
                return Ok(spider4sparql::parse_dataset(items));
            }
            if first.is_some_and(spider4sparql::is_run) {
                return Ok(spider4sparql::parse_run(items));
            }
            match first {
                Some(o) if o.contains_key("sparql_query") || o.contains_key("corrected_question") => {
                    Ok(lcquad::parse(items))
                }
                Some(o) if o.contains_key("question_text") || o.contains_key("uid") => {
                    Ok(rubq::parse(items))
                }
                Some(o) if text2sparql::is_answers(o) => Ok(text2sparql::parse_answers(items)),
                // QALD-JSON's questions without their wrapper: read as `{"questions": [...]}`
                Some(o) if is_qald_question(o) => {
                    let mut map = serde_json::Map::new();
                    map.insert("questions".into(), serde_json::Value::Array(items));
                    parse_json_value(serde_json::Value::Object(map), body, source)
                }
                None if items.is_empty() => Ok(Dataset {
                    diagnostics: vec!["the file holds no question".into()],
                    ..Dataset::new(Format::QaldJson)
                }),
                _ => Err(shape_error(
                    source,
                    "a top-level json array must hold QALD questions (`question`, `answers`, `query`), LC-QuAD questions (`_id`, `sparql_query`), RuBQ questions (`uid`, `question_text`), TEXT2SPARQL answers (`qname`, `query`) or the records of another family read (docs/cli.md lists the formats)",
                )),
            }
        }
        serde_json::Value::Object(map) => {
            let Some(serde_json::Value::Array(questions)) = map.get("questions") else {
                if result_set::looks_like(&map) {
                    return result_set::parse(body, source);
                }
                if let Some(d) = kgqa::read_object(&map).map_err(|e| shape_error(source, &e.to_string()))? {
                    return Ok(d);
                }
                if mintaka::is_predictions(&map) {
                    return Ok(mintaka::parse_predictions(map));
                }
                return Err(shape_error(
                    source,
                    "not QALD-JSON: the top-level object has no `questions` array",
                ));
            };
            let first = questions.iter().find_map(serde_json::Value::as_object);
            if first.is_some_and(wikidata::is_dblp) {
                let mut map = map;
                if let Some(serde_json::Value::Array(questions)) = map.remove("questions") {
                    return Ok(wikidata::parse_dblp(questions));
                }
                return Err(shape_error(source, "`questions` is not an array"));
            }
            Ok(json::parse(map))
        }
        _ => Err(shape_error(
            source,
            "not a benchmark or run: the top-level json value must be an object with `questions` or an array",
        )),
    }
}

/// True when a JSON object is a QALD-JSON question: a `question` list of
/// texts, `answers`, or a `query` object.
fn is_qald_question(o: &serde_json::Map<String, serde_json::Value>) -> bool {
    o.contains_key("answers")
        || o.get("question").is_some_and(serde_json::Value::is_array)
        || o.get("query").is_some_and(serde_json::Value::is_object)
}

/// Reads a benchmark or run given as one JSON value in memory (a Python
/// object, an HTTP request's `document`), exactly as a file of the same
/// content is read: `json` is the value's JSON text. A list of objects none of
/// the array formats takes is read as the same objects one per line, as a
/// JSON Lines file of them would be (T2S-Metrics cases, LLM predictions,
/// component runs …); when neither reads, the array's error is returned.
pub fn parse_document(json: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let error = match parse(json, source) {
        Ok(d) => return Ok(d),
        Err(e) => e,
    };
    let Ok(serde_json::Value::Array(items)) = serde_json::from_slice::<serde_json::Value>(json)
    else {
        return Err(error);
    };
    if items.is_empty() || !items.iter().all(serde_json::Value::is_object) {
        return Err(error);
    }
    let mut lines = Vec::with_capacity(json.len());
    for item in &items {
        // serialising a value read from JSON text cannot fail
        if serde_json::to_writer(&mut lines, item).is_err() {
            return Err(error);
        }
        lines.push(b'\n');
    }
    if !jsonl_family(&lines) {
        return Err(error);
    }
    parse(&lines, source)
}

/// True when JSON Lines text is one of the JSON Lines formats read.
fn jsonl_family(body: &[u8]) -> bool {
    t2s::looks_like(body)
        || jsonl::looks_like(body)
        || llm::looks_like(body)
        || kgqagen::looks_like(body)
        || wdql::looks_like(body)
}

fn flag_duplicate_ids(dataset: &mut Dataset) {
    let mut seen = HashSet::new();
    for q in &dataset.questions {
        if !seen.insert(q.id.0.as_str()) {
            dataset.diagnostics.push(format!(
                "question id {} appears more than once; only the first is used",
                q.id
            ));
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn compressed_and_utf16_files_say_what_they_are() {
        let gz = b"\x1f\x8b\x08\x00\x00\x00";
        let e = parse(gz, "run.json.gz").expect_err("gzip").to_string();
        assert!(
            e.contains("run.json.gz:1:1") && e.contains("gzip-compressed"),
            "{e}"
        );
        let utf16: Vec<u8> = "{\"questions\": []}"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let e = parse(&utf16, "gold.json").expect_err("utf-16").to_string();
        assert!(e.contains("UTF-16") && e.contains("iconv"), "{e}");
        let bom: Vec<u8> = [0xff, 0xfe].into_iter().chain(utf16).collect();
        assert!(parse(&bom, "gold.json")
            .expect_err("utf-16")
            .to_string()
            .contains("UTF-16"));
    }

    #[test]
    fn json_lines_of_another_tool_are_named_as_such() {
        let body =
            b"{\"id\": \"1\", \"prediction\": [\"a\"]}\n{\"id\": \"2\", \"prediction\": []}\n";
        let e = parse(body, "preds.jsonl")
            .expect_err("not read")
            .to_string();
        assert!(e.contains("JSON Lines") && !e.contains("QALD-JSON"), "{e}");
    }
    use super::*;
    use crate::model::{Answer, AnswerSet, Question, QuestionId, Term};

    /// Found by the `qald_json` fuzz target: a byte that is not UTF-8 in a value
    /// the fast path skips (an unknown top-level key) made it accept a file the
    /// tolerant path rejects.
    #[test]
    fn invalid_utf8_in_a_skipped_value_is_an_error_on_both_paths() {
        let bytes = b"{\"dbtaset\": {\"id\": \"a\x8ab\"}, \"questions\": [{\"id\": \"1\"}]}";
        for result in [parse(bytes, "f.json"), parse_tolerant(bytes, "f.json")] {
            let err = result.unwrap_err().to_string();
            assert!(err.starts_with("f.json:1:"), "{err}");
            assert!(err.contains("invalid unicode code point"), "{err}");
        }
    }

    /// Found by the `qald_json` fuzz target: the two paths disagreed on the order
    /// of variables the head does not declare (file order against name order), on
    /// a key repeated inside a binding row (both values against the last) and on a
    /// top-level key repeated (counted twice against once).
    #[test]
    fn key_order_and_repeated_keys_read_alike_on_both_paths() {
        let undeclared = br#"{"questions": [{"id": "84", "answers": [{"head": {"varx": ["uri"]},
            "results": {"bindings": [{"uri": {"type": "uri", "value": "http://a.org/J"},
            "anuri": {"type": "uri", "value": "http://a.org/N"}}]}}]}]}"#;
        let repeated_binding = br#"{"questions": [{"id": "11", "answers": [{"head": {"vars": ["s", "d"]},
            "results": {"bindings": [{"s": {"type": "uri", "value": "http://a.org/B"},
            "d": {"type": "literal", "value": "1.9"}, "d": {"type": "literal", "value": "1.85"}}]}}]}]}"#;
        let repeated_top = br#"{"questions": [{"id": "1"}], "string": "a", "string": "b"}"#;
        for bytes in [&undeclared[..], repeated_binding, repeated_top] {
            let (fast, tolerant) = (parse(bytes, "f.json"), parse_tolerant(bytes, "f.json"));
            let (fast, tolerant) = (fast.unwrap(), tolerant.unwrap());
            assert_eq!(fast.questions, tolerant.questions);
            assert_eq!(fast.unknown_keys, tolerant.unknown_keys);
        }
        let d = parse(undeclared, "f.json").unwrap();
        let set = d.questions[0].answers.as_ref().unwrap();
        assert_eq!(set.vars, ["anuri", "uri"]);
        assert_eq!(
            set.answers[0].terms,
            [
                Term::Iri("http://a.org/N".into()),
                Term::Iri("http://a.org/J".into())
            ]
        );
        let d = parse(repeated_binding, "f.json").unwrap();
        let terms = &d.questions[0].answers.as_ref().unwrap().answers[0].terms;
        assert_eq!(terms.len(), 2, "{terms:?}");
        assert_eq!(terms[1], Term::plain("1.85"));
        let d = parse(repeated_top, "f.json").unwrap();
        let string = d.unknown_keys.iter().find(|k| k.path == "string").unwrap();
        assert_eq!(string.count, 1);
    }

    /// Found by the `qald_json` fuzz target: two bad bindings of one row gave
    /// their diagnostics in the file's key order on one path and in the map's
    /// order on the other.
    #[test]
    fn diagnostics_of_a_row_come_in_variable_order_on_both_paths() {
        let bytes =
            br#"{"questions": [{"id": "6", "answers": [{"head": {"vars": ["year", "result"]},
            "results": {"bindings": [{"year": {"type": "?urliteral", "value": "2010"},
            "result": {"type": "literas", "value": "78478.5"}}]}}]}]}"#;
        let (fast, tolerant) = (parse(bytes, "f.json"), parse_tolerant(bytes, "f.json"));
        let (fast, tolerant) = (fast.unwrap(), tolerant.unwrap());
        assert_eq!(fast.questions, tolerant.questions);
        let diagnostics = &fast.questions[0].diagnostics;
        assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
        assert!(diagnostics[0].contains("variable year"), "{diagnostics:?}");
        assert!(
            diagnostics[1].contains("variable result"),
            "{diagnostics:?}"
        );
    }

    /// Found by the `qald_xml` fuzz target: a string answer holding `"…"^^xsd:…`
    /// followed by more text was written as a plain literal and read back as a
    /// typed one; now a datatype has no spaces, and such a string is written
    /// with the datatype xsd:string, which reads back as the same simple literal.
    #[test]
    fn a_string_that_looks_typed_round_trips() {
        for lexical in [
            "870ea4f9-ca\"1961-08-06\"^^xsd:dat03-4392\n</uri>",
            "\"1961-08-06\"^^xsd:date",
            "5000000.0^^http://dbpedia.org/datatype/usDollar",
        ] {
            let mut d = Dataset::new(Format::QaldJson);
            d.questions.push(Question {
                id: QuestionId("1".into()),
                answers: Some(AnswerSet {
                    answers: vec![Answer::single(Term::plain(lexical))],
                    vars: vec!["x".into()],
                    ..AnswerSet::default()
                }),
                ..Question::default()
            });
            let written = to_qald_json(&d, &std::collections::BTreeMap::new()).to_string();
            for back in [
                parse(written.as_bytes(), "w.json").unwrap(),
                parse_tolerant(written.as_bytes(), "w.json").unwrap(),
            ] {
                let set = back.questions[0].answers.as_ref().unwrap();
                assert_eq!(set.answers[0].terms, [Term::plain(lexical)], "{written}");
            }
        }
        // the file's own typed-in-value literals are still split
        let tebaqa = br#"{"questions": [{"id": "1", "answers": [{"head": {"vars": ["x"]},
            "results": {"bindings": [{"x": {"type": "literal", "value": "5000000.0^^http://dbpedia.org/datatype/usDollar"}}]}}]}]}"#;
        let d = parse(tebaqa, "t.json").unwrap();
        assert_eq!(
            d.questions[0].answers.as_ref().unwrap().answers[0].terms,
            [Term::typed(
                "5000000.0",
                "http://dbpedia.org/datatype/usDollar"
            )]
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = parse(b"{\n  \"questions\": [\n  }", "x.json").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("x.json:3:3: invalid json"), "{msg}");
        let err = parse(b"\n\n  hello", "y.text").unwrap_err().to_string();
        assert!(err.starts_with("y.text:3:3: not a benchmark"), "{err}");
        let err = parse(b"{\"dataset\": {}}", "z.json")
            .unwrap_err()
            .to_string();
        assert!(err.contains("no `questions` array"), "{err}");
        let err = parse(b"   ", "e.json").unwrap_err().to_string();
        assert!(err.contains("empty file"), "{err}");
    }

    /// The fast path and the tolerant path read every real QALD-JSON file alike.
    #[test]
    fn fast_and_tolerant_paths_agree_on_real_files() {
        let Some(dir) = crate::test_data::shared_data("") else {
            return;
        };
        let mut stack = vec![dir];
        let (mut fast, mut tolerant) = (0, 0);
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).expect("readable dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().and_then(|e| e.to_str()) != Some("json") {
                    continue;
                }
                let bytes = std::fs::read(&path).expect("readable file");
                let name = path.display().to_string();
                let slow = parse_tolerant(&bytes, &name);
                if fast::parse(&bytes).is_some() {
                    fast += 1;
                } else {
                    tolerant += 1;
                }
                match (parse(&bytes, &name), slow) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.questions.len(), b.questions.len(), "{name}");
                        for (qa, qb) in a.questions.iter().zip(&b.questions) {
                            assert_eq!(qa, qb, "{name}");
                        }
                        assert_eq!(
                            (a.format, &a.id, &a.diagnostics),
                            (b.format, &b.id, &b.diagnostics)
                        );
                    }
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                    (a, b) => panic!("{name}: {a:?} vs {b:?}"),
                }
            }
        }
        eprintln!("{fast} files read by the fast path, {tolerant} by the tolerant one");
        assert!(
            fast >= 40,
            "the fast path should read the real QALD-JSON files: {fast}"
        );
    }

    #[test]
    fn duplicate_ids_are_reported() {
        let d = parse(
            br#"{"questions":[{"id":1,"answers":[]},{"id":"1","answers":[]}]}"#,
            "d",
        )
        .unwrap();
        assert_eq!(d.diagnostics.len(), 1);
        assert!(d.diagnostics[0].contains("id 1"));
    }
}
