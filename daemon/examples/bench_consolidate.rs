//! Consolidation benchmarks with the real SmolLM2-135M-Instruct: prompt and generation speed
//! (tokens/s) at the prompt sizes `scripts/bench-llama-cpp-python.py` times in llama.cpp's own
//! binding (`gen`, or `gen474` for the short one only), a pass's rewrite calls from a cold and a
//! warm context (`rewrite`), and whole passes over about 8,000 characters of session log on a
//! temp store (`pass`). No argument runs all three.
//! `cargo run -p localm --example bench_consolidate [gen|gen474|rewrite|pass]...` (model:
//! $LOCALM_TEST_LLM_MODEL or test-models/SmolLM2-135M-Instruct.Q4_1.gguf; threads:
//! $LOCALM_THREADS fixed, else as many as other processes leave cores free).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a failed test

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chrono::Utc;
use localm::models::llama::{GenParams, Llama};
use localm_core::consolidate::{self, Pass, grammar, prompt};
use localm_core::models::{Generator, Message};
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

/// Median (min–max) of the values, one decimal.
fn stat(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "{:>6.1} ({:.1}–{:.1})",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    )
}

/// One user message of `scripts/bench-llama-cpp-python.py`'s text, cut so that the rendered
/// prompt is `n` tokens (or the nearest count above it that characters can reach).
fn prompt_of(llama: &Llama, n: usize) -> Vec<Message> {
    let base = "user: Hi, I'm Priya. I work as a firmware engineer at Nordlys Instruments in Trondheim.\n\
                assistant: Understood. Check the USB emulator's timeout and retry logic.\n";
    let text = base.repeat(n / 10);
    let messages = |chars: usize| {
        vec![Message {
            role: "user".into(),
            content: text.chars().take(chars).collect(),
        }]
    };
    let count = |chars: usize| llama.prompt_tokens(&messages(chars)).expect("tokenize");
    // The smallest cut reaching n tokens.
    let (mut lo, mut hi) = (0, text.chars().count());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if count(mid) < n {
            lo = mid + 1
        } else {
            hi = mid
        }
    }
    messages(lo)
}

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

    // Sections to run: `gen`, `rewrite`, `pass` as arguments (default: all).
    let only: Vec<String> = std::env::args().skip(1).collect();
    let run = |section: &str| only.is_empty() || only.iter().any(|a| a == section);
    let threads_label = threads.map_or("default".into(), |t: usize| t.to_string());
    // The prompt of scripts/bench-llama-cpp-python.py, cut to the same token counts (chat
    // template included), generating freely (greedy, no grammar) from a cold context each run,
    // as that script does after `reset()`.
    println!("== generation, {threads_label} threads, cold context (median of 5 runs; min–max)");
    for (n_prompt, n_gen) in [(474, 128), (2148, 79)]
        .into_iter()
        .filter(|&(n, _)| run("gen") || (n == 474 && run("gen474")))
    {
        let messages = prompt_of(&llama, n_prompt);
        let mut pp = Vec::new();
        let mut tg = Vec::new();
        let mut tokens = (0, 0);
        for _ in 0..5 {
            llama.forget();
            let params = GenParams {
                max_tokens: n_gen,
                grammar: None,
                deadline: Duration::from_secs(600),
                n_ctx: 4096,
                cancel: &std::sync::atomic::AtomicBool::new(false),
                draft: None,
            };
            let (out, _) = llama.generate_with(&messages, &params).expect("generate");
            pp.push(out.prompt_tokens as f64 / out.prompt_ms * 1e3);
            tg.push(out.gen_tokens as f64 / out.gen_ms.max(1e-9) * 1e3);
            tokens = (out.prompt_tokens, out.gen_tokens);
        }
        println!(
            "localm, prompt {:>4} tok: {} tok/s   generation ({} tok): {} tok/s",
            tokens.0,
            stat(&mut pp),
            tokens.1,
            stat(&mut tg)
        );
    }

    // A pass's rewrite calls share their instructions and examples: the second call onwards
    // decodes only the sentence (the warm context's prefix is reused).
    println!("== rewrite calls of a pass (fact grammar; median of 5)");
    let sentences = [
        "I just adopted a beagle named Biscuit and I walk him every morning before work",
        "I work as a firmware engineer at Nordlys Instruments in Trondheim",
    ];
    for (label, warm) in [("cold", false), ("warm", true)]
        .into_iter()
        .filter(|_| run("rewrite"))
    {
        let mut ms = Vec::new();
        let mut decoded = Vec::new();
        for i in 0..5 {
            if !warm {
                llama.forget();
            }
            let messages = prompt::rewrite(sentences[i % 2]);
            let t = Instant::now();
            let out = llama
                .generate(&messages, &grammar::fact(), 48)
                .expect("rewrite");
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            decoded.push(out.prompt_ms);
        }
        println!(
            "{label}: call {} ms; prompt part {} ms",
            stat(&mut ms),
            stat(&mut decoded)
        );
    }

    drop(llama);
    println!(
        "== one whole pass over {} characters of session log, model load included (median of 3)",
        log.len()
    );
    let mut text = String::new();
    for l in &log_lines {
        let (role, content) = l.split_once(": ").unwrap();
        text.push_str(&serde_json::json!({"role": role, "content": content}).to_string());
        text.push('\n');
    }
    let mut walls = Vec::new();
    for i in (0..3).filter(|_| run("pass")) {
        let dir = tempfile::tempdir().expect("temp dir");
        let sessions = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(sessions.join("bench.jsonl"), &text).unwrap();
        let store = Store::new(dir.path(), "chat", "bench");
        let started = Instant::now();
        let pass = Pass {
            store: &store,
            sessions_dir: sessions,
            mode: Mode::Log,
            now: Utc::now(),
            pass_id: "bench".into(),
            elapsed: &move || started.elapsed(),
        };
        let model = model.clone();
        let t = Instant::now();
        let report = consolidate::run(
            &pass,
            Box::new(move || {
                Llama::load(&model, threads).map(|l| Box::new(l) as Box<dyn Generator>)
            }),
            None,
        )
        .expect("pass");
        walls.push(t.elapsed().as_secs_f64());
        let m = &report.model;
        println!(
            "pass {}: {:.2} s wall; model load {:.0} ms, {} calls, prompt {} tok ({} kept warm, {} decoded in {:.0} ms: {:.0} tok/s), generated {} tok in {:.0} ms ({:.0} tok/s); added {}, skipped {}",
            i + 1,
            walls[i],
            m.load_ms,
            m.calls,
            m.prompt_tokens,
            m.cached_tokens,
            m.prompt_tokens - m.cached_tokens,
            m.prompt_ms,
            (m.prompt_tokens - m.cached_tokens) as f64 / m.prompt_ms * 1e3,
            m.gen_tokens,
            m.gen_ms,
            m.gen_tokens as f64 / m.gen_ms.max(1e-9) * 1e3,
            report.added.len(),
            report.skipped.len(),
        );
        if i == 0 {
            for a in &report.added {
                println!("  added: {}", a.text);
            }
        }
    }
    if !walls.is_empty() {
        println!("pass wall: median {} s", stat(&mut walls));
    }
}
