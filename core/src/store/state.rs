//! `state.json`: the store's bookkeeping — format version, the legacy-import marker, and (for
//! consolidation) per-session watermarks and the last pass.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::pass_summary::PassSummary;

/// The on-disk format version this build writes.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    #[serde(default = "format_version")]
    pub version: u32,
    /// `chat-memory.md` has been imported (or found absent) in log/full mode.
    #[serde(default)]
    pub legacy_imported: bool,
    /// Per session id: how far consolidation has read it and whether it was summarised.
    #[serde(default)]
    pub sessions: BTreeMap<String, SessionMark>,
    /// The outcome of the most recent consolidation pass, as shown by `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_pass: Option<PassSummary>,
    /// Keys written by a newer version, kept as they were.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

fn format_version() -> u32 {
    FORMAT_VERSION
}

impl Default for State {
    fn default() -> Self {
        State {
            version: FORMAT_VERSION,
            legacy_imported: false,
            sessions: BTreeMap::new(),
            last_pass: None,
            extra: BTreeMap::new(),
        }
    }
}

/// Consolidation's watermark for one session log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionMark {
    /// Lines of the log already read for facts.
    #[serde(default)]
    pub lines_read: usize,
    /// When its episodic summary was written, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarised_at: Option<DateTime<Utc>>,
    /// Set aside: a pass failed on this log. Passes leave it unread (every other log goes on)
    /// until localm's version is another one, which reads it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_aside: Option<SetAside>,
}

/// Why a session log was set aside, and by which version of localm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAside {
    /// localm's version when the pass failed on it; another version reads the log again.
    pub version: String,
    /// What failed, in one line.
    pub why: String,
    pub at: DateTime<Utc>,
}

impl SetAside {
    /// Whether the log stays aside for `version`.
    pub fn holds_for(&self, version: &str) -> bool {
        self.version == version
    }
}
