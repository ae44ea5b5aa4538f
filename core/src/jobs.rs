//! Scheduled jobs, kept in `<data dir>/jobs.json`: what runs, when, and how its last run went.
//! Changed only under `.jobs.lock`; a malformed file is reported and never overwritten.

pub mod schedule;

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Local, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use crate::consolidate::report::{Counts, Report, Status};
use crate::printable::one_line;
use crate::store::atomic::write_atomic;
use crate::store::lock::{DEFAULT_WAIT, LockError, StoreLock};

pub use self::schedule::Schedule;

/// The jobs file, in the data dir.
pub const FILE: &str = "jobs.json";
/// The lock taken while `jobs.json` is changed, in the data dir.
pub const LOCK_FILE: &str = ".jobs.lock";
/// A job name is at most this many characters.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a job operation failed. Nothing was written when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(
        "bad job name {0:?}: use 1 to {MAX_NAME_CHARS} letters, digits, dots, underscores or dashes"
    )]
    BadName(String),
    #[error("a job named {0:?} already exists; remove it first or pick another name")]
    Duplicate(String),
    #[error("no job is named {0:?}")]
    NotFound(String),
    #[error(
        "bad interval {0:?}: give seconds (21600) or a duration such as 6h, 90m or \"1h 30m\", at least 1 second"
    )]
    BadEvery(String),
    #[error("bad cron expression {expr:?}: {reason}")]
    BadCron { expr: String, reason: String },
    #[error("a job needs exactly one of every_secs or cron")]
    NoSchedule,
    #[error(
        "{path} is not a valid jobs file ({reason}); fix it or move it aside, it was left as is"
    )]
    Invalid { path: PathBuf, reason: String },
    #[error(transparent)]
    Io(FileError),
    #[error("cannot change the jobs: {0}")]
    Lock(#[from] LockError),
}

/// A read or write of the jobs' files that failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {path}: {source}")]
pub struct FileError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: io::Error,
}

/// Turn an I/O error on `path` into `JobError::Io`.
fn io_err(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> JobError {
    move |source| {
        JobError::Io(FileError {
            action,
            path: path.to_path_buf(),
            source,
        })
    }
}

/// `jobs.json` as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobsFile {
    #[serde(default)]
    pub jobs: Vec<Job>,
}

/// One scheduled job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub name: String,
    pub task: Task,
    #[serde(flatten)]
    pub schedule: Schedule,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<RunOutcome>,
}

/// What a job does when it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// A memory consolidation pass.
    Memory,
}

impl Task {
    pub fn as_str(self) -> &'static str {
        match self {
            Task::Memory => "memory",
        }
    }
}

/// How a job's last run went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    /// "schedule" or "manual".
    pub trigger: String,
    pub status: Status,
    /// Why it was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the pass changed.
    #[serde(flatten)]
    pub counts: Counts,
}

/// Refuse a name that is not 1–64 characters of `[A-Za-z0-9._-]`.
pub fn check_name(name: &str) -> Result<(), JobError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(JobError::BadName(name.to_string()))
    }
}

impl RunOutcome {
    /// The outcome of a pass that ran, from its report.
    pub fn from_report(
        trigger: &str,
        started_at: DateTime<Utc>,
        finished_at: DateTime<Utc>,
        report: &Report,
    ) -> RunOutcome {
        RunOutcome {
            started_at,
            finished_at,
            trigger: trigger.to_string(),
            status: report.status,
            reason: report.reason.clone(),
            counts: report.counts(),
        }
    }

    /// A run skipped at `at` without a pass (privacy mode), and why.
    pub fn skipped(trigger: &str, at: DateTime<Utc>, reason: String) -> RunOutcome {
        RunOutcome::from_report(
            trigger,
            at,
            at,
            &Report::with_status(Status::Skipped, Some(reason)),
        )
    }

    /// The outcome of a pass that failed.
    pub fn failed(
        trigger: &str,
        started_at: DateTime<Utc>,
        finished_at: DateTime<Utc>,
        reason: String,
    ) -> RunOutcome {
        RunOutcome::from_report(trigger, started_at, finished_at, &Report::error(reason))
    }
}

