//! `qajudge features`: the QaldGen question features and LSQ query features of
//! every question of a benchmark (docs/features.md), as a table, CSV (one row per
//! question, fixed columns), a JSON array or Turtle in QaldGenData's
//! vocabularies. The computation is `crate::sample::features` (and
//! `crate::sample::vocab` for the statements, `crate::sample::named` for names
//! from an index); this file reads the file and writes the output.

use super::outln;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::csv::field;
use crate::eval::DEFAULT_MAX_CLASS_SIZE;
use crate::index::Index;
use crate::model::Dataset;
use crate::sample::vocab::{self, Fact};
use crate::sample::QuestionFeatures;
use crate::sparql::{serialize, Statement, Syntax};

/// Arguments of `qajudge features`.
#[derive(Debug, Args)]
pub struct FeaturesArgs {
    /// A benchmark file in any format qajudge reads.
    #[arg(long, value_name = "FILE")]
    pub gold: PathBuf,
    /// The language of the question text (else English, else the first), and of
    /// the names taken from `--index`.
    #[arg(long, default_value = "en")]
    pub lang: String,
    /// An index (`qajudge index build`, format version 5 or later) whose labels
    /// name the entities, relations and classes (in `--lang`, else English, else
    /// without language, else any; through the IRI's owl:sameAs class when the
    /// IRI has none); without it, names are the IRIs' local names.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// The output format.
    #[arg(long, value_enum, default_value_t = FeaturesFormat::Table)]
    pub format: FeaturesFormat,
}

/// Output formats of `features`.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum FeaturesFormat {
    /// An aligned table of the main features.
    Table,
    /// CSV, one row per question, the columns of [`CSV_COLUMNS`].
    Csv,
    /// A JSON array of feature objects.
    Json,
    /// Turtle in QaldGenData's QaldGen and LSQ vocabularies (an input of
    /// `sample`, interchangeable with QaldGenData).
    Turtle,
}

/// The CSV columns, in order (lists are `|`-separated).
pub const CSV_COLUMNS: [&str; 34] = [
    "id",
    "text",
    "words",
    "entities",
    "entity_words",
    "avg_entity_words",
    "relations",
    "relation_words",
    "avg_relation_words",
    "classes",
    "class_words",
    "avg_class_words",
    "answer_type",
    "number_answer",
    "boolean_answer",
    "qword",
    "triple_patterns",
    "bgps",
    "projection_variables",
    "result_size",
    "select",
    "ask",
    "distinct",
    "filter",
    "optional",
    "union",
    "order_by",
    "group_by",
    "aggregates",
    "limit",
    "offset",
    "bind",
    "functions",
    "pos",
];

fn join<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("|")
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// One question as CSV fields, in the order of [`CSV_COLUMNS`].
fn csv_row(f: &QuestionFeatures) -> Vec<String> {
    vec![
        f.id.clone(),
        f.text.clone().unwrap_or_default(),
        f.words.to_string(),
        join(&f.entities),
        join(&f.entity_words),
        f.avg_entity_words.to_string(),
        join(&f.relations),
        join(&f.relation_words),
        f.avg_relation_words.to_string(),
        join(&f.classes),
        join(&f.class_words),
        f.avg_class_words.to_string(),
        opt(f.answer_type.as_deref()),
        f.number_answer.to_string(),
        f.boolean_answer.to_string(),
        opt(f.qword.as_deref()),
        opt(f.triple_patterns),
        opt(f.bgps),
        opt(f.projection_variables),
        opt(f.result_size),
        f.select.to_string(),
        f.ask.to_string(),
        f.distinct.to_string(),
        f.filter.to_string(),
        f.optional.to_string(),
        f.union.to_string(),
        f.order_by.to_string(),
        f.group_by.to_string(),
        f.aggregates.to_string(),
        f.limit.to_string(),
        f.offset.to_string(),
        f.bind.to_string(),
        f.functions.to_string(),
        join(&f.pos),
    ]
}

