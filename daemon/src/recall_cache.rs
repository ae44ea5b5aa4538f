//! The daemon's recall inputs, kept between turns: the store's records with their word index
//! and vectors, re-read only when `memory.jsonl`, `memory.vec` or `.journal` change on disk, and the
//! embedder, loaded on first use and kept while its path stays the same.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use localm_core::recall::lexical::LexicalIndex;
use localm_core::record::Record;
use localm_core::store::vectors::Vectors;
use localm_core::store::{JOURNAL_FILE, RECORDS_FILE, Store, StoreError, VECTORS_FILE};

use crate::models::embedder::BertEmbedder;

/// A file's identity: a write replaces it (new inode) or changes its size or time.
type FileKey = Option<(u64, u64, i64, i64)>;

fn file_key(path: &Path) -> FileKey {
    fs::metadata(path)
        .ok()
        .map(|m| (m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
}

/// The store as recall last read it.
pub struct CachedStore {
    keys: (FileKey, FileKey, FileKey),
    pub records: Vec<Record>,
    pub index: LexicalIndex,
    /// `None` when the sidecar could not be read (recall then degrades to lexical).
    pub vectors: Option<Vectors>,
}

/// The store as recall last read it, and the loaded embedder.
#[derive(Default)]
pub struct RecallCache {
    store: Mutex<Option<Arc<CachedStore>>>,
    embedder: Mutex<Option<(PathBuf, Arc<BertEmbedder>)>>,
}

impl RecallCache {
    /// The store's records, index and vectors, re-read when their files changed.
    pub fn store(&self, store: &Store) -> Result<Arc<CachedStore>, StoreError> {
        let keys = (
            file_key(&store.path(RECORDS_FILE)),
            file_key(&store.path(VECTORS_FILE)),
            // A write a crash left half-applied is read from its journal.
            file_key(&store.path(JOURNAL_FILE)),
        );
        let mut slot = self.store.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_ref().filter(|c| c.keys == keys) {
            return Ok(Arc::clone(c));
        }
        let snap = store.read()?;
        let vectors = match store.read_vectors() {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!("{e}; recall is lexical until the next backfill");
                None
            }
        };
        let index = LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str()));
        let fresh = Arc::new(CachedStore {
            keys,
            records: snap.records,
            index,
            vectors,
        });
        *slot = Some(Arc::clone(&fresh));
        Ok(fresh)
    }

    /// The embedder at `path` (loaded on first use); `None` without one, or when it fails to
    /// load (logged; recall degrades to `no_embedder`).
    pub fn embedder(&self, path: Option<PathBuf>) -> Option<Arc<BertEmbedder>> {
        let path = path?;
        let mut slot = self.embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, e)) = slot.as_ref()
            && *p == path
        {
            return Some(Arc::clone(e));
        }
        match BertEmbedder::load(&path) {
            Ok(b) => {
                let b = Arc::new(b);
                *slot = Some((path, Arc::clone(&b)));
                Some(b)
            }
            Err(e) => {
                tracing::warn!("{e:#}; recall is lexical only");
                None
            }
        }
    }

    /// Drop the loaded embedder (settings changed: it may be another model now).
    pub fn forget_embedder(&self) {
        *self.embedder.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Whether an embedder is loaded (for health and the idle benchmark).
    pub fn embedder_loaded(&self) -> bool {
        self.embedder
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}
