//! The features of one question as QaldGen records them (question words;
//! entities, relations and classes with their names and word counts; answer
//! type, number and boolean answers; question word) and LSQ's features of its
//! gold query (triple patterns, BGPs, projection variables, result size and the
//! SPARQL features used). docs/features.md gives every definition and its
//! QaldGen / LSQ name.

use serde::Serialize;

use crate::annotate::features::question_word;
use crate::annotate::{Annotation, AnswerType};
use crate::model::Question;
use crate::query::{Form, Walked};

/// Names an IRI (an index's label), `None` when it knows none.
pub type LabelLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The features of one question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionFeatures {
    /// The question id.
    pub id: String,
    /// The question text in the chosen language (else English, else the first).
    pub text: Option<String>,
    /// Words of the text, split on whitespace (QaldGen's `length`).
    pub words: usize,
    /// Names of the entities (resources that are not classes).
    pub entities: Vec<String>,
    /// Words of each entity name.
    pub entity_words: Vec<usize>,
    /// Mean words per entity name (0 with none).
    pub avg_entity_words: f64,
    /// Names of the relations (properties).
    pub relations: Vec<String>,
    /// Words of each relation name.
    pub relation_words: Vec<usize>,
    /// Mean words per relation name (0 with none).
    pub avg_relation_words: f64,
    /// Names of the classes.
    pub classes: Vec<String>,
    /// Words of each class name.
    pub class_words: Vec<usize>,
    /// Mean words per class name (0 with none).
    pub avg_class_words: f64,
    /// The answer type (declared, else inferred).
    pub answer_type: Option<String>,
    /// True when the answer type is number.
    pub number_answer: bool,
    /// True when the answer type is boolean.
    pub boolean_answer: bool,
    /// The question word of the text (the `qword` breakdown feature).
    pub qword: Option<String>,
    /// Triple and path patterns of the gold query (LSQ `tps`).
    pub triple_patterns: Option<usize>,
    /// Basic graph patterns (LSQ `bgps`).
    pub bgps: Option<usize>,
    /// Projected variables of the outermost SELECT, 0 for other forms (LSQ
    /// `projectVars`).
    pub projection_variables: Option<usize>,
    /// Gold answers, when the file gives them (LSQ `resultSize`).
    pub result_size: Option<usize>,
    /// The SPARQL features the gold query uses (LSQ `usesFeature`).
    pub select: bool,
    /// ASK.
    pub ask: bool,
    /// DISTINCT.
    pub distinct: bool,
    /// FILTER (HAVING is not one).
    pub filter: bool,
    /// OPTIONAL.
    pub optional: bool,
    /// UNION.
    pub union: bool,
    /// ORDER BY.
    pub order_by: bool,
    /// GROUP BY.
    pub group_by: bool,
    /// An aggregate: COUNT, SUM, AVG, MIN, MAX.
    pub aggregates: bool,
    /// LIMIT.
    pub limit: bool,
    /// OFFSET above 0.
    pub offset: bool,
    /// BIND.
    pub bind: bool,
    /// A function or operator in a FILTER.
    pub functions: bool,
    /// QaldGen's part-of-speech flags: the Penn Treebank tags of
    /// [`super::pos::TAGS`] that occur in the text, in that order (features
    /// `pos_in` … `pos_sym`).
    pub pos: Vec<&'static str>,
}

/// The numeric and boolean features a sample's vectors can be made of, by
/// the name `sample --features` takes (booleans are 0/1, an unknown count 0):
/// QaldGen's and LSQ's, then the part-of-speech flags ([`super::pos::FEATURES`]).
pub const NUMERIC: [&str; 47] = [
    "words",
    "entities",
    "relations",
    "classes",
    "avg_entity_words",
    "avg_relation_words",
    "avg_class_words",
    "number_answer",
    "boolean_answer",
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
    "pos_in",
    "pos_jj",
    "pos_jjr",
    "pos_jjs",
    "pos_nn",
    "pos_nns",
    "pos_nnp",
    "pos_nnps",
    "pos_prp",
    "pos_rb",
    "pos_rbr",
    "pos_rbs",
    "pos_vb",
    "pos_vbd",
    "pos_vbg",
    "pos_vbn",
    "pos_vbp",
    "pos_vbz",
    "pos_wdt",
    "pos_wp",
    "pos_sym",
];

