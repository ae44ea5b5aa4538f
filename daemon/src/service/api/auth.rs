//! Who may use the loopback TCP listener, and how the browser logs in. Programs send the bearer
//! token; the browser gets a session cookie from a one-time code that only the owner can mint
//! (`POST /api/login-link`, served on the control socket only, which `localm open` calls). Every
//! TCP request must name this listener in `Host` (DNS rebinding), and a state-changing one from
//! another origin, or from the browser without `Origin`, is refused (CSRF). Browsers send the
//! cookie to every port of 127.0.0.1, so the cookie alone opens only the page's HTML, script and
//! style: the API also needs the session's page key in `X-Localm-Key`, which the login hands the
//! page in a URL fragment and only the page's own origin keeps. No secret is logged.
//!
//! A listener on a non-loopback address (opted into with `--listen` or the `listen` setting, for
//! apps in containers) serves only requests with the bearer token, and answers to its address,
//! `localhost` and the `allowed_hosts` names (e.g. `host.docker.internal`). Bound to every
//! address (`0.0.0.0`, `::`), it also answers to any IP address on its port (`127.0.0.1:P`,
//! `[::1]:P`, the machine's own): a Host that is an address cannot come from DNS rebinding, and the
//! token is needed all the same.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::error::ApiError;
use super::page;
use crate::service::hosts::{Hosts, bearer};
use crate::service::logins::{CODE_TTL, Logins};
use crate::service::state::Shared;
use crate::service::token;

/// The session cookie's name.
pub const COOKIE: &str = "localm_session";
/// The header the page sends its page key in.
pub const KEY_HEADER: &str = "x-localm-key";

/// What the TCP listener checks every request against.
#[derive(Debug)]
pub struct TcpGuard {
    /// The token file's token, re-read when the file changes (`localm token rotate`).
    token: token::Live,
    /// `127.0.0.1:PORT` and `localhost:PORT` (or `[::1]:PORT`), and `NAME:PORT` for each
    /// `allowed_hosts` name: the only `Host` values served.
    hosts: Hosts,
    logins: Arc<Logins>,
    /// Bound to a non-loopback address: every request needs the bearer token (no browser
    /// login: the cookie and page key are for a listener only this machine reaches).
    exposed: bool,
}

impl TcpGuard {
    pub fn new(token: token::Live, addr: SocketAddr, logins: Arc<Logins>) -> TcpGuard {
        TcpGuard {
            token,
            hosts: Hosts::new(addr),
            logins,
            exposed: !addr.ip().is_loopback(),
        }
    }

    /// Also answer to these host names (the `allowed_hosts` setting), on this listener's port.
    pub fn allowing(mut self, names: &[String], port: u16) -> TcpGuard {
        self.hosts = self.hosts.allowing(names, port);
        self
    }

    fn host_ok(&self, headers: &HeaderMap) -> bool {
        self.hosts.host_ok(headers)
    }

    fn origin_ok(&self, origin: &str) -> bool {
        self.hosts.origin_ok(origin)
    }

