//! Decay and bounds: low-value synthesized memories decay and are pruned, and a fact past its
//! `valid_until` expires; at the 256 cap the weakest record is evicted. User and import facts
//! never decay; only the cap can evict them, and only after every synth record is gone. Callers
//! archive whatever these pick.

use chrono::{DateTime, Utc};

use crate::recall::rank::recency;
use crate::record::{Record, Source};

/// A synth record whose importance × recency falls below this is pruned.
pub const DECAY_FLOOR: f32 = 0.05;

/// Indexes of synth records that have decayed away.
pub fn decayed(records: &[Record], now: DateTime<Utc>) -> Vec<usize> {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.source == Source::Synth && r.importance * recency(r, now) < DECAY_FLOOR)
        .map(|(i, _)| i)
        .collect()
}

/// Indexes of records whose time has run out (`valid_until` passed), of any source: the user
/// said how long it holds.
pub fn expired(records: &[Record], now: DateTime<Utc>) -> Vec<usize> {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.expired(now))
        .map(|(i, _)| i)
        .collect()
}

/// How much a record is worth keeping: importance and recency, synth always below trusted.
fn keep_score(r: &Record, now: DateTime<Utc>) -> f32 {
    let base = 0.6 * r.importance + 0.4 * recency(r, now);
    if r.source.is_trusted() {
        base + 10.0
    } else {
        base
    }
}

/// The record to evict to make room: the weakest synth record, else the weakest trusted one.
pub fn weakest(records: &[Record], now: DateTime<Utc>) -> Option<usize> {
    records
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| keep_score(a, now).total_cmp(&keep_score(b, now)))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(source: Source, importance: f32, updated: &str) -> Record {
        Record {
            importance,
            ..Record::fixture("x", "t", source, updated.parse().unwrap())
        }
    }

    #[test]
    fn only_old_low_value_synth_decays() {
        let now = "2026-06-01T00:00:00Z".parse().unwrap();
        let records = vec![
            rec(Source::Synth, 0.5, "2026-01-01T00:00:00Z"),
            rec(Source::Synth, 0.5, "2026-05-25T00:00:00Z"),
            rec(Source::User, 0.1, "2020-01-01T00:00:00Z"),
            rec(Source::Import, 0.1, "2020-01-01T00:00:00Z"),
        ];
        assert_eq!(decayed(&records, now), vec![0]);
    }

    #[test]
    fn eviction_takes_synth_before_any_user_fact() {
        let now = "2026-06-01T00:00:00Z".parse().unwrap();
        let records = vec![
            rec(Source::User, 0.1, "2026-01-01T00:00:00Z"),
            rec(Source::Synth, 0.85, "2026-05-31T00:00:00Z"),
            rec(Source::Synth, 0.6, "2026-05-31T00:00:00Z"),
        ];
        assert_eq!(weakest(&records, now), Some(2));
        let users = vec![
            rec(Source::User, 0.9, "2026-01-01T00:00:00Z"),
            rec(Source::Import, 0.3, "2026-01-01T00:00:00Z"),
        ];
        assert_eq!(weakest(&users, now), Some(1));
    }
}
