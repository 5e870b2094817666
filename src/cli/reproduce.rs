//! `qajudge reproduce REPORT.json [--inputs DIR]` (docs/reproduce.md): reads
//! a report's receipt, checks that its hash is its content's, finds each
//! input (where the receipt names it, or in `--inputs` by name or by digest)
//! and checks its digest, naming every input that is missing or changed (exit
//! 2); then evaluates again from the receipt alone — the options it recorded,
//! never today's defaults — and compares every figure of the two reports
//! (the runs with their aggregates, questions and official figures, the
//! comparisons, the unstable questions, the audit): "reproduced: N figures,
//! all equal", or each differing figure with both values (exit 1). Live
//! systems and endpoints answer as the report recorded them (`live`);
//! `--re-execute` asks them again and names the drift (exit 1).

mod live;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Parser};
use serde_json::Value;

use super::outln;
use crate::eval::receipt::{Input, Receipt, RECEIPT_VERSION};
use crate::eval::recorded::Recorded;

/// Arguments of `qajudge reproduce`.
#[derive(Debug, Args)]
pub struct ReproduceArgs {
    /// The report, as `qajudge evaluate --format json` wrote it.
    #[arg(value_name = "REPORT")]
    pub report: PathBuf,
    /// A directory holding the inputs, found by file name or by digest when
    /// they are not where the receipt names them.
    #[arg(long, value_name = "DIR")]
    pub inputs: Option<PathBuf>,
    /// Also ask the report's live systems and endpoint again, and name each
    /// answer, reply and question score that drifted from what the report
    /// recorded (exit 1 on drift).
    #[arg(long)]
    pub re_execute: bool,
}

/// The most files `--inputs` is searched through for a digest.
const MAX_SCANNED: usize = 20_000;
/// The most differences printed.
const SHOWN: usize = 50;

/// What `reproduce` found: the verdict, the figures compared, and its lines
/// (each missing or changed input, each differing figure, then the summary).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Outcome {
    /// `reproduced` (exit 0), `differs` (exit 1), `drifted` (reproduced
    /// from the records, and `--re-execute` found a live source answering
    /// otherwise now: exit 1), `missing` (an input, or the record of a live
    /// source, is missing or changed; nothing evaluated: exit 2), `live` (a
    /// report of an older qajudge asked a live source and recorded not what
    /// it answered: exit 2) or `refused` (an LLM judge was asked, or an
    /// input the profile read is not recorded: exit 2).
    pub verdict: &'static str,
    /// The figures compared (0 when nothing was evaluated).
    pub figures: usize,
    /// The receipt's hash as the report gives it.
    pub receipt: String,
    /// What is printed, one line each.
    pub lines: Vec<String>,
}

impl Outcome {
    /// The command's exit code.
    pub fn exit_code(&self) -> u8 {
        match self.verdict {
            "reproduced" => 0,
            "differs" | "drifted" => 1,
            _ => 2,
        }
    }
}

/// Runs `qajudge reproduce`.
pub fn run(args: ReproduceArgs) -> anyhow::Result<ExitCode> {
    let bytes = super::input::read(&args.report)?;
    let outcome = check(
        &bytes,
        &args.report.display().to_string(),
        args.inputs.as_deref(),
        args.re_execute,
    )?;
    for line in &outcome.lines {
        outln!("{line}")?;
    }
    Ok(ExitCode::from(outcome.exit_code()))
}

