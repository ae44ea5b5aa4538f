//! When a job runs: every fixed interval, or on a cron expression (croner, in a given time
//! zone). Parsing, the one-line description, and the next run after a given instant.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use super::JobError;

/// A job's schedule. On disk it is flattened into the job: `"every_secs": 21600` or
/// `"cron": "0 3 * * *"`, exactly one of the two.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ScheduleFields", into = "ScheduleFields")]
pub enum Schedule {
    /// Every `every_secs` seconds (at least 1), counted from the last start.
    Every { every_secs: u64 },
    /// A cron expression (5 fields, or 6 with seconds first), in the local time zone.
    Cron { cron: String },
}

/// The on-disk shape of a schedule: the two keys it may be written as.
#[derive(Serialize, Deserialize)]
struct ScheduleFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    every_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cron: Option<String>,
}

impl TryFrom<ScheduleFields> for Schedule {
    type Error = JobError;
    fn try_from(f: ScheduleFields) -> Result<Self, JobError> {
        match (f.every_secs, f.cron) {
            (Some(every_secs), None) => {
                let schedule = Schedule::Every { every_secs };
                schedule.check()?;
                Ok(schedule)
            }
            (None, Some(expr)) => Schedule::cron(&expr),
            _ => Err(JobError::NoSchedule),
        }
    }
}

impl From<Schedule> for ScheduleFields {
    fn from(s: Schedule) -> Self {
        match s {
            Schedule::Every { every_secs } => ScheduleFields {
                every_secs: Some(every_secs),
                cron: None,
            },
            Schedule::Cron { cron } => ScheduleFields {
                every_secs: None,
                cron: Some(cron),
            },
        }
    }
}

