//! Absolute dates: a relative time in a fact ("yesterday", "last weekend", "next month", "two
//! years ago") resolved against the time the user said it (the log line's `ts`) and written as a
//! day, a month or a year ("on 30 November 2026", "in November 2026", "in 2024"), so the fact
//! does not go stale. Vague times ("recently", "a few years ago") are left as they are.

use super::lexicon::ARTICLE_ONE;
use chrono::{DateTime, Datelike, Duration, Months, NaiveDate, Utc};

/// A month as "November 2026".
fn month(d: NaiveDate) -> String {
    d.format("%B %Y").to_string()
}

/// A day as "30 November 2026".
fn day(d: NaiveDate) -> String {
    d.format("%-d %B %Y").to_string()
}

fn number(w: &str) -> Option<u32> {
    w.parse()
        .ok()
        .or_else(|| crate::words::number_value(w))
        .or_else(|| ARTICLE_ONE.iter().find(|(n, _)| *n == w).map(|(_, v)| *v))
}

/// What a relative phrase of `words` (lower-cased) starting at `i` means at `at`: the phrase's
/// length in words and its absolute form.
fn resolve(words: &[String], i: usize, at: NaiveDate) -> Option<(usize, String)> {
    let w = |k: usize| words.get(i + k).map(String::as_str);
    let months_back = |n: u32| at.checked_sub_months(Months::new(n));
    let months_on = |n: u32| at.checked_add_months(Months::new(n));
    Some(match (w(0)?, w(1), w(2)) {
        ("yesterday", ..) => (1, format!("on {}", day(at - Duration::days(1)))),
        ("today" | "tonight", ..) => (1, format!("on {}", day(at))),
        ("this", Some("morning" | "afternoon" | "evening"), _) => (2, format!("on {}", day(at))),
        ("tomorrow", ..) => (1, format!("on {}", day(at + Duration::days(1)))),
        ("last", Some("week" | "weekend"), _) => {
            (2, format!("in {}", month(at - Duration::days(7))))
        }
        ("next", Some("week" | "weekend"), _) => {
            (2, format!("in {}", month(at + Duration::days(7))))
        }
        ("last", Some("month"), _) => (2, format!("in {}", month(months_back(1)?))),
        ("next", Some("month"), _) => (2, format!("in {}", month(months_on(1)?))),
        ("this", Some("month"), _) => (2, format!("in {}", month(at))),
        ("last", Some("year"), _) => (2, format!("in {}", at.year() - 1)),
        ("next", Some("year"), _) => (2, format!("in {}", at.year() + 1)),
        ("this", Some("year"), _) => (2, format!("in {}", at.year())),
        (n, Some("years" | "year"), Some("ago")) => {
            let n = number(n)?;
            (3, format!("in {}", at.year() - i32::try_from(n).ok()?))
        }
        (n, Some("months" | "month"), Some("ago")) => {
            (3, format!("in {}", month(months_back(number(n)?)?)))
        }
        (n, Some("weeks" | "week"), Some("ago")) => {
            let d = at - Duration::weeks(i64::from(number(n)?));
            (3, format!("in {}", month(d)))
        }
        (n, Some("days" | "day"), Some("ago")) if number(n)? <= 10 => {
            let d = at - Duration::days(i64::from(number(n)?));
            (3, format!("on {}", day(d)))
        }
        _ => return None,
    })
}

/// `text` with each relative time resolved against `said_at`. Words keep their spelling; only
/// the phrase is replaced.
pub fn absolute(text: &str, said_at: DateTime<Utc>) -> String {
    let at = said_at.date_naive();
    let raw: Vec<&str> = text.split_whitespace().collect();
    let lower: Vec<String> = raw
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        // "the last year of school" is not a time.
        let determined = i > 0
            && matches!(
                lower[i - 1].as_str(),
                "the" | "my" | "his" | "her" | "their" | "our" | "a" | "that" | "this" | "every"
            );
        match (!determined).then(|| resolve(&lower, i, at)).flatten() {
            Some((n, phrase)) => {
                // Punctuation after the phrase stays ("last month," → "in October 2026,").
                let last = raw[i + n - 1];
                let tail: String = last
                    .chars()
                    .rev()
                    .take_while(|c| !c.is_alphanumeric())
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                // "in" before "last year" would read "in in 2025".
                if out.last().is_some_and(|p| p.eq_ignore_ascii_case("in"))
                    && phrase.starts_with("in ")
                {
                    out.pop();
                }
                out.push(format!("{phrase}{tail}"));
                i += n;
            }
            None => {
                out.push(raw[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_become_dates() {
        let at: DateTime<Utc> = "2026-11-30T10:00:00Z".parse().unwrap();
        for (text, want) in [
            (
                "User adopted a cat last weekend",
                "User adopted a cat in November 2026",
            ),
            (
                "User moved to Lisbon last month",
                "User moved to Lisbon in October 2026",
            ),
            (
                "User started running two years ago",
                "User started running in 2024",
            ),
            (
                "User flies to Oslo tomorrow",
                "User flies to Oslo on 1 December 2026",
            ),
            (
                "User visited Rome yesterday, with Ana",
                "User visited Rome on 29 November 2026, with Ana",
            ),
            ("User retires next year", "User retires in 2027"),
            (
                "User just planted 12 tomato saplings today",
                "User just planted 12 tomato saplings on 30 November 2026",
            ),
            (
                "User ran a 5K this morning",
                "User ran a 5K on 30 November 2026",
            ),
            ("User graduated in last year", "User graduated in 2025"),
            ("User moved here recently", "User moved here recently"),
            (
                "User quit smoking a few years ago",
                "User quit smoking a few years ago",
            ),
            (
                "User went to the last year of school",
                "User went to the last year of school",
            ),
        ] {
            assert_eq!(absolute(text, at), want, "{text}");
        }
    }
}
