//! CORS for `/v1/*`, off unless the `cors_origins` setting names the web page's origin: then a
//! browser's preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered here,
//! before the token check (a preflight carries none), and the answers carry
//! `Access-Control-Allow-Origin` so the page may read them. The page must still send the
//! bearer token on the request itself; only requests that carry one lose their `Origin` on
//! the way in, so the listener's cross-origin refusal (which protects cookie logins) does not
//! refuse them. With the setting off nothing here changes a request or a response.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use localm_core::settings::keys::origin_allowed;

use super::recall::HEADER;
use crate::service::state::Shared;

/// What a preflight answer allows.
const METHODS: &str = "GET, POST, OPTIONS";
const HEADERS: &str = "authorization, content-type, x-localm-session";
/// How long a browser may cache a preflight answer, in seconds.
const MAX_AGE: &str = "600";

pub async fn layer(State(s): State<Arc<Shared>>, mut req: Request, next: Next) -> Response {
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let allowed = origin.filter(|o| {
        req.uri().path().starts_with("/v1/") && origin_allowed(&s.config().settings.cors_origins, o)
    });
    let Some(origin) = allowed else {
        return next.run(req).await;
    };
    let Ok(origin_value) = HeaderValue::from_str(&origin) else {
        return next.run(req).await;
    };
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut resp = if preflight {
        let asked = req
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .cloned();
        let mut resp = Response::new(Body::empty());
        *resp.status_mut() = StatusCode::NO_CONTENT;
        let h = resp.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(METHODS),
        );
        // The headers the page asked for, or those the API reads.
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            asked.unwrap_or_else(|| HeaderValue::from_static(HEADERS)),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE),
        );
        resp
    } else {
        if req.headers().contains_key(header::AUTHORIZATION) {
            req.headers_mut().remove(header::ORIGIN);
        }
        let mut resp = next.run(req).await;
        resp.headers_mut().insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(HEADER),
        );
        resp
    };
    let h = resp.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin_value);
    h.append(header::VARY, HeaderValue::from_static("origin"));
    resp
}
