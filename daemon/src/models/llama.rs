//! core's `Generator` on llama.cpp (llama-cpp-2): load a GGUF, apply its chat template, sample
//! greedily under a GBNF grammar, bounded in tokens and time; and the one GGUF file check.
//!
//! llama.cpp is compiled into the binary (CPU only). Its own logging is switched off by default;
//! set `LOCALM_LLAMA_LOG=1` before the first [`Llama::load`] to forward it to `tracing`
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
use std::path::Path;
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
use localm_core::engine::{EngineError, Generation, Generator, Message};

/// Context size of a [`Generator`] call: a pass's prompt is about 8,000 characters of log plus a
/// worked example.
const N_CTX: u32 = 4096;
/// Wall-clock bound on one [`Generator`] call.
const DEADLINE: Duration = Duration::from_secs(120);
/// Wall-clock bound on one chat reply.
const CHAT_DEADLINE: Duration = Duration::from_secs(600);

/// Errors from generating. Messages are one line.
#[derive(Debug, thiserror::Error)]
pub enum LlamaError {
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

/// Parameters of one generation.
#[derive(Debug, Clone, Copy)]
pub struct GenParams<'a> {
    /// Maximum number of generated tokens.
    pub max_tokens: usize,
    /// Optional GBNF grammar (root rule `root`).
    pub grammar: Option<&'a str>,
    /// Wall-clock budget for the whole call, measured from its start.
    pub deadline: Duration,
    /// Context size (prompt + generation) in tokens.
    pub n_ctx: u32,
}

/// Why generation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The model produced an end-of-generation token.
    Eos,
    /// `max_tokens` (or the end of the context) was reached.
    MaxTokens,
    /// The deadline passed; the text holds what was generated so far.
    Deadline,
    /// The caller's callback asked to stop (a stop string, a client that left).
    Stopped,
}

/// A loaded GGUF model, ready to generate.
pub struct Llama {
    backend: &'static LlamaBackend,
    model: LlamaModel,
    n_threads: usize,
    name: String,
}

