//! The one event loop: file events, timers (the debounced automatic pass, scheduled jobs, the
//! backfill sweep), pass completions and signals. Between events it sleeps: no polling.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use futures_util::StreamExt;
use localm_core::jobs::{self, JobsFile, RunOutcome};
use localm_core::settings::Mode;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook_tokio::Signals;
use tokio::sync::mpsc;
use tokio::time::sleep_until;

use super::cadence::{self, Intervals};
use super::watch::FsEvent;
use crate::api::state::Shared;
use crate::passes::{Outcome, PassFailure, Trigger};

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Signal(i32),
}

pub struct EventLoop {
    shared: Arc<Shared>,
    intervals: Intervals,
    fs: mpsc::UnboundedReceiver<FsEvent>,
    auto_due: Option<Instant>,
    /// An automatic pass fell due while another pass ran: run it when that one ends.
    auto_wanted: bool,
    backfill_due: Instant,
    jobs: JobsFile,
    running_jobs: HashSet<String>,
    job_done_tx: mpsc::UnboundedSender<(String, RunOutcome)>,
    job_done: mpsc::UnboundedReceiver<(String, RunOutcome)>,
}

impl EventLoop {
    pub fn new(
        shared: Arc<Shared>,
        intervals: Intervals,
        fs: mpsc::UnboundedReceiver<FsEvent>,
    ) -> EventLoop {
        let (job_done_tx, job_done) = mpsc::unbounded_channel();
        let jobs = jobs::load(&shared.data_dir).unwrap_or_else(|e| {
            tracing::warn!("jobs: {e}; no job runs until the file is fixed");
            JobsFile::default()
        });
        EventLoop {
            shared,
            intervals,
            fs,
            auto_due: None,
            auto_wanted: false,
            backfill_due: Instant::now() + intervals.backfill.min(Duration::from_secs(60)),
            jobs,
            running_jobs: HashSet::new(),
            job_done_tx,
            job_done,
        }
    }

