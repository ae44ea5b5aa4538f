//! No copy of a forgotten or cleared fact stays anywhere in the data dir: not in a temp file a
//! crashed write left behind, not in a journal a crash left pending (#14, item 2), not in what a
//! symlinked store file points to, not as its vector in `memory.vec` (#33).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use localm_core::manage::{self, Added, Ctx, Force};
use localm_core::record::{Kind, Record, Source};
use localm_core::settings::Mode;
use localm_core::store::journal::{Entry, Journal, Phase};
use localm_core::store::vectors::{VectorEntry, text_hash};
use localm_core::store::{JOURNAL_FILE, RECORDS_FILE, Store, VECTORS_FILE};

const SECRET: &str = "My bank PIN is 4921";

fn now() -> DateTime<Utc> {
    "2026-03-01T12:00:00Z".parse().expect("a valid time")
}

struct Data {
    dir: tempfile::TempDir,
    store: Store,
}

impl Data {
    fn new() -> Data {
        let dir = tempfile::tempdir().expect("a temp dir");
        let store = Store::new(dir.path(), "chat", "leftovers test");
        Data { dir, store }
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            mode: Mode::Log,
            legacy_file: self.dir.path().join("chat-memory.md"),
            now: now(),
            via: "cli",
        }
    }

    /// Add `text`, a secret the user stored on purpose (`--force`).
    fn add(&self, text: &str) -> Record {
        let force = Force { secrets: true };
        match manage::add_with(&self.ctx(), Source::User, text, Kind::Semantic, None, force)
            .expect("add")
            .value
        {
            Added::New(r) | Added::Existing(r) => r,
        }
    }

    /// What an earlier write killed mid-way left beside the files: its temp files, named as
    /// that process named them, holding what it was writing.
    fn plant_temp_files(&self) {
        let records = fs::read(self.store.path(RECORDS_FILE)).expect("memory.jsonl");
        for name in [
            ".memory.jsonl.tmp-4242",
            ".memory.jsonl.tmp-4242-7",
            "..forgotten.jsonl.tmp-4242",
            "..journal.tmp-4242-0",
        ] {
            fs::write(self.store.path(name), &records).expect("plant a temp file");
        }
    }

    /// Every file under the data dir that holds `text`.
    fn files_holding(&self, text: &str) -> Vec<PathBuf> {
        fn walk(dir: &Path, text: &str, out: &mut Vec<PathBuf>) {
            for e in fs::read_dir(dir).expect("read a folder") {
                let path = e.expect("a folder entry").path();
                if path.is_dir() {
                    walk(&path, text, out);
                } else {
                    let bytes = fs::read(&path).expect("read a file");
                    if bytes.windows(text.len()).any(|w| w == text.as_bytes()) {
                        out.push(path);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(self.dir.path(), text, &mut out);
        out
    }
}

#[test]
fn forget_leaves_no_copy_of_the_text_in_a_leftover_temp_file() {
    let d = Data::new();
    let secret = d.add(SECRET);
    d.add("Prefers tea over coffee");
    d.plant_temp_files();
    manage::forget(&d.ctx(), &secret.id).expect("forget");
    assert_eq!(d.files_holding(SECRET), Vec::<PathBuf>::new());
    assert_eq!(d.store.read().expect("read").records.len(), 1);
}

#[test]
fn clear_leaves_no_copy_of_the_text_in_a_leftover_temp_file() {
    let d = Data::new();
    d.add(SECRET);
    d.plant_temp_files();
    manage::clear(&d.ctx()).expect("clear");
    assert_eq!(d.files_holding(SECRET), Vec::<PathBuf>::new());
}

#[test]
fn forget_after_a_crash_left_the_fact_in_a_pending_journal() {
    let d = Data::new();
    d.add("Prefers tea over coffee");
    let secret = d.add(SECRET);
    // As a write killed after its commit leaves it: the journal holds the new memory.jsonl
    // (with the secret), the file on disk is still the old one (without it).
    let with_secret = fs::read(d.store.path(RECORDS_FILE)).expect("memory.jsonl");
    manage::forget(&d.ctx(), &secret.id).expect("forget");
    let journal = Journal {
        generation: 99,
        phase: Phase::Pending,
        entries: vec![Entry::Write {
            file: RECORDS_FILE.into(),
            bytes: with_secret,
        }],
    };
    fs::write(d.store.path(JOURNAL_FILE), journal.encode()).expect("plant a journal");
    assert_eq!(
        d.store.read().expect("read").records.len(),
        2,
        "the committed write is what readers see"
    );
    manage::forget(&d.ctx(), &secret.id).expect("forget again");
    assert_eq!(d.files_holding(SECRET), Vec::<PathBuf>::new());
    d.plant_temp_files();
    manage::clear(&d.ctx()).expect("clear");
    assert_eq!(d.files_holding("Prefers tea"), Vec::<PathBuf>::new());
}

/// A vector for every live record, as a backfill leaves them.
fn embed_all(d: &Data) {
    d.store
        .update_vectors(|snap, entries| {
            entries.clear();
            entries.extend(snap.records.iter().map(|r| VectorEntry {
                id: r.id.clone(),
                text_hash: text_hash(&r.text),
                model: "test-model".into(),
                vector: vec![1.0, 0.0],
            }));
        })
        .expect("write vectors");
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

#[test]
fn forget_drops_the_facts_vector_in_the_same_transaction() {
    let d = Data::new();
    let secret = d.add(SECRET);
    let tea = d.add("Prefers tea over coffee");
    embed_all(&d);
    let before = d.store.read().expect("read").generation;
    let done = manage::forget(&d.ctx(), &secret.id).expect("forget");
    assert_eq!(done.generation, before + 1, "one transaction");
    let vectors = d.store.read_vectors().expect("read vectors");
    assert!(vectors.current(&secret.id, SECRET, "test-model").is_none());
    assert!(vectors.current(&tea.id, &tea.text, "test-model").is_some());
    let vec_file = fs::read(d.store.path(VECTORS_FILE)).expect("memory.vec");
    assert!(
        !holds(&vec_file, &secret.id),
        "the forgotten id is gone from memory.vec"
    );
}

#[cfg(unix)]
#[test]
fn forget_through_symlinked_store_files_leaves_no_text_anywhere() {
    use std::os::unix::fs::symlink;
    let d = Data::new();
    let secret = d.add(SECRET);
    d.add("Prefers tea over coffee");
    embed_all(&d);
    // The user keeps the files elsewhere (a synced folder) and links them into the store.
    let elsewhere = tempfile::tempdir().expect("a temp dir");
    for name in [RECORDS_FILE, VECTORS_FILE] {
        let target = elsewhere.path().join(name);
        fs::rename(d.store.path(name), &target).expect("move the file away");
        symlink(&target, d.store.path(name)).expect("link it back");
    }
    manage::forget(&d.ctx(), &secret.id).expect("forget");
    let mut holding = d.files_holding(SECRET);
    for e in fs::read_dir(elsewhere.path()).expect("read elsewhere") {
        let path = e.expect("an entry").path();
        let bytes = fs::read(&path).expect("read");
        if holds(&bytes, SECRET) || holds(&bytes, &secret.id) {
            holding.push(path);
        }
    }
    assert_eq!(holding, Vec::<PathBuf>::new());
    for name in [RECORDS_FILE, VECTORS_FILE] {
        let meta = fs::symlink_metadata(d.store.path(name)).expect("the link");
        assert!(
            meta.file_type().is_symlink(),
            "{name} is still the user's link"
        );
    }
    assert_eq!(d.store.read().expect("read").records.len(), 1);
    assert!(holds(
        &fs::read(elsewhere.path().join(RECORDS_FILE)).expect("the target"),
        "Prefers tea"
    ));
}
