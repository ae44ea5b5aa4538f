//! A chat message as the client sent it and the agent a request is for: the words the chat turn
//! (`chat`), the app's own prompts (`chat::task_prompt`) and recall's query (`recall::query`)
//! all read, kept below them so none of them imports another in a circle.

use serde::{Deserialize, Serialize};

/// One chat message as the client sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
    /// Set by the client on text the user did not type: "tool", "client".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl ChatMessage {
    pub fn user(content: &str) -> ChatMessage {
        ChatMessage {
            role: "user".into(),
            content: content.into(),
            origin: None,
        }
    }
}

/// Which agent a request is for. The coder agent gets no chat recall.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    #[default]
    Chat,
    Coder,
}
