//! The `.forgotten.jsonl` archive: records localm dropped on its own (evicted at the cap, decayed,
//! or superseded by an accepted correction) and records a bulk edit left out, recoverable with
//! `restore`. At most [`MAX_ARCHIVED`] are kept: past it, the oldest archived goes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::record::Record;

/// The most records the archive keeps (four times the live cap).
pub const MAX_ARCHIVED: usize = 1024;

/// Why a record was archived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveReason {
    /// Dropped to stay within the 256-record cap.
    Evicted,
    /// A low-value synthesized memory that decayed.
    Decayed,
    /// The old value of a record whose correction the user accepted.
    Superseded,
    /// Left out of a bulk edit (`PUT /api/memory`, the page's Save): the text replaced the list
    /// and had no line for it.
    #[serde(rename = "bulk_edit")]
    BulkEdit,
    /// Its `valid_until` passed: the user said how long it would hold.
    Expired,
}

impl ArchiveReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveReason::Evicted => "evicted",
            ArchiveReason::Decayed => "decayed",
            ArchiveReason::Superseded => "superseded",
            ArchiveReason::BulkEdit => "bulk_edit",
            ArchiveReason::Expired => "expired",
        }
    }
}

/// One archived record: the record as it was, plus when and why it was archived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Archived {
    #[serde(flatten)]
    pub record: Record,
    pub archived_at: DateTime<Utc>,
    pub reason: ArchiveReason,
}
