//! Text generation on llama.cpp (llama-cpp-2): load a GGUF, apply its chat template, sample under a GBNF grammar.
//!
//! llama.cpp is compiled into the binary (CPU only). Its own logging is switched off by default;
//! set `LOCALM_LLAMA_LOG=1` before the first [`LlamaGenerator::load`] to forward it to `tracing`
//! (targets `llama.cpp` / `ggml`) instead.
//!
//! Sampling is greedy (deterministic). Without a grammar, [`LlamaSampler::sample`] on a greedy
//! sampler picks the token (`sample` already accepts it; never call `accept` after `sample`).
//! With a grammar, the grammar sampler is applied to the argmax first and to the whole
//! vocabulary only if the argmax is rejected, and then accepted exactly once per token via
//! `try_accept` (llama.cpp exceptions become errors, double accepts cannot happen).
//!
//! Caveat: llama.cpp aborts the whole process on internal assertions it considers impossible;
//! run generation in a child process if that matters.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, OnceLock};
use std::time::{Duration, Instant};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::gguf::GgufContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::{LogOptions, send_logs_to_tracing};

/// GBNF for the consolidation pass: `{"facts": [...]}` with at most 12 facts, fixed key order,
/// fact text bounded to 200 characters.
pub const CANDIDATES_GBNF: &str = r#"root ::= "{" ws "\"facts\"" ws ":" ws "[" ws facts? ws "]" ws "}"
facts ::= fact (ws "," ws fact){0,11}
fact ::= "{" ws "\"op\"" ws ":" ws op ws "," ws "\"text\"" ws ":" ws text ws "," ws "\"target\"" ws ":" ws target ws "," ws "\"kind\"" ws ":" ws kind ws "," ws "\"confidence\"" ws ":" ws confidence ws "}"
op ::= "\"ADD\"" | "\"UPDATE\"" | "\"DELETE\"" | "\"NO_OP\""
kind ::= "\"semantic\"" | "\"episodic\""
text ::= "\"" char{0,200} "\""
target ::= "\"" [A-Za-z0-9_.:-]{0,64} "\""
confidence ::= "0" ("." [0-9]{1,3})? | "1" ("." "0"{1,3})?
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\/]
ws ::= [ ]?
"#;

/// GBNF for an episodic summary: `{"summary": "<one line, at most 300 characters>"}`.
pub const SUMMARY_GBNF: &str = r#"root ::= "{" ws "\"summary\"" ws ":" ws "\"" char{1,300} "\"" ws "}"
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\/]
ws ::= [ ]?
"#;

/// Errors from loading or generating. Messages are one line.
#[derive(Debug, thiserror::Error)]
pub enum LlamaError {
    /// The GGUF could not be loaded.
    #[error("cannot load model {0}: {1}")]
    Load(PathBuf, String),
    /// The chat template could not be applied or the prompt could not be tokenized.
    #[error("chat template: {0}")]
    Template(String),
    /// The grammar is invalid or the grammar sampler failed.
    #[error("grammar: {0}")]
    Grammar(String),
    /// Context creation or `llama_decode` failed, or the prompt does not fit the context.
    #[error("decode: {0}")]
    Decode(String),
    /// The deadline passed before the prompt was processed.
    #[error("deadline passed before the prompt was processed")]
    Timeout,
    /// [`CANCEL`] was set (the process was asked to stop): nothing is returned.
    #[error("cancelled: the process was asked to stop")]
    Cancelled,
}

/// Set (by a SIGTERM handler) to abandon a generation at the next prompt chunk or token.
/// An `Arc` so that `signal_hook::flag::register` can hold it.
pub static CANCEL: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

fn cancelled() -> Result<(), LlamaError> {
    if CANCEL.load(Ordering::Relaxed) {
        Err(LlamaError::Cancelled)
    } else {
        Ok(())
    }
}

/// One chat message; `role` is "system", "user" or "assistant".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    /// Convenience constructor.
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            content: content.into(),
        }
    }
}

/// Parameters of one generation.
#[derive(Debug, Clone)]
pub struct GenParams {
    /// Maximum number of generated tokens.
    pub max_tokens: usize,
    /// Optional GBNF grammar (root rule `root`).
    pub grammar: Option<String>,
    /// Wall-clock budget for the whole call, measured from its start.
    pub deadline: Duration,
    /// Context size (prompt + generation) in tokens.
    pub n_ctx: u32,
    /// Seed; unused by greedy sampling, kept for API stability.
    pub seed: u32,
}

