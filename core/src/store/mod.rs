//! The JSONL store of one memory namespace: its files, read without a lock, and written only in a
//! transaction — take the lock, re-read, change, write temp files, fsync, rename, fsync the folder.

pub mod archive;
pub mod atomic;
pub mod corrections;
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
/// Suffix of the file beside each JSONL file that unreadable lines are moved to.
pub const CORRUPT_SUFFIX: &str = ".corrupt";

/// Why a store operation failed. Nothing was changed on disk when one is returned.
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

    /// Move `record` to the archive. If its id is still live (a superseded value whose record
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
    }
}

/// What a committed transaction did besides its own result.
#[derive(Debug)]
pub struct Committed<T> {
    pub value: T,
    /// Unreadable lines that were moved to `.corrupt` files by this write.
    pub corrupt_moved: Vec<CorruptLine>,
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

    /// Read everything without taking the lock. Each file is replaced atomically, so each is
    /// whole; a missing folder reads as an empty store.
    pub fn read(&self) -> Result<Snapshot, StoreError> {
        Ok(self.read_raw()?.0)
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
        let (mut snap, raw) = self.read_raw()?;
        let corrupt = std::mem::take(&mut snap.corrupt);
        let value = change(&mut snap)?;
        self.move_aside(&corrupt)?;
        self.put(RECORDS_FILE, &raw.records, &jsonl::render(&snap.records))?;
        self.put(ARCHIVE_FILE, &raw.archive, &jsonl::render(&snap.archive))?;
        self.put(
            CORRECTIONS_FILE,
            &raw.corrections,
            &jsonl::render(&snap.corrections),
        )?;
        let state = state_bytes(&snap.state);
        if raw.state.is_some() || snap.state != State::default() {
            self.put(STATE_FILE, &raw.state, &state)?;
        }
        Ok(Committed {
            value,
            corrupt_moved: corrupt,
        })
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
        let (snap, _) = self.read_raw()?;
        let old = self.read_file(VECTORS_FILE)?;
        let mut entries = old
            .as_deref()
            .and_then(|b| vectors::decode(b).ok())
            .unwrap_or_default();
        let value = change(&snap, &mut entries);
        let bytes = vectors::encode(&entries);
        self.put(VECTORS_FILE, &old, &bytes)?;
        Ok(value)
    }

    /// Erase every fact, archived value and correction (and any file that could hold fact text:
    /// vectors, `.corrupt` files, temp files left by a crash), then read the folder back and fail
    /// if any fact text is still there.
    pub fn clear(&self) -> Result<ClearReport, StoreError> {
        if !self.dir.exists() {
            return Ok(ClearReport::default());
        }
        let _lock = self.lock()?;
        let (snap, _) = self.read_raw_lenient();
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
        for name in self.list_dir()? {
            if name == LOCK_FILE || name == STATE_FILE {
                continue;
            }
            let path = self.path(&name);
            atomic::remove_durable(&path).map_err(|source| StoreError::Write { path, source })?;
        }
        // Bookkeeping stays (watermarks, the legacy marker) but not the last pass, whose
        // reason may quote a fact.
        let mut state = snap.state;
        state.last_pass = None;
        if self.path(STATE_FILE).exists() {
            let path = self.path(STATE_FILE);
            let bytes = state_bytes(&state);
            atomic::write_atomic(&path, &bytes)
                .map_err(|source| StoreError::Write { path, source })?;
        }
        self.verify_cleared(&texts)?;
        Ok(report)
    }

    fn verify_cleared(&self, texts: &[String]) -> Result<(), StoreError> {
        for name in self.list_dir()? {
            if name == LOCK_FILE {
                continue;
            }
            let path = self.path(&name);
            if name != STATE_FILE {
                return Err(StoreError::ClearIncomplete { path });
            }
            let content = fs::read_to_string(&path).map_err(|source| StoreError::Read {
                path: path.clone(),
                source,
            })?;
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
            if entry.file_type().map_err(err)?.is_file() {
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
        if !self.dir.exists() {
            fs::create_dir_all(&self.dir).map_err(err)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(&self.dir, fs::Permissions::from_mode(0o700)).map_err(err)?;
            }
        }
        Ok(())
    }

    fn read_raw(&self) -> Result<(Snapshot, RawFiles), StoreError> {
        let raw = RawFiles {
            records: self.read_file(RECORDS_FILE)?,
            archive: self.read_file(ARCHIVE_FILE)?,
            corrections: self.read_file(CORRECTIONS_FILE)?,
            state: self.read_file(STATE_FILE)?,
        };
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
                reason: e.to_string(),
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
    fn read_raw_lenient(&self) -> (Snapshot, Option<RawFiles>) {
        match self.read_raw() {
            Ok((snap, raw)) => (snap, Some(raw)),
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
                (snap, None)
            }
        }
    }

    fn read_file(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(name);
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Read { path, source }),
        }
    }

    /// Write `new` to `name` if it differs from what was read.
    fn put(&self, name: &str, old: &Option<Vec<u8>>, new: &[u8]) -> Result<(), StoreError> {
        let unchanged = match old {
            Some(old) => old.as_slice() == new,
            None => new.is_empty(),
        };
        if unchanged {
            return Ok(());
        }
        let path = self.path(name);
        atomic::write_atomic(&path, new).map_err(|source| StoreError::Write { path, source })
    }

    /// Append unreadable lines to `<file>.corrupt` before the file is rewritten without them:
    /// one append and one fsync per file, however many lines.
    fn move_aside(&self, corrupt: &[CorruptLine]) -> Result<(), StoreError> {
        let mut by_file: std::collections::BTreeMap<&str, Vec<u8>> = Default::default();
        for line in corrupt {
            let bytes = by_file.entry(line.file.as_str()).or_default();
            bytes.extend_from_slice(&line.bytes);
            bytes.push(b'\n');
        }
        for (file, bytes) in by_file {
            let path = self.path(&format!("{file}{CORRUPT_SUFFIX}"));
            atomic::append_durable(&path, &bytes)
                .map_err(|source| StoreError::Write { path, source })?;
        }
        Ok(())
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

#[cfg(test)]
mod tests;
