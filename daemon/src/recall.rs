//! The chat turn's recall as the terminal (`memory recall`), `localm mcp` and the socket
//! (`POST /api/memory/recall`) answer it: whether this turn gets any, one recall read straight
//! from the store, and the one wire shape the terminal and the socket print. The ranking itself
//! is core's [`localm_core::recall::run`].

use std::sync::Arc;

use chrono::{DateTime, Utc};
use localm_core::Settings;
use localm_core::models::Embedder;
use localm_core::recall::gate::Gates;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, Query, build_query};
use localm_core::recall::{self, Candidate, Degrade, Input, Item, Recall};
use localm_core::record::Record;
use localm_core::settings::Mode;
use localm_core::store::jsonl::CorruptLine;
use localm_core::store::{Store, StoreError};
use serde::Serialize;

use crate::models::embedder::BertEmbedder;

/// Why a turn gets no recall; the text is what callers report (`skipped`, a note).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoRecall {
    /// The settings forbid it in this mode.
    #[error("{0}")]
    NotAllowed(&'static str),
    /// The messages leave nothing to recall for: an origin-marked latest message, the coder
    /// agent.
    #[error("no recall for this turn")]
    NothingToRecall,
}

/// The query for this turn, or why it gets none.
pub fn query_for(
    settings: &Settings,
    mode: Mode,
    messages: &[ChatMessage],
    agent: Agent,
) -> Result<Query, NoRecall> {
    settings
        .recall_allowed(mode)
        .map_err(NoRecall::NotAllowed)?;
    build_query(messages, agent).ok_or(NoRecall::NothingToRecall)
}

/// One recall read straight from the store, and what the caller should report about the read.
pub struct FromStore {
    pub answer: Answer,
    /// The live records recall ranked (every item of the answer is one of them).
    pub records: Vec<Record>,
    /// Lines of the store that did not parse: left in place, the caller reports them.
    pub corrupt: Vec<CorruptLine>,
    /// Why the vector sidecar could not be read, when it could not (recall was then lexical).
    pub vectors_error: Option<StoreError>,
}

/// One turn's recall over the store as it is on disk now, as the terminal and `localm mcp` run
/// it (the daemon keeps a cache instead). Takes no lock and writes nothing. `embedder` is asked
/// for only when there are records to rank.
pub fn from_store(
    store: &Store,
    query: &Query,
    embedder: impl FnOnce() -> Option<Arc<BertEmbedder>>,
    explain: bool,
) -> Result<FromStore, StoreError> {
    let snap = store.read()?;
    let (vectors, vectors_error) = match store.read_vectors() {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    let embedder = if snap.records.is_empty() {
        None
    } else {
        embedder()
    };
    let index = LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str()));
    let result = recall::run(&Input {
        records: &snap.records,
        index: &index,
        vectors: vectors.as_ref(),
        embedder: embedder.as_deref().map(|e| e as &dyn Embedder),
        query,
        now: Utc::now(),
    });
    Ok(FromStore {
        answer: Answer::new(result, &snap.records, explain),
        records: snap.records,
        corrupt: snap.corrupt,
        vectors_error,
    })
}

/// What recall did for one turn, as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// The fenced block for the system message; empty when nothing is injected.
    pub block: String,
    /// The injected facts in rank order.
    pub items: Vec<Item>,
    pub degrade: Option<Degrade>,
    /// The `X-Localm-Memory` value.
    pub header: String,
    /// Why this turn got no recall at all, when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// With `explain`: the gate this turn used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateUsed>,
    /// With `explain`: every record, best first, with its signals and the decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Explained>>,
}

/// Which calibration the gate used, its thresholds, and the one that applied to this message.
#[derive(Debug, Clone, Serialize)]
pub struct GateUsed {
    #[serde(flatten)]
    pub gates: Gates,
    /// Whether the message was taken to be about the user.
    pub about_user: bool,
    /// The relevance a fact needed this turn.
    pub threshold: f32,
}

impl GateUsed {
    /// One line for the terminal: what a fact needed this turn, and why.
    pub fn describe(&self) -> String {
        let g = &self.gates;
        let whom = if self.about_user {
            "a message about you"
        } else {
            "a message not about you"
        };
        if g.name == "lexical" {
            format!(
                "gate: lexical; a fact needs {:.2} of the message's word weight ({whom})",
                self.threshold
            )
        } else {
            format!(
                "gate: {}; a fact needs cosine + {:.1} x word share >= {:.2} ({whom}) and cosine >= {:.2}",
                g.name, g.word_weight, self.threshold, g.min_cosine
            )
        }
    }
}

/// One record's signals and decision, with the record named.
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    pub id: String,
    pub text: String,
    /// When the user last said it: the day its line in the block opens with.
    pub said_at: DateTime<Utc>,
    #[serde(flatten)]
    pub candidate: Candidate,
}

impl Answer {
    /// The answer for `result`, ranked over `records`; with `explain`, every candidate.
    pub fn new(result: Recall, records: &[Record], explain: bool) -> Answer {
        let header = result.header_value();
        let gate = explain.then(|| GateUsed {
            gates: result.gates,
            about_user: result.about_user,
            threshold: result.gates.threshold(result.about_user),
        });
        let candidates = explain.then(|| {
            result
                .candidates
                .into_iter()
                .map(|c| {
                    let r = &records[c.scored.index];
                    Explained {
                        id: r.id.clone(),
                        text: r.text.clone(),
                        said_at: r.last_said(),
                        candidate: c,
                    }
                })
                .collect()
        });
        Answer {
            block: result.block,
            items: result.items,
            degrade: result.degrade,
            header,
            skipped: None,
            gate,
            candidates,
        }
    }

    /// No recall for this turn, and why.
    pub fn skipped(why: String) -> Answer {
        let none = Recall::none(None);
        Answer {
            header: none.header_value(),
            block: none.block,
            items: none.items,
            degrade: None,
            skipped: Some(why),
            gate: None,
            candidates: None,
        }
    }
}
