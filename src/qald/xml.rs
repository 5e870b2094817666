//! QALD-XML as QALD-1 … QALD-7 wrote it: `<dataset>` of `<question id=…>` with
//! `<string lang>`, `<query>` or `<pseudoquery>`, and `<answers>` whose `<answer>`
//! holds typed children (`<uri>` with its `<string>` label, `<number>`, `<date>`,
//! `<boolean>`) or untyped text.

use quick_xml::events::Event;
use quick_xml::Reader;

use super::values::{untyped_term, uri_term};
use super::QaldError;
use crate::model::{Answer, AnswerSet, Dataset, Format, Query, Question, QuestionId, Term};

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// The deepest element nesting read: QALD-XML nests five levels, and the
/// element tree is freed recursively, so a deeper file is an error before it
/// can exhaust the stack.
pub const MAX_XML_DEPTH: usize = 256;

/// A minimal element tree.
#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
    text: String,
}

impl Node {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }
    fn text(&self) -> &str {
        self.text.trim()
    }
}

fn tree(bytes: &[u8], source: &str) -> Result<Node, QaldError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Node> = vec![Node::default()];
    let err = |reader: &Reader<&[u8]>, what: String| {
        QaldError::at_offset(
            source,
            bytes,
            reader.error_position() as usize,
            format!("malformed xml: {what}; fix the file (QALD-XML must be well-formed)"),
        )
    };
    loop {
        let pos = reader.buffer_position() as usize;
        let event = reader
            .read_event()
            .map_err(|e| err(&reader, e.to_string()))?;
        let at = |what: String| QaldError::at_offset(source, bytes, pos, what);
        match event {
            Event::Start(start) => {
                if stack.len() > MAX_XML_DEPTH {
                    return Err(at(format!(
                        "malformed xml: elements nest deeper than {MAX_XML_DEPTH} levels; QALD-XML nests a few levels: fix the file"
                    )));
                }
                stack.push(element(&start, &at)?);
            }
            Event::Empty(start) => {
                let node = element(&start, &at)?;
                if let Some(parent) = stack.last_mut() {
                    parent.children.push(node);
                }
            }
            Event::End(_) => {
                let node = stack.pop().unwrap_or_default();
                match stack.last_mut() {
                    Some(parent) => parent.children.push(node),
                    None => return Err(at("malformed xml: unexpected closing tag".into())),
                }
            }
            Event::Text(t) => {
                let text = t
                    .unescape()
                    .map_err(|e| at(format!("malformed xml: {e}; fix the file")))?;
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&text);
                }
            }
            Event::CData(c) => {
                let inner = c.into_inner();
                if let Some(node) = stack.last_mut() {
                    node.text.push_str(&String::from_utf8_lossy(&inner));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        let open = stack.last().map_or("", |n| n.name.as_str()).to_string();
        return Err(QaldError::at_offset(
            source,
            bytes,
            bytes.len(),
            format!("malformed xml: element <{open}> is never closed; fix the file"),
        ));
    }
    let root = stack.pop().unwrap_or_default();
    let dataset = root.children.into_iter().find(|n| n.name == "dataset");
    Ok(dataset.unwrap_or_default())
}

fn element(
    start: &quick_xml::events::BytesStart<'_>,
    at: &dyn Fn(String) -> QaldError,
) -> Result<Node, QaldError> {
    let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    // quick-xml's own check of repeated attributes compares each with all
    // before it; a set does it in linear time
    let mut keys = std::collections::HashSet::new();
    for a in start.attributes().with_checks(false) {
        let a = a.map_err(|e| {
            at(format!(
                "malformed xml attribute in <{name}>: {e}; fix the file"
            ))
        })?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        if !keys.insert(key.clone()) {
            return Err(at(format!(
                "malformed xml attribute in <{name}>: attribute {key} is repeated; fix the file"
            )));
        }
        let value = a
            .unescape_value()
            .map_err(|e| {
                at(format!(
                    "malformed xml attribute {key} in <{name}>: {e}; fix the file"
                ))
            })?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Node {
        name,
        attrs,
        ..Node::default()
    })
}

/// Parses a QALD-XML document.
pub fn parse(bytes: &[u8], source: &str) -> Result<Dataset, QaldError> {
    let root = tree(bytes, source)?;
    if root.name != "dataset" {
        return Err(QaldError::Syntax {
            source_name: source.to_string(),
            line: 1,
            column: 1,
            message: "not QALD-XML: no <dataset> root element".into(),
        });
    }
    let mut dataset = Dataset::new(Format::QaldXml);
    dataset.id = root.attr("id").map(str::to_string);
    for (i, node) in root
        .children
        .iter()
        .filter(|n| n.name == "question")
        .enumerate()
    {
        dataset.questions.push(question(node, i));
    }
    Ok(dataset)
}

