//! Episodic capture: which sessions get their one-line summary this pass — untouched for 15
//! minutes, not yet summarised (watermarked), with at least 3 distinct content words typed by the
//! user; at most 5 per pass, newest first. The summary by rule, when the model's line fails the
//! guards, is `summary`'s.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};

use crate::recall::lexical::content_words;
use crate::session::Session;
use crate::store::state::State;

/// A session must be untouched this long before it is summarised.
pub const QUIET_MINUTES: i64 = 15;
/// Sessions summarised per pass at most.
pub const PER_PASS: usize = 5;
/// Distinct content words the user must have typed for a summary.
pub const MIN_WORDS: usize = 3;

/// Distinct content words in the user's typed messages.
pub fn user_words(s: &Session) -> HashSet<String> {
    s.lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .flat_map(|l| content_words(&l.content))
        .collect()
}

/// The sessions to summarise now (`sessions` newest first).
pub fn due<'s>(sessions: &'s [Session], state: &State, now: DateTime<Utc>) -> Vec<&'s Session> {
    sessions
        .iter()
        .filter(|s| now - s.modified >= Duration::minutes(QUIET_MINUTES))
        .filter(|s| {
            state
                .sessions
                .get(&s.id)
                .is_none_or(|m| m.summarised_at.is_none())
        })
        .filter(|s| user_words(s).len() >= MIN_WORDS)
        .take(PER_PASS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse;
    use crate::store::state::SessionMark;

    fn session(id: &str, modified: &str, user_text: &str) -> Session {
        let text = format!(
            "{{\"role\":\"user\",\"content\":{}}}\n",
            serde_json::to_string(user_text).unwrap()
        );
        let (lines, _) = parse(&text);
        Session {
            id: id.into(),
            path: format!("{id}.jsonl").into(),
            modified: modified.parse().unwrap(),
            lines,
            numbers: Vec::new(),
            skipped: 0,
            ..Session::default()
        }
    }

    #[test]
    fn quiet_unsummarised_wordy_sessions_at_most_five() {
        let now: DateTime<Utc> = "2026-03-01T12:00:00Z".parse().unwrap();
        let mut sessions = vec![
            session(
                "fresh",
                "2026-03-01T11:50:00Z",
                "debugging the flaky upload test",
            ),
            session("short", "2026-03-01T10:00:00Z", "hi there ok"),
            session(
                "done",
                "2026-03-01T10:00:00Z",
                "debugging the flaky upload test",
            ),
        ];
        for i in 0..7 {
            sessions.push(session(
                &format!("s{i}"),
                "2026-03-01T09:00:00Z",
                "planning a hiking trip north",
            ));
        }
        let mut state = State::default();
        state.sessions.insert(
            "done".into(),
            SessionMark {
                lines_read: 1,
                summarised_at: Some(now),
                set_aside: None,
            },
        );
        let due: Vec<&str> = due(&sessions, &state, now)
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(due, vec!["s0", "s1", "s2", "s3", "s4"]);
    }
}
