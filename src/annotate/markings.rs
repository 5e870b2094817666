//! Markings of one question for the sub-experiments (docs/scoring.md, Sub-experiments): resources for
//! C2KB, properties for P2KB, normalised triples for RE2KB, the answer type for AT
//! and the answer item types for AIT2KB. Explicit annotations take precedence over
//! the query; `None` means the question has no usable source for that experiment.

use serde::Serialize;

use crate::matching::{term_marking, MatchOptions};
use crate::model::{Answer, Question, Term};
use crate::query::{Node, Walked};
use crate::terms::canonical::canonical_iri;
use crate::terms::literal::{is_date_datatype, is_numeric_datatype, parse_number};
use crate::terms::prefixes;

/// The five answer types of AT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AnswerType {
    /// IRIs.
    Resource,
    /// Strings.
    String,
    /// Numbers.
    Number,
    /// Dates.
    Date,
    /// Booleans.
    Boolean,
}

impl AnswerType {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            AnswerType::Resource => "resource",
            AnswerType::String => "string",
            AnswerType::Number => "number",
            AnswerType::Date => "date",
            AnswerType::Boolean => "boolean",
        }
    }

    /// Reads a declared answer type in any case, with its aliases (`uri`, `list`,
    /// eQALD's `ListOfResource` → resource; `literal`, `text` → string).
    pub fn parse(declared: &str) -> Option<AnswerType> {
        match declared.trim().to_ascii_lowercase().as_str() {
            "resource" | "uri" | "list" | "resources" | "listofresource" | "listofresources" => {
                Some(AnswerType::Resource)
            }
            "string" | "literal" | "text" => Some(AnswerType::String),
            "number" | "numeric" | "count" => Some(AnswerType::Number),
            "date" => Some(AnswerType::Date),
            "boolean" | "bool" => Some(AnswerType::Boolean),
            _ => None,
        }
    }

    /// The type of one answer term.
    pub fn of_term(term: &Term) -> AnswerType {
        match term {
            Term::Boolean(_) => AnswerType::Boolean,
            Term::Iri(_) => AnswerType::Resource,
            Term::Literal {
                lexical, datatype, ..
            } => match datatype.as_deref() {
                Some(dt) if is_numeric_datatype(dt) => AnswerType::Number,
                Some(dt) if is_date_datatype(dt) => AnswerType::Date,
                Some(dt) if dt.ends_with("#boolean") => AnswerType::Boolean,
                _ if parse_number(lexical).is_some() => AnswerType::Number,
                _ if crate::terms::literal::parse_date(lexical).is_some() => AnswerType::Date,
                _ => AnswerType::String,
            },
        }
    }
}

/// The answer type of a question and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct AnswerTypeMark {
    /// The type.
    #[serde(rename = "type")]
    pub value: AnswerType,
    /// True when the file declared it; false when it was inferred.
    pub declared: bool,
}

/// The markings of one question; `None` where there is no usable source.
#[derive(Debug, Clone, PartialEq, Default, Serialize, utoipa::ToSchema)]
pub struct Markings {
    /// C2KB: entities and classes.
    pub resources: Option<Vec<String>>,
    /// The classes among the resources (C2KB split into entities and classes).
    pub classes: Option<Vec<String>>,
    /// P2KB: properties.
    pub properties: Option<Vec<String>>,
    /// RE2KB: normalised triples (`<s> <p> ?`, variables as `?`).
    pub triples: Option<Vec<String>>,
    /// The same triples as their three node markings (`<iri>`, a literal's value,
    /// `?`, `path(…)`), so that evaluation can put IRIs through an index.
    #[serde(skip)]
    #[schema(ignore)]
    pub triple_nodes: Option<Vec<[String; 3]>>,
    /// AT: the answer type.
    pub answer_type: Option<AnswerTypeMark>,
    /// AIT2KB: the classes of the answer resources.
    pub item_types: Option<Vec<String>>,
}

/// Infers the answer type from the answers (the first answer decides) or, with no
/// answers, from the query (ASK → boolean, COUNT → number).
pub fn infer_answer_type(answers: &[Answer], walked: Option<&Walked>) -> Option<AnswerType> {
    if let Some(term) = answers.first().and_then(|a| a.terms.first()) {
        return Some(AnswerType::of_term(term));
    }
    let w = walked?;
    if w.modifiers.contains("ASK") {
        Some(AnswerType::Boolean)
    } else if w.counts {
        Some(AnswerType::Number)
    } else {
        None
    }
}

fn node_marking(node: &Node, opts: MatchOptions) -> String {
    match node {
        Node::Iri(i) => format!("<{}>", canonical_iri(i)),
        Node::Literal(t) => term_marking(t, opts),
        Node::Var(_) => "?".to_string(),
        Node::Path(p) => format!("path({p})"),
    }
}

/// The node markings of triple patterns.
fn triple_nodes(triples: &[(Node, Node, Node)], opts: MatchOptions) -> Vec<[String; 3]> {
    triples
        .iter()
        .map(|(s, p, o)| {
            [
                node_marking(s, opts),
                node_marking(p, opts),
                node_marking(o, opts),
            ]
        })
        .collect()
}

/// One triple marking from its node markings.
pub fn join_triple(nodes: &[String; 3]) -> String {
    nodes.join(" ")
}

