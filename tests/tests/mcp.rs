//! `localm mcp` driven by the official MCP Python SDK (`tests/clients/mcp_client.py`, over
//! stdio): initialize, tools/list under each flag, tools/call of every tool and every refusal,
//! checked against the store on disk.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use localm_tests::fixtures::{record, with_evidence, write_store_file};
use localm_tests::{Env, bin, embed_model, test_python};
use serde_json::{Value, json};

/// One MCP session: `localm mcp ARGS` on `env`'s data dir, with `mode` as LOCALM_MODE (none:
/// settings.json decides), running `steps` after initialize and tools/list. Returns what the
/// client saw; `None` when no Python client is set up (the test is skipped).
fn session(env: &Env, args: &[&str], mode: Option<&str>, steps: Value) -> Option<Value> {
    test_python()?;
    let mut server_args = vec!["mcp", "--data-dir", env.data_dir().to_str().unwrap()];
    server_args.extend_from_slice(args);
    let mut server_env = BTreeMap::new();
    if let Some(m) = mode {
        server_env.insert("LOCALM_MODE", m);
    }
    let plan = json!({
        "command": bin(),
        "args": server_args,
        "env": server_env,
        "steps": steps,
    });
    Some(client(&plan))
}

/// The official Python MCP client (`tests/clients/mcp_client.py`) playing `plan`: what it saw.
fn client(plan: &Value) -> Value {
    let python = test_python().expect("a Python client is set up");
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/mcp_client.py");
    let mut child = Command::new(python)
        .arg(client)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python MCP client");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(plan.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the MCP client failed: {:?}\nstdout:\n{stdout}\nstderr (client and server):\n{stderr}",
        out.status
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"call": tool, "arguments": arguments})
}

/// A command run between two calls, on the same data dir.
fn run(env: &Env, args: &[&str]) -> Value {
    let mut argv = vec![
        bin().to_str().unwrap().to_string(),
        "--data-dir".into(),
        env.data_dir().to_str().unwrap().into(),
    ];
    argv.extend(args.iter().map(|a| a.to_string()));
    json!({ "run": argv })
}

