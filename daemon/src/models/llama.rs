//! core's `Generator` on llama.cpp (llama-cpp-2): load a GGUF, apply its chat template, decode
//! the prompt past what the warm context holds ([`warm`]), then sample ([`sampling`]: greedily
//! under a GBNF grammar for passes, a chat reply's chain for chat), bounded in tokens and time,
//! and stopped by the caller's cancel flag. The GGUF check is [`gguf`]; the thread count each
//! call uses is [`super::cpu_share`]'s.
//!
//! llama.cpp is compiled into the binary (CPU only). Its own logging is switched off by default;
//! the entry point's [`forward_log`] (from `LOCALM_LLAMA_LOG=1`), before the first
//! [`Llama::load`], forwards it to `tracing` (targets `llama.cpp` / `ggml`) instead.
//!
//! Caveat: llama.cpp aborts the whole process on internal assertions it considers impossible;
//! run generation in a child process if that matters.

mod draft;
mod gguf;
mod sampling;
mod warm;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::{LogOptions, send_logs_to_tracing};
use localm_core::models::{Generation, Generator, Message, ModelError};

pub use gguf::{GgufError, check_gguf};
pub use sampling::Sampling;

use super::cpu_share::Threads;
use draft::{Draft, Step};
use sampling::TokenSampler;
use warm::{Loaded, Warm, WarmSlot};

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
    /// The caller's cancel flag was set (the process was asked to stop, or the client left):
    /// nothing is returned.
    #[error("cancelled: the process was asked to stop")]
    Cancelled,
}

/// `Err(Cancelled)` once `cancel` is set: checked at each prompt chunk and each token.
fn check(cancel: &AtomicBool) -> Result<(), LlamaError> {
    if cancel.load(Ordering::Relaxed) {
        Err(LlamaError::Cancelled)
    } else {
        Ok(())
    }
}

/// Why a model cannot be loaded (the path is added by [`Llama::load`]).
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error(transparent)]
    Gguf(#[from] GgufError),
    #[error("{0}")]
    Backend(String),
    #[error("llama.cpp rejected the file (truncated, corrupt or unsupported): {0}")]
    Rejected(String),
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
    /// Set from elsewhere (a SIGTERM handler) to abandon the call at the next prompt chunk or
    /// token with [`LlamaError::Cancelled`].
    pub cancel: &'a AtomicBool,
    /// The text the reply likely is, checked a batch of tokens at a time ([`draft`]): the same
    /// reply, in fewer decode steps when the guess is right.
    pub draft: Option<&'a str>,
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
    loaded: Loaded,
    /// How many threads each call uses.
    threads: Threads,
    /// The flag [`Generator::generate`] calls are cancelled by ([`Llama::cancelled_by`]).
    cancel: Arc<AtomicBool>,
    name: String,
}

impl std::fmt::Debug for Llama {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llama")
            .field("name", &self.name)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

/// The llama.cpp backend may be initialised only once per process.
static BACKEND: OnceLock<Result<LlamaBackend, llama_cpp_2::LlamaCppError>> = OnceLock::new();

/// Whether llama.cpp's own log goes to `tracing` ([`forward_log`]).
static FORWARD_LOG: AtomicBool = AtomicBool::new(false);

/// Forward llama.cpp's own log to `tracing` (`on`) or drop it. llama.cpp's log is one per
/// process, so this is set once by the entry point (`LOCALM_LLAMA_LOG`, read by `config`),
/// before the first [`Llama::load`]; later calls change nothing.
pub fn forward_log(on: bool) {
    FORWARD_LOG.store(on, Ordering::Relaxed);
}

fn backend() -> Result<&'static LlamaBackend, LoadError> {
    BACKEND
        .get_or_init(|| {
            let forward = FORWARD_LOG.load(Ordering::Relaxed);
            // Installed before the backend starts so that nothing reaches stderr.
            send_logs_to_tracing(LogOptions::default().with_logs_enabled(forward));
            LlamaBackend::init()
        })
        .as_ref()
        .map_err(|e| LoadError::Backend(e.to_string()))
}

