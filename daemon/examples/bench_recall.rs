//! Recall benchmarks over a 256-record store: in-process recall latency (lexical, and semantic
//! with the real embedding model), query-embedding latency and where it goes (tokeniser, the
//! encoder by query length; `bert/examples/vs_candle.rs` times candle-transformers' `BertModel`
//! beside it), and backfill throughput.
//! `cargo run -p localm --example bench_recall` (model: $LOCALM_TEST_EMBED_MODEL or
//! test-models/all-MiniLM-L6-v2). Prints median, p99, min and max of one run.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Utc};
use localm::models::embedder::BertEmbedder;
use localm_core::models::Embedder;
use localm_core::recall::lexical::LexicalIndex;
use localm_core::recall::query::{Agent, ChatMessage, Query, build_query};
use localm_core::recall::{Degrade, Semantic, plan_semantic, recall};
use localm_core::record::{Kind, Record, Source};
use localm_core::store::vectors::{Vectors, entries_for};

const SUBJECTS: &[&str] = &[
    "printer firmware",
    "the Rust backend",
    "a Go service",
    "Neovim config",
    "the cello",
    "Japanese study",
    "half marathon training",
    "green tea",
    "Arch Linux",
    "GitLab CI",
    "the electric car fund",
    "a border collie",
    "vegetarian cooking",
    "the split keyboard",
    "PostgreSQL tuning",
    "a hiking trip",
];
const VERBS: &[&str] = &[
    "works on",
    "prefers",
    "is learning",
    "debugged",
    "planned",
    "uses",
];

fn records() -> Vec<Record> {
    let t: DateTime<Utc> = "2026-03-01T00:00:00Z".parse().unwrap();
    (0..256)
        .map(|i| {
            Record::new(
                &format!("{i:08x}"),
                &format!(
                    "The user {} {} (note {i}, detail {})",
                    VERBS[i % VERBS.len()],
                    SUBJECTS[i % SUBJECTS.len()],
                    i * 7 % 13
                ),
                if i % 5 == 0 {
                    Kind::Episodic
                } else {
                    Kind::Semantic
                },
                if i % 3 == 0 {
                    Source::Synth
                } else {
                    Source::User
                },
                0.5 + (i % 5) as f32 / 10.0,
                t,
            )
        })
        .collect()
}

fn report(name: &str, mut samples: Vec<f64>, unit: &str) {
    samples.sort_by(f64::total_cmp);
    let n = samples.len();
    let p = |q: f64| samples[((n as f64 * q).ceil() as usize).clamp(1, n) - 1];
    println!(
        "{name:48} n={n:<5} p50 {:>9.3} {unit}  p99 {:>9.3} {unit}  min {:>9.3}  max {:>9.3}",
        p(0.5),
        p(0.99),
        samples[0],
        samples[n - 1]
    );
}

fn time<F: FnMut()>(runs: usize, mut f: F) -> Vec<f64> {
    for _ in 0..runs.min(50) {
        f();
    }
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

fn main() {
    let recs = records();
    let now: DateTime<Utc> = "2026-03-05T00:00:00Z".parse().unwrap();
    let msgs = [
        ChatMessage::user("my printer firmware build is failing again"),
        ChatMessage::user("any ideas what to check first?"),
    ];
    let query = build_query(&msgs, Agent::Chat).unwrap();
    let index = LexicalIndex::new(recs.iter().map(|r| r.text.as_str()));
    let lexical = Semantic::Unavailable(Degrade::NoEmbedder);

    println!("== recall over {} records, in process", recs.len());
    report(
        "lexical recall (index cached)",
        time(2000, || {
            black_box(recall(&recs, &index, &lexical, &query, now));
        }),
        "µs",
    );
    report(
        "lexical recall (index built per call)",
        time(2000, || {
            let index = LexicalIndex::new(recs.iter().map(|r| r.text.as_str()));
            black_box(recall(&recs, &index, &lexical, &query, now));
        }),
        "µs",
    );

    let model = std::env::var_os("LOCALM_TEST_EMBED_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-models/all-MiniLM-L6-v2")
        });
    if !model.exists() {
        println!(
            "(no embedding model at {}: run scripts/fetch-test-models)",
            model.display()
        );
        return;
    }
    let t = Instant::now();
    let bert = BertEmbedder::load(&model).expect("load embedding model");
    println!(
        "embedding model {} loaded in {:.1} ms",
        bert.id(),
        t.elapsed().as_secs_f64() * 1e3
    );

    let texts: Vec<&str> = recs.iter().map(|r| r.text.as_str()).collect();
    for batch in [16usize, 32, 64] {
        let t = Instant::now();
        for chunk in texts.chunks(batch) {
            black_box(bert.embed(chunk).unwrap());
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "backfill of 256 records, batch {batch:>2}: {:.2} s = {:.0} records/s",
            s,
            256.0 / s
        );
    }
    let vecs = bert.embed(&texts).unwrap();
    let vectors = Vectors::new(entries_for(&recs, vecs, bert.id()));
    // Each call a text not seen before: the embedder keeps the last few queries' vectors.
    let mut n = 0;
    let mut fresh = |text: &str| {
        n += 1;
        format!("{text} {n}")
    };
    report(
        "query embedding (short query)",
        time(200, || {
            let q = fresh("what editor do I use?");
            black_box(bert.embed(&[q.as_str()]).unwrap());
        })
        .into_iter()
        .map(|us| us / 1e3)
        .collect(),
        "ms",
    );
    report(
        "semantic recall incl. query embedding",
        time(200, || {
            // A latest message new to the embedder's cache.
            let q = Query {
                latest: fresh(&query.latest),
                text: query.text.clone(),
            };
            let sem = plan_semantic(&recs, Some(&vectors), Some(&bert as &dyn Embedder), &q);
            black_box(recall(&recs, &index, &sem, &query, now));
        })
        .into_iter()
        .map(|us| us / 1e3)
        .collect(),
        "ms",
    );
    // Where a query's time goes: the tokeniser alone, then the encoder (tokenising, 6 layers,
    // pooling) by query length.
    let tokenizer = localm::models::bert::tokenizer(&model).unwrap();
    let lengths = [
        ("short", "what editor do I use?".to_string()),
        ("2 turns", query.text.clone()),
        (
            "long",
            "I write printer firmware in C at Acme and the build is failing. ".repeat(8),
        ),
    ];
    for (what, text) in &lengths {
        let tokens = tokenizer
            .encode(text.as_str(), true)
            .unwrap()
            .get_ids()
            .len();
        report(
            &format!("tokeniser only, {what} ({tokens} tokens)"),
            time(200, || {
                black_box(tokenizer.encode(fresh(text).as_str(), true).unwrap());
            }),
            "µs",
        );
        let ms = |v: Vec<f64>| v.into_iter().map(|us| us / 1e3).collect::<Vec<_>>();
        report(
            &format!("query embedding, {what} ({tokens} tokens)"),
            ms(time(200, || {
                black_box(bert.embed(&[fresh(text).as_str()]).unwrap());
            })),
            "ms",
        );
    }

    let ready = Semantic::Ready {
        query: bert.embed(&[&query.latest]).unwrap().remove(0),
        window: None,
        vectors: &vectors,
        model: bert.id(),
    };
    report(
        "semantic recall, query vector given",
        time(2000, || {
            black_box(recall(&recs, &index, &ready, &query, now));
        }),
        "µs",
    );
}
