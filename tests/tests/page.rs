//! The memory page in a real headless Chromium (`tests/clients/browser_page.py`, Selenium), on
//! real daemons with SmolLM2-135M: the one-time login, the user's words beside a distilled fact,
//! editing and saving (and a clear 413),
//! Synthesize now, suggested corrections, every privacy setting on disk, privacy mode disabling
//! the writes, Try recall; and the listener's guards seen from outside: a wrong `Host`, another
//! origin, a cookie without `Origin`, a replayed cookie without the page key, and no secret in
//! the daemon's log.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use localm_tests::daemon::tcp_request;
use localm_tests::fixtures::{correction, log_env, record, with_evidence, write_store_file};
use localm_tests::{Env, model_env, test_python};
use serde_json::Value;

/// A fresh one-time login URL from `localm open --no-browser`.
fn login_url(env: &Env) -> String {
    let out = env
        .cmd(&["open", "--no-browser"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let run = localm_tests::Run(out);
    let url = run.ok().trim().to_string();
    assert!(
        url.starts_with(&format!("http://{}/login?code=", env.tcp_addr())),
        "{url}"
    );
    url
}

/// A session cookie (`localm_session=…`) and its page key, logged in the way a browser is.
fn log_in(env: &Env, addr: &str) -> (String, String) {
    let url = login_url(env);
    let path = url.split_once(addr).unwrap().1;
    let r = tcp_request(addr, "GET", path, None, &[]);
    assert_eq!(r.status, 303, "{}", r.body);
    let location = r.header("location").unwrap();
    let key = location
        .strip_prefix("/memory#k=")
        .unwrap_or_else(|| panic!("{location}"))
        .to_string();
    assert_eq!(key.len(), 64, "{location}");
    assert!(key.bytes().all(|b| b.is_ascii_hexdigit()), "{location}");
    let cookie = r.header("set-cookie").unwrap();
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attr), "{cookie}");
    }
    let again = tcp_request(addr, "GET", path, None, &[]);
    assert_eq!(again.status, 403, "a login link works once");
    assert!(again.body.contains("localm open"), "{}", again.body);
    let cookie = cookie.split(';').next().unwrap().to_string();
    assert!(!cookie.contains(&key), "the key is not the cookie");
    (cookie, key)
}

fn facts(env: &Env) -> Vec<String> {
    env.records()
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect()
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("test-artifacts").join("page")
}

