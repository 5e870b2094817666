//! Gold and run questions prepared once per evaluation: the answers as the
//! profile scores them, the markings of every wanted sub-experiment turned into
//! matchable sets, and the question's features and annotation notes.

use std::borrow::Cow;

use super::{Experiment, PerExperiment, Profile, Rules};
use crate::annotate::markings::join_triple;
use crate::annotate::{Annotation, Features, Markings};
use crate::matching::{prepare_markings, MatchOptions, Prepared, Resolver, Side};
use crate::model::{Answer, Question, Term};
use crate::terms::prefixes::Namespaces;

/// The prepared sets of one question, per experiment (`None`: no usable source).
pub(super) type Sets = PerExperiment<Option<Vec<Prepared>>>;

/// The markings of one question as explanations print them, per experiment, by
/// index (IRIs as IRIs, prefixed where the gold declares the prefix).
pub(super) type Texts = PerExperiment<Vec<String>>;

/// The QA answers of one question as the profile scores them.
pub(super) type Scored<'a> = Option<Cow<'a, [Answer]>>;

/// Everything one evaluation shares: rules, profile, index lookups.
pub(super) struct Ctx<'r, 'i> {
    pub(super) profile: Profile,
    pub(super) resolver: &'r Resolver<'i>,
    pub(super) wanted: PerExperiment<bool>,
    pub(super) annotate: bool,
    /// The prefixes the gold's queries declare, as (prefix, namespace).
    pub(super) prefixes: Namespaces,
}

impl Ctx<'_, '_> {
    pub(super) fn opts(&self) -> MatchOptions {
        self.resolver.options()
    }

    /// Writes a marking node (`<iri>`, a literal, `?`) as explanations print it.
    fn node_text(&self, node: &str) -> String {
        match node.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
            Some(iri) => self.prefixes.compact(iri),
            None => node.to_string(),
        }
    }

    /// Prepares the marking sets of one question for the chosen experiments, and
    /// their texts for explanations.
    pub(super) fn sets(
        &self,
        q: &Question,
        qa: Option<&[Answer]>,
        annotation: Option<&Annotation>,
        side: Side,
        other_has_iris: bool,
    ) -> (Sets, Texts) {
        let r = self.resolver;
        let keep_duplicates = self.profile.keep_duplicate_markings();
        let mut texts: Texts = Default::default();
        let mut iris = |e: Experiment, list: Option<Vec<String>>| {
            list.map(|l| {
                texts[e] = l.iter().map(|i| self.prefixes.compact(i)).collect();
                let answers: Vec<Answer> = l
                    .into_iter()
                    .map(|i| Answer::single(Term::Iri(i)))
                    .collect();
                if keep_duplicates {
                    r.prepare_list(&answers, side)
                } else {
                    r.prepare(&answers, side, true)
                }
            })
        };
        let mut out: Sets = Default::default();
        if self.wanted[Experiment::Qa] {
            out[Experiment::Qa] = qa.map(|a| r.prepare(a, side, other_has_iris));
        }
        let Some(m) = annotation.map(|a| &a.markings) else {
            return (out, texts);
        };
        if self.wanted[Experiment::C2kb] {
            out[Experiment::C2kb] = iris(Experiment::C2kb, m.resources.clone());
        }
        if self.wanted[Experiment::C2kbEntities] {
            let entities = m.resources.as_ref().map(|all| {
                let classes: std::collections::HashSet<&String> =
                    m.classes.iter().flatten().collect();
                all.iter()
                    .filter(|i| !classes.contains(i))
                    .cloned()
                    .collect()
            });
            out[Experiment::C2kbEntities] = iris(Experiment::C2kbEntities, entities);
        }
        if self.wanted[Experiment::C2kbClasses] {
            let classes = m.classes.clone().filter(|_| m.resources.is_some());
            out[Experiment::C2kbClasses] = iris(Experiment::C2kbClasses, classes);
        }
        if self.wanted[Experiment::P2kb] {
            out[Experiment::P2kb] = iris(Experiment::P2kb, m.properties.clone());
        }
        if self.wanted[Experiment::Ait2kb] {
            let types = m.item_types.clone().or_else(|| self.index_types(q));
            out[Experiment::Ait2kb] = iris(Experiment::Ait2kb, types);
        }
        if self.wanted[Experiment::Re2kb] {
            out[Experiment::Re2kb] = self.triple_set(m, keep_duplicates, &mut texts);
        }
        if self.wanted[Experiment::At] {
            out[Experiment::At] = m.answer_type.map(|t| {
                texts[Experiment::At] = vec![t.value.name().to_string()];
                r.prepare(&[Answer::single(Term::plain(t.value.name()))], side, false)
            });
        }
        (out, texts)
    }

    /// RE2KB's set of a question's marked triples (their texts into
    /// `texts`): with an index, each IRI inside a triple replaced by its
    /// sameAs class, so that triples compare through the classes too.
    fn triple_set(
        &self,
        m: &Markings,
        keep_duplicates: bool,
        texts: &mut Texts,
    ) -> Option<Vec<Prepared>> {
        let r = self.resolver;
        if let Some(nodes) = &m.triple_nodes {
            texts[Experiment::Re2kb] = nodes
                .iter()
                .map(|n| {
                    n.iter()
                        .map(|x| self.node_text(x))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
        }
        match (&m.triple_nodes, r.has_index()) {
            // IRIs inside triples compare through the index's classes too
            (Some(nodes), true) => {
                let triples: Vec<String> = nodes
                    .iter()
                    .map(|n| {
                        let n = n.clone().map(|node| {
                            match node
                                .strip_prefix('<')
                                .and_then(|x| x.strip_suffix('>'))
                                .and_then(|iri| r.class(iri))
                            {
                                Some(c) => format!("<sameas:{}>", c.id),
                                None => node,
                            }
                        });
                        join_triple(&n)
                    })
                    .collect();
                Some(prepare_markings(&triples, keep_duplicates))
            }
            _ => m
                .triples
                .as_ref()
                .map(|t| prepare_markings(t, keep_duplicates)),
        }
    }

    /// AIT2KB's last source: the types the index gives every answer resource.
    pub(super) fn index_types(&self, q: &Question) -> Option<Vec<String>> {
        if !self.resolver.has_types() {
            return None;
        }
        let answers = &q.answers.as_ref()?.answers;
        let mut shared: Option<Vec<String>> = None;
        for a in answers {
            let iri = a.terms.iter().find_map(|t| match t {
                Term::Iri(i) => Some(i),
                _ => None,
            })?;
            let types = self.resolver.types(iri);
            shared = Some(match shared {
                None => types,
                Some(s) => s.into_iter().filter(|t| types.contains(t)).collect(),
            });
        }
        shared
    }
}

/// A gold question prepared once for all runs.
pub(super) struct GoldEntry<'a> {
    pub(super) question: &'a Question,
    pub(super) qa: Scored<'a>,
    pub(super) sets: &'a Sets,
    pub(super) texts: &'a Texts,
    pub(super) features: &'a Features,
    pub(super) notes: &'a [String],
    pub(super) has_iri: bool,
    pub(super) has_literal: bool,
    /// True when the answer order is scored (docs/scoring.md, Executing SPARQL).
    pub(super) ordered: bool,
    /// True when the gold is ordered for the graded order measures, under
    /// every profile (docs/scoring.md, Graded order).
    pub(super) graded_order: bool,
}

