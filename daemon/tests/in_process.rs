//! The whole daemon in-process, the mini-redis way: `service::run` on a temp socket with a
//! shutdown future, spoken to over a real Unix-socket HTTP connection. Shows that `run` serves,
//! that the shutdown future stops it, and that reinforcement queued by a recall is written out
//! by the orderly stop (not lost with the last batch).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use localm::config::{ChatEnv, Intervals, Overrides};
use localm::service::passes::PassRunner;
use localm::service::state::Shared;
use localm::service::{Listeners, run};
use localm_core::record::{Kind, Record, Source};
use localm_core::store::{Store, StoreError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

/// A data dir in log mode with the memory plugin on and one fact.
fn data_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.json"),
        r#"{"mode": "log", "plugins": {"memory": {"installed": true, "enabled": true}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
    let now = Utc::now();
    Store::new(dir.path(), "chat", "test")
        .write(|snap| {
            snap.records.push(Record::new(
                "aaaa0001",
                "User prefers green tea",
                Kind::Semantic,
                Source::User,
                0.8,
                now,
            ));
            Ok::<_, StoreError>(())
        })
        .unwrap();
    dir
}

/// One HTTP/1.1 request with `Connection: close`; the status and body.
async fn post(socket: &Path, path: &str, body: &str) -> (u16, String) {
    let mut s = UnixStream::connect(socket).await.unwrap();
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap();
    (status, body)
}

#[tokio::test]
async fn run_serves_until_shutdown_and_flushes_reinforcement() {
    let dir = data_dir();
    let socket = dir.path().join("s.sock");
    let unix = UnixListener::bind(&socket).unwrap();
    let exe = std::env::current_exe().unwrap(); // never spawned: no pass runs here
    let shared = Arc::new(
        Shared::new(
            dir.path().to_path_buf(),
            Overrides::default(),
            PassRunner::new(exe),
            ChatEnv::default(),
        )
        .unwrap(),
    );
    let intervals = Intervals::default();
    let (_reload_tx, reload_rx) = tokio::sync::mpsc::unbounded_channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let daemon = tokio::spawn(run(
        Arc::clone(&shared),
        Listeners {
            unix,
            tcp: None,
            limits: localm::service::listener::Limits::default(),
        },
        intervals,
        reload_rx,
        async move {
            let _ = stop_rx.await;
        },
    ));

    let (status, body) = post(
        &socket,
        "/api/memory/recall",
        r#"{"messages": [{"role": "user", "content": "which tea should I brew?"}]}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["items"][0]["id"], "aaaa0001", "{body}");

    stop_tx.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(30), daemon)
        .await
        .expect("run returns after the shutdown future completes")
        .unwrap()
        .unwrap();
    let store = Store::new(dir.path(), "chat", "test");
    let fact = &store.read().unwrap().records[0];
    assert_eq!(fact.recall_count, 1, "the queued reinforcement was written");
    assert!(
        UnixStream::connect(&socket).await.is_err(),
        "no longer serving"
    );
}
