//! The chat endpoint with the real SmolLM2-135M-Instruct model, driven over the socket as a
//! client would: recall joins the turn and `X-Localm-Memory` says so; the turn is logged and a
//! pass grows memory from it, which the next turn recalls; privacy mode changes no file; the
//! plugin switched off; origin and coder turns; `/remember`; a worker killed mid-reply; errors in
//! OpenAI's shape. `the_official_openai_client_*` drives it with the `openai` Python package.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use localm_tests::daemon::{Daemon, try_request};
use localm_tests::{Env, model_env};
use serde_json::{Value, json};

fn chat(d: &Daemon, body: &Value) -> localm_tests::daemon::Response {
    d.post("/v1/chat/completions", body)
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn reply_text(r: &localm_tests::daemon::Response) -> String {
    r.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Every file under `dir` with its bytes, but the daemon's own log, socket and token.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let name = p.strip_prefix(dir).unwrap().display().to_string();
            if name.starts_with("daemon-") || name == "s.sock" {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(name, fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The question whose reply shows the model saw the recalled fact. The block names today, so
/// SmolLM2's greedy reply changes with the date: "what is my dog called?" left the name out on
/// 2026-12-08 and 2026-12-23; this wording names it on each of 40 days tried between 2026-12-01
/// and 2027-06-15 (libfaketime).
const WHAT_IS_MY_DOGS_NAME: &str = "What is my dog's name?";

#[test]
fn a_chat_turn_is_logged_a_pass_distils_it_and_the_next_turn_recalls_it() {
    let Some(env) = model_env("log") else { return };
    let d = env.daemon(&[("LOCALM_MEMORY_AUTO_INTERVAL", "5")]);
    for line in [
        "My name is Dana and I work as a firmware engineer.",
        "I use Rust and I prefer vim for editing.",
    ] {
        let r = chat(
            &d,
            &json!({"messages": [user(line)], "session": "s1", "max_tokens": 24}),
        );
        assert_eq!(r.status, 200, "{}\n{}", r.body, d.log());
        // An empty store recalls nothing (and says so).
        assert!(
            r.header("x-localm-memory")
                .unwrap()
                .starts_with("count=0; items=")
        );
        assert!(!reply_text(&r).is_empty(), "{}", r.body);
        assert_eq!(r.json()["object"], "chat.completion");
        assert!(r.json()["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    }
    let logged = env.session_lines("s1");
    assert_eq!(logged.len(), 4, "{logged:?}");
    assert_eq!(logged[0]["role"], "user");
    assert_eq!(logged[1]["role"], "assistant");
    assert!(logged[0]["ts"].is_string());

    // The session log makes the automatic pass fire; it distils synth facts.
    let synth = d.wait_for(240, "a synth fact from the chat", || {
        let records = d.get("/api/memory").json()["records"].clone();
        let ids: Vec<String> = records
            .as_array()?
            .iter()
            .filter(|r| r["source"] == "synth" && r["kind"] == "semantic")
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        (!ids.is_empty()).then_some(ids)
    });
    // The next turn recalls what the pass grew, in the header and the model's prompt.
    let r = chat(
        &d,
        &json!({"messages": [user("Remind me: what is my name, my job, and which editor and language do I use?")],
                "max_tokens": 16}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let header = r.header("x-localm-memory").unwrap().to_string();
    assert!(
        synth.iter().any(|id| header.contains(id.as_str())),
        "{header} should name one of {synth:?}\n{}",
        d.log()
    );
    assert!(r.json()["usage"]["prompt_tokens"].as_u64().unwrap() > 40);
}

#[test]
fn privacy_mode_chat_changes_no_file_and_remember_is_refused() {
    let Some(env) = model_env("privacy") else {
        return;
    };
    env.run(&[
        "memory",
        "add",
        "--mode",
        "log",
        "My dog is a beagle named Biscuit",
    ])
    .ok();
    let d = env.daemon(&[]);
    let before = files(env.data_dir());
    let r = chat(
        &d,
        &json!({"messages": [user("what is my dog called?")], "max_tokens": 8}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Privacy mode recalls nothing (recall in privacy is off by default).
    assert!(r.header("x-localm-memory").unwrap().starts_with("count=0"));
    let r = chat(
        &d,
        &json!({"messages": [user("/remember I live in Leith")]}),
    );
    assert_eq!(r.status, 200);
    assert!(
        reply_text(&r).starts_with("Not remembered: privacy mode"),
        "{}",
        r.body
    );
    // A clean stop is the event: the daemon drains its turn loggers and flushes queued
    // reinforcement before it exits, so whatever it would write is written by then.
    let mut d = d;
    assert!(d.stop().success(), "{}", d.log());
    let mut after = files(env.data_dir());
    let mut before = before;
    for own in ["daemon.json", "daemon.lock"] {
        // The daemon's own runtime files: removed or released on exit.
        before.remove(own);
        after.remove(own);
    }
    assert_eq!(after, before, "{}", d.log());
}

#[test]
fn recall_joins_the_turn_and_origin_and_coder_turns_get_none() {
    let Some(env) = model_env("log") else { return };
    env.run(&["memory", "add", "My dog is a beagle named Biscuit"])
        .ok();
    let d = env.daemon(&[]);
    let r = chat(
        &d,
        &json!({"messages": [{"role": "system", "content": "Answer briefly."}, user(WHAT_IS_MY_DOGS_NAME)],
                "max_tokens": 16}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let header = r.header("x-localm-memory").unwrap();
    assert!(header.starts_with("count=1; items="), "{header}");
    assert!(
        reply_text(&r).contains("Biscuit"),
        "the model saw the block: {}",
        r.body
    );

    // A summarise prompt marked origin "client" and the coder agent's request recall nothing.
    let r = chat(
        &d,
        &json!({"messages": [user("what is my dog called?"),
                              {"role": "user", "content": "Summarise this chat about my dog", "origin": "client"}],
                "max_tokens": 4, "session": "o1"}),
    );
    assert_eq!(r.header("x-localm-memory"), Some("count=0; items="));
    let r = chat(
        &d,
        &json!({"messages": [user("what is my dog called?")], "agent": "coder", "max_tokens": 4, "session": "c1"}),
    );
    assert_eq!(r.header("x-localm-memory"), Some("count=0; items="));
    // Both are logged with their marks, so a pass does not take them for the user's words.
    assert_eq!(env.session_lines("o1")[0]["origin"], "client");
    assert_eq!(env.session_lines("c1")[0]["agent"], "coder");
}

#[test]
fn with_the_plugin_off_chat_works_without_recall_or_growth() {
    let Some(env) = model_env("log") else { return };
    env.run(&["memory", "add", "My dog is a beagle named Biscuit"])
        .ok();
    env.run(&["plugin", "disable", "memory"]).ok();
    let d = env.daemon(&[]);
    let r = chat(
        &d,
        &json!({"messages": [user("what is my dog called?")], "max_tokens": 8}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("x-localm-memory"), Some("count=0; items="));
    let r = chat(
        &d,
        &json!({"messages": [user("/remember I live in Leith")], "max_tokens": 4}),
    );
    assert_eq!(r.status, 200);
    assert!(!reply_text(&r).starts_with("Remembered"), "{}", r.body);
    let logs = fs::read_dir(env.data_dir().join("sessions"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(logs, 0, "no session log is written with the plugin off");
    assert_eq!(env.records().len(), 1);
}

#[test]
fn remember_saves_a_user_fact_without_the_model() {
    // No model installed: /remember still works, because it never calls one.
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", "log"]).ok();
    let d = env.daemon(&[]);
    let r = chat(
        &d,
        &json!({"messages": [user("/remember I prefer tea over coffee")]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(reply_text(&r), "Remembered: I prefer tea over coffee");
    let records = env.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["source"], "user");
    let r = chat(&d, &json!({"messages": [user("/remember")]}));
    assert!(
        reply_text(&r).starts_with("Nothing to remember"),
        "{}",
        r.body
    );
    // A secret, in any phrasing `memory add` refuses, is refused here too.
    let r = chat(
        &d,
        &json!({"messages": [user("/remember My PIN is four eight two one")]}),
    );
    let said = reply_text(&r);
    assert!(
        said.starts_with("Not remembered: the text holds a PIN"),
        "{said}"
    );
    assert_eq!(env.records().len(), 1);
    // Streaming clients get the confirmation as one event.
    let r = chat(
        &d,
        &json!({"messages": [user("/remember I prefer tea over coffee")], "stream": true}),
    );
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.body.contains("Already remembered"), "{}", r.body);
    assert!(r.body.trim_end().ends_with("data: [DONE]"), "{}", r.body);
    // Without a model, a real turn is a clear 503 in OpenAI's error shape.
    let r = chat(&d, &json!({"messages": [user("hello")]}));
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "no_model");
    assert_eq!(r.json()["error"]["type"], "server_error");
    assert!(r.header("retry-after").is_some());
}

#[test]
fn bad_requests_get_openai_errors() {
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    let d = env.daemon(&[]);
    for (body, want) in [
        ("{", "invalid_request"),
        (r#"{"messages": []}"#, "invalid_request"),
        (
            r#"{"messages": [{"role": "assistant", "content": "x"}]}"#,
            "invalid_request",
        ),
        (
            r#"{"messages": [{"role": "user", "content": "x"}], "session": "../x"}"#,
            "invalid_session",
        ),
    ] {
        let r = d.request("POST", "/v1/chat/completions", Some(body));
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(e["code"], want, "{body}: {}", r.body);
        assert_eq!(e["type"], "invalid_request_error");
        assert!(!e["message"].as_str().unwrap().contains('\n'));
    }
    let r = d.get("/v1/models");
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["object"], "list");
}

/// The chat worker's pid: the daemon's child running `chat-worker`.
fn worker_pid(daemon_pid: i32) -> Option<i32> {
    for e in fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit(')')
            .next()
            .and_then(|s| s.split_whitespace().nth(1))
            .and_then(|s| s.parse::<i32>().ok());
        if ppid == Some(daemon_pid) && String::from_utf8_lossy(&cmdline).contains("chat-worker") {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_worker_killed_mid_reply_fails_that_request_and_the_daemon_carries_on() {
    let Some(env) = model_env("log") else { return };
    let d = env.daemon(&[]);
    // Load the worker, then start a long reply and kill the worker under it.
    assert_eq!(
        chat(&d, &json!({"messages": [user("hi")], "max_tokens": 2})).status,
        200
    );
    let pid = worker_pid(d.pid()).expect("a chat worker");
    let socket = d.socket.clone();
    let call = std::thread::spawn(move || {
        let body = json!({"messages": [user("Write a very long story about the sea.")],
                          "max_tokens": 2000, "temperature": 0.8, "seed": 7});
        try_request(
            &socket,
            "POST",
            "/v1/chat/completions",
            Some(&body.to_string()),
            &[],
        )
        .unwrap()
    });
    // Kill it once the reply is under way: the daemon logs the turn's first text.
    d.wait_for(60, "the long reply to start", || {
        (d.log()
            .matches(&format!("chat worker {pid}: replying"))
            .count()
            >= 2)
            .then_some(())
    });
    // SAFETY: kill(2) on a pid this test found as the daemon's child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let r = call.join().unwrap();
    assert_eq!(r.status, 502, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "worker_crashed");
    // The next turn starts a new worker.
    let r = chat(&d, &json!({"messages": [user("hi")], "max_tokens": 2}));
    assert_eq!(r.status, 200, "{}\n{}", r.body, d.log());
    assert_ne!(worker_pid(d.pid()), Some(pid));
    assert_eq!(d.get("/api/health").status, 200);
}

/// The official `openai` Python package against the loopback listener, streaming and not.
#[test]
fn the_official_openai_client_chats_with_and_without_streaming() {
    let Some(env) = model_env("log") else { return };
    let Some(python) = localm_tests::test_python() else {
        return;
    };
    env.run(&["memory", "add", "My dog is a beagle named Biscuit"])
        .ok();
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    let info: Value =
        serde_json::from_slice(&fs::read(env.data_dir().join("daemon.json")).unwrap()).unwrap();
    let addr = info["tcp"].as_str().unwrap().to_string();
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/openai_chat.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .env("LOCALM_BASE_URL", format!("http://{addr}/v1"))
        .env("LOCALM_TOKEN", token.trim())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        d.log()
    );
    assert!(stdout.contains("ok: non-streaming"), "{stdout}");
    assert!(stdout.contains("ok: streaming"), "{stdout}");
    // Both turns were logged.
    assert_eq!(env.session_lines("py").len(), 4);
}

/// `--chat-upstream`: a second `localm daemon` is the upstream, over real HTTP with its token;
/// the first has no model of its own, adds memory in front and logs the turn.
#[test]
fn an_upstream_server_generates_and_localm_adds_memory_in_front() {
    let Some(upstream_env) = model_env("privacy") else {
        return;
    };
    upstream_env.run(&["plugin", "disable", "memory"]).ok();
    let upstream = upstream_env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    upstream.wait_ready();
    let info: Value =
        serde_json::from_slice(&fs::read(upstream_env.data_dir().join("daemon.json")).unwrap())
            .unwrap();
    let base = format!("http://{}/v1", info["tcp"].as_str().unwrap());
    let token = fs::read_to_string(upstream_env.data_dir().join("api-token")).unwrap();

    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", "log"]).ok();
    env.run(&["memory", "add", "My dog is a beagle named Biscuit"])
        .ok();
    let d = env.spawn_daemon(
        &[("LOCALM_CHAT_UPSTREAM_KEY", token.trim())],
        &["--chat-upstream", &base],
    );
    d.wait_ready();
    let r = chat(
        &d,
        &json!({"messages": [{"role": "system", "content": "Answer briefly."}, user(WHAT_IS_MY_DOGS_NAME)],
                "max_tokens": 16, "session": "up"}),
    );
    assert_eq!(r.status, 200, "{}\n{}", r.body, d.log());
    assert!(
        r.header("x-localm-memory")
            .unwrap()
            .starts_with("count=1; items=")
    );
    assert!(
        reply_text(&r).contains("Biscuit"),
        "the upstream saw the block: {}",
        r.body
    );
    let r = chat(
        &d,
        &json!({"messages": [user("Tell me about my dog.")], "max_tokens": 8, "stream": true, "session": "up"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.header("x-localm-memory").unwrap().starts_with("count=1"));
    assert!(r.body.contains("\"delta\""), "{}", r.body);
    assert!(r.body.trim_end().ends_with("data: [DONE]"), "{}", r.body);
    let logged = env.session_lines("up");
    assert_eq!(logged.len(), 4, "{logged:?}\n{}", d.log());
    assert!(logged[1]["content"].as_str().unwrap().contains("Biscuit"));
    assert!(!logged[3]["content"].as_str().unwrap().is_empty());
    // An upstream that does not answer: a clear 502.
    drop(upstream);
    let r = chat(&d, &json!({"messages": [user("hi")]}));
    assert_eq!(r.status, 502, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "upstream_unreachable");
}
