//! The apply step: the planned changes folded into the store as it is at write time (under the
//! lock), evicting at the cap and decaying into the archive, and the session watermarks moved.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::Pass;
use super::plan::Planned;
use super::prune;
use super::report::{Report, Skipped, Touched};
use crate::id::new_id;
use crate::record::{Evidence, Kind, MAX_RECORDS, Provenance, Record, Source};
use crate::same_fact::key as fact_key;
use crate::store::Snapshot;
use crate::store::archive::ArchiveReason;
use crate::store::corrections::{Correction, CorrectionOp, CorrectionStatus};
use crate::store::state::SetAside;

/// One planned change, with the sessions it came from and the user's words it was written from.
pub(super) struct Change {
    pub(super) planned: Planned,
    pub(super) sessions: Vec<String>,
    /// The user's clauses the fact came from, oldest first: the new record's evidence on ADD,
    /// added to the target's on UPDATE, the correction's on a proposal.
    pub(super) evidence: Vec<Evidence>,
    /// When the fact stops holding, if the user's clause bounded it in time (`until`): the new
    /// record's on ADD, the target's new one on UPDATE.
    pub(super) valid_until: Option<DateTime<Utc>>,
    /// When the user said it (the log line's time), if the line had one.
    pub(super) said_at: Option<DateTime<Utc>>,
}

/// Apply planned changes to the store as it is now.
pub(super) fn apply(
    pass: &Pass,
    snap: &mut Snapshot,
    changes: Vec<Change>,
    read_to: &[(String, usize)],
    summarised: &[String],
    set_aside: &[(String, SetAside)],
    report: &mut Report,
) {
    for ch in changes {
        let Change {
            planned,
            sessions,
            evidence,
            valid_until,
            said_at,
        } = ch;
        let from = Origin {
            pass,
            sessions: &sessions,
            evidence: &evidence,
            valid_until,
            said_at,
        };
        match planned {
            Planned::Skip { text, why } => report.skipped.push(Skipped::because(text, why)),
            Planned::Refused { text, refusal } => {
                report.skipped.push(Skipped::refused(text, refusal));
            }
            Planned::Known { target, text, why } => {
                merge_evidence(snap, |r| r.id == target, &from);
                report.skipped.push(Skipped::because(text, why));
            }
            Planned::Add {
                text,
                kind,
                importance,
            } => add(snap, report, &from, text, kind, importance),
            Planned::Update { target, text } => update(snap, report, &from, &target, text),
            Planned::Delete { target } => delete(snap, report, pass.now, &target),
            Planned::Propose {
                target,
                op,
                new_text,
                confidence,
            } => propose(snap, report, &from, target, op, new_text, confidence),
        }
    }
    prune_store(snap, report, pass.now);
    move_watermarks(snap, pass.now, read_to, summarised, set_aside);
}

/// Where a change came from: the pass, the sessions and the user's words it was written from,
/// and when the fact stops holding.
struct Origin<'a> {
    pass: &'a Pass<'a>,
    sessions: &'a [String],
    evidence: &'a [Evidence],
    valid_until: Option<DateTime<Utc>>,
    said_at: Option<DateTime<Utc>>,
}

impl Origin<'_> {
    /// The provenance of what this change writes, with `evidence`.
    fn provenance(&self, evidence: &[Evidence]) -> Provenance {
        let mut p = Provenance {
            sessions: self.sessions.to_vec(),
            pass: Some(self.pass.pass_id.clone()),
            ..Provenance::default()
        };
        p.add_evidence(evidence);
        p
    }
}

