//! Micro-benchmarks in the manner of QaldGen (docs/features.md): the question
//! and query features a sample is drawn over. Today only the features
//! (`features`): computed from a question, its annotation and its walked query,
//! with no I/O; the samplers of issue 42 are not built.

pub mod features;

pub use features::{local_name, name_words, question_words, LabelLookup, QuestionFeatures};
