//! What a TCP listener answers to, checked before anything else: the `Host` a request is
//! addressed to (the listener's address, `localhost` on its port, each `allowed_hosts` name on
//! its port; anything else is DNS rebinding), the `Origin` of a change (another page's is CSRF),
//! and the bearer token sent. The daemon's listener (`api::auth`) and `localm mcp --http` check
//! the same.

use std::net::SocketAddr;

use axum::http::{HeaderMap, header};

/// The `Host` values a listener serves.
#[derive(Debug, Clone)]
pub struct Hosts {
    names: Vec<String>,
    /// Bound to every address: the port any IP address on it is served under.
    any_address: Option<u16>,
}

impl Hosts {
    /// `ADDR` and `localhost:PORT` (or `[::1]:PORT`) of the listener bound at `addr`; bound to
    /// every address (`0.0.0.0`, `::`), any IP address on its port (an address in `Host` cannot
    /// come from DNS rebinding, and such a listener needs the token anyway).
    pub fn new(addr: SocketAddr) -> Hosts {
        let port = addr.port();
        let any_address = addr.ip().is_unspecified().then_some(port);
        let names = if any_address.is_some() {
            vec![
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
                format!("localhost:{port}"),
            ]
        } else {
            vec![addr.to_string(), format!("localhost:{port}")]
        };
        Hosts { names, any_address }
    }

    /// Also `NAME:PORT` for each of `names` (the `allowed_hosts` setting).
    pub fn allowing(mut self, names: &[String], port: u16) -> Hosts {
        for name in names {
            let host = format!("{name}:{port}");
            if !self.names.iter().any(|h| h.eq_ignore_ascii_case(&host)) {
                self.names.push(host);
            }
        }
        self
    }

    /// Whether the request's `Host` is one of them.
    pub fn host_ok(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|h| {
                self.names.iter().any(|a| a.eq_ignore_ascii_case(h))
                    || self
                        .any_address
                        .is_some_and(|port| h.parse::<SocketAddr>().is_ok_and(|a| a.port() == port))
            })
    }

    /// Whether `origin` is a page of this listener (`http://` one of them).
    pub fn origin_ok(&self, origin: &str) -> bool {
        self.names.iter().any(|h| {
            origin
                .strip_prefix("http://")
                .is_some_and(|o| o.eq_ignore_ascii_case(h))
        })
    }

    /// The names, for the 421's message.
    pub fn listed(&self) -> String {
        let mut names = self.names.clone();
        if let Some(port) = self.any_address {
            names.push(format!("this machine's addresses on port {port}"));
        }
        names.join(" or ")
    }
}

/// The bearer token the request sends (`Authorization: Bearer TOKEN`; the scheme's name is
/// case-insensitive, RFC 9110 §11.1), if any.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
}
