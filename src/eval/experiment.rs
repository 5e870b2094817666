//! The sub-experiments (QA, C2KB and its split, P2KB, RE2KB, AT, AIT2KB, and
//! the query measures): their names, parsing a list of them, and a value per
//! sub-experiment.

/// The names of the sub-experiments that compare sets ([`Experiment::ALL`]),
/// in report order: the report's keys and the command line's names.
pub const SET_NAMES: [&str; 8] = [
    "qa",
    "c2kb",
    "c2kb_entities",
    "c2kb_classes",
    "p2kb",
    "re2kb",
    "at",
    "ait2kb",
];

/// A sub-experiment (docs/scoring.md, Sub-experiments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Experiment {
    /// Answer sets.
    Qa,
    /// Resources: entities and classes.
    C2kb,
    /// C2KB on entities only (resources that are not classes): how a NED
    /// component is judged.
    C2kbEntities,
    /// C2KB on classes only (objects of `rdf:type` / `wdt:P31`, `CLASS` annotations).
    C2kbClasses,
    /// Properties.
    P2kb,
    /// Triples.
    Re2kb,
    /// Answer type.
    At,
    /// Answer item types.
    Ait2kb,
    /// The run's queries against the gold's (docs/scoring.md, Query
    /// measures): not a set comparison, so not in [`Experiment::ALL`], and
    /// scored only when asked for.
    Query,
}

impl Experiment {
    /// All sub-experiments, in report order.
    pub const ALL: [Experiment; 8] = [
        Experiment::Qa,
        Experiment::C2kb,
        Experiment::C2kbEntities,
        Experiment::C2kbClasses,
        Experiment::P2kb,
        Experiment::Re2kb,
        Experiment::At,
        Experiment::Ait2kb,
    ];

    /// Every sub-experiment a list may name: [`Experiment::ALL`] and `query`.
    pub const NAMED: [Experiment; 9] = [
        Experiment::Qa,
        Experiment::C2kb,
        Experiment::C2kbEntities,
        Experiment::C2kbClasses,
        Experiment::P2kb,
        Experiment::Re2kb,
        Experiment::At,
        Experiment::Ait2kb,
        Experiment::Query,
    ];

    /// The name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Experiment::Query => "query",
            e => SET_NAMES[e as usize],
        }
    }

    /// Parses a name (`qa`, `c2kb`, …, `query`).
    pub fn parse(name: &str) -> Option<Experiment> {
        Experiment::NAMED
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Parses a name, or says which names there are.
    pub fn from_name(name: &str) -> Result<Experiment, UnknownName> {
        Experiment::parse(name).ok_or_else(|| UnknownName {
            kind: "experiment",
            name: name.to_string(),
            known: Experiment::NAMED.map(Experiment::name).join(", "),
        })
    }

    /// Parses a comma-separated list of names (empty items ignored).
    pub fn list_from_names(names: &str) -> Result<Vec<Experiment>, UnknownName> {
        names
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(Experiment::from_name)
            .collect()
    }
}

/// A profile or sub-experiment name that does not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {name:?}; use one of {known}")]
pub struct UnknownName {
    /// What was named (`profile`, `experiment`).
    pub kind: &'static str,
    /// The name given.
    pub name: String,
    /// The names there are, comma-separated.
    pub known: String,
}

/// One value per sub-experiment, indexed by [`Experiment`] (`query` included).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerExperiment<T>([T; 9]);

impl<T> PerExperiment<T> {
    /// A value for each sub-experiment, from `f`.
    pub fn from_fn(mut f: impl FnMut(Experiment) -> T) -> PerExperiment<T> {
        PerExperiment(Experiment::NAMED.map(&mut f))
    }
}

impl PerExperiment<bool> {
    /// True when any sub-experiment besides QA is set (they need markings).
    pub fn any_markings(&self) -> bool {
        Experiment::ALL[1..].iter().any(|e| self[*e])
    }
}

impl<T> std::ops::Index<Experiment> for PerExperiment<T> {
    type Output = T;
    fn index(&self, e: Experiment) -> &T {
        &self.0[e as usize]
    }
}

impl<T> std::ops::IndexMut<Experiment> for PerExperiment<T> {
    fn index_mut(&mut self, e: Experiment) -> &mut T {
        &mut self.0[e as usize]
    }
}
