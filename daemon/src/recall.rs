//! The chat turn's recall as the terminal (`memory recall`) and the socket
//! (`POST /api/memory/recall`) answer it: whether this turn gets any, and the one wire shape
//! both print. The ranking itself is core's [`localm_core::recall::run`].

use localm_core::Settings;
use localm_core::recall::gate::Gates;
use localm_core::recall::query::{Agent, ChatMessage, Query, build_query};
use localm_core::recall::{Candidate, Degrade, Item, Recall};
use localm_core::record::Record;
use localm_core::settings::Mode;
use serde::Serialize;

/// The query for this turn, or why it gets no recall (the settings forbid it in this mode, or
/// the messages leave nothing to recall for: an origin-marked latest message, the coder agent).
pub fn query_for(
    settings: &Settings,
    mode: Mode,
    messages: &[ChatMessage],
    agent: Agent,
) -> Result<Query, String> {
    settings
        .recall_allowed(mode)
        .map_err(|why| why.to_string())?;
    build_query(messages, agent).ok_or_else(|| "no recall for this turn".to_string())
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
