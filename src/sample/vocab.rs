//! The features graph in QaldGenData's vocabularies (docs/features.md, "The
//! features graph"): a question's features as statements of the QaldGen
//! (`http://qald-gen.aksw.org/vocab#`) and LSQ (`http://lsq.aksw.org/vocab#`)
//! vocabularies, written exactly as QaldGenData writes them, and the SPARQL that
//! reads a feature back by the name `sample --features` takes. So that a graph
//! qajudge writes and QaldGenData itself are interchangeable inputs. Pure: the
//! statements are data; `sparql` stores and writes them.

use crate::model::Term;

use super::features::{QuestionFeatures, NUMERIC};

/// The QaldGen vocabulary.
pub const QG: &str = "http://qald-gen.aksw.org/vocab#";
/// The LSQ vocabulary.
pub const LSQ: &str = "http://lsq.aksw.org/vocab#";
/// The namespace of question IRIs (`question#<id>`).
pub const QUESTION: &str = "http://qald-gen.aksw.org/question#";
const XSD_INT: &str = "http://www.w3.org/2001/XMLSchema#int";
const XSD_DOUBLE: &str = "http://www.w3.org/2001/XMLSchema#double";
const XSD_BOOLEAN: &str = "http://www.w3.org/2001/XMLSchema#boolean";

/// The prefixes a written features graph declares.
pub const PREFIXES: [(&str, &str); 3] = [("qg", QG), ("lsq", LSQ), ("q", QUESTION)];

/// One statement about a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The question's IRI.
    pub subject: String,
    /// The predicate's IRI.
    pub predicate: String,
    /// The value.
    pub object: Term,
}

/// The LSQ names of the SPARQL features, by the feature name of
/// [`QuestionFeatures::value`].
pub const LSQ_FEATURES: [(&str, &str); 13] = [
    ("select", "Select"),
    ("ask", "Ask"),
    ("distinct", "Distinct"),
    ("filter", "Filter"),
    ("optional", "Optional"),
    ("union", "Union"),
    ("order_by", "OrderBy"),
    ("group_by", "GroupBy"),
    ("aggregates", "Aggregators"),
    ("limit", "Limit"),
    ("offset", "Offset"),
    ("bind", "Bind"),
    ("functions", "Functions"),
];

/// The predicate (namespace, local name) of each numeric feature QaldGenData
/// records as a literal.
const COUNTS: [(&str, &str, &str); 12] = [
    ("words", QG, "length"),
    ("entities", QG, "totalEntities"),
    ("relations", QG, "totalRelations"),
    ("classes", QG, "totalClasses"),
    ("avg_entity_words", QG, "avgEntitiesWords"),
    ("avg_relation_words", QG, "avgRelationsWords"),
    ("avg_class_words", QG, "avgClassesWords"),
    ("number_answer", QG, "isNumberAnswer"),
    ("boolean_answer", QG, "isBooleanAnswer"),
    ("triple_patterns", LSQ, "tps"),
    ("bgps", LSQ, "bgps"),
    ("projection_variables", LSQ, "projectVars"),
];

/// The string features `--where` compares, with what each is: `text` (the
/// question), `type` (its first word, lower-cased), `answer_type` and `origin`
/// (the benchmark it comes from).
pub const STRINGS: [&str; 4] = ["text", "type", "answer_type", "origin"];

/// The IRI of a question id (characters outside an IRI's unreserved set are
/// percent-encoded).
pub fn question_iri(id: &str) -> String {
    let mut iri = String::from(QUESTION);
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            iri.push(b as char);
        } else {
            iri.push_str(&format!("%{b:02X}"));
        }
    }
    iri
}

/// The question id of an IRI: the decoded part after `question#`, else the
/// IRI itself.
pub fn question_id(iri: &str) -> String {
    let Some(rest) = iri.strip_prefix(QUESTION) else {
        return iri.to_string();
    };
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| rest.to_string())
}

fn int(n: usize) -> Term {
    Term::Literal {
        lexical: n.to_string(),
        datatype: Some(XSD_INT.to_string()),
        lang: None,
    }
}

