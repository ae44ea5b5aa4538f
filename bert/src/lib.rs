//! Sentence embeddings from a BERT sentence-transformers folder: validates and loads it (weights
//! read straight from the safetensors file), runs [`encoder::Encoder`] over each text, pools, L2-normalises. Its own
//! crate so that dev builds optimise it (the kernels are tens of times slower unoptimised).

mod config;
mod encoder;
mod matmul;
#[cfg(test)]
mod reference;
mod tokenize;
mod unigram;
mod weights;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use localm_core::id::fnv1a32;

use config::Config;
use encoder::Encoder;
pub use tokenize::TextTokenizer;
use weights::Weights;

/// Longest input, in tokens (special tokens included), that is ever fed to the model.
const MAX_TOKENS: usize = 256;

const CONFIG_FILE: &str = "config.json";
const WEIGHTS_FILE: &str = "model.safetensors";
const TOKENIZER_FILE: &str = "tokenizer.json";
const POOLING_FILE: &str = "1_Pooling/config.json";
const SBERT_CONFIG_FILE: &str = "sentence_bert_config.json";
/// sentence-transformers' own settings; its `prompts.query` is put before every text.
const ST_CONFIG_FILE: &str = "config_sentence_transformers.json";

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
    encoder: Encoder,
    tokenizer: TextTokenizer,
    /// Put before every text (`config_sentence_transformers.json`'s `prompts.query`).
    prompt: Option<String>,
    pooling: Pooling,
    dim: usize,
    id: String,
}

/// What `validate_dir` learns from the small files of a model folder.
struct DirInfo {
    config: Config,
    /// Of config.json's bytes, and of the prompt when there is one.
    config_hash: u32,
    /// Put before every text ("query: " for the E5 models, trained so for symmetric tasks).
    prompt: Option<String>,
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

#[derive(serde::Deserialize)]
struct StConfig {
    #[serde(default)]
    prompts: std::collections::BTreeMap<String, String>,
}

/// The folder's query prompt, when its sentence-transformers config names a non-empty one.
fn read_prompt(dir: &Path) -> Result<Option<String>, BertError> {
    let path = dir.join(ST_CONFIG_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let st: StConfig = serde_json::from_slice(&read_file(&path)?)
        .map_err(|e| BertError::Invalid(format!("{} is not valid: {e}", path.display())))?;
    Ok(st.prompts.get("query").filter(|p| !p.is_empty()).cloned())
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

    let prompt = read_prompt(dir)?;
    let mut hashed = config_bytes;
    if let Some(p) = &prompt {
        hashed.extend_from_slice(p.as_bytes());
    }
    Ok(DirInfo {
        config,
        config_hash: fnv1a32(&hashed),
        prompt,
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

/// The tokenizer of the folder at `dir`, configured as [`Bert`] uses it (for `scripts/bench
/// recall`, which times it alone).
pub fn tokenizer(dir: &Path) -> Result<TextTokenizer, BertError> {
    TextTokenizer::from_file(&dir.join(TOKENIZER_FILE), inspect_dir(dir)?.max_tokens)
}

impl Bert {
    /// Validate a model folder without loading weights: which of config.json, model.safetensors,
    /// tokenizer.json are missing, config parse, pooling config. Returns the pooling that will be used.
    pub fn validate_dir(dir: &Path) -> Result<Pooling, BertError> {
        inspect_dir(dir).map(|info| info.pooling)
    }

    /// Load config, tokenizer and weights from a sentence-transformers folder. The weights are
    /// read once through a memory map into the encoder's own arrays (the layers' matrices as f16).
    pub fn load(dir: &Path) -> Result<Self, BertError> {
        let info = inspect_dir(dir)?;
        let tokenizer = TextTokenizer::from_file(&dir.join(TOKENIZER_FILE), info.max_tokens)?;

        let weights_path = dir.join(WEIGHTS_FILE);
        let weights = Weights::open(&weights_path)?;
        let vb = weights.tensors()?;
        let vb = if vb.contains("embeddings.word_embeddings.weight") {
            vb
        } else if vb.contains("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            return Err(BertError::Invalid(format!(
                "{} has neither embeddings.word_embeddings.weight nor \
                 bert.embeddings.word_embeddings.weight",
                weights_path.display()
            )));
        };
        let encoder = Encoder::load(&vb, &info.config)?;

        let dim = info.config.hidden_size;
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_string());
        let mut id = format!("{name}:{dim}:{}:", info.pooling.as_str());
        let _ = write!(id, "{:08x}", info.config_hash);

        Ok(Self {
            encoder,
            tokenizer,
            prompt: info.prompt,
            pooling: info.pooling,
            dim,
            id,
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

    /// One L2-normalised vector per text, in order; empty input → empty output. Texts are
    /// truncated at 256 tokens (or the model's maximum, whichever is smaller) and run one at a
    /// time, so nothing is padded.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, BertError> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>, BertError> {
        let prompted;
        let text = match &self.prompt {
            Some(p) => {
                prompted = format!("{p}{text}");
                prompted.as_str()
            }
            None => text,
        };
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| BertError::Tokenizer(e.to_string()))?;
        let (ids, types) = (enc.get_ids(), enc.get_type_ids());
        if ids.is_empty() {
            return Err(BertError::Tokenizer(
                "tokenizer produced no tokens".to_string(),
            ));
        }
        let hidden = self.encoder.forward(ids, types).ok_or_else(|| {
            BertError::Invalid(format!(
                "a token id or position is outside the model's tables ({} tokens)",
                ids.len()
            ))
        })?;
        let mut pooled = match self.pooling {
            Pooling::Cls => hidden[..self.dim].to_vec(),
            Pooling::Mean => {
                let mut sum = vec![0f32; self.dim];
                for row in hidden.chunks_exact(self.dim) {
                    for (s, v) in sum.iter_mut().zip(row) {
                        *s += v;
                    }
                }
                let n = ids.len() as f32;
                sum.iter_mut().for_each(|s| *s /= n);
                sum
            }
        };
        let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
        pooled.iter_mut().for_each(|v| *v /= norm);
        Ok(pooled)
    }
}

#[cfg(test)]
mod e5_reference;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Bert>();
    }

