//! The annotator: turns a SPARQL query or a file's explicit annotations into the
//! markings that the sub-experiments score (docs/scoring.md, Sub-experiments) and the question features
//! that breakdowns split by (docs/scoring.md, Breakdowns). The query is read and walked by
//! `crate::query` (the parser, its bounds, Virtuoso's dialect, the walks);
//! this module turns what the walk saw into markings (`markings`) and features
//! (`features`).

pub mod features;
pub mod markings;

use serde::Serialize;

pub use features::{Features, FEATURES};
pub use markings::{AnswerType, AnswerTypeMark, Markings};

use crate::matching::MatchOptions;
use crate::model::{Query, Question};
use crate::query::{walk, SparqlError, Walked};

/// Everything the annotator says about one question.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Annotation {
    /// The question id.
    pub id: String,
    /// The markings for the sub-experiments.
    pub markings: Markings,
    /// The question's features.
    #[schema(value_type = std::collections::BTreeMap<String, Vec<String>>)]
    pub features: Features,
    /// The SPARQL modifiers found in the query (all of them, DISTINCT and ASK too).
    pub modifiers: Vec<String>,
    /// How the query was read, and why a marking is missing.
    pub diagnostics: Vec<String>,
    /// True when the query orders its solutions (ORDER BY anywhere in it:
    /// [`Walked::ordered`]); false when there is none or it was not read. Not
    /// in the answer: evaluation reads it so that it does not parse the query
    /// again.
    #[serde(skip)]
    #[schema(ignore)]
    pub ordered: bool,
}

/// Why no markings can be derived from a question's query; each message is
/// one diagnostic of the question.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionQueryError {
    /// The query is the placeholder some QALD files write instead of one.
    #[error("the query is OUT OF SCOPE: no markings can be derived from it")]
    OutOfScope,
    /// The query is past a bound qajudge reads (size, nesting, depth).
    #[error("{0}; no markings are derived from it")]
    TooLarge(SparqlError),
    /// The query does not parse, even as the endpoints read it.
    #[error("the query does not parse ({0}); fix it or give explicit annotations")]
    Unreadable(SparqlError),
    /// The query is a pseudo-query of a hybrid question.
    #[error("the query is a pseudo-query (hybrid question): no markings can be derived from it")]
    Pseudo,
}

/// True for the placeholder some QALD files write instead of a query.
fn out_of_scope(query: &str) -> bool {
    query.trim().eq_ignore_ascii_case("out of scope")
}

/// Parses and walks the question's query, if it has a SPARQL one; `Ok(None)`
/// when it has no query. The error's message is the question's diagnostic.
pub fn parse_question_query(q: &Question) -> Result<Option<Walked>, QuestionQueryError> {
    match &q.query {
        Query::Sparql(s) if out_of_scope(s) => Err(QuestionQueryError::OutOfScope),
        Query::Sparql(s) => walk(s).map(Some).map_err(|e| {
            if e.is_too_large() {
                QuestionQueryError::TooLarge(e)
            } else {
                QuestionQueryError::Unreadable(e)
            }
        }),
        Query::Pseudo(_) => Err(QuestionQueryError::Pseudo),
        Query::None => Ok(None),
    }
}

/// How markings are derived from a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MarkingStyle {
    /// docs/scoring.md (Sub-experiments): the whole query is walked.
    #[default]
    Judge,
    /// As the GERBIL QA code derives them (the `gerbil` profile).
    Gerbil,
}

/// The note of a question whose answer type is inferred from its answers or
/// query rather than declared; evaluations count it once per file.
pub const INFERRED_TYPE: &str = "the answer type is inferred, not declared";

/// Annotates one question: the markings of docs/scoring.md (Sub-experiments).
pub fn annotate_question(q: &Question, opts: MatchOptions) -> Annotation {
    annotate_question_as(q, opts, MarkingStyle::Judge)
}

/// Annotates one question with markings of the given style.
pub fn annotate_question_as(q: &Question, opts: MatchOptions, style: MarkingStyle) -> Annotation {
    annotate_walked(q, opts, style).0
}

