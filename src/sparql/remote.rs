//! Executing a query on a remote SPARQL endpoint (`--endpoint URL`): one
//! request through `live`'s client, the answer read as SPARQL JSON or XML
//! results within the same row, byte and time bounds as the embedded store,
//! and every failure (timeout, HTTP error, a page that is not results) an
//! [`Outcome`] with its status and message.

use std::time::Instant;

use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput,
};

use super::{boolean, collect, finish, limits, row, ExecOptions, Outcome};
use crate::model::ExecStatus;

/// Executes `query` on the endpoint at `url`; with what the endpoint says of
/// itself (its `Server` header), when it answered.
pub(super) fn execute_endpoint(
    url: &str,
    query: &str,
    options: ExecOptions,
) -> (Outcome, Option<String>) {
    let started = Instant::now();
    match crate::live::sparql_request(url, query, options.timeout) {
        Ok(reply) => {
            let server = reply.server.clone();
            (read_reply(url, query, reply, options, started), server)
        }
        Err(e) => (failed_request(url, e, options, started), None),
    }
}

/// The outcome of a request that got no reply.
fn failed_request(
    url: &str,
    e: crate::live::CallError,
    options: ExecOptions,
    started: Instant,
) -> Outcome {
    match e {
        crate::live::CallError::Timeout(m) => Outcome::failed(
            ExecStatus::Timeout,
            format!(
                "the endpoint did not answer within {} ms ({m})",
                options.timeout.as_millis()
            ),
            started,
        ),
        e => Outcome::failed(
            ExecStatus::ExecutionError,
            format!("endpoint {url}: {e}"),
            started,
        ),
    }
}

/// Reads an endpoint's reply as SPARQL JSON or XML results.
fn read_reply(
    url: &str,
    query: &str,
    reply: crate::live::EndpointReply,
    options: ExecOptions,
    started: Instant,
) -> Outcome {
    if !(200..300).contains(&reply.status) {
        let text = String::from_utf8_lossy(&reply.body);
        let snippet: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let snippet: String = snippet.chars().take(300).collect();
        // the endpoint decides what it accepts; a rejected query that is not
        // SPARQL 1.1 either is a syntax error
        let status = if reply.status == 400 && crate::query::executable(query).is_err() {
            ExecStatus::SyntaxError
        } else {
            ExecStatus::ExecutionError
        };
        return Outcome::failed(
            status,
            format!("endpoint answered http {}: {snippet}", reply.status),
            started,
        );
    }
    let format = if reply.content_type.contains("xml") {
        QueryResultsFormat::Xml
    } else if reply.content_type.contains("json") {
        QueryResultsFormat::Json
    } else {
        return Outcome::failed(
            ExecStatus::ExecutionError,
            format!(
                "endpoint {url} answered {:?}, not SPARQL results; give the URL of the SPARQL endpoint itself (such as http://host:7878/query)",
                reply.content_type
            ),
            started,
        );
    };
    let parsed = QueryResultsParser::from_format(format).for_slice(&reply.body);
    let bad = |e: &dyn std::fmt::Display| {
        (
            ExecStatus::ExecutionError,
            format!("endpoint {url} answered unreadable results: {e}"),
        )
    };
    let result = match parsed {
        Err(e) => Err(bad(&e)),
        Ok(SliceQueryResultsParserOutput::Boolean(b)) => Ok(boolean(b)),
        Ok(SliceQueryResultsParserOutput::Solutions(solutions)) => {
            let variables = solutions.variables().to_vec();
            let vars = variables.iter().map(|v| v.as_str().to_string()).collect();
            let rows = solutions.map(|s| s.map(|s| row(&variables, s.iter())).map_err(|e| bad(&e)));
            let mut budget = limits::Budget::new(started, options.timeout, options.max_bytes);
            collect(vars, rows, options.max_rows, &mut budget)
        }
    };
    finish(result, options.max_rows, started)
}
