//! Cohen's κ between the LLM judge's verdicts and exact match over the run
//! answers both judged (docs/scoring.md, The LLM judge): a 2×2 table of
//! "same" against "not same" and the κ it gives, `None` where κ is undefined.

use serde::Serialize;

/// The 2×2 table of the answers both judged, and Cohen's κ over it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, utoipa::ToSchema)]
pub struct Agreement {
    /// Answers both judged.
    pub answers: usize,
    /// Matched by exact match and judged `same`.
    pub both_same: usize,
    /// Matched by exact match, judged `different` or `unsure`.
    pub exact_only: usize,
    /// Not matched by exact match, judged `same`.
    pub llm_only: usize,
    /// Neither.
    pub neither: usize,
    /// Cohen's κ; `null` with no answer, or when both raters said one and the
    /// same thing of every answer (the chance agreement is 1: κ is undefined).
    pub kappa: Option<f64>,
}

impl Agreement {
    /// The table of `(exact_same, llm_same)` pairs, and its κ.
    pub fn of(pairs: impl IntoIterator<Item = (bool, bool)>) -> Agreement {
        let mut a = Agreement::default();
        for (exact, llm) in pairs {
            a.answers += 1;
            match (exact, llm) {
                (true, true) => a.both_same += 1,
                (true, false) => a.exact_only += 1,
                (false, true) => a.llm_only += 1,
                (false, false) => a.neither += 1,
            }
        }
        a.kappa = kappa(a.both_same, a.exact_only, a.llm_only, a.neither);
        a
    }
}

/// Cohen's κ of a 2×2 table (`a`: both yes, `b`: first rater only, `c`:
/// second rater only, `d`: neither): (p_o − p_e) / (1 − p_e), with p_o the
/// observed agreement and p_e the agreement the raters' marginals give by
/// chance; `None` for an empty table or p_e = 1.
pub fn kappa(a: usize, b: usize, c: usize, d: usize) -> Option<f64> {
    let n = (a + b + c + d) as f64;
    if n == 0.0 {
        return None;
    }
    let observed = (a + d) as f64 / n;
    let first_yes = (a + b) as f64 / n;
    let second_yes = (a + c) as f64 / n;
    let chance = first_yes * second_yes + (1.0 - first_yes) * (1.0 - second_yes);
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    Some((observed - chance) / (1.0 - chance))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_of_a_textbook_table() {
        // Cohen (1960)-style example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no:
        // p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
        let k = kappa(20, 5, 10, 15).unwrap();
        assert!((k - 0.4).abs() < 1e-12, "{k}");
    }

    #[test]
    fn perfect_and_opposite_agreement() {
        assert_eq!(kappa(3, 0, 0, 2), Some(1.0));
        // always disagreeing with balanced marginals: κ = −1
        assert_eq!(kappa(0, 2, 2, 0), Some(-1.0));
    }

    #[test]
    fn degenerate_tables_have_no_kappa() {
        assert_eq!(kappa(0, 0, 0, 0), None);
        // both raters always say "not same": chance agreement is 1
        assert_eq!(kappa(0, 0, 0, 7), None);
        assert_eq!(kappa(4, 0, 0, 0), None);
        // one rater constant, the other not: p_e < 1, κ = 0
        assert_eq!(kappa(0, 0, 3, 5), Some(0.0));
    }

    #[test]
    fn the_table_counts_each_cell() {
        let a = Agreement::of([(true, true), (true, false), (false, true), (false, false)]);
        assert_eq!(
            (a.answers, a.both_same, a.exact_only, a.llm_only, a.neither),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(a.kappa, Some(0.0));
    }
}
