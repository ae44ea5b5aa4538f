//! The MCP-over-HTTP sessions' idleness: when each session last had a request (its
//! `Mcp-Session-Id`, on the way in and on `initialize`'s answer), and a sweep that closes the ones
//! idle past the limit. rmcp's `LocalSessionManager` stops an idle session's worker but keeps its
//! handle in its map for good (about 50 KB a session); closing it through the manager frees it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The header a Streamable HTTP session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// When each open session last had a request.
pub struct Sessions {
    seen: Mutex<HashMap<Arc<str>, Instant>>,
}

impl Sessions {
    /// Track sessions, and close the ones with no request for `idle` (checked every `idle / 4`,
    /// at least every second) until the runtime stops.
    pub fn start(manager: Arc<LocalSessionManager>, idle: Duration) -> Arc<Sessions> {
        let sessions = Arc::new(Sessions {
            seen: Mutex::new(HashMap::new()),
        });
        let tracked = Arc::clone(&sessions);
        let every = (idle / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                tracked.sweep(&manager, idle).await;
            }
        });
        sessions
    }

    fn touch(&self, id: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        match seen.get_mut(id) {
            Some(t) => *t = Instant::now(),
            None => {
                seen.insert(Arc::from(id), Instant::now());
            }
        }
    }

    fn forget(&self, id: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.remove(id);
    }

    /// Close and forget every session with no request for `idle`.
    async fn sweep(&self, manager: &LocalSessionManager, idle: Duration) {
        let expired: Vec<Arc<str>> = {
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            let ids: Vec<Arc<str>> = seen
                .iter()
                .filter(|(_, t)| t.elapsed() >= idle)
                .map(|(id, _)| Arc::clone(id))
                .collect();
            for id in &ids {
                seen.remove(id);
            }
            ids
        };
        if expired.is_empty() {
            return;
        }
        for id in &expired {
            if let Err(e) = manager.close_session(id).await {
                tracing::debug!("mcp: closing an idle session: {e}");
            }
        }
        tracing::debug!("mcp: closed {} idle sessions", expired.len());
        give_back_freed_memory();
    }
}

/// Hand the allocator's free pages back to the system, so the sessions just freed show in RSS.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim(3) only releases free heap memory; it takes no pointers of ours.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Note the session a request names (or `initialize`'s answer opens); forget one it deletes.
pub async fn seen(State(sessions): State<Arc<Sessions>>, req: Request, next: Next) -> Response {
    let named = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let deleting = req.method() == axum::http::Method::DELETE;
    if let Some(id) = &named {
        sessions.touch(id);
    }
    let response = next.run(req).await;
    match (&named, deleting) {
        (Some(id), true) => sessions.forget(id),
        _ => {
            if let Some(id) = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
            {
                sessions.touch(id);
            }
        }
    }
    response
}
