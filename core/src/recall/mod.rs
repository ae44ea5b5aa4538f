//! Recall: which remembered facts go into this chat turn's system prompt, and the fenced block
//! they go in. Relevance-gated (nothing, rather than padding), blended with recency and
//! importance, within 6 facts and 1,200 characters; the result says how it degraded, if it did.

pub mod block;
pub mod constraint;
pub mod gate;
pub mod given_up;
pub mod identity;
pub mod lexical;
pub mod query;
pub mod rank;
pub mod tally;
pub mod when;

use chrono::{DateTime, Utc};
use serde::Serialize;

use self::gate::Gates;
use self::lexical::{LexicalIndex, content_words};
use self::query::Query;
use self::rank::{Gate, Scored, Signals, is_first_person_question, rank};
use crate::models::Embedder;
use crate::record::{Kind, Record};
use crate::store::vectors::Vectors;

/// Below this fraction of records with a current vector, recall falls back to lexical.
pub const MIN_COVERAGE: f32 = 0.5;

/// Why the semantic signal could not be used this turn (recall fell back to lexical BM25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Degrade {
    /// No embedding model is installed.
    NoEmbedder,
    /// No record has a vector from the installed model yet.
    NoVectors,
    /// Too few records carry a vector.
    LowCoverage,
    /// The vector sidecar mixes dimensions (usually from switching embedding models).
    DimMismatch,
    /// The embedder failed on this turn's query.
    QueryEmbedFailed,
    /// The embedding model reads English alone and the message is in another language.
    OtherLanguage,
}

impl Degrade {
    pub fn as_str(self) -> &'static str {
        match self {
            Degrade::NoEmbedder => "no_embedder",
            Degrade::NoVectors => "no_vectors",
            Degrade::LowCoverage => "low_coverage",
            Degrade::DimMismatch => "dim_mismatch",
            Degrade::QueryEmbedFailed => "query_embed_failed",
            Degrade::OtherLanguage => "other_language",
        }
    }
}

/// The semantic signal for one query: ready to compare, or why not.
pub enum Semantic<'a> {
    Ready {
        /// The latest message's vector.
        query: Vec<f32>,
        /// The window's (the latest message with its earlier turns), for a follow-up
        /// ([`Query::is_follow_up`]).
        window: Option<Vec<f32>>,
        vectors: &'a Vectors,
        model: &'a str,
    },
    Unavailable(Degrade),
}

/// Decide whether meaning-based recall can run, embedding the query only when it can: the
/// latest message, and for a follow-up the window too (a fact keeps the better cosine). A
/// longer latest message carries its own topic, and its earlier turns add theirs through their
/// words: one vector a turn, as the latency budget allows. An English-only model does not
/// score a message in another language (its cosines there say nothing): words alone, as
/// without a model. `vectors` is `None` when the sidecar could not be read.
pub fn plan_semantic<'a>(
    records: &[Record],
    vectors: Option<&'a Vectors>,
    embedder: Option<&'a dyn Embedder>,
    query: &Query,
) -> Semantic<'a> {
    let Some(embedder) = embedder else {
        return Semantic::Unavailable(Degrade::NoEmbedder);
    };
    if gate::for_model(embedder.id()).english_only
        && !crate::language::reads_as_english(&query.latest)
    {
        return Semantic::Unavailable(Degrade::OtherLanguage);
    }
    let Some(vectors) = vectors else {
        return Semantic::Unavailable(Degrade::NoVectors);
    };
    if vectors
        .entries
        .iter()
        .any(|e| e.vector.len() != embedder.dim())
    {
        return Semantic::Unavailable(Degrade::DimMismatch);
    }
    let covered = records
        .iter()
        .filter(|r| vectors.current(&r.id, &r.text, embedder.id()).is_some())
        .count();
    if covered == 0 {
        return Semantic::Unavailable(Degrade::NoVectors);
    }
    if (covered as f32) < MIN_COVERAGE * records.len() as f32 {
        return Semantic::Unavailable(Degrade::LowCoverage);
    }
    // One text a call: the embedder keeps recent single texts' vectors.
    let embed = |text: &str| match embedder.embed(&[text]) {
        Ok(mut v) if v.len() == 1 && v[0].len() == embedder.dim() => Some(v.remove(0)),
        _ => None,
    };
    let latest = embed(&query.latest);
    let window = if query.is_follow_up() {
        embed(&query.text).map(Some)
    } else {
        Some(None)
    };
    match (latest, window) {
        (Some(query), Some(window)) => Semantic::Ready {
            query,
            window,
            vectors,
            model: embedder.id(),
        },
        _ => Semantic::Unavailable(Degrade::QueryEmbedFailed),
    }
}

