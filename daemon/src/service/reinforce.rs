//! Reinforcement of recalled facts (`last_recalled_at`, `recall_count`), off the hot path: a
//! recall only queues the ids; one task writes them in batches, at most one store write per
//! [`BATCH`], so a busy chat never queues fsyncs behind its turns.

use std::time::Duration;

use chrono::Utc;
use localm_core::recall::reinforce;
use localm_core::store::{Store, StoreError};
use tokio::sync::mpsc;

/// How long queued reinforcements wait to be written together.
pub const BATCH: Duration = Duration::from_secs(2);

pub struct Reinforcer {
    tx: mpsc::UnboundedSender<Vec<String>>,
}

impl Reinforcer {
    /// Start the writer task (needs a tokio runtime).
    pub fn start(store: Store) -> Reinforcer {
        let (tx, mut rx) = mpsc::unbounded_channel::<Vec<String>>();
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                tokio::time::sleep(BATCH).await;
                let mut batch = vec![first];
                while let Ok(more) = rx.try_recv() {
                    batch.push(more);
                }
                let store = store.clone();
                let written = tokio::task::spawn_blocking(move || {
                    let now = Utc::now();
                    store.write(|snap| {
                        for ids in &batch {
                            reinforce(&mut snap.records, ids, now);
                        }
                        Ok::<_, StoreError>(batch.len())
                    })
                })
                .await;
                match written {
                    Ok(Ok(n)) => tracing::debug!("reinforced {} recall(s)", n.value),
                    Ok(Err(e)) => tracing::debug!("reinforcement skipped: {e}"),
                    Err(e) => tracing::debug!("reinforcement skipped: {e}"),
                }
            }
        });
        Reinforcer { tx }
    }

    /// Queue the ids one recall injected.
    pub fn note(&self, ids: Vec<String>) {
        let _ = self.tx.send(ids);
    }
}
