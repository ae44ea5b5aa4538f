//! What the daemon and its chat worker say to each other: one JSON object a line. The daemon
//! writes a [`Request`] (or the word `cancel`); the worker answers `ready` once its model is
//! loaded, then [`Event`]s for each request: text as it is generated, then `done` or `error`.

use localm_core::engine::Message;
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
}

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
}
