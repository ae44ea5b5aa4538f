//! Long chats fit the context: when the prompt and the reply it asks for would pass the
//! context, the oldest turns are dropped (a turn: a user message and what follows it up to the
//! next one), keeping every system message (the recall block is in the first) and the latest
//! turn; the reply is then capped to the room left. Only a request whose system messages and
//! latest turn leave less than [`MIN_REPLY`] tokens is refused. Tokens are counted by the
//! caller (the chat worker, with the model's own tokenizer and chat template).

use crate::models::Message;

/// The fewest reply tokens a fitted prompt must leave room for.
pub const MIN_REPLY: u32 = 16;

/// The prompt that fits, and the reply's cap.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub messages: Vec<Message>,
    /// Turns dropped from the start.
    pub dropped_turns: usize,
    pub prompt_tokens: usize,
    /// At most the request's, at most the room left.
    pub max_tokens: u32,
}

/// Why a prompt cannot fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    #[error(
        "this model's context is {context} tokens; the system messages and the latest message alone take {prompt} tokens, leaving no room for a reply (at least {MIN_REPLY}): shorten the message"
    )]
    TooLong { prompt: usize, context: u32 },
    #[error("counting the prompt's tokens: {0}")]
    Count(String),
}

/// Fit `messages` into `context` tokens with room for a reply of up to `max_tokens`
/// (dropping oldest turns while the reply would get less than `max_tokens`, or a quarter of the
/// context if that is less). `count` gives a list's prompt tokens.
pub fn fit<E: std::fmt::Display>(
    messages: &[Message],
    context: u32,
    max_tokens: u32,
    mut count: impl FnMut(&[Message]) -> Result<usize, E>,
) -> Result<Fitted, FitError> {
    let mut count = |m: &[Message]| count(m).map_err(|e| FitError::Count(e.to_string()));
    let context_n = context as usize;
    let want = max_tokens.min(context / 4).max(MIN_REPLY.min(max_tokens)) as usize;
    let turns = turn_of_each(messages);
    let last_turn = turns.iter().copied().max().unwrap_or(0);
    let mut first = 0usize;
    loop {
        let kept: Vec<Message> = messages
            .iter()
            .zip(&turns)
            .filter(|(m, t)| m.role == "system" || **t >= first)
            .map(|(m, _)| m.clone())
            .collect();
        let prompt = count(&kept)?;
        let fits = prompt + want <= context_n;
        if fits || first >= last_turn {
            let room = context_n.saturating_sub(prompt);
            if room < MIN_REPLY.min(max_tokens).max(1) as usize {
                return Err(FitError::TooLong { prompt, context });
            }
            return Ok(Fitted {
                messages: kept,
                dropped_turns: first,
                prompt_tokens: prompt,
                max_tokens: max_tokens.min(u32::try_from(room).unwrap_or(u32::MAX)),
            });
        }
        first += 1;
    }
}

/// For each message, its turn: 0 before the first user message, then +1 at each user message.
/// System messages get a turn too but are never dropped.
fn turn_of_each(messages: &[Message]) -> Vec<usize> {
    let mut turn = 0usize;
    let mut seen_user = false;
    messages
        .iter()
        .map(|m| {
            if m.role == "user" {
                if seen_user {
                    turn += 1;
                }
                seen_user = true;
            }
            turn
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    /// One token a word, plus 3 a message (a template's markers).
    fn words(ms: &[Message]) -> Result<usize, std::convert::Infallible> {
        Ok(ms
            .iter()
            .map(|m| 3 + m.content.split_whitespace().count())
            .sum())
    }

    fn chat(turns: usize, words_each: usize) -> Vec<Message> {
        let text = vec!["w"; words_each].join(" ");
        let mut out = vec![m("system", "memory block")];
        for i in 0..turns {
            out.push(m("user", &format!("turn{i} {text}")));
            out.push(m("assistant", &text));
        }
        out.push(m("user", "latest"));
        out
    }

    #[test]
    fn a_prompt_that_fits_is_untouched() {
        let c = chat(2, 5);
        let f = fit(&c, 512, 100, words).unwrap();
        assert_eq!(f.messages, c);
        assert_eq!(f.dropped_turns, 0);
        assert_eq!(f.max_tokens, 100);
    }

    #[test]
    fn oldest_turns_go_first_and_system_and_latest_stay() {
        // 20 turns of ~2 x 25 tokens: ~1,000 tokens into 256.
        let c = chat(20, 20);
        let f = fit(&c, 256, 64, words).unwrap();
        assert!(f.dropped_turns > 0);
        assert_eq!(f.messages[0], m("system", "memory block"));
        assert_eq!(f.messages.last(), Some(&m("user", "latest")));
        // What is kept is the newest turns, in order, whole (user then assistant).
        assert!(
            f.messages[1]
                .content
                .starts_with(&format!("turn{}", f.dropped_turns))
        );
        assert_eq!(f.messages[1].role, "user");
        assert!(f.prompt_tokens + 64 <= 256, "{f:?}");
        assert_eq!(f.prompt_tokens, words(&f.messages).unwrap());
        // Keeping one more turn would not have left the reply its room.
        let one_more = fit(&c, 256 + 60, 64, words).unwrap();
        assert!(one_more.dropped_turns < f.dropped_turns);
    }

    #[test]
    fn the_reply_is_capped_to_the_room_left() {
        // System and latest take 3+2 + 3+40 = 48 of 64: 16 left, less than asked.
        let long = vec!["w"; 40].join(" ");
        let c = vec![m("system", "memory block"), m("user", &long)];
        let f = fit(&c, 64, 512, words).unwrap();
        assert_eq!(f.max_tokens, 16);
    }

    #[test]
    fn a_latest_message_too_long_alone_is_refused() {
        let long = vec!["w"; 600].join(" ");
        let c = vec![m("system", "s"), m("user", "old"), m("user", &long)];
        let e = fit(&c, 512, 64, words).unwrap_err();
        assert_eq!(
            e,
            FitError::TooLong {
                prompt: 4 + 603,
                context: 512
            }
        );
        assert!(e.to_string().contains("512 tokens"), "{e}");
        let e = fit(&c, 512, 64, |_| Err::<usize, _>("no tokenizer")).unwrap_err();
        assert!(matches!(e, FitError::Count(_)));
    }
}
