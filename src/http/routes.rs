//! The one route table: every route of the service as data (method, full
//! path, handler), registered by [`routes`] in its order. The paths under
//! `/api/v1` share a scope whose unknown paths answer a JSON 404 (`no route …`);
//! the others (the web page, linked data, `/sparql`) sit at the root. A test
//! checks the table against the OpenAPI document both ways, and that every
//! documented route is served.

use actix_web::{web, HttpRequest, Route};

use super::common::ApiResult;
use super::{
    audit, evaluate, experiments, leaderboard, lookups, matching, micro, published, service,
    ApiError,
};

/// The prefix of the JSON API's scope.
pub const API_PREFIX: &str = "/api/v1";

/// The HTTP method a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
}

impl Method {
    /// The method as the OpenAPI document names it (lowercase), for the test
    /// that checks the table against the document.
    #[cfg(test)]
    pub fn name(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
        }
    }

    /// An actix route guarded by this method, without its handler yet.
    fn guard(self) -> Route {
        match self {
            Method::Get => web::get(),
            Method::Post => web::post(),
        }
    }
}

/// One route of the table.
pub struct Endpoint {
    /// Its method.
    pub method: Method,
    /// Its full path, as in the OpenAPI document (`{id}` for a segment).
    pub path: &'static str,
    /// Sets its handler on a route guarded by its method.
    handler: fn(Route) -> Route,
}

/// Every route, in the order they are matched.
pub const TABLE: &[Endpoint] = &[
    Endpoint {
        method: Method::Get,
        path: "/",
        handler: |r| r.to(service::page),
    },
    Endpoint {
        method: Method::Get,
        path: "/experiments/{id}",
        handler: |r| r.to(published::experiment_page),
    },
    Endpoint {
        method: Method::Get,
        path: "/sparql",
        handler: |r| r.to(published::sparql_get),
    },
    Endpoint {
        method: Method::Post,
        path: "/sparql",
        handler: |r| r.to(published::sparql_post),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/health",
        handler: |r| r.to(service::health),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/sameas",
        handler: |r| r.to(lookups::sameas_get),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/sameas",
        handler: |r| r.to(lookups::sameas_post),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/labels",
        handler: |r| r.to(lookups::labels),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/labels",
        handler: |r| r.to(lookups::labels_post),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/types",
        handler: |r| r.to(lookups::types),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/types",
        handler: |r| r.to(lookups::types_post),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/canonical",
        handler: |r| r.to(lookups::canonical_post),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/match",
        handler: |r| r.to(matching::match_route),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/evaluate",
        handler: |r| r.to(evaluate::evaluate),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/annotate",
        handler: |r| r.to(matching::annotate),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/benchmarks",
        handler: |r| r.to(experiments::benchmarks),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/benchmarks/{name}/leaderboard",
        handler: |r| r.to(leaderboard::leaderboard),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/benchmarks/{name}/features",
        handler: |r| r.to(micro::features),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/benchmarks/{name}/audit",
        handler: |r| r.to(audit::benchmark_audit),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/sample",
        handler: |r| r.to(micro::sample),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/experiments",
        handler: |r| r.to(experiments::experiments_list),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/experiments",
        handler: |r| r.to(experiments::experiments_post),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/experiments/{id}",
        handler: |r| r.to(experiments::experiment_get),
    },
    Endpoint {
        method: Method::Post,
        path: "/api/v1/experiments/{id}/publish",
        handler: |r| r.to(experiments::experiment_publish),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/openapi.json",
        handler: |r| r.to(service::openapi),
    },
    Endpoint {
        method: Method::Get,
        path: "/api/v1/docs",
        handler: |r| r.to(service::docs),
    },
];

/// Registers the routes of [`TABLE`]: those under [`API_PREFIX`] in its scope
/// (whose unknown paths answer [`unknown_route`]), the others at the root.
pub fn routes(cfg: &mut web::ServiceConfig) {
    let mut api = web::scope(API_PREFIX);
    for endpoint in TABLE {
        let route = (endpoint.handler)(endpoint.method.guard());
        match endpoint.path.strip_prefix(API_PREFIX) {
            Some(path) => api = api.route(path, route),
            None => {
                cfg.route(endpoint.path, route);
            }
        }
    }
    cfg.service(api.default_service(web::to(unknown_route)));
}

/// The JSON 404 of a path under `/api/v1` that no route serves.
async fn unknown_route(req: HttpRequest) -> ApiResult {
    Err(ApiError::not_found(format!(
        "no route {} {}; see /api/v1/openapi.json",
        req.method(),
        req.path()
    )))
}
