//! A knowledge graph as the audit asks it ([`crate::audit::Store`]): the one
//! implementation `qajudge audit` and the server's `GET
//! /api/v1/benchmarks/{name}/audit` execute the gold queries through. The
//! embedded store runs standard SPARQL, so a query is executed as the
//! endpoints read it (`query::executable`); an endpoint decides what it
//! accepts. Each row becomes one text per variable, in the store's order.
//! With a deadline (the server's time limit of one audit), no query starts
//! after it and none runs past it, and the store says whether the deadline
//! cut one ([`AuditStore::cut`]): such a report is not the audit of the gold.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{ExecOptions, KnowledgeGraph};
use crate::audit::{Executed, Store};
use crate::model::Term;

/// A knowledge graph, the options its queries run under and, on a server,
/// the time the whole audit may take.
pub struct AuditStore<'a> {
    kg: &'a KnowledgeGraph,
    name: String,
    options: ExecOptions,
    deadline: Option<Instant>,
    /// The host's stop on the thread that made the store (a notebook's
    /// Ctrl-C): no query starts once it passed.
    stop: crate::eval::Deadline,
    cut: AtomicBool,
}

impl<'a> AuditStore<'a> {
    /// The graph, named in the report as `the embedded store` or by its
    /// endpoint's URL.
    pub fn new(kg: &'a KnowledgeGraph, options: ExecOptions) -> AuditStore<'a> {
        let name = kg
            .info
            .endpoint
            .clone()
            .unwrap_or_else(|| "the embedded store".to_string());
        AuditStore {
            kg,
            name,
            options,
            deadline: None,
            stop: crate::eval::Deadline::of_this_thread(),
            cut: AtomicBool::new(false),
        }
    }

    /// The same store, whose queries neither start after `deadline` nor run
    /// past it.
    #[must_use]
    pub fn until(mut self, deadline: Instant) -> AuditStore<'a> {
        self.deadline = Some(deadline);
        self
    }

    /// True when the deadline stopped a query or kept one from starting.
    pub fn cut(&self) -> bool {
        self.cut.load(Ordering::Relaxed)
    }

    /// The options of the next query (its timeout at most what is left
    /// before the deadline, and whether that shortened it), or `None` past
    /// the deadline.
    fn next_options(&self) -> Option<(ExecOptions, bool)> {
        if self.stop.passed() {
            self.cut.store(true, Ordering::Relaxed);
            return None;
        }
        let Some(deadline) = self.deadline else {
            return Some((self.options, false));
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            self.cut.store(true, Ordering::Relaxed);
            return None;
        }
        let shortened = left < self.options.timeout;
        Some((
            ExecOptions {
                timeout: self.options.timeout.min(left),
                ..self.options
            },
            shortened,
        ))
    }
}

impl Store for AuditStore<'_> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn execute(&self, query: &str) -> Executed {
        let Some((options, shortened)) = self.next_options() else {
            return failed("timeout", "the audit's time limit passed before it ran");
        };
        let outcome = if self.kg.is_embedded() {
            match crate::query::executable(query) {
                Ok(p) => self.kg.execute(&p.text, options),
                Err(e) => return failed("syntax_error", &e.to_string()),
            }
        } else {
            self.kg.execute(query, options)
        };
        if shortened && outcome.status == crate::model::ExecStatus::Timeout {
            self.cut.store(true, Ordering::Relaxed);
        }
        let vars = outcome.answers.vars.clone();
        let rows = outcome
            .answers
            .answers
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut row = vec![None; vars.len().max(1)];
                for (k, t) in a.terms.iter().enumerate() {
                    let column = outcome
                        .columns
                        .get(i)
                        .and_then(|c| c.get(k))
                        .copied()
                        .unwrap_or(k);
                    if let Some(cell) = row.get_mut(column) {
                        *cell = Some(match t {
                            Term::Iri(i) => i.clone(),
                            Term::Literal { lexical, .. } => lexical.clone(),
                            Term::Boolean(b) => b.to_string(),
                        });
                    }
                }
                row
            })
            .collect();
        let mut answers = outcome.answers;
        answers.columns = outcome.columns;
        Executed {
            status: outcome.status.name().to_string(),
            message: outcome.message,
            vars,
            rows,
            answers,
        }
    }

    fn holds(&self, iri: &str) -> bool {
        // past the deadline an IRI counts as held: no finding for want of time
        match self.next_options() {
            Some((options, _)) => self.kg.occurs(iri, options),
            None => true,
        }
    }
}

/// An execution that did not run.
fn failed(status: &str, message: &str) -> Executed {
    Executed {
        status: status.to_string(),
        message: Some(message.to_string()),
        vars: Vec::new(),
        rows: Vec::new(),
        answers: crate::model::AnswerSet::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> KnowledgeGraph {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/demo/kg.ttl");
        KnowledgeGraph::load(&[path], ExecOptions::default(), &|_, _| {}).expect("the demo graph")
    }

    #[test]
    fn executes_as_the_audit_compares_and_stops_at_its_deadline() {
        let kg = demo();
        let store = AuditStore::new(&kg, ExecOptions::default());
        assert_eq!(store.name(), "the embedded store");
        let ran = store.execute("SELECT ?s WHERE { ?s ?p ?o } LIMIT 2");
        assert_eq!(ran.status, "ok", "{ran:?}");
        assert_eq!(ran.vars, ["s"]);
        assert_eq!(ran.rows.len(), 2);
        assert!(ran.rows.iter().all(|r| r.len() == 1 && r[0].is_some()));
        let bad = store.execute("SELECT WHERE {");
        assert_eq!(bad.status, "syntax_error");
        assert!(!store.cut());
        // past its deadline nothing runs, and the store says so
        let late = AuditStore::new(&kg, ExecOptions::default()).until(Instant::now());
        let none = late.execute("SELECT ?s WHERE { ?s ?p ?o } LIMIT 2");
        assert_eq!(none.status, "timeout");
        assert!(late.holds("http://example.org/nothing"));
        assert!(late.cut());
    }
}
