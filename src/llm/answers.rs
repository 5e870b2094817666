//! Which answer pairs of one question the LLM judge is asked about, and how
//! its verdicts count (docs/scoring.md, The LLM judge). A run answer is
//! judged when it is free text (every term a literal). When exact match left
//! it unmatched, it is asked against every gold answer exact match left
//! unmatched (*deciding* asks); the `same` pairs then add a maximum one-to-one
//! matching of their own to exact match's, so no answer counts twice. When
//! exact match matched it, it is asked once against its matched gold answer
//! (an *agreement* ask, which changes no score): together they give the table
//! of Cohen's κ.

use std::collections::HashMap;

use crate::model::{Answer, Term};

use super::{Agreement, Ask, AskKind, Decision, Judge, Verdict, VerdictCounts};

/// The most deciding asks of one question; past it the question is not
/// judged (its diagnostic says so).
pub const MAX_ASKS_PER_QUESTION: usize = 100;

/// What an ask is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Exact match left both unmatched: a `same` may add a match.
    Decide { gold: usize, run: usize },
    /// Exact match matched them: for agreement only.
    Agree { run: usize },
}

/// The asks of one question.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The asks, in a fixed order (run answers, then gold answers, by position).
    pub asks: Vec<Ask>,
    roles: Vec<Role>,
    /// Why the question is not judged, when it is not.
    pub skipped: Option<String>,
    /// The run answers (by position) whose text is instruction-like
    /// ([`super::prompt::suspicious`]): their `same` is never counted.
    pub suspicious: Vec<usize>,
}

/// What the verdicts of one question's asks come to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Matches the `same` verdicts add to exact match's.
    pub added: usize,
    /// Per free-text run answer judged: (exact match matched it, the judge
    /// said `same`).
    pub agreement: Vec<(bool, bool)>,
    /// The diagnostics of the verdicts (failed calls, unreadable replies), once each.
    pub diagnostics: Vec<String>,
    /// Suspicious run answers asked about.
    pub suspicious: usize,
}

/// The asks of one question: `gold[k]` is the text of the k-th gold answer,
/// `run[k]` the text of the k-th run answer when it is free text, and `exact`
/// exact match's pairs (gold position, run position).
pub fn plan(
    question: &str,
    gold: &[String],
    run: &[Option<String>],
    exact: &[(usize, usize)],
) -> Plan {
    let gold_matched = |g: usize| exact.iter().any(|&(eg, _)| eg == g);
    let unmatched_gold: Vec<usize> = (0..gold.len()).filter(|&g| !gold_matched(g)).collect();
    let mut out = Plan::default();
    let ask = |g: usize, text: &str| Ask {
        kind: AskKind::Answer,
        question: question.to_string(),
        gold: gold[g].clone(),
        run: text.to_string(),
    };
    let deciding = run
        .iter()
        .enumerate()
        .filter(|(r, t)| t.is_some() && !exact.iter().any(|&(_, er)| er == *r))
        .count()
        * unmatched_gold.len();
    let agreeing = run
        .iter()
        .enumerate()
        .filter(|(r, t)| t.is_some() && exact.iter().any(|&(_, er)| er == *r))
        .count();
    if deciding + agreeing > MAX_ASKS_PER_QUESTION {
        out.skipped = Some(format!(
            "llm judge: not asked, the question has {deciding} free-text answer pairs that exact match left and {agreeing} it matched, more than {MAX_ASKS_PER_QUESTION} asks"
        ));
        return out;
    }
    for (r, text) in run.iter().enumerate() {
        let Some(text) = text else { continue };
        if super::prompt::suspicious(text) {
            out.suspicious.push(r);
        }
        match exact.iter().find(|&&(_, er)| er == r) {
            Some(&(g, _)) => {
                out.asks.push(ask(g, text));
                out.roles.push(Role::Agree { run: r });
            }
            None => {
                for &g in &unmatched_gold {
                    out.asks.push(ask(g, text));
                    out.roles.push(Role::Decide { gold: g, run: r });
                }
            }
        }
    }
    out
}

/// What `decisions` (one per ask of `plan`, in order) come to.
pub fn outcome(plan: &Plan, decisions: &[Decision]) -> Outcome {
    let mut out = Outcome::default();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    // per run answer: (matched by exact match, judged same), in ask order
    let mut judged: Vec<(usize, bool, bool)> = Vec::new();
    for (role, d) in plan.roles.iter().zip(decisions) {
        if let Some(why) = &d.diagnostic {
            if !out.diagnostics.contains(why) {
                out.diagnostics.push(why.clone());
            }
        }
        let run_of = match *role {
            Role::Agree { run } | Role::Decide { run, .. } => run,
        };
        // a suspicious answer's `same` is the judge's word against its own
        // instructions: never counted
        let flagged = plan.suspicious.contains(&run_of);
        if flagged && d.verdict == Verdict::Same {
            let why = "the system answer holds instruction-like text (suspicious): its `same` verdict is not counted (docs/scoring.md, The LLM judge)".to_string();
            if !out.diagnostics.contains(&why) {
                out.diagnostics.push(why);
            }
        }
        let same = d.verdict == Verdict::Same && !flagged;
        let (run, exact) = match *role {
            Role::Agree { run } => (run, true),
            Role::Decide { gold, run } => {
                if same {
                    edges.push((gold, run));
                }
                (run, false)
            }
        };
        match judged.iter_mut().find(|(r, _, _)| *r == run) {
            Some(entry) => entry.2 |= same,
            None => judged.push((run, exact, same)),
        }
    }
    out.agreement = judged.into_iter().map(|(_, e, s)| (e, s)).collect();
    out.added = max_matching(&edges);
    out.suspicious = plan.suspicious.len();
    out
}

