//! The prefixes that public SPARQL endpoints predefine (DBpedia's Virtuoso, the
//! Wikidata query service), which real benchmark queries use without declaring.

/// (prefix, namespace IRI) pairs predefined when a query does not declare them.
pub const PREDEFINED: &[(&str, &str)] = &[
    ("dbo", "http://dbpedia.org/ontology/"),
    ("dbr", "http://dbpedia.org/resource/"),
    ("res", "http://dbpedia.org/resource/"),
    ("dbp", "http://dbpedia.org/property/"),
    ("dbc", "http://dbpedia.org/resource/Category:"),
    ("dbpedia", "http://dbpedia.org/resource/"),
    ("dbpedia-owl", "http://dbpedia.org/ontology/"),
    ("dbpprop", "http://dbpedia.org/property/"),
    ("onto", "http://dbpedia.org/ontology/"),
    ("yago", "http://dbpedia.org/class/yago/"),
    ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
    ("foaf", "http://xmlns.com/foaf/0.1/"),
    ("dc", "http://purl.org/dc/elements/1.1/"),
    ("dct", "http://purl.org/dc/terms/"),
    ("dcterms", "http://purl.org/dc/terms/"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("geo", "http://www.w3.org/2003/01/geo/wgs84_pos#"),
    ("georss", "http://www.georss.org/georss/"),
    ("prov", "http://www.w3.org/ns/prov#"),
    ("schema", "http://schema.org/"),
    ("wd", "http://www.wikidata.org/entity/"),
    ("wdt", "http://www.wikidata.org/prop/direct/"),
    ("wds", "http://www.wikidata.org/entity/statement/"),
    ("wdv", "http://www.wikidata.org/value/"),
    ("wdref", "http://www.wikidata.org/reference/"),
    ("wikibase", "http://wikiba.se/ontology#"),
    ("p", "http://www.wikidata.org/prop/"),
    ("ps", "http://www.wikidata.org/prop/statement/"),
    ("psv", "http://www.wikidata.org/prop/statement/value/"),
    (
        "psn",
        "http://www.wikidata.org/prop/statement/value-normalized/",
    ),
    (
        "pqn",
        "http://www.wikidata.org/prop/qualifier/value-normalized/",
    ),
    (
        "prn",
        "http://www.wikidata.org/prop/reference/value-normalized/",
    ),
    ("wdtn", "http://www.wikidata.org/prop/direct-normalized/"),
    ("wdata", "http://www.wikidata.org/wiki/Special:EntityData/"),
    ("pq", "http://www.wikidata.org/prop/qualifier/"),
    ("pqv", "http://www.wikidata.org/prop/qualifier/value/"),
    ("pr", "http://www.wikidata.org/prop/reference/"),
    ("prv", "http://www.wikidata.org/prop/reference/value/"),
    ("wdno", "http://www.wikidata.org/prop/novalue/"),
    ("bd", "http://www.bigdata.com/rdf#"),
    ("ontolex", "http://www.w3.org/ns/lemon/ontolex#"),
    ("dbpedia2", "http://dbpedia.org/property/"),
    ("qb", "http://purl.org/linked-data/cube#"),
    ("lso", "http://linkedspending.aksw.org/ontology/"),
    ("ls", "http://linkedspending.aksw.org/instance/"),
    ("text", "http://jena.apache.org/text#"),
];

/// The namespace of a predefined prefix.
pub fn namespace(prefix: &str) -> Option<&'static str> {
    PREDEFINED
        .iter()
        .find(|(p, _)| *p == prefix)
        .map(|(_, ns)| *ns)
}

/// Expands a prefixed name (`wdt:P17`) with the predefined prefixes; anything else
/// is returned as it is.
pub fn expand(name: &str) -> String {
    match name.split_once(':') {
        Some((prefix, local)) if !local.starts_with("//") => match namespace(prefix) {
            Some(ns) => format!("{ns}{local}"),
            None => name.to_string(),
        },
        _ => name.to_string(),
    }
}
/// The prefixes a SPARQL query declares (`PREFIX dbo: <…>`), as (prefix,
/// namespace), in order. Read from the text, so that a query that does not parse
/// still names its prefixes.
pub fn declared(query: &str) -> Vec<(String, String)> {
    const DECLARATION_WINDOW: usize = 4 * 1024;
    let mut out = Vec::new();
    let lower = query.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("prefix") {
        let start = from + i;
        from = start + 6;
        let before = lower[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        // a declaration is read within 4 KiB of its keyword, so keywords
        // without their `:` or `<…>` do not each scan to the end of the text
        let mut end = (from + DECLARATION_WINDOW).min(query.len());
        while !query.is_char_boundary(end) {
            end -= 1;
        }
        let rest = &query[from..end];
        let Some(colon) = rest.find(':') else {
            continue;
        };
        let name = rest[..colon].trim();
        if !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            continue;
        }
        let after = rest[colon + 1..].trim_start();
        let Some(iri) = after
            .strip_prefix('<')
            .and_then(|a| a.split_once('>'))
            .map(|(i, _)| i)
        else {
            continue;
        };
        out.push((name.to_string(), iri.to_string()));
    }
    out
}