/// One injected fact.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub id: String,
    pub text: String,
    pub score: f32,
    /// When the user last said it ([`Record::last_said`]): the day its line opens with.
    pub said_at: DateTime<Utc>,
    /// The standing constraint it was recalled for, when the message asked for advice it bears
    /// on ("diet", "allergy", …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraint: Option<constraint::Label>,
}

/// Every record's signals and decision, for `--explain` (`scored.index` is the record's place).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    #[serde(flatten)]
    pub scored: Scored,
    pub chosen: bool,
}

/// What recall decided for one turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recall {
    /// The fenced block to add to the system message; empty when nothing is injected.
    pub block: String,
    /// The injected facts in rank order.
    pub items: Vec<Item>,
    pub degrade: Option<Degrade>,
    /// The gate this turn used (which model's calibration, and its thresholds).
    pub gates: Gates,
    /// Whether the message was taken to be about the user (the lower threshold applied).
    pub about_user: bool,
    /// Every record, best first.
    #[serde(skip)]
    pub candidates: Vec<Candidate>,
}

impl Recall {
    /// Nothing recalled (no query, or an empty store).
    pub fn none(degrade: Option<Degrade>) -> Recall {
        Recall {
            block: String::new(),
            items: Vec::new(),
            degrade,
            gates: gate::LEXICAL,
            about_user: false,
            candidates: Vec::new(),
        }
    }

    /// The `X-Localm-Memory` header value: `count=N; items=ID,ID[; degrade=REASON]`.
    pub fn header_value(&self) -> String {
        let ids: Vec<&str> = self.items.iter().map(|i| i.id.as_str()).collect();
        let mut v = format!("count={}; items={}", self.items.len(), ids.join(","));
        if let Some(d) = self.degrade {
            v.push_str("; degrade=");
            v.push_str(d.as_str());
        }
        v
    }
}

/// What one turn's recall reads: the store's records with their word index (built from the same
/// records) and vectors, the embedder when one is installed, the query, and the time.
pub struct Input<'a> {
    pub records: &'a [Record],
    pub index: &'a LexicalIndex,
    pub vectors: Option<&'a Vectors>,
    pub embedder: Option<&'a dyn Embedder>,
    pub query: &'a Query,
    pub now: DateTime<Utc>,
}

/// One turn's recall, as the terminal and the daemon run it: an empty store recalls nothing
/// (and embeds nothing); otherwise plan the semantic signal, rank, and build the block.
pub fn run(input: &Input) -> Recall {
    if input.records.is_empty() {
        return Recall::none(None);
    }
    let semantic = plan_semantic(input.records, input.vectors, input.embedder, input.query);
    recall(
        input.records,
        input.index,
        &semantic,
        input.query,
        input.now,
    )
}

/// Rank `records` for `query` and build the block. `index` must be built from the same records.
pub fn recall(
    records: &[Record],
    index: &LexicalIndex,
    semantic: &Semantic,
    query: &Query,
    now: DateTime<Utc>,
) -> Recall {
    let degrade = match semantic {
        Semantic::Unavailable(d) => Some(*d),
        Semantic::Ready { .. } => None,
    };
    if records.is_empty() {
        return Recall::none(degrade);
    }
    // The latest message is matched on its own and with its window, and a fact keeps the
    // better of the two: earlier turns add topic, never dilute the latest message's words.
    let weighed = index.weigh(&content_words(&query.latest));
    let weighed_window =
        (query.text != query.latest).then(|| index.weigh(&content_words(&query.text)));
    let (gates, model) = match semantic {
        Semantic::Ready { model, .. } => (gate::for_model(model), Some(*model)),
        Semantic::Unavailable(_) => (gate::LEXICAL, None),
    };
    let about_user = gate::is_about_user(&query.text);
    let asked = constraint::advice_domains(&query.latest);
    let when_question = when::is_when_question(&query.latest);
    let identity_question = identity::asked(&query.latest);
    let adds_up = tally::asked(&query.latest, about_user && identity_question.is_none());
    let signals: Vec<Signals> = records
        .iter()
        .enumerate()
        .map(|(i, r)| Signals {
            constraint: index
                .constraint(i)
                .filter(|c| r.kind == Kind::Semantic && c.domains.meets(asked))
                .map(|c| c.label),
            answers: identity_question.filter(|&a| r.kind == Kind::Semantic && index.answers(i, a)),
            dated: when_question && index.dated(i),
            share: weighed_window
                .as_ref()
                .map_or(0.0, |w| index.share(i, w))
                .max(index.share(i, &weighed)),
            cosine: match (semantic, model) {
                (_, Some(_)) if gates.english_only && !index.english(i) => None,
                (
                    Semantic::Ready {
                        query,
                        window,
                        vectors,
                        ..
                    },
                    Some(model),
                ) => {
                    let latest = vectors.similarity(r, model, query);
                    let window = window
                        .as_ref()
                        .and_then(|w| vectors.similarity(r, model, w));
                    match (latest, window) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        (a, b) => a.or(b),
                    }
                }
                _ => None,
            },
        })
        .collect();
    let mut ranked = rank(records, &signals, &gates, about_user, now);
    rank::cap_answers(&mut ranked);
    rank::make_room_for_constraints(&mut ranked, &constraint::order_for(&query.latest));
    let nothing = ranked.iter().all(|s| s.gate == Gate::Rejected);
    if nothing && degrade.is_some() && is_first_person_question(&query.latest) {
        fallback(records, &mut ranked, now);
    }
    // "User lives in Edinburgh" is not recalled beside "User moved to Leith", said later.
    rank::set_aside_superseded(
        records,
        &mut ranked,
        |i| index.held(i),
        |i| index.gave_up(i),
        now,
    );
    // "How many weddings have I been to?": the block holds one from each session first.
    if adds_up {
        tally::spread_over_sessions(records, &mut ranked);
    }
    let mut result = choose(records, ranked, degrade, now, adds_up);
    result.gates = gates;
    result.about_user = about_user;
    result
}

