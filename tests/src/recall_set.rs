//! The labelled recall sets and their scoring: hit@1, hit@6, recall@6, MRR and the share of
//! off-topic messages that inject nothing, overall, by class and by language.
//! `tests/data/recall-set/` holds 177 facts about one invented English-speaking user;
//! `tests/data/recall-set-languages/` holds facts in six languages, questions in each and across
//! them, and follow-ups with the earlier turns of their chat. Shared by the quality test
//! (`tests/recall_eval.rs`) and the report (`examples/eval_recall.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};
use localm::models::embedder::BertEmbedder;
use localm_core::models::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, build_query};
use localm_core::recall::rank::MAX_FACTS;
use localm_core::recall::{Input, Recall, run};
use localm_core::record::{Kind, Record, Source};
use localm_core::store::vectors::{Vectors, entries_for};
use serde::Deserialize;

/// One half of the set.
#[derive(Deserialize)]
pub struct Set {
    pub facts: Vec<Fact>,
    pub queries: Vec<Labelled>,
}

#[derive(Deserialize)]
pub struct Fact {
    pub id: String,
    pub text: String,
    pub kind: String,
}

/// A message and the facts a good answer needs (none: off-topic, inject nothing).
#[derive(Deserialize)]
pub struct Labelled {
    pub q: String,
    pub expect: Vec<String>,
    pub class: String,
    /// The user's earlier turns in the same chat, oldest first.
    #[serde(default)]
    pub prior: Vec<String>,
    /// The message's language (`en`, `zh`, …), or `question→facts` for a cross-language one.
    #[serde(default)]
    pub lang: String,
}

/// How recall is asked: as a chat turn does (the latest message with its earlier turns), or
/// with the latest message alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turns {
    Window,
    LatestOnly,
}

/// The two halves: `tune` (thresholds were chosen on it) and `held-out` (never tuned on).
pub const HALVES: [&str; 2] = ["tune", "held-out"];

/// Read one half of the English set.
pub fn load(half: &str) -> Set {
    load_from("recall-set", half)
}

