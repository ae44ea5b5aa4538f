//! No copy of a forgotten or cleared fact stays anywhere in the data dir: not in a temp file a
//! crashed write left behind, not in a journal a crash left pending (#14, item 2).

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use localm_core::manage::{self, Added, Ctx, Force};
use localm_core::record::{Kind, Record, Source};
use localm_core::settings::Mode;
use localm_core::store::journal::{Entry, Journal, Phase};
use localm_core::store::{JOURNAL_FILE, RECORDS_FILE, Store};

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
