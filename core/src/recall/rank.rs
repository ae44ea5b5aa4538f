//! Ranking: the relevance gate (`gate.rs`) applied to each fact, and the 0.5 / 0.3 / 0.2 blend
//! of relevance, recency and importance. A pure function of the records, their relevance
//! signals, the gates and `now`.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::gate::Gates;
use crate::record::{Record, Source};

pub const W_RELEVANCE: f32 = 0.5;
pub const W_RECENCY: f32 = 0.3;
pub const W_IMPORTANCE: f32 = 0.2;
/// Recency time constant for synthesized memories, in days.
pub const RECENCY_TAU_DAYS: f32 = 30.0;
/// At most this many facts are injected.
pub const MAX_FACTS: usize = 6;
/// Facts the first-person fallback brings in at most.
pub const FALLBACK_FACTS: usize = 2;

/// Why a candidate was or was not let through the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Without embeddings: it holds enough of the query's word weight.
    SharedWord,
    /// With embeddings: cosine plus word share reach the model's threshold.
    Similar,
    /// Brought in by the first-person fallback.
    Fallback,
    /// Not related enough to the query.
    Rejected,
}

/// One record's signals for one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// The share of the query's word weight this fact holds, 0–1 (absolute, not relative to
    /// the best fact).
    pub share: f32,
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
    /// The share of the query's word weight the fact holds.
    pub share: f32,
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

/// Gate and score every record; returned best first (gate-rejected ones last). `about_user`
/// says whether the message is about the user (the gate is lower then).
pub fn rank(
    records: &[Record],
    signals: &[Signals],
    gates: &Gates,
    about_user: bool,
    now: DateTime<Utc>,
) -> Vec<Scored> {
    let mut out: Vec<Scored> = records
        .iter()
        .zip(signals)
        .enumerate()
        .map(|(index, (r, s))| {
            let gate = match (gates.passes(s.share, s.cosine, about_user), s.cosine) {
                (false, _) => Gate::Rejected,
                (true, None) => Gate::SharedWord,
                (true, Some(_)) => Gate::Similar,
            };
            let relevance = gates.relevance(s.share, s.cosine);
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
                share: s.share,
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
    let first_person = super::gate::is_about_user(&lower);
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
    use crate::recall::gate::{DEFAULT, LEXICAL, MINILM_L6};

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn rec(source: Source, importance: f32, updated: &str) -> Record {
        Record {
            importance,
            ..Record::fixture("x", "t", source, at(updated))
        }
    }

    fn sig(share: f32, cosine: Option<f32>) -> Signals {
        Signals { share, cosine }
    }

    fn gates_of(s: &[Scored]) -> Vec<Gate> {
        let mut v = s.to_vec();
        v.sort_by_key(|x| x.index);
        v.iter().map(|x| x.gate).collect()
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
        let s = rank(&r, &[sig(0.0, Some(0.6))], &MINILM_L6, true, now);
        assert!((s[0].score - (0.5 * 0.6 + 0.3 * 1.0 + 0.2 * 0.5)).abs() < 1e-6);
        // Words add to meaning: relevance = cosine + 0.5 × share for MiniLM.
        let s = rank(&r, &[sig(0.4, Some(0.5))], &MINILM_L6, true, now);
        assert!((s[0].relevance - 0.7).abs() < 1e-6);
        // Without embeddings, relevance is the word share itself.
        let s = rank(&r, &[sig(0.4, None)], &LEXICAL, true, now);
        assert!((s[0].relevance - 0.4).abs() < 1e-6);
    }

    #[test]
    fn gate_depends_on_the_model_and_on_whom_the_message_is_about() {
        let now = at("2026-03-01T00:00:00Z");
        let r = vec![rec(Source::User, 0.5, "2026-03-01T00:00:00Z"); 4];
        let signals = [
            sig(0.0, Some(0.35)), // a paraphrase
            sig(0.3, Some(0.05)), // one shared word, unrelated meaning
            sig(0.8, Some(0.5)),  // words and meaning
            sig(0.0, Some(0.1)),  // nothing
        ];
        use Gate::{Rejected, Similar};
        assert_eq!(
            gates_of(&rank(&r, &signals, &MINILM_L6, true, now)),
            vec![Similar, Rejected, Similar, Rejected]
        );
        assert_eq!(
            gates_of(&rank(&r, &signals, &MINILM_L6, false, now)),
            vec![Rejected, Rejected, Similar, Rejected]
        );
        // An uncalibrated model is stricter: the paraphrase at 0.35 does not pass.
        assert_eq!(
            gates_of(&rank(&r, &signals, &DEFAULT, true, now)),
            vec![Rejected, Rejected, Similar, Rejected]
        );
        // Lexical: shares only.
        let lex = [sig(0.15, None), sig(0.3, None), sig(0.0, None)];
        assert_eq!(
            gates_of(&rank(&r[..3], &lex, &LEXICAL, true, now)),
            vec![Gate::SharedWord, Gate::SharedWord, Rejected]
        );
        assert_eq!(
            gates_of(&rank(&r[..3], &lex, &LEXICAL, false, now)),
            vec![Rejected, Rejected, Rejected]
        );
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
            &[sig(0.0, None), sig(0.5, None), sig(0.5, None)],
            &LEXICAL,
            true,
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
            ("how do I center a div in CSS?", false),
        ] {
            assert_eq!(is_first_person_question(q), want, "{q}");
        }
    }
}
