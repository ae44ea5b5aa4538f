//! Reinforcement of recalled facts (`last_recalled_at`, `recall_count`), off the hot path: a
//! recall only queues the ids; one task writes them in batches, at most one store write per
//! [`BATCH`], so a busy chat never queues fsyncs behind its turns. At shutdown the queue is
//! written out, not dropped; a batch is written only if the mode allows writes at that moment.

use std::sync::Mutex;
use std::time::Duration;

use chrono::Utc;
use localm_core::recall::reinforce;
use localm_core::store::{Store, StoreError};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// How long queued reinforcements wait to be written together.
pub const BATCH: Duration = Duration::from_secs(2);

pub struct Reinforcer {
    tx: mpsc::UnboundedSender<Vec<String>>,
    stop: watch::Sender<bool>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Reinforcer {
    /// Start the writer task (needs a tokio runtime). `writes_allowed` is asked before each
    /// write.
    pub fn start(
        store: Store,
        writes_allowed: impl Fn() -> bool + Send + Sync + 'static,
    ) -> Reinforcer {
        let (tx, rx) = mpsc::unbounded_channel::<Vec<String>>();
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(write_batches(store, rx, stopped, writes_allowed));
        Reinforcer {
            tx,
            stop,
            task: Mutex::new(Some(task)),
        }
    }

    /// Queue the ids one recall injected.
    pub fn note(&self, ids: Vec<String>) {
        let _ = self.tx.send(ids);
    }

    /// Write what is queued now and stop the writer (at shutdown; later notes are dropped).
    pub async fn flush(&self) {
        let _ = self.stop.send(true);
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(task) = task
            && let Err(e) = task.await
        {
            tracing::warn!("the reinforcement writer failed: {e}");
        }
    }
}

async fn write_batches(
    store: Store,
    mut rx: mpsc::UnboundedReceiver<Vec<String>>,
    mut stopped: watch::Receiver<bool>,
    writes_allowed: impl Fn() -> bool + Send + Sync + 'static,
) {
    let writes_allowed = std::sync::Arc::new(writes_allowed);
    loop {
        let first = tokio::select! {
            Some(ids) = rx.recv() => Some(ids),
            _ = stopped.wait_for(|s| *s) => None,
        };
        let mut batch: Vec<Vec<String>> = first.into_iter().collect();
        let stopping = if batch.is_empty() {
            true
        } else {
            tokio::select! {
                () = tokio::time::sleep(BATCH) => false,
                _ = stopped.wait_for(|s| *s) => true,
            }
        };
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        if !batch.is_empty() {
            let store = store.clone();
            let allowed = std::sync::Arc::clone(&writes_allowed);
            let written = tokio::task::spawn_blocking(move || {
                if !allowed() {
                    return Ok(None);
                }
                let now = Utc::now();
                store
                    .write(|snap| {
                        for ids in &batch {
                            reinforce(&mut snap.records, ids, now);
                        }
                        Ok::<_, StoreError>(batch.len())
                    })
                    .map(|c| Some(c.value))
            })
            .await;
            match written {
                Ok(Ok(Some(n))) => tracing::debug!("reinforced {n} recall(s)"),
                Ok(Ok(None)) => tracing::debug!("reinforcement dropped: writes are off now"),
                Ok(Err(e)) => tracing::debug!("reinforcement skipped: {e}"),
                Err(e) => tracing::debug!("reinforcement skipped: {e}"),
            }
        }
        if stopping {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use chrono::Utc;
    use localm_core::record::{Kind, Record, Source};

    use super::*;

    fn store_with_one_fact(dir: &std::path::Path) -> Store {
        let store = Store::new(dir, "chat", "test");
        store
            .write(|snap| {
                let now = Utc::now();
                snap.records.push(Record::new(
                    "aaaa0001",
                    "Prefers green tea",
                    Kind::Semantic,
                    Source::User,
                    0.8,
                    now,
                ));
                Ok::<_, StoreError>(())
            })
            .unwrap();
        store
    }

    fn recalls(store: &Store) -> u32 {
        store.read().unwrap().records[0].recall_count
    }

    #[tokio::test]
    async fn flush_writes_what_is_queued_without_waiting_for_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_one_fact(dir.path());
        let r = Reinforcer::start(store.clone(), || true);
        r.note(vec!["aaaa0001".into()]);
        r.note(vec!["aaaa0001".into()]);
        let t = std::time::Instant::now();
        r.flush().await;
        assert!(t.elapsed() < BATCH, "flush waited for the batch timer");
        assert_eq!(recalls(&store), 2);
    }

    #[tokio::test]
    async fn a_batch_is_dropped_when_writes_were_switched_off_before_it_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_with_one_fact(dir.path());
        let allowed = Arc::new(AtomicBool::new(true));
        let a = Arc::clone(&allowed);
        let r = Reinforcer::start(store.clone(), move || a.load(Ordering::SeqCst));
        r.note(vec!["aaaa0001".into()]);
        // Privacy mode switched on while the batch waits.
        allowed.store(false, Ordering::SeqCst);
        r.flush().await;
        assert_eq!(recalls(&store), 0);
    }
}
