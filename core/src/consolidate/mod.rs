//! Consolidation: one pass distils durable facts and episodic summaries out of recent session
//! logs and folds them into the store with ADD / UPDATE / DELETE / NO_OP, behind the guards of
//! `plan`. The model runs with no lock held; the result is applied in one store transaction,
//! re-checked against the store as it is then. Privacy mode skips the pass without loading a model.

pub mod episodic;
pub mod grammar;
pub mod parse;
pub mod plan;
pub mod prompt;
pub mod prune;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use self::plan::{Candidate, Decision, Op, Planned};
use crate::engine::{Embedder, EngineError, Generation, Generator, Message};
use crate::id::new_id;
use crate::recall::lexical::{LexicalIndex, content_words};
use crate::record::{Kind, MAX_RECORDS, Provenance, Record, Source};
use crate::session::{self, Session};
use crate::settings::Mode;
use crate::store::archive::ArchiveReason;
use crate::store::corrections::{Correction, CorrectionOp, CorrectionStatus};
use crate::store::{Snapshot, Store, StoreError};
use crate::text::{fact_key, normalize_fact};

/// Candidate facts considered per pass at most.
pub const MAX_CANDIDATES: usize = 12;
/// Existing facts a candidate is compared against.
const NEIGHBOURS: usize = 4;
/// Importance of an episodic summary.
const EPISODIC_IMPORTANCE: f32 = 0.5;
const EXTRACT_TOKENS: usize = 400;
const DECIDE_TOKENS: usize = 120;
const SUMMARY_TOKENS: usize = 60;

/// How a pass is run.
pub struct Pass<'a> {
    pub store: &'a Store,
    pub sessions_dir: PathBuf,
    pub mode: Mode,
    pub now: DateTime<Utc>,
    /// An id for this pass, recorded in the provenance of what it writes.
    pub pass_id: String,
}

/// A record or proposal a pass touched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Touched {
    pub id: String,
    pub text: String,
}

/// A candidate that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub text: String,
    pub why: String,
}

/// Time and tokens spent in the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ModelUse {
    pub calls: usize,
    pub prompt_tokens: usize,
    pub gen_tokens: usize,
    pub prompt_ms: f64,
    pub gen_ms: f64,
    pub load_ms: f64,
}

/// What a pass did, as data: the daemon, the API and the CLI show the same thing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// "ok", "skipped" or "error".
    pub status: &'static str,
    pub reason: Option<String>,
    pub added: Vec<Touched>,
    pub updated: Vec<Touched>,
    pub deleted: Vec<Touched>,
    pub proposed: Vec<Touched>,
    pub episodic: Vec<Touched>,
    pub archived: Vec<Touched>,
    pub skipped: Vec<Skipped>,
    pub sessions_read: usize,
    pub lines_skipped: usize,
    pub model: ModelUse,
    pub duration_ms: f64,
}

impl Report {
    fn with_status(status: &'static str, reason: Option<String>) -> Report {
        Report {
            status,
            reason,
            ..Report::default()
        }
    }
}

/// Why a pass failed (nothing was written).
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error("cannot read session logs in {path}: {source}")]
    Sessions {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the model failed: {0}")]
    Model(#[from] EngineError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Loads the generator on first use, so a pass with nothing to do loads no model.
pub type LoadGenerator<'g> = Box<dyn FnOnce() -> Result<Box<dyn Generator + 'g>, EngineError> + 'g>;

struct Model<'g> {
    load: Option<LoadGenerator<'g>>,
    loaded: Option<Box<dyn Generator + 'g>>,
    usage: ModelUse,
}

impl<'g> Model<'g> {
    fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max: usize,
    ) -> Result<Generation, EngineError> {
        if self.loaded.is_none() {
            let load = self
                .load
                .take()
                .ok_or_else(|| EngineError("the model could not be loaded".into()))?;
            let t = Instant::now();
            self.loaded = Some(load()?);
            self.usage.load_ms = t.elapsed().as_secs_f64() * 1e3;
        }
        let g = self
            .loaded
            .as_mut()
            .ok_or_else(|| EngineError("no model".into()))?
            .generate(messages, grammar, max)?;
        self.usage.calls += 1;
        self.usage.prompt_tokens += g.prompt_tokens;
        self.usage.gen_tokens += g.gen_tokens;
        self.usage.prompt_ms += g.prompt_ms;
        self.usage.gen_ms += g.gen_ms;
        Ok(g)
    }
}

