//! `localm daemon`'s background work: jobs added from the terminal picked up without a restart,
//! due jobs in privacy mode, and the backfill sweep that embeds facts.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;

use localm_tests::Env;
use localm_tests::fixtures::log_env;
use serde_json::{Value, json};

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
