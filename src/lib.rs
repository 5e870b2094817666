//! qajudge: judge question-answering systems over knowledge graphs. The library
//! holds every rule of `SCORING.md`; the binary (`src/main.rs`) is a thin CLI over it.

#![forbid(unsafe_code)]

pub mod annotate;
pub mod cli;
pub mod eval;
pub mod http;
pub mod index;
pub mod indexer;
pub mod live;
pub mod matching;
pub mod metrics;
pub mod model;
pub mod qald;
pub mod rng;
pub mod terms;
#[cfg(test)]
mod test_data;
