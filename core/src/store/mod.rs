//! The JSONL store of one memory namespace: its files, read without a lock, and written only in a
//! transaction — all of a write's files or none of them, even across a crash.
//!
//! ## Writers: the journal
//!
//! A write takes the lock, finishes any transaction a crash cut short (below), re-reads, runs the
//! change, and works out which files change: `memory.jsonl`, `.forgotten.jsonl`,
//! `corrections.jsonl`, `state.json`, and the `<file>.corrupt` files unreadable lines move to. A
//! file whose bytes would not change is not written. If none changes, that is the end. Otherwise:
//!
//! 1. **Commit.** The whole new content of every changed file goes into one journal file,
//!    `.journal` (phase `pending`, generation g + 1), written as a temp file, fsynced and renamed
//!    into place, then the folder fsynced. The rename is the commit point: before it nothing is
//!    changed and an error means exactly that; after it the transaction has happened.
//! 2. **Apply.** Each file is replaced atomically (temp, fsync, rename, folder fsync).
//! 3. **Done.** `.journal` is replaced by a `done` one holding only the generation number.
//!
//! Under the lock, before anything else, every writer (and `clear`, and `update_vectors`) settles
//! the store: a `pending` journal is applied again — each file written only if it does not
//! already hold the journal's bytes, so applying twice is applying once — and marked done. A
//! crash anywhere leaves either no committed journal (the old files, whole, untouched) or a
//! committed one (the new files, whole, in the journal); no fact is ever in neither generation.
//! An I/O error after the commit point returns `StoreError::Unfinished`: the change stands and
//! the next write finishes it. `clear` is a transaction of the same kind whose entries remove
//! files. The vector sidecar is derived data, replaced on its own by `update_vectors`; a write
//! that removes or rewrites records drops their vectors from it in the same transaction.
//!
//! ## Readers: one generation, without the lock
//!
//! Every transaction that changes a file raises the journal's generation, and it does so at its
//! commit, before it touches any other file. `read` reads the journal (generation g), then the
//! four files, taking a file's content from the journal instead when the journal is `pending`
//! and names it, then reads the journal's generation again; if it is still g the read is whole,
//! otherwise it starts over. Why that is one generation:
//!
//! - Writers are one at a time (the lock), and a transaction touches files only after its
//!   journal with generation g + 1 is in place. Generations only grow (`clear` keeps the journal
//!   too), so seeing g at both ends means no later transaction touched a file between the two.
//! - If the journal was `done` at the first read, transaction g had finished: every file was
//!   stable while it was read, and is generation g.
//! - If it was `pending`, transaction g may have been replacing files during the read. The files
//!   it changes are taken from the journal (its committed bytes, whole); the files it does not
//!   change were stable. That is generation g, the new one, exactly what a writer will settle to.
//!
//! Each file (the journal too) is replaced by rename, so each single read sees one whole file.
//! A writer holding the lock needs none of this: after settling, nothing else changes the files.

pub mod archive;
pub mod atomic;
pub mod corrections;
pub mod journal;
pub mod jsonl;
pub mod lock;
pub mod state;
pub mod vectors;

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use self::archive::{ArchiveReason, Archived};
use self::corrections::Correction;
use self::journal::{Entry, Journal, JournalError, Phase};
use self::jsonl::CorruptLine;
use self::lock::{LockError, StoreLock};
use self::state::State;
use self::vectors::{VectorEntry, Vectors};
use crate::id::new_id;
use crate::record::Record;

pub const RECORDS_FILE: &str = "memory.jsonl";
pub const ARCHIVE_FILE: &str = ".forgotten.jsonl";
pub const CORRECTIONS_FILE: &str = "corrections.jsonl";
pub const STATE_FILE: &str = "state.json";
pub const VECTORS_FILE: &str = "memory.vec";
pub const LOCK_FILE: &str = ".lock";
/// The transaction journal and generation number (see the module doc).
pub const JOURNAL_FILE: &str = ".journal";
/// Suffix of the file beside each JSONL file that unreadable lines are moved to.
pub const CORRUPT_SUFFIX: &str = ".corrupt";

