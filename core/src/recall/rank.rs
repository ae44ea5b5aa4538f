//! Ranking: the relevance gate and the 0.5 / 0.3 / 0.2 blend of relevance, recency and
//! importance. A pure function of the records, their relevance signals and `now`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::record::{Record, Source};

pub const W_RELEVANCE: f32 = 0.5;
pub const W_RECENCY: f32 = 0.3;
pub const W_IMPORTANCE: f32 = 0.2;
/// Recency time constant for synthesized memories, in days.
pub const RECENCY_TAU_DAYS: f32 = 30.0;
/// A fact matching only by meaning qualifies at this cosine…
pub const COSINE_GATE: f32 = 0.55;
/// …or at this one once some fact shares a content word with the query.
pub const COSINE_GATE_STRICT: f32 = 0.75;
/// At most this many facts are injected.
pub const MAX_FACTS: usize = 6;
/// Facts the first-person fallback brings in at most.
pub const FALLBACK_FACTS: usize = 2;

/// Why a candidate was or was not let through the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Shares a content word with the query.
    SharedWord,
    /// Cosine at or above the threshold in force.
    Similar,
    /// Brought in by the first-person fallback.
    Fallback,
    /// Not related enough to the query.
    Rejected,
}

/// One record's signals for one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub shares_word: bool,
    /// BM25, normalised to 0–1 by the best score of this query.
    pub lexical: f32,
    /// Cosine similarity, when the semantic signal is in use.
    pub cosine: Option<f32>,
}

/// A scored candidate, for the result and `--explain`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub index: usize,
    pub relevance: f32,
    pub recency: f32,
    pub importance: f32,
    pub score: f32,
    pub gate: Gate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    pub shares_word: bool,
}

/// exp(−age / 30 days) for synth, measured from the last update or recall; 1 for user/import.
pub fn recency(r: &Record, now: DateTime<Utc>) -> f32 {
    if r.source != Source::Synth {
        return 1.0;
    }
    let last = r
        .last_recalled_at
        .map_or(r.updated_at, |t| t.max(r.updated_at));
    let age_days = (now - last).num_seconds().max(0) as f32 / 86_400.0;
    (-age_days / RECENCY_TAU_DAYS).exp()
}

