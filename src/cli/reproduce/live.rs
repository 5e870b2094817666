//! `reproduce` and the live sources of a report (docs/reproduce.md): each
//! live system and endpoint the receipt names must have its record in the
//! report's `recorded`, with the digest the receipt holds (else it is named
//! as missing or changed); `--re-execute` asks them again and names the
//! drift: each system call whose answer changed, each endpoint reply that
//! changed, and each question whose figures moved.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::eval::receipt::Receipt;
use crate::eval::recorded::{EndpointTape, Recorded, SystemTape};

/// The most drift lines printed per kind.
const SHOWN: usize = 20;

/// Why the receipt's live sources cannot be scored from their records, if
/// so: the verdict (`live` for a report whose qajudge recorded no answers,
/// `missing` for a record that is absent or changed) and a line per source.
pub fn unrecorded(receipt: &Receipt, recorded: &Recorded) -> Option<(&'static str, Vec<String>)> {
    let mut old = Vec::new();
    let mut problems = Vec::new();
    for l in &receipt.live {
        let what = match &l.run {
            Some(run) => format!("{} {run:?} ({})", l.role, l.url),
            None => format!("{} {}", l.role, l.url),
        };
        let digest = match l.role.as_str() {
            "system" => recorded
                .systems
                .iter()
                .find(|t| Some(&t.run) == l.run.as_ref())
                .map(SystemTape::digest),
            _ => recorded.endpoint.as_ref().map(EndpointTape::digest),
        };
        let omitted = if l.role == "system" {
            recorded
                .systems
                .iter()
                .filter(|t| Some(&t.run) == l.run.as_ref())
                .flat_map(|t| &t.calls)
                .filter(|c| c.omitted)
                .count()
        } else {
            recorded
                .endpoint
                .iter()
                .flat_map(|t| &t.queries)
                .filter(|r| r.omitted)
                .count()
        };
        if omitted > 0 {
            old.push(format!(
                "cannot reproduce: the record of the {what} omits {omitted} answer(s) past its bound of {} MiB; it cannot be scored again as it was asked",
                crate::eval::recorded::MAX_RECORDED_BYTES >> 20
            ));
            continue;
        }
        match (&l.recorded_sha256, digest) {
            (None, _) => old.push(format!(
                "cannot reproduce: the {what} was asked live, and the report (of an older qajudge) does not record what it answered; evaluate again to get a report that does"
            )),
            (Some(want), None) => problems.push(format!(
                "missing: the record of what the {what} answered (the report's `recorded`, sha256 {})",
                short(want)
            )),
            (Some(want), Some(got)) if *want != got => problems.push(format!(
                "changed: the record of what the {what} answered: sha256 {} → {}",
                short(want),
                short(&got)
            )),
            _ => {}
        }
    }
    if !old.is_empty() {
        return Some(("live", old));
    }
    (!problems.is_empty()).then_some(("missing", problems))
}

/// The records of the live sources the receipt names, in its order (each
/// system's by its run), and nothing else: only those whose digests
/// [`unrecorded`] checked are replayed.
pub fn checked(receipt: &Receipt, mut recorded: Recorded) -> Recorded {
    let mut systems = Vec::new();
    for l in receipt.live.iter().filter(|l| l.role == "system") {
        if let Some(i) = recorded
            .systems
            .iter()
            .position(|t| Some(&t.run) == l.run.as_ref())
        {
            systems.push(recorded.systems.swap_remove(i));
        }
    }
    let endpoint = receipt
        .live
        .iter()
        .any(|l| l.role == "endpoint")
        .then(|| recorded.endpoint.take())
        .flatten();
    Recorded { systems, endpoint }
}

