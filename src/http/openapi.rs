//! The OpenAPI 3 document of the API (`GET /api/v1/openapi.json`).

use serde_json::{json, Value};

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    })
}

fn ok_json(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": schema}}
    })
}

fn query_param(name: &str, required: bool, description: &str, kind: &str) -> Value {
    json!({"name": name, "in": "query", "required": required, "description": description, "schema": {"type": kind}})
}

/// The OpenAPI document.
pub fn document() -> Value {
    let term = json!({"$ref": "#/components/schemas/Term"});
    let iris_body = json!({"oneOf": [
        {"type": "array", "maxItems": 10_000, "items": {"type": "string"}},
        {"type": "object", "required": ["iris"], "properties": {"iris": {"type": "array", "maxItems": 10_000, "items": {"type": "string"}}}}
    ]});
    let label_query = json!({"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}, "lang": {"type": "string"}, "fuzzy": {"type": "integer", "minimum": 0, "maximum": 2}}});
    let document = json!({"type": "object", "additionalProperties": false, "properties": {
        "name": {"type": "string", "description": "a run's name (its stem) or a file name"},
        "document": {"description": "the document as JSON (QALD-JSON, eQALD, LC-QuAD, RuBQ, TEXT2SPARQL answers)"},
        "text": {"type": "string", "description": "the document as text (QALD-XML, TEXT2SPARQL YAML, JSON Lines, or JSON)"}
    }});
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "qajudge",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Judge question-answering systems over knowledge graphs: owl:sameAs and label lookups, answer matching, SPARQL annotation, and stored experiments (SCORING.md)."
        },
        "servers": [{"url": "/api/v1"}],
        "paths": {
            "/health": {"get": {"summary": "Service status, index and counts", "responses": {"200": ok_json("status", json!({"type": "object"}))}}},
            "/sameas": {
                "get": {
                    "summary": "The owl:sameAs class of an IRI",
                    "parameters": [query_param("iri", true, "the IRI", "string"), query_param("limit", false, "members returned at most (default 100)", "integer")],
                    "responses": {"200": ok_json("the class (without an index: the canonical form, in a class of one)", json!({"$ref": "#/components/schemas/SameAs"})), "400": error_response("no iri")}
                },
                "post": {
                    "summary": "The classes of a batch of IRIs",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
                        {"type": "array", "items": {"type": "string"}},
                        {"type": "object", "required": ["iris"], "properties": {"iris": {"type": "array", "items": {"type": "string"}}, "limit": {"type": "integer"}}}
                    ]}}}},
                    "responses": {"200": ok_json("one class per IRI, in order", json!({"type": "array", "items": {"$ref": "#/components/schemas/SameAs"}})), "400": error_response("malformed body, or more than 10,000 IRIs (batch_too_large)"), "413": error_response("body too large")}
                }
            },
            "/labels": {"post": {
                "summary": "The IRIs carrying each of many labels",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
                    {"type": "array", "maxItems": 1000, "items": label_query.clone()},
                    {"type": "object", "required": ["queries"], "properties": {"queries": {"type": "array", "maxItems": 1000, "items": label_query}}}
                ]}}}},
                "responses": {"200": ok_json("one answer per query, in order: the query and its hits", json!({"type": "array", "items": {"type": "object"}})), "400": error_response("more than 1,000 queries (batch_too_large) or fuzzy over 2"), "503": error_response("no index")}},
            "get": {
                "summary": "The IRIs carrying a label",
                "parameters": [query_param("text", true, "the label", "string"), query_param("lang", false, "a language (en matches en-gb)", "string"), query_param("fuzzy", false, "edits allowed (0–2)", "integer")],
                "responses": {"200": ok_json("hits", json!({"type": "array", "items": {"type": "object", "properties": {"iri": {"type": "string"}, "label": {"type": "string"}, "lang": {"type": "string"}}}})), "400": error_response("bad parameters")}
            }},
            "/canonical": {"post": {
                "summary": "Canonical forms of IRIs (SCORING 2a); no index needed",
                "requestBody": {"required": true, "content": {"application/json": {"schema": iris_body.clone()}}},
                "responses": {"200": ok_json("one per IRI, in order", json!({"type": "array", "items": {"type": "object", "properties": {"iri": {"type": "string"}, "canonical": {"type": "string"}}}})), "400": error_response("more than 10,000 IRIs (batch_too_large)"), "413": error_response("body too large")}
            }},
            "/evaluate": {"post": {
                "summary": "Evaluate runs against a gold benchmark synchronously: the report of SCORING 9",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["gold", "runs"], "additionalProperties": false,
                    "properties": {
                        "gold": {"oneOf": [{"type": "string", "description": "a registered benchmark's name"}, document.clone()]},
                        "runs": {"type": "array", "maxItems": 20, "items": document},
                        "profile": {"type": "string", "enum": ["judge", "gerbil", "mqald", "text2sparql"]},
                        "experiments": {"type": "array", "items": {"type": "string", "enum": ["qa", "c2kb", "p2kb", "re2kb", "at", "ait2kb"]}},
                        "explain": {"type": "boolean"},
                        "strict_literals": {"type": "boolean"},
                        "lenient_dates": {"type": "boolean"},
                        "max_class_size": {"type": "integer"},
                        "gold_markings": {"type": "string", "enum": ["auto", "query"]},
                        "lang": {"type": "string"},
                        "refresh_gold": {"type": "boolean", "description": "execute the gold queries on the server's knowledge graph"},
                        "execute_run": {"type": "boolean", "description": "execute the run queries on the server's knowledge graph"},
                        "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600_000, "description": "time limit of the call (default 60000); a longer evaluation answers 503 timeout"}
                    }
                }}}},
                "responses": {"200": ok_json("the report (docs/report.md)", json!({"type": "object"})), "400": error_response("unreadable document, more than 20 runs, bad option, or queries to execute without a knowledge graph"), "404": error_response("unknown benchmark"), "413": error_response("body too large"), "503": error_response("over the time limit (timeout)")}
            }},
            "/types": {"post": {
                "summary": "The classes of many IRIs",
                "requestBody": {"required": true, "content": {"application/json": {"schema": iris_body}}},
                "responses": {"200": ok_json("one per IRI, in order", json!({"type": "array", "items": {"type": "object", "properties": {"iri": {"type": "string"}, "types": {"type": "array", "items": {"type": "string"}}}}})), "400": error_response("more than 10,000 IRIs (batch_too_large)"), "503": error_response("no index")}},
            "get": {
                "summary": "The classes of an IRI",
                "parameters": [query_param("iri", true, "the IRI", "string")],
                "responses": {"200": ok_json("types", json!({"type": "object", "properties": {"iri": {"type": "string"}, "types": {"type": "array", "items": {"type": "string"}}}}))}
            }},
            "/match": {"post": {
                "summary": "Match a run's answers against gold answers (SCORING 2–3) and explain every pair; one question (gold, run) or many (questions: at most 10,000)",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {
                        "questions": {"type": "array", "maxItems": 10_000, "items": {"type": "object", "required": ["id", "gold", "run"], "properties": {"id": {}, "gold": {"type": "array"}, "run": {"type": "array"}}}},
                        "gold": {"type": "array", "items": {"oneOf": [term.clone(), {"type": "boolean"}, {"type": "array", "items": term.clone()}]}},
                        "run": {"type": "array", "items": {"oneOf": [term.clone(), {"type": "boolean"}, {"type": "array", "items": term}]}},
                        "profile": {"type": "string", "enum": ["judge", "gerbil", "mqald"]},
                        "strict_literals": {"type": "boolean"},
                        "lenient_dates": {"type": "boolean"}
                    }
                }}}},
                "responses": {"200": ok_json("counts, measures, pairs with reasons", json!({"type": "object"})), "400": error_response("malformed answers")}
            }},
            "/annotate": {"post": {
                "summary": "Markings and features of a SPARQL query",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["sparql"], "properties": {"sparql": {"type": "string"}}}}}},
                "responses": {"200": ok_json("markings, features, modifiers, diagnostics", json!({"type": "object"}))}
            }},
            "/benchmarks": {"get": {"summary": "Registered benchmarks", "responses": {"200": ok_json("benchmarks", json!({"type": "array", "items": {"type": "object"}}))}}},
            "/experiments": {
                "get": {"summary": "Stored experiments, newest first", "responses": {"200": ok_json("summaries", json!({"type": "array", "items": {"type": "object"}}))}},
                "post": {
                    "summary": "Submit an experiment",
                    "requestBody": {"required": true, "content": {"multipart/form-data": {"schema": {"type": "object", "properties": {
                        "gold": {"type": "string", "format": "binary", "description": "a benchmark file (or give benchmark)"},
                        "benchmark": {"type": "string", "description": "the name of a registered benchmark"},
                        "run": {"type": "array", "items": {"type": "string", "format": "binary"}, "description": "run files"},
                        "system_url": {"type": "array", "items": {"type": "string"}, "description": "QA systems to ask, in the API of protocol"},
                        "protocol": {"type": "string", "enum": ["gerbil", "text2sparql"], "description": "gerbil: form POST query, lang; QALD-JSON answers (default). text2sparql: GET ?dataset=&question=; the returned query is executed on the server's knowledge graph"},
                        "dataset": {"type": "string", "description": "the dataset id sent to text2sparql systems (default: the gold benchmark's id)"},
                        "profile": {"type": "string", "enum": ["judge", "gerbil", "mqald", "text2sparql"]},
                        "experiments": {"type": "string", "description": "comma-separated: qa,c2kb,p2kb,re2kb,at,ait2kb"},
                        "lang": {"type": "string"},
                        "refresh_gold": {"type": "boolean", "description": "execute every gold query on the server's knowledge graph, also where the gold gives answers"},
                        "execute_run": {"type": "boolean", "description": "execute every run query on the server's knowledge graph, also where the run gives answers"}
                    }}}}},
                    "responses": {"202": ok_json("accepted", json!({"type": "object", "properties": {"id": {"type": "string"}, "status": {"type": "string"}, "url": {"type": "string"}, "api": {"type": "string"}}})), "400": error_response("bad upload, or queries to execute and no knowledge graph"), "404": error_response("unknown benchmark"), "413": error_response("body too large")}
                }
            },
            "/experiments/{id}": {"get": {
                "summary": "An experiment: status and, when done, the report of SCORING 9",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[0-9]{12}$"}}],
                "responses": {"200": ok_json("the record", json!({"type": "object"})), "404": error_response("unknown id")}
            }},
            "/openapi.json": {"get": {"summary": "This document", "responses": {"200": ok_json("OpenAPI 3", json!({"type": "object"}))}}}
        },
        "components": {"schemas": {
            "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}},
            "Term": {"type": "object", "required": ["type", "value"], "properties": {"type": {"type": "string", "enum": ["uri", "literal", "typed-literal", "bnode"]}, "value": {"type": "string"}, "datatype": {"type": "string"}, "xml:lang": {"type": "string"}}},
            "SameAs": {"type": "object", "properties": {"iri": {"type": "string"}, "canonical": {"type": "string"}, "class": {"type": "integer", "nullable": true}, "class_size": {"type": "integer"}, "members": {"type": "array", "items": {"type": "string"}}}}
        }}
    })
}
