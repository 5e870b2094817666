//! `qajudge serve --allow-system-host`: system URLs written to reach a host
//! that is not allowed (a backslash before `@`, user-info, decimal and hex IPv4,
//! IPv4-mapped IPv6, a name, a redirect) are refused or end in a call error, and
//! the host they aim at is never contacted; an allowed system is called. On
//! Linux all of 127.0.0.0/8 is loopback: the allowed "decoy" system listens on
//! 127.0.0.2, the "recorder" that must never be reached on 127.0.0.1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::serve::{assert_error, post_form, tmp, wait, Server};

/// Reads one HTTP request (request line, headers, body) and gives its path;
/// `None` when the connection ends first.
fn read_request_path(stream: &TcpStream) -> Option<String> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).ok()? == 0 {
        return None;
    }
    let path = request_line.split_whitespace().nth(1)?.to_string();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(path)
}

/// A QA answer that is valid QALD-JSON (one IRI).
fn qald_answer() -> String {
    json!({"questions": [{"id": "1", "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://dbpedia.org/resource/Nowhere"}}]}}]}]}).to_string()
}

/// Serves every connection of `listener` on its own thread with `answer`
/// (path → status line tail and extra headers, body); counts the connections.
fn serve_each(
    listener: TcpListener,
    answer: impl Fn(&str) -> (String, String) + Send + Sync + 'static,
) -> Arc<AtomicUsize> {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, Ordering::SeqCst);
            let answer = Arc::clone(&answer);
            std::thread::spawn(move || {
                let Some(path) = read_request_path(&stream) else {
                    return;
                };
                let (head, body) = answer(&path);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {head}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    hits
}

#[test]
fn system_urls_that_aim_past_the_allow_list_never_reach_it() {
    // the recorder: any connection to it is a bypass (it would answer well, so
    // that a bypass shows as a successful call too)
    let recorder = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let p = recorder.local_addr().expect("addr").port();
    let recorded = serve_each(recorder, |_| ("200 OK".to_string(), qald_answer()));
    // the decoy: the allowed system; /redirect sends the caller to the recorder
    let decoy = TcpListener::bind("127.0.0.2:0")
        .expect("bind 127.0.0.2 (on Linux all of 127.0.0.0/8 is loopback)");
    let q = decoy.local_addr().expect("addr").port();
    let decoy_hits = serve_each(decoy, move |path| {
        if path.starts_with("/redirect") {
            (
                format!("302 Found\r\nLocation: http://127.0.0.1:{p}/"),
                String::new(),
            )
        } else {
            ("200 OK".to_string(), qald_answer())
        }
    });

    let data = tmp("allow-list");
    let s = Server::start(
        &data,
        &[
            "--allow-system-host",
            "127.0.0.2",
            "--timeout-ms",
            "5000",
            "--max-error-rate",
            "1",
        ],
    );
    let submit = |url: &str| {
        post_form(
            &s,
            &[
                ("benchmark", None, b"demo"),
                ("system_url", None, url.as_bytes()),
                ("experiments", None, b"qa"),
            ],
        )
    };

    let refused = [
        (
            format!("http://127.0.0.1:{p}\\@127.0.0.2:{q}/"),
            "is not allowed",
        ),
        (format!("http://u:p@127.0.0.2:{q}/"), "user-info"),
        (format!("http://u:p@127.0.0.1:{p}/"), "user-info"),
        (format!("http://2130706433:{p}/"), "is not allowed"),
        (format!("http://0x7f000001:{p}/"), "is not allowed"),
        (format!("http://[::ffff:127.0.0.1]:{p}/"), "is not allowed"),
        (format!("http://LOCALHOST:{p}/"), "is not allowed"),
        (format!("ftp://127.0.0.2:{q}/"), "http(s)"),
    ];
    for (url, why) in &refused {
        let (status, e) = submit(url);
        assert_error(status, &e, 400, "bad_system_url");
        let message = e["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{url}: {message}");
    }
    // the refusal names the address the client would have called
    let (_, e) = submit(&format!("http://2130706433:{p}/"));
    assert!(
        e["error"]["message"].to_string().contains("127.0.0.1"),
        "{e}"
    );

    // an allowed system that redirects to the recorder: every call is an error
    // that says so, none follows it, and a run of nothing but failed calls is a
    // failed experiment naming the first
    let (status, created) = submit(&format!("http://127.0.0.2:{q}/redirect"));
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    assert_eq!(done["status"], "failed", "{done}");
    let why = done["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("every call to the live system")
            && why.contains("redirected")
            && why.contains("127.0.0.1"),
        "{done}"
    );
    let questions = demo_questions();
    assert_eq!(decoy_hits.load(Ordering::SeqCst), questions);

    // the check does not refuse everything: the decoy is called
    let (status, created) = submit(&format!("http://127.0.0.2:{q}/qa"));
    assert_eq!(status, 202, "{created}");
    let done = wait(&s, &created);
    assert_eq!(done["status"], "done", "{done}");
    let qa: &Value = &done["report"]["runs"][0]["experiments"]["qa"];
    assert_eq!(qa["aggregate"]["errors"], 0, "{qa}");
    assert_eq!(decoy_hits.load(Ordering::SeqCst), 2 * questions);

    assert_eq!(
        recorded.load(Ordering::SeqCst),
        0,
        "a refused system url reached 127.0.0.1:{p}"
    );
}

/// The number of questions of the demo benchmark the server was given.
fn demo_questions() -> usize {
    let text = std::fs::read_to_string(crate::serve::root().join(crate::serve::GOLD))
        .expect("the demo gold");
    let gold: Value = serde_json::from_str(&text).expect("json");
    gold["questions"].as_array().map_or(0, Vec::len)
}
