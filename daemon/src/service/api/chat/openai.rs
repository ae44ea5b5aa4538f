//! OpenAI's chat wire shapes, typed: the `POST /v1/chat/completions` request as clients send it
//! (unknown fields ignored), the checks it must pass, and the replies we write (a whole
//! completion, stream chunks, the usage chunk, the error body).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use localm_core::models::Message;
use localm_core::recall::query::{Agent, ChatMessage};
use serde::{Deserialize, Serialize};

use crate::chat::protocol::Finish;

/// `POST /v1/chat/completions`, as OpenAI clients send it. Unknown fields are ignored.
#[derive(Debug, Clone, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<InMessage>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub temperature: Option<f32>,
    #[serde(default)]
    pub top_p: Option<f32>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub max_completion_tokens: Option<u32>,
    #[serde(default)]
    pub stop: Option<Stop>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub stream: bool,
    #[serde(default)]
    pub stream_options: Option<StreamOptions>,
    /// localm: the session this turn belongs to (the `X-Localm-Session` header wins).
    #[serde(default)]
    pub session: Option<String>,
    /// localm: which agent sends the request; the coder's gets no recall.
    #[serde(default)]
    pub agent: Option<Agent>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct StreamOptions {
    #[serde(default)]
    pub include_usage: bool,
}

/// `stop`: one string or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Stop {
    One(String),
    Many(Vec<String>),
}

impl Stop {
    /// The non-empty stop strings (OpenAI allows up to 4).
    pub fn strings(&self) -> Vec<String> {
        let all = match self {
            Stop::One(s) => vec![s.clone()],
            Stop::Many(v) => v.clone(),
        };
        all.into_iter().filter(|s| !s.is_empty()).take(4).collect()
    }
}

/// One message: `content` is a string, a list of parts (the text parts are used), or null.
#[derive(Debug, Clone, Deserialize)]
pub struct InMessage {
    pub role: String,
    #[serde(default)]
    pub content: Option<Content>,
    /// localm: set by the client on text the user did not type ("tool", "client").
    #[serde(default)]
    pub origin: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Debug, Clone, Deserialize)]
pub struct Part {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub text: Option<String>,
}

impl InMessage {
    /// The message's text: the string, or its text parts joined by newlines.
    pub fn text(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(Content::Text(t)) => t.clone(),
            Some(Content::Parts(parts)) => parts
                .iter()
                .filter(|p| p.kind == "text")
                .filter_map(|p| p.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Why a request cannot be served as sent (a 400, with this message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("messages is empty")]
    NoMessages,
    #[error(
        "the last message must be the user's: the local model answers a user's message (a \
         conversation ending with an assistant or tool message needs chat_upstream)"
    )]
    NotUserLast,
    #[error("role must be system, user, assistant or tool, not {0:?}")]
    BadRole(String),
}

impl ChatRequest {
    /// The messages for recall (with their origins).
    pub fn chat_messages(&self) -> Vec<ChatMessage> {
        self.messages
            .iter()
            .map(|m| ChatMessage {
                role: m.role.clone(),
                content: m.text(),
                origin: m.origin.clone(),
            })
            .collect()
    }

    /// The messages as plain text for a chat template.
    pub fn plain_messages(&self) -> Vec<Message> {
        self.messages
            .iter()
            .map(|m| Message {
                role: m.role.clone(),
                content: m.text(),
            })
            .collect()
    }

    /// Check the request's shape: some messages; for the local model (`relay` false) known
    /// roles and the user's last. The relay forwards any conversation (a tool result or the
    /// assistant's message last too): the upstream judges it.
    pub fn validate(&self, relay: bool) -> Result<(), RequestError> {
        if self.messages.is_empty() {
            return Err(RequestError::NoMessages);
        }
        if relay {
            return Ok(());
        }
        for m in &self.messages {
            if !matches!(
                m.role.as_str(),
                "system" | "developer" | "user" | "assistant" | "tool"
            ) {
                return Err(RequestError::BadRole(m.role.clone()));
            }
        }
        match self.messages.last() {
            Some(m) if m.role != "user" => Err(RequestError::NotUserLast),
            _ => Ok(()),
        }
    }

