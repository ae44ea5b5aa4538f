//! The one event loop: file events, reload requests, timers (the debounced automatic pass,
//! scheduled jobs, the backfill sweep) and the completions of the tasks it started, until the
//! shutdown future completes. Between events it sleeps: no polling. Every task it starts is
//! owned by its `JoinSet`, handed back at the end so the caller can drain it.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use localm_core::jobs::{self, JobsFile, RunOutcome};
use localm_core::settings::Mode;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::sleep_until;

use super::cadence;
use super::passes::{Outcome, PassFailure, Trigger};
use super::state::Shared;
use super::watch::FsEvent;
use crate::config::Intervals;

/// A task the loop started, as it ends.
pub enum Done {
    /// An automatic pass or a backfill sweep (each logs its own outcome).
    Quiet,
    /// A pass that stopped at its 12 disclosures with lines left: another is due, one interval
    /// after it (as if the session had just changed), so a long chat is read to its end.
    MoreToRead,
    /// A scheduled job, with how it went.
    Job(String, RunOutcome),
}

pub struct EventLoop {
    shared: Arc<Shared>,
    intervals: Intervals,
    fs: mpsc::UnboundedReceiver<FsEvent>,
    reload: mpsc::UnboundedReceiver<()>,
    auto_due: Option<Instant>,
    /// An automatic pass fell due while another pass ran: run it when that one ends.
    auto_wanted: bool,
    backfill_due: Instant,
    jobs: JobsFile,
    running_jobs: HashSet<String>,
    tasks: JoinSet<Done>,
}

impl EventLoop {
    pub fn new(
        shared: Arc<Shared>,
        intervals: Intervals,
        fs: mpsc::UnboundedReceiver<FsEvent>,
        reload: mpsc::UnboundedReceiver<()>,
    ) -> EventLoop {
        let jobs = jobs::load(&shared.data_dir).unwrap_or_else(|e| {
            tracing::warn!("jobs: {e}; no job runs until the file is fixed");
            JobsFile::default()
        });
        EventLoop {
            shared,
            intervals,
            fs,
            reload,
            auto_due: None,
            auto_wanted: false,
            backfill_due: Instant::now() + intervals.backfill.min(Duration::from_secs(60)),
            jobs,
            running_jobs: HashSet::new(),
            tasks: JoinSet::new(),
        }
    }

    /// Run until `shutdown` completes; hand back the tasks still running.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) -> JoinSet<Done> {
        let mut finished = self.shared.passes.finished();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            let job_due = self.next_job_due();
            tokio::select! {
                () = &mut shutdown => break,
                Some(()) = self.reload.recv() => {
                    self.reload_settings();
                    self.reload_jobs();
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
                Some(done) = self.tasks.join_next() => match done {
                    Ok(Done::Job(name, outcome)) => {
                        self.running_jobs.remove(&name);
                        if let Some(job) = self.jobs.jobs.iter_mut().find(|j| j.name == name) {
                            job.last_run = Some(outcome);
                        }
                    }
                    Ok(Done::Quiet) => {}
                    Ok(Done::MoreToRead) => self.session_changed(),
                    Err(e) => tracing::warn!("a background task failed: {e}"),
                },
            }
        }
        self.tasks
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
        self.tasks.spawn(async move {
            // The pass logs its own outcome.
            match shared
                .passes
                .run(&shared.data_dir, mode, Trigger::Auto)
                .await
            {
                Ok(o) if o.report.more_to_read => Done::MoreToRead,
                _ => Done::Quiet,
            }
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
        let mode = self.shared.config().mode;
        for name in due {
            if !mode.allows_writes() {
                // Privacy mode: the pass would be skipped without calling a model. The skip is
                // kept in memory only (so the job is next due at its next slot), never written
                // to jobs.json: privacy mode writes nothing the user would not expect.
                tracing::debug!("job {name}: skipped in privacy mode");
                let skipped = RunOutcome::skipped("schedule", now, "privacy mode".into());
                if let Some(job) = self.jobs.jobs.iter_mut().find(|j| j.name == name) {
                    job.last_run = Some(skipped);
                }
                continue;
            }
            self.running_jobs.insert(name.clone());
            let shared = Arc::clone(&self.shared);
            self.tasks.spawn(async move {
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
                Done::Job(name, outcome)
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
        self.tasks.spawn(async move {
            match shared.store.read() {
                Ok(s) if s.records.is_empty() => {}
                Err(e) => tracing::warn!("backfill: {e}"),
                Ok(_) => shared.passes.backfill(&shared.data_dir).await,
            }
            Done::Quiet
        });
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
