//! Supervised child processes of the same binary, for the work that loads a native model: the
//! consolidation pass (`localm memory consolidate --json`, one at a time) and the embedding
//! sweep (`localm memory backfill`). A native abort inside llama.cpp or candle fails that one
//! run, never the daemon, and the model's memory is released when the child exits.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex as StdMutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use chrono::{DateTime, Utc};
use localm_core::consolidate::{Report, Status};
use localm_core::settings::Mode;
use tokio::sync::{Mutex, watch};

use crate::process::{model_process, signal_name};

/// What started a pass (logged, and recorded with a job's outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// A session log changed (debounced).
    Auto,
    /// `POST /api/memory/consolidate`.
    Api,
    /// A scheduled job, by name.
    Job(String),
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::Auto => f.write_str("auto"),
            Trigger::Api => f.write_str("api"),
            Trigger::Job(name) => write!(f, "job:{name}"),
        }
    }
}

/// A pass that ran to the end (its `status` may still be "skipped").
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The pass report, as `localm memory consolidate --json` printed it.
    pub report: Report,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
}

/// Why a pass failed. The child writes nothing unless it finishes, so the store is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum PassFailure {
    #[error("cannot start the pass process {exe}: {source}")]
    Spawn {
        exe: PathBuf,
        source: std::io::Error,
    },
    #[error("the pass process was killed by signal {signal} ({name}); the store is unchanged")]
    Killed { signal: i32, name: &'static str },
    #[error("{0}")]
    Failed(String),
}

/// The pass runner: passes one at a time, knowing which child is running, and the embedding
/// sweep.
pub struct PassRunner {
    exe: PathBuf,
    gate: Mutex<()>,
    child: AtomicU32,
    finished: watch::Sender<u64>,
    last_started: StdMutex<Option<Instant>>,
}

impl PassRunner {
    /// The `localm` executable the children run.
    pub fn exe(&self) -> &Path {
        &self.exe
    }

    pub fn new(exe: PathBuf) -> PassRunner {
        PassRunner {
            exe,
            gate: Mutex::new(()),
            child: AtomicU32::new(0),
            finished: watch::Sender::new(0),
            last_started: StdMutex::new(None),
        }
    }

    /// When the last pass (of any trigger) started.
    pub fn last_started(&self) -> Option<Instant> {
        *self.last_started.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Seed the last start from state.json when the daemon starts.
    pub fn seed_last_started(&self, at: Instant) {
        *self.last_started.lock().unwrap_or_else(|e| e.into_inner()) = Some(at);
    }

    /// The running pass's process id.
    pub fn running_pid(&self) -> Option<u32> {
        Some(self.child.load(Ordering::SeqCst)).filter(|&p| p != 0)
    }

    /// Whether a pass is running or queued.
    pub fn busy(&self) -> bool {
        self.gate.try_lock().is_err()
    }

    /// Changes each time a pass ends.
    pub fn finished(&self) -> watch::Receiver<u64> {
        self.finished.subscribe()
    }

    /// Ask the running child to stop: it abandons the model work before writing anything.
    pub fn terminate(&self) {
        if let Some(pid) = self
            .running_pid()
            .and_then(|p| libc::pid_t::try_from(p).ok())
        {
            // SAFETY: kill(2) with a pid we spawned and still track; no memory is touched.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }

    /// Run one pass now (after any pass already running). Logs one line with the outcome.
    pub async fn run(
        &self,
        data_dir: &Path,
        mode: Mode,
        trigger: Trigger,
    ) -> Result<Outcome, PassFailure> {
        let gate = self.gate.lock().await;
        self.seed_last_started(Instant::now());
        let started_at = Utc::now();
        let result = self.run_child(data_dir, mode).await;
        self.child.store(0, Ordering::SeqCst);
        let finished_at = Utc::now();
        let secs = (finished_at - started_at).num_milliseconds() as f64 / 1e3;
        match &result {
            Ok(report) => {
                tracing::info!(
                    "pass {trigger}: {} {} in {secs:.1}s{}",
                    report.status,
                    report.counts(),
                    report
                        .reason
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default(),
                );
            }
            Err(e) => tracing::warn!("pass {trigger}: failed after {secs:.1}s: {e}"),
        }
        // Free the gate before telling: a listener that sees the change must find us not busy.
        drop(gate);
        self.finished.send_modify(|n| *n += 1);
        result.map(|report| Outcome {
            report,
            started_at,
            finished_at,
        })
    }

    /// The embedding sweep, in a child process (`localm memory backfill`), so the model's memory is
    /// released afterwards. Logs one line with the outcome.
    pub async fn backfill(&self, data_dir: &Path) {
        let out = model_process(&self.exe, ["memory", "backfill"])
            .arg("--data-dir")
            .arg(data_dir)
            .output()
            .await;
        match out {
            Ok(o) if o.status.success() => {
                let line = String::from_utf8_lossy(&o.stdout);
                tracing::info!("backfill: {}", line.trim());
            }
            Ok(o) => tracing::warn!(
                "backfill failed ({}): {}",
                o.status,
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => tracing::warn!("backfill could not start: {e}"),
        }
    }

    async fn run_child(&self, data_dir: &Path, mode: Mode) -> Result<Report, PassFailure> {
        let mut cmd = model_process(
            &self.exe,
            ["memory", "consolidate", "--json", "--mode", mode.as_str()],
        );
        cmd.arg("--data-dir")
            .arg(data_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|source| PassFailure::Spawn {
            exe: self.exe.clone(),
            source,
        })?;
        // `id()` is `None` only once the child was reaped, which has not happened yet.
        self.child.store(child.id().unwrap_or(0), Ordering::SeqCst);
        let out = child
            .wait_with_output()
            .await
            .map_err(|e| PassFailure::Failed(format!("lost the pass process: {e}")))?;
        if let Some(signal) = out.status.signal() {
            return Err(PassFailure::Killed {
                signal,
                name: signal_name(signal),
            });
        }
        // A child that died before printing its report leaves no report, or a broken one.
        let report: Option<Report> = serde_json::from_slice(&out.stdout).ok();
        match report {
            Some(r) if r.status != Status::Error => Ok(r),
            Some(Report {
                reason: Some(reason),
                ..
            }) => Err(PassFailure::Failed(reason)),
            _ => {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
                Err(PassFailure::Failed(format!(
                    "the pass process exited with {}: {}",
                    out.status,
                    last.unwrap_or("no message")
                )))
            }
        }
    }
}