impl Default for GenParams {
    fn default() -> Self {
        Self {
            max_tokens: 256,
            grammar: None,
            deadline: Duration::from_secs(60),
            n_ctx: 4096,
            seed: 0,
        }
    }
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced an end-of-generation token.
    Eos,
    /// `max_tokens` (or the end of the context) was reached.
    MaxTokens,
    /// The deadline passed; `text` holds what was generated so far.
    Deadline,
}

/// Result of one generation.
#[derive(Debug, Clone)]
pub struct GenOutput {
    pub text: String,
    pub prompt_tokens: usize,
    pub gen_tokens: usize,
    pub prompt_ms: f64,
    pub gen_ms: f64,
    pub stopped: StopReason,
}

/// A loaded GGUF model, ready to generate.
pub struct LlamaGenerator {
    backend: &'static LlamaBackend,
    model: LlamaModel,
    n_threads: usize,
    name: String,
}

impl std::fmt::Debug for LlamaGenerator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlamaGenerator")
            .field("name", &self.name)
            .field("n_threads", &self.n_threads)
            .finish_non_exhaustive()
    }
}

/// The llama.cpp backend may be initialised only once per process.
static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();

fn backend() -> Result<&'static LlamaBackend, String> {
    BACKEND
        .get_or_init(|| {
            let forward = std::env::var("LOCALM_LLAMA_LOG")
                .map(|v| !v.is_empty() && v != "0")
                .unwrap_or(false);
            // Installed before the backend starts so that nothing reaches stderr.
            send_logs_to_tracing(LogOptions::default().with_logs_enabled(forward));
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Number of physical cores (Linux: distinct (physical id, core id) pairs), else logical CPUs.
fn default_threads() -> usize {
    let logical = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut cores = std::collections::HashSet::new();
    let mut physical = "";
    for line in info.lines() {
        let mut parts = line.splitn(2, ':');
        let key = parts.next().unwrap_or("").trim();
        let value = parts.next().unwrap_or("").trim();
        match key {
            "physical id" => physical = value,
            "core id" => {
                cores.insert((physical, value));
            }
            _ => {}
        }
    }
    if cores.is_empty() {
        logical
    } else {
        cores.len().min(logical)
    }
}

fn check_gguf_file(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(|e| format!("cannot read header: {e}"))?;
    if &magic != b"GGUF" {
        return Err("not a GGUF file (bad magic)".into());
    }
    if path.to_str().is_none() {
        return Err("path is not valid UTF-8".into());
    }
    if GgufContext::from_file(path).is_none() {
        return Err("corrupt GGUF header or metadata".into());
    }
    Ok(())
}

impl LlamaGenerator {
    /// n_threads None → number of physical cores (use std::thread::available_parallelism as a fallback).
    pub fn load(path: &Path, n_threads: Option<usize>) -> Result<Self, LlamaError> {
        let load_err = |reason: String| LlamaError::Load(path.to_path_buf(), reason);
        check_gguf_file(path).map_err(load_err)?;
        let backend = backend().map_err(load_err)?;
        let params = LlamaModelParams::default().with_n_gpu_layers(0);
        let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| {
            load_err(format!(
                "llama.cpp rejected the file (truncated, corrupt or unsupported): {e}"
            ))
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            backend,
            model,
            n_threads: n_threads.filter(|&n| n > 0).unwrap_or_else(default_threads),
            name,
        })
    }

    /// The model's file stem.
    pub fn model_name(&self) -> String {
        self.name.clone()
    }

    /// Number of threads used for prompt processing and generation.
    pub fn n_threads(&self) -> usize {
        self.n_threads
    }

    /// Number of tokens `text` tokenizes to (no special tokens added).
    pub fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), false, false)
            .len()
    }

    /// Renders the messages with the model's chat template (fallback: chatml), with the assistant prompt.
    pub fn render_prompt(&self, messages: &[ChatMessage]) -> Result<String, LlamaError> {
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.clone(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlamaError::Template(e.to_string()))?;
        if let Ok(tmpl) = self.model.chat_template(None) {
            match self.model.apply_chat_template(&tmpl, &chat, true) {
                Ok(p) => return Ok(p),
                Err(e) => tracing::debug!("model chat template failed ({e}); using chatml"),
            }
        }
        let chatml =
            LlamaChatTemplate::new("chatml").map_err(|e| LlamaError::Template(e.to_string()))?;
        self.model
            .apply_chat_template(&chatml, &chat, true)
            .map_err(|e| LlamaError::Template(e.to_string()))
    }

    /// Applies the model's own chat template (from GGUF metadata; fallback chatml) to the messages, adds the assistant prompt,
    /// tokenizes, decodes the prompt in batches, then samples greedily (temperature 0 / greedy sampler, deterministic) under the grammar
    /// if given, until EOS/EOG, max_tokens or the deadline. Each call builds a fresh context (no state leaks between calls).
    pub fn generate(
        &self,
        messages: &[ChatMessage],
        params: &GenParams,
    ) -> Result<GenOutput, LlamaError> {
        let start = Instant::now();
        let deadline = start + params.deadline;
        let vocab = self.model.vocab();

        let prompt = self.render_prompt(messages)?;
        let tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(LlamaError::Template("prompt tokenized to nothing".into()));
        }
        let n_ctx = params.n_ctx.max(16);
        let n_prompt = tokens.len();
        if n_prompt >= n_ctx as usize {
            return Err(LlamaError::Decode(format!(
                "prompt has {n_prompt} tokens, context is {n_ctx}"
            )));
        }
        let max_tokens = params.max_tokens.min(n_ctx as usize - n_prompt);

        // Build the sampler before the context so that a bad grammar fails fast.
        let mut sampler = TokenSampler::new(&self.model, params.grammar.as_deref())?;

        let n_batch = n_ctx.min(512);
        let threads = i32::try_from(self.n_threads).unwrap_or(i32::MAX);
        let ctx_params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(n_batch)
            .with_n_ubatch(n_batch)
            .with_n_threads(threads)
            .with_n_threads_batch(threads)
            .with_no_perf(true);
        let mut ctx = self
            .model
            .new_context(self.backend, ctx_params)
            .map_err(|e| LlamaError::Decode(format!("cannot create context: {e}")))?;

        // Prompt, in chunks of n_batch; logits only for the very last prompt token.
        let mut batch = LlamaBatch::new(n_batch as usize, 1);
        let mut pos: i32 = 0;
        for chunk in tokens.chunks(n_batch as usize) {
            cancelled()?;
            if Instant::now() >= deadline {
                return Err(LlamaError::Timeout);
            }
            batch.clear();
            for &tok in chunk {
                let last = pos as usize == n_prompt - 1;
                batch
                    .add(tok, pos, &[0], last)
                    .map_err(|e| LlamaError::Decode(e.to_string()))?;
                pos += 1;
            }
            decode(&mut ctx, &mut batch)?;
        }
        let prompt_ms = start.elapsed().as_secs_f64() * 1e3;

        let gen_start = Instant::now();
        let mut bytes: Vec<u8> = Vec::new();
        let mut n_gen = 0usize;
        let mut stopped = StopReason::MaxTokens;
        while n_gen < max_tokens {
            cancelled()?;
            if Instant::now() >= deadline {
                stopped = StopReason::Deadline;
                break;
            }
            let token = sampler.sample(&ctx, batch.n_tokens() - 1)?;
            if vocab.is_eog(token) {
                stopped = StopReason::Eos;
                break;
            }
            n_gen += 1;
            vocab.token_to_piece_into(token, &mut bytes, false, None);
            if n_gen == max_tokens {
                break;
            }
            batch.clear();
            batch
                .add(token, pos, &[0], true)
                .map_err(|e| LlamaError::Decode(e.to_string()))?;
            pos += 1;
            decode(&mut ctx, &mut batch)?;
        }
        let gen_ms = gen_start.elapsed().as_secs_f64() * 1e3;

        Ok(GenOutput {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            prompt_tokens: n_prompt,
            gen_tokens: n_gen,
            prompt_ms,
            gen_ms,
            stopped,
        })
    }
}

