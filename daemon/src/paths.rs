//! Where localm keeps its files: the data dir (flag, `LOCALM_DATA_DIR`, or the platform's).

use std::path::PathBuf;

use anyhow::Context;

/// The data dir: `--data-dir` / `LOCALM_DATA_DIR` (clap resolves both), else the platform data
/// dir (`~/.local/share/localm` on Linux, `~/Library/Application Support/localm` on macOS).
pub fn data_dir(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = flag.filter(|d| !d.as_os_str().is_empty()) {
        return Ok(dir);
    }
    let base = dirs::data_dir()
        .context("no data dir: set LOCALM_DATA_DIR or pass --data-dir (HOME is not set)")?;
    Ok(base.join("localm"))
}
