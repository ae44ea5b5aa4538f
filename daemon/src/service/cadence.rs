//! When timed work is due: the debounced automatic pass and the backfill sweep. Pure, so the rule
//! "at most one automatic pass per interval" is tested without a clock.

use std::time::{Duration, Instant};

/// Let a chat turn finish writing before a pass reads it.
pub const SETTLE: Duration = Duration::from_secs(2);

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
}