fn question(node: &Node, position: usize) -> Question {
    let mut q = Question::default();
    q.id = match node.attr("id").map(str::trim).filter(|s| !s.is_empty()) {
        Some(id) => QuestionId(id.to_string()),
        None => {
            q.diagnostics.push(format!(
                "question #{} has no id attribute; it is named #{} and cannot be joined",
                position + 1,
                position + 1
            ));
            QuestionId(format!("#{}", position + 1))
        }
    };
    for (k, v) in &node.attrs {
        match k.as_str() {
            "id" => {}
            "answertype" => q.answertype = Some(v.trim().to_ascii_lowercase()),
            _ => {
                q.flags.insert(k.clone(), v.trim().to_ascii_lowercase());
            }
        }
    }
    for child in &node.children {
        match child.name.as_str() {
            "string" => q.texts.push((
                child.attr("lang").unwrap_or("en").to_string(),
                child.text().to_string(),
            )),
            "query" if !child.text().is_empty() => {
                q.query = Query::Sparql(child.text().to_string());
            }
            "pseudoquery" if !child.text().is_empty() => {
                q.query = Query::Pseudo(child.text().to_string());
            }
            _ => {}
        }
    }
    if let Some(answers) = node.child("answers") {
        let mut set = AnswerSet::default();
        for a in answers.children.iter().filter(|c| c.name == "answer") {
            match answer(a, q.answertype.as_deref()) {
                Some(answer) => set.answers.push(answer),
                None if a.children.is_empty() && a.text().is_empty() => {}
                None => q.diagnostics.push(format!(
                    "question {}: an <answer> holds nothing readable",
                    q.id
                )),
            }
        }
        q.answers = Some(set);
    }
    q
}

fn answer(node: &Node, answertype: Option<&str>) -> Option<Answer> {
    if node.children.is_empty() {
        let text = node.text();
        return (!text.is_empty()).then(|| Answer::single(untyped_term(text, answertype)));
    }
    let mut answer = Answer::default();
    // the IRI first, its label after it: IRIs go before the other terms, the
    // last IRI first (as inserting each at the front would, without its
    // quadratic cost on an answer of many <uri>s)
    let mut iris = Vec::new();
    for child in &node.children {
        let text = child.text();
        if text.is_empty() {
            continue;
        }
        match child.name.as_str() {
            "uri" => iris.push(uri_term(text)),
            "number" => answer
                .terms
                .push(Term::typed(text, format!("{XSD}decimal"))),
            "date" => answer.terms.push(Term::typed(text, format!("{XSD}date"))),
            "boolean" => answer.terms.push(match text.to_ascii_lowercase().as_str() {
                "true" => Term::Boolean(true),
                "false" => Term::Boolean(false),
                _ => Term::plain(text),
            }),
            _ => answer.terms.push(Term::plain(text)),
        }
    }
    iris.reverse();
    iris.append(&mut answer.terms);
    answer.terms = iris;
    (!answer.terms.is_empty()).then_some(answer)
}

#[cfg(test)]
mod tests {
    use crate::model::{Format, Query, Term};
    use crate::qald::parse;

    #[test]
    fn qald1_uri_with_label_is_one_answer() {
        let d = parse(
            b"<?xml version=\"1.0\" ?>\n<dataset id=\"dbpedia-train\">\n<question id=\"23\">\n<string>\nGive me all school types.\n</string>\n<query>\nSELECT ?uri ?string WHERE { ?uri a &lt;http://x.org/C&gt; }\n</query>\n<answers>\n<answer>\n<uri>\nhttp://dbpedia.org/resource/Art_school\n</uri>\n<string>\nArt school\n</string>\n</answer>\n<answer><number>3</number></answer><answer><boolean>true</boolean></answer></answers>\n</question>\n</dataset>",
            "q1.xml",
        )
        .unwrap();
        assert_eq!(d.format, Format::QaldXml);
        assert_eq!(d.id.as_deref(), Some("dbpedia-train"));
        let q = &d.questions[0];
        assert_eq!(q.text("en"), Some("Give me all school types."));
        assert!(matches!(&q.query, Query::Sparql(s) if s.contains("<http://x.org/C>")));
        let a = &q.answers.as_ref().unwrap().answers;
        assert_eq!(a.len(), 3);
        assert_eq!(
            a[0].terms,
            vec![
                Term::Iri("http://dbpedia.org/resource/Art_school".into()),
                Term::plain("Art school")
            ]
        );
        assert_eq!(a[2].terms, vec![Term::Boolean(true)]);
    }

