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
                    "responses": {"200": ok_json("the class", json!({"$ref": "#/components/schemas/SameAs"})), "400": error_response("no iri"), "503": error_response("no index")}
                },
                "post": {
                    "summary": "The classes of a batch of IRIs",
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {"oneOf": [
                        {"type": "array", "items": {"type": "string"}},
                        {"type": "object", "required": ["iris"], "properties": {"iris": {"type": "array", "items": {"type": "string"}}, "limit": {"type": "integer"}}}
                    ]}}}},
                    "responses": {"200": ok_json("one class per IRI", json!({"type": "array", "items": {"$ref": "#/components/schemas/SameAs"}})), "400": error_response("malformed body"), "413": error_response("body too large")}
                }
            },
            "/labels": {"get": {
                "summary": "The IRIs carrying a label",
                "parameters": [query_param("text", true, "the label", "string"), query_param("lang", false, "a language (en matches en-gb)", "string"), query_param("fuzzy", false, "edits allowed (0–2)", "integer")],
                "responses": {"200": ok_json("hits", json!({"type": "array", "items": {"type": "object", "properties": {"iri": {"type": "string"}, "label": {"type": "string"}, "lang": {"type": "string"}}}})), "400": error_response("bad parameters")}
            }},
            "/types": {"get": {
                "summary": "The classes of an IRI",
                "parameters": [query_param("iri", true, "the IRI", "string")],
                "responses": {"200": ok_json("types", json!({"type": "object", "properties": {"iri": {"type": "string"}, "types": {"type": "array", "items": {"type": "string"}}}}))}
            }},
            "/match": {"post": {
                "summary": "Match a run's answers against gold answers (SCORING 2–3) and explain every pair",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["gold", "run"],
                    "properties": {
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