/// ADD: a new synth record, unless the store knows the fact already (then its evidence grows);
/// at the cap, the weakest record makes room, into the archive.
fn add(
    snap: &mut Snapshot,
    report: &mut Report,
    from: &Origin,
    text: String,
    kind: Kind,
    importance: f32,
) {
    let now = from.pass.now;
    let key = fact_key(&text);
    if let Some(known) = snap.records.iter_mut().find(|r| fact_key(&r.text) == key) {
        // Said again, in the same words: whoever wrote it, it was said later.
        known.said_again(from.said_at);
        merge_evidence(snap, |r| fact_key(&r.text) == key, from);
        report.skipped.push(Skipped::because(text, "already known"));
        return;
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
        valid_until: from.valid_until,
        said_at: from.said_at,
        provenance: from.provenance(from.evidence),
    };
    let touched = Touched::of(&record);
    if kind == Kind::Episodic {
        report.episodic.push(touched);
    } else {
        report.added.push(touched);
    }
    snap.records.push(record);
}

/// UPDATE: the synth record `target` takes the new text, its old self archived as superseded;
/// the words it was first written from still back it.
fn update(snap: &mut Snapshot, report: &mut Report, from: &Origin, target: &str, text: String) {
    let now = from.pass.now;
    let Some(i) = snap
        .records
        .iter()
        .position(|r| r.id == target && r.source == Source::Synth)
    else {
        report
            .skipped
            .push(Skipped::because(text, "its target changed meanwhile"));
        return;
    };
    let old = snap.records[i].clone();
    snap.archive_record(old, ArchiveReason::Superseded, now);
    let r = &mut snap.records[i];
    r.text = text;
    r.updated_at = now;
    // The newer value holds for as long as it says, or for good.
    r.valid_until = from.valid_until;
    r.said_at = from.said_at;
    // The words it was first written from still back it: evidence is kept.
    let kept = std::mem::take(&mut r.provenance.evidence);
    r.provenance = from.provenance(&kept);
    r.provenance.add_evidence(from.evidence);
    report.updated.push(Touched::of(r));
}

/// DELETE: the synth record `target` goes to the archive as superseded (a record the user typed
/// is never the model's to delete).
fn delete(snap: &mut Snapshot, report: &mut Report, now: DateTime<Utc>, target: &str) {
    let Some(i) = snap
        .records
        .iter()
        .position(|r| r.id == target && r.source == Source::Synth)
    else {
        return;
    };
    let gone = snap.records.remove(i);
    report.deleted.push(Touched::of(&gone));
    snap.archive_record(gone, ArchiveReason::Superseded, now);
}

/// A proposed correction to a record the user typed, pending their word; one like it already
/// pending is not proposed twice.
fn propose(
    snap: &mut Snapshot,
    report: &mut Report,
    from: &Origin,
    target: String,
    op: CorrectionOp,
    new_text: Option<String>,
    confidence: f32,
) {
    let now = from.pass.now;
    let Some(t) = snap.records.iter().find(|r| r.id == target) else {
        return;
    };
    let old_text = t.text.clone();
    let exists = snap
        .corrections
        .iter()
        .any(|c| c.target == target && c.same_as(op, &old_text, new_text.as_deref()));
    if exists {
        return;
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
        provenance: from.provenance(from.evidence),
    });
    report.proposed.push(Touched { id, text: shown });
}

/// Records that decayed or whose time ran out go to the archive.
fn prune_store(snap: &mut Snapshot, report: &mut Report, now: DateTime<Utc>) {
    for i in prune::decayed(&snap.records, now).into_iter().rev() {
        let gone = snap.records.remove(i);
        report.archived.push(Touched::of(&gone));
        snap.archive_record(gone, ArchiveReason::Decayed, now);
    }
    for i in prune::expired(&snap.records, now).into_iter().rev() {
        let gone = snap.records.remove(i);
        report.archived.push(Touched::of(&gone));
        snap.archive_record(gone, ArchiveReason::Expired, now);
    }
}

