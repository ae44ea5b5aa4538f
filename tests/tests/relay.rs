//! The relay (`--chat-upstream`) as a lossless proxy, against `tests/clients/tools_upstream.py`,
//! a recording OpenAI-compatible upstream (a test double: it answers by a fixed rule and keeps
//! every body it receives, so these tests see exactly what localm forwarded). The official
//! `openai` client runs a tool round-trip through localm; a whole reply slower than 30 s
//! arrives; a stream waiting on the upstream gets keep-alive comments; `/v1/models` lists the
//! upstream's models; a browser's CORS preflight is answered only when `cors_origins` allows it.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use localm_tests::Env;
use localm_tests::daemon::{Daemon, Response, tcp_request};
use localm_tests::fixtures::log_env;
use serde_json::{Value, json};

/// The recording upstream, killed on drop.
struct Upstream {
    child: Child,
    base: String,
    record: PathBuf,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Upstream {
    fn start(python: &Path, dir: &Path) -> Upstream {
        let record = dir.join("upstream-record.jsonl");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/tools_upstream.py");
        let mut child = Command::new(python)
            .arg(script)
            .arg(&record)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().strip_prefix("port ").unwrap().to_string();
        Upstream {
            child,
            base: format!("http://127.0.0.1:{port}/v1"),
            record,
        }
    }

    /// Every body localm sent, in order.
    fn received(&self) -> Vec<Value> {
        fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// A memory-enabled log-mode data dir holding one fact; lexical recall (no models needed).
fn env_with_fact(fact: &str) -> Env {
    let env = log_env();
    env.run(&["memory", "add", fact]).ok();
    env
}

fn token(env: &Env) -> String {
    fs::read_to_string(env.data_dir().join("api-token"))
        .unwrap()
        .trim()
        .to_string()
}

/// A value in one canonical text form (serde_json's: keys sorted, compact), for byte-equality.
fn canon(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn the_openai_client_runs_a_tool_round_trip_through_the_relay_losslessly() {
    let Some(python) = localm_tests::test_python() else {
        return;
    };
    let env = env_with_fact("My home town is Leith, by the sea");
    let up = Upstream::start(&python, env.data_dir());
    let d = env.spawn_daemon(
        &[],
        &["--listen", "127.0.0.1:0", "--chat-upstream", &up.base],
    );
    d.wait_ready();
    // No local model: /v1/models lists the upstream's, each with its `+nomemory` twin.
    let models = d.get("/v1/models");
    assert_eq!(models.status, 200, "{}", models.body);
    let ids: Vec<String> = models.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        ["upstream-model", "upstream-model+nomemory"],
        "{}",
        models.body
    );

    let sent_file = env.data_dir().join("client-sent.jsonl");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/openai_tools.py");
    let out = Command::new(&python)
        .arg(script)
        .env("LOCALM_BASE_URL", format!("http://{}/v1", env.tcp_addr()))
        .env("LOCALM_TOKEN", token(&env))
        .env("LOCALM_SENT", &sent_file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        d.log()
    );
    assert!(stdout.contains("ok: model upstream-model"), "{stdout}");
    assert!(
        stdout.contains("ok: tool call get_weather({'city': 'Leith'}) (count=1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("ok: final answer 'It is 12 degrees in Leith.'"),
        "{stdout}"
    );

    let sent: Vec<Value> = fs::read_to_string(&sent_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got = up.received();
    assert_eq!((sent.len(), got.len()), (2, 2), "{got:?}");
    for (s, g) in sent.iter().zip(&got) {
        // Tools, and every message but the system one, reach the upstream as the client sent them.
        assert_eq!(canon(&g["tools"]), canon(&s["tools"]));
        let (sm, gm) = (
            s["messages"].as_array().unwrap(),
            g["messages"].as_array().unwrap(),
        );
        assert_eq!(sm.len(), gm.len());
        for (a, b) in sm.iter().zip(gm).skip(1) {
            assert_eq!(canon(b), canon(a));
        }
        // Recall ran on the user's message, also when the last message is the tool's.
        let system = gm[0]["content"].as_str().unwrap();
        let client_system = sm[0]["content"].as_str().unwrap();
        assert!(
            system.starts_with(&format!("{client_system}\n\n")),
            "{system}"
        );
        assert!(system.contains("My home town is Leith"), "{system}");
        assert_eq!(g["stream"], true, "localm streams from the upstream");
    }
    // The second request carried the upstream's tool call and the tool's answer.
    let m = got[1]["messages"].as_array().unwrap();
    assert_eq!(m[2]["tool_calls"][0]["id"], "call_w1");
    assert_eq!(
        m[2]["tool_calls"][0]["function"]["arguments"],
        "{\"city\": \"Leith\"}"
    );
    assert_eq!(m[3]["role"], "tool");
    assert_eq!(m[3]["tool_call_id"], "call_w1");
    // The user's words are logged once; the final answer too.
    let logged = env.session_lines("tools");
    let users: Vec<&Value> = logged.iter().filter(|l| l["role"] == "user").collect();
    assert_eq!(users.len(), 1, "{logged:?}");
    assert_eq!(
        users[0]["content"],
        "What is the weather like in my home town?"
    );
    assert_eq!(
        logged.last().unwrap()["content"],
        "It is 12 degrees in Leith.",
        "{logged:?}"
    );

    // The `+nomemory` twin: the upstream gets its own id, no recall runs, nothing is logged.
    let sessions = || {
        fs::read_dir(env.data_dir().join("sessions"))
            .unwrap()
            .count()
    };
    let before = sessions();
    let r = d.post(
        "/v1/chat/completions",
        &json!({"model": "upstream-model+nomemory",
                "messages": [{"role": "user", "content": "Where is my home town?"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let last = up.received().pop().unwrap();
    assert_eq!(last["model"], "upstream-model");
    assert_eq!(last["messages"].as_array().unwrap().len(), 1, "{last}");
    assert_eq!(sessions(), before);
}

#[test]
fn a_whole_reply_slower_than_30s_arrives_and_a_waiting_stream_is_kept_alive() {
    let Some(python) = localm_tests::test_python() else {
        return;
    };
    let env = env_with_fact("My home town is Leith");
    let up = Upstream::start(&python, env.data_dir());
    let d = env.spawn_daemon(
        &[("LOCALM_CHAT_KEEPALIVE", "1")],
        &["--chat-upstream", &up.base],
    );
    d.wait_ready();
    // The upstream sends nothing for 33 s (past the old 30 s limit with room to spare) (the test double's `wait N:` rule).
    let r = d.post(
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "wait 33: hi"}]}),
    );
    assert_eq!(r.status, 200, "{}\n{}", r.body, d.log());
    assert_eq!(
        r.json()["choices"][0]["message"]["content"],
        "hello from upstream"
    );
    assert_eq!(r.json()["object"], "chat.completion");
    // Streamed, the wait is filled with SSE comments before the first chunk.
    let r = d.post(
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "wait 3: hi"}], "stream": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let first_data = r.body.find("data:").unwrap();
    assert!(r.body[..first_data].contains(": keep-alive"), "{}", r.body);
    assert!(r.body.contains("hello "), "{}", r.body);
    assert!(r.body.trim_end().ends_with("data: [DONE]"), "{}", r.body);
    // An upstream that breaks off mid-stream: the client is told, at warn, and nothing is logged.
    let before = fs::read_dir(env.data_dir().join("sessions"))
        .unwrap()
        .count();
    let r = d.post(
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "break off, please"}], "stream": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("hello "), "{}", r.body);
    assert!(r.body.contains("\"upstream_failed\""), "{}", r.body);
    assert!(!r.body.contains("data: [DONE]"), "{}", r.body);
    d.wait_for_log("broke off the reply", 10);
    assert_eq!(
        fs::read_dir(env.data_dir().join("sessions"))
            .unwrap()
            .count(),
        before
    );
    // An upstream that is down: a clear 502.
    drop(up);
    let r = d.post(
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "hi"}]}),
    );
    assert_eq!(r.status, 502, "{}", r.body);
    assert_eq!(r.json()["error"]["code"], "upstream_unreachable");
}

