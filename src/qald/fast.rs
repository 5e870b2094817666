//! The fast path for well-formed QALD-JSON: answer objects are deserialized
//! straight into borrowed structs instead of a `serde_json::Value` tree (most of a
//! run file is its bindings). Anything this path does not expect (a non-string
//! binding value of another shape, `results` that is not an object, a single
//! answer object, a key repeated in a binding row or at the top level …) makes
//! it give up, and the tolerant `Value` path reads the file
//! instead, with the same result.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A QALD-JSON file read by the fast path.
pub struct FastFile<'a> {
    /// The top-level `dataset` object.
    pub dataset: Option<Value>,
    /// The questions.
    pub questions: Vec<FastQuestion<'a>>,
    /// Other top-level keys, in file order.
    pub other_keys: Vec<String>,
}

/// One question: its fields as values, and its answers read fast.
pub struct FastQuestion<'a> {
    /// Every field but `answers`.
    pub fields: Map<String, Value>,
    /// The `answers` array, when present.
    pub answers: Option<Vec<FastAnswer<'a>>>,
}

/// One answer object. Any other key sends the file to the tolerant path, which
/// reads and counts it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastAnswer<'a> {
    /// `head`.
    pub head: Option<Value>,
    /// `results`.
    #[serde(borrow)]
    pub results: Option<FastResults<'a>>,
    /// `boolean`.
    pub boolean: Option<Value>,
    /// QALD-5's `string`.
    pub string: Option<Value>,
}

/// The `results` object.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastResults<'a> {
    /// `bindings`.
    #[serde(borrow)]
    pub bindings: Option<Vec<FastRow<'a>>>,
    /// The old draft's `ordered` flag (see `keys::IGNORED`).
    #[serde(default, rename = "ordered")]
    _ordered: Option<IgnoredAny>,
    /// The old draft's `distinct` flag (see `keys::IGNORED`).
    #[serde(default, rename = "distinct")]
    _distinct: Option<IgnoredAny>,
}

/// One binding row, in file order.
pub struct FastRow<'a>(pub Vec<(FastScalar<'a>, FastBinding<'a>)>);

/// One binding.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FastBinding<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)]
    pub kind: Option<FastScalar<'a>>,
    /// `value`.
    #[serde(borrow)]
    pub value: Option<FastScalar<'a>>,
    /// `datatype`.
    #[serde(borrow)]
    pub datatype: Option<FastScalar<'a>>,
    /// `xml:lang`.
    #[serde(rename = "xml:lang", borrow)]
    pub xml_lang: Option<FastScalar<'a>>,
    /// `lang`.
    #[serde(borrow)]
    pub lang: Option<FastScalar<'a>>,
}

