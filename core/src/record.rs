//! Record, Kind, Source and the limits every record obeys: plain data, as stored on disk.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

/// A namespace holds at most this many live records.
pub const MAX_RECORDS: usize = 256;
/// A record's text is at most this many characters.
pub const MAX_TEXT_CHARS: usize = 500;
/// Importance a synthesized record can reach at most.
pub const SYNTH_IMPORTANCE_CAP: f32 = 0.85;
/// Importance of a fact added by the user when none is given.
pub const DEFAULT_IMPORTANCE: f32 = 0.8;
/// Importance given to facts imported from the legacy `chat-memory.md`.
pub const IMPORT_IMPORTANCE: f32 = 0.7;
/// A record keeps at most this many evidence quotes, the newest.
pub const MAX_EVIDENCE: usize = 4;
/// An evidence quote is at most this many characters.
pub const MAX_QUOTE_CHARS: usize = 300;

/// What a record is: a standing fact, or a one-line summary of something that happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Semantic,
    Episodic,
}

/// Where a record came from; governs how far it is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Typed by the user. Trusted; never rewritten by a model without approval.
    User,
    /// Distilled by the model from a session. Importance-capped.
    Synth,
    /// Migrated from the legacy flat `chat-memory.md`.
    Import,
}

impl Source {
    /// User-typed and imported facts are trusted: no decay, no silent model edits.
    pub fn is_trusted(self) -> bool {
        matches!(self, Source::User | Source::Import)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Synth => "synth",
            Source::Import => "import",
        }
    }
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Semantic => "semantic",
            Kind::Episodic => "episodic",
        }
    }
}

/// Where a record's text came from, for `memory show`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Session ids the fact was distilled from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<String>,
    /// The consolidation pass that wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// Who or what typed it: "cli", "api", "chat-memory.md", "correction <id>", "restore".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The user's own words a synthesized fact was rewritten from, oldest first, at most
    /// [`MAX_EVIDENCE`]; kept across the pass's updates, so a user can see why it is believed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// One clause the user typed that a fact came from, and where it is in the session logs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The session id: the log is `sessions/<session>.jsonl`.
    pub session: String,
    /// The 1-based line number of the message in that log.
    pub line: usize,
    /// The user's clause, at most [`MAX_QUOTE_CHARS`] characters.
    pub quote: String,
}

impl Evidence {
    /// Evidence of `quote` at `line` of `session`; a longer quote is cut to
    /// [`MAX_QUOTE_CHARS`], its last character an ellipsis.
    pub fn new(session: &str, line: usize, quote: &str) -> Evidence {
        let quote = if quote.chars().count() > MAX_QUOTE_CHARS {
            let mut cut: String = quote.chars().take(MAX_QUOTE_CHARS - 1).collect();
            cut.push('…');
            cut
        } else {
            quote.to_string()
        };
        Evidence {
            session: session.into(),
            line,
            quote,
        }
    }

    /// Whether `other` is the same evidence: the same place in a log, or the same words.
    fn same_as(&self, other: &Evidence) -> bool {
        (self.session == other.session && self.line == other.line) || self.quote == other.quote
    }
}

impl Provenance {
    /// Append `newer` to the evidence kept: an entry already there moves to the end as the newer
    /// one, and only the newest [`MAX_EVIDENCE`] are kept.
    pub fn add_evidence(&mut self, newer: &[Evidence]) {
        for e in newer {
            self.evidence.retain(|old| !old.same_as(e));
            self.evidence.push(e.clone());
        }
        let over = self.evidence.len().saturating_sub(MAX_EVIDENCE);
        self.evidence.drain(..over);
    }
}