/// Read one half of the set in `tests/data/<set>/`.
pub fn load_from(set: &str, half: &str) -> Set {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(set)
        .join(format!("{half}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The facts as user-typed records, all equally important and fresh.
pub fn records(set: &Set) -> Vec<Record> {
    let t: DateTime<Utc> = "2026-03-01T00:00:00Z".parse().expect("a date");
    set.facts
        .iter()
        .map(|f| {
            let kind = if f.kind == "episodic" {
                Kind::Episodic
            } else {
                Kind::Semantic
            };
            Record::new(&f.id, &f.text, kind, Source::User, 0.8, t)
        })
        .collect()
}

/// Quality figures over one half, for one signal.
#[derive(Default, Debug, Clone)]
pub struct Figures {
    pub on_topic: usize,
    pub hit1: usize,
    pub hit6: usize,
    pub recall6: f64,
    pub rr: f64,
    pub off_topic: usize,
    pub off_empty: usize,
    pub injected: usize,
    pub queries: usize,
    /// The characters of each non-empty block.
    pub block_chars: Vec<usize>,
    /// Facts that passed the gate with room among the six but did not fit the block's
    /// characters.
    pub budget_dropped: usize,
    /// The same figures for each on-topic class alone (`constraint`, `when`, …).
    pub by_class: BTreeMap<String, Figures>,
    /// The same figures for each message language (`cross` for every cross-language message).
    pub by_lang: BTreeMap<String, Figures>,
}

impl Figures {
    pub fn hit6_rate(&self) -> f64 {
        self.hit6 as f64 / self.on_topic.max(1) as f64
    }

    pub fn off_empty_rate(&self) -> f64 {
        self.off_empty as f64 / self.off_topic.max(1) as f64
    }

    /// The blocks' size: how many, median characters (min–max), facts the budget dropped.
    pub fn blocks(&self) -> String {
        let mut c = self.block_chars.clone();
        c.sort_unstable();
        match (c.first(), c.last()) {
            (Some(lo), Some(hi)) => format!(
                "{} blocks, median {} characters ({lo}–{hi}), {} facts dropped by the budget",
                c.len(),
                c[c.len() / 2],
                self.budget_dropped
            ),
            _ => "no blocks".into(),
        }
    }

    /// One Markdown table row (docs/benchmarks.md's).
    pub fn row(&self, name: &str) -> String {
        let on = self.on_topic.max(1) as f64;
        format!(
            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} ({}/{}) | {:.2} |",
            self.hit1 as f64 / on,
            self.hit6_rate(),
            self.recall6 / on,
            self.rr / on,
            self.off_empty_rate(),
            self.off_empty,
            self.off_topic,
            self.injected as f64 / self.queries.max(1) as f64,
        )
    }
}

/// The table header matching [`Figures::row`].
pub const HEADER: &str = "| half / signal | hit@1 | hit@6 | recall@6 | MRR | off-topic empty | facts per query |\n|---|---|---|---|---|---|---|";

/// Run every message of `set` through recall as a chat turn would (lexical without `embedder`),
/// and score it. With `show_misses`, print each miss and each off-topic injection.
pub fn evaluate(set: &Set, embedder: Option<&BertEmbedder>, show_misses: bool) -> Figures {
    evaluate_turns(set, embedder, Turns::Window, show_misses)
}

/// [`evaluate`], asking with the window or with the latest message alone.
pub fn evaluate_turns(
    set: &Set,
    embedder: Option<&BertEmbedder>,
    turns: Turns,
    show_misses: bool,
) -> Figures {
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
        let mut chat: Vec<ChatMessage> = match turns {
            Turns::Window => l.prior.iter().map(|p| ChatMessage::user(p)).collect(),
            Turns::LatestOnly => Vec::new(),
        };
        chat.push(ChatMessage::user(&l.q));
        let query = build_query(&chat, Agent::Chat).expect("a query");
        let r = run(&Input {
            records: &records,
            index: &index,
            vectors: vectors.as_ref(),
            embedder: embedder.map(|e| e as &dyn Embedder),
            query: &query,
            now,
        });
        let got: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        if !r.block.is_empty() {
            f.block_chars.push(r.block.chars().count());
        }
        f.budget_dropped += budget_dropped(&r);
        let lang = if l.lang.contains('→') {
            "cross"
        } else {
            l.lang.as_str()
        };
        let by_lang = f.by_lang.entry(lang.to_string()).or_default();
        by_lang.queries += 1;
        by_lang.injected += got.len();
        if l.expect.is_empty() {
            by_lang.off_topic += 1;
            by_lang.off_empty += usize::from(got.is_empty());
        } else {
            score(by_lang, &l.expect, &got);
        }
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
        let hit = score(&mut f, &l.expect, &got);
        let class = f.by_class.entry(l.class.clone()).or_default();
        class.queries += 1;
        class.injected += got.len();
        score(class, &l.expect, &got);
        if !hit && show_misses {
            println!(
                "  missed [{}] {:?} (want {:?}, got {got:?})",
                l.class, l.q, l.expect
            );
        }
    }
    f
}

/// Facts of `r` that passed the gate while there was room among the six, and were not taken:
/// their line did not fit the block's characters.
fn budget_dropped(r: &Recall) -> usize {
    let mut taken = 0;
    let mut dropped = 0;
    for c in &r.candidates {
        if c.chosen {
            taken += 1;
        } else if c.scored.gate.lets_through() && taken < MAX_FACTS {
            dropped += 1;
        }
    }
    dropped
}

/// Count one on-topic message in `f`; whether one of its facts was injected.
fn score(f: &mut Figures, expect: &[String], got: &[&str]) -> bool {
    f.on_topic += 1;
    let first = got.iter().position(|g| expect.iter().any(|e| e == g));
    if let Some(p) = first {
        f.hit6 += 1;
        f.rr += 1.0 / (p + 1) as f64;
        if p == 0 {
            f.hit1 += 1;
        }
    }
    let found = expect.iter().filter(|e| got.contains(&e.as_str())).count();
    f.recall6 += found as f64 / expect.len() as f64;
    first.is_some()
}
