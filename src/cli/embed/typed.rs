//! `evaluate`'s options as a host gives them: by keyword, each value already
//! of its kind (a flag, a number, a share, a text, a list of texts), set on
//! the command's arguments field by field, never written out as a command
//! line and parsed again. The kinds are what the host checks a value
//! against; an option's choices (a profile, a sub-experiment, a feature) are
//! checked here, with errors that name the keyword and the value.

use std::path::PathBuf;

use clap::Parser;

use super::UsageError;
use crate::cli::args::{parse_experiment, parse_feature, ProtocolArg};
use crate::cli::evaluate::{EvaluateArgs, ExplainArg, GoldMarkingsArg};
use crate::cli::{Cli, Command};
use crate::eval::Profile;

/// What a host's value of an option must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// True or false.
    Flag,
    /// A whole number, 0 or more.
    Number,
    /// A number between 0 and 1.
    Share,
    /// A text or a path.
    Text,
    /// A list of texts or paths (one text is a list of one).
    Texts,
}

/// A host's value of an option, of the option's [`Kind`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A flag's value.
    Flag(bool),
    /// A number's value.
    Number(u64),
    /// A share's value.
    Share(f64),
    /// A text's value.
    Text(String),
    /// A list's values.
    Texts(Vec<String>),
}

/// Every option of `evaluate` a host gives by keyword, with its kind: the
/// command's long options with `_` for `-`, but the run files and their names
/// (given as the runs) and the printed output's shape (`format`,
/// `per_question`), plus the global `max_input_mb`.
pub const OPTIONS: &[(&str, Kind)] = &[
    ("gold", Kind::Text),
    ("gold_answers", Kind::Text),
    ("ontology", Kind::Text),
    ("train", Kind::Text),
    ("questions", Kind::Text),
    ("sample", Kind::Text),
    ("system_url", Kind::Texts),
    ("lang", Kind::Text),
    ("profile", Kind::Text),
    ("strict_literals", Kind::Flag),
    ("lenient_dates", Kind::Flag),
    ("confidence", Kind::Flag),
    ("baseline", Kind::Text),
    ("abstain_marker", Kind::Text),
    ("wordnet", Kind::Text),
    ("experiments", Kind::Texts),
    ("gold_markings", Kind::Text),
    ("by", Kind::Texts),
    ("index", Kind::Text),
    ("fetch_index", Kind::Texts),
    ("explain", Kind::Text),
    ("explain_failures", Kind::Flag),
    ("audit", Kind::Flag),
    ("max_class_size", Kind::Number),
    ("kg", Kind::Texts),
    ("endpoint", Kind::Text),
    ("query_timeout_ms", Kind::Number),
    ("max_rows", Kind::Number),
    ("max_query_memory_mb", Kind::Number),
    ("refresh_gold", Kind::Flag),
    ("execute_run", Kind::Flag),
    ("timeout_ms", Kind::Number),
    ("concurrency", Kind::Number),
    ("max_error_rate", Kind::Share),
    ("protocol", Kind::Text),
    ("dataset", Kind::Text),
    ("retries", Kind::Number),
    ("retry_backoff_ms", Kind::Number),
    ("cache", Kind::Text),
    ("llm_judge", Kind::Text),
    ("llm_model", Kind::Text),
    ("llm_key_env", Kind::Text),
    ("llm_cache", Kind::Text),
    ("llm_refresh", Kind::Flag),
    ("llm_queries", Kind::Flag),
    ("llm_timeout", Kind::Number),
    ("llm_max_calls", Kind::Number),
    ("llm_deadline", Kind::Number),
    ("max_input_mb", Kind::Number),
];

