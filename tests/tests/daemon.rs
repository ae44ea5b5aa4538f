//! `localm daemon` as clients see it: the real binary on a temp data dir and socket, every route
//! and status, privacy refusals, the store lock, the plugin switch, signals, a second daemon,
//! jobs picked up without a restart, the TCP token, other users' connections, and the listeners'
//! timeouts and connection caps.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use localm_core::store::lock::StoreLock;
use localm_tests::Env;
use localm_tests::daemon::{Daemon, exchange, try_request};
use localm_tests::fixtures::{record, write_store_file};
use serde_json::{Value, json};

/// A data dir in log mode with the memory plugin installed.
fn log_env() -> Env {
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", "log"]).ok();
    env
}

fn texts(d: &Daemon) -> Vec<String> {
    let v = d.get("/api/memory").json();
    let mut t: Vec<String> = v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    t.sort();
    t
}

#[test]
fn health_answers_with_the_mode_and_plugin_state() {
    let env = log_env();
    let d = env.daemon(&[]);
    let h = d.get("/api/health");
    assert_eq!(h.status, 200);
    let v = h.json();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["mode"], "log");
    assert_eq!(v["memory_plugin"], true);
    assert_eq!(v["pid"], d.pid());
    // The socket and its folder are private.
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(&d.socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // status sees it.
    let s = env.run(&["status"]).ok();
    assert!(s.contains(&format!("running, pid {}", d.pid())), "{s}");
}

