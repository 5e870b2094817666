//! Asking a SPARQL 1.1 protocol endpoint (an oxigraph server, Virtuoso, QLever,
//! Fuseki): GET with the query in the URL, POST as a form when the URL would be
//! too long, `Accept` for SPARQL JSON results, a timeout per request.

use std::io::Read;
use std::time::Duration;

use super::CallError;

/// Queries longer than this (URL-encoded) go by POST.
const MAX_GET_QUERY: usize = 2000;
/// The most of an answer body that is read.
const MAX_BODY: u64 = 256 << 20;

/// What an endpoint answered.
#[derive(Debug, Clone)]
pub struct EndpointReply {
    /// The HTTP status.
    pub status: u16,
    /// The media type of the body, lower-cased, without parameters.
    pub content_type: String,
    /// The body.
    pub body: Vec<u8>,
}

/// Sends `query` to the endpoint at `url`. An HTTP error status is a reply (its
/// body says why), not an error; a transport failure or a timeout is.
pub fn sparql_request(
    url: &str,
    query: &str,
    timeout: Duration,
) -> Result<EndpointReply, CallError> {
    let agent = ureq::AgentBuilder::new().timeout(timeout).build();
    let accept = "application/sparql-results+json, application/json;q=0.9, */*;q=0.1";
    let encoded_len: usize = query
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { 1 } else { 3 })
        .sum();
    let sent = if encoded_len <= MAX_GET_QUERY {
        agent
            .get(url)
            .query("query", query)
            .set("Accept", accept)
            .call()
    } else {
        agent
            .post(url)
            .set("Accept", accept)
            .send_form(&[("query", query)])
    };
    let response = match sent {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(super::describe(&e)),
    };
    let status = response.status();
    let content_type = response.content_type().to_ascii_lowercase();
    let mut body = Vec::new();
    response
        .into_reader()
        .take(MAX_BODY)
        .read_to_end(&mut body)
        .map_err(CallError::Read)?;
    Ok(EndpointReply {
        status,
        content_type,
        body,
    })
}