/// One planned change, with where it came from.
struct Change {
    planned: Planned,
    sessions: Vec<String>,
}

/// Run one pass. `embedder`, when installed, finds semantic neighbours.
pub fn run<'g>(
    pass: &Pass,
    load: LoadGenerator<'g>,
    embedder: Option<&dyn Embedder>,
) -> Result<Report, PassError> {
    let started = Instant::now();
    if !pass.mode.allows_writes() {
        return Ok(Report::with_status(
            "skipped",
            Some("privacy mode: memory writes nothing".into()),
        ));
    }
    let snap = pass.store.read()?;
    let sessions = session::read_dir(&pass.sessions_dir).map_err(|source| PassError::Sessions {
        path: pass.sessions_dir.clone(),
        source,
    })?;
    let mut model = Model {
        load: Some(load),
        loaded: None,
        usage: ModelUse::default(),
    };
    let mut report = Report::with_status("ok", None);
    report.lines_skipped = sessions.iter().map(|s| s.skipped).sum();

    // Facts: the newest unread lines of the newest sessions, about 8,000 characters.
    let mut budget = prompt::SESSION_CHARS;
    let mut parts: Vec<String> = Vec::new();
    let mut user_words: HashSet<String> = HashSet::new();
    let mut read_to: Vec<(String, usize)> = Vec::new();
    let mut fact_sessions: Vec<String> = Vec::new();
    for s in &sessions {
        if budget < 200 {
            break;
        }
        let from = snap.state.sessions.get(&s.id).map_or(0, |m| m.lines_read);
        if from >= s.lines.len() {
            continue;
        }
        let new: Vec<&session::Line> = s.lines[from..].iter().collect();
        let log = prompt::render_log(&new, budget);
        read_to.push((s.id.clone(), s.lines.len()));
        if log.is_empty() {
            continue;
        }
        budget = budget.saturating_sub(log.chars().count() + 1);
        for l in new.iter().filter(|l| l.is_typed_by_user()) {
            user_words.extend(content_words(&prompt::strip_recalled(&l.content)));
        }
        fact_sessions.push(s.id.clone());
        parts.push(log);
    }
    report.sessions_read = read_to.len();
    let mut changes: Vec<Change> = Vec::new();
    if !parts.is_empty() {
        parts.reverse();
        let log = parts.join("\n");
        let reply = model.generate(
            &prompt::extract(&log),
            &grammar::candidates(),
            EXTRACT_TOKENS,
        )?;
        let candidates = read_candidates(&reply.text, &mut report.skipped);
        let vectors = pass.store.read_vectors().ok();
        let existing = Existing {
            snap: &snap,
            index: LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str())),
            embedder,
            vectors: vectors.as_ref(),
        };
        for c in candidates {
            let planned = consider(&c, &existing, &user_words, &changes, &mut model);
            changes.push(Change {
                planned,
                sessions: fact_sessions.clone(),
            });
        }
    }

    // Episodes: one line per quiet, unsummarised session.
    let due = episodic::due(&sessions, &snap.state, pass.now);
    let mut summarised: Vec<String> = Vec::new();
    for s in due {
        match summarise(s, &mut model) {
            Ok(Some(text)) => {
                changes.push(Change {
                    planned: Planned::Add {
                        text,
                        kind: Kind::Episodic,
                        importance: EPISODIC_IMPORTANCE,
                    },
                    sessions: vec![s.id.clone()],
                });
                summarised.push(s.id.clone());
            }
            Ok(None) => report.skipped.push(Skipped {
                text: format!("summary of session {}", s.id),
                why: "unreadable model reply".into(),
            }),
            Err(e) => return Err(e.into()),
        }
    }

    report.model = model.usage.clone();
    pass.store.write(|fresh: &mut Snapshot| {
        apply(pass, fresh, changes, &read_to, &summarised, &mut report);
        report.duration_ms = started.elapsed().as_secs_f64() * 1e3;
        fresh.state.last_pass = Some(summary_of(pass, &report));
        Ok::<_, StoreError>(())
    })?;
    Ok(report)
}

