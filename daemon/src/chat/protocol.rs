//! What the daemon and its chat worker say to each other: one JSON object a line. The daemon
//! writes a [`Request`] (or the word `cancel`); the worker answers `ready` once its model is
//! loaded, then [`Event`]s for each request: text as it is generated, then `done`, `error` or
//! `too_long`.

use localm_core::models::Message;
use serde::{Deserialize, Serialize};

/// One reply to generate.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    /// 0 = greedy.
    pub temperature: f32,
    pub top_p: f32,
    pub seed: u32,
    /// The reply ends before the first of these (which is not sent).
    pub stop: Vec<String>,
    /// The context in tokens (the `chat_context` setting); `None`: the model's own, at most
    /// [`DEFAULT_CONTEXT_CAP`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u32>,
    /// A GBNF grammar the reply must follow (`response_format`: `core::chat::json_format`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<String>,
}

/// The default context is the model's trained one, at most this (its KV cache grows with it).
pub const DEFAULT_CONTEXT_CAP: u32 = 8192;

/// The line that cancels the request in progress.
pub const CANCEL: &str = "cancel";

/// Why a reply ended, in OpenAI's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    Stop,
    Length,
}

/// One line from the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The model is loaded.
    Ready { model: String },
    /// More of the reply.
    Text(String),
    /// The reply is complete.
    Done {
        finish: Finish,
        prompt_tokens: usize,
        completion_tokens: usize,
    },
    /// The request failed; the worker carries on.
    Error(String),
    /// The prompt cannot fit the context even with its oldest turns dropped (nothing was
    /// generated): OpenAI's `context_length_exceeded`.
    TooLong(String),
}
