//! One draw of a micro-benchmark (docs/features.md, "Sampling"), shared by
//! `qajudge sample` and `POST /api/v1/sample`: the rows of a selection (a
//! SELECT's answers: the question, then its features) read as candidates, their
//! vectors normalised, a method applied, and the summary (size, diversity,
//! representativeness, the chosen ids). Pure: the caller runs the selection.

use std::collections::BTreeMap;

use serde::Serialize;

use super::vocab::question_id;
use super::{cluster, select};
use crate::model::{AnswerSet, Term};

/// How a sample is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// FEASIBLE: exemplars, clusters around them, prototypes.
    Feasible,
    /// FEASIBLE's exemplars only.
    FeasibleExemplars,
    /// k-means with k-means++ seeding.
    Kmeans,
    /// DBSCAN's outlier removal, then k-means++.
    DbscanKmeans,
    /// Average-linkage clustering cut at the size closest to the one asked.
    Agglomerative,
    /// A seeded random sample.
    Random,
}

impl Method {
    /// Every method by its name.
    pub const ALL: [(&'static str, Method); 6] = [
        ("feasible", Method::Feasible),
        ("feasible-exemplars", Method::FeasibleExemplars),
        ("kmeans++", Method::Kmeans),
        ("dbscan+kmeans++", Method::DbscanKmeans),
        ("agglomerative", Method::Agglomerative),
        ("random", Method::Random),
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        Method::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("feasible", |(n, _)| n)
    }

    /// The method of a name.
    pub fn parse(name: &str) -> Option<Method> {
        Method::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, m)| *m)
    }
}

/// How to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The method.
    pub method: Method,
    /// Questions asked for.
    pub size: usize,
    /// The seed of `random` and the k-means methods.
    pub seed: u64,
    /// DBSCAN's radius (normalised units).
    pub radius: f64,
    /// DBSCAN's fewest vectors within the radius of a core one.
    pub min_points: usize,
    /// k-means' most Lloyd steps per trial.
    pub max_iterations: usize,
    /// k-means' seeded restarts.
    pub trials: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            method: Method::Feasible,
            size: 10,
            seed: 0,
            radius: 0.1,
            min_points: 4,
            max_iterations: 100,
            trials: 10,
        }
    }
}

/// Why a selection or a draw gives no sample.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DrawError {
    /// Fewer than two variables.
    #[error("the selection has {0} variables; select the question first, then at least one numeric or boolean feature")]
    Variables(usize),
    /// The first variable is not an IRI.
    #[error("row {row}: ?{var} is {found}, not a question iri; select the question as the first variable")]
    NotQuestion {
        /// 1-based row.
        row: usize,
        /// The variable.
        var: String,
        /// What it is.
        found: String,
    },
    /// The first variable is unbound.
    #[error("row {row}: ?{var} is unbound; every row needs its question")]
    Unbound {
        /// 1-based row.
        row: usize,
        /// The variable.
        var: String,
    },
    /// A feature that is no number.
    #[error("row {row} (question {question}): ?{var} is {found}, neither a number nor a boolean; select numeric or boolean features only")]
    NotNumber {
        /// 1-based row.
        row: usize,
        /// The question id.
        question: String,
        /// The variable.
        var: String,
        /// What it is.
        found: String,
    },
    /// A question on two rows.
    #[error(
        "question {0} is on more than one row; give one row per question (GROUP BY the question)"
    )]
    TwoRows(String),
    /// Nothing selected.
    #[error("the selection gives no question; loosen it or check the inputs")]
    Empty,
    /// A size of 0.
    #[error("a size of 0 draws nothing; give the number of questions the sample should have")]
    ZeroSize,
    /// More asked than there are.
    #[error("a size of {size} is more than the {candidates} questions the selection gives; give at most {candidates}")]
    TooLarge {
        /// Asked.
        size: usize,
        /// There are.
        candidates: usize,
    },
    /// A radius that is not a positive number.
    #[error("radius {0} is not a positive number; give one such as 0.1")]
    Radius(f64),
    /// DBSCAN left nothing.
    #[error("dbscan with radius {radius} and min points {min_points} leaves no question (all are outliers); raise the radius or lower min points")]
    AllOutliers {
        /// The radius.
        radius: f64,
        /// The min points.
        min_points: usize,
    },
    /// Too many distinct vectors for agglomerative clustering.
    #[error("agglomerative clustering takes at most {max} distinct vectors and the selection has {0}; select fewer questions or features, or use kmeans++", max = cluster::MAX_AGGLOMERATIVE)]
    TooManyForAgglomerative(usize),
}

