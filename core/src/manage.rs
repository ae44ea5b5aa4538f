//! The user's operations on the store — add, edit, forget, replace all, restore, accept, reject,
//! list corrections, clear — with the rules the spec states, shared by the terminal and the API.

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::id::{Resolved, resolve};
use crate::legacy::parse_legacy;
use crate::record::{
    DEFAULT_IMPORTANCE, IMPORT_IMPORTANCE, Kind, MAX_RECORDS, Provenance, Record, Source,
};
use crate::settings::Mode;

use crate::fact_text::{TextError, normalize_fact};
use crate::same_fact::key as fact_key;
use crate::secret::{self, Secret};
use crate::store::archive::ArchiveReason;
use crate::store::corrections::{Correction, CorrectionOp, CorrectionStatus};
use crate::store::{ClearReport, Committed, Snapshot, Store, StoreError};

/// A bulk edit (`replace_all`) takes at most this many non-empty lines.
pub const BULK_MAX_LINES: usize = 256;
/// A bulk edit takes at most this many characters.
pub const BULK_MAX_CHARS: usize = 64_000;

/// Why an operation was refused. Nothing was changed when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    #[error(
        "{0} is refused in privacy mode (memory writes nothing); switch to log or full mode to change memory"
    )]
    Privacy(&'static str),
    #[error("the store already holds {MAX_RECORDS} records, the limit; forget one first")]
    Full,
    #[error("importance must be a number from 0 to 1, not {0}")]
    BadImportance(f32),
    #[error(transparent)]
    Text(#[from] TextError),
    #[error("no {what} has the id {query:?}")]
    NotFound { what: &'static str, query: String },
    #[error("{query:?} matches more than one {what}: {}; type more of the id", ids.join(", "))]
    Ambiguous {
        what: &'static str,
        query: String,
        ids: Vec<String>,
    },
    #[error("nothing to change: give new text, an importance, or both")]
    NothingToChange,
    #[error("another fact ({id}) already says that; edit or forget that one instead")]
    Duplicate { id: String },
    #[error("the text is {chars} characters long; a bulk edit takes at most {BULK_MAX_CHARS}")]
    BulkTooLarge { chars: usize },
    #[error(
        "the text has {lines} facts (non-empty lines); a bulk edit takes at most {BULK_MAX_LINES}"
    )]
    BulkTooManyLines { lines: usize },
    #[error("line {line}: {source}")]
    Line { line: usize, source: TextError },
    #[error("correction {id} no longer applies: its fact changed since it was proposed; reject it")]
    Stale { id: String },
    #[error(
        "memory changed since this edit was read (generation {base}, now {now}); nothing was saved: read it again and redo the edit on top"
    )]
    Changed { base: u64, now: u64 },
    #[error(
        "base {base} is not a generation this store has issued (it is at {now}); read memory again and send the generation that read names"
    )]
    UnknownBase { base: u64, now: u64 },
    #[error("the text holds {0}, a secret localm does not store; nothing was changed")]
    Secret(Secret),
    #[error("line {line} holds {kind}, a secret localm does not store; nothing was changed")]
    LineSecret { line: usize, kind: Secret },
    #[error(
        "correction {id} would store {kind}, a secret localm does not store; nothing was changed: reject it"
    )]
    ProposalSecret { id: String, kind: Secret },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How an operation is run: on which store, in which mode, at what time, by whom.
pub struct Ctx<'a> {
    pub store: &'a Store,
    pub mode: Mode,
    /// `<data dir>/chat-memory.md`, imported once on the first write in log/full mode.
    pub legacy_file: PathBuf,
    pub now: DateTime<Utc>,
    /// Provenance `via` for what this caller types: "cli", "api".
    pub via: &'static str,
}

/// What an add or a bulk edit may do beyond the rules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Force {
    /// Store a fact that holds a secret (`crate::secret`); without it one is refused. Recall
    /// never brings such a fact into a prompt either way.
    pub secrets: bool,
}

impl Force {
    /// Refuse `text` if it holds a secret and secrets are not forced: the one check every route
    /// that writes new text goes through (add, `memory_append`, `/remember`, patch, bulk edit,
    /// accept).
    fn check(self, text: &str) -> Result<(), Secret> {
        match secret::find(text) {
            Some(kind) if !self.secrets => Err(kind),
            _ => Ok(()),
        }
    }
}

/// The result of `add`.
#[derive(Debug, Clone, PartialEq)]
pub enum Added {
    New(Record),
    /// The same fact (ignoring case and spacing) was already there; nothing changed.
    Existing(Record),
}