/// Checks the report `bytes` (read from `source`) against its receipt:
/// finds and checks its inputs (where the receipt names them, else under
/// `inputs`), evaluates again from the receipt and compares every figure.
/// An error for a report that has no readable receipt. With `re_execute`,
/// also asks the live sources again and names the drift from their records.
pub fn check(
    bytes: &[u8],
    source: &str,
    inputs: Option<&Path>,
    re_execute: bool,
) -> anyhow::Result<Outcome> {
    let (mut report, receipt) = read_receipt(bytes, source)?;
    let outcome = |verdict, figures, lines| Outcome {
        verdict,
        figures,
        receipt: receipt.sha256.clone(),
        lines,
    };
    // an edited receipt is still evaluated as it now reads, so that the
    // figures its change moves are named; it never passes
    let hashed = receipt.hash();
    let edited = (hashed != receipt.sha256).then(|| {
        format!(
            "receipt: edited after it was written: it says sha256 {}, its content hashes to {hashed}",
            receipt.sha256
        )
    });
    if let Some(why) = refused(&receipt) {
        return Ok(outcome("refused", 0, vec![why]));
    }
    // taken out of the report (not copied: it may be large), and only the
    // records of the sources the receipt names are replayed
    let recorded: Recorded = match report.as_object_mut().and_then(|o| o.remove("recorded")) {
        Some(r) => serde_json::from_value(r)
            .with_context(|| format!("{source}: its record of the live sources cannot be read"))?,
        None => Recorded::default(),
    };
    if let Some((verdict, lines)) = live::unrecorded(&receipt, &recorded) {
        return Ok(outcome(verdict, 0, lines));
    }
    let recorded = live::checked(&receipt, recorded);
    let (found, mut problems) = locate(&receipt.inputs, inputs);
    if !problems.is_empty() {
        problems.push(format!(
            "{} input(s) missing or changed: nothing was evaluated",
            problems.len()
        ));
        return Ok(outcome("missing", 0, problems));
    }
    let again = evaluate_again(&receipt, &found, &recorded, true)?;
    let mut differences = Vec::new();
    let mut figures = 0usize;
    for key in ["gold", "runs", "comparisons", "unstable", "audit"] {
        compare(
            key,
            report.get(key).unwrap_or(&Value::Null),
            again.get(key).unwrap_or(&Value::Null),
            &mut figures,
            &mut differences,
        );
    }
    let rehashed = again["receipt"]["sha256"].as_str().unwrap_or_default();
    differences.extend(edited);
    if rehashed != hashed {
        differences.push(format!(
            "receipt: sha256 {hashed} (report) vs {rehashed} (now): the evaluation was not made as recorded"
        ));
    }
    // what the live sources answer now, against what they answered then
    let drift = if re_execute && !receipt.live.is_empty() {
        // a source that fails now is drift too, not the end of the check
        match evaluate_again(&receipt, &found, &recorded, false) {
            Ok(now) => {
                let now_recorded: Recorded = serde_json::from_value(now["recorded"].clone())
                    .context("the new evaluation's record of the live sources")?;
                live::drift(&recorded, &now_recorded, &again, &now)
            }
            Err(e) => vec![format!(
                "drift: asked again, the evaluation failed: {}",
                crate::error_chain(e.as_ref())
            )],
        }
    } else {
        Vec::new()
    };
    if differences.is_empty() {
        let line = reproduced(&receipt, figures, re_execute, !drift.is_empty());
        if drift.is_empty() {
            return Ok(outcome("reproduced", figures, vec![line]));
        }
        let mut lines = drift;
        lines.push(line);
        return Ok(outcome("drifted", figures, lines));
    }
    let total = differences.len();
    let mut lines: Vec<String> = differences.into_iter().take(SHOWN).collect();
    lines.extend(drift);
    lines.push(format!(
        "not reproduced: {total} of {figures} figures differ{}",
        if total > SHOWN {
            format!(" (the first {SHOWN} shown)")
        } else {
            String::new()
        }
    ));
    Ok(outcome("differs", figures, lines))
}

/// The report `bytes` (read from `source`) as JSON, and its receipt: an
/// error for a report that has none or one of another version.
fn read_receipt(bytes: &[u8], source: &str) -> anyhow::Result<(Value, Receipt)> {
    let report: Value =
        serde_json::from_slice(bytes).with_context(|| format!("{source}: not a JSON report"))?;
    let receipt: Receipt = match report.get("receipt") {
        Some(r) => serde_json::from_value(r.clone())
            .with_context(|| format!("{source}: its receipt cannot be read"))?,
        None => bail!(
            "{source}: the report has no receipt (qajudge writes one into every report since 0.3.0); evaluate again to get one"
        ),
    };
    if receipt.version != RECEIPT_VERSION {
        bail!(
            "{source}: its receipt is of version {}, this qajudge reads version {RECEIPT_VERSION}",
            receipt.version
        );
    }
    Ok((report, receipt))
}

/// The line of a report whose `figures` all reproduced, saying how its live
/// sources were taken (as recorded; asked again with `re_execute`, and
/// whether they `drifted`).
fn reproduced(receipt: &Receipt, figures: usize, re_execute: bool, drifted: bool) -> String {
    let live = match (receipt.live.is_empty(), re_execute, drifted) {
        (true, ..) => "",
        (false, false, _) => {
            ", the live sources' answers as the report recorded them (--re-execute asks them again)"
        }
        (false, true, false) => {
            ", the live sources' answers as the report recorded them; asked again, they answer the same"
        }
        (false, true, true) => {
            ", the live sources' answers as the report recorded them; asked again, they drifted (above)"
        }
    };
    format!(
        "reproduced: {figures} figures, all equal (receipt {}){live}",
        receipt.sha256
    )
}