impl std::fmt::Debug for Llama {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llama")
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

/// The one GGUF check, run before llama.cpp ever sees a file: a regular file that starts with the
/// `GGUF` magic, at a UTF-8 path, whose header and metadata llama.cpp can parse (tensor data is
/// not read: a file truncated inside it passes, and [`Llama::load`] rejects it). The error is the
/// reason, in a few words. [`Llama::load`] and `localm setup-model --from` both run it.
pub fn check_gguf(path: &Path) -> Result<(), String> {
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

impl Llama {
    /// Loads the GGUF at `path` (checked with [`check_gguf`] first). `n_threads` None → the
    /// number of physical cores.
    pub fn load(path: &Path, n_threads: Option<usize>) -> Result<Self, EngineError> {
        let load_err =
            |reason: String| EngineError(format!("cannot load model {}: {reason}", path.display()));
        check_gguf(path).map_err(load_err)?;
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
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renders the messages with the model's chat template (fallback: chatml), with the assistant prompt.
    fn render_prompt(&self, messages: &[Message]) -> Result<String, LlamaError> {
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

    /// Renders and tokenizes the messages, creates a context of `n_ctx` tokens and decodes the
    /// prompt in batches (logits only for its last token). Also returns the batch, the next
    /// position and the prompt's token count.
    fn prefill(
        &self,
        messages: &[Message],
        n_ctx: u32,
        deadline: Instant,
    ) -> Result<Prefilled<'_>, LlamaError> {
        let prompt = self.render_prompt(messages)?;
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(LlamaError::Template("prompt tokenized to nothing".into()));
        }
        let n_ctx = n_ctx.max(16);
        let n_prompt = tokens.len();
        if n_prompt >= n_ctx as usize {
            return Err(LlamaError::Decode(format!(
                "prompt has {n_prompt} tokens, context is {n_ctx}"
            )));
        }
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
        Ok(Prefilled {
            ctx,
            batch,
            pos,
            n_prompt,
            room: n_ctx as usize - n_prompt,
        })
    }

    /// Samples tokens after [`Llama::prefill`] until EOS/EOG, `max_tokens`, the deadline, or
    /// `on_piece` (given the text of each token as it is decoded) returns `false`.
    fn sample_loop(
        &self,
        p: &mut Prefilled<'_>,
        sampler: &mut TokenSampler,
        max_tokens: usize,
        deadline: Instant,
        on_piece: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(usize, StopReason), LlamaError> {
        let vocab = self.model.vocab();
        let max_tokens = max_tokens.min(p.room);
        let mut piece: Vec<u8> = Vec::new();
        let mut n_gen = 0usize;
        while n_gen < max_tokens {
            cancelled()?;
            if Instant::now() >= deadline {
                return Ok((n_gen, StopReason::Deadline));
            }
            let token = sampler.sample(&p.ctx, p.batch.n_tokens() - 1)?;
            if vocab.is_eog(token) {
                return Ok((n_gen, StopReason::Eos));
            }
            n_gen += 1;
            piece.clear();
            vocab.token_to_piece_into(token, &mut piece, false, None);
            if !on_piece(&piece) {
                return Ok((n_gen, StopReason::Stopped));
            }
            if n_gen == max_tokens {
                break;
            }
            p.batch.clear();
            p.batch
                .add(token, p.pos, &[0], true)
                .map_err(|e| LlamaError::Decode(e.to_string()))?;
            p.pos += 1;
            decode(&mut p.ctx, &mut p.batch)?;
        }
        Ok((n_gen, StopReason::MaxTokens))
    }

    /// Applies the model's own chat template (from GGUF metadata; fallback chatml) to the messages, adds the assistant prompt,
    /// tokenizes, decodes the prompt in batches, then samples greedily (temperature 0 / greedy sampler, deterministic) under the grammar
    /// if given, until EOS/EOG, max_tokens or the deadline. Each call builds a fresh context (no state leaks between calls).
    pub fn generate_with(
        &self,
        messages: &[Message],
        params: &GenParams<'_>,
    ) -> Result<(Generation, StopReason), LlamaError> {
        let start = Instant::now();
        let deadline = start + params.deadline;
        // Build the sampler before the context so that a bad grammar fails fast.
        let mut sampler = TokenSampler::new(&self.model, params.grammar)?;
        let mut p = self.prefill(messages, params.n_ctx, deadline)?;
        let prompt_ms = start.elapsed().as_secs_f64() * 1e3;
        let gen_start = Instant::now();
        let mut bytes: Vec<u8> = Vec::new();
        let (n_gen, stopped) = self.sample_loop(
            &mut p,
            &mut sampler,
            params.max_tokens,
            deadline,
            &mut |piece| {
                bytes.extend_from_slice(piece);
                true
            },
        )?;
        let generation = Generation {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            prompt_tokens: p.n_prompt,
            gen_tokens: n_gen,
            prompt_ms,
            gen_ms: gen_start.elapsed().as_secs_f64() * 1e3,
        };
        Ok((generation, stopped))
    }

    /// A chat reply, streamed: `on_text` gets the text as it is decoded (whole UTF-8 characters
    /// only) and returns `false` to stop early (a stop string matched, or the client left).
    /// Sampling follows `sampling`: temperature 0 is greedy.
    pub fn chat(
        &self,
        messages: &[Message],
        sampling: &Sampling,
        max_tokens: usize,
        n_ctx: u32,
        on_text: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(Generation, StopReason), LlamaError> {
        let start = Instant::now();
        let deadline = start + CHAT_DEADLINE;
        let mut sampler = TokenSampler::Chat(sampling.sampler());
        let mut p = self.prefill(messages, n_ctx, deadline)?;
        let prompt_ms = start.elapsed().as_secs_f64() * 1e3;
        let gen_start = Instant::now();
        let mut pending: Vec<u8> = Vec::new();
        let mut text = String::new();
        let (n_gen, stopped) =
            self.sample_loop(&mut p, &mut sampler, max_tokens, deadline, &mut |piece| {
                pending.extend_from_slice(piece);
                let whole = match std::str::from_utf8(&pending) {
                    Ok(s) => s.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    // Not UTF-8 and never will be: pass it on replaced.
                    Err(_) => pending.len(),
                };
                let out = String::from_utf8_lossy(&pending[..whole]).into_owned();
                pending.drain(..whole);
                text.push_str(&out);
                out.is_empty() || on_text(&out)
            })?;
        let generation = Generation {
            text,
            prompt_tokens: p.n_prompt,
            gen_tokens: n_gen,
            prompt_ms,
            gen_ms: gen_start.elapsed().as_secs_f64() * 1e3,
        };
        Ok((generation, stopped))
    }
}

/// A context with the prompt decoded, ready to sample.
struct Prefilled<'a> {
    ctx: LlamaContext<'a>,
    batch: LlamaBatch<'a>,
    pos: i32,
    n_prompt: usize,
    /// Tokens left in the context.
    room: usize,
}

/// How a chat reply is sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// 0 = greedy.
    pub temperature: f32,
    pub top_p: f32,
    pub seed: u32,
}

impl Sampling {
    fn sampler(&self) -> LlamaSampler {
        if self.temperature <= 0.0 {
            return LlamaSampler::greedy();
        }
        LlamaSampler::chain_simple([
            LlamaSampler::top_p(self.top_p.clamp(0.0, 1.0), 1),
            LlamaSampler::temp(self.temperature),
            LlamaSampler::dist(self.seed),
        ])
    }
}

impl Generator for Llama {
    /// [`Llama::generate_with`] the grammar, a [`N_CTX`]-token context and a [`DEADLINE`].
    fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
    ) -> Result<Generation, EngineError> {
        let params = GenParams {
            max_tokens,
            grammar: Some(grammar),
            deadline: DEADLINE,
            n_ctx: N_CTX,
        };
        self.generate_with(messages, &params)
            .map(|(generation, _)| generation)
            .map_err(|e| EngineError(e.to_string()))
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
    /// A chat reply's sampler chain ([`Sampling`]); `sample` selects and accepts.
    Chat(LlamaSampler),
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
            Self::Greedy(s) | Self::Chat(s) => return Ok(s.sample(ctx, idx)),
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
    use std::io::Write as _;
    use std::path::PathBuf;

    use localm_core::consolidate::grammar;

    use super::*;

    /// The test GGUF, resolved as tests/src/lib.rs does: `$LOCALM_TEST_LLM_MODEL`, else
    /// `test-models/` in the workspace. Missing: a failure when `LOCALM_REQUIRE_MODELS` is set,
    /// else `None` and a "skipped" line written straight to stderr (not captured by the harness).
    fn model_path() -> Option<PathBuf> {
        let path = std::env::var_os("LOCALM_TEST_LLM_MODEL")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../test-models/SmolLM2-135M-Instruct.Q4_1.gguf")
            });
        if path.is_file() {
            return Some(path);
        }
        assert!(
            std::env::var_os("LOCALM_REQUIRE_MODELS").is_none(),
            "{} is missing and LOCALM_REQUIRE_MODELS is set: run scripts/fetch-test-models \
             and set LOCALM_TEST_LLM_MODEL",
            path.display()
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {}: {} not found (set LOCALM_TEST_LLM_MODEL or run scripts/fetch-test-models)",
            std::thread::current().name().unwrap_or("a model test"),
            path.display()
        );
        None
    }

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    fn params(grammar: Option<&str>, max_tokens: usize) -> GenParams<'_> {
        GenParams {
            max_tokens,
            grammar,
            deadline: Duration::from_secs(120),
            n_ctx: 2048,
        }
    }

    #[test]
    fn missing_and_garbage_files_are_errors() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("missing.gguf");
        let junk = dir.path().join("junk.gguf");
        std::fs::write(&junk, b"this is not a gguf file at all").expect("write");
        let header_only = dir.path().join("header.gguf");
        std::fs::write(&header_only, b"GGUF\x03\x00\x00\x00").expect("write");
        for (path, reason) in [
            (missing.as_path(), "No such file"),
            (dir.path(), "not a regular file"),
            (junk.as_path(), "not a GGUF file (bad magic)"),
            (header_only.as_path(), "corrupt GGUF header or metadata"),
        ] {
            let err = check_gguf(path).expect_err("check_gguf");
            assert!(err.contains(reason), "{}: {err}", path.display());
            let err = Llama::load(path, Some(1)).expect_err("load").0;
            assert!(
                err.starts_with(&format!("cannot load model {}: ", path.display())),
                "{err}"
            );
            assert!(err.contains(reason), "{err}");
        }
    }

    #[test]
    fn truncated_model_is_an_error() {
        let Some(path) = model_path() else { return };
        let data = std::fs::read(&path).expect("read model");
        let dir = tempfile::tempdir().expect("temp dir");
        for frac in [2usize, 10, 100] {
            let cut = dir.path().join(format!("cut{frac}.gguf"));
            std::fs::write(&cut, &data[..data.len() * (frac - 1) / frac]).expect("write");
            let res = Llama::load(&cut, Some(1));
            eprintln!(
                "truncated to {}/{}: {:?}",
                frac - 1,
                frac,
                res.as_ref().err()
            );
            assert!(res.is_err());
        }
        let cut = dir.path().join("cut-header.gguf");
        std::fs::write(&cut, &data[..4096]).expect("write");
        let res = Llama::load(&cut, Some(1));
        eprintln!("truncated to 4 KiB: {:?}", res.as_ref().err());
        assert!(res.is_err());
    }

    #[test]
    fn two_generators_and_deterministic_output() {
        let Some(path) = model_path() else { return };
        check_gguf(&path).expect("the test model passes the GGUF check");
        let a = Llama::load(&path, Some(2)).expect("load a");
        let b = Llama::load(&path, None).expect("load b");
        assert_eq!(a.name(), "SmolLM2-135M-Instruct.Q4_1");
        let msgs = [
            msg("system", "You are a helpful assistant."),
            msg("user", "What is the capital of France?"),
        ];
        let p = params(None, 24);
        let (oa, _) = a.generate_with(&msgs, &p).expect("gen a");
        let (ob, _) = b.generate_with(&msgs, &p).expect("gen b");
        let (oa2, _) = a.generate_with(&msgs, &p).expect("gen a again");
        eprintln!("{oa:?}");
        assert!(!oa.text.is_empty());
        assert_eq!(oa.text, ob.text);
        assert_eq!(oa.text, oa2.text);
        assert!(oa.prompt_tokens > 5);
    }

    /// The grammars consolidation really runs (core's), through the `Generator` trait as a pass
    /// calls it, and directly to see why generation stopped.
    #[test]
    fn grammars_parse_and_constrain() {
        let Some(path) = model_path() else { return };
        let mut g = Llama::load(&path, Some(2)).expect("load");
        let msgs = [
            msg("system", "Summarise the conversation in one line as JSON."),
            msg("user", "I spent the afternoon debugging a Kafka consumer."),
        ];
        let out = Generator::generate(&mut g, &msgs, &grammar::summary(), 128).expect("summary");
        eprintln!("{out:?}");
        let v: serde_json::Value = serde_json::from_str(&out.text).expect("summary json");
        assert!(v["summary"].is_string());
        let candidates = grammar::candidates();
        let (out, stopped) = g
            .generate_with(&msgs, &params(Some(&candidates), 256))
            .expect("candidates");
        eprintln!("{out:?} {stopped:?}");
        if stopped == StopReason::Eos {
            let v: serde_json::Value = serde_json::from_str(&out.text).expect("facts json");
            assert!(v["facts"].is_array());
        }
        let decision = grammar::decision(&["abc12345".into()]);
        let (out, stopped) = g
            .generate_with(&msgs, &params(Some(&decision), 128))
            .expect("decision");
        eprintln!("{out:?} {stopped:?}");
        if stopped == StopReason::Eos {
            let v: serde_json::Value = serde_json::from_str(&out.text).expect("decision json");
            assert!(["", "abc12345"].contains(&v["target"].as_str().unwrap_or("?")));
        }
    }

    #[test]
    fn bad_grammar_and_deadline() {
        let Some(path) = model_path() else { return };
        let g = Llama::load(&path, Some(2)).expect("load");
        let msgs = [msg("user", "Count from one to one hundred.")];
        let err = g.generate_with(&msgs, &params(Some("root ::= ( unclosed"), 8));
        assert!(matches!(err, Err(LlamaError::Grammar(_))), "{err:?}");
        let err = g.generate_with(&msgs, &params(Some("nonroot ::= \"a\""), 8));
        assert!(matches!(err, Err(LlamaError::Grammar(_))), "{err:?}");
        let mut p = params(None, 10_000);
        p.deadline = Duration::from_millis(300);
        match g.generate_with(&msgs, &p) {
            Ok((_, stopped)) => assert_eq!(stopped, StopReason::Deadline),
            Err(e) => assert!(matches!(e, LlamaError::Timeout), "{e:?}"),
        }
        let mut p = params(None, 8);
        p.n_ctx = 16;
        let err = g.generate_with(&msgs, &p);
        assert!(matches!(err, Err(LlamaError::Decode(_))), "{err:?}");
    }
}
