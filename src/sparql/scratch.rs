//! A scratch graph in the embedded store (oxigraph in memory) for `sample`'s
//! features graph: RDF files loaded as `--kg` files are (any format and
//! compression the indexer reads, syntax errors located), statements added,
//! SELECT queries executed under the usual limits, and every statement about
//! chosen subjects read back, in a fixed order, to be written as Turtle.
//!
//! A graph made for one query ([`ScratchGraph::for_query`]) puts into the
//! store only the statements whose predicates that query can read
//! (`crate::query::read_predicates`; every statement when it can read any)
//! and keeps every statement, in the order it came, beside the store: the
//! store's insertion is most of the cost of loading QaldGenData, and the
//! Listing 1.2 selection reads 9 of its 77 predicates. The query's answers
//! are the same, in the same order: the memory store gives a pattern's
//! matches newest first whatever it holds besides, and each pattern of such a
//! query matches statements of its own predicates only. A later query that
//! reads other predicates gets a store rebuilt, in the original order, with
//! them; the statements read back come from the whole graph.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use oxigraph::model::{GraphName, GraphNameRef, NamedNode, NamedNodeRef, NamedOrBlankNode, Quad};
use oxigraph::store::Store;

use super::graph::{GraphError, Statement};
use super::{execute_embedded, term, ExecOptions, KgError, Outcome};

/// A graph of statements and files to query.
pub struct ScratchGraph {
    inner: Mutex<Inner>,
}

/// The store and, when it holds only some predicates, the whole graph.
struct Inner {
    store: Store,
    /// The predicates whose statements the store holds; `None`: all.
    admitted: Option<HashSet<NamedNode>>,
    /// Every statement in the order it came, while `admitted` is some.
    all: Vec<Quad>,
    /// The subjects of `all`, once asked for (until the next statement).
    subjects: Option<HashSet<NamedNode>>,
}

impl std::fmt::Debug for ScratchGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchGraph").finish_non_exhaustive()
    }
}

fn new_store() -> Result<Store, KgError> {
    Store::new().map_err(|e| KgError::Store(e.to_string()))
}

impl ScratchGraph {
    /// An empty graph whose store holds every statement.
    pub fn new() -> Result<ScratchGraph, KgError> {
        Self::admitting(None)
    }

    /// An empty graph made for `query`: its store holds only the statements
    /// `query` can read (see the module); any query still runs on the whole
    /// graph.
    pub fn for_query(query: &str) -> Result<ScratchGraph, KgError> {
        Self::admitting(crate::query::read_predicates(query))
    }