    /// The last message, when it is the user's: this turn answers it (else it answers a tool
    /// result, or continues the assistant).
    pub fn new_user_message(&self) -> Option<&InMessage> {
        self.messages.last().filter(|m| m.role == "user")
    }

    /// Generated tokens asked for: `max_completion_tokens`, else `max_tokens`, within `cap`.
    pub fn max_new_tokens(&self, default: u32, cap: u32) -> u32 {
        self.max_completion_tokens
            .or(self.max_tokens)
            .unwrap_or(default)
            .clamp(1, cap)
    }

    /// Whether a streamed reply ends with a usage chunk (`stream_options.include_usage`).
    pub fn wants_usage(&self) -> bool {
        self.stream_options
            .as_ref()
            .is_some_and(|o| o.include_usage)
    }
}

/// Token counts of one reply.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Usage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub total_tokens: usize,
}

impl Usage {
    pub fn new(prompt_tokens: usize, completion_tokens: usize) -> Usage {
        Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens + completion_tokens,
        }
    }
}

/// The id, time and model every reply object of one turn carries.
#[derive(Debug, Clone)]
pub struct ReplyId {
    pub id: String,
    pub created: u64,
    pub model: String,
}

/// The assistant's message of a whole reply.
#[derive(Debug, Serialize)]
struct OutMessage<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Debug, Serialize)]
struct Choice<'a> {
    index: u32,
    message: OutMessage<'a>,
    finish_reason: Finish,
}

/// `chat.completion`: a whole reply.
#[derive(Debug, Serialize)]
pub struct Completion<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: [Choice<'a>; 1],
    usage: Usage,
}

/// A whole reply of `text`.
pub fn completion<'a>(
    r: &'a ReplyId,
    text: &'a str,
    finish: Finish,
    usage: Usage,
) -> Completion<'a> {
    Completion {
        id: &r.id,
        object: "chat.completion",
        created: r.created,
        model: &r.model,
        choices: [Choice {
            index: 0,
            message: OutMessage {
                role: "assistant",
                content: text,
            },
            finish_reason: finish,
        }],
        usage,
    }
}

/// What one stream chunk adds.
#[derive(Debug, Default, Serialize)]
pub struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct ChunkChoice<'a> {
    index: u32,
    delta: Delta<'a>,
    finish_reason: Option<Finish>,
}

/// `chat.completion.chunk`: one piece of a streamed reply, or the closing usage chunk.
#[derive(Debug, Serialize)]
pub struct Chunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: Vec<ChunkChoice<'a>>,
    /// Absent unless usage was asked for; then `null` on every chunk but the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Option<Usage>>,
}

/// A chunk adding `delta` (and ending the reply with `finish`); `usage` as the request asked.
pub fn chunk<'a>(
    r: &'a ReplyId,
    delta: Delta<'a>,
    finish: Option<Finish>,
    usage: bool,
) -> Chunk<'a> {
    Chunk {
        id: &r.id,
        object: "chat.completion.chunk",
        created: r.created,
        model: &r.model,
        choices: vec![ChunkChoice {
            index: 0,
            delta,
            finish_reason: finish,
        }],
        usage: usage.then_some(None),
    }
}

/// The last chunk of a stream that asked for usage: no choices, the counts.
pub fn usage_chunk(r: &ReplyId, usage: Usage) -> Chunk<'_> {
    Chunk {
        id: &r.id,
        object: "chat.completion.chunk",
        created: r.created,
        model: &r.model,
        choices: Vec::new(),
        usage: Some(Some(usage)),
    }
}

#[derive(Debug, Serialize)]
struct ErrorDetail<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    code: &'a str,
    /// The request field at fault, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    param: Option<&'static str>,
}

/// `{"error": {"message", "type", "code"}}`.
#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

/// An error body; `server` picks the type (`server_error`, else `invalid_request_error`).
pub fn error_body<'a>(server: bool, code: &'a str, message: &'a str) -> ErrorBody<'a> {
    ErrorBody {
        error: ErrorDetail {
            message,
            kind: if server {
                "server_error"
            } else {
                "invalid_request_error"
            },
            code,
            param: None,
        },
    }
}

