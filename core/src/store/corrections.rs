//! Correction proposals: a model's high-confidence change to a trusted (user or import) fact,
//! kept pending until the user accepts or rejects it. Rejected ones are remembered (dismissed) so
//! the same contradiction is not proposed again.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::record::Provenance;
use crate::same_fact::key as fact_key;

/// What a correction would do to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorrectionOp {
    Update,
    Delete,
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorrectionStatus {
    Pending,
    Dismissed,
}

/// One proposal, one JSON object a line in `corrections.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub id: String,
    /// The id of the live record it would change.
    pub target: String,
    pub op: CorrectionOp,
    /// The target's text when the proposal was made.
    pub old_text: String,
    /// The proposed text (for `update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_text: Option<String>,
    #[serde(deserialize_with = "crate::record::finite_f32")]
    pub confidence: f32,
    pub status: CorrectionStatus,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub provenance: Provenance,
}

impl Correction {
    /// Whether this proposal is the same contradiction as `op` on `old_text` → `new_text`.
    pub fn same_as(&self, op: CorrectionOp, old_text: &str, new_text: Option<&str>) -> bool {
        self.op == op
            && fact_key(&self.old_text) == fact_key(old_text)
            && self.new_text.as_deref().map(fact_key) == new_text.map(fact_key)
    }
}