/// One QA question as the judge sees it: its answer sets (each answer as the
/// matching counted it, by position) and exact match's pairs.
#[derive(Debug, Clone)]
pub struct QuestionPairs<'a> {
    /// The question id.
    pub id: &'a str,
    /// The question text.
    pub question: &'a str,
    /// The gold answers, by position in the gold set.
    pub gold: Vec<&'a Answer>,
    /// The run answers, by position in the run set.
    pub run: Vec<&'a Answer>,
    /// Exact match's pairs (gold position, run position).
    pub exact: Vec<(usize, usize)>,
}

/// The judge's verdicts on a run's QA answers.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    /// Question id → (matches added, diagnostics).
    pub questions: HashMap<String, (usize, Vec<String>)>,
    /// The verdicts.
    pub counts: VerdictCounts,
    /// The table of κ.
    pub agreement: Agreement,
    /// Questions not judged for too many pairs.
    pub skipped: usize,
    /// Suspicious run answers asked about (none of their `same` counted).
    pub suspicious: usize,
}

impl Judged {
    /// The matches the judge adds to a question's, and its diagnostics.
    pub fn of(&self, id: &str) -> (usize, &[String]) {
        self.questions
            .get(id)
            .map_or((0, &[][..]), |(n, d)| (*n, d.as_slice()))
    }

    /// Matches added over the run.
    pub fn matched(&self) -> usize {
        self.questions.values().map(|(n, _)| n).sum()
    }

    /// Questions whose TP the judge changed.
    pub fn changed(&self) -> usize {
        self.questions.values().filter(|(n, _)| *n > 0).count()
    }
}

