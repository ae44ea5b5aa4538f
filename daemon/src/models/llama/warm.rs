//! The one context kept warm between calls: a call whose prompt starts with the tokens the last
//! call left in it (a pass's rewrite prompts share their instructions and examples; a chat turn
//! extends the last one) decodes only the rest. The KV of a shared prefix is the same whichever
//! call computed it, so reuse changes the time, not the text (a test compares the two). The
//! context stays allocated between calls (its KV for `n_ctx` tokens: about 90 MB for
//! SmolLM2-135M at 4,096) until the process ends or `Llama::forget`.

use std::num::NonZeroU32;
use std::sync::Mutex;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

use super::LlamaError;

self_cell::self_cell!(
    /// The model and the one context kept warm on it (a context borrows its model).
    pub(super) struct Loaded {
        owner: LlamaModel,
        #[not_covariant]
        dependent: WarmSlot,
    }
);

/// The context the last call left, when it ended cleanly.
pub(super) type WarmSlot<'m> = Mutex<Option<Warm<'m>>>;

/// A context and the tokens whose KV it holds, from position 0.
pub(super) struct Warm<'m> {
    pub(super) ctx: LlamaContext<'m>,
    n_ctx: u32,
    n_threads: usize,
    pub(super) tokens: Vec<LlamaToken>,
}

/// A context of `n_ctx` tokens on `n_threads`: the warm one from the slot when it has both,
/// with the KV past the longest prefix it shares with `tokens` removed, else a new one.
pub(super) fn take_context<'m>(
    backend: &LlamaBackend,
    model: &'m LlamaModel,
    slot: &WarmSlot<'m>,
    n_ctx: u32,
    n_threads: usize,
    tokens: &[LlamaToken],
) -> Result<Warm<'m>, LlamaError> {
    let warm = slot
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some(mut warm) = warm.filter(|w| w.n_ctx == n_ctx && w.n_threads == n_threads) {
        // At least the prompt's last token is decoded again: its logits start the reply.
        let keep = shared_prefix(&warm.tokens, tokens).min(tokens.len() - 1);
        warm.keep(keep);
        return Ok(warm);
    }
    let n_batch = n_ctx.min(512);
    let threads = i32::try_from(n_threads).unwrap_or(i32::MAX);
    let ctx_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(n_ctx))
        .with_n_batch(n_batch)
        .with_n_ubatch(n_batch)
        .with_n_threads(threads)
        .with_n_threads_batch(threads)
        .with_no_perf(true);
    let ctx = model
        .new_context(backend, ctx_params)
        .map_err(|e| LlamaError::Decode(format!("cannot create context: {e}")))?;
    Ok(Warm {
        ctx,
        n_ctx,
        n_threads,
        tokens: Vec::new(),
    })
}

impl Warm<'_> {
    /// Forget the KV past the first `keep` tokens (all of it when llama.cpp cannot remove a
    /// part).
    pub(super) fn keep(&mut self, keep: usize) {
        if keep >= self.tokens.len() {
            return;
        }
        let removed = u32::try_from(keep).is_ok_and(|k| {
            self.ctx
                .clear_kv_cache_seq(Some(0), Some(k), None)
                .unwrap_or(false)
        });
        if removed {
            self.tokens.truncate(keep);
        } else {
            self.ctx.clear_kv_cache();
            self.tokens.clear();
        }
    }
}

/// How many leading tokens `a` and `b` share.
fn shared_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}
