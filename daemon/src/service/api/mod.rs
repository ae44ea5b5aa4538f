//! The HTTP API on the control socket and the loopback listener: the `/api/memory*` routes
//! (mounted while the memory plugin is enabled), `POST /api/memory/recall`, `GET /api/health`,
//! the page and its settings routes, the login (TCP: `/login`; socket: `/api/login-link`), and
//! the OpenAI-shaped `/v1/*` with CORS when `cors_origins` allows it. Errors are JSON.

pub mod apps;
pub mod auth;
pub mod body;
pub mod chat;
pub mod cors;
pub mod error;
pub mod memory;
pub mod page;
pub mod recall;
pub mod settings;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;

use super::state::Shared;
use error::ApiError;

/// Every route. `tcp`, for the loopback listener, is what its guard checks (Host, Origin, the
/// token or a session); without it (the control socket) the login link is served instead.
pub fn router(shared: Arc<Shared>, tcp: Option<Arc<auth::TcpGuard>>) -> Router {
    let memory = Router::new()
        .route("/api/memory", get(memory::list).put(memory::replace))
        .route("/api/memory/append", post(memory::append))
        .route("/api/memory/recall", post(recall::handle))
        .route("/api/memory/consolidate", post(memory::consolidate))
        .route("/api/memory/forgotten", get(memory::forgotten))
        .route("/api/memory/forgotten/{id}/restore", post(memory::restore))
        .route("/api/memory/corrections", get(memory::corrections))
        .route("/api/memory/corrections/{id}/accept", post(memory::accept))
        .route("/api/memory/corrections/{id}/reject", post(memory::reject))
        .route(
            "/api/memory/{id}",
            axum::routing::patch(memory::patch).delete(memory::delete),
        )
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            require_plugin,
        ));
    let surface = match tcp {
        Some(_) => Router::new().route("/login", get(auth::login)),
        None => Router::new().route("/api/login-link", post(auth::login_link)),
    };
    let app = Router::new()
        .route("/api/health", get(health))
        .route("/api/settings", get(settings::show).patch(settings::change))
        .route("/api/plugins/{name}/{action}", post(settings::plugin))
        .merge(page::routes())
        .merge(surface)
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/models", get(chat::models))
        .merge(memory)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body::MAX_BODY))
        .layer(middleware::from_fn(declared_size))
        .with_state(Arc::clone(&shared));
    let app = match tcp {
        Some(g) => app.layer(middleware::from_fn_with_state(g, auth::guard)),
        None => app,
    };
    // Outermost: a browser's preflight carries no token.
    app.layer(middleware::from_fn_with_state(shared, cors::layer))
}

/// `GET /api/health`'s answer: the daemon is up; what it runs with.
#[derive(Debug, Serialize)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
    pub pid: u32,
    pub mode: &'static str,
    pub memory_plugin: bool,
    pub uptime_s: u64,
    pub pass: PassState,
    pub embedder_loaded: bool,
}

/// Whether a pass is running, and its process.
#[derive(Debug, Serialize)]
pub struct PassState {
    pub running: bool,
    pub pid: Option<u32>,
}

async fn health(State(s): State<Arc<Shared>>) -> Json<Health> {
    let config = s.config();
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        pid: std::process::id(),
        mode: config.mode.as_str(),
        memory_plugin: config.settings.memory_plugin_enabled(),
        uptime_s: s.started.elapsed().as_secs(),
        pass: PassState {
            running: s.passes.busy(),
            pid: s.passes.running_pid(),
        },
        embedder_loaded: s.recall.embedder_loaded(),
    })
}

/// Refuse a body whose declared length is over the limit before reading any of it.
async fn declared_size(req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match declared {
        Some(n) if n > body::MAX_BODY as u64 => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the request body is over {} bytes", body::MAX_BODY),
        )
        .into_response(),
        _ => next.run(req).await,
    }
}

async fn require_plugin(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if s.config().settings.memory_plugin_enabled() {
        next.run(req).await
    } else {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "plugin_disabled",
            "the memory plugin is not enabled: run `localm plugin install memory`",
        )
        .into_response()
    }
}

async fn not_found(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no route {} {}", req.method(), req.uri().path()),
    )
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}
