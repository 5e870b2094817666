//! The `judge` profile, the default: qajudge's own rules, docs/scoring.md as
//! written (docs/scoring.md, the `judge` column of the Profiles table). It
//! reproduces no other tool: its rules are the default methods of [`Rules`],
//! each with its reason there; the other profiles' files say where they depart
//! from it.

use super::Rules;

/// The rules of the `judge` profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Judge;

/// Every rule is the default.
impl Rules for Judge {}