/// The first-person fallback: the strongest user/import facts, at most 2.
fn fallback(records: &[Record], ranked: &mut [Scored], now: DateTime<Utc>) {
    let mut trusted: Vec<usize> = (0..ranked.len())
        .filter(|&k| {
            let r = &records[ranked[k].index];
            r.source.is_trusted() && !rank::withheld(r, now)
        })
        .collect();
    trusted.sort_by(|&a, &b| {
        let (ra, rb) = (&records[ranked[a].index], &records[ranked[b].index]);
        rb.importance
            .total_cmp(&ra.importance)
            .then(rb.updated_at.cmp(&ra.updated_at))
    });
    for &k in trusted.iter().take(rank::FALLBACK_FACTS) {
        ranked[k].gate = Gate::Fallback;
    }
    ranked.sort_by(|a, b| {
        (b.gate != Gate::Rejected)
            .cmp(&(a.gate != Gate::Rejected))
            .then(b.score.total_cmp(&a.score))
    });
}

/// Take gated candidates best first while they fit: 6 facts, 1,200 characters, each line with
/// the day it was last said. For a question that adds up (`by_day`), the block lists them in
/// the order they were said, so "which came first" reads off it.
fn choose(
    records: &[Record],
    ranked: Vec<Scored>,
    degrade: Option<Degrade>,
    now: DateTime<Utc>,
    by_day: bool,
) -> Recall {
    let mut used = block::overhead_chars();
    let mut lines = Vec::new();
    let mut items = Vec::new();
    let mut candidates = Vec::with_capacity(ranked.len());
    for s in ranked {
        let r = &records[s.index];
        let mut chosen = false;
        if s.gate.lets_through() && items.len() < rank::MAX_FACTS {
            let fact = block::neutralize(&r.text);
            let line = block::dated(&fact, r.last_said());
            let cost = block::line_chars(&line);
            if !fact.is_empty() && used + cost <= block::BLOCK_CHARS {
                used += cost;
                lines.push((r.last_said(), line));
                items.push(Item {
                    id: r.id.clone(),
                    text: r.text.clone(),
                    score: s.score,
                    said_at: r.last_said(),
                    constraint: s.constraint,
                });
                chosen = true;
            }
        }
        candidates.push(Candidate { scored: s, chosen });
    }
    if by_day {
        lines.sort_by_key(|(said, _)| *said);
    }
    let lines: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
    Recall {
        block: block::render(&lines, now),
        items,
        degrade,
        gates: gate::LEXICAL,
        about_user: false,
        candidates,
    }
}

/// Record that these facts were injected (log/full mode only; the caller decides).
pub fn reinforce(records: &mut [Record], ids: &[String], now: DateTime<Utc>) {
    for r in records.iter_mut().filter(|r| ids.contains(&r.id)) {
        r.last_recalled_at = Some(now);
        r.recall_count = r.recall_count.saturating_add(1);
    }
}

#[cfg(test)]
mod tests;
