//! The daemon's consolidation passes with the real SmolLM2-135M-Instruct model: a session log
//! written in log mode is consolidated after a short `LOCALM_MEMORY_AUTO_INTERVAL` and not twice
//! within one interval; privacy mode never runs one; SIGTERM mid-pass exits cleanly with the store
//! intact; a pass whose process dies (killed, or a truncated GGUF) fails alone.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::time::{Duration, Instant};

use localm_tests::daemon::Daemon;
use localm_tests::{Env, llm_model, model_env};
use serde_json::{Value, json};

fn write_session(env: &Env, id: &str, user_lines: &[&str]) {
    env.write_session(id, user_lines);
}

fn last_pass(env: &Env) -> Option<Value> {
    let state = fs::read(env.store_dir().join("state.json")).ok()?;
    let v: Value = serde_json::from_slice(&state).ok()?;
    (!v["last_pass"].is_null()).then(|| v["last_pass"].clone())
}

fn passes_logged(d: &Daemon, trigger: &str) -> usize {
    d.log().matches(&format!("pass {trigger}: ")).count()
}

/// Check that the session log just written made the daemon decline an automatic pass for `why`,
/// without a fixed sleep. For each session-log event the daemon logs its decision at once: either
/// "automatic pass in Ns" (scheduled) or "no automatic pass: WHY". A settings change written after
/// the session log reaches the event loop through the same ordered file-event queue, so once the
/// daemon logs "settings reloaded" it has decided on every event of the session write.
fn no_pass_scheduled(env: &Env, d: &Daemon, why: &str) {
    env.run(&["settings", "set", "memory_recall_in_privacy", "true"])
        .ok();
    d.wait_for_log("settings reloaded", 30);
    let log = d.log();
    assert!(
        log.contains(&format!("session log changed; no automatic pass: {why}")),
        "{log}"
    );
    assert!(!log.contains("automatic pass in"), "{log}");
}

const FACTS: &[&str] = &[
    "My name is Dana and I work as a firmware engineer.",
    "I use Rust and I prefer vim for editing.",
];

#[test]
fn a_session_log_is_consolidated_after_the_interval_and_not_twice_within_it() {
    let Some(env) = model_env("log") else { return };
    let interval = 8;
    let d = env.daemon(&[("LOCALM_MEMORY_AUTO_INTERVAL", &interval.to_string())]);
    let started = Instant::now();
    write_session(&env, "s1", FACTS);
    let first = d.wait_for(180, "the first automatic pass", || last_pass(&env));
    assert_eq!(first["status"], "ok", "{first}");
    assert!(
        d.get("/api/memory").json()["records"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["source"] == "synth"),
        "the real model distilled synth facts\n{}",
        d.log()
    );
    // The child writes state.json before it exits; the daemon logs the pass after that.
    d.wait_for(30, "the first pass's log line", || {
        (passes_logged(&d, "auto") >= 1).then_some(())
    });
    assert_eq!(passes_logged(&d, "auto"), 1, "{}", d.log());
    // More chat right after: the next pass waits for the interval since the first started.
    let first_at: chrono::DateTime<chrono::Utc> = first["at"].as_str().unwrap().parse().unwrap();
    write_session(
        &env,
        "s1",
        &[FACTS[0], FACTS[1], "I also write Python for data work."],
    );
    let second = d.wait_for(180, "the second automatic pass", || {
        last_pass(&env).filter(|p| p["pass_id"] != first["pass_id"])
    });
    let second_at: chrono::DateTime<chrono::Utc> = second["at"].as_str().unwrap().parse().unwrap();
    assert!(
        (second_at - first_at).num_milliseconds() >= interval * 1000 - 500,
        "second pass {second_at} came within {interval}s of the first {first_at}\n{}",
        d.log()
    );
    d.wait_for(30, "the second pass's log line", || {
        (passes_logged(&d, "auto") >= 2).then_some(())
    });
    assert_eq!(passes_logged(&d, "auto"), 2, "{}", d.log());
    assert!(started.elapsed() < Duration::from_secs(400));
}

#[test]
fn privacy_mode_never_runs_a_pass() {
    let Some(env) = model_env("privacy") else {
        return;
    };
    let d = env.daemon(&[("LOCALM_MEMORY_AUTO_INTERVAL", "1")]);
    write_session(&env, "s1", FACTS);
    no_pass_scheduled(&env, &d, "privacy mode");
    assert_eq!(passes_logged(&d, "auto"), 0, "{}", d.log());
    assert!(last_pass(&env).is_none());
    assert!(!env.store_dir().join("memory.jsonl").exists());
}

#[test]
fn memory_enabled_off_stops_the_automatic_pass() {
    let Some(env) = model_env("log") else { return };
    env.run(&["settings", "set", "memory_enabled", "false"])
        .ok();
    let d = env.daemon(&[("LOCALM_MEMORY_AUTO_INTERVAL", "1")]);
    write_session(&env, "s1", FACTS);
    no_pass_scheduled(&env, &d, "memory_enabled is off");
    assert_eq!(passes_logged(&d, "auto"), 0, "{}", d.log());
    assert!(last_pass(&env).is_none());
}