/// The result of `replace_all`: what was kept as it was, added, and deleted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replaced {
    pub kept: Vec<Record>,
    pub added: Vec<Record>,
    pub deleted: Vec<Record>,
}

/// Which live record `query` (an id or unique prefix) names.
/// Returns its place in `snap.records`.
pub fn find_record(snap: &Snapshot, query: &str) -> Result<usize, ManageError> {
    resolved(
        "fact",
        query,
        resolve(query, snap.records.iter().map(|r| r.id.as_str())),
    )
}

/// Which archived record `query` names.
/// Returns its place in `snap.archive`.
pub fn find_archived(snap: &Snapshot, query: &str) -> Result<usize, ManageError> {
    resolved(
        "forgotten fact",
        query,
        resolve(query, snap.archive.iter().map(|a| a.record.id.as_str())),
    )
}

/// Which pending correction `query` names.
pub fn find_correction<'s>(snap: &'s Snapshot, query: &str) -> Result<&'s Correction, ManageError> {
    let pending: Vec<&Correction> = pending(snap).collect();
    let i = resolved(
        "pending correction",
        query,
        resolve(query, pending.iter().map(|c| c.id.as_str())),
    )?;
    Ok(pending[i])
}

fn resolved(what: &'static str, query: &str, r: Resolved<usize>) -> Result<usize, ManageError> {
    match r {
        Resolved::Found(i) => Ok(i),
        Resolved::NotFound => Err(ManageError::NotFound {
            what,
            query: query.to_string(),
        }),
        Resolved::Ambiguous(ids) => Err(ManageError::Ambiguous {
            what,
            query: query.to_string(),
            ids,
        }),
    }
}

fn pending(snap: &Snapshot) -> impl Iterator<Item = &Correction> {
    snap.corrections
        .iter()
        .filter(|c| c.status == CorrectionStatus::Pending)
}

/// Save a fact the user typed: source `user`, importance 0–1 (default 0.8).
pub fn add(
    ctx: &Ctx,
    text: &str,
    kind: Kind,
    importance: Option<f32>,
) -> Result<Committed<Added>, ManageError> {
    add_with(ctx, Source::User, text, kind, importance, Force::default())
}

/// Save a fact written by `source`: `add` for what the user typed, `synth` for what a model
/// wrote through a tool (`localm mcp`'s `memory_append`). The same rules either way: refused in
/// privacy mode, one normalised line, importance 0–1 (default 0.8) then capped for the source
/// (synth at most 0.85), the same fact already there (ignoring case and spacing) kept as it is
/// whatever its source, at most 256 records. A text holding a secret is refused.
pub fn add_from(
    ctx: &Ctx,
    source: Source,
    text: &str,
    kind: Kind,
    importance: Option<f32>,
) -> Result<Committed<Added>, ManageError> {
    add_with(ctx, source, text, kind, importance, Force::default())
}

/// `add_from`, with what `force` allows: a secret stored when the caller says so.
pub fn add_with(
    ctx: &Ctx,
    source: Source,
    text: &str,
    kind: Kind,
    importance: Option<f32>,
    force: Force,
) -> Result<Committed<Added>, ManageError> {
    refuse_in_privacy(ctx, "add")?;
    let text = normalize_fact(text)?;
    force.check(&text).map_err(ManageError::Secret)?;
    let importance = importance.unwrap_or(DEFAULT_IMPORTANCE);
    if !(0.0..=1.0).contains(&importance) {
        return Err(ManageError::BadImportance(importance));
    }
    let importance = Record::clamp_importance(source, importance);
    ctx.store.write(|snap| {
        import_legacy_once(ctx, snap)?;
        let key = fact_key(&text);
        if let Some(existing) = snap.records.iter().find(|r| fact_key(&r.text) == key) {
            return Ok(Added::Existing(existing.clone()));
        }
        if snap.records.len() >= MAX_RECORDS {
            return Err(ManageError::Full);
        }
        let record = typed_record(ctx, snap, source, text.clone(), kind, importance);
        snap.records.push(record.clone());
        Ok(Added::New(record))
    })
}

/// A new record for text typed through the caller (`ctx.via`): by the user (source `user`), or
/// by a model through a tool (`synth`).
fn typed_record(
    ctx: &Ctx,
    snap: &Snapshot,
    source: Source,
    text: String,
    kind: Kind,
    importance: f32,
) -> Record {
    Record {
        id: snap.fresh_id(&text, ctx.now),
        text,
        kind,
        source,
        importance,
        created_at: ctx.now,
        updated_at: ctx.now,
        last_recalled_at: None,
        recall_count: 0,
        valid_until: None,
        said_at: None,
        provenance: Provenance {
            via: Some(ctx.via.to_string()),
            ..Provenance::default()
        },
    }
}