/// Annotates one question and returns its walked query too (`None` when it has
/// no readable SPARQL query), for callers that need more of the walk than the
/// annotation keeps (the question features of `crate::sample`).
pub fn annotate_walked(
    q: &Question,
    opts: MatchOptions,
    style: MarkingStyle,
) -> (Annotation, Option<Walked>) {
    let mut diagnostics = Vec::new();
    let walked = match parse_question_query(q) {
        Ok(w) => w,
        Err(e) => {
            diagnostics.push(e.to_string());
            None
        }
    };
    if let Some(w) = &walked {
        diagnostics.extend(w.notes.iter().cloned());
    }
    let markings = match style {
        MarkingStyle::Judge => markings::markings(q, walked.as_ref(), opts),
        MarkingStyle::Gerbil => {
            if let Some(why) = walked.as_ref().and_then(|w| w.gerbil.stopped) {
                diagnostics.push(format!(
                    "gerbil markings: the walk stopped at {why}, as GERBIL's does"
                ));
            }
            markings::gerbil_markings(q, walked.as_ref(), opts)
        }
    };
    if markings.answer_type.is_some_and(|t| !t.declared) {
        diagnostics.push(INFERRED_TYPE.into());
    }
    let features = features::features(q, walked.as_ref(), &markings);
    let ordered = walked.as_ref().is_some_and(|w| w.ordered);
    let annotation = Annotation {
        id: q.id.0.clone(),
        markings,
        features,
        modifiers: walked
            .as_ref()
            .map(|w| {
                w.modifiers
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        diagnostics,
        ordered,
    };
    (annotation, walked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Answer, AnswerSet, Term};

    const DBO: &str = "http://dbpedia.org/ontology/";
    const DBR: &str = "http://dbpedia.org/resource/";

    fn ann(query: &str) -> Annotation {
        let q = Question {
            id: crate::model::QuestionId("t".into()),
            query: Query::Sparql(query.into()),
            ..Question::default()
        };
        annotate_question(&q, MatchOptions::default())
    }
    fn m(query: &str) -> Markings {
        ann(query).markings
    }

    #[test]
    fn gerbil_style_markings() {
        let q = Question {
            id: crate::model::QuestionId("g".into()),
            query: Query::Sparql(
                "PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX dbr: <http://dbpedia.org/resource/>
                 SELECT ?x WHERE { ?x a dbo:Film . ?x dbo:director dbr:A . ?x dbo:director dbr:A .
                   FILTER EXISTS { ?x dbo:starring dbr:B }
                   { SELECT ?y WHERE { ?y dbo:writer dbr:C } }
                   VALUES ?z { dbr:D } }"
                    .into(),
            ),
            ..Question::default()
        };
        let g = annotate_question_as(&q, MatchOptions::default(), MarkingStyle::Gerbil).markings;
        let rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
        // rdf:type is a property, duplicates are kept, FILTER / sub-query / VALUES are not walked
        assert_eq!(
            g.properties.expect("properties"),
            vec![
                rdf_type.to_string(),
                format!("{DBO}director"),
                format!("{DBO}director")
            ]
        );
        assert_eq!(
            g.resources.expect("resources"),
            vec![format!("{DBO}Film"), format!("{DBR}A"), format!("{DBR}A")]
        );
        assert_eq!(g.triples.expect("triples").len(), 3);
        assert_eq!(g.item_types, None);
        // the judge walks everything
        let j = annotate_question(&q, MatchOptions::default()).markings;
        assert!(sorted(&j.resources).contains(&format!("{DBR}D")));
        assert!(sorted(&j.properties).contains(&format!("{DBO}writer")));
        // a property path stops the walk; what came before stays
        let q = Question {
            query: Query::Sparql(
                "PREFIX dbo: <http://dbpedia.org/ontology/> SELECT ?x { ?x dbo:a ?y . ?y dbo:b+ ?z }"
                    .into(),
            ),
            ..q
        };
        let a = annotate_question_as(&q, MatchOptions::default(), MarkingStyle::Gerbil);
        assert_eq!(a.markings.properties, Some(vec![format!("{DBO}a")]));
        assert!(a.diagnostics.iter().any(|d| d.contains("property path")));
    }
    fn sorted(v: &Option<Vec<String>>) -> Vec<String> {
        let mut v = v.clone().expect("marking present");
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn entities_classes_properties_and_triples() {
        let k = m("SELECT DISTINCT ?uri WHERE { ?uri a dbo:Book ; dbo:author res:Jack_Kerouac . }");
        assert_eq!(
            sorted(&k.resources),
            vec![format!("{DBO}Book"), format!("{DBR}Jack_Kerouac")]
        );
        // rdf:type is structural, not a property
        assert_eq!(sorted(&k.properties), vec![format!("{DBO}author")]);
        assert_eq!(
            sorted(&k.triples),
            vec![
                format!("? <{DBO}author> <{DBR}Jack_Kerouac>"),
                format!("? <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{DBO}Book>"),
            ]
        );
        assert_eq!(k.item_types, Some(vec![format!("{DBO}Book")]));
        // wdt:P31 is a class assertion too, and counts as a property
        let k = m("SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; wdt:P27 wd:Q183 }");
        assert_eq!(
            k.item_types,
            Some(vec!["http://www.wikidata.org/entity/Q5".to_string()])
        );
        assert!(
            sorted(&k.properties).contains(&"http://www.wikidata.org/prop/direct/P31".to_string())
        );
    }

    #[test]
    fn variable_names_do_not_matter_but_positions_do() {
        let a = m("SELECT ?a WHERE { ?a dbo:p ?b . ?b dbo:q 3 }");
        let b = m("SELECT ?x WHERE { ?x dbo:p ?y . ?y dbo:q \"3\"^^xsd:integer }");
        assert_eq!(sorted(&a.triples), sorted(&b.triples));
        let c = m("SELECT ?x WHERE { ?y dbo:p ?x . ?y dbo:q 3 }");
        assert_eq!(
            sorted(&a.triples),
            sorted(&c.triples),
            "placeholders keep positions only"
        );
        let d = m("SELECT ?x WHERE { dbr:A dbo:p ?x }");
        let e = m("SELECT ?x WHERE { ?x dbo:p dbr:A }");
        assert_ne!(d.triples, e.triples);
    }

    #[test]
    fn property_paths() {
        // ^p is turned around
        let k = m("SELECT ?x WHERE { ?x ^dbo:child dbr:Ann_Dunham }");
        assert_eq!(
            sorted(&k.triples),
            vec![format!("<{DBR}Ann_Dunham> <{DBO}child> ?")]
        );
        // a sequence becomes two patterns through a placeholder
        let k = m("SELECT ?x WHERE { dbr:A dbo:p/dbo:q ?x }");
        assert_eq!(
            sorted(&k.triples),
            vec![format!("<{DBR}A> <{DBO}p> ?"), format!("? <{DBO}q> ?")]
        );
        // other paths stay one pattern with the path as predicate; their IRIs count
        let k = m("SELECT ?x WHERE { ?x dbo:p+ dbr:A . ?x (dbo:q|dbo:r) ?y . ?x dbo:s* ?z . ?x !dbo:t ?w }");
        let props = sorted(&k.properties);
        for p in ["p", "q", "r", "s", "t"] {
            assert!(props.contains(&format!("{DBO}{p}")), "{p}: {props:?}");
        }
        assert!(
            sorted(&k.triples).iter().any(|t| t.starts_with("? path(")),
            "{:?}",
            k.triples
        );
    }

    #[test]
    fn filter_exists_subqueries_values_optional_union_minus() {
        let k = m("SELECT ?x WHERE { ?x dbo:p dbr:A . FILTER NOT EXISTS { ?x dbo:q dbr:B } }");
        assert!(sorted(&k.resources).contains(&format!("{DBR}B")));
        let k = m("SELECT ?x WHERE { { SELECT ?x WHERE { ?x dbo:p dbr:C } LIMIT 3 } }");
        assert_eq!(sorted(&k.resources), vec![format!("{DBR}C")]);
        let k = m("SELECT ?x WHERE { VALUES ?c { dbr:D dbr:E } ?x dbo:p ?c }");
        assert_eq!(
            sorted(&k.resources),
            vec![format!("{DBR}D"), format!("{DBR}E")]
        );
        let k = m("SELECT ?x WHERE { { ?x dbo:p dbr:F } UNION { ?x dbo:q dbr:G } OPTIONAL { ?x dbo:r ?y } MINUS { ?x dbo:s dbr:H } }");
        assert_eq!(sorted(&k.resources).len(), 3);
        assert_eq!(sorted(&k.properties).len(), 4);
        let a = ann("SELECT ?x WHERE { { ?x dbo:p dbr:F } UNION { ?x dbo:q dbr:G } OPTIONAL { ?x dbo:r ?y } MINUS { ?x dbo:s dbr:H } }");
        assert_eq!(a.features["modifier"], vec!["UNION", "OPTIONAL", "MINUS"]);
    }

    #[test]
    fn forms_modifiers_and_dialect() {
        let a = ann("ASK WHERE { dbr:A dbo:p dbr:B }");
        assert_eq!(a.features["form"], vec!["ask"]);
        assert_eq!(
            a.markings.answer_type.map(|t| t.value),
            Some(AnswerType::Boolean)
        );
        let a = ann("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a dbo:City }");
        assert_eq!(a.features["form"], vec!["count"]);
        assert_eq!(
            a.markings.answer_type.map(|t| t.value),
            Some(AnswerType::Number)
        );
        // Virtuoso: a bare COUNT in the projection
        let a = ann("SELECT COUNT(DISTINCT ?x) WHERE { ?x a dbo:City }");
        assert_eq!(a.features["form"], vec!["count"]);
        assert!(
            a.diagnostics.iter().any(|d| d.contains("virtuoso syntax")),
            "{:?}",
            a.diagnostics
        );
        let a = ann("SELECT ?x WHERE { ?x dbo:p ?y . FILTER(YEAR(?y) < YEAR(NOW())) } GROUP BY ?x HAVING (COUNT(?y) > 2) ORDER BY DESC(?x) LIMIT 1 OFFSET 2");
        for modifier in [
            "FILTER", "YEAR", "NOW", "GROUP BY", "HAVING", "COUNT", "ORDER BY", "LIMIT", "OFFSET",
        ] {
            assert!(
                a.modifiers.iter().any(|x| x == modifier),
                "{modifier}: {:?}",
                a.modifiers
            );
        }
        let a = ann("SELECT ?x WHERE { ?x ?p }");
        assert!(a.markings.resources.is_none());
        assert!(
            a.diagnostics[0].contains("does not parse"),
            "{:?}",
            a.diagnostics
        );
        let a = ann("OUT OF SCOPE");
        assert!(a.diagnostics[0].contains("OUT OF SCOPE"));
    }

    #[test]
    fn annotations_take_precedence_and_answer_types_are_inferred() {
        let mut q = Question {
            query: Query::Sparql("SELECT ?x WHERE { ?x dbo:p dbr:A }".into()),
            entities: vec!["http://www.wikidata.org/entity/Q1".into()],
            properties: vec!["wdt:P17".into()],
            item_types: vec!["dbo:Person".into()],
            ..Question::default()
        };
        let a = annotate_question(&q, MatchOptions::default());
        assert_eq!(
            a.markings.resources,
            Some(vec!["http://www.wikidata.org/entity/Q1".to_string()])
        );
        assert_eq!(
            a.markings.properties,
            Some(vec!["http://www.wikidata.org/prop/direct/P17".to_string()])
        );
        assert_eq!(a.markings.item_types, Some(vec![format!("{DBO}Person")]));
        // answer type: declared (with aliases) or inferred from the answers
        q.answertype = Some("uri".into());
        let t = annotate_question(&q, MatchOptions::default())
            .markings
            .answer_type;
        assert_eq!(
            t,
            Some(AnswerTypeMark {
                value: AnswerType::Resource,
                declared: true
            })
        );
        q.answertype = None;
        for (term, expected) in [
            (Term::Iri("http://x.org/a".into()), AnswerType::Resource),
            (Term::plain("3.5"), AnswerType::Number),
            (
                Term::typed("1961-08-04", "http://www.w3.org/2001/XMLSchema#date"),
                AnswerType::Date,
            ),
            (Term::Boolean(true), AnswerType::Boolean),
            (Term::plain("Barack"), AnswerType::String),
        ] {
            q.answers = Some(AnswerSet {
                answers: vec![Answer::single(term)],
                ..AnswerSet::default()
            });
            let a = annotate_question(&q, MatchOptions::default());
            assert_eq!(
                a.markings.answer_type,
                Some(AnswerTypeMark {
                    value: expected,
                    declared: false
                })
            );
            assert!(a.diagnostics.iter().any(|d| d.contains("inferred")));
        }
        // literal answers: no item types
        assert_eq!(
            annotate_question(&q, MatchOptions::default())
                .markings
                .item_types,
            Some(vec![format!("{DBO}Person")])
        );
        q.item_types.clear();
        assert_eq!(
            annotate_question(&q, MatchOptions::default())
                .markings
                .item_types,
            Some(vec![])
        );
    }
}
