//! The encoder timed beside candle-transformers' `BertModel` on the same texts (a short query,
//! two turns, a long text), with the lowest cosine between their vectors. `scripts/bench recall`
//! runs it: `cargo run --release -p localm-bert --example vs_candle -- MODEL_DIR` (default
//! $LOCALM_TEST_EMBED_MODEL, else test-models/all-MiniLM-L6-v2). Prints p50 and p99 of one run.
#![allow(clippy::unwrap_used)] // bench code: a failed unwrap is a failed run

#[path = "../src/reference.rs"]
mod reference;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use localm_bert::{Bert, TextTokenizer, tokenizer};
use reference::CandleBert;

/// Milliseconds of `n` runs of `f`, sorted.
fn time(n: usize, mut f: impl FnMut(usize)) -> Vec<f64> {
    let mut ms: Vec<f64> = (0..n)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("LOCALM_TEST_EMBED_MODEL").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("test-models/all-MiniLM-L6-v2"));
    let bert = Bert::load(&dir).unwrap();
    let candle = CandleBert::load(&dir, tokenizer(&dir).unwrap()).unwrap();
    let texts = [
        ("short", "what editor do I use?".to_string()),
        (
            "2 turns",
            "which tea do I like? and the one my sister brought back from Kyoto".to_string(),
        ),
        (
            "long",
            "I write printer firmware in C at Acme and the build is failing. ".repeat(8),
        ),
    ];
    let mut worst = 1f32;
    for (what, text) in &texts {
        let tokens = tokenizer(&dir)
            .unwrap()
            .encode(text.as_str(), true)
            .unwrap()
            .get_ids()
            .len();
        // A new text each run (a number appended), as a query window not seen before.
        let fresh = |i: usize| format!("{text} {i}");
        let ours = time(100, |i| {
            black_box(bert.embed(&[fresh(i).as_str()]).unwrap());
        });
        let theirs = time(100, |i| {
            black_box(candle.embed(fresh(i).as_str()).unwrap());
        });
        let a = bert.embed(&[text.as_str()]).unwrap().remove(0);
        let b = candle.embed(text).unwrap();
        worst = worst.min(a.iter().zip(&b).map(|(x, y)| x * y).sum());
        let p = |v: &[f64], q: f64| v[((v.len() - 1) as f64 * q) as usize];
        println!(
            "{what:8} ({tokens:3} tokens)  encoder p50 {:6.2} ms p99 {:6.2}   candle BertModel p50 {:6.2} ms p99 {:6.2}",
            p(&ours, 0.5),
            p(&ours, 0.99),
            p(&theirs, 0.5),
            p(&theirs, 0.99)
        );
    }
    println!("lowest cosine between the two: {worst}");
}
