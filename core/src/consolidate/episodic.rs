//! Episodic capture: which sessions get their one-line summary this pass — untouched for 15
//! minutes, not yet summarised (watermarked), with at least 3 distinct content words typed by the
//! user; at most 5 per pass, newest first — and the summary built by rule ("Talked about chess,
//! dogs and baking") when the model's line fails the guards.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};

use super::lexicon::{BEFORE_A_THING, NOT_TOPICS};
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

/// Topics of a session summary by rule, at most this many.
const TOPICS: usize = 3;

/// A one-line summary of `s` by rule, from what the user typed: "Asked about …" when the user
/// opened with a question, else "Talked about …", with the words the user used most (a word
/// after an article, a possessive or a preposition counting twice), in the order first used. `None` with fewer than 2 topics.
pub fn by_rule(s: &Session) -> Option<String> {
    let typed: Vec<&str> = s
        .lines
        .iter()
        .filter(|l| l.is_typed_by_user())
        .map(|l| l.content.as_str())
        .collect();
    let first = typed.first()?;
    let mut seen: Vec<(String, String, usize)> = Vec::new(); // (root, surface, count)
    let surface = typed.iter().flat_map(|t| {
        t.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
            .filter(|w| !w.is_empty())
    });
    let mut after_thing = false;
    for word in surface {
        let w = word.to_lowercase();
        let thing = after_thing;
        after_thing = BEFORE_A_THING.contains(&w.as_str());
        if w.contains(['\'', '\u{2019}']) || w.len() < 3 || w.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some(root) = content_words(&w).pop() else {
            continue;
        };
        if NOT_TOPICS.contains(&w.as_str()) || NOT_TOPICS.contains(&root.as_str()) {
            continue;
        }
        // A word that names a thing counts twice: topics are things more than doings.
        let weight = if thing { 2 } else { 1 };
        match seen
            .iter_mut()
            .find(|(r, ..)| crate::words::same_root(r, &root))
        {
            Some(e) => e.2 += weight,
            None => seen.push((root, word.to_string(), weight)),
        }
    }
    let mut ranked: Vec<usize> = (0..seen.len()).collect();
    ranked.sort_by(|a, b| seen[*b].2.cmp(&seen[*a].2).then(a.cmp(b)));
    ranked.truncate(TOPICS);
    ranked.sort_unstable();
    let topics: Vec<&str> = ranked.iter().map(|&i| seen[i].1.as_str()).collect();
    let list = match topics.as_slice() {
        [] | [_] => return None,
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    let asked = first.trim_end().ends_with('?');
    let verb = if asked { "Asked about" } else { "Talked about" };
    Some(format!("{verb} {list}"))
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
        }
    }

    #[test]
    fn a_summary_by_rule_names_what_the_user_talked_about() {
        let s = session(
            "a",
            "2026-11-01T10:00:00Z",
            "I love to bake cookies and knit. Knitting relaxes me, and cookies are my thing. My dog watches.",
        );
        assert_eq!(
            by_rule(&s).as_deref(),
            Some("Talked about bake, cookies and knit")
        );
        let q = session(
            "b",
            "2026-11-01T10:00:00Z",
            "how do I rotate nginx logs with logrotate?",
        );
        assert_eq!(
            by_rule(&q).as_deref(),
            Some("Asked about rotate, nginx and logrotate")
        );
        assert_eq!(
            by_rule(&session("c", "2026-11-01T10:00:00Z", "ok thanks")),
            None
        );
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
            },
        );
        let due: Vec<&str> = due(&sessions, &state, now)
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(due, vec!["s0", "s1", "s2", "s3", "s4"]);
    }
}
