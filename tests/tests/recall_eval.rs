//! The recall-quality evaluation on the project's labelled set (`tests/data/recall-eval.json`):
//! hit@6 on on-topic queries and the share of off-topic queries that inject nothing, lexical vs
//! semantic with the real all-MiniLM-L6-v2. Prints the table the README quotes; fails if quality
//! drops below the floor. The lexical floors need no model and are always checked.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use chrono::{DateTime, Utc};
use localm::models::embedder::Bert;
use localm_core::engine::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, build_query};
use localm_core::recall::{Degrade, Semantic, recall};
use localm_core::record::{Kind, Provenance, Record, Source};
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

#[derive(Default, Debug)]
struct Score {
    hits: usize,
    on_topic: usize,
    empty_off: usize,
    off_topic: usize,
    by_class: std::collections::BTreeMap<String, (usize, usize)>,
    injected: usize,
}

impl Score {
    /// (hits, queries) of one query class; (0, 0) for a class the set lacks.
    fn class(&self, c: &str) -> (usize, usize) {
        self.by_class.get(c).copied().unwrap_or_default()
    }
}

fn load() -> (Set, Vec<Record>) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/recall-eval.json"),
    )
    .unwrap();
    let set: Set = serde_json::from_str(&text).unwrap();
    let t: DateTime<Utc> = "2026-03-01T00:00:00Z".parse().unwrap();
    let records = set
        .facts
        .iter()
        .map(|f| Record {
            id: f.id.clone(),
            text: f.text.clone(),
            kind: if f.kind == "episodic" {
                Kind::Episodic
            } else {
                Kind::Semantic
            },
            source: Source::User,
            importance: 0.8,
            created_at: t,
            updated_at: t,
            last_recalled_at: None,
            recall_count: 0,
            provenance: Provenance::default(),
        })
        .collect();
    (set, records)
}

fn evaluate(set: &Set, records: &[Record], embedder: Option<&Bert>, vectors: &Vectors) -> Score {
    let now: DateTime<Utc> = "2026-03-02T00:00:00Z".parse().unwrap();
    let index = LexicalIndex::new(records.iter().map(|r| r.text.as_str()));
    let mut s = Score::default();
    for l in &set.queries {
        let query = build_query(&[ChatMessage::user(&l.q)], Agent::Chat).unwrap();
        let sem = match embedder {
            Some(e) => Semantic::Ready {
                query: e.embed(&[&query.text]).unwrap().remove(0),
                vectors,
                model: e.id(),
            },
            None => Semantic::Unavailable(Degrade::NoEmbedder),
        };
        let r = recall(records, &index, &sem, &query, now);
        s.injected += r.items.len();
        let got: Vec<&str> = r.items.iter().map(|i| i.id.as_str()).collect();
        let entry = s.by_class.entry(l.class.clone()).or_default();
        entry.1 += 1;
        if l.expect.is_empty() {
            s.off_topic += 1;
            if got.is_empty() {
                s.empty_off += 1;
                entry.0 += 1;
            } else {
                eprintln!("  off-topic {:?} injected {got:?}", l.q);
            }
        } else {
            s.on_topic += 1;
            if l.expect.iter().any(|e| got.contains(&e.as_str())) {
                s.hits += 1;
                entry.0 += 1;
            } else {
                eprintln!("  missed {:?} (want {:?}, got {got:?})", l.q, l.expect);
            }
        }
    }
    s
}

fn evaluate_lexical(set: &Set, records: &[Record]) -> Score {
    eprintln!("lexical (BM25, no embedder):");
    evaluate(set, records, None, &Vectors::default())
}

/// Print the table the README quotes, one row per signal.
fn table(rows: &[(&str, &Score)], n_queries: usize) {
    eprintln!();
    eprintln!(
        "| signal | hit@6 (on-topic) | lexical-class hit@6 | paraphrase hit@6 | off-topic injecting nothing | facts injected per query |"
    );
    eprintln!("|---|---|---|---|---|---|");
    for (name, s) in rows {
        eprintln!(
            "| {name} | {}/{} = {:.2} | {}/{} | {}/{} | {}/{} = {:.2} | {:.1} |",
            s.hits,
            s.on_topic,
            s.hits as f32 / s.on_topic as f32,
            s.class("lexical").0,
            s.class("lexical").1,
            s.class("paraphrase").0,
            s.class("paraphrase").1,
            s.empty_off,
            s.off_topic,
            s.empty_off as f32 / s.off_topic as f32,
            s.injected as f32 / n_queries as f32,
        );
    }
}

// Floors at the quality measured when this set was written (README), so a regression fails.

/// Lexical recall (BM25, no embedder) needs no model, so its floors are checked on every run.
#[test]
fn lexical_recall_quality() {
    let (set, records) = load();
    let lexical = evaluate_lexical(&set, &records);
    table(&[("lexical BM25", &lexical)], set.queries.len());
    assert!(lexical.class("lexical").0 >= 10, "{lexical:?}");
    assert!(lexical.empty_off >= 9, "{lexical:?}");
}

/// Semantic recall with the real all-MiniLM-L6-v2, against lexical on the same set. With
/// all-MiniLM-L6-v2 few paraphrases reach the spec's 0.55 cosine gate (the thresholds are set for
/// bge-small-en-v1.5, whose cosines run higher); the semantic run must still find those, inject
/// nothing on most off-topic turns, and not lose lexical hits.
#[test]
fn semantic_recall_quality_against_lexical() {
    let (set, records) = load();
    // Absent model: skipped, unless LOCALM_REQUIRE_MODELS is set (scripts/test), then it fails.
    let Some(model) = localm_tests::embed_model() else {
        return;
    };
    let lexical = evaluate_lexical(&set, &records);
    let bert = Bert::load(&model).unwrap();
    let texts: Vec<&str> = records.iter().map(|r| r.text.as_str()).collect();
    let vecs = bert.embed(&texts).unwrap();
    let vectors = Vectors::new(entries_for(&records, vecs, bert.id()));
    eprintln!("semantic ({}):", bert.id());
    let semantic = evaluate(&set, &records, Some(&bert), &vectors);
    table(
        &[("lexical BM25", &lexical), ("semantic MiniLM", &semantic)],
        set.queries.len(),
    );
    assert!(semantic.class("lexical").0 >= 10, "{semantic:?}");
    assert!(semantic.class("paraphrase").0 >= 2, "{semantic:?}");
    assert!(semantic.empty_off >= 9, "{semantic:?}");
    assert!(
        semantic.injected < lexical.injected,
        "no fallback padding with semantics: {semantic:?} {lexical:?}"
    );
}