impl Llama {
    /// Loads the GGUF at `path` (checked with [`check_gguf`] first). `n_threads`: see
    /// [`Threads::new`]. [`Generator::generate`] calls are cancelled by nothing until
    /// [`Llama::cancelled_by`].
    pub fn load(path: &Path, n_threads: Option<usize>) -> Result<Self, ModelError> {
        Self::try_load(path, n_threads)
            .map_err(|e| ModelError(format!("cannot load model {}: {e}", path.display())))
    }

    fn try_load(path: &Path, n_threads: Option<usize>) -> Result<Self, LoadError> {
        check_gguf(path)?;
        let backend = backend()?;
        let params = LlamaModelParams::default().with_n_gpu_layers(0);
        let model = LlamaModel::load_from_file(backend, path, &params)
            .map_err(|e| LoadError::Rejected(e.to_string()))?;
        let loaded = Loaded::new(model, |_| std::sync::Mutex::new(None));
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            backend,
            loaded,
            threads: Threads::new(n_threads),
            cancel: Arc::default(),
            name,
        })
    }

    /// [`Generator::generate`] calls end with [`LlamaError::Cancelled`] once `cancel` is set (a
    /// pass's SIGTERM handler sets it).
    #[must_use]
    pub fn cancelled_by(mut self, cancel: Arc<AtomicBool>) -> Self {
        self.cancel = cancel;
        self
    }

    /// The model's file stem.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The context the model was trained with, in tokens.
    pub fn n_ctx_train(&self) -> u32 {
        self.model().n_ctx_train()
    }

    /// The number of prompt tokens the messages make, chat template included.
    pub fn prompt_tokens(&self, messages: &[Message]) -> Result<usize, LlamaError> {
        self.tokenize(messages, u32::MAX).map(|t| t.len())
    }

    /// Drops the warm context: the next call decodes its whole prompt (for benchmarks).
    pub fn forget(&self) {
        self.loaded.with_dependent(|_, slot| {
            *slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        });
    }

    /// The loaded model.
    fn model(&self) -> &LlamaModel {
        self.loaded.borrow_owner()
    }

    /// Renders the messages with the model's chat template (fallback: chatml), with the assistant prompt.
    fn render_prompt(&self, messages: &[Message]) -> Result<String, LlamaError> {
        let model = self.model();
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.clone(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlamaError::Template(e.to_string()))?;
        if let Ok(tmpl) = model.chat_template(None) {
            match model.apply_chat_template(&tmpl, &chat, true) {
                Ok(p) => return Ok(p),
                Err(e) => tracing::debug!("model chat template failed ({e}); using chatml"),
            }
        }
        let chatml =
            LlamaChatTemplate::new("chatml").map_err(|e| LlamaError::Template(e.to_string()))?;
        model
            .apply_chat_template(&chatml, &chat, true)
            .map_err(|e| LlamaError::Template(e.to_string()))
    }

    /// Renders and tokenizes the messages.
    fn tokenize(&self, messages: &[Message], n_ctx: u32) -> Result<Vec<LlamaToken>, LlamaError> {
        let prompt = self.render_prompt(messages)?;
        let tokens = self.model().vocab().tokenize(prompt.as_bytes(), true, true);
        if tokens.is_empty() {
            return Err(LlamaError::Template("prompt tokenized to nothing".into()));
        }
        if tokens.len() >= n_ctx as usize {
            return Err(LlamaError::Decode(format!(
                "prompt has {} tokens, context is {n_ctx}",
                tokens.len()
            )));
        }
        Ok(tokens)
    }

    /// Tokenizes the messages, takes a context of `n_ctx` tokens ([`warm::take_context`]) and
    /// decodes what of the prompt it does not hold yet, in batches (logits only for its last
    /// token).
    fn prefill<'m>(
        &self,
        model: &'m LlamaModel,
        slot: &WarmSlot<'m>,
        messages: &[Message],
        n_ctx: u32,
        deadline: Instant,
        cancel: &AtomicBool,
    ) -> Result<Prefilled<'m>, LlamaError> {
        let n_ctx = n_ctx.max(16);
        let tokens = self.tokenize(messages, n_ctx)?;
        let n_prompt = tokens.len();
        let n_threads = self.threads.now();
        let mut warm = warm::take_context(self.backend, model, slot, n_ctx, n_threads, &tokens)?;
        let n_batch = n_ctx.min(512) as usize;
        let mut batch = LlamaBatch::new(n_batch, 1);
        let start = warm.tokens.len();
        for chunk in tokens[start..].chunks(n_batch) {
            check(cancel)?;
            if Instant::now() >= deadline {
                return Err(LlamaError::Timeout);
            }
            batch.clear();
            for &tok in chunk {
                let pos = warm.tokens.len();
                batch
                    .add(tok, position(pos)?, &[0], pos == n_prompt - 1)
                    .map_err(|e| LlamaError::Decode(e.to_string()))?;
                warm.tokens.push(tok);
            }
            decode(&mut warm.ctx, &mut batch)?;
        }
        Ok(Prefilled {
            warm,
            batch,
            n_prompt,
            reused: start,
            room: n_ctx as usize - n_prompt,
        })
    }

    /// Samples tokens after [`Llama::prefill`] until EOS/EOG, `max_tokens`, the deadline, or
    /// `on_piece` (given the text of each token as it is decoded) returns `false`. Each sampled
    /// token is decoded with the `draft`'s next guesses, when it is the draft's; a guessed token
    /// the sampler then picks is already decoded ([`draft`]).
    #[allow(clippy::too_many_arguments)]
    fn sample_loop(
        &self,
        p: &mut Prefilled<'_>,
        sampler: &mut TokenSampler,
        draft: &mut Draft,
        max_tokens: usize,
        deadline: Instant,
        cancel: &AtomicBool,
        on_piece: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(usize, StopReason), LlamaError> {
        let vocab = self.model().vocab();
        let max_tokens = max_tokens.min(p.room);
        let mut piece: Vec<u8> = Vec::new();
        let mut n_gen = 0usize;
        // The batch index of the logits the next token is sampled from.
        let mut at = p.batch.n_tokens() - 1;
        let stopped = loop {
            if n_gen >= max_tokens {
                break StopReason::MaxTokens;
            }
            check(cancel)?;
            if Instant::now() >= deadline {
                break StopReason::Deadline;
            }
            let token = sampler.sample(&p.warm.ctx, at)?;
            if vocab.is_eog(token) {
                break StopReason::Eos;
            }
            n_gen += 1;
            piece.clear();
            vocab.token_to_piece_into(token, &mut piece, false, None);
            if !on_piece(&piece) {
                break StopReason::Stopped;
            }
            if n_gen == max_tokens {
                break StopReason::MaxTokens;
            }
            match draft.step(token) {
                Step::InPlace => {
                    at += 1;
                    continue;
                }
                Step::Missed(n) => p.warm.keep(p.warm.tokens.len() - n),
                Step::Decode => {}
            }
            // Guesses past the last token that may still be sampled are never used.
            let guesses = draft.guesses(max_tokens - n_gen - 1);
            p.batch.clear();
            for &tok in std::iter::once(&token).chain(guesses) {
                p.batch
                    .add(tok, position(p.warm.tokens.len())?, &[0], true)
                    .map_err(|e| LlamaError::Decode(e.to_string()))?;
                p.warm.tokens.push(tok);
            }
            decode(&mut p.warm.ctx, &mut p.batch)?;
            at = 0;
        };
        // The context holds only what was sampled: guesses never picked are dropped.
        p.warm.keep(p.warm.tokens.len() - draft.ahead());
        Ok((n_gen, stopped))
    }

    /// Prefills, then samples with `sampler`, passing each token's text to `on_piece`. The
    /// context goes back to the warm slot only when the call ends without an error (a failed
    /// decode may leave its KV half-written).
    fn run(
        &self,
        messages: &[Message],
        draft: Option<&str>,
        sampler: &mut TokenSampler,
        bounds: Bounds<'_>,
        on_piece: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(Generation, StopReason), LlamaError> {
        let start = Instant::now();
        let Bounds {
            max_tokens,
            n_ctx,
            deadline,
            cancel,
        } = bounds;
        self.loaded.with_dependent(|model, slot| {
            let mut p = self.prefill(model, slot, messages, n_ctx, deadline, cancel)?;
            let prompt_ms = start.elapsed().as_secs_f64() * 1e3;
            let gen_start = Instant::now();
            let mut draft = Draft::new(draft.map_or_else(Vec::new, |d| {
                model.vocab().tokenize(d.as_bytes(), false, false)
            }));
            let (n_gen, stopped) = self.sample_loop(
                &mut p, sampler, &mut draft, max_tokens, deadline, cancel, on_piece,
            )?;
            let generation = Generation {
                text: String::new(),
                prompt_tokens: p.n_prompt,
                cached_tokens: p.reused,
                gen_tokens: n_gen,
                drafted_tokens: draft.taken(),
                prompt_ms,
                gen_ms: gen_start.elapsed().as_secs_f64() * 1e3,
            };
            tracing::trace!(
                prompt = p.n_prompt,
                reused = p.reused,
                prompt_ms = generation.prompt_ms,
                generated = n_gen,
                drafted = generation.drafted_tokens,
                gen_ms = generation.gen_ms,
                "llama: prompt decoded past its warm prefix, then sampled"
            );
            *slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(p.warm);
            Ok((generation, stopped))
        })
    }

    /// Applies the model's own chat template (from GGUF metadata; fallback chatml) to the
    /// messages, adds the assistant prompt, tokenizes, decodes what of the prompt the warm
    /// context does not hold, then samples greedily (deterministic) under the grammar if given,
    /// until EOS/EOG, max_tokens or the deadline.
    pub fn generate_with(
        &self,
        messages: &[Message],
        params: &GenParams<'_>,
    ) -> Result<(Generation, StopReason), LlamaError> {
        let deadline = Instant::now() + params.deadline;
        // Build the sampler before the context so that a bad grammar fails fast.
        let mut sampler = TokenSampler::new(self.model(), params.grammar)?;
        let mut bytes: Vec<u8> = Vec::new();
        let bounds = Bounds {
            max_tokens: params.max_tokens,
            n_ctx: params.n_ctx,
            deadline,
            cancel: params.cancel,
        };
        let (mut generation, stopped) =
            self.run(messages, params.draft, &mut sampler, bounds, &mut |piece| {
                bytes.extend_from_slice(piece);
                true
            })?;
        generation.text = String::from_utf8_lossy(&bytes).into_owned();
        Ok((generation, stopped))
    }

    /// A chat reply, streamed: `on_text` gets the text as it is decoded (whole UTF-8 characters
    /// only) and returns `false` to stop early (a stop string matched). Setting `cancel` (the
    /// client left) abandons the reply at the next prompt chunk or token with
    /// [`LlamaError::Cancelled`]. Sampling follows `sampling`: temperature 0 is greedy; with its
    /// `grammar` (a `response_format`), only text the grammar allows is sampled.
    pub fn chat(
        &self,
        messages: &[Message],
        sampling: &Sampling,
        max_tokens: usize,
        n_ctx: u32,
        cancel: &AtomicBool,
        on_text: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(Generation, StopReason), LlamaError> {
        let bounds = Bounds {
            max_tokens,
            n_ctx,
            deadline: Instant::now() + CHAT_DEADLINE,
            cancel,
        };
        let mut sampler = TokenSampler::chat(self.model(), sampling)?;
        let mut pending: Vec<u8> = Vec::new();
        let mut text = String::new();
        let (mut generation, stopped) =
            self.run(messages, None, &mut sampler, bounds, &mut |piece| {
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
        generation.text = text;
        Ok((generation, stopped))
    }
}

/// What ends a call besides the model: a token budget, the context size, a deadline and the
/// caller's cancel flag.
#[derive(Clone, Copy)]
struct Bounds<'a> {
    max_tokens: usize,
    n_ctx: u32,
    deadline: Instant,
    cancel: &'a AtomicBool,
}

/// A token's position in the context, as llama.cpp counts it.
fn position(pos: usize) -> Result<i32, LlamaError> {
    i32::try_from(pos).map_err(|_| LlamaError::Decode(format!("position {pos} out of range")))
}

/// A context with the prompt decoded, ready to sample.
struct Prefilled<'m> {
    warm: Warm<'m>,
    batch: LlamaBatch<'m>,
    n_prompt: usize,
    /// Prompt tokens whose KV the warm context already held.
    reused: usize,
    /// Tokens left in the context.
    room: usize,
}

impl Generator for Llama {
    /// [`Llama::generate_with`] the grammar, a [`N_CTX`]-token context and a [`DEADLINE`].
    fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
    ) -> Result<Generation, ModelError> {
        self.generate_drafted(messages, grammar, max_tokens, None)
    }

    /// The same, the draft checked a batch of tokens at a time.
    fn generate_drafted(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
        draft: Option<&str>,
    ) -> Result<Generation, ModelError> {
        let params = GenParams {
            max_tokens,
            grammar: Some(grammar),
            deadline: DEADLINE,
            n_ctx: N_CTX,
            cancel: &self.cancel,
            draft,
        };
        self.generate_with(messages, &params)
            .map(|(generation, _)| generation)
            .map_err(|e| ModelError(e.to_string()))
    }
}

fn decode(ctx: &mut LlamaContext<'_>, batch: &mut LlamaBatch<'_>) -> Result<(), LlamaError> {
    ctx.decode(batch)
        .map_err(|e| LlamaError::Decode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use localm_core::consolidate::{grammar, prompt};

    use super::*;

    /// The test GGUF (see [`crate::models::test_model`]).
    fn model_path() -> Option<PathBuf> {
        crate::models::test_model("LOCALM_TEST_LLM_MODEL", "SmolLM2-135M-Instruct.Q4_1.gguf")
    }

    fn msg(role: &str, content: &str) -> Message {
        Message {
            role: role.into(),
            content: content.into(),
        }
    }

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn params(grammar: Option<&str>, max_tokens: usize) -> GenParams<'_> {
        GenParams {
            max_tokens,
            grammar,
            deadline: Duration::from_secs(120),
            n_ctx: 2048,
            cancel: &NEVER,
            draft: None,
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
            let err = check_gguf(path).expect_err("check_gguf").to_string();
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

    /// A pass's rewrite calls share their instructions and examples: the second decodes only
    /// what follows, and says so, and writes what a cold context writes. A different context
    /// size, or `forget`, starts cold.
    #[test]
    fn a_shared_prefix_is_kept_and_changes_nothing() {
        let Some(path) = model_path() else { return };
        let warm = Llama::load(&path, Some(2)).expect("load warm");
        let cold = Llama::load(&path, Some(2)).expect("load cold");
        let fact = grammar::fact();
        let p = params(Some(&fact), 48);
        let first = prompt::rewrite("I keep two beehives on my allotment in Leeds");
        let second = prompt::rewrite(
            "I just adopted a beagle named Biscuit and I walk him every morning before work",
        );
        let (a, _) = warm.generate_with(&first, &p).expect("first");
        assert_eq!(a.cached_tokens, 0, "{a:?}");
        let (b, _) = warm.generate_with(&second, &p).expect("second");
        eprintln!("{a:?}\n{b:?}");
        assert!(
            b.cached_tokens > 40 && b.cached_tokens < b.prompt_tokens,
            "the examples are kept, the sentence is decoded: {b:?}"
        );
        let (c, _) = cold.generate_with(&second, &p).expect("cold");
        assert_eq!(c.cached_tokens, 0);
        assert_eq!(b.text, c.text, "reuse changed the output");
        // The same prompt again: all but its last token is kept.
        let (again, _) = warm.generate_with(&second, &p).expect("again");
        assert_eq!(again.cached_tokens, again.prompt_tokens - 1);
        assert_eq!(again.text, c.text);
        let mut other_size = p;
        other_size.n_ctx = 1024;
        let (d, _) = warm
            .generate_with(&second, &other_size)
            .expect("other size");
        assert_eq!(d.cached_tokens, 0, "a context of another size starts cold");
        warm.forget();
        let (e, _) = warm.generate_with(&second, &other_size).expect("forgotten");
        assert_eq!(e.cached_tokens, 0);
        assert_eq!(e.text, c.text);
    }

    /// A draft changes the time, not the text: right, wrong from its first word, wrong in its
    /// middle, and longer than the reply, the reply is the undrafted one; a right draft's tokens
    /// are taken in place, and a drafted call leaves the context as an undrafted one would
    /// (the next call reuses the same prefix and says the same).
    #[test]
    fn a_draft_changes_the_time_not_the_reply() {
        let Some(path) = model_path() else { return };
        let g = Llama::load(&path, Some(2)).expect("load");
        let fact = grammar::fact();
        let messages = prompt::rewrite(
            "I just adopted a beagle named Biscuit and I walk him every morning before work",
        );
        let plain = params(Some(&fact), 48);
        let held = |g: &Llama| {
            g.loaded.with_dependent(|_, slot| {
                let slot = slot.lock().expect("slot");
                slot.as_ref().map(|w| w.tokens.clone()).unwrap_or_default()
            })
        };
        g.forget();
        let (want, _) = g.generate_with(&messages, &plain).expect("plain");
        assert_eq!(want.drafted_tokens, 0);
        let want_held = held(&g);
        let half: String = want.text.chars().take(want.text.len() / 2).collect();
        let drafts = [
            want.text.clone(),
            r#"{"fact": "Somebody else entirely"}"#.to_string(),
            format!("{half} a cat named Mochi who sleeps all day\"}}"),
            format!("{} and more words past the end", want.text),
        ];
        for draft in &drafts {
            g.forget();
            let mut p = plain;
            p.draft = Some(draft);
            let (got, _) = g.generate_with(&messages, &p).expect("drafted");
            assert_eq!(got.text, want.text, "draft {draft:?} changed the reply");
            assert_eq!(got.gen_tokens, want.gen_tokens);
            assert!(
                held(&g) == want_held,
                "guesses never picked stay in the context"
            );
            // The next call on the same context: the prompt is reused as after a plain call.
            let (next, _) = g.generate_with(&messages, &plain).expect("after");
            assert_eq!(next.text, want.text);
            assert_eq!(next.cached_tokens, next.prompt_tokens - 1, "{draft:?}");
        }
        g.forget();
        let mut right = plain;
        right.draft = Some(&want.text);
        let (got, _) = g.generate_with(&messages, &right).expect("right");
        assert!(
            got.drafted_tokens + 2 >= got.gen_tokens,
            "a right draft is taken in place: {got:?}"
        );
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

    /// A set cancel flag ends the call it was passed to, and only that one: the model and its
    /// warm context serve the next call.
    #[test]
    fn a_cancelled_call_ends_and_the_next_one_runs() {
        let Some(path) = model_path() else { return };
        let cancel = Arc::new(AtomicBool::new(true));
        let mut g = Llama::load(&path, Some(2))
            .expect("load")
            .cancelled_by(Arc::clone(&cancel));
        let msgs = [msg("user", "Count from one to one hundred.")];
        let err = Generator::generate(&mut g, &msgs, "root ::= [a-z]+", 8).expect_err("cancelled");
        assert_eq!(err.0, LlamaError::Cancelled.to_string());
        let mut p = params(None, 8);
        p.cancel = &cancel;
        let err = g.generate_with(&msgs, &p);
        assert!(matches!(err, Err(LlamaError::Cancelled)), "{err:?}");
        let err = g.chat(
            &msgs,
            &Sampling {
                temperature: 0.0,
                top_p: 1.0,
                seed: 0,
                grammar: None,
            },
            8,
            2048,
            &cancel,
            &mut |_| true,
        );
        assert!(matches!(err, Err(LlamaError::Cancelled)), "{err:?}");
        let (out, _) = g
            .generate_with(&msgs, &params(None, 8))
            .expect("not cancelled");
        assert!(out.gen_tokens > 0, "{out:?}");
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
