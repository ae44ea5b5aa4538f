//! How long a fact holds: a clause that bounds itself in time ("I'm on antibiotics for the next
//! two weeks", "I'm in Lisbon until Friday", "this week", "until the end of the month", "until 12
//! March") gets the moment it stops being true (`valid_until`), resolved against the time the
//! user said it (the log line's `ts`); so does a plan with a day or a week ("I have a night
//! shift on Monday", "next week I have three exams"): the end of that day or week. A past
//! duration ("I've been vegetarian for two years", "I lived in Oslo until 2019"), a habit
//! ("every Monday") and a time alone ("next month") bound nothing. An intention said without a
//! day ("I'm thinking of buying a new laptop", "je cherche un emploi") holds a month.

use chrono::{DateTime, Datelike, Days, Months, NaiveDate, NaiveTime, TimeDelta, Utc};

use super::lexicon::{
    ADVERBS, ARTICLE_ONE, INTENSIFIERS, MORE_COUNTS, PAST_MARKERS, PRESENT_MARKERS, UNTIL, WEEKDAYS,
};
use crate::language::reader::{Reader, says_phrase};
use crate::words::month;

fn number(w: &str) -> Option<u32> {
    w.parse()
        .ok()
        .filter(|n| (1..=366).contains(n))
        .or_else(|| crate::words::number_value(w))
        .or_else(|| {
            (ARTICLE_ONE.iter().chain(MORE_COUNTS))
                .find(|(n, _)| *n == w)
                .map(|(_, v)| *v)
        })
}

/// A day of the month: "12", "12th", "1st".
fn day_of_month(w: &str) -> Option<u32> {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    let ok = matches!(suffix, "" | "st" | "nd" | "rd" | "th");
    digits.parse().ok().filter(|d| ok && (1..=31).contains(d))
}

/// The last moment of day `d`.
fn end_of(d: NaiveDate) -> DateTime<Utc> {
    let last = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or(NaiveTime::MIN);
    d.and_time(last).and_utc()
}

/// The first moment of day `d`.
fn start_of(d: NaiveDate) -> DateTime<Utc> {
    d.and_time(NaiveTime::MIN).and_utc()
}

fn end_of_week(d: NaiveDate) -> NaiveDate {
    let left = 6 - d.weekday().num_days_from_monday();
    d + Days::new(u64::from(left))
}

fn end_of_month(d: NaiveDate) -> Option<NaiveDate> {
    let first = d.with_day(1)?;
    first.checked_add_months(Months::new(1))?.pred_opt()
}

fn end_of_year(d: NaiveDate) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(d.year(), 12, 31)
}

/// `n` units on from `at`: the end of that day (a bare "hours" keeps the hour).
fn after(at: DateTime<Utc>, n: u32, unit: &str) -> Option<DateTime<Utc>> {
    let d = at.date_naive();
    let day = match unit.trim_end_matches('s') {
        "hour" => return at.checked_add_signed(TimeDelta::hours(i64::from(n))),
        "day" | "night" => d.checked_add_days(Days::new(u64::from(n)))?,
        "week" => d.checked_add_days(Days::new(7 * u64::from(n)))?,
        "month" => d.checked_add_months(Months::new(n))?,
        "year" => d.checked_add_months(Months::new(12 * n))?,
        _ => return None,
    };
    Some(end_of(day))
}

/// The clause's lower-cased words, punctuation trimmed.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .replace('’', "'")
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