/// A binding value or key: text (borrowed from the file when it has no escapes),
/// or a JSON number or boolean turned into text.
pub struct FastScalar<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for FastScalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastScalar<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(
                    serde_json::Number::from_f64(v)
                        .map_or_else(|| v.to_string(), |n| n.to_string()),
                )))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(FastScalar(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for FastRow<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastRow<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a binding row object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut row = Vec::with_capacity(map.size_hint().unwrap_or(1));
                let mut keys = Keys::default();
                while let Some(key) = map.next_key::<FastScalar<'a>>()? {
                    // a repeated key: the tolerant path keeps its last value
                    if !keys.insert(key.0.clone()) {
                        return Err(de::Error::custom("repeated binding key"));
                    }
                    let binding = map.next_value::<FastBinding<'a>>()?;
                    row.push((key, binding));
                }
                Ok(FastRow(row))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for FastQuestion<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastQuestion<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a question object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Map::new();
                let mut answers = None;
                while let Some(FastScalar(key)) = map.next_key::<FastScalar<'a>>()? {
                    if key == "answers" {
                        if answers.is_some() {
                            return Err(de::Error::duplicate_field("answers"));
                        }
                        answers = Some(map.next_value::<Vec<FastAnswer<'a>>>()?);
                    } else {
                        let value = map.next_value::<Value>()?;
                        fields.insert(key.into_owned(), value);
                    }
                }
                Ok(FastQuestion { fields, answers })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for FastFile<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = FastFile<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a QALD-JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut dataset = None;
                let mut questions = None;
                let mut other_keys = Vec::new();
                let mut seen = Keys::default();
                while let Some(FastScalar(key)) = map.next_key::<FastScalar<'a>>()? {
                    // a repeated top-level key: the tolerant path keeps its last value
                    // and counts the key once
                    if !seen.insert(key.clone()) {
                        return Err(de::Error::custom("repeated top-level key"));
                    }
                    match key.as_ref() {
                        "dataset" => dataset = Some(map.next_value::<Value>()?),
                        "questions" => questions = Some(map.next_value::<Questions<'a>>()?.0),
                        other => {
                            other_keys.push(other.to_string());
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let questions = questions.ok_or_else(|| de::Error::missing_field("questions"))?;
                Ok(FastFile {
                    dataset,
                    questions,
                    other_keys,
                })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// The keys met so far in one JSON object, to tell a repeated key: the first
/// few compared one by one, the rest in a hash set, so an object of many keys
/// (a Mintaka prediction file has one per question) is read in linear time.
#[derive(Default)]
struct Keys<'a> {
    few: Vec<Cow<'a, str>>,
    many: HashSet<Cow<'a, str>>,
}

impl<'a> Keys<'a> {
    /// Up to this many keys are compared one by one.
    const FEW: usize = 16;

    /// Records `key`; false when it was met before.
    fn insert(&mut self, key: Cow<'a, str>) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&key) {
                return false;
            }
            self.few.push(key);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().cloned());
        }
        self.many.insert(key)
    }
}

struct Questions<'a>(Vec<FastQuestion<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Questions<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Questions<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of question objects")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(16));
                while let Some(q) = seq.next_element::<FastQuestion<'a>>()? {
                    out.push(q);
                }
                Ok(Questions(out))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

/// Reads a QALD-JSON file the fast way, or `None` when it is not of the expected
/// shape (the caller then uses the tolerant path, which also reports syntax errors).
/// The bytes are checked to be UTF-8 first: `serde_json` skips the values this
/// path ignores (an unknown top-level key) without checking their strings.
pub fn parse(bytes: &[u8]) -> Option<FastFile<'_>> {
    serde_json::from_str(std::str::from_utf8(bytes).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_repeats_before_and_past_the_few() {
        let mut keys = Keys::default();
        let names: Vec<Cow<'_, str>> = (0..100).map(|i| Cow::Owned(format!("k{i}"))).collect();
        assert!(names.iter().all(|k| keys.insert(k.clone())));
        assert!(names.iter().all(|k| !keys.insert(k.clone())));
    }

    #[test]
    fn a_repeated_key_far_into_an_object_leaves_the_fast_path() {
        let mut fields: Vec<String> = (0..40).map(|i| format!("\"x{i}\": {i}")).collect();
        fields.push("\"questions\": []".into());
        let once = format!("{{{}}}", fields.join(", "));
        assert!(parse(once.as_bytes()).is_some());
        fields.push("\"x30\": 0".into());
        let twice = format!("{{{}}}", fields.join(", "));
        assert!(parse(twice.as_bytes()).is_none());
        let row: Vec<String> = (0..40)
            .map(|i| format!("\"v{i}\": {{\"type\": \"literal\", \"value\": \"1\"}}"))
            .collect();
        let question = |row: &str| {
            format!(
                r#"{{"questions": [{{"id": "1", "answers": [{{"head": {{"vars": ["v0"]}}, "results": {{"bindings": [{{{row}}}]}}}}]}}]}}"#
            )
        };
        assert!(parse(question(&row.join(", ")).as_bytes()).is_some());
        let repeated = format!(
            "{}, \"v20\": {{\"type\": \"literal\", \"value\": \"2\"}}",
            row.join(", ")
        );
        assert!(parse(question(&repeated).as_bytes()).is_none());
    }
}
