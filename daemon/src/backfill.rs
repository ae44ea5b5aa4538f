//! The embedding sweep: embed records that lack a current vector (at most N), then merge the new
//! vectors into the sidecar under the store lock. Used by `memory backfill`, `setup-embeddings`,
//! and (per pass and hourly) by the daemon.

use indicatif::{ProgressBar, ProgressStyle};
use localm_core::backfill::{self, Todo};
use localm_core::models::Embedder;
use localm_core::store::Store;

/// Texts embedded per model call.
const BATCH: usize = 32;

/// What one sweep did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Swept {
    pub embedded: usize,
    /// Records still without a current vector afterwards.
    pub remaining: usize,
}

/// Embed up to `limit` records missing a vector. With `progress`, draw a bar on stderr.
pub fn sweep(
    store: &Store,
    embedder: &dyn Embedder,
    limit: usize,
    progress: bool,
) -> anyhow::Result<Swept> {
    let snap = store.read()?;
    let vectors = store.read_vectors().unwrap_or_default();
    let todo = backfill::todo(&snap.records, &vectors, embedder.id(), limit);
    let bar = if progress && !todo.is_empty() {
        let bar = ProgressBar::new(todo.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("embedding {bar:30} {pos}/{len} facts ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let mut made: Vec<(Todo, Vec<f32>)> = Vec::with_capacity(todo.len());
    for chunk in todo.chunks(BATCH) {
        let texts: Vec<&str> = chunk.iter().map(|t| t.text.as_str()).collect();
        let vectors = embedder
            .embed(&texts)
            .map_err(|e| anyhow::anyhow!("the embedding model failed: {e}"))?;
        made.extend(chunk.iter().cloned().zip(vectors));
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    let model = embedder.id().to_string();
    let (embedded, remaining) = store.update_vectors(|snap, entries| {
        let added = backfill::merge(&snap.records, entries, &model, made);
        let current = localm_core::store::vectors::Vectors::new(entries.clone());
        (
            added,
            backfill::missing_count(&snap.records, &current, &model),
        )
    })?;
    Ok(Swept {
        embedded,
        remaining,
    })
}
