//! `localm mcp --http ADDR`: the same tools over MCP's Streamable HTTP (rmcp's server transport,
//! at `/mcp`), for hosts that speak only HTTP (Open WebUI). It is served by the daemon's own
//! accept loop (`service::listener`): the header-read timeout, the body deadline (408), a
//! connection cap fitted to the raised open-file limit where the connection reading a request
//! longest makes room, and a graceful close. Every request passes the daemon's TCP listener's
//! checks first (`service::hosts`): the `Host` it is addressed to (the address, `localhost`, the
//! `allowed_hosts` names, on the port), the `Origin` of a change, and the bearer token from
//! `<data dir>/api-token` (`service::token`, re-read when `localm token rotate` changes it).
//! There is no browser login here: the token or nothing. A body that is not JSON is a JSON-RPC
//! parse error (-32700); a session with no request for `Deadlines::mcp_session_idle` is closed
//! and freed.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use std::time::Duration;

use super::MemoryServer;
use super::sessions::{self, Sessions};
use crate::service::hosts::{Hosts, bearer};
use crate::service::listener::{self, BodyTimedOut, Rules};
use crate::service::token;

/// Where the MCP endpoint is served.
pub const PATH: &str = "/mcp";

/// What every request is checked against.
pub struct Guard {
    pub hosts: Hosts,
    pub token: token::Live,
}

fn refuse(status: StatusCode, code: &str, message: String) -> Response {
    let body = json!({"error": {"code": code, "message": message}});
    (status, axum::Json(body)).into_response()
}

/// The listener's checks, in its order: `Host`, then `Origin` on a change, then the token.
async fn guard(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if !g.hosts.host_ok(headers) {
        return refuse(
            StatusCode::MISDIRECTED_REQUEST,
            "wrong_host",
            format!(
                "this listener answers only requests addressed to {}",
                g.hosts.listed()
            ),
        );
    }
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or(""));
    if changes && origin.is_some_and(|o| !g.hosts.origin_ok(o)) {
        return refuse(
            StatusCode::FORBIDDEN,
            "cross_origin",
            "a request from another web page is refused".into(),
        );
    }
    if !bearer(headers).is_some_and(|b| g.token.matches(b)) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "send the token from the api-token file as `Authorization: Bearer TOKEN`".into(),
        );
    }
    next.run(req).await
}

/// The largest request body read (the daemon's API reads no more either).
const MAX_BODY: usize = 1 << 20;

/// A JSON-RPC error with no id (the request's own could not be read), as HTTP 400.
fn rpc_error(code: i32, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

/// Read a POST's body within the listener's body deadline (408 when it does not arrive, 413 over
/// [`MAX_BODY`]); a body that is not JSON is JSON-RPC's parse error (-32700), JSON that is not a
/// JSON-RPC message its invalid request (-32600). rmcp gets the body read.
async fn read_body(req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => {
            let err: &(dyn std::error::Error + 'static) = &e;
            if let Some(late) = BodyTimedOut::in_chain(err) {
                return refuse(StatusCode::REQUEST_TIMEOUT, "timeout", late.to_string());
            }
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("cannot read the request body (at most {MAX_BODY} bytes): {e}"),
            );
        }
    };
    let value: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return rpc_error(-32700, format!("Parse error: the body is not JSON: {e}")),
    };
    if let Err(e) = serde_json::from_value::<ClientJsonRpcMessage>(value) {
        return rpc_error(
            -32600,
            format!("Invalid Request: the body is not a JSON-RPC request: {e}"),
        );
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}

/// The router: `/mcp` behind the guard; sessions with no request for `idle` are closed.
pub fn router(server: MemoryServer, guard_with: Guard, idle: Duration) -> Router {
    // The guard checks Host with the listener's own names (and allowed_hosts); rmcp's own
    // loopback-only check would refuse those, so it is off here.
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(idle);
    let manager = Arc::new(manager);
    let sessions = Sessions::start(Arc::clone(&manager), idle);
    let service = StreamableHttpService::new(move || Ok(server.clone()), manager, config);
    Router::new()
        .nest_service(PATH, service)
        .layer(middleware::from_fn(read_body))
        .layer(middleware::from_fn_with_state(sessions, sessions::seen))
        .layer(middleware::from_fn_with_state(Arc::new(guard_with), guard))
}

/// Serve `router` on `listener` under the listener's `rules` until SIGINT or SIGTERM; then let
/// each connection finish the request it is serving.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    rules: Rules,
) -> anyhow::Result<()> {
    let addr: SocketAddr = listener
        .local_addr()
        .context("the MCP listener has no address")?;
    // The one line a host's set-up (and the tests) read the address from.
    eprintln!("localm mcp: listening on http://{addr}{PATH}");
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot watch SIGTERM")?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        let _ = stop.send(true);
    });
    listener::serve(listener, router, rules, stopped).await;
    Ok(())
}