/// Gate and score every record; returned best first (gate-rejected ones last).
pub fn rank(records: &[Record], signals: &[Signals], now: DateTime<Utc>) -> Vec<Scored> {
    let any_word = signals.iter().any(|s| s.shares_word);
    let threshold = if any_word {
        COSINE_GATE_STRICT
    } else {
        COSINE_GATE
    };
    let mut out: Vec<Scored> = records
        .iter()
        .zip(signals)
        .enumerate()
        .map(|(index, (r, s))| {
            let gate = if s.shares_word {
                Gate::SharedWord
            } else if s.cosine.is_some_and(|c| c >= threshold) {
                Gate::Similar
            } else {
                Gate::Rejected
            };
            let relevance = match s.cosine {
                Some(c) => c.clamp(0.0, 1.0),
                None => s.lexical,
            };
            let recency = recency(r, now);
            let importance = r.importance.clamp(0.0, 1.0);
            Scored {
                index,
                relevance,
                recency,
                importance,
                score: W_RELEVANCE * relevance + W_RECENCY * recency + W_IMPORTANCE * importance,
                gate,
                cosine: s.cosine,
                shares_word: s.shares_word,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (b.gate != Gate::Rejected)
            .cmp(&(a.gate != Gate::Rejected))
            .then(b.score.total_cmp(&a.score))
            .then(a.index.cmp(&b.index))
    });
    out
}

/// Whether `text` is a first-person question ("what is my name?", "do I have a cat").
pub fn is_first_person_question(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let first_person = words.iter().any(|w| {
        matches!(
            *w,
            "i" | "me" | "my" | "mine" | "myself" | "i'm" | "i've" | "i'd"
        )
    });
    let question = lower.trim_end().ends_with('?')
        || words.first().is_some_and(|w| {
            matches!(
                *w,
                "what"
                    | "who"
                    | "where"
                    | "when"
                    | "which"
                    | "how"
                    | "why"
                    | "do"
                    | "does"
                    | "did"
                    | "am"
                    | "is"
                    | "are"
                    | "can"
                    | "could"
                    | "should"
                    | "have"
                    | "was"
                    | "tell"
                    | "remind"
            )
        });
    first_person && question
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn rec(source: Source, importance: f32, updated: &str) -> Record {
        Record {
            importance,
            ..Record::fixture("x", "t", source, at(updated))
        }
    }

    fn sig(shares_word: bool, cosine: Option<f32>) -> Signals {
        Signals {
            shares_word,
            lexical: if shares_word { 1.0 } else { 0.0 },
            cosine,
        }
    }

    #[test]
    fn recency_decays_for_synth_only() {
        let now = at("2026-03-31T00:00:00Z");
        let synth = rec(Source::Synth, 0.5, "2026-03-01T00:00:00Z");
        assert!(
            (recency(&synth, now) - (-1.0f32).exp()).abs() < 1e-4,
            "30 days = 1/e"
        );
        assert_eq!(
            recency(&rec(Source::User, 0.5, "2020-01-01T00:00:00Z"), now),
            1.0
        );
        assert_eq!(
            recency(&rec(Source::Import, 0.5, "2020-01-01T00:00:00Z"), now),
            1.0
        );
        let mut recalled = synth.clone();
        recalled.last_recalled_at = Some(now);
        assert_eq!(recency(&recalled, now), 1.0, "a recall refreshes recency");
    }

    #[test]
    fn blend_is_half_relevance_three_tenths_recency_one_fifth_importance() {
        let now = at("2026-03-01T00:00:00Z");
        let r = [rec(Source::User, 0.5, "2026-03-01T00:00:00Z")];
        let s = rank(&r, &[sig(false, Some(0.6))], now);
        assert!((s[0].score - (0.5 * 0.6 + 0.3 * 1.0 + 0.2 * 0.5)).abs() < 1e-6);
    }

    #[test]
    fn gate_thresholds() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![rec(Source::User, 0.5, "2026-03-01T00:00:00Z"); 3];
        // Nobody shares a word: 0.55 is enough, 0.54 is not.
        let s = rank(
            &r,
            &[
                sig(false, Some(0.55)),
                sig(false, Some(0.54)),
                sig(false, None),
            ],
            now,
        );
        let gates: Vec<Gate> = {
            let mut v = s.clone();
            v.sort_by_key(|x| x.index);
            v.iter().map(|x| x.gate).collect()
        };
        assert_eq!(gates, vec![Gate::Similar, Gate::Rejected, Gate::Rejected]);
        // Once one shares a word, similarity alone needs 0.75.
        let s = rank(
            &r,
            &[
                sig(true, Some(0.1)),
                sig(false, Some(0.74)),
                sig(false, Some(0.75)),
            ],
            now,
        );
        let mut v = s.clone();
        v.sort_by_key(|x| x.index);
        let gates: Vec<Gate> = v.iter().map(|x| x.gate).collect();
        assert_eq!(gates, vec![Gate::SharedWord, Gate::Rejected, Gate::Similar]);
    }

    #[test]
    fn gated_candidates_come_first_then_by_score() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![
            rec(Source::User, 1.0, "2026-03-01T00:00:00Z"),
            rec(Source::User, 0.1, "2026-03-01T00:00:00Z"),
            rec(Source::User, 0.9, "2026-03-01T00:00:00Z"),
        ];
        let s = rank(
            &r,
            &[sig(false, None), sig(true, None), sig(true, None)],
            now,
        );
        let order: Vec<usize> = s.iter().map(|x| x.index).collect();
        assert_eq!(order, vec![2, 1, 0]);
    }

    #[test]
    fn first_person_questions() {
        for (q, want) in [
            ("what is my name?", true),
            ("Do I have a cat", true),
            ("remind me where I work", true),
            ("my printer is broken", false),
            ("what is the capital of France?", false),
            ("How tall is Everest?", false),
        ] {
            assert_eq!(is_first_person_question(q), want, "{q}");
        }
    }
}