/// How many times a reader starts over because writes kept landing while it read.
const READ_ATTEMPTS: usize = 1000;

/// Why a store operation failed. Nothing was changed on disk when one is returned, except
/// `Unfinished`: then the change stands (readers see it) and the next write puts it in place.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("{path} is not valid ({reason}); move it aside to continue")]
    BadFile { path: PathBuf, reason: String },
    #[error(
        "{path} was written by a newer localm (format {found}; this build reads up to {supported}): upgrade localm to use this store"
    )]
    NewerFormat {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("clear did not finish: fact text is still on disk in {path}")]
    ClearIncomplete { path: PathBuf },
    #[error(
        "clear did not finish: after erasing, the store still reads {records} facts, {archived} archived and {corrections} corrections"
    )]
    ClearReadBack {
        records: usize,
        archived: usize,
        corrections: usize,
    },
    #[error(
        "{path} is a symbolic link (to {target}); clear changed nothing: it would remove the link and leave the facts in what it points to. Move that file into {dir} in place of the link (or erase it yourself), then clear again"
    )]
    Symlink {
        path: PathBuf,
        target: PathBuf,
        dir: PathBuf,
    },
    #[error(
        "the change is saved but not all in place: writing {path} failed ({source}); the next write to the store finishes it"
    )]
    Unfinished { path: PathBuf, source: io::Error },
}

/// Everything in the namespace, as read in one go.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub records: Vec<Record>,
    pub archive: Vec<Archived>,
    pub corrections: Vec<Correction>,
    pub state: State,
    /// Lines that did not parse in this read (moved aside by the next write).
    pub corrupt: Vec<CorruptLine>,
    /// The store's generation this snapshot is (the journal's number; 0 before the first
    /// write). It is raised by every write that changes a file, so an equal generation means
    /// nothing was written since.
    pub generation: u64,
}

impl Snapshot {
    /// Every id in use, live or archived (a new id must avoid all of them).
    pub fn taken_ids(&self) -> HashSet<&str> {
        self.records
            .iter()
            .map(|r| r.id.as_str())
            .chain(self.archive.iter().map(|a| a.record.id.as_str()))
            .collect()
    }

    /// A fresh id for `text`, unused live or in the archive.
    pub fn fresh_id(&self, text: &str, now: DateTime<Utc>) -> String {
        new_id(text, now, &self.taken_ids())
    }

    /// Move `record` to the archive (dropping the oldest archived past
    /// [`archive::MAX_ARCHIVED`]). If its id is still live (a superseded value whose record
    /// lives on with new text), the archived copy gets an id of its own.
    pub fn archive_record(
        &mut self,
        mut record: Record,
        reason: ArchiveReason,
        now: DateTime<Utc>,
    ) {
        let clash = self.records.iter().any(|r| r.id == record.id)
            || self.archive.iter().any(|a| a.record.id == record.id);
        if clash {
            record.id = self.fresh_id(&record.text, now);
        }
        self.archive.push(Archived {
            record,
            archived_at: now,
            reason,
        });
        // Oldest first in the file: past the cap, the oldest go.
        let over = self.archive.len().saturating_sub(archive::MAX_ARCHIVED);
        self.archive.drain(..over);
    }
}

/// What a committed transaction did besides its own result.
#[derive(Debug)]
pub struct Committed<T> {
    pub value: T,
    /// Unreadable lines that were moved to `.corrupt` files by this write.
    pub corrupt_moved: Vec<CorruptLine>,
    /// The store's generation after this write (unchanged if it wrote nothing).
    pub generation: u64,
}

/// What `clear` removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClearReport {
    pub records: usize,
    pub archived: usize,
    pub corrections: usize,
}

/// One namespace's folder (`<data dir>/memory/<namespace>/`) and how to write to it.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// Who we are, written inside the lock file while we hold it.
    holder: String,
    wait: Duration,
}

