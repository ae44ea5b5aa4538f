//! The turn logger: once a reply arrived whole, the user's new message and the reply are appended
//! to `sessions/<session>.jsonl` (log/full mode with the plugin on only), which a pass reads.

use std::sync::Arc;

use chrono::Utc;
use localm_core::{chat, session};

use super::Prepared;
use crate::service::state::Shared;

/// Append the turn to its session log, unless privacy mode came on meanwhile.
pub(super) async fn log_turn(s: &Arc<Shared>, p: &Prepared, reply: &str) {
    let Some(name) = p.log_to.as_ref().map(|c| c.name(reply)) else {
        return;
    };
    // Privacy may have been switched on while the reply was generated.
    if !s.config().mode.allows_writes() {
        return;
    }
    // A turn answering a tool result logs its reply alone: the user's words were logged with
    // the turn they started.
    let user = p
        .req
        .new_user_message()
        .map(|m| (m.text(), m.origin.clone()));
    let lines = chat::log_lines(
        user.as_ref().map(|(t, o)| (t.as_str(), o.as_deref())),
        reply,
        p.req.agent,
        Utc::now(),
    );
    if lines.is_empty() {
        return;
    }
    let dir = s.data_dir.join("sessions");
    let result = tokio::task::spawn_blocking(move || session::append(&dir, &name, &lines)).await;
    match result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("chat: could not log the turn: {e}"),
        Err(e) => tracing::warn!("chat: could not log the turn: {e}"),
    }
}
