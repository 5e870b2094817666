//! `qajudge annotate`: the annotator alone. Prints the markings (C2KB resources,
//! P2KB properties, RE2KB triples, answer type, answer item types), the features
//! and the modifiers of a query or of every question of a benchmark, as JSON.

use super::outln;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Args};

use crate::annotate::annotate_question;
use crate::matching::MatchOptions;
use crate::model::{Query, Question, QuestionId};

/// Arguments of `qajudge annotate`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["sparql", "gold"])))]
pub struct AnnotateArgs {
    /// A SPARQL query to annotate.
    #[arg(long, value_name = "QUERY")]
    pub sparql: Option<String>,
    /// A benchmark or run file: annotate every question (one JSON object each).
    #[arg(long, value_name = "FILE")]
    pub gold: Option<PathBuf>,
    /// What `--gold` writes: `json` (markings and features of every question)
    /// or `run` (JSON Lines with the keys a component run is read with —
    /// `id`, `question`, `entities`, `classes`, `properties`, `triples` — so that
    /// the output can be scored as a run).
    #[arg(long, value_enum, default_value_t = AnnotateFormat::Json)]
    pub format: AnnotateFormat,
}

/// Output formats of `annotate --gold`.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum AnnotateFormat {
    /// One JSON array of annotations.
    Json,
    /// JSON Lines in the component-run format.
    Run,
}

/// A triple node as a component run writes it: a simple literal (`"text"`)
/// as its lexical value (a component run's plain strings are literals); a
/// literal with a language tag or a datatype (`"Paris"@en`,
/// `"5"^^<…#integer>`) and any other node (`<iri>`, `?`, a path) as written,
/// so that nothing of the literal is lost.
fn lexical(node: &str) -> String {
    match node
        .strip_prefix('"')
        .and_then(|rest| rest.rfind('"').map(|end| (&rest[..end], &rest[end + 1..])))
    {
        Some((inner, "")) => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        _ => node.to_string(),
    }
}

/// One question's markings as a line of a JSON Lines component run.
fn component_line(q: &Question, a: &crate::annotate::Annotation) -> serde_json::Value {
    let m = &a.markings;
    let classes = m.classes.clone().unwrap_or_default();
    let entities: Vec<String> = m
        .resources
        .iter()
        .flatten()
        .filter(|r| !classes.contains(r))
        .cloned()
        .collect();
    let mut line = serde_json::json!({
        "id": q.id.0,
        "entities": entities,
        "classes": classes,
        "properties": m.properties.clone().unwrap_or_default(),
        "triples": m
            .triple_nodes
            .iter()
            .flatten()
            .map(|t| t.clone().map(|node| lexical(&node)))
            .collect::<Vec<_>>(),
    });
    if let Some((lang, text)) = q
        .texts
        .iter()
        .find(|(l, _)| l == "en")
        .or_else(|| q.texts.first())
    {
        line["question"] = serde_json::Value::from(text.as_str());
        line["language"] = serde_json::Value::from(lang.as_str());
    }
    line
}

/// Runs `qajudge annotate`.
pub fn run(args: AnnotateArgs) -> anyhow::Result<ExitCode> {
    let opts = MatchOptions::default();
    if let Some(sparql) = args.sparql {
        let q = Question {
            id: QuestionId("query".into()),
            query: Query::Sparql(sparql),
            ..Question::default()
        };
        let a = annotate_question(&q, opts);
        let failed = a.markings.triples.is_none();
        outln!("{}", serde_json::to_string_pretty(&a)?)?;
        if failed {
            eprintln!("error: {}", a.diagnostics.join("; "));
            return Ok(ExitCode::from(1));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.gold.unwrap_or_default();
    let dataset = super::load(&path)?;
    let all: Vec<_> = dataset
        .questions
        .iter()
        .map(|q| annotate_question(q, opts))
        .collect();
    let unparsed = all
        .iter()
        .filter(|a| {
            a.diagnostics
                .iter()
                .any(|d| d.contains("does not parse") || d.contains("too large to read"))
        })
        .count();
    match args.format {
        AnnotateFormat::Json => outln!("{}", serde_json::to_string_pretty(&all)?)?,
        AnnotateFormat::Run => {
            for (q, a) in dataset.questions.iter().zip(&all) {
                outln!("{}", serde_json::to_string(&component_line(q, a))?)?;
            }
        }
    }
    eprintln!(
        "{}: {} questions annotated, {} queries could not be read",
        path.display(),
        all.len(),
        unparsed
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::lexical;

    #[test]
    fn literals_keep_their_language_and_datatype() {
        assert_eq!(lexical("\"Paris\""), "Paris");
        assert_eq!(lexical("\"say \\\"hi\\\"\""), "say \"hi\"");
        assert_eq!(lexical("\"Paris\"@en"), "\"Paris\"@en");
        assert_eq!(
            lexical("\"5\"^^<http://www.w3.org/2001/XMLSchema#integer>"),
            "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer>"
        );
        assert_eq!(lexical("<http://a.org/x>"), "<http://a.org/x>");
    }
}