/// Edit one live record's text, importance, or both. New text is the user's: the record becomes
/// source `user`, and holds for good (a model's `valid_until` said when the model's words stop
/// being true, not the user's). Importance is clamped for the record's source (synth at most
/// 0.85). New text holding a secret is refused, as `add` refuses it.
pub fn patch(
    ctx: &Ctx,
    id: &str,
    text: Option<&str>,
    importance: Option<f32>,
) -> Result<Committed<Record>, ManageError> {
    patch_with(ctx, id, text, importance, Force::default())
}

/// `patch`, with what `force` allows: new text holding a secret stored when the caller says so.
/// Text naming the same fact as the record's (case and spacing aside) is not checked again, so
/// a secret stored with force can still have its importance or spacing changed.
pub fn patch_with(
    ctx: &Ctx,
    id: &str,
    text: Option<&str>,
    importance: Option<f32>,
    force: Force,
) -> Result<Committed<Record>, ManageError> {
    refuse_in_privacy(ctx, "edit")?;
    if text.is_none() && importance.is_none() {
        return Err(ManageError::NothingToChange);
    }
    let text = text.map(normalize_fact).transpose()?;
    if let Some(i) = importance.filter(|i| !(0.0..=1.0).contains(i)) {
        return Err(ManageError::BadImportance(i));
    }
    ctx.store.write(|snap| {
        import_legacy_once(ctx, snap)?;
        let at = find_record(snap, id)?;
        let rid = snap.records[at].id.clone();
        if let Some(text) = &text {
            let key = fact_key(text);
            if key != fact_key(&snap.records[at].text) {
                force.check(text).map_err(ManageError::Secret)?;
            }
            if let Some(other) = snap
                .records
                .iter()
                .find(|r| r.id != rid && fact_key(&r.text) == key)
            {
                return Err(ManageError::Duplicate {
                    id: other.id.clone(),
                });
            }
        }
        let rec = &mut snap.records[at];
        let before = rec.clone();
        if let Some(text) = text.filter(|t| *t != rec.text) {
            rec.text = text;
            rec.source = Source::User;
            rec.valid_until = None;
            rec.provenance = Provenance {
                via: Some(ctx.via.to_string()),
                ..Provenance::default()
            };
        }
        if let Some(i) = importance {
            rec.importance = Record::clamp_importance(rec.source, i);
        }
        if *rec != before {
            rec.updated_at = ctx.now;
        }
        Ok(rec.clone())
    })
}

/// Replace the whole store with `text`, one fact a line (the bulk edit behind `PUT /api/memory`).
/// A line naming an existing fact (same fact key) keeps that record as it is; a new line becomes
/// a user record as `add` makes it; a record no line names is deleted from the live store and
/// archived (reason `bulk_edit`), so `restore` can bring it back. Empty text deletes everything.
///
/// `base` is the generation the text was made from (`Snapshot::generation` of the read the
/// editor showed). When given, it is checked under the store's lock, in the same transaction as
/// the replace: if any write landed since, nothing is changed and the answer is
/// `ManageError::Changed`. Without it the text replaces whatever is there now.
pub fn replace_all(
    ctx: &Ctx,
    text: &str,
    base: Option<u64>,
) -> Result<Committed<Replaced>, ManageError> {
    replace_all_with(ctx, text, base, Force::default())
}

