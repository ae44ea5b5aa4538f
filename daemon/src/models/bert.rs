//! Sentence embeddings on candle BERT: loads a sentence-transformers folder, pools, L2-normalises.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use localm_core::id::fnv1a32;
use tokenizers::{
    PaddingDirection, PaddingParams, PaddingStrategy, Tokenizer, TruncationDirection,
    TruncationParams, TruncationStrategy,
};

/// Longest input, in tokens (special tokens included), that is ever fed to the model.
const MAX_TOKENS: usize = 256;
/// Largest number of texts run through the model in one forward pass; bigger inputs are chunked.
const MAX_BATCH: usize = 64;

const CONFIG_FILE: &str = "config.json";
const WEIGHTS_FILE: &str = "model.safetensors";
const TOKENIZER_FILE: &str = "tokenizer.json";
const POOLING_FILE: &str = "1_Pooling/config.json";
const SBERT_CONFIG_FILE: &str = "sentence_bert_config.json";

/// Errors from validating, loading or running a sentence-transformers BERT model.
#[derive(Debug, thiserror::Error)]
pub enum BertError {
    /// Required files (or the folder itself) that do not exist.
    #[error("model file(s) missing: {}", join_paths(.0))]
    Missing(Vec<PathBuf>),
    /// A file that exists but could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file or setting with content this module cannot use.
    #[error("invalid model: {0}")]
    Invalid(String),
    /// An error from candle while loading weights or running the model.
    #[error("candle error: {0}")]
    Candle(#[from] candle_core::Error),
    /// An error from the tokenizer (loading tokenizer.json or encoding text).
    #[error("tokenizer error: {0}")]
    Tokenizer(String),
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How token vectors are turned into one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// The vector of the first ([CLS]) token (e.g. bge-small-en-v1.5).
    Cls,
    /// Mean of the token vectors, padding excluded (e.g. all-MiniLM-L6-v2).
    Mean,
}

impl Pooling {
    fn as_str(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
        }
    }
}

/// A loaded sentence-transformers BERT model with its tokenizer.
pub struct Bert {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dim: usize,
    id: String,
    device: Device,
}

/// What `validate_dir` learns from the small files of a model folder.
struct DirInfo {
    config: Config,
    config_hash: u32,
    pooling: Pooling,
    max_tokens: usize,
}

#[derive(serde::Deserialize)]
struct PoolingConfig {
    word_embedding_dimension: Option<usize>,
    #[serde(default)]
    pooling_mode_cls_token: bool,
    #[serde(default)]
    pooling_mode_mean_tokens: bool,
    #[serde(default)]
    pooling_mode_max_tokens: bool,
    #[serde(default)]
    pooling_mode_mean_sqrt_len_tokens: bool,
}

#[derive(serde::Deserialize)]
struct SbertConfig {
    max_seq_length: Option<usize>,
}

