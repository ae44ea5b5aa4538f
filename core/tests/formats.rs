//! Today's code against fixtures of the on-disk formats (`tests/fixtures/v1`): every file still
//! parses to the values it held, and a file the code rewrites comes back byte for byte when
//! nothing changed. A format change that would break users' existing files fails here.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::{Path, PathBuf};

use localm_core::consolidate::Status;
use localm_core::jobs;
use localm_core::record::{Kind, Source};
use localm_core::session;
use localm_core::settings::{Mode, Settings};
use localm_core::store::corrections::CorrectionStatus;
use localm_core::store::{
    ARCHIVE_FILE, CORRECTIONS_FILE, RECORDS_FILE, STATE_FILE, Store, StoreError,
};

fn fixture(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(version)
}

/// A copy of the fixture data dir, so a write cannot change the fixture.
fn copy(version: &str) -> tempfile::TempDir {
    fn walk(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &target);
            } else {
                fs::copy(e.path(), &target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    walk(&fixture(version), dir.path());
    dir
}

#[test]
fn v1_store_reads_as_written() {
    let dir = copy("v1");
    let store = Store::new(dir.path(), "chat", "formats test");
    let snap = store.read().unwrap();
    assert!(snap.corrupt.is_empty(), "{:?}", snap.corrupt);
    assert_eq!(snap.records.len(), 4);
    let r = &snap.records[0];
    assert_eq!(
        (r.id.as_str(), r.source, r.kind, r.recall_count),
        ("3fa91c2e", Source::User, Kind::Semantic, 3)
    );
    assert_eq!(r.importance, 0.8);
    assert_eq!(snap.records[2].kind, Kind::Episodic);
    assert_eq!(snap.records[1].provenance.sessions, vec!["s1".to_string()]);
    assert_eq!(snap.archive.len(), 1);
    assert_eq!(snap.archive[0].record.text, "User lives in Berlin");
    assert_eq!(snap.corrections.len(), 2);
    assert_eq!(snap.corrections[1].status, CorrectionStatus::Dismissed);
    assert!(snap.state.legacy_imported);
    assert_eq!(snap.state.sessions["s1"].lines_read, 4);
    let last = snap.state.last_pass.as_ref().expect("the last pass");
    assert_eq!(last.status, Status::Ok);
    assert_eq!(
        (last.counts.added, last.counts.proposed, last.skipped),
        (1, 1, 2)
    );
    assert_eq!(last.pass_id, "p0012345");
    assert!(last.at.is_some());
}

#[test]
fn v1_store_files_are_rewritten_byte_for_byte() {
    let dir = copy("v1");
    let store = Store::new(dir.path(), "chat", "formats test");
    let files = [RECORDS_FILE, ARCHIVE_FILE, CORRECTIONS_FILE];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| fs::read(store.path(f)).unwrap())
        .collect();
    // Force every file through the writer: change each, then change it back.
    store
        .write(|snap| {
            snap.records.reverse();
            snap.archive.clear();
            snap.corrections.clear();
            snap.state.legacy_imported = false;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let original = {
        let d = copy("v1");
        Store::new(d.path(), "chat", "formats test").read().unwrap()
    };
    store
        .write(|snap| {
            *snap = original.clone();
            Ok::<_, StoreError>(())
        })
        .unwrap();
    for (f, want) in files.iter().zip(before) {
        let got = fs::read(store.path(f)).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "{f} changed shape"
        );
    }
    // state.json is one pretty-printed object: the same keys and values, in any order (v1
    // wrote the last pass's keys sorted).
    let json = |path: PathBuf| -> serde_json::Value {
        serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
    };
    assert_eq!(
        json(store.path(STATE_FILE)),
        json(fixture("v1").join("memory/chat").join(STATE_FILE)),
        "state.json changed shape"
    );
}

#[test]
fn a_newer_state_format_is_refused_not_misread() {
    let dir = copy("v1");
    let store = Store::new(dir.path(), "chat", "formats test");
    let path = store.path(STATE_FILE);
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"version\": 1", "\"version\": 2");
    fs::write(&path, text).unwrap();
    let err = store.read().unwrap_err();
    assert!(
        matches!(err, StoreError::NewerFormat { found: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer localm"), "{err}");
}

#[test]
fn v1_settings_jobs_and_sessions_read_as_written() {
    let dir = fixture("v1");
    let s = Settings::load(&dir).unwrap();
    assert_eq!(s.mode, Mode::Log);
    assert!(!s.memory_auto_consolidate);
    assert!(s.memory_recall_in_privacy && !s.memory_recall_in_privacy_chat);
    assert!(s.memory_plugin_enabled());
    assert_eq!(s.extra["theme"], "dark", "unknown keys are kept");

    let j = jobs::load(&dir).unwrap();
    assert_eq!(j.jobs.len(), 2);
    let last = j.jobs[0].last_run.as_ref().unwrap();
    assert_eq!((last.status, last.counts.episodic), (Status::Ok, 3));
    assert!(j.jobs[1].last_run.is_none());

    let logs = session::read_dir(&dir.join("sessions")).unwrap();
    assert!(logs.passed_over.is_empty(), "{:?}", logs.passed_over);
    let sessions = logs.sessions;
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].skipped, 0);
    assert_eq!(sessions[0].lines.len(), 4);
    assert_eq!(sessions[0].lines[2].origin.as_deref(), Some("tool"));
}

#[test]
fn v1_settings_and_jobs_are_rewritten_as_they_were() {
    let src = fixture("v1");
    let dir = copy("v1");
    Settings::load(dir.path())
        .unwrap()
        .save(dir.path())
        .unwrap();
    let want: serde_json::Value =
        serde_json::from_slice(&fs::read(src.join("settings.json")).unwrap()).unwrap();
    let got: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("settings.json")).unwrap()).unwrap();
    assert_eq!(got, want);
    jobs::update(dir.path(), "formats test", |_| Ok(())).unwrap();
    let want: serde_json::Value =
        serde_json::from_slice(&fs::read(src.join("jobs.json")).unwrap()).unwrap();
    let got: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("jobs.json")).unwrap()).unwrap();
    assert_eq!(got, want);
}