impl QuestionFeatures {
    /// The value of the numeric or boolean feature `name` (see [`NUMERIC`]),
    /// `None` for a name that is not one.
    pub fn value(&self, name: &str) -> Option<f64> {
        let b = |x: bool| if x { 1.0 } else { 0.0 };
        let n = |x: Option<usize>| x.unwrap_or(0) as f64;
        Some(match name {
            "words" => self.words as f64,
            "entities" => self.entities.len() as f64,
            "relations" => self.relations.len() as f64,
            "classes" => self.classes.len() as f64,
            "avg_entity_words" => self.avg_entity_words,
            "avg_relation_words" => self.avg_relation_words,
            "avg_class_words" => self.avg_class_words,
            "number_answer" => b(self.number_answer),
            "boolean_answer" => b(self.boolean_answer),
            "triple_patterns" => n(self.triple_patterns),
            "bgps" => n(self.bgps),
            "projection_variables" => n(self.projection_variables),
            "result_size" => n(self.result_size),
            "select" => b(self.select),
            "ask" => b(self.ask),
            "distinct" => b(self.distinct),
            "filter" => b(self.filter),
            "optional" => b(self.optional),
            "union" => b(self.union),
            "order_by" => b(self.order_by),
            "group_by" => b(self.group_by),
            "aggregates" => b(self.aggregates),
            "limit" => b(self.limit),
            "offset" => b(self.offset),
            "bind" => b(self.bind),
            "functions" => b(self.functions),
            other => b(self.pos.contains(&super::pos::tag_of_feature(other)?)),
        })
    }
}

/// Words of a question text, split on whitespace as QaldGen's `length` does.
pub fn question_words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The local name of an IRI: what follows its last `#` or `/` (the IRI itself
/// when that is empty), as QaldGenData writes names.
pub fn local_name(iri: &str) -> &str {
    let iri = iri.trim_start_matches('<').trim_end_matches('>');
    match iri.rfind(['#', '/']) {
        Some(i) if i + 1 < iri.len() => &iri[i + 1..],
        _ => iri,
    }
}

/// Words of a name: split on whitespace, `_`, `-` and camelCase boundaries
/// (`timeZone` and `Salt_Lake_City` have 2 and 3).
pub fn name_words(name: &str) -> usize {
    let mut words = 0;
    for part in name.split(|c: char| c.is_whitespace() || c == '_' || c == '-') {
        let mut prev: Option<char> = None;
        for c in part.chars() {
            let starts = match prev {
                None => true,
                Some(p) => c.is_uppercase() && p.is_lowercase(),
            };
            if starts {
                words += 1;
            }
            prev = Some(c);
        }
    }
    words
}

/// Names and word counts of IRIs, through the label lookup when it knows one.
fn named(iris: &[String], label: Option<LabelLookup<'_>>) -> (Vec<String>, Vec<usize>, f64) {
    let names: Vec<String> = iris
        .iter()
        .map(|iri| {
            label
                .and_then(|l| l(iri))
                .unwrap_or_else(|| local_name(iri).to_string())
        })
        .collect();
    let words: Vec<usize> = names.iter().map(|n| name_words(n)).collect();
    let avg = mean(&words);
    (names, words, avg)
}

/// The mean of word counts, 0 for none.
fn mean(counts: &[usize]) -> f64 {
    if counts.is_empty() {
        0.0
    } else {
        counts.iter().sum::<usize>() as f64 / counts.len() as f64
    }
}

/// The distinct values, in first-seen order.
fn distinct(values: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if seen.insert(v.clone()) {
            out.push(v);
        }
    }
    out
}

impl QuestionFeatures {
    /// Computes the features of a question from its annotation and its walked
    /// gold query (`None` without a readable SPARQL query: the LSQ counts are
    /// then `None` and the flags false). `lang` picks the text; `label` names an
    /// IRI (an index's label), else its local name is used.
    pub fn compute(
        q: &Question,
        annotation: &Annotation,
        walked: Option<&Walked>,
        lang: &str,
        label: Option<LabelLookup<'_>>,
    ) -> QuestionFeatures {
        let m = &annotation.markings;
        let class_iris = distinct(m.classes.iter().flatten().cloned());
        let is_class: std::collections::HashSet<&String> = class_iris.iter().collect();
        let entity_iris = distinct(
            m.resources
                .iter()
                .flatten()
                .filter(|r| !is_class.contains(r))
                .cloned(),
        );
        let relation_iris = distinct(m.properties.iter().flatten().cloned());
        let (entities, entity_words, avg_entity_words) = named(&entity_iris, label);
        let (relations, relation_words, avg_relation_words) = named(&relation_iris, label);
        let (classes, class_words, avg_class_words) = named(&class_iris, label);
        let text = q.text(lang).map(str::to_string);
        let pos = text.as_deref().map(super::pos::flags).unwrap_or_default();
        let answer_type = m.answer_type.map(|t| t.value);
        let has = |modifier: &str| walked.is_some_and(|w| w.modifiers.contains(modifier));
        let form = walked.and_then(|w| w.form);
        QuestionFeatures {
            id: q.id.0.clone(),
            words: text.as_deref().map_or(0, question_words),
            qword: text.as_deref().map(|t| question_word(t).to_string()),
            text,
            entities,
            entity_words,
            avg_entity_words,
            relations,
            relation_words,
            avg_relation_words,
            classes,
            class_words,
            avg_class_words,
            answer_type: answer_type.map(|t| t.name().to_string()),
            number_answer: answer_type == Some(AnswerType::Number),
            boolean_answer: answer_type == Some(AnswerType::Boolean),
            triple_patterns: walked.map(|w| w.triple_patterns),
            bgps: walked.map(|w| w.bgps),
            projection_variables: walked.map(|w| w.projected.len()),
            result_size: q.answers.as_ref().map(|a| a.answers.len()),
            select: form == Some(Form::Select),
            ask: form == Some(Form::Ask),
            distinct: has("DISTINCT"),
            filter: has("FILTER"),
            optional: has("OPTIONAL"),
            union: has("UNION"),
            order_by: has("ORDER BY"),
            group_by: has("GROUP BY"),
            aggregates: ["COUNT", "SUM", "AVG", "MIN", "MAX"].iter().any(|a| has(a)),
            limit: has("LIMIT"),
            offset: walked.is_some_and(|w| w.skips),
            bind: walked.is_some_and(|w| w.binds),
            functions: walked.is_some_and(|w| w.functions),
            pos,
        }
    }
}