fn tool_names(session: &Value) -> Vec<&str> {
    session["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

/// Every file under the store folder with its bytes: to show a refusal changed nothing.
fn store_files(env: &Env) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let dir = env.store_dir();
    if let Ok(entries) = fs::read_dir(&dir) {
        for e in entries {
            let path = e.unwrap().path();
            files.insert(path.clone(), fs::read(&path).unwrap());
        }
    }
    files
}

/// A tool result that succeeded; its structured content, which the text content repeats.
fn ok(step: &Value) -> &Value {
    assert_eq!(step["is_error"], false, "expected success: {step:#}");
    let from_text: Value = serde_json::from_str(step["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        from_text, step["structured"],
        "text content carries the same JSON"
    );
    &step["structured"]
}

/// A tool error (isError: true); its one-sentence message.
fn refused(step: &Value) -> &str {
    assert_eq!(step["is_error"], true, "expected a tool error: {step:#}");
    step["text"].as_str().unwrap()
}

fn add(env: &Env, fact: &str) -> String {
    env.log(&["memory", "add", fact]).ok();
    let records = env.records();
    let r = records.iter().find(|r| r["text"] == fact).unwrap();
    r["id"].as_str().unwrap().to_string()
}

#[test]
fn initialize_and_tools_follow_the_flags() {
    let env = Env::new();
    let Some(default) = session(&env, &[], None, json!([])) else {
        return;
    };
    let init = &default["initialize"];
    assert_eq!(init["server"]["name"], "localm");
    assert_eq!(init["tools_capability"], true);
    assert!(
        init["instructions"]
            .as_str()
            .unwrap()
            .contains("memory_recall")
    );
    assert_eq!(tool_names(&default), ["memory_recall"]);
    let recall = &default["tools"][0];
    assert!(
        recall["description"]
            .as_str()
            .unwrap()
            .contains("Refused while localm is in privacy mode")
    );
    assert_eq!(recall["input_schema"]["required"], json!(["query"]));
    assert_eq!(recall["annotations"]["readOnlyHint"], true);
    assert!(recall["output_schema"]["properties"]["items"].is_object());

    let write = session(&env, &["--memory-write"], None, json!([])).unwrap();
    assert_eq!(tool_names(&write), ["memory_append", "memory_recall"]);
    let append = &write["tools"][0];
    assert_eq!(append["input_schema"]["required"], json!(["text"]));
    let props = &append["input_schema"]["properties"];
    assert_eq!(props["kind"]["enum"], json!(["semantic", "episodic"]));
    assert_eq!(props["importance"]["minimum"], 0.0);
    assert_eq!(props["importance"]["maximum"], 1.0);

    // --no-memory hides recall; a hidden tool cannot be called either.
    let hidden = session(
        &env,
        &["--no-memory"],
        Some("log"),
        json!([call("memory_recall", json!({"query": "anything"}))]),
    )
    .unwrap();
    assert!(tool_names(&hidden).is_empty());
    assert!(hidden["steps"][0]["protocol_error"].is_string());
    let both = session(&env, &["--no-memory", "--memory-write"], None, json!([])).unwrap();
    assert_eq!(tool_names(&both), ["memory_append"]);
    // Without --memory-write, memory_append is not there to call.
    let read_only = session(
        &env,
        &[],
        Some("log"),
        json!([call("memory_append", json!({"text": "Uses Vim"}))]),
    )
    .unwrap();
    assert!(read_only["steps"][0]["protocol_error"].is_string());
    assert!(env.records().is_empty());
}

#[test]
fn recall_returns_the_seeded_fact_with_its_id_and_the_degrade_reason() {
    let env = Env::new();
    let id = add(&env, "I work on printer firmware at Nordlys Instruments");
    add(&env, "I prefer green tea");
    add(&env, "I am vegetarian");
    // A fact a pass distilled, with the user's words it came from.
    let mut records = env.records();
    records.push(with_evidence(
        record("b15c0001", "User adopted a beagle named Biscuit", "synth"),
        &[("chat-2026-11-02", 3, "I adopted a beagle named Biscuit")],
    ));
    write_store_file(&env, "memory.jsonl", &records);
    let before = store_files(&env);
    let Some(s) = session(
        &env,
        &[],
        Some("log"),
        json!([
            call(
                "memory_recall",
                json!({"query": "How is the firmware release going?"})
            ),
            call(
                "memory_recall",
                json!({"query": "How tall is Mount Everest?"})
            ),
            call(
                "memory_recall",
                json!({"query": "Is my beagle Biscuit due a walk?"})
            ),
            call(
                "memory_recall",
                json!({"query": "What should I cook for dinner tonight?"})
            ),
        ]),
    ) else {
        return;
    };
    let hit = ok(&s["steps"][0]);
    assert_eq!(
        hit["items"],
        json!([{
            "id": id,
            "text": "I work on printer firmware at Nordlys Instruments",
            "kind": "semantic",
            "score": hit["items"][0]["score"],
            "said": hit["items"][0]["said"],
        }])
    );
    assert_eq!(hit["degrade"], "no_embedder");
    // Typed a moment ago: said today (the test and the daemon read the same clock).
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert_eq!(hit["items"][0]["said"], today.as_str());
    let block = hit["block"].as_str().unwrap();
    assert!(
        block.contains(&format!(
            "```memory\n- {today}: I work on printer firmware at Nordlys Instruments\n```"
        )),
        "{block}"
    );
    // The same block `localm memory recall` prints for the same message.
    let cli: Value = serde_json::from_str(
        &env.log(&[
            "memory",
            "recall",
            "How is the firmware release going?",
            "--json",
        ])
        .ok(),
    )
    .unwrap();
    assert_eq!(hit["block"], cli["block"]);

    let miss = ok(&s["steps"][1]);
    assert_eq!(miss["items"], json!([]));
    assert_eq!(miss["block"], "");
    // A distilled fact comes with the user's own words (a fact without any has no key, above).
    let dog = ok(&s["steps"][2]);
    assert_eq!(dog["items"][0]["id"], "b15c0001", "{dog:#}");
    assert_eq!(
        dog["items"][0]["evidence"],
        json!(["I adopted a beagle named Biscuit"])
    );
    assert!(dog["items"][0].get("constraint").is_none(), "{dog:#}");
    // Advice on cooking, with no word in common: the diet comes back, saying why.
    let dinner = ok(&s["steps"][3]);
    assert_eq!(dinner["items"][0]["text"], "I am vegetarian", "{dinner:#}");
    assert_eq!(dinner["items"][0]["constraint"], "diet", "{dinner:#}");
    // Recall reads only: nothing is reinforced.
    assert_eq!(store_files(&env), before);
}

#[test]
fn append_saves_a_synth_fact_to_the_store() {
    let env = Env::new();
    let users = add(&env, "Prefers green tea");
    let Some(s) = session(
        &env,
        &["--memory-write"],
        Some("log"),
        json!([
            call(
                "memory_append",
                json!({"text": "  Prefers tabs\nover spaces\u{200B} ", "importance": 0.95})
            ),
            call("memory_append", json!({"text": "prefers TABS over spaces"})),
            call(
                "memory_append",
                json!({"text": "Debugged a flaky upload test", "kind": "episodic"})
            ),
            call("memory_append", json!({"text": "prefers green TEA"})),
            call("memory_recall", json!({"query": "tabs or spaces?"})),
        ]),
    ) else {
        return;
    };
    let saved = ok(&s["steps"][0]);
    let id = saved["id"].as_str().unwrap();
    assert_eq!(saved["text"], "Prefers tabs over spaces");
    assert_eq!(saved["kind"], "semantic");
    assert_eq!(saved["source"], "synth");
    assert_eq!(saved["importance"], 0.85);
    assert_eq!(saved["existing"], false);

    let again = ok(&s["steps"][1]);
    assert_eq!(
        (again["id"].as_str(), &again["existing"]),
        (Some(id), &json!(true))
    );
    assert_eq!(ok(&s["steps"][2])["kind"], "episodic");
    // The user's own fact stays theirs.
    let mine = ok(&s["steps"][3]);
    assert_eq!(mine["id"], users.as_str());
    assert_eq!(
        (&mine["source"], &mine["existing"]),
        (&json!("user"), &json!(true))
    );
    assert_eq!(ok(&s["steps"][4])["items"][0]["id"], id);

    let jsonl = fs::read_to_string(env.store_dir().join("memory.jsonl")).unwrap();
    let line: Value = jsonl
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["id"] == id)
        .expect("the appended fact is in memory.jsonl");
    assert_eq!(line["text"], "Prefers tabs over spaces");
    assert_eq!(line["source"], "synth");
    assert_eq!(line["provenance"]["via"], "mcp");
    assert_eq!(env.records().len(), 3);
}

#[test]
fn privacy_mode_refuses_both_tools_and_changes_nothing() {
    let env = Env::new();
    add(&env, "I work on printer firmware");
    // Even with read-only recall in privacy opted into for chat, the MCP tools are refused.
    env.run(&["settings", "set", "memory_recall_in_privacy", "on"])
        .ok();
    env.run(&["settings", "set", "memory_recall_in_privacy_chat", "on"])
        .ok();
    let before = store_files(&env);
    let steps = json!([
        call("memory_recall", json!({"query": "firmware"})),
        call("memory_append", json!({"text": "Uses Vim"})),
        call("memory_append", json!({"text": ""})),
    ]);
    // Privacy by default (settings.json), and by LOCALM_MODE over a log-mode settings file.
    let Some(by_default) = session(&env, &["--memory-write"], None, steps.clone()) else {
        return;
    };
    env.run(&["settings", "set", "mode", "log"]).ok();
    let by_env = session(&env, &["--memory-write"], Some("privacy"), steps.clone()).unwrap();
    let by_flag = session(
        &env,
        &["--memory-write", "--mode", "privacy"],
        Some("log"),
        steps,
    )
    .unwrap();
    for s in [&by_default, &by_env, &by_flag] {
        for step in s["steps"].as_array().unwrap() {
            let why = refused(step);
            assert!(
                why.contains("is refused: localm is in privacy mode"),
                "{why}"
            );
            assert_eq!(why.matches(". ").count(), 0, "one sentence: {why}");
        }
        assert!(
            s["steps"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("memory_recall")
        );
        assert!(
            s["steps"][1]["text"]
                .as_str()
                .unwrap()
                .starts_with("memory_append")
        );
    }
    assert_eq!(
        store_files(&env),
        before,
        "the store is byte for byte the same"
    );
}

#[test]
fn the_mode_is_read_at_every_call() {
    let env = Env::new();
    add(&env, "I work on printer firmware");
    env.run(&["settings", "set", "mode", "log"]).ok();
    let Some(s) = session(
        &env,
        &["--memory-write"],
        None,
        json!([
            call("memory_recall", json!({"query": "firmware"})),
            run(&env, &["settings", "set", "mode", "privacy"]),
            call("memory_recall", json!({"query": "firmware"})),
            call("memory_append", json!({"text": "Uses Vim"})),
            run(&env, &["settings", "set", "mode", "full"]),
            call("memory_append", json!({"text": "Uses Vim"})),
        ]),
    ) else {
        return;
    };
    assert_eq!(ok(&s["steps"][0])["items"].as_array().unwrap().len(), 1);
    assert_eq!(s["steps"][1]["exit"], 0);
    assert!(refused(&s["steps"][2]).contains("privacy mode"));
    assert!(refused(&s["steps"][3]).contains("privacy mode"));
    assert_eq!(ok(&s["steps"][5])["text"], "Uses Vim");
    assert_eq!(env.records().len(), 2);
}

#[test]
fn bad_arguments_are_tool_errors_and_save_nothing() {
    let env = Env::new();
    let Some(s) = session(
        &env,
        &["--memory-write"],
        Some("log"),
        json!([
            call("memory_append", json!({"text": "   "})),
            call("memory_append", json!({"text": "\u{200B}\u{2066}"})),
            call("memory_append", json!({"text": "x".repeat(501)})),
            call(
                "memory_append",
                json!({"text": "Uses Vim", "importance": 1.5})
            ),
            call(
                "memory_append",
                json!({"text": "Uses Vim", "importance": -0.1})
            ),
            call(
                "memory_append",
                json!({"text": "Uses Vim", "kind": "opinion"})
            ),
            call("memory_recall", json!({"query": "  "})),
            call(
                "memory_append",
                json!({"text": "My mother's maiden name is Smith"})
            ),
            call(
                "memory_append",
                json!({"text": "mi contraseña del correo es Girasol2024"})
            ),
            call("memory_append", json!({"text": "我的银行卡密码是384756"})),
            call(
                "memory_append",
                json!({"text": "Мой пароль от почты: solnce2024"})
            ),
        ]),
    ) else {
        return;
    };
    let why: Vec<&str> = s["steps"].as_array().unwrap().iter().map(refused).collect();
    // A secret in other words is refused as `memory add` refuses it.
    assert!(
        why[7].contains("a security answer") && why[7].contains("\"force\": true"),
        "{}",
        why[7]
    );
    // In any script, read language or not (issue #50).
    for w in &why[8..11] {
        assert!(
            w.contains("a password") && w.contains("\"force\": true"),
            "{w}"
        );
    }
    assert!(why[0].contains("the fact is empty"), "{}", why[0]);
    assert!(why[1].contains("the fact is empty"), "{}", why[1]);
    assert!(why[2].contains("the limit is 500"), "{}", why[2]);
    assert!(
        why[3].contains("importance must be a number from 0 to 1"),
        "{}",
        why[3]
    );
    assert!(
        why[4].contains("importance must be a number from 0 to 1"),
        "{}",
        why[4]
    );
    assert!(why[5].contains("kind must be"), "{}", why[5]);
    assert!(why[6].contains("needs a query"), "{}", why[6]);
    assert!(!env.store_dir().join("memory.jsonl").exists());
}

#[test]
fn memory_enabled_off_recalls_nothing_and_says_why() {
    let env = Env::new();
    add(&env, "I work on printer firmware");
    env.run(&["settings", "set", "memory_enabled", "off"]).ok();
    let Some(s) = session(
        &env,
        &[],
        Some("log"),
        json!([call("memory_recall", json!({"query": "firmware"}))]),
    ) else {
        return;
    };
    let off = ok(&s["steps"][0]);
    assert_eq!(off["items"], json!([]));
    assert_eq!(off["block"], "");
    assert_eq!(off["skipped"], "memory_enabled is off");
}

#[test]
fn semantic_recall_across_one_session_reports_no_degrade() {
    let Some(model) = embed_model() else {
        return;
    };
    let env = Env::new();
    let id = add(&env, "I am vegetarian");
    add(&env, "I live in Trondheim, Norway");
    env.log(&["setup-embeddings", "--from", model.to_str().unwrap()])
        .ok();
    // "Do I eat meat?" shares no word with the fact; MiniLM puts it at cosine ~0.68.
    let Some(s) = session(
        &env,
        &[],
        Some("log"),
        json!([
            call("memory_recall", json!({"query": "Do I eat meat?"})),
            call("memory_recall", json!({"query": "Do I eat meat?"})),
        ]),
    ) else {
        return;
    };
    for step in s["steps"].as_array().unwrap() {
        let v = ok(step);
        assert_eq!(v["degrade"], Value::Null);
        assert_eq!(v["items"][0]["id"], id.as_str());
    }
}

/// `localm mcp --http 127.0.0.1:0 ARGS` on `env`'s data dir in log mode, its URL read from the
/// line it prints once it listens; killed when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
    port: u16,
}

impl HttpServer {
    fn start(env: &Env, args: &[&str]) -> HttpServer {
        HttpServer::start_with(env, args, &[], None)
    }

    /// With these `LOCALM_*` variables, and the soft open-file limit lowered to `nofile`.
    fn start_with(
        env: &Env,
        args: &[&str],
        vars: &[(&str, &str)],
        nofile: Option<u64>,
    ) -> HttpServer {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut cmd = env.cmd(&["mcp", "--http", "127.0.0.1:0"]);
        cmd.args(args)
            .env("LOCALM_MODE", "log")
            .envs(vars.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(soft) = nofile {
            // SAFETY: getrlimit/setrlimit are async-signal-safe; they change only the child.
            unsafe {
                cmd.pre_exec(move || {
                    let mut lim = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    lim.rlim_cur = soft.min(lim.rlim_max);
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().expect("start localm mcp --http");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                eprintln!("[localm mcp] {line}");
                if let Some(url) = line.split("listening on ").nth(1) {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("localm mcp --http says where it listens");
        let port = url
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap();
        HttpServer { child, url, port }
    }

    /// One raw HTTP/1.1 POST to `/mcp` with these extra header lines; its status code.
    fn status(&self, headers: &str) -> u16 {
        let answer = self.post(headers, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        answer
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP answer: {answer:?}"))
    }

    /// The headers that pass the guard: the Host, the token.
    fn token_headers(&self, env: &Env) -> String {
        format!(
            "Host: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n",
            self.port,
            api_token(env)
        )
    }

    /// One raw HTTP/1.1 POST of `body` to `/mcp` with these extra header lines; the whole
    /// answer (a minute at most: a server that never answers fails the test).
    fn post(&self, headers: &str, body: &str) -> String {
        use std::io::Read;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        write!(
            s,
            "POST /mcp HTTP/1.1\r\n{headers}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer)
            .expect("an answer within a minute");
        answer
    }

    /// A raw connection that has sent `bytes`, reading with a minute's timeout.
    fn open(&self, bytes: &[u8]) -> std::net::TcpStream {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .unwrap();
        s.write_all(bytes).unwrap();
        s
    }
}

/// What the server sends on `s` until it closes it (an error if it is still open after the
/// read timeout).
fn until_closed(s: &mut std::net::TcpStream) -> std::io::Result<String> {
    use std::io::Read;
    let mut got = Vec::new();
    s.read_to_end(&mut got)?;
    Ok(String::from_utf8_lossy(&got).into_owned())
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One session over Streamable HTTP from the official client, sending `headers`.
fn http_session(server: &HttpServer, headers: Value, steps: Value) -> Option<Value> {
    test_python()?;
    let plan = json!({"url": server.url, "headers": headers, "steps": steps});
    Some(client(&plan))
}

fn api_token(env: &Env) -> String {
    fs::read_to_string(env.data_dir().join("api-token"))
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn over_streamable_http_the_same_tools_answer_the_token() {
    let env = Env::new();
    let id = add(&env, "I work on printer firmware at Nordlys Instruments");
    let server = HttpServer::start(&env, &["--memory-write"]);
    let bearer = format!("Bearer {}", api_token(&env));
    let Some(s) = http_session(
        &server,
        json!({"Authorization": bearer}),
        json!([
            call(
                "memory_recall",
                json!({"query": "How is the firmware release going?"})
            ),
            call("memory_append", json!({"text": "Uses Neovim"})),
        ]),
    ) else {
        return;
    };
    assert_eq!(s["initialize"]["server"]["name"], "localm", "{s:#}");
    assert_eq!(tool_names(&s), ["memory_append", "memory_recall"]);
    let recalled = ok(&s["steps"][0]);
    assert_eq!(recalled["items"][0]["id"], id.as_str());
    let appended = ok(&s["steps"][1]);
    assert_eq!(appended["source"], "synth");
    let records = env.records();
    assert!(records.iter().any(|r| r["text"] == "Uses Neovim"));
}

#[test]
fn over_streamable_http_no_token_wrong_token_or_host_is_refused() {
    let env = Env::new();
    add(&env, "I work on printer firmware");
    let server = HttpServer::start(&env, &["--memory-write"]);
    let token = api_token(&env);
    let before = store_files(&env);
    let host = format!("Host: 127.0.0.1:{}\r\n", server.port);
    // The listener's checks, from outside: the token, then the Host it is addressed to.
    assert_eq!(server.status(&host), 401);
    assert_eq!(
        server.status(&format!("{host}Authorization: Bearer not-{token}\r\n")),
        401
    );
    assert_eq!(
        server.status(&format!(
            "Host: evil.example:{}\r\nAuthorization: Bearer {token}\r\n",
            server.port
        )),
        421
    );
    assert_eq!(
        server.status(&format!(
            "{host}Authorization: Bearer {token}\r\nOrigin: http://evil.example\r\n"
        )),
        403
    );
    // The official client without the token gets no session, and writes nothing.
    let Some(s) = http_session(
        &server,
        json!({}),
        json!([call("memory_append", json!({"text": "Uses Neovim"}))]),
    ) else {
        return;
    };
    assert!(s["refused"].is_string(), "{s:#}");
    assert!(s.get("tools").is_none(), "{s:#}");
    assert_eq!(store_files(&env), before);
}

#[test]
fn a_wrong_argument_type_is_invalid_params_not_a_tool_error() {
    let env = Env::new();
    add(&env, "I work on printer firmware");
    let before = store_files(&env);
    let Some(s) = session(
        &env,
        &["--memory-write"],
        Some("log"),
        json!([
            call("memory_recall", json!({"query": 42})),
            call("memory_append", json!({"text": ["Uses Neovim"]})),
            call(
                "memory_append",
                json!({"text": "Uses Neovim", "importance": "high"})
            ),
        ]),
    ) else {
        return;
    };
    for step in s["steps"].as_array().unwrap() {
        assert_eq!(step["code"], -32602, "{step:#}");
        assert!(step.get("is_error").is_none(), "{step:#}");
    }
    assert_eq!(store_files(&env), before);
}

#[test]
fn over_streamable_http_a_body_that_is_not_json_is_a_parse_error() {
    let env = Env::new();
    let server = HttpServer::start(&env, &[]);
    let answer = server.post(&server.token_headers(&env), "{not json");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 400"), "{answer}");
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");
    // JSON that is no JSON-RPC message is an invalid request.
    let answer = server.post(&server.token_headers(&env), r#"{"hello": 1}"#);
    assert!(answer.contains(r#""code":-32600"#), "{answer}");
}

#[test]
fn over_streamable_http_idle_and_half_sent_heads_are_closed_by_the_header_deadline() {
    let env = Env::new();
    let server = HttpServer::start_with(&env, &[], &[("LOCALM_HEADER_READ_TIMEOUT", "1")], None);
    let mut idle = server.open(b"");
    let mut half = server
        .open(format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n", server.port).as_bytes());
    for s in [&mut idle, &mut half] {
        let got = until_closed(s).expect("closed by the header deadline, not left open");
        assert!(got.is_empty() || got.starts_with("HTTP/1.1 408"), "{got}");
    }
}

#[test]
fn over_streamable_http_a_token_holders_stalled_body_gets_408() {
    let env = Env::new();
    let server = HttpServer::start_with(&env, &[], &[("LOCALM_BODY_READ_TIMEOUT", "1")], None);
    let head = format!(
        "POST /mcp HTTP/1.1\r\n{}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        server.token_headers(&env)
    );
    let mut s = server.open(head.as_bytes());
    let got = until_closed(&mut s).expect("answered within the body deadline");
    assert!(got.starts_with("HTTP/1.1 408"), "{got}");
    assert!(got.contains("did not arrive within 1 s"), "{got}");
}

#[test]
fn over_streamable_http_300_idle_connections_under_a_256_file_limit_leave_room_for_the_token_holder()
 {
    let env = Env::new();
    // Idle connections are never closed by the header deadline here: only the cap makes room.
    let server = HttpServer::start_with(
        &env,
        &[],
        &[("LOCALM_HEADER_READ_TIMEOUT", "3600")],
        Some(256),
    );
    let idle: Vec<std::net::TcpStream> = (0..300).map(|_| server.open(b"")).collect();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let answer = server.post(&server.token_headers(&env), init);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains(r#""serverInfo":{"name":"localm""#),
        "{answer}"
    );
    drop(idle);
}

#[test]
fn over_streamable_http_a_session_idle_past_the_limit_is_closed() {
    let env = Env::new();
    let server = HttpServer::start_with(&env, &[], &[("LOCALM_MCP_SESSION_IDLE", "1")], None);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let answer = server.post(&server.token_headers(&env), init);
    let id = answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("mcp-session-id:")
                .then(|| l.split_once(':').unwrap().1.trim().to_string())
        })
        .unwrap_or_else(|| panic!("initialize names a session: {answer}"));
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let with_session = format!("{}Mcp-Session-Id: {id}\r\n", server.token_headers(&env));
    let open = server.post(&with_session, list);
    assert!(!open.starts_with("HTTP/1.1 404"), "{open}");
    // Idle for well past the limit (swept every second).
    std::thread::sleep(std::time::Duration::from_secs(4));
    let closed = server.post(&with_session, list);
    assert!(closed.starts_with("HTTP/1.1 404"), "{closed}");
}
