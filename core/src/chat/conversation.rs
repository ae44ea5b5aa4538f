//! Which session log a turn goes to: one per conversation, not per day. The explicit session
//! (`X-Localm-Session`, or the body's `session`) wins; then the app's own conversation id
//! (Open WebUI's `X-OpenWebUI-Chat-Id`, a `metadata` conversation id); else a name derived
//! from the conversation itself: every request of one conversation repeats its first user
//! message, so a hash of that message, the model and the OpenAI `user` names one log.
//!
//! "First user message" is the first `user` message the user typed: system and developer
//! messages (an app's own instructions, tools, dates, retrieved documents, which change between
//! requests) and messages marked with an `origin` do not count, nor does text in a quoted chat
//! history; only text parts count (not images).

use chrono::{DateTime, Utc};

use super::task_prompt::without_quoted_history;
use super::{ChatError, SESSION_MAX, session_name};
use crate::message::ChatMessage;

/// What a request says about its conversation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hints<'a> {
    /// `X-Localm-Session`.
    pub header: Option<&'a str>,
    /// The body's `session`.
    pub body: Option<&'a str>,
    /// The app's conversation id: `X-OpenWebUI-Chat-Id`, or `metadata.conversation_id` /
    /// `metadata.chat_id` / `metadata.session_id`.
    pub app_id: Option<&'a str>,
    /// The OpenAI `user` field (who, not which conversation: it only separates derived names).
    pub user: Option<&'a str>,
    /// The model asked for.
    pub model: Option<&'a str>,
}

/// The session of this turn. An explicit name that is not a valid session name is refused; an
/// app id is used as `app-<id>` when it is one, else hashed (`app-<hash>`); with no user
/// message at all, the day's log (`chat-YYYY-MM-DD`).
pub fn session_for(
    hints: &Hints<'_>,
    messages: &[ChatMessage],
    now: DateTime<Utc>,
) -> Result<String, ChatError> {
    if hints.header.is_some() || hints.body.is_some() {
        return session_name(hints.header, hints.body, now);
    }
    if let Some(id) = hints.app_id.map(str::trim).filter(|s| !s.is_empty()) {
        let name = format!("app-{id}");
        return Ok(if valid(&name) {
            name
        } else {
            format!("app-{}", hash(&[id]))
        });
    }
    match first_user_message(messages) {
        Some(first) => Ok(format!(
            "conv-{}",
            hash(&[&first, hints.model.unwrap_or(""), hints.user.unwrap_or("")])
        )),
        None => session_name(None, None, now),
    }
}

/// The conversation's first typed user message, whitespace-normalised, if it has one.
pub fn first_user_message(messages: &[ChatMessage]) -> Option<String> {
    messages
        .iter()
        .filter(|m| m.role == "user" && m.origin.is_none())
        .map(|m| {
            without_quoted_history(&m.content)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .find(|t| !t.is_empty())
}

fn valid(name: &str) -> bool {
    name.len() <= SESSION_MAX
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// 64 bits of FNV-1a over the parts (each followed by a 0 byte), as 16 hex digits.
fn hash(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-11-30T10:00:00Z".parse().unwrap()
    }

    fn msg(role: &str, content: &str) -> ChatMessage {
        ChatMessage {
            role: role.into(),
            content: content.into(),
            origin: None,
        }
    }

    fn hints(model: &str) -> Hints<'static> {
        Hints {
            model: Some(if model == "a" { "a" } else { "b" }),
            ..Hints::default()
        }
    }

    #[test]
    fn one_conversation_keeps_one_name_as_it_grows() {
        let turn1 = vec![
            msg("system", "Today is Monday."),
            msg("user", "I moved to Leith"),
        ];
        let turn3 = vec![
            // The app's system prompt changed (a date, tools, retrieved text): still the same.
            msg("system", "Today is Tuesday. Tools: search_web"),
            msg("user", "I moved   to Leith\n"),
            msg("assistant", "Nice!"),
            msg("user", "Where should I eat?"),
        ];
        let a = session_for(&hints("a"), &turn1, now()).unwrap();
        assert!(a.starts_with("conv-") && a.len() == 21, "{a}");
        assert_eq!(session_for(&hints("a"), &turn3, now()).unwrap(), a);
        // Another first message, another model or another user: another log.
        let other = vec![msg("user", "What is my name?")];
        assert_ne!(session_for(&hints("a"), &other, now()).unwrap(), a);
        assert_ne!(session_for(&hints("b"), &turn1, now()).unwrap(), a);
        let h = Hints {
            user: Some("u-2"),
            ..hints("a")
        };
        assert_ne!(session_for(&h, &turn1, now()).unwrap(), a);
    }

    #[test]
    fn marked_and_quoted_text_is_not_the_first_message() {
        let mut page = msg("user", "page text");
        page.origin = Some("tool".into());
        let m = vec![
            page,
            msg("user", "<chat_history>USER: x</chat_history>"),
            msg("user", "hello"),
        ];
        assert_eq!(first_user_message(&m).as_deref(), Some("hello"));
        assert_eq!(first_user_message(&[msg("system", "x")]), None);
    }

    #[test]
    fn explicit_then_app_id_then_derived_then_day() {
        let m = vec![msg("user", "hi")];
        let h = Hints {
            header: Some("mine"),
            app_id: Some("3f2a"),
            ..Hints::default()
        };
        assert_eq!(session_for(&h, &m, now()).unwrap(), "mine");
        let h = Hints {
            body: Some("../x"),
            ..Hints::default()
        };
        assert_eq!(session_for(&h, &m, now()), Err(ChatError::BadSession));
        let uuid = "0b8e8c4e-4a57-4c1c-9a49-2b1f6f3d9e10";
        let h = Hints {
            app_id: Some(uuid),
            ..Hints::default()
        };
        assert_eq!(session_for(&h, &m, now()).unwrap(), format!("app-{uuid}"));
        // An id that is no file name is hashed, never refused.
        let h = Hints {
            app_id: Some("chat/../1 2"),
            ..Hints::default()
        };
        let name = session_for(&h, &m, now()).unwrap();
        assert!(name.starts_with("app-") && valid(&name), "{name}");
        assert_eq!(
            session_for(&Hints::default(), &[msg("system", "x")], now()).unwrap(),
            "chat-2026-11-30"
        );
    }
}
