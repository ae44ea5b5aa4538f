//! One daemon per data dir: a lock held for the daemon's life (`daemon.lock`), and `daemon.json`
//! beside it saying which pid serves which socket, for `localm status` and for clients.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use localm_core::store::atomic::write_atomic;
use localm_core::store::lock::{LockError, StoreLock};
use serde::{Deserialize, Serialize};

use crate::exit::{Code, coded};

pub const LOCK_FILE: &str = "daemon.lock";
pub const INFO_FILE: &str = "daemon.json";

/// What a running daemon publishes about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Info {
    pub pid: u32,
    pub socket: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<String>,
    pub started_at: DateTime<Utc>,
    pub version: String,
}

/// The claim on a data dir; released (and `daemon.json` removed) on drop.
pub struct Instance {
    _lock: StoreLock,
    info: PathBuf,
}

impl Instance {
    /// Claim `data_dir`, or say which pid already serves it.
    pub fn claim(data_dir: &Path) -> anyhow::Result<Instance> {
        localm_core::fsutil::create_private_dir(data_dir)?;
        match StoreLock::acquire(&data_dir.join(LOCK_FILE), "localm daemon", Duration::ZERO) {
            Ok(lock) => Ok(Instance {
                _lock: lock,
                info: data_dir.join(INFO_FILE),
            }),
            Err(LockError::Busy { holder }) => Err(coded(
                Code::Busy,
                format!(
                    "another localm daemon already runs on {} ({holder}); stop it first",
                    data_dir.display()
                ),
            )),
            Err(e) => Err(e.into()),
        }
    }

    pub fn publish(&self, info: &Info) -> anyhow::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(info)?;
        bytes.push(b'\n');
        write_atomic(&self.info, &bytes)?;
        Ok(())
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.info);
    }
}

/// The daemon serving `data_dir`, if one runs: its `daemon.json` names a live process whose
/// socket answers. Observes only: it takes no lock and writes nothing, so it can never make a
/// daemon's start fail (a status loop beside starting daemons once did, by holding the lock).
pub fn running(data_dir: &Path) -> Option<Info> {
    let bytes = std::fs::read(data_dir.join(INFO_FILE)).ok()?;
    let info: Info = serde_json::from_slice(&bytes).ok()?;
    let pid = libc::pid_t::try_from(info.pid).ok()?;
    // SAFETY: kill(2) with signal 0 only asks whether the process exists; it touches no memory.
    let alive = unsafe { libc::kill(pid, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    // A daemon killed outright leaves its daemon.json behind, and its pid may be reused: the
    // socket answering is what shows it serves.
    (alive && std::os::unix::net::UnixStream::connect(&info.socket).is_ok()).then_some(info)
}