impl QuestionFeatures {
    /// The features of every question of a benchmark, in its order (markings
    /// as `annotate` derives them; names through `label` when it knows them,
    /// else from local names).
    pub fn of_dataset(
        dataset: &crate::model::Dataset,
        lang: &str,
        label: Option<LabelLookup<'_>>,
    ) -> Vec<QuestionFeatures> {
        let opts = crate::matching::MatchOptions::default();
        dataset
            .questions
            .iter()
            .map(|q| {
                let (annotation, walked) =
                    crate::annotate::annotate_walked(q, opts, crate::annotate::MarkingStyle::Judge);
                QuestionFeatures::compute(q, &annotation, walked.as_ref(), lang, label)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotate::{annotate_question, parse_question_query};
    use crate::matching::MatchOptions;
    use crate::model::{Query, QuestionId};

    #[test]
    fn question_words_split_on_whitespace() {
        assert_eq!(
            question_words("What is the time zone of Salt Lake City?"),
            9
        );
        assert_eq!(question_words("  Who killed Caesar? "), 3);
        assert_eq!(question_words(""), 0);
    }

    #[test]
    fn local_names() {
        assert_eq!(
            local_name("http://dbpedia.org/resource/Salt_Lake_City"),
            "Salt_Lake_City"
        );
        assert_eq!(local_name("<http://xmlns.com/foaf/0.1/name>"), "name");
        assert_eq!(local_name("http://www.w3.org/2002/07/owl#sameAs"), "sameAs");
        assert_eq!(local_name("urn:x"), "urn:x");
    }

    #[test]
    fn name_words_split_underscores_and_camel_case() {
        assert_eq!(name_words("Salt_Lake_City"), 3);
        assert_eq!(name_words("timeZone"), 2);
        assert_eq!(name_words("Lake_Placid_(Texas)"), 3);
        assert_eq!(name_words("USA"), 1);
        assert_eq!(name_words(""), 0);
    }

    #[test]
    fn features_of_a_question() {
        let q = Question {
            id: QuestionId("1".into()),
            texts: vec![("en".into(), "How many states does Austria have?".into())],
            query: Query::Sparql(
                "SELECT (COUNT(DISTINCT ?s) AS ?c) WHERE { ?s a <http://dbpedia.org/ontology/State> ; \
                 <http://dbpedia.org/ontology/country> <http://dbpedia.org/resource/Austria> }"
                    .into(),
            ),
            ..Question::default()
        };
        let annotation = annotate_question(&q, MatchOptions::default());
        let walked = parse_question_query(&q).expect("reads");
        let label =
            |iri: &str| (iri.ends_with("Austria")).then(|| "Republic of Austria".to_string());
        let f = QuestionFeatures::compute(&q, &annotation, walked.as_ref(), "en", Some(&label));
        assert_eq!(f.words, 6);
        assert_eq!(f.entities, ["Republic of Austria"]);
        assert_eq!(f.entity_words, [3]);
        assert_eq!(f.relations, ["country"]);
        assert_eq!(f.classes, ["State"]);
        assert!((f.avg_class_words - 1.0).abs() < 1e-9);
        assert_eq!(f.answer_type.as_deref(), Some("number"));
        assert!(f.number_answer && !f.boolean_answer);
        assert_eq!(f.qword.as_deref(), Some("how many"));
        assert_eq!(f.triple_patterns, Some(2));
        assert_eq!(f.bgps, Some(1));
        assert_eq!(f.projection_variables, Some(1));
        assert_eq!(f.result_size, None);
        // DISTINCT inside COUNT is not the query's DISTINCT
        assert!(f.select && f.aggregates && !f.distinct);
        assert!(!f.ask && !f.filter && !f.group_by && !f.bind && !f.functions);
        // How/WRB many/JJ states/NNS does/VBZ Austria/NNP have/VB ?/.
        assert_eq!(f.pos, ["JJ", "NNS", "NNP", "VB", "VBZ"]);
        assert_eq!(f.value("pos_nns"), Some(1.0));
        assert_eq!(f.value("pos_nn"), Some(0.0));
        assert_eq!(f.value("pos_xx"), None);
    }
}