/// One remembered fact: one JSON object a line in `memory.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub text: String,
    pub kind: Kind,
    pub source: Source,
    #[serde(deserialize_with = "finite_f32")]
    pub importance: f32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[serde(default)]
    pub last_recalled_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub recall_count: u32,
    #[serde(default)]
    pub provenance: Provenance,
    /// When the fact stops being true ("I'm on antibiotics for the next two weeks"): from then
    /// on it is never recalled, and the next pass archives it (`expired`, restorable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<DateTime<Utc>>,
    /// When the user last said it, for a fact a pass wrote: the time of the newest log line it
    /// was read from (a pass may run long after). Absent for a fact typed or imported, whose
    /// `updated_at` is when it was said; see [`Record::last_said`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said_at: Option<DateTime<Utc>>,
}

/// An `f32` from JSON, refused if it is beyond f32's range. serde would read `1e39` as infinity,
/// which JSON cannot hold: it would be written back as `null`, a line the next read cannot parse,
/// so the fact would leave the store at the second write. Refused, the line is kept aside whole.
pub(crate) fn finite_f32<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    let wide = f64::deserialize(d)?;
    // Rounding to the nearest f32 is the conversion wanted; only infinity is refused.
    let x = wide as f32;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(serde::de::Error::custom(format_args!(
            "{wide} is out of range for a 32-bit number"
        )))
    }
}

impl Record {
    /// A record created and last updated at `at`, never recalled, with no provenance.
    pub fn new(
        id: &str,
        text: &str,
        kind: Kind,
        source: Source,
        importance: f32,
        at: DateTime<Utc>,
    ) -> Record {
        Record {
            id: id.into(),
            text: text.into(),
            kind,
            source,
            importance,
            created_at: at,
            updated_at: at,
            last_recalled_at: None,
            recall_count: 0,
            provenance: Provenance::default(),
            valid_until: None,
            said_at: None,
        }
    }

    /// When the user last said this fact: the newest log line a pass read it from, else when it
    /// was last written (typed, imported, edited, or written by a pass from no dated line).
    pub fn last_said(&self) -> DateTime<Utc> {
        self.said_at.unwrap_or(self.updated_at)
    }

    /// Hear the fact said again at `at`: [`Record::said_at`] moves to the newer time.
    pub fn said_again(&mut self, at: Option<DateTime<Utc>>) {
        if let Some(at) = at
            && self.said_at.is_none_or(|s| s < at)
        {
            self.said_at = Some(at);
        }
    }

    /// Whether the fact has stopped being true by `now` (its [`Record::valid_until`] passed).
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        self.valid_until.is_some_and(|t| t <= now)
    }

    /// The importance a record of `source` may carry: clamped to 0–1, synth capped at 0.85.
    pub fn clamp_importance(source: Source, importance: f32) -> f32 {
        let cap = if source == Source::Synth {
            SYNTH_IMPORTANCE_CAP
        } else {
            1.0
        };
        if importance.is_nan() {
            return 0.0;
        }
        importance.clamp(0.0, cap)
    }
}