/// Greedy sampling, optionally constrained by a grammar.
enum TokenSampler {
    /// Plain greedy: [`LlamaSampler::sample`] selects (and accepts, a no-op for greedy) the argmax.
    Greedy(LlamaSampler),
    /// Grammar-constrained greedy: equivalent to the chain `[grammar, greedy]`, but the grammar is
    /// only run over the whole vocabulary when the unconstrained argmax is rejected (the same
    /// shortcut llama.cpp's `common_sampler_sample` takes). The grammar sampler is accepted exactly
    /// once per token, through `try_accept`, so a grammar exception becomes an error instead of
    /// an abort.
    Grammar(LlamaSampler),
}

impl TokenSampler {
    fn new(model: &LlamaModel, grammar: Option<&str>) -> Result<Self, LlamaError> {
        Ok(match grammar {
            None => Self::Greedy(LlamaSampler::greedy()),
            Some(g) => Self::Grammar(
                LlamaSampler::grammar(model, g, "root")
                    .map_err(|e| LlamaError::Grammar(format!("invalid grammar: {e}")))?,
            ),
        })
    }

    fn sample(&mut self, ctx: &LlamaContext<'_>, idx: i32) -> Result<LlamaToken, LlamaError> {
        let grammar = match self {
            Self::Greedy(greedy) => return Ok(greedy.sample(ctx, idx)),
            Self::Grammar(grammar) => grammar,
        };
        let logits = ctx.get_logits_ith(idx);
        let best = argmax(logits.iter().copied().enumerate())
            .ok_or_else(|| LlamaError::Decode("no logits".into()))?;
        let best_token = LlamaToken(i32::try_from(best.0).unwrap_or(i32::MAX));
        let mut single =
            LlamaTokenDataArray::new(vec![LlamaTokenData::new(best_token, best.1, 0.0)], false);
        grammar.apply(&mut single);
        let allowed = single
            .data
            .first()
            .is_some_and(|d| d.logit() > f32::NEG_INFINITY);
        let token = if allowed {
            best_token
        } else {
            let mut all = LlamaTokenDataArray::from_iter(ctx.candidates_ith(idx), false);
            grammar.apply(&mut all);
            let (i, logit) = argmax(all.data.iter().map(|d| d.logit()).enumerate())
                .ok_or_else(|| LlamaError::Decode("no candidates".into()))?;
            if logit == f32::NEG_INFINITY {
                return Err(LlamaError::Grammar(
                    "the grammar allows no token here".into(),
                ));
            }
            all.data[i].id()
        };
        grammar
            .try_accept(token)
            .map_err(|e| LlamaError::Grammar(format!("grammar rejected token: {e}")))?;
        Ok(token)
    }
}

