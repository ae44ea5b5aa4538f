//! core's `Generator` on llama.cpp: greedy, grammar-constrained, bounded in tokens and time.

use std::path::Path;
use std::time::Duration;

use localm_core::engine::{EngineError, Generation, Generator, Message};

use super::llama::{ChatMessage, GenParams, LlamaGenerator};

/// Context size: a pass's prompt is about 8,000 characters of log plus a worked example.
const N_CTX: u32 = 4096;
/// Wall-clock bound on one generation.
const DEADLINE: Duration = Duration::from_secs(120);

/// A loaded GGUF model.
pub struct Llama(LlamaGenerator);

impl Llama {
    pub fn load(path: &Path, threads: Option<usize>) -> Result<Llama, EngineError> {
        LlamaGenerator::load(path, threads)
            .map(Llama)
            .map_err(|e| EngineError(e.to_string()))
    }

    pub fn name(&self) -> String {
        self.0.model_name()
    }
}

impl Generator for Llama {
    fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
    ) -> Result<Generation, EngineError> {
        let chat: Vec<ChatMessage> = messages
            .iter()
            .map(|m| ChatMessage::new(m.role.clone(), m.content.clone()))
            .collect();
        let params = GenParams {
            max_tokens,
            grammar: Some(grammar.to_string()),
            deadline: DEADLINE,
            n_ctx: N_CTX,
            seed: 0,
        };
        let out = self
            .0
            .generate(&chat, &params)
            .map_err(|e| EngineError(e.to_string()))?;
        Ok(Generation {
            text: out.text,
            prompt_tokens: out.prompt_tokens,
            gen_tokens: out.gen_tokens,
            prompt_ms: out.prompt_ms,
            gen_ms: out.gen_ms,
        })
    }
}