/// Why a receipt cannot be evaluated again as it was, if so: it asked an
/// LLM judge, or it says a profile read GrailQA's ontology or KQA Pro's
/// training set without recording them as inputs (a receipt of an older
/// qajudge).
fn refused(receipt: &Receipt) -> Option<String> {
    let o = &receipt.options;
    if o.get("llm_judge").is_some_and(|j| !j.is_null()) {
        return Some("cannot reproduce: the evaluation asked an LLM judge, which cannot be asked again as it was; re-run qajudge evaluate with its cache (--llm-cache) to compare".into());
    }
    ["ontology", "train", "wordnet"].into_iter().find_map(|key| {
        let read = o.get(key).and_then(Value::as_bool).unwrap_or(false);
        let recorded = receipt.inputs.iter().any(|i| i.role == key);
        (read && !recorded).then(|| format!("cannot reproduce: the evaluation read --{key}, which the receipt does not record as an input (a report of an older qajudge); evaluate again with --{key} to get a receipt that does"))
    })
}

/// The report of the evaluation the receipt records, made again from the
/// inputs `found` with the receipt's options alone, read back from its JSON
/// text as the report was; its live sources asked as `recorded` says they
/// were, and answering as it holds when `replay` (else asked again).
fn evaluate_again(
    receipt: &Receipt,
    found: &[PathBuf],
    recorded: &Recorded,
    replay: bool,
) -> anyhow::Result<Value> {
    let scratch = Scratch::new()?;
    let argv = argv(receipt, found, recorded, &scratch)?;
    let cli = super::Cli::try_parse_from(&argv)
        .map_err(|e| anyhow::anyhow!("the receipt's options do not make a command line: {e}"))?;
    let super::Command::Evaluate(evaluate) = cli.command else {
        bail!("the receipt's options do not make an evaluation");
    };
    let again = super::evaluate::report_replaying(
        &evaluate,
        replay.then_some(recorded),
        crate::eval::Deadline::of_this_thread(),
    )?;
    Ok(serde_json::from_slice(&serde_json::to_vec(&again)?)?)
}

/// Where each input was found, in the receipt's order, and what is missing
/// or changed.
fn locate(inputs: &[Input], dir: Option<&Path>) -> (Vec<PathBuf>, Vec<String>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut scanned: Option<Vec<PathBuf>> = None;
    for input in inputs {
        let what = match &input.run {
            Some(run) => format!("{} {run:?}", input.role),
            None => input.role.clone(),
        };
        let named = PathBuf::from(&input.name);
        let mut candidates = vec![named.clone()];
        if let (Some(dir), Some(file)) = (dir, named.file_name()) {
            candidates.push(dir.join(file));
        }
        // a folder input (an ontology, a dictionary) given as --inputs itself
        if let Some(dir) = dir.filter(|_| matches!(input.role.as_str(), "ontology" | "wordnet")) {
            candidates.push(dir.to_path_buf());
        }
        let mut changed = None;
        let hit = candidates.iter().find(|c| match digest_of(c, &input.role) {
            Some((_, sha)) if sha == input.sha256 => true,
            Some(other) => {
                changed.get_or_insert(((*c).clone(), other));
                false
            }
            None => false,
        });
        if let Some(path) = hit {
            found.push(path.clone());
            continue;
        }
        // by digest, among the files of --inputs
        if let Some(dir) = dir {
            let files = scanned.get_or_insert_with(|| files_under(dir));
            let by_digest = files.iter().find(|f| {
                input
                    .bytes
                    .is_none_or(|b| std::fs::metadata(f).is_ok_and(|m| m.len() == b))
                    && digest_of(f, &input.role).is_some_and(|(_, sha)| sha == input.sha256)
            });
            if let Some(path) = by_digest {
                found.push(path.clone());
                continue;
            }
        }
        found.push(named);
        problems.push(match changed {
            Some((path, (bytes, sha))) => format!(
                "changed: {what} {}: {}sha256 {} → {}",
                path.display(),
                match input.bytes {
                    Some(b) if b != bytes => format!("size {b} → {bytes}, "),
                    _ => String::new(),
                },
                short(&input.sha256),
                short(&sha)
            ),
            None => {
                format!(
                "missing: {what} {} (sha256 {}{}); give the folder that holds it with --inputs DIR",
                input.name,
                short(&input.sha256),
                input.bytes.map(|b| format!(", {b} bytes")).unwrap_or_default()
            )
            }
        });
    }
    (found, problems)
}

