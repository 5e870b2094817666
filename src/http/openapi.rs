//! The OpenAPI 3.1 document of the service (`GET /api/v1/openapi.json`),
//! generated from the handlers' annotations and the request and response types
//! (utoipa), so that it cannot drift from the code, and its readable reference
//! page (`GET /api/v1/docs`). A test fails when a route is registered without
//! being documented, or documented without being registered.

use serde::Serialize;
use serde_json::Value;
use utoipa::OpenApi;

/// Every error's body: `{"error": {"code", "message"}}`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The error.
    error: ErrorDetail,
}

/// An error: a stable code and a message naming the offending value.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// A stable, machine-readable code (`bad_json`, `not_found`, `batch_too_large`, …).
    code: String,
    /// What is wrong and what to do.
    message: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "qajudge",
        description = "Judge question-answering systems over knowledge graphs: owl:sameAs, label and type lookups, answer matching, SPARQL annotation, synchronous evaluation, stored experiments (private until published) and experiments as linked data with a read-only SPARQL endpoint; the rules are in docs/scoring.md. Errors are {\"error\": {\"code\", \"message\"}}.",
        license(name = "MIT")
    ),
    paths(
        super::routes::page,
        super::routes::health,
        super::routes::sameas_get,
        super::routes::sameas_post,
        super::routes::labels,
        super::batch::labels_post,
        super::routes::types,
        super::batch::types_post,
        super::batch::canonical_post,
        super::batch::match_route,
        super::evaluate::evaluate,
        super::routes::annotate,
        super::routes::benchmarks,
        super::routes::experiments_list,
        super::routes::experiments_post,
        super::routes::experiment_get,
        super::routes::experiment_publish,
        super::routes::openapi,
        super::routes::docs,
        super::published::experiment_page,
        super::published::sparql_get,
        super::published::sparql_post,
    ),
    components(schemas(ErrorBody, super::batch::AnswerValue)),
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

/// The OpenAPI document.
pub fn document() -> Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or(Value::Null);
    doc["info"]["version"] = Value::String(env!("CARGO_PKG_VERSION").to_string());
    doc
}

/// The API reference page: renders `/api/v1/openapi.json` in the browser, with
/// no external assets.
pub const REFERENCE_PAGE: &str = include_str!("reference.html");

#[cfg(test)]
mod tests {
    use super::*;

    /// The (method, path) of every route `routes.rs` registers, read from its
    /// source: `.route("PATH", web::METHOD()` under the `/api/v1` scope or not.
    fn registered() -> Vec<(String, String)> {
        let source = include_str!("routes.rs");
        let body = &source[source.find("pub fn routes(").expect("routes()")..];
        let body = &body[..body.find("\n}\n").expect("end of routes()")];
        let scope = body
            .find("web::scope(\"/api/v1\")")
            .expect("the /api/v1 scope");
        let compact: String = body.split_whitespace().collect::<Vec<_>>().join("");
        let scope_compact = body[..scope].split_whitespace().collect::<String>().len();
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(i) = compact[at..].find(".route(\"") {
            let start = at + i + ".route(\"".len();
            let end = start + compact[start..].find('"').expect("path end");
            let path = &compact[start..end];
            let rest = &compact[end..];
            let method = rest
                .split("web::")
                .nth(1)
                .and_then(|m| m.split('(').next())
                .expect("a method")
                .to_string();
            let full = if start > scope_compact {
                format!("/api/v1{path}")
            } else {
                path.to_string()
            };
            out.push((method, full));
            at = end;
        }
        out
    }

    #[test]
    fn every_route_is_documented_and_every_documented_route_exists() {
        let doc = document();
        let routes = registered();
        assert!(routes.len() >= 20, "{routes:?}");
        for (method, path) in &routes {
            assert!(
                doc["paths"][path][method].is_object(),
                "{} {path} is a route without documentation: add #[utoipa::path] to its handler and list it in ApiDoc",
                method.to_uppercase()
            );
        }
        let paths = doc["paths"].as_object().expect("paths");
        for (path, methods) in paths {
            for method in methods.as_object().expect("methods").keys() {
                assert!(
                    routes.iter().any(|(m, p)| m == method && p == path),
                    "{method} {path} is documented but not a route"
                );
            }
        }
    }

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