fn double(x: f64) -> Term {
    Term::Literal {
        lexical: format!("{x:?}"),
        datatype: Some(XSD_DOUBLE.to_string()),
        lang: None,
    }
}

fn boolean(b: bool) -> Term {
    Term::Literal {
        lexical: b.to_string(),
        datatype: Some(XSD_BOOLEAN.to_string()),
        lang: None,
    }
}

/// One kind of names (entities, relations, classes): the total's, the slot's
/// and the word count's predicate names, the names, their word counts, their
/// average.
type Kind<'a> = (&'a str, &'a str, &'a str, &'a [String], &'a [usize], f64);

/// The statements of one question, as QaldGenData writes them: text, length;
/// per kind (entities, relations, classes) the total, three name slots
/// (`entity1`…`entity3`, empty when unused) with their word counts and the
/// average; answer type and the number / boolean flags (`"0"`/`"1"`); the
/// question type (`"what, "`); the origin; LSQ's query text, triple patterns,
/// BGPs, projection variables, features used and result size. A count that is
/// unknown (no readable query, no answers) is left out. The part-of-speech
/// flags follow the answer flags, as `xsd:boolean` literals (`qg:IN` …
/// `qg:SYM`), as QaldGenData writes them.
pub fn facts(f: &QuestionFeatures, origin: &str, query: Option<&str>) -> Vec<Fact> {
    let subject = question_iri(&f.id);
    let mut out: Vec<Fact> = Vec::new();
    let mut put = |ns: &str, name: &str, object: Term| {
        out.push(Fact {
            subject: subject.clone(),
            predicate: format!("{ns}{name}"),
            object,
        });
    };
    put(QG, "text", Term::plain(f.text.clone().unwrap_or_default()));
    put(QG, "length", int(f.words));
    let kinds: [Kind<'_>; 3] = [
        (
            "Entities",
            "entity",
            "Entity",
            &f.entities,
            &f.entity_words,
            f.avg_entity_words,
        ),
        (
            "Relations",
            "relation",
            "Relation",
            &f.relations,
            &f.relation_words,
            f.avg_relation_words,
        ),
        (
            "Classes",
            "class",
            "Class",
            &f.classes,
            &f.class_words,
            f.avg_class_words,
        ),
    ];
    for (total, slot, words, names, counts, avg) in kinds {
        put(QG, &format!("total{total}"), int(names.len()));
        for i in 0..3 {
            let name = names.get(i).cloned().unwrap_or_default();
            put(QG, &format!("{slot}{}", i + 1), Term::plain(name));
            let n = counts.get(i).copied().unwrap_or(0);
            put(QG, &format!("totalWords{words}{}", i + 1), int(n));
        }
        put(QG, &format!("avg{total}Words"), double(avg));
    }
    put(
        QG,
        "answerType",
        Term::plain(f.answer_type.clone().unwrap_or_default()),
    );
    let flag = |b: bool| Term::plain(if b { "1" } else { "0" });
    put(QG, "isNumberAnswer", flag(f.number_answer));
    put(QG, "isBooleanAnswer", flag(f.boolean_answer));
    for tag in super::pos::TAGS {
        put(QG, tag, boolean(f.pos.contains(&tag)));
    }
    if let Some(q) = &f.qword {
        put(QG, "questionType", Term::plain(format!("{q}, ")));
    }
    put(QG, "questionOrigin", Term::plain(origin));
    if let Some(q) = query {
        put(LSQ, "text", Term::plain(q));
    }
    let counts = [
        ("tps", f.triple_patterns),
        ("bgps", f.bgps),
        ("projectVars", f.projection_variables),
    ];
    for (name, n) in counts {
        if let Some(n) = n {
            put(LSQ, name, int(n));
        }
    }
    for (feature, name) in LSQ_FEATURES {
        if f.value(feature).is_some_and(|v| v > 0.0) {
            put(LSQ, "usesFeature", Term::Iri(format!("{LSQ}{name}")));
        }
    }
    if let Some(n) = f.result_size {
        put(LSQ, "resultSize", int(n));
    }
    out
}

