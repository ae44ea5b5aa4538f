//! `localm memory recall`, `backfill` and `setup-embeddings` with the real all-MiniLM-L6-v2:
//! paraphrases recalled, off-topic turns empty, and each degrade reason from its real cause.
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::fs;
use std::path::Path;

use localm_core::store::vectors::{VectorEntry, encode};
use localm_tests::fixtures::write_settings;
use localm_tests::{Env, embed_model, recall_json as recall, recalled_texts as ids};
use serde_json::Value;

fn add_all(env: &Env, facts: &[&str]) {
    for f in facts {
        env.log(&["memory", "add", f]).ok();
    }
}

fn setup(env: &Env, model: &Path) -> String {
    env.log(&["setup-embeddings", "--from", model.to_str().unwrap()])
        .ok()
}

// With all-MiniLM-L6-v2, "Do I eat meat?" and "I am vegetarian" share no word and have cosine
// ~0.68, above the 0.55 gate; "How tall is Mount Everest?" is below it for every fact.
const FACTS: &[&str] = &[
    "I am vegetarian",
    "I work as a firmware engineer at Nordlys Instruments",
    "I prefer tea over coffee, usually green tea",
    "I live in Trondheim, Norway",
];

#[test]
fn lexical_recall_without_an_embedder_says_no_embedder() {
    let env = Env::new();
    add_all(&env, FACTS);
    let v = recall(&env, "How is the firmware release going?");
    assert_eq!(v["degrade"], "no_embedder");
    assert_eq!(ids(&v), vec![FACTS[1]]);
    assert!(v["block"].as_str().unwrap().contains(&format!(
        "```memory\n- {}: I work as a firmware engineer",
        chrono::Utc::now().format("%Y-%m-%d")
    )));
    assert!(
        v["header"]
            .as_str()
            .unwrap()
            .ends_with("; degrade=no_embedder")
    );
    // Off topic: nothing, not the top few regardless.
    let v = recall(&env, "How tall is Mount Everest?");
    assert!(ids(&v).is_empty());
    assert_eq!(v["block"], "");
}

/// A request for advice recalls the standing constraint on it with no shared word, and says why
/// in `--explain` and the JSON.
#[test]
fn a_request_for_advice_recalls_the_diet_and_explain_says_constraint() {
    let env = Env::new();
    add_all(&env, FACTS);
    let v = recall(&env, "Any dinner ideas for tonight?");
    assert_eq!(ids(&v), vec![FACTS[0]]);
    assert_eq!(v["items"][0]["constraint"], "diet");
    let explained = env
        .log(&[
            "memory",
            "recall",
            "Any dinner ideas for tonight?",
            "--explain",
        ])
        .ok();
    assert!(
        explained.contains("I am vegetarian (constraint: diet)")
            && explained.contains("constraint: diet  "),
        "{explained}"
    );
}

#[test]
fn privacy_mode_recalls_nothing_unless_opted_in() {
    let env = Env::new();
    add_all(&env, FACTS);
    let out = env.run(&["memory", "recall", "firmware", "--json"]);
    let v: Value = serde_json::from_str(&out.ok()).unwrap();
    assert!(ids(&v).is_empty());
    assert!(out.stderr().contains("privacy mode recalls nothing"));
    write_settings(&env, &serde_json::json!({"memory_recall_in_privacy": true}));
    let v: Value =
        serde_json::from_str(&env.run(&["memory", "recall", "firmware", "--json"]).ok()).unwrap();
    assert_eq!(ids(&v), vec![FACTS[1]]);
}

#[test]
fn semantic_recall_finds_a_paraphrase_and_ignores_off_topic() {
    let Some(model) = embed_model() else { return };
    let env = Env::new();
    add_all(&env, FACTS);
    let out = setup(&env, &model);
    assert!(out.contains("embedded 4 existing facts; 0 left"), "{out}");
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(env.data_dir().join("settings.json")).unwrap())
            .unwrap();
    assert!(
        settings["embedding_model"]
            .as_str()
            .unwrap()
            .contains("models/embeddings/all-MiniLM-L6-v2")
    );

    // No content word in common with the fact.
    let v = recall(&env, "Do I eat meat?");
    assert_eq!(v["degrade"], Value::Null, "{v}");
    assert!(ids(&v).contains(&FACTS[0].to_string()), "{v}");
    let v = recall(&env, "How tall is Mount Everest?");
    assert!(ids(&v).is_empty(), "{v}");

    let explained = env
        .log(&["memory", "recall", "Do I eat meat?", "--explain"])
        .ok();
    assert!(
        explained.contains("COSINE") && explained.contains("similar"),
        "{explained}"
    );
}

#[test]
fn no_vectors_then_low_coverage_then_backfill_turns_semantic_on() {
    let Some(model) = embed_model() else { return };
    let env = Env::new();
    setup(&env, &model);
    add_all(&env, FACTS);
    assert_eq!(recall(&env, "Do I eat meat?")["degrade"], "no_vectors");
    let out = env.log(&["memory", "backfill", "--limit", "1"]).ok();
    assert!(
        out.contains("embedded 1 facts") && out.contains("3 left"),
        "{out}"
    );
    assert_eq!(recall(&env, "Do I eat meat?")["degrade"], "low_coverage");
    env.log(&["memory", "backfill"]).ok();
    let v = recall(&env, "Do I eat meat?");
    assert_eq!(v["degrade"], Value::Null);
    assert!(ids(&v).contains(&FACTS[0].to_string()));
}

