//! Where a live QA system is called. A system URL is parsed once, with the
//! parser the HTTP client uses (the `url` crate, WHATWG rules: `\` is `/` in an
//! http URL, `2130706433` and `0x7f000001` are the IPv4 address 127.0.0.1), so
//! that the host that is checked is the host that is called. A URL with
//! user-info is refused. Under an allow-list (`qajudge serve
//! --allow-system-host`) the host is resolved, every address it resolves to must
//! be one the list's entries resolve to (an IPv4-mapped IPv6 address counts as
//! its IPv4 address), and the HTTP agent is pinned to the addresses that were
//! checked: its resolver answers the checked host with them and nothing else, so
//! a second DNS answer cannot send the call elsewhere. This module owns that
//! parse, that check and that pin; `mod.rs` owns the calls.

use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

use url::{Host, Url};

use super::LiveError;

/// The QLever API that GRASP's agents ask (its `get_endpoint(kg)`:
/// `QLEVER_API/kg`).
pub const QLEVER_API: &str = "https://qlever.cs.uni-freiburg.de/api";

/// An endpoint as written: `qlever:KG` is QLever's public endpoint of the
/// knowledge graph KG (`https://qlever.cs.uni-freiburg.de/api/KG`, the one
/// GRASP asks: `qlever:wikidata`, `qlever:freebase`, `qlever:dbpedia`,
/// `qlever:dblp`, …); anything else is as given. `None` when KG is empty or
/// holds a character other than a letter, digit, `-`, `_` or `.`, or only
/// dots.
pub fn endpoint_url(given: &str) -> Option<String> {
    let given = given.trim();
    match given.strip_prefix("qlever:") {
        Some(kg) => {
            // a name of dots alone (`..`) would climb out of the API's path
            let ok = kg.bytes().any(|b| b != b'.')
                && kg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
            ok.then(|| format!("{QLEVER_API}/{kg}"))
        }
        None => Some(given.to_string()),
    }
}

/// A system URL that passed the checks: what is called, and where.
#[derive(Debug, Clone)]
pub struct Target {
    /// The URL as parsed (and normalised) by the client's parser.
    url: Url,
    /// `host:port` as the HTTP client asks its resolver for it.
    netloc: String,
    /// Under an allow-list, the addresses the host was checked at: the only
    /// ones the agent connects to. `None`: any (no allow-list).
    pinned: Option<Vec<SocketAddr>>,
}

impl Target {
    /// The URL as the client sends it (normalised: `\` read as `/`, numeric
    /// IPv4 hosts written as dotted quads, the host lower-cased).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// What names the server this URL reaches, for a cache of its answers:
    /// scheme, host, port (the scheme's default when not written), path and
    /// query (`?tenant=a` and `?tenant=b` are two servers), without user,
    /// password or fragment (`http://127.0.0.1:11434/v1/chat/completions`).
    pub fn identity(&self) -> String {
        format!(
            "{}://{}:{}{}{}",
            self.url.scheme(),
            self.url.host_str().unwrap_or(""),
            self.url.port_or_known_default().unwrap_or(0),
            self.url.path(),
            self.url
                .query()
                .map(|q| format!("?{q}"))
                .unwrap_or_default()
        )
    }

    /// An HTTP agent for this target: the timeout, no redirects followed, and,
    /// under an allow-list, a resolver that answers the checked host with the
    /// checked addresses and refuses every other name.
    pub fn agent(&self, timeout: Duration) -> ureq::Agent {
        let builder = ureq::AgentBuilder::new().timeout(timeout).redirects(0);
        match &self.pinned {
            Some(addrs) => builder
                .resolver(pinned_resolver(self.netloc.clone(), addrs.clone()))
                .build(),
            None => builder.build(),
        }
    }

    /// The host a redirect's `Location` (absolute, or relative to this URL)
    /// points at; `None` when it cannot be read as a URL with a host.
    pub fn location_host(&self, location: &str) -> Option<String> {
        self.url.join(location).ok().as_ref().and_then(host_text)
    }
}

/// The URL a redirect's `Location` points at (absolute, or relative to
/// `base`), when it is an `http` or `https` URL; `None` for any other scheme
/// (`file:`, `ftp:` …) or a location that is not a URL.
pub fn http_location(base: &str, location: &str) -> Option<String> {
    let next = Url::parse(base).ok()?.join(location).ok()?;
    matches!(next.scheme(), "http" | "https").then(|| next.to_string())
}

