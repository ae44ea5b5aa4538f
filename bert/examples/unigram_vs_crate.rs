//! The tokenizer embedding uses against the `tokenizers` crate's own, on every string of the
//! JSON files given (`cargo run --release -p localm-bert --example unigram_vs_crate -- MODEL_DIR
//! FILE.json…`): how many texts get other ids, and the time a text each takes, three rounds.
#![allow(clippy::unwrap_used)] // a measuring script: a failed unwrap is a failed run
use std::time::Instant;
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let mut texts = Vec::new();
    for f in &args[2..] {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        strings(&v, &mut texts);
    }
    println!("{} texts", texts.len());
    let ours = localm_bert::tokenizer(dir).unwrap();
    let mut theirs = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    theirs.with_padding(None);
    theirs
        .with_truncation(Some(tokenizers::TruncationParams {
            max_length: 256,
            ..Default::default()
        }))
        .unwrap();
    let mut diff = 0;
    for t in &texts {
        if ours.encode(t.as_str(), true).unwrap().get_ids()
            != theirs.encode(t.as_str(), true).unwrap().get_ids()
        {
            diff += 1;
            if diff < 5 {
                println!("DIFF {t:?}");
            }
        }
    }
    println!("differ: {diff}");
    for round in 0..3 {
        // Fresh strings each round, so that the crate's cache does not answer.
        let s = Instant::now();
        for t in &texts {
            let x = format!("{t} {round}a");
            std::hint::black_box(ours.encode(x.as_str(), true).unwrap());
        }
        let a = s.elapsed();
        let s = Instant::now();
        for t in &texts {
            let x = format!("{t} {round}b");
            std::hint::black_box(theirs.encode(x.as_str(), true).unwrap());
        }
        let b = s.elapsed();
        println!(
            "round {round}: ours {:.1} µs/text, crate {:.1} µs/text",
            a.as_secs_f64() * 1e6 / texts.len() as f64,
            b.as_secs_f64() * 1e6 / texts.len() as f64
        );
    }
}