#[test]
fn append_list_patch_delete_and_bulk_edit() {
    let env = log_env();
    let d = env.daemon(&[]);
    let r = d.post("/api/memory/append", &json!({"text": "Prefers tea"}));
    assert_eq!(r.status, 201, "{}", r.body);
    let tea = r.json()["record"]["id"].as_str().unwrap().to_string();
    assert_eq!(r.json()["record"]["source"], "user");
    let again = d.post("/api/memory/append", &json!({"text": "prefers  TEA"}));
    assert_eq!(again.status, 200);
    assert_eq!(again.json()["existing"], true);
    let ep = d.post(
        "/api/memory/append",
        &json!({"text": "Debugged a flaky upload test", "kind": "episodic", "importance": 0.4}),
    );
    assert_eq!(ep.status, 201);
    assert_eq!(ep.json()["record"]["kind"], "episodic");

    let list = d.get("/api/memory").json();
    assert_eq!(list["writable"], true);
    assert_eq!(list["records"].as_array().unwrap().len(), 2);

    let p = d.request(
        "PATCH",
        &format!("/api/memory/{tea}"),
        Some(r#"{"text": "Prefers green tea", "importance": 0.9}"#),
    );
    assert_eq!(p.status, 200, "{}", p.body);
    assert_eq!(p.json()["record"]["text"], "Prefers green tea");
    assert_eq!(p.json()["record"]["importance"], 0.9);
    let empty = d.request("PATCH", &format!("/api/memory/{tea}"), Some("{}"));
    assert_eq!(empty.status, 400, "{}", empty.body);

    // Bulk edit: keep one, add one, delete the omitted episodic record.
    let put = d.request(
        "PUT",
        "/api/memory",
        Some(&json!({"text": "Prefers green tea\n\nWorks on printer firmware\n"}).to_string()),
    );
    assert_eq!(put.status, 200, "{}", put.body);
    let v = put.json();
    assert_eq!(v["kept"], 1);
    assert_eq!(v["added"].as_array().unwrap().len(), 1);
    assert_eq!(v["deleted"].as_array().unwrap().len(), 1);
    assert_eq!(
        texts(&d),
        ["Prefers green tea", "Works on printer firmware"]
    );
    // The kept record is the same record.
    let kept = d.get("/api/memory").json()["records"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == tea.as_str());
    assert!(kept);

    let del = d.request("DELETE", &format!("/api/memory/{tea}"), None);
    assert_eq!(del.status, 200);
    assert_eq!(texts(&d), ["Works on printer firmware"]);
    let gone = d.request("DELETE", &format!("/api/memory/{tea}"), None);
    assert_eq!(gone.status, 404);
    assert_eq!(gone.code(), "not_found");
}

/// #22, item 1: a bulk edit carries the generation it was made from (`If-Match` or `base`); one
/// made before another write landed is refused with 409 `stale` and changes nothing, and what it
/// deletes when it does go through is archived, not gone.
#[test]
fn a_bulk_edit_from_a_stale_generation_is_409_and_changes_nothing() {
    let env = log_env();
    let d = env.daemon(&[]);
    assert_eq!(
        d.post("/api/memory/append", &json!({"text": "Prefers tea"}))
            .status,
        201
    );
    let shown = d.get("/api/memory");
    let base = shown.json()["generation"].as_u64().unwrap();
    assert_eq!(shown.header("etag"), Some(format!("\"{base}\"").as_str()));
    // Something else adds a fact while the editor is open: the CLI, another process.
    env.run(&["memory", "add", "Lives in Porto"]).ok();
    let put = |body: Value, headers: &[(&str, &str)]| {
        try_request(
            &d.socket,
            "PUT",
            "/api/memory",
            Some(&body.to_string()),
            headers,
        )
        .unwrap()
    };
    let etag = format!("\"{base}\"");
    for (body, headers) in [
        (
            json!({"text": "Prefers tea\nDrinks oolong", "base": base}),
            vec![],
        ),
        (
            json!({"text": "Prefers tea\nDrinks oolong"}),
            vec![("If-Match", etag.as_str())],
        ),
        (
            json!({"text": "Prefers tea\nDrinks oolong"}),
            vec![("If-Match", &*format!("W/{etag}"))],
        ),
    ] {
        let r = put(body, &headers);
        assert_eq!(r.status, 409, "{}", r.body);
        assert_eq!(r.code(), "stale");
        assert!(r.body.contains("nothing was saved"), "{}", r.body);
    }
    assert_eq!(
        texts(&d),
        ["Lives in Porto", "Prefers tea"],
        "nothing changed"
    );
    // A base that is not a generation, or two that disagree: 400, nothing changed.
    let r = put(json!({"text": ""}), &[("If-Match", "yesterday")]);
    assert_eq!(r.status, 400, "{}", r.body);
    let r = put(
        json!({"text": "", "base": base}),
        &[("If-Match", "\"999\"")],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(texts(&d), ["Lives in Porto", "Prefers tea"]);

    // Redone on top of what is there now, it goes through and names the next base.
    let now = d.get("/api/memory").json()["generation"].as_u64().unwrap();
    assert!(now > base);
    let r = put(
        json!({"text": "Prefers tea\nLives in Porto\nDrinks oolong"}),
        &[("If-Match", &*format!("\"{now}\""))],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["added"].as_array().unwrap().len(), 1);
    let next = r.json()["generation"].as_u64().unwrap();
    assert_eq!(
        next,
        d.get("/api/memory").json()["generation"].as_u64().unwrap()
    );
    let r = put(json!({"text": "Drinks oolong", "base": next}), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["deleted"].as_array().unwrap().len(), 2);
    assert_eq!(texts(&d), ["Drinks oolong"]);
    // What it deleted is in the archive, restorable.
    let forgotten = d.get("/api/memory/forgotten").json();
    let mut gone: Vec<(String, String)> = forgotten["forgotten"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["text"].as_str().unwrap().to_string(),
                a["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    gone.sort();
    assert_eq!(
        gone,
        [
            ("Lives in Porto".to_string(), "bulk_edit".to_string()),
            ("Prefers tea".to_string(), "bulk_edit".to_string())
        ]
    );
    // Without a base (scripts written before the check) it replaces what is there, as before.
    env.run(&["memory", "add", "Owns a kayak"]).ok();
    let r = put(json!({"text": "Drinks oolong"}), &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(texts(&d), ["Drinks oolong"]);
}

#[test]
fn bad_input_gets_a_json_error_and_changes_nothing() {
    let env = log_env();
    let d = env.daemon(&[]);
    d.post("/api/memory/append", &json!({"text": "Keeps this"}));
    let before = fs::read(env.store_dir().join("memory.jsonl")).unwrap();
    let cases: Vec<(&str, &str, Option<String>, u16)> = vec![
        ("POST", "/api/memory/append", Some("{not json".into()), 400),
        (
            "POST",
            "/api/memory/append",
            Some(r#"{"text": 5}"#.into()),
            400,
        ),
        (
            "POST",
            "/api/memory/append",
            Some(r#"{"txt": "typo"}"#.into()),
            400,
        ),
        (
            "POST",
            "/api/memory/append",
            Some(r#"{"text": "   "}"#.into()),
            400,
        ),
        (
            "POST",
            "/api/memory/append",
            Some(r#"{"text": "x", "kind": "dream"}"#.into()),
            400,
        ),
        (
            "POST",
            "/api/memory/append",
            Some(r#"{"text": "x", "importance": 3}"#.into()),
            400,
        ),
        ("POST", "/api/memory/append", None, 400),
        (
            "POST",
            "/api/memory/append",
            Some(json!({"text": "a".repeat(501)}).to_string()),
            413,
        ),
        (
            "PATCH",
            "/api/memory/ffffffff",
            Some(r#"{"importance": 0.5}"#.into()),
            404,
        ),
        ("PUT", "/api/memory", Some(r#"{"text": ["a"]}"#.into()), 400),
        (
            "PUT",
            "/api/memory",
            Some(
                json!({"text": (0..257).map(|i| format!("fact {i}\n")).collect::<String>()})
                    .to_string(),
            ),
            413,
        ),
        (
            "PUT",
            "/api/memory",
            Some(json!({"text": "b".repeat(64_001)}).to_string()),
            413,
        ),
        ("POST", "/api/memory/forgotten/ffff/restore", None, 404),
        ("POST", "/api/memory/corrections/ffff/accept", None, 404),
        ("GET", "/api/nothing", None, 404),
        ("DELETE", "/api/memory", None, 405),
    ];
    for (method, path, body, status) in cases {
        let r = d.request(method, path, body.as_deref());
        assert_eq!(r.status, status, "{method} {path}: {}", r.body);
        let msg = r.json()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            !msg.is_empty() && !msg.contains('\n'),
            "one-line message: {}",
            r.body
        );
    }
    // A body over 1 MiB is refused from its Content-Length, before it is read.
    let mut s = UnixStream::connect(&d.socket).unwrap();
    write!(
        s,
        "POST /api/memory/append HTTP/1.1\r\nHost: l\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        2 << 20
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    assert!(raw.contains("body_too_large"), "{raw}");
    assert_eq!(
        fs::read(env.store_dir().join("memory.jsonl")).unwrap(),
        before
    );
}

#[test]
fn an_append_past_256_records_is_413() {
    let env = log_env();
    let full: Vec<Value> = (0..256)
        .map(|i| record(&format!("{i:08x}"), &format!("fact number {i}"), "user"))
        .collect();
    write_store_file(&env, "memory.jsonl", &full);
    let d = env.daemon(&[]);
    let r = d.post("/api/memory/append", &json!({"text": "one too many"}));
    assert_eq!(r.status, 413, "{}", r.body);
    assert_eq!(r.code(), "over_cap");
    assert_eq!(d.get("/api/memory").json()["count"], 256);
}

#[test]
fn forgotten_restore_corrections_accept_reject() {
    let env = log_env();
    write_store_file(
        &env,
        "memory.jsonl",
        &[
            record("aaaa0001", "Works at Acme", "user"),
            record("aaaa0002", "Uses vim", "user"),
        ],
    );
    let mut a = record("feed0001", "Evicted fact", "user");
    a["archived_at"] = "2026-02-01T00:00:00Z".into();
    a["reason"] = "evicted".into();
    write_store_file(&env, ".forgotten.jsonl", &[a]);
    let c = |id: &str, target: &str, old: &str, new: &str| {
        json!({"id": id, "target": target, "op": "update", "old_text": old, "new_text": new,
               "confidence": 0.9, "status": "pending", "created_at": "2026-02-01T00:00:00Z"})
    };
    write_store_file(
        &env,
        "corrections.jsonl",
        &[
            c("cccc0001", "aaaa0001", "Works at Acme", "Works at Initech"),
            c("cccc0002", "aaaa0002", "Uses vim", "Uses emacs"),
        ],
    );
    let d = env.daemon(&[]);
    let f = d.get("/api/memory/forgotten").json();
    assert_eq!(f["forgotten"][0]["id"], "feed0001");
    let r = d.request("POST", "/api/memory/forgotten/feed0001/restore", None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(texts(&d).contains(&"Evicted fact".to_string()));

    let pending = d.get("/api/memory/corrections").json();
    assert_eq!(pending["corrections"].as_array().unwrap().len(), 2);
    let acc = d.request("POST", "/api/memory/corrections/cccc0001/accept", None);
    assert_eq!(acc.status, 200, "{}", acc.body);
    let rej = d.request("POST", "/api/memory/corrections/cccc0002/reject", None);
    assert_eq!(rej.status, 200, "{}", rej.body);
    let t = texts(&d);
    assert!(t.contains(&"Works at Initech".to_string()), "{t:?}");
    assert!(t.contains(&"Uses vim".to_string()), "{t:?}");
    // Accepting archived the old value first.
    let f = d.get("/api/memory/forgotten").json();
    assert!(f.to_string().contains("Works at Acme"), "{f}");
    assert!(
        d.get("/api/memory/corrections").json()["corrections"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn recall_returns_the_block_items_and_header() {
    let env = log_env();
    let d = env.daemon(&[]);
    let tea = d.post("/api/memory/append", &json!({"text": "Prefers green tea"}));
    let tea = tea.json()["record"]["id"].as_str().unwrap().to_string();
    d.post(
        "/api/memory/append",
        &json!({"text": "Works on printer firmware"}),
    );
    let r = d.post(
        "/api/memory/recall",
        &json!({"messages": [{"role": "user", "content": "what tea should I buy?"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["items"][0]["id"], tea.as_str());
    assert_eq!(v["items"].as_array().unwrap().len(), 1);
    assert!(v["block"].as_str().unwrap().contains("Prefers green tea"));
    assert_eq!(v["degrade"], "no_embedder");
    let header = r.header("x-localm-memory").unwrap().to_string();
    assert_eq!(header, format!("count=1; items={tea}; degrade=no_embedder"));
    assert_eq!(v["header"], header.as_str());
    // Log mode reinforces what was injected (off the hot path).
    d.wait_for(10, "reinforcement", || {
        let recs = d.get("/api/memory").json();
        recs["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == tea.as_str() && r["recall_count"] == 1)
            .then_some(())
    });
    // Off-topic, tool-origin latest message, and the coder agent: nothing.
    for body in [
        json!({"messages": [{"role": "user", "content": "how far is the moon?"}]}),
        json!({"messages": [{"role": "user", "content": "tea", "origin": "tool"}]}),
        json!({"messages": [{"role": "user", "content": "tea"}], "agent": "coder"}),
    ] {
        let r = d.post("/api/memory/recall", &body);
        assert_eq!(r.status, 200);
        assert!(
            r.json()["items"].as_array().unwrap().is_empty(),
            "{}",
            r.body
        );
        assert!(r.header("x-localm-memory").unwrap().starts_with("count=0"));
    }
    let bad = d.post("/api/memory/recall", &json!({"messages": "tea"}));
    assert_eq!(bad.status, 400);
}

#[test]
fn privacy_mode_refuses_every_write_and_recalls_nothing() {
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    write_store_file(
        &env,
        "memory.jsonl",
        &[record("aaaa0001", "Prefers green tea", "user")],
    );
    let before = fs::read(env.store_dir().join("memory.jsonl")).unwrap();
    let mut d = env.daemon(&[]);
    assert_eq!(d.get("/api/health").json()["mode"], "privacy");
    let list = d.get("/api/memory").json();
    assert_eq!(list["writable"], false);
    assert_eq!(list["records"].as_array().unwrap().len(), 1);
    for (method, path, body) in [
        ("POST", "/api/memory/append", Some(r#"{"text": "x"}"#)),
        ("PUT", "/api/memory", Some(r#"{"text": "x"}"#)),
        (
            "PATCH",
            "/api/memory/aaaa0001",
            Some(r#"{"importance": 0.1}"#),
        ),
        ("DELETE", "/api/memory/aaaa0001", None),
        ("POST", "/api/memory/consolidate", None),
        ("POST", "/api/memory/forgotten/aaaa0001/restore", None),
        ("POST", "/api/memory/corrections/aaaa0001/accept", None),
        ("POST", "/api/memory/corrections/aaaa0001/reject", None),
    ] {
        let r = d.request(method, path, body);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
        assert_eq!(r.code(), "privacy");
    }
    let tea = json!({"messages": [{"role": "user", "content": "which tea do I like?"}]});
    let r = d.post("/api/memory/recall", &tea);
    assert!(r.json()["items"].as_array().unwrap().is_empty());
    assert!(r.json()["skipped"].as_str().unwrap().contains("privacy"));
    // Opting into read-only recall: recalls, and writes nothing (no reinforcement).
    env.run(&["settings", "set", "memory_recall_in_privacy", "true"])
        .ok();
    d.wait_for(10, "the settings change", || {
        let r = d.post("/api/memory/recall", &tea);
        (!r.json()["items"].as_array().unwrap().is_empty()).then_some(())
    });
    // Stopping writes out any queued reinforcement, so a recall that had queued some would
    // show in the store now.
    assert!(d.stop().success());
    assert_eq!(
        fs::read(env.store_dir().join("memory.jsonl")).unwrap(),
        before
    );
}

#[test]
fn a_held_store_lock_answers_409_and_changes_nothing() {
    let env = log_env();
    let d = env.daemon(&[]);
    d.post("/api/memory/append", &json!({"text": "Existing fact"}));
    let before = fs::read(env.store_dir().join("memory.jsonl")).unwrap();
    let lock = StoreLock::acquire(
        &env.store_dir().join(".lock"),
        "test-holder",
        Duration::ZERO,
    )
    .unwrap();
    let r = d.post("/api/memory/append", &json!({"text": "Blocked fact"}));
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(r.code(), "busy");
    assert!(r.body.contains("test-holder"), "{}", r.body);
    let r = d.request("PUT", "/api/memory", Some(r#"{"text": ""}"#));
    assert_eq!(r.status, 409);
    // Reading needs no lock.
    assert_eq!(d.get("/api/memory").status, 200);
    assert_eq!(
        fs::read(env.store_dir().join("memory.jsonl")).unwrap(),
        before
    );
    drop(lock);
    assert_eq!(
        d.post("/api/memory/append", &json!({"text": "Unblocked"}))
            .status,
        201
    );
}

#[test]
fn the_plugin_switch_mounts_the_memory_routes_without_a_restart() {
    let env = Env::new();
    env.run(&["settings", "set", "mode", "log"]).ok();
    let d = env.daemon(&[]);
    let r = d.get("/api/memory");
    assert_eq!(r.status, 404);
    assert_eq!(r.code(), "plugin_disabled");
    assert_eq!(d.get("/api/health").status, 200);
    env.run(&["plugin", "install", "memory"]).ok();
    d.wait_for(10, "the plugin to be picked up", || {
        (d.get("/api/memory").status == 200).then_some(())
    });
    env.run(&["plugin", "disable", "memory"]).ok();
    d.wait_for(10, "the plugin to be switched off", || {
        (d.get("/api/memory").status == 404).then_some(())
    });
    let l = env.run(&["plugin", "list"]).ok();
    assert!(
        l.contains("memory") && l.contains("yes") && l.contains("no"),
        "{l}"
    );
    env.run(&["plugin", "install", "nope"]).fails(2);
}

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
fn a_job_added_from_the_terminal_runs_without_a_restart() {
    // Log mode with no session logs: the job's pass runs in a child and finds nothing to read,
    // so it needs no model; enough to see the scheduler pick the job up, run it in a child, and
    // record the outcome.
    let env = log_env();
    let d = env.daemon(&[]);
    env.run(&["job", "add", "distil", "--memory", "--every", "1"])
        .ok();
    let outcome = d.wait_for(30, "the job's first run", || {
        let v: Value = serde_json::from_str(&env.run(&["job", "list", "--json"]).ok()).unwrap();
        let last = v["jobs"][0]["last_run"].clone();
        (!last.is_null()).then_some(last)
    });
    assert_eq!(outcome["status"], "ok", "{outcome}");
    assert_eq!(outcome["trigger"], "schedule");
    let listed = env.run(&["job", "list"]).ok();
    assert!(
        listed.contains("distil") && listed.contains("ok"),
        "{listed}"
    );
    assert!(d.log().contains("pass job:distil: ok"), "{}", d.log());
    // Removed: it stops running.
    env.run(&["job", "rm", "distil"]).ok();
    env.run(&["job", "rm", "distil"]).fails(6);
}

#[test]
fn in_privacy_mode_a_due_job_writes_nothing() {
    let env = Env::new();
    let d = env.daemon(&[]);
    env.run(&["job", "add", "distil", "--memory", "--every", "1"])
        .ok();
    let jobs = env.data_dir().join("jobs.json");
    let before = fs::read(&jobs).unwrap();
    d.wait_for(30, "the job to fall due twice", || {
        (d.log()
            .matches("job distil: skipped in privacy mode")
            .count()
            >= 2)
            .then_some(())
    });
    assert_eq!(fs::read(&jobs).unwrap(), before, "jobs.json was written");
    assert!(!d.log().contains("pass job:distil"), "no pass process ran");
}

#[test]
fn job_commands_check_their_input() {
    let env = Env::new();
    env.run(&["job", "add", "j", "--every", "6h"]).fails(2);
    env.run(&["job", "add", "j", "--memory"]).fails(2);
    env.run(&["job", "add", "j", "--memory", "--every", "soon"])
        .fails(2);
    env.run(&["job", "add", "j", "--memory", "--cron", "not cron"])
        .fails(2);
    env.run(&["job", "add", "bad name!", "--memory", "--every", "6h"])
        .fails(2);
    env.run(&["job", "add", "j", "--memory", "--every", "6h"])
        .ok();
    env.run(&["job", "add", "j", "--memory", "--every", "6h"])
        .fails(2);
    env.run(&["job", "add", "n", "--memory", "--cron", "0 3 * * *"])
        .ok();
    let l = env.run(&["job", "list"]).ok();
    assert!(
        l.contains("every 6h") && l.contains("cron 0 3 * * *"),
        "{l}"
    );
    // A manual run records its outcome too.
    let out = env.run(&["job", "run", "j"]).ok();
    assert!(out.contains("skipped"), "{out}");
    let v: Value = serde_json::from_str(&env.run(&["job", "list", "--json"]).ok()).unwrap();
    assert_eq!(v["jobs"][0]["last_run"]["trigger"], "manual");
    env.run(&["job", "run", "zzz"]).fails(6);
}

#[test]
fn settings_get_set_validate_keys_and_values() {
    let env = Env::new();
    assert_eq!(env.run(&["settings", "get", "mode"]).ok().trim(), "privacy");
    env.run(&["settings", "set", "mode", "FULL"]).ok();
    assert_eq!(env.run(&["settings", "get", "mode"]).ok().trim(), "full");
    env.run(&["settings", "set", "mode", "loud"]).fails(2);
    env.run(&["settings", "set", "memory_enabled", "off"]).ok();
    assert_eq!(
        env.run(&["settings", "get", "memory_enabled"]).ok().trim(),
        "false"
    );
    env.run(&["settings", "set", "memory_enabled", "maybe"])
        .fails(2);
    let err = env.run(&["settings", "set", "colour", "blue"]).fails(2);
    assert!(err.contains("mode"), "lists the known keys: {err}");
    env.run(&["settings", "get", "colour"]).fails(2);
    let all = env.run(&["settings"]).ok();
    assert!(all.contains("memory_auto_consolidate"), "{all}");
}

#[test]
fn status_tells_where_things_stand() {
    let env = Env::new();
    let s = env.run(&["status"]).ok();
    for want in [
        "privacy",
        "not running",
        "not installed",
        "0 of 256",
        "never",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
    env.run(&["plugin", "install", "memory"]).ok();
    env.log(&["memory", "add", "Prefers tea"]).ok();
    let v: Value = serde_json::from_str(&env.log(&["status", "--json"]).ok()).unwrap();
    assert_eq!(v["records"], 1);
    assert_eq!(v["records_by"]["user/semantic"], 1);
    assert_eq!(v["memory_plugin"], true);
    assert_eq!(v["mode"], "log");
}

#[test]
fn the_tcp_listener_requires_the_token() {
    let env = log_env();
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    let addr = tcp_addr(&env);
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

/// The loopback listener's address, from `daemon.json`.
fn tcp_addr(env: &Env) -> String {
    let info: Value =
        serde_json::from_slice(&fs::read(env.data_dir().join("daemon.json")).unwrap()).unwrap();
    info["tcp"].as_str().unwrap().to_string()
}

/// Read until the server closes `s`; panics if it is still open after 30 s.
fn read_until_closed(s: &mut (impl Read + ?Sized), what: &str, d: &Daemon) -> String {
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap_or_else(|e| {
        panic!(
            "{what}: not closed by the daemon within 30 s ({e}); got {:?}\n{}",
            String::from_utf8_lossy(&raw),
            d.log()
        )
    });
    String::from_utf8_lossy(&raw).into_owned()
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
    let addr = tcp_addr(&env);
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

    // A TCP connection past the cap is answered 503 and closed at once, not held open.
    let mut extra = TcpStream::connect(&addr).unwrap();
    extra
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let answer = read_until_closed(&mut extra, "a connection past the cap", &d);
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains(r#""code":"busy""#), "{answer}");

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
    let mut tcp = TcpStream::connect(tcp_addr(&env)).unwrap();
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
    read_until_closed(&mut tcp, "an idle TCP connection", &d);
    read_until_closed(&mut silent, "an idle socket connection", &d);
    read_until_closed(&mut half, "half a request head", &d);
    let answer = read_until_closed(&mut kept, "an idle keep-alive connection", &d);
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");

    // A request that takes longer than the timeout is answered: a write waits about 2 s for a
    // store lock another process holds, then answers 409.
    let _lock = StoreLock::acquire(
        &env.store_dir().join(".lock"),
        "test-holder",
        Duration::ZERO,
    )
    .unwrap();
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
    // Needs root to run the daemon as another uid; skipped (and said so) otherwise.
    // SAFETY: geteuid(2) cannot fail and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to start the daemon as another user");
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
        eprintln!(
            "skipped: uid {nobody} cannot run {}",
            localm_tests::bin().display()
        );
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
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !socket.exists() && std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            eprintln!("skipped: the daemon could not start as uid {nobody} ({status})");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    // Root passes the 0600 file mode, so this is the peer-credential check answering.
    let r = try_request(&socket, "GET", "/api/health", None, &[]).unwrap();
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.body.contains("only the user who runs it"));
    // SAFETY: kill(2) on the daemon this test started; touches no memory.
    unsafe {
        libc::kill(child.id().cast_signed(), libc::SIGTERM);
    }
    assert!(child.wait().unwrap().success());
}

#[test]
fn service_install_writes_the_unit_for_this_executable() {
    let env = Env::new();
    let home = env.data_dir().join("home");
    fs::create_dir_all(&home).unwrap();
    let run = |args: &[&str]| {
        localm_tests::Run(
            env.cmd(args)
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join(".config"))
                .env("PATH", "/nonexistent")
                .output()
                .unwrap(),
        )
    };
    // Installed outside the build folder (which `service install` refuses): a hard link, or a copy.
    let exe = env.data_dir().join("bin/localm");
    fs::create_dir_all(exe.parent().unwrap()).unwrap();
    if fs::hard_link(localm_tests::bin(), &exe).is_err() {
        fs::copy(localm_tests::bin(), &exe).unwrap();
    }
    let exe_arg = exe.to_str().unwrap();
    let printed = run(&["service", "install", "--print", "--exe", exe_arg]).ok();
    assert!(
        printed.contains(&format!("ExecStart={} daemon", exe.display())),
        "{printed}"
    );
    assert!(printed.contains("Restart=on-failure"));
    assert!(
        printed.contains(&format!(
            "Environment=LOCALM_DATA_DIR={}",
            env.data_dir().display()
        )),
        "the data dir in force is kept: {printed}"
    );
    let unit = home.join(".config/systemd/user/localm-memory.service");
    assert!(!unit.exists(), "--print writes nothing");
    run(&["service", "install", "--no-enable", "--exe", exe_arg]).ok();
    assert_eq!(fs::read_to_string(&unit).unwrap(), printed);
    // Enabling needs systemctl; without it the error says the file is there to finish by hand.
    let err = run(&["service", "install", "--exe", exe_arg]).fails(1);
    assert!(err.contains("finish by hand"), "{err}");
}

#[test]
fn the_backfill_sweep_embeds_facts_in_the_background() {
    let Some(model) = localm_tests::embed_model() else {
        return;
    };
    let env = log_env();
    env.log(&["setup-embeddings", "--from", model.to_str().unwrap()])
        .ok();
    // Facts written after the model was installed have no vector yet.
    for t in ["Prefers green tea", "Works on printer firmware", "Uses vim"] {
        env.log(&["memory", "add", t]).ok();
    }
    let before: Value = serde_json::from_str(&env.log(&["status", "--json"]).ok()).unwrap();
    assert_eq!(before["with_vector"], 0, "{before}");
    let d = env.daemon(&[("LOCALM_MEMORY_BACKFILL_INTERVAL", "1")]);
    d.wait_for(60, "the sweep", || {
        let v: Value = serde_json::from_str(&env.log(&["status", "--json"]).ok()).unwrap();
        (v["with_vector"] == 3).then_some(())
    });
    // The vectors are committed before the sweep logs it: wait for the line, do not race it.
    d.wait_for_log("backfill: embedded 3 facts", 30);
    // Recall through the socket is semantic now: no degrade reason.
    let r = d.post(
        "/api/memory/recall",
        &json!({"messages": [{"role": "user", "content": "which tea do I like?"}]}),
    );
    assert!(r.json()["degrade"].is_null(), "{}", r.body);
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

#[test]
fn reads_do_not_queue_behind_writes_waiting_for_the_lock() {
    let env = log_env();
    let d = env.daemon(&[]);
    d.post("/api/memory/append", &json!({"text": "Existing fact"}));
    let lock = StoreLock::acquire(
        &env.store_dir().join(".lock"),
        "test-holder",
        Duration::ZERO,
    )
    .unwrap();
    // More writes than the blocking pool has threads, each waiting ~2 s for the held lock. They
    // are all sent before the read.
    let mut writes: Vec<UnixStream> = (0..10)
        .map(|i| {
            let body = json!({"text": format!("Blocked fact {i}")}).to_string();
            let mut s = UnixStream::connect(&d.socket).unwrap();
            write!(
                s,
                "POST /api/memory/append HTTP/1.1\r\nHost: l\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
            s
        })
        .collect();
    let read = d.get("/api/memory");
    assert_eq!(read.status, 200, "{}", read.body);
    // The read was answered while every write still waited for the lock: none has answered yet.
    for s in &mut writes {
        s.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 1];
        let pending =
            matches!(s.read(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
        assert!(pending, "a write answered before the read");
    }
    drop(lock);
    for mut s in writes {
        s.set_nonblocking(false).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 "), "{out}");
    }
}
