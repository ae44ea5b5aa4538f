//! The control socket: where it lives, binding it private (folder 0700, socket 0600), refusing
//! connections from other users by peer credentials, and the random values the TCP token, login
//! codes and sessions are made of (the token file itself is `token.rs`).

use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use axum::serve::Listener;
use tokio::net::{UnixListener, UnixStream};

/// `$XDG_RUNTIME_DIR/localm/memory.sock`, else `<data dir>/run/memory.sock`.
pub fn default_path(data_dir: &Path) -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("localm").join("memory.sock"),
        None => data_dir.join("run").join("memory.sock"),
    }
}

/// Bind `path` for this user only: the socket is 0600 and every peer's uid is checked. The folder
/// is created private (0700) when it does not exist; an existing folder is used as it is, never
/// chmodded (`--socket /tmp/x.sock` must not lock down /tmp, nor `~/x.sock` the home folder). A
/// socket file left by a daemon that died is replaced; one that still answers is another
/// daemon's, and anything that is not a socket is never removed.
pub fn bind(path: &Path) -> anyhow::Result<UnixListener> {
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt};
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .context("the socket path has no folder")?;
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("cannot create {}", dir.display()))?,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
        Ok(m) if m.is_dir() => {}
        Ok(_) => bail!("{} is not a folder", dir.display()),
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => {
            if std::os::unix::net::UnixStream::connect(path).is_ok() {
                bail!(
                    "{} is in use by another running daemon; pass --socket to use another path",
                    path.display()
                );
            }
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove the stale socket {}", path.display()))?;
        }
        Ok(_) => bail!(
            "{} exists and is not a socket; refusing to replace it (pass another --socket)",
            path.display()
        ),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    // SAFETY: umask(2) only changes this process's file-creation mask; restored right after.
    let old = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above; this restores the mask read back from the first call.
    unsafe { libc::umask(old) };
    let listener = bound.with_context(|| format!("cannot listen on {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// A Unix listener that hands on only connections from this process's own user, before they take
/// one of the socket's connection permits. Refusals are answered by tasks it owns (aborted when
/// the listener is dropped), at most [`MAX_REFUSALS`] at once; past that a refused connection is
/// closed without an answer.
pub struct PeerChecked {
    inner: UnixListener,
    uid: u32,
    refusals: tokio::task::JoinSet<()>,
}

impl PeerChecked {
    pub fn new(inner: UnixListener) -> PeerChecked {
        // SAFETY: geteuid(2) cannot fail and touches no memory.
        let uid = unsafe { libc::geteuid() };
        PeerChecked {
            inner,
            uid,
            refusals: tokio::task::JoinSet::new(),
        }
    }
}

/// Refusals answered at once; each holds its connection for about a second.
pub const MAX_REFUSALS: usize = 16;

const REFUSED: &[u8] = b"HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ncontent-length: 87\r\nconnection: close\r\n\r\n{\"error\":{\"code\":\"forbidden\",\"message\":\"this socket serves only the user who runs it\"}}";

/// Answer 403 and close. The request is read first (briefly), so that closing does not reset
/// the connection before the client reads the answer.
async fn refuse(mut io: UnixStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), io.read(&mut buf)).await;
    let _ = io.write_all(REFUSED).await;
    let _ = io.shutdown().await;
}

impl Listener for PeerChecked {
    type Io = UnixStream;
    type Addr = tokio::net::unix::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (io, addr) = Listener::accept(&mut self.inner).await;
            while self.refusals.try_join_next().is_some() {}
            match io.peer_cred() {
                Ok(cred) if cred.uid() == self.uid => return (io, addr),
                Ok(cred) => {
                    tracing::warn!(uid = cred.uid(), "refused a connection from another user");
                    if self.refusals.len() < MAX_REFUSALS {
                        self.refusals.spawn(refuse(io));
                    }
                }
                Err(e) => tracing::warn!("refused a connection without credentials: {e}"),
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// 32 random bytes from /dev/urandom as 64 hex digits: the API token, login codes, sessions.
pub fn random_hex() -> io::Result<String> {
    let mut raw = [0u8; 32];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut raw))?;
    Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
}