/// The statements of every question of a benchmark (`all`: their features,
/// in the same order), each with the benchmark's `origin`.
pub fn dataset_facts(
    dataset: &crate::model::Dataset,
    all: &[QuestionFeatures],
    origin: &str,
) -> Vec<Fact> {
    let mut out = Vec::new();
    for (q, f) in dataset.questions.iter().zip(all) {
        let query = match &q.query {
            crate::model::Query::Sparql(s) => Some(s.as_str()),
            _ => None,
        };
        out.extend(facts(f, origin, query));
    }
    out
}

/// The graph pattern that binds `?<name>` for the question `?question`: a
/// numeric feature as a number (0 when the question does not record it), a
/// boolean one as `true`/`false`, a string one ([`STRINGS`]) as a string;
/// `None` for an unknown name.
pub fn pattern(name: &str) -> Option<String> {
    if let Some((_, ns, local)) = COUNTS.iter().find(|(n, _, _)| *n == name) {
        let flag = name.ends_with("_answer");
        let value = if flag {
            format!("(COALESCE(?{name}_raw, \"0\") = \"1\")")
        } else {
            format!("COALESCE(xsd:double(?{name}_raw), 0)")
        };
        return Some(format!(
            "OPTIONAL {{ ?question <{ns}{local}> ?{name}_raw }} BIND({value} AS ?{name})"
        ));
    }
    if name == "result_size" {
        return Some(format!(
            "OPTIONAL {{ ?question <{LSQ}resultSize> ?{name}_raw }} BIND(COALESCE(xsd:double(?{name}_raw), 0) AS ?{name})"
        ));
    }
    if let Some(tag) = super::pos::tag_of_feature(name) {
        return Some(format!(
            "OPTIONAL {{ ?question <{QG}{tag}> ?{name}_raw }} BIND(COALESCE(xsd:boolean(?{name}_raw), false) AS ?{name})"
        ));
    }
    if let Some((_, lsq)) = LSQ_FEATURES.iter().find(|(n, _)| *n == name) {
        return Some(format!(
            "BIND(EXISTS {{ ?question <{LSQ}usesFeature> <{LSQ}{lsq}> }} AS ?{name})"
        ));
    }
    let string = |local: &str| {
        format!("OPTIONAL {{ ?question <{QG}{local}> ?{name}_raw }} BIND(STR(COALESCE(?{name}_raw, \"\")) AS ?{name})")
    };
    Some(match name {
        "text" => string("text"),
        "answer_type" => string("answerType"),
        "origin" => string("questionOrigin"),
        "type" => format!(
            "OPTIONAL {{ ?question <{QG}text> ?type_raw }} BIND(LCASE(STRBEFORE(CONCAT(STR(COALESCE(?type_raw, \"\")), \" \"), \" \")) AS ?type)"
        ),
        _ => return None,
    })
}

/// True for a feature [`pattern`] binds to `true`/`false`.
pub fn is_boolean(name: &str) -> bool {
    name.ends_with("_answer")
        || LSQ_FEATURES.iter().any(|(n, _)| *n == name)
        || super::pos::tag_of_feature(name).is_some()
}

/// The SELECT of `sample --features` (and `--where`): the question and the
/// chosen features of every question with a `qg:text`, the features `filter`
/// names bound too, `filter` (a SPARQL expression) kept, ordered by question.
/// The names must be in [`NUMERIC`] or [`STRINGS`].
pub fn select_query(features: &[String], filter: Option<(&str, &[String])>) -> String {
    let mut bound: Vec<&str> = features.iter().map(String::as_str).collect();
    if let Some((_, names)) = filter {
        for n in names {
            if !bound.contains(&n.as_str()) {
                bound.push(n);
            }
        }
    }
    let patterns: Vec<String> = bound.iter().filter_map(|n| pattern(n)).collect();
    let vars: Vec<String> = features.iter().map(|f| format!("?{f}")).collect();
    let mut q = format!(
        "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nSELECT ?question {} WHERE {{\n  ?question <{QG}text> ?question_text .\n",
        vars.join(" ")
    );
    for p in patterns {
        q.push_str("  ");
        q.push_str(&p);
        q.push('\n');
    }
    if let Some((expr, _)) = filter {
        q.push_str(&format!("  FILTER({expr})\n"));
    }
    q.push_str("}\nORDER BY ?question\n");
    q
}

