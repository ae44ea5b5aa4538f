//! How tokens are picked: the three sampler variants (plain greedy, greedy under a GBNF grammar,
//! a chat reply's chain, itself under a `response_format` grammar when asked) behind one
//! [`TokenSampler::sample`].
//!
//! Without a grammar, [`LlamaSampler::sample`] on a greedy sampler picks the token (`sample`
//! already accepts it; never call `accept` after `sample`). With a grammar, the grammar sampler
//! is applied to the argmax first and to the whole vocabulary only if the argmax is rejected,
//! and then accepted exactly once per token via `try_accept` (llama.cpp exceptions become
//! errors, double accepts cannot happen).

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::LlamaError;

/// How a chat reply is sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling<'g> {
    /// 0 = greedy.
    pub temperature: f32,
    pub top_p: f32,
    pub seed: u32,
    /// A GBNF grammar (root rule `root`: a `response_format`) the reply must follow.
    pub grammar: Option<&'g str>,
}

impl Sampling<'_> {
    pub(super) fn sampler(&self) -> LlamaSampler {
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

/// A GBNF grammar's sampler (root rule `root`).
fn grammar_sampler(model: &LlamaModel, grammar: &str) -> Result<LlamaSampler, LlamaError> {
    LlamaSampler::grammar(model, grammar, "root")
        .map_err(|e| LlamaError::Grammar(format!("invalid grammar: {e}")))
}

/// Greedy sampling, optionally constrained by a grammar.
pub(super) enum TokenSampler {
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
    pub(super) fn new(model: &LlamaModel, grammar: Option<&str>) -> Result<Self, LlamaError> {
        Ok(match grammar {
            None => Self::Greedy(LlamaSampler::greedy()),
            Some(g) => Self::Grammar(grammar_sampler(model, g)?),
        })
    }

    /// A chat reply's sampler: `sampling`'s chain, under `grammar` when there is one (a
    /// `response_format`); greedy under a grammar takes the [`TokenSampler::Grammar`] path.
    pub(super) fn chat(model: &LlamaModel, sampling: &Sampling) -> Result<Self, LlamaError> {
        Ok(match sampling.grammar {
            None => Self::Chat(sampling.sampler()),
            Some(g) if sampling.temperature <= 0.0 => Self::Grammar(grammar_sampler(model, g)?),
            Some(g) => Self::Chat(LlamaSampler::chain_simple([
                grammar_sampler(model, g)?,
                sampling.sampler(),
            ])),
        })
    }

    pub(super) fn sample(
        &mut self,
        ctx: &LlamaContext<'_>,
        idx: i32,
    ) -> Result<LlamaToken, LlamaError> {
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
