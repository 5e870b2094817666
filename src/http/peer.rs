//! Whether a request's client is still there. actix-web does not drop a
//! handler's future when its client disconnects while the handler waits
//! (actix/actix-web#1313, #3462), so a long call (an audit with a time limit
//! of minutes) would work on for nobody. Each connection keeps a duplicate
//! of its socket's descriptor ([`remember`], from `HttpServer::on_connect`;
//! `dup`, no `unsafe`), and [`gone`] peeks at it: an end of stream or an
//! error means the client closed its side. A peek takes nothing from the
//! socket, so the connection's own reads (a next request on it) are as before.
//! A client that closes only its sending side after its request
//! (`shutdown(SHUT_WR)`, `nc -N`) is taken for gone: HTTP clients keep both
//! sides open while they wait for an answer. Each connection holds two
//! descriptors while it is open (the duplicate closes with it).

use std::any::Any;
use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Extensions;
use actix_web::HttpRequest;

/// How often [`gone`] looks at the socket.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// A duplicate of a connection's socket (non-blocking, as the original).
#[derive(Clone)]
struct Peer(Arc<std::net::TcpStream>);

/// Keeps a duplicate of a new connection's socket in its extensions: the
/// `on_connect` hook of the server. A connection of another kind, or a
/// descriptor that cannot be duplicated (the process's limit), is kept
/// without one: its calls are never taken for abandoned.
pub fn remember(connection: &dyn Any, extensions: &mut Extensions) {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() else {
            return;
        };
        if let Ok(fd) = tcp.as_fd().try_clone_to_owned() {
            extensions.insert(Peer(Arc::new(std::net::TcpStream::from(fd))));
        }
    }
    // elsewhere (Windows) nothing is kept: a call runs to its time limit
    #[cfg(not(unix))]
    let _ = (connection, extensions);
}

/// Resolves when the client of `req` has closed its connection; never for a
/// connection [`remember`] kept nothing of.
pub async fn gone(req: &HttpRequest) {
    let Some(peer) = req.conn_data::<Peer>().cloned() else {
        return std::future::pending().await;
    };
    loop {
        actix_web::rt::time::sleep(LOOK_EVERY).await;
        let mut byte = [0u8; 1];
        match peer.0.peek(&mut byte) {
            // the client closed its side
            Ok(0) => return,
            // a byte waiting (a pipelined request): still there
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
            Err(_) => return,
        }
    }
}
