//! `localm status`: one screen of where things stand — mode, plugin, daemon, models, records,
//! vectors, pending corrections, the last pass and the next job.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use localm_core::jobs;
use localm_core::store::Store;
use localm_core::store::corrections::CorrectionStatus;
use localm_core::store::vectors::text_hash;
use serde_json::{Value, json};

use super::Context;
use super::output::{self, print};
use crate::models;
use crate::service::instance;

pub fn run(ctx: &Context, as_json: bool) -> anyhow::Result<()> {
    let v = gather(ctx)?;
    if as_json {
        output::json(&v);
    } else {
        print(&human(&v));
    }
    Ok(())
}

fn gather(ctx: &Context) -> anyhow::Result<Value> {
    let s = &ctx.settings;
    let daemon = instance::running(&ctx.data_dir);
    let store = Store::new(&ctx.data_dir, "chat", "localm status");
    let snap = store.read()?;
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for r in &snap.records {
        *by.entry(format!("{}/{}", r.source.as_str(), r.kind.as_str()))
            .or_default() += 1;
    }
    let embedder = models::embedder_path(&ctx.data_dir, s);
    let vectors = store.read_vectors().ok();
    // A record counts when a vector made from its current text is stored (by any model).
    let with_vector = vectors.as_ref().map_or(0, |v| {
        let hashes: std::collections::HashMap<&str, u64> = v
            .entries
            .iter()
            .map(|e| (e.id.as_str(), e.text_hash))
            .collect();
        snap.records
            .iter()
            .filter(|r| hashes.get(r.id.as_str()) == Some(&text_hash(&r.text)))
            .count()
    });
    let pending = snap
        .corrections
        .iter()
        .filter(|c| c.status == CorrectionStatus::Pending)
        .count();
    let jobs_file = jobs::load(&ctx.data_dir);
    let next_job = jobs_file.as_ref().ok().and_then(|f| {
        f.jobs
            .iter()
            .map(|j| (j.next_run(), j.name.clone()))
            .min()
            .map(|(at, name)| json!({"name": name, "at": at}))
    });
    Ok(json!({
        "data_dir": ctx.data_dir,
        "mode": ctx.mode.as_str(),
        "memory_enabled": s.memory_enabled,
        "memory_auto_consolidate": s.memory_auto_consolidate,
        "memory_plugin": s.memory_plugin_enabled(),
        "daemon": daemon.map(|d| json!({"pid": d.pid, "socket": d.socket, "tcp": d.tcp, "since": d.started_at})),
        "model": models::llm_path(&ctx.data_dir, s),
        "embedder": embedder,
        "records": snap.records.len(),
        "records_by": by,
        "with_vector": with_vector,
        "pending_corrections": pending,
        "forgotten": snap.archive.len(),
        "last_pass": snap.state.last_pass,
        "jobs": jobs_file.as_ref().map(|f| f.jobs.len()).unwrap_or(0),
        "jobs_error": jobs_file.as_ref().err().map(|e| e.to_string()),
        "next_job": next_job,
    }))
}

fn human(v: &Value) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row = |k: &str, val: String| rows.push(vec![k.to_string(), val]);
    let yes = |b: &Value| {
        if b.as_bool() == Some(true) {
            "on"
        } else {
            "off"
        }
    };
    row("data dir", v["data_dir"].as_str().unwrap_or("").into());
    let mode = v["mode"].as_str().unwrap_or("?");
    row(
        "mode",
        if mode == "privacy" {
            "privacy (memory writes nothing; set log or full to let it grow)".into()
        } else {
            mode.into()
        },
    );
    row(
        "memory plugin",
        if v["memory_plugin"].as_bool() == Some(true) {
            "enabled".into()
        } else {
            "off (run `localm plugin install memory`)".into()
        },
    );
    row(
        "recall / auto pass",
        format!(
            "memory_enabled {}, memory_auto_consolidate {}",
            yes(&v["memory_enabled"]),
            yes(&v["memory_auto_consolidate"])
        ),
    );
    row(
        "daemon",
        match v["daemon"].as_object() {
            Some(d) => format!(
                "running, pid {}, socket {}{}",
                d["pid"],
                d["socket"].as_str().unwrap_or(""),
                d["tcp"]
                    .as_str()
                    .map(|t| format!(", http://{t}"))
                    .unwrap_or_default()
            ),
            None => {
                "not running (start it with `localm daemon` or `localm service install`)".into()
            }
        },
    );
    row(
        "model",
        v["model"].as_str().map_or(
            "not installed (`localm setup-model`)".into(),
            str::to_string,
        ),
    );
    row(
        "embedder",
        v["embedder"].as_str().map_or(
            "not installed: recall is lexical (`localm setup-embeddings`)".into(),
            str::to_string,
        ),
    );
    let by = v["records_by"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let total = v["records"].as_u64().unwrap_or(0);
    row(
        "records",
        if total == 0 {
            "0 of 256".into()
        } else {
            format!("{total} of 256 ({by})")
        },
    );
    row(
        "vectors",
        format!("{} of {total} records", v["with_vector"]),
    );
    row(
        "corrections",
        format!("{} pending", v["pending_corrections"]),
    );
    row("forgotten", format!("{} archived", v["forgotten"]));
    let lp = &v["last_pass"];
    row(
        "last pass",
        if lp.is_null() {
            "never".into()
        } else {
            let at = lp["at"]
                .as_str()
                .and_then(|s| s.parse::<DateTime<Utc>>().ok())
                .map_or("?".into(), output::when);
            format!(
                "{at} {}: +{} added, {} updated, {} deleted, {} proposed, {} episodic{}",
                lp["status"].as_str().unwrap_or("?"),
                lp["added"],
                lp["updated"],
                lp["deleted"],
                lp["proposed"],
                lp["episodic"],
                lp["reason"]
                    .as_str()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            )
        },
    );
    row(
        "next job",
        if let Some(e) = v["jobs_error"].as_str() {
            format!("jobs.json unreadable: {e}")
        } else {
            match v["next_job"].as_object() {
                Some(j) => format!(
                    "{} at {}",
                    j["name"].as_str().unwrap_or(""),
                    j["at"]
                        .as_str()
                        .and_then(|s| s.parse::<DateTime<Utc>>().ok())
                        .map_or("?".into(), output::when)
                ),
                None => "none scheduled".into(),
            }
        },
    );
    let mut out = String::new();
    let width = rows.iter().map(|r| r[0].len()).max().unwrap_or(0);
    for r in rows {
        out.push_str(&format!("{:width$}  {}\n", r[0], r[1]));
    }
    out
}