/// `url` without its `name=…` query pairs (the others kept, in order): a
/// redirect's `Location` for a GET request that the client completes again.
pub fn without_param(url: &str, name: &str) -> String {
    let Ok(mut parsed) = Url::parse(url) else {
        return url.to_string();
    };
    let kept: Vec<(String, String)> = parsed
        .query_pairs()
        .filter(|(k, _)| k != name)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    parsed.to_string()
}

/// A resolver that answers `netloc` with `addrs` and refuses any other name.
fn pinned_resolver(
    netloc: String,
    addrs: Vec<SocketAddr>,
) -> impl Fn(&str) -> io::Result<Vec<SocketAddr>> + Send + Sync + 'static {
    move |asked: &str| {
        if asked == netloc {
            Ok(addrs.clone())
        } else {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{asked} is not the checked system address {netloc}; only that one is called"
                ),
            ))
        }
    }
}

/// Parses a system URL the way the HTTP client does: an http(s) URL with a host.
fn parse(text: &str) -> Result<Url, LiveError> {
    let url = Url::parse(text).map_err(|e| LiveError::Unparsable {
        url: text.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(LiveError::Url {
            url: text.to_string(),
        });
    }
    Ok(url)
}

/// The host of a parsed URL as text: a name lower-cased, an IPv6 address
/// without brackets.
fn host_text(url: &Url) -> Option<String> {
    match url.host()? {
        Host::Ipv6(a) => Some(a.to_string()),
        Host::Ipv4(a) => Some(a.to_string()),
        Host::Domain(d) => Some(d.to_string()),
    }
}

/// The host the HTTP client connects to for an http(s) URL (lower-cased, an
/// IPv6 address without brackets, a numeric IPv4 host as a dotted quad);
/// `None` when the client's parser does not read it as an http(s) URL with a
/// host.
pub fn host_of(text: &str) -> Option<String> {
    parse(text).ok().as_ref().and_then(host_text)
}

/// The default name of a run of the live system at `url` among the systems
/// `all` of one evaluation: its host, with its port when another system
/// shares the host, and the whole URL when another shares both, or when the
/// client's parser reads no host — a name a reader tells apart in a table,
/// not `http://127.0.0.1:8000/qa`.
pub fn system_name<S: AsRef<str>>(url: &str, all: &[S]) -> String {
    let authority = |text: &str| {
        parse(text)
            .ok()
            .and_then(|u| Some((host_text(&u)?, u.port_or_known_default())))
    };
    let Some((host, port)) = authority(url) else {
        return url.to_string();
    };
    let others: Vec<(String, Option<u16>)> = all
        .iter()
        .map(AsRef::as_ref)
        .filter(|u| *u != url)
        .filter_map(authority)
        .collect();
    if !others.iter().any(|(h, _)| *h == host) {
        host
    } else if let (false, Some(port)) = (others.iter().any(|o| *o == (host.clone(), port)), port) {
        format!("{host}:{port}")
    } else {
        url.to_string()
    }
}

/// An address as it is compared: an IPv4-mapped IPv6 address as its IPv4
/// address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The addresses of a host, canonical and without repeats; a name is resolved
/// with the system resolver.
fn resolve<S: AsRef<str>>(host: &Host<S>, port: u16) -> io::Result<Vec<IpAddr>> {
    let mut addrs: Vec<IpAddr> = match host {
        Host::Ipv4(a) => vec![IpAddr::V4(*a)],
        Host::Ipv6(a) => vec![IpAddr::V6(*a)],
        Host::Domain(name) => (name.as_ref(), port)
            .to_socket_addrs()?
            .map(|s| s.ip())
            .collect(),
    };
    for a in &mut addrs {
        *a = canonical(*a);
    }
    let mut seen = Vec::with_capacity(addrs.len());
    addrs.retain(|a| {
        let new = !seen.contains(a);
        seen.push(*a);
        new
    });
    Ok(addrs)
}

/// The addresses an allow-list entry (a host name or an IP literal, IPv6 with
/// or without brackets) stands for; an entry that does not resolve stands for
/// none.
fn entry_addresses(entry: &str) -> Vec<IpAddr> {
    let entry = entry.trim();
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return vec![canonical(ip)];
    }
    match Host::parse(entry) {
        Ok(host) => resolve(&host, 0).unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// Checks a system URL: parsed by the client's parser, without user-info and,
/// under `allowed` (host names or IP literals), with every address of its host
/// among the addresses of the allowed entries. Gives the target to call, pinned
/// to the checked addresses under an allow-list.
pub fn check(text: &str, allowed: Option<&[String]>) -> Result<Target, LiveError> {
    let url = parse(text)?;
    if !url.username().is_empty() || url.password().is_some() {
        let mut shown = url.clone();
        let mut without = url.clone();
        if shown.password().is_some() && shown.set_password(Some("***")).is_err() {
            return Err(LiveError::Url {
                url: text.to_string(),
            });
        }
        if without.set_username("").is_err() || without.set_password(None).is_err() {
            return Err(LiveError::Url {
                url: text.to_string(),
            });
        }
        return Err(LiveError::UserInfo {
            url: shown.to_string(),
            without: without.to_string(),
        });
    }
    let (Some(host), Some(port), Some(name)) =
        (url.host(), url.port_or_known_default(), url.host_str())
    else {
        return Err(LiveError::Url {
            url: text.to_string(),
        });
    };
    let netloc = format!("{name}:{port}");
    let Some(allowed) = allowed else {
        return Ok(Target {
            url,
            netloc,
            pinned: None,
        });
    };
    let shown_host = host_text(&url).unwrap_or_else(|| name.to_string());
    let addrs = resolve(&host, port).map_err(|e| LiveError::Unresolvable {
        host: shown_host.clone(),
        reason: e.to_string(),
    })?;
    if addrs.is_empty() {
        return Err(LiveError::Unresolvable {
            host: shown_host,
            reason: "no address".to_string(),
        });
    }
    let permitted: Vec<IpAddr> = allowed.iter().flat_map(|e| entry_addresses(e)).collect();
    let outside: Vec<IpAddr> = addrs
        .iter()
        .copied()
        .filter(|a| !permitted.contains(a))
        .collect();
    if !outside.is_empty() {
        // the addresses are shown unless they are the host as written
        let addresses = if outside.len() == 1 && outside[0].to_string() == shown_host {
            Vec::new()
        } else {
            outside
        };
        return Err(LiveError::HostNotAllowed {
            host: shown_host,
            addresses,
            allowed: if allowed.is_empty() {
                "none were given, so no live system is called".to_string()
            } else {
                allowed.join(", ")
            },
        });
    }
    let pinned = addrs
        .into_iter()
        .map(|a| SocketAddr::new(a, port))
        .collect();
    Ok(Target {
        url,
        netloc,
        pinned: Some(pinned),
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn qlever_names_are_grasps_endpoints() {
        assert_eq!(
            endpoint_url("qlever:wikidata").as_deref(),
            Some("https://qlever.cs.uni-freiburg.de/api/wikidata")
        );
        assert_eq!(
            endpoint_url(" http://127.0.0.1:7878/query ").as_deref(),
            Some("http://127.0.0.1:7878/query")
        );
        assert_eq!(endpoint_url("qlever:"), None);
        assert_eq!(endpoint_url("qlever:../admin"), None);
        assert_eq!(endpoint_url("qlever:.."), None);
        assert_eq!(endpoint_url("qlever:."), None);
        assert_eq!(endpoint_url("qlever:a/b"), None);
    }

    use super::*;

    #[test]
    fn a_live_run_is_named_by_its_host_then_its_port_then_its_url() {
        let one = ["http://127.0.0.1:8000/qa"];
        assert_eq!(system_name(one[0], &one), "127.0.0.1");
        let two = ["http://localhost:8000/qa", "http://localhost:8001/qa"];
        assert_eq!(system_name(two[0], &two), "localhost:8000");
        let same = ["http://qa.example.org/a", "http://qa.example.org/b"];
        assert_eq!(system_name(same[1], &same), "http://qa.example.org/b");
        let other = ["https://QA.example.org/x", "http://other.org/"];
        assert_eq!(system_name(other[0], &other), "qa.example.org");
        assert_eq!(system_name("not a url", &["not a url"]), "not a url");
    }

    #[test]
    fn a_redirect_keeps_its_parameters_but_the_query() {
        assert_eq!(
            without_param(
                "https://e.org/sparql?default-graph-uri=g&query=ASK%7B%7D",
                "query"
            ),
            "https://e.org/sparql?default-graph-uri=g"
        );
        assert_eq!(
            without_param("https://e.org/sparql?query=x", "query"),
            "https://e.org/sparql"
        );
        assert_eq!(
            http_location("https://e.org/sparql", "file:///etc/passwd"),
            None
        );
        assert_eq!(
            http_location("https://e.org/sparql", "/other"),
            Some("https://e.org/other".to_string())
        );
    }

    fn list(hosts: &[&str]) -> Vec<String> {
        hosts.iter().map(ToString::to_string).collect()
    }

    fn refused(url: &str, allowed: &[&str]) -> LiveError {
        match check(url, Some(&list(allowed))) {
            Ok(t) => panic!("{url} passed as {} pinned to {:?}", t.as_str(), t.pinned),
            Err(e) => e,
        }
    }

    #[test]
    fn a_backslash_before_at_is_a_path_not_user_info() {
        // the old hand-written parser read the host as the part after `@`; the
        // client reads `\` as `/` and calls the host before it
        assert_eq!(
            host_of("http://127.0.0.1:18090\\@localhost/x").as_deref(),
            Some("127.0.0.1")
        );
        let e = refused("http://169.254.169.254\\@127.0.0.1/", &["127.0.0.1"]);
        assert!(
            matches!(&e, LiveError::HostNotAllowed { host, .. } if host == "169.254.169.254"),
            "{e}"
        );
        assert!(e.to_string().contains("is not allowed"), "{e}");
        let e = refused("http://127.0.0.1:18090\\@127.0.0.2/x", &["127.0.0.2"]);
        assert!(
            matches!(&e, LiveError::HostNotAllowed { host, .. } if host == "127.0.0.1"),
            "{e}"
        );
        // where 127.0.0.1 is allowed (localhost's address), the call goes to
        // 127.0.0.1, the address that was checked
        let t = check(
            "http://127.0.0.1:18090\\@localhost/x",
            Some(&list(&["localhost"])),
        )
        .unwrap();
        assert_eq!(t.as_str(), "http://127.0.0.1:18090/@localhost/x");
        assert_eq!(
            t.pinned.as_deref(),
            Some(&["127.0.0.1:18090".parse().unwrap()][..])
        );
    }

    #[test]
    fn user_info_is_refused_with_or_without_a_list() {
        for allowed in [None, Some(list(&["127.0.0.2"]))] {
            let e = check("http://u:secret@127.0.0.2:9/qa", allowed.as_deref()).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, LiveError::UserInfo { .. }), "{e}");
            assert!(text.contains("remove"), "{text}");
            assert!(text.contains("http://127.0.0.2:9/qa"), "{text}");
            assert!(!text.contains("secret"), "the password is shown: {text}");
        }
        assert!(matches!(
            check("http://u@127.0.0.2/", None),
            Err(LiveError::UserInfo { .. })
        ));
    }

    #[test]
    fn numeric_ipv4_forms_are_checked_as_the_address() {
        for url in [
            "http://2130706433:5/",
            "http://0x7f000001:5/",
            "http://0177.0.0.1:5/",
        ] {
            assert_eq!(host_of(url).as_deref(), Some("127.0.0.1"), "{url}");
            let e = refused(url, &["127.0.0.2"]);
            assert!(e.to_string().contains("127.0.0.1"), "{e}");
            let t = check(url, Some(&list(&["127.0.0.1"]))).unwrap();
            assert_eq!(t.as_str(), "http://127.0.0.1:5/");
            assert_eq!(
                t.pinned.as_deref(),
                Some(&["127.0.0.1:5".parse().unwrap()][..])
            );
        }
    }

    #[test]
    fn ipv4_mapped_ipv6_is_its_ipv4_address() {
        let e = refused("http://[::ffff:127.0.0.1]:5/", &["127.0.0.2"]);
        assert!(e.to_string().contains("127.0.0.1"), "{e}");
        let t = check("http://[::ffff:127.0.0.1]:5/", Some(&list(&["127.0.0.1"]))).unwrap();
        assert_eq!(
            t.pinned.as_deref(),
            Some(&["127.0.0.1:5".parse().unwrap()][..])
        );
        // and an allowed mapped entry allows the IPv4 address
        assert!(check("http://127.0.0.1:5/", Some(&list(&["::ffff:127.0.0.1"]))).is_ok());
        // ::1 is not 0.0.0.1 (no IPv4-compatible reading)
        assert!(check("http://[::1]/", Some(&list(&["0.0.0.1"]))).is_err());
    }

    #[test]
    fn ipv6_literals_with_and_without_brackets() {
        assert_eq!(host_of("http://[::1]:9/").as_deref(), Some("::1"));
        for entry in ["::1", "[::1]"] {
            let t = check("http://[::1]:9/qa", Some(&list(&[entry]))).unwrap();
            assert_eq!(t.pinned.as_deref(), Some(&["[::1]:9".parse().unwrap()][..]));
            assert_eq!(t.netloc, "[::1]:9");
        }
        refused("http://[::1]:9/qa", &["127.0.0.1"]);
    }

    #[test]
    fn host_names_are_case_insensitive() {
        assert_eq!(
            host_of("https://QA.Example.ORG/x").as_deref(),
            Some("qa.example.org")
        );
        assert!(check("http://LOCALHOST:1/", Some(&list(&["localhost"]))).is_ok());
        assert!(check("http://127.0.0.1:1/", Some(&list(&["LocalHost"]))).is_ok());
    }

    #[test]
    fn a_name_is_resolved_and_pinned_to_its_addresses() {
        let loopback = list(&super::super::LOOPBACK);
        let t = check("http://localhost:1/qa", Some(&loopback)).unwrap();
        let pinned = t.pinned.as_deref().unwrap();
        assert!(!pinned.is_empty());
        assert!(pinned.iter().all(|a| a.ip().is_loopback() && a.port() == 1));
        // localhost is not 127.0.0.2
        let e = refused("http://localhost:1/qa", &["127.0.0.2"]);
        assert!(e.to_string().contains("resolves to"), "{e}");
        // an entry that is a name allows its addresses
        assert!(check("http://127.0.0.1:1/", Some(&list(&["localhost"]))).is_ok());
        // without a list nothing is resolved or pinned
        let t = check("http://no-such-host.invalid/qa", None).unwrap();
        assert_eq!(t.pinned.as_deref(), None);
        let e = refused("http://no-such-host.invalid/qa", &["127.0.0.1"]);
        assert!(matches!(e, LiveError::Unresolvable { .. }), "{e}");
    }

    #[test]
    fn the_pinned_resolver_answers_only_the_checked_host() {
        let addrs = vec!["127.0.0.2:8".parse().unwrap()];
        let resolve = pinned_resolver("qa.example.org:8".to_string(), addrs.clone());
        assert_eq!(resolve("qa.example.org:8").unwrap(), addrs);
        assert!(resolve("other.example.org:8").is_err());
        assert!(resolve("127.0.0.1:8").is_err());
    }

    #[test]
    fn unparsable_urls_and_other_schemes() {
        for url in ["localhost:8080", "http://", "http://[::1/", "not a url"] {
            let e = check(url, None).unwrap_err();
            assert!(
                matches!(e, LiveError::Unparsable { .. } | LiveError::Url { .. }),
                "{url}: {e}"
            );
            assert!(e.to_string().contains("http://host:port/path"), "{e}");
            assert_eq!(host_of(url), None, "{url}");
        }
        for url in [
            "ftp://127.0.0.1/x",
            "file:///etc/passwd",
            "gopher://127.0.0.1/",
        ] {
            assert!(
                matches!(check(url, None), Err(LiveError::Url { .. })),
                "{url}"
            );
            assert_eq!(host_of(url), None, "{url}");
        }
    }

    #[test]
    fn a_relative_location_is_on_the_same_host() {
        let t = check("http://127.0.0.2:5/qa", None).unwrap();
        assert_eq!(
            t.location_host("http://127.0.0.1:9/").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(t.location_host("/other").as_deref(), Some("127.0.0.2"));
    }
}
