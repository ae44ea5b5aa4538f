//! `localm daemon`: claim the data dir, bind the control socket, then run the event loop until
//! SIGTERM/SIGINT; on the way out stop accepting, let the request or pass in flight finish or
//! abandon it before it writes, drain the loop's tasks, flush reinforcement, remove the socket
//! and exit 0. [`run`] takes bound listeners and a shutdown future, so a test can run the whole
//! daemon in-process on a temp socket.

pub mod api;
pub mod cadence;
pub mod event_loop;
pub mod hosts;
pub mod instance;
pub mod listener;
pub mod logins;
pub mod passes;
pub mod reinforce;
pub mod socket;
pub mod state;
pub mod token;
pub mod watch;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use chrono::Utc;
use futures_util::StreamExt;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook_tokio::Signals;
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::config::{ChatEnv, Deadlines, Intervals, Overrides};
use crate::exit::{Code, coded};
use instance::{Info, Instance};
use listener::Limits;
use passes::PassRunner;
use state::Shared;

/// How long a pass in flight gets to stop after SIGTERM before it is killed.
const PASS_GRACE: Duration = Duration::from_secs(20);
/// How long open requests get to finish.
const REQUEST_GRACE: Duration = Duration::from_secs(10);

/// Options of `localm daemon`, resolved by the command line (`config`).
#[derive(Debug, Clone, Default)]
pub struct DaemonOptions {
    pub data_dir: PathBuf,
    /// `--mode`, `LOCALM_MODE` and `--chat-upstream`, laid over settings.json at each reload.
    pub overrides: Overrides,
    pub socket: Option<PathBuf>,
    /// `--listen`: an address for the optional TCP listener (over the `listen` setting).
    pub listen: Option<SocketAddr>,
    pub intervals: Intervals,
    pub deadlines: Deadlines,
    pub chat: ChatEnv,
}

/// The daemon's listeners, bound before [`run`].
pub struct Listeners {
    /// The control socket (only this user's connections are served).
    pub unix: UnixListener,
    /// The optional loopback listener and the bearer token it requires.
    pub tcp: Option<(TcpListener, String)>,
    /// Each listener's connection cap and the request-read deadlines.
    pub limits: Limits,
}

/// `localm daemon`: claim the data dir, bind, serve until SIGTERM/SIGINT, clean up.
pub fn main(opts: DaemonOptions) -> anyhow::Result<()> {
    let instance = Instance::claim(&opts.data_dir)?;
    localm_core::fsutil::create_private_dir(&opts.data_dir.join("sessions"))
        .context("cannot create the sessions folder")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(state::BLOCKING_THREADS)
        .thread_keep_alive(Duration::from_secs(10))
        .build()
        .context("cannot start the runtime")?;
    let fd_limit = listener::raise_fd_limit();
    let limits = Limits::new(fd_limit, opts.deadlines);
    tracing::debug!(
        "open-file limit {fd_limit}: at most {} connections on the socket, {} on --listen",
        limits.unix,
        limits.tcp
    );
    let result = runtime.block_on(serve(opts, limits, instance));
    // A relay still reading a silent upstream holds a blocking thread: do not wait for it.
    runtime.shutdown_timeout(Duration::from_secs(2));
    result
}

/// Bind what `opts` asks for, publish where we listen, and run until a stop signal. Only here
/// are signal handlers installed: SIGHUP reloads, SIGTERM and SIGINT stop.
async fn serve(opts: DaemonOptions, limits: Limits, instance: Instance) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the localm executable")?;
    let shared = Arc::new(Shared::new(
        opts.data_dir.clone(),
        opts.overrides.clone(),
        PassRunner::new(exe),
        opts.chat.clone(),
    )?);
    let intervals = opts.intervals;
    let socket_path = opts
        .socket
        .clone()
        .unwrap_or_else(|| socket::default_path(&opts.data_dir));
    check_socket_path(&socket_path)?;
    let unix = socket::bind(&socket_path)?;
    let mut tcp = None;
    let settings = shared.config().settings.clone();
    let listen = crate::config::listen(opts.listen, &settings)
        .map_err(|e| coded(Code::Usage, e.to_string()))?;
    if let Some(addr) = listen {
        if !addr.ip().is_loopback() {
            let besides = if addr.ip().is_unspecified() {
                "any address of this machine"
            } else {
                "the address"
            };
            tracing::warn!(
                "listening on {addr}, which other machines may reach: every request must send \
                 the token; Host names allowed besides {besides}: localhost{}",
                settings
                    .allowed_hosts
                    .iter()
                    .map(|h| format!(", {h}"))
                    .collect::<String>()
            );
        }
        let token = token::load_or_create(&opts.data_dir)?;
        let l = TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        // `localm open` logs a browser in on a loopback listener only.
        let browser = if addr.ip().is_loopback() {
            "`localm open` logs a browser in"
        } else {
            "every request must send it"
        };
        tracing::info!(
            "also listening on http://{} (token in {}; {browser})",
            l.local_addr()?,
            token::path(&opts.data_dir).display()
        );
        tcp = Some((l, token));
    }
    instance.publish(&Info {
        pid: std::process::id(),
        socket: socket_path.clone(),
        tcp: match &tcp {
            Some((l, _)) => Some(l.local_addr()?.to_string()),
            None => None,
        },
        started_at: Utc::now(),
        version: env!("CARGO_PKG_VERSION").to_string(),
    })?;
    let config = shared.config();
    tracing::info!(
        "ready on {} (mode {}, memory plugin {}, automatic pass at most every {}s)",
        socket_path.display(),
        config.mode,
        if config.settings.memory_plugin_enabled() {
            "enabled"
        } else {
            "off"
        },
        intervals.auto.as_secs()
    );

    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    let signals_handle = signals.handle();
    let (reload_tx, reload_rx) = mpsc::unbounded_channel();
    let stop_signal = async move {
        while let Some(sig) = signals.next().await {
            if sig == SIGHUP {
                tracing::info!("SIGHUP: reloading settings and jobs");
                let _ = reload_tx.send(());
            } else {
                tracing::info!("signal {sig}: stopping");
                return;
            }
        }
    };
    let listeners = Listeners { unix, tcp, limits };
    let result = run(shared, listeners, intervals, reload_rx, stop_signal).await;
    signals_handle.close();
    let _ = std::fs::remove_file(&socket_path);
    drop(instance);
    result?;
    tracing::info!("stopped");
    Ok(())
}

