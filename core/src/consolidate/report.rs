//! What a pass did, as one serde type: the child prints it, the daemon reads it back, the API
//! answers it, jobs record its counts, and `state.json` keeps its summary (counts, no fact text).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use super::rules::Explained;
pub use crate::pass_summary::{Counts, PassSummary, Status};
pub use crate::refusal::{Refusal, RefusalCounts};

/// A record or proposal a pass touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Touched {
    pub id: String,
    pub text: String,
}

impl Touched {
    pub fn of(record: &crate::record::Record) -> Touched {
        Touched {
            id: record.id.clone(),
            text: record.text.clone(),
        }
    }
}

/// A candidate that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub text: String,
    pub why: String,
    /// The guard that refused it, when one did (`why` is then its text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
}

impl Skipped {
    /// Skipped for a reason no guard gave.
    pub fn because(text: impl Into<String>, why: impl Into<String>) -> Skipped {
        Skipped {
            text: text.into(),
            why: why.into(),
            refusal: None,
        }
    }

    /// Refused by a guard.
    pub fn refused(text: impl Into<String>, refusal: Refusal) -> Skipped {
        Skipped {
            text: text.into(),
            why: refusal.as_str().into(),
            refusal: Some(refusal),
        }
    }
}

/// Time and tokens spent in the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelUse {
    pub calls: usize,
    pub prompt_tokens: usize,
    /// Of `prompt_tokens`, those kept from an earlier call (a shared prefix), not decoded again.
    pub cached_tokens: usize,
    pub gen_tokens: usize,
    /// Of `gen_tokens`, those a draft had already decoded (a rewrite's rule sentence, a
    /// decision in its worked example's shape).
    #[serde(default)]
    pub drafted_tokens: usize,
    pub prompt_ms: f64,
    pub gen_ms: f64,
    pub load_ms: f64,
}

/// What a pass left unread for the next: whole sessions and their messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread {
    pub sessions: usize,
    pub messages: usize,
}

/// What a pass did, as data: the daemon, the API and the CLI show the same thing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub status: Status,
    /// Why it was skipped or failed.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub added: Vec<Touched>,
    #[serde(default)]
    pub updated: Vec<Touched>,
    #[serde(default)]
    pub deleted: Vec<Touched>,
    #[serde(default)]
    pub proposed: Vec<Touched>,
    #[serde(default)]
    pub episodic: Vec<Touched>,
    #[serde(default)]
    pub archived: Vec<Touched>,
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Of `skipped`, how many each guard refused (see [`Report::count_refusals`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refusals: RefusalCounts,
    #[serde(default)]
    pub sessions_read: usize,
    #[serde(default)]
    pub lines_skipped: usize,
    /// Entries in `sessions/` that were not read (a link, a pipe, a log too large), and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs_not_read: Vec<Skipped>,
    /// Session logs set aside: a pass failed on their text, so passes leave them unread (every
    /// other log goes on) until another version of localm reads them. `text` is the session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<Skipped>,
    /// Lines are left unread, because this pass took its 12 disclosures before them or its
    /// budget did not reach their session (`left_unread`): the next pass reads on from there
    /// (the daemon runs one at the next interval).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more_to_read: bool,
    /// Sessions this pass's budget (about 8,000 characters) did not reach, the newest ones: the
    /// next pass reads them (`more_to_read` is set too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_unread: Option<Unread>,
    /// Every clause of the user's the pass read, kept (as what) or dropped (by which rule).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explained: Vec<Explained>,
    #[serde(default)]
    pub model: ModelUse,
    #[serde(default)]
    pub duration_ms: f64,
}

impl Report {
    pub fn with_status(status: Status, reason: Option<String>) -> Report {
        Report {
            status,
            reason,
            ..Report::default()
        }
    }

    /// The report of a pass that failed before writing anything.
    pub fn error(reason: impl Into<String>) -> Report {
        Report::with_status(Status::Error, Some(reason.into()))
    }

    /// Count the guards' refusals among `skipped` into `refusals`.
    pub fn count_refusals(&mut self) {
        self.refusals.clear();
        for r in self.skipped.iter().filter_map(|s| s.refusal) {
            *self.refusals.entry(r).or_default() += 1;
        }
    }

    /// The counts of what it changed.
    pub fn counts(&self) -> Counts {
        Counts {
            added: self.added.len(),
            updated: self.updated.len(),
            deleted: self.deleted.len(),
            proposed: self.proposed.len(),
            episodic: self.episodic.len(),
        }
    }
}

impl PassSummary {
    pub fn of(report: &Report, at: DateTime<Utc>, pass_id: &str) -> PassSummary {
        PassSummary {
            at: Some(at),
            pass_id: pass_id.to_string(),
            status: report.status,
            reason: report.reason.clone(),
            counts: report.counts(),
            archived: report.archived.len(),
            skipped: report.skipped.len(),
            refusals: report.refusals.clone(),
            model_ms: report.model.prompt_ms + report.model.gen_ms,
            duration_ms: report.duration_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_survives_the_trip_through_json() {
        let mut r = Report::with_status(Status::Ok, None);
        r.added.push(Touched {
            id: "ab12cd34".into(),
            text: "User has a beagle".into(),
        });
        r.model.gen_tokens = 7;
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""status":"ok""#), "{text}");
        assert_eq!(serde_json::from_str::<Report>(&text).unwrap(), r);
    }

    #[test]
    fn an_error_report_needs_only_status_and_reason() {
        let r: Report = serde_json::from_str(r#"{"status":"error","reason":"no model"}"#).unwrap();
        assert_eq!(r, Report::error("no model"));
        assert!(serde_json::from_str::<Report>(r#"{"status":"fine"}"#).is_err());
    }

    #[test]
    fn a_summary_keeps_counts_not_text() {
        let mut r = Report::with_status(Status::Ok, None);
        r.added.push(Touched {
            id: "1".into(),
            text: "secret".into(),
        });
        let at = "2026-03-01T00:00:00Z".parse().unwrap();
        let s = PassSummary::of(&r, at, "p1");
        let text = serde_json::to_string(&s).unwrap();
        assert!(!text.contains("secret"));
        assert!(text.contains(r#""added":1"#), "{text}");
        assert_eq!(serde_json::from_str::<PassSummary>(&text).unwrap(), s);
        // An older summary with fewer keys still reads.
        let old: PassSummary = serde_json::from_str(r#"{"status":"ok","added":2}"#).unwrap();
        assert_eq!(old.counts.added, 2);
        assert_eq!(old.at, None);
    }
}