/// First index of the maximum value (the greedy sampler's tie-breaking).
fn argmax(values: impl Iterator<Item = (usize, f32)>) -> Option<(usize, f32)> {
    values.fold(None, |best, (i, v)| match best {
        Some((_, b)) if b >= v => best,
        _ => Some((i, v)),
    })
}

fn decode(ctx: &mut LlamaContext<'_>, batch: &mut LlamaBatch<'_>) -> Result<(), LlamaError> {
    ctx.decode(batch)
        .map_err(|e| LlamaError::Decode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_path() -> Option<PathBuf> {
        match std::env::var("LOCALM_TEST_LLM_MODEL") {
            Ok(p) if !p.is_empty() => Some(PathBuf::from(p)),
            _ => {
                eprintln!("skipping: LOCALM_TEST_LLM_MODEL is not set");
                None
            }
        }
    }

    fn params(grammar: Option<&str>, max_tokens: usize) -> GenParams {
        GenParams {
            max_tokens,
            grammar: grammar.map(str::to_string),
            deadline: Duration::from_secs(120),
            n_ctx: 2048,
            seed: 0,
        }
    }

    #[test]
    fn missing_and_garbage_files_are_errors() {
        let err = LlamaGenerator::load(Path::new("/nonexistent/model.gguf"), Some(1));
        assert!(matches!(err, Err(LlamaError::Load(..))));
        let dir = std::env::temp_dir().join(format!("llama-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        let junk = dir.join("junk.gguf");
        std::fs::write(&junk, b"this is not a gguf file at all").expect("write");
        let err = LlamaGenerator::load(&junk, Some(1));
        assert!(matches!(err, Err(LlamaError::Load(..))), "{err:?}");
        let header_only = dir.join("header.gguf");
        std::fs::write(&header_only, b"GGUF\x03\x00\x00\x00").expect("write");
        let err = LlamaGenerator::load(&header_only, Some(1));
        assert!(matches!(err, Err(LlamaError::Load(..))), "{err:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn truncated_model_is_an_error() {
        let Some(path) = model_path() else { return };
        let data = std::fs::read(&path).expect("read model");
        let dir = std::env::temp_dir().join(format!("llama-trunc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp dir");
        for frac in [2usize, 10, 100] {
            let cut = dir.join(format!("cut{frac}.gguf"));
            std::fs::write(&cut, &data[..data.len() * (frac - 1) / frac]).expect("write");
            let res = LlamaGenerator::load(&cut, Some(1));
            eprintln!(
                "truncated to {}/{}: {:?}",
                frac - 1,
                frac,
                res.as_ref().err()
            );
            assert!(matches!(res, Err(LlamaError::Load(..))));
        }
        let cut = dir.join("cut-header.gguf");
        std::fs::write(&cut, &data[..4096]).expect("write");
        let res = LlamaGenerator::load(&cut, Some(1));
        eprintln!("truncated to 4 KiB: {:?}", res.as_ref().err());
        assert!(matches!(res, Err(LlamaError::Load(..))));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_generators_and_deterministic_output() {
        let Some(path) = model_path() else { return };
        let a = LlamaGenerator::load(&path, Some(2)).expect("load a");
        let b = LlamaGenerator::load(&path, None).expect("load b");
        assert_eq!(a.model_name(), "SmolLM2-135M-Instruct.Q4_1");
        let msgs = [
            ChatMessage::new("system", "You are a helpful assistant."),
            ChatMessage::new("user", "What is the capital of France?"),
        ];
        let p = params(None, 24);
        let oa = a.generate(&msgs, &p).expect("gen a");
        let ob = b.generate(&msgs, &p).expect("gen b");
        let oa2 = a.generate(&msgs, &p).expect("gen a again");
        eprintln!("{oa:?}");
        assert!(!oa.text.is_empty());
        assert_eq!(oa.text, ob.text);
        assert_eq!(oa.text, oa2.text);
        assert!(oa.prompt_tokens > 5);
    }

    #[test]
    fn grammars_parse_and_constrain() {
        let Some(path) = model_path() else { return };
        let g = LlamaGenerator::load(&path, Some(2)).expect("load");
        let msgs = [
            ChatMessage::new("system", "Summarise the conversation in one line as JSON."),
            ChatMessage::new("user", "I spent the afternoon debugging a Kafka consumer."),
        ];
        let out = g
            .generate(&msgs, &params(Some(SUMMARY_GBNF), 128))
            .expect("summary");
        eprintln!("{out:?}");
        let v: serde_json::Value = serde_json::from_str(&out.text).expect("summary json");
        assert!(v["summary"].is_string());
        let out = g
            .generate(&msgs, &params(Some(CANDIDATES_GBNF), 256))
            .expect("candidates");
        eprintln!("{out:?}");
        if out.stopped == StopReason::Eos {
            let v: serde_json::Value = serde_json::from_str(&out.text).expect("facts json");
            assert!(v["facts"].is_array());
        }
    }

    #[test]
    fn bad_grammar_and_deadline() {
        let Some(path) = model_path() else { return };
        let g = LlamaGenerator::load(&path, Some(2)).expect("load");
        let msgs = [ChatMessage::new("user", "Count from one to one hundred.")];
        let err = g.generate(&msgs, &params(Some("root ::= ( unclosed"), 8));
        assert!(matches!(err, Err(LlamaError::Grammar(_))), "{err:?}");
        let err = g.generate(&msgs, &params(Some("nonroot ::= \"a\""), 8));
        assert!(matches!(err, Err(LlamaError::Grammar(_))), "{err:?}");
        let mut p = params(None, 10_000);
        p.deadline = Duration::from_millis(300);
        match g.generate(&msgs, &p) {
            Ok(out) => assert_eq!(out.stopped, StopReason::Deadline),
            Err(e) => assert!(matches!(e, LlamaError::Timeout), "{e:?}"),
        }
        let mut p = params(None, 8);
        p.n_ctx = 16;
        let err = g.generate(&msgs, &p);
        assert!(matches!(err, Err(LlamaError::Decode(_))), "{err:?}");
    }
}
