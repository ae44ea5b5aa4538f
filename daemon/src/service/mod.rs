//! `localm daemon`: claim the data dir, bind the control socket, then run the event loop until
//! SIGTERM/SIGINT; on the way out stop accepting, let the request or pass in flight finish or
//! abandon it before it writes, remove the socket and exit 0.

pub mod cadence;
pub mod event_loop;
pub mod instance;
pub mod socket;
pub mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use chrono::Utc;
use localm_core::settings::Mode;
use localm_core::store::Store;
use tokio::sync::mpsc;

use crate::api::{self, state::ModeSources, state::Shared};
use crate::exit::{Code, coded};
use crate::passes::Passes;
use cadence::Intervals;
use instance::{Info, Instance};

/// How long a pass in flight gets to stop after SIGTERM before it is killed.
const PASS_GRACE: Duration = Duration::from_secs(20);
/// How long open requests get to finish.
const REQUEST_GRACE: Duration = Duration::from_secs(10);

/// Options of `localm daemon`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub data_dir: PathBuf,
    pub mode_flag: Option<Mode>,
    pub socket: Option<PathBuf>,
    /// A loopback address for the optional TCP listener (off by default).
    pub listen: Option<SocketAddr>,
}

pub fn run(opts: Options) -> anyhow::Result<()> {
    let intervals =
        Intervals::from_env(|k| std::env::var(k).ok()).map_err(|e| coded(Code::Usage, e))?;
    if let Some(addr) = opts.listen
        && !addr.ip().is_loopback()
    {
        return Err(coded(
            Code::Usage,
            format!("--listen {addr}: only a loopback address is allowed (127.0.0.1 or ::1)"),
        ));
    }
    let instance = Instance::claim(&opts.data_dir)?;
    std::fs::create_dir_all(opts.data_dir.join("sessions"))
        .context("cannot create the sessions folder")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(8)
        .thread_keep_alive(Duration::from_secs(10))
        .build()
        .context("cannot start the runtime")?;
    runtime.block_on(serve(opts, intervals, instance))
}

async fn serve(opts: Options, intervals: Intervals, instance: Instance) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the localm executable")?;
    let sources = ModeSources {
        flag: opts.mode_flag,
        env: std::env::var("LOCALM_MODE").ok(),
    };
    let shared = Arc::new(Shared::new(
        opts.data_dir.clone(),
        sources,
        Passes::new(exe),
    )?);
    seed_last_pass(&shared);

    let socket_path = opts
        .socket
        .clone()
        .unwrap_or_else(|| socket::default_path(&opts.data_dir));
    check_socket_path(&socket_path)?;
    let listener = socket::bind(&socket_path)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
        let _ = rx.wait_for(|s| *s).await;
    };
    let mut servers = Vec::new();
    servers.push(tokio::spawn(
        axum::serve(
            socket::PeerChecked::new(listener),
            api::router(Arc::clone(&shared), None),
        )
        .with_graceful_shutdown(stopped(stop_rx.clone()))
        .into_future(),
    ));
    let mut tcp = None;
    if let Some(addr) = opts.listen {
        let token = socket::write_token(&opts.data_dir)?;
        let l = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        let local = l.local_addr()?;
        tcp = Some(local.to_string());
        servers.push(tokio::spawn(
            axum::serve(l, api::router(Arc::clone(&shared), Some(token.into())))
                .with_graceful_shutdown(stopped(stop_rx.clone()))
                .into_future(),
        ));
        tracing::info!(
            "also listening on http://{local} (token in {})",
            opts.data_dir.join("api-token").display()
        );
    }

    let (fs_tx, fs_rx) = mpsc::unbounded_channel();
    let _watcher = watch::start(&opts.data_dir, fs_tx).context("cannot watch the data dir")?;
    instance.publish(&Info {
        pid: std::process::id(),
        socket: socket_path.clone(),
        tcp,
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

    let stop = event_loop::EventLoop::new(Arc::clone(&shared), intervals, fs_rx)
        .run()
        .await;

    // Stop accepting; a pass in flight abandons its model work (it has written nothing yet) or,
    // if already writing, completes its atomic write; open requests get a moment to finish.
    let _ = stop_tx.send(true);
    // A pass still running after the grace is killed when the runtime drops it (kill_on_drop).
    shared.passes.terminate();
    let mut finished = shared.passes.finished();
    let _ = tokio::time::timeout(PASS_GRACE, async {
        while shared.passes.busy() {
            if finished.changed().await.is_err() {
                break;
            }
        }
    })
    .await;
    for s in servers {
        let _ = tokio::time::timeout(REQUEST_GRACE, s).await;
    }
    let _ = std::fs::remove_file(&socket_path);
    drop(instance);
    let stop = stop?;
    tracing::info!("stopped ({stop:?})");
    Ok(())
}

/// The interval since the last pass survives a restart: take it from state.json.
fn seed_last_pass(shared: &Shared) {
    let Ok(snap) = shared.store.read() else {
        return;
    };
    let at = snap
        .state
        .last_pass
        .as_ref()
        .and_then(|p| p["at"].as_str())
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok());
    if let Some(at) = at {
        let ago = (Utc::now() - at.with_timezone(&Utc))
            .to_std()
            .unwrap_or(Duration::ZERO);
        if let Some(t) = Instant::now().checked_sub(ago) {
            shared.passes.seed_last_started(t);
        }
    }
}

/// The hourly embedding sweep, in a child process (`localm memory backfill`) so the model's
/// memory is released afterwards.
pub async fn backfill_child(shared: &Shared) {
    let store: &Store = &shared.store;
    match store.read() {
        Ok(s) if s.records.is_empty() => return,
        Err(e) => {
            tracing::warn!("backfill: {e}");
            return;
        }
        Ok(_) => {}
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let out = tokio::process::Command::new(exe)
        .args(["memory", "backfill"])
        .arg("--data-dir")
        .arg(&shared.data_dir)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
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

/// Start tracing to stderr: `RUST_LOG` if set, else info (`-v` debug, `-vv` trace).
pub fn init_logging(verbose: u8) {
    use std::io::IsTerminal;
    let default = match verbose {
        0 => "info",
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
