//! The relay (`--chat-upstream`) as a lossless proxy, against `tests/clients/tools_upstream.py`,
//! a recording OpenAI-compatible upstream (a test double: it answers by a fixed rule and keeps
//! every body it receives, so these tests see exactly what localm forwarded). The official
//! `openai` client runs a tool round-trip through localm; a whole reply slower than 30 s
//! arrives; a stream waiting on the upstream gets keep-alive comments; `/v1/models` lists the
//! upstream's models; a browser's CORS preflight is answered only when `cors_origins` allows it;
//! requests an upstream stalls on hold nothing the memory API or other chats need.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use localm_tests::Env;
use localm_tests::daemon::{Daemon, Response, exchange, tcp_request};
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

/// An upstream that stalls (a Rust test double on a thread): `GET /models` and chat requests
/// naming "stall" get their head, then nothing, the connection held until localm closes it;
/// other chat requests get a short streamed reply. It counts the stalled connections still open.
struct Stalling {
    base: String,
    held: Arc<AtomicUsize>,
}

impl Stalling {
    fn start() -> Stalling {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let held = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&held);
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let held = Arc::clone(&counter);
                std::thread::spawn(move || Stalling::answer(conn, &held));
            }
        });
        Stalling { base, held }
    }

    fn answer(mut conn: TcpStream, held: &AtomicUsize) {
        let mut reader = BufReader::new(conn.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let body = String::from_utf8_lossy(&body);
        let stall = head.starts_with("GET") || body.contains("stall");
        if body.contains("whole json") {
            let whole = json!({"id": "c1", "object": "chat.completion", "choices": [{"index": 0,
                "message": {"role": "assistant", "content": "whole"}, "finish_reason": "stop"}]});
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{whole}"
            );
            let _ = conn.write_all(reply.as_bytes());
            return;
        }
        if body.contains("huge error") {
            let _ = conn.write_all(
                b"HTTP/1.1 500 Oops\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n",
            );
            let line = format!("{}\n", "x".repeat(1023));
            for _ in 0..1024 {
                if conn.write_all(line.as_bytes()).is_err() {
                    return;
                }
            }
            return;
        }
        if !stall {
            let chunk = json!({"choices": [{"index": 0, "delta": {"content": "healthy"}, "finish_reason": "stop"}]});
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: {chunk}\n\ndata: [DONE]\n\n"
            );
            let _ = conn.write_all(reply.as_bytes());
            return;
        }
        let stalled_head = if head.starts_with("GET") {
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"data\":["
        } else {
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        };
        conn.write_all(stalled_head.as_bytes()).unwrap();
        held.fetch_add(1, Ordering::SeqCst);
        // Nothing more, until localm closes the connection.
        let mut sink = [0; 64];
        while matches!(conn.read(&mut sink), Ok(n) if n > 0) {}
        held.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A request written on a fresh socket connection and left waiting for its answer.
fn waiting(d: &Daemon, method: &str, path: &str, body: Option<&Value>) -> UnixStream {
    let mut s = UnixStream::connect(&d.socket).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    s
}

/// One request answered before `deadline`, or the test fails; how long it took.
fn answered_before(
    d: &Daemon,
    deadline: Duration,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (Response, Duration) {
    let started = Instant::now();
    let mut s = UnixStream::connect(&d.socket).unwrap();
    s.set_read_timeout(Some(deadline)).unwrap();
    let body = body.map(Value::to_string);
    let r = exchange(&mut s, method, path, body.as_deref(), &[]).unwrap_or_else(|e| {
        panic!(
            "{method} {path} not answered within {deadline:?}: {e}\n{}",
            d.log()
        )
    });
    (r, started.elapsed())
}

#[test]
fn eight_stalled_upstream_requests_leave_the_memory_api_and_a_healthy_reply_answering() {
    let env = env_with_fact("My home town is Leith");
    let up = Stalling::start();
    let d = env.spawn_daemon(
        &[("LOCALM_CHAT_KEEPALIVE", "1")],
        &["--chat-upstream", &up.base],
    );
    d.wait_ready();
    // Eight requests the upstream stalls on (before, each held one of the runtime's eight
    // blocking threads until the upstream closed): streamed and whole chats, model lists.
    let stall = |stream: bool| json!({"messages": [{"role": "user", "content": "stall, please"}], "stream": stream});
    let mut clients: Vec<UnixStream> = Vec::new();
    for i in 0..8 {
        clients.push(match i % 4 {
            0 => waiting(&d, "POST", "/v1/chat/completions", Some(&stall(true))),
            1 => waiting(&d, "POST", "/v1/chat/completions", Some(&stall(false))),
            _ => waiting(&d, "GET", "/v1/models", None),
        });
    }
    d.wait_for(30, "eight stalled upstream requests", || {
        (up.held.load(Ordering::SeqCst) == 8).then_some(())
    });
    // The memory API, an append and a chat to the (otherwise healthy) upstream still answer.
    let deadline = Duration::from_secs(8);
    let (r, memory) = answered_before(&d, deadline, "GET", "/api/memory", None);
    assert_eq!(r.status, 200, "{}", r.body);
    let fact = json!({"text": "My cat is called Tom"});
    let (r, append) = answered_before(&d, deadline, "POST", "/api/memory/append", Some(&fact));
    assert_eq!(r.status, 201, "{}", r.body);
    let hi = json!({"messages": [{"role": "user", "content": "hi"}]});
    let (r, chat) = answered_before(&d, deadline, "POST", "/v1/chat/completions", Some(&hi));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["choices"][0]["message"]["content"],
        "healthy",
        "{}",
        r.body
    );
    eprintln!(
        "beside 8 stalled upstream requests: GET /api/memory {memory:?}, POST {append:?}, chat {chat:?}"
    );
    // The clients leave: every stalled upstream read ends with them.
    drop(clients);
    d.wait_for(30, "the stalled upstream connections closed", || {
        (up.held.load(Ordering::SeqCst) == 0).then_some(())
    });
}

#[test]
fn a_whole_upstream_answer_is_streamed_as_a_chunk_and_an_error_body_is_capped() {
    let env = env_with_fact("My home town is Leith");
    let up = Stalling::start();
    let d = env.spawn_daemon(&[], &["--chat-upstream", &up.base]);
    d.wait_ready();
    // A streamed request the upstream answers with one JSON completion: the client gets SSE.
    let r = d.post(
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "whole json"}], "stream": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let events: Vec<&str> = r.body.lines().filter(|l| l.starts_with("data: ")).collect();
    assert_eq!(events.len(), 2, "{}", r.body);
    let chunk: Value = serde_json::from_str(&events[0]["data: ".len()..]).unwrap();
    assert_eq!(chunk["object"], "chat.completion.chunk", "{}", r.body);
    assert_eq!(
        chunk["choices"][0]["delta"]["content"], "whole",
        "{}",
        r.body
    );
    assert_eq!(events[1], "data: [DONE]");
    // An error answer of 1 MiB: its status passed on, its body cut to 64 KiB.
    for stream in [false, true] {
        let r = d.post(
            "/v1/chat/completions",
            &json!({"messages": [{"role": "user", "content": "huge error"}], "stream": stream}),
        );
        assert_eq!(r.status, 500, "{}", &r.body[..200.min(r.body.len())]);
        assert!(r.body.len() <= 64 << 10, "{} bytes", r.body.len());
        assert!(
            r.body.starts_with("xxx"),
            "{}",
            &r.body[..200.min(r.body.len())]
        );
    }
}