impl Store {
    /// The store of `namespace` under `data_dir`. Nothing is touched until a read or write.
    pub fn new(data_dir: &Path, namespace: &str, holder: impl Into<String>) -> Store {
        Store {
            dir: data_dir.join("memory").join(namespace),
            holder: holder.into(),
            wait: lock::DEFAULT_WAIT,
        }
    }

    /// How long a write waits for another process's lock (default about 2 s).
    pub fn with_wait(mut self, wait: Duration) -> Store {
        self.wait = wait;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// Read everything without taking the lock: one whole generation, even while a write is
    /// being applied or after a crash cut one short (see the module doc). A missing folder reads
    /// as an empty store.
    pub fn read(&self) -> Result<Snapshot, StoreError> {
        for _ in 0..READ_ATTEMPTS {
            let journal = self.read_journal()?;
            let generation = journal.as_ref().map_or(0, |j| j.generation);
            let mut raw = self.read_files()?;
            if let Some(j) = journal.filter(|j| j.phase == Phase::Pending) {
                raw.overlay(&j);
            }
            let again = self.read_journal()?.map_or(0, |j| j.generation);
            if again == generation {
                let mut snap = self.parse(raw)?.0;
                snap.generation = generation;
                return Ok(snap);
            }
        }
        Err(StoreError::Read {
            path: self.path(JOURNAL_FILE),
            source: io::Error::other("the store kept changing while it was read"),
        })
    }

    /// Run `change` on a fresh snapshot under the lock and write back what it changed. If
    /// `change` fails, nothing is written.
    pub fn write<T, E>(
        &self,
        change: impl FnOnce(&mut Snapshot) -> Result<T, E>,
    ) -> Result<Committed<T>, E>
    where
        E: From<StoreError>,
    {
        self.ensure_dir()?;
        let _lock = self.lock()?;
        let generation = self.settle()?;
        let (mut snap, raw) = self.read_raw()?;
        snap.generation = generation;
        let corrupt = std::mem::take(&mut snap.corrupt);
        let value = change(&mut snap)?;
        let mut entries = self.moved_aside(&corrupt)?;
        changed(
            &mut entries,
            RECORDS_FILE,
            &raw.records,
            jsonl::render(&snap.records),
        );
        changed(
            &mut entries,
            ARCHIVE_FILE,
            &raw.archive,
            jsonl::render(&snap.archive),
        );
        changed(
            &mut entries,
            CORRECTIONS_FILE,
            &raw.corrections,
            jsonl::render(&snap.corrections),
        );
        if raw.state.is_some() || snap.state != State::default() {
            changed(
                &mut entries,
                STATE_FILE,
                &raw.state,
                state_bytes(&snap.state),
            );
        }
        if !entries.iter().any(|e| e.file() == RECORDS_FILE) {
            // No record changed: every vector is as current as it was.
        } else if let Some(entry) = self.vectors_of_the_gone(&snap.records)? {
            entries.push(entry);
        }
        let generation = self.commit(generation, entries)?;
        Ok(Committed {
            value,
            corrupt_moved: corrupt,
            generation,
        })
    }

    /// For a write that changed the records: `memory.vec` without the vectors of records that
    /// are gone or whose text changed (a forgotten fact's vector leaves with it, in the same
    /// transaction), when it holds any. An unreadable sidecar is left to the next backfill.
    fn vectors_of_the_gone(&self, live: &[Record]) -> Result<Option<Entry>, StoreError> {
        let Some(old) = self.read_file(VECTORS_FILE)? else {
            return Ok(None);
        };
        let Ok(mut kept) = vectors::decode(&old) else {
            return Ok(None);
        };
        let current: HashSet<(&str, u64)> = live
            .iter()
            .map(|r| (r.id.as_str(), vectors::text_hash(&r.text)))
            .collect();
        let before = kept.len();
        kept.retain(|e| current.contains(&(e.id.as_str(), e.text_hash)));
        Ok((kept.len() != before).then(|| Entry::Write {
            file: VECTORS_FILE.to_string(),
            bytes: vectors::encode(&kept),
        }))
    }

    /// The vector sidecar. Missing reads as empty; an unreadable one is an error the caller may
    /// treat as "no vectors" (the next backfill rewrites it).
    pub fn read_vectors(&self) -> Result<Vectors, StoreError> {
        let Some(bytes) = self.read_file(VECTORS_FILE)? else {
            return Ok(Vectors::default());
        };
        let entries = vectors::decode(&bytes).map_err(|e| StoreError::BadFile {
            path: self.path(VECTORS_FILE),
            reason: e.to_string(),
        })?;
        Ok(Vectors::new(entries))
    }

    /// Change the vector sidecar under the lock, given the live records as they are now. An
    /// unreadable sidecar is started afresh (vectors are derived data, re-made by a backfill).
    pub fn update_vectors<T>(
        &self,
        change: impl FnOnce(&Snapshot, &mut Vec<VectorEntry>) -> T,
    ) -> Result<T, StoreError> {
        self.ensure_dir()?;
        let _lock = self.lock()?;
        self.settle()?;
        let (snap, _) = self.read_raw()?;
        let old = self.read_file(VECTORS_FILE)?;
        let mut entries = old
            .as_deref()
            .and_then(|b| vectors::decode(b).ok())
            .unwrap_or_default();
        let value = change(&snap, &mut entries);
        let bytes = vectors::encode(&entries);
        if differs(&old, &bytes) {
            let path = self.path(VECTORS_FILE);
            atomic::write_atomic(&path, &bytes)
                .map_err(|source| StoreError::Write { path, source })?;
        }
        Ok(value)
    }

    /// Erase every fact, archived value and correction (and any file that could hold fact text:
    /// vectors, `.corrupt` files, temp files left by a crash), then read the folder back and fail
    /// if any fact text is still there, and read the store as `read` (and so `memory list`) does
    /// and fail if it finds anything. A file of the store that is a symbolic link is refused
    /// before anything changes: removing the link would leave the facts where it points.
    pub fn clear(&self) -> Result<ClearReport, StoreError> {
        if !self.dir.exists() {
            return Ok(ClearReport::default());
        }
        let _lock = self.lock()?;
        self.refuse_symlinks()?;
        let generation = self.settle()?;
        let snap = self.read_raw_lenient();
        let mut texts: Vec<String> = snap.records.iter().map(|r| r.text.clone()).collect();
        texts.extend(snap.archive.iter().map(|a| a.record.text.clone()));
        for c in &snap.corrections {
            texts.push(c.old_text.clone());
            texts.extend(c.new_text.clone());
        }
        let report = ClearReport {
            records: snap.records.len(),
            archived: snap.archive.len(),
            corrections: snap.corrections.len(),
        };
        let mut entries: Vec<Entry> = self
            .list_dir()?
            .into_iter()
            .filter(|name| ![LOCK_FILE, STATE_FILE, JOURNAL_FILE].contains(&name.as_str()))
            .map(|file| Entry::Remove { file })
            .collect();
        // Bookkeeping stays (watermarks, the legacy marker) but not the last pass, whose
        // reason may quote a fact.
        if let Some(old) = self.read_file(STATE_FILE)? {
            let mut state = snap.state;
            state.last_pass = None;
            changed(&mut entries, STATE_FILE, &Some(old), state_bytes(&state));
        }
        self.commit(generation, entries)?;
        self.verify_cleared(&texts)?;
        let after = self.read()?;
        if !(after.records.is_empty() && after.archive.is_empty() && after.corrections.is_empty()) {
            return Err(StoreError::ClearReadBack {
                records: after.records.len(),
                archived: after.archive.len(),
                corrections: after.corrections.len(),
            });
        }
        Ok(report)
    }

    /// For `clear`: fail, changing nothing, if any file in the folder (the lock aside) is a
    /// symbolic link.
    fn refuse_symlinks(&self) -> Result<(), StoreError> {
        let err = |source| StoreError::Read {
            path: self.dir.clone(),
            source,
        };
        for entry in fs::read_dir(&self.dir).map_err(err)? {
            let entry = entry.map_err(err)?;
            if entry.file_name() == LOCK_FILE || !entry.file_type().map_err(err)?.is_symlink() {
                continue;
            }
            let path = entry.path();
            let target = fs::read_link(&path).map_err(|source| StoreError::Read {
                path: path.clone(),
                source,
            })?;
            return Err(StoreError::Symlink {
                path,
                target,
                dir: self.dir.clone(),
            });
        }
        Ok(())
    }

    fn verify_cleared(&self, texts: &[String]) -> Result<(), StoreError> {
        for name in self.list_dir()? {
            if name == LOCK_FILE {
                continue;
            }
            let path = self.path(&name);
            if name != STATE_FILE && name != JOURNAL_FILE {
                return Err(StoreError::ClearIncomplete { path });
            }
            let bytes = fs::read(&path).map_err(|source| StoreError::Read {
                path: path.clone(),
                source,
            })?;
            let content = String::from_utf8_lossy(&bytes);
            let leaked = texts.iter().any(|t| {
                let escaped = serde_json::to_string(t).expect("a string serialises");
                let inner = escaped.trim_matches('"');
                inner.len() >= 4 && content.contains(inner)
            });
            if leaked {
                return Err(StoreError::ClearIncomplete { path });
            }
        }
        Ok(())
    }

    fn list_dir(&self) -> Result<Vec<String>, StoreError> {
        let entries = fs::read_dir(&self.dir).map_err(|source| StoreError::Read {
            path: self.dir.clone(),
            source,
        })?;
        let mut names = Vec::new();
        let err = |source| StoreError::Read {
            path: self.dir.clone(),
            source,
        };
        for entry in entries {
            let entry = entry.map_err(err)?;
            // Everything but folders: a symlink or other special file at a store file's name is
            // listed too, so that clear removes it and its read-back sees it.
            if !entry.file_type().map_err(err)?.is_dir() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn lock(&self) -> Result<StoreLock, StoreError> {
        Ok(StoreLock::acquire(
            &self.path(LOCK_FILE),
            &self.holder,
            self.wait,
        )?)
    }

    fn ensure_dir(&self) -> Result<(), StoreError> {
        let err = |source| StoreError::Write {
            path: self.dir.clone(),
            source,
        };
        // Every folder created on the way (the data dir, memory/, the namespace) is 0700.
        crate::fsutil::create_private_dir(&self.dir).map_err(err)
    }

    /// Read the files as they are. Only under the lock, after `settle`, are they one generation.
    fn read_raw(&self) -> Result<(Snapshot, RawFiles), StoreError> {
        self.parse(self.read_files()?)
    }

    fn read_files(&self) -> Result<RawFiles, StoreError> {
        Ok(RawFiles {
            records: self.read_file(RECORDS_FILE)?,
            archive: self.read_file(ARCHIVE_FILE)?,
            corrections: self.read_file(CORRECTIONS_FILE)?,
            state: self.read_file(STATE_FILE)?,
        })
    }

    fn parse(&self, raw: RawFiles) -> Result<(Snapshot, RawFiles), StoreError> {
        let mut snap = Snapshot::default();
        let mut corrupt = Vec::new();
        let (records, bad) = jsonl::parse(RECORDS_FILE, or_empty(&raw.records));
        snap.records = records;
        corrupt.extend(bad);
        let (archive, bad) = jsonl::parse(ARCHIVE_FILE, or_empty(&raw.archive));
        snap.archive = archive;
        corrupt.extend(bad);
        let (corrections, bad) = jsonl::parse(CORRECTIONS_FILE, or_empty(&raw.corrections));
        snap.corrections = corrections;
        corrupt.extend(bad);
        if let Some(bytes) = &raw.state {
            snap.state = serde_json::from_slice(bytes).map_err(|e| StoreError::BadFile {
                path: self.path(STATE_FILE),
                reason: crate::printable::one_line(e),
            })?;
            if snap.state.version > state::FORMAT_VERSION {
                return Err(StoreError::NewerFormat {
                    path: self.path(STATE_FILE),
                    found: snap.state.version,
                    supported: state::FORMAT_VERSION,
                });
            }
        }
        snap.corrupt = corrupt;
        Ok((snap, raw))
    }

    /// For `clear`: read what can be read, ignoring a bad state file.
    fn read_raw_lenient(&self) -> Snapshot {
        match self.read_raw() {
            Ok((snap, _)) => snap,
            Err(_) => {
                let mut snap = Snapshot::default();
                for (file, records) in [(RECORDS_FILE, true), (ARCHIVE_FILE, false)] {
                    // What cannot be read here is still removed; only the read-back's list of
                    // texts to look for is shorter.
                    let bytes = fs::read(self.path(file)).unwrap_or_default();
                    if records {
                        snap.records = jsonl::parse(file, &bytes).0;
                    } else {
                        snap.archive = jsonl::parse(file, &bytes).0;
                    }
                }
                snap
            }
        }
    }

    /// The journal, if there is one. One that cannot be read is an error, never skipped: a
    /// pending one may hold the only copy of a committed change.
    fn read_journal(&self) -> Result<Option<Journal>, StoreError> {
        let Some(bytes) = self.read_file(JOURNAL_FILE)? else {
            return Ok(None);
        };
        let path = self.path(JOURNAL_FILE);
        match Journal::decode(&bytes) {
            Ok(j) => Ok(Some(j)),
            Err(JournalError::Newer(found)) => Err(StoreError::NewerFormat {
                path,
                found,
                supported: journal::FORMAT,
            }),
            Err(JournalError::Bad(reason)) => Err(StoreError::BadFile { path, reason }),
        }
    }

    /// Under the lock, before any change: remove what a crashed write left behind, and put a
    /// transaction a crash cut short in place. Returns the generation.
    fn settle(&self) -> Result<u64, StoreError> {
        self.remove_leftovers()?;
        let Some(journal) = self.read_journal()? else {
            return Ok(0);
        };
        if journal.phase == Phase::Pending {
            self.apply(&journal)
                .map_err(|(path, source)| StoreError::Write { path, source })?;
        }
        Ok(journal.generation)
    }

    /// Remove the temp files of writes that died before renaming them (the journal's among
    /// them): they may hold fact text, even text forgotten since. Only a writer holding the lock
    /// makes temp files here, so under the lock every one is a leftover. A symlink at a temp name
    /// is removed too (the link, not what it points to).
    fn remove_leftovers(&self) -> Result<(), StoreError> {
        let err = |source| StoreError::Read {
            path: self.dir.clone(),
            source,
        };
        for entry in fs::read_dir(&self.dir).map_err(err)? {
            let entry = entry.map_err(err)?;
            let name = entry.file_name();
            if entry.file_type().map_err(err)?.is_dir()
                || !atomic::is_temp_name(&name.to_string_lossy())
            {
                continue;
            }
            let path = entry.path();
            atomic::remove_durable(&path).map_err(|source| StoreError::Write { path, source })?;
        }
        Ok(())
    }

    /// Under the lock: commit `entries` as generation `generation + 1`, put them in place, and
    /// mark the journal done (see the module doc). No entries, no write at all. Returns the
    /// generation the store is now.
    fn commit(&self, generation: u64, entries: Vec<Entry>) -> Result<u64, StoreError> {
        if entries.is_empty() {
            return Ok(generation);
        }
        let path = self.path(JOURNAL_FILE);
        let journal = Journal {
            // No overflow: `decode` refuses a journal of generation u64::MAX.
            generation: generation + 1,
            phase: Phase::Pending,
            entries,
        };
        atomic::stage(&path, &journal.encode())
            .and_then(atomic::Staged::install)
            .map_err(|source| StoreError::Write {
                path: path.clone(),
                source,
            })?;
        // Committed: from here on an error leaves the change standing, finished by the next write.
        atomic::sync_dir(&path)
            .map_err(|source| (path, source))
            .and_then(|()| self.apply(&journal))
            .map_err(|(path, source)| StoreError::Unfinished { path, source })?;
        Ok(journal.generation)
    }

    /// Put every file of a committed journal in place, then mark it done. Idempotent: a file that
    /// already holds its new bytes (or is already gone) is left alone.
    fn apply(&self, journal: &Journal) -> Result<(), (PathBuf, io::Error)> {
        for entry in &journal.entries {
            let path = self.path(entry.file());
            let result = match entry {
                Entry::Write { bytes, .. } => match fs::read(&path) {
                    Ok(now) if now == *bytes => Ok(()),
                    _ => atomic::write_atomic(&path, bytes),
                },
                Entry::Remove { .. } => atomic::remove_through(&path),
            };
            result.map_err(|e| (path, e))?;
        }
        let done = Journal {
            generation: journal.generation,
            phase: Phase::Done,
            entries: Vec::new(),
        };
        let path = self.path(JOURNAL_FILE);
        atomic::write_atomic(&path, &done.encode()).map_err(|e| (path, e))
    }

    fn read_file(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(name);
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Read { path, source }),
        }
    }

    /// The `.corrupt` files with `corrupt`'s lines appended, all of a file's lines at once: they
    /// are written in the same transaction that rewrites the file without them, so each line is
    /// on disk exactly once, whatever happens.
    fn moved_aside(&self, corrupt: &[CorruptLine]) -> Result<Vec<Entry>, StoreError> {
        let mut by_file: std::collections::BTreeMap<&str, Vec<u8>> = Default::default();
        for line in corrupt {
            let bytes = by_file.entry(line.file.as_str()).or_default();
            bytes.extend_from_slice(&line.bytes);
            bytes.push(b'\n');
        }
        let mut entries = Vec::new();
        for (file, lines) in by_file {
            let file = format!("{file}{CORRUPT_SUFFIX}");
            let mut bytes = self.read_file(&file)?.unwrap_or_default();
            bytes.extend_from_slice(&lines);
            entries.push(Entry::Write { file, bytes });
        }
        Ok(entries)
    }
}

/// Whether `new` differs from a file's bytes as read (a missing file and an empty one are the
/// same), so that unchanged files are not rewritten.
fn differs(old: &Option<Vec<u8>>, new: &[u8]) -> bool {
    match old {
        Some(old) => old.as_slice() != new,
        None => !new.is_empty(),
    }
}

/// Add writing `new` to `name` to `entries` if it differs from what was read.
fn changed(entries: &mut Vec<Entry>, name: &str, old: &Option<Vec<u8>>, new: Vec<u8>) {
    if differs(old, &new) {
        entries.push(Entry::Write {
            file: name.to_string(),
            bytes: new,
        });
    }
}

/// A file's bytes as read; a missing file reads as empty.
fn or_empty(bytes: &Option<Vec<u8>>) -> &[u8] {
    bytes.as_deref().unwrap_or_default()
}

/// `state.json`'s bytes.
fn state_bytes(state: &State) -> Vec<u8> {
    serde_json::to_vec_pretty(state).expect("State serialises: plain data with string keys")
}

/// The bytes of each file as read, to skip rewriting unchanged files.
struct RawFiles {
    records: Option<Vec<u8>>,
    archive: Option<Vec<u8>>,
    corrections: Option<Vec<u8>>,
    state: Option<Vec<u8>>,
}

impl RawFiles {
    /// The files as `journal` leaves them.
    fn overlay(&mut self, journal: &Journal) {
        for (name, slot) in [
            (RECORDS_FILE, &mut self.records),
            (ARCHIVE_FILE, &mut self.archive),
            (CORRECTIONS_FILE, &mut self.corrections),
            (STATE_FILE, &mut self.state),
        ] {
            if let Some(bytes) = journal.outcome(name) {
                *slot = bytes.map(<[u8]>::to_vec);
            }
        }
    }
}

#[cfg(test)]
mod crash_tests;
#[cfg(test)]
mod tests;
