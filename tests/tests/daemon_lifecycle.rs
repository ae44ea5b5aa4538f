//! `localm daemon`'s life: SIGHUP reloads, SIGTERM exits clean, a second daemon and bad
//! settings are refused at start, and `status` watches daemons come and go without the lock.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;

use localm_tests::fixtures::log_env;
use serde_json::{Value, json};

#[test]
fn sighup_picks_up_a_changed_mode() {
    let env = log_env();
    let d = env.daemon(&[]);
    assert_eq!(d.get("/api/health").json()["mode"], "log");
    // Edit the file the way a user with an editor would, then ask for a reload.
    let path = env.data_dir().join("settings.json");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"log\"", "\"privacy\"");
    fs::write(&path, text).unwrap();
    d.signal(libc::SIGHUP);
    d.wait_for(10, "the mode change", || {
        (d.get("/api/health").json()["mode"] == "privacy").then_some(())
    });
    assert_eq!(
        d.post("/api/memory/append", &json!({"text": "x"})).status,
        403
    );
    // A settings file that does not parse is reported; the running settings stay.
    fs::write(&path, "{ nope").unwrap();
    d.signal(libc::SIGHUP);
    d.wait_for(10, "the warning", || {
        d.log().contains("settings not reloaded").then_some(())
    });
    assert_eq!(d.get("/api/health").json()["mode"], "privacy");
}

#[test]
fn sigterm_exits_zero_and_removes_the_socket() {
    let env = log_env();
    let mut d = env.daemon(&[]);
    let socket = d.socket.clone();
    assert!(socket.exists());
    let status = d.stop();
    assert_eq!(status.code(), Some(0), "{}", d.log());
    assert!(!socket.exists());
    assert!(!env.data_dir().join("daemon.json").exists());
    // And it starts again on the same data dir.
    let mut again = env.daemon(&[]);
    assert!(again.stop().success());
}

#[test]
fn a_second_daemon_on_the_same_data_dir_is_refused() {
    let env = log_env();
    let d = env.daemon(&[]);
    let out = env
        .cmd(&[
            "daemon",
            "--socket",
            env.data_dir().join("t.sock").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("pid {}", d.pid())), "{err}");
    assert!(err.contains("already runs"), "{err}");
    // The first one is unharmed.
    assert_eq!(d.get("/api/health").status, 200);
}

#[test]
fn bad_intervals_and_addresses_are_refused_at_start() {
    let env = log_env();
    let out = env
        .cmd(&["daemon"])
        .env("LOCALM_MEMORY_AUTO_INTERVAL", "soon")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LOCALM_MEMORY_AUTO_INTERVAL"));
    let out = env
        .cmd(&["daemon"])
        .env("LOCALM_HEADER_READ_TIMEOUT", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LOCALM_HEADER_READ_TIMEOUT"));
    // A non-loopback address is an opt-in now (tests/tests/apps.rs); a malformed one is not.
    let out = env
        .cmd(&["daemon", "--listen", "0.0.0.0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--listen"));
}

#[test]
fn status_observes_without_taking_the_daemon_lock() {
    let env = log_env();
    // Status polls as fast as it can while daemons start and stop: no start may fail.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poller = {
        let stop = std::sync::Arc::clone(&stop);
        let dir = env.data_dir().to_path_buf();
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let ok = std::process::Command::new(localm_tests::bin())
                    .args(["status", "--json"])
                    .env("LOCALM_DATA_DIR", &dir)
                    .output()
                    .unwrap()
                    .status
                    .success();
                assert!(ok);
                n += 1;
            }
            n
        })
    };
    for _ in 0..8 {
        let mut d = env.daemon(&[]);
        let s = env.run(&["status", "--json"]).stdout();
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["daemon"]["pid"], d.pid(), "{s}");
        assert!(d.stop().success());
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(poller.join().unwrap() > 0);
    // And status wrote nothing into the lock file.
    let lock = fs::read_to_string(env.data_dir().join("daemon.lock")).unwrap_or_default();
    assert!(!lock.contains("localm status"), "{lock}");
}
