//! Which session log a turn goes to: one per conversation, not per day. The explicit session
//! (`X-Localm-Session`, or the body's `session`) wins; then the app's own conversation id
//! (Open WebUI's `X-OpenWebUI-Chat-Id`, a `metadata` conversation id); else a name derived
//! from the conversation itself: every request of one conversation repeats its opening, the
//! first user message and the first reply to it, so a hash of those, the model and the OpenAI
//! `user` names one log. Two chats that open with the same words differ by their first reply;
//! a conversation's first turn, which has no reply yet, is named once its reply is known
//! ([`Conversation::Opening`]).
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

/// The session log a turn goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conversation {
    /// Named now.
    Named(String),
    /// A derived conversation's first turn: named by its opening and the reply this turn gets.
    Opening {
        first: String,
        model: String,
        user: String,
    },
}

impl Conversation {
    /// The log's name, `reply` being this turn's reply (what the client will send back as the
    /// conversation's first reply).
    pub fn name(&self, reply: &str) -> String {
        match self {
            Conversation::Named(name) => name.clone(),
            Conversation::Opening { first, model, user } => derived(first, reply, model, user),
        }
    }
}

/// `conv-<hash>` of a conversation's opening (whitespace-normalised), the model and the user.
fn derived(first: &str, first_reply: &str, model: &str, user: &str) -> String {
    format!(
        "conv-{}",
        hash(&[first, &normalised(first_reply), model, user])
    )
}

fn normalised(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The session of this turn. An explicit name that is not a valid session name is refused; an
/// app id is used as `app-<id>` when it is one, else hashed (`app-<hash>`); with no user
/// message at all, the day's log (`chat-YYYY-MM-DD`).
pub fn session_for(
    hints: &Hints<'_>,
    messages: &[ChatMessage],
    now: DateTime<Utc>,
) -> Result<Conversation, ChatError> {
    if hints.header.is_some() || hints.body.is_some() {
        return session_name(hints.header, hints.body, now).map(Conversation::Named);
    }
    if let Some(id) = hints.app_id.map(str::trim).filter(|s| !s.is_empty()) {
        let name = format!("app-{id}");
        return Ok(Conversation::Named(if valid(&name) {
            name
        } else {
            format!("app-{}", hash(&[id]))
        }));
    }
    let Some((first, at)) = first_user_message_at(messages) else {
        return session_name(None, None, now).map(Conversation::Named);
    };
    let (model, user) = (hints.model.unwrap_or(""), hints.user.unwrap_or(""));
    let first_reply = messages[at..].iter().find(|m| m.role == "assistant");
    Ok(match first_reply {
        Some(reply) => Conversation::Named(derived(&first, &reply.content, model, user)),
        None => Conversation::Opening {
            first,
            model: model.to_string(),
            user: user.to_string(),
        },
    })
}

/// The conversation's first typed user message, whitespace-normalised, if it has one.
pub fn first_user_message(messages: &[ChatMessage]) -> Option<String> {
    first_user_message_at(messages).map(|(text, _)| text)
}

/// [`first_user_message`] and its index in `messages`.
fn first_user_message_at(messages: &[ChatMessage]) -> Option<(String, usize)> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == "user" && m.origin.is_none())
        .map(|(i, m)| (normalised(&without_quoted_history(&m.content)), i))
        .find(|(t, _)| !t.is_empty())
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
        // The first turn is named by the reply it gets ("Nice!"), which the next turns repeat.
        let a = session_for(&hints("a"), &turn1, now())
            .unwrap()
            .name("Nice!");
        assert!(a.starts_with("conv-") && a.len() == 21, "{a}");
        assert_eq!(
            session_for(&hints("a"), &turn3, now()).unwrap().name("x"),
            a
        );
        // Another first message, another model or another user: another log.
        let other = vec![msg("user", "What is my name?")];
        let named =
            |h: &Hints<'_>, m: &[ChatMessage]| session_for(h, m, now()).unwrap().name("Nice!");
        assert_ne!(named(&hints("a"), &other), a);
        assert_ne!(named(&hints("b"), &turn1), a);
        let h = Hints {
            user: Some("u-2"),
            ..hints("a")
        };
        assert_ne!(named(&h, &turn1), a);
    }

    #[test]
    fn two_chats_that_open_alike_are_two_logs() {
        let opening = |reply: &str, next: &str| {
            vec![
                msg("user", "hi"),
                msg("assistant", reply),
                msg("user", next),
            ]
        };
        let a = session_for(
            &hints("a"),
            &opening("Hello! How can I help?", "I like tea"),
            now(),
        );
        let b = session_for(&hints("a"), &opening("Hey there.", "I like coffee"), now());
        assert_ne!(a.unwrap().name(""), b.unwrap().name(""));
        // Each chat's first turn is named by the reply it got: the same log as its next turns.
        let first = session_for(&hints("a"), &[msg("user", "hi")], now()).unwrap();
        let a_next = session_for(&hints("a"), &opening("Hello! How can I help?", "x"), now());
        assert_eq!(
            first.name("Hello!  How can I help?"),
            a_next.unwrap().name("")
        );
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
        let named = |h: &Hints<'_>| session_for(h, &m, now()).map(|c| c.name(""));
        assert_eq!(named(&h).unwrap(), "mine");
        let h = Hints {
            body: Some("../x"),
            ..Hints::default()
        };
        assert_eq!(named(&h), Err(ChatError::BadSession));
        let uuid = "0b8e8c4e-4a57-4c1c-9a49-2b1f6f3d9e10";
        let h = Hints {
            app_id: Some(uuid),
            ..Hints::default()
        };
        assert_eq!(named(&h).unwrap(), format!("app-{uuid}"));
        // An id that is no file name is hashed, never refused.
        let h = Hints {
            app_id: Some("chat/../1 2"),
            ..Hints::default()
        };
        let name = named(&h).unwrap();
        assert!(name.starts_with("app-") && valid(&name), "{name}");
        assert_eq!(
            session_for(&Hints::default(), &[msg("system", "x")], now())
                .unwrap()
                .name(""),
            "chat-2026-11-30"
        );
    }
}
