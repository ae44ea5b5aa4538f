//! multilingual-e5-small end to end, as a user installs and asks it: `setup-embeddings
//! --multilingual` from a hub (a local one serving the tests' copy: the tokenizer's pin checked,
//! the "query: " prompt named), a fact in one language recalled for a question in another, and
//! off-topic messages in other languages left empty, with it and with the English MiniLM.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed unwrap is a failed test

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use localm_tests::{Env, e5_model, embed_model, recall_json as recall, recalled_texts as texts};
use serde_json::Value;

/// A hub serving `model`'s files as Hugging Face serves intfloat/multilingual-e5-small, without
/// the prompt file (upstream's names none); `tamper` adds a byte to the tokenizer.
struct Hub {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn hub(model: &Path, tamper: bool) -> Hub {
    let dir = tempfile::tempdir().unwrap();
    let served = dir
        .path()
        .join("intfloat/multilingual-e5-small/resolve/main");
    std::fs::create_dir_all(served.join("1_Pooling")).unwrap();
    for file in [
        "config.json",
        "model.safetensors",
        "1_Pooling/config.json",
        "sentence_bert_config.json",
    ] {
        std::os::unix::fs::symlink(model.join(file), served.join(file)).unwrap();
    }
    let mut tokenizer = std::fs::read(model.join("tokenizer.json")).unwrap();
    if tamper {
        // Still valid JSON, and still a tokenizer: only the pin tells.
        tokenizer.push(b'\n');
    }
    std::fs::write(served.join("tokenizer.json"), tokenizer).unwrap();
    let mut child = Command::new("python3")
        .args([
            "-u",
            "-m",
            "http.server",
            "0",
            "--bind",
            "127.0.0.1",
            "--directory",
        ])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m http.server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    let port = line
        .split_whitespace()
        .skip_while(|w| *w != "port")
        .nth(1)
        .unwrap_or_else(|| panic!("no port in {line:?}"))
        .to_string();
    Hub {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _dir: dir,
    }
}

fn setup_from_hub(env: &Env, hub: &Hub) -> localm_tests::Run {
    localm_tests::Run(
        env.cmd(&["setup-embeddings", "--multilingual"])
            .env("LOCALM_MODE", "log")
            .env("HF_ENDPOINT", &hub.url)
            .output()
            .unwrap(),
    )
}

#[test]
fn setup_embeddings_multilingual_pins_the_tokenizer_and_names_the_prompt() {
    let Some(model) = e5_model() else { return };
    let env = Env::new();
    env.log(&["memory", "add", "Mi hermana Lucía vive en Buenos Aires."])
        .ok();

    // A tokenizer that is not upstream's byte for byte: refused, nothing installed.
    let bad = hub(&model, true);
    let err = setup_from_hub(&env, &bad).fails(1);
    assert!(
        err.contains("tokenizer.json is not the expected file"),
        "{err}"
    );
    let installed = env
        .data_dir()
        .join("models/embeddings/multilingual-e5-small");
    assert!(!installed.exists());

    let good = hub(&model, false);
    let out = setup_from_hub(&env, &good).ok();
    assert!(out.contains("installed multilingual-e5-small"), "{out}");
    assert!(out.contains("embedded 1 existing facts"), "{out}");
    let prompt: Value = serde_json::from_slice(
        &std::fs::read(installed.join("config_sentence_transformers.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(prompt["prompts"]["query"], "query: ");
    // The same vectors as the tests' copy, which names the prompt itself: the same model id.
    let v = recall(&env, "Where does my sister live?");
    assert!(v["degrade"].is_null(), "{v}");
    assert_eq!(texts(&v), vec!["Mi hermana Lucía vive en Buenos Aires."]);
}

const FACTS: &[&str] = &[
    "Mi hermana Lucía vive en Buenos Aires.",
    "我对芒果过敏。",
    "User works as a nurse at the Royal Infirmary in Edinburgh",
    "Ich spiele Trompete in einer Blaskapelle.",
];

const OFF_TOPIC: &[&str] = &[
    "Quelle est la hauteur de la tour Eiffel ?",
    "地球到月球有多远？",
    "지구에서 달까지 거리는?",
    "How far is the moon from the earth?",
];

#[test]
fn a_fact_in_one_language_answers_a_question_in_another() {
    let Some(model) = e5_model() else { return };
    let env = Env::new();
    for f in FACTS {
        env.log(&["memory", "add", f]).ok();
    }
    env.log(&["setup-embeddings", "--from", model.to_str().unwrap()])
        .ok();
    // Cross-language cosines sit near the gate (0.83–0.87 here): "我姐姐住在哪里？" (0.837 to
    // the Spanish fact) and a mango dessert (0.828 to "我对芒果过敏。") stay under it.
    for (q, want) in [
        ("Where does my sister live?", FACTS[0]),
        ("我在哪里工作？", FACTS[2]),
        ("What instrument do I play?", FACTS[3]),
    ] {
        let v = recall(&env, q);
        assert!(texts(&v).iter().any(|t| t == want), "{q}: {v}");
    }
    for q in OFF_TOPIC {
        let v = recall(&env, q);
        assert!(texts(&v).is_empty(), "{q}: {v}");
    }
}

#[test]
fn an_english_model_leaves_other_languages_to_words() {
    let Some(model) = embed_model() else { return };
    let env = Env::new();
    for f in FACTS {
        env.log(&["memory", "add", f]).ok();
    }
    env.log(&["setup-embeddings", "--from", model.to_str().unwrap()])
        .ok();
    for q in &OFF_TOPIC[..3] {
        let v = recall(&env, q);
        assert_eq!(v["degrade"], "other_language", "{q}: {v}");
        assert!(texts(&v).is_empty(), "{q}: {v}");
    }
    let v = recall(&env, OFF_TOPIC[3]);
    assert!(v["degrade"].is_null() && texts(&v).is_empty(), "{v}");
    // An English message finds a fact in another language by a name they share, as words
    // alone would; the model does not score that fact.
    let v = recall(&env, "Where does Lucía live?");
    assert!(v["degrade"].is_null(), "{v}");
    assert_eq!(texts(&v), vec![FACTS[0]], "{v}");
}