fn read_file(path: &Path) -> Result<Vec<u8>, BertError> {
    std::fs::read(path).map_err(|source| BertError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn inspect_dir(dir: &Path) -> Result<DirInfo, BertError> {
    if !dir.is_dir() {
        return Err(BertError::Missing(vec![dir.to_path_buf()]));
    }
    let missing: Vec<PathBuf> = [CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_FILE]
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| !path.is_file())
        .collect();
    if !missing.is_empty() {
        return Err(BertError::Missing(missing));
    }

    let config_path = dir.join(CONFIG_FILE);
    let config_bytes = read_file(&config_path)?;
    let config: Config = serde_json::from_slice(&config_bytes).map_err(|e| {
        BertError::Invalid(format!(
            "{} is not a usable BERT config: {e}",
            config_path.display()
        ))
    })?;
    if let Some(model_type) = config.model_type.as_deref()
        && model_type != "bert"
    {
        return Err(BertError::Invalid(format!(
            "{} has model_type \"{model_type}\"; only \"bert\" is supported",
            config_path.display()
        )));
    }
    if config.hidden_size == 0
        || config.num_attention_heads == 0
        || !config
            .hidden_size
            .is_multiple_of(config.num_attention_heads)
    {
        return Err(BertError::Invalid(format!(
            "{}: hidden_size {} is not a multiple of num_attention_heads {}",
            config_path.display(),
            config.hidden_size,
            config.num_attention_heads
        )));
    }

    let pooling = read_pooling(dir, config.hidden_size)?;

    let mut max_tokens = MAX_TOKENS.min(config.max_position_embeddings);
    let sbert_path = dir.join(SBERT_CONFIG_FILE);
    if sbert_path.is_file() {
        let sbert: SbertConfig = serde_json::from_slice(&read_file(&sbert_path)?).map_err(|e| {
            BertError::Invalid(format!("{} is not valid: {e}", sbert_path.display()))
        })?;
        if let Some(n) = sbert.max_seq_length {
            max_tokens = max_tokens.min(n);
        }
    }
    if max_tokens < 2 {
        return Err(BertError::Invalid(format!(
            "maximum sequence length {max_tokens} is too small"
        )));
    }

    Ok(DirInfo {
        config,
        config_hash: fnv1a32(&config_bytes),
        pooling,
        max_tokens,
    })
}

fn read_pooling(dir: &Path, hidden_size: usize) -> Result<Pooling, BertError> {
    let path = dir.join(POOLING_FILE);
    if !path.is_file() {
        return Ok(Pooling::Mean);
    }
    let pc: PoolingConfig = serde_json::from_slice(&read_file(&path)?)
        .map_err(|e| BertError::Invalid(format!("{} is not valid: {e}", path.display())))?;
    if let Some(d) = pc.word_embedding_dimension
        && d != hidden_size
    {
        return Err(BertError::Invalid(format!(
            "{}: word_embedding_dimension {d} differs from config.json hidden_size {hidden_size}",
            path.display()
        )));
    }
    let unsupported = pc.pooling_mode_max_tokens || pc.pooling_mode_mean_sqrt_len_tokens;
    match (pc.pooling_mode_cls_token, pc.pooling_mode_mean_tokens) {
        (true, false) if !unsupported => Ok(Pooling::Cls),
        (false, true) if !unsupported => Ok(Pooling::Mean),
        _ => Err(BertError::Invalid(format!(
            "{}: exactly one of pooling_mode_cls_token / pooling_mode_mean_tokens must be true \
             (max and mean_sqrt_len pooling are not supported)",
            path.display()
        ))),
    }
}

fn tokenizer_error(path: &Path, e: impl std::fmt::Display) -> BertError {
    BertError::Tokenizer(format!("{}: {e}", path.display()))
}

impl Bert {
    /// Validate a model folder without loading weights: which of config.json, model.safetensors,
    /// tokenizer.json are missing, config parse, pooling config. Returns the pooling that will be used.
    pub fn validate_dir(dir: &Path) -> Result<Pooling, BertError> {
        inspect_dir(dir).map(|info| info.pooling)
    }

    /// Load config, tokenizer and weights (memory-mapped) from a sentence-transformers folder.
    pub fn load(dir: &Path) -> Result<Self, BertError> {
        let info = inspect_dir(dir)?;
        let device = Device::Cpu;

        let tok_path = dir.join(TOKENIZER_FILE);
        let mut tokenizer =
            Tokenizer::from_file(&tok_path).map_err(|e| tokenizer_error(&tok_path, e))?;
        let pad_id = u32::try_from(info.config.pad_token_id).map_err(|_| {
            BertError::Invalid(format!(
                "pad_token_id {} is out of range",
                info.config.pad_token_id
            ))
        })?;
        let (pad_id, pad_type_id, pad_token) = match tokenizer.get_padding() {
            Some(p) => (p.pad_id, p.pad_type_id, p.pad_token.clone()),
            None => {
                let token = tokenizer
                    .id_to_token(pad_id)
                    .unwrap_or_else(|| "[PAD]".to_string());
                (pad_id, 0, token)
            }
        };
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            direction: PaddingDirection::Right,
            pad_to_multiple_of: None,
            pad_id,
            pad_type_id,
            pad_token,
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: info.max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| tokenizer_error(&tok_path, e))?;

        let weights_path = dir.join(WEIGHTS_FILE);
        // SAFETY: the file is memory-mapped read-only; like every mmap user we rely on the
        // model file not being modified while the embedder is alive.
        let vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[&weights_path], DType::F32, &device)? };
        let vb = if vb.contains_tensor("embeddings.word_embeddings.weight") {
            vb
        } else if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            return Err(BertError::Invalid(format!(
                "{} has neither embeddings.word_embeddings.weight nor \
                 bert.embeddings.word_embeddings.weight",
                weights_path.display()
            )));
        };
        let model = BertModel::load(vb, &info.config)?;

        let dim = info.config.hidden_size;
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_string());
        let mut id = format!("{name}:{dim}:{}:", info.pooling.as_str());
        let _ = write!(id, "{:08x}", info.config_hash);

        Ok(Self {
            model,
            tokenizer,
            pooling: info.pooling,
            dim,
            id,
            device,
        })
    }

    /// Stable identifier of the model: "<folder name>:<dim>:<cls|mean>:<8-hex hash of config.json bytes>"
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Length of every vector `embed` returns.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The pooling in use.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Batched; each output vector L2-normalised; empty input → empty output. Texts truncated at 256 tokens (or the model max, whichever is smaller).
    ///
    /// Texts are grouped by length into forward passes of at most 64, so padding stays small;
    /// the output order matches the input order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, BertError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(MAX_BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.embed_batch(batch)?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: Vec<&str>) -> Result<Vec<Vec<f32>>, BertError> {
        let n = texts.len();
        let encodings = self
            .tokenizer
            .encode_batch(texts, true)
            .map_err(|e| BertError::Tokenizer(e.to_string()))?;
        let seq_len = encodings.first().map_or(0, |e| e.get_ids().len());
        if seq_len == 0 {
            return Err(BertError::Tokenizer(
                "tokenizer produced no tokens".to_string(),
            ));
        }
        let mut ids = Vec::with_capacity(n * seq_len);
        let mut type_ids = Vec::with_capacity(n * seq_len);
        let mut mask = Vec::with_capacity(n * seq_len);
        for enc in &encodings {
            if enc.get_ids().len() != seq_len {
                return Err(BertError::Tokenizer(
                    "tokenizer returned a batch of uneven length".to_string(),
                ));
            }
            ids.extend_from_slice(enc.get_ids());
            type_ids.extend_from_slice(enc.get_type_ids());
            mask.extend_from_slice(enc.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (n, seq_len), &self.device)?;
        let type_ids = Tensor::from_vec(type_ids, (n, seq_len), &self.device)?;
        let mask = Tensor::from_vec(mask, (n, seq_len), &self.device)?;

        // (n, seq_len, dim)
        let hidden = self.model.forward(&ids, &type_ids, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // (n, seq_len, 1)
                let summed = hidden.broadcast_mul(&m)?.sum(1)?; // (n, dim)
                let counts = m.sum(1)?.clamp(1e-9f32, f32::MAX)?; // (n, 1)
                summed.broadcast_div(&counts)?
            }
        };
        let norms = pooled
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12f32, f32::MAX)?;
        let normalised = pooled.broadcast_div(&norms)?;
        Ok(normalised.to_vec2::<f32>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Bert>();
    }

    #[test]
    fn missing_dir_is_reported() {
        let err = Bert::validate_dir(Path::new("/nonexistent/model/dir"));
        assert!(matches!(err, Err(BertError::Missing(_))));
    }
}
