//! `localm daemon`'s listeners: the TCP token, other users' connections, socket paths that are
//! not ours, and the timeouts and connection caps.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use localm_tests::daemon::{exchange, try_request};
use localm_tests::fixtures::{hold_store_lock, log_env};
use serde_json::json;

#[test]
fn the_tcp_listener_requires_the_token() {
    let env = log_env();
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    let addr = env.tcp_addr();
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(env.data_dir().join("api-token"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let call = |auth: Option<&str>| {
        let mut s = TcpStream::connect(&addr).unwrap();
        let h = auth.map(|t| ("Authorization", format!("Bearer {t}")));
        let mut headers: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        headers.push(("Host", &addr));
        exchange(&mut s, "GET", "/api/memory", None, &headers).unwrap()
    };
    assert_eq!(call(None).status, 401);
    assert_eq!(call(Some("wrong")).status, 401);
    assert_eq!(call(Some(token.trim())).status, 200);
}

#[test]
fn idle_connections_past_the_cap_do_not_starve_the_owner() {
    // With 160 open files the daemon serves at most 48 connections per listener. 200 idle TCP
    // connections (no token needed to open one) are more files than it has: before the caps it
    // ran out, and its own socket stopped answering.
    let env = log_env();
    let mut d = env.spawn_daemon_with_fd_limit(
        &[("LOCALM_HEADER_READ_TIMEOUT", "600")],
        &["--listen", "127.0.0.1:0"],
        160,
    );
    d.wait_ready();
    let addr = env.tcp_addr();
    let idle_tcp: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let idle_unix: Vec<UnixStream> = (0..8)
        .map(|_| UnixStream::connect(&d.socket).unwrap())
        .collect();

    let mut owner = UnixStream::connect(&d.socket).unwrap();
    owner
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let r = exchange(&mut owner, "GET", "/api/memory", None, &[])
        .unwrap_or_else(|e| panic!("the owner's socket did not answer: {e}\n{}", d.log()));
    assert_eq!(r.status, 200, "{}", r.body);

    // A TCP connection past the cap takes the place of an idle one: the token holder is served.
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    let bearer = format!("Bearer {}", token.trim());
    let mut extra = TcpStream::connect(&addr).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let headers = [("Host", addr.as_str()), ("Authorization", bearer.as_str())];
    let r = exchange(&mut extra, "GET", "/api/memory", None, &headers)
        .unwrap_or_else(|e| panic!("a connection past the cap: {e}\n{}", d.log()));
    assert_eq!(r.status, 200, "{}", r.body);

    // SIGTERM closes the idle connections and exits 0.
    let status = d.stop();
    assert_eq!(status.code(), Some(0), "{}", d.log());
    drop((idle_tcp, idle_unix));
}

#[test]
fn idle_connections_are_closed_and_slow_requests_are_not() {
    let env = log_env();
    let d = env.spawn_daemon(
        &[("LOCALM_HEADER_READ_TIMEOUT", "1")],
        &["--listen", "127.0.0.1:0"],
    );
    d.wait_ready();
    d.post("/api/memory/append", &json!({"text": "Existing fact"}));
    // Closed within 30 s when the timeout is 1 s: a TCP connection that sends nothing (no token
    // needed), a socket connection that sends nothing, one that sends half a request head, and
    // a keep-alive connection after its answer.
    let mut tcp = TcpStream::connect(env.tcp_addr()).unwrap();
    let mut silent = UnixStream::connect(&d.socket).unwrap();
    let mut half = UnixStream::connect(&d.socket).unwrap();
    half.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n")
        .unwrap();
    let mut kept = UnixStream::connect(&d.socket).unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let limit = Some(Duration::from_secs(30));
    tcp.set_read_timeout(limit).unwrap();
    for s in [&silent, &half, &kept] {
        s.set_read_timeout(limit).unwrap();
    }
    d.read_until_closed(&mut tcp, "an idle TCP connection");
    d.read_until_closed(&mut silent, "an idle socket connection");
    d.read_until_closed(&mut half, "half a request head");
    let answer = d.read_until_closed(&mut kept, "an idle keep-alive connection");
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");

    // A request that takes longer than the timeout is answered: a write waits about 2 s for a
    // store lock another process holds, then answers 409.
    let _lock = hold_store_lock(&env, "test-holder");
    let started = std::time::Instant::now();
    let r = d.post("/api/memory/append", &json!({"text": "Blocked fact"}));
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(
        started.elapsed() > Duration::from_secs(1),
        "the write did not wait"
    );
}

#[test]
fn another_users_connection_is_refused() {
    // Needs root to run the daemon as another uid: skipped (and said so) otherwise, a failure
    // where every prerequisite is required (CI runs as root).
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        localm_tests::skip("needs root to start the daemon as another user");
        return;
    }
    let env = log_env();
    let nobody = 65534;
    let chown = std::process::Command::new("chown")
        .args(["-R", "65534:65534", env.data_dir().to_str().unwrap()])
        .status()
        .unwrap();
    assert!(chown.success());
    use std::os::unix::process::CommandExt;
    // The build may live where uid 65534 cannot reach it (a checkout under /root): say so.
    let reachable = std::process::Command::new(localm_tests::bin())
        .arg("--version")
        .uid(nobody)
        .gid(nobody)
        .output()
        .is_ok_and(|o| o.status.success());
    if !reachable {
        localm_tests::skip(&format!(
            "uid {nobody} cannot run {}",
            localm_tests::bin().display()
        ));
        return;
    }
    let socket = env.data_dir().join("s.sock");
    let mut child = env
        .cmd(&["daemon", "--socket", socket.to_str().unwrap()])
        .uid(nobody)
        .gid(nobody)
        .env("HOME", env.data_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Stop it whatever the test's outcome.
    struct Reap(u32);
    impl Drop for Reap {
        fn drop(&mut self) {
            // SAFETY: kill(2) on the daemon this test started; touches no memory.
            unsafe { libc::kill(self.0.cast_signed(), libc::SIGKILL) };
        }
    }
    let _reap = Reap(child.id());
    // Ready when it answers at all (the socket file appears before the daemon listens on it).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let r = loop {
        if let Ok(r) = try_request(&socket, "GET", "/api/health", None, &[]) {
            break r;
        }
        if let Some(status) = child.try_wait().unwrap() {
            localm_tests::skip(&format!(
                "the daemon could not start as uid {nobody} ({status})"
            ));
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the daemon as uid {nobody} did not answer within 20 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Root passes the 0600 file mode, so this is the peer-credential check answering.
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("only the user who runs it"));
    // SAFETY: kill(2) on the daemon this test started; touches no memory.
    unsafe {
        libc::kill(child.id().cast_signed(), libc::SIGTERM);
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn socket_paths_that_are_not_ours_are_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = log_env();
    // A regular file at the socket path is never removed.
    let file = env.data_dir().join("not-a-socket");
    fs::write(&file, "keep me").unwrap();
    let out = env
        .cmd(&["daemon", "--socket", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a socket"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep me");
    // An existing folder is used as it is: its mode is not changed.
    let shared = env.data_dir().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
    let socket = shared.join("s.sock");
    let mut child = env
        .cmd(&["daemon", "--socket", socket.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while try_request(&socket, "GET", "/api/health", None, &[]).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the daemon did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let mode = fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o755, "the folder was chmodded");
    let socket_mode = fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(socket_mode, 0o600);
    // SAFETY: kill(2) on the daemon this test started; touches no memory.
    unsafe {
        libc::kill(child.id().cast_signed(), libc::SIGTERM);
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn idle_connections_without_the_token_do_not_starve_a_token_holder() {
    // 64 TCP connections that send nothing (the listener's cap), then 8 that sent a request
    // without the token (401) and wait on keep-alive. Before, every token holder got 503.
    let env = log_env();
    let d = env.spawn_daemon(
        &[("LOCALM_HEADER_READ_TIMEOUT", "600")],
        &["--listen", "127.0.0.1:0"],
    );
    d.wait_ready();
    let addr = env.tcp_addr();
    let mut idle: Vec<TcpStream> = Vec::new();
    for i in 0..72 {
        let mut s = TcpStream::connect(&addr).unwrap();
        if i >= 64 {
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            write!(s, "GET /api/memory HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
            let mut head = [0; 12];
            std::io::Read::read_exact(&mut s, &mut head).unwrap();
            assert_eq!(&head, b"HTTP/1.1 401", "{}", d.log());
        }
        idle.push(s);
    }
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    let bearer = format!("Bearer {}", token.trim());
    for _ in 0..3 {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let headers = [("Host", addr.as_str()), ("Authorization", bearer.as_str())];
        let r = exchange(&mut s, "GET", "/api/memory", None, &headers)
            .unwrap_or_else(|e| panic!("the token holder was not answered: {e}\n{}", d.log()));
        assert_eq!(r.status, 200, "{}", r.body);
    }
    drop(idle);
}
