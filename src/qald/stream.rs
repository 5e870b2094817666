//! A top-level JSON array read record by record: the first object decides
//! what the records are, and KQA Pro's (tens of thousands of records, read
//! for the `kqapro` profile) are converted as they are parsed, so the file's
//! whole JSON tree is never held (about 14 bytes of tree per byte of file).
//! Every other array, and a top-level object, is built as the tree
//! `super::parse_json_value` reads. The parse is `serde_json`'s either way:
//! the same errors at the same line and column, the same recursion limit.

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::kqapro::DatasetReader;
use super::{kgqa, kqapro};
use crate::model::Dataset;

/// A JSON document read by [`read`].
pub enum Read {
    /// A KQA Pro dataset, converted record by record (boxed: a dataset is
    /// larger than a tree's root).
    Kqapro(Box<Dataset>),
    /// Any other document, as a tree.
    Tree(Value),
}

/// Parses `body` as one JSON document (trailing whitespace only).
pub fn read(body: &[u8]) -> Result<Read, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let read = Document.deserialize(&mut de)?;
    de.end()?;
    Ok(read)
}

/// The top-level value: an array is streamed, anything else built whole.
struct Document;

impl<'de> DeserializeSeed<'de> for Document {
    type Value = Read;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Read, D::Error> {
        d.deserialize_any(self)
    }
}

/// What the records of an array become once the first object is seen.
enum Sink {
    /// Records before the first object (kept until it decides).
    Undecided(Vec<Value>),
    Kqapro(Box<DatasetReader>),
    Tree(Vec<Value>),
}

impl<'de> Visitor<'de> for Document {
    type Value = Read;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a json value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Read, A::Error> {
        let mut sink = Sink::Undecided(Vec::new());
        while let Some(item) = seq.next_element::<Value>()? {
            sink = match sink {
                Sink::Undecided(mut before) => match item.as_object() {
                    // the order of `parse_json_value`'s checks: KGQA records first
                    Some(first)
                        if kgqa::of_record(first).is_none() && kqapro::is_dataset(first) =>
                    {
                        let mut reader =
                            Box::new(DatasetReader::with_capacity(seq.size_hint().unwrap_or(0)));
                        for v in before.drain(..) {
                            reader.push(v);
                        }
                        reader.push(item);
                        Sink::Kqapro(reader)
                    }
                    Some(_) => {
                        before.push(item);
                        Sink::Tree(before)
                    }
                    None => {
                        before.push(item);
                        Sink::Undecided(before)
                    }
                },
                Sink::Kqapro(mut reader) => {
                    reader.push(item);
                    Sink::Kqapro(reader)
                }
                Sink::Tree(mut items) => {
                    items.push(item);
                    Sink::Tree(items)
                }
            };
        }
        Ok(match sink {
            Sink::Kqapro(reader) => Read::Kqapro(Box::new(reader.finish())),
            Sink::Undecided(items) | Sink::Tree(items) => Read::Tree(Value::Array(items)),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read, A::Error> {
        Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Read::Tree)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Read, E> {
        Ok(Read::Tree(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Read, E> {
        Ok(Read::Tree(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Read, E> {
        Ok(Read::Tree(Value::from(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Read, E> {
        Ok(Read::Tree(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Read, E> {
        Ok(Read::Tree(Value::from(v)))
    }

    fn visit_unit<E>(self) -> Result<Read, E> {
        Ok(Read::Tree(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kqapro_array_is_read_as_the_tree_reader_reads_it() {
        let text = br#" [ 7, {"question": "Q?", "program": [{"function": "Find", "dependencies": [], "inputs": ["x"]}], "answer": "yes", "extra": 1},
            {"question": "R?", "choices": ["a"], "answer": 5} ] "#;
        let Read::Kqapro(streamed) = read(text).expect("reads") else {
            panic!("not read as KQA Pro")
        };
        let Value::Array(items) = serde_json::from_slice(text).expect("json") else {
            panic!("not an array")
        };
        assert_eq!(*streamed, kqapro::parse_dataset(items));
        assert_eq!(streamed.questions.len(), 2);
        assert_eq!(streamed.questions[1].id.0, "2");
        assert_eq!(streamed.unknown_keys.len(), 1);
    }

    #[test]
    fn other_documents_are_trees_with_the_same_errors() {
        for text in [
            &br#"{"questions": []}"#[..],
            br#"[{"_id": 1}]"#,
            b"[]",
            b"[1, 2]",
            b"3",
            b"null",
        ] {
            let Read::Tree(tree) = read(text).expect("reads") else {
                panic!("streamed {}", String::from_utf8_lossy(text))
            };
            assert_eq!(tree, serde_json::from_slice::<Value>(text).expect("json"));
        }
        for text in [
            &b"[{\"question\": \"Q?\", \"choices\": [],\n }]"[..],
            b"[1,,]",
            b"{} x",
            b"[{\"a\": 1}",
        ] {
            let ours = read(text).err().expect("an error").to_string();
            let theirs = serde_json::from_slice::<Value>(text)
                .expect_err("an error")
                .to_string();
            assert_eq!(ours, theirs);
        }
    }
}