/// The size and SHA-256 of an input: a file's bytes, or for an index its
/// `meta.json`'s.
fn digest_of(path: &Path, role: &str) -> Option<(u64, String)> {
    // a directory is known by the digest of the files its reader reads
    match role {
        "ontology" => return super::evaluate::ontology_digest(path).ok(),
        "wordnet" => return crate::wordnet::WordNet::digest_dir(path).ok(),
        _ => {}
    }
    let file = if role == "index" {
        path.join("meta.json")
    } else {
        path.to_path_buf()
    };
    let meta = std::fs::metadata(&file)
        .ok()
        .filter(std::fs::Metadata::is_file)?;
    let mut f = std::fs::File::open(&file).ok()?;
    let mut hasher = crate::digest::Sha256Hasher::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        use std::io::Read as _;
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Some((meta.len(), hasher.hex()))
}

/// The regular files and directories under `dir` (directories too: an index
/// is one), at most [`MAX_SCANNED`], links not followed.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if out.len() >= MAX_SCANNED {
                return out;
            }
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                todo.push(e.path());
                out.push(e.path());
            } else if kind.is_file() {
                out.push(e.path());
            }
        }
    }
    out
}

fn short(sha: &str) -> String {
    sha.chars().take(12).collect::<String>() + "…"
}

/// A directory of the files `reproduce` writes (the subset's ids), removed
/// when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("qajudge-reproduce-{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `qajudge evaluate` command line the receipt records: its inputs where
/// they were found, its live sources asked as their records say, every
/// option as it was resolved.
fn argv(
    receipt: &Receipt,
    found: &[PathBuf],
    recorded: &Recorded,
    scratch: &Scratch,
) -> anyhow::Result<Vec<String>> {
    let mut argv: Vec<String> = vec!["qajudge".into(), "evaluate".into()];
    let kg = input_args(receipt, found, &mut argv)?;
    live_args(receipt, recorded, &mut argv);
    option_args(&receipt.options, scratch, &mut argv)?;
    if !kg.is_empty() {
        argv.push("--kg".into());
        argv.extend(kg);
    }
    Ok(argv)
}

fn push(argv: &mut Vec<String>, a: &str, v: String) {
    argv.push(a.into());
    argv.push(v);
}

/// The inputs' arguments (`--gold`, `--run` with their `--name`s, `--index`)
/// where they were found; the knowledge graph's files, given last.
fn input_args(
    receipt: &Receipt,
    found: &[PathBuf],
    argv: &mut Vec<String>,
) -> anyhow::Result<Vec<String>> {
    let path = |p: &PathBuf| p.display().to_string();
    let mut kg = Vec::new();
    for (input, at) in receipt.inputs.iter().zip(found) {
        match input.role.as_str() {
            "gold" => push(argv, "--gold", path(at)),
            "gold_answers" => push(argv, "--gold-answers", path(at)),
            "run" => {
                push(argv, "--run", path(at));
            }
            "kg" => kg.push(path(at)),
            "index" => push(argv, "--index", path(at)),
            "ontology" => push(argv, "--ontology", path(at)),
            "train" => push(argv, "--train", path(at)),
            "wordnet" => push(argv, "--wordnet", path(at)),
            other => bail!(
                "the receipt names an input of role {other:?}, which this qajudge does not know"
            ),
        }
    }
    for input in receipt.inputs.iter().filter(|i| i.role == "run") {
        push(argv, "--name", input.run.clone().unwrap_or_default());
    }
    Ok(kg)
}

/// The live sources' arguments: each system's URL and name (after the run
/// files', as `evaluate` names them) and how it was asked, as its record
/// says; the endpoint's URL.
fn live_args(receipt: &Receipt, then: &Recorded, argv: &mut Vec<String>) {
    let mut asked = None;
    for l in &receipt.live {
        match l.role.as_str() {
            "system" => {
                push(argv, "--system-url", l.url.clone());
                push(argv, "--name", l.run.clone().unwrap_or_default());
                asked = asked.or_else(|| {
                    then.systems
                        .iter()
                        .find(|t| Some(&t.run) == l.run.as_ref())
                        .map(|t| t.asked.clone())
                });
            }
            _ => push(argv, "--endpoint", l.url.clone()),
        }
    }
    // the calls' settings are one per evaluation
    if let Some(a) = asked {
        push(argv, "--protocol", a.protocol);
        if let Some(d) = a.dataset {
            push(argv, "--dataset", d);
        }
        push(argv, "--timeout-ms", a.timeout_ms.to_string());
        push(argv, "--retries", a.retries.to_string());
        if let Some(r) = a.max_error_rate {
            push(argv, "--max-error-rate", r.to_string());
        }
    }
}