    /// Run until SIGTERM or SIGINT.
    pub async fn run(mut self) -> anyhow::Result<Stop> {
        let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP])?;
        let mut finished = self.shared.passes.finished();
        loop {
            let job_due = self.next_job_due();
            tokio::select! {
                Some(sig) = signals.next() => {
                    if sig == SIGHUP {
                        tracing::info!("SIGHUP: reloading settings and jobs");
                        self.reload_settings();
                        self.reload_jobs();
                    } else {
                        tracing::info!("signal {sig}: stopping");
                        return Ok(Stop::Signal(sig));
                    }
                }
                Some(ev) = self.fs.recv() => match ev {
                    FsEvent::Sessions => self.session_changed(),
                    FsEvent::Settings => self.reload_settings(),
                    FsEvent::Jobs => self.reload_jobs(),
                },
                () = sleep_or_never(self.auto_due) => self.auto_fire(),
                () = sleep_or_never(job_due) => self.jobs_fire(),
                () = sleep_until(self.backfill_due.into()) => self.backfill_fire(),
                Ok(()) = finished.changed() => self.pass_finished(),
                Some((name, outcome)) = self.job_done.recv() => {
                    self.running_jobs.remove(&name);
                    if let Some(job) = self.jobs.jobs.iter_mut().find(|j| j.name == name) {
                        job.last_run = Some(outcome);
                    }
                }
            }
        }
    }

    /// Whether a session change may start an automatic pass now.
    fn auto_allowed(&self) -> Result<Mode, &'static str> {
        let c = self.shared.config();
        if !c.settings.memory_plugin_enabled() {
            return Err("the memory plugin is not enabled");
        }
        if !c.mode.allows_writes() {
            return Err("privacy mode");
        }
        if !c.settings.memory_enabled {
            return Err("memory_enabled is off");
        }
        if !c.settings.memory_auto_consolidate {
            return Err("memory_auto_consolidate is off");
        }
        Ok(c.mode)
    }

    fn session_changed(&mut self) {
        if let Err(why) = self.auto_allowed() {
            tracing::debug!("session log changed; no automatic pass: {why}");
            return;
        }
        if self.auto_due.is_none() {
            let due = cadence::auto_due(
                Instant::now(),
                self.shared.passes.last_started(),
                self.intervals.auto,
            );
            tracing::debug!(
                "session log changed; automatic pass in {:.1}s",
                due.saturating_duration_since(Instant::now()).as_secs_f64()
            );
            self.auto_due = Some(due);
        }
    }

    fn auto_fire(&mut self) {
        self.auto_due = None;
        let mode = match self.auto_allowed() {
            Ok(m) => m,
            Err(why) => {
                tracing::debug!("automatic pass dropped: {why}");
                return;
            }
        };
        if self.shared.passes.busy() {
            self.auto_wanted = true;
            return;
        }
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            let _ = shared
                .passes
                .run(&shared.data_dir, mode, Trigger::Auto)
                .await;
        });
    }

    fn pass_finished(&mut self) {
        if self.auto_wanted && !self.shared.passes.busy() {
            self.auto_wanted = false;
            self.session_changed();
        }
    }

    fn next_job_due(&self) -> Option<Instant> {
        let now = Utc::now();
        self.jobs
            .jobs
            .iter()
            .filter(|j| !self.running_jobs.contains(&j.name))
            .map(|j| {
                let wait = (j.next_run() - now).to_std().unwrap_or(Duration::ZERO);
                Instant::now() + wait
            })
            .min()
    }

    fn jobs_fire(&mut self) {
        let now = Utc::now();
        let due: Vec<String> = self
            .jobs
            .jobs
            .iter()
            .filter(|j| j.due(now) && !self.running_jobs.contains(&j.name))
            .map(|j| j.name.clone())
            .collect();
        for name in due {
            self.running_jobs.insert(name.clone());
            let shared = Arc::clone(&self.shared);
            let done = self.job_done_tx.clone();
            tokio::spawn(async move {
                let mode = shared.config().mode;
                let started_at = Utc::now();
                let result = shared
                    .passes
                    .run(&shared.data_dir, mode, Trigger::Job(name.clone()))
                    .await;
                let outcome = outcome_of("schedule", started_at, &result);
                let data_dir = shared.data_dir.clone();
                let (n, o) = (name.clone(), outcome.clone());
                let recorded = tokio::task::spawn_blocking(move || {
                    jobs::update(&data_dir, "localm daemon", |f| f.record(&n, o))
                })
                .await;
                match recorded {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!("job {name}: cannot record its outcome: {e}"),
                    Err(e) => tracing::warn!("job {name}: cannot record its outcome: {e}"),
                }
                let _ = done.send((name, outcome));
            });
        }
    }

    fn backfill_fire(&mut self) {
        self.backfill_due = Instant::now() + self.intervals.backfill;
        let c = self.shared.config();
        if !c.mode.allows_writes() {
            return;
        }
        if crate::models::embedder_path(&self.shared.data_dir, &c.settings).is_none() {
            return;
        }
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move { super::backfill_child(&shared).await });
    }

    fn reload_settings(&mut self) {
        match self.shared.reload() {
            Ok(Some((old, new))) => {
                if old.mode != new.mode {
                    tracing::info!("settings reloaded: mode {} -> {}", old.mode, new.mode);
                } else {
                    tracing::info!("settings reloaded");
                }
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("settings not reloaded, keeping the running ones: {e:#}"),
        }
    }

    fn reload_jobs(&mut self) {
        match jobs::load(&self.shared.data_dir) {
            Ok(f) => {
                if f != self.jobs {
                    tracing::info!("jobs reloaded: {} job(s)", f.jobs.len());
                    self.jobs = f;
                }
            }
            Err(e) => tracing::warn!("jobs not reloaded, keeping the running ones: {e}"),
        }
    }
}

/// A job outcome from a pass result.
fn outcome_of(
    trigger: &str,
    started_at: chrono::DateTime<Utc>,
    result: &Result<Outcome, PassFailure>,
) -> RunOutcome {
    match result {
        Ok(o) => RunOutcome::from_report(trigger, o.started_at, o.finished_at, &o.report),
        Err(e) => RunOutcome::failed(trigger, started_at, Utc::now(), e.to_string()),
    }
}

async fn sleep_or_never(at: Option<Instant>) {
    match at {
        Some(t) => sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}
