//! Recall quality on the labelled set in `tests/data/recall-set/`: hit@1, hit@6, recall@6, MRR
//! and the share of off-topic messages that inject nothing, lexical (BM25) and semantic (the
//! embedding model given), for the tuning half and the held-out half. Only aggregate figures
//! are printed for the held-out half, so tuning never sees its items.
//!
//! `cargo run --release -p localm --example eval_recall -- MODEL_DIR [--misses]`
//! (`scripts/bench recall-quality` runs it with the test model).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use localm::models::embedder::Bert;
use localm_core::engine::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, build_query};
use localm_core::recall::{Input, run};
use localm_core::record::{Kind, Record, Source};
use localm_core::store::vectors::{Vectors, entries_for};
use serde::Deserialize;

#[derive(Deserialize)]
struct Set {
    facts: Vec<Fact>,
    queries: Vec<Labelled>,
}

#[derive(Deserialize)]
struct Fact {
    id: String,
    text: String,
    kind: String,
}

#[derive(Deserialize)]
struct Labelled {
    q: String,
    expect: Vec<String>,
    class: String,
}

/// Quality figures over one half, for one signal.
#[derive(Default, Debug, Clone)]
struct Figures {
    on_topic: usize,
    hit1: usize,
    hit6: usize,
    recall6: f64,
    rr: f64,
    off_topic: usize,
    off_empty: usize,
    injected: usize,
    queries: usize,
}

impl Figures {
    fn row(&self, name: &str) -> String {
        let on = self.on_topic.max(1) as f64;
        format!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} ({}/{}) | {:.2} |",
            self.hit1 as f64 / on,
            self.hit6 as f64 / on,
            self.recall6 / on,
            self.rr / on,
            self.off_empty as f64 / self.off_topic.max(1) as f64,
            self.off_empty,
            self.off_topic,
            self.injected as f64 / self.queries.max(1) as f64,
        )
    }
}

fn records(set: &Set) -> Vec<Record> {
    let t: DateTime<Utc> = "2026-03-01T00:00:00Z".parse().expect("a date");
    set.facts
        .iter()
        .map(|f| {
            Record::new(
                &f.id,
                &f.text,
                if f.kind == "episodic" {
                    Kind::Episodic
                } else {
                    Kind::Semantic
                },
                Source::User,
                0.8,
                t,
            )
        })
        .collect()
}

fn evaluate(set: &Set, embedder: Option<&Bert>, show_misses: bool) -> Figures {
    let now: DateTime<Utc> = "2026-03-02T00:00:00Z".parse().expect("a date");
    let records = records(set);
    let index = LexicalIndex::new(records.iter().map(|r| r.text.as_str()));
    let vectors = embedder.map(|e| {
        let texts: Vec<&str> = records.iter().map(|r| r.text.as_str()).collect();
        let v = e.embed(&texts).expect("embedding the facts");
        Vectors::new(entries_for(&records, v, e.id()))
    });
    let mut f = Figures::default();
    for l in &set.queries {
        let query = build_query(&[ChatMessage::user(&l.q)], Agent::Chat).expect("a query");
        let r = run(&Input {
            records: &records,
            index: &index,
            vectors: vectors.as_ref(),
            embedder: embedder.map(|e| e as &dyn Embedder),
            query: &query,
            now,
        });
        let got: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        f.queries += 1;
        f.injected += got.len();
        if l.expect.is_empty() {
            f.off_topic += 1;
            if got.is_empty() {
                f.off_empty += 1;
            } else if show_misses {
                println!("  off-topic {:?} injected {got:?}", l.q);
            }
            continue;
        }
        f.on_topic += 1;
        let first = got.iter().position(|g| l.expect.iter().any(|e| e == g));
        if let Some(p) = first {
            f.hit6 += 1;
            f.rr += 1.0 / (p + 1) as f64;
            if p == 0 {
                f.hit1 += 1;
            }
        } else if show_misses {
            println!(
                "  missed [{}] {:?} (want {:?}, got {got:?})",
                l.class, l.q, l.expect
            );
        }
        let found = l
            .expect
            .iter()
            .filter(|e| got.contains(&e.as_str()))
            .count();
        f.recall6 += found as f64 / l.expect.len() as f64;
    }
    f
}

fn load(path: &Path) -> Set {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let model = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from);
    let bert = model.map(|m| Bert::load(&m).expect("the embedding model"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/recall-set");
    println!(
        "| half / signal | hit@1 | hit@6 | recall@6 | MRR | off-topic empty | facts per query |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (half, show) in [("tune", misses), ("held-out", false)] {
        let set = load(&dir.join(format!("{half}.json")));
        let lexical = evaluate(&set, None, show);
        println!("{}", lexical.row(&format!("{half}, lexical")));
        if let Some(b) = &bert {
            let semantic = evaluate(&set, Some(b), show);
            println!(
                "{}",
                semantic.row(&format!("{half}, semantic ({})", b.id()))
            );
        }
    }
}