fn preflight(addr: &str, origin: &str) -> Response {
    tcp_request(
        addr,
        "OPTIONS",
        "/v1/chat/completions",
        None,
        &[
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "authorization,content-type",
            ),
        ],
    )
}

#[test]
fn a_browser_preflight_is_answered_only_for_the_origins_cors_origins_names() {
    let env = env_with_fact("My home town is Leith");
    let app = "http://app.example:3000";
    let run = |d: &mut Daemon| -> (Response, Response, Response) {
        d.wait_ready();
        let addr = env.tcp_addr();
        let allowed = preflight(&addr, app);
        let other = preflight(&addr, "http://evil.example");
        let post = tcp_request(
            &addr,
            "POST",
            "/v1/chat/completions",
            Some(r#"{"messages":[{"role":"user","content":"/remember I like tea"}]}"#),
            &[
                ("Origin", app),
                ("Authorization", &format!("Bearer {}", token(&env))),
            ],
        );
        d.stop();
        (allowed, other, post)
    };
    // Off (the default): no preflight is answered, no CORS header anywhere.
    let mut d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    let (allowed, other, post) = run(&mut d);
    for r in [&allowed, &other, &post] {
        assert!(r.header("access-control-allow-origin").is_none(), "{r:?}");
    }
    assert_eq!(allowed.status, 401, "{allowed:?}");
    assert_eq!(post.status, 403, "{post:?}");

    env.run(&["settings", "set", "cors_origins", app]).ok();
    let mut d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    let (allowed, other, post) = run(&mut d);
    assert_eq!(allowed.status, 204, "{allowed:?}");
    assert_eq!(allowed.header("access-control-allow-origin"), Some(app));
    let methods = allowed.header("access-control-allow-methods").unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let headers = allowed
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{headers}"
    );
    assert!(
        allowed
            .header("vary")
            .unwrap()
            .to_ascii_lowercase()
            .contains("origin")
    );
    assert_eq!(other.status, 401, "{other:?}");
    assert!(
        other.header("access-control-allow-origin").is_none(),
        "{other:?}"
    );
    // The request itself, with the token, is served and readable by the page.
    assert_eq!(post.status, 200, "{post:?}");
    assert_eq!(post.header("access-control-allow-origin"), Some(app));
    let exposed = post
        .header("access-control-expose-headers")
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("x-localm-memory"), "{exposed}");
}