impl Job {
    /// A job that has never run, with its name and schedule checked.
    pub fn new(
        name: &str,
        task: Task,
        schedule: Schedule,
        created_at: DateTime<Utc>,
    ) -> Result<Job, JobError> {
        check_name(name)?;
        schedule.check()?;
        Ok(Job {
            name: name.to_string(),
            task,
            schedule,
            created_at,
            last_run: None,
        })
    }

    /// What the next run counts from: the last start, else the creation time.
    pub fn base(&self) -> DateTime<Utc> {
        self.last_run
            .as_ref()
            .map_or(self.created_at, |r| r.started_at)
    }

    /// When the job should next run, cron evaluated in the local time zone. A time in the past
    /// means "due now"; `DateTime::<Utc>::MAX_UTC` means never.
    pub fn next_run(&self) -> DateTime<Utc> {
        self.next_run_in(&Local)
    }

    /// `next_run` with cron evaluated on the wall clock of `tz`.
    pub fn next_run_in<Tz: TimeZone>(&self, tz: &Tz) -> DateTime<Utc> {
        self.schedule.next_after(self.base(), tz)
    }

    /// Whether the job should run at `now`.
    pub fn due(&self, now: DateTime<Utc>) -> bool {
        self.next_run() <= now
    }
}

impl JobsFile {
    /// Add a job; refuses a bad or taken name.
    pub fn add(&mut self, job: Job) -> Result<(), JobError> {
        check_name(&job.name)?;
        job.schedule.check()?;
        if self.jobs.iter().any(|j| j.name == job.name) {
            return Err(JobError::Duplicate(job.name));
        }
        self.jobs.push(job);
        Ok(())
    }

    /// Remove the job called `name` and return it.
    pub fn remove(&mut self, name: &str) -> Result<Job, JobError> {
        let at = self.position(name)?;
        Ok(self.jobs.remove(at))
    }

    pub fn get(&self, name: &str) -> Result<&Job, JobError> {
        Ok(&self.jobs[self.position(name)?])
    }

    /// Remember how the job's latest run went.
    pub fn record(&mut self, name: &str, outcome: RunOutcome) -> Result<(), JobError> {
        let at = self.position(name)?;
        self.jobs[at].last_run = Some(outcome);
        Ok(())
    }

    /// Every name valid and unique, every schedule valid.
    pub fn check(&self) -> Result<(), JobError> {
        for (i, job) in self.jobs.iter().enumerate() {
            check_name(&job.name)?;
            job.schedule.check()?;
            if self.jobs[..i].iter().any(|j| j.name == job.name) {
                return Err(JobError::Duplicate(job.name.clone()));
            }
        }
        Ok(())
    }

    fn position(&self, name: &str) -> Result<usize, JobError> {
        self.jobs
            .iter()
            .position(|j| j.name == name)
            .ok_or_else(|| JobError::NotFound(name.to_string()))
    }
}

/// Read `<data dir>/jobs.json`; a missing file is no jobs. Takes no lock (the file is replaced
/// atomically).
pub fn load(data_dir: &Path) -> Result<JobsFile, JobError> {
    let path = data_dir.join(FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(JobsFile::default()),
        Err(e) => return Err(io_err("read", &path)(e)),
    };
    let invalid = |reason: String| JobError::Invalid {
        path: path.clone(),
        reason,
    };
    let file: JobsFile = serde_json::from_slice(&bytes).map_err(|e| invalid(one_line(e)))?;
    file.check().map_err(|e| invalid(one_line(e)))?;
    Ok(file)
}

/// Change the jobs under `<data dir>/.jobs.lock`: re-read, apply `f`, and write the file
/// atomically if `f` succeeded and changed something. `holder` says who we are to a waiter.
pub fn update<T>(
    data_dir: &Path,
    holder: &str,
    f: impl FnOnce(&mut JobsFile) -> Result<T, JobError>,
) -> Result<T, JobError> {
    crate::fsutil::create_private_dir(data_dir).map_err(io_err("create", data_dir))?;
    let _lock = StoreLock::acquire(&data_dir.join(LOCK_FILE), holder, DEFAULT_WAIT)?;
    let before = load(data_dir)?;
    let mut jobs = before.clone();
    let value = f(&mut jobs)?;
    if jobs != before {
        jobs.check()?;
        let path = data_dir.join(FILE);
        let mut bytes = serde_json::to_vec_pretty(&jobs)
            .map_err(|e| io_err("encode", &path)(io::Error::other(e)))?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes).map_err(io_err("write", &path))?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests;
