//! The OpenAPI 3.1 document of the service (`GET /api/v1/openapi.json`),
//! generated from the handlers' annotations and the request and response types
//! (utoipa), so that it cannot drift from the code. Each resource module
//! declares its own paths (its `Api`); this module only adds what the whole
//! document has (info, tags, the error body) and merges the declarations. Only
//! server setup imports it.

use serde_json::Value;
use utoipa::OpenApi;

use super::error::ErrorBody;
use super::{
    audit, evaluate, experiments, leaderboard, lookups, matching, micro, published, service,
};

/// What the document has besides the paths: its info, its tags (in this
/// order) and the error body every route may answer.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "qajudge",
        description = "Judge question-answering systems over knowledge graphs: owl:sameAs, label and type lookups, answer matching, SPARQL annotation, synchronous evaluation, stored experiments (private until published) and experiments as linked data with a read-only SPARQL endpoint; the rules are in docs/scoring.md. Errors are {\"error\": {\"code\", \"message\"}}.",
        license(name = "MIT")
    ),
    components(schemas(ErrorBody)),
    tags(
        (name = "lookups", description = "owl:sameAs classes, labels, types and canonical forms (batches of up to 10,000 IRIs, 1,000 label queries)"),
        (name = "matching", description = "answer matching and SPARQL annotation"),
        (name = "evaluation", description = "synchronous evaluation through the CLI's code path"),
        (name = "experiments", description = "stored experiments: private with their token until published"),
        (name = "linked data", description = "experiments as W3C Data Cube RDF and the read-only SPARQL endpoint"),
        (name = "service", description = "status and this document"),
        (name = "page", description = "the web page")
    )
)]
struct ApiDoc;

/// The OpenAPI document: [`ApiDoc`] with every resource module's paths and
/// the schemas they name, and the crate's version.
pub fn document() -> Value {
    let mut api = ApiDoc::openapi();
    for part in [
        service::Api::openapi(),
        lookups::Api::openapi(),
        matching::Api::openapi(),
        evaluate::Api::openapi(),
        experiments::Api::openapi(),
        leaderboard::Api::openapi(),
        micro::Api::openapi(),
        audit::Api::openapi(),
        published::Api::openapi(),
    ] {
        api.merge(part);
    }
    let mut doc = serde_json::to_value(api).unwrap_or(Value::Null);
    doc["info"]["version"] = Value::String(env!("CARGO_PKG_VERSION").to_string());
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_have_real_schemas() {
        let doc = document();
        assert_eq!(doc["openapi"], "3.1.0");
        let schemas = doc["components"]["schemas"].as_object().expect("schemas");
        for name in [
            "Report",
            "AggregateReport",
            "QuestionReport",
            "SameAs",
            "LabelHit",
            "Record",
            "EvaluateBody",
            "MatchReport",
            "ErrorBody",
            "Created",
            "Leaderboard",
            "LeaderboardRow",
            "BenchmarkFeatures",
            "SampleBody",
            "SampleSummary",
            "AuditReport",
            "Finding",
            "Counts",
        ] {
            assert!(
                schemas[name]["properties"].is_object()
                    || schemas[name]["oneOf"].is_array()
                    || schemas[name]["allOf"].is_array(),
                "{name}: {}",
                schemas
                    .get(name)
                    .map_or("missing".into(), ToString::to_string)
            );
        }
        // every response of every operation has a schema or a media type
        for (path, methods) in doc["paths"].as_object().expect("paths") {
            for (method, op) in methods.as_object().expect("methods") {
                for (status, response) in op["responses"].as_object().expect("responses") {
                    assert!(
                        response["content"].is_object(),
                        "{method} {path} {status} has no content"
                    );
                }
            }
        }
    }
}
