//! `localm mcp --http ADDR`: the same tools over MCP's Streamable HTTP (rmcp's server transport,
//! at `/mcp`), for hosts that speak only HTTP (Open WebUI). Every request passes the daemon's TCP
//! listener's checks first (`service::hosts`): the `Host` it is addressed to (the address,
//! `localhost`, the `allowed_hosts` names, on the port), the `Origin` of a change, and the
//! bearer token from `<data dir>/api-token` (`service::token`, re-read when `localm token
//! rotate` changes it). There is no browser login here: the token or nothing.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;

use super::MemoryServer;
use crate::service::hosts::{Hosts, bearer};
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

/// The router: `/mcp` behind the guard.
pub fn router(server: MemoryServer, guard_with: Guard) -> Router {
    // The guard checks Host with the listener's own names (and allowed_hosts); rmcp's own
    // loopback-only check would refuse those, so it is off here.
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .nest_service(PATH, service)
        .layer(middleware::from_fn_with_state(Arc::new(guard_with), guard))
}

/// Serve `router` on `listener` until SIGINT or SIGTERM.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> anyhow::Result<()> {
    let addr: SocketAddr = listener
        .local_addr()
        .context("the MCP listener has no address")?;
    // The one line a host's set-up (and the tests) read the address from.
    eprintln!("localm mcp: listening on http://{addr}{PATH}");
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("cannot watch SIGTERM")?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        })
        .await
        .context("while serving MCP over HTTP")
}
