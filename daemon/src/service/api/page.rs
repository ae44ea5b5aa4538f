//! The memory page: `/memory` and its script and style, embedded in the binary (no build step),
//! served with a strict Content-Security-Policy; and the two small pages the TCP listener shows
//! a browser that is not logged in.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::sync::Arc;

use crate::service::state::Shared;

/// Where the page and its assets are served.
pub const PAGE: &str = "/memory";
pub const JS: &str = "/memory/app.js";
pub const CSS: &str = "/memory/app.css";

const HTML_BODY: &str = include_str!("page/memory.html");
const JS_BODY: &str = include_str!("page/app.js");
const CSS_BODY: &str = include_str!("page/app.css");

/// The page's routes (on both listeners; the TCP guard decides who gets them there).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route(PAGE, get(|| async { asset(HTML_BODY, "text/html") }))
        .route(JS, get(|| async { asset(JS_BODY, "text/javascript") }))
        .route(CSS, get(|| async { asset(CSS_BODY, "text/css") }))
}

fn asset(body: &'static str, kind: &str) -> Response {
    with_headers(StatusCode::OK, body.to_string(), kind)
}

/// `body` as `kind` (UTF-8), with the page's security headers, never cached.
fn with_headers(status: StatusCode, body: String, kind: &str) -> Response {
    let mut resp = (status, body).into_response();
    let h = resp.headers_mut();
    let pairs = [
        (header::CONTENT_TYPE, format!("{kind}; charset=utf-8")),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; frame-ancestors 'none'".to_string(),
        ),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        (header::CACHE_CONTROL, "no-store".to_string()),
        (header::REFERRER_POLICY, "no-referrer".to_string()),
    ];
    for (k, v) in pairs {
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert(k, v);
        }
    }
    resp
}

/// A small page with a heading and one paragraph (no data, no script).
fn note(status: StatusCode, title: &str, text: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"{CSS}\"></head>\
         <body><main class=\"note\"><h1>{title}</h1><p>{text}</p></main></body></html>"
    );
    with_headers(status, body, "text/html")
}

/// `/memory` on TCP without a session: 401, and how to log in.
pub fn login_needed() -> Response {
    note(
        StatusCode::UNAUTHORIZED,
        "Log in to localm memory",
        "Run <code>localm open</code> in a terminal: it opens this page logged in.",
    )
}

/// `/login` with a wrong, used or expired code: 403.
pub fn login_refused() -> Response {
    note(
        StatusCode::FORBIDDEN,
        "This login link does not work",
        "A login link works once, within a minute. Run <code>localm open</code> again for a \
         new one.",
    )
}
