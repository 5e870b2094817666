//! A scratch graph in the embedded store (oxigraph in memory) for `sample`'s
//! features graph: RDF files loaded as `--kg` files are (any format and
//! compression the indexer reads, syntax errors located), statements added,
//! SELECT queries executed under the usual limits, and every statement about
//! chosen subjects read back, in a fixed order, to be written as Turtle.

use std::path::Path;

use oxigraph::model::{NamedNodeRef, Quad};
use oxigraph::store::Store;

use super::graph::{GraphError, Statement};
use super::{execute_embedded, term, ExecOptions, KgError, Outcome};

/// A graph of statements and files to query.
pub struct ScratchGraph {
    store: Store,
}

impl std::fmt::Debug for ScratchGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchGraph").finish_non_exhaustive()
    }
}

impl ScratchGraph {
    /// An empty graph.
    pub fn new() -> Result<ScratchGraph, KgError> {
        Ok(ScratchGraph {
            store: Store::new().map_err(|e| KgError::Store(e.to_string()))?,
        })
    }

    /// Loads an RDF file into the graph; returns its statement count.
    pub fn load(&self, path: &Path) -> Result<u64, KgError> {
        let (_, statements, _) = super::load::load_file(&self.store, path, &|_| {})?;
        Ok(statements)
    }

    /// Adds statements.
    pub fn insert(&self, statements: &[Statement]) -> Result<(), GraphError> {
        let quads = statements
            .iter()
            .map(|s| {
                let t = super::graph::triple(s)?;
                Ok(Quad::new(
                    t.subject,
                    t.predicate,
                    t.object,
                    oxigraph::model::GraphName::DefaultGraph,
                ))
            })
            .collect::<Result<Vec<_>, GraphError>>()?;
        self.store
            .extend(quads)
            .map_err(|e| GraphError::Store(e.to_string()))
    }

    /// True when `iri` is the subject of some statement.
    pub fn has_subject(&self, iri: &str) -> bool {
        NamedNodeRef::new(iri).is_ok_and(|n| {
            self.store
                .quads_for_pattern(Some(n.into()), None, None, None)
                .next()
                .is_some()
        })
    }

    /// The number of statements.
    pub fn len(&self) -> usize {
        self.store.len().unwrap_or(0)
    }

    /// True when there is no statement.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Executes a query under `options`' timeout and caps.
    pub fn execute(&self, query: &str, options: ExecOptions) -> Outcome {
        execute_embedded(&self.store, None, query, options)
    }

    /// Every statement whose subject is one of `subjects` (IRIs) and whose
    /// object is not a blank node, subject by subject in the given order, each
    /// subject's sorted by predicate and object.
    pub fn about(&self, subjects: &[String]) -> Vec<Statement> {
        let mut out = Vec::new();
        for s in subjects {
            let Ok(node) = NamedNodeRef::new(s) else {
                continue;
            };
            let mut these: Vec<(String, String, Statement)> = self
                .store
                .quads_for_pattern(Some(node.into()), None, None, None)
                .filter_map(Result::ok)
                .filter(|q| !q.object.is_blank_node())
                .map(|q| {
                    let object = term(&q.object);
                    (
                        q.predicate.as_str().to_string(),
                        q.object.to_string(),
                        Statement {
                            subject: s.clone(),
                            predicate: q.predicate.as_str().to_string(),
                            object,
                        },
                    )
                })
                .collect();
            these.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
            out.extend(these.into_iter().map(|(_, _, st)| st));
        }
        out
    }
}