#[test]
fn the_listener_refuses_other_hosts_other_origins_and_cookies_without_origin() {
    let env = log_env();
    env.run(&["memory", "add", "Owns a red bicycle"]).ok();
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    let addr = env.tcp_addr();
    let port = addr.rsplit_once(':').unwrap().1;
    let token = fs::read_to_string(env.data_dir().join("api-token")).unwrap();
    let bearer = format!("Bearer {}", token.trim());

    // DNS rebinding: another name for this address is refused, even with the token.
    let evil_host = format!("evil.example:{port}");
    for path in ["/api/health", "/memory", "/login?code=x"] {
        let r = tcp_request(&addr, "GET", path, None, &[("Host", &evil_host)]);
        assert_eq!(r.status, 421, "{path}: {}", r.body);
        assert_eq!(r.code(), "wrong_host");
    }
    let r = tcp_request(
        &addr,
        "GET",
        "/api/memory",
        None,
        &[("Host", &evil_host), ("Authorization", &bearer)],
    );
    assert_eq!(r.status, 421);
    let localhost = format!("localhost:{port}");
    let r = tcp_request(&addr, "GET", "/api/health", None, &[("Host", &localhost)]);
    assert_eq!(r.status, 401, "the right host, but no login");

    // The page without a session: how to log in, no data.
    let r = tcp_request(&addr, "GET", "/memory", None, &[]);
    assert_eq!(r.status, 401);
    assert!(r.body.contains("localm open") && !r.body.contains("bicycle"));
    assert_eq!(
        tcp_request(&addr, "GET", "/api/memory", None, &[]).status,
        401
    );

    // Browsers send the cookie to every server on 127.0.0.1, whatever its port: whoever runs one
    // can replay it with this listener's Host and Origin. The cookie alone reads and changes
    // nothing; the API also needs the page key, which only the page's own origin holds.
    let (cookie, key) = log_in(&env, &addr);
    let cookie_h = ("Cookie", cookie.as_str());
    let key_h = ("X-Localm-Key", key.as_str());
    let own = format!("http://{addr}");
    let own_h = ("Origin", own.as_str());
    for extra in [
        None,
        Some(("X-Localm-Key", "0".repeat(64))),
        Some(("X-Localm-Key", String::new())),
    ] {
        let mut h = vec![cookie_h, own_h];
        if let Some((k, v)) = &extra {
            h.push((*k, v.as_str()));
        }
        for path in ["/api/memory", "/api/settings", "/api/memory/corrections"] {
            let r = tcp_request(&addr, "GET", path, None, &h);
            assert_eq!(r.status, 401, "{path} with {extra:?}: {}", r.body);
            assert_eq!(r.code(), "page_key");
            assert!(r.body.contains("localm open"), "{}", r.body);
            assert!(!r.body.contains("bicycle"), "{}", r.body);
        }
        let r = tcp_request(
            &addr,
            "PUT",
            "/api/memory",
            Some(r#"{"text": "Replayed"}"#),
            &h,
        );
        assert_eq!(r.status, 401, "{extra:?}: {}", r.body);
        assert_eq!(r.code(), "page_key");
        let r = tcp_request(
            &addr,
            "POST",
            "/api/memory/append",
            Some(r#"{"text": "Replayed too"}"#),
            &h,
        );
        assert_eq!(r.status, 401, "{extra:?}: {}", r.body);
    }
    assert_eq!(
        facts(&env),
        vec!["Owns a red bicycle"],
        "the replays changed nothing"
    );
    // Another session's key does not open this one.
    let (_, other_key) = log_in(&env, &addr);
    let r = tcp_request(
        &addr,
        "GET",
        "/api/memory",
        None,
        &[cookie_h, ("X-Localm-Key", other_key.as_str())],
    );
    assert_eq!(r.status, 401, "{}", r.body);
    // The cookie and its key: reads work; a change needs this listener's own Origin.
    let r = tcp_request(&addr, "GET", "/api/memory", None, &[cookie_h, key_h]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("Owns a red bicycle"), "{}", r.body);
    // The page itself holds no data and loads on the cookie alone (it then asks for the key).
    let page = tcp_request(&addr, "GET", "/memory", None, &[cookie_h]);
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-security-policy"),
        Some("default-src 'self'; frame-ancestors 'none'")
    );
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    let put = Some(r#"{"text": "Planted"}"#);
    let foreign = tcp_request(
        &addr,
        "PUT",
        "/api/memory",
        put,
        &[cookie_h, key_h, ("Origin", "http://127.0.0.1:1")],
    );
    assert_eq!(foreign.status, 403, "{}", foreign.body);
    assert_eq!(foreign.code(), "cross_origin");
    let bare = tcp_request(&addr, "PUT", "/api/memory", put, &[cookie_h, key_h]);
    assert_eq!(bare.status, 403, "{}", bare.body);
    assert_eq!(bare.code(), "no_origin");
    // Even the token does not pass another page's Origin.
    let r = tcp_request(
        &addr,
        "PUT",
        "/api/memory",
        put,
        &[
            ("Authorization", &bearer),
            ("Origin", "http://evil.example"),
        ],
    );
    assert_eq!(r.status, 403);
    assert_eq!(facts(&env), vec!["Owns a red bicycle"], "nothing changed");
    // The page's own origin with the key, and a program with the token and no Origin, may
    // change memory.
    let r = tcp_request(
        &addr,
        "POST",
        "/api/memory/append",
        Some(r#"{"text": "Rides to work"}"#),
        &[cookie_h, key_h, own_h],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let r = tcp_request(
        &addr,
        "POST",
        "/api/memory/append",
        Some(r#"{"text": "Keeps a spare tube"}"#),
        &[("Authorization", &bearer)],
    );
    assert_eq!(r.status, 201, "{}", r.body);

    // The settings routes take only the page's switches.
    let r = tcp_request(
        &addr,
        "PATCH",
        "/api/settings",
        Some(r#"{"mode": "full"}"#),
        &[("Authorization", &bearer)],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = tcp_request(
        &addr,
        "PATCH",
        "/api/settings",
        Some(r#"{"memory_enabled": "yes"}"#),
        &[("Authorization", &bearer)],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let on_disk: Value =
        serde_json::from_slice(&fs::read(env.data_dir().join("settings.json")).unwrap()).unwrap();
    assert_eq!(on_disk["mode"], "log");

    // On the owner-only socket the page needs no login.
    let page = d.get("/memory");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("/memory/app.js"));

    // The login link is minted only over the socket.
    let r = tcp_request(
        &addr,
        "POST",
        "/api/login-link",
        None,
        &[cookie_h, key_h, own_h],
    );
    assert_eq!(r.status, 404);

    let session = cookie.split_once('=').unwrap().1;
    let log = d.log();
    for secret in [token.trim(), session, key.as_str(), other_key.as_str()] {
        assert!(!log.contains(secret), "a secret in the log:\n{log}");
    }
}

#[test]
fn localm_open_needs_a_daemon_with_a_loopback_listener() {
    let env = Env::new();
    let err = env.run(&["open", "--no-browser"]).fails(1);
    assert!(err.contains("no daemon is running"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let _d = env.daemon(&[]);
    let err = env.run(&["open", "--no-browser"]).fails(1);
    assert!(err.contains("--listen 127.0.0.1:PORT"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// #22, item 1: a Save on the page racing other writers while the tab is open (`localm memory add`
/// and an API append, as a chat's `/remember` makes) loses nothing. The first Save is refused and
/// shows what changed elsewhere, the textarea kept; Merge and Save keep every fact added
/// elsewhere; Reload shows them; the fact the user's edit dropped is archived, not gone; an empty
/// list asks first. Driven in Chromium, no model needed.
#[test]
fn a_page_save_racing_other_writers_loses_nothing() {
    let env = Env::new();
    let Some(python) = test_python() else { return };
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", "log"]).ok();
    env.run(&["memory", "add", "Owns a red bicycle"]).ok();
    env.run(&["memory", "add", "Lives in Porto"]).ok();
    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/browser_page.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg("race")
        .env("LOCALM_BIN", localm_tests::bin())
        .env("LOCALM_DATA_DIR", env.data_dir())
        .env("LOCALM_ARTIFACTS", artifacts())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let describe = || {
        format!(
            "{stdout}\n{}\n--- daemon:\n{}",
            String::from_utf8_lossy(&out.stderr),
            d.log()
        )
    };
    assert!(out.status.success(), "{}", describe());
    assert!(stdout.contains("ok: race\n"), "{}", describe());
    let mut all = facts(&env);
    all.sort();
    assert_eq!(
        all,
        [
            "Commutes by ferry in winter",
            "Drinks oolong",
            "Keeps a spare inner tube",
            "Owns a red bicycle",
            "Rides to work on Tuesdays"
        ]
    );
    let forgotten = env.forgotten();
    let archived: Vec<(&str, &str)> = forgotten
        .iter()
        .map(|a| (a["text"].as_str().unwrap(), a["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        archived,
        [("Lives in Porto", "bulk_edit")],
        "the line the user dropped is archived: {forgotten:?}"
    );
}

/// The scenarios of `browser_page.py`, in the order they run (the privacy one logs in to the
/// second daemon, so it comes last; the pass is the slowest).
const SCENARIOS: [&str; 10] = [
    "login",
    "evidence",
    "recall",
    "save",
    "corrections",
    "settings",
    "other-origin",
    "layout",
    "synth",
    "privacy",
];

/// Every scenario of the page in one Chromium session: two daemons, one in log mode with the
/// real model, one in privacy mode with the plugin not yet installed.
#[test]
fn the_memory_page_in_a_real_browser() {
    let started = Instant::now();
    let Some(env) = model_env("log") else { return };
    let Some(python) = test_python() else { return };
    write_store_file(
        &env,
        "memory.jsonl",
        &[
            record("aaaa0001", "Works at Acme", "user"),
            record("aaaa0002", "Owns a cat named Tom", "import"),
            record("aaaa0003", "My dog is a beagle named Biscuit", "user"),
            record("aaaa0005", "User is vegetarian", "user"),
            with_evidence(
                record("aaaa0004", "User keeps two beehives on the roof", "synth"),
                &[("s0", 3, "I keep <b>two</b> beehives on my roof")],
            ),
        ],
    );
    write_store_file(
        &env,
        "corrections.jsonl",
        &[
            correction(
                "c0000001",
                "aaaa0001",
                "update",
                "Works at Acme",
                Some("Works at Initech"),
            ),
            correction(
                "c0000002",
                "aaaa0002",
                "delete",
                "Owns a cat named Tom",
                None,
            ),
        ],
    );
    env.write_session(
        "s1",
        &[
            "I moved to Porto last spring and I work as a nurse now.",
            "My sister Ana is visiting me next week from Madrid.",
            "I am allergic to peanuts, so keep recipes peanut-free.",
        ],
    );
    let privacy = Env::new();
    privacy.run(&["settings", "set", "mode", "privacy"]).ok();
    privacy.log(&["memory", "add", "Lives in Lisbon"]).ok();

    let d = env.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    let p = privacy.spawn_daemon(&[], &["--listen", "127.0.0.1:0"]);
    d.wait_ready();
    p.wait_ready();
    let shots = artifacts();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/browser_page.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .args(SCENARIOS)
        .env("LOCALM_BIN", localm_tests::bin())
        .env("LOCALM_DATA_DIR", env.data_dir())
        .env("LOCALM_PRIVACY_DATA_DIR", privacy.data_dir())
        .env("LOCALM_ARTIFACTS", &shots)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let describe = || {
        format!(
            "{stdout}\n{}\n--- log daemon:\n{}\n--- privacy daemon:\n{}",
            String::from_utf8_lossy(&out.stderr),
            d.log(),
            p.log()
        )
    };
    assert!(out.status.success(), "{}", describe());
    for name in SCENARIOS {
        assert!(stdout.contains(&format!("ok: {name}\n")), "{}", describe());
    }
    println!("screenshots: {}", shots.display());

    // What the clicks did, on disk.
    let records = env.records();
    let text_of = |id: &str| {
        records
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["text"].as_str().unwrap().to_string())
    };
    assert_eq!(text_of("aaaa0001").as_deref(), Some("Works at Initech"));
    assert_eq!(text_of("aaaa0002").as_deref(), Some("Owns a cat named Tom"));
    let dog = records.iter().find(|r| r["id"] == "aaaa0003").unwrap();
    assert!(
        dog["last_recalled_at"].is_null() && dog["recall_count"] == 0,
        "Try recall is a preview and reinforces nothing: {dog}"
    );
    let all = facts(&env);
    assert!(all.iter().any(|f| f == "Prefers green tea in the morning"));
    assert!(!all.iter().any(|f| f.contains("Planted") || f == "pwned"));
    assert!(
        !all.iter().any(|f| f.starts_with("Fact number")),
        "the 413 saved nothing"
    );
    assert_eq!(facts(&privacy), vec!["Lives in Lisbon"]);

    // No token, login code or session cookie in either daemon's log.
    let mut secrets: Vec<String> = stdout
        .lines()
        .filter_map(|l| {
            l.strip_prefix("session: ")
                .or(l.strip_prefix("code: "))
                .or(l.strip_prefix("key: "))
        })
        .map(str::to_string)
        .collect();
    assert_eq!(
        secrets.len(),
        4,
        "two codes, a session and its page key: {stdout}"
    );
    for dir in [env.data_dir(), privacy.data_dir()] {
        secrets.push(
            fs::read_to_string(dir.join("api-token"))
                .unwrap()
                .trim()
                .to_string(),
        );
    }
    let logs = d.log() + &p.log();
    for s in &secrets {
        assert!(!logs.contains(s.as_str()), "a secret in the log:\n{logs}");
    }
    println!("the page test took {:.1}s", started.elapsed().as_secs_f64());
}