/// Serve `listeners` and run the event loop until `shutdown` completes (or `reload` says to
/// re-read settings and jobs). Then stop accepting; a pass in flight abandons its model work
/// (it has written nothing yet) or, if already writing, completes its atomic write; the tasks
/// the loop started are drained, queued reinforcement is written, open requests get a moment
/// to finish, and so do the chat path's tasks (turn loggers, SSE pumps, timers).
pub async fn run(
    shared: Arc<Shared>,
    listeners: Listeners,
    intervals: Intervals,
    reload: mpsc::UnboundedReceiver<()>,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    seed_last_pass(&shared);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let limits = listeners.limits;
    let mut servers: Vec<JoinHandle<()>> = Vec::new();
    servers.push(tokio::spawn(listener::serve(
        socket::PeerChecked::new(listeners.unix),
        api::router(Arc::clone(&shared), None),
        limits.socket(),
        stop_rx.clone(),
    )));
    if let Some((l, token)) = listeners.tcp {
        let addr = l
            .local_addr()
            .context("the loopback listener has no address")?;
        // The browser login is for a loopback listener only.
        if addr.ip().is_loopback() {
            shared.logins.set_listen(addr);
        }
        let token = token::Live::new(token::path(&shared.data_dir), token);
        let allowed = shared.config().settings.allowed_hosts.clone();
        let guard = api::auth::TcpGuard::new(token, addr, Arc::clone(&shared.logins))
            .allowing(&allowed, addr.port());
        servers.push(tokio::spawn(listener::serve(
            l,
            api::router(Arc::clone(&shared), Some(Arc::new(guard))),
            limits.loopback(),
            stop_rx.clone(),
        )));
    }
    let (fs_tx, fs_rx) = mpsc::unbounded_channel();
    let _watcher = watch::start(&shared.data_dir, fs_tx).context("cannot watch the data dir")?;

    let mut tasks = event_loop::EventLoop::new(Arc::clone(&shared), intervals, fs_rx, reload)
        .run(shutdown)
        .await;

    let _ = stop_tx.send(true);
    // A pass still running after the grace is killed when its task is dropped (kill_on_drop).
    shared.passes.terminate();
    let mut finished = shared.passes.finished();
    let drained = tokio::time::timeout(PASS_GRACE, async {
        while tasks.join_next().await.is_some() {}
        // A pass started by a request is not the loop's: wait for it too.
        while shared.passes.busy() {
            if finished.changed().await.is_err() {
                break;
            }
        }
    })
    .await;
    if drained.is_err() {
        tracing::warn!("a pass did not stop within {PASS_GRACE:?}; killing it");
        tasks.shutdown().await;
    }
    shared.reinforcer.flush().await;
    let closed = tokio::time::timeout(REQUEST_GRACE, async {
        for s in &mut servers {
            let _ = s.await;
        }
    })
    .await;
    if closed.is_err() {
        tracing::warn!("requests still open after {REQUEST_GRACE:?}; closing them");
        for s in &servers {
            s.abort();
        }
    }
    // The chat path's tasks: a turn logger finishes its append, timers end, a reply still
    // streaming to a client that is gone stops.
    let aborted = shared.chat.tasks.drain(REQUEST_GRACE).await;
    if aborted > 0 {
        tracing::warn!("{aborted} chat tasks still running after {REQUEST_GRACE:?}; stopped them");
    }
    Ok(())
}

/// The interval since the last pass survives a restart: take it from state.json.
fn seed_last_pass(shared: &Shared) {
    let at = match shared.store.read() {
        Ok(snap) => snap.state.last_pass.and_then(|p| p.at),
        Err(e) => {
            tracing::warn!("{e}");
            None
        }
    };
    if let Some(at) = at {
        // A last pass dated in the future (the clock was set back) counts as just now.
        let ago = (Utc::now() - at).to_std().unwrap_or(Duration::ZERO);
        if let Some(t) = Instant::now().checked_sub(ago) {
            shared.passes.seed_last_started(t);
        }
    }
}

/// Start tracing to stderr: `RUST_LOG` if set, else info (`-v` debug, `-vv` trace).
pub fn init_logging(verbose: u8) {
    use std::io::IsTerminal;
    // rmcp (`localm mcp`) logs every session's start and end at info: only its warnings here.
    let default = match verbose {
        0 => "info,rmcp=warn",
        1 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

/// A Unix socket path must fit `sun_path` (108 bytes on Linux, 104 on macOS).
pub fn check_socket_path(path: &std::path::Path) -> anyhow::Result<()> {
    if path.as_os_str().len() > 100 {
        bail!(
            "the socket path {} is too long for a Unix socket",
            path.display()
        );
    }
    Ok(())
}