/// Asks the judge about every question's pairs at once (so the calls of the
/// whole run share the bound on calls at once) and counts the verdicts.
pub fn judge_answers(judge: &Judge, questions: &[QuestionPairs<'_>]) -> Judged {
    let mut out = Judged::default();
    let plans: Vec<Plan> = questions
        .iter()
        .map(|q| {
            let gold: Vec<String> = q.gold.iter().map(|a| gold_text(a)).collect();
            let run: Vec<Option<String>> = q.run.iter().map(|a| free_text(a)).collect();
            plan(q.question, &gold, &run, &q.exact)
        })
        .collect();
    let asks: Vec<Ask> = plans.iter().flat_map(|p| p.asks.iter().cloned()).collect();
    let decisions = judge.decide_all(&asks);
    let mut at = 0;
    let mut table = Vec::new();
    for (q, p) in questions.iter().zip(&plans) {
        let mine = &decisions[at..at + p.asks.len()];
        at += p.asks.len();
        for d in mine {
            out.counts.add(d);
        }
        let mut o = outcome(p, mine);
        out.suspicious += o.suspicious;
        if let Some(why) = &p.skipped {
            out.skipped += 1;
            o.diagnostics.push(why.clone());
        }
        table.extend(o.agreement.iter().copied());
        if o.added > 0 || !o.diagnostics.is_empty() {
            let diags = o
                .diagnostics
                .into_iter()
                .map(|d| {
                    if d.starts_with("llm judge") {
                        d
                    } else {
                        format!("llm judge: {d}")
                    }
                })
                .collect();
            out.questions.insert(q.id.to_string(), (o.added, diags));
        }
    }
    out.agreement = Agreement::of(table);
    out
}

/// The size of a maximum one-to-one matching over `edges` (gold, run)
/// (augmenting paths; at most [`MAX_ASKS_PER_QUESTION`] edges).
fn max_matching(edges: &[(usize, usize)]) -> usize {
    let mut golds: Vec<usize> = edges.iter().map(|e| e.0).collect();
    golds.sort_unstable();
    golds.dedup();
    // run answer → the gold answer it is matched to
    let mut matched: Vec<(usize, usize)> = Vec::new();
    fn augment(
        g: usize,
        edges: &[(usize, usize)],
        seen: &mut Vec<usize>,
        matched: &mut Vec<(usize, usize)>,
    ) -> bool {
        for &(eg, r) in edges {
            if eg != g || seen.contains(&r) {
                continue;
            }
            seen.push(r);
            let holder = matched.iter().position(|&(mr, _)| mr == r);
            let free = match holder {
                None => true,
                Some(i) => {
                    let other = matched[i].1;
                    augment(other, edges, seen, matched)
                }
            };
            if free {
                matched.retain(|&(mr, _)| mr != r);
                matched.push((r, g));
                return true;
            }
        }
        false
    }
    let mut size = 0;
    for g in golds {
        let mut seen = Vec::new();
        if augment(g, edges, &mut seen, &mut matched) {
            size += 1;
        }
    }
    size
}

/// The text of a run answer when it is free text (every term a literal, at
/// least one): the lexical forms joined by ` / `; `None` otherwise.
pub fn free_text(answer: &Answer) -> Option<String> {
    let mut parts = Vec::new();
    for t in &answer.terms {
        match t {
            Term::Literal { lexical, .. } => parts.push(lexical.trim()),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join(" / "))
}

/// The text of a gold answer as the judge reads it: its literals (a label the
/// row gives) joined by ` / `, then each IRI in angle brackets, preceded by
/// its local name read as words when the row gives no literal; a boolean as
/// `true` or `false`.
pub fn gold_text(answer: &Answer) -> String {
    let literals: Vec<&str> = answer
        .terms
        .iter()
        .filter_map(|t| match t {
            Term::Literal { lexical, .. } => Some(lexical.trim()),
            _ => None,
        })
        .collect();
    let mut parts = Vec::new();
    if !literals.is_empty() {
        parts.push(literals.join(" / "));
    }
    for t in &answer.terms {
        match t {
            Term::Iri(iri) if literals.is_empty() => {
                parts.push(format!("{} <{iri}>", local_name(iri)));
            }
            Term::Iri(iri) => parts.push(format!("<{iri}>")),
            Term::Boolean(b) => parts.push(b.to_string()),
            Term::Literal { .. } => {}
        }
    }
    parts.join(" ")
}

/// The last segment of an IRI (after `/`, `#` or `:`), percent-decoded where
/// that gives UTF-8, underscores read as spaces: `Frank_Herbert`,
/// `Q42`.
pub fn local_name(iri: &str) -> String {
    let tail = iri
        .trim_end_matches('/')
        .rsplit(['/', '#', ':'])
        .next()
        .unwrap_or(iri);
    let bytes = tail.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b'_', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| tail.replace('_', " "))
}

#[cfg(test)]
mod tests {
    use super::super::Source;
    use super::*;

    fn decided(v: Verdict) -> Decision {
        Decision {
            verdict: v,
            source: Source::Called,
            failed: false,
            unreadable: false,
            diagnostic: None,
            check: None,
        }
    }

    #[test]
    fn unmatched_free_text_is_asked_against_unmatched_gold() {
        let gold = vec!["A <a>".to_string(), "B <b>".to_string()];
        let run = vec![Some("a".to_string()), None, Some("x".to_string())];
        // exact match paired gold 0 with run 0
        let p = plan("q", &gold, &run, &[(0, 0)]);
        let pairs: Vec<(&str, &str)> = p
            .asks
            .iter()
            .map(|a| (a.gold.as_str(), a.run.as_str()))
            .collect();
        assert_eq!(pairs, [("A <a>", "a"), ("B <b>", "x")]);
        let o = outcome(&p, &[decided(Verdict::Same), decided(Verdict::Same)]);
        assert_eq!(o.added, 1);
        assert_eq!(o.agreement, [(true, true), (false, true)]);
    }

    #[test]
    fn same_verdicts_count_one_to_one() {
        let gold = vec!["A".to_string()];
        let run = vec![Some("a1".to_string()), Some("a2".to_string())];
        let p = plan("q", &gold, &run, &[]);
        // both run answers judged the same as the one gold answer: one match
        let o = outcome(&p, &[decided(Verdict::Same), decided(Verdict::Same)]);
        assert_eq!(o.added, 1);
        // an augmenting path: r0–g0, r0–g1, r1–g0 gives two
        assert_eq!(max_matching(&[(0, 0), (1, 0), (0, 1)]), 2);
        assert_eq!(max_matching(&[]), 0);
    }

    #[test]
    fn too_many_pairs_are_not_asked() {
        let gold: Vec<String> = (0..11).map(|i| i.to_string()).collect();
        let run: Vec<Option<String>> = (0..10).map(|i| Some(i.to_string())).collect();
        let p = plan("q", &gold, &run, &[]);
        assert!(p.asks.is_empty() && p.skipped.is_some());
    }

    #[test]
    fn texts_of_answers() {
        let iri = Answer::single(Term::Iri(
            "http://dbpedia.org/resource/Frank_Herbert".into(),
        ));
        assert_eq!(
            gold_text(&iri),
            "Frank Herbert <http://dbpedia.org/resource/Frank_Herbert>"
        );
        let labelled = Answer {
            terms: vec![Term::Iri("http://x/Q1".into()), Term::plain("One")],
        };
        assert_eq!(gold_text(&labelled), "One <http://x/Q1>");
        assert_eq!(local_name("http://x/Caf%C3%A9_Nero"), "Café Nero");
        assert_eq!(
            free_text(&Answer::single(Term::plain(" Dune "))),
            Some("Dune".into())
        );
        assert_eq!(free_text(&iri), None);
    }
}