fn has_phrase(words: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    words
        .windows(p.len())
        .any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

/// How long an intention said without a day holds ("I'm thinking of buying a new laptop",
/// "estoy buscando piso"): a month, then it is archived as expired, as a plan is after its day.
pub const INTENTION_DAYS: u64 = 30;

/// When a fact said in `clause` at `said_at` stops holding, if the clause bounds it in time: by
/// a time it names, else as an intention or a feeling of the moment (the English reader's
/// `times.intentions` and `times.feelings`, degree words and adverbs left out: "I'm actually
/// thinking of …"), a month on or at the end of a month it names; never one that names a later
/// time (`times.later`, a year).
pub fn valid_until(clause: &str, said_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    bounded(clause, said_at).or_else(|| {
        let all = words(clause);
        // "a bit", "a little" go with their article: "I'm a bit concerned" is "I'm concerned".
        let degree =
            |i: usize| all[i] == "a" && all.get(i + 1).is_some_and(|n| n == "bit" || n == "little");
        let w: Vec<String> = (all.iter().enumerate())
            .filter(|&(i, w)| {
                !ADVERBS.contains(&w.as_str()) && !INTENSIFIERS.contains(&w.as_str()) && !degree(i)
            })
            .map(|(_, w)| w.clone())
            .collect();
        let reader = crate::language::reader::of(crate::language::Lang::English)?;
        let intends = reader.times.intentions.iter().any(|i| has_phrase(&w, i))
            || feels_now(&w, reader.times.feelings);
        // "I'm thinking of visiting Japan next year": held until then, not for a month.
        let later =
            reader.times.later.iter().any(|l| has_phrase(&w, l)) || w.iter().any(|w| a_year(w));
        if !intends || later {
            return None;
        }
        // "I'm planning a trip to Hawaii in October": until that month is over; "may" only as
        // a month after "in", "by", "early" and the like.
        let month = (1..w.len()).find_map(|i| {
            let m = reader
                .times
                .months
                .iter()
                .position(|m| m.contains(&w[i].as_str()))?;
            MONTH_BEFORE.contains(&w[i - 1].as_str()).then_some(m)
        });
        match month {
            Some(m) => month_ends(said_at, m),
            None => intention_ends(said_at),
        }
    })
}

/// Words before a month's name that make it the month ("in May", "by October", "early June").
const MONTH_BEFORE: &[&str] = &[
    "in", "by", "during", "early", "mid", "late", "this", "next", "until", "till", "around", "of",
];

/// The end of the next coming of month `m` (0 for January) from `said_at`: this year's when it
/// has not ended yet, else next year's.
fn month_ends(said_at: DateTime<Utc>, m: usize) -> Option<DateTime<Utc>> {
    let at = said_at.date_naive();
    let m = u32::try_from(m + 1).ok()?;
    let year = if m >= at.month() {
        at.year()
    } else {
        at.year() + 1
    };
    end_of_month(NaiveDate::from_ymd_opt(year, m, 1)?).map(end_of)
}

/// The month (0 for January) `reader`'s `months` name in a clause, by its longest spelling
/// said ("十一月" over "一月").
fn month_said(reader: &Reader, says: impl Fn(&str) -> bool) -> Option<usize> {
    (reader.times.months.iter().enumerate())
        .filter_map(|(i, spellings)| {
            let longest = spellings
                .iter()
                .filter(|s| says(s))
                .map(|s| s.len())
                .max()?;
            Some((i, longest))
        })
        .max_by_key(|&(_, len)| len)
        .map(|(i, _)| i)
}

/// Whether a feeling of the moment opens the clause ("I'm struggling to stay motivated", "One
/// thing I'm struggling with is …", "But I'm worried about the logistics"), not one said after
/// a lasting part ("I started with a Revell kit, and now I'm feeling more confident").
fn feels_now(words: &[String], feelings: &[&str]) -> bool {
    feelings.iter().any(|f| {
        // Said within its own length and two words of the start: opening at word 0, 1 or 2.
        let reach = (f.split(' ').count() + 2).min(words.len());
        has_phrase(&words[..reach], f)
    })
}

/// A year in digits ("2027"), in any script's text: a time later than a month.
fn a_year(w: &str) -> bool {
    w.len() == 4
        && (w.starts_with("19") || w.starts_with("20"))
        && w.bytes().all(|b| b.is_ascii_digit())
}

/// The end of an intention said at `said_at`.
fn intention_ends(said_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let day = said_at
        .date_naive()
        .checked_add_days(Days::new(INTENTION_DAYS))?;
    Some(end_of(day))
}

/// The end of the time `clause` names ("for the next two weeks", "until Friday", "on Monday").
fn bounded(clause: &str, said_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let w = words(clause);
    if PAST_MARKERS.iter().any(|p| has_phrase(&w, p)) {
        return None;
    }
    let at = said_at.date_naive();
    let now = PRESENT_MARKERS.iter().any(|p| has_phrase(&w, p));
    let get = |i: usize| w.get(i).map(String::as_str);
    for i in 0..w.len() {
        let found = match (get(i), get(i + 1), get(i + 2), get(i + 3)) {
            // "for the next two weeks", "over the next few days", "for the coming week".
            (Some("next" | "coming"), Some(n), unit, _) if i > 0 && get(i - 1) == Some("the") => {
                match (number(n), unit) {
                    (Some(n), Some(unit)) => after(said_at, n, unit),
                    _ => after(said_at, 1, n),
                }
            }
            // "for another two weeks", "for two more days".
            (Some("another"), Some(n), Some(unit), _) => after(said_at, number(n)?, unit),
            (Some("for"), Some(n), Some("more"), Some(unit)) => after(said_at, number(n)?, unit),
            // "for the rest of the week".
            (Some("rest"), Some("of"), Some("the" | "this"), Some(unit)) => {
                rest_of(at, unit).map(end_of)
            }
            (Some(u), ..) if UNTIL.contains(&u) => until(&w[i + 1..], at),
            // "this week", "this weekend", "this month": only of a state that holds now.
            (Some("this"), Some(unit), ..) if now => rest_of(at, unit).map(end_of),
            (Some("today" | "tonight"), ..) if now => Some(end_of(at)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    // "I'll be 30 next week" is an age to come, not a plan.
    let an_age = w
        .windows(2)
        .any(|p| p[0] == "be" && p[1].chars().all(|c| c.is_ascii_digit()));
    if an_age {
        return None;
    }
    planned_day(&w, at)
}

/// A plan with a day or a week ("I have a night shift on Monday", "Tomorrow I have a dentist
/// appointment", "I have a Rust study session this week", "next week I have three exams"): it
/// holds until the end of that day or week, never for good. "every Monday" and "on Mondays" are
/// habits and bound nothing; a day's name is a time only where it opens the clause or follows
/// "on", "this", "next", "coming" or "by" ("my favorite movie is Friday" names a film).
fn planned_day(w: &[String], at: NaiveDate) -> Option<DateTime<Utc>> {
    let get = |i: usize| w.get(i).map(String::as_str);
    for i in 0..w.len() {
        let before = i.checked_sub(1).and_then(get);
        let day = match (get(i), get(i + 1)) {
            (Some("tomorrow"), _) => at.succ_opt(),
            (Some("tonight"), _) => Some(at),
            (Some("this"), Some("week" | "weekend")) => Some(end_of_week(at)),
            (Some("next"), Some("week" | "weekend")) => Some(end_of_week(at) + Days::new(7)),
            (Some(d), _)
                if matches!(
                    before,
                    None | Some("on" | "this" | "next" | "coming" | "by")
                ) =>
            {
                let Some(k) = WEEKDAYS.iter().position(|w| *w == d) else {
                    continue;
                };
                // The next such day after today ("on Monday" said on a Monday: a week on).
                let mut day = at.succ_opt()?;
                while day.weekday().num_days_from_monday() as usize != k {
                    day = day.succ_opt()?;
                }
                Some(day)
            }
            _ => None,
        };
        if let Some(day) = day {
            return Some(end_of(day));
        }
    }
    None
}

/// The last day of the `unit` ("week", "weekend", "month", "year") that `at` is in.
fn rest_of(at: NaiveDate, unit: &str) -> Option<NaiveDate> {
    match unit {
        "week" | "weekend" => Some(end_of_week(at)),
        "month" => end_of_month(at),
        "year" => end_of_year(at),
        _ => None,
    }
}

/// The moment "until …" names, the words after "until" being `w`: a weekday (the next one, end
/// of day), tomorrow, a date ("12 March", "March 12th", "the 15th"), the end of a week, month or
/// year, the weekend, next week or month, or a month (its first moment).
fn until(w: &[String], at: NaiveDate) -> Option<DateTime<Utc>> {
    let get = |i: usize| w.get(i).map(String::as_str);
    let w0 = get(0)?;
    if let Some(day) = WEEKDAYS.iter().position(|n| *n == w0) {
        // The next one after the day it was said on: "until Monday" said on a Monday is a week.
        let mut d = at.succ_opt()?;
        while d.weekday().num_days_from_monday() as usize != day {
            d = d.succ_opt()?;
        }
        return Some(end_of(d));
    }
    match (w0, get(1), get(2), get(3)) {
        ("tomorrow", ..) => return Some(end_of(at.succ_opt()?)),
        ("the", Some("end"), Some("of"), Some(unit)) => {
            let unit = if unit == "the" || unit == "this" {
                get(4)?
            } else {
                unit
            };
            return match month(unit) {
                Some(m) => {
                    let first = next_date(at, m, 1)?;
                    end_of_month(first).map(end_of)
                }
                None => rest_of(at, unit).map(end_of),
            };
        }
        ("the", Some("weekend"), ..) | ("this", Some("weekend"), ..) => {
            let saturday = end_of_week(at).pred_opt()?;
            return Some(start_of(saturday));
        }
        ("next", Some("week"), ..) => return Some(start_of(end_of_week(at).succ_opt()?)),
        ("next", Some("month"), ..) => {
            return Some(start_of(end_of_month(at)?.succ_opt()?));
        }
        ("the", Some(d), ..) => {
            // "until the 15th": that day of this month, or of the next when it has passed.
            let d = day_of_month(d)?;
            let this = at.with_day(d).filter(|x| *x >= at);
            let next = at
                .with_day(1)?
                .checked_add_months(Months::new(1))?
                .with_day(d);
            return this.or(next).map(end_of);
        }
        _ => {}
    }
    // "12 March", "12th of March", "March 12", "March".
    let (day, m) = match (day_of_month(w0), get(1), get(2)) {
        (Some(d), Some("of"), Some(m)) => (Some(d), month(m)?),
        (Some(d), Some(m), _) => (Some(d), month(m)?),
        (None, ..) => (get(1).and_then(day_of_month), month(w0)?),
        _ => return None,
    };
    match day {
        Some(d) => next_date(at, m, d).map(end_of),
        None => next_date(at, m, 1).map(start_of),
    }
}

/// Day `d` of month `m` on or after `at`: this year's, or next year's when it has passed.
fn next_date(at: NaiveDate, m: u32, d: u32) -> Option<NaiveDate> {
    let this = NaiveDate::from_ymd_opt(at.year(), m, d)?;
    if this >= at {
        Some(this)
    } else {
        NaiveDate::from_ymd_opt(at.year() + 1, m, d)
    }
}

/// How long a clause in a language beyond English holds, by its reader's time words: a day
/// ("mañana") or a week ("nächste Woche") from when it was said, or the next coming of a
/// weekday named ("Nächsten Dienstag habe ich ein Vorstellungsgespräch"); nothing after a
/// habit word ("jeden Dienstag") or beside a liking ("Mi día favorito es el sábado"); an
/// intention without a day (its `times.intentions`) a month.
pub fn by_reader(clause: &str, reader: &Reader, said_at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let folded = crate::words::fold(clause);
    let inside = reader.lang.matched_inside_words();
    let says = |p: &str| says_phrase(&folded, p, inside);
    let times = &reader.times;
    if times.habits.iter().any(|h| says(h)) || times.likings.iter().any(|l| folded.contains(l)) {
        return None;
    }
    let at = said_at.date_naive();
    // The longest phrase said: "pasado mañana" over "mañana".
    let said = |list: &'static [(&'static str, u32)]| {
        list.iter()
            .filter(|(p, _)| says(p))
            .max_by_key(|(p, _)| p.len())
    };
    if let Some((_, n)) = said(times.days) {
        return at.checked_add_days(Days::new(u64::from(*n))).map(end_of);
    }
    if let Some((_, n)) = said(times.weeks) {
        let d = at.checked_add_days(Days::new(7 * u64::from(*n)))?;
        return Some(end_of(end_of_week(d)));
    }
    let today = at.weekday().num_days_from_monday();
    let Some(day) = (0u32..7).find(|&d| times.weekdays[d as usize].iter().any(|w| says(w))) else {
        // "Estoy buscando piso en Bilbao": an intention of the moment.
        // "Je cherche un appartement pour l'année prochaine": held until then, not for a month.
        let later = times.later.iter().any(|l| says(l))
            || folded.split(|c: char| !c.is_ascii_digit()).any(a_year);
        if times.intentions.iter().any(|i| says(i)) && !later {
            // "Estoy planeando un viaje a Galicia en agosto": until August is over.
            return match month_said(reader, says) {
                Some(m) => month_ends(said_at, m),
                None => intention_ends(said_at),
            };
        }
        let feels = times.feelings.iter().any(|f| says(f));
        return feels.then(|| intention_ends(said_at)).flatten();
    };
    let ahead = (day + 7 - today) % 7;
    let ahead = if ahead == 0 { 7 } else { ahead };
    at.checked_add_days(Days::new(u64::from(ahead))).map(end_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Lang;

    /// A Monday.
    const SAID: &str = "2026-11-30T09:00:00Z";

    /// Each clause's `valid_until` said on [`SAID`], against what it should be.
    fn check(cases: &[(&str, Option<&str>)]) {
        let at: DateTime<Utc> = SAID.parse().unwrap();
        for (clause, want) in cases {
            let want = want.map(|w| w.parse::<DateTime<Utc>>().unwrap());
            assert_eq!(valid_until(clause, at), want, "{clause}");
        }
    }

    /// Plans beyond English end when their reader's time words say (said on a Monday).
    #[test]
    fn plans_in_every_read_language_end_and_habits_do_not() {
        let at: DateTime<Utc> = SAID.parse().unwrap();
        for (clause, lang, want) in [
            (
                "Nächsten Dienstag habe ich ein Vorstellungsgespräch",
                Lang::German,
                Some("2026-12-01T23:59:59Z"),
            ),
            (
                "Mañana tengo un examen de conducir",
                Lang::Spanish,
                Some("2026-12-01T23:59:59Z"),
            ),
            (
                "Pasado mañana tengo dentista",
                Lang::Spanish,
                Some("2026-12-02T23:59:59Z"),
            ),
            (
                "J'ai un entretien la semaine prochaine",
                Lang::French,
                Some("2026-12-13T23:59:59Z"),
            ),
            (
                "我星期五有面试",
                Lang::Chinese,
                Some("2026-12-04T23:59:59Z"),
            ),
            (
                "来週大阪に出張します",
                Lang::Japanese,
                Some("2026-12-13T23:59:59Z"),
            ),
            (
                "Tenho consulta na quinta-feira",
                Lang::Portuguese,
                Some("2026-12-03T23:59:59Z"),
            ),
            // A habit, a liked day, and no time at all bound nothing.
            ("Ich gehe jeden Dienstag schwimmen", Lang::German, None),
            ("Mi día favorito es el sábado", Lang::Spanish, None),
            ("J'habite à Lyon depuis cinq ans", Lang::French, None),
            ("我每个星期六打篮球", Lang::Chinese, None),
        ] {
            let reader = crate::language::reader::of(lang).unwrap();
            let want = want.map(|w| w.parse::<DateTime<Utc>>().unwrap());
            assert_eq!(by_reader(clause, reader, at), want, "{clause}");
        }
    }

    #[test]
    fn bounded_clauses_get_the_end_of_their_time_and_others_none() {
        check(&[
            (
                "I'm on antibiotics for the next two weeks",
                Some("2026-12-14T23:59:59Z"),
            ),
            ("I'm in Lisbon until Friday", Some("2026-12-04T23:59:59Z")),
            ("I'm off work until Monday", Some("2026-12-07T23:59:59Z")),
            (
                "I'm staying with my sister for the next 3 days",
                Some("2026-12-03T23:59:59Z"),
            ),
            ("I'm in Berlin this week", Some("2026-12-06T23:59:59Z")),
            (
                "I'm busy until the end of the month",
                Some("2026-11-30T23:59:59Z"),
            ),
            ("I'm in Rome until 12 March", Some("2027-03-12T23:59:59Z")),
            ("I'm in Rome until March 12th", Some("2027-03-12T23:59:59Z")),
            (
                "I'm renting a car until the 15th",
                Some("2026-12-15T23:59:59Z"),
            ),
            (
                "I'll be in Tokyo until tomorrow",
                Some("2026-12-01T23:59:59Z"),
            ),
            (
                "I'm on a diet for the next few days",
                Some("2026-12-03T23:59:59Z"),
            ),
            (
                "I'm vegetarian for another two weeks",
                Some("2026-12-14T23:59:59Z"),
            ),
            (
                "I'm at my parents' for the rest of the week",
                Some("2026-12-06T23:59:59Z"),
            ),
            (
                "I'm working from home for the coming week",
                Some("2026-12-07T23:59:59Z"),
            ),
            (
                "I'm in Madrid until the end of December",
                Some("2026-12-31T23:59:59Z"),
            ),
            (
                "my knee is in a brace until December",
                Some("2026-12-01T00:00:00Z"),
            ),
            (
                "I'm not drinking until next month",
                Some("2026-12-01T00:00:00Z"),
            ),
            ("I've been vegetarian for two years", None),
            ("I was in Paris for two weeks", None),
            ("I lived in Oslo until 2019", None),
            ("I'm moving to Lisbon next month", None),
            ("I'll be 30 next week", None),
            ("I waited until Friday to call", None),
            ("I started a new job this month", None),
            ("I work until 5pm", None),
            ("I have two dogs", None),
            ("I run every morning for an hour", None),
            ("I'm vegetarian", None),
            ("I was vegetarian until I met my wife", None),
        ]);
    }

    /// An intention said without a day (LongMemEval's "I'm thinking of …", XPersona's "je
    /// cherche un emploi de restaurant", "現在、レストランでの仕事を探しています") holds a
    /// month from when it was said; with a day, until that day.
    #[test]
    fn an_intention_without_a_day_holds_a_month() {
        let month = Some("2026-12-30T23:59:59Z");
        check(&[
            ("I'm thinking of buying a new laptop", month),
            ("I'm actually thinking of going back to Hawaii", month),
            ("I've been thinking about creating a budget", month),
            ("I'm looking for a new apartment in Leeds", month),
            ("I'm considering a career in data science", month),
            ("I'm trying to plan out my meals for the week", month),
            ("I'm looking to get some new athletic wear", month),
            ("I'm thinking of visiting Japan next year", None),
            (
                "I'm considering a trip to Lisbon in May",
                Some("2027-05-31T23:59:59Z"),
            ),
            ("I'm thinking of what I may cook for the party", month),
            ("I've been trying to cut back on luxury shopping", None),
            ("I'm trying to limit my sugar intake", None),
            (
                "I'm thinking of visiting Lyon on Friday",
                Some("2026-12-04T23:59:59Z"),
            ),
            ("I think my sister is a nurse", None),
            ("I'm a nurse in Leeds", None),
            // A plan without a day, and what the user looks forward to (LongMemEval's).
            (
                "I'm planning a trip to the Rocky Mountains in Colorado",
                month,
            ),
            (
                "I'm planning to use Vallejo acrylics for painting the B-29",
                month,
            ),
            ("I'm really looking forward to our team hike", month),
            (
                "I'm planning a birthday trip to Hawaii in October",
                Some("2027-10-31T23:59:59Z"),
            ),
            (
                "I'm planning a 10-day trek in New Zealand in early December",
                Some("2026-12-31T23:59:59Z"),
            ),
            ("I'm planning to retire in 2030", None),
            (
                "I finished 20th in the race and I'm planning a rematch",
                month,
            ),
        ]);
        check_readers(&[
            ("je cherche un emploi de restaurant.", Lang::French, month),
            (
                "現在、レストランでの仕事を探しています",
                Lang::Japanese,
                month,
            ),
            ("나는 현재 식당일을 찾고 있어.", Lang::Korean, month),
            (
                "Saat ini saya sedang mencari pekerjaan di restoran.",
                Lang::Indonesian,
                month,
            ),
            ("Estoy buscando piso en Bilbao", Lang::Spanish, month),
            ("我在考虑换工作", Lang::Chinese, month),
            (
                "Ich überlege, am Dienstag ein Auto zu kaufen",
                Lang::German,
                Some("2026-12-01T23:59:59Z"),
            ),
            ("J'habite à Lyon depuis cinq ans", Lang::French, None),
        ]);
    }

    /// Each clause's `by_reader` said on [`SAID`] in its language, against what it should be.
    fn check_readers(cases: &[(&str, Lang, Option<&str>)]) {
        let at: DateTime<Utc> = SAID.parse().unwrap();
        for (clause, lang, want) in cases {
            let reader = crate::language::reader::of(*lang).unwrap();
            let want = want.map(|w| w.parse::<DateTime<Utc>>().unwrap());
            assert_eq!(by_reader(clause, reader, at), want, "{clause}");
        }
    }

    #[test]
    fn a_feeling_of_the_moment_holds_a_month() {
        let month = Some("2026-12-30T23:59:59Z");
        check(&[
            // A feeling or a difficulty of the moment that opens the clause; a wish put off, a
            // choice not yet made.
            ("I'm struggling to stay motivated", month),
            (
                "One thing I'm struggling with is keeping track of my tasks",
                month,
            ),
            (
                "I'm worried about the logistics of keeping the animals safe",
                month,
            ),
            (
                "I've been feeling a bit stuck in a cooking rut lately",
                month,
            ),
            (
                "I'm also a bit concerned about the maintenance of my instruments",
                month,
            ),
            ("I've been meaning to organize my tea cabinet", month),
            ("I'm torn between going solo or with family", month),
            (
                "I started with a Revell F-15 Eagle kit, and now I'm feeling more confident in my skills",
                None,
            ),
        ]);
    }

    /// A plan in a month it names holds until that month is over, in every reader (its next
    /// coming from the day it was said, a Monday in November 2026).
    #[test]
    fn a_plan_in_a_month_holds_until_the_month_is_over() {
        check_readers(&[
            (
                "estoy buscando piso para septiembre",
                Lang::Spanish,
                Some("2027-09-30T23:59:59Z"),
            ),
            (
                "我打算十二月去日本",
                Lang::Chinese,
                Some("2026-12-31T23:59:59Z"),
            ),
            (
                "8月に引っ越す予定です",
                Lang::Japanese,
                Some("2027-08-31T23:59:59Z"),
            ),
            (
                "시월에 이사할 계획이에요",
                Lang::Korean,
                Some("2027-10-31T23:59:59Z"),
            ),
        ]);
    }

    #[test]
    fn a_plan_without_a_day_holds_a_month_unless_it_names_a_later_time() {
        let month = Some("2026-12-30T23:59:59Z");
        check_readers(&[
            ("je prévois de repeindre la cuisine", Lang::French, month),
            (
                "je cherche un appartement pour l'année prochaine",
                Lang::French,
                None,
            ),
            ("estoy planeando un viaje a Galicia", Lang::Spanish, month),
            (
                "sto organizzando una festa per mia sorella",
                Lang::Italian,
                month,
            ),
            ("sto pensando di trasferirmi in futuro", Lang::Italian, None),
            (
                "estou planejando uma viagem a Lisboa",
                Lang::Portuguese,
                month,
            ),
            (
                "estou procurando emprego para o ano que vem",
                Lang::Portuguese,
                None,
            ),
            (
                "ich freue mich auf den Urlaub mit meiner Frau",
                Lang::German,
                month,
            ),
            (
                "ich überlege, im Sommer nach Bremen zu ziehen",
                Lang::German,
                None,
            ),
            ("ik ben van plan een hond te nemen", Lang::Dutch, month),
            ("ik overweeg volgend jaar te verhuizen", Lang::Dutch, None),
            ("saya berencana membeli mobil baru", Lang::Indonesian, month),
            (
                "saya sedang mencari rumah untuk tahun depan",
                Lang::Indonesian,
                None,
            ),
            ("我打算换一个新手机", Lang::Chinese, month),
            ("我在考虑明年去日本留学", Lang::Chinese, None),
            ("我在考虑2028年退休", Lang::Chinese, None),
            ("新しいパソコンを買うつもりです", Lang::Japanese, month),
            ("来年の留学を検討中です", Lang::Japanese, None),
            (
                "私は司書として働いていますが、今後数年で引退するつもりです。",
                Lang::Japanese,
                None,
            ),
            (
                "私は瞑想の後にピザを食べるつもりです。",
                Lang::Japanese,
                month,
            ),
            ("새 노트북을 살 계획이에요", Lang::Korean, month),
            ("j'ai du mal à dormir avec ce bruit", Lang::French, month),
            ("me preocupa la mudanza de mi madre", Lang::Spanish, month),
            ("ich mache mir Sorgen um meine Prüfung", Lang::German, month),
            ("我很担心下个月的考试", Lang::Chinese, month),
            ("仕事のことで悩んでいます", Lang::Japanese, month),
            ("j'hésite entre un chien et un chat", Lang::French, month),
            ("ich schwanke zwischen zwei Wohnungen", Lang::German, month),
            ("내년에 이사를 고민 중이에요", Lang::Korean, None),
        ]);
    }

    #[test]
    fn plans_with_a_day_or_a_week_hold_until_its_end() {
        check(&[
            // Plans with a day or a week (LongMemEval's and the issue's): that day or week.
            (
                "I have a meeting at 2 PM on Tuesday",
                Some("2026-12-01T23:59:59Z"),
            ),
            (
                "I have a cocktail-making class on Thursday",
                Some("2026-12-03T23:59:59Z"),
            ),
            (
                "I have a night shift on Monday",
                Some("2026-12-07T23:59:59Z"),
            ),
            ("Monday I have a night shift", Some("2026-12-07T23:59:59Z")),
            (
                "I have a dentist appointment tomorrow",
                Some("2026-12-01T23:59:59Z"),
            ),
            (
                "I have a Rust study session this week",
                Some("2026-12-06T23:59:59Z"),
            ),
            ("Next week I have three exams", Some("2026-12-13T23:59:59Z")),
            ("I work night shifts every Monday", None),
            // A day's name that is no time (persona-valid: a film; hand: a liking).
            ("my favorite movie is Friday", None),
            ("My favorite day of the week is Saturday", None),
            ("I play football on Mondays", None),
        ]);
    }
}
