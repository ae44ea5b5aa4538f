//! The chat path's background tasks (the SSE pump, the turn logger, the worker's unload timer,
//! the cancel-drain of a turn whose client left), owned here so `service::run` can wait for
//! them at shutdown instead of the runtime dropping them mid-write.

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinSet;

/// Every task the chat path spawned and that has not ended yet.
pub struct ChatTasks {
    set: Mutex<JoinSet<()>>,
    stop: watch::Sender<bool>,
}

impl Default for ChatTasks {
    fn default() -> ChatTasks {
        ChatTasks {
            set: Mutex::new(JoinSet::new()),
            stop: watch::channel(false).0,
        }
    }
}

impl ChatTasks {
    /// Run `task` in the background, owned by this set (needs a runtime). Ended tasks are
    /// reaped here, so the set holds only live ones.
    pub fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let mut set = self.set.lock().unwrap_or_else(|e| e.into_inner());
        while set.try_join_next().is_some() {}
        set.spawn(task);
    }

    /// Resolves once shutdown began: a task that only waits (a timer) ends on it.
    pub fn stopping(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.stop.subscribe();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    }

    /// At shutdown: tell waiting tasks to end, then wait up to `grace` for every task (also
    /// those spawned meanwhile); those still running after it are aborted. How many were.
    pub async fn drain(&self, grace: Duration) -> usize {
        self.stop.send_replace(true);
        let deadline = tokio::time::Instant::now() + grace;
        let mut aborted = 0;
        loop {
            let mut set = std::mem::take(&mut *self.set.lock().unwrap_or_else(|e| e.into_inner()));
            if set.is_empty() {
                return aborted;
            }
            let joined = tokio::time::timeout_at(deadline, async {
                while set.join_next().await.is_some() {}
            })
            .await;
            if joined.is_err() {
                aborted += set.len();
                set.shutdown().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn drain_waits_for_work_ends_timers_and_aborts_what_overruns() {
        let tasks = ChatTasks::default();
        let done = Arc::new(AtomicUsize::new(0));
        let d = Arc::clone(&done);
        tasks.spawn(async move {
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
            d.fetch_add(1, Ordering::SeqCst);
        });
        let stopping = tasks.stopping();
        let d = Arc::clone(&done);
        tasks.spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(3600)) => {}
                _ = stopping => { d.fetch_add(1, Ordering::SeqCst); }
            }
        });
        tasks.spawn(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        });
        assert_eq!(tasks.drain(Duration::from_millis(200)).await, 1);
        assert_eq!(done.load(Ordering::SeqCst), 2);
        assert_eq!(tasks.drain(Duration::from_secs(1)).await, 0);
    }
}
