//! `localm open`: ask the running daemon, over its owner-only control socket, for a one-time
//! login link to the memory page on its loopback listener; print it, and open it in the browser
//! where there is a desktop.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde::Deserialize;

use super::Context;
use crate::service::instance;

#[derive(Debug, Deserialize)]
struct LoginLink {
    url: String,
}

pub fn run(ctx: &Context, browser: bool) -> anyhow::Result<()> {
    let Some(daemon) = instance::running(&ctx.data_dir) else {
        bail!(
            "no daemon is running for {}: start one with `localm daemon --listen 127.0.0.1:PORT`",
            ctx.data_dir.display()
        );
    };
    if daemon.tcp.is_none() {
        bail!(
            "the daemon has no loopback listener for the page: restart it with `localm daemon --listen 127.0.0.1:PORT`"
        );
    }
    let (status, body) = post(&daemon.socket, "/api/login-link")
        .with_context(|| format!("while asking the daemon on {}", daemon.socket.display()))?;
    if status != 200 {
        let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let why = v["error"]["message"].as_str().unwrap_or(body.as_str());
        bail!("the daemon refused a login link ({status}): {why}");
    }
    let link: LoginLink =
        serde_json::from_str(&body).context("while reading the daemon's login link")?;
    println!("{}", link.url);
    if browser {
        open_browser(&link.url);
    }
    Ok(())
}

/// One `POST path` with no body on the control socket; the status and the body.
fn post(socket: &std::path::Path, path: &str) -> anyhow::Result<(u16, String)> {
    let mut s = UnixStream::connect(socket).context("cannot connect")?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).context("no answer")?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n").context("not an HTTP answer")?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .context("not an HTTP answer")?;
    Ok((status, body.to_string()))
}

/// Open `url` with the desktop's opener, detached; a failure is a note, not an error.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
    {
        "xdg-open"
    } else {
        return;
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("localm: note: could not start {opener} ({e}); open the link above yourself");
    }
}
