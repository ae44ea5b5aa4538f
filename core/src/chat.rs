//! The chat turn's rules, apart from HTTP and the model: the OpenAI request as it arrives,
//! which session a turn is logged to, `/remember`, where the recalled block goes in the prompt,
//! and the lines a turn appends to its session log.

pub mod conversation;
pub mod fit;
pub mod task_prompt;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::engine::Message;
use crate::recall::query::{Agent, ChatMessage};
use crate::session::Line;

/// A session name: what `sessions/<name>.jsonl` is called.
pub const SESSION_MAX: usize = 64;

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
pub enum ChatError {
    #[error("messages is empty")]
    NoMessages,
    #[error("the last message must be the user's")]
    NotUserLast,
    #[error("session must be 1-64 letters, digits, '-' or '_'")]
    BadSession,
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

    /// Check the request's shape: some messages, known roles, the user's last.
    pub fn validate(&self) -> Result<(), ChatError> {
        for m in &self.messages {
            if !matches!(
                m.role.as_str(),
                "system" | "developer" | "user" | "assistant" | "tool"
            ) {
                return Err(ChatError::BadRole(m.role.clone()));
            }
        }
        match self.messages.last() {
            None => Err(ChatError::NoMessages),
            Some(m) if m.role != "user" => Err(ChatError::NotUserLast),
            Some(_) => Ok(()),
        }
    }

    /// The latest message (the user's, after [`ChatRequest::validate`]).
    pub fn latest(&self) -> Option<&InMessage> {
        self.messages.last()
    }

    /// Generated tokens asked for: `max_completion_tokens`, else `max_tokens`, within `cap`.
    pub fn max_new_tokens(&self, default: u32, cap: u32) -> u32 {
        self.max_completion_tokens
            .or(self.max_tokens)
            .unwrap_or(default)
            .clamp(1, cap)
    }
}

