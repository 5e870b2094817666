//! YAML read within bounds (docs/scoring.md, Limits): the one module that
//! names the YAML crate. Before the parser sees the text its nesting is
//! estimated from the text alone ([`yaml_nesting`]); while the tree is built,
//! every node and every scalar byte is counted, aliases (`*name`) included as
//! the parser expands them, against a budget that is a small multiple of the
//! text's own bytes ([`expansion_limit`]). A "billion laughs" file — a few
//! anchors repeated through nested aliases — is refused at the node where its
//! expansion passes the budget, with that node's line and column, before the
//! tree takes more memory than a small multiple of the file.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
pub use serde_yaml_ng::Value as Yaml;
use serde_yaml_ng::{Mapping, Number};

/// The deepest YAML nesting read, as [`yaml_nesting`] estimates it: a
/// TEXT2SPARQL benchmark nests some 5 levels; the YAML parser's time grows
/// faster than linearly with nesting (110 000 levels took 48 s).
pub const MAX_YAML_NESTING: usize = 256;

use super::expansion::{expansion_limit, EXPANSION_FACTOR, EXPANSION_SLACK};

/// Why YAML text was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The line (1-based) where the reading stopped.
    pub line: usize,
    /// The column (1-based).
    pub column: usize,
    /// What went wrong, without the place.
    pub message: String,
}

/// An upper bound of the nesting of YAML text, read from the text alone: per
/// line, its indentation in columns, its leading `- ` entries (a compact
/// sequence nests one level per dash) and the flow brackets (`[`, `{`) open
/// so far. Inside quotes and comments an opening bracket counts and a closing
/// one never takes the count below where the span began, so no text is rated
/// shallower than it is.
pub fn yaml_nesting(body: &[u8]) -> usize {
    let (mut max, mut flow) = (0usize, 0usize);
    // a quote may run over lines; a comment ends with its line
    let (mut quote, mut floor) = (None::<u8>, 0usize);
    for line in body.split(|&b| b == b'\n') {
        if quote == Some(b'\n') {
            quote = None;
        }
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        let mut rest = &line[indent..];
        let mut dashes = 0;
        while rest.first() == Some(&b'-') && matches!(rest.get(1), None | Some(b' ')) {
            dashes += 1;
            rest = &rest[1..];
            rest = &rest[rest.iter().take_while(|&&b| b == b' ').count()..];
        }
        for &c in rest {
            match (quote, c) {
                (None, b'"' | b'\'' | b'#') => {
                    quote = Some(if c == b'#' { b'\n' } else { c });
                    floor = flow;
                }
                (Some(q), _) if c == q => quote = None,
                (_, b'[' | b'{') => flow += 1,
                (None, b']' | b'}') => flow = flow.saturating_sub(1),
                (Some(_), b']' | b'}') if flow > floor => flow -= 1,
                _ => {}
            }
            max = max.max(indent + dashes + flow);
        }
        max = max.max(indent + dashes + flow);
    }
    max
}

/// Reads one YAML document into a tree, within [`MAX_YAML_NESTING`] and
/// [`expansion_limit`] of the text's bytes.
pub fn load(body: &[u8]) -> Result<Yaml, YamlError> {
    let nesting = yaml_nesting(body);
    if nesting > MAX_YAML_NESTING {
        return Err(YamlError {
            line: 1,
            column: 1,
            message: format!(
                "the yaml nests about {nesting} levels (indentation, `- ` entries and brackets), more than the {MAX_YAML_NESTING} read; a TEXT2SPARQL benchmark nests a few levels: fix the file"
            ),
        });
    }
    let budget = Budget {
        left: Cell::new(expansion_limit(body.len())),
        limit: expansion_limit(body.len()),
        input: body.len(),
    };
    let de = serde_yaml_ng::Deserializer::from_slice(body);
    Node(&budget).deserialize(de).map_err(|e| {
        let message = strip_place(&e.to_string()).to_string();
        // the crate places an error of the tree's own at no node: the
        // top-level key of its path (`questions[1200]`) is found in the text
        let (line, column) = match message.split_once(EXPANDS) {
            Some((path, _)) => top_key_place(body, path.trim_end_matches([':', ' '])),
            None => e.location().map_or((1, 1), |l| (l.line(), l.column())),
        };
        YamlError {
            line,
            column,
            message: format!("invalid yaml: {message}"),
        }
    })
}

/// The start of the budget's error message.
const EXPANDS: &str = "its aliases (*name) expand to more than";

