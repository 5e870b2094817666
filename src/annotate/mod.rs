//! The annotator: turns a SPARQL query or a file's explicit annotations into the
//! markings that the sub-experiments score (SCORING 5) and the question features
//! that breakdowns split by (SCORING 6).

pub mod dialect;
pub mod features;
pub mod markings;
pub mod prefixes;
pub mod walk;

use serde::Serialize;

pub use features::{Features, FEATURES};
pub use markings::{AnswerType, AnswerTypeMark, Markings};
pub use walk::{walk, SparqlError, Walked};

use crate::matching::MatchOptions;
use crate::model::{Query, Question};

/// Everything the annotator says about one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotation {
    /// The question id.
    pub id: String,
    /// The markings for the sub-experiments.
    pub markings: Markings,
    /// The question's features.
    pub features: Features,
    /// The SPARQL modifiers found in the query (all of them, DISTINCT and ASK too).
    pub modifiers: Vec<String>,
    /// How the query was read, and why a marking is missing.
    pub diagnostics: Vec<String>,
}

/// True for the placeholder some QALD files write instead of a query.
fn out_of_scope(query: &str) -> bool {
    query.trim().eq_ignore_ascii_case("out of scope")
}

/// Parses the question's query, if it has a SPARQL one. `Err` carries a diagnostic.
pub fn parse_question_query(q: &Question) -> Result<Option<Walked>, String> {
    match &q.query {
        Query::Sparql(s) if out_of_scope(s) => {
            Err("the query is OUT OF SCOPE: no markings can be derived from it".into())
        }
        Query::Sparql(s) => walk(s).map(Some).map_err(|e| {
            format!("the query does not parse ({e}); fix it or give explicit annotations")
        }),
        Query::Pseudo(_) => {
            Err("the query is a pseudo-query (hybrid question): no markings can be derived from it".into())
        }
        Query::None => Ok(None),
    }
}

/// Annotates one question.
pub fn annotate_question(q: &Question, opts: MatchOptions) -> Annotation {
    let mut diagnostics = Vec::new();
    let walked = match parse_question_query(q) {
        Ok(w) => w,
        Err(d) => {
            diagnostics.push(d);
            None
        }
    };
    if let Some(w) = &walked {
        diagnostics.extend(w.notes.iter().cloned());
    }
    let markings = markings::markings(q, walked.as_ref(), opts);
    if markings.answer_type.is_some_and(|t| !t.declared) {
        diagnostics.push("the answer type is inferred, not declared".into());
    }
    let features = features::features(q, walked.as_ref(), &markings);
    Annotation {
        id: q.id.0.clone(),
        markings,
        features,
        modifiers: walked
            .map(|w| w.modifiers.iter().map(|m| m.to_string()).collect())
            .unwrap_or_default(),
        diagnostics,
    }
}
