//! candle-transformers' own `BertModel` over the same folder, mean-pooled and L2-normalised: the
//! float result [`super::encoder`] is held to (a unit test) and timed against
//! (`bert/examples/vs_candle.rs`). Test and example code only: candle is a dev-dependency, so the
//! product never builds it. It uses nothing of the crate but what it is handed, so the example
//! includes this same file.

use std::path::Path;

use crate::TextTokenizer;
use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};

/// The reference model with the tokenizer it is given (the crate's, unpadded and truncated as
/// `Bert` truncates).
pub struct CandleBert {
    model: BertModel,
    tokenizer: TextTokenizer,
    device: Device,
}

/// What loading or running the reference can fail on, as one line.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

impl CandleBert {
    pub fn load(dir: &Path, tokenizer: TextTokenizer) -> Result<CandleBert, Error> {
        let config: Config = serde_json::from_slice(&std::fs::read(dir.join("config.json"))?)?;
        let device = Device::Cpu;
        // SAFETY: read-only mmap; the model file is not modified while it is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(
                &[dir.join("model.safetensors")],
                DType::F32,
                &device,
            )?
        };
        let model = BertModel::load(vb, &config)?;
        Ok(CandleBert {
            model,
            tokenizer,
            device,
        })
    }

    /// One text's mean-pooled, L2-normalised vector.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, Error> {
        let enc = self.tokenizer.encode(text, true)?;
        let ids = Tensor::new(enc.get_ids(), &self.device)?.unsqueeze(0)?;
        let types = Tensor::new(enc.get_type_ids(), &self.device)?.unsqueeze(0)?;
        let pooled = self.model.forward(&ids, &types, None)?.mean(1)?;
        let norm = pooled.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?;
        Ok(pooled.broadcast_div(&norm)?.to_vec2::<f32>()?.remove(0))
    }
}