    /// A test model: `$VAR`, else `test-models/FOLDER` in the workspace. Missing: a failure
    /// when `LOCALM_REQUIRE_MODELS` is set, else `None` and a note.
    pub(crate) fn test_model_at(var: &str, folder: &str) -> Option<PathBuf> {
        let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../test-models")
                .join(folder)
        });
        if path.is_dir() {
            return Some(path);
        }
        assert!(
            std::env::var_os("LOCALM_REQUIRE_MODELS").is_none(),
            "{} is missing and LOCALM_REQUIRE_MODELS is set: run scripts/fetch-test-models",
            path.display()
        );
        eprintln!(
            "skipped: {} not found (run scripts/fetch-test-models)",
            path.display()
        );
        None
    }

    /// all-MiniLM-L6-v2, the tests' English model.
    fn test_model() -> Option<PathBuf> {
        test_model_at("LOCALM_TEST_EMBED_MODEL", "all-MiniLM-L6-v2")
    }

    #[test]
    fn the_encoder_agrees_with_candles_bert() {
        let Some(dir) = test_model() else {
            return;
        };
        let long = "I write printer firmware in C at Acme and the build keeps failing. ".repeat(30);
        let texts = [
            "hi",
            "what editor do I use?",
            "Any dinner ideas for tonight? User is vegetarian and allergic to peanuts.",
            "Ünïcödé, emoji 🎉 and numbers 1234567 all in one line",
            long.as_str(),
        ];
        let ours = Bert::load(&dir).unwrap().embed(&texts).unwrap();
        let reference = reference::CandleBert::load(&dir, tokenizer(&dir).unwrap()).unwrap();
        let theirs: Vec<Vec<f32>> = texts.iter().map(|t| reference.embed(t).unwrap()).collect();
        let mut worst = 1f32;
        for ((t, a), b) in texts.iter().zip(&ours).zip(&theirs) {
            assert_eq!(a.len(), b.len());
            let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            let head: String = t.chars().take(40).collect();
            assert!(cos > 0.999_999, "cosine {cos} for {head:?}");
            worst = worst.min(cos);
        }
        eprintln!("lowest cosine to candle's BertModel: {worst}");
    }

    #[test]
    fn missing_dir_is_reported() {
        let err = Bert::validate_dir(Path::new("/nonexistent/model/dir"));
        assert!(matches!(err, Err(BertError::Missing(_))));
    }
}
