//! `localm daemon`'s routes as clients see them: the real binary on a temp data dir and socket,
//! every route and status, bad input, privacy refusals, the store lock, and the plugin switch.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use localm_tests::Env;
use localm_tests::daemon::{Daemon, try_request};
use localm_tests::fixtures::{hold_store_lock, log_env, record, write_store_file};
use serde_json::{Value, json};

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
    let lock = hold_store_lock(&env, "test-holder");
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
fn reads_do_not_queue_behind_writes_waiting_for_the_lock() {
    let env = log_env();
    let d = env.daemon(&[]);
    d.post("/api/memory/append", &json!({"text": "Existing fact"}));
    let lock = hold_store_lock(&env, "test-holder");
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

/// Every write route refuses a secret alike (PATCH too: it stored "I bank with Monzo, PIN
/// 7781"), with 400 `secret` and nothing changed; `"force": true` stores it.
#[test]
fn every_write_route_refuses_a_secret_alike() {
    let env = log_env();
    let d = env.daemon(&[]);
    let r = d.post("/api/memory/append", &json!({"text": "Banks with Monzo"}));
    let id = r.json()["record"]["id"].as_str().unwrap().to_string();
    let patch = |body: Value| {
        d.request(
            "PATCH",
            &format!("/api/memory/{id}"),
            Some(&body.to_string()),
        )
    };
    let refused = [
        patch(json!({"text": "I bank with Monzo, PIN 7781"})),
        d.post(
            "/api/memory/append",
            &json!({"text": "My PIN is four eight two one"}),
        ),
        d.request(
            "PUT",
            "/api/memory",
            Some(
                &json!({"text": "Banks with Monzo\nMy mother's maiden name is Smith"}).to_string(),
            ),
        ),
    ];
    for r in &refused {
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(r.code(), "secret", "{}", r.body);
        assert!(r.body.contains("\\\"force\\\": true"), "{}", r.body);
    }
    assert_eq!(texts(&d), ["Banks with Monzo"], "nothing changed");
    let r = patch(json!({"text": "I bank with Monzo, PIN 7781", "force": true}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(texts(&d), ["I bank with Monzo, PIN 7781"]);
}

/// Issue #50's probe through append, PATCH and a bulk edit: a secret in any script is refused
/// with 400 `secret`, nothing changed.
#[test]
fn every_write_route_refuses_a_secret_in_any_script() {
    let env = log_env();
    let d = env.daemon(&[]);
    let r = d.post("/api/memory/append", &json!({"text": "Banks with Monzo"}));
    let id = r.json()["record"]["id"].as_str().unwrap().to_string();
    for text in localm_tests::secret_phrasings() {
        let refused = [
            d.post("/api/memory/append", &json!({"text": text})),
            d.request(
                "PATCH",
                &format!("/api/memory/{id}"),
                Some(&json!({"text": text}).to_string()),
            ),
            d.request(
                "PUT",
                "/api/memory",
                Some(&json!({"text": format!("Banks with Monzo\n{text}")}).to_string()),
            ),
        ];
        for r in &refused {
            assert_eq!(r.status, 400, "{text}: {}", r.body);
            assert_eq!(r.code(), "secret", "{text}: {}", r.body);
        }
    }
    assert_eq!(texts(&d), ["Banks with Monzo"], "nothing changed");
}

/// A synth fact with a model's time limit, PATCHed by the user, holds for good; a bulk edit's
/// base the store never issued is 400 `bad_input`, not "changed since".
#[test]
fn a_users_edit_drops_the_models_expiry_and_a_future_base_is_bad_input() {
    let env = log_env();
    let mut lisbon = record("aa000001", "Is in Lisbon until Friday", "synth");
    lisbon["valid_until"] = json!("2099-01-01T00:00:00Z");
    write_store_file(&env, "memory.jsonl", &[lisbon]);
    let d = env.daemon(&[]);
    let r = d.request(
        "PATCH",
        "/api/memory/aa000001",
        Some(&json!({"text": "Lives in Lisbon"}).to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let rec = &r.json()["record"];
    assert_eq!(rec["source"], "user");
    assert!(rec["valid_until"].is_null(), "{rec}");
    let stored = d.get("/api/memory").json();
    assert!(stored["records"][0]["valid_until"].is_null(), "{stored}");

    let now = stored["generation"].as_u64().unwrap();
    let r = d.request(
        "PUT",
        "/api/memory",
        Some(&json!({"text": "", "base": now + 100}).to_string()),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.code(), "bad_input");
    assert!(
        r.body.contains("not a generation this store has issued"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("changed since"), "{}", r.body);
    assert_eq!(texts(&d), ["Lives in Lisbon"], "nothing changed");
}

/// Secrets an older version stored are never recalled, so never sent upstream in the block the
/// relay puts into the system prompt (that block is this route's `block`).
#[test]
fn secrets_an_older_version_stored_are_never_recalled() {
    let env = log_env();
    write_store_file(
        &env,
        "memory.jsonl",
        &[
            record("aa000001", "Password hunter2", "user"),
            record(
                "aa000002",
                "My Netflix login is bob@example.com / Hunter2!",
                "user",
            ),
            record(
                "aa000003",
                "My first pet's name was Fluffy, that's my security answer",
                "user",
            ),
            record("aa000004", "My PIN is four eight two one", "user"),
            record("aa000005", "Prefers green tea", "user"),
        ],
    );
    let d = env.daemon(&[]);
    let recall = |q: &str| {
        let r = d.post(
            "/api/memory/recall",
            &json!({"messages": [{"role": "user", "content": q}]}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    };
    assert!(
        recall("what tea should I buy?")["block"]
            .as_str()
            .unwrap()
            .contains("Prefers green tea")
    );
    for q in [
        "what is my password?",
        "what is my Netflix login?",
        "what was my first pet's name?",
        "what is my PIN?",
        "what do you know about me?",
    ] {
        let v = recall(q);
        let block = v["block"].as_str().unwrap();
        for secret in ["hunter2", "Hunter2", "Fluffy", "four eight"] {
            assert!(!block.contains(secret), "{q}: {block}");
        }
    }
}
