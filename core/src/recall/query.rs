//! The recall query: the latest user message plus a short window of prior user turns. Messages
//! the client marks with an `origin` (tool output, the GUI's own prompts) are left out; when the
//! latest message carries one, or is a chat app's own task prompt (title, tags, follow-ups…:
//! `chat::task_prompt`), or the request is the coder agent's, there is no recall at all. A chat
//! history quoted inside a message is not searched with.

use crate::chat::task_prompt::without_quoted_history;
/// The message types live in `message` (below both chat and recall); named here too, where
/// recall's callers have always found them.
pub use crate::message::{Agent, ChatMessage};

/// Prior user turns added to the latest message.
pub const PRIOR_TURNS: usize = 2;
/// At most this many characters of prior turns.
pub const PRIOR_CHARS: usize = 600;
/// A latest message of fewer words than this, after earlier turns, is a follow-up ("yes, do
/// that", "which strings suit it?", "它几岁了？"): its topic is in the turns before it.
pub const FOLLOW_UP_WORDS: usize = 4;

/// What recall searches with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The latest user message alone (for the first-person fallback).
    pub latest: String,
    /// The latest message followed by the prior window, newest first.
    pub text: String,
}

impl Query {
    /// A query of one message, with no earlier turns.
    pub fn alone(text: &str) -> Query {
        Query {
            latest: text.to_string(),
            text: text.to_string(),
        }
    }

    /// Whether the latest message is a follow-up: earlier turns, and fewer than
    /// [`FOLLOW_UP_WORDS`] words of its own.
    pub fn is_follow_up(&self) -> bool {
        self.text != self.latest && said_words(&self.latest) < FOLLOW_UP_WORDS
    }
}

/// How many words `text` says, counted in its own script: its content words where words are
/// spaced; in Chinese and Japanese, whose content words are overlapping two-letter pieces, half
/// its letters (a word there is one or two letters); in Korean, whose words take endings and
/// are matched by pieces too, its spaced words that are no reader's grammar word.
fn said_words(text: &str) -> usize {
    use crate::language::{Lang, by_script, reader};
    match by_script(text) {
        Some(Lang::Chinese | Lang::Japanese) => {
            text.chars().filter(|c| c.is_alphanumeric()).count() / 2
        }
        Some(Lang::Korean) => crate::words::tokens(text)
            .iter()
            .filter(|w| !reader::is_grammar(w))
            .count(),
        _ => crate::language::content_words(text).len(),
    }
}

/// Build the query, or `None` when this turn gets no recall.
pub fn build_query(messages: &[ChatMessage], agent: Agent) -> Option<Query> {
    if agent == Agent::Coder {
        return None;
    }
    if crate::chat::task_prompt::app_task(messages).is_some() {
        return None;
    }
    let mut users = messages.iter().rev().filter(|m| m.role == "user");
    let latest = users.next()?;
    let latest_text = without_quoted_history(&latest.content);
    if latest.origin.is_some() || latest_text.trim().is_empty() {
        return None;
    }
    let mut text = latest_text.trim().to_string();
    let mut budget = PRIOR_CHARS;
    for prior in users.filter(|m| m.origin.is_none()).take(PRIOR_TURNS) {
        let prior = without_quoted_history(&prior.content);
        let t = prior.trim();
        if t.is_empty() || budget == 0 {
            continue;
        }
        let cut: String = t.chars().take(budget).collect();
        budget = budget.saturating_sub(cut.chars().count());
        text.push('\n');
        text.push_str(&cut);
    }
    Some(Query {
        latest: latest_text.trim().to_string(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str, origin: Option<&str>) -> ChatMessage {
        ChatMessage {
            role: role.into(),
            content: content.into(),
            origin: origin.map(str::to_string),
        }
    }

    #[test]
    fn latest_plus_prior_user_turns_newest_first() {
        let m = vec![
            msg("user", "first", None),
            msg("assistant", "reply", None),
            msg("user", "second", None),
            msg("user", "third", None),
            msg("user", "yes, do that", None),
        ];
        let q = build_query(&m, Agent::Chat).unwrap();
        assert_eq!(q.latest, "yes, do that");
        assert_eq!(q.text, "yes, do that\nthird\nsecond");
    }

    #[test]
    fn origin_marked_messages_are_left_out() {
        let m = vec![
            msg("user", "printer firmware", None),
            msg("user", "page text about cooking", Some("tool")),
            msg("user", "what next?", None),
        ];
        assert_eq!(
            build_query(&m, Agent::Chat).unwrap().text,
            "what next?\nprinter firmware"
        );
    }

    #[test]
    fn no_recall_for_origin_latest_coder_or_no_user_message() {
        let m = vec![
            msg("user", "hello", None),
            msg("user", "Summarise this chat", Some("client")),
        ];
        assert_eq!(build_query(&m, Agent::Chat), None);
        assert_eq!(build_query(&[msg("user", "hi", None)], Agent::Coder), None);
        assert_eq!(build_query(&[msg("system", "x", None)], Agent::Chat), None);
        assert_eq!(build_query(&[], Agent::Chat), None);
    }

    #[test]
    fn app_task_prompts_get_no_recall_and_quoted_history_is_not_searched() {
        let title = "### Task:\nGenerate a concise title summarizing the chat history.\n### Chat History:\n\
                     <chat_history>\nUSER: I adopted a dog called Biscuit\nASSISTANT: Lovely\n</chat_history>";
        let m = vec![
            msg("user", "I adopted a dog", None),
            msg("user", title, None),
        ];
        assert_eq!(build_query(&m, Agent::Chat), None);
        let m = vec![msg(
            "user",
            "what about this? <chat_history>USER: Biscuit</chat_history>",
            None,
        )];
        assert_eq!(
            build_query(&m, Agent::Chat).unwrap().text,
            "what about this?"
        );
    }

    #[test]
    fn a_short_latest_message_after_earlier_turns_is_a_follow_up_in_any_script() {
        let q = |prior: &str, latest: &str| {
            build_query(
                &[msg("user", prior, None), msg("user", latest, None)],
                Agent::Chat,
            )
            .unwrap()
        };
        for (prior, latest) in [
            ("Can you plan my Lisbon trip for May?", "yes, do that"),
            (
                "I'm looking for a new bass guitar",
                "which strings suit it?",
            ),
            (
                "Mon chat dort toute la journée",
                "Et il a quel âge maintenant ?",
            ),
            ("我的猫最近总是睡觉", "它几岁了？"),
            ("我儿子开始上学了", "他适应得怎么样？"),
            ("明日、犬を病院に連れて行きます", "何歳ですか？"),
            ("내일 강아지를 병원에 데려가요", "몇 살이에요?"),
        ] {
            assert!(q(prior, latest).is_follow_up(), "{latest}");
        }
        assert!(!Query::alone("yes, do that").is_follow_up());
        for latest in [
            "which tool do I prefer for project 17?",
            "我的猫叫什么名字，它喜欢吃什么？",
            "学校の近くでおすすめのレストランを教えてください",
        ] {
            assert!(!q("earlier", latest).is_follow_up(), "{latest}");
        }
    }

    #[test]
    fn prior_window_is_bounded() {
        let long = "x".repeat(5000);
        let m = vec![msg("user", &long, None), msg("user", "now", None)];
        assert_eq!(
            build_query(&m, Agent::Chat).unwrap().text.len(),
            4 + PRIOR_CHARS
        );
    }
}