/// Start a pass through the API on another thread; return once its child process is in the model.
fn pass_in_flight(d: &Daemon) -> (std::thread::JoinHandle<Option<u16>>, i32) {
    let socket = d.socket.clone();
    let call = std::thread::spawn(move || {
        localm_tests::daemon::try_request(&socket, "POST", "/api/memory/consolidate", None, &[])
            .ok()
            .map(|r| r.status)
    });
    let pid = d.wait_for(30, "the pass process", || {
        d.get("/api/health").json()["pass"]["pid"].as_i64()
    });
    let pid = pid as i32;
    model_mapped(d, pid);
    (call, pid)
}

/// Wait until the pass process has mapped the GGUF (llama.cpp mmaps it): it is past start-up, in
/// the model's work, where a stop request is honoured at the next prompt chunk or token.
fn model_mapped(d: &Daemon, pid: i32) {
    let maps = format!("/proc/{pid}/maps");
    if !std::path::Path::new("/proc/self/maps").exists() {
        // No /proc (macOS): fall back to a pause long enough to reach the model on a test machine.
        std::thread::sleep(Duration::from_millis(500));
        return;
    }
    d.wait_for(60, "the pass process to map the model", || {
        fs::read_to_string(&maps)
            .ok()?
            .contains(".gguf")
            .then_some(())
    });
}

/// A long session, so the pass is still in the model when the test acts.
fn long_session(env: &Env) {
    let lines: Vec<String> = (0..60)
        .map(|i| {
            format!(
                "Note {i}: I keep my firmware builds in the lab {i} folder and test on board {i}."
            )
        })
        .collect();
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    write_session(env, "long", &refs);
}

fn store_files(env: &Env) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(env.store_dir())
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.file_name() != ".lock")
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        fs::read(e.path()).unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn sigterm_during_a_pass_exits_cleanly_with_the_store_intact() {
    let Some(env) = model_env("log") else { return };
    env.log(&["memory", "add", "Prefers green tea"]).ok();
    long_session(&env);
    let before = store_files(&env);
    let mut d = env.daemon(&[]);
    let (call, child) = pass_in_flight(&d);
    let status = d.stop();
    assert_eq!(status.code(), Some(0), "{}", d.log());
    assert!(!d.socket.exists());
    // The pass process is gone too, and the store is exactly as it was.
    assert!(
        // SAFETY: kill(2) with signal 0 only checks that the pid exists.
        unsafe { libc::kill(child, 0) } != 0,
        "the pass process still runs"
    );
    let _ = call.join();
    assert_eq!(store_files(&env), before, "{}", d.log());
    assert!(d.log().contains("pass api: failed"), "{}", d.log());
}

#[test]
fn a_pass_process_killed_mid_pass_fails_alone() {
    let Some(env) = model_env("log") else { return };
    env.log(&["memory", "add", "Prefers green tea"]).ok();
    long_session(&env);
    let before = store_files(&env);
    let d = env.daemon(&[]);
    let (call, child) = pass_in_flight(&d);
    // SAFETY: kill(2) on the pass child this test found; touches no memory.
    unsafe { libc::kill(child, libc::SIGKILL) };
    assert_eq!(call.join().unwrap(), Some(500));
    assert!(d.log().contains("killed by signal 9"), "{}", d.log());
    assert_eq!(store_files(&env), before);
    // The daemon carries on.
    assert_eq!(d.get("/api/health").status, 200);
    assert_eq!(
        d.post("/api/memory/append", &json!({"text": "Still here"}))
            .status,
        201
    );
}

#[test]
fn a_truncated_model_fails_the_pass_and_the_daemon_carries_on() {
    let Some(model) = llm_model() else { return };
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", "log"]).ok();
    let bytes = fs::read(&model).unwrap();
    let cut = env.data_dir().join("cut.gguf");
    fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    env.run(&["settings", "set", "llm_model", cut.to_str().unwrap()])
        .ok();
    env.log(&["memory", "add", "Prefers green tea"]).ok();
    write_session(&env, "s1", FACTS);
    let before = store_files(&env);
    let d = env.daemon(&[]);
    let r = d.request("POST", "/api/memory/consolidate", None);
    assert_eq!(r.status, 500, "{}", r.body);
    assert_eq!(r.code(), "pass_failed");
    assert_eq!(store_files(&env), before);
    assert_eq!(d.get("/api/health").status, 200);
}

#[test]
fn consolidate_through_the_api_returns_the_report() {
    let Some(env) = model_env("log") else { return };
    write_session(&env, "s1", FACTS);
    let d = env.daemon(&[]);
    let r = d.request("POST", "/api/memory/consolidate", None);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["status"], "ok");
    for k in ["added", "updated", "deleted", "proposed", "episodic"] {
        assert!(v[k].is_array(), "{k}: {v}");
    }
    assert!(d.log().contains("pass api: ok"), "{}", d.log());
}
