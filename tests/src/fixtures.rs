//! Data dirs for the tests: one with the memory plugin installed in a mode (made through the CLI,
//! as a user would), and store files written directly, as a pass or an older version would leave
//! them: records and pending correction proposals of the chat namespace.

use serde_json::Value;

use crate::Env;

/// A data dir with the memory plugin installed and `mode` set, through the CLI.
pub fn plugin_env(mode: &str) -> Env {
    let env = Env::new();
    env.run(&["plugin", "install", "memory"]).ok();
    env.run(&["settings", "set", "mode", mode]).ok();
    env
}

/// A data dir in log mode with the memory plugin installed.
pub fn log_env() -> Env {
    plugin_env("log")
}

/// Hold the chat store's lock as another process would; `holder` is what it says about itself.
pub fn hold_store_lock(env: &Env, holder: &str) -> localm_core::store::lock::StoreLock {
    localm_core::store::lock::StoreLock::acquire(
        &env.store_dir().join(".lock"),
        holder,
        std::time::Duration::ZERO,
    )
    .unwrap()
}

/// Write `settings.json` as a user's editor would leave it.
pub fn write_settings(env: &Env, settings: &Value) {
    std::fs::write(env.data_dir().join("settings.json"), settings.to_string()).unwrap();
}

/// Write the chat namespace's store file `name`, one JSON value a line.
pub fn write_store_file(env: &Env, name: &str, lines: &[Value]) {
    std::fs::create_dir_all(env.store_dir()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(env.store_dir().join(name), text).unwrap();
}

/// A semantic record of `source` (user, synth, import), importance 0.7.
pub fn record(id: &str, text: &str, source: &str) -> Value {
    serde_json::json!({
        "id": id, "text": text, "kind": "semantic", "source": source, "importance": 0.7,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    })
}

/// `record` as a pass leaves a fact distilled from sessions: its provenance names the pass, the
/// sessions and the user's words it came from, each `(session, line, quote)`.
pub fn with_evidence(mut record: Value, evidence: &[(&str, usize, &str)]) -> Value {
    let mut sessions: Vec<&str> = evidence.iter().map(|(s, _, _)| *s).collect();
    sessions.dedup();
    let evidence: Vec<Value> = evidence
        .iter()
        .map(|(session, line, quote)| {
            serde_json::json!({"session": session, "line": line, "quote": quote})
        })
        .collect();
    record["provenance"] = serde_json::json!({
        "sessions": sessions, "pass": "p0000001", "evidence": evidence
    });
    record
}

/// A pending correction proposal on `target` (`op` update with `new`, or delete).
pub fn correction(id: &str, target: &str, op: &str, old: &str, new: Option<&str>) -> Value {
    let mut c = serde_json::json!({
        "id": id, "target": target, "op": op, "old_text": old, "confidence": 0.9,
        "status": "pending", "created_at": "2026-02-01T00:00:00Z"
    });
    if let Some(n) = new {
        c["new_text"] = n.into();
    }
    c
}
