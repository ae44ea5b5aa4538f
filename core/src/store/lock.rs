//! The cross-process write lock (`.lock`, an fslock/flock file): one writer at a time, with the
//! holder's pid and command written inside so a waiting process can say who holds it. A lock file
//! is created 0600.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use fslock::LockFile;

/// How long a process waits for the lock before reporting who holds it.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(2);
const RETRY_EVERY: Duration = Duration::from_millis(25);

/// Who holds the lock, as written inside the lock file by the holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub command: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.pid, &self.command) {
            (Some(pid), Some(cmd)) => write!(f, "pid {pid} ({cmd})"),
            (Some(pid), None) => write!(f, "pid {pid}"),
            (None, Some(cmd)) => write!(f, "{cmd}"),
            (None, None) => write!(f, "another localm process"),
        }
    }
}

/// Why the lock could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("the memory store is busy: {holder} is writing to it")]
    Busy { holder: Holder },
    #[error("cannot open the lock file {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// A held store lock; released on drop (and by the OS if the process dies).
pub struct StoreLock {
    file: LockFile,
    path: PathBuf,
}

impl StoreLock {
    /// Take the lock at `path`, retrying for up to `wait`. `command` says who we are.
    pub fn acquire(path: &Path, command: &str, wait: Duration) -> Result<StoreLock, LockError> {
        let io_err = |source| LockError::Io {
            path: path.to_path_buf(),
            source,
        };
        create_private(path).map_err(io_err)?;
        let mut file = LockFile::open(path).map_err(io_err)?;
        // Counted in retries, not read off a clock (core reads none): sleeping `RETRY_EVERY` that
        // many times waits at least `wait`, a little more when the holder's checks take time.
        let mut retries_left = wait.as_millis().div_ceil(RETRY_EVERY.as_millis());
        loop {
            if file.try_lock().map_err(io_err)? {
                // Who holds it is for a waiting process to say; on a full disk it may not be
                // written, and the lock holds all the same (so a fact can still be deleted).
                let _ = write_holder(path, command);
                return Ok(StoreLock {
                    file,
                    path: path.to_path_buf(),
                });
            }
            if retries_left == 0 {
                return Err(LockError::Busy {
                    holder: read_holder(path),
                });
            }
            retries_left -= 1;
            thread::sleep(RETRY_EVERY);
        }
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        // Clear the holder line before unlocking so nobody reports a stale holder.
        let _ = OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&self.path);
        let _ = self.file.unlock();
    }
}

/// Create the lock file 0600 if it is missing (fslock would create it 0644). An existing one is
/// left as it is.
fn create_private(path: &Path) -> io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path).map(drop)
}

fn write_holder(path: &Path, command: &str) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).truncate(true).open(path)?;
    writeln!(f, "pid={}", std::process::id())?;
    writeln!(f, "command={}", command.replace('\n', " "))?;
    Ok(())
}

/// Read who holds the lock, best-effort (the file may be mid-write).
pub fn read_holder(path: &Path) -> Holder {
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut holder = Holder {
        pid: None,
        command: None,
    };
    for line in text.lines() {
        if let Some(pid) = line.strip_prefix("pid=") {
            holder.pid = pid.trim().parse().ok();
        } else if let Some(cmd) = line.strip_prefix("command=") {
            holder.command = Some(cmd.trim().to_string()).filter(|c| !c.is_empty());
        }
    }
    holder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_taker_is_told_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".lock");
        let held = StoreLock::acquire(&path, "localm memory add", DEFAULT_WAIT).unwrap();
        let err = StoreLock::acquire(&path, "other", Duration::from_millis(60))
            .err()
            .expect("lock is held");
        match err {
            LockError::Busy { holder } => {
                assert_eq!(holder.pid, Some(std::process::id()));
                assert_eq!(holder.command.as_deref(), Some("localm memory add"));
            }
            other => panic!("unexpected {other}"),
        }
        drop(held);
        StoreLock::acquire(&path, "other", Duration::from_millis(60)).expect("released");
    }
}
