//! When-questions ("when did I adopt the dog?") and the facts that carry a date ("User adopted
//! Pilot in March 2023"; consolidation writes dates absolute). A when-question prefers, among
//! the facts the gate lets through, those with a date.

use crate::words::{month, tokens};

/// How much a dated fact's relevance rises for a when-question. Chosen on the tuning half.
pub const DATED_BOOST: f32 = 0.1;

/// Whether `message` asks when something happened: "when did …", "when was …", "what year …",
/// "how long ago …", "since when …" (not "when does my book club meet?", a standing fact).
pub fn is_when_question(message: &str) -> bool {
    let t = tokens(message);
    let at = usize::from(t.first().is_some_and(|w| w == "and"));
    let past = ["did", "was", "were", "had", "have", "has"];
    (t.get(at).is_some_and(|w| w == "when")
        && t.get(at + 1).is_some_and(|w| past.contains(&w.as_str())))
        || t.windows(2).any(|p| {
            matches!(
                (p[0].as_str(), p[1].as_str()),
                ("what", "year")
                    | ("which", "year")
                    | ("what", "date")
                    | ("what", "day")
                    | ("which", "day")
                    | ("long", "ago")
                    | ("since", "when")
            )
        })
}

/// Whether `text` carries a date: a month name with a day or a year ("in March 2023", "on 3
/// April"), a year from 1900 to 2099, or a written date ("09/11/1989", "2026-03-01").
pub fn carries_date(text: &str) -> bool {
    let t = tokens(text);
    let year = |w: &str| {
        w.len() == 4
            && w.chars().all(|c| c.is_ascii_digit())
            && (w.starts_with("19") || w.starts_with("20"))
    };
    let day = |w: &str| {
        let d = w.trim_end_matches(['s', 't', 'n', 'd', 'r', 'h']);
        !d.is_empty() && d.len() <= 2 && d.chars().all(|c| c.is_ascii_digit())
    };
    let month_with_neighbour = t.iter().enumerate().any(|(k, w)| {
        // "may" alone is a verb; a month counts beside a day or a year.
        month(w).is_some()
            && (k > 0 && day(&t[k - 1]) || t.get(k + 1).is_some_and(|n| day(n) || year(n)))
    });
    month_with_neighbour
        || t.iter().any(|w| year(w))
        || text.split_whitespace().any(|w| {
            let parts: Vec<&str> = w
                .trim_matches(|c: char| !c.is_ascii_digit())
                .split(['/', '-', '.'])
                .collect();
            parts.len() == 3
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_questions() {
        for (q, want) in [
            ("when did we adopt Pilot?", true),
            ("When was my knee surgery?", true),
            ("and when did I sell the car?", true),
            ("what year did I move here?", true),
            ("how long ago did I quit Twitter?", true),
            ("what's my dog called?", false),
            ("I'll tell you when I'm ready", false),
            ("when does my book club meet?", false),
            ("what should I cook tonight?", false),
        ] {
            assert_eq!(is_when_question(q), want, "{q}");
        }
    }

    #[test]
    fn facts_that_carry_a_date() {
        for (fact, want) in [
            ("User adopted Pilot in March 2023", true),
            ("Isla's birthday is on 3 April", true),
            ("I've been teetotal since 2021", true),
            ("User was born on 09/11/1989", true),
            ("Last backup ran 2026-03-01", true),
            ("We have a rescue greyhound called Pilot", false),
            ("I may switch to Helix", false),
            ("User's team has 6 engineers and 12 services", false),
        ] {
            assert_eq!(carries_date(fact), want, "{fact}");
        }
    }
}