/// A gold question prepared once for many evaluations: a [`GoldEntry`] that
/// owns its answers and names its question by position.
pub(super) struct StoredEntry {
    /// The position of its question in the benchmark.
    pub(super) question: usize,
    pub(super) qa: Option<Vec<Answer>>,
    pub(super) sets: Sets,
    pub(super) texts: Texts,
    pub(super) features: Features,
    pub(super) notes: Vec<String>,
    pub(super) has_iri: bool,
    pub(super) has_literal: bool,
    pub(super) ordered: bool,
    pub(super) graded_order: bool,
}

impl StoredEntry {
    /// The entry of one evaluation, for its question: a view that borrows
    /// the prepared sets, texts, features and notes (nothing is copied).
    pub(super) fn view<'a>(&'a self, question: &'a Question) -> GoldEntry<'a> {
        GoldEntry {
            question,
            qa: self.qa.as_deref().map(Cow::Borrowed),
            sets: &self.sets,
            texts: &self.texts,
            features: &self.features,
            notes: &self.notes,
            has_iri: self.has_iri,
            has_literal: self.has_literal,
            ordered: self.ordered,
            graded_order: self.graded_order,
        }
    }
}

/// A run question prepared once for all experiments.
pub(super) struct RunEntry<'a> {
    pub(super) question: &'a Question,
    pub(super) qa: Scored<'a>,
    pub(super) sets: Sets,
    pub(super) texts: Texts,
    pub(super) notes: Vec<String>,
    /// The language the run answered the question in (`--by language`).
    pub(super) language: Option<String>,
    /// True when the run abstained (docs/scoring.md, Abstention and
    /// truthfulness): its QA answers are scored as none.
    pub(super) abstained: bool,
}
