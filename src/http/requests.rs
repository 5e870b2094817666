//! What the server does with every request before a handler sees it: the
//! request log line, with the values of secret query parameters redacted, and
//! a deadline on reading the request body, so that a client sending its body a
//! byte at a time cannot hold a connection (and the memory of a half-read
//! upload) open indefinitely.
//!
//! The head of a request has its own deadline, actix-web's
//! `client_request_timeout` (`--head-timeout-ms`); the body's deadline starts
//! once the head is read. A body that misses it ends the request with a 408
//! `request_timeout` and the connection is closed. A connection whose request
//! body is still arriving when its response has been sent is closed too, for
//! every route (actix-web would otherwise read a chunked body it no longer
//! wants to its end, however slowly it comes).

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, Service, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::rt::time::{sleep, Sleep};
use actix_web::web::Bytes;
use actix_web::{HttpMessage, ResponseError};
use futures_util::{Stream, StreamExt};

use super::access::is_secret_parameter;
use super::ApiError;

/// What replaces the value of a secret query parameter in the log.
const REDACTED: &str = "[redacted]";

/// A query string with the values of its secret parameters (`token`,
/// `api_token`, `access_token`, in any case or percent-encoding) replaced by
/// `[redacted]`; everything else as sent.
pub fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| {
            let key = pair.split_once('=').map_or(pair, |(k, _)| k);
            if is_secret_parameter(key) {
                format!("{key}={REDACTED}")
            } else {
                pair.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The request line of the log (`GET /path?query HTTP/1.1`), with secret
/// query parameters redacted: what the logger's `%{request}xi` prints in place
/// of `%r`, which would print the query string as sent.
pub fn log_line(req: &ServiceRequest) -> String {
    let query = req.query_string();
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{}", redact_query(query))
    };
    format!("{} {}{query} {:?}", req.method(), req.path(), req.version())
}

/// Where the reading of one request's body is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// Not read to its end (or not read at all).
    Open,
    /// Read to its end in time.
    Read,
    /// Its deadline passed before its end.
    TimedOut,
}

/// A request body that fails with a timeout once its deadline has passed.
struct Deadline {
    /// The body as the server reads it, shared with the response
    /// ([`Holding`]) so that it outlives the handler.
    inner: Rc<RefCell<Payload>>,
    deadline: Pin<Box<Sleep>>,
    state: Rc<Cell<Body>>,
}

impl Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        match this.state.get() {
            Body::Read | Body::TimedOut => return Poll::Ready(None),
            Body::Open => {}
        }
        // the deadline first, so that a client sending steadily but too
        // slowly is cut too; polling it also arms the wake-up of a stalled one
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.state.set(Body::TimedOut);
            return Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive in time",
            )))));
        }
        let polled = this.inner.borrow_mut().poll_next_unpin(cx);
        match polled {
            Poll::Ready(None) => {
                this.state.set(Body::Read);
                Poll::Ready(None)
            }
            other => other,
        }
    }
}

/// A response body that keeps its request's body alive until it has been
/// sent: actix-web closes the connection of a request whose body is unfinished
/// and still wanted when its response ends, and reads it to its end (without
/// a deadline) when it is no longer wanted.
struct Holding {
    body: BoxBody,
    _request_body: Rc<RefCell<Payload>>,
}

impl MessageBody for Holding {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }
}

/// The middleware of the body deadline (used with `App::wrap_fn`): gives the
/// handler the request's body behind a deadline of `timeout` from now, and
/// answers a 408 `request_timeout`, closing the connection, when the handler
/// failed because the deadline passed (whatever error the handler made of it).
/// The response holds the request's body until it is sent (see [`Holding`]).
pub fn with_body_deadline<S, B>(
    mut req: ServiceRequest,
    service: &S,
    timeout: Duration,
) -> impl Future<Output = Result<ServiceResponse<BoxBody>, actix_web::Error>>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody + 'static,
{
    let state = Rc::new(Cell::new(Body::Open));
    let request_body = Rc::new(RefCell::new(req.take_payload()));
    let body = Deadline {
        inner: Rc::clone(&request_body),
        deadline: Box::pin(sleep(timeout)),
        state: Rc::clone(&state),
    };
    let boxed: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(body);
    req.set_payload(Payload::from(boxed));
    let response = service.call(req);
    async move {
        let mut response = response.await?.map_into_boxed_body();
        if state.get() == Body::TimedOut {
            let mut late = ApiError::body_timeout(timeout).error_response();
            late.head_mut().set_connection_type(ConnectionType::Close);
            response = response.into_response(late);
        }
        Ok(response
            .map_body(|_, body| Holding {
                body,
                _request_body: request_body,
            })
            .map_into_boxed_body())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_are_redacted_and_the_rest_kept() {
        assert_eq!(redact_query("token=abc"), "token=[redacted]");
        assert_eq!(
            redact_query("a=1&Api_Token=s3cret&b=token"),
            "a=1&Api_Token=[redacted]&b=token"
        );
        assert_eq!(
            redact_query("tok%65n=s3cret&access_token"),
            "tok%65n=[redacted]&access_token=[redacted]"
        );
        assert_eq!(redact_query("query=SELECT"), "query=SELECT");
    }
}
