//! Scoring profiles (SCORING 8). Every rule that differs between profiles lives
//! here; the evaluator asks the profile instead of testing its name. Only `judge`
//! exists so far; `gerbil` and `mqald` come with cross-graph matching.

use crate::matching::MatchOptions;

/// A named bundle of scoring rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// The default: SCORING 2–5 as written.
    #[default]
    Judge,
}

impl Profile {
    /// The name printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Judge => "judge",
        }
    }

    /// Parses a profile name.
    pub fn parse(name: &str) -> Option<Profile> {
        match name {
            "judge" => Some(Profile::Judge),
            _ => None,
        }
    }

    /// The literal rules this profile uses, given the user's switches.
    pub fn match_options(self, strict_literals: bool, lenient_dates: bool) -> MatchOptions {
        match self {
            Profile::Judge => MatchOptions {
                strict_literals,
                lenient_dates,
            },
        }
    }
}