/// Writes an IRI as a prefixed name when one of `prefixes` (prefix, namespace)
/// covers it and the rest is a plain local name, else as `<iri>`.
pub fn compact(iri: &str, prefixes: &[(String, String)]) -> String {
    let best = prefixes
        .iter()
        .filter(|(_, ns)| !ns.is_empty() && iri.starts_with(ns.as_str()))
        .max_by_key(|(_, ns)| ns.len());
    written(iri, best.map(|(p, ns)| (p.as_str(), ns.as_str())))
}

/// Prefixes indexed by namespace, for compacting many IRIs: each IRI is
/// looked up once per distinct namespace length, not against every prefix,
/// so a gold declaring many prefixes stays linear. Compacts as [`compact`]
/// does over the same list (the longest namespace; of equal ones, the last
/// declared).
#[derive(Debug, Clone, Default)]
pub struct Namespaces {
    /// Each namespace's prefix (the last declared).
    by_namespace: std::collections::HashMap<String, String>,
    /// The distinct namespace lengths, longest first.
    lengths: Vec<usize>,
}

impl Namespaces {
    /// Indexes (prefix, namespace) pairs.
    pub fn new(prefixes: &[(String, String)]) -> Self {
        let mut by_namespace = std::collections::HashMap::new();
        for (prefix, ns) in prefixes.iter().filter(|(_, ns)| !ns.is_empty()) {
            by_namespace.insert(ns.clone(), prefix.clone());
        }
        let mut lengths: Vec<usize> = by_namespace.keys().map(String::len).collect();
        lengths.sort_unstable_by(|a, b| b.cmp(a));
        lengths.dedup();
        Namespaces {
            by_namespace,
            lengths,
        }
    }

    /// [`compact`] over the indexed prefixes.
    pub fn compact(&self, iri: &str) -> String {
        let best = self.lengths.iter().find_map(|&n| {
            let ns = iri.get(..n)?;
            self.by_namespace.get(ns).map(|p| (p.as_str(), ns))
        });
        written(iri, best)
    }
}

/// An IRI as `prefix:local` when `best` (prefix, namespace) covers it with a
/// plain local name, else as `<iri>`.
fn written(iri: &str, best: Option<(&str, &str)>) -> String {
    if let Some((prefix, ns)) = best {
        let local = &iri[ns.len()..];
        let plain = !local.is_empty()
            && !local.ends_with('.')
            && local
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if plain {
            return format!("{prefix}:{local}");
        }
    }
    format!("<{iri}>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_compact_as_the_list_does() {
        let list: Vec<(String, String)> = [
            ("a", "http://x.org/"),
            ("b", "http://x.org/o/"),
            ("c", "http://x.org/o/"),
            ("e", ""),
            ("d", "http://y.org/r#"),
        ]
        .iter()
        .map(|(p, n)| (p.to_string(), n.to_string()))
        .collect();
        let index = Namespaces::new(&list);
        for iri in [
            "http://x.org/o/Thing",
            "http://x.org/Thing",
            "http://x.org/o/",
            "http://x.org/o/a b",
            "http://y.org/r#Bé",
            "http://z.org/Other",
            "",
        ] {
            assert_eq!(index.compact(iri), compact(iri, &list), "{iri}");
        }
        assert_eq!(index.compact("http://x.org/o/Thing"), "c:Thing");
    }

    #[test]
    fn declared_prefixes_and_compact_names() {
        let q = "PREFIX dbo: <http://dbpedia.org/ontology/>\nprefix res:<http://dbpedia.org/resource/> SELECT ?x { ?x dbo:prefix res:A }";
        let p = declared(q);
        assert_eq!(
            p,
            vec![
                (
                    "dbo".to_string(),
                    "http://dbpedia.org/ontology/".to_string()
                ),
                (
                    "res".to_string(),
                    "http://dbpedia.org/resource/".to_string()
                )
            ]
        );
        assert_eq!(
            compact("http://dbpedia.org/resource/Ann_Dunham", &p),
            "res:Ann_Dunham"
        );
        assert_eq!(
            compact("http://dbpedia.org/resource/A_(b)", &p),
            "<http://dbpedia.org/resource/A_(b)>"
        );
        assert_eq!(compact("http://x.org/a", &p), "<http://x.org/a>");
    }
}