/// The candidates in a reply: at most 12, each with readable text; the rest are dropped.
fn read_candidates(reply: &str, skipped: &mut Vec<Skipped>) -> Vec<Candidate> {
    let Some(v) = parse::extract_object(reply) else {
        skipped.push(Skipped {
            text: reply.chars().take(80).collect(),
            why: "unreadable model reply".into(),
        });
        return Vec::new();
    };
    let items = v
        .get("facts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut out: Vec<Candidate> = Vec::new();
    for item in items.iter().take(MAX_CANDIDATES) {
        let Some(text) = parse::text_field(item, "text").and_then(|t| normalize_fact(t).ok())
        else {
            continue;
        };
        if out.iter().any(|c| fact_key(&c.text) == fact_key(&text)) {
            continue;
        }
        let kind = match parse::text_field(item, "kind") {
            Some("episodic") => Kind::Episodic,
            _ => Kind::Semantic,
        };
        let confidence = parse::unit_number(item.get("confidence")).unwrap_or(0.5);
        out.push(Candidate {
            text,
            kind,
            confidence,
        });
    }
    out
}

/// Decide one candidate: guards that need no model first, then the model's verdict.
/// The store as the pass found it, with what finding a candidate's neighbours needs (the
/// lexical index is built once per pass, not per candidate).
struct Existing<'a> {
    snap: &'a Snapshot,
    index: LexicalIndex,
    embedder: Option<&'a dyn Embedder>,
    vectors: Option<&'a crate::store::vectors::Vectors>,
}

fn consider(
    c: &Candidate,
    existing: &Existing,
    user_words: &HashSet<String>,
    earlier: &[Change],
    model: &mut Model,
) -> Planned {
    let snap = existing.snap;
    let skip = |why: &str| Planned::Skip {
        text: c.text.clone(),
        why: why.into(),
    };
    if plan::is_meta(&c.text) {
        return skip("reads as an instruction, not a fact about the user");
    }
    if !plan::grounded(&c.text, user_words) {
        return skip("not grounded in the user's own words");
    }
    let planned_texts = earlier.iter().filter_map(|ch| match &ch.planned {
        Planned::Add { text, .. } | Planned::Update { text, .. } => Some(text.as_str()),
        _ => None,
    });
    for t in planned_texts {
        if plan::near_duplicate(&c.text, t, None) {
            return skip("a near-duplicate of another candidate");
        }
    }
    let neighbours = neighbours(c, existing);
    for (r, cos) in &neighbours {
        if plan::near_duplicate(&c.text, &r.text, *cos) {
            return skip(&format!("a near-duplicate of {}", r.id));
        }
    }
    if neighbours.is_empty() {
        return Planned::Add {
            text: c.text.clone(),
            kind: c.kind,
            importance: plan::synth_importance(c.confidence),
        };
    }
    let pairs: Vec<(String, String)> = neighbours
        .iter()
        .map(|(r, _)| (r.id.clone(), r.text.clone()))
        .collect();
    let ids: Vec<String> = pairs.iter().map(|(id, _)| id.clone()).collect();
    let reply = match model.generate(
        &prompt::decide(&c.text, &pairs),
        &grammar::decision(&ids),
        DECIDE_TOKENS,
    ) {
        Ok(r) => r,
        Err(e) => return skip(&format!("the model failed: {e}")),
    };
    let Some(d) = read_decision(&reply.text) else {
        return skip("unreadable model reply");
    };
    let records: Vec<&Record> = neighbours.iter().map(|(r, _)| *r).collect();
    plan::decide(c, &d, &records, &snap.corrections)
}