#[cfg(test)]
impl Record {
    /// A record for tests: semantic, importance 0.8, created and updated at `at`, never recalled.
    pub(crate) fn fixture(id: &str, text: &str, source: Source, at: DateTime<Utc>) -> Record {
        Record {
            id: id.into(),
            text: text.into(),
            kind: Kind::Semantic,
            source,
            importance: DEFAULT_IMPORTANCE,
            created_at: at,
            updated_at: at,
            last_recalled_at: None,
            recall_count: 0,
            valid_until: None,
            said_at: None,
            provenance: Provenance::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synth_importance_is_capped_and_user_is_not() {
        assert_eq!(Record::clamp_importance(Source::Synth, 0.99), 0.85);
        assert_eq!(Record::clamp_importance(Source::User, 0.99), 0.99);
        assert_eq!(Record::clamp_importance(Source::Import, 1.5), 1.0);
        assert_eq!(Record::clamp_importance(Source::User, -1.0), 0.0);
        assert_eq!(Record::clamp_importance(Source::User, f32::NAN), 0.0);
    }

    #[test]
    fn record_round_trips_through_json() {
        let line = r#"{"id":"a1b2c3d4","text":"Prefers tea","kind":"semantic","source":"user","importance":0.8,"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}"#;
        let rec: Record = serde_json::from_str(line).unwrap();
        assert_eq!(rec.recall_count, 0);
        assert_eq!(rec.last_recalled_at, None);
        let back = serde_json::to_string(&rec).unwrap();
        let again: Record = serde_json::from_str(&back).unwrap();
        assert_eq!(rec, again);
    }

    #[test]
    fn a_record_with_evidence_is_rewritten_byte_for_byte() {
        let line = r#"{"id":"a07b55d1","text":"User adopted a beagle named Biscuit","kind":"semantic","source":"synth","importance":0.65,"created_at":"2026-11-02T13:00:00Z","updated_at":"2026-11-03T09:00:00Z","last_recalled_at":null,"recall_count":0,"provenance":{"sessions":["chat-2026-11-03"],"pass":"p0012345","evidence":[{"session":"chat-2026-11-02","line":3,"quote":"I adopted a beagle named Biscuit"},{"session":"chat-2026-11-03","line":1,"quote":"Biscuit is a \"he\", by the way\u0007"}]}}"#;
        let rec: Record = serde_json::from_str(line).unwrap();
        assert_eq!(
            rec.provenance.evidence[0],
            Evidence {
                session: "chat-2026-11-02".into(),
                line: 3,
                quote: "I adopted a beagle named Biscuit".into(),
            }
        );
        assert_eq!(
            rec.provenance.evidence[1].quote,
            "Biscuit is a \"he\", by the way\u{7}"
        );
        assert_eq!(serde_json::to_string(&rec).unwrap(), line);
        // No evidence, no key: files written before it existed come back as they were.
        let mut bare = rec.clone();
        bare.provenance.evidence.clear();
        assert!(!serde_json::to_string(&bare).unwrap().contains("evidence"));
    }

    #[test]
    fn evidence_is_merged_without_duplicates_and_capped_at_the_newest() {
        let e = |line: usize, quote: &str| Evidence::new("s1", line, quote);
        let mut p = Provenance::default();
        p.add_evidence(&[e(1, "I have a cat"), e(2, "my cat is called Tom")]);
        // The same place or the same words again: one entry, moved to the newest end.
        p.add_evidence(&[
            e(1, "I have a cat"),
            Evidence::new("s2", 7, "my cat is called Tom"),
        ]);
        assert_eq!(
            p.evidence,
            vec![
                e(1, "I have a cat"),
                Evidence::new("s2", 7, "my cat is called Tom")
            ]
        );
        p.add_evidence(&[e(3, "three"), e(4, "four"), e(5, "five")]);
        assert_eq!(p.evidence.len(), MAX_EVIDENCE);
        let quotes: Vec<&str> = p.evidence.iter().map(|e| e.quote.as_str()).collect();
        assert_eq!(quotes, ["my cat is called Tom", "three", "four", "five"]);
    }

    #[test]
    fn a_long_quote_is_cut_to_the_cap() {
        let long = "é".repeat(MAX_QUOTE_CHARS + 50);
        let q = Evidence::new("s1", 1, &long).quote;
        assert_eq!(q.chars().count(), MAX_QUOTE_CHARS);
        assert!(q.ends_with('…'));
        let exact = "a".repeat(MAX_QUOTE_CHARS);
        assert_eq!(Evidence::new("s1", 1, &exact).quote, exact);
    }

    #[test]
    fn an_importance_beyond_f32_is_refused_not_made_infinite() {
        let line = |importance: &str| {
            format!(
                r#"{{"id":"a1b2c3d4","text":"Prefers tea","kind":"semantic","source":"user","importance":{importance},"created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z"}}"#
            )
        };
        for ok in ["0.8", "1", "5", "-3.4e38"] {
            let rec: Record = serde_json::from_str(&line(ok)).unwrap();
            let back: Record = serde_json::from_str(&serde_json::to_string(&rec).unwrap()).unwrap();
            assert_eq!(back, rec, "{ok}");
        }
        for bad in ["1e39", "-1e39", "1e300"] {
            let err = serde_json::from_str::<Record>(&line(bad)).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{bad}: {err}");
        }
    }
}