#[test]
fn a_sidecar_mixing_dimensions_says_dim_mismatch() {
    let Some(model) = embed_model() else { return };
    let env = Env::new();
    add_all(&env, FACTS);
    setup(&env, &model);
    // A vector from a 768-dimension model left in the sidecar (as after switching models).
    let path = env.store_dir().join("memory.vec");
    let mut entries = localm_core::store::vectors::decode(&fs::read(&path).unwrap()).unwrap();
    entries.push(VectorEntry {
        id: "old00001".into(),
        text_hash: 1,
        model: "bge-base:768".into(),
        vector: vec![0.0; 768],
    });
    fs::write(&path, encode(&entries)).unwrap();
    assert_eq!(recall(&env, "Do I eat meat?")["degrade"], "dim_mismatch");
    // The backfill drops vectors that are not the current model's.
    env.log(&["memory", "backfill"]).ok();
    assert_eq!(recall(&env, "Do I eat meat?")["degrade"], Value::Null);
}

#[test]
fn an_embedder_failing_on_the_query_says_query_embed_failed() {
    let Some(model) = embed_model() else { return };
    let env = Env::new();
    add_all(&env, FACTS);
    // A copy of the model whose tokenizer maps one word to an id past the vocabulary: it loads
    // and embeds the facts, but fails on a query containing that word.
    let broken = env.data_dir().join("broken-model");
    fs::create_dir_all(broken.join("1_Pooling")).unwrap();
    for f in ["config.json", "model.safetensors", "1_Pooling/config.json"] {
        fs::copy(model.join(f), broken.join(f)).unwrap();
    }
    let mut tok: Value =
        serde_json::from_str(&fs::read_to_string(model.join("tokenizer.json")).unwrap()).unwrap();
    tok["model"]["vocab"]["zzqqxx"] = 999_999.into();
    fs::write(broken.join("tokenizer.json"), tok.to_string()).unwrap();
    write_settings(&env, &serde_json::json!({ "embedding_model": broken }));
    env.log(&["memory", "backfill"]).ok();
    assert_eq!(recall(&env, "Do I eat meat?")["degrade"], Value::Null);
    let v = recall(&env, "zzqqxx");
    assert_eq!(v["degrade"], "query_embed_failed", "{v}");
}

#[test]
fn setup_embeddings_says_what_is_missing() {
    let env = Env::new();
    let empty = env.data_dir().join("not-a-model");
    fs::create_dir_all(&empty).unwrap();
    fs::write(empty.join("config.json"), "{}").unwrap();
    let err = env
        .log(&["setup-embeddings", "--from", empty.to_str().unwrap()])
        .fails(1);
    assert!(
        err.contains("model.safetensors") && err.contains("tokenizer.json"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        !env.data_dir().join("settings.json").exists(),
        "nothing changed"
    );
}

/// Ten identity and place questions over a store a real pass built (SmolLM2-135M) from one
/// chat, lexical and then semantic (all-MiniLM-L6-v2): each recalls a fact that answers it, and
/// off-topic questions recall nothing.
#[test]
fn identity_and_place_questions_find_the_facts_a_pass_stored() {
    let (Some(llm), Some(embed)) = (localm_tests::llm_model(), embed_model()) else {
        return;
    };
    let env = Env::new();
    env.log(&["setup-model", "--from", llm.to_str().unwrap()])
        .ok();
    env.write_session(
        "intro",
        &[
            "My name is Priya.",
            "I moved to Edinburgh in May.",
            "I work as a nurse at the Royal Infirmary.",
            "I'm building a budgeting app in Rust.",
        ],
    );
    let report = env.log(&["memory", "consolidate", "--json"]).ok();
    let stored: Vec<String> = env
        .records()
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    let questions = [
        ("What is my name?", "Priya"),
        ("what's my name again", "Priya"),
        ("Who am I?", "Priya"),
        ("Where do I live?", "Edinburgh"),
        ("where do I live now?", "Edinburgh"),
        ("What do I do for a living?", "nurse"),
        ("What's my job?", "nurse"),
        ("Where do I work?", "nurse"),
        ("What am I working on?", "budgeting"),
        ("what am I building?", "budgeting"),
    ];
    let check = |how: &str| {
        let missed: Vec<&str> = questions
            .iter()
            .filter(|(q, want)| !ids(&recall(&env, q)).iter().any(|t| t.contains(want)))
            .map(|(q, _)| *q)
            .collect();
        assert!(
            missed.is_empty(),
            "{how}: {missed:?} recalled no answer; stored {stored:?}\n{report}"
        );
        for off in ["How tall is Mount Everest?", "Write a haiku about rain."] {
            assert!(ids(&recall(&env, off)).is_empty(), "{how}: {off:?}");
        }
    };
    check("lexical");
    setup(&env, &embed);
    check("semantic");
}