    fn caller(&self, headers: &HeaderMap) -> Option<Caller> {
        if bearer(headers).is_some_and(|b| self.token.matches(b)) {
            return Some(Caller::Program);
        }
        let cookie = session_cookie(headers)?;
        if !self.logins.is_session(cookie) {
            return None;
        }
        let key = headers
            .get(KEY_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        Some(if self.logins.key_matches(cookie, key) {
            Caller::Browser
        } else {
            Caller::BrowserWithoutKey
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// Sent the bearer token.
    Program,
    /// Sent a live session cookie and its page key.
    Browser,
    /// Sent a live session cookie without its page key (or a wrong one): maybe the page in a
    /// new tab, maybe another server on 127.0.0.1 replaying the cookie. Gets the page's assets.
    BrowserWithoutKey,
}

/// The `localm_session` cookie's value, if sent.
fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The TCP listener's guard, in this order: `Host`, then `Origin` on state-changing requests,
/// then the caller (token, or cookie and page key). With the cookie alone only the login and the
/// page's HTML, script and style are served (they hold no data); with nothing, the login, the
/// script and style and the "run `localm open`" page.
pub async fn guard(State(g): State<Arc<TcpGuard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if !g.host_ok(headers) {
        return ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "wrong_host",
            format!(
                "this listener answers only requests addressed to {}",
                g.hosts.listed()
            ),
        )
        .into_response();
    }
    let caller = g.caller(headers);
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes {
        let origin = headers
            .get(header::ORIGIN)
            .map(|v| v.to_str().unwrap_or(""));
        match origin {
            Some(o) if !g.origin_ok(o) => {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "cross_origin",
                    "a request from another web page is refused",
                )
                .into_response();
            }
            None if matches!(caller, Some(Caller::Browser | Caller::BrowserWithoutKey)) => {
                return ApiError::new(
                    StatusCode::FORBIDDEN,
                    "no_origin",
                    "a browser request that changes something must carry Origin",
                )
                .into_response();
            }
            _ => {}
        }
    }
    let path = req.uri().path();
    if g.exposed && caller != Some(Caller::Program) {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this listener is reachable from other machines: every request must send the token \
             from the api-token file as `Authorization: Bearer TOKEN`",
        )
        .into_response();
    }
    match caller {
        Some(Caller::Program | Caller::Browser) => return next.run(req).await,
        Some(Caller::BrowserWithoutKey) => {
            return match path {
                "/login" | page::PAGE | page::JS | page::CSS => next.run(req).await,
                _ => ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "page_key",
                    "this browser tab has no key for the memory page: run `localm open` to open \
                     the page again",
                )
                .into_response(),
            };
        }
        None => {}
    }
    match path {
        "/login" | page::JS | page::CSS => next.run(req).await,
        page::PAGE => page::login_needed(),
        _ => ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send the token from the api-token file as `Authorization: Bearer TOKEN`, or run \
             `localm open` to log the browser in",
        )
        .into_response(),
    }
}

/// `POST /api/login-link`'s answer (control socket only).
#[derive(Debug, Serialize)]
pub struct LoginLink {
    pub url: String,
    pub expires_in_s: u64,
}

/// `POST /api/login-link`: a fresh one-time login URL for the loopback listener. Served only on
/// the control socket, which only the owner can reach.
pub async fn login_link(State(s): State<Arc<Shared>>) -> Result<Json<LoginLink>, ApiError> {
    let Some(addr) = s.logins.listen() else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "no_listener",
            "the daemon has no loopback listener: start it with `localm daemon --listen 127.0.0.1:PORT`",
        ));
    };
    let code = s.logins.mint(Instant::now()).map_err(ApiError::internal)?;
    Ok(Json(LoginLink {
        url: format!("http://{addr}/login?code={code}"),
        expires_in_s: CODE_TTL.as_secs(),
    }))
}

#[derive(Debug, Deserialize)]
pub struct LoginQuery {
    #[serde(default)]
    code: String,
}

