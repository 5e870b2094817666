//! The loop that array-of-objects formats without a QALD envelope share (LC-QuAD,
//! RuBQ, Spider4SPARQL …): a dataset of one format, one question per JSON object,
//! an item that is not an object a diagnostic, a question without its id named
//! by its position (or every question by its position, for files without ids).

use serde_json::{Map, Value};

use super::keys::KeyScan;
use super::values::id_of;
use crate::model::{Dataset, Format, Question, QuestionId};

/// Reads `items` into a dataset of `format`: each object's id is taken from
/// `id_key`, and `read` fills in the rest of its question (and scans the keys of
/// nested objects); top-level keys outside `known` are counted as unknown.
pub fn parse_items(
    items: Vec<Value>,
    format: Format,
    id_key: &str,
    known: &[&str],
    read: impl FnMut(&Map<String, Value>, &mut Question, &mut KeyScan),
) -> Dataset {
    let id = |o: &Map<String, Value>, i: usize, q: &mut Question| {
        id_of(o.get(id_key)).unwrap_or_else(|| {
            q.diagnostics
                .push(format!("question #{} has no `{id_key}`", i + 1));
            QuestionId(format!("#{}", i + 1))
        })
    };
    read_all(items, format, known, id, read)
}

/// Reads `items` as [`parse_items`] does, each question's id its position
/// from 0 (for files without ids whose runs are aligned by position).
pub fn parse_positional(
    items: Vec<Value>,
    format: Format,
    known: &[&str],
    read: impl FnMut(&Map<String, Value>, &mut Question, &mut KeyScan),
) -> Dataset {
    read_all(
        items,
        format,
        known,
        |_, i, _| QuestionId(i.to_string()),
        read,
    )
}

/// The loop of [`parse_items`] and [`parse_positional`]: `id` names the
/// question of the `i`-th item (from 0).
fn read_all(
    items: Vec<Value>,
    format: Format,
    known: &[&str],
    id: impl Fn(&Map<String, Value>, usize, &mut Question) -> QuestionId,
    mut read: impl FnMut(&Map<String, Value>, &mut Question, &mut KeyScan),
) -> Dataset {
    let mut scan = KeyScan::default();
    let mut dataset = Dataset::new(format);
    dataset.questions.reserve(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(o) = item else {
            dataset
                .diagnostics
                .push(format!("question #{} is not a json object; skipped", i + 1));
            continue;
        };
        let mut q = Question::default();
        q.id = id(&o, i, &mut q);
        scan.object(&o, "[]", known, &q.id.0);
        read(&o, &mut q, &mut scan);
        dataset.questions.push(q);
    }
    dataset.unknown_keys = scan.finish();
    dataset
}
