//! `localm status`: one screen of where things stand — mode, plugin, daemon, models, records,
//! vectors, pending corrections, the last pass and the next job.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use localm_core::consolidate::PassSummary;
use localm_core::jobs;
use localm_core::settings::Mode;
use localm_core::store::Store;
use localm_core::store::corrections::CorrectionStatus;
use localm_core::store::vectors::text_hash;
use serde::Serialize;

use super::Context;
use super::output::{self, print};
use crate::models;
use crate::service::instance;

/// What `localm status --json` prints.
#[derive(Debug, Serialize)]
struct Overview {
    data_dir: PathBuf,
    mode: Mode,
    memory_enabled: bool,
    memory_auto_consolidate: bool,
    memory_plugin: bool,
    daemon: Option<Daemon>,
    model: Option<PathBuf>,
    embedder: Option<PathBuf>,
    records: usize,
    records_by: BTreeMap<String, usize>,
    with_vector: usize,
    pending_corrections: usize,
    forgotten: usize,
    last_pass: Option<PassSummary>,
    /// Session logs a pass failed on, left unread until another version of localm reads them.
    set_aside: Vec<SetAsideLog>,
    jobs: usize,
    jobs_error: Option<String>,
    next_job: Option<NextJob>,
}

#[derive(Debug, Serialize)]
struct Daemon {
    pid: u32,
    socket: PathBuf,
    tcp: Option<String>,
    since: DateTime<Utc>,
}

#[derive(Debug, Serialize)]
struct SetAsideLog {
    session: String,
    why: String,
    version: String,
}

#[derive(Debug, Serialize)]
struct NextJob {
    name: String,
    at: DateTime<Utc>,
}

pub fn run(ctx: &Context, as_json: bool) -> anyhow::Result<()> {
    let v = gather(ctx)?;
    if as_json {
        output::json(&v);
    } else {
        print(&human(&v));
    }
    Ok(())
}

fn gather(ctx: &Context) -> anyhow::Result<Overview> {
    let s = &ctx.settings;
    let store = Store::new(&ctx.data_dir, "chat", "localm status");
    let snap = store.read()?;
    let mut records_by: BTreeMap<String, usize> = BTreeMap::new();
    for r in &snap.records {
        *records_by
            .entry(format!("{}/{}", r.source.as_str(), r.kind.as_str()))
            .or_default() += 1;
    }
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
    let pending_corrections = snap
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
            .map(|(at, name)| NextJob { name, at })
    });
    Ok(Overview {
        data_dir: ctx.data_dir.clone(),
        mode: ctx.mode,
        memory_enabled: s.memory_enabled,
        memory_auto_consolidate: s.memory_auto_consolidate,
        memory_plugin: s.memory_plugin_enabled(),
        daemon: instance::running(&ctx.data_dir).map(|d| Daemon {
            pid: d.pid,
            socket: d.socket,
            tcp: d.tcp,
            since: d.started_at,
        }),
        model: models::llm_path(&ctx.data_dir, s),
        embedder: models::embedder_path(&ctx.data_dir, s),
        records: snap.records.len(),
        records_by,
        with_vector,
        pending_corrections,
        forgotten: snap.archive.len(),
        set_aside: snap
            .state
            .sessions
            .iter()
            .filter_map(|(id, m)| {
                let a = m.set_aside.as_ref()?;
                Some(SetAsideLog {
                    session: id.clone(),
                    why: a.why.clone(),
                    version: a.version.clone(),
                })
            })
            .collect(),
        last_pass: snap.state.last_pass,
        jobs: jobs_file.as_ref().map_or(0, |f| f.jobs.len()),
        jobs_error: jobs_file.as_ref().err().map(|e| e.to_string()),
        next_job,
    })
}

fn human(v: &Overview) -> String {
    let mut rows: Vec<(&str, String)> = Vec::new();
    let on = |b: bool| if b { "on" } else { "off" };
    rows.push(("data dir", v.data_dir.display().to_string()));
    rows.push((
        "mode",
        if v.mode == Mode::Privacy {
            "privacy (memory writes nothing; set log or full to let it grow)".into()
        } else {
            v.mode.to_string()
        },
    ));
    rows.push((
        "memory plugin",
        if v.memory_plugin {
            "enabled".into()
        } else {
            "off (run `localm plugin install memory`)".into()
        },
    ));
    rows.push((
        "recall / auto pass",
        format!(
            "memory_enabled {}, memory_auto_consolidate {}",
            on(v.memory_enabled),
            on(v.memory_auto_consolidate)
        ),
    ));
    rows.push((
        "daemon",
        match &v.daemon {
            Some(d) => format!(
                "running, pid {}, socket {}{}",
                d.pid,
                d.socket.display(),
                d.tcp
                    .as_deref()
                    .map(|t| format!(", http://{t}"))
                    .unwrap_or_default()
            ),
            None => {
                "not running (start it with `localm daemon` or `localm service install`)".into()
            }
        },
    ));
    rows.push((
        "model",
        v.model
            .as_ref()
            .map_or("not installed (`localm setup-model`)".into(), |p| {
                p.display().to_string()
            }),
    ));
    rows.push((
        "embedder",
        v.embedder.as_ref().map_or(
            "not installed: recall is lexical (`localm setup-embeddings`)".into(),
            |p| p.display().to_string(),
        ),
    ));
    let by = v
        .records_by
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    rows.push((
        "records",
        if v.records == 0 {
            "0 of 256".into()
        } else {
            format!("{} of 256 ({by})", v.records)
        },
    ));
    rows.push((
        "vectors",
        format!("{} of {} records", v.with_vector, v.records),
    ));
    rows.push(("corrections", format!("{} pending", v.pending_corrections)));
    rows.push(("forgotten", format!("{} archived", v.forgotten)));
    rows.push((
        "last pass",
        match &v.last_pass {
            None => "never".into(),
            Some(lp) => format!(
                "{} {}: {}{}",
                lp.at.map_or("?".into(), output::when),
                lp.status,
                lp.counts.sentence(),
                lp.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
        },
    ));
    for a in &v.set_aside {
        rows.push((
            "set aside",
            format!(
                "sessions/{}.jsonl: {} (left unread until another version of localm than {})",
                localm_core::printable::visible(&a.session),
                a.why,
                a.version
            ),
        ));
    }
    rows.push((
        "next job",
        match (&v.jobs_error, &v.next_job) {
            (Some(e), _) => format!("jobs.json unreadable: {e}"),
            (None, Some(j)) => format!("{} at {}", j.name, output::when(j.at)),
            (None, None) => "none scheduled".into(),
        },
    ));
    let mut out = String::new();
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    for (k, val) in rows {
        out.push_str(&format!("{k:width$}  {val}\n"));
    }
    out
}