/// The session a turn is logged to: the header, else the body's `session`, else one log per
/// day (`chat-YYYY-MM-DD`), so turns from clients that name no session still reach a pass.
pub fn session_name(
    header: Option<&str>,
    body: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, ChatError> {
    match header.or(body) {
        Some(name) => {
            let ok = !name.is_empty()
                && name.len() <= SESSION_MAX
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if ok {
                Ok(name.to_string())
            } else {
                Err(ChatError::BadSession)
            }
        }
        None => Ok(format!("chat-{}", now.format("%Y-%m-%d"))),
    }
}

/// The fact of a `/remember <fact>` message, if it is one (`None` for anything else; an empty
/// fact is `Some("")`, which the caller refuses).
pub fn remember_command(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let rest = t.strip_prefix("/remember")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(rest.trim())
}

/// The prompt for the model: the request's messages with the recalled block added to the
/// system message (the first one, or a new one at the top). `developer` is sent as `system`.
pub fn prompt(messages: &[InMessage], block: &str) -> Vec<Message> {
    let mut out: Vec<Message> = messages
        .iter()
        .map(|m| Message {
            role: if m.role == "developer" {
                "system".into()
            } else {
                m.role.clone()
            },
            content: m.text(),
        })
        .collect();
    if block.is_empty() {
        return out;
    }
    match out.iter_mut().find(|m| m.role == "system") {
        Some(system) => {
            if !system.content.is_empty() {
                system.content.push_str("\n\n");
            }
            system.content.push_str(block);
        }
        None => out.insert(
            0,
            Message {
                role: "system".into(),
                content: block.to_string(),
            },
        ),
    }
    out
}

/// The lines one turn appends to its session log: the user's message and the reply. A chat
/// history quoted in the message is left out (it is not the user's words); a message that was
/// nothing else logs no turn.
pub fn log_lines(
    user: &InMessage,
    reply: &str,
    agent: Option<Agent>,
    now: DateTime<Utc>,
) -> Vec<Line> {
    let content = task_prompt::without_quoted_history(&user.text());
    if content.trim().is_empty() && !user.text().trim().is_empty() {
        return Vec::new();
    }
    let agent = agent.map(|a| match a {
        Agent::Chat => "chat".to_string(),
        Agent::Coder => "coder".to_string(),
    });
    vec![
        Line {
            ts: Some(now),
            role: "user".into(),
            content,
            origin: user.origin.clone(),
            agent: agent.clone(),
        },
        Line {
            ts: Some(now),
            role: "assistant".into(),
            content: reply.to_string(),
            origin: None,
            agent,
        },
    ]
}

/// Cut `text` at the first stop string; whether one was found.
pub fn cut_at_stop(text: &str, stops: &[String]) -> Option<usize> {
    stops.iter().filter_map(|s| text.find(s.as_str())).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(json: &str) -> ChatRequest {
        serde_json::from_str(json).unwrap()
    }

    fn now() -> DateTime<Utc> {
        "2026-11-30T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn openai_shapes_parse_and_unknown_fields_are_ignored() {
        let r = req(
            r#"{"model":"x","messages":[{"role":"system","content":"be brief"},
            {"role":"user","content":[{"type":"text","text":"hello"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"there"}]}],
            "stop":"\n\n","max_completion_tokens":9,"max_tokens":100,"stream":true,
            "stream_options":{"include_usage":true},"logprobs":false,"n":1}"#,
        );
        r.validate().unwrap();
        assert_eq!(r.messages[1].text(), "hello\nthere");
        assert_eq!(r.max_new_tokens(256, 2048), 9);
        assert_eq!(r.stop.unwrap().strings(), vec!["\n\n"]);
        assert!(r.stream && r.stream_options.unwrap().include_usage);
        let r = req(r#"{"messages":[{"role":"user","content":null}],"stop":["a","","b"]}"#);
        assert_eq!(r.messages[0].text(), "");
        assert_eq!(r.stop.unwrap().strings(), vec!["a", "b"]);
    }

    #[test]
    fn malformed_requests_are_refused() {
        assert_eq!(
            req(r#"{"messages":[]}"#).validate(),
            Err(ChatError::NoMessages)
        );
        assert_eq!(
            req(
                r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}"#
            )
            .validate(),
            Err(ChatError::NotUserLast)
        );
        assert!(matches!(
            req(r#"{"messages":[{"role":"wizard","content":"a"}]}"#).validate(),
            Err(ChatError::BadRole(_))
        ));
    }

    #[test]
    fn sessions_are_named_by_header_then_body_then_day() {
        assert_eq!(session_name(Some("a-1"), Some("b"), now()).unwrap(), "a-1");
        assert_eq!(session_name(None, Some("b_2"), now()).unwrap(), "b_2");
        assert_eq!(session_name(None, None, now()).unwrap(), "chat-2026-11-30");
        for bad in ["../x", "", "a b", "x.jsonl", &"a".repeat(65)] {
            assert_eq!(
                session_name(Some(bad), None, now()),
                Err(ChatError::BadSession),
                "{bad}"
            );
        }
    }

    #[test]
    fn remember_is_a_command_only_at_the_start() {
        assert_eq!(
            remember_command("/remember I moved to Leith"),
            Some("I moved to Leith")
        );
        assert_eq!(remember_command("  /remember   x  "), Some("x"));
        assert_eq!(remember_command("/remember"), Some(""));
        assert_eq!(remember_command("/remembering"), None);
        assert_eq!(remember_command("please /remember x"), None);
    }

    #[test]
    fn the_block_joins_the_system_message_or_leads_a_new_one() {
        let r = req(
            r#"{"messages":[{"role":"developer","content":"be brief"},{"role":"user","content":"hi"}]}"#,
        );
        let p = prompt(&r.messages, "BLOCK");
        assert_eq!(p[0].role, "system");
        assert_eq!(p[0].content, "be brief\n\nBLOCK");
        let r = req(r#"{"messages":[{"role":"user","content":"hi"}]}"#);
        let p = prompt(&r.messages, "BLOCK");
        assert_eq!(
            (p[0].role.as_str(), p[0].content.as_str()),
            ("system", "BLOCK")
        );
        assert_eq!(p.len(), 2);
        assert_eq!(prompt(&r.messages, "").len(), 1);
    }

    #[test]
    fn a_turn_logs_the_user_message_and_the_reply() {
        let r = req(r#"{"messages":[{"role":"user","content":"page text","origin":"tool"}]}"#);
        let lines = log_lines(&r.messages[0], "ok", None, now());
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].origin.as_deref(), Some("tool"));
        assert!(!lines[0].is_typed_by_user());
        assert_eq!(lines[1].role, "assistant");
        assert_eq!(lines[1].content, "ok");
    }

    #[test]
    fn stop_strings_cut_at_the_earliest() {
        let stops = vec!["END".to_string(), "\n\n".to_string()];
        assert_eq!(cut_at_stop("abc\n\ndefEND", &stops), Some(3));
        assert_eq!(cut_at_stop("abc", &stops), None);
    }
}
