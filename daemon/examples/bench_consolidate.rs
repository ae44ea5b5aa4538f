//! Consolidation benchmarks with the real SmolLM2-135M-Instruct: one whole pass over about
//! 8,000 characters of session log on a temp store, and the generator's prompt and generation
//! speed (tokens/s) with and without a grammar.
//! `cargo run -p localm --example bench_consolidate` (model: $LOCALM_TEST_LLM_MODEL or
//! test-models/SmolLM2-135M-Instruct.Q4_1.gguf; threads: $LOCALM_THREADS or physical cores).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::time::Instant;

use chrono::Utc;
use localm::models::llama::Llama;
use localm_core::consolidate::{self, Pass, grammar, prompt};
use localm_core::engine::{Generator, Message};
use localm_core::settings::Mode;
use localm_core::store::Store;

const LINES: &[&str] = &[
    "Hi, I'm Priya. I work as a firmware engineer at Nordlys Instruments in Trondheim.",
    "Our printer firmware is written in C, but I write most of my tooling in Rust.",
    "I use Neovim with a split ergonomic keyboard because of wrist pain.",
    "Can you help me figure out why the upload test in our GitLab CI is flaky?",
    "It fails maybe one run in ten, always on the step that talks to the USB emulator.",
    "I prefer concise answers with code examples, please.",
];

fn main() {
    let model = std::env::var_os("LOCALM_TEST_LLM_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../test-models/SmolLM2-135M-Instruct.Q4_1.gguf")
        });
    let threads = std::env::var("LOCALM_THREADS")
        .ok()
        .and_then(|t| t.parse().ok());
    let t = Instant::now();
    let mut llama = Llama::load(&model, threads).expect("load the GGUF");
    println!(
        "{} loaded in {:.0} ms",
        llama.name(),
        t.elapsed().as_secs_f64() * 1e3
    );

    // An ~8,000-character log, as a pass reads it.
    let mut log_lines = Vec::new();
    let mut chars = 0;
    let mut i = 0;
    while chars < prompt::SESSION_CHARS - 200 {
        let u = format!("user: {}", LINES[i % LINES.len()]);
        let a = "assistant: Understood. Check the USB emulator's timeout and retry logic, and log the device state before the upload step.".to_string();
        chars += u.len() + a.len() + 2;
        log_lines.push(u);
        log_lines.push(a);
        i += 1;
    }
    let log = log_lines.join("\n");
    let short: String = log.chars().take(900).collect();

    println!(
        "== generation, {} threads (p50 of 5 runs; min–max)",
        threads.map_or("default".into(), |t: usize| t.to_string())
    );
    for (name, text, grammar) in [
        (
            "~350-token prompt, candidates grammar",
            &short,
            Some(grammar::candidates()),
        ),
        ("~350-token prompt, no grammar", &short, None),
        ("8,000-char prompt, no grammar", &log, None),
        (
            "8,000-char prompt, candidates grammar",
            &log,
            Some(grammar::candidates()),
        ),
    ] {
        let messages: Vec<Message> = prompt::extract(text);
        let mut pp = Vec::new();
        let mut tg = Vec::new();
        let mut tokens = (0, 0);
        for _ in 0..5 {
            // A grammar that accepts anything for the free-running case.
            let g = grammar
                .clone()
                .unwrap_or_else(|| "root ::= [^\\x00]*".to_string());
            let out = llama.generate(&messages, &g, 128).expect("generate");
            pp.push(out.prompt_tokens as f64 / out.prompt_ms * 1e3);
            tg.push(out.gen_tokens as f64 / out.gen_ms.max(1e-9) * 1e3);
            tokens = (out.prompt_tokens, out.gen_tokens);
        }
        let stat = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            format!(
                "{:>6.1} ({:.1}–{:.1})",
                v[v.len() / 2],
                v[0],
                v[v.len() - 1]
            )
        };
        println!(
            "{name:40} prompt {:>4} tok: {} tok/s   generated {:>3} tok: {} tok/s",
            tokens.0,
            stat(&mut pp),
            tokens.1,
            stat(&mut tg)
        );
    }

    println!(
        "== one whole pass over {} characters of session log",
        log.len()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let mut text = String::new();
    for l in &log_lines {
        let (role, content) = l.split_once(": ").unwrap();
        text.push_str(&serde_json::json!({"role": role, "content": content}).to_string());
        text.push('\n');
    }
    std::fs::write(sessions.join("bench.jsonl"), text).unwrap();
    let store = Store::new(dir.path(), "chat", "bench");
    let pass = Pass {
        store: &store,
        sessions_dir: sessions,
        mode: Mode::Log,
        now: Utc::now(),
        pass_id: "bench".into(),
        extraction: localm::cli::consolidate::extraction().expect("LOCALM_EXTRACTION"),
    };
    let t = Instant::now();
    let report = consolidate::run(
        &pass,
        Box::new(move || Ok(Box::new(llama) as Box<dyn Generator>)),
        None,
    )
    .expect("pass");
    let m = &report.model;
    println!(
        "pass: {:.2} s wall; model {} calls, prompt {} tok in {:.0} ms ({:.0} tok/s), generated {} tok in {:.0} ms ({:.0} tok/s); added {}, skipped {}",
        t.elapsed().as_secs_f64(),
        m.calls,
        m.prompt_tokens,
        m.prompt_ms,
        m.prompt_tokens as f64 / m.prompt_ms * 1e3,
        m.gen_tokens,
        m.gen_ms,
        m.gen_tokens as f64 / m.gen_ms.max(1e-9) * 1e3,
        report.added.len(),
        report.skipped.len(),
    );
    for a in &report.added {
        println!("  added: {}", a.text);
    }
}
