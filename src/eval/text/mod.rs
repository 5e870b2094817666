//! Measures of a query's text against the gold query's text (docs/scoring.md,
//! Query measures): the tokens T2S-Metrics reads a SPARQL text into
//! (`tokens`), BLEU as NLTK's `sentence_bleu` computes it with Chen and
//! Cherry's smoothing 4 and token precision, recall and F1 over token
//! multisets (`bleu`); the other query-text measures of T2S-Metrics 1.2.0
//! (`t2s`), with its naive canonicalisation (`canonical`) and its CodeBLEU
//! (`codebleu`), its METEOR (`meteor`, with NLTK's Porter stemmer, `porter`)
//! and the IRIs its URI hallucination looks up (`uris`).
//! qajudge's query experiment uses the first two.

pub mod bleu;
pub mod canonical;
pub mod codebleu;
pub mod meteor;
pub mod porter;
pub mod t2s;
pub mod tokens;
pub mod uris;

pub use bleu::{bleu, token_prf, TokenPrf};
pub use tokens::{normalize_variables, py_normalize_whitespace, tokenize};