/// True for a name `--features` takes.
pub fn is_numeric(name: &str) -> bool {
    NUMERIC.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_iris_round_trip() {
        assert_eq!(question_iri("12"), format!("{QUESTION}12"));
        assert_eq!(question_iri("a b/#"), format!("{QUESTION}a%20b%2F%23"));
        for id in ["12", "a b/#", "é%", "q-1.x"] {
            assert_eq!(question_id(&question_iri(id)), id);
        }
        assert_eq!(question_id("http://x/y"), "http://x/y");
    }

    #[test]
    fn every_feature_has_a_pattern() {
        for n in NUMERIC.iter().chain(STRINGS.iter()) {
            let p = pattern(n).unwrap_or_default();
            assert!(p.contains(&format!("AS ?{n})")), "{n}: {p}");
        }
        assert!(pattern("nope").is_none());
        assert!(is_boolean("filter") && is_boolean("number_answer") && !is_boolean("words"));
    }

    #[test]
    fn facts_follow_qaldgendata() {
        let f = QuestionFeatures {
            id: "0".into(),
            text: Some("What is the time zone of Salt Lake City?".into()),
            words: 9,
            entities: vec!["Salt_Lake_City".into()],
            entity_words: vec![3],
            avg_entity_words: 3.0,
            relations: vec!["timeZone".into()],
            relation_words: vec![2],
            avg_relation_words: 2.0,
            classes: vec![],
            class_words: vec![],
            avg_class_words: 0.0,
            answer_type: Some("resource".into()),
            number_answer: false,
            boolean_answer: false,
            qword: Some("what".into()),
            triple_patterns: Some(1),
            bgps: Some(1),
            projection_variables: Some(1),
            result_size: Some(1),
            select: true,
            ask: false,
            distinct: true,
            filter: false,
            optional: false,
            union: false,
            order_by: false,
            group_by: false,
            aggregates: false,
            limit: false,
            offset: false,
            bind: false,
            functions: false,
            pos: vec!["IN", "NN", "NNP", "VBZ", "WP"],
        };
        let facts = facts(&f, "qald9", Some("SELECT ..."));
        let get = |p: &str| -> Vec<&Term> {
            facts
                .iter()
                .filter(|x| x.predicate == p)
                .map(|x| &x.object)
                .collect()
        };
        assert!(facts.iter().all(|x| x.subject == format!("{QUESTION}0")));
        // QaldGenData's flags of this question: IN NN NNP VBZ WP true, the rest false
        assert_eq!(get(&format!("{QG}NN")), [&boolean(true)]);
        assert_eq!(get(&format!("{QG}JJ")), [&boolean(false)]);
        assert_eq!(
            facts.iter().filter(|x| x.object == boolean(true)).count(),
            5
        );
        assert_eq!(get(&format!("{QG}length")), [&int(9)]);
        assert_eq!(
            get(&format!("{QG}entity1")),
            [&Term::plain("Salt_Lake_City")]
        );
        assert_eq!(get(&format!("{QG}entity3")), [&Term::plain("")]);
        assert_eq!(get(&format!("{QG}totalWordsRelation1")), [&int(2)]);
        assert_eq!(get(&format!("{QG}avgClassesWords")), [&double(0.0)]);
        assert_eq!(get(&format!("{QG}isNumberAnswer")), [&Term::plain("0")]);
        assert_eq!(get(&format!("{QG}questionType")), [&Term::plain("what, ")]);
        assert_eq!(
            get(&format!("{LSQ}usesFeature")),
            [
                &Term::Iri(format!("{LSQ}Select")),
                &Term::Iri(format!("{LSQ}Distinct"))
            ]
        );
        assert_eq!(get(&format!("{LSQ}resultSize")), [&int(1)]);
        assert_eq!(double(1.0), double(1.0));
        if let Term::Literal { lexical, .. } = double(1.0) {
            assert_eq!(lexical, "1.0");
        }
    }
}
