//! The user's operations: every rule of "From the terminal", on a temp store.

use super::*;
use crate::store::archive::ArchiveReason;
use std::time::Duration;

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    legacy: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path(), "chat", "test").with_wait(Duration::from_millis(50));
    let legacy = dir.path().join("chat-memory.md");
    Fixture {
        _dir: dir,
        store,
        legacy,
    }
}

fn at(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

impl Fixture {
    fn ctx(&self, mode: Mode) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            mode,
            legacy_file: self.legacy.clone(),
            now: at("2026-03-01T12:00:00Z"),
            via: "cli",
        }
    }
    fn add(&self, text: &str) -> Record {
        match add(&self.ctx(Mode::Log), text, Kind::Semantic, None)
            .unwrap()
            .value
        {
            Added::New(r) | Added::Existing(r) => r,
        }
    }
}

#[test]
fn add_makes_a_user_record_with_default_importance() {
    let f = fixture();
    let r = f.add("  Prefers tea \n over coffee ");
    assert_eq!(r.text, "Prefers tea over coffee");
    assert_eq!(r.source, Source::User);
    assert_eq!(r.importance, DEFAULT_IMPORTANCE);
    assert_eq!(r.kind, Kind::Semantic);
    assert_eq!(r.provenance.via.as_deref(), Some("cli"));
    assert_eq!(f.store.read().unwrap().records, vec![r]);
}

#[test]
fn add_refusals() {
    let f = fixture();
    let ctx = f.ctx(Mode::Log);
    assert!(matches!(
        add(&ctx, "   ", Kind::Semantic, None),
        Err(ManageError::Text(TextError::Empty))
    ));
    assert!(matches!(
        add(&ctx, &"x".repeat(501), Kind::Semantic, None),
        Err(ManageError::Text(TextError::TooLong { chars: 501 }))
    ));
    assert!(matches!(
        add(&ctx, "fine", Kind::Semantic, Some(1.5)),
        Err(ManageError::BadImportance(_))
    ));
    assert!(matches!(
        add(&f.ctx(Mode::Privacy), "fine", Kind::Semantic, None),
        Err(ManageError::Privacy("add"))
    ));
    assert!(f.store.read().unwrap().records.is_empty());
}

