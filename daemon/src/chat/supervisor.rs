//! The daemon's side of the chat worker: start it on the first turn, keep it loaded between
//! turns, unload it after an idle timeout, run one generation at a time with a bounded queue,
//! cancel a generation whose client left, and start a fresh worker after a crash.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::OwnedMutexGuard;

use super::protocol::{CANCEL, Event, Request};
use super::tasks::ChatTasks;

/// Turns that may wait while one generates; more get 503.
pub const QUEUE: usize = 4;
/// Loading the model may take this long.
const LOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a turn could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum ChatFailure {
    #[error("{QUEUE} chat requests are already waiting; try again shortly")]
    Busy,
    #[error("cannot start the chat worker: {0}")]
    Spawn(String),
    #[error("the chat worker stopped ({0}); the next request starts a new one")]
    Crashed(String),
    #[error("generation failed: {0}")]
    Failed(String),
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    model: PathBuf,
}

/// The chat worker, shared by every turn.
pub struct ChatWorker {
    exe: PathBuf,
    slot: Arc<tokio::sync::Mutex<Option<Worker>>>,
    waiting: AtomicUsize,
    last_used: Arc<Mutex<Instant>>,
    idle: Duration,
    /// The chat path's background tasks (this worker's timers and drains among them).
    pub tasks: Arc<ChatTasks>,
}

/// One turn holding the worker: send its request, then read events until `done` or `error`.
/// Dropped before the end (the client left), it cancels the generation and drains it in the
/// background, so the next turn finds the worker idle.
pub struct Turn {
    guard: Option<OwnedMutexGuard<Option<Worker>>>,
    finished: bool,
    /// The worker has sent this turn's first text (logged once: the reply is under way).
    replying: bool,
    last_used: Arc<Mutex<Instant>>,
    tasks: Arc<ChatTasks>,
}

impl ChatWorker {
    /// A worker for `exe chat-worker`, stopped (its model's memory freed) once idle for `idle`.
    pub fn new(exe: PathBuf, idle: Duration) -> ChatWorker {
        ChatWorker {
            exe,
            slot: Arc::new(tokio::sync::Mutex::new(None)),
            waiting: AtomicUsize::new(0),
            last_used: Arc::new(Mutex::new(Instant::now())),
            idle,
            tasks: Arc::default(),
        }
    }

    /// Whether a worker process is running (its model loaded).
    pub fn loaded(&self) -> bool {
        self.slot.try_lock().map_or(true, |g| g.is_some())
    }