    #[test]
    fn iris_come_first_the_last_first() {
        let d = parse(
            b"<dataset><question id=\"1\"><answers><answer><string>L</string><uri>http://x.org/a</uri><number>2</number><uri>http://x.org/b</uri></answer></answers></question></dataset>",
            "q.xml",
        )
        .unwrap();
        let a = &d.questions[0].answers.as_ref().unwrap().answers;
        assert_eq!(
            a[0].terms,
            vec![
                Term::Iri("http://x.org/b".into()),
                Term::Iri("http://x.org/a".into()),
                Term::plain("L"),
                Term::typed("2", "http://www.w3.org/2001/XMLSchema#decimal"),
            ]
        );
    }

    #[test]
    fn too_deep_nesting_and_repeated_attributes_are_located_errors() {
        let depth = super::MAX_XML_DEPTH + 10;
        let deep = format!(
            "<dataset>{}{}</dataset>",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        );
        let e = parse(deep.as_bytes(), "deep.xml").unwrap_err().to_string();
        assert!(
            e.contains("deep.xml") && e.contains("deeper than 256"),
            "{e}"
        );
        // a million levels: an error, not a stack overflow
        let deeper = format!("<dataset>{}</dataset>", "<a>".repeat(1_000_000));
        assert!(parse(deeper.as_bytes(), "deeper.xml").is_err());
        let e = parse(
            b"<dataset>\n<question id=\"1\" x=\"a\" id=\"2\"/></dataset>",
            "r.xml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("r.xml:2:1") && e.contains("attribute id is repeated"),
            "{e}"
        );
    }

    /// Found by the `qald_xml` fuzz target: a `<uri>` without a scheme was an IRI
    /// here but a literal once written as QALD-JSON and read again; both readers
    /// now read it as the JSON reader reads a `uri` binding.
    #[test]
    fn a_uri_without_a_scheme_reads_as_in_qald_json() {
        let d = parse(
            b"<dataset id=\"d\"><question id=\"2\"><answers><answer><uri>httpZ//es.dbpedia.org/resource/X</uri></answer><answer><uri> http://a.org/Y </uri><string>Y</string></answer></answers></question></dataset>",
            "q.xml",
        )
        .unwrap();
        let written = crate::qald::to_qald_json(&d, &Default::default()).to_string();
        let again = parse(written.as_bytes(), "q.json").unwrap();
        let answers = |d: &crate::model::Dataset| d.questions[0].answers.clone().unwrap().answers;
        assert_eq!(answers(&d), answers(&again));
        assert_eq!(
            answers(&d)[0].terms,
            [Term::plain("httpZ//es.dbpedia.org/resource/X")]
        );
        assert_eq!(
            answers(&d)[1].terms,
            [Term::Iri("http://a.org/Y".into()), Term::plain("Y")]
        );
    }

    #[test]
    fn qald5_untyped_text_and_pseudo() {
        let d = parse(
            b"<dataset id=\"x\"><question id=\"1\" answertype=\"boolean\" hybrid=\"true\"><string lang=\"en\"><![CDATA[Is it?]]></string><pseudoquery><![CDATA[ASK { ?x text:\"a\" }]]></pseudoquery><answers><answer><![CDATA[true]]></answer></answers></question><!-- <question id=\"2\"></question> --><question id=\"3\"><string>No answers here</string></question></dataset>",
            "q5.xml",
        )
        .unwrap();
        assert_eq!(d.questions.len(), 2);
        assert!(matches!(d.questions[0].query, Query::Pseudo(_)));
        assert_eq!(d.questions[0].flags["hybrid"], "true");
        assert_eq!(
            d.questions[0].answers.as_ref().unwrap().answers[0].terms[0],
            Term::Boolean(true)
        );
        assert!(d.questions[1].answers.is_none());
    }

    #[test]
    fn malformed_xml_names_line_and_column() {
        let err = parse(
            b"<dataset>\n<question id=\"1\">\n<string>x</strin>\n</question></dataset>",
            "bad.xml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("bad.xml:3:"), "{err}");
        assert!(err.contains("malformed xml"), "{err}");
        let err = parse(b"<dataset>\n<question id=\"1\">", "open.xml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("never closed"), "{err}");
    }
}