#[test]
fn add_refuses_the_257th_record() {
    let f = fixture();
    f.store
        .write(|snap| {
            for i in 0..MAX_RECORDS {
                let mut r = Record {
                    id: format!("{i:08x}"),
                    text: format!("fact number {i}"),
                    kind: Kind::Semantic,
                    source: Source::User,
                    importance: 0.5,
                    created_at: at("2026-01-01T00:00:00Z"),
                    updated_at: at("2026-01-01T00:00:00Z"),
                    last_recalled_at: None,
                    recall_count: 0,
                    provenance: Provenance::default(),
                };
                r.text.push('.');
                snap.records.push(r);
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert!(matches!(
        add(&f.ctx(Mode::Log), "one too many", Kind::Semantic, None),
        Err(ManageError::Full)
    ));
    assert_eq!(f.store.read().unwrap().records.len(), MAX_RECORDS);
}

#[test]
fn adding_the_same_fact_twice_keeps_one() {
    let f = fixture();
    let a = f.add("Uses Neovim");
    let b = add(&f.ctx(Mode::Log), "uses  neovim", Kind::Semantic, None)
        .unwrap()
        .value;
    assert_eq!(b, Added::Existing(a));
    assert_eq!(f.store.read().unwrap().records.len(), 1);
}

#[test]
fn forget_deletes_outright_even_in_privacy_and_does_not_archive() {
    let f = fixture();
    let r = f.add("Lives in Oslo");
    let gone = forget(&f.ctx(Mode::Privacy), &r.id[..3]).unwrap().value;
    assert_eq!(gone.id, r.id);
    let snap = f.store.read().unwrap();
    assert!(snap.records.is_empty());
    assert!(snap.archive.is_empty());
}

#[test]
fn ids_resolve_by_prefix_and_report_ambiguity() {
    let f = fixture();
    f.store
        .write(|snap| {
            for (id, text) in [("ab000001", "one"), ("ab000002", "two")] {
                snap.records.push(Record {
                    id: id.into(),
                    text: text.into(),
                    kind: Kind::Semantic,
                    source: Source::User,
                    importance: 0.5,
                    created_at: at("2026-01-01T00:00:00Z"),
                    updated_at: at("2026-01-01T00:00:00Z"),
                    last_recalled_at: None,
                    recall_count: 0,
                    provenance: Provenance::default(),
                });
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let snap = f.store.read().unwrap();
    assert!(matches!(
        find_record(&snap, "ab"),
        Err(ManageError::Ambiguous { .. })
    ));
    assert!(matches!(
        find_record(&snap, "zz"),
        Err(ManageError::NotFound { .. })
    ));
    assert_eq!(find_record(&snap, "ab000002").unwrap().text, "two");
    let msg = find_record(&snap, "ab").unwrap_err().to_string();
    assert!(msg.contains("ab000001, ab000002"), "{msg}");
}

fn with_archived(f: &Fixture, text: &str) -> String {
    let r = f.add(text);
    f.store
        .write(|snap| {
            let rec = snap.records.remove(0);
            snap.archive_record(rec, ArchiveReason::Evicted, at("2026-03-02T00:00:00Z"));
            Ok::<_, StoreError>(())
        })
        .unwrap();
    r.id
}

#[test]
fn restore_reaches_only_the_archive_and_refuses_in_privacy() {
    let f = fixture();
    let id = with_archived(&f, "Drinks oolong");
    assert!(matches!(
        restore(&f.ctx(Mode::Privacy), &id),
        Err(ManageError::Privacy("restore"))
    ));
    let live = f.add("Lives in Oslo");
    assert!(matches!(
        restore(&f.ctx(Mode::Log), &live.id),
        Err(ManageError::NotFound { .. })
    ));
    let back = restore(&f.ctx(Mode::Log), &id).unwrap().value;
    assert_eq!(back.text, "Drinks oolong");
    let snap = f.store.read().unwrap();
    assert!(snap.archive.is_empty());
    assert_eq!(snap.records.len(), 2);
}

fn propose(f: &Fixture, target: &Record, op: CorrectionOp, new_text: Option<&str>) -> String {
    let id = format!("c{}", &target.id[..7]);
    f.store
        .write(|snap| {
            snap.corrections.push(Correction {
                id: id.clone(),
                target: target.id.clone(),
                op,
                old_text: target.text.clone(),
                new_text: new_text.map(str::to_string),
                confidence: 0.9,
                status: CorrectionStatus::Pending,
                created_at: at("2026-03-01T00:00:00Z"),
                provenance: Provenance::default(),
            });
            Ok::<_, StoreError>(())
        })
        .unwrap();
    id
}

#[test]
fn accept_update_archives_old_value_then_applies() {
    let f = fixture();
    let r = f.add("Works at Acme");
    let cid = propose(&f, &r, CorrectionOp::Update, Some("Works at Initech"));
    let (c, now) = accept(&f.ctx(Mode::Log), &cid).unwrap().value;
    assert_eq!(c.id, cid);
    let now = now.unwrap();
    assert_eq!(now.id, r.id, "the fact keeps its id");
    assert_eq!(now.text, "Works at Initech");
    let snap = f.store.read().unwrap();
    assert_eq!(snap.archive.len(), 1);
    assert_eq!(snap.archive[0].record.text, "Works at Acme");
    assert_eq!(snap.archive[0].reason, ArchiveReason::Superseded);
    assert!(snap.corrections.is_empty());
    // The old value is recoverable.
    let back = restore(&f.ctx(Mode::Log), &snap.archive[0].record.id)
        .unwrap()
        .value;
    assert_eq!(back.text, "Works at Acme");
}

#[test]
fn accept_delete_archives_the_fact() {
    let f = fixture();
    let r = f.add("Owns a cat");
    let cid = propose(&f, &r, CorrectionOp::Delete, None);
    let (_, now) = accept(&f.ctx(Mode::Log), &cid).unwrap().value;
    assert!(now.is_none());
    let snap = f.store.read().unwrap();
    assert!(snap.records.is_empty());
    assert_eq!(snap.archive[0].record.id, r.id);
}

#[test]
fn reject_remembers_the_dismissal() {
    let f = fixture();
    let r = f.add("Works at Acme");
    let cid = propose(&f, &r, CorrectionOp::Update, Some("Works at Initech"));
    assert!(matches!(
        reject(&f.ctx(Mode::Privacy), &cid),
        Err(ManageError::Privacy("reject"))
    ));
    let c = reject(&f.ctx(Mode::Log), &cid).unwrap().value;
    assert_eq!(c.status, CorrectionStatus::Dismissed);
    let snap = f.store.read().unwrap();
    assert_eq!(snap.records[0].text, "Works at Acme");
    assert!(snap.corrections[0].same_as(
        CorrectionOp::Update,
        "works at acme",
        Some("Works at Initech")
    ));
    assert!(corrections(&f.ctx(Mode::Log)).unwrap().value.is_empty());
    assert!(matches!(
        accept(&f.ctx(Mode::Log), &cid),
        Err(ManageError::NotFound { .. })
    ));
}

#[test]
fn listing_prunes_orphans_but_not_in_privacy() {
    let f = fixture();
    let r = f.add("Works at Acme");
    propose(&f, &r, CorrectionOp::Update, Some("Works at Initech"));
    forget(&f.ctx(Mode::Log), &r.id).unwrap();
    assert!(corrections(&f.ctx(Mode::Privacy)).unwrap().value.is_empty());
    assert_eq!(
        f.store.read().unwrap().corrections.len(),
        1,
        "privacy wrote nothing"
    );
    assert!(corrections(&f.ctx(Mode::Log)).unwrap().value.is_empty());
    assert!(f.store.read().unwrap().corrections.is_empty());
}

#[test]
fn accept_refuses_a_stale_proposal() {
    let f = fixture();
    let r = f.add("Works at Acme");
    let cid = propose(&f, &r, CorrectionOp::Update, Some("Works at Initech"));
    f.store
        .write(|snap| {
            snap.records[0].text = "Works at Globex".into();
            Ok::<_, StoreError>(())
        })
        .unwrap();
    assert!(matches!(
        accept(&f.ctx(Mode::Log), &cid),
        Err(ManageError::Stale { .. })
    ));
    assert_eq!(f.store.read().unwrap().records[0].text, "Works at Globex");
}

#[test]
fn legacy_file_is_imported_once_in_log_mode_only() {
    let f = fixture();
    std::fs::write(&f.legacy, "# Memory\n- Name is Ada\n- Uses vim\n").unwrap();
    // Privacy: never imported; forget in privacy writes but does not import.
    assert!(add(&f.ctx(Mode::Privacy), "x", Kind::Semantic, None).is_err());
    f.add("Likes jazz");
    let snap = f.store.read().unwrap();
    let imported: Vec<_> = snap
        .records
        .iter()
        .filter(|r| r.source == Source::Import)
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(imported, vec!["Name is Ada", "Uses vim"]);
    assert!(snap.state.legacy_imported);
    // Forgetting an imported fact and writing again does not bring it back.
    let ada = snap
        .records
        .iter()
        .find(|r| r.text == "Name is Ada")
        .unwrap();
    forget(&f.ctx(Mode::Log), &ada.id).unwrap();
    f.add("Likes blues");
    let snap = f.store.read().unwrap();
    assert!(!snap.records.iter().any(|r| r.text == "Name is Ada"));
}

#[test]
fn clear_erases_facts_archive_and_corrections() {
    let f = fixture();
    let r = f.add("Works at Acme");
    propose(&f, &r, CorrectionOp::Update, Some("Works at Initech"));
    with_archived(&f, "Drinks oolong");
    let report = clear(&f.ctx(Mode::Privacy)).unwrap();
    assert_eq!(report.records, 1);
    assert_eq!(report.archived, 1);
    assert_eq!(report.corrections, 1);
    let snap = f.store.read().unwrap();
    assert!(snap.records.is_empty() && snap.archive.is_empty() && snap.corrections.is_empty());
}
