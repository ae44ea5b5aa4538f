//! `localm setup-embeddings` and `localm setup-model`: install a sentence-transformers model (download with a progress
//! bar, or an offline copy with `--from`), check that it loads and runs, make it the embedding
//! model in settings, and embed the existing facts.

use std::fs;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use indicatif::{ProgressBar, ProgressStyle};
use localm_core::models::Embedder;
use localm_core::store::Store;

use super::Context;
use super::output::print;
use crate::backfill;
use crate::models::bert::Bert;
use crate::models::{self, DEFAULT_EMBEDDER, embedder::BertEmbedder};

/// The repository the default model is downloaded from.
const DEFAULT_REPO: &str = "BAAI/bge-small-en-v1.5";
/// Files needed to load a model; the first three are required.
const FILES: &[&str] = &[
    "config.json",
    "model.safetensors",
    "tokenizer.json",
    "1_Pooling/config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
];

pub fn embeddings(ctx: &Context, from: Option<&Path>) -> anyhow::Result<()> {
    let root = models::embeddings_dir(&ctx.data_dir);
    localm_core::fsutil::create_private_dir(&root)
        .with_context(|| format!("while creating {}", root.display()))?;
    let (name, staged) = match from {
        Some(src) => {
            let name = src
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| DEFAULT_EMBEDDER.to_string());
            Bert::validate_dir(src)
                .with_context(|| format!("{} is not a usable embedding model", src.display()))?;
            let staged = staging(&root, &name)?;
            copy_model(src, &staged)?;
            (name, staged)
        }
        None => {
            let staged = staging(&root, DEFAULT_EMBEDDER)?;
            if let Err(e) = download(DEFAULT_REPO, &staged) {
                let _ = fs::remove_dir_all(&staged);
                return Err(e);
            }
            (DEFAULT_EMBEDDER.to_string(), staged)
        }
    };
    // Check the copy loads and runs before it replaces anything.
    let check = BertEmbedder::load(&staged).and_then(|b| {
        b.embed(&["hello"])
            .map_err(|e| anyhow::anyhow!("the model loads but does not run: {e}"))?;
        Ok(b)
    });
    if let Err(e) = check {
        let _ = fs::remove_dir_all(&staged);
        return Err(e);
    }
    let dest = root.join(&name);
    if dest.exists() {
        fs::remove_dir_all(&dest).with_context(|| format!("while replacing {}", dest.display()))?;
    }
    fs::rename(&staged, &dest).with_context(|| format!("while installing {}", dest.display()))?;

    let mut settings = ctx.settings.clone();
    settings.embedding_model = Some(dest.clone());
    settings
        .save(&ctx.data_dir)
        .context("while saving settings.json")?;
    let bert = BertEmbedder::load(&dest)?;
    print(&format!(
        "installed {} ({}) in {}\n",
        name,
        bert.id(),
        dest.display()
    ));

    let store = Store::new(&ctx.data_dir, "chat", "localm setup-embeddings");
    let swept = backfill::sweep(&store, &bert, usize::MAX, std::io::stderr().is_terminal())?;
    print(&format!(
        "embedded {} existing facts; {} left without a vector\n",
        swept.embedded, swept.remaining
    ));
    Ok(())
}

/// A fresh hidden folder beside the final one, removed first if a previous run left it.
fn staging(root: &Path, name: &str) -> anyhow::Result<PathBuf> {
    let staged = root.join(format!(".{name}.partial"));
    if staged.exists() {
        fs::remove_dir_all(&staged)?;
    }
    fs::create_dir_all(staged.join("1_Pooling"))?;
    Ok(staged)
}

fn copy_model(src: &Path, dest: &Path) -> anyhow::Result<()> {
    for file in FILES {
        let from = src.join(file);
        if from.is_file() {
            fs::copy(&from, dest.join(file))
                .with_context(|| format!("while copying {}", from.display()))?;
        }
    }
    Ok(())
}

/// The Hugging Face hub (`HF_ENDPOINT` overrides it, e.g. for a mirror).
fn hub() -> String {
    std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".to_string())
}

/// Download the model's files from the hub; optional files may be missing.
fn download(repo: &str, dest: &Path) -> anyhow::Result<()> {
    for (i, file) in FILES.iter().enumerate() {
        let url = format!("{}/{repo}/resolve/main/{file}", hub());
        match download_file(&url, &dest.join(file), file) {
            Ok(()) => {}
            Err(Fetch::NotFound) if i >= 3 => continue,
            Err(e) => bail!("{e} (offline? use --from with a local copy)"),
        }
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
enum Fetch {
    #[error("not found")]
    NotFound,
    #[error("{0}")]
    Failed(String),
}

/// Stream `url` into `path`, with a progress bar for large files on a terminal.
fn download_file(url: &str, path: &Path, label: &str) -> Result<(), Fetch> {
    let mut resp = match ureq::get(url).call() {
        Ok(r) => r,
        Err(ureq::Error::StatusCode(404)) => return Err(Fetch::NotFound),
        Err(e) => return Err(Fetch::Failed(format!("cannot download {url}: {e}"))),
    };
    let len = resp
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let bar = match len {
        Some(n) if n > 1 << 20 && std::io::stderr().is_terminal() => {
            let bar = ProgressBar::new(n);
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} {bar:30} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(label.to_string());
            bar
        }
        _ => ProgressBar::hidden(),
    };
    let failed = |e: std::io::Error| Fetch::Failed(format!("while downloading {url}: {e}"));
    let mut reader = resp.body_mut().with_config().limit(8 << 30).reader();
    let mut out = fs::File::create(path).map_err(failed)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf).map_err(failed)?;
        if n == 0 {
            break;
        }
        out.write_all(&buf[..n]).map_err(failed)?;
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    out.sync_all().map_err(failed)
}

/// `localm setup-model`: install a GGUF (copied with `--from`, else the default downloaded),
/// check that it loads, and make it the model in settings.
pub fn model(ctx: &Context, from: Option<&Path>) -> anyhow::Result<()> {
    let dir = models::llm_dir(&ctx.data_dir);
    localm_core::fsutil::create_private_dir(&dir)
        .with_context(|| format!("while creating {}", dir.display()))?;
    let name = match from {
        Some(src) => src
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .context("--from needs a file")?,
        None => models::DEFAULT_LLM_FILE.to_string(),
    };
    let staged = dir.join(format!(".{name}.partial"));
    match from {
        Some(src) => {
            if let Err(reason) = models::llama::check_gguf(src) {
                bail!("cannot install {}: {reason}", src.display());
            }
            fs::copy(src, &staged).with_context(|| format!("while copying {}", src.display()))?;
        }
        None => {
            let url = format!(
                "{}/{}/resolve/main/{}",
                hub(),
                models::DEFAULT_LLM_REPO,
                models::DEFAULT_LLM_FILE
            );
            if let Err(e) = download_file(&url, &staged, &name) {
                let _ = fs::remove_file(&staged);
                bail!("{e} (offline? use --from FILE with a local GGUF)");
            }
        }
    }
    if let Err(e) = models::llama::Llama::load(&staged, None) {
        let _ = fs::remove_file(&staged);
        bail!("the model does not load: {e}");
    }
    let dest = dir.join(&name);
    fs::rename(&staged, &dest).with_context(|| format!("while installing {}", dest.display()))?;
    let mut settings = ctx.settings.clone();
    settings.llm_model = Some(dest.clone());
    settings
        .save(&ctx.data_dir)
        .context("while saving settings.json")?;
    print(&format!("installed {} in {}\n", name, dest.display()));
    Ok(())
}