/// The drift between what was recorded (`then`, and the report scored from
/// it, `scored`) and what the live sources answer now (`now`, `again`): per
/// system call whose answer changed, per endpoint reply that changed, per
/// question whose figures moved.
pub fn drift(then: &Recorded, now: &Recorded, scored: &Value, again: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for tape in &then.systems {
        let Some(new) = now.systems.iter().find(|t| t.run == tape.run) else {
            continue;
        };
        let calls: HashMap<&str, &crate::eval::recorded::Call> =
            new.calls.iter().map(|c| (c.id.as_str(), c)).collect();
        let mut changed = Vec::new();
        for call in &tape.calls {
            let why = match calls.get(call.id.as_str()) {
                None => Some("not asked now".to_string()),
                Some(c) => call_drift(&tape.asked.protocol, call, c),
            };
            if let Some(why) = why {
                changed.push(format!(
                    "drift: system {:?}, question {:?}: {why}",
                    tape.run, call.id
                ));
            }
        }
        push_shown(&mut lines, changed, &format!("system {:?}", tape.run));
    }
    if let (Some(a), Some(b)) = (&then.endpoint, &now.endpoint) {
        let replies: BTreeMap<&str, &crate::eval::recorded::Reply> =
            b.queries.iter().map(|r| (r.query.as_str(), r)).collect();
        let mut changed = Vec::new();
        for r in &a.queries {
            let why = match replies.get(r.query.as_str()) {
                None => Some("not executed now".to_string()),
                Some(n) if n.status != r.status => Some(format!("{} → {}", r.status, n.status)),
                Some(n) if rows(&n.rows) != rows(&r.rows) => {
                    Some(match (&r.rows[..], &n.rows[..]) {
                        ([a], [b]) => format!(
                            "{} → {}",
                            serde_json::to_string(a).unwrap_or_default(),
                            serde_json::to_string(b).unwrap_or_default()
                        ),
                        _ => format!("its rows changed: {} → {}", r.rows.len(), n.rows.len()),
                    })
                }
                _ => None,
            };
            if let Some(why) = why {
                changed.push(format!(
                    "drift: endpoint, query {}: {why}",
                    excerpt(&r.query)
                ));
            }
        }
        push_shown(&mut lines, changed, "endpoint");
    }
    let mut moved = Vec::new();
    for (r, run) in runs(scored).iter().enumerate() {
        let name = run["name"].as_str().unwrap_or_default();
        let Some(experiments) = run["experiments"].as_object() else {
            continue;
        };
        for (e, report) in experiments {
            let Some(questions) = report["questions"].as_array() else {
                continue;
            };
            let now =
                &runs(again).get(r).cloned().unwrap_or(Value::Null)["experiments"][e]["questions"];
            for (i, q) in questions.iter().enumerate() {
                let mut out = Vec::new();
                let mut n = 0;
                super::compare("", &scores(q), &scores(&now[i]), &mut n, &mut out);
                if let Some(first) = out.first() {
                    moved.push(format!(
                        "drift: run {name:?}, {e}, question {}: {}{}",
                        q["id"],
                        first
                            .trim_start_matches('.')
                            .replace(" (report) vs ", " (recorded) vs "),
                        if out.len() > 1 {
                            format!(" (and {} more)", out.len() - 1)
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
    }
    push_shown(&mut lines, moved, "questions' scores");
    lines
}

/// Why a call's answer changed, if it did: the parsed answers (rows as sets)
/// and query compared, or an answer against a failure.
fn call_drift(
    protocol: &str,
    then: &crate::eval::recorded::Call,
    now: &crate::eval::recorded::Call,
) -> Option<String> {
    match (&then.body, &now.body) {
        (Some(a), Some(b)) if a == b => None,
        (Some(a), Some(b)) => {
            let (x, y) = (
                crate::live::read_reply(protocol, a),
                crate::live::read_reply(protocol, b),
            );
            match (x, y) {
                (Some(x), Some(y)) if x == y => None,
                (Some(x), Some(y)) if x.0 != y.0 => Some(format!(
                    "its answers changed: {} → {} row(s)",
                    x.0.len(),
                    y.0.len()
                )),
                (Some(_), Some(_)) => Some("its query changed".into()),
                _ => Some("its answer changed".into()),
            }
        }
        (Some(_), None) => Some(format!(
            "it answered then, and now fails: {}",
            now.error.as_deref().unwrap_or_default()
        )),
        (None, Some(_)) => Some(format!(
            "it failed then ({}), and now answers",
            then.error.as_deref().unwrap_or_default()
        )),
        (None, None) => None,
    }
}

/// A question's figures: its entry without what is not a score (its
/// diagnostics, executions, explanation and usage, whose latency drifts on
/// every call).
fn scores(question: &Value) -> Value {
    let mut q = question.clone();
    if let Some(o) = q.as_object_mut() {
        for k in [
            "diagnostics",
            "execution",
            "gold_execution",
            "explanation",
            "usage",
        ] {
            o.remove(k);
        }
    }
    q
}

/// Rows as a sorted list (the order of a result is not its content).
fn rows(rows: &[Vec<crate::eval::recorded::RecordedTerm>]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect();
    out.sort();
    out
}

fn runs(report: &Value) -> Vec<Value> {
    report["runs"].as_array().cloned().unwrap_or_default()
}

/// Adds at most [`SHOWN`] of `changed`, and how many more there are.
fn push_shown(lines: &mut Vec<String>, changed: Vec<String>, of: &str) {
    let total = changed.len();
    lines.extend(changed.into_iter().take(SHOWN));
    if total > SHOWN {
        lines.push(format!(
            "drift: {} more of the {of} (the first {SHOWN} shown)",
            total - SHOWN
        ));
    }
}

/// A query's first 60 characters after its prologue (`PREFIX`, `BASE`), on
/// one line, quoted.
fn excerpt(query: &str) -> String {
    let mut words = query.split_whitespace().peekable();
    // a declaration is its keyword, its name (for PREFIX) and its IRI
    while let Some(w) = words.peek() {
        let skip = match w.to_ascii_uppercase().as_str() {
            "PREFIX" => 3,
            "BASE" => 2,
            _ => 0,
        };
        if skip == 0 {
            break;
        }
        for _ in 0..skip {
            words.next();
        }
    }
    let line: String = words.collect::<Vec<_>>().join(" ");
    let cut: String = line.chars().take(60).collect();
    if cut.len() < line.len() {
        format!("{:?}", cut + "…")
    } else {
        format!("{cut:?}")
    }
}

fn short(sha: &str) -> String {
    sha.chars().take(12).collect::<String>() + "…"
}
