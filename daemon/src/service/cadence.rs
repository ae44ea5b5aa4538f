//! When timed work is due: the debounced automatic pass and the backfill sweep. Pure, so the rule
//! "at most one automatic pass per interval" is tested without a clock.

use std::time::{Duration, Instant};

use crate::config::{ConfigError, seconds};

/// Let a chat turn finish writing before a pass reads it.
pub const SETTLE: Duration = Duration::from_secs(2);

/// The intervals in force, from the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intervals {
    /// `LOCALM_MEMORY_AUTO_INTERVAL`: at most one automatic pass per this (15 minutes).
    pub auto: Duration,
    /// `LOCALM_MEMORY_BACKFILL_INTERVAL`: at most one embedding sweep per this (1 hour).
    pub backfill: Duration,
}

impl Intervals {
    pub const DEFAULT_AUTO: u64 = 15 * 60;
    pub const DEFAULT_BACKFILL: u64 = 60 * 60;

    /// Read both variables (whole seconds, at least 1); a bad value is an error, not a default.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Intervals, ConfigError> {
        Ok(Intervals {
            auto: seconds(
                &get,
                "LOCALM_MEMORY_AUTO_INTERVAL",
                Duration::from_secs(Self::DEFAULT_AUTO),
            )?,
            backfill: seconds(
                &get,
                "LOCALM_MEMORY_BACKFILL_INTERVAL",
                Duration::from_secs(Self::DEFAULT_BACKFILL),
            )?,
        })
    }
}

/// When the automatic pass for a session change seen `now` may run: after the settle delay, and
/// not before one interval has passed since the last pass started.
pub fn auto_due(now: Instant, last_pass: Option<Instant>, interval: Duration) -> Instant {
    let settled = now + SETTLE.min(interval);
    match last_pass {
        Some(last) => settled.max(last + interval),
        None => settled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_waits_for_the_interval_since_the_last_pass() {
        let t0 = Instant::now();
        let i = Duration::from_secs(900);
        assert_eq!(auto_due(t0, None, i), t0 + SETTLE);
        let last = t0;
        let later = t0 + Duration::from_secs(60);
        assert_eq!(auto_due(later, Some(last), i), t0 + i);
        let much_later = t0 + Duration::from_secs(2000);
        assert_eq!(auto_due(much_later, Some(last), i), much_later + SETTLE);
    }

    #[test]
    fn a_short_interval_shortens_the_settle_delay() {
        let t0 = Instant::now();
        let i = Duration::from_secs(1);
        assert_eq!(auto_due(t0, None, i), t0 + i);
    }

    #[test]
    fn intervals_come_from_the_environment_and_bad_values_are_errors() {
        let none = Intervals::from_env(|_| None).unwrap();
        assert_eq!(none.auto, Duration::from_secs(900));
        assert_eq!(none.backfill, Duration::from_secs(3600));
        let set =
            Intervals::from_env(|k| Some(if k.contains("AUTO") { "5" } else { "7" }.to_string()))
                .unwrap();
        assert_eq!((set.auto.as_secs(), set.backfill.as_secs()), (5, 7));
        for bad in ["0", "-1", "1.5", "soon"] {
            let err = Intervals::from_env(|_| Some(bad.to_string())).unwrap_err();
            assert!(
                err.to_string().contains("LOCALM_MEMORY_AUTO_INTERVAL"),
                "{err}"
            );
        }
    }
}
