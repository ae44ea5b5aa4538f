//! core's `Embedder` on the candle BERT model.

use std::path::Path;

use anyhow::Context as _;
use localm_core::engine::{Embedder, EngineError};

use super::bert::Bert;

/// A loaded sentence-transformers model.
pub struct BertEmbedder(Bert);

impl BertEmbedder {
    pub fn load(dir: &Path) -> anyhow::Result<BertEmbedder> {
        let model = Bert::load(dir)
            .with_context(|| format!("while loading the embedding model in {}", dir.display()))?;
        Ok(BertEmbedder(model))
    }
}

impl Embedder for BertEmbedder {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn dim(&self) -> usize {
        self.0.dim()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EngineError> {
        self.0.embed(texts).map_err(|e| EngineError(e.to_string()))
    }
}
