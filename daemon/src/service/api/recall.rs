//! `POST /api/memory/recall`: chat messages in; the block, the ids, the degrade reason and the
//! exact `X-Localm-Memory` value out. The store, its word index and its vectors are cached and
//! rebuilt only when their files change; the embedder is loaded once, on first use.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use localm_core::engine::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, Query, build_query};
use localm_core::recall::{Recall, plan_semantic, recall};
use localm_core::record::Record;
use localm_core::store::vectors::Vectors;
use localm_core::store::{RECORDS_FILE, Store, StoreError, VECTORS_FILE};
use serde::Deserialize;
use serde_json::json;

use super::body::JsonBody;
use super::error::ApiError;
use super::state::Shared;
use crate::models::{self, embedder::Bert};

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecallRequest {
    pub messages: Vec<ChatMessage>,
    #[serde(default)]
    pub agent: Agent,
}

/// The response header carrying what recall did.
pub const HEADER: &str = "x-localm-memory";

pub async fn handle(
    State(s): State<Arc<Shared>>,
    JsonBody(req): JsonBody<RecallRequest>,
) -> Result<Response, ApiError> {
    let config = s.config();
    let allowed = config.settings.recall_allowed(config.mode);
    let query = build_query(&req.messages, req.agent);
    let (result, skipped) = match (allowed, query) {
        (Err(why), _) => (Recall::none(None), Some(why.to_string())),
        (Ok(()), None) => (
            Recall::none(None),
            Some("no recall for this turn".to_string()),
        ),
        // Lexical recall takes well under a millisecond: run it here. Embedding the query
        // takes tens of milliseconds: run that on the blocking pool.
        (Ok(()), Some(q)) if models::embedder_path(&s.data_dir, &config.settings).is_none() => {
            (s.recall.run(&s, &q)?, None)
        }
        (Ok(()), Some(q)) => {
            let shared = Arc::clone(&s);
            let r = tokio::task::spawn_blocking(move || shared.recall.run(&shared, &q))
                .await
                .map_err(ApiError::internal)??;
            (r, None)
        }
    };
    // Reinforce what was injected, off the hot path; privacy-mode recall never writes.
    if config.mode.allows_writes() && !result.items.is_empty() {
        s.reinforcer
            .note(result.items.iter().map(|i| i.id.clone()).collect());
    }
    let header = result.header_value();
    let mut body = json!({
        "block": result.block,
        "items": super::exact(&result.items),
        "degrade": result.degrade.map(|d| d.as_str()),
        "header": header,
    });
    if let Some(why) = skipped {
        body["skipped"] = json!(why);
    }
    let mut resp = Json(body).into_response();
    if let Ok(v) = HeaderValue::from_str(&header) {
        resp.headers_mut().insert(HEADER, v);
    }
    Ok(resp)
}

/// A file's identity: a write replaces it (new inode) or changes its size or time.
type FileKey = Option<(u64, u64, i64, i64)>;

fn file_key(path: &Path) -> FileKey {
    fs::metadata(path)
        .ok()
        .map(|m| (m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
}

struct Cached {
    keys: (FileKey, FileKey),
    records: Vec<Record>,
    index: LexicalIndex,
    vectors: Option<Vectors>,
}

/// The store as recall last read it, and the loaded embedder.
#[derive(Default)]
pub struct RecallCache {
    cached: Mutex<Option<Arc<Cached>>>,
    embedder: Mutex<Option<(PathBuf, Arc<Bert>)>>,
}

impl RecallCache {
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

    fn snapshot(&self, store: &Store) -> Result<Arc<Cached>, StoreError> {
        let keys = (
            file_key(&store.path(RECORDS_FILE)),
            file_key(&store.path(VECTORS_FILE)),
        );
        let mut slot = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_ref().filter(|c| c.keys == keys) {
            return Ok(Arc::clone(c));
        }
        let snap = store.read()?;
        let vectors = store.read_vectors().ok();
        let index = LexicalIndex::new(snap.records.iter().map(|r| r.text.as_str()));
        let fresh = Arc::new(Cached {
            keys,
            records: snap.records,
            index,
            vectors,
        });
        *slot = Some(Arc::clone(&fresh));
        Ok(fresh)
    }

    fn embedder(&self, s: &Shared) -> Option<Arc<Bert>> {
        let path = models::embedder_path(&s.data_dir, &s.config().settings)?;
        let mut slot = self.embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, e)) = slot.as_ref()
            && *p == path
        {
            return Some(Arc::clone(e));
        }
        match Bert::load(&path) {
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

    /// One turn's recall over the cached store.
    pub fn run(&self, s: &Shared, query: &Query) -> Result<Recall, ApiError> {
        let c = self.snapshot(&s.store)?;
        if c.records.is_empty() {
            return Ok(Recall::none(None));
        }
        let embedder = self.embedder(s);
        let sem = plan_semantic(
            &c.records,
            c.vectors.as_ref(),
            embedder.as_deref().map(|e| e as &dyn Embedder),
            &query.text,
        );
        Ok(recall(&c.records, &c.index, &sem, query, Utc::now()))
    }
}
