//! The loopback listener's bearer token, `<data dir>/api-token`: made once and kept across starts
//! (a chat app's saved API key keeps working after a restart), replaced only by `localm token
//! rotate`. The file is 0600; one that other users can read or write, or that is not a plain file
//! of this user's, is refused with a one-line error naming the fix. A running daemon checks each
//! bearer token against the file as it is now: it re-reads the file whenever the file changes
//! (its inode, size, mode or modification time), so a rotation takes effect at the next request
//! without a restart, and the old token stops working then.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context as _, bail};
use localm_core::store::atomic::write_atomic;

use super::logins::constant_time_eq;
use super::socket::random_hex;

/// The token file's name in the data dir.
pub const FILE: &str = "api-token";

/// `<data dir>/api-token`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// The token in `path`, or None when there is no file. Refused: a file that is not a plain file
/// (a symlink among them), another user's, readable or writable by group or others, or not a
/// token (64 hex digits).
pub fn read(path: &Path) -> anyhow::Result<Option<String>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let p = path.display();
    if !meta.file_type().is_file() {
        bail!("{p} is not a plain file; remove it and run `localm token rotate` for a new token");
    }
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        bail!(
            "{p} belongs to another user (uid {}); remove it and run `localm token rotate` for a new token",
            meta.uid()
        );
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        bail!(
            "{p} is readable or writable by other users (mode {mode:03o}), so the token may be known; run `localm token rotate` for a new private one (or `chmod 600 {p}` to keep it)"
        );
    }
    let text = fs::read_to_string(path).with_context(|| format!("cannot read {p}"))?;
    let token = text.trim();
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("{p} does not hold a token (64 hex digits); run `localm token rotate` for a new one");
    }
    Ok(Some(token.to_string()))
}

/// The token kept in the data dir, made (0600) if there is none yet.
pub fn load_or_create(data_dir: &Path) -> anyhow::Result<String> {
    match read(&path(data_dir))? {
        Some(token) => Ok(token),
        None => write_new(data_dir),
    }
}

/// A fresh token, replacing the file (atomically, 0600). A running daemon honours it from its
/// next request on.
pub fn write_new(data_dir: &Path) -> anyhow::Result<String> {
    let token = random_hex().context("cannot read /dev/urandom for the API token")?;
    let path = path(data_dir);
    write_atomic(&path, format!("{token}\n").as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(token)
}

/// What a file looked like when it was last read: a change in any of these means read it again.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mode: u32,
    mtime_ns: i128,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = fs::symlink_metadata(path).ok()?;
    Some(Stamp {
        ino: m.ino(),
        size: m.size(),
        mode: m.mode(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    })
}

/// The token a running daemon checks bearers against: the file's, re-read when it changes. A
/// file that goes missing or becomes unacceptable (see [`read`]) lets no bearer in until it is
/// fixed (`localm token rotate`); the refusal is logged once per change.
pub struct Live {
    path: PathBuf,
    current: Mutex<(Option<Stamp>, Option<String>)>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token itself.
        f.debug_struct("Live").field("path", &self.path).finish()
    }
}

impl Live {
    /// Checks against `token`, just read from the file at `path`.
    pub fn new(path: PathBuf, token: String) -> Live {
        let now = stamp(&path);
        Live {
            path,
            current: Mutex::new((now, Some(token))),
        }
    }

    /// Whether `bearer` is the token the file holds now.
    pub fn matches(&self, bearer: &str) -> bool {
        let now = stamp(&self.path);
        let mut current = match self.current.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if current.0 != now {
            let token = match read(&self.path) {
                Ok(Some(t)) => Some(t),
                Ok(None) => {
                    tracing::warn!(
                        "{} is gone: no bearer token is accepted until `localm token rotate` makes one",
                        self.path.display()
                    );
                    None
                }
                Err(e) => {
                    tracing::warn!("no bearer token is accepted: {e:#}");
                    None
                }
            };
            *current = (now, token);
        }
        current
            .1
            .as_deref()
            .is_some_and(|t| constant_time_eq(bearer.as_bytes(), t.as_bytes()))
    }
}

/// For tests of the guard: a token with no file behind it (a missing file never changes).
#[cfg(test)]
impl From<&str> for Live {
    fn from(token: &str) -> Live {
        Live::new(
            PathBuf::from("/nonexistent/localm/api-token"),
            token.to_string(),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn kept_across_loads_and_replaced_by_rotate() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path()).unwrap();
        assert_eq!(load_or_create(dir.path()).unwrap(), first, "kept");
        let mode = fs::metadata(path(dir.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let live = Live::new(path(dir.path()), first.clone());
        assert!(live.matches(&first));
        let second = write_new(dir.path()).unwrap();
        assert_ne!(second, first);
        assert!(live.matches(&second), "the running check follows the file");
        assert!(!live.matches(&first), "the old token stops working");
    }

    #[test]
    fn a_token_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let token = load_or_create(dir.path()).unwrap();
        let p = path(dir.path());
        let live = Live::new(p.clone(), token.clone());
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_or_create(dir.path()).unwrap_err().to_string();
        assert!(err.contains("readable or writable by other users"), "{err}");
        assert!(err.contains("localm token rotate"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            !live.matches(&token),
            "a running daemon stops honouring it too"
        );
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(load_or_create(dir.path()).unwrap(), token);
        assert!(live.matches(&token));
    }
}
