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

/// A model `setup-embeddings` downloads: where from, the folder it is installed as, the files
/// whose bytes are pinned, and the prompt its texts need.
struct Download {
    repo: &'static str,
    name: &'static str,
    pinned: &'static [(&'static str, &'static str)],
    prompt: Option<&'static str>,
}

/// English, the default (the best English recall for its size).
const ENGLISH: Download = Download {
    repo: "BAAI/bge-small-en-v1.5",
    name: DEFAULT_EMBEDDER,
    pinned: &[],
    prompt: None,
};

/// `--multilingual`: multilingual-e5-small (MIT, about 100 languages, 384 dimensions). Its
/// tokenizer.json is pinned by sha256 (the bytes the tests' copy has); E5 is trained with
/// "query: " before both texts of a symmetric task, so the folder names that prompt.
const MULTILINGUAL: Download = Download {
    repo: "intfloat/multilingual-e5-small",
    name: "multilingual-e5-small",
    pinned: &[(
        "tokenizer.json",
        "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
    )],
    prompt: Some("query: "),
};
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

pub fn embeddings(ctx: &Context, from: Option<&Path>, multilingual: bool) -> anyhow::Result<()> {
    let choice = if multilingual {
        &MULTILINGUAL
    } else {
        &ENGLISH
    };
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
            let staged = staging(&root, choice.name)?;
            let fetched = download(choice.repo, &staged)
                .and_then(|()| check_pins(&staged, choice.pinned))
                .and_then(|()| choice.prompt.map_or(Ok(()), |p| name_prompt(&staged, p)));
            if let Err(e) = fetched {
                let _ = fs::remove_dir_all(&staged);
                return Err(e);
            }
            (choice.name.to_string(), staged)
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

/// Each pinned file's sha256 is the one expected.
fn check_pins(dir: &Path, pinned: &[(&str, &str)]) -> anyhow::Result<()> {
    use sha2::{Digest, Sha256};
    for (file, want) in pinned {
        let path = dir.join(file);
        let bytes = fs::read(&path).with_context(|| format!("while reading {}", path.display()))?;
        let got: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if got != *want {
            bail!("{file} is not the expected file (sha256 {got}, expected {want})");
        }
    }
    Ok(())
}

/// Name `prompt` as the folder's query prompt in config_sentence_transformers.json, keeping
/// whatever else the file says.
fn name_prompt(dir: &Path, prompt: &str) -> anyhow::Result<()> {
    let path = dir.join("config_sentence_transformers.json");
    let mut config: serde_json::Value = match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not valid JSON", path.display()))?,
        Err(_) => serde_json::json!({}),
    };
    let Some(object) = config.as_object_mut() else {
        bail!("{} is not a JSON object", path.display());
    };
    let prompts = object
        .entry("prompts")
        .or_insert_with(|| serde_json::json!({}));
    if let Some(prompts) = prompts.as_object_mut() {
        prompts.insert("query".into(), prompt.into());
    }
    fs::write(&path, serde_json::to_vec_pretty(&config)?)
        .with_context(|| format!("while writing {}", path.display()))
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
