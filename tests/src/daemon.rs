//! A running `localm daemon` on a temp data dir, and a minimal HTTP/1.1 client for its Unix
//! socket (std only), so tests talk to it exactly as a client would.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::Env;

/// A daemon process; killed on drop if still running.
pub struct Daemon {
    pub child: Child,
    pub socket: PathBuf,
    log: PathBuf,
}

/// One HTTP response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    /// The error code of an error answer.
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Env {
    /// `localm daemon --socket <data dir>/s.sock` with extra environment; waits until ready.
    pub fn daemon(&self, envs: &[(&str, &str)]) -> Daemon {
        let d = self.spawn_daemon(envs, &[]);
        d.wait_ready();
        d
    }

    /// Start without waiting (for tests of refusals).
    pub fn spawn_daemon(&self, envs: &[(&str, &str)], args: &[&str]) -> Daemon {
        self.spawn_daemon_with(envs, args, |_| {})
    }

    /// Start without waiting, with the open-file limit (soft and hard) set to `nofile`.
    pub fn spawn_daemon_with_fd_limit(
        &self,
        envs: &[(&str, &str)],
        args: &[&str],
        nofile: u64,
    ) -> Daemon {
        use std::os::unix::process::CommandExt;
        self.spawn_daemon_with(envs, args, |cmd| {
            // SAFETY: the closure runs in the forked child before exec and calls only
            // setrlimit(2), which is async-signal-safe, on a struct it owns.
            unsafe {
                cmd.pre_exec(move || {
                    let lim = libc::rlimit {
                        rlim_cur: nofile,
                        rlim_max: nofile,
                    };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        })
    }

    fn spawn_daemon_with(
        &self,
        envs: &[(&str, &str)],
        args: &[&str],
        adjust: impl FnOnce(&mut std::process::Command),
    ) -> Daemon {
        let socket = self.data_dir().join("s.sock");
        let log = self.data_dir().join(format!(
            "daemon-{}.log",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let mut cmd = self.cmd(&["daemon", "--socket", socket.to_str().unwrap()]);
        cmd.args(args)
            .env("RUST_LOG", "debug")
            .stdout(Stdio::null())
            .stderr(File::create(&log).unwrap());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        adjust(&mut cmd);
        let child = cmd.spawn().expect("start localm daemon");
        Daemon { child, socket, log }
    }
}

impl Daemon {
    /// Wait (up to 30 s) until `GET /api/health` answers.
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(r) = try_request(&self.socket, "GET", "/api/health", None, &[])
                && r.status == 200
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the daemon did not become ready\n{}", self.log());
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> Response {
        try_request(&self.socket, method, path, body, &[])
            .unwrap_or_else(|e| panic!("{method} {path}: {e}\n{}", self.log()))
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, None)
    }

    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.request("POST", path, Some(&body.to_string()))
    }

    pub fn pid(&self) -> i32 {
        self.child.id().cast_signed()
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child process.
        unsafe {
            libc::kill(self.pid(), sig);
        }
    }

    /// Wait for exit, up to `secs`.
    pub fn wait_exit(&mut self, secs: u64) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "the daemon did not exit\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM and wait for the exit status.
    pub fn stop(&mut self) -> ExitStatus {
        self.signal(libc::SIGTERM);
        self.wait_exit(40)
    }

    /// Wait (up to `secs`) until the daemon's log (stderr, at debug level) contains `pattern`.
    pub fn wait_for_log(&self, pattern: &str, secs: u64) {
        self.wait_for(secs, &format!("{pattern:?} in the daemon's log"), || {
            self.log().contains(pattern).then_some(())
        });
    }

    /// Poll `f` every 100 ms until it returns Some, up to `secs`.
    pub fn wait_for<T>(&self, secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(v) = f() {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Env {
    /// The loopback listener's address, from `daemon.json`.
    pub fn tcp_addr(&self) -> String {
        let info: Value =
            serde_json::from_slice(&std::fs::read(self.data_dir().join("daemon.json")).unwrap())
                .unwrap();
        info["tcp"].as_str().unwrap().to_string()
    }
}

impl Daemon {
    /// Read until the daemon closes `s` (a reset counts as closed); panics, with the daemon's
    /// log, if `s` is still open when its read timeout (30 s in the tests) runs out.
    pub fn read_until_closed(&self, s: &mut (impl Read + ?Sized), what: &str) -> String {
        let mut raw = Vec::new();
        match s.read_to_end(&mut raw) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!(
                "{what}: not closed by the daemon in time ({e}); got {:?}\n{}",
                String::from_utf8_lossy(&raw),
                self.log()
            ),
        }
        String::from_utf8_lossy(&raw).into_owned()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One request on a fresh connection (`Connection: close`), with extra headers.
pub fn try_request(
    socket: &Path,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> std::io::Result<Response> {
    let mut s = UnixStream::connect(socket)?;
    s.set_read_timeout(Some(Duration::from_secs(300)))?;
    exchange(&mut s, method, path, body, headers)
}

/// One raw request to a loopback TCP listener at `addr`, with `Host` set to it unless `headers`
/// names one (read timeout 120 s).
pub fn tcp_request(
    addr: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Response {
    let mut s = std::net::TcpStream::connect(addr).expect("connect to the loopback listener");
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .expect("set a read timeout");
    let mut all = headers.to_vec();
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        all.push(("Host", addr));
    }
    exchange(&mut s, method, path, body, &all).expect("one exchange with the listener")
}

/// Write one request on `s` and read the response to the end (`Host: localhost` unless
/// `headers` names one).
pub fn exchange<S: Read + Write>(
    s: &mut S,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> std::io::Result<Response> {
    let body = body.unwrap_or("");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str("Host: localhost\r\n");
    }
    if !body.is_empty() {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    s.write_all(body.as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    parse(&raw).ok_or_else(|| {
        std::io::Error::other(format!(
            "unreadable response: {:?}",
            String::from_utf8_lossy(&raw)
        ))
    })
}

fn parse(raw: &[u8]) -> Option<Response> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..split]).ok()?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Some(Response {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n")?;
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..eol]).ok()?.trim(), 16).ok()?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}