/// Each session's watermark moves to the line read to; a log read whole is no longer set aside;
/// a log the pass failed on is; a summarised one records when.
fn move_watermarks(
    snap: &mut Snapshot,
    now: DateTime<Utc>,
    read_to: &[(String, usize)],
    summarised: &[String],
    set_aside: &[(String, SetAside)],
) {
    for (id, lines) in read_to {
        let mark = snap.state.sessions.entry(id.clone()).or_default();
        mark.lines_read = *lines;
        // Read whole this time: a log set aside by an older version is back.
        mark.set_aside = None;
    }
    for (id, aside) in set_aside {
        snap.state.sessions.entry(id.clone()).or_default().set_aside = Some(aside.clone());
    }
    for id in summarised {
        snap.state
            .sessions
            .entry(id.clone())
            .or_default()
            .summarised_at = Some(now);
    }
}

/// The user's words a skipped candidate came from join the evidence of the synth fact it is
/// already known as (the first that `is_it`), newest kept: a fact said twice shows both times.
/// A fact the user typed is left as it is.
fn merge_evidence(snap: &mut Snapshot, is_it: impl Fn(&Record) -> bool, from: &Origin) {
    if from.evidence.is_empty() {
        return;
    }
    if let Some(r) = snap
        .records
        .iter_mut()
        .find(|r| r.source == Source::Synth && is_it(r))
    {
        r.provenance.add_evidence(from.evidence);
        r.said_again(from.said_at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::consolidate::{Extraction, Status};
    use crate::record::MAX_EVIDENCE;
    use crate::settings::Mode;
    use crate::store::Store;

    fn at(hour: u32) -> DateTime<Utc> {
        format!("2026-11-02T{hour:02}:00:00Z").parse().unwrap()
    }

    fn said(line: usize, quote: &str) -> Evidence {
        Evidence::new("chat-2026-11-02", line, quote)
    }

    /// `changes` applied to `snap` by a pass at `hour`.
    fn run(snap: &mut Snapshot, hour: u32, changes: Vec<Change>) -> Report {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path(), "chat", "test");
        let pass = Pass {
            store: &store,
            sessions_dir: dir.path().join("sessions"),
            mode: Mode::Log,
            now: at(hour),
            pass_id: format!("p{hour}"),
            extraction: Extraction::Rule,
            elapsed: &|| std::time::Duration::ZERO,
        };
        let mut report = Report::with_status(Status::Ok, None);
        apply(&pass, snap, changes, &[], &[], &[], &mut report);
        report
    }

    fn change(planned: Planned, evidence: Vec<Evidence>) -> Change {
        Change {
            planned,
            sessions: vec!["chat-2026-11-02".into()],
            evidence,
            valid_until: None,
            said_at: None,
        }
    }

    fn add(text: &str, evidence: Vec<Evidence>) -> Change {
        let planned = Planned::Add {
            text: text.into(),
            kind: Kind::Semantic,
            importance: 0.7,
        };
        change(planned, evidence)
    }

    fn update(target: &str, text: &str, evidence: Vec<Evidence>) -> Change {
        let planned = Planned::Update {
            target: target.into(),
            text: text.into(),
        };
        change(planned, evidence)
    }

    #[test]
    fn an_added_fact_keeps_the_words_it_came_from() {
        let mut snap = Snapshot::default();
        let quote = said(3, "I adopted a beagle named Biscuit");
        run(
            &mut snap,
            1,
            vec![add(
                "User adopted a beagle named Biscuit",
                vec![quote.clone()],
            )],
        );
        assert_eq!(snap.records[0].provenance.evidence, vec![quote]);
        assert_eq!(snap.records[0].provenance.pass.as_deref(), Some("p1"));
    }

    #[test]
    fn a_fact_with_a_time_expires_into_the_archive_after_it_and_an_update_takes_the_new_time() {
        let mut snap = Snapshot::default();
        let bounded = Change {
            valid_until: Some(at(5)),
            ..add("User is on antibiotics", vec![])
        };
        run(
            &mut snap,
            1,
            vec![bounded, add("User has a beagle", vec![])],
        );
        assert_eq!(snap.records[0].valid_until, Some(at(5)));
        assert_eq!(snap.records[1].valid_until, None);
        // Still holding at 4: kept. A new value with no time of its own holds for good.
        let id = snap.records[1].id.clone();
        let report = run(&mut snap, 4, vec![]);
        assert!(report.archived.is_empty(), "{report:?}");
        let dated = Change {
            valid_until: Some(at(6)),
            ..update(&id, "User has a beagle named Biscuit", vec![])
        };
        run(&mut snap, 4, vec![dated]);
        // At 5 the first fact's time is up; at 6 the updated one's.
        let report = run(&mut snap, 5, vec![]);
        assert_eq!(
            report.archived[0].text, "User is on antibiotics",
            "{report:?}"
        );
        assert_eq!(snap.records.len(), 1);
        let report = run(&mut snap, 6, vec![]);
        assert_eq!(report.archived.len(), 1, "{report:?}");
        assert!(snap.records.is_empty());
        let expired = snap
            .archive
            .iter()
            .filter(|a| a.reason == ArchiveReason::Expired);
        assert_eq!(expired.count(), 2, "{:?}", snap.archive);
    }

    #[test]
    fn an_update_keeps_the_old_evidence_and_adds_the_new() {
        let mut snap = Snapshot::default();
        let first = said(3, "I adopted a beagle named Biscuit");
        run(
            &mut snap,
            1,
            vec![add("User has a beagle", vec![first.clone()])],
        );
        let id = snap.records[0].id.clone();
        let second = said(9, "Biscuit turned two today");
        let report = run(
            &mut snap,
            2,
            vec![update(
                &id,
                "User has a two-year-old beagle named Biscuit",
                vec![first.clone(), second.clone()],
            )],
        );
        assert_eq!(report.updated.len(), 1);
        let r = &snap.records[0];
        assert_eq!(r.text, "User has a two-year-old beagle named Biscuit");
        assert_eq!(r.provenance.evidence, vec![first, second.clone()]);
        assert_eq!(r.provenance.pass.as_deref(), Some("p2"));
        // An update with no words of its own still keeps what backed the fact.
        run(
            &mut snap,
            3,
            vec![update(&id, "User has a beagle, Biscuit", vec![])],
        );
        assert_eq!(snap.records[0].provenance.evidence.len(), 2);
        assert_eq!(snap.records[0].provenance.evidence[1], second);
    }

    #[test]
    fn evidence_is_capped_at_the_newest_across_updates() {
        let mut snap = Snapshot::default();
        run(&mut snap, 1, vec![add("User runs", vec![said(1, "I run")])]);
        let id = snap.records[0].id.clone();
        for hour in 2..=6 {
            let line = hour as usize;
            let text = format!("User runs {hour} times a week");
            let quote = format!("I run {hour} times a week");
            run(
                &mut snap,
                hour,
                vec![update(&id, &text, vec![said(line, &quote)])],
            );
        }
        let lines: Vec<usize> = snap.records[0]
            .provenance
            .evidence
            .iter()
            .map(|e| e.line)
            .collect();
        assert_eq!(lines.len(), MAX_EVIDENCE);
        assert_eq!(lines, [3, 4, 5, 6]);
    }

    #[test]
    fn a_proposed_correction_carries_its_evidence() {
        let mut snap = Snapshot::default();
        snap.records.push(Record::fixture(
            "aaaa0001",
            "Lives in Berlin",
            Source::User,
            at(0),
        ));
        let quote = said(4, "I moved to Paris last month");
        let planned = Planned::Propose {
            target: "aaaa0001".into(),
            op: CorrectionOp::Update,
            new_text: Some("Lives in Paris".into()),
            confidence: 0.9,
        };
        run(&mut snap, 1, vec![change(planned, vec![quote.clone()])]);
        assert_eq!(snap.corrections[0].provenance.evidence, vec![quote]);
        // The user's fact itself is not touched until the correction is accepted.
        assert!(snap.records[0].provenance.evidence.is_empty());
    }
}