    /// Wait for the worker (at most [`QUEUE`] turns wait), start it with `model` if it is not
    /// running (or runs another model), and send `request`.
    pub async fn start(&self, model: &Path, request: &Request) -> Result<Turn, ChatFailure> {
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= QUEUE {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ChatFailure::Busy);
        }
        let mut guard = Arc::clone(&self.slot).lock_owned().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        if guard.as_ref().is_some_and(|w| w.model != model) {
            *guard = None;
        }
        if guard.is_none() {
            *guard = Some(self.spawn(model).await?);
        }
        let mut line =
            serde_json::to_string(request).map_err(|e| ChatFailure::Failed(e.to_string()))?;
        line.push('\n');
        let worker = guard
            .as_mut()
            .ok_or_else(|| ChatFailure::Failed("no worker".into()))?;
        if let Err(e) = worker.stdin.write_all(line.as_bytes()).await {
            *guard = None;
            return Err(ChatFailure::Crashed(e.to_string()));
        }
        Ok(Turn {
            guard: Some(guard),
            finished: false,
            replying: false,
            last_used: Arc::clone(&self.last_used),
            tasks: Arc::clone(&self.tasks),
        })
    }

    async fn spawn(&self, model: &Path) -> Result<Worker, ChatFailure> {
        let mut cmd = crate::process::model_process(&self.exe, ["chat-worker"]);
        cmd.arg("--model")
            .arg(model)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd
            .spawn()
            .map_err(|e| ChatFailure::Spawn(format!("{}: {e}", self.exe.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ChatFailure::Spawn("no pipes to the worker".into()));
        };
        let mut lines = BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(LOAD_TIMEOUT, lines.next_line()).await;
        match ready {
            Ok(Ok(Some(line))) => match serde_json::from_str::<Event>(&line) {
                Ok(Event::Ready { model: name }) => {
                    tracing::info!("chat worker {} loaded {name}", child.id().unwrap_or(0));
                }
                _ => return Err(ChatFailure::Spawn(format!("unexpected first line: {line}"))),
            },
            Ok(_) => {
                let status = child
                    .wait()
                    .await
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                return Err(ChatFailure::Spawn(format!(
                    "the worker exited before its model was loaded ({status}); see the daemon log"
                )));
            }
            Err(_) => return Err(ChatFailure::Spawn("loading the model timed out".into())),
        }
        Ok(Worker {
            child,
            stdin,
            lines,
            model: model.to_path_buf(),
        })
    }

    /// After a turn: stop the worker once it has been idle for the timeout. One timer per
    /// turn, nothing polls; shutdown ends it.
    pub fn schedule_unload(&self) {
        let slot = Arc::clone(&self.slot);
        let last_used = Arc::clone(&self.last_used);
        let idle = self.idle;
        let stopping = self.tasks.stopping();
        self.tasks.spawn(async move {
            tokio::select! {
                _ = tokio::time::sleep(idle) => {}
                _ = stopping => return,
            }
            let used = *last_used.lock().unwrap_or_else(|e| e.into_inner());
            if used.elapsed() >= idle
                && let Ok(mut g) = slot.try_lock()
                && g.is_some()
            {
                tracing::info!("chat worker idle for {}s: unloading", idle.as_secs());
                *g = None;
            }
        });
    }
}

impl Turn {
    /// The next event of this turn; `None` once it has ended. A worker that dies mid-turn
    /// gives a [`ChatFailure::Crashed`] and is replaced on the next turn.
    pub async fn next(&mut self) -> Option<Result<Event, ChatFailure>> {
        if self.finished {
            return None;
        }
        let guard = self.guard.as_mut()?;
        let worker = guard.as_mut()?;
        let line = worker.lines.next_line().await;
        let event = match line {
            Ok(Some(l)) => match serde_json::from_str::<Event>(&l) {
                Ok(e) => Ok(e),
                Err(e) => Err(ChatFailure::Failed(format!("unreadable worker line: {e}"))),
            },
            Ok(None) | Err(_) => {
                let status = match worker.child.wait().await {
                    Ok(s) => crate::process::describe(s),
                    Err(e) => e.to_string(),
                };
                **guard = None;
                self.end();
                return Some(Err(ChatFailure::Crashed(status)));
            }
        };
        if !self.replying && matches!(event, Ok(Event::Text(_))) {
            self.replying = true;
            tracing::debug!("chat worker {}: replying", worker.child.id().unwrap_or(0));
        }
        if matches!(
            event,
            Ok(Event::Done { .. } | Event::Error(_) | Event::TooLong(_)) | Err(_)
        ) {
            self.end();
        }
        Some(event)
    }

    fn end(&mut self) {
        self.finished = true;
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.guard = None;
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let Some(mut guard) = self.guard.take() else {
            return;
        };
        if self.finished {
            return;
        }
        // The client left mid-generation: cancel, then read to the end of the turn before the
        // worker takes the next one.
        let last_used = Arc::clone(&self.last_used);
        self.tasks.spawn(async move {
            let Some(worker) = guard.as_mut() else { return };
            let ok = worker
                .stdin
                .write_all(format!("{CANCEL}\n").as_bytes())
                .await
                .is_ok();
            let mut drained = false;
            if ok {
                while let Ok(Some(l)) = worker.lines.next_line().await {
                    if matches!(
                        serde_json::from_str::<Event>(&l),
                        Ok(Event::Done { .. } | Event::Error(_) | Event::TooLong(_))
                    ) {
                        drained = true;
                        break;
                    }
                }
            }
            if !drained {
                *guard = None;
            }
            *last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            tracing::info!("chat: a client left mid-reply; generation cancelled");
        });
    }
}
