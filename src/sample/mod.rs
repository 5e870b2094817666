//! Micro-benchmarks in the manner of QaldGen (docs/features.md): the question
//! and query features a sample is drawn over (`features`: computed from a
//! question, its annotation and its walked query; `pos`: the part-of-speech
//! flags of its text), the features graph in
//! QaldGenData's vocabularies (`vocab`) and the `--where` language
//! (`condition`), the samplers over their vectors (`select`: FEASIBLE's
//! exemplars and prototypes, a seeded random sample, diversity and
//! representativeness; `cluster`: k-means++, DBSCAN, agglomerative), one draw
//! from a selection's rows (`draw`), and why a system fails (`explain`);
//! `named` names a question's IRIs by an index's labels. No
//! I/O: the store that holds the features graph is `sparql`'s.

pub mod cluster;
pub mod condition;
pub mod draw;
pub mod explain;
pub mod features;
pub mod named;
pub mod pos;
pub mod select;
pub mod vocab;

pub use features::{
    local_name, name_words, question_words, LabelLookup, QuestionFeatures, NUMERIC,
};