/// The normalised triples of a walked query.
pub fn triples(walked: &Walked, opts: MatchOptions) -> Vec<String> {
    triple_nodes(&walked.triples, opts)
        .iter()
        .map(join_triple)
        .collect()
}

/// The markings of the `gerbil` profile: explicit annotations when the file has
/// them, else the GERBIL-style walk of the query (duplicates kept, `rdf:type` a
/// property), the answer type as in [`markings`], and no answer item types.
pub fn gerbil_markings(q: &Question, walked: Option<&Walked>, opts: MatchOptions) -> Markings {
    let judge = markings(q, walked, opts);
    let g = walked.map(|w| &w.gerbil);
    Markings {
        resources: if explicit_resources(q) {
            judge.resources
        } else {
            g.map(|g| g.resources.clone())
        },
        classes: judge.classes,
        properties: if q.properties.is_empty() {
            g.map(|g| g.properties.clone())
        } else {
            judge.properties
        },
        triples: g.map(|g| {
            triple_nodes(&g.triples, opts)
                .iter()
                .map(join_triple)
                .collect()
        }),
        triple_nodes: g.map(|g| triple_nodes(&g.triples, opts)),
        answer_type: judge.answer_type,
        item_types: None,
    }
}

/// True when the file declares the question's resources (entity or class annotations).
fn explicit_resources(q: &Question) -> bool {
    !q.entities.is_empty() || !q.classes.is_empty()
}

/// True when the file declares any marking for the question (annotations of any
/// kind, triples): what it does not declare is then empty, not derived.
fn annotated(q: &Question) -> bool {
    explicit_resources(q) || !q.properties.is_empty() || !q.triples.is_empty()
}

/// One node of a declared triple: `?x` / `$x` / `_:b` a variable, an IRI (in
/// angle brackets, absolute, or a prefixed name with a known prefix), else a
/// literal.
fn declared_node(text: &str) -> Node {
    let t = text.trim();
    if t.starts_with('?') || t.starts_with('$') || t.starts_with("_:") {
        return Node::Var(t.to_string());
    }
    if let Some(iri) = t.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
        return Node::Iri(iri.to_string());
    }
    let expanded = prefixes::expand(t);
    if crate::model::looks_like_iri(&expanded) {
        Node::Iri(expanded)
    } else {
        Node::Literal(Term::plain(t))
    }
}

/// Computes the markings of a question from its annotations, its parsed query (if
/// any) and its answers.
pub fn markings(q: &Question, walked: Option<&Walked>, opts: MatchOptions) -> Markings {
    let expand =
        |list: &[String]| -> Vec<String> { list.iter().map(|e| prefixes::expand(e)).collect() };
    // a question with annotations of some kind and no query has empty markings of
    // the other kinds (a component run that found nothing)
    let none_declared = (walked.is_none() && annotated(q)).then(Vec::new);
    let (resources, classes) = if explicit_resources(q) {
        let mut all = expand(&q.entities);
        all.extend(expand(&q.classes));
        (Some(all), Some(expand(&q.classes)))
    } else {
        (
            walked
                .map(|w| w.resources.clone())
                .or(none_declared.clone()),
            walked.map(|w| w.classes.clone()).or(none_declared.clone()),
        )
    };
    let properties = if !q.properties.is_empty() {
        Some(expand(&q.properties))
    } else {
        walked
            .map(|w| w.properties.clone())
            .or(none_declared.clone())
    };
    let nodes = if q.triples.is_empty() {
        walked
            .map(|w| triple_nodes(&w.triples, opts))
            .or(none_declared.map(|_| Vec::new()))
    } else {
        let declared: Vec<(Node, Node, Node)> = q
            .triples
            .iter()
            .map(|[s, p, o]| (declared_node(s), declared_node(p), declared_node(o)))
            .collect();
        Some(triple_nodes(&declared, opts))
    };
    let triples = nodes.as_ref().map(|n| n.iter().map(join_triple).collect());
    let declared = q.answertype.as_deref().and_then(AnswerType::parse);
    let answer_type = match declared {
        Some(value) => Some(AnswerTypeMark {
            value,
            declared: true,
        }),
        None => infer_answer_type(q.answers.as_ref().map_or(&[][..], |a| &a.answers), walked).map(
            |value| AnswerTypeMark {
                value,
                declared: false,
            },
        ),
    };
    let literal_answers = answer_type.is_some_and(|t| t.value != AnswerType::Resource);
    // declared; else the classes the query asserts on a projected variable; empty
    // when the answers are literals; else no usable source (an index holding types
    // is the next source, when one is loaded)
    let query_classes = walked.map(|w| {
        let projected: std::collections::HashSet<&String> = w.projected.iter().collect();
        let mut classes: Vec<String> = w
            .typed_vars
            .iter()
            .filter(|(v, _)| projected.contains(v))
            .map(|(_, c)| c.clone())
            .collect();
        classes.sort();
        classes.dedup();
        classes
    });
    let item_types = if !q.item_types.is_empty() {
        Some(q.item_types.iter().map(|t| prefixes::expand(t)).collect())
    } else if literal_answers {
        Some(Vec::new())
    } else {
        query_classes.filter(|c| !c.is_empty())
    };
    Markings {
        resources,
        classes,
        properties,
        triples,
        triple_nodes: nodes,
        answer_type,
        item_types,
    }
}
