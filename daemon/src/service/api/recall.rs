//! `POST /api/memory/recall`: chat messages in; the block, the ids, the degrade reason and the
//! exact `X-Localm-Memory` value out (with `"explain": true`, every candidate's signals too).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use localm_core::recall::query::{Agent, ChatMessage};
use serde::Deserialize;

use super::body::JsonBody;
use super::error::ApiError;
use crate::recall::{Answer, query_for};
use crate::service::state::Shared;

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    pub messages: Vec<ChatMessage>,
    #[serde(default)]
    pub agent: Agent,
    /// Also answer every record's signals and whether it was chosen.
    #[serde(default)]
    pub explain: bool,
    /// A preview (the page's Try recall): what a turn would get, reinforcing nothing.
    #[serde(default)]
    pub preview: bool,
}

/// The response header carrying what recall did.
pub const HEADER: &str = "x-localm-memory";

pub async fn handle(
    State(s): State<Arc<Shared>>,
    JsonBody(req): JsonBody<RecallRequest>,
) -> Result<Response, ApiError> {
    let reinforce = if req.preview {
        Reinforce::No
    } else {
        Reinforce::Injected
    };
    let answer = recall_turn(&s, &req.messages, req.agent, req.explain, reinforce).await?;
    let header = HeaderValue::from_str(&answer.header);
    let mut resp = Json(answer).into_response();
    if let Ok(v) = header {
        resp.headers_mut().insert(HEADER, v);
    }
    Ok(resp)
}

/// Whether a recall counts as use of what it injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reinforce {
    /// A real turn: what is injected is reinforced (in log/full mode).
    Injected,
    /// A preview: nothing is written.
    No,
}

/// One chat turn's recall, as the API and the chat endpoint run it: the settings and mode
/// decide whether the turn gets any; what is injected is reinforced in log/full mode unless
/// `reinforce` says it is a preview.
pub async fn recall_turn(
    s: &Arc<Shared>,
    messages: &[ChatMessage],
    agent: Agent,
    explain: bool,
    reinforce: Reinforce,
) -> Result<Answer, ApiError> {
    let config = s.config();
    let answer = match query_for(&config.settings, config.mode, messages, agent) {
        Err(why) => Answer::skipped(why.to_string()),
        // Lexical recall takes well under a millisecond: run it here. Embedding the query
        // takes tens of milliseconds: run that on the blocking pool.
        Ok(q) if !s.recall_embeds() => s.recall(&q, explain)?,
        Ok(q) => {
            let shared = Arc::clone(s);
            tokio::task::spawn_blocking(move || shared.recall(&q, explain))
                .await
                .map_err(ApiError::internal)??
        }
    };
    // Reinforce what was injected, off the hot path; privacy-mode recall never writes.
    if reinforce == Reinforce::Injected && config.mode.allows_writes() && !answer.items.is_empty() {
        s.reinforcer
            .note(answer.items.iter().map(|i| i.id.clone()).collect());
    }
    Ok(answer)
}
