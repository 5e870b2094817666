//! Argument groups and value parsers that several subcommands share, parsed once
//! into the library's options (the server reuses them for its experiments).

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::annotate::FEATURES;
use crate::eval::{Experiment, Profile};
use crate::live::LiveOptions;

/// How live QA systems are called (`evaluate --system-url`, `serve`).
#[derive(Debug, Clone, Args)]
pub struct LiveArgs {
    /// The time one call to a QA system may take, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    pub timeout_ms: u64,
    /// Calls to a QA system that run at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// The share of failed calls that stops a live run.
    #[arg(long, default_value_t = 0.5)]
    pub max_error_rate: f64,
}

impl LiveArgs {
    /// The live-call options these arguments give (other fields at their defaults).
    pub fn options(&self) -> LiveOptions {
        LiveOptions {
            timeout: Duration::from_millis(self.timeout_ms),
            concurrency: self.concurrency,
            max_error_rate: self.max_error_rate,
            ..LiveOptions::default()
        }
    }
}

/// Profiles offered on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ProfileArg {
    /// SCORING.md as written (default).
    Judge,
    /// Reproduces the GERBIL QA platform's scores.
    Gerbil,
    /// Reproduces the evaluation tool published with MQALD.
    Mqald,
}

impl From<ProfileArg> for Profile {
    fn from(p: ProfileArg) -> Profile {
        match p {
            ProfileArg::Judge => Profile::Judge,
            ProfileArg::Gerbil => Profile::Gerbil,
            ProfileArg::Mqald => Profile::Mqald,
        }
    }
}

/// Parses a sub-experiment name for clap.
pub fn parse_experiment(s: &str) -> Result<Experiment, crate::eval::UnknownName> {
    Experiment::from_name(s)
}

/// Parses a feature name of `--by` for clap.
pub fn parse_feature(s: &str) -> Result<String, crate::eval::UnknownName> {
    if FEATURES.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(crate::eval::UnknownName {
            kind: "feature",
            name: s.to_string(),
            known: FEATURES.join(", "),
        })
    }
}
