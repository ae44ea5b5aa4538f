//! The on-device models: where they are installed, and loading them behind core's traits.

pub use localm_bert as bert;
pub mod cpu_share;
pub mod embedder;
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
    let default = embeddings_dir(data_dir).join(DEFAULT_EMBEDDER);
    let installed = default.join("config.json").exists();
    in_force(
        data_dir,
        settings.embedding_model.as_deref(),
        default,
        installed,
    )
}

/// A model setting resolved against the data dir, else `default` when it is installed.
fn in_force(
    data_dir: &Path,
    setting: Option<&Path>,
    default: PathBuf,
    installed: bool,
) -> Option<PathBuf> {
    match setting {
        Some(p) => Some(data_dir.join(p)), // `join` keeps an absolute path as it is
        None => installed.then_some(default),
    }
}

/// Load the embedder in force: `Ok(None)` when none is installed, an error when the installed
/// one cannot be loaded.
pub fn load_embedder(
    data_dir: &Path,
    settings: &Settings,
) -> anyhow::Result<Option<embedder::BertEmbedder>> {
    embedder_path(data_dir, settings)
        .map(|p| embedder::BertEmbedder::load(&p))
        .transpose()
}

/// The GGUF `localm setup-model` installs by default.
pub const DEFAULT_LLM_REPO: &str = "Qwen/Qwen2.5-0.5B-Instruct-GGUF";
pub const DEFAULT_LLM_FILE: &str = "qwen2.5-0.5b-instruct-q4_k_m.gguf";

/// `<data dir>/models/llm/`.
pub fn llm_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models").join("llm")
}

/// The GGUF chat replies use: the `chat_model` setting, else the consolidation model's.
pub fn chat_path(data_dir: &Path, settings: &Settings) -> Option<PathBuf> {
    match &settings.chat_model {
        Some(p) => Some(p.clone()),
        None => llm_path(data_dir, settings),
    }
}

/// The GGUF in force: the `llm_model` setting, else the default install if present.
pub fn llm_path(data_dir: &Path, settings: &Settings) -> Option<PathBuf> {
    let default = llm_dir(data_dir).join(DEFAULT_LLM_FILE);
    let installed = default.exists();
    in_force(data_dir, settings.llm_model.as_deref(), default, installed)
}

/// A test model's path: `$VAR`, else `test-models/NAME` in the workspace (as tests/src/lib.rs
/// resolves it). Missing: a failure when `LOCALM_REQUIRE_MODELS` is set, else `None` and a
/// "skipped" line written straight to stderr (not captured by the harness).
#[cfg(test)]
pub(crate) fn test_model(var: &str, name: &str) -> Option<PathBuf> {
    use std::io::Write as _;
    let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test-models")
            .join(name)
    });
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("LOCALM_REQUIRE_MODELS").is_none(),
        "{} is missing and LOCALM_REQUIRE_MODELS is set: run scripts/fetch-test-models and set {var}",
        path.display()
    );
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {}: {} not found (set {var} or run scripts/fetch-test-models)",
        std::thread::current().name().unwrap_or("a model test"),
        path.display()
    );
    None
}
