//! localm behind the chat apps people use, with the real SmolLM2-135M-Instruct model: an app's
//! background prompts (Open WebUI's title/tags/follow-ups, LibreChat's title) and the
//! `+nomemory` model leave sessions/ unchanged; each conversation gets its own session log
//! (from the app's chat id, else derived from the conversation); a 20-turn chat fits a small
//! `chat_context` and an oversized message gets 400 `context_length_exceeded`; a listener on a
//! non-loopback address (in a network namespace the test makes) serves only the token and the
//! allowed Host names; the local model follows `response_format` (json_object, json_schema).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use localm_tests::daemon::{Daemon, Response, try_request};
use localm_tests::{Env, model_env};
use serde_json::{Value, json};

fn chat(d: &Daemon, body: &Value, headers: &[(&str, &str)]) -> Response {
    try_request(
        &d.socket,
        "POST",
        "/v1/chat/completions",
        Some(&body.to_string()),
        headers,
    )
    .unwrap_or_else(|e| panic!("chat: {e}\n{}", d.log()))
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

/// Every file in sessions/ with its bytes.
fn sessions(env: &Env) -> BTreeMap<String, Vec<u8>> {
    let dir = env.data_dir().join("sessions");
    fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        fs::read(e.path()).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn lines(dir: &Path, name: &str) -> Vec<Value> {
    fs::read_to_string(dir.join(name))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Open WebUI 0.12's title prompt (DEFAULT_TITLE_GENERATION_PROMPT_TEMPLATE), rendered.
fn open_webui_title(history: &str) -> String {
    format!(
        "### Task:\nGenerate a concise title summarizing the chat history.\n### Guidelines:\n\
         - The title should clearly represent the main theme or subject of the conversation.\n\
         - Keep it short: 2-4 words is best.\n### Output:\nJSON format: {{ \"title\": \"your concise title here\" }}\n\
         ### Chat History:\n<chat_history>\n{history}\n</chat_history>"
    )
}

#[test]
fn background_requests_leave_sessions_unchanged() {
    let Some(env) = model_env("log") else { return };
    env.run(&["memory", "add", "My dog is a beagle named Biscuit"])
        .ok();
    let d = env.daemon(&[]);
    let models = d.get("/v1/models").json();
    let ids: Vec<String> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_eq!(ids[1], format!("{}+nomemory", ids[0]));

    // The user's first turn is logged (the baseline).
    let r = chat(
        &d,
        &json!({"model": ids[0], "messages": [user("I just adopted a dog called Biscuit")], "max_tokens": 8}),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let before = sessions(&env);
    assert_eq!(before.len(), 1, "{:?}", before.keys());
    let recalls = |env: &Env| -> Vec<Value> {
        env.records()
            .iter()
            .map(|r| r["recall_count"].clone())
            .collect()
    };
    // The baseline turn's own reinforcement lands in a batch, later: wait for it first.
    if !r.header("x-localm-memory").unwrap().starts_with("count=0") {
        d.wait_for(10, "the baseline turn's reinforcement", || {
            recalls(&env)
                .iter()
                .any(|c| c.as_u64().is_some_and(|n| n > 0))
                .then_some(())
        });
    }
    let counts = recalls(&env);
    assert!(
        !counts.is_empty() && counts.iter().all(Value::is_number),
        "{counts:?}"
    );

    let history = "USER: I just adopted a dog called Biscuit\nASSISTANT: Congratulations!";
    let tags = format!(
        "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.\n\n\
         ### Output:\nJSON format: {{ \"tags\": [\"tag1\", \"tag2\", \"tag3\"] }}\n\n### Chat History:\n<chat_history>\n{history}\n</chat_history>"
    );
    let librechat = "Provide a concise, 5-word-or-less title for the conversation, using title case conventions. \
                     Only return the title itself.\n\nConversation:\nUser: I just adopted a dog called Biscuit\nAI: Congratulations!";
    for (model, text, stream) in [
        (ids[0].as_str(), open_webui_title(history), false),
        (ids[0].as_str(), tags, true),
        (ids[0].as_str(), librechat.to_string(), false),
        // The task model picked as `+nomemory`: whatever it is asked.
        (ids[1].as_str(), "What is my dog called?".to_string(), false),
        (ids[1].as_str(), "What is my dog called?".to_string(), true),
    ] {
        let r = chat(
            &d,
            &json!({"model": model, "messages": [user(text.as_str())], "max_tokens": 8, "stream": stream}),
            &[],
        );
        assert_eq!(r.status, 200, "{}\n{}", r.body, d.log());
        assert!(
            r.header("x-localm-memory").unwrap().starts_with("count=0"),
            "no recall for a background request: {:?}",
            r.header("x-localm-memory")
        );
    }
    // A clean stop drains the turn loggers and flushes reinforcement: every write has landed.
    let mut d = d;
    d.stop();
    assert_eq!(sessions(&env), before, "{}", d.log());
    // And no record was reinforced by them.
    assert_eq!(recalls(&env), counts);
}

#[test]
fn each_conversation_gets_its_own_session_log() {
    let Some(env) = model_env("log") else { return };
    let d = env.daemon(&[]);
    let dir = env.data_dir().join("sessions");
    // Two conversations, two turns each, no session named: one log each.
    for first in ["I live in Leith.", "I play the cello."] {
        let mut messages = vec![
            json!({"role": "system", "content": "You are a helpful assistant."}),
            user(first),
        ];
        let r = chat(&d, &json!({"messages": messages, "max_tokens": 8}), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
        let reply = r.json()["choices"][0]["message"]["content"].clone();
        messages.push(json!({"role": "assistant", "content": reply}));
        messages.push(user("Tell me more."));
        // The app's system prompt changes between requests (a date, tools): same conversation.
        messages[0] =
            json!({"role": "system", "content": "You are a helpful assistant. Today is Tuesday."});
        let r = chat(&d, &json!({"messages": messages, "max_tokens": 8}), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let names: Vec<String> = sessions(&env).into_keys().collect();
    assert_eq!(names.len(), 2, "{names:?}");
    for name in &names {
        assert!(name.starts_with("conv-"), "{name}");
        let l = lines(&dir, name);
        assert_eq!(l.len(), 4, "{name}: {l:?}");
    }
    // Two chats that open with the same words are told apart by their first reply.
    for (reply, next) in [("Hello!", "I like tea."), ("Hey there.", "I like coffee.")] {
        let messages = [
            user("Hi there."),
            json!({"role": "assistant", "content": reply}),
            user(next),
        ];
        let r = chat(&d, &json!({"messages": messages, "max_tokens": 8}), &[]);
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(sessions(&env).len(), 4, "{:?}", sessions(&env).keys());
    // Open WebUI's chat id names the log when it is forwarded.
    let id = "0b8e8c4e-4a57-4c1c-9a49-2b1f6f3d9e10";
    let r = chat(
        &d,
        &json!({"messages": [user("I live in Leith.")], "max_tokens": 8}),
        &[("X-OpenWebUI-Chat-Id", id)],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(lines(&dir, &format!("app-{id}.jsonl")).len(), 2);
    // X-Localm-Session still wins.
    let r = chat(
        &d,
        &json!({"messages": [user("I live in Leith.")], "max_tokens": 8}),
        &[("X-OpenWebUI-Chat-Id", id), ("X-Localm-Session", "mine")],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(lines(&dir, "mine.jsonl").len(), 2);
    assert_eq!(sessions(&env).len(), 6);
}

#[test]
fn a_long_chat_fits_a_small_context_and_an_oversized_message_is_refused() {
    let Some(env) = model_env("log") else { return };
    env.run(&["settings", "set", "chat_context", "512"]).ok();
    let d = env.daemon(&[]);
    let mut messages = vec![json!({"role": "system", "content": "You are a helpful assistant."})];
    // Each turn adds the last reply and a new message: a prompt that grew by less than the last
    // reply's tokens lost older turns.
    let mut dropped = false;
    let (mut last_prompt, mut last_completion) = (0, 0);
    let mut prompts = Vec::new();
    for i in 1..=20 {
        messages.push(user(&format!(
            "Turn {i}: tell me one interesting fact about the number {i}, in a sentence or two."
        )));
        let r = chat(
            &d,
            &json!({"messages": messages, "max_tokens": 48, "session": "long"}),
            &[],
        );
        assert_eq!(r.status, 200, "turn {i}: {}\n{}", r.body, d.log());
        let v = r.json();
        let prompt = v["usage"]["prompt_tokens"].as_u64().unwrap();
        let completion = v["usage"]["completion_tokens"].as_u64().unwrap();
        assert!(
            prompt + completion <= 512,
            "turn {i}: {prompt} + {completion}"
        );
        dropped |= prompt < last_prompt + last_completion;
        prompts.push((prompt, completion));
        (last_prompt, last_completion) = (prompt, completion);
        let reply = v["choices"][0]["message"]["content"].clone();
        messages.push(json!({"role": "assistant", "content": reply}));
    }
    // The conversation outgrew the context, so oldest turns were dropped along the way.
    assert!(
        dropped,
        "no turn was dropped (prompt, completion tokens by turn): {prompts:?}"
    );
    let chars: usize = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or("").len())
        .sum();
    assert!(
        chars > 4 * 512,
        "{chars} characters is not past the context"
    );
    assert_eq!(
        lines(&env.data_dir().join("sessions"), "long.jsonl").len(),
        40
    );

    let huge = "word ".repeat(700);
    for stream in [false, true] {
        let r = chat(
            &d,
            &json!({"messages": [user(&huge)], "max_tokens": 16, "stream": stream}),
            &[],
        );
        assert_eq!(r.status, 400, "stream {stream}: {}", r.body);
        assert_eq!(r.code(), "context_length_exceeded", "{}", r.body);
        assert_eq!(r.json()["error"]["type"], "invalid_request_error");
    }
    let log = d.log();
    assert!(
        log.lines()
            .any(|l| l.contains("WARN") && l.contains("context_length_exceeded")),
        "{log}"
    );
}

/// Run `f` on a thread of its own in a new network namespace with 10.77.0.1/24 on its own `lo`
/// (not a loopback address: no kernel module needed) (what the daemon it starts inherits). `None` when namespaces are unavailable
/// (not root): then the caller skips, unless `LOCALM_REQUIRE_MODELS` is set (CI runs as root),
/// where it fails.
fn in_network_namespace<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    std::thread::spawn(move || {
        // SAFETY: unshare(2) with CLONE_NEWNET moves only this thread into a new namespace.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            let why = std::io::Error::last_os_error();
            if std::env::var_os("LOCALM_REQUIRE_MODELS").is_some() {
                panic!("cannot make a network namespace ({why}); LOCALM_REQUIRE_MODELS is set");
            }
            eprintln!("skipped: cannot make a network namespace ({why})");
            return None;
        }
        for args in [
            &["link", "set", "lo", "up"][..],
            &["addr", "add", "10.77.0.1/24", "dev", "lo"],
        ] {
            let ok = std::process::Command::new("ip")
                .args(args)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "ip {args:?} failed in the test's namespace");
        }
        Some(f())
    })
    .join()
    .unwrap()
}

#[test]
fn a_non_loopback_listener_serves_only_the_token_and_allowed_hosts() {
    let env = Env::new();
    env.run(&["settings", "set", "listen", "10.77.0.1:0"]).ok();
    env.run(&["settings", "set", "allowed_hosts", "host.docker.internal"])
        .ok();
    let Some(results) = in_network_namespace(move || {
        let dir = env.data_dir().to_path_buf();
        let d = env.daemon(&[]);
        let info: Value =
            serde_json::from_slice(&fs::read(dir.join("daemon.json")).unwrap()).unwrap();
        let addr = info["tcp"].as_str().unwrap().to_string();
        assert!(addr.starts_with("10.77.0.1:"), "{addr}");
        let port = addr.rsplit(':').next().unwrap().to_string();
        let token = fs::read_to_string(dir.join("api-token")).unwrap();
        let bearer = format!("Bearer {}", token.trim());
        let docker = format!("host.docker.internal:{port}");
        let call = |path: &str, host: &str, auth: bool| {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            let mut h = vec![("Host", host)];
            if auth {
                h.push(("Authorization", bearer.as_str()));
            }
            localm_tests::daemon::exchange(&mut s, "GET", path, None, &h).unwrap()
        };
        let out = vec![
            ("token, own address", call("/v1/models", &addr, true).status),
            (
                "token, allowed host",
                call("/v1/models", &docker, true).status,
            ),
            ("no token", call("/v1/models", &docker, false).status),
            ("no token, the page", call("/memory", &docker, false).status),
            (
                "no token, the login",
                call("/login?code=x", &docker, false).status,
            ),
            (
                "token, other host",
                call("/v1/models", &format!("evil.example:{port}"), true).status,
            ),
        ];
        drop(d);
        drop(env);
        out
    }) else {
        return;
    };
    assert_eq!(
        results,
        vec![
            ("token, own address", 200),
            ("token, allowed host", 200),
            ("no token", 401),
            ("no token, the page", 401),
            ("no token, the login", 401),
            ("token, other host", 421),
        ]
    );
}

/// `--listen 0.0.0.0:P` (the Docker recipe): the host's apps name it `127.0.0.1:P`,
/// `[::1]:P` or one of the machine's addresses, and are served with the token (#33); the start
/// line does not suggest `localm open`, which such a listener refuses.
#[test]
fn an_every_address_listener_answers_to_the_machines_addresses() {
    let env = Env::new();
    env.run(&["settings", "set", "listen", "0.0.0.0:0"]).ok();
    let Some(results) = in_network_namespace(move || {
        let dir = env.data_dir().to_path_buf();
        let d = env.daemon(&[]);
        let info: Value =
            serde_json::from_slice(&fs::read(dir.join("daemon.json")).unwrap()).unwrap();
        let bound = info["tcp"].as_str().unwrap().to_string();
        let port = bound.rsplit(':').next().unwrap().to_string();
        let addr = format!("10.77.0.1:{port}");
        let token = fs::read_to_string(dir.join("api-token")).unwrap();
        let bearer = format!("Bearer {}", token.trim());
        let call = |host: &str, auth: bool| {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            let mut h = vec![("Host", host)];
            if auth {
                h.push(("Authorization", bearer.as_str()));
            }
            localm_tests::daemon::exchange(&mut s, "GET", "/v1/models", None, &h)
                .unwrap()
                .status
        };
        let mut out = Vec::new();
        for host in [
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
            addr.clone(),
            format!("localhost:{port}"),
        ] {
            out.push((host.clone(), call(&host, true)));
        }
        out.push(("no token".into(), call(&addr, false)));
        out.push(("other port".into(), call("127.0.0.1:1", true)));
        out.push((
            "other name".into(),
            call(&format!("evil.example:{port}"), true),
        ));
        let log = d.log();
        drop(d);
        drop(env);
        (port, out, log)
    }) else {
        return;
    };
    let (port, out, log) = results;
    assert_eq!(
        out,
        vec![
            (format!("127.0.0.1:{port}"), 200),
            (format!("[::1]:{port}"), 200),
            (format!("10.77.0.1:{port}"), 200),
            (format!("localhost:{port}"), 200),
            ("no token".into(), 401),
            ("other port".into(), 421),
            ("other name".into(), 421),
        ]
    );
    assert!(log.contains("also listening on http://0.0.0.0:"), "{log}");
    assert!(!log.contains("localm open"), "{log}");
}

/// A 200 reply's text and that text read as JSON (the test fails if it is not JSON).
fn json_reply(r: &Response) -> (String, Value) {
    assert_eq!(r.status, 200, "{}", r.body);
    let text = r.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (text, v)
}

#[test]
fn the_local_model_follows_response_format() {
    let Some(env) = model_env("log") else { return };
    let d = env.daemon(&[]);
    let ask = |format: Value| {
        chat(
            &d,
            &json!({
                "messages": [user("Give me a JSON object describing a cat called Tom who is 3.")],
                "max_tokens": 160,
                "response_format": format,
            }),
            &[],
        )
    };
    let r = ask(json!({"type": "json_object"}));
    let (text, v) = json_reply(&r);
    assert!(v.is_object(), "{text}");

    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 24},
            "age": {"type": "integer"},
            "kind": {"enum": ["cat", "dog"]}
        },
        "required": ["name", "age", "kind"]
    });
    let r = ask(json!({"type": "json_schema", "json_schema": {"name": "pet", "schema": schema}}));
    let (text, v) = json_reply(&r);
    assert!(
        v["name"].as_str().is_some_and(|n| n.chars().count() <= 24),
        "{text}"
    );
    assert!(v["age"].is_i64(), "{text}");
    assert!(
        ["cat", "dog"].contains(&v["kind"].as_str().unwrap()),
        "{text}"
    );

    // A schema beyond the supported subset is refused before anything runs, naming the part.
    let before = sessions(&env);
    let r = ask(
        json!({"type": "json_schema", "json_schema": {"name": "p", "schema": {
            "type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}
        }}}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains("`pattern` at #/properties/id"),
        "{}",
        r.body
    );
    // So is one too big to build (a 100k-entry enum held the worker for over a minute), and the
    // chat path is free at once for the next request.
    let many: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let r = ask(
        json!({"type": "json_schema", "json_schema": {"name": "big", "schema": {
            "enum": many
        }}}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("more than 1024"), "{}", r.body);
    assert_eq!(sessions(&env), before);
    let (text, v) = json_reply(&ask(json!({"type": "json_object"})));
    assert!(v.is_object(), "{text}");
}
