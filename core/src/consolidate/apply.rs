//! The apply step: the planned changes folded into the store as it is at write time (under the
//! lock), evicting at the cap and decaying into the archive, and the session watermarks moved.

use std::collections::HashSet;

use super::Pass;
use super::plan::Planned;
use super::prune;
use super::report::{Report, Skipped, Touched};
use crate::id::new_id;
use crate::record::{Kind, MAX_RECORDS, Provenance, Record, Source};
use crate::store::Snapshot;
use crate::store::archive::ArchiveReason;
use crate::store::corrections::{Correction, CorrectionOp, CorrectionStatus};
use crate::text::fact_key;

/// One planned change, with the sessions it came from.
pub(super) struct Change {
    pub(super) planned: Planned,
    pub(super) sessions: Vec<String>,
}

/// Apply planned changes to the store as it is now.
pub(super) fn apply(
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
                    report.archived.push(Touched::of(&gone));
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
                let touched = Touched::of(&record);
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
                report.updated.push(Touched::of(r));
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
                report.deleted.push(Touched::of(&gone));
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
        report.archived.push(Touched::of(&gone));
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
