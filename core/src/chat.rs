//! The chat turn's rules, apart from HTTP, OpenAI's wire shapes (the daemon's
//! `service/api/chat/openai.rs`) and the model: which session a turn is logged to, `/remember`, where the recalled block goes in the prompt,
//! and the lines a turn appends to its session log.

pub mod conversation;
pub mod fit;
pub mod json_format;
pub mod task_prompt;

use crate::message::Agent;
use crate::models::Message;
use crate::session::Line;
use chrono::{DateTime, Utc};

/// A session name: what `sessions/<name>.jsonl` is called.
pub const SESSION_MAX: usize = 64;

/// Why a session name is refused (a 400, with this message).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    #[error("session must be 1-64 letters, digits, '-' or '_'")]
    BadSession,
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

/// Which message recall's block joins: the first system (or developer) message, or `None`
/// for a new system message at the top.
pub fn block_target<'a>(roles: impl IntoIterator<Item = &'a str>) -> Option<usize> {
    roles
        .into_iter()
        .position(|r| r == "system" || r == "developer")
}

/// A system message's text with the block after it (a blank line between).
pub fn with_block(system: &str, block: &str) -> String {
    if system.is_empty() {
        block.to_string()
    } else {
        format!("{system}\n\n{block}")
    }
}

/// The prompt for the model: the request's messages with the recalled block added to the
/// system message ([`block_target`]). `developer` is sent as `system`.
pub fn prompt(messages: &[Message], block: &str) -> Vec<Message> {
    let mut out: Vec<Message> = messages
        .iter()
        .map(|m| Message {
            role: if m.role == "developer" {
                "system".into()
            } else {
                m.role.clone()
            },
            content: m.content.clone(),
        })
        .collect();
    if block.is_empty() {
        return out;
    }
    match block_target(messages.iter().map(|m| m.role.as_str())) {
        Some(i) => out[i].content = with_block(&out[i].content, block),
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

/// The lines one turn appends to its session log: the user's message (its text and origin)
/// and the reply. A turn with no new user message (it answers a tool result, or continues the
/// assistant's) logs only its reply, and nothing if that is empty: the user's words are
/// logged once, with the turn they started. A chat history quoted in the message is left out
/// (it is not the user's words); a message that was nothing else logs no turn.
pub fn log_lines(
    user: Option<(&str, Option<&str>)>,
    reply: &str,
    agent: Option<Agent>,
    now: DateTime<Utc>,
) -> Vec<Line> {
    let agent = agent.map(|a| match a {
        Agent::Chat => "chat".to_string(),
        Agent::Coder => "coder".to_string(),
    });
    let mut lines = Vec::new();
    if let Some((text, origin)) = user {
        let content = task_prompt::without_quoted_history(text);
        if content.trim().is_empty() && !text.trim().is_empty() {
            return lines;
        }
        lines.push(Line {
            ts: Some(now),
            role: "user".into(),
            content,
            origin: origin.map(str::to_string),
            agent: agent.clone(),
        });
    } else if reply.is_empty() {
        return lines;
    }
    lines.push(Line {
        ts: Some(now),
        role: "assistant".into(),
        content: reply.to_string(),
        origin: None,
        agent,
    });
    lines
}

/// Cut `text` at the first stop string; whether one was found.
pub fn cut_at_stop(text: &str, stops: &[String]) -> Option<usize> {
    stops.iter().filter_map(|s| text.find(s.as_str())).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-11-30T10:00:00Z".parse().unwrap()
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

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    #[test]
    fn the_block_joins_the_system_message_or_leads_a_new_one() {
        let p = prompt(&[msg("developer", "be brief"), msg("user", "hi")], "BLOCK");
        assert_eq!(p[0].role, "system");
        assert_eq!(p[0].content, "be brief\n\nBLOCK");
        let one = [msg("user", "hi")];
        let p = prompt(&one, "BLOCK");
        assert_eq!(
            (p[0].role.as_str(), p[0].content.as_str()),
            ("system", "BLOCK")
        );
        assert_eq!(p.len(), 2);
        assert_eq!(prompt(&one, "").len(), 1);
        let later = [msg("user", "hi"), msg("system", "")];
        assert_eq!(prompt(&later, "BLOCK")[1].content, "BLOCK");
        assert_eq!(block_target(["user", "tool"]), None);
        assert_eq!(block_target(["user", "developer", "system"]), Some(1));
    }

    #[test]
    fn a_turn_logs_the_user_message_and_the_reply() {
        let lines = log_lines(Some(("page text", Some("tool"))), "ok", None, now());
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].origin.as_deref(), Some("tool"));
        assert!(!lines[0].is_typed_by_user());
        assert_eq!(lines[1].role, "assistant");
        assert_eq!(lines[1].content, "ok");
        // A reply to a tool result: the reply alone; an empty one, nothing.
        let lines = log_lines(None, "It is 12 degrees", None, now());
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].role, "assistant");
        assert!(log_lines(None, "", None, now()).is_empty());
    }

    #[test]
    fn stop_strings_cut_at_the_earliest() {
        let stops = vec!["END".to_string(), "\n\n".to_string()];
        assert_eq!(cut_at_stop("abc\n\ndefEND", &stops), Some(3));
        assert_eq!(cut_at_stop("abc", &stops), None);
    }
}