/// `GET /login?code=…` (TCP only): a valid code becomes a session cookie and a redirect to the
/// page with the session's page key in the fragment (`/memory#k=KEY`: a fragment is never sent
/// to a server, so it stays out of every log); a wrong, used or expired one is a 403 page.
pub async fn login(
    State(s): State<Arc<Shared>>,
    Query(q): Query<LoginQuery>,
) -> Result<Response, ApiError> {
    let session = s
        .logins
        .redeem(&q.code, Instant::now())
        .map_err(ApiError::internal)?;
    let Some(session) = session else {
        return Ok(page::login_refused());
    };
    let cookie = format!(
        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/",
        session.cookie
    );
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (
                header::LOCATION,
                format!("{}#k={}", page::PAGE, session.key),
            ),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn guard() -> TcpGuard {
        TcpGuard::new(
            "tok".into(),
            "127.0.0.1:8765".parse().unwrap(),
            Arc::new(Logins::default()),
        )
    }

    #[test]
    fn only_this_listeners_host_and_origin_pass() {
        let g = guard();
        let host = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, v.parse().unwrap());
            g.host_ok(&h)
        };
        assert!(host("127.0.0.1:8765"));
        assert!(host("localhost:8765"));
        assert!(host("LOCALHOST:8765"));
        assert!(!host("localhost"));
        assert!(!host("127.0.0.1:8766"));
        assert!(!host("evil.example:8765"));
        assert!(!g.host_ok(&HeaderMap::new()));
        assert!(g.origin_ok("http://127.0.0.1:8765"));
        assert!(g.origin_ok("http://localhost:8765"));
        assert!(!g.origin_ok("https://localhost:8765"));
        assert!(!g.origin_ok("http://localhost:8766"));
        assert!(!g.origin_ok("null"));
        assert!(!g.origin_ok("http://evil.example"));
    }

    #[test]
    fn allowed_hosts_join_the_listeners_own() {
        let g = TcpGuard::new(
            "tok".into(),
            "0.0.0.0:8765".parse().unwrap(),
            Arc::new(Logins::default()),
        )
        .allowing(&["host.docker.internal".into()], 8765);
        assert!(g.exposed);
        let host = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, v.parse().unwrap());
            g.host_ok(&h)
        };
        assert!(host("host.docker.internal:8765"));
        assert!(host("localhost:8765"));
        assert!(!host("host.docker.internal:8766"));
        assert!(!host("evil.example:8765"));
        assert!(!guard().exposed);
        // Bound to every address: this machine's addresses name it too (#33), on its port only.
        for ours in [
            "127.0.0.1:8765",
            "[::1]:8765",
            "192.168.1.20:8765",
            "[fe80::1]:8765",
        ] {
            assert!(host(ours), "{ours}");
        }
        assert!(!host("127.0.0.1:8766") && !host("[::1]:80") && !host("127.0.0.1"));
        // Bound to one address, only that one.
        let one = TcpGuard::new(
            "tok".into(),
            "192.168.1.20:8765".parse().unwrap(),
            Arc::new(Logins::default()),
        );
        let mut h = HeaderMap::new();
        h.insert(header::HOST, "10.0.0.1:8765".parse().unwrap());
        assert!(!one.host_ok(&h));
    }

    /// The scheme's name in any case (#33); the token itself exactly.
    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let g = guard();
        let caller = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::AUTHORIZATION, v.parse().unwrap());
            g.caller(&h)
        };
        for ok in ["Bearer tok", "bearer tok", "BEARER tok"] {
            assert_eq!(caller(ok), Some(Caller::Program), "{ok}");
        }
        for bad in ["Bearer TOK", "Basic tok", "Bearertok", "tok"] {
            assert_eq!(caller(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_cookie_opens_the_api_only_with_its_page_key() {
        let logins = Arc::new(Logins::default());
        let g = TcpGuard::new(
            "tok".into(),
            "127.0.0.1:8765".parse().unwrap(),
            logins.clone(),
        );
        let now = Instant::now();
        let s = logins
            .redeem(&logins.mint(now).unwrap(), now)
            .unwrap()
            .unwrap();
        let with = |key: Option<&str>| {
            let mut h = HeaderMap::new();
            h.insert(
                header::COOKIE,
                format!("{COOKIE}={}", s.cookie).parse().unwrap(),
            );
            if let Some(k) = key {
                h.insert(KEY_HEADER, k.parse().unwrap());
            }
            g.caller(&h)
        };
        assert_eq!(with(None), Some(Caller::BrowserWithoutKey));
        assert_eq!(with(Some("wrong")), Some(Caller::BrowserWithoutKey));
        assert_eq!(with(Some(&s.cookie)), Some(Caller::BrowserWithoutKey));
        assert_eq!(with(Some(&s.key)), Some(Caller::Browser));
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "a=1; localm_session=abc; b=2".parse().unwrap(),
        );
        assert_eq!(session_cookie(&h), Some("abc"));
        h.insert(header::COOKIE, "xlocalm_session=abc".parse().unwrap());
        assert_eq!(session_cookie(&h), None);
    }
}