/// `replace_all`, with what `force` allows. A new line holding a secret is refused (nothing
/// changed) unless secrets are forced; a line naming a fact already stored is kept as it is,
/// so a secret stored with force survives an editor's Save.
pub fn replace_all_with(
    ctx: &Ctx,
    text: &str,
    base: Option<u64>,
    force: Force,
) -> Result<Committed<Replaced>, ManageError> {
    refuse_in_privacy(ctx, "replace all")?;
    let chars = text.chars().count();
    if chars > BULK_MAX_CHARS {
        return Err(ManageError::BulkTooLarge { chars });
    }
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !is_blank(l))
        .collect();
    if lines.len() > BULK_MAX_LINES {
        return Err(ManageError::BulkTooManyLines { lines: lines.len() });
    }
    let facts = lines
        .into_iter()
        .map(|(i, l)| {
            let line = i + 1;
            normalize_fact(l)
                .map(|fact| (line, fact))
                .map_err(|source| ManageError::Line { line, source })
        })
        .collect::<Result<Vec<_>, _>>()?;
    ctx.store.write(|snap| {
        // Generations only grow: one past the store's was never read from it.
        if let Some(base) = base.filter(|b| *b > snap.generation) {
            return Err(ManageError::UnknownBase {
                base,
                now: snap.generation,
            });
        }
        if let Some(base) = base.filter(|b| *b != snap.generation) {
            return Err(ManageError::Changed {
                base,
                now: snap.generation,
            });
        }
        import_legacy_once(ctx, snap)?;
        let mut wanted: Vec<(String, String)> = Vec::new();
        for (line, fact) in facts {
            let key = fact_key(&fact);
            if !snap.records.iter().any(|r| fact_key(&r.text) == key) {
                force
                    .check(&fact)
                    .map_err(|kind| ManageError::LineSecret { line, kind })?;
            }
            if !wanted.iter().any(|(k, _)| *k == key) {
                wanted.push((key, fact));
            }
        }
        let mut out = Replaced::default();
        for r in std::mem::take(&mut snap.records) {
            if wanted.iter().any(|(k, _)| *k == fact_key(&r.text)) {
                out.kept.push(r);
            } else {
                out.deleted.push(r);
            }
        }
        snap.records = out.kept.clone();
        for gone in &out.deleted {
            snap.archive_record(gone.clone(), ArchiveReason::BulkEdit, ctx.now);
        }
        for (key, fact) in wanted {
            if snap.records.iter().any(|r| fact_key(&r.text) == key) {
                continue;
            }
            let record = typed_record(
                ctx,
                snap,
                Source::User,
                fact,
                Kind::Semantic,
                DEFAULT_IMPORTANCE,
            );
            snap.records.push(record.clone());
            out.added.push(record);
        }
        Ok(out)
    })
}

/// Delete one live record outright (not archived; not recoverable). Allowed in every mode.
pub fn forget(ctx: &Ctx, id: &str) -> Result<Committed<Record>, ManageError> {
    ctx.store.write(|snap| {
        let at = find_record(snap, id)?;
        Ok(snap.records.remove(at))
    })
}

/// Bring an archived record back into the live store.
pub fn restore(ctx: &Ctx, id: &str) -> Result<Committed<Record>, ManageError> {
    refuse_in_privacy(ctx, "restore")?;
    ctx.store.write(|snap| {
        import_legacy_once(ctx, snap)?;
        let at = find_archived(snap, id)?;
        let key = fact_key(&snap.archive[at].record.text);
        if let Some(live) = snap
            .records
            .iter()
            .find(|r| fact_key(&r.text) == key)
            .cloned()
        {
            snap.archive.remove(at);
            return Ok(live);
        }
        if snap.records.len() >= MAX_RECORDS {
            return Err(ManageError::Full);
        }
        let mut record = snap.archive.remove(at).record;
        record.updated_at = ctx.now;
        // Brought back after its time ran out: the user wants it, so it holds for good now.
        if record.expired(ctx.now) {
            record.valid_until = None;
        }
        snap.records.push(record.clone());
        Ok(record)
    })
}

/// The pending corrections, after pruning those whose target fact is gone. In privacy mode,
/// nothing (pruning is a write).
pub fn corrections(ctx: &Ctx) -> Result<Committed<Vec<Correction>>, ManageError> {
    if !ctx.mode.allows_writes() {
        return Ok(Committed {
            value: Vec::new(),
            corrupt_moved: Vec::new(),
            // Nothing was read: no generation to report.
            generation: 0,
        });
    }
    ctx.store.write(|snap| {
        prune_orphans(snap);
        Ok(pending(snap).cloned().collect())
    })
}