/// The line and column of the top-level key a tree path starts with
/// (`questions` of `questions[3].id`), else the text's start.
fn top_key_place(body: &[u8], path: &str) -> (usize, usize) {
    let key = path
        .split(['[', '.'])
        .next()
        .filter(|k| !k.is_empty() && *k != ".");
    let Some(key) = key else { return (1, 1) };
    let wanted = format!("{key}:");
    body.split(|&b| b == b'\n')
        .position(|line| line.starts_with(wanted.as_bytes()))
        .map_or((1, 1), |i| (i + 1, 1))
}

/// An error's text without the place the crate appends (` at line L column C`).
fn strip_place(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

/// The bytes a tree may still take.
struct Budget {
    left: Cell<usize>,
    limit: usize,
    input: usize,
}

impl Budget {
    /// Takes `n` bytes, or says that the text expands past its limit.
    fn take<E: de::Error>(&self, n: usize) -> Result<(), E> {
        match self.left.get().checked_sub(n) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(E::custom(format_args!(
                "{EXPANDS} {} bytes, {EXPANSION_FACTOR} times the text's {} bytes and {EXPANSION_SLACK} more, which is read at most (docs/scoring.md, Limits); write the repeated parts out, or fix the file",
                self.limit, self.input
            ))),
        }
    }
}

/// One node of the tree, built as the parser gives it and counted.
#[derive(Clone, Copy)]
struct Node<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Yaml;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Yaml, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Yaml;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(Number::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(Number::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Number(Number::from(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Yaml, E> {
        self.0.take(v.len().saturating_add(1))?;
        Ok(Yaml::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Yaml, E> {
        self.0.take(v.len().saturating_add(1))?;
        Ok(Yaml::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Yaml, E> {
        self.0.take(1)?;
        Ok(Yaml::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Yaml, E> {
        self.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Yaml, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Yaml, A::Error> {
        self.0.take(1)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Yaml::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Yaml, A::Error> {
        self.0.take(1)?;
        let mut out = Mapping::new();
        while let Some(key) = map.next_key_seed(self)? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate entry with key {}",
                    describe(&key)
                )));
            }
            let value = map.next_value_seed(self)?;
            out.insert(key, value);
        }
        Ok(Yaml::Mapping(out))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Yaml, A::Error> {
        // a tagged node (`!name value`): its tag and its value
        let (tag, variant) = data.variant::<String>()?;
        self.0.take(tag.len().saturating_add(1))?;
        let value = de::VariantAccess::newtype_variant_seed(variant, self)?;
        Ok(Yaml::Tagged(Box::new(serde_yaml_ng::value::TaggedValue {
            tag: serde_yaml_ng::value::Tag::new(tag),
            value,
        })))
    }
}

/// A key as an error names it.
fn describe(key: &Yaml) -> String {
    match key {
        Yaml::String(s) => format!("{s:?}"),
        Yaml::Number(n) => n.to_string(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Null => "null".into(),
        _ => "of a mapping or sequence".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_yaml_reads_as_the_crate_reads_it() {
        let text = b"dataset:\n  id: x\nquestions:\n  - id: 1\n    question: {en: \"Who?\", de: Wer}\n    features: [a, b]\n    n: 3\n    f: 1.5\n    t: true\n    z: ~\n";
        let ours = load(text).expect("read");
        let theirs: Yaml = serde_yaml_ng::from_slice(text).expect("read");
        assert_eq!(ours, theirs);
    }

    #[test]
    fn a_few_aliases_are_read_and_a_billion_laughs_is_refused_at_its_place() {
        let few = b"a: &x [1, 2, 3]\nb: *x\nc: *x\n";
        let ours = load(few).expect("read");
        assert_eq!(ours, serde_yaml_ng::from_slice::<Yaml>(few).expect("read"));
        // ten levels of ten aliases: 10^10 copies of one scalar
        let mut text = String::from("l0: &l0 \"0123456789\"\n");
        for i in 1..10 {
            let row = vec![format!("*l{}", i - 1); 10].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{row}]\n"));
        }
        text.push_str("questions: [*l9]\n");
        let e = load(text.as_bytes()).expect_err("refused");
        assert!(e.message.contains("expand to more than"), "{e:?}");
        // at the key whose value passed the budget, named by its path too
        assert!(e.message.contains("l4[4]"), "{e:?}");
        assert_eq!((e.line, e.column), (5, 1), "{e:?}");
        assert!(
            e.message.contains(&format!("{} bytes", text.len())),
            "{e:?}"
        );
    }

    #[test]
    fn duplicate_keys_and_tags_are_read_as_the_crate_reads_them() {
        let e = load(b"a: 1\na: 2\n").expect_err("duplicate");
        assert!(e.message.contains("duplicate entry"), "{e:?}");
        let tagged = b"a: !thing 3\n";
        assert_eq!(
            load(tagged).expect("read"),
            serde_yaml_ng::from_slice::<Yaml>(tagged).expect("read")
        );
    }
}
