//! How a pass ended, in the words both consolidation (its report) and the store (`state.json`'s
//! last pass) use: the store keeps a pass's summary without depending on consolidation.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How a pass ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It ran; what it changed is in the report.
    #[default]
    Ok,
    /// It did nothing on purpose (privacy mode), calling no model.
    Skipped,
    /// It failed; nothing was written.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many records a pass added, updated, deleted, proposed to change, and summarised.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    pub added: usize,
    pub updated: usize,
    pub deleted: usize,
    pub proposed: usize,
    pub episodic: usize,
}

impl Counts {
    /// For people: "+2 added, 1 updated, 0 deleted, 1 proposed, 3 episodic".
    pub fn sentence(&self) -> String {
        format!(
            "+{} added, {} updated, {} deleted, {} proposed, {} episodic",
            self.added, self.updated, self.deleted, self.proposed, self.episodic
        )
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "added={} updated={} deleted={} proposed={} episodic={}",
            self.added, self.updated, self.deleted, self.proposed, self.episodic
        )
    }
}

/// What `state.json` keeps of the last pass: when, which, how it ended and the counts. Every
/// field has a default, so a summary written by an older version never makes the store
/// unreadable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PassSummary {
    pub at: Option<DateTime<Utc>>,
    pub pass_id: String,
    pub status: Status,
    pub reason: Option<String>,
    #[serde(flatten)]
    pub counts: Counts,
    pub archived: usize,
    pub skipped: usize,
    /// Of `skipped`, how many each guard refused; absent when none did.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub refusals: crate::refusal::RefusalCounts,
    pub model_ms: f64,
    pub duration_ms: f64,
}