/// The SPARQL features a question's query uses, as LSQ names them.
fn used(f: &QuestionFeatures) -> String {
    [
        (f.select, "Select"),
        (f.ask, "Ask"),
        (f.distinct, "Distinct"),
        (f.filter, "Filter"),
        (f.optional, "Optional"),
        (f.union, "Union"),
        (f.order_by, "OrderBy"),
        (f.group_by, "GroupBy"),
        (f.aggregates, "Aggregators"),
        (f.limit, "Limit"),
        (f.offset, "Offset"),
        (f.bind, "Bind"),
        (f.functions, "Functions"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect::<Vec<_>>()
    .join(",")
}

/// The table: one line per question.
fn table(all: &[QuestionFeatures]) -> String {
    let head = [
        "id", "words", "ent", "rel", "cls", "answer", "qword", "tps", "bgps", "pvars", "results",
        "features", "pos",
    ];
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.words.to_string(),
                f.entities.len().to_string(),
                f.relations.len().to_string(),
                f.classes.len().to_string(),
                opt(f.answer_type.as_deref()),
                opt(f.qword.as_deref()),
                opt(f.triple_patterns),
                opt(f.bgps),
                opt(f.projection_variables),
                opt(f.result_size),
                used(f),
                f.pos.join(","),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = line(head.iter().map(|h| (*h).to_string()).collect());
    for r in rows {
        out.push('\n');
        out.push_str(&line(r));
    }
    out
}

/// The origin a benchmark file's questions are recorded with: its file name
/// without extensions.
pub(super) fn origin(path: &std::path::Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_string()
}

/// The statements of a benchmark's features (QaldGen and LSQ vocabularies).
pub(super) fn statements(
    dataset: &Dataset,
    all: &[QuestionFeatures],
    origin: &str,
) -> Vec<Statement> {
    vocab::dataset_facts(dataset, all, origin)
        .into_iter()
        .map(statement)
        .collect()
}

/// A fact as the store's statement.
pub(super) fn statement(f: Fact) -> Statement {
    Statement {
        subject: f.subject,
        predicate: f.predicate,
        object: f.object,
    }
}

/// Statements as Turtle with the features graph's prefixes.
pub(super) fn turtle(statements: &[Statement]) -> anyhow::Result<Vec<u8>> {
    Ok(serialize(statements, Syntax::Turtle, &vocab::PREFIXES)?)
}

/// Runs `qajudge features`.
pub fn run(args: FeaturesArgs) -> anyhow::Result<ExitCode> {
    crate::sample::pos::warm();
    let dataset = super::load(&args.gold)?;
    let index = args.index.as_deref().map(Index::open).transpose()?;
    let all = crate::sample::named::features_of(
        &dataset,
        &args.lang,
        index.as_ref(),
        DEFAULT_MAX_CLASS_SIZE,
    )?;
    match args.format {
        FeaturesFormat::Turtle => {
            let bytes = turtle(&statements(&dataset, &all, &origin(&args.gold)))?;
            use std::io::Write as _;
            std::io::stdout().lock().write_all(&bytes)?;
        }
        FeaturesFormat::Json => outln!("{}", serde_json::to_string_pretty(&all)?)?,
        FeaturesFormat::Csv => {
            outln!("{}", CSV_COLUMNS.join(","))?;
            for f in &all {
                let row: Vec<String> = csv_row(f).iter().map(|c| field(c)).collect();
                outln!("{}", row.join(","))?;
            }
        }
        FeaturesFormat::Table => outln!("{}", table(&all))?,
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a, b"), "\"a, b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn a_csv_row_has_every_column() {
        let q = crate::model::Question {
            id: crate::model::QuestionId("7".into()),
            texts: vec![("en".into(), "Is Berlin a city?".into())],
            query: crate::model::Query::Sparql(
                "ASK { <http://x/Berlin> a <http://x/City> }".into(),
            ),
            ..crate::model::Question::default()
        };
        let (a, w) = crate::annotate::annotate_walked(
            &q,
            crate::matching::MatchOptions::default(),
            crate::annotate::MarkingStyle::Judge,
        );
        let f = QuestionFeatures::compute(&q, &a, w.as_ref(), "en", None);
        let row = csv_row(&f);
        assert_eq!(row.len(), CSV_COLUMNS.len());
        assert_eq!(row[0], "7");
        assert_eq!(row[9], "City");
        assert_eq!(used(&f), "Ask");
        assert!(table(&[f]).lines().nth(1).expect("a row").starts_with("7 "));
    }
}