/// The candidates of a selection: question IRIs and raw feature values,
/// ordered by IRI.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    /// The feature variables, in the selection's order.
    pub features: Vec<String>,
    /// The questions' IRIs.
    pub iris: Vec<String>,
    /// Their ids ([`question_id`]).
    pub ids: Vec<String>,
    /// Their raw feature values.
    pub raw: Vec<Vec<f64>>,
}

/// The numeric value of a feature's term: a number, or a boolean as 0/1.
fn number(t: &Term) -> Option<f64> {
    match t {
        Term::Boolean(b) => Some(f64::from(u8::from(*b))),
        Term::Literal { lexical, .. } => match lexical.trim() {
            "true" => Some(1.0),
            "false" => Some(0.0),
            x => x.parse::<f64>().ok().filter(|n| n.is_finite()),
        },
        Term::Iri(_) => None,
    }
}

/// Reads a selection's rows (`columns`: per row, the variable of each term):
/// one per question, an unbound feature 0.
pub fn candidates(answers: &AnswerSet, columns: &[Vec<usize>]) -> Result<Candidates, DrawError> {
    let vars = &answers.vars;
    if vars.len() < 2 {
        return Err(DrawError::Variables(vars.len()));
    }
    let mut rows: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (n, (answer, cols)) in answers.answers.iter().zip(columns).enumerate() {
        let row = n + 1;
        let iri = answer
            .terms
            .iter()
            .zip(cols)
            .find(|(_, c)| **c == 0)
            .map(|(t, _)| t);
        let iri = match iri {
            Some(Term::Iri(i)) => i.clone(),
            Some(other) => {
                return Err(DrawError::NotQuestion {
                    row,
                    var: vars[0].clone(),
                    found: format!("{other:?}"),
                })
            }
            None => {
                return Err(DrawError::Unbound {
                    row,
                    var: vars[0].clone(),
                })
            }
        };
        let mut values = vec![0.0; vars.len() - 1];
        for (t, &c) in answer.terms.iter().zip(cols) {
            if c == 0 {
                continue;
            }
            values[c - 1] = number(t).ok_or_else(|| DrawError::NotNumber {
                row,
                question: question_id(&iri),
                var: vars[c].clone(),
                found: format!("{t:?}"),
            })?;
        }
        if rows.insert(iri.clone(), values).is_some() {
            return Err(DrawError::TwoRows(question_id(&iri)));
        }
    }
    if rows.is_empty() {
        return Err(DrawError::Empty);
    }
    let (iris, raw): (Vec<String>, Vec<Vec<f64>>) = rows.into_iter().unzip();
    Ok(Candidates {
        features: vars[1..].to_vec(),
        ids: iris.iter().map(|i| question_id(i)).collect(),
        iris,
        raw,
    })
}

/// A drawn sample.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// The method's name.
    pub method: &'static str,
    /// Questions drawn.
    pub size: usize,
    /// Questions asked for (agglomerative clustering, and k-means over fewer
    /// distinct vectors, can give another number).
    pub requested_size: usize,
    /// The seed.
    pub seed: u64,
    /// The features of the vectors.
    pub features: Vec<String>,
    /// The candidates drawn from.
    pub candidates: usize,
    /// QaldGen's diversity (Definition 2).
    pub diversity: f64,
    /// FEASIBLE's similarity error (lower is more representative).
    pub representativeness: f64,
    /// The chosen question ids, in the order drawn.
    pub questions: Vec<String>,
    /// The chosen candidates (indices), in the order drawn.
    #[serde(skip)]
    pub chosen: Vec<usize>,
}