/// Apply a pending correction: archive the old value first, then change or delete the fact.
/// Returns the correction and the record as it now is (None for a delete). An update holds for
/// good (the old words' `valid_until` was theirs, not the words the user accepted); one whose
/// new text holds a secret is refused (a proposal from an older version: reject it).
pub fn accept(ctx: &Ctx, id: &str) -> Result<Committed<(Correction, Option<Record>)>, ManageError> {
    refuse_in_privacy(ctx, "accept")?;
    ctx.store.write(|snap| {
        import_legacy_once(ctx, snap)?;
        prune_orphans(snap);
        let correction = find_correction(snap, id)?.clone();
        let at = snap
            .records
            .iter()
            .position(|r| r.id == correction.target)
            .ok_or_else(|| ManageError::Stale {
                id: correction.id.clone(),
            })?;
        if fact_key(&snap.records[at].text) != fact_key(&correction.old_text) {
            return Err(ManageError::Stale {
                id: correction.id.clone(),
            });
        }
        let old = snap.records[at].clone();
        let result = match (correction.op, &correction.new_text) {
            (CorrectionOp::Update, Some(new_text)) => {
                let new_text = normalize_fact(new_text)?;
                // A proposal made by an older version may hold what this one refuses.
                Force::default()
                    .check(&new_text)
                    .map_err(|kind| ManageError::ProposalSecret {
                        id: correction.id.clone(),
                        kind,
                    })?;
                snap.archive_record(old, ArchiveReason::Superseded, ctx.now);
                let rec = &mut snap.records[at];
                rec.text = new_text;
                rec.updated_at = ctx.now;
                // The user confirmed new words: the old words' time limit is not theirs.
                rec.valid_until = None;
                rec.provenance.via = Some(format!("correction {}", correction.id));
                // The user's words the proposal came from now back the fact.
                rec.provenance.add_evidence(&correction.provenance.evidence);
                Some(rec.clone())
            }
            _ => {
                snap.records.remove(at);
                snap.archive_record(old, ArchiveReason::Superseded, ctx.now);
                None
            }
        };
        snap.corrections.retain(|c| c.id != correction.id);
        Ok((correction, result))
    })
}

/// Dismiss a pending correction; it is remembered so the same contradiction is not proposed again.
pub fn reject(ctx: &Ctx, id: &str) -> Result<Committed<Correction>, ManageError> {
    refuse_in_privacy(ctx, "reject")?;
    ctx.store.write(|snap| {
        import_legacy_once(ctx, snap)?;
        let cid = find_correction(snap, id)?.id.clone();
        let c = snap
            .corrections
            .iter_mut()
            .find(|c| c.id == cid)
            .ok_or(ManageError::NotFound {
                what: "pending correction",
                query: cid.clone(),
            })?;
        c.status = CorrectionStatus::Dismissed;
        Ok(c.clone())
    })
}

/// Erase everything: live facts, the archive, corrections, vectors. Allowed in every mode.
pub fn clear(ctx: &Ctx) -> Result<ClearReport, ManageError> {
    Ok(ctx.store.clear()?)
}

/// A line `normalize_fact` would find empty: only white space, control and invisible characters.
fn is_blank(line: &str) -> bool {
    line.chars()
        .all(|c| c.is_whitespace() || c.is_control() || crate::chars::is_invisible(c))
}

fn refuse_in_privacy(ctx: &Ctx, what: &'static str) -> Result<(), ManageError> {
    if ctx.mode.allows_writes() {
        Ok(())
    } else {
        Err(ManageError::Privacy(what))
    }
}

/// Drop pending proposals whose target fact is gone. Dismissed ones stay: they are what keeps a
/// rejected contradiction from being proposed again.
fn prune_orphans(snap: &mut Snapshot) {
    let live: std::collections::HashSet<String> =
        snap.records.iter().map(|r| r.id.clone()).collect();
    snap.corrections
        .retain(|c| c.status != CorrectionStatus::Pending || live.contains(&c.target));
}

/// Import `chat-memory.md` once, the first time the store is written in log/full mode.
pub fn import_legacy_once(ctx: &Ctx, snap: &mut Snapshot) -> Result<usize, StoreError> {
    if !ctx.mode.allows_writes() || snap.state.legacy_imported {
        return Ok(0);
    }
    let text = match std::fs::read_to_string(&ctx.legacy_file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(StoreError::Read {
                path: ctx.legacy_file.clone(),
                source,
            });
        }
    };
    let mut imported = 0;
    for fact in parse_legacy(&text) {
        if snap.records.len() >= MAX_RECORDS {
            break;
        }
        let key = fact_key(&fact);
        if snap.records.iter().any(|r| fact_key(&r.text) == key) {
            continue;
        }
        snap.records.push(Record {
            id: snap.fresh_id(&fact, ctx.now),
            text: fact,
            kind: Kind::Semantic,
            source: Source::Import,
            importance: IMPORT_IMPORTANCE,
            created_at: ctx.now,
            updated_at: ctx.now,
            last_recalled_at: None,
            recall_count: 0,
            valid_until: None,
            said_at: None,
            provenance: Provenance {
                via: Some(crate::legacy::LEGACY_FILE.to_string()),
                ..Provenance::default()
            },
        });
        imported += 1;
    }
    snap.state.legacy_imported = true;
    Ok(imported)
}

#[cfg(test)]
mod tests;
