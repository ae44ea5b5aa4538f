//! Reading a request is bounded on both listeners, answering one is not: a client stalled inside
//! a request body is answered 408 and closed at the body deadline, 200 stalled clients on the
//! socket do not keep the owner's health check from being answered, and a request that takes
//! longer than the deadlines to answer is still answered. The deadlines are shortened through
//! `LOCALM_HEADER_READ_TIMEOUT` and `LOCALM_BODY_READ_TIMEOUT` so the tests do not wait long.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use localm_tests::daemon::{Daemon, exchange};
use localm_tests::fixtures::{hold_store_lock, log_env};
use serde_json::{Value, json};

/// The head of an append whose body should be 1,000 bytes, and the first 100 of them.
fn stalled_append(extra_headers: &str) -> Vec<u8> {
    let mut req = format!(
        "POST /api/memory/append HTTP/1.1\r\nHost: localhost\r\n{extra_headers}\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    .into_bytes();
    req.extend_from_slice(br#"{"text": ""#);
    req.extend(std::iter::repeat_n(b'a', 90));
    req
}

fn count(d: &Daemon) -> usize {
    d.get("/api/memory").json()["records"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn a_stalled_body_is_answered_408_and_closed_on_both_listeners() {
    let env = log_env();
    let d = env.spawn_daemon(
        &[
            ("LOCALM_HEADER_READ_TIMEOUT", "30"),
            ("LOCALM_BODY_READ_TIMEOUT", "1"),
        ],
        &["--listen", "127.0.0.1:0"],
    );
    d.wait_ready();
    let info: Value =
        serde_json::from_slice(&fs::read(env.data_dir().join("daemon.json")).unwrap()).unwrap();
    let addr = info["tcp"].as_str().unwrap().to_string();
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    let limit = Some(Duration::from_secs(30));

    let mut unix = UnixStream::connect(&d.socket).unwrap();
    unix.set_read_timeout(limit).unwrap();
    unix.write_all(&stalled_append("")).unwrap();
    let mut tcp = TcpStream::connect(&addr).unwrap();
    tcp.set_read_timeout(limit).unwrap();
    let auth = format!("Host: {addr}\r\nAuthorization: Bearer {}\r\n", token.trim());
    let req = String::from_utf8(stalled_append(&auth)).unwrap();
    tcp.write_all(req.replacen("Host: localhost\r\n", "", 1).as_bytes())
        .unwrap();

    for (what, answer) in [
        (
            "the socket",
            d.read_until_closed(&mut unix, "a stalled body on the socket"),
        ),
        (
            "TCP",
            d.read_until_closed(&mut tcp, "a stalled body on TCP"),
        ),
    ] {
        assert!(answer.starts_with("HTTP/1.1 408 "), "{what}: {answer}");
        assert!(answer.contains(r#""code":"timeout""#), "{what}: {answer}");
    }
    assert_eq!(count(&d), 0, "a cut-off body stored something");

    // Answering has no deadline: with the store lock held elsewhere an append retries for about
    // 2 s, twice the body deadline, and is answered 409 (busy), not 408.
    // Nothing was stored yet, so the store's folder is made here, private as localm makes it.
    std::os::unix::fs::DirBuilderExt::mode(fs::DirBuilder::new().recursive(true), 0o700)
        .create(env.store_dir())
        .unwrap();
    let _lock = hold_store_lock(&env, "test-holder");
    let r = d.post("/api/memory/append", &json!({"text": "Blocked fact"}));
    assert_eq!(r.status, 409, "{}", r.body);
}

#[test]
fn two_hundred_stalled_connections_do_not_starve_the_owner() {
    let env = log_env();
    let d = env.daemon(&[
        ("LOCALM_HEADER_READ_TIMEOUT", "2"),
        ("LOCALM_BODY_READ_TIMEOUT", "2"),
    ]);
    // Half stop inside the request head, half inside a 1,000-byte body.
    let mut stalled: Vec<UnixStream> = (0..200)
        .map(|i| {
            let mut s = UnixStream::connect(&d.socket).unwrap();
            if i % 2 == 0 {
                s.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n")
                    .unwrap();
            } else {
                s.write_all(&stalled_append("")).unwrap();
            }
            s
        })
        .collect();

    // The owner's health check, with a generous client timeout as the liveness bound.
    let started = Instant::now();
    let mut owner = UnixStream::connect(&d.socket).unwrap();
    owner
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let r = exchange(&mut owner, "GET", "/api/health", None, &[]).unwrap_or_else(|e| {
        panic!(
            "the owner's health check was not answered: {e}\n{}",
            d.log()
        )
    });
    let latency = started.elapsed();
    assert_eq!(r.status, 200, "{}", r.body);
    println!("owner's /api/health with 200 stalled connections: {latency:?}");

    // Every stalled connection is closed: made room for a newer one, or cut at a deadline.
    let started = Instant::now();
    for (i, s) in stalled.iter_mut().enumerate() {
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        d.read_until_closed(s, &format!("stalled connection {i}"));
    }
    println!(
        "all 200 stalled connections closed {:?} after the health check",
        started.elapsed()
    );
    assert_eq!(count(&d), 0, "a stalled body stored something");
}
