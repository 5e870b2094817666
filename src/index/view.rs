//! A sameAs answer borrowed from the index ([`SameAsView`]): the IRI's
//! canonical form borrowed when the IRI is already canonical (as most are),
//! the member list borrowed from the mapped members file (or shared from the
//! list cache of a read index), each member decoded only as it is asked for.
//! A lookup that is written out at once (the server's JSON, a count) thus
//! allocates nothing per member; [`SameAsView::to_owned`] makes the owned
//! [`SameAs`] every other caller gets, so both are one path.

use std::borrow::Cow;

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::sameas::List;
use super::SameAs;

/// The equivalence class of one IRI, borrowed from the index it was looked
/// up in (serialised as [`SameAs`] is).
pub struct SameAsView<'a> {
    pub(super) iri: &'a str,
    pub(super) canonical: Cow<'a, str>,
    pub(super) class: Option<u32>,
    pub(super) class_size: usize,
    /// The class's member list; `None` for an IRI in no class (its only
    /// member is itself).
    pub(super) list: Option<List<'a>>,
    pub(super) limit: usize,
}

impl<'a> SameAsView<'a> {
    /// The IRI asked about.
    pub fn iri(&self) -> &str {
        self.iri
    }

    /// Its canonical form.
    pub fn canonical(&self) -> &str {
        &self.canonical
    }

    /// The class id, when the IRI is in a class of two or more.
    pub fn class(&self) -> Option<u32> {
        self.class
    }

    /// The number of IRIs in its class (1 for an IRI the index does not know).
    pub fn class_size(&self) -> usize {
        self.class_size
    }

    /// The members (as written, sorted), at most the limit asked for; an
    /// invalid UTF-8 sequence of a damaged file replaced, never an error.
    pub fn members(&self) -> impl Iterator<Item = Cow<'_, str>> {
        // checked whole at once (most lists are valid UTF-8), each member
        // replaced only when the list is not
        let listed = self
            .list
            .as_ref()
            .map(|l| match std::str::from_utf8(l.bytes()) {
                Ok(text) => Members::Valid(text.split('\n')),
                Err(_) => Members::Lossy(l.bytes().split(newline as fn(&u8) -> bool)),
            });
        let alone = self
            .list
            .is_none()
            .then_some(Cow::Borrowed(self.iri))
            .into_iter();
        listed.into_iter().flatten().chain(alone).take(self.limit)
    }

    /// The answer owned.
    pub fn to_owned(&self) -> SameAs {
        SameAs {
            iri: self.iri.to_string(),
            canonical: self.canonical.clone().into_owned(),
            class: self.class,
            class_size: self.class_size,
            members: self.members().map(Cow::into_owned).collect(),
        }
    }
}

impl Serialize for SameAsView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("SameAs", 5)?;
        s.serialize_field("iri", self.iri)?;
        s.serialize_field("canonical", &*self.canonical)?;
        s.serialize_field("class", &self.class)?;
        s.serialize_field("class_size", &self.class_size)?;
        s.serialize_field("members", &Walk(self))?;
        s.end()
    }
}

fn newline(b: &u8) -> bool {
    *b == b'\n'
}

/// The members of a list: split from its text, or each decoded with its
/// invalid bytes replaced.
enum Members<'l> {
    Valid(std::str::Split<'l, char>),
    Lossy(std::slice::Split<'l, u8, fn(&u8) -> bool>),
}

impl<'l> Iterator for Members<'l> {
    type Item = Cow<'l, str>;

    fn next(&mut self) -> Option<Cow<'l, str>> {
        match self {
            Members::Valid(s) => s.next().map(Cow::Borrowed),
            Members::Lossy(s) => s.next().map(String::from_utf8_lossy),
        }
    }
}

/// The members of a view, serialised as a sequence as they are decoded.
struct Walk<'v, 'a>(&'v SameAsView<'a>);

impl Serialize for Walk<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for m in self.0.members() {
            seq.serialize_element(&*m)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::format::decode_list;

    fn view<'a>(iri: &'a str, list: Option<&'a [u8]>, limit: usize) -> SameAsView<'a> {
        SameAsView {
            iri,
            canonical: Cow::Borrowed(iri),
            class: list.map(|_| 7),
            class_size: 3,
            list: list.map(List::Borrowed),
            limit,
        }
    }

    #[test]
    fn a_view_walks_the_members_as_the_owned_answer_lists_them() {
        let valid: &[u8] = b"http://a.org/x\nhttp://b.org/y\nhttp://c.org/z";
        // a damaged list: invalid UTF-8 in its second member
        let damaged: &[u8] = b"http://a.org/x\nhttp://b.org/\xff\xfe\nhttp://c.org/z";
        for list in [valid, damaged] {
            for limit in [0, 1, 2, 3, 10] {
                let v = view("http://a.org/x", Some(list), limit);
                let walked: Vec<String> = v.members().map(Cow::into_owned).collect();
                assert_eq!(walked, decode_list(list, limit), "{limit}");
                assert_eq!(v.to_owned().members, walked);
                // serialised as the owned answer is
                assert_eq!(
                    serde_json::to_value(&v).expect("json"),
                    serde_json::to_value(v.to_owned()).expect("json")
                );
            }
        }
        // an IRI in no class is its own only member
        let alone = view("http://a.org/x", None, 5);
        assert_eq!(alone.members().collect::<Vec<_>>(), ["http://a.org/x"]);
        assert_eq!(view("http://a.org/x", None, 0).members().count(), 0);
    }
}