fn read_decision(reply: &str) -> Option<Decision> {
    let v = parse::extract_object(reply)?;
    let op = match parse::text_field(&v, "op")?.to_ascii_uppercase().as_str() {
        "ADD" => Op::Add,
        "UPDATE" => Op::Update,
        "DELETE" => Op::Delete,
        "NO_OP" | "NOOP" | "NONE" => Op::NoOp,
        _ => return None,
    };
    Some(Decision {
        op,
        target: parse::text_field(&v, "target").map(str::to_string),
        text: parse::text_field(&v, "text").and_then(|t| normalize_fact(t).ok()),
        confidence: parse::unit_number(v.get("confidence")).unwrap_or(0.5),
    })
}

/// The existing facts nearest to a candidate: shared content words (BM25), and cosine ≥ 0.55
/// when vectors are current. Best first, at most a few.
fn neighbours<'s>(c: &Candidate, existing: &Existing<'s>) -> Vec<(&'s Record, Option<f32>)> {
    let (snap, index) = (existing.snap, &existing.index);
    let bm25 = index.scores(&index.terms(&content_words(&c.text)));
    let cosines: Vec<Option<f32>> = match (existing.embedder, existing.vectors) {
        (Some(e), Some(v)) => match e.embed(&[&c.text]) {
            Ok(q) if q.len() == 1 => snap
                .records
                .iter()
                .map(|r| {
                    v.current(&r.id, &r.text, e.id())
                        .map(|x| x.iter().zip(&q[0]).map(|(a, b)| a * b).sum())
                })
                .collect(),
            _ => vec![None; snap.records.len()],
        },
        _ => vec![None; snap.records.len()],
    };
    let mut scored: Vec<(usize, f32)> = (0..snap.records.len())
        .filter_map(|i| {
            let cos = cosines[i].unwrap_or(0.0);
            let related = bm25[i] > 0.0 || cos >= crate::recall::rank::COSINE_GATE;
            related.then_some((i, bm25[i].min(10.0) / 10.0 + cos))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored
        .into_iter()
        .take(NEIGHBOURS)
        .map(|(i, _)| (&snap.records[i], cosines[i]))
        .collect()
}

fn summarise(s: &Session, model: &mut Model) -> Result<Option<String>, EngineError> {
    let lines: Vec<&session::Line> = s.lines.iter().collect();
    let log = prompt::render_log(&lines, prompt::SESSION_CHARS / 2);
    let reply = model.generate(
        &prompt::summarise(&log),
        &grammar::summary(),
        SUMMARY_TOKENS,
    )?;
    Ok(parse::extract_object(&reply.text)
        .as_ref()
        .and_then(|v| parse::text_field(v, "summary"))
        .and_then(|t| normalize_fact(t).ok())
        .filter(|t| !plan::is_meta(t)))
}

/// Apply planned changes to the store as it is now.
fn apply(
    pass: &Pass,
    snap: &mut Snapshot,
    changes: Vec<Change>,
    read_to: &[(String, usize)],
    summarised: &[String],
    report: &mut Report,
) {
    let now = pass.now;
    let provenance = |sessions: &[String]| Provenance {
        sessions: sessions.to_vec(),
        pass: Some(pass.pass_id.clone()),
        via: None,
    };
    for ch in changes {
        match ch.planned {
            Planned::Skip { text, why } => report.skipped.push(Skipped { text, why }),
            Planned::Add {
                text,
                kind,
                importance,
            } => {
                let key = fact_key(&text);
                if snap.records.iter().any(|r| fact_key(&r.text) == key) {
                    report.skipped.push(Skipped {
                        text,
                        why: "already known".into(),
                    });
                    continue;
                }
                if snap.records.len() >= MAX_RECORDS
                    && let Some(i) = prune::weakest(&snap.records, now)
                {
                    let gone = snap.records.remove(i);
                    report.archived.push(Touched {
                        id: gone.id.clone(),
                        text: gone.text.clone(),
                    });
                    snap.archive_record(gone, ArchiveReason::Evicted, now);
                }
                let record = Record {
                    id: snap.fresh_id(&text, now),
                    text,
                    kind,
                    source: Source::Synth,
                    importance: Record::clamp_importance(Source::Synth, importance),
                    created_at: now,
                    updated_at: now,
                    last_recalled_at: None,
                    recall_count: 0,
                    provenance: provenance(&ch.sessions),
                };
                let touched = Touched {
                    id: record.id.clone(),
                    text: record.text.clone(),
                };
                if kind == Kind::Episodic {
                    report.episodic.push(touched);
                } else {
                    report.added.push(touched);
                }
                snap.records.push(record);
            }
            Planned::Update { target, text } => {
                let Some(i) = snap
                    .records
                    .iter()
                    .position(|r| r.id == target && r.source == Source::Synth)
                else {
                    report.skipped.push(Skipped {
                        text,
                        why: "its target changed meanwhile".into(),
                    });
                    continue;
                };
                let old = snap.records[i].clone();
                snap.archive_record(old, ArchiveReason::Superseded, now);
                let r = &mut snap.records[i];
                r.text = text;
                r.updated_at = now;
                r.provenance = provenance(&ch.sessions);
                report.updated.push(Touched {
                    id: r.id.clone(),
                    text: r.text.clone(),
                });
            }
            Planned::Delete { target } => {
                let Some(i) = snap
                    .records
                    .iter()
                    .position(|r| r.id == target && r.source == Source::Synth)
                else {
                    continue;
                };
                let gone = snap.records.remove(i);
                report.deleted.push(Touched {
                    id: gone.id.clone(),
                    text: gone.text.clone(),
                });
                snap.archive_record(gone, ArchiveReason::Superseded, now);
            }
            Planned::Propose {
                target,
                op,
                new_text,
                confidence,
            } => {
                let Some(t) = snap.records.iter().find(|r| r.id == target) else {
                    continue;
                };
                let old_text = t.text.clone();
                let exists = snap
                    .corrections
                    .iter()
                    .any(|c| c.target == target && c.same_as(op, &old_text, new_text.as_deref()));
                if exists {
                    continue;
                }
                let taken: HashSet<&str> = snap.corrections.iter().map(|c| c.id.as_str()).collect();
                let id = new_id(&format!("{target}{new_text:?}"), now, &taken);
                let shown = match (&op, &new_text) {
                    (CorrectionOp::Update, Some(n)) => format!("{old_text} → {n}"),
                    _ => format!("delete: {old_text}"),
                };
                snap.corrections.push(Correction {
                    id: id.clone(),
                    target,
                    op,
                    old_text,
                    new_text,
                    confidence,
                    status: CorrectionStatus::Pending,
                    created_at: now,
                    provenance: provenance(&ch.sessions),
                });
                report.proposed.push(Touched { id, text: shown });
            }
        }
    }
    for i in prune::decayed(&snap.records, now).into_iter().rev() {
        let gone = snap.records.remove(i);
        report.archived.push(Touched {
            id: gone.id.clone(),
            text: gone.text.clone(),
        });
        snap.archive_record(gone, ArchiveReason::Decayed, now);
    }
    for (id, lines) in read_to {
        snap.state
            .sessions
            .entry(id.clone())
            .or_default()
            .lines_read = *lines;
    }
    for id in summarised {
        snap.state
            .sessions
            .entry(id.clone())
            .or_default()
            .summarised_at = Some(now);
    }
}

/// What `state.json` keeps of a pass (counts, no fact text).
fn summary_of(pass: &Pass, r: &Report) -> Value {
    serde_json::json!({
        "at": pass.now,
        "pass_id": pass.pass_id,
        "status": r.status,
        "reason": r.reason,
        "added": r.added.len(),
        "updated": r.updated.len(),
        "deleted": r.deleted.len(),
        "proposed": r.proposed.len(),
        "episodic": r.episodic.len(),
        "archived": r.archived.len(),
        "skipped": r.skipped.len(),
        "model_ms": r.model.prompt_ms + r.model.gen_ms,
        "duration_ms": r.duration_ms,
    })
}

#[cfg(test)]
mod tests;
