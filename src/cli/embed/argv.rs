//! The options of every other subcommand (`audit`, `features`, `sample`,
//! `refresh`, `index build`, `index fetch`) as a host gives them: by
//! keyword, each value checked against the kind the command's own
//! declaration gives it (a flag, a number, a share, a text, a list of texts,
//! [`kinds`]) exactly as `evaluate`'s are ([`super::typed`]), then written as
//! the command's arguments (`--name=value`), which the command's parser
//! reads with its defaults and checks. A language (`lang`) is checked as a
//! BCP 47 tag ([`super::language`]).

use std::any::TypeId;
use std::ffi::OsString;

use clap::CommandFactory;

use super::language::language;
use super::{Kind, UsageError, Value};
use crate::cli::Cli;

/// The most items a host's list of one keyword may hold: more is an endless
/// iterable, or a mistake, and is refused before it fills the memory.
pub const MAX_ITEMS: usize = 10_000;

/// The options of `subcommand` (nested ones by their words: `index build`)
/// with their kinds, from the command's declarations, and the global
/// `max_input_mb`; `None` for an unknown subcommand.
pub fn kinds(subcommand: &str) -> Option<Vec<(String, Kind)>> {
    let mut command = Cli::command();
    command.build();
    let mut sub = &command;
    for word in subcommand.split_whitespace() {
        sub = sub.find_subcommand(word)?;
    }
    let mut all: Vec<(String, Kind)> = sub
        .get_arguments()
        .filter_map(|a| {
            let long = a.get_long()?;
            if long == "help" || long == "version" {
                return None;
            }
            Some((long.replace('-', "_"), kind_of(a)))
        })
        .collect();
    if !all.iter().any(|(n, _)| n == "max_input_mb") {
        all.push(("max_input_mb".to_string(), Kind::Number));
    }
    Some(all)
}

/// The kind of a declared argument: a flag when it takes no value, a list
/// when it repeats or takes several, else by the type its parser gives.
fn kind_of(arg: &clap::Arg) -> Kind {
    if !arg.get_action().takes_values() {
        return Kind::Flag;
    }
    let several = matches!(arg.get_action(), clap::ArgAction::Append)
        || arg.get_num_args().is_some_and(|n| n.max_values() > 1)
        || arg.get_value_delimiter().is_some();
    if several {
        return Kind::Texts;
    }
    let id = arg.get_value_parser().type_id();
    let numbers = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
    ];
    if numbers.iter().any(|n| id == *n) {
        Kind::Number
    } else if id == TypeId::of::<f64>() || id == TypeId::of::<f32>() {
        Kind::Share
    } else {
        Kind::Text
    }
}

/// The kind of option `name` of `subcommand`, or a usage error naming the
/// options it has.
pub fn kind_in(subcommand: &str, name: &str) -> Result<Kind, UsageError> {
    let all = kinds(subcommand).ok_or_else(|| UsageError {
        message: format!("there is no subcommand {subcommand:?}"),
    })?;
    all.iter()
        .find(|(n, _)| n == name)
        .map(|(_, k)| *k)
        .ok_or_else(|| UsageError {
            message: format!(
                "{}() has no option {name:?}; its options are: {}",
                subcommand.replace(' ', "_"),
                all.iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// The arguments of `subcommand` for the host's typed `options` (each of the
/// kind [`kind_in`] gives it, a language a BCP 47 tag): a flag that is true
/// as `--name`, one that is false left out, every other value as
/// `--name=value` (so that a value starting with `-` stays a value), a list
/// as the option repeated.
pub fn arguments(
    subcommand: &str,
    options: Vec<(String, Value)>,
) -> Result<Vec<OsString>, UsageError> {
    let mut args = Vec::new();
    for (name, value) in options {
        let kind = kind_in(subcommand, &name)?;
        let flag = format!("--{}", name.replace('_', "-"));
        let wrong = |what: &str| UsageError {
            message: format!("{name}={}: expected {what}", shown(&value)),
        };
        let texts: Vec<String> = match (&value, kind) {
            (Value::Flag(true), Kind::Flag) => {
                args.push(OsString::from(&flag));
                continue;
            }
            (Value::Flag(false), Kind::Flag) => continue,
            (_, Kind::Flag) => return Err(wrong("a bool (True or False)")),
            (Value::Number(n), Kind::Number) => vec![n.to_string()],
            (_, Kind::Number) => return Err(wrong("a whole number, 0 or more")),
            (Value::Share(s), Kind::Share) => vec![s.to_string()],
            (Value::Number(n), Kind::Share) => vec![n.to_string()],
            (_, Kind::Share) => return Err(wrong("a number")),
            (Value::Text(t), Kind::Text | Kind::Texts) => vec![t.clone()],
            (Value::Texts(t), Kind::Texts) => t.clone(),
            (_, Kind::Text) => return Err(wrong("a text or a path")),
            (_, Kind::Texts) => return Err(wrong("a text or a list of texts")),
        };
        for t in texts {
            if name == "lang" {
                language(&t).map_err(|why| UsageError {
                    message: format!("lang={t:?}: {why}"),
                })?;
            }
            let mut arg = OsString::from(format!("{flag}="));
            arg.push(t);
            args.push(arg);
        }
    }
    Ok(args)
}

/// A value as a message quotes it.
fn shown(value: &Value) -> String {
    match value {
        Value::Flag(b) => (if *b { "True" } else { "False" }).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Share(s) => s.to_string(),
        Value::Text(t) => format!("{t:?}"),
        Value::Texts(t) => format!("{t:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_commands_declarations() {
        let audit = kinds("audit").expect("audit");
        let kind = |n: &str| audit.iter().find(|(k, _)| k == n).map(|(_, k)| *k);
        assert_eq!(kind("repeat"), Some(Kind::Number));
        assert_eq!(kind("kg"), Some(Kind::Texts));
        assert_eq!(kind("gold"), Some(Kind::Text));
        assert_eq!(kind("max_input_mb"), Some(Kind::Number));
        assert!(kinds("index build").is_some());
        assert!(kinds("no-such").is_none());
    }

    #[test]
    fn a_language_keyword_is_a_bcp47_tag() {
        let e = arguments(
            "features",
            vec![("lang".into(), Value::Text("english".into()))],
        )
        .expect_err("refused");
        assert!(
            e.message
                .starts_with("lang=\"english\": not a language tag"),
            "{e}"
        );
    }

    #[test]
    fn a_value_of_another_kind_is_refused_naming_the_keyword() {
        let e = arguments("audit", vec![("repeat".into(), Value::Text("3".into()))])
            .expect_err("a text for a number");
        assert_eq!(
            e.message,
            "repeat=\"3\": expected a whole number, 0 or more"
        );
        let args = arguments(
            "audit",
            vec![
                ("repeat".into(), Value::Number(3)),
                (
                    "kg".into(),
                    Value::Texts(vec!["a.ttl".into(), "-b.ttl".into()]),
                ),
            ],
        )
        .expect("typed");
        assert_eq!(args, ["--repeat=3", "--kg=a.ttl", "--kg=-b.ttl"]);
        let e =
            arguments("audit", vec![("no_such".into(), Value::Flag(true))]).expect_err("unknown");
        assert!(
            e.message.contains("audit() has no option \"no_such\""),
            "{e}"
        );
    }
}