/// Draws a sample of the candidates.
pub fn draw(c: &Candidates, p: &Params) -> Result<Summary, DrawError> {
    if p.size == 0 {
        return Err(DrawError::ZeroSize);
    }
    if p.size > c.iris.len() {
        return Err(DrawError::TooLarge {
            size: p.size,
            candidates: c.iris.len(),
        });
    }
    let vectors = select::normalise(&c.raw);
    let ids = &c.ids;
    let all: Vec<usize> = (0..vectors.len()).collect();
    let chosen = match p.method {
        Method::Feasible => select::feasible(&vectors, ids, p.size),
        Method::FeasibleExemplars => select::exemplars(&vectors, ids, p.size),
        Method::Random => select::random(vectors.len(), p.size, p.seed),
        Method::Kmeans => {
            let clusters =
                cluster::kmeans(&vectors, &all, p.size, p.seed, p.max_iterations, p.trials);
            cluster::prototypes(&vectors, ids, &clusters)
        }
        Method::DbscanKmeans => {
            if !(p.radius.is_finite() && p.radius > 0.0) {
                return Err(DrawError::Radius(p.radius));
            }
            let keep = cluster::dbscan_keep(&vectors, p.radius, p.min_points);
            if keep.is_empty() {
                return Err(DrawError::AllOutliers {
                    radius: p.radius,
                    min_points: p.min_points,
                });
            }
            // the remaining vectors normalised again
            let kept: Vec<Vec<f64>> = keep.iter().map(|&i| c.raw[i].clone()).collect();
            let again = select::normalise(&kept);
            let mut full = vectors.clone();
            for (k, &i) in keep.iter().enumerate() {
                full[i].clone_from(&again[k]);
            }
            let clusters =
                cluster::kmeans(&full, &keep, p.size, p.seed, p.max_iterations, p.trials);
            cluster::prototypes(&full, ids, &clusters)
        }
        Method::Agglomerative => {
            let clusters = cluster::agglomerative(&vectors, p.size)
                .map_err(DrawError::TooManyForAgglomerative)?;
            cluster::prototypes(&vectors, ids, &clusters)
        }
    };
    Ok(Summary {
        method: p.method.name(),
        size: chosen.len(),
        requested_size: p.size,
        seed: p.seed,
        features: c.features.clone(),
        candidates: vectors.len(),
        diversity: select::diversity(&vectors, &chosen),
        representativeness: select::representativeness(&vectors, &chosen),
        questions: chosen.iter().map(|&i| ids[i].clone()).collect(),
        chosen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Answer;

    fn int(n: i64) -> Term {
        Term::Literal {
            lexical: n.to_string(),
            datatype: Some("http://www.w3.org/2001/XMLSchema#int".into()),
            lang: None,
        }
    }

    fn q(id: &str) -> Term {
        Term::Iri(format!("{}{id}", super::super::vocab::QUESTION))
    }

    #[test]
    fn rows_become_candidates() {
        let set = AnswerSet {
            vars: vec!["question".into(), "tps".into(), "union".into()],
            answers: vec![
                Answer {
                    terms: vec![q("2"), int(3), Term::Boolean(true)],
                },
                // ?tps unbound: 0
                Answer {
                    terms: vec![q("10"), Term::plain("false")],
                },
            ],
            ..AnswerSet::default()
        };
        let c = candidates(&set, &[vec![0, 1, 2], vec![0, 2]]).expect("reads");
        // ordered by IRI: question#10 before question#2
        assert_eq!(c.ids, ["10", "2"]);
        assert_eq!(c.raw, vec![vec![0.0, 0.0], vec![3.0, 1.0]]);
        assert_eq!(c.features, ["tps", "union"]);
        let s = draw(
            &c,
            &Params {
                size: 1,
                method: Method::FeasibleExemplars,
                ..Params::default()
            },
        )
        .expect("draws");
        // the mean is (0.5, 0.5): both are as far; the smaller id "10" wins
        assert_eq!(s.questions, ["10"]);
        assert_eq!(
            draw(
                &c,
                &Params {
                    size: 3,
                    ..Params::default()
                }
            ),
            Err(DrawError::TooLarge {
                size: 3,
                candidates: 2
            })
        );
    }

    #[test]
    fn bad_rows_are_named() {
        let set = |terms: Vec<Term>| AnswerSet {
            vars: vec!["question".into(), "tps".into()],
            answers: vec![Answer { terms }],
            ..AnswerSet::default()
        };
        let e = candidates(&set(vec![q("7"), Term::plain("many")]), &[vec![0, 1]]);
        assert!(
            matches!(e, Err(DrawError::NotNumber { row: 1, ref question, .. }) if question == "7")
        );
        let e = candidates(&set(vec![int(1), int(2)]), &[vec![0, 1]]);
        assert!(matches!(e, Err(DrawError::NotQuestion { row: 1, .. })));
        let e = candidates(&set(vec![int(2)]), &[vec![1]]);
        assert!(matches!(e, Err(DrawError::Unbound { row: 1, .. })));
        let two = AnswerSet {
            vars: vec!["question".into(), "tps".into()],
            answers: vec![
                Answer {
                    terms: vec![q("7"), int(1)],
                },
                Answer {
                    terms: vec![q("7"), int(2)],
                },
            ],
            ..AnswerSet::default()
        };
        assert_eq!(
            candidates(&two, &[vec![0, 1], vec![0, 1]]),
            Err(DrawError::TwoRows("7".into()))
        );
        let empty = AnswerSet {
            vars: vec!["question".into(), "tps".into()],
            ..AnswerSet::default()
        };
        assert_eq!(candidates(&empty, &[]), Err(DrawError::Empty));
        assert_eq!(
            candidates(&AnswerSet::default(), &[]),
            Err(DrawError::Variables(0))
        );
    }
}
