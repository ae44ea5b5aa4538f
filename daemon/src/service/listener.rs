//! Serving a listener so that no client can starve the owner: each connection is HTTP/1.1 on
//! hyper with a header-read timeout and a body deadline, under a cap that belongs to its
//! listener (the control socket and the TCP listener each have their own, so TCP clients
//! cannot use up the socket's). On both, a new connection over the cap takes the place of the
//! connection that has been reading a request the longest (stalled in its head or body, or idle
//! between requests: on TCP, connections without the token that hold their slot), so idle or
//! stalled clients can never hold every slot; only when every slot is answering a request does
//! the new one get a 503, and is closed at once. Shutdown stops
//! accepting, lets each connection finish the request it is serving, and closes the idle ones.
//!
//! Reading a request is bounded, answering one is not. One hyper timer covers both the request
//! head and keep-alive idleness: hyper 1.x starts the header-read timer whenever a connection
//! waits for a request head, the first one after accept or the next one after a response, and
//! stops it once the head is read. From the head on, the body must arrive in full within the
//! body deadline ([`reading::DeadlineBody`]); a body cut off is answered 408 and the connection
//! closed. A request being served (a consolidation of minutes, a streamed answer) runs no timer.

mod reading;

pub use reading::BodyTimedOut;

use std::convert::Infallible;
use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::serve::Listener;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};

use crate::config::Deadlines;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tower::ServiceExt as _;

use reading::{AnsweringBody, DeadlineBody, Entry, Registry};

/// How long the control socket waits for a connection it told to close to give up its slot.
const EVICT_WAIT: Duration = Duration::from_secs(3);
/// The most connections one listener serves at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Open files the daemon keeps for itself under its limit: store files and locks on the blocking
/// threads, child processes' pipes, the watcher, the runtime, the model files.
pub const FD_RESERVE: u64 = 64;
/// The soft open-file limit the daemon asks for at start (never above the hard limit): room for
/// both caps and the reserve many times over, without handing a huge limit to child processes.
pub const FD_WANTED: u64 = 4096;

/// The caps and the timeouts the listeners are served with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections the control socket serves at once.
    pub unix: usize,
    /// Connections the loopback TCP listener serves at once.
    pub tcp: usize,
    /// See [`Deadlines::header_read`].
    pub header_read: Duration,
    /// See [`Deadlines::body_read`].
    pub body_read: Duration,
}

/// How one listener serves: its cap, its deadlines, and what happens past the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub cap: usize,
    pub header_read: Duration,
    pub body_read: Duration,
    /// Past the cap, close the connection reading a request longest to make room (the owner's
    /// socket) instead of turning the new one away.
    pub reclaim: bool,
}

impl Limits {
    /// Caps that fit under `fd_limit` open files with [`FD_RESERVE`] left for the daemon: up to
    /// [`MAX_CONNECTIONS`] each, the socket's half taken first, at least one each.
    pub fn new(fd_limit: u64, deadlines: Deadlines) -> Limits {
        let spare = fd_limit.saturating_sub(FD_RESERVE);
        let cap = |n: u64| {
            usize::try_from(n)
                .unwrap_or(usize::MAX)
                .clamp(1, MAX_CONNECTIONS)
        };
        let unix = cap(spare / 2);
        let tcp = cap(spare.saturating_sub(unix as u64));
        Limits {
            unix,
            tcp,
            header_read: deadlines.header_read,
            body_read: deadlines.body_read,
        }
    }

    /// The control socket's rules: past the cap, the longest-reading connection makes room.
    pub fn socket(&self) -> Rules {
        Rules {
            cap: self.unix,
            header_read: self.header_read,
            body_read: self.body_read,
            reclaim: true,
        }
    }

    /// The TCP listener's rules: past the cap, the longest-reading connection makes room too.
    /// Its clients need not send the token to open a connection: without this, idle ones
    /// would turn every token holder away.
    pub fn loopback(&self) -> Rules {
        Rules {
            cap: self.tcp,
            header_read: self.header_read,
            body_read: self.body_read,
            reclaim: true,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(FD_WANTED, Deadlines::default())
    }
}

/// Raise the soft open-file limit to [`FD_WANTED`] if it is lower and the hard limit allows
/// (the hard limit otherwise); returns the soft limit in force.
pub fn raise_fd_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) writes one rlimit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return FD_RESERVE;
    }
    let want = FD_WANTED.min(lim.rlim_max);
    if lim.rlim_cur >= want {
        return lim.rlim_cur;
    }
    let raised = libc::rlimit {
        rlim_cur: want,
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit(2) reads the struct we own; it changes only this process's soft limit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
        want
    } else {
        lim.rlim_cur
    }
}

/// A connection a listener turns away without a task: a 503 if the socket takes it at once,
/// then close.
pub trait TurnAway {
    fn turn_away(self);
}

