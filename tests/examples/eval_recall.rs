//! Recall quality on the labelled set in `tests/data/recall-set/`: hit@1, hit@6, recall@6, MRR
//! and the share of off-topic messages that inject nothing, lexical and semantic (the embedding
//! model given), for the tuning half and the held-out half. Misses and the signal dump are only
//! ever shown for the tuning half, so tuning never sees the held-out items.
//!
//! `cargo run --release -p localm-tests --example eval_recall -- [MODEL_DIR] [--misses] [--dump FILE]`
//! (`scripts/bench recall-quality` runs it with the test model). With `--set recall-set-languages`
//! (or any folder of `tests/data/`), it prints each half by language, asked with the chat's
//! window and with the latest message alone. `--dump FILE` writes the tuning half's signals
//! (`--half NAME` another half, for a set that has been read already).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::{Path, PathBuf};

use localm::models::embedder::BertEmbedder;
use localm_core::models::Embedder;
use localm_core::recall::lexical::{LexicalIndex, content_words};
use localm_tests::recall_set::{
    HALVES, HEADER, Set, Turns, evaluate, evaluate_turns, load, load_from, records,
};

/// For tuning the gate outside Rust: every query's signals against every fact (tune half only).
fn dump(set: &Set, embedder: Option<&BertEmbedder>, out: &Path) {
    use std::io::Write;
    let records = records(set);
    let index = LexicalIndex::new(records.iter().map(|r| r.text.as_str()));
    let fact_vecs = embedder.map(|e| {
        let texts: Vec<&str> = records.iter().map(|r| r.text.as_str()).collect();
        e.embed(&texts).expect("embedding the facts")
    });
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    for l in &set.queries {
        let words = content_words(&l.q);
        let weighed = index.weigh(&words);
        let qv = embedder.map(|e| e.embed(&[l.q.as_str()]).unwrap().remove(0));
        let share: Vec<f32> = (0..records.len())
            .map(|i| index.share(i, &weighed))
            .collect();
        let shared: Vec<Vec<&str>> = (0..records.len())
            .map(|i| index.shared_words(i, &weighed))
            .collect();
        let cos: Vec<f32> = match (&qv, &fact_vecs) {
            (Some(q), Some(f)) => f
                .iter()
                .map(|v| localm_core::store::vectors::dot(q, v))
                .collect(),
            _ => Vec::new(),
        };
        let line = serde_json::json!({
            "q": l.q, "class": l.class, "expect": l.expect, "words": words,
            "about_user": localm_core::recall::gate::is_about_user(&l.q),
            "mass": weighed.mass,
            "idf": words.iter().map(|w| index.weigh(std::slice::from_ref(w)).mass).collect::<Vec<_>>(), "share": share, "shared": shared, "cos": cos,
            "ids": records.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        });
        writeln!(file, "{line}").unwrap();
    }
}

/// The classes added with issue 24, also reported on their own.
const NEW_CLASSES: [&str; 2] = ["constraint", "when"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let misses = args.iter().any(|a| a == "--misses");
    let dump_to = args
        .iter()
        .position(|a| a == "--dump")
        .map(|p| PathBuf::from(&args[p + 1]));
    let set_name = args
        .iter()
        .position(|a| a == "--set")
        .map(|p| args[p + 1].clone());
    let model = args
        .iter()
        .enumerate()
        .find(|(k, a)| {
            !a.starts_with("--")
                && (*k == 0 || !matches!(args[k - 1].as_str(), "--dump" | "--set" | "--half"))
        })
        .map(|(_, a)| PathBuf::from(a));
    let bert = model.map(|m| BertEmbedder::load(&m).expect("the embedding model"));
    if let Some(out) = dump_to {
        let set = set_name.as_deref().unwrap_or("recall-set");
        let half = args.iter().position(|a| a == "--half").map_or("tune", |p| {
            args.get(p + 1).expect("--half NAME: which half to dump")
        });
        dump(&load_from(set, half), bert.as_ref(), &out);
        return;
    }
    if let Some(name) = set_name {
        by_language(&name, bert.as_ref(), misses);
        return;
    }
    println!("{HEADER}");
    let mut classes = Vec::new();
    let mut blocks = Vec::new();
    for half in HALVES {
        let show = misses && half == "tune";
        let set = load(half);
        let lexical = evaluate(&set, None, show);
        println!("{}", lexical.row(&format!("{half}, lexical")));
        blocks.push(format!("{half}, lexical: {}", lexical.blocks()));
        classes.push((format!("{half}, lexical"), lexical));
        if let Some(b) = &bert {
            let semantic = evaluate(&set, Some(b), show);
            println!(
                "{}",
                semantic.row(&format!("{half}, semantic ({})", b.id()))
            );
            blocks.push(format!("{half}, semantic: {}", semantic.blocks()));
            classes.push((format!("{half}, semantic"), semantic));
        }
    }
    println!("\nThe blocks:");
    for b in &blocks {
        println!("  {b}");
    }
    println!("\nThe new classes alone (on-topic figures; off-topic does not apply):\n{HEADER}");
    for (name, f) in &classes {
        for class in NEW_CLASSES {
            if let Some(c) = f.by_class.get(class) {
                println!("{}", c.row(&format!("{name}, {class}")));
            }
        }
    }
}

/// Each half of `tests/data/<name>/` by language, lexical and (with a model) semantic, asked
/// with the chat's window and with the latest message alone.
fn by_language(name: &str, bert: Option<&BertEmbedder>, misses: bool) {
    let signal = bert.map_or("lexical".to_string(), |b| format!("semantic ({})", b.id()));
    println!("{signal}\n{HEADER}");
    for half in HALVES {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name)
            .join(format!("{half}.json"));
        if !file.is_file() {
            continue; // a probe has one half
        }
        let set = load_from(name, half);
        for (turns, label) in [
            (Turns::Window, "window"),
            (Turns::LatestOnly, "latest only"),
        ] {
            let f = evaluate_turns(&set, bert, turns, misses && half == "tune");
            println!("{}", f.row(&format!("{half}, {label}, all")));
            println!("  {}", f.blocks());
            for (lang, l) in &f.by_lang {
                println!("{}", l.row(&format!("{half}, {label}, {lang}")));
            }
        }
    }
}
