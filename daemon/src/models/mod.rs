//! The on-device models: where they are installed, and loading them behind core's traits.

pub mod bert;
pub mod embedder;
pub mod generator;
pub mod llama;

use std::path::{Path, PathBuf};

use localm_core::Settings;

/// The embedding model installed by default (`localm setup-embeddings`).
pub const DEFAULT_EMBEDDER: &str = "bge-small-en-v1.5";

/// `<data dir>/models/embeddings/`.
pub fn embeddings_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join("embeddings")
}

/// The embedding model folder in force: the `embedding_model` setting, else the default
/// install location if it exists; `None` when no embedder is installed.
pub fn embedder_path(data_dir: &Path, settings: &Settings) -> Option<PathBuf> {
    if let Some(p) = &settings.embedding_model {
        return Some(if p.is_absolute() {
            p.clone()
        } else {
            data_dir.join(p)
        });
    }
    let default = embeddings_dir(data_dir).join(DEFAULT_EMBEDDER);
    default.join("config.json").exists().then_some(default)
}

/// The GGUF `localm setup-model` installs by default.
pub const DEFAULT_LLM_REPO: &str = "Qwen/Qwen2.5-0.5B-Instruct-GGUF";
pub const DEFAULT_LLM_FILE: &str = "qwen2.5-0.5b-instruct-q4_k_m.gguf";

/// `<data dir>/models/llm/`.
pub fn llm_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join("llm")
}

/// The GGUF in force: the `llm_model` setting, else the default install if present.
pub fn llm_path(data_dir: &Path, settings: &Settings) -> Option<PathBuf> {
    if let Some(p) = &settings.llm_model {
        return Some(if p.is_absolute() {
            p.clone()
        } else {
            data_dir.join(p)
        });
    }
    let default = llm_dir(data_dir).join(DEFAULT_LLM_FILE);
    default.exists().then_some(default)
}
