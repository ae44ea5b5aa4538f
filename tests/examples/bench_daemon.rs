//! Daemon benchmarks (`scripts/bench daemon`): recall through the control socket over 256 records
//! (lexical and semantic; p50/p99), an idle daemon's CPU time, wake-ups and RSS over a minute with
//! no events, and the time from start to a ready socket. One run; medians and spread.
//! `bench_daemon embedders` runs only recall through the socket with each embedder side by
//! side (none, MiniLM, multilingual-e5-small) and the daemon's RSS after it.
//!
//! Needs the `localm` binary built beside this example and, for the semantic figures,
//! all-MiniLM-L6-v2 in test-models/ (scripts/fetch-test-models).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::time::{Duration, Instant};

use localm_tests::Env;
use localm_tests::daemon::{Daemon, try_request};
use serde_json::json;

fn seed(env: &Env) {
    let dir = env.store_dir();
    fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for i in 0..256 {
        text.push_str(
            &json!({"id": format!("{i:08x}"),
                "text": format!("Fact number {i}: the user works on project {} and prefers tool {} for it", i % 17, i % 5),
                "kind": "semantic", "source": "user", "importance": 0.8,
                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"})
            .to_string(),
        );
        text.push('\n');
    }
    fs::write(dir.join("memory.jsonl"), text).unwrap();
    env.run(&["plugin", "install", "memory"]).ok();
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(what: &str, mut us: Vec<f64>) {
    us.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{what:58} p50 {:8.1} µs  p99 {:8.1}  min {:8.1}  max {:8.1}  n {}",
        percentile(&us, 0.5),
        percentile(&us, 0.99),
        us[0],
        us[us.len() - 1],
        us.len()
    );
}

fn recall_bench(d: &Daemon, what: &str, n: usize) {
    recall_bench_with(d, what, n, |k| {
        format!("which tool do I prefer for project {k}?")
    });
}

/// [`recall_bench`] with the latest message `latest(k)` after one earlier turn.
fn recall_bench_with(d: &Daemon, what: &str, n: usize, latest: impl Fn(usize) -> String) {
    // Every request a query window not seen before (a prior turn numbered), so the daemon's
    // cache of recent query embeddings never answers for the model.
    let body = |k: usize| {
        json!({"messages": [
            {"role": "user", "content": format!("earlier message {k} about project {k}")},
            {"role": "user", "content": latest(k)}
        ]})
        .to_string()
    };
    for k in 0..50 {
        try_request(&d.socket, "POST", "/api/memory/recall", Some(&body(k)), &[]).unwrap();
    }
    let mut us = Vec::with_capacity(n);
    let mut header = String::new();
    for k in 0..n {
        let body = body(50 + k);
        let t = Instant::now();
        let r = try_request(&d.socket, "POST", "/api/memory/recall", Some(&body), &[]).unwrap();
        us.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(r.status, 200, "{}", r.body);
        header = r.header("x-localm-memory").unwrap_or("").to_string();
    }
    report(what, us);
    println!("{:58} header: {header}", "");
}

/// (CPU ms, context switches over all threads, RSS KiB) of a process now.
fn sample(pid: i32) -> (f64, u64, u64) {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = 100.0; // USER_HZ
    let cpu_ms = (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / tick * 1e3;
    let mut switches = 0;
    for task in fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let status = fs::read_to_string(task.unwrap().path().join("status")).unwrap_or_default();
        for l in status.lines() {
            if l.starts_with("voluntary_ctxt_switches")
                || l.starts_with("nonvoluntary_ctxt_switches")
            {
                switches += l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap();
            }
        }
    }
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap()
        .parse()
        .unwrap();
    (cpu_ms, switches, rss)
}

fn threads(pid: i32) -> usize {
    fs::read_dir(format!("/proc/{pid}/task")).unwrap().count()
}

fn idle(what: &str, env: &Env, secs: u64) {
    let d = env.daemon(&[]);
    std::thread::sleep(Duration::from_secs(12)); // let the blocking pool's threads retire
    let (c0, s0, _) = sample(d.pid());
    std::thread::sleep(Duration::from_secs(secs));
    let (c1, s1, rss) = sample(d.pid());
    println!(
        "{what:58} cpu {:6.1} ms  wake-ups (context switches) {:4}  RSS {:6.1} MiB  threads {}",
        c1 - c0,
        s1 - s0,
        rss as f64 / 1024.0,
        threads(d.pid())
    );
}

/// Recall through the socket with each embedder, side by side in one run, and the daemon's
/// resident memory after it.
fn embedders() {
    println!("== recall through the socket by embedder, 256 records, log mode");
    let models = [
        ("none (words alone)", None),
        ("all-MiniLM-L6-v2", localm_tests::embed_model()),
        ("multilingual-e5-small", localm_tests::e5_model()),
    ];
    for (name, model) in models {
        let env = Env::new();
        seed(&env);
        env.run(&["settings", "set", "mode", "log"]).ok();
        if let Some(model) = &model {
            env.run(&["setup-embeddings", "--from", model.to_str().unwrap()])
                .ok();
        }
        let d = env.daemon(&[]);
        recall_bench(&d, name, 300);
        // A follow-up ("ok, do that"): with a model, the window is embedded too.
        recall_bench_with(&d, &format!("{name}, a follow-up"), 300, |k| {
            format!("ok, do that {k}")
        });
        let (_, _, rss) = sample(d.pid());
        println!("{:58} RSS {:6.1} MiB", "", rss as f64 / 1024.0);
    }
}

fn main() {
    if std::env::args().any(|a| a == "embedders") {
        embedders();
        return;
    }
    let secs: u64 = std::env::var("IDLE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);

    println!("== start to ready socket (20 runs)");
    let env = Env::new();
    seed(&env);
    let mut ms = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let mut d = env.spawn_daemon(&[], &[]);
        loop {
            if let Ok(r) = try_request(&d.socket, "GET", "/api/health", None, &[])
                && r.status == 200
            {
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        d.stop();
    }
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{:58} median {:6.1} ms  min {:6.1}  max {:6.1}",
        "spawn `localm daemon` → GET /api/health answers",
        percentile(&ms, 0.5),
        ms[0],
        ms[ms.len() - 1]
    );

    println!("== recall through the socket, 256 records, new connection per request");
    env.run(&["settings", "set", "memory_recall_in_privacy", "true"])
        .ok();
    let d = env.daemon(&[]);
    recall_bench(&d, "lexical, privacy read-only (no reinforcement)", 2000);
    drop(d);
    env.run(&["settings", "set", "mode", "log"]).ok();
    let d = env.daemon(&[]);
    recall_bench(
        &d,
        "lexical, log mode (reinforcing in the background)",
        2000,
    );
    drop(d);
    if let Some(model) = localm_tests::embed_model() {
        env.run(&["setup-embeddings", "--from", model.to_str().unwrap()])
            .ok();
        let d = env.daemon(&[]);
        recall_bench(
            &d,
            "semantic (MiniLM query embedding + cosine), log mode",
            300,
        );
        drop(d);
    }

    println!("== idle daemon, {secs} s with no events");
    let quiet = Env::new();
    seed(&quiet);
    idle("no jobs, no model loaded", &quiet, secs);
    quiet
        .run(&["job", "add", "distil", "--memory", "--every", "6h"])
        .ok();
    idle("one job every 6h", &quiet, secs);
}
