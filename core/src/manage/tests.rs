//! The user's operations: every rule of "From the terminal", on a temp store.

use super::*;
use crate::record::SYNTH_IMPORTANCE_CAP;
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
fn add_from_a_model_is_synth_capped_and_never_replaces_a_users_fact() {
    let f = fixture();
    let mcp = Ctx {
        via: "mcp",
        ..f.ctx(Mode::Log)
    };
    let added = add_from(
        &mcp,
        Source::Synth,
        "Runs Arch Linux",
        Kind::Semantic,
        Some(1.0),
    )
    .unwrap()
    .value;
    let Added::New(r) = added else {
        panic!("a new fact is added: {added:?}")
    };
    assert_eq!(r.source, Source::Synth);
    assert_eq!(r.importance, SYNTH_IMPORTANCE_CAP);
    assert_eq!(r.provenance.via.as_deref(), Some("mcp"));
    // The user's own fact stays theirs when a model saves it again.
    let mine = f.add("Prefers green tea");
    let again = add_from(
        &mcp,
        Source::Synth,
        "prefers GREEN tea",
        Kind::Semantic,
        None,
    )
    .unwrap()
    .value;
    assert_eq!(again, Added::Existing(mine));
    // The same refusals as `add`.
    assert!(matches!(
        add_from(&mcp, Source::Synth, " \u{200B} ", Kind::Semantic, None),
        Err(ManageError::Text(TextError::Empty))
    ));
    assert!(matches!(
        add_from(&mcp, Source::Synth, "fine", Kind::Semantic, Some(-0.1)),
        Err(ManageError::BadImportance(_))
    ));
    let privacy = Ctx {
        mode: Mode::Privacy,
        ..f.ctx(Mode::Log)
    };
    assert!(matches!(
        add_from(&privacy, Source::Synth, "fine", Kind::Semantic, None),
        Err(ManageError::Privacy("add"))
    ));
    assert_eq!(f.store.read().unwrap().records.len(), 2);
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
                    valid_until: None,
                    said_at: None,
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
                    valid_until: None,
                    said_at: None,
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
    assert_eq!(
        snap.records[find_record(&snap, "ab000002").unwrap()].text,
        "two"
    );
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

#[test]
fn a_fact_restored_after_its_time_ran_out_holds_for_good() {
    let f = fixture();
    let r = f.add("Is on antibiotics");
    f.store
        .write(|snap| {
            let mut rec = snap.records.remove(0);
            rec.valid_until = Some(at("2026-02-20T00:00:00Z"));
            snap.archive_record(rec, ArchiveReason::Expired, at("2026-02-21T00:00:00Z"));
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let back = restore(&f.ctx(Mode::Log), &r.id).unwrap().value;
    assert_eq!(back.valid_until, None);
    assert_eq!(f.store.read().unwrap().records[0].valid_until, None);
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
    let said = crate::record::Evidence::new("s1", 2, "I started at Initech on Monday");
    f.store
        .write(|snap| {
            snap.corrections[0].provenance.evidence = vec![said.clone()];
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let (c, now) = accept(&f.ctx(Mode::Log), &cid).unwrap().value;
    assert_eq!(c.id, cid);
    let now = now.unwrap();
    assert_eq!(now.id, r.id, "the fact keeps its id");
    assert_eq!(now.text, "Works at Initech");
    // The words the correction came from now back the fact.
    assert_eq!(now.provenance.evidence, vec![said]);
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

/// Put records straight into the store (any source), as consolidation or an import would.
fn seed(f: &Fixture, records: &[(&str, &str, Source, f32)]) {
    f.store
        .write(|snap| {
            for (id, text, source, importance) in records {
                let mut r = Record::fixture(id, text, *source, at("2026-01-01T00:00:00Z"));
                r.importance = *importance;
                r.provenance.sessions = vec!["s1".into()];
                snap.records.push(r);
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn texts(f: &Fixture) -> Vec<String> {
    f.store
        .read()
        .unwrap()
        .records
        .into_iter()
        .map(|r| r.text)
        .collect()
}

#[test]
fn patch_text_makes_the_fact_the_users() {
    let f = fixture();
    seed(&f, &[("aa000001", "Works at Acme", Source::Synth, 0.6)]);
    let r = patch(&f.ctx(Mode::Log), "aa", Some("  Works at\nInitech "), None)
        .unwrap()
        .value;
    assert_eq!(r.id, "aa000001", "the fact keeps its id");
    assert_eq!(r.text, "Works at Initech");
    assert_eq!(r.source, Source::User);
    assert_eq!(r.importance, 0.6, "importance unchanged");
    assert_eq!(r.updated_at, at("2026-03-01T12:00:00Z"));
    assert_eq!(r.created_at, at("2026-01-01T00:00:00Z"));
    assert_eq!(r.provenance.via.as_deref(), Some("cli"));
    assert!(
        r.provenance.sessions.is_empty(),
        "the text no longer comes from a session"
    );
    assert_eq!(f.store.read().unwrap().records, vec![r]);
}

#[test]
fn patch_importance_only_keeps_the_source_and_clamps_synth() {
    let f = fixture();
    seed(
        &f,
        &[
            ("aa000001", "Likes jazz", Source::Synth, 0.5),
            ("bb000001", "Uses vim", Source::Import, 0.7),
        ],
    );
    let r = patch(&f.ctx(Mode::Log), "aa000001", None, Some(0.95))
        .unwrap()
        .value;
    assert_eq!(r.source, Source::Synth);
    assert_eq!(r.importance, 0.85, "synth is capped");
    assert_eq!(r.text, "Likes jazz");
    assert_eq!(r.provenance.sessions, vec!["s1".to_string()]);
    assert_eq!(r.updated_at, at("2026-03-01T12:00:00Z"));
    let r = patch(&f.ctx(Mode::Log), "bb", None, Some(1.0))
        .unwrap()
        .value;
    assert_eq!((r.source, r.importance), (Source::Import, 1.0));
}

#[test]
fn patch_both_clamps_for_the_new_source() {
    let f = fixture();
    seed(&f, &[("aa000001", "Likes jazz", Source::Synth, 0.5)]);
    let r = patch(&f.ctx(Mode::Log), "aa", Some("Loves jazz"), Some(0.95))
        .unwrap()
        .value;
    assert_eq!(r.text, "Loves jazz");
    assert_eq!(r.source, Source::User);
    assert_eq!(r.importance, 0.95, "the user's fact is not capped");
}

#[test]
fn patch_with_the_same_values_changes_nothing() {
    let f = fixture();
    seed(&f, &[("aa000001", "Likes jazz", Source::Synth, 0.5)]);
    let before = f.store.read().unwrap().records;
    let r = patch(&f.ctx(Mode::Log), "aa", Some("Likes jazz"), Some(0.5))
        .unwrap()
        .value;
    assert_eq!(vec![r], before);
}

#[test]
fn patch_refusals_change_nothing() {
    let f = fixture();
    seed(
        &f,
        &[
            ("aa000001", "Works at Acme", Source::User, 0.8),
            ("aa000002", "Lives in Oslo", Source::Synth, 0.5),
        ],
    );
    let before = f.store.read().unwrap().records;
    let log = f.ctx(Mode::Log);
    assert!(matches!(
        patch(&f.ctx(Mode::Privacy), "aa000001", Some("x"), None),
        Err(ManageError::Privacy("edit"))
    ));
    let none = patch(&log, "aa000001", None, None).unwrap_err();
    assert!(matches!(none, ManageError::NothingToChange));
    assert!(none.to_string().starts_with("nothing to change"), "{none}");
    assert!(matches!(
        patch(&log, "aa000001", Some(" \n "), None),
        Err(ManageError::Text(TextError::Empty))
    ));
    assert!(matches!(
        patch(&log, "aa000001", Some(&"x".repeat(501)), None),
        Err(ManageError::Text(TextError::TooLong { chars: 501 }))
    ));
    for bad in [-0.1, 1.01, f32::NAN] {
        assert!(matches!(
            patch(&log, "aa000001", None, Some(bad)),
            Err(ManageError::BadImportance(_))
        ));
    }
    assert!(matches!(
        patch(&log, "aa", Some("x"), None),
        Err(ManageError::Ambiguous { .. })
    ));
    assert!(matches!(
        patch(&log, "zz", Some("x"), None),
        Err(ManageError::NotFound { .. })
    ));
    let dup = patch(&log, "aa000001", Some("lives  in OSLO"), None).unwrap_err();
    assert!(
        matches!(dup, ManageError::Duplicate { ref id } if id == "aa000002"),
        "{dup}"
    );
    assert!(dup.to_string().contains("aa000002"), "{dup}");
    assert_eq!(f.store.read().unwrap().records, before);
    // Recasing a fact's own text is not a duplicate of itself.
    let r = patch(&log, "aa000001", Some("works at ACME"), None)
        .unwrap()
        .value;
    assert_eq!(r.text, "works at ACME");
}

#[test]
fn replace_all_keeps_adds_and_deletes() {
    let f = fixture();
    seed(
        &f,
        &[
            ("aa000001", "Works at Acme", Source::Synth, 0.5),
            ("aa000002", "Lives in Oslo", Source::Import, 0.7),
            ("aa000003", "Owns a cat", Source::User, 0.8),
        ],
    );
    let kept_before = f.store.read().unwrap().records[0].clone();
    let text = "works at  ACME\n\n  Drinks oolong \r\nOwns a cat\n";
    let done = replace_all(&f.ctx(Mode::Log), text, None).unwrap().value;
    let ids = |rs: &[Record]| rs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&done.kept), ["aa000001", "aa000003"]);
    assert_eq!(
        done.kept[0], kept_before,
        "a kept record is unchanged, synth and all"
    );
    assert_eq!(ids(&done.deleted), ["aa000002"]);
    assert_eq!(done.added.len(), 1);
    let new = &done.added[0];
    assert_eq!(new.text, "Drinks oolong");
    assert_eq!(
        (new.kind, new.source, new.importance),
        (Kind::Semantic, Source::User, DEFAULT_IMPORTANCE)
    );
    assert_eq!(new.provenance.via.as_deref(), Some("cli"));
    assert_eq!(new.created_at, at("2026-03-01T12:00:00Z"));
    assert!(!new.id.starts_with("aa0000"));
    assert_eq!(texts(&f), ["Works at Acme", "Owns a cat", "Drinks oolong"]);
    let snap = f.store.read().unwrap();
    assert_eq!(snap.archive.len(), 1, "the deleted record is archived");
    assert_eq!(snap.archive[0].record.id, "aa000002");
    assert_eq!(snap.archive[0].record.text, "Lives in Oslo");
    assert_eq!(snap.archive[0].reason, ArchiveReason::BulkEdit);
    // And restore brings it back.
    restore(&f.ctx(Mode::Log), "aa000002").unwrap();
    assert!(texts(&f).contains(&"Lives in Oslo".to_string()));
}

#[test]
fn replace_all_with_a_stale_base_changes_nothing() {
    let f = fixture();
    seed(&f, &[("aa000001", "Uses vim", Source::User, 0.8)]);
    let shown = f.store.read().unwrap();
    // Something else writes while the editor is open.
    let added = f.add("Likes jazz");
    let now = f.store.read().unwrap().generation;
    assert!(now > shown.generation, "a write raises the generation");
    let err = replace_all(
        &f.ctx(Mode::Log),
        "Uses vim
Drinks tea",
        Some(shown.generation),
    )
    .unwrap_err();
    assert!(
        matches!(err, ManageError::Changed { base, now: n } if base == shown.generation && n == now),
        "{err}"
    );
    assert!(err.to_string().contains("nothing was saved"), "{err}");
    assert_eq!(texts(&f), ["Uses vim", "Likes jazz"], "the new fact stays");
    assert_eq!(f.store.read().unwrap().generation, now, "nothing written");
    assert_eq!(added.text, "Likes jazz");

    // Made from the store as it is now, the same edit goes through and says where it left it.
    let done = replace_all(
        &f.ctx(Mode::Log),
        "Uses vim
Likes jazz
Drinks tea",
        Some(now),
    )
    .unwrap();
    assert_eq!(done.value.added.len(), 1);
    assert_eq!(done.generation, now + 1);
    assert_eq!(f.store.read().unwrap().generation, done.generation);
    // An edit that changes nothing leaves the generation as it is, and so a base still good.
    let same = replace_all(
        &f.ctx(Mode::Log),
        "Uses vim
Likes jazz
Drinks tea",
        Some(done.generation),
    )
    .unwrap();
    assert_eq!(same.generation, done.generation);
}

#[test]
fn replace_all_counts_repeated_lines_once() {
    let f = fixture();
    seed(&f, &[("aa000001", "Uses vim", Source::User, 0.8)]);
    let text = "Uses vim\nuses VIM\nLikes jazz\nlikes   jazz\nLikes jazz";
    let done = replace_all(&f.ctx(Mode::Log), text, None).unwrap().value;
    assert_eq!(done.kept.len(), 1);
    assert_eq!(done.added.len(), 1);
    assert!(done.deleted.is_empty());
    assert_eq!(texts(&f), ["Uses vim", "Likes jazz"]);
}

#[test]
fn replace_all_skips_lines_of_only_invisible_characters() {
    let f = fixture();
    // A byte-order mark alone on the first line, a zero-width space alone on another.
    let text = "\u{FEFF}\nUses vim\n\u{200B}\u{200D}\nLikes \u{200B}jazz";
    let done = replace_all(&f.ctx(Mode::Log), text, None).unwrap().value;
    assert_eq!(done.added.len(), 2);
    assert_eq!(texts(&f), ["Uses vim", "Likes jazz"]);
}

#[test]
fn replace_all_with_empty_text_deletes_everything() {
    let f = fixture();
    seed(
        &f,
        &[
            ("aa000001", "Uses vim", Source::User, 0.8),
            ("aa000002", "Likes jazz", Source::Synth, 0.5),
        ],
    );
    let done = replace_all(&f.ctx(Mode::Full), " \n\t\n", None)
        .unwrap()
        .value;
    assert_eq!(done.deleted.len(), 2);
    assert!(done.kept.is_empty() && done.added.is_empty());
    assert!(f.store.read().unwrap().records.is_empty());
}

#[test]
fn replace_all_caps_and_refusals_change_nothing() {
    let f = fixture();
    seed(&f, &[("aa000001", "Uses vim", Source::User, 0.8)]);
    let before = f.store.read().unwrap().records;
    let log = f.ctx(Mode::Log);

    assert!(matches!(
        replace_all(&f.ctx(Mode::Privacy), "", None),
        Err(ManageError::Privacy("replace all"))
    ));

    // 64,000 characters are allowed (checked at the end); one more is not.
    let at_cap = format!("{}\n", "x".repeat(249)).repeat(BULK_MAX_CHARS / 250);
    assert_eq!(at_cap.chars().count(), BULK_MAX_CHARS);
    let too_big = format!("{at_cap}y");
    let err = replace_all(&log, &too_big, None).unwrap_err();
    assert!(
        matches!(err, ManageError::BulkTooLarge { chars } if chars == BULK_MAX_CHARS + 1),
        "{err}"
    );
    assert!(err.to_string().contains("64001"), "{err}");

    // 256 facts are fine (blank lines do not count); 257 are not.
    let lines = |n: usize| (0..n).map(|i| format!("fact {i}\n\n")).collect::<String>();
    let err = replace_all(&log, &lines(BULK_MAX_LINES + 1), None).unwrap_err();
    assert!(
        matches!(err, ManageError::BulkTooManyLines { lines: 257 }),
        "{err}"
    );
    assert!(err.to_string().contains("257"), "{err}");
    assert_eq!(f.store.read().unwrap().records, before);

    // A line over 500 characters names its (1-based) line number.
    let text = format!("Uses vim\n\n{}\nLikes jazz", "x".repeat(501));
    let err = replace_all(&log, &text, None).unwrap_err();
    assert!(
        matches!(
            err,
            ManageError::Line {
                line: 3,
                source: TextError::TooLong { chars: 501 }
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "line 3: the fact is 501 characters long; the limit is 500"
    );
    assert_eq!(f.store.read().unwrap().records, before);

    let done = replace_all(&log, &lines(BULK_MAX_LINES), None)
        .unwrap()
        .value;
    assert_eq!(done.added.len(), BULK_MAX_LINES);
    assert_eq!(f.store.read().unwrap().records.len(), MAX_RECORDS);
    let done = replace_all(&log, &at_cap, None).unwrap().value;
    assert_eq!(done.added.len(), 1, "256 equal lines are one fact");
    assert_eq!(done.deleted.len(), MAX_RECORDS);
}

#[test]
fn replace_all_imports_the_legacy_file_first() {
    let f = fixture();
    std::fs::write(&f.legacy, "# Memory\n- Name is Ada\n- Uses vim\n").unwrap();
    let done = replace_all(&f.ctx(Mode::Log), "Name is Ada\nLikes jazz", None)
        .unwrap()
        .value;
    assert_eq!(done.kept.len(), 1);
    assert_eq!(done.kept[0].source, Source::Import);
    assert_eq!(done.deleted.len(), 1);
    assert_eq!(done.deleted[0].text, "Uses vim");
    assert!(f.store.read().unwrap().state.legacy_imported);
    assert_eq!(texts(&f), ["Name is Ada", "Likes jazz"]);
}

#[test]
fn a_secret_is_refused_unless_forced_and_a_stored_one_survives_a_bulk_edit() {
    let f = fixture();
    let log = f.ctx(Mode::Log);
    let err = add(&log, "My bank PIN is 4821", Kind::Semantic, None).unwrap_err();
    assert!(matches!(err, ManageError::Secret(Secret::Pin)), "{err}");
    assert!(err.to_string().contains("a PIN"), "{err}");
    let err = add_from(
        &log,
        Source::Synth,
        "key sk-proj-Ab12Cd34Ef56Gh78Ij90KlMn",
        Kind::Semantic,
        None,
    )
    .unwrap_err();
    assert!(matches!(err, ManageError::Secret(Secret::ApiKey)), "{err}");
    assert!(
        f.store.read().unwrap().records.is_empty(),
        "nothing changed"
    );

    let forced = Force { secrets: true };
    let r = add_with(
        &log,
        Source::User,
        "My bank PIN is 4821",
        Kind::Semantic,
        None,
        forced,
    )
    .unwrap()
    .value;
    assert!(matches!(r, Added::New(_)));

    // A new line with a secret is refused; the stored one, named again, is kept.
    let err = replace_all(&log, "My bank PIN is 4821\nmy password is hunter2", None).unwrap_err();
    assert!(
        matches!(
            err,
            ManageError::LineSecret {
                line: 2,
                kind: Secret::Password
            }
        ),
        "{err}"
    );
    assert_eq!(texts(&f), ["My bank PIN is 4821"]);
    replace_all(&log, "My bank PIN is 4821\nLikes tea", None).unwrap();
    assert_eq!(texts(&f), ["My bank PIN is 4821", "Likes tea"]);
    replace_all_with(&log, "Likes tea\nmy password is hunter2", None, forced).unwrap();
    assert_eq!(texts(&f), ["Likes tea", "my password is hunter2"]);
}

/// Give the record `id` a time limit, as a pass does for "until Friday".
fn expire(f: &Fixture, id: &str, until: &str) {
    f.store
        .write(|snap| {
            let r = snap.records.iter_mut().find(|r| r.id == id).unwrap();
            r.valid_until = Some(at(until));
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

#[test]
fn a_users_edit_holds_for_good_and_an_importance_change_keeps_the_limit() {
    let f = fixture();
    seed(
        &f,
        &[
            ("aa000001", "Is in Lisbon until Friday", Source::Synth, 0.6),
            (
                "aa000002",
                "Is at a conference until March 9",
                Source::Synth,
                0.6,
            ),
        ],
    );
    expire(&f, "aa000001", "2026-03-06T00:00:00Z");
    expire(&f, "aa000002", "2026-03-09T00:00:00Z");
    let log = f.ctx(Mode::Log);
    let r = patch(&log, "aa000001", Some("Lives in Lisbon"), None)
        .unwrap()
        .value;
    assert_eq!(r.source, Source::User);
    assert_eq!(
        r.valid_until, None,
        "the user's words carry no model's expiry"
    );
    // Raising a synth fact's importance leaves its words, and so their limit, as they were.
    let r = patch(&log, "aa000002", None, Some(0.7)).unwrap().value;
    assert_eq!(r.valid_until, Some(at("2026-03-09T00:00:00Z")));
    // The user's fact is still recalled after the old limit.
    let later = at("2026-04-01T00:00:00Z");
    let snap = f.store.read().unwrap();
    assert!(!crate::recall::rank::withheld(&snap.records[0], later));
}

#[test]
fn an_accepted_correction_holds_for_good() {
    let f = fixture();
    seed(
        &f,
        &[("aa000001", "Is in Lisbon until Friday", Source::Synth, 0.6)],
    );
    expire(&f, "aa000001", "2026-03-06T00:00:00Z");
    let r = f.store.read().unwrap().records[0].clone();
    let cid = propose(&f, &r, CorrectionOp::Update, Some("Lives in Lisbon"));
    let (_, now) = accept(&f.ctx(Mode::Log), &cid).unwrap().value;
    assert_eq!(now.unwrap().valid_until, None);
}

#[test]
fn patch_and_accept_refuse_a_secret_as_add_does() {
    let f = fixture();
    seed(&f, &[("aa000001", "Banks with Monzo", Source::User, 0.8)]);
    let log = f.ctx(Mode::Log);
    let before = f.store.read().unwrap();
    let err = patch(&log, "aa", Some("I bank with Monzo, PIN 7781"), None).unwrap_err();
    assert!(matches!(err, ManageError::Secret(Secret::Pin)), "{err}");
    let r = &before.records[0];
    let cid = propose(
        &f,
        r,
        CorrectionOp::Update,
        Some("Netflix password hunter2"),
    );
    let err = accept(&log, &cid).unwrap_err();
    assert!(
        matches!(err, ManageError::ProposalSecret { ref id, kind: Secret::Password } if *id == cid),
        "{err}"
    );
    assert!(err.to_string().ends_with("reject it"), "{err}");
    let after = f.store.read().unwrap();
    assert_eq!(after.records, before.records, "nothing changed");
    assert!(after.archive.is_empty());

    // Forced, it is stored; the same fact re-spaced, or its importance, is not checked again.
    let forced = Force { secrets: true };
    patch_with(
        &log,
        "aa",
        Some("I bank with Monzo, PIN 7781"),
        None,
        forced,
    )
    .unwrap();
    let r = patch(&log, "aa", Some("I bank with  monzo, PIN 7781"), Some(0.9))
        .unwrap()
        .value;
    assert_eq!(r.importance, 0.9);
}

#[test]
fn a_base_from_the_future_is_not_one_this_store_issued() {
    let f = fixture();
    seed(&f, &[("aa000001", "Uses vim", Source::User, 0.8)]);
    let now = f.store.read().unwrap().generation;
    let err = replace_all(&f.ctx(Mode::Log), "Drinks tea", Some(now + 5)).unwrap_err();
    assert!(
        matches!(err, ManageError::UnknownBase { base, now: n } if base == now + 5 && n == now),
        "{err}"
    );
    let msg = err.to_string();
    assert!(!msg.contains("changed since"), "{msg}");
    assert!(
        msg.contains("not a generation this store has issued"),
        "{msg}"
    );
    assert_eq!(texts(&f), ["Uses vim"]);
    assert_eq!(f.store.read().unwrap().generation, now);
}
