//! The two model traits core's rules run against: `Embedder` (sentence vectors) and `Generator`
//! (text from a prompt). The daemon's `models` implement them on candle and llama.cpp; tests
//! script them.

/// A model failed; the message says why in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelError(pub String);

/// Turns texts into L2-normalised vectors.
pub trait Embedder: Send + Sync {
    /// Identifies the model (name, dimension, pooling, config hash): a vector made by another id
    /// is never compared with one made by this.
    fn id(&self) -> &str;
    fn dim(&self) -> usize;
    /// One unit-length vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError>;
}

/// One chat-template message of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// What one generation produced, with its cost.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Generation {
    pub text: String,
    pub prompt_tokens: usize,
    /// Of `prompt_tokens`, those the generator did not decode again (kept from its last call).
    #[serde(default)]
    pub cached_tokens: usize,
    pub gen_tokens: usize,
    /// Of `gen_tokens`, those a draft had guessed and decoded ahead ([`Generator::generate_drafted`]).
    #[serde(default)]
    pub drafted_tokens: usize,
    pub prompt_ms: f64,
    pub gen_ms: f64,
}

/// Produces text for a chat prompt, constrained by a GBNF grammar.
pub trait Generator {
    fn generate(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
    ) -> Result<Generation, ModelError>;

    /// [`Generator::generate`], told what the reply likely is: `draft`, the whole reply text the
    /// caller expects. A generator may decode the draft's tokens many at a time and keep those
    /// it would have picked itself; the reply is the one `generate` gives, sooner when the guess
    /// is right. By default the draft is not used.
    fn generate_drafted(
        &mut self,
        messages: &[Message],
        grammar: &str,
        max_tokens: usize,
        draft: Option<&str>,
    ) -> Result<Generation, ModelError> {
        let _ = draft;
        self.generate(messages, grammar, max_tokens)
    }
}