    fn admitting(predicates: Option<BTreeSet<String>>) -> Result<ScratchGraph, KgError> {
        let admitted =
            predicates.map(|p| p.iter().filter_map(|p| NamedNode::new(p).ok()).collect());
        Ok(ScratchGraph {
            inner: Mutex::new(Inner {
                store: new_store()?,
                admitted,
                all: Vec::new(),
                subjects: None,
            }),
        })
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Loads an RDF file into the graph; returns its statement count.
    pub fn load(&self, path: &Path) -> Result<u64, KgError> {
        let mut inner = self.inner();
        let (_, statements, _) =
            super::load::read_file(path, &|_| {}, &mut |batch| inner.add(batch))?;
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
                    GraphName::DefaultGraph,
                ))
            })
            .collect::<Result<Vec<_>, GraphError>>()?;
        self.inner().add(quads).map_err(|e| match e {
            KgError::Store(m) => GraphError::Store(m),
            other => GraphError::Store(other.to_string()),
        })
    }

    /// True when `iri` is the subject of some statement; an error when the
    /// store cannot be read.
    pub fn has_subject(&self, iri: &str) -> Result<bool, KgError> {
        let Ok(node) = NamedNodeRef::new(iri) else {
            return Ok(false);
        };
        let mut inner = self.inner();
        if inner.admitted.is_none() {
            return match inner
                .store
                .quads_for_pattern(Some(node.into()), None, None, None)
                .next()
            {
                None => Ok(false),
                Some(Ok(_)) => Ok(true),
                Some(Err(e)) => Err(KgError::Store(e.to_string())),
            };
        }
        let Inner { all, subjects, .. } = &mut *inner;
        Ok(subjects
            .get_or_insert_with(|| {
                all.iter()
                    .filter_map(|q| match &q.subject {
                        NamedOrBlankNode::NamedNode(n) => Some(n.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .contains(&node.into_owned()))
    }

    /// The number of statements; an error when the store cannot count them.
    pub fn len(&self) -> Result<usize, KgError> {
        let inner = self.inner();
        match inner.admitted {
            None => inner.store.len().map_err(|e| KgError::Store(e.to_string())),
            Some(_) => Ok(inner.all.iter().collect::<HashSet<_>>().len()),
        }
    }

    /// True when there is no statement (see [`ScratchGraph::len`]).
    pub fn is_empty(&self) -> Result<bool, KgError> {
        Ok(self.len()? == 0)
    }

    /// Executes a query under `options`' timeout and caps, on the whole graph.
    pub fn execute(&self, query: &str, options: ExecOptions) -> Outcome {
        let store = {
            let mut inner = self.inner();
            if let Err(e) = inner.admit(query) {
                return Outcome::failed(
                    crate::model::ExecStatus::ExecutionError,
                    e.to_string(),
                    std::time::Instant::now(),
                );
            }
            inner.store.clone()
        };
        execute_embedded(&store, None, query, options)
    }

    /// Every statement whose subject is one of `subjects` (IRIs) and whose
    /// object is not a blank node, subject by subject in the given order, each
    /// subject's sorted by predicate and object, read from a store (terms as
    /// the store gives them back). An error when the store of these subjects
    /// cannot be made or read: never fewer statements than the graph holds.
    pub fn about(&self, subjects: &[String]) -> Result<Vec<Statement>, KgError> {
        self.about_with(subjects, new_store)
    }

    /// [`ScratchGraph::about`], the store of the subjects made by `make`.
    fn about_with(
        &self,
        subjects: &[String],
        make: impl Fn() -> Result<Store, KgError>,
    ) -> Result<Vec<Statement>, KgError> {
        let inner = self.inner();
        if inner.admitted.is_none() {
            return about_in(&inner.store, subjects);
        }
        // the statements of these subjects into a store of their own
        let failed = |e: oxigraph::store::StorageError| KgError::Store(e.to_string());
        let wanted: HashSet<&str> = subjects.iter().map(String::as_str).collect();
        let store = make()?;
        let mut t = store.start_transaction().map_err(failed)?;
        t.extend(
            inner
                .all
                .iter()
                .filter(|q| {
                    matches!(&q.subject, NamedOrBlankNode::NamedNode(n) if wanted.contains(n.as_str()))
                })
                .map(Quad::as_ref),
        );
        t.commit().map_err(failed)?;
        about_in(&store, subjects)
    }
}

/// [`ScratchGraph::about`] on one store.
fn about_in(store: &Store, subjects: &[String]) -> Result<Vec<Statement>, KgError> {
    let mut out = Vec::new();
    for s in subjects {
        let Ok(node) = NamedNodeRef::new(s) else {
            continue;
        };
        let mut these: Vec<(String, String, Statement)> = Vec::new();
        for q in store.quads_for_pattern(Some(node.into()), None, None, None) {
            let q = q.map_err(|e| KgError::Store(e.to_string()))?;
            if q.object.is_blank_node() {
                continue;
            }
            let object = term(&q.object);
            these.push((
                q.predicate.as_str().to_string(),
                q.object.to_string(),
                Statement {
                    subject: s.clone(),
                    predicate: q.predicate.as_str().to_string(),
                    object,
                },
            ));
        }
        these.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        out.extend(these.into_iter().map(|(_, _, st)| st));
    }
    Ok(out)
}

impl Inner {
    /// Adds statements: into the store those of admitted predicates, and all
    /// of them to the whole graph while the store holds only some.
    fn add(&mut self, quads: Vec<Quad>) -> Result<(), KgError> {
        let failed = |e: oxigraph::store::StorageError| KgError::Store(e.to_string());
        let Some(admitted) = &self.admitted else {
            return self.store.extend(quads).map_err(failed);
        };
        let mut t = self.store.start_transaction().map_err(failed)?;
        t.extend(
            quads
                .iter()
                .filter(|q| admitted.contains(&q.predicate))
                .map(|q| {
                    oxigraph::model::QuadRef::new(
                        &q.subject,
                        &q.predicate,
                        &q.object,
                        GraphNameRef::DefaultGraph,
                    )
                }),
        );
        t.commit().map_err(failed)?;
        self.subjects = None;
        self.all.extend(quads);
        Ok(())
    }

    /// Makes the store hold every statement `query` can read: when it reads
    /// predicates the store lacks, the store is rebuilt from the whole graph,
    /// in its order.
    fn admit(&mut self, query: &str) -> Result<(), KgError> {
        let Some(admitted) = &mut self.admitted else {
            return Ok(());
        };
        match crate::query::read_predicates(query) {
            Some(needed) => {
                let needed: Vec<NamedNode> = needed
                    .iter()
                    .filter_map(|p| NamedNode::new(p).ok())
                    .filter(|p| !admitted.contains(p))
                    .collect();
                if needed.is_empty() {
                    return Ok(());
                }
                admitted.extend(needed);
            }
            None => self.admitted = None,
        }
        self.store = new_store()?;
        let all = std::mem::take(&mut self.all);
        self.add(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Statements in an order a store's answers show: subjects and predicates
    /// interleaved, a statement given twice, a blank node, a subject whose
    /// statements are all of predicates the first query does not read.
    const TTL: &str = "@prefix ex: <http://e.org/> .
ex:a ex:p 1 ; ex:q \"x\" ; ex:r ex:b .
ex:b ex:q \"y\" ; ex:p 2 ; ex:s _:n .
ex:c ex:r ex:a ; ex:s \"only r and s\" .
ex:a ex:p 3 ; ex:q \"x\" .
ex:d ex:p 4 ; ex:q \"z\"@en ; ex:r ex:c .
_:n ex:p 5 .
";

    fn graphs(tag: &str, first: &str) -> (ScratchGraph, ScratchGraph) {
        let dir =
            std::env::temp_dir().join(format!("qajudge-scratch-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.ttl");
        std::fs::write(&path, TTL).unwrap();
        let whole = ScratchGraph::new().unwrap();
        let partial = ScratchGraph::for_query(first).unwrap();
        assert_eq!(whole.load(&path).unwrap(), 14);
        assert_eq!(partial.load(&path).unwrap(), 14);
        let extra = [Statement {
            subject: "http://e.org/e".into(),
            predicate: "http://e.org/p".into(),
            object: crate::model::Term::plain("6"),
        }];
        whole.insert(&extra).unwrap();
        partial.insert(&extra).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (whole, partial)
    }

    /// Both answer `query` alike, in the same order (blank nodes, renamed at
    /// each load, as one).
    fn same(whole: &ScratchGraph, partial: &ScratchGraph, query: &str) {
        let answers = |g: &ScratchGraph| {
            let out = g.execute(query, ExecOptions::default());
            assert!(
                out.status.answered() && out.message.is_none(),
                "{query}: {out:?}"
            );
            let rows: Vec<Vec<crate::model::Term>> = out
                .answers
                .answers
                .iter()
                .map(|a| {
                    a.terms
                        .iter()
                        .map(|t| match t {
                            crate::model::Term::Iri(i) if i.starts_with("_:") => {
                                crate::model::Term::Iri("_:".into())
                            }
                            t => t.clone(),
                        })
                        .collect()
                })
                .collect();
            (out.answers.vars, rows, out.columns)
        };
        let w = answers(whole);
        assert!(!w.1.is_empty(), "{query}");
        assert_eq!(w, answers(partial), "{query}");
    }

    #[test]
    fn a_graph_made_for_a_query_answers_every_query_as_the_whole_graph_does() {
        let first = "PREFIX ex: <http://e.org/> SELECT ?s ?n ?t WHERE { ?s ex:p ?n OPTIONAL { ?s ex:q ?t } }";
        let (whole, partial) = graphs("some", first);
        // the store holds only ex:p and ex:q; the graph holds everything
        assert!(partial.inner().admitted.is_some());
        assert_eq!(whole.len().expect("counted"), 14);
        assert_eq!(partial.len().expect("counted"), 14);
        let has = |iri: &str| partial.has_subject(iri).expect("read");
        assert!(has("http://e.org/c") && has("http://e.org/e"));
        assert!(!has("http://e.org/z"));
        let subjects = [
            "http://e.org/c",
            "http://e.org/a",
            "http://e.org/z",
            "http://e.org/b",
        ]
        .map(String::from);
        let about = |g: &ScratchGraph| g.about(&subjects).expect("read back");
        assert_eq!(about(&whole), about(&partial));
        assert_eq!(about(&partial).len(), 8);
        // a store that cannot be made is an error, never an empty answer
        let e = partial
            .about_with(&subjects, || {
                Err(KgError::Store("cannot allocate a store".into()))
            })
            .expect_err("the store failed");
        assert!(e.to_string().contains("cannot allocate a store"), "{e}");
        same(&whole, &partial, first);
        same(&whole, &partial, "PREFIX ex: <http://e.org/> SELECT ?s (COUNT(*) AS ?n) WHERE { ?s ex:q ?t } GROUP BY ?s");
        // a query of predicates the store lacks rebuilds it with them
        same(
            &whole,
            &partial,
            "PREFIX ex: <http://e.org/> SELECT ?s ?o ?n WHERE { ?s ex:r/ex:r ?o . ?o ex:p ?n }",
        );
        assert_eq!(partial.inner().admitted.as_ref().map(HashSet::len), Some(3));
        same(&whole, &partial, first);
        // a query of any predicate puts everything into the store
        same(
            &whole,
            &partial,
            "PREFIX ex: <http://e.org/> SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
        );
        assert!(partial.inner().admitted.is_none());
        assert_eq!(
            whole.about(&subjects).expect("read back"),
            partial.about(&subjects).expect("read back")
        );
        assert_eq!(partial.len().expect("counted"), 14);
    }

    #[test]
    fn a_graph_made_for_a_query_of_any_predicate_holds_everything_in_its_store() {
        let (whole, partial) = graphs("all", "SELECT * WHERE { ?s ?p ?o }");
        assert!(partial.inner().admitted.is_none());
        same(&whole, &partial, "SELECT * WHERE { ?s ?p ?o }");
    }
}