/// The options' arguments, as the receipt resolved them.
fn option_args(
    o: &std::collections::BTreeMap<String, Value>,
    scratch: &Scratch,
    argv: &mut Vec<String>,
) -> anyhow::Result<()> {
    let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    let flag = |k: &str| o.get(k).and_then(Value::as_bool).unwrap_or(false);
    let path = |p: &PathBuf| p.display().to_string();
    let profile = text("profile").unwrap_or_else(|| "judge".into());
    // meteor was left out for want of a dictionary: so again, whatever this
    // machine has (a dictionary it read is an input, given by `input_args`)
    if profile == "t2s-metrics" && o.get("wordnet") == Some(&Value::Bool(false)) {
        push(argv, "--wordnet", "none".into());
    }
    push(argv, "--profile", profile);
    push(argv, "--format", "json".into());
    if let Some(experiments) = o.get("experiments").and_then(Value::as_array) {
        let names: Vec<&str> = experiments.iter().filter_map(Value::as_str).collect();
        if !names.is_empty() {
            push(argv, "--experiments", names.join(","));
        }
    }
    for (key, arg) in [
        ("strict_literals", "--strict-literals"),
        ("lenient_dates", "--lenient-dates"),
        ("refresh_gold", "--refresh-gold"),
        ("execute_run", "--execute-run"),
        ("explain_failures", "--explain-failures"),
    ] {
        if flag(key) {
            argv.push(arg.into());
        }
    }
    if o.get("bootstrap_resamples")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        > 0
    {
        argv.push("--confidence".into());
    }
    for by in o.get("by").and_then(Value::as_array).into_iter().flatten() {
        if let Some(b) = by.as_str() {
            push(argv, "--by", b.into());
        }
    }
    if let Some(e) = text("explain") {
        push(argv, "--explain", e);
    }
    for (key, arg) in [
        ("lang", "--lang"),
        ("baseline", "--baseline"),
        ("abstain_marker", "--abstain-marker"),
        ("gold_markings", "--gold-markings"),
    ] {
        if let Some(v) = text(key) {
            push(argv, arg, v);
        }
    }
    for (key, arg) in [
        ("max_class_size", "--max-class-size"),
        ("query_timeout_ms", "--query-timeout-ms"),
        ("max_rows", "--max-rows"),
    ] {
        if let Some(n) = o.get(key).and_then(Value::as_u64) {
            push(argv, arg, n.to_string());
        }
    }
    if let Some(ids) = o.get("questions").and_then(Value::as_array) {
        let file = scratch.0.join("questions.txt");
        let text: Vec<&str> = ids.iter().filter_map(Value::as_str).collect();
        std::fs::write(&file, text.join("\n") + "\n")
            .with_context(|| format!("cannot write {}", file.display()))?;
        push(argv, "--questions", path(&file));
    }
    Ok(())
}

/// Compares the figures of two reports under `at`, counting the figures
/// compared and naming each that differs with both values. Measured times
/// (`ms`, `load_ms`, `runtime_ms_mean`) and the inputs' paths (`path`,
/// `source`) are not figures.
fn compare(at: &str, a: &Value, b: &Value, figures: &mut usize, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                // measured times, and where the inputs were found, are not figures
                if matches!(
                    k.as_str(),
                    "ms" | "load_ms" | "runtime_ms_mean" | "path" | "source"
                ) {
                    continue;
                }
                compare(
                    &format!("{at}.{k}"),
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    figures,
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                compare(&format!("{at}[{i}]"), p, q, figures, out);
            }
        }
        _ => {
            *figures += 1;
            if a != b {
                let show = |v: &Value| {
                    let t = v.to_string();
                    if t.chars().count() > 80 {
                        t.chars().take(80).collect::<String>() + "…"
                    } else {
                        t
                    }
                };
                out.push(format!("{at}: {} (report) vs {} (now)", show(a), show(b)));
            }
        }
    }
}
