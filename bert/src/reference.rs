//! candle-transformers' own `BertModel` over the same folder, mean-pooled and L2-normalised: the
//! float result [`super::encoder`] is held to (a unit test) and timed against (`scripts/bench
//! recall`). The product never embeds with it.

use std::path::Path;

use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use tokenizers::Tokenizer;

use super::{BertError, WEIGHTS_FILE, inspect_dir, load_tokenizer};

/// The reference model with its tokenizer (unpadded, truncated as [`super::Bert`] truncates).
pub struct CandleBert {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
}

impl CandleBert {
    pub fn load(dir: &Path) -> Result<CandleBert, BertError> {
        let info = inspect_dir(dir)?;
        let tokenizer = load_tokenizer(dir, info.max_tokens)?;
        let device = Device::Cpu;
        // SAFETY: read-only mmap; the model file is not modified while it is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&[dir.join(WEIGHTS_FILE)], DType::F32, &device)?
        };
        let model = BertModel::load(vb, &info.config)?;
        Ok(CandleBert {
            model,
            tokenizer,
            device,
        })
    }

    /// One text's mean-pooled, L2-normalised vector.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, BertError> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| BertError::Tokenizer(e.to_string()))?;
        let ids = Tensor::new(enc.get_ids(), &self.device)?.unsqueeze(0)?;
        let types = Tensor::new(enc.get_type_ids(), &self.device)?.unsqueeze(0)?;
        let pooled = self.model.forward(&ids, &types, None)?.mean(1)?;
        let norm = pooled.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?;
        Ok(pooled.broadcast_div(&norm)?.to_vec2::<f32>()?.remove(0))
    }
}
