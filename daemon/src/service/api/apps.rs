//! What the chat endpoint reads from the apps in front of it: the conversation a turn belongs
//! to (`X-Localm-Session`, Open WebUI's `X-OpenWebUI-Chat-Id`, `metadata`, else derived from
//! the conversation: `core::chat::conversation`), whether the request is background work (an
//! app's task prompt or the `+nomemory` model: `core::chat::task_prompt`), and the `+nomemory`
//! entries of `/v1/models`.

use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use localm_core::chat::conversation::{Conversation, Hints, session_for};
use localm_core::chat::task_prompt::{self, Background, NO_MEMORY};
use localm_core::chat::{ChatError, SESSION_MAX};
use localm_core::recall::query::ChatMessage;
use serde_json::Value;

/// The header a client names its session with (the body's `session` field works too).
pub const SESSION_HEADER: &str = "x-localm-session";
/// Open WebUI's chat id, sent when `ENABLE_FORWARD_USER_INFO_HEADERS` is on (its
/// `FORWARD_SESSION_INFO_HEADER_CHAT_ID` default).
pub const OPEN_WEBUI_CHAT_ID: &str = "x-openwebui-chat-id";
/// `metadata` keys that name a conversation.
const METADATA_IDS: &[&str] = &["conversation_id", "chat_id", "session_id"];

/// The session of a turn, from the headers, the raw request body and its messages.
pub fn session(
    headers: &HeaderMap,
    body: &Value,
    messages: &[ChatMessage],
    now: DateTime<Utc>,
) -> Result<Conversation, ChatError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let metadata_id = METADATA_IDS
        .iter()
        .find_map(|k| body.pointer(&format!("/metadata/{k}")))
        .and_then(Value::as_str);
    let hints = Hints {
        header: header(SESSION_HEADER),
        body: body.get("session").and_then(Value::as_str),
        app_id: header(OPEN_WEBUI_CHAT_ID)
            .or(metadata_id)
            .filter(|s| s.len() <= 4 * SESSION_MAX),
        user: body.get("user").and_then(Value::as_str),
        model: body.get("model").and_then(Value::as_str),
    };
    session_for(&hints, messages, now)
}

/// Whether the request is background work: no recall, not logged.
pub fn background(body: &Value, messages: &[ChatMessage]) -> Option<Background> {
    let model = body.get("model").and_then(Value::as_str);
    let found = task_prompt::background(model, messages);
    if let Some(b) = found {
        tracing::debug!("chat: background request ({b:?}): no recall, not logged");
    }
    found
}

/// `/v1/models` entries: each model as listed, then its twin with `+nomemory` after the id.
pub fn with_nomemory(models: Vec<Value>) -> Vec<Value> {
    models
        .into_iter()
        .flat_map(|m| {
            let mut twin = m.clone();
            match m["id"].as_str() {
                Some(id) if !id.ends_with(NO_MEMORY) => {
                    twin["id"] = Value::String(format!("{id}{NO_MEMORY}"));
                    vec![m, twin]
                }
                _ => vec![m],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        "2026-11-30T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn the_session_comes_from_headers_then_metadata_then_the_conversation() {
        let m = vec![ChatMessage::user("hi")];
        let mut h = HeaderMap::new();
        h.insert(OPEN_WEBUI_CHAT_ID, "abc-1".parse().unwrap());
        let body = json!({"model": "x", "metadata": {"chat_id": "zzz"}});
        let named =
            |h: &HeaderMap, body: &Value| session(h, body, &m, now()).unwrap().name("hello");
        assert_eq!(named(&h, &body), "app-abc-1");
        h.insert(SESSION_HEADER, "mine".parse().unwrap());
        assert_eq!(named(&h, &body), "mine");
        let none = HeaderMap::new();
        assert_eq!(named(&none, &body), "app-zzz");
        let derived = named(&none, &json!({"model": "x"}));
        assert!(derived.starts_with("conv-"), "{derived}");
    }

    #[test]
    fn models_are_listed_with_their_nomemory_twin() {
        let v = with_nomemory(vec![json!({"id": "SmolLM2", "object": "model"})]);
        let ids: Vec<&str> = v.iter().map(|m| m["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["SmolLM2", "SmolLM2+nomemory"]);
    }
}