const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: 95\r\nretry-after: 1\r\nconnection: close\r\n\r\n{\"error\":{\"code\":\"busy\",\"message\":\"too many open connections to this listener; retry shortly\"}}";

impl TurnAway for tokio::net::TcpStream {
    fn turn_away(self) {
        // A fresh socket's send buffer is empty: one non-blocking write takes the whole answer.
        if let Ok(mut s) = self.into_std() {
            let _ = s.write(BUSY);
        }
    }
}

impl TurnAway for tokio::net::UnixStream {
    fn turn_away(self) {
        if let Ok(mut s) = self.into_std() {
            let _ = s.write(BUSY);
        }
    }
}

/// Serve `router` on `listener` under `rules` until `stop` turns true; then stop accepting and
/// wait for every connection to finish its request and close.
pub async fn serve<L>(mut listener: L, router: Router, rules: Rules, stop: watch::Receiver<bool>)
where
    L: Listener,
    L::Io: TurnAway,
{
    let permits = Arc::new(Semaphore::new(rules.cap));
    let registry = Arc::new(Registry::default());
    let mut conns = JoinSet::new();
    let stopping = stopped(stop.clone());
    tokio::pin!(stopping);
    loop {
        let io = tokio::select! {
            (io, _addr) = listener.accept() => io,
            () = &mut stopping => break,
        };
        while let Some(done) = conns.try_join_next() {
            log_panic(done);
        }
        let Some(permit) = slot_for(&permits, &registry, rules).await else {
            tracing::debug!("{} connections open: turned one away", rules.cap);
            io.turn_away();
            continue;
        };
        // Registered here, not in its task: the next connection to find the listener full must
        // see every open one, even those whose task has not run yet.
        let entry = registry.enter();
        conns.spawn(connection(
            io,
            router.clone(),
            rules,
            entry,
            stop.clone(),
            permit,
        ));
    }
    drop(listener);
    while let Some(done) = conns.join_next().await {
        log_panic(done);
    }
}

/// A free slot, or under [`Rules::reclaim`] the slot of the connection reading a request the
/// longest, once it has closed; `None` when the connection is to be turned away.
async fn slot_for(
    permits: &Arc<Semaphore>,
    registry: &Registry,
    rules: Rules,
) -> Option<OwnedSemaphorePermit> {
    if let Ok(p) = Arc::clone(permits).try_acquire_owned() {
        return Some(p);
    }
    if !rules.reclaim || !registry.evict_longest_reading() {
        return None;
    }
    tracing::debug!(
        "{} connections open: closed the one reading a request longest",
        rules.cap
    );
    match tokio::time::timeout(EVICT_WAIT, Arc::clone(permits).acquire_owned()).await {
        Ok(Ok(p)) => Some(p),
        _ => None,
    }
}

/// One connection, holding its listener's permit until it closes (or is told to make room).
async fn connection<I>(
    io: I,
    router: Router,
    rules: Rules,
    entry: Entry,
    stop: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let slot = Arc::clone(&entry.slot);
    let body_read = rules.body_read;
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let slot = Arc::clone(&slot);
        let req = req.map(|b| Body::new(DeadlineBody::new(b, body_read, Arc::clone(&slot))));
        let answer = router.clone().oneshot(req);
        async move {
            let response = answer
                .await
                .unwrap_or_else(|never: Infallible| match never {});
            Ok::<_, Infallible>(response.map(|b| AnsweringBody::new(b, slot)))
        }
    });
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(rules.header_read);
    let conn = http.serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    let closed = loop {
        tokio::select! {
            // First, so a connection told to make room is closed before it reads any further.
            biased;
            () = entry.slot.evict.notified() => {
                // A request it began answering since it was chosen is answered all the same.
                if entry.slot.is_reading() {
                    tracing::debug!("closed a connection reading a request to make room for a new one");
                    return;
                }
                entry.slot.spared();
            }
            r = conn.as_mut() => break r,
            () = stopped(stop.clone()) => {
                // Closes an idle connection now; one serving a request closes after its response.
                conn.as_mut().graceful_shutdown();
                break conn.await;
            }
        }
    };
    match closed {
        Err(e) if e.is_timeout() => {
            tracing::debug!(
                "closed a connection that sent no request head for {:?}",
                rules.header_read
            );
        }
        Err(e) => tracing::debug!("connection closed: {e}"),
        Ok(()) => {}
    }
}

async fn stopped(mut stop: watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

fn log_panic(done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done
        && e.is_panic()
    {
        tracing::error!("a connection's task panicked: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_fit_under_the_open_file_limit() {
        // (open-file limit, socket cap, TCP cap)
        let table = [
            (1_048_576, 64, 64),
            (4096, 64, 64),
            (256, 64, 64),
            (192, 64, 64),
            (160, 48, 48),
            (100, 18, 18),
            (65, 1, 1),
            (0, 1, 1),
        ];
        for (fds, unix, tcp) in table {
            let l = Limits::new(fds, Deadlines::default());
            assert_eq!((l.unix, l.tcp), (unix, tcp), "fd limit {fds}");
            if fds >= FD_RESERVE + 2 {
                assert!(
                    (l.unix + l.tcp) as u64 + FD_RESERVE <= fds,
                    "fd limit {fds}"
                );
            }
        }
    }
}