impl Schedule {
    /// An interval: plain seconds ("21600") or a duration ("6h", "90m", "1h 30m"), whole
    /// seconds, at least 1.
    pub fn every(text: &str) -> Result<Schedule, JobError> {
        let bad = || JobError::BadEvery(text.to_string());
        let trimmed = text.trim();
        let every_secs = if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
            trimmed.parse::<u64>().map_err(|_| bad())?
        } else {
            let d = humantime::parse_duration(trimmed).map_err(|_| bad())?;
            if d.subsec_nanos() != 0 {
                return Err(bad());
            }
            d.as_secs()
        };
        if every_secs == 0 {
            return Err(bad());
        }
        Ok(Schedule::Every { every_secs })
    }

    /// A cron expression, checked by croner; kept with its spacing collapsed.
    pub fn cron(expr: &str) -> Result<Schedule, JobError> {
        let cron = expr.split_whitespace().collect::<Vec<_>>().join(" ");
        parse_cron(&cron)?;
        Ok(Schedule::Cron { cron })
    }

    /// Whether the schedule is one `every`/`cron` would have built (for values read from disk
    /// or built directly).
    pub fn check(&self) -> Result<(), JobError> {
        match self {
            Schedule::Every { every_secs: 0 } => Err(JobError::BadEvery("0".into())),
            Schedule::Every { .. } => Ok(()),
            Schedule::Cron { cron } => parse_cron(cron).map(|_| ()),
        }
    }

    /// One line for listings: "every 6h", "every 1h 30m", "cron 0 3 * * *".
    pub fn describe(&self) -> String {
        match self {
            Schedule::Every { every_secs } => format!(
                "every {}",
                humantime::format_duration(Duration::from_secs(*every_secs))
            ),
            Schedule::Cron { cron } => format!("cron {cron}"),
        }
    }

    /// The first run strictly after `base`, with cron evaluated on the wall clock of `tz`.
    /// A schedule with no further run (an unparsable or exhausted expression, an overflow)
    /// answers `DateTime::<Utc>::MAX_UTC`: never due.
    pub fn next_after<Tz: TimeZone>(&self, base: DateTime<Utc>, tz: &Tz) -> DateTime<Utc> {
        let next = match self {
            Schedule::Every { every_secs } => i64::try_from(*every_secs)
                .ok()
                .and_then(TimeDelta::try_seconds)
                .and_then(|step| base.checked_add_signed(step)),
            Schedule::Cron { cron } => parse_cron(cron).ok().and_then(|c| {
                c.find_next_occurrence(&base.with_timezone(tz), false)
                    .ok()
                    .map(|t| t.with_timezone(&Utc))
            }),
        };
        next.unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

fn parse_cron(expr: &str) -> Result<croner::Cron, JobError> {
    croner::Cron::from_str(expr).map_err(|e| JobError::BadCron {
        expr: expr.to_string(),
        reason: e.to_string().replace('\n', " "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn every_accepts_seconds_and_durations() {
        let cases = [
            ("21600", 21600),
            (" 1 ", 1),
            ("6h", 21600),
            ("90m", 5400),
            ("1h 30m", 5400),
            ("1day", 86400),
            ("45s", 45),
        ];
        for (text, secs) in cases {
            assert_eq!(
                Schedule::every(text).unwrap(),
                Schedule::Every { every_secs: secs },
                "{text:?}"
            );
        }
    }

    #[test]
    fn every_refuses_bad_values_naming_them() {
        for text in [
            "",
            "0",
            "0s",
            "500ms",
            "1.5s",
            "-5",
            "soon",
            "6 hours later",
            "1h30",
        ] {
            let err = Schedule::every(text).unwrap_err();
            assert!(
                matches!(err, JobError::BadEvery(ref v) if v == text),
                "{text:?}"
            );
            let msg = err.to_string();
            assert!(msg.contains(&format!("{text:?}")), "{msg}");
            assert!(!msg.contains('\n'), "{msg}");
        }
    }

    #[test]
    fn cron_accepts_five_and_six_fields_and_refuses_nonsense() {
        assert_eq!(
            Schedule::cron(" 0  3 * * * ").unwrap(),
            Schedule::Cron {
                cron: "0 3 * * *".into()
            }
        );
        assert!(Schedule::cron("*/30 0 3 * * MON").is_ok());
        for expr in [
            "",
            "0 3 * *",
            "61 * * * *",
            "0 25 * * *",
            "every day",
            "* * * * * * * *",
        ] {
            match Schedule::cron(expr) {
                Err(JobError::BadCron { expr: e, reason }) => {
                    assert_eq!(e, expr.split_whitespace().collect::<Vec<_>>().join(" "));
                    assert!(!reason.is_empty() && !reason.contains('\n'));
                }
                other => panic!("{expr:?}: {other:?}"),
            }
        }
        let msg = Schedule::cron("0 25 * * *").unwrap_err().to_string();
        assert!(msg.contains("\"0 25 * * *\""), "{msg}");
    }

    #[test]
    fn describe_is_one_short_line() {
        let cases = [
            (Schedule::Every { every_secs: 21600 }, "every 6h"),
            (Schedule::Every { every_secs: 5400 }, "every 1h 30m"),
            (Schedule::Every { every_secs: 45 }, "every 45s"),
            (Schedule::cron("0 3 * * *").unwrap(), "cron 0 3 * * *"),
        ];
        for (s, want) in cases {
            assert_eq!(s.describe(), want);
        }
    }

    #[test]
    fn every_runs_a_fixed_interval_after_the_base() {
        let s = Schedule::every("6h").unwrap();
        let base = at("2026-03-01T12:00:00Z");
        assert_eq!(s.next_after(base, &Utc), at("2026-03-01T18:00:00Z"));
        let huge = Schedule::Every {
            every_secs: u64::MAX,
        };
        assert_eq!(huge.next_after(base, &Utc), DateTime::<Utc>::MAX_UTC);
    }

    #[test]
    fn cron_runs_strictly_after_the_base_on_the_zone_wall_clock() {
        let s = Schedule::cron("0 3 * * *").unwrap();
        let cases = [
            ("2026-03-01T02:59:59Z", "2026-03-01T03:00:00Z"),
            ("2026-03-01T03:00:00Z", "2026-03-02T03:00:00Z"),
            ("2026-03-01T03:00:00.250Z", "2026-03-02T03:00:00Z"),
            ("2026-03-01T12:00:00Z", "2026-03-02T03:00:00Z"),
        ];
        for (base, want) in cases {
            assert_eq!(s.next_after(at(base), &Utc), at(want), "{base}");
        }
        // 03:00 in UTC+2 is 01:00 UTC.
        let plus2 = FixedOffset::east_opt(2 * 3600).unwrap();
        assert_eq!(
            s.next_after(at("2026-03-01T12:00:00Z"), &plus2),
            at("2026-03-02T01:00:00Z")
        );
        let never = Schedule::Cron {
            cron: "not cron".into(),
        };
        assert_eq!(
            never.next_after(at("2026-03-01T12:00:00Z"), &Utc),
            DateTime::<Utc>::MAX_UTC
        );
    }

    #[test]
    fn check_refuses_what_the_constructors_refuse() {
        assert!(Schedule::Every { every_secs: 0 }.check().is_err());
        assert!(Schedule::Every { every_secs: 1 }.check().is_ok());
        assert!(Schedule::Cron { cron: "x".into() }.check().is_err());
    }
}
