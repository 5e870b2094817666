//! The route table against the OpenAPI document: every route in the table is
//! documented and every documented operation is in the table, and the app
//! that [`routes::routes`] registers serves every documented operation (and
//! still answers its "no route" 404 to what is not documented, so that the
//! check can tell the two apart).

use actix_web::http::StatusCode;
use actix_web::test as web_test;
use actix_web::App;
use serde_json::Value;

use super::{openapi, routes};

/// The (method, path) of every operation of the document.
fn documented() -> Vec<(String, String)> {
    let doc = openapi::document();
    let paths = doc["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("a path item")
                .keys()
                .map(move |method| (method.clone(), path.clone()))
        })
        .collect()
}

#[test]
fn every_route_is_documented_and_every_documented_route_is_in_the_table() {
    let doc = openapi::document();
    assert!(routes::TABLE.len() >= 20, "{} routes", routes::TABLE.len());
    for (i, e) in routes::TABLE.iter().enumerate() {
        assert!(
            doc["paths"][e.path][e.method.name()].is_object(),
            "{} {} is a route without documentation: add #[utoipa::path] to its handler and list it in its module's Api",
            e.method.name().to_uppercase(),
            e.path
        );
        assert!(
            !routes::TABLE[..i]
                .iter()
                .any(|o| o.method == e.method && o.path == e.path),
            "{} {} is in the table twice",
            e.method.name(),
            e.path
        );
    }
    for (method, path) in documented() {
        assert!(
            routes::TABLE
                .iter()
                .any(|e| e.method.name() == method && e.path == path),
            "{method} {path} is documented but not in the route table"
        );
    }
}

/// Whether a response is the answer to a request no route serves: the JSON
/// 404 of the `/api/v1` scope, or the empty 404 of the root.
fn no_route(status: StatusCode, body: &[u8]) -> bool {
    if status != StatusCode::NOT_FOUND {
        return false;
    }
    if body.is_empty() {
        return true;
    }
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .map(|m| m.starts_with("no route "))
        })
        .unwrap_or(false)
}

/// A request of `method` (lowercase, as in the document) to `path`.
fn request(method: &str, path: &str) -> web_test::TestRequest {
    let method = actix_web::http::Method::from_bytes(method.to_uppercase().as_bytes())
        .expect("an http method");
    web_test::TestRequest::default().method(method).uri(path)
}

/// The app is the one [`routes::routes`] registers, without the server's
/// state: a routed request then fails in its handler's extractors (a 500, or
/// a 400 for a body), which is not a "no route".
#[actix_web::test]
async fn every_documented_route_is_served() {
    let app = web_test::init_service(App::new().configure(routes::routes)).await;
    for (method, path) in documented() {
        let uri = path
            .replace("{id}", "202601010001")
            .replace("{name}", "demo");
        let resp = web_test::call_service(&app, request(&method, &uri).to_request()).await;
        let status = resp.status();
        let body = web_test::read_body(resp).await;
        assert!(
            !no_route(status, &body),
            "{method} {path} is documented, and {method} {uri} answers {status} {}",
            String::from_utf8_lossy(&body)
        );
    }
    // what is not documented is not served, inside the API's scope and out
    for (method, path) in [
        ("get", "/api/v1/nothing"),
        ("delete", "/api/v1/sameas"),
        ("post", "/api/v1/health"),
        ("get", "/nothing"),
        ("put", "/sparql"),
    ] {
        let resp = web_test::call_service(&app, request(method, path).to_request()).await;
        let status = resp.status();
        let body = web_test::read_body(resp).await;
        assert!(
            no_route(status, &body),
            "{method} {path} answers {status} {}",
            String::from_utf8_lossy(&body)
        );
    }
}

/// The strings of the page's `const NAME = [...]` list.
fn page_list(name: &str) -> Vec<String> {
    let page = include_str!("page.html");
    let start = page
        .find(&format!("const {name} = ["))
        .unwrap_or_else(|| panic!("the page has no const {name}"));
    let rest = &page[start..];
    let end = rest.find("];").expect("the list ends");
    rest[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_page_offers_the_features_and_methods_post_sample_takes() {
    assert_eq!(page_list("NUMERIC"), crate::sample::NUMERIC);
    let methods: Vec<&str> = crate::sample::draw::Method::ALL
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(page_list("METHODS"), methods);
    // the default features are among them
    for f in page_list("MICRO_DEFAULT") {
        assert!(crate::sample::NUMERIC.contains(&f.as_str()), "{f}");
    }
}