/// The 400 OpenAI answers a prompt that cannot fit the model's context with
/// (`context_length_exceeded`, on `messages`), logged at warn.
pub fn too_long(message: &str) -> Response {
    tracing::warn!("chat: generation refused (context_length_exceeded): {message}");
    let mut body = error_body(false, "context_length_exceeded", message);
    body.error.param = Some("messages");
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

/// An error response in OpenAI's shape (a 503 says when to retry).
pub fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let message = message.into();
    let body = error_body(status.is_server_error(), code, &message);
    let mut resp = (status, Json(body)).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        resp.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    resp
}

/// One server-sent event carrying `v` as JSON.
pub fn sse(v: &impl Serialize) -> String {
    let data = serde_json::to_string(v).unwrap_or_else(|_| "{}".into());
    format!("data: {data}\n\n")
}

/// The event that ends every stream.
pub const DONE: &[u8] = b"data: [DONE]\n\n";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::{Value, json};

    fn req(json: &str) -> ChatRequest {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn openai_shapes_parse_and_unknown_fields_are_ignored() {
        let r = req(
            r#"{"model":"x","messages":[{"role":"system","content":"be brief"},
            {"role":"user","content":[{"type":"text","text":"hello"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"there"}]}],
            "stop":"\n\n","max_completion_tokens":9,"max_tokens":100,"stream":true,
            "stream_options":{"include_usage":true},"logprobs":false,"n":1}"#,
        );
        r.validate(false).unwrap();
        assert_eq!(r.messages[1].text(), "hello\nthere");
        assert_eq!(r.max_new_tokens(256, 2048), 9);
        assert!(r.wants_usage());
        assert_eq!(r.stop.unwrap().strings(), vec!["\n\n"]);
        let r = req(r#"{"messages":[{"role":"user","content":null}],"stop":["a","","b"]}"#);
        assert_eq!(r.messages[0].text(), "");
        assert_eq!(r.stop.unwrap().strings(), vec!["a", "b"]);
    }

    #[test]
    fn malformed_requests_are_refused_and_the_relay_forwards_any_conversation() {
        for relay in [false, true] {
            assert_eq!(
                req(r#"{"messages":[]}"#).validate(relay),
                Err(RequestError::NoMessages)
            );
        }
        let tool_last = req(
            r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[]},{"role":"tool","content":"b","tool_call_id":"c"}]}"#,
        );
        assert_eq!(tool_last.validate(false), Err(RequestError::NotUserLast));
        assert_eq!(tool_last.validate(true), Ok(()));
        assert!(tool_last.new_user_message().is_none());
        let wizard = req(r#"{"messages":[{"role":"wizard","content":"a"}]}"#);
        assert!(matches!(
            wizard.validate(false),
            Err(RequestError::BadRole(_))
        ));
        assert_eq!(wizard.validate(true), Ok(()));
    }

    fn value(v: &impl Serialize) -> Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn replies_have_openais_shapes() {
        let r = ReplyId {
            id: "c1".into(),
            created: 7,
            model: "m".into(),
        };
        assert_eq!(
            value(&completion(&r, "hi", Finish::Stop, Usage::new(3, 2))),
            json!({"id": "c1", "object": "chat.completion", "created": 7, "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                                "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})
        );
        let c = value(&chunk(
            &r,
            Delta {
                content: Some("a"),
                ..Delta::default()
            },
            None,
            false,
        ));
        assert_eq!(c["choices"][0]["delta"], json!({"content": "a"}));
        assert_eq!(c["choices"][0]["finish_reason"], Value::Null);
        assert!(c.get("usage").is_none());
        let c = value(&chunk(&r, Delta::default(), Some(Finish::Length), true));
        assert_eq!(c["usage"], Value::Null);
        assert!(c.as_object().unwrap().contains_key("usage"));
        assert_eq!(c["choices"][0]["finish_reason"], "length");
        let u = value(&usage_chunk(&r, Usage::new(1, 1)));
        assert_eq!(u["choices"], json!([]));
        assert_eq!(u["usage"]["total_tokens"], 2);
        assert_eq!(
            value(&error_body(true, "busy", "wait")),
            json!({"error": {"message": "wait", "type": "server_error", "code": "busy"}})
        );
    }
}
