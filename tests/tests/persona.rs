//! What one consolidation pass with the real SmolLM2-135M keeps of Synthetic-Persona-Chat users:
//! the first conversations of `tests/data/persona-chat/valid.csv`, each played as one user in its
//! own data dir exactly as `scripts/bench-persona.py` plays them, scored with its rules
//! (`localm_tests::persona`) against the floors below.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::time::Instant;

use localm_tests::fixtures::log_env;
use localm_tests::persona::{self, Scores};
use localm_tests::{Env, embed_model, llm_model};
use serde_json::Value;

/// Conversations played (the first of the valid split).
const CONVERSATIONS: usize = 12;
/// Floors, just under what main gives on these 12 with the release build (docs/benchmarks.md, "Consolidation
/// quality"): coverage of disclosed lines 15/19 (78.9%), leakage 0/49 facts, summaries 12/12 (at
/// d6909ca: 15/19, 0/73, 0/12 — every summary was refused as a copy of the prompt's example).
/// One line or a few facts of slack.
const MIN_COVERAGE_DISCLOSED: f64 = 0.70;
const MAX_LEAKAGE: f64 = 0.05;
const MIN_SUMMARY_SHARE: f64 = 0.9;

/// A fresh data dir with the memory plugin on, mode log and the models in place (settings point
/// at them, as the script's setup does, instead of copying the GGUF each time).
fn persona_env() -> Option<Env> {
    let (model, embed) = (llm_model()?, embed_model()?);
    let env = log_env();
    let path = env.data_dir().join("settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["llm_model"] = model.canonicalize().unwrap().to_str().unwrap().into();
    settings["embedding_model"] = embed.canonicalize().unwrap().to_str().unwrap().into();
    std::fs::write(&path, settings.to_string()).unwrap();
    Some(env)
}

#[test]
fn consolidation_keeps_what_persona_chat_users_disclose() {
    if llm_model().is_none() || embed_model().is_none() {
        return;
    }
    let started = Instant::now();
    let mut scores = Scores::default();
    for c in persona::load("valid", CONVERSATIONS) {
        let env = persona_env().unwrap();
        let dir = env.data_dir().join("sessions");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}.jsonl", c.id));
        std::fs::write(&path, c.session_jsonl()).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(c.session_mtime()).unwrap();
        drop(file);
        let out = env.log(&["memory", "consolidate", "--json"]).ok();
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["status"], "ok", "{out}");
        let records = env.records();
        let facts: Vec<String> = records
            .iter()
            .filter(|r| r["kind"] == "semantic" && r["source"] == "synth")
            .map(|r| r["text"].as_str().unwrap().to_string())
            .collect();
        let summarised = records.iter().any(|r| {
            r["kind"] == "episodic"
                && r["provenance"]["sessions"]
                    .as_array()
                    .is_some_and(|s| s.iter().any(|x| x == c.id.as_str()))
        });
        scores.add(&c, &facts, summarised);
    }
    let s = &scores;
    eprintln!(
        "persona ({} conversations, {:.0} s): coverage of disclosed lines {:.1}% ({}/{}), \
         leakage {:.1}% ({}/{} facts), summaries {:.1}% ({}/{})",
        s.conversations,
        started.elapsed().as_secs_f64(),
        100.0 * s.coverage_disclosed(),
        s.covered_disclosed,
        s.disclosed_lines,
        100.0 * s.leakage(),
        s.leaked,
        s.facts,
        100.0 * s.summary_share(),
        s.summarised,
        s.conversations,
    );
    assert!(
        s.coverage_disclosed() >= MIN_COVERAGE_DISCLOSED,
        "coverage of disclosed lines below {MIN_COVERAGE_DISCLOSED}: {s:?}"
    );
    assert!(
        s.leakage() <= MAX_LEAKAGE,
        "leakage above {MAX_LEAKAGE}: {s:?}"
    );
    assert!(
        s.summary_share() >= MIN_SUMMARY_SHARE,
        "summary share below {MIN_SUMMARY_SHARE}: {s:?}"
    );
}
