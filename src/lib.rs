//! qajudge: judge question-answering systems over knowledge graphs. The library
//! holds every rule of `docs/scoring.md`; the binary (`src/main.rs`) is a thin CLI over it.

#![forbid(unsafe_code)]

pub mod annotate;
pub mod audit;
pub mod cli;
pub mod clock;
pub mod digest;
pub mod eval;
pub mod fetch;
pub mod http;
pub mod index;
pub mod indexer;
pub mod live;
pub mod llm;
pub mod matching;
pub mod metrics;
pub mod model;
pub mod qald;
pub mod query;
pub mod rng;
pub mod sample;
pub mod sparql;
pub mod stack;
pub mod terms;
#[cfg(test)]
mod test_data;
pub mod wordnet;

/// An error's message followed by its causes, `: `-separated (what `{:#}` shows
/// for an `anyhow` error), for messages that go into reports and API answers.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}