/// The kind of option `name`, or a usage error naming the options there are.
pub fn kind(name: &str) -> Result<Kind, UsageError> {
    OPTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .ok_or_else(|| UsageError {
            message: format!(
                "evaluate() has no option {name:?}; its options are: {}",
                OPTIONS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// `evaluate`'s arguments with the command's defaults: the run files `runs`
/// named `names`, and the host's options set one by one. Returns them with
/// the call's input limit (`max_input_mb`), if given.
pub fn arguments(
    runs: Vec<PathBuf>,
    names: Vec<String>,
    options: Vec<(String, Value)>,
) -> Result<(EvaluateArgs, Option<u64>), UsageError> {
    let mut args = defaults();
    args.runs = runs;
    args.names = names;
    let mut max_input_mb = None;
    for (name, value) in options {
        if name == "max_input_mb" {
            max_input_mb = Some(number(&name, &value)?);
            continue;
        }
        set(&mut args, &name, value)?;
    }
    relations(&args)?;
    Ok((args, max_input_mb))
}

/// The command's defaults, from its own declarations (the one argument list
/// a command needs to stand, then emptied).
fn defaults() -> EvaluateArgs {
    let cli = Cli::try_parse_from(["qajudge", "evaluate", "--gold", "-", "--system-url", "-"]);
    match cli.map(|c| c.command) {
        Ok(Command::Evaluate(mut a)) => {
            a.gold = None;
            a.systems.clear();
            a
        }
        _ => unreachable!("`evaluate --gold - --system-url -` parses"),
    }
}

/// Sets option `name` (checked by [`kind`] first) to `value`.
fn set(a: &mut EvaluateArgs, name: &str, value: Value) -> Result<(), UsageError> {
    let expected = kind(name)?;
    let path = |v: &Value| text(name, v).map(|t| Some(PathBuf::from(t)));
    match name {
        "gold" => a.gold = path(&value)?,
        "gold_answers" => a.gold_answers = path(&value)?,
        "ontology" => a.ontology = path(&value)?,
        "train" => a.train = path(&value)?,
        "questions" => a.questions = path(&value)?,
        "sample" => a.sample = path(&value)?,
        "wordnet" => a.wordnet = path(&value)?,
        "index" => a.index = path(&value)?,
        "cache" => a.live.cache = path(&value)?,
        "llm_cache" => a.llm.llm_cache = path(&value)?,
        "system_url" => a.systems = texts(name, value)?,
        "fetch_index" => a.fetch_index = texts(name, value)?,
        "kg" => a.kg.kg = texts(name, value)?.into_iter().map(PathBuf::from).collect(),
        "experiments" => {
            a.experiments = choices(name, value, parse_experiment)?;
        }
        "by" => a.by = choices(name, value, parse_feature)?,
        "profile" => {
            let t = text(name, &value)?;
            a.profile = Profile::from_name(&t).map_err(|e| usage(name, &value, &e.to_string()))?;
        }
        "explain" => {
            a.explain = Some(match text(name, &value)?.as_str() {
                "all" => ExplainArg::All,
                "errors" => ExplainArg::Errors,
                _ => return Err(usage(name, &value, "give \"all\" or \"errors\"")),
            });
        }
        "gold_markings" => {
            a.gold_markings = match text(name, &value)?.as_str() {
                "auto" => GoldMarkingsArg::Auto,
                "query" => GoldMarkingsArg::Query,
                _ => return Err(usage(name, &value, "give \"auto\" or \"query\"")),
            }
        }
        "protocol" => {
            a.live.protocol = Some(match text(name, &value)?.as_str() {
                "gerbil" => ProtocolArg::Gerbil,
                "text2sparql" => ProtocolArg::Text2sparql,
                _ => return Err(usage(name, &value, "give \"gerbil\" or \"text2sparql\"")),
            });
        }
        "lang" => {
            let t = text(name, &value)?;
            super::language::language(&t).map_err(|why| usage(name, &value, &why.to_string()))?;
            a.lang = Some(t);
        }
        "baseline" => a.baseline = Some(text(name, &value)?),
        "abstain_marker" => a.abstain_marker = Some(text(name, &value)?),
        "endpoint" => a.kg.endpoint = Some(text(name, &value)?),
        "dataset" => a.live.dataset = Some(text(name, &value)?),
        "llm_judge" => a.llm.llm_judge = Some(text(name, &value)?),
        "llm_model" => a.llm.llm_model = Some(text(name, &value)?),
        "llm_key_env" => a.llm.llm_key_env = Some(text(name, &value)?),
        "max_error_rate" => match value {
            Value::Share(s) if (0.0..=1.0).contains(&s) => a.live.max_error_rate = Some(s),
            _ => return Err(usage(name, &value, "expected a share from 0 to 1")),
        },
        _ if expected == Kind::Flag => set_flag(a, name, flag(name, &value)?),
        _ => set_number(a, name, &value)?,
    }
    Ok(())
}

/// Sets the flag `name`.
fn set_flag(a: &mut EvaluateArgs, name: &str, on: bool) {
    let field = match name {
        "strict_literals" => &mut a.strict_literals,
        "lenient_dates" => &mut a.lenient_dates,
        "confidence" => &mut a.confidence,
        "explain_failures" => &mut a.explain_failures,
        "audit" => &mut a.audit,
        "refresh_gold" => &mut a.refresh_gold,
        "execute_run" => &mut a.execute_run,
        "llm_refresh" => &mut a.llm.llm_refresh,
        "llm_queries" => &mut a.llm.llm_queries,
        _ => unreachable!("every flag of OPTIONS is set here"),
    };
    *field = on;
}

/// Sets the number `name`.
fn set_number(a: &mut EvaluateArgs, name: &str, value: &Value) -> Result<(), UsageError> {
    let n = number(name, value)?;
    let size = || usize::try_from(n).map_err(|_| usage(name, value, "too large"));
    match name {
        "max_class_size" => a.max_class_size = size()?,
        "query_timeout_ms" => a.kg.query_timeout_ms = n,
        "max_rows" => a.kg.max_rows = size()?,
        "max_query_memory_mb" => a.kg.max_query_memory_mb = size()?,
        "timeout_ms" => a.live.timeout_ms = n,
        "concurrency" => a.live.concurrency = size()?,
        "retries" => {
            a.live.retries = u32::try_from(n).map_err(|_| usage(name, value, "too large"))?;
        }
        "retry_backoff_ms" => a.live.retry_backoff_ms = n,
        "llm_timeout" => a.llm.llm_timeout = n,
        "llm_max_calls" => a.llm.llm_max_calls = size()?,
        "llm_deadline" => a.llm.llm_deadline = n,
        _ => unreachable!("every number of OPTIONS is set here"),
    }
    Ok(())
}

/// The options that go together or exclude each other, as the command line's
/// declarations say, named as the host names them.
fn relations(a: &EvaluateArgs) -> Result<(), UsageError> {
    let rule = |broken: bool, message: &str| {
        if broken {
            Err(UsageError {
                message: message.to_string(),
            })
        } else {
            Ok(())
        }
    };
    let llm = &a.llm;
    rule(
        a.gold.is_none() && a.runs.is_empty(),
        "give the gold benchmark (gold=) or runs that carry their own",
    )?;
    rule(
        a.runs.is_empty() && a.systems.is_empty(),
        "give at least one run (runs=) or live system (system_url=)",
    )?;
    rule(
        a.gold_answers.is_some() && a.gold.is_none(),
        "gold_answers= gives the answers of the gold= benchmark: give gold= too",
    )?;
    rule(
        a.questions.is_some() && a.sample.is_some(),
        "give questions= or sample=, not both",
    )?;
    rule(
        !a.fetch_index.is_empty() && a.index.is_some(),
        "give index= or fetch_index=, not both",
    )?;
    rule(
        !a.kg.kg.is_empty() && a.kg.endpoint.is_some(),
        "give kg= or endpoint=, not both",
    )?;
    rule(
        llm.llm_judge.is_some() != llm.llm_model.is_some(),
        "llm_judge= (the judge's URL) and llm_model= (its model) go together: give both",
    )?;
    rule(
        llm.llm_judge.is_none()
            && (llm.llm_key_env.is_some()
                || llm.llm_cache.is_some()
                || llm.llm_refresh
                || llm.llm_queries),
        "llm_key_env=, llm_cache=, llm_refresh= and llm_queries= set the LLM judge: give llm_judge= and llm_model= too",
    )
}

/// The usage error of option `name` given `value`: `name=value: why`.
fn usage(name: &str, value: &Value, why: &str) -> UsageError {
    let shown = match value {
        Value::Flag(b) => (if *b { "True" } else { "False" }).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Share(s) => s.to_string(),
        Value::Text(t) => format!("{t:?}"),
        Value::Texts(t) => format!("{t:?}"),
    };
    UsageError {
        message: format!("{name}={shown}: {why}"),
    }
}

fn flag(name: &str, value: &Value) -> Result<bool, UsageError> {
    match value {
        Value::Flag(b) => Ok(*b),
        _ => Err(usage(name, value, "expected a bool (True or False)")),
    }
}

fn number(name: &str, value: &Value) -> Result<u64, UsageError> {
    match value {
        Value::Number(n) => Ok(*n),
        _ => Err(usage(name, value, "expected a whole number, 0 or more")),
    }
}

fn text(name: &str, value: &Value) -> Result<String, UsageError> {
    match value {
        Value::Text(t) => Ok(t.clone()),
        _ => Err(usage(name, value, "expected a text")),
    }
}

fn texts(name: &str, value: Value) -> Result<Vec<String>, UsageError> {
    match value {
        Value::Texts(t) => Ok(t),
        Value::Text(t) => Ok(vec![t]),
        other => Err(usage(name, &other, "expected a text or a list of texts")),
    }
}

/// Each text of a list parsed as one of the option's choices; a list of
/// one text may hold several, comma-separated, as on the command line.
fn choices<T>(
    name: &str,
    value: Value,
    parse: impl Fn(&str) -> Result<T, crate::eval::UnknownName>,
) -> Result<Vec<T>, UsageError> {
    let all = texts(name, value.clone())?;
    all.iter()
        .flat_map(|t| t.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| parse(t).map_err(|why| usage(name, &value, &why.to_string())))
        .collect()
}
